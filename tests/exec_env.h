/* $FUPERMOD_TEST_EXEC for the MPI tests of the applications (tests/standin_*.sh): the executor
 * of this rank, its item of a comma-separated list taken in turn by the ranks: "cpu:THREADS" or
 * "cuda:DEVICE[:LIMIT_BYTES]". */
#ifndef FUPERMOD_TESTS_EXEC_ENV_H
#define FUPERMOD_TESTS_EXEC_ENV_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fupermod/fupermod.h"

static inline int test_exec_open(const char *spec, int rank, fupermod_exec **ex) {
  char item[64];
  int count = 1, k;
  fupermod_exec_opts o = {.kind = FUPERMOD_EXEC_CPU, .threads = 1, .cuda_device = 0, .mem_limit = 0};
  for (const char *c = spec; *c; c++) count += *c == ',';
  k = rank % count;
  for (const char *c = spec; k > 0; c++)
    if (*c == ',') k--, spec = c + 1;
  snprintf(item, sizeof item, "%.*s", (int)strcspn(spec, ","), spec);
  if (strncmp(item, "cpu:", 4) == 0) o.threads = atoi(item + 4);
  else if (strncmp(item, "cuda:", 5) == 0) {
    char *lim = strchr(item + 5, ':');
    o.kind = FUPERMOD_EXEC_CUDA;
    o.cuda_device = atoi(item + 5);
    if (lim) o.mem_limit = atof(lim + 1);
  } else
    return fupermod_error(FUPERMOD_ERR_USAGE, "FUPERMOD_TEST_EXEC item '%s'", item);
  return fupermod_exec_open(&o, ex);
}

#endif
