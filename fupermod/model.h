/* Performance models: time (and energy) of d units, built from points.
 * Types: "cpm" (constant speed), "piecewise" (coarsened piecewise-linear speed, for GPA),
 * "akima" (Akima spline of speed, for NPA), "tabulated" (the points exactly).
 * Speed is complexity(x)/t(x); complexity defaults to C(x) = x (speed in units/s). */
#ifndef FUPERMOD_MODEL_H
#define FUPERMOD_MODEL_H

#include "point.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* the public API; the libraries build with -fvisibility=hidden */

typedef double (*fupermod_complexity_fn)(double x, void *ctx);

typedef struct fupermod_model fupermod_model;

typedef struct fupermod_model_ops {
  const char *name;
  /* Approximated time of x units (x > 0); positive and finite for every x > 0. */
  double (*t)(const fupermod_model *m, double x);
  /* Approximated dynamic energy of x units; NAN when the points carry no energy. */
  double (*e)(const fupermod_model *m, double x);
  /* dt/dx at x; FUPERMOD_ERR_USAGE where not defined. */
  int (*dtdx)(const fupermod_model *m, double x, double *deriv);
  /* Add (or replace, same d) a point and refit the approximation. */
  int (*update)(fupermod_model *m, const fupermod_point *pt);
  void (*destroy)(fupermod_model *m);
} fupermod_model_ops;

struct fupermod_model {
  const fupermod_model_ops *ops;
  fupermod_points points;            /* raw points, always kept */
  long D;                            /* problem size served (partial Akima edges); 0 = unknown */
  fupermod_complexity_fn complexity; /* NULL: C(x) = x */
  void *complexity_ctx;
  void *impl;                        /* approximation data owned by the model type */
};

/* Create a model of a named type from points (copied; may be empty for partial models,
 * then the first update defines it). D is the problem size the model serves (0 = unknown). */
int fupermod_model_create(const char *type, const fupermod_points *pts, long D, fupermod_model **out);
void fupermod_model_free(fupermod_model *m);
/* Names of the model types, NULL-terminated: the built-in ones, then the registered ones.
 * Thread-safe; the list stays valid (later registrations may appear in it). */
const char *const *fupermod_model_types(void);

/* A model type's constructor: m has its points (sorted by d, maybe none), D and no complexity
 * yet; it sets m->ops (name, t, e, dtdx, update, destroy: e, dtdx and update may be NULL) and
 * m->impl, and returns a status (then m->ops->destroy is not called). */
typedef int (*fupermod_model_create_fn)(fupermod_model *m);
/* Add a model type, created by name afterwards with fupermod_model_create like the built-in
 * ones. The name is copied. FUPERMOD_ERR_USAGE for a NULL constructor, or a name that is empty,
 * has a space, ',' or '=', or is taken. Thread-safe. */
int fupermod_model_register(const char *name, fupermod_model_create_fn create);

double fupermod_model_complexity(const fupermod_model *m, double x);
double fupermod_model_time(const fupermod_model *m, double x);
double fupermod_model_speed(const fupermod_model *m, double x);
double fupermod_model_energy(const fupermod_model *m, double x);
int fupermod_model_update(fupermod_model *m, const fupermod_point *pt);

/* Constructors behind fupermod_model_create (one file each). */
int fupermod_model_cpm_create(fupermod_model *m);
int fupermod_model_piecewise_create(fupermod_model *m);
int fupermod_model_akima_create(fupermod_model *m);
int fupermod_model_tabulated_create(fupermod_model *m);

/* Shape-restriction coarsening of speed points (x ascending, s > 0): keeps the maximum,
 * increasing-concave before it, decreasing after it, and s(x)/x non-increasing.
 * Writes the kept indices to keep[] and returns their number (>= 1), or a negative status. */
int fupermod_coarsen(const double *x, const double *s, int n, int *keep);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
