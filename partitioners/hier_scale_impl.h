/* HiSCALE internals shared by the time (hier_scale.c) and energy (hier_scale_energy.c) files. */
#ifndef FUPERMOD_HIER_SCALE_IMPL_H
#define FUPERMOD_HIER_SCALE_IMPL_H

#include <stdint.h>
#include "partitioners/hier.h"

/* One node's device functions, with a dense size -> point index map per device. */
typedef struct fupermod_hs_node {
  int p, pcap, mcap;
  fupermod_hscale_fn *fn;
  long *xbuf;
  double *tbuf, *ebuf;
  int **idx;     /* idx[i][x] = point of size x, or -1 (x <= xmax[i]) */
  long *xmax;
  size_t *idxcap;
} fupermod_hs_node;

int fupermod_hs_node_load(const fupermod_hscale_problem *prob, int k, int energy, fupermod_hs_node *nd);
void fupermod_hs_node_free(fupermod_hs_node *nd);

/* Membership of v (0 <= v <= M[i]) in item i's set; v = 0 and v = M[i] always belong. */
typedef int (*fupermod_hs_member)(const void *ctx, int i, long v);

/* Reductions delta[items[j]] (M - delta in the item's set) summing to r: greedy runs below the
 * tops first, then an exact subset-sum over [0, r] (bitsets; every row kept for the witness when
 * delta != NULL). 1: found, 0: none, < 0: error status. *exact counts the subset-sum runs. */
int fupermod_hs_reduce(int n, const int *items, const long *M, fupermod_hs_member in, const void *ctx, long r,
                       long *delta, long *exact);

/* Items enter by decreasing top (lower index on ties); the shortest prefix of that order that can
 * take target exactly is used, the others stay idle. x[i] gets the values (sum target). 1 found,
 * 0 none, < 0 error. */
int fupermod_hs_fewest(int n, const long *M, fupermod_hs_member in, const void *ctx, long target, long *x,
                       long *exact);

/* Nodes [*k0, *k1) of this rank (all with comm MPI_COMM_NULL). */
void fupermod_hs_block(MPI_Comm comm, int q, int *k0, int *k1);
/* Agreed status: the first error by rank order, or success. */
int fupermod_hs_agree(MPI_Comm comm, int rc);
/* The first failure of the worker threads of a parallel region, with its message, which
 * fupermod_error records for the failing thread only: kept (inside the region, in a critical
 * section), then recorded again for the calling thread after it unless rc already failed. */
typedef struct fupermod_hs_fail {
  int rc;
  char msg[1024];
} fupermod_hs_fail;
void fupermod_hs_fail_keep(fupermod_hs_fail *f, int trc);
int fupermod_hs_fail_take(const fupermod_hs_fail *f, int rc);
/* Concatenation by rank of every rank's n doubles (or longs) into *all (malloc). */
int fupermod_hs_gather(MPI_Comm comm, const void *mine, long n, MPI_Datatype type, size_t size, void **all);
/* What a solver (time or energy) runs on: the problem, this rank's nodes [k0, k1), every node's
 * first device (q + 1 entries) and the count of exact subset-sum checks. */
typedef struct fupermod_hs_run {
  MPI_Comm comm;
  const fupermod_hscale_problem *prob;
  int q, k0, k1;
  long *first;
  long exact;
} fupermod_hs_run;
/* A solver's start: res allocated for prob (res NULL, a bad problem: usage error), run set. */
int fupermod_hs_start(MPI_Comm comm, const fupermod_hscale_problem *prob, fupermod_hscale_result *res,
                      fupermod_hs_run *run);
/* A solver's end: its exact checks into res, res freed unless rc is success, run freed. Returns rc. */
int fupermod_hs_end(fupermod_hs_run *run, int rc, fupermod_hscale_result *res);
/* Collective: the device shares of every rank's nodes [k0, k1) (first: each node's first device,
 * q + 1 entries) into res->share. */
int fupermod_hs_gather_shares(MPI_Comm comm, const long *first, int k0, int k1, fupermod_hscale_result *res);
double fupermod_hs_now(void);
int fupermod_hs_result_alloc(const fupermod_hscale_problem *prob, fupermod_hscale_result *res, int *total);
/* Order-preserving map of doubles to unsigned integers, and back. */
uint64_t fupermod_hs_key(double v);
double fupermod_hs_unkey(uint64_t k);

#endif
