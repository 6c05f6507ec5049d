/* PARALEPH: the hybrid MPI+OpenMP dynamic-programming partitioner (partitioners/paraleph.c).
 *
 * Table dpt(v, h) = best objective for v units on processors 1..h (column h uses processor h's
 * own function; a processor is idle or takes a measured size):
 *   dpt(0, 0) = 0, dpt(v > 0, 0) = inf,
 *   dpt(v, h) = min( dpt(v, h-1)  [idle],  min_{x in sizes_h, x <= v} F(f_h(x), dpt(v-x, h-1)) )
 * with F = max, f = t (time) or F = +, f = e (dynamic energy). Ties: idle first, then the
 * smallest size. Cells are computed along anti-diagonals v + h; columns are split in contiguous
 * blocks over the ranks of comm, the cells of a diagonal over OpenMP threads; neighbour ranks
 * exchange one double per diagonal. Every (ranks, threads) run gives a table bitwise equal to
 * fupermod_paraleph_sequential. Inputs are read on root only; results are on every rank.
 * Errors are agreed: every rank returns the same status. If threads > 1 and comm has more than
 * one rank, initialise MPI with at least MPI_THREAD_FUNNELED (MPI is called by one thread). */
#ifndef FUPERMOD_PARALEPH_H
#define FUPERMOD_PARALEPH_H
#include <stddef.h>
#include <mpi.h>
#include "partitioners.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* the public API; the libraries build with -fvisibility=hidden */

/* Inner-loop implementation (all return identical bits; PLAIN is the unpruned reference loop).
 * Pruned kernels skip only candidates proven strictly worse (partitioners/paraleph_kernel.c). */
enum fupermod_paraleph_kernel {
  FUPERMOD_PARALEPH_AUTO = 0,   /* BOUNDED_AVX512 where the CPU has AVX-512, else BOUNDED */
  FUPERMOD_PARALEPH_PLAIN = 1,  /* every size in increasing order, no pruning */
  FUPERMOD_PARALEPH_SCALAR = 2, /* sizes sorted by a one-key bound, scalar */
  FUPERMOD_PARALEPH_AVX2 = 3,   /* the same with AVX2 gathers (FUPERMOD_ERR_USAGE if unsupported) */
  FUPERMOD_PARALEPH_AVX512 = 4, /* the same with AVX-512 gathers (FUPERMOD_ERR_USAGE if unsupported) */
  FUPERMOD_PARALEPH_BOUNDED = 5, /* max: window scan of contiguous sizes; sum: Lagrangian bound */
  FUPERMOD_PARALEPH_BOUNDED_AVX512 = 6, /* the same, window blocks in AVX-512 */
  FUPERMOD_PARALEPH_FULL_AVX512 = 7 /* no pruning, 16 contiguous sizes per AVX-512 step */
};

/* The whole table of a run: val[(h-1)*(D+1) + v] = dpt(v, h) and ptr[...] = index of the size
 * processor h takes in its function, or -1 (idle, or no finite option), h = 1..p, v = 0..D. */
typedef struct fupermod_paraleph_table {
  long D;
  int p;
  double *val;
  int *ptr;
} fupermod_paraleph_table;

void fupermod_paraleph_table_free(fupermod_paraleph_table *tab);

/* Measurements of one call (times are the maximum over ranks, counts the sum over ranks). */
typedef struct fupermod_paraleph_stats {
  double objective;    /* dpt(D, p) (Pareto: unused; SUMMA: computation + communication) */
  double time;         /* wall time of the call, s */
  double table_time;   /* wavefront only, s */
  double comm_time;    /* in MPI calls (broadcasts, wavefront messages, traceback), s */
  size_t mem_rank;     /* bytes allocated by the busiest rank (table, pointers, lists, buffers) */
  double cells;        /* cells computed */
  double evals;        /* candidate evaluations (inner-loop iterations) */
  long messages;       /* point-to-point messages of the wavefront */
  int nprocs;          /* ranks that own columns */
  int threads;         /* OpenMP threads per rank */
  const char *kernel;  /* "bounded-avx512", "bounded", "full-avx512", "avx512", "avx2", "scalar", "plain" */
} fupermod_paraleph_stats;

/* Options beyond the common call; zero-initialise for the defaults. */
typedef struct fupermod_paraleph_opts {
  int threads;                    /* OpenMP threads per rank; <= 0: omp_get_max_threads() */
  int kernel;                     /* enum fupermod_paraleph_kernel */
  int band;                       /* anti-diagonals per band (1 = the paper's one at a time);
                                     <= 0: the default, 64 */
  fupermod_paraleph_table *table; /* if not NULL: the whole table is returned here on root */
} fupermod_paraleph_opts;

/* Single objective: objective FUPERMOD_OBJ_TIME (-F max) or FUPERMOD_OBJ_ENERGY (-F sum).
 * prob is read on root only (NULL elsewhere is fine); *out is allocated on every rank
 * (fupermod_dist_free), with parts[i].t and .e predicted from the functions (e = NAN without
 * energy). stats may be NULL. FUPERMOD_ERR_INFEASIBLE on every rank if no distribution exists. */
int fupermod_paraleph(MPI_Comm comm, int root, const fupermod_problem *prob, int objective,
                      int threads, fupermod_dist **out, fupermod_paraleph_stats *stats);
int fupermod_paraleph_opt(MPI_Comm comm, int root, const fupermod_problem *prob, int objective,
                          const fupermod_paraleph_opts *opts, fupermod_dist **out,
                          fupermod_paraleph_stats *stats);

/* Exact Pareto front of (time, dynamic energy) (objective FUPERMOD_OBJ_PARETO) or of (time,
 * dynamic + static_power * time) (FUPERMOD_OBJ_PARETO_TOTAL): the same wavefront with cells that
 * hold non-dominated (time, energy) sets (a parallel exact HEPOPTA/ALEPH). *out is filled on
 * every rank (fupermod_front_free). Cells grow with the front; meant for moderate D and p. */
int fupermod_paraleph_pareto(MPI_Comm comm, int root, const fupermod_problem *prob, int objective,
                             int threads, fupermod_front *out, fupermod_paraleph_stats *stats);

/* Communication-aware time partitioning for SUMMA on a sqrt(c) x sqrt(c) grid (Hockney model,
 * scatter by binomial tree + ring allgather, as in the paper):
 *   C(c) = (log2 c + 2 (sqrt c - 1)) alpha N / b + 4 (1 - 1/sqrt c) beta N^2 / sqrt c.
 * The cost depends on the number c of busy processors, not on a cell, so the table is computed
 * without the idle option (processors 1..c all busy) and c* = argmin_c dpt(D, c) + C(c) (the
 * smallest c on ties); processors c*+1..p are idle. Put the processors in the order they should
 * be used. */
typedef struct fupermod_summa_comm {
  double alpha; /* latency, s */
  double beta;  /* transfer time per matrix element, s */
  double N;     /* matrix dimension (elements) */
  double b;     /* SUMMA block size (elements) */
} fupermod_summa_comm;

double fupermod_summa_comm_time(const fupermod_summa_comm *cm, int c);

/* stats->objective = dpt(D, c*) + C(c*); *comm_time (if not NULL) = C(c*). */
int fupermod_paraleph_summa(MPI_Comm comm, int root, const fupermod_problem *prob,
                            const fupermod_summa_comm *cm, int threads, fupermod_dist **out,
                            double *comm_time, fupermod_paraleph_stats *stats);

/* Sequential reference: the plain recurrence, one thread, no MPI, every cell in column order.
 * idle = 0 gives the table without the idle option (as used by fupermod_paraleph_summa). */
int fupermod_paraleph_sequential(const fupermod_problem *prob, int objective, int idle,
                                 fupermod_paraleph_table *tab);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
