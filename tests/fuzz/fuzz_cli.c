/* libFuzzer target: the command-line options of `fupermod partition` and `fupermod model`.
 * The input's first byte picks the subcommand; the rest is split into arguments at newlines.
 * Each run happens inside a scratch directory holding two point files (entered and left around
 * the call: libFuzzer reads its corpus relative to the start directory). Arguments with '/' or
 * ".." are refused, so that fuzzed -o and --plot names can only write there, and paraleph
 * (which starts MPI) is refused. run.sh passes -close_fd_mask=3 to drop the tools' output. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tools/tools.h"

static char sandbox[4096];

static void setup(void) {
  FILE *fp;
  if (sandbox[0]) return;
  /* run.sh points TMPDIR at a directory it removes afterwards */
  snprintf(sandbox, sizeof sandbox, "%s/fuzz-cli-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  if (!mkdtemp(sandbox)) abort();
  fp = fopen(strcat(strcpy((char[4200]){0}, sandbox), "/a.points"), "w");
  fprintf(fp, "10 0.1 3 0.001 1 0\n20 0.2 3 0.001 2 0\n40 0.5 3 0.001 5 0\n");
  fclose(fp);
  fp = fopen(strcat(strcpy((char[4200]){0}, sandbox), "/b.points"), "w");
  fprintf(fp, "10 0.2 3 0.001 1 0\n30 0.5 3 0.001 2 0\n");
  fclose(fp);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
  char *buf, *argv[33];
  int argc = 0, here;
  setup();
  if (size < 1 || size > 2000) return 0;
  buf = malloc(size);
  memcpy(buf, data + 1, size - 1);
  buf[size - 1] = '\0';
  argv[argc++] = data[0] & 1 ? "model" : "partition";
  for (char *s = buf, *e; s && argc < 32; s = e) {
    e = strchr(s, '\n');
    if (e) *e++ = '\0';
    if (strchr(s, '/') || strstr(s, "..") || strstr(s, "paraleph") || strlen(s) > 64) {
      free(buf);
      return 0;
    }
    argv[argc++] = s;
  }
  argv[argc] = NULL;
  if ((here = open(".", O_RDONLY | O_DIRECTORY)) < 0 || chdir(sandbox) != 0) abort();
  if (data[0] & 1) cmd_model(argc, argv);
  else cmd_partition(argc, argv);
  if (fchdir(here) != 0) abort();
  close(here);
  free(buf);
  return 0;
}
