/* Smoothed functions: local linear fits in log size, weighted by the distance in log size and
 * bounded to a factor FUPERMOD_SMOOTH_REACH either side, with a prediction interval from the
 * points' own scatter about the fits (docs/models.md, "Smoothing").
 * Why: a benchmark measures its sizes one after another, so the machine's drift between them
 * (10-25 % on a shared VM) is in the scatter of the points and not in any point's ci. A
 * partitioner that minimises over raw points picks the sizes that came out fast by chance.
 * Why log-log and local in size: the noise is relative, so a window that reaches from a small
 * size to sizes 20 times larger lets their absolute noise swamp the small one, and a line in d
 * through a ramp or a convex function misses it there; a power law is a line in log-log. */
#include <math.h>
#include <stdlib.h>
#include <gsl/gsl_cdf.h>
#include "error.h"
#include "point.h"

/* The linear smoother: the fit at size i is sum_j l[off[i] + j - lo[i]] y[j] over the contiguous
 * sizes lo[i] .. hi[i], which always include i. */
typedef struct {
  int *lo, *hi;
  size_t *off;
  double *l;
} smoother;

static void smoother_free(smoother *S) { free(S->lo), free(S->hi), free(S->off), free(S->l); }

/* Bandwidth of size i in log size: SPAN times the distance of the 2w-th nearest other size (the
 * farthest when fewer), at most log(REACH); *lo..*hi: the sizes strictly within it. */
static double bandwidth(const double *x, int n, int w, int i, int *lo, int *hi) {
  int a = i - 1, b = i + 1, q = 2 * w < n - 1 ? 2 * w : n - 1;
  double u = 0, h;
  for (int k = 0; k < q; k++) {
    if (b >= n || (a >= 0 && x[i] - x[a] <= x[b] - x[i])) u = x[i] - x[a--];
    else u = x[b++] - x[i];
  }
  h = FUPERMOD_SMOOTH_SPAN * u;
  if (h > log(FUPERMOD_SMOOTH_REACH)) h = log(FUPERMOD_SMOOTH_REACH);
  for (*lo = i; *lo > 0 && x[i] - x[*lo - 1] < h; (*lo)--) {}
  for (*hi = i; *hi < n - 1 && x[*hi + 1] - x[i] < h; (*hi)++) {}
  return h;
}

/* The weights of the local line at i (tricube in the distance in log size); fewer than 3 sizes
 * within the bandwidth carry no line with a residual: the fit is the point itself. */
static void line_weights(const double *x, int i, int lo, int hi, double h, double *l) {
  double sw = 0, xb = 0, sxx = 0;
  for (int j = lo; j <= hi; j++) {
    double z = fabs(x[j] - x[i]) / h, k = (1 - z * z * z) * (1 - z * z * z) * (1 - z * z * z);
    l[j - lo] = k;
    sw += k, xb += k * x[j];
  }
  xb /= sw;
  for (int j = lo; j <= hi; j++) sxx += l[j - lo] * (x[j] - xb) * (x[j] - xb);
  for (int j = lo; j <= hi; j++) l[j - lo] *= 1 / sw + (x[i] - xb) * (x[j] - xb) / sxx;
}

static int smoother_build(const fupermod_points *in, int w, smoother *S) {
  int n = in->count;
  double *x = malloc((size_t)n * sizeof *x), *h = malloc((size_t)n * sizeof *h);
  size_t total = 0;
  S->lo = malloc((size_t)n * sizeof *S->lo), S->hi = malloc((size_t)n * sizeof *S->hi);
  S->off = malloc((size_t)n * sizeof *S->off), S->l = NULL;
  if (x && h && S->lo && S->hi && S->off) {
    for (int i = 0; i < n; i++) x[i] = log((double)in->pts[i].d);
    for (int i = 0; i < n; i++) {
      h[i] = bandwidth(x, n, w, i, &S->lo[i], &S->hi[i]);
      if (S->hi[i] - S->lo[i] < 2) S->lo[i] = S->hi[i] = i;
      S->off[i] = total;
      total += (size_t)(S->hi[i] - S->lo[i] + 1);
    }
    S->l = malloc(total * sizeof *S->l);
  }
  if (!S->l) {
    free(x), free(h), smoother_free(S);
    return fupermod_error(FUPERMOD_ERR_NOMEM, "smooth: out of memory");
  }
  for (int i = 0; i < n; i++) {
    if (S->lo[i] == S->hi[i]) S->l[S->off[i]] = 1;
    else line_weights(x, i, S->lo[i], S->hi[i], h[i], S->l + S->off[i]);
  }
  free(x), free(h);
  return FUPERMOD_SUCCESS;
}

/* The weight of size j in the fit at i (j within lo[i]..hi[i]), and in its residual. */
static double weight(const smoother *S, int i, int j) { return S->l[S->off[i] + (size_t)(j - S->lo[i])]; }
static double resid_weight(const smoother *S, int i, int j) { return (i == j) - weight(S, i, j); }

/* The residual sum of squares of the rows used is s^2 delta1 on average, with variance
 * 2 s^4 delta2 (Gaussian noise): delta1 = tr(AA'), delta2 = tr((AA')^2) for A = (I - L) over
 * those rows; delta1^2 / delta2 is the Satterthwaite degrees of freedom of the scatter. */
static void dof(const smoother *S, int n, const char *used, double *d1, double *d2) {
  int back = 0; /* the farthest any row reaches below its own index */
  *d1 = *d2 = 0;
  for (int i = 0; i < n; i++)
    if (i - S->lo[i] > back) back = i - S->lo[i];
  for (int i = 0; i < n; i++) {
    if (!used[i]) continue;
    for (int j = S->lo[i]; j <= S->hi[i]; j++) *d1 += resid_weight(S, i, j) * resid_weight(S, i, j);
    for (int k = i; k < n && k - back <= S->hi[i]; k++) {
      double p = 0;
      if (!used[k] || S->lo[k] > S->hi[i]) continue;
      for (int j = S->lo[k] > S->lo[i] ? S->lo[k] : S->lo[i]; j <= S->hi[i] && j <= S->hi[k]; j++)
        p += resid_weight(S, i, j) * resid_weight(S, k, j);
      *d2 += (k == i ? 1 : 2) * p * p;
    }
  }
}

static double field(const fupermod_point *q, int energy) { return energy ? q->e : q->t; }

/* Smooth t (energy 0) or e (energy 1) of in into out (same sizes; NULL: the scatter alone).
 * s = the pooled relative scatter. A field with a value <= 0 (a dynamic energy at the static
 * baseline) has no logarithm: it is fitted as it is, against log d, with relative residuals where
 * the fit is > 0. */
static int smooth_field(const fupermod_points *in, const smoother *S, double cl, int energy, fupermod_points *out,
                        double *s) {
  int n = in->count, logs = 1;
  double tiny = 0, *z = malloc((size_t)n * sizeof *z), *fit = malloc((size_t)n * sizeof *fit), rss = 0, d1, d2, q;
  char *used = malloc((size_t)n);
  if (!z || !fit || !used) {
    free(z), free(fit), free(used);
    return fupermod_error(FUPERMOD_ERR_NOMEM, "smooth: out of memory");
  }
  for (int i = 0; i < n; i++) {
    logs = logs && field(&in->pts[i], energy) > 0;
    tiny = fmax(tiny, 1e-9 * fabs(field(&in->pts[i], energy))); /* a fit of zeros is 0 up to rounding */
  }
  for (int i = 0; i < n; i++) z[i] = logs ? log(field(&in->pts[i], energy)) : field(&in->pts[i], energy);
  for (int i = 0; i < n; i++) {
    double r;
    fit[i] = 0;
    for (int j = S->lo[i]; j <= S->hi[i]; j++) fit[i] += weight(S, i, j) * z[j];
    used[i] = logs || fit[i] > tiny;
    r = logs ? z[i] - fit[i] : used[i] ? (z[i] - fit[i]) / fit[i] : 0;
    rss += r * r;
  }
  dof(S, n, used, &d1, &d2);
  *s = d1 > 0 ? sqrt(rss / d1) : NAN;
  /* d1^2 / d2 >= 1 (Cauchy-Schwarz on the eigenvalues of AA'), = 1 for a single residual row: the
   * clamp is against rounding, as GSL's t quantile fails below one degree of freedom through its
   * error handler (which aborts by default). No residual at all, so every point its own fit: out
   * keeps the copy of the measured points, their own half-widths included. */
  q = isfinite(*s) ? gsl_cdf_tdist_Pinv((1.0 + cl) / 2.0, fmax(d1 * d1 / d2, 1.0)) : NAN;
  for (int i = 0; out && isfinite(q) && i < n; i++) {
    fupermod_point *o = &out->pts[i];
    double lev = 0, v, ci;
    for (int j = S->lo[i]; j <= S->hi[i]; j++) lev += weight(S, i, j) * weight(S, i, j);
    if (!used[i]) lev = 1; /* a fit <= 0 keeps the measured point */
    /* exp of a mean of logs is low by s^2 (1 - lev) / 2 in relative terms: the mean time */
    if (S->lo[i] == S->hi[i] || !used[i]) v = field(&in->pts[i], energy);
    else v = logs ? exp(fit[i] + (isfinite(*s) ? *s * *s * (1 - lev) / 2 : 0)) : fit[i];
    ci = q * *s * v * sqrt(1.0 + lev);
    if (energy) o->e = v, o->e_ci = ci;
    else o->t = v, o->ci = ci;
  }
  free(z), free(fit), free(used);
  return FUPERMOD_SUCCESS;
}

static int check_input(const fupermod_points *in, int w) {
  if (w < 1) return fupermod_error(FUPERMOD_ERR_USAGE, "smooth: the window half-width must be >= 1, got %d", w);
  if (in->count < 3)
    return fupermod_error(FUPERMOD_ERR_INPUT, "smooth: a fit with its own scatter needs at least 3 measured sizes, got %d",
                          in->count);
  for (int i = 0; i < in->count; i++)
    if (fupermod_point_abandoned(&in->pts[i]))
      return fupermod_error(FUPERMOD_ERR_INPUT, "smooth: d=%ld was abandoned, not measured", in->pts[i].d);
  for (int i = 0; i < in->count; i++)
    if (in->pts[i].d < 1 || (i > 0 && in->pts[i].d <= in->pts[i - 1].d))
      return fupermod_error(FUPERMOD_ERR_INPUT, "smooth: sizes must be >= 1 and increasing, got d=%ld at %d", in->pts[i].d,
                            i);
  return FUPERMOD_SUCCESS;
}

int fupermod_points_scatter(const fupermod_points *in, int w, double *scatter) {
  smoother S;
  int rc;
  if (!in || !scatter) return fupermod_error(FUPERMOD_ERR_USAGE, "smooth: NULL points or scatter");
  if ((rc = check_input(in, w)) != FUPERMOD_SUCCESS) return rc;
  if ((rc = smoother_build(in, w, &S)) != FUPERMOD_SUCCESS) return rc;
  rc = smooth_field(in, &S, 0.5, 0, NULL, scatter);
  smoother_free(&S);
  return rc;
}

int fupermod_points_smooth(const fupermod_points *in, int w, double cl, fupermod_points *out, double *scatter,
                           double *escatter) {
  double s = NAN, se = NAN;
  smoother S;
  int rc;
  if (!in || !out) return fupermod_error(FUPERMOD_ERR_USAGE, "smooth: NULL points");
  if (!(cl > 0 && cl < 1)) return fupermod_error(FUPERMOD_ERR_USAGE, "smooth: confidence level must be in (0,1), got %g", cl);
  if ((rc = check_input(in, w)) != FUPERMOD_SUCCESS) return rc;
  if ((rc = smoother_build(in, w, &S)) != FUPERMOD_SUCCESS) return rc;
  if ((rc = fupermod_points_copy(out, in)) == FUPERMOD_SUCCESS) {
    rc = smooth_field(in, &S, cl, 0, out, &s);
    if (rc == FUPERMOD_SUCCESS && in->has_energy) rc = smooth_field(in, &S, cl, 1, out, &se);
    if (rc != FUPERMOD_SUCCESS) fupermod_points_free(out);
  }
  smoother_free(&S);
  if (rc != FUPERMOD_SUCCESS) return rc;
  if (scatter) *scatter = s;
  if (escatter) *escatter = se;
  return FUPERMOD_SUCCESS;
}
