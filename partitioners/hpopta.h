/* HPOPTA with its search trace (a test hook; the partitioner itself is "hpopta" in the registry). */
#ifndef FUPERMOD_HPOPTA_H
#define FUPERMOD_HPOPTA_H

#include "partitioners.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* the public API; the libraries build with -fvisibility=hidden */

/* One state of the time threshold: the load-equal start (step 0), then every solution that
 * lowered tau. Sizes in the units of the problem. */
typedef struct fupermod_hpopta_step {
  double tau;  /* threshold: time of x (+inf when the load-equal start is infeasible) */
  long *x;     /* p sizes */
  long *sigma; /* p size thresholds sigma_0..sigma_{p-1} computed for tau */
} fupermod_hpopta_step;

typedef struct fupermod_hpopta_trace {
  int count;
  fupermod_hpopta_step *steps;
  int first_cut_level; /* the first node removed by the size-threshold cut: level and workload */
  long first_cut_w;    /* (-1, -1 when nothing was cut) */
  long nodes;          /* kernel invocations */
  long node_limit;     /* in: default mode only: run the thesis search with this budget of kernel
                          invocations first (0: no thesis search, the pruned search answers) */
  int fell_back;       /* out: 1 when the default mode hit the budget and the pruned search answered */
} fupermod_hpopta_trace;

/* Run hpopta (prob->faithful selects the mode) and record its trace (trace may be NULL; set
 * trace->node_limit before the call, the other fields are outputs). */
int fupermod_hpopta_traced(const fupermod_problem *prob, fupermod_dist *out, fupermod_hpopta_trace *trace);
void fupermod_hpopta_trace_free(fupermod_hpopta_trace *trace);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
