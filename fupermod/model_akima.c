/* Akima FPM (for NPA): GSL's Akima interpolation (gsl_interp_akima, its zero-denominator
 * convention: a segment whose two weights vanish is linear) of speed s = C(d)/t over the
 * k points plus edge nodes (docs/models.md):
 *   partial (D > 0, k < 5, every point below D): spec 1.4.2 with the midpoint fix,
 *     k = 1: 0, x1/2, x1, (x1+D)/2, D;  k = 2: 0, x1/2, x1, x2, (x2+D)/2, D;
 *     k = 3: 0, x1, x2, x3, D;  k = 4: 0, x1..x4, D;
 *   full (otherwise): 3 nodes with the first speed at 0, x1/3, 2x1/3 and 3 with the last
 *     speed evenly up to E = max(2D, 2 x_k); the spline is then exactly flat outside
 *     [x1, xk], the constant extension of spec 1.4.
 * Outside the nodes the speed is constant; spline values below FLOOR * min speed are
 * clamped there so that t stays positive and finite. t(x) = C(x)/s(x). */
#include <gsl/gsl_errno.h>
#include <gsl/gsl_interp.h>

#include "fupermod/model_common.h"

#define AKIMA_FLOOR 1e-3

typedef struct akima_impl {
  fupermod_fit_key key;
  int n;        /* spline nodes */
  double *x, *s;
  gsl_interp *interp;
  double floor; /* AKIMA_FLOOR * smallest measured speed */
  fupermod_energy_table en;
} akima_impl;

static void akima_clear(akima_impl *im) {
  if (im->interp) gsl_interp_free(im->interp);
  im->interp = NULL;
  free(im->x);
  free(im->s);
  im->x = im->s = NULL;
  im->n = 0;
}

/* Nodes from k >= 1 speed points (x strictly increasing, > 0); xa, ya hold k + 6. */
static int akima_nodes(const double *x, const double *s, int k, long D, double *xa, double *ya) {
  int n = 0, i;
  double x1 = x[0], s1 = s[0], xk = x[k - 1], sk = s[k - 1];
#define NODE(X, S) (xa[n] = (X), ya[n] = (S), n++)
  if (D > 0 && k < 5 && xk < (double)D) {
    double dd = (double)D;
    NODE(0.0, s1);
    if (k <= 2) NODE(x1 / 2, s1); /* x1 > 0 */
    for (i = 0; i < k; i++) NODE(x[i], s[i]);
    if (k <= 2) NODE((xk + dd) / 2, sk); /* midpoint, not the printed (D - xk)/2 */
    NODE(dd, sk);
  } else {
    double e = 2.0 * ((double)D > xk ? (double)D : xk);
    NODE(0.0, s1);
    NODE(x1 / 3, s1);
    NODE(2 * x1 / 3, s1);
    for (i = 0; i < k; i++) NODE(x[i], s[i]);
    NODE(xk + (e - xk) / 3, sk);
    NODE(xk + 2 * (e - xk) / 3, sk);
    NODE(e, sk);
  }
#undef NODE
  return n;
}

static int akima_fit(fupermod_model *m) {
  akima_impl *im = m->impl;
  int k = m->points.count, n, i, rc;
  double *x = NULL, *s = NULL, *xa = NULL, *ya = NULL, smin;
  gsl_interp *interp = NULL;
  if (m->D < 0) return fupermod_error(FUPERMOD_ERR_USAGE, "akima model: D = %ld (must be >= 0)", m->D);
  if (k == 0) {
    akima_clear(im);
    fupermod_energy_table_free(&im->en);
    fupermod_fit_mark(m, &im->key);
    return FUPERMOD_SUCCESS;
  }
  x = malloc((size_t)k * sizeof *x);
  s = malloc((size_t)k * sizeof *s);
  xa = malloc((size_t)(k + 6) * sizeof *xa);
  ya = malloc((size_t)(k + 6) * sizeof *ya);
  if (!x || !s || !xa || !ya) {
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "akima model: out of memory for %d points", k);
    goto fail;
  }
  if ((rc = fupermod_model_speeds(m, x, s)) != FUPERMOD_SUCCESS) goto fail;
  n = akima_nodes(x, s, k, m->D, xa, ya);
  /* GSL would call its (aborting) error handler on these; refuse them here instead. */
  for (i = 1; i < n; i++)
    if (!(xa[i] > xa[i - 1]) || !isfinite(xa[i])) {
      rc = fupermod_error(FUPERMOD_ERR_INPUT, "akima model: spline abscissae not strictly increasing (%g, %g; D = %ld)",
                          xa[i - 1], xa[i], m->D);
      goto fail;
    }
  if (n < (int)gsl_interp_type_min_size(gsl_interp_akima)) {
    rc = fupermod_error(FUPERMOD_ERR_INPUT, "akima model: %d spline nodes, GSL needs %u", n,
                        gsl_interp_type_min_size(gsl_interp_akima));
    goto fail;
  }
  if (!(interp = gsl_interp_alloc(gsl_interp_akima, (size_t)n))) {
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "akima model: gsl_interp_alloc(%d) failed", n);
    goto fail;
  }
  if (gsl_interp_init(interp, xa, ya, (size_t)n) != GSL_SUCCESS) {
    rc = fupermod_error(FUPERMOD_ERR_NUMERIC, "akima model: gsl_interp_init failed on %d nodes", n);
    goto fail;
  }
  if ((rc = fupermod_energy_table_fit(m, &im->en)) != FUPERMOD_SUCCESS) goto fail;
  smin = s[0];
  for (i = 1; i < k; i++)
    if (s[i] < smin) smin = s[i];
  free(x);
  free(s);
  akima_clear(im);
  im->interp = interp;
  im->x = xa;
  im->s = ya;
  im->n = n;
  im->floor = AKIMA_FLOOR * smin;
  fupermod_fit_mark(m, &im->key);
  return FUPERMOD_SUCCESS;
fail:
  if (interp) gsl_interp_free(interp);
  free(x);
  free(s);
  free(xa);
  free(ya);
  return rc;
}

/* Evaluation only reads: safe from several threads at once. */
static int akima_ready(const fupermod_model *m) {
  const akima_impl *im = m->impl;
  return !fupermod_fit_stale(m, &im->key) && im->n > 0;
}

/* Speed and (if ds) its derivative; constant outside the nodes, floored inside. */
static double akima_speed(const akima_impl *im, double x, double *ds) {
  double v, d = 0.0;
  if (x <= im->x[0]) v = im->s[0];
  else if (x >= im->x[im->n - 1]) v = im->s[im->n - 1];
  else {
    /* NULL accelerator: evaluation stays thread-safe and side-effect free */
    if (gsl_interp_eval_e(im->interp, im->x, im->s, x, NULL, &v) != GSL_SUCCESS) v = NAN;
    if (ds && gsl_interp_eval_deriv_e(im->interp, im->x, im->s, x, NULL, &d) != GSL_SUCCESS) d = NAN;
    if (v < im->floor) {
      v = im->floor;
      d = 0.0;
    }
  }
  if (ds) *ds = d;
  return v;
}

static double akima_t(const fupermod_model *m, double x) {
  if (!akima_ready(m)) return NAN;
  return fupermod_model_complexity(m, x) / akima_speed(m->impl, x, NULL);
}

static double akima_e(const fupermod_model *m, double x) {
  if (!akima_ready(m)) return NAN;
  return fupermod_energy_table_eval(&((akima_impl *)m->impl)->en, x);
}

/* dt/dx = (C' s - C s')/s^2 with C' = C(x)/x (C linear). */
static int akima_dtdx(const fupermod_model *m, double x, double *deriv) {
  double s, ds;
  if (!deriv) return fupermod_error(FUPERMOD_ERR_USAGE, "akima model: deriv is NULL");
  if (isnan(x)) return fupermod_error(FUPERMOD_ERR_USAGE, "akima model: x is NaN");
  if (m->points.count == 0) return fupermod_error(FUPERMOD_ERR_USAGE, "akima model: no points, dt/dx undefined");
  if (!akima_ready(m)) return fupermod_fit_stale_error(m);
  s = akima_speed(m->impl, x, &ds);
  *deriv = (fupermod_model_dcdx(m, x) * s - fupermod_model_complexity(m, x) * ds) / (s * s);
  if (!isfinite(*deriv))
    return fupermod_error(FUPERMOD_ERR_NUMERIC, "akima model: dt/dx at x = %g is not finite", x);
  return FUPERMOD_SUCCESS;
}

static int akima_update(fupermod_model *m, const fupermod_point *pt) {
  (void)pt; /* NULL: a refit for a new complexity or D */
  return akima_fit(m);
}

static void akima_destroy(fupermod_model *m) {
  akima_impl *im = m->impl;
  if (!im) return;
  akima_clear(im);
  fupermod_energy_table_free(&im->en);
  free(im);
  m->impl = NULL;
}

static const fupermod_model_ops akima_ops = {"akima", akima_t, akima_e, akima_dtdx, akima_update, akima_destroy};

int fupermod_model_akima_create(fupermod_model *m) {
  akima_impl *im;
  int rc;
  if (!m) return fupermod_error(FUPERMOD_ERR_USAGE, "akima model: m is NULL");
  if (!(im = calloc(1, sizeof *im))) return fupermod_error(FUPERMOD_ERR_NOMEM, "akima model: out of memory");
  m->ops = &akima_ops;
  m->impl = im;
  if ((rc = akima_fit(m)) != FUPERMOD_SUCCESS) {
    akima_destroy(m);
    return rc;
  }
  return FUPERMOD_SUCCESS;
}
