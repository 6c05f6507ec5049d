/* Whole-run partitioning: which processes work at all, and how much each does, when a process's
 * cost depends on who else works (communication with every other working process, for example),
 * so that leaving some processes idle can pay (partitioners/whole.c, docs/algorithms.md). */
#ifndef FUPERMOD_WHOLE_H
#define FUPERMOD_WHOLE_H

#include <stdint.h>
#include <fupermod/fupermod.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* the public API; the libraries build with -fvisibility=hidden */

/* Cost of process i doing d >= 1 units when exactly the processes in the bit mask `working` work
 * (bit i set); INFINITY where i cannot take d. */
typedef double (*fupermod_whole_cost)(int i, long d, uint64_t working, void *ctx);

/* How the optimum was searched: every working set, or the nested heuristic (large problems). */
enum fupermod_whole_mode { FUPERMOD_WHOLE_EXACT = 0, FUPERMOD_WHOLE_NESTED = 1 };

typedef struct fupermod_whole_result {
  double time;      /* the objective at the optimum found */
  uint64_t working; /* its working set */
  int mode;         /* FUPERMOD_WHOLE_EXACT: every working set searched; NESTED: the heuristic */
  long sets;        /* working sets searched */
} fupermod_whole_result;

/* Minimise over non-empty working sets S of {0..p-1} and integer shares d (d_i >= 1 for i in S,
 * d_i = 0 outside, sum d_i = units) the objective max_{i in S} cost(i, d_i, S).
 * Exact (every S, each by a min-max dynamic programme over the units) when 2^p * p * units^2 <=
 * max_work (0: the default 2e9); otherwise NESTED: the sets {first k} for k = 1..p of the processes
 * ordered by cost(i, ceil(units/p), all) ascending, each solved exactly.
 * d: p entries, the shares. 1 <= p <= 63, units >= 1. Ties: the smallest time, then the set with
 * fewer processes, then the lowest mask. Returns FUPERMOD_SUCCESS, FUPERMOD_ERR_USAGE for bad
 * arguments (message names the parameter), FUPERMOD_ERR_INFEASIBLE when every choice is infinite,
 * FUPERMOD_ERR_NOMEM. Thread-safe. */
int fupermod_whole_partition(int p, long units, fupermod_whole_cost cost, void *ctx, double max_work,
                             long *d, fupermod_whole_result *res);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
