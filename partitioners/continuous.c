/* Helpers shared by the continuous partitioners (even, cpm, geometric, numerical). */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include "partitioners/continuous.h"

int fupermod_continuous_check(const char *alg, int size, fupermod_model **models,
                              const fupermod_dist *dist) {
  if (size < 1)
    return fupermod_error(FUPERMOD_ERR_USAGE, "%s: size must be >= 1, got %d", alg, size);
  if (!dist) return fupermod_error(FUPERMOD_ERR_USAGE, "%s: dist is NULL", alg);
  if (dist->size != size)
    return fupermod_error(FUPERMOD_ERR_USAGE, "%s: dist->size (%d) differs from size (%d)", alg,
                          dist->size, size);
  if (!dist->parts) return fupermod_error(FUPERMOD_ERR_USAGE, "%s: dist->parts is NULL", alg);
  if (dist->D < 0)
    return fupermod_error(FUPERMOD_ERR_USAGE, "%s: dist->D must be >= 0, got %ld", alg, dist->D);
  return fupermod_continuous_check_models(alg, size, models);
}

int fupermod_continuous_check_models(const char *alg, int size, fupermod_model **models) {
  if (!models) return fupermod_error(FUPERMOD_ERR_USAGE, "%s: models is NULL", alg);
  for (int i = 0; i < size; i++) {
    if (!models[i]) return fupermod_error(FUPERMOD_ERR_USAGE, "%s: models[%d] is NULL", alg, i);
    if (!models[i]->ops || !models[i]->ops->t)
      return fupermod_error(FUPERMOD_ERR_USAGE, "%s: models[%d] has no time function", alg, i);
    if (models[i]->points.count < 1)
      return fupermod_error(FUPERMOD_ERR_INPUT, "%s: models[%d] has no points", alg, i);
  }
  return FUPERMOD_SUCCESS;
}

int fupermod_continuous_finish(fupermod_dist *dist, fupermod_model **models, const double *x) {
  long *d = malloc((size_t)dist->size * sizeof *d);
  int rc;
  if (!d) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  rc = fupermod_dist_round(x, dist->size, dist->D, d);
  if (rc == FUPERMOD_SUCCESS) {
    for (int i = 0; i < dist->size; i++) dist->parts[i].d = d[i];
    rc = fupermod_dist_predict(dist, models);
  }
  free(d);
  return rc;
}

int fupermod_continuous_speed(const fupermod_model *m, int i, double x, double *s) {
  double v = fupermod_model_speed(m, x);
  if (!(v > 0) || !isfinite(v))
    return fupermod_error(FUPERMOD_ERR_INPUT,
                          "models[%d]: speed at x=%g is %g, need a positive finite value", i, x, v);
  *s = v;
  return FUPERMOD_SUCCESS;
}

/* ok(x) <=> s(x) >= slope*x, i.e. x is at or left of the intersection. */
static int below(const fupermod_model *m, int i, double slope, double x, int *ok) {
  double s = 0.0;
  int rc = fupermod_continuous_speed(m, i, x, &s);
  if (rc != FUPERMOD_SUCCESS) return rc;
  *ok = s >= slope * x;
  return FUPERMOD_SUCCESS;
}

int fupermod_line_intersection(const fupermod_model *m, int i, double slope, double xmax,
                               double lo_hint, double hi_hint, double *x, double *fail) {
  double lo = 0.0, hi = 0.0;
  int ok, rc;
  if (!(slope > 0) || !isfinite(slope))
    return fupermod_error(FUPERMOD_ERR_NUMERIC, "models[%d]: line slope %g is not positive", i,
                          slope);
  if (!(xmax > 0) || !isfinite(xmax))
    return fupermod_error(FUPERMOD_ERR_USAGE, "line intersection: xmax must be > 0, got %g", xmax);
  if (hi_hint > 0 && hi_hint <= xmax) {
    if ((rc = below(m, i, slope, hi_hint, &ok))) return rc;
    if (!ok) hi = hi_hint;
  }
  if (hi == 0.0) {
    if ((rc = below(m, i, slope, xmax, &ok))) return rc;
    if (ok) { /* the device could take everything: cap at xmax */
      *x = xmax;
      if (fail) *fail = 0.0;
      return FUPERMOD_SUCCESS;
    }
    hi = xmax;
  }
  if (lo_hint > 0 && lo_hint < hi) {
    if ((rc = below(m, i, slope, lo_hint, &ok))) return rc;
    if (ok) lo = lo_hint;
  }
  if (lo == 0.0) {
    /* s is positive and bounded near 0, so s(x)/x grows without bound: halving must succeed */
    lo = hi;
    for (;;) {
      lo *= 0.5;
      if (!(lo > 0))
        return fupermod_error(FUPERMOD_ERR_NUMERIC,
                              "models[%d]: no x > 0 with speed >= %g * x", i, slope);
      if ((rc = below(m, i, slope, lo, &ok))) return rc;
      if (ok) break;
      hi = lo;
    }
  }
  /* invariant: ok(lo), !ok(hi); stop at about machine precision */
  while (hi - lo > 2.0 * DBL_EPSILON * hi) {
    double mid = lo + 0.5 * (hi - lo);
    if (mid <= lo || mid >= hi) break;
    if ((rc = below(m, i, slope, mid, &ok))) return rc;
    if (ok) lo = mid;
    else hi = mid;
  }
  *x = lo;
  if (fail) *fail = hi;
  return FUPERMOD_SUCCESS;
}
