/* Internal to PARALEPH: the problem as every rank holds it after the broadcast, the column
 * ownership, and MPI helpers that do nothing when the run has a single rank (so the engine also
 * works without MPI_Init, for the sequential tools). Not installed. */
#ifndef FUPERMOD_PARALEPH_IMPL_H
#define FUPERMOD_PARALEPH_IMPL_H

#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <mpi.h>
#include "partitioners/paraleph.h"
#include "partitioners/paraleph_kernel.h"

typedef struct pl_ctx {
  MPI_Comm comm; /* a duplicate of the caller's communicator; MPI_COMM_NULL if single */
  int size, rank, root;
  double comm_time;
  size_t mem;
} pl_ctx;

/* Every rank's copy of the problem: distinct functions and the processor -> function map. */
typedef struct pl_problem {
  long D;
  int p, objective, nf, has_energy;
  double static_power;
  int *map;    /* p */
  int *m;      /* nf: points of each function */
  long **d;    /* nf arrays of sizes (into one block) */
  double **t;  /* nf arrays of times */
  double **e;  /* nf arrays of energies (0 where absent) */
  long *maxsum; /* maxsum[h], h = 0..p: the most units processors 1..h can take (<= D+1) */
  long *dblk;
  double *tblk, *eblk;
} pl_problem;

/* Contiguous column blocks: rank r < active owns nb columns from h0 (1-based). */
typedef struct pl_layout {
  int active; /* ranks that own columns: min(size, p) */
  int h0, nb; /* this rank's block (nb = 0 if none) */
} pl_layout;

int fupermod_paraleph_ctx_open(MPI_Comm comm, int root, pl_ctx *ctx);
void fupermod_paraleph_ctx_close(pl_ctx *ctx);
/* Agree on a status: the minimum (most negative... i.e. any error) over ranks; the message of
 * the lowest failing rank is recorded on every rank. */
int fupermod_paraleph_agree(pl_ctx *ctx, int status);
void fupermod_paraleph_bcast(pl_ctx *ctx, void *buf, int count, MPI_Datatype type, int root);

/* Root validates prob for objective and broadcasts it; the status is agreed. */
int fupermod_paraleph_problem_bcast(pl_ctx *ctx, const fupermod_problem *prob, int objective,
                                    pl_problem *P);
void fupermod_paraleph_problem_free(pl_problem *P);
void fupermod_paraleph_layout(int size, int rank, int p, pl_layout *lay);
/* First column of rank r's block. */
int fupermod_paraleph_first(int r, int active, int p);

/* Build the distribution d[0..p-1] on every rank into a new dist with predicted t and e. */
int fupermod_paraleph_make_dist(const pl_problem *P, const long *d, fupermod_dist **out);

void *fupermod_paraleph_alloc(pl_ctx *ctx, size_t bytes);
double fupermod_paraleph_now(void);

/* Per-diagonal synchronisation of the threads of one rank. A short spin, then sched_yield():
 * OpenMP's barriers spin for ~1e5 iterations, which with more threads than cores (ranks x
 * threads > cores, common in tests) costs a time slice per diagonal. */
typedef struct pl_sync {
  atomic_int count, sense;
  atomic_long next[2]; /* work counter of diagonals L even / odd */
  int n;
} pl_sync;

static inline void pl_sync_init(pl_sync *s, int n) {
  atomic_init(&s->count, 0);
  atomic_init(&s->sense, 0);
  atomic_init(&s->next[0], 0);
  atomic_init(&s->next[1], 0);
  s->n = n;
}

static inline void pl_sync_barrier(pl_sync *s, int *local_sense) {
  *local_sense = !*local_sense;
  if (atomic_fetch_add_explicit(&s->count, 1, memory_order_acq_rel) == s->n - 1) {
    atomic_store_explicit(&s->count, 0, memory_order_relaxed);
    atomic_store_explicit(&s->sense, *local_sense, memory_order_release);
  } else {
    for (int spin = 0; atomic_load_explicit(&s->sense, memory_order_acquire) != *local_sense; spin++)
      if (spin > 256) sched_yield();
#if defined(__x86_64__) || defined(__i386__)
      else __builtin_ia32_pause();
#endif
  }
}

/* Grab the next chunk of diagonal L's work items [0, n); returns the first item or n if none. */
static inline long pl_sync_grab(pl_sync *s, long L, long chunk, long n) {
  long k = atomic_fetch_add_explicit(&s->next[L & 1], chunk, memory_order_relaxed);
  return k < n ? k : n;
}

#endif
