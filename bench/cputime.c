/* CPU time of whole commands, interleaved: `bench/cputime ROUNDS FILE`, FILE holding one command
 * a line (arguments split at blanks, no quoting). Every round runs each command once, round r
 * from command r mod N on, in order; output goes to /dev/null. The CPU time of a run is its user +
 * system time (wait4), which counts every thread and nothing of this harness. Prints per command
 * the median, the minimum and the maximum, in ms. Interleaving spreads the machine's drift over
 * all commands alike, so that their ratios hold where their absolute times move by 30 % from
 * minute to minute (a shared VM); the rotation spreads what a command leaves behind (a big
 * process's freed memory, cold caches) over the commands after it instead of charging it to one. */
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>

extern char **environ;

#define MAX_CMDS 64
#define MAX_ARGS 4096

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  static char *av[MAX_CMDS][MAX_ARGS], line[1 << 17];
  char *text[MAX_CMDS];
  int rounds, nc = 0;
  double *cpu;
  FILE *fp;
  posix_spawn_file_actions_t fa;
  if (argc != 3 || (rounds = atoi(argv[1])) < 1) {
    fprintf(stderr, "usage: %s ROUNDS FILE (one command a line)\n", argv[0]);
    return 2;
  }
  if (!(fp = fopen(argv[2], "r"))) {
    perror(argv[2]);
    return 1;
  }
  while (fgets(line, sizeof line, fp)) {
    char *s;
    int k = 0;
    line[strcspn(line, "\n")] = '\0';
    if (!line[0] || line[0] == '#') continue;
    if (nc == MAX_CMDS) {
      fprintf(stderr, "%s: more than %d commands\n", argv[2], MAX_CMDS);
      return 2;
    }
    text[nc] = strdup(line);
    s = strdup(line);
    for (char *t = strtok(s, " "); t; t = strtok(NULL, " ")) {
      if (k == MAX_ARGS - 1) {
        fprintf(stderr, "%s: a command of more than %d arguments\n", argv[2], MAX_ARGS - 2);
        return 2;
      }
      av[nc][k++] = t;
    }
    av[nc][k] = NULL;
    if (k > 0) nc++;
  }
  fclose(fp);
  if (!(cpu = calloc((size_t)nc * (size_t)rounds, sizeof *cpu))) return 1;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  for (int r = 0; r < rounds; r++)
    for (int j = 0; j < nc; j++) {
      int c = (r + j) % nc; /* each round starts one command later: each follows every other alike */
      pid_t pid;
      int st;
      struct rusage ru;
      if (posix_spawn(&pid, av[c][0], &fa, NULL, av[c], environ) != 0) {
        fprintf(stderr, "cannot run %s\n", av[c][0]);
        return 1;
      }
      if (wait4(pid, &st, 0, &ru) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        fprintf(stderr, "failed (status %d): %s\n", st, text[c]);
        return 1;
      }
      cpu[(size_t)c * rounds + r] = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
                                    (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-3;
    }
  printf("%10s %10s %10s  command (CPU ms over %d interleaved rounds)\n", "median", "min", "max", rounds);
  for (int c = 0; c < nc; c++) {
    double *v = cpu + (size_t)c * rounds;
    qsort(v, (size_t)rounds, sizeof *v, cmp);
    printf("%10.3f %10.3f %10.3f  %.100s\n", rounds % 2 ? v[rounds / 2] : (v[rounds / 2 - 1] + v[rounds / 2]) / 2,
           v[0], v[rounds - 1], text[c]);
  }
  return 0;
}
