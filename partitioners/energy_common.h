/* Internal helpers of the exact energy and Pareto partitioners (eopta, heopta, aleph, hepopta,
 * htpopta, dp_pareto). Not installed; the symbols are hidden from the shared library. */
#ifndef FUPERMOD_ENERGY_COMMON_H
#define FUPERMOD_ENERGY_COMMON_H

#include "partitioners/partitioners.h"

#define FUPERMOD_INTERNAL __attribute__((visibility("hidden")))

/* One candidate of a Pareto set. a and b are the witness (their meaning is the caller's: usually a
 * point index or multiplicity, and the index of the sub-solution it extends); g is the
 * generation order, the last tie-breaker. */
typedef struct fupermod_en_pe {
  double t, e;
  int active;
  int a, b;
  int g; /* generation order; in collected sets, the rank of t */
} fupermod_en_pe;

typedef struct fupermod_en_pset {
  int n, cap;
  fupermod_en_pe *v;
} fupermod_en_pset;

FUPERMOD_INTERNAL int fupermod_en_push(fupermod_en_pset *s, double t, double e, int active, int a, int b);
/* Keep the non-dominated candidates, sorted by increasing time (energies strictly decrease).
 * Among candidates with exactly equal (t, e) the one with fewer active processors is kept, then
 * the one generated first. Comparisons are exact on the computed doubles. */
FUPERMOD_INTERNAL void fupermod_en_nd(fupermod_en_pset *s);
FUPERMOD_INTERNAL void fupermod_en_free(fupermod_en_pset *s);
/* Every time of the problem (0 for idle, then each measured time) by rank, so that a Pareto set
 * is merged with one bucket per time instead of a sort. */
typedef struct fupermod_en_ranks {
  int R;          /* distinct times; rank 0 is time 0 */
  double *times;  /* increasing */
  int **rank;     /* rank[i][k]: rank of point k of processor i */
  int p;
  /* the collector: per rank the best candidate (least energy, then fewer active, then first) */
  int cur, nt;
  int *stamp, *touched;
  fupermod_en_pe *best;
} fupermod_en_ranks;

FUPERMOD_INTERNAL int fupermod_en_ranks_init(fupermod_en_ranks *rk, const fupermod_problem *prob);
FUPERMOD_INTERNAL void fupermod_en_ranks_free(fupermod_en_ranks *rk);
/* Start collecting a new set. */
FUPERMOD_INTERNAL void fupermod_en_begin(fupermod_en_ranks *rk);
/* Offer the entries of sub (a collected set, g = rank) unchanged (an idle processor). */
FUPERMOD_INTERNAL void fupermod_en_add_idle(fupermod_en_ranks *rk, const fupermod_en_pset *sub);
/* Offer the extensions of sub by copies processors taking a point of rank rx and energy ex
 * (energy added once per copy), with witness (pa, index in sub). */
FUPERMOD_INTERNAL void fupermod_en_add_ext(fupermod_en_ranks *rk, const fupermod_en_pset *sub, int rx, double ex,
                                           int copies, int pa);
/* Write the non-dominated collected candidates to s (empty before), by increasing time; the
 * same set and witnesses as fupermod_en_nd on all candidates in offer order. */
FUPERMOD_INTERNAL int fupermod_en_end(fupermod_en_ranks *rk, fupermod_en_pset *s);

/* fupermod_problem_check for alg, plus: finite energies, and D within the sum of the largest
 * sizes (otherwise FUPERMOD_ERR_INFEASIBLE, before any table is allocated). */
FUPERMOD_INTERNAL int fupermod_en_check(const fupermod_problem *prob, const fupermod_partitioner *alg);
/* Clear a front that the caller hands in (out must not be NULL). */
FUPERMOD_INTERNAL int fupermod_en_front_init(fupermod_front *out, const char *who);
/* Evaluate the integer distribution d and append it to out; total selects the total-energy
 * objective (dynamic + static_power * time). */
FUPERMOD_INTERNAL int fupermod_en_front_append(fupermod_front *out, const fupermod_problem *prob,
                                               const long *d, int total);
/* A distribution of least time (exact min-max DP over processors); d has p entries.
 * FUPERMOD_ERR_INFEASIBLE when none exists. */
FUPERMOD_INTERNAL int fupermod_en_time_opt(const fupermod_problem *prob, long *d);
/* The Pareto front of (time, dynamic energy) by HEPOPTA (partitioners/hepopta.c). */
FUPERMOD_INTERNAL int fupermod_en_hepopta(const fupermod_problem *prob, fupermod_front *out);
/* Message for an infeasible D, naming the reason when a simple one exists. */
FUPERMOD_INTERNAL int fupermod_en_infeasible(const fupermod_problem *prob, const char *who);

#endif
