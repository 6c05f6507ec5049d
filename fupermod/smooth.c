/* Smoothed functions: local linear least squares over neighbouring measured sizes, with a
 * prediction interval from the points' own scatter about the fit (docs/models.md, "Smoothing").
 * Why: a benchmark measures its sizes one after another, so the machine's drift between them
 * (10-25 % on a shared VM) is in the scatter of the points and not in any point's ci. A
 * partitioner that minimises over raw points picks the sizes that came out fast by chance. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_cdf.h>
#include "error.h"
#include "point.h"

/* The linear weights of the local fit at measured size i: the k = min(2w+1, n) sizes around i by
 * index, the window shifted inwards at the ends so that it always holds k points;
 * fit = sum l[j] y[lo+j], leverage = sum l[j]^2. */
static void local_weights(const fupermod_points *p, int i, int w, int *lo, int *k, double *l) {
  double xb = 0, sxx = 0, x = (double)p->pts[i].d;
  *k = p->count < 2 * w + 1 ? p->count : 2 * w + 1;
  *lo = i - w > p->count - *k ? p->count - *k : i - w;
  if (*lo < 0) *lo = 0;
  for (int j = 0; j < *k; j++) xb += (double)p->pts[*lo + j].d;
  xb /= *k;
  for (int j = 0; j < *k; j++) sxx += ((double)p->pts[*lo + j].d - xb) * ((double)p->pts[*lo + j].d - xb);
  for (int j = 0; j < *k; j++) l[j] = 1.0 / *k + (x - xb) * ((double)p->pts[*lo + j].d - xb) / sxx;
}

static double field(const fupermod_point *q, int energy) { return energy ? q->e : q->t; }

/* Smooth t (energy 0) or e (energy 1) of in into out (same sizes); s = the pooled relative scatter. */
static int smooth_field(const fupermod_points *in, int w, double cl, int energy, fupermod_points *out, double *s) {
  int n = in->count, used = 0;
  double *l = malloc((size_t)(2 * w + 1) * sizeof *l), *fit = malloc((size_t)n * sizeof *fit),
         *lev = malloc((size_t)n * sizeof *lev), ss = 0, nu = 0, q;
  if (!l || !fit || !lev) {
    free(l), free(fit), free(lev);
    return fupermod_error(FUPERMOD_ERR_NOMEM, "smooth: out of memory");
  }
  for (int i = 0; i < n; i++) {
    int lo, k;
    double v = 0, h = 0;
    local_weights(in, i, w, &lo, &k, l);
    for (int j = 0; j < k; j++) {
      v += l[j] * field(&in->pts[lo + j], energy);
      h += l[j] * l[j];
    }
    fit[i] = v;
    lev[i] = h;
    if (v > 0) { /* relative residuals: drift scales a time, it does not add to it */
      double r = (field(&in->pts[i], energy) - v) / v;
      ss += r * r;
      nu += l[i - lo];
      used++;
    }
  }
  /* degrees of freedom: the residuals used less the trace of the smoother over them */
  *s = used - nu > 0.5 ? sqrt(ss / (used - nu)) : NAN;
  /* below one degree of freedom GSL's t quantile fails through its error handler (which aborts
   * by default) for many cl: the interval is then unknown, hence infinite */
  q = used - nu >= 1.0 ? gsl_cdf_tdist_Pinv((1.0 + cl) / 2.0, used - nu) : NAN;
  for (int i = 0; i < n; i++) {
    fupermod_point *o = &out->pts[i];
    /* a non-positive fit (wild scatter at the smallest sizes) keeps the measured point */
    double v = fit[i] > 0 ? fit[i] : field(&in->pts[i], energy),
           ci = isfinite(q) ? q * *s * v * sqrt(1.0 + lev[i]) : INFINITY;
    if (energy) o->e = v, o->e_ci = ci;
    else o->t = v, o->ci = ci;
  }
  free(l), free(fit), free(lev);
  return FUPERMOD_SUCCESS;
}

int fupermod_points_smooth(const fupermod_points *in, int w, double cl, fupermod_points *out, double *scatter,
                           double *escatter) {
  double s = NAN, se = NAN;
  int rc;
  if (!in || !out) return fupermod_error(FUPERMOD_ERR_USAGE, "smooth: NULL points");
  if (w < 1) return fupermod_error(FUPERMOD_ERR_USAGE, "smooth: the window half-width must be >= 1, got %d", w);
  if (!(cl > 0 && cl < 1)) return fupermod_error(FUPERMOD_ERR_USAGE, "smooth: confidence level must be in (0,1), got %g", cl);
  if (in->count < 3)
    return fupermod_error(FUPERMOD_ERR_INPUT, "smooth: a fit with its own scatter needs at least 3 measured sizes, got %d",
                          in->count);
  for (int i = 0; i < in->count; i++)
    if (fupermod_point_abandoned(&in->pts[i]))
      return fupermod_error(FUPERMOD_ERR_INPUT, "smooth: d=%ld was abandoned, not measured", in->pts[i].d);
  if ((rc = fupermod_points_copy(out, in)) != FUPERMOD_SUCCESS) return rc;
  rc = smooth_field(in, w, cl, 0, out, &s);
  if (rc == FUPERMOD_SUCCESS && in->has_energy) rc = smooth_field(in, w, cl, 1, out, &se);
  if (rc != FUPERMOD_SUCCESS) {
    fupermod_points_free(out);
    return rc;
  }
  if (scatter) *scatter = s;
  if (escatter) *escatter = se;
  return FUPERMOD_SUCCESS;
}
