/* Shared pieces of the continuous (FuPerMod-family) partitioners: argument checks, the
 * line-through-origin intersections of GPA, and the real-valued solutions before rounding.
 * Not installed; tools and tests include it to inspect the continuous solutions. */
#ifndef FUPERMOD_PARTITIONERS_CONTINUOUS_H
#define FUPERMOD_PARTITIONERS_CONTINUOUS_H

#include <fupermod/fupermod.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* the public API; the libraries build with -fvisibility=hidden */

/* Validate (size, models, dist) for a continuous partitioner named alg. */
int fupermod_continuous_check(const char *alg, int size, fupermod_model **models,
                              const fupermod_dist *dist);

/* Validate models[0..size-1] (non-NULL, with a time function and points). */
int fupermod_continuous_check_models(const char *alg, int size, fupermod_model **models);

/* Round x to integers summing to dist->D (fupermod_dist_round: floor, then the missing units
 * to the largest fractional parts, ties to the lower rank), store them and predict t, e. */
int fupermod_continuous_finish(fupermod_dist *dist, fupermod_model **models, const double *x);

/* Speed of models[i] at x (> 0), as a checked positive finite number. */
int fupermod_continuous_speed(const fupermod_model *m, int i, double x, double *s);

/* Largest x in (0, xmax] with s(x) >= slope * x (the intersection of the speed curve with the
 * line through the origin), found by bisection on x to about machine precision.
 * lo_hint (> 0, with s(lo_hint) >= slope*lo_hint) and hi_hint (s(hi_hint) < slope*hi_hint)
 * narrow the search when valid; pass 0 to ignore either. *fail (may be NULL) receives the
 * smallest x found with s(x) < slope*x, or 0 when *x == xmax. */
int fupermod_line_intersection(const fupermod_model *m, int i, double slope, double xmax,
                               double lo_hint, double hi_hint, double *x, double *fail);

/* Statistics of a GPA run. */
typedef struct fupermod_gpa_info {
  int bisections;  /* slope bisections performed */
  double D_U, D_L; /* totals of the final upper and lower lines */
  double m_U, m_L; /* their slopes */
} fupermod_gpa_info;

/* GPA's continuous answer: x^U of the final upper line (sum D_U <= D for shape-restricted
 * models), and x^L of the final lower line when xL != NULL. The slope is bisected while
 * D_L - D_U >= stop (the thesis uses stop = 1). info may be NULL. */
int fupermod_geometric_solve(int size, fupermod_model **models, long D, double stop, double *x,
                             double *xL, fupermod_gpa_info *info);

/* NPA: F (eq. 4.5) and, when J != NULL, its Jacobian (eq. 4.8, row-major size x size) at x. */
int fupermod_numerical_system(int size, fupermod_model **models, long D, const double *x,
                              double *F, double *J);

/* Statistics of an NPA run. */
typedef struct fupermod_npa_info {
  int iterations; /* solver iterations */
  int resets;     /* iterates moved back into (0, D] */
  int fallback;   /* 1: the solver failed and the bisection fallback gave x */
  double residual_D;    /* |f_1| / D at the answer */
  double residual_time; /* max_{i>=2} |f_i| / time scale at the answer */
} fupermod_npa_info;

/* NPA's continuous answer (sum D within rounding, 0 < x_i <= D). */
int fupermod_numerical_solve(int size, fupermod_model **models, long D, double *x,
                             fupermod_npa_info *info);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
