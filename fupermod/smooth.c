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

/* The local fit of t (energy 0) or e (energy 1) at every size, into fit and lev where given (l:
 * 2w+1 doubles of scratch); returns the pooled relative scatter, and its degrees of freedom in dof. */
static double fit_all(const fupermod_points *in, int w, int energy, double *l, double *fit, double *lev, double *dof) {
  int used = 0;
  double ss = 0, nu = 0;
  for (int i = 0; i < in->count; i++) {
    int lo, k;
    double v = 0, h = 0;
    local_weights(in, i, w, &lo, &k, l);
    for (int j = 0; j < k; j++) {
      v += l[j] * field(&in->pts[lo + j], energy);
      h += l[j] * l[j];
    }
    if (fit) fit[i] = v;
    if (lev) lev[i] = h;
    if (v > 0) { /* relative residuals: drift scales a time, it does not add to it */
      double r = (field(&in->pts[i], energy) - v) / v;
      ss += r * r;
      nu += l[i - lo];
      used++;
    }
  }
  /* degrees of freedom: the residuals used less the trace of the smoother over them */
  *dof = used - nu;
  return used - nu > 0.5 ? sqrt(ss / (used - nu)) : NAN;
}

/* Smooth t (energy 0) or e (energy 1) of in into out (same sizes); s = the pooled relative scatter. */
static int smooth_field(const fupermod_points *in, int w, double cl, int energy, fupermod_points *out, double *s) {
  int n = in->count;
  double *l = malloc((size_t)(2 * w + 1) * sizeof *l), *fit = malloc((size_t)n * sizeof *fit),
         *lev = malloc((size_t)n * sizeof *lev), dof, q;
  if (!l || !fit || !lev) {
    free(l), free(fit), free(lev);
    return fupermod_error(FUPERMOD_ERR_NOMEM, "smooth: out of memory");
  }
  *s = fit_all(in, w, energy, l, fit, lev, &dof);
  /* below one degree of freedom GSL's t quantile fails through its error handler (which aborts
   * by default) for many cl: the interval is then unknown, hence infinite */
  q = dof >= 1.0 ? gsl_cdf_tdist_Pinv((1.0 + cl) / 2.0, dof) : NAN;
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

static int check_input(const fupermod_points *in, int w) {
  if (w < 1) return fupermod_error(FUPERMOD_ERR_USAGE, "smooth: the window half-width must be >= 1, got %d", w);
  if (in->count < 3)
    return fupermod_error(FUPERMOD_ERR_INPUT, "smooth: a fit with its own scatter needs at least 3 measured sizes, got %d",
                          in->count);
  for (int i = 0; i < in->count; i++)
    if (fupermod_point_abandoned(&in->pts[i]))
      return fupermod_error(FUPERMOD_ERR_INPUT, "smooth: d=%ld was abandoned, not measured", in->pts[i].d);
  return FUPERMOD_SUCCESS;
}

int fupermod_points_scatter(const fupermod_points *in, int w, double *scatter) {
  double *l, dof;
  int rc;
  if (!in || !scatter) return fupermod_error(FUPERMOD_ERR_USAGE, "smooth: NULL points or scatter");
  if ((rc = check_input(in, w)) != FUPERMOD_SUCCESS) return rc;
  if (!(l = malloc((size_t)(2 * w + 1) * sizeof *l))) return fupermod_error(FUPERMOD_ERR_NOMEM, "smooth: out of memory");
  *scatter = fit_all(in, w, 0, l, NULL, NULL, &dof);
  free(l);
  return FUPERMOD_SUCCESS;
}

int fupermod_points_smooth(const fupermod_points *in, int w, double cl, fupermod_points *out, double *scatter,
                           double *escatter) {
  double s = NAN, se = NAN;
  int rc;
  if (!in || !out) return fupermod_error(FUPERMOD_ERR_USAGE, "smooth: NULL points");
  if (!(cl > 0 && cl < 1)) return fupermod_error(FUPERMOD_ERR_USAGE, "smooth: confidence level must be in (0,1), got %g", cl);
  if ((rc = check_input(in, w)) != FUPERMOD_SUCCESS) return rc;
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
