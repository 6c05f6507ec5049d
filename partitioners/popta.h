/* POPTA with the trace of its kernel's sub-calls (a test hook; the partitioner itself is "popta"
 * in the registry). */
#ifndef FUPERMOD_POPTA_H
#define FUPERMOD_POPTA_H

#include "partitioners.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* the public API; the libraries build with -fvisibility=hidden */

/* What a step of the kernel's loop (Alg. 2, lines 10-37) did with its left part. */
enum fupermod_popta_how {
  FUPERMOD_POPTA_CALL = 0,       /* POPTAKernel(n, q, B, E) invoked (q = 1: the leaf, line 2) */
  FUPERMOD_POPTA_MEMO = 1,       /* memorised distribution reused (lines 24-26), no call */
  FUPERMOD_POPTA_BALANCED = 2,   /* balanced left part taken as optimal (lines 33-37), no call */
  FUPERMOD_POPTA_ALL_RIGHT = 3,  /* n_l = 0 (lines 13-17) */
  FUPERMOD_POPTA_INFEASIBLE = 4  /* B_l > |X| (line 20) */
};

/* One entry: the driver's call (level 0, nr = r = 0), or one step (nr, r) of a kernel at depth
 * level - 1 with its left part (n, q). Sizes in the units of the problem. */
typedef struct fupermod_popta_call {
  int level;
  long nr;  /* right size given to r processors */
  int r;
  long n;   /* left workload */
  int q;    /* processors for it */
  long B;   /* floor(n / q) */
  double E; /* the time line the left part gets: min(E_l, t_r) in the recursive branch, else E_l */
  int how;  /* enum fupermod_popta_how */
} fupermod_popta_call;

typedef struct fupermod_popta_trace {
  int count;
  fupermod_popta_call *calls;
  int shortcut;  /* the driver's balanced shortcut answered (no kernel call) */
  int fell_back; /* the printed search found nothing and the exact one answered */
} fupermod_popta_trace;

/* Run popta in its faithful mode (whatever prob->faithful says: the trace is of the printed
 * kernel) and record its sub-calls in order (depth first). On error the trace is empty.
 * trace = NULL: plain popta (prob->faithful selects the mode). */
int fupermod_popta_traced(const fupermod_problem *prob, fupermod_dist *out, fupermod_popta_trace *trace);
void fupermod_popta_trace_free(fupermod_popta_trace *trace);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
