/* Internal to PARALEPH: the problem as every rank holds it after the broadcast, the column
 * ownership, and MPI helpers that do nothing when the run has a single rank (so the engine also
 * works without MPI_Init, for the sequential tools). Not installed. */
#ifndef FUPERMOD_PARALEPH_IMPL_H
#define FUPERMOD_PARALEPH_IMPL_H

#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
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

#ifndef FUPERMOD_INTERNAL
#define FUPERMOD_INTERNAL __attribute__((visibility("hidden")))
#endif

/* One run of the wavefront on this rank: its columns, lists, storage and counters (paraleph.c). */
typedef struct pl_run {
  pl_ctx *ctx;
  const pl_problem *P;
  pl_list *lists;   /* per function */
  double *sm_all;   /* suffix minimum of the times over every function */
  pl_kernel_fn kern;
  int op, idle, threads, kind, band;
  pl_layout lay;
  int *cut;         /* cut[r] = first column of rank r, cut[active] = p + 1 (cost-balanced) */
  size_t ld;        /* D + 1: rows of a pointer column */
  /* values: a cell reads rows v - X .. v of the column to its left only, so each column keeps a
   * ring of W >= X + 2 rows (slot = row & gm; slots 0..15 repeated after the end for
   * contiguous 16-row loads); the full table is kept only when a caller asks for it */
  long W, gm;
  size_t rs;        /* ring stride: W + 16 */
  double *ring;     /* nb rings */
  double *left;     /* column h0 - 1: rank 0 the base column (whole), else a ring */
  long left_gm;
  int16_t *p16;     /* pointers, nb columns of ld rows (int16 when every m < 32768) */
  int32_t *p32;
  double *full;     /* optional: nb columns of ld values */
  double *sbuf;     /* rows of the last column as sent to the right (stable for MPI_Isend) */
  MPI_Request *sreq; /* PL_SENDS send requests in flight */
  double evals, cells, table_time;
  long messages;
} pl_run;

static inline int32_t pl_run_ptr(const pl_run *R, size_t c, long v) {
  return R->p16 ? R->p16[c * R->ld + (size_t)v] : R->p32[c * R->ld + (size_t)v];
}

/* Value of local column c at row v (v within the last W rows written). */
static inline double pl_run_val(const pl_run *R, size_t c, long v) {
  return R->ring[c * R->rs + (size_t)(v & R->gm)];
}

/* Lists, storage and the whole table (collective; the status is agreed). keep_full keeps every
 * value for a table copy; band 0 takes the default. */
FUPERMOD_INTERNAL int fupermod_paraleph_run_table(pl_ctx *ctx, pl_problem *P, int op, int idle, int threads,
                                                  int kernel, int keep_full, int band, pl_run *R);
FUPERMOD_INTERNAL void fupermod_paraleph_run_free(pl_run *R);
/* Traceback from (D, hstart) into d[0..p-1] on every rank; columns above hstart are idle. */
FUPERMOD_INTERNAL void fupermod_paraleph_traceback(pl_ctx *ctx, const pl_run *R, int hstart, long *d);
/* Statistics reduced over the ranks (collective even where st is NULL). */
FUPERMOD_INTERNAL void fupermod_paraleph_finish_stats(pl_ctx *ctx, const pl_run *R, double t0, double objective,
                                                      fupermod_paraleph_stats *st);

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
