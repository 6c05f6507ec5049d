/* Piecewise-linear FPM (for GPA): speed s = C(d)/t at the points, coarsened by
 * fupermod_coarsen to the GPA shape restriction, joined by segments, extended flat to 0 and
 * to infinity; t(x) = C(x)/s(x). Raw points are kept; every update re-coarsens all of them. */
#include <string.h>

#include "fupermod/model_common.h"

int fupermod_coarsen(const double *x, const double *s, int n, int *keep) {
  int i, imax = 0, k, top, last, cut;
  if (!x) return fupermod_error(FUPERMOD_ERR_USAGE, "fupermod_coarsen: x is NULL");
  if (!s) return fupermod_error(FUPERMOD_ERR_USAGE, "fupermod_coarsen: s is NULL");
  if (!keep) return fupermod_error(FUPERMOD_ERR_USAGE, "fupermod_coarsen: keep is NULL");
  if (n < 1) return fupermod_error(FUPERMOD_ERR_USAGE, "fupermod_coarsen: n = %d (must be >= 1)", n);
  for (i = 0; i < n; i++) {
    if (!(x[i] > 0.0) || !isfinite(x[i]))
      return fupermod_error(FUPERMOD_ERR_USAGE, "fupermod_coarsen: x[%d] = %g (must be finite and > 0)", i, x[i]);
    if (i > 0 && !(x[i] > x[i - 1]))
      return fupermod_error(FUPERMOD_ERR_USAGE, "fupermod_coarsen: x not strictly increasing (x[%d] = %g, x[%d] = %g)",
                            i - 1, x[i - 1], i, x[i]);
    if (!(s[i] > 0.0) || !isfinite(s[i]))
      return fupermod_error(FUPERMOD_ERR_USAGE, "fupermod_coarsen: s[%d] = %g (must be finite and > 0)", i, s[i]);
    if (s[i] > s[imax]) imax = i; /* ties: the first maximum */
  }

  /* Step 2, (0, x*]: drop points slower than the previous kept one. */
  k = 0;
  keep[k++] = 0;
  for (i = 1; i <= imax; i++)
    if (s[i] >= s[keep[k - 1]]) keep[k++] = i;

  /* Step 3: a point whose outgoing slope exceeds its incoming slope is dropped and we step
   * back one point to re-check (a stack, so the same as the literal index walk). */
  top = 0;
  for (i = 0; i < k; i++) {
    int q = keep[i];
    while (top >= 2) {
      int a = keep[top - 2], b = keep[top - 1];
      double in = (s[b] - s[a]) / (x[b] - x[a]), out = (s[q] - s[b]) / (x[q] - x[b]);
      if (out > in) top--;
      else break;
    }
    keep[top++] = q;
  }
  k = top; /* keep[k-1] == imax */

  /* GPA [TRAP]: a segment with a negative intercept at x = 0 makes s(x)/x increase, and a line
   * through the origin could cross twice. Intercept < 0 <=> s_a/x_a < s_b/x_b. Intercepts grow
   * along a concave chain, so dropping every point up to the last offending segment fixes all. */
  cut = -1;
  for (i = 0; i + 1 < k; i++)
    if (s[keep[i]] * x[keep[i + 1]] < s[keep[i + 1]] * x[keep[i]]) cut = i;
  if (cut >= 0) {
    memmove(keep, keep + cut + 1, (size_t)(k - cut - 1) * sizeof *keep);
    k -= cut + 1;
  }

  /* Step 4, [x*, inf): drop points faster than the previous kept one. */
  last = imax;
  for (i = imax + 1; i < n; i++)
    if (s[i] <= s[last]) {
      keep[k++] = i;
      last = i;
    }
  return k;
}

typedef struct pw_impl {
  fupermod_fit_key key;
  int n;     /* kept breakpoints */
  double *x; /* d of the kept points */
  double *s; /* their speeds */
  fupermod_energy_table en;
} pw_impl;

static void pw_clear(pw_impl *im) {
  free(im->x);
  free(im->s);
  im->x = im->s = NULL;
  im->n = 0;
}

/* Rebuild the approximation from all raw points; on failure the old one stays. */
static int pw_fit(fupermod_model *m) {
  pw_impl *im = m->impl;
  int n = m->points.count, k, i, rc;
  double *x = NULL, *s = NULL;
  int *keep = NULL;
  if (n == 0) {
    pw_clear(im);
    fupermod_energy_table_free(&im->en);
    fupermod_fit_mark(m, &im->key);
    return FUPERMOD_SUCCESS;
  }
  x = malloc((size_t)n * sizeof *x);
  s = malloc((size_t)n * sizeof *s);
  keep = malloc((size_t)n * sizeof *keep);
  if (!x || !s || !keep) {
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "piecewise model: out of memory for %d points", n);
    goto fail;
  }
  if ((rc = fupermod_model_speeds(m, x, s)) != FUPERMOD_SUCCESS) goto fail;
  if ((k = fupermod_coarsen(x, s, n, keep)) < 0) {
    rc = k;
    goto fail;
  }
  for (i = 0; i < k; i++) { /* keep[] is increasing, so compaction in place is safe */
    x[i] = x[keep[i]];
    s[i] = s[keep[i]];
  }
  if ((rc = fupermod_energy_table_fit(m, &im->en)) != FUPERMOD_SUCCESS) goto fail;
  free(keep);
  pw_clear(im);
  im->x = x;
  im->s = s;
  im->n = k;
  fupermod_fit_mark(m, &im->key);
  return FUPERMOD_SUCCESS;
fail:
  free(x);
  free(s);
  free(keep);
  return rc;
}

/* Evaluation only reads: safe from several threads at once. */
static int pw_ready(const fupermod_model *m) {
  const pw_impl *im = m->impl;
  return !fupermod_fit_stale(m, &im->key) && im->n > 0;
}

static double pw_speed(const pw_impl *im, double x) { return fupermod_model_lerp(im->x, im->s, im->n, x); }

static double pw_t(const fupermod_model *m, double x) {
  if (!pw_ready(m)) return NAN;
  return fupermod_model_complexity(m, x) / pw_speed(m->impl, x);
}

static double pw_e(const fupermod_model *m, double x) {
  if (!pw_ready(m)) return NAN;
  return fupermod_energy_table_eval(&((pw_impl *)m->impl)->en, x);
}

/* At a breakpoint the right derivative is returned (the segment starting there). */
static int pw_dtdx(const fupermod_model *m, double x, double *deriv) {
  const pw_impl *im = m->impl;
  double s, ds = 0.0;
  if (!deriv) return fupermod_error(FUPERMOD_ERR_USAGE, "piecewise model: deriv is NULL");
  if (isnan(x)) return fupermod_error(FUPERMOD_ERR_USAGE, "piecewise model: x is NaN");
  if (m->points.count == 0) return fupermod_error(FUPERMOD_ERR_USAGE, "piecewise model: no points, dt/dx undefined");
  if (!pw_ready(m)) return fupermod_fit_stale_error(m);
  s = pw_speed(im, x);
  if (x >= im->x[0] && x < im->x[im->n - 1]) {
    int j = fupermod_model_segment(im->x, im->n, x);
    ds = (im->s[j + 1] - im->s[j]) / (im->x[j + 1] - im->x[j]);
  }
  *deriv = (fupermod_model_dcdx(m, x) * s - fupermod_model_complexity(m, x) * ds) / (s * s);
  return FUPERMOD_SUCCESS;
}

static int pw_update(fupermod_model *m, const fupermod_point *pt) {
  (void)pt; /* NULL: a refit for a new complexity or D */
  return pw_fit(m);
}

static void pw_destroy(fupermod_model *m) {
  pw_impl *im = m->impl;
  if (!im) return;
  pw_clear(im);
  fupermod_energy_table_free(&im->en);
  free(im);
  m->impl = NULL;
}

static const fupermod_model_ops pw_ops = {"piecewise", pw_t, pw_e, pw_dtdx, pw_update, pw_destroy};

int fupermod_model_piecewise_create(fupermod_model *m) {
  pw_impl *im;
  int rc;
  if (!m) return fupermod_error(FUPERMOD_ERR_USAGE, "piecewise model: m is NULL");
  if (!(im = calloc(1, sizeof *im))) return fupermod_error(FUPERMOD_ERR_NOMEM, "piecewise model: out of memory");
  m->ops = &pw_ops;
  m->impl = im;
  if ((rc = pw_fit(m)) != FUPERMOD_SUCCESS) {
    pw_destroy(m);
    return rc;
  }
  return FUPERMOD_SUCCESS;
}
