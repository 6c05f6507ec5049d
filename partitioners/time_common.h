/* Internal helpers shared by the exact discrete time partitioners (dp, popta, hpopta, balanced).
 * Not installed. Sizes are rescaled to units of g = gcd of all measured sizes (the granule): the
 * tables of the algorithms grow with D / g, and every composition of D is a multiple of g. */
#ifndef FUPERMOD_TIME_COMMON_H
#define FUPERMOD_TIME_COMMON_H

#include "partitioners/partitioners.h"

/* A problem in granule units. Processor i owns points off[i] .. off[i+1]-1 of x/t/e, by
 * increasing size; sizes above D are kept (some printed algorithms look at them). */
typedef struct fupermod_dtime {
  int p;
  long g;      /* granule: gcd of every measured size */
  long D;      /* workload in granules */
  int *off;    /* p + 1 offsets */
  long *x;     /* sizes in granules */
  double *t;   /* times */
  double *e;   /* energies (NAN where a function has none) */
} fupermod_dtime;

/* Validate prob for alg and out (size p), rescale it, and reject D that no composition can reach
 * (D above the sum of the largest sizes, or not a multiple of the granule) with
 * FUPERMOD_ERR_INFEASIBLE and a message saying why. */
int fupermod_dtime_init(const fupermod_problem *prob, const fupermod_partitioner *alg,
                        const fupermod_dist *out, fupermod_dtime *dt);
/* Only the validation and the rejections of fupermod_dtime_init: dt gets p, g and D, no points
 * (off, x, t, e NULL; fupermod_dtime_finish accepts it). */
int fupermod_dtime_check(const fupermod_problem *prob, const fupermod_partitioner *alg, const fupermod_dist *out,
                         fupermod_dtime *dt);

/* The same without the energies (dt->e = NULL), for the time-only searches. */
int fupermod_dtime_init_times(const fupermod_problem *prob, const fupermod_partitioner *alg,
                              const fupermod_dist *out, fupermod_dtime *dt);
void fupermod_dtime_free(fupermod_dtime *dt);

/* Scale d (granules) back to units and fill out through fupermod_problem_evaluate; fails when
 * value (the algorithm's own objective value) is not the distribution's. */
int fupermod_dtime_finish(const fupermod_problem *prob, const fupermod_dtime *dt, const long *d, int objective,
                          double value, fupermod_dist *out);

/* The error for a D that no combination of sizes reaches (after an exact search). */
int fupermod_dtime_infeasible(const fupermod_problem *prob);

/* ord[0..n-1] = 0..n-1 sorted by (t ascending, x ascending). */
int fupermod_dtime_order(const long *x, const double *t, int n, int *ord);

/* Refuse tables of more than this many cells (memory), with FUPERMOD_ERR_NOMEM. */
#define FUPERMOD_DTIME_MAX_CELLS (1L << 28)
int fupermod_dtime_table_check(const char *who, long rows, long cols);

/* Exact DP over processors and workloads (dp.c). objective TIME: minimise the largest time;
 * ENERGY: minimise the sum of energies. Only points with tlo <= t <= thi are used (pass
 * -INFINITY/INFINITY for all). Writes the optimal value (INFINITY when D cannot be composed)
 * and, when feasible, the witness d[0..p-1] in granules. Tie rule: see dp.c. */
int fupermod_dtime_dp(const fupermod_dtime *dt, int objective, double tlo, double thi, long *d,
                      double *value);
/* The same recurrence over every workload 0..dt->D at once (rows not restricted to the workloads
 * that lead to dt->D), read afterwards for any v <= dt->D: fupermod_dtime_dp_pick gives the value
 * and witness fupermod_dtime_dp gives for D = v, bit for bit (the same operations fill the cells
 * both read). The table is read-only after it is built. */
typedef struct fupermod_dtime_table fupermod_dtime_table;
int fupermod_dtime_dp_table(const fupermod_dtime *dt, int objective, fupermod_dtime_table **out);
int fupermod_dtime_dp_pick(const fupermod_dtime_table *T, long v, long *d, double *value);
void fupermod_dtime_dp_table_free(fupermod_dtime_table *T);

#endif
