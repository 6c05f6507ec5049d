/* Partitioning algorithms, registered by name (one algorithm per file in partitioners/).
 * Continuous algorithms take models (FuPerMod signature, fupermod_partition);
 * discrete algorithms take the measured functions exactly (sizes as measured, 0 = idle). */
#ifndef FUPERMOD_PARTITIONERS_H
#define FUPERMOD_PARTITIONERS_H

#include <fupermod/fupermod.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* the public API; the libraries build with -fvisibility=hidden */

enum fupermod_objective {
  FUPERMOD_OBJ_TIME = 0,   /* minimise max_i t_i(d_i) */
  FUPERMOD_OBJ_ENERGY = 1, /* minimise sum_i e_i(d_i) (dynamic energy) */
  FUPERMOD_OBJ_PARETO = 2, /* Pareto front of (time, dynamic energy) */
  FUPERMOD_OBJ_PARETO_TOTAL = 3 /* Pareto front of (time, dynamic + static_power * time) */
};

/* A discrete partitioning problem: distribute D units over p processors; processor i may
 * take 0 units (idle: t = e = 0) or any size d in its function f[i] (points sorted by d). */
typedef struct fupermod_problem {
  long D;
  int p;
  const fupermod_points *const *f; /* p functions; entries may alias (homogeneous case) */
  double static_power;             /* W, for total energy (htpopta) */
  int faithful;                    /* reproduce the printed algorithm instead of the exact one */
  int objective;                   /* for "dp": enum fupermod_objective */
} fupermod_problem;

/* One point of a Pareto front: objectives and a witness distribution. */
typedef struct fupermod_front_point {
  double time;
  double energy;         /* the objective's energy (total energy for PARETO_TOTAL) */
  double dynamic_energy; /* sum of dynamic energies */
  fupermod_dist *dist;
} fupermod_front_point;

/* A Pareto front, ordered by increasing time (then increasing energy). */
typedef struct fupermod_front {
  int count;
  fupermod_front_point *points;
} fupermod_front;

void fupermod_front_free(fupermod_front *front);

enum fupermod_partitioner_kind {
  FUPERMOD_PART_CONTINUOUS = 0, /* models -> dist */
  FUPERMOD_PART_DISCRETE = 1,   /* problem -> dist (single objective) */
  FUPERMOD_PART_PARETO = 2      /* problem -> front */
};

typedef struct fupermod_partitioner {
  const char *name;
  const char *description;
  int kind;
  const char *model_type;  /* continuous: model type it needs ("piecewise", "akima", ...) */
  int homogeneous;         /* 1: needs one function for all processors */
  int needs_energy;        /* 1: functions must carry energy */
  int needs_static_power;  /* 1: problem->static_power must be > 0 */
  fupermod_partition continuous;
  int (*discrete)(const fupermod_problem *prob, fupermod_dist *out);
  int (*pareto)(const fupermod_problem *prob, fupermod_front *out);
} fupermod_partitioner;

const fupermod_partitioner *fupermod_partitioner_find(const char *name);
/* NULL-terminated list of every registered partitioner: the built-in ones, then the registered
 * ones in order. Thread-safe; the list stays valid (later registrations may appear in it). */
const fupermod_partitioner *const *fupermod_partitioners(void);
/* 1 when alg is one of the library's own descriptors (as fupermod_partitioners lists them first),
 * 0 otherwise (a registered copy included). Each of these checks its problem with
 * fupermod_problem_check before anything else: a caller need not check it first. */
int fupermod_partitioner_builtin(const fupermod_partitioner *alg);
/* Add a partitioner, found by name afterwards like the built-in ones (fupermod_partitioner_find,
 * fupermod_partitioners, and the library functions that take a partitioner's name, such as
 * fupermod_hier_algo_named). The descriptor is copied, strings included. FUPERMOD_ERR_USAGE for a name already taken or with a space, ',' or
 * '=', an unknown kind, a missing function for the kind, or an unknown model type. Thread-safe. */
int fupermod_partitioner_register(const fupermod_partitioner *alg);

/* Validate a problem for a partitioner (p >= 1, D >= 0, functions sorted with positive d and t,
 * energy where needed). */
int fupermod_problem_check(const fupermod_problem *prob, const fupermod_partitioner *alg);
/* Objectives of an integer distribution d[0..p-1] under prob: FUPERMOD_ERR_INFEASIBLE when some
 * d_i is neither 0 nor a measured size, or the sum is not D. Fills dist parts if dist != NULL. */
int fupermod_problem_evaluate(const fupermod_problem *prob, const long *d, double *time,
                              double *energy, fupermod_dist *dist);

/* Exact Pareto front by dynamic programming (partitioners/dp_pareto.c): the reference for
 * aleph/hepopta/htpopta; objective PARETO or PARETO_TOTAL. */
int fupermod_dp_pareto(const fupermod_problem *prob, fupermod_front *out);

/* dp for every workload up to prob->D at once (partitioners/dp.c), objective TIME or ENERGY: one
 * table of about p x (D/g + 1) values (g: the granule), built once; each workload then costs one
 * witness, O(p m). fupermod_dp_table_solve gives, for 0 <= D <= prob->D, the status, message and
 * distribution that dp gives for that D. The table keeps prob->f (not the functions: they must
 * outlive it) and is read-only: solve may run in several threads at once. A table over the
 * limit of dp's is refused with FUPERMOD_ERR_NOMEM (docs/algorithms.md). */
typedef struct fupermod_dp_table fupermod_dp_table;
int fupermod_dp_table_build(const fupermod_problem *prob, fupermod_dp_table **out);
int fupermod_dp_table_solve(const fupermod_dp_table *table, long D, fupermod_dist *out);
void fupermod_dp_table_free(fupermod_dp_table *table);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
