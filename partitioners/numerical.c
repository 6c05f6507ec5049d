/* Numerical Partitioning Algorithm (NPA; Clarke 2014 sec. 4.2): solve F(x) = 0 (eq. 4.5),
 *   f_1 = D - sum_i x_i,   f_i = x_i/s_i(x_i) - x_1/s_1(x_1)  (i >= 2),
 * with the Jacobian of eq. 4.8 and GSL's Powell hybrid solver hybridsj (MINPACK HYBRJ),
 * starting at x_i = D/p. Decisions (docs/algorithms.md):
 *  - convergence: gsl_multiroot_test_residual on F scaled per equation (f_1 by D, the others
 *    by the common time x_1/s_1(x_1)) with tolerance NPA_RTOL * p, at most NPA_MAX_ITER steps;
 *  - iterates leaving (0, D] are clamped into [NPA_XFLOOR*D, D] and the solver restarted there;
 *    below NPA_XFLOOR*D a model is read as constant speed s(NPA_XFLOOR*D), so F stays smooth;
 *  - on failure (no convergence, no progress, out-of-range or non-finite answer) the answer
 *    is the GPA slope bisection on the same models run to D_L - D_U < 1e-6, interpolated
 *    between its two final lines so that sum x = D;
 *  - x is rounded to nearest and the sum fixed by fractional parts, which is exactly
 *    fupermod_dist_round (floor + largest remainders, ties to the lower rank).
 * GSL's error handler is process-wide state, so the solve leaves it alone: every GSL call gets
 * inputs it accepts (sizes fixed at allocation, finite tolerances, indices in range) and reports
 * through return values; vectors are views of our own memory. Only GSL's allocation of the
 * solver could still reach the handler, when memory runs out. */
#include <math.h>
#include <stdlib.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_multiroots.h>
#include "partitioners/continuous.h"
#include "partitioners/partitioners.h"

#define NPA_MAX_ITER 200   /* the thesis sees 2-30 iterations */
#define NPA_MAX_RESETS 20  /* restarts after clamping an iterate into (0, D] */
#define NPA_RTOL 1e-11     /* relative residual per equation */
#define NPA_XFLOOR 1e-9    /* models are read at x >= NPA_XFLOOR * D */
#define NPA_FALLBACK_STOP 1e-6

/* dt/dx from the model, or a central difference where the model does not define it. */
static double time_derivative(const fupermod_model *m, double x) {
  double d, h = 1e-6 * x;
  if (m->ops->dtdx && m->ops->dtdx(m, x, &d) == FUPERMOD_SUCCESS && isfinite(d)) return d;
  return (fupermod_model_time(m, x + h) - fupermod_model_time(m, x - h)) / (2.0 * h);
}

/* q(x) = x/s(x) (time for linear complexity) and g(x) = dq/dx = (s - x s')/s^2 (eq. 4.8). */
static int q_and_g(const fupermod_model *m, int i, double x, double xfloor, double *q,
                   double *g) {
  double xe = x > xfloor ? x : xfloor, s, t, dt, ds;
  int rc = fupermod_continuous_speed(m, i, xe, &s);
  if (rc != FUPERMOD_SUCCESS) return rc;
  *q = x / s;
  if (!g) return FUPERMOD_SUCCESS;
  if (x < xfloor) { /* constant speed below the floor: s' = 0 */
    *g = 1.0 / s;
    return FUPERMOD_SUCCESS;
  }
  t = fupermod_model_time(m, xe);
  dt = time_derivative(m, xe);
  /* s = C/t with C linear (C' = C/x): s' = s/x - s t'/t */
  ds = s / xe - s * dt / t;
  *g = (s - xe * ds) / (s * s);
  if (!isfinite(*g))
    return fupermod_error(FUPERMOD_ERR_NUMERIC, "models[%d]: no finite derivative at x=%g", i, xe);
  return FUPERMOD_SUCCESS;
}

int fupermod_numerical_system(int size, fupermod_model **models, long D, const double *x,
                              double *F, double *J) {
  double xfloor = NPA_XFLOOR * (double)D, q1, g1, sum = 0.0;
  int rc;
  if (size < 1 || D < 1 || !x || !F)
    return fupermod_error(FUPERMOD_ERR_USAGE, "numerical system: need size >= 1, D >= 1, x and F");
  if ((rc = fupermod_continuous_check_models("numerical system", size, models))) return rc;
  if ((rc = q_and_g(models[0], 0, x[0], xfloor, &q1, J ? &g1 : NULL))) return rc;
  for (int i = 0; i < size; i++) sum += x[i];
  F[0] = (double)D - sum;
  if (J) {
    for (int k = 0; k < size * size; k++) J[k] = 0.0;
    for (int j = 0; j < size; j++) J[j] = -1.0;
  }
  for (int i = 1; i < size; i++) {
    double q, g;
    if ((rc = q_and_g(models[i], i, x[i], xfloor, &q, J ? &g : NULL))) return rc;
    F[i] = q - q1;
    if (J) {
      J[(size_t)i * size] = -g1;
      J[(size_t)i * size + i] = g;
    }
  }
  return FUPERMOD_SUCCESS;
}

typedef struct {
  int size;
  fupermod_model **models;
  long D;
  double *x, *F, *J; /* scratch */
  int err;           /* first model error met inside a GSL callback */
} npa_ctx;

static int npa_fdf(const gsl_vector *xv, void *params, gsl_vector *f, gsl_matrix *Jm) {
  npa_ctx *c = params;
  int n = c->size, rc;
  for (int i = 0; i < n; i++) c->x[i] = gsl_vector_get(xv, i);
  for (int i = 0; i < n; i++)
    if (!isfinite(c->x[i])) return GSL_EBADFUNC;
  rc = fupermod_numerical_system(n, c->models, c->D, c->x, c->F, Jm ? c->J : NULL);
  if (rc != FUPERMOD_SUCCESS) {
    if (!c->err) c->err = rc;
    return GSL_EBADFUNC;
  }
  for (int i = 0; i < n; i++) {
    if (!isfinite(c->F[i])) return GSL_EBADFUNC;
    if (f) gsl_vector_set(f, i, c->F[i]);
  }
  if (Jm)
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) gsl_matrix_set(Jm, i, j, c->J[(size_t)i * n + j]);
  return GSL_SUCCESS;
}

static int npa_f(const gsl_vector *x, void *params, gsl_vector *f) {
  return npa_fdf(x, params, f, NULL);
}

static int npa_df(const gsl_vector *x, void *params, gsl_matrix *J) {
  return npa_fdf(x, params, NULL, J);
}

/* Scaled residuals at x: |f_1|/D and max |f_i|/T with T = x_1/s_1(x_1); *conv when
 * gsl_multiroot_test_residual accepts the scaled F. */
static int residuals(npa_ctx *c, const double *x, double *rD, double *rT, int *conv) {
  double xfloor = NPA_XFLOOR * (double)c->D, T, maxT = 0.0;
  gsl_vector_view r;
  int rc = fupermod_numerical_system(c->size, c->models, c->D, x, c->F, NULL);
  if (rc != FUPERMOD_SUCCESS) return rc;
  if ((rc = q_and_g(c->models[0], 0, x[0] > xfloor ? x[0] : xfloor, xfloor, &T, NULL))) return rc;
  /* scaled in place: F is scratch, recomputed at every use */
  c->F[0] /= (double)c->D;
  for (int i = 1; i < c->size; i++) {
    double v = c->F[i] / T;
    c->F[i] = v;
    if (fabs(v) > maxT || !isfinite(v)) maxT = fabs(v);
  }
  *rD = fabs(c->F[0]);
  *rT = maxT;
  r = gsl_vector_view_array(c->F, (size_t)c->size);
  *conv = isfinite(*rD) && isfinite(maxT) &&
          gsl_multiroot_test_residual(&r.vector, NPA_RTOL * c->size) == GSL_SUCCESS;
  return FUPERMOD_SUCCESS;
}

static int in_range(const double *x, int n, long D) {
  for (int i = 0; i < n; i++)
    if (!isfinite(x[i]) || !(x[i] > 0) || x[i] > (double)D) return 0;
  return 1;
}

/* Powell hybrid solve from D/p; *solved = 0 when the fallback must take over. */
static int hybrid(npa_ctx *c, double *x, fupermod_npa_info *st, int *solved) {
  gsl_multiroot_function_fdf fdf = {npa_f, npa_df, npa_fdf, (size_t)c->size, c};
  gsl_multiroot_fdfsolver *s;
  gsl_vector_view xview;
  gsl_vector *xv;
  double xfloor = NPA_XFLOOR * (double)c->D, *start = malloc((size_t)c->size * sizeof *start);
  int n = c->size, status, conv = 0, rc = FUPERMOD_SUCCESS;
  *solved = 0;
  /* no allocation by GSL when ours already failed: its failure would go to the handler */
  s = start ? gsl_multiroot_fdfsolver_alloc(gsl_multiroot_fdfsolver_hybridsj, (size_t)n) : NULL;
  if (!s) {
    free(start);
    return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  }
  xview = gsl_vector_view_array(start, (size_t)n);
  xv = &xview.vector;
  gsl_vector_set_all(xv, (double)c->D / n);
  status = gsl_multiroot_fdfsolver_set(s, &fdf, xv);
  for (;;) {
    if (c->err) {
      rc = c->err;
      goto done;
    }
    if (status != GSL_SUCCESS && status != GSL_ENOPROG && status != GSL_ENOPROGJ) break;
    for (int i = 0; i < n; i++) x[i] = gsl_vector_get(gsl_multiroot_fdfsolver_root(s), i);
    if (!in_range(x, n, c->D)) {
      if (st->resets >= NPA_MAX_RESETS) break;
      st->resets++;
      for (int i = 0; i < n; i++) {
        double v = isfinite(x[i]) ? x[i] : (double)c->D / n;
        gsl_vector_set(xv, i, v < xfloor ? xfloor : v > (double)c->D ? (double)c->D : v);
      }
      status = gsl_multiroot_fdfsolver_set(s, &fdf, xv);
      continue;
    }
    if ((rc = residuals(c, x, &st->residual_D, &st->residual_time, &conv))) goto done;
    if (conv) break;
    /* no progress and not converged: give up */
    if (status != GSL_SUCCESS || st->iterations >= NPA_MAX_ITER) break;
    status = gsl_multiroot_fdfsolver_iterate(s);
    st->iterations++;
  }
  *solved = conv;
done:
  gsl_multiroot_fdfsolver_free(s);
  free(start);
  return rc;
}

int fupermod_numerical_solve(int size, fupermod_model **models, long D, double *x,
                             fupermod_npa_info *info) {
  fupermod_npa_info st = {0, 0, 0, 0.0, 0.0};
  npa_ctx c = {size, models, D, NULL, NULL, NULL, 0};
  int rc, solved = 0, conv;
  if (size < 1 || D < 0 || !x)
    return fupermod_error(FUPERMOD_ERR_USAGE, "need size >= 1, D >= 0 and an output array");
  if ((rc = fupermod_continuous_check_models("numerical", size, models))) return rc;
  if (D == 0 || size == 1) { /* nothing to balance */
    for (int i = 0; i < size; i++) x[i] = (double)D;
    if (info) *info = st;
    return FUPERMOD_SUCCESS;
  }
  c.x = malloc((size_t)size * sizeof *c.x);
  c.F = malloc((size_t)size * sizeof *c.F);
  c.J = malloc((size_t)size * size * sizeof *c.J);
  if (!c.x || !c.F || !c.J) {
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
    goto done;
  }
  rc = hybrid(&c, x, &st, &solved);
  if (rc != FUPERMOD_SUCCESS) goto done;
  if (!solved || !in_range(x, size, D)) {
    /* fallback: GPA's bisection on the common time, run to a fine bracket */
    double *xL = c.J, w = 0.0; /* J scratch holds at least size values */
    fupermod_gpa_info gi;
    st.fallback = 1;
    if ((rc = fupermod_geometric_solve(size, models, D, NPA_FALLBACK_STOP, x, xL, &gi))) goto done;
    if (gi.D_L > gi.D_U) w = ((double)D - gi.D_U) / (gi.D_L - gi.D_U);
    if (w < 0) w = 0;
    if (w > 1) w = 1;
    for (int i = 0; i < size; i++) x[i] += w * (xL[i] - x[i]);
    if ((rc = residuals(&c, x, &st.residual_D, &st.residual_time, &conv))) goto done;
  }
  if (info) *info = st;
done:
  free(c.x);
  free(c.F);
  free(c.J);
  return rc;
}

static int numerical_partition(int size, fupermod_model **models, fupermod_dist *dist) {
  double *x;
  int rc = fupermod_continuous_check("numerical", size, models, dist);
  if (rc != FUPERMOD_SUCCESS) return rc;
  if (!(x = malloc((size_t)size * sizeof *x)))
    return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  rc = fupermod_numerical_solve(size, models, dist->D, x, NULL);
  if (rc == FUPERMOD_SUCCESS) rc = fupermod_continuous_finish(dist, models, x);
  free(x);
  return rc != FUPERMOD_SUCCESS ? fupermod_error_prefix(rc, "numerical") : rc;
}

const fupermod_partitioner fupermod_partitioner_numerical = {
    .name = "numerical",
    .description = "NPA: Powell hybrid solve of the balance equations over Akima speed models",
    .kind = FUPERMOD_PART_CONTINUOUS,
    .model_type = "akima",
    .continuous = numerical_partition,
};
