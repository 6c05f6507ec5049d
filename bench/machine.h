/* The CPU model, for the benchmarks' headers (header-only: each bench program is one file). */
#ifndef FUPERMOD_BENCH_MACHINE_H
#define FUPERMOD_BENCH_MACHINE_H
#include <stdio.h>
#include <string.h>

static void machine(char *buf, size_t n) {
  FILE *fp = fopen("/proc/cpuinfo", "r");
  char line[512];
  snprintf(buf, n, "unknown CPU");
  if (!fp) return;
  while (fgets(line, sizeof line, fp))
    if (!strncmp(line, "model name", 10)) {
      char *c = strchr(line, ':');
      if (c) {
        c[strcspn(c, "\n")] = 0;
        snprintf(buf, n, "%s", c + 2);
      }
      break;
    }
  fclose(fp);
}
#endif
