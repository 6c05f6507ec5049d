/* Calibration of a model at a share, outlying repetitions, balance of a distribution. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fupermod/calib.h"
#include "fupermod/error.h"

static double median_sorted(const double *s, int n) { return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]); }

/* The median of s[0..n-1] (n >= 1) by selection, in linear time; s is reordered. */
static double median_select(double *s, int n) {
  int lo = 0, hi = n - 1, k = n / 2;
  double lower;
  while (lo < hi) {
    double piv = s[lo + (hi - lo) / 2];
    int i = lo, j = hi;
    while (i <= j) {
      while (s[i] < piv) i++;
      while (s[j] > piv) j--;
      if (i <= j) {
        double t = s[i];
        s[i++] = s[j];
        s[j--] = t;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else break;
  }
  if (n % 2) return s[k];
  /* every value before k is at most s[k]: the lower middle is their largest */
  lower = s[0];
  for (int i = 1; i < k; i++)
    if (s[i] > lower) lower = s[i];
  return 0.5 * (lower + s[k]);
}

int fupermod_calib_check(const fupermod_points *pts, long share, fupermod_calib *out) {
  fupermod_points local; /* the sizes of the scatter */
  fupermod_calib c;
  long below = -1, above = -1; /* the measured sizes around share, for the message */
  if (!pts || !out || (pts->count > 0 && !pts->pts))
    return fupermod_error(FUPERMOD_ERR_USAGE, "fupermod_calib_check: NULL points or result");
  memset(&c, 0, sizeof c);
  c.sizes = pts->count;
  c.scatter = NAN;
  if (share <= 0) {
    c.near = pts->count;
  } else {
    /* sizes increase: two searches, not a pass over every size (a partition checks every process) */
    int lo = 0, hi = pts->count, first;
    while (lo < hi) {
      int mid = lo + (hi - lo) / 2;
      if ((double)pts->pts[mid].d < share / FUPERMOD_CALIB_FACTOR) lo = mid + 1;
      else hi = mid;
    }
    first = lo;
    hi = pts->count;
    while (lo < hi) {
      int mid = lo + (hi - lo) / 2;
      if ((double)pts->pts[mid].d <= share * FUPERMOD_CALIB_FACTOR) lo = mid + 1;
      else hi = mid;
    }
    c.near = lo - first;
    c.exact = fupermod_points_find(pts, share) >= 0;
    for (int i = 0; i < pts->count; i++) { /* only when it fails, below: the loop is cheap then */
      if (c.near >= FUPERMOD_CALIB_NEAR || c.exact) break;
      if (pts->pts[i].d < share) below = pts->pts[i].d;
      else if (above < 0) above = pts->pts[i].d;
    }
  }
  if (pts->count >= 3) {
    fupermod_points kept = {0, NULL, 0};
    int *keep;
    local = *pts;
    if (share > 0 && pts->count > FUPERMOD_CALIB_LOCAL) {
      int lo = 0, hi = pts->count; /* the first size >= share */
      while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (pts->pts[mid].d < share) lo = mid + 1;
        else hi = mid;
      }
      lo -= FUPERMOD_CALIB_LOCAL / 2;
      if (lo > pts->count - FUPERMOD_CALIB_LOCAL) lo = pts->count - FUPERMOD_CALIB_LOCAL;
      if (lo < 0) lo = 0;
      local.count = FUPERMOD_CALIB_LOCAL;
      local.pts = pts->pts + lo;
    }
    pts = &local;
    keep = malloc((size_t)pts->count * sizeof *keep);
    if (!keep) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
    /* the scatter of the points the rule keeps: one burst of load should not condemn a model */
    c.outliers = fupermod_points_outliers(pts, FUPERMOD_CALIB_OUTLIER_K, keep);
    if (c.outliers < 0) c.outliers = 0;
    if (c.outliers > 0) {
      if (!(kept.pts = malloc((size_t)pts->count * sizeof *kept.pts))) {
        free(keep);
        return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
      }
      for (int i = 0; i < pts->count; i++)
        if (keep[i]) kept.pts[kept.count++] = pts->pts[i];
      kept.has_energy = pts->has_energy;
    }
    /* a failure to smooth leaves the scatter unknown, not an error */
    if (fupermod_points_scatter(c.outliers > 0 ? &kept : pts, FUPERMOD_CALIB_WINDOW, &c.scatter) != FUPERMOD_SUCCESS)
      c.scatter = NAN;
    free(kept.pts);
    free(keep);
  }
  if (pts->count < 3)
    snprintf(c.why, sizeof c.why, "%d measured size%s: too few for a scatter", pts->count, pts->count == 1 ? "" : "s");
  else if (!(c.scatter <= FUPERMOD_CALIB_SCATTER))
    snprintf(c.why, sizeof c.why, "scatter about the smoothed function %.1f %% > %.0f %%", 100 * c.scatter,
             100 * FUPERMOD_CALIB_SCATTER);
  else if (share > 0 && c.near < FUPERMOD_CALIB_NEAR && !c.exact)
  {
    char nearest[64] = "";
    if (below >= 0 && above >= 0) snprintf(nearest, sizeof nearest, "%ld and %ld", below, above);
    else snprintf(nearest, sizeof nearest, "%ld", below >= 0 ? below : above);
    snprintf(c.why, sizeof c.why, "%s measured size within a factor of %g of %ld (the nearest measured: %s)",
             c.near ? "only 1" : "no", FUPERMOD_CALIB_FACTOR, share, nearest);
  }
  c.calibrated = c.why[0] == '\0';
  *out = c;
  return FUPERMOD_SUCCESS;
}

typedef struct {
  double dev;
  int i;
} deviation;

static int cmp_dev_desc(const void *a, const void *b) {
  const deviation *x = a, *y = b;
  if (x->dev != y->dev) return x->dev < y->dev ? 1 : -1;
  return x->i - y->i;
}

int fupermod_outliers_floor(const double *v, int n, double k, double floor, int *keep) {
  double *s, med, thr;
  deviation *dv;
  int rejected = 0, cap = n > 0 ? (n - 1) / 2 : 0;
  if (n < 0 || (n > 0 && (!v || !keep)) || !(k > 0) || !isfinite(k) || !(floor >= 0) || !isfinite(floor))
    return fupermod_error(FUPERMOD_ERR_USAGE,
                          "fupermod_outliers: n %d, k %g, floor %g: need n >= 0, arrays, k > 0 and floor >= 0", n, k, floor);
  for (int i = 0; i < n; i++) {
    if (!isfinite(v[i])) return fupermod_error(FUPERMOD_ERR_USAGE, "fupermod_outliers: value %d is %g", i, v[i]);
    keep[i] = 1;
  }
  if (n < 3) return 0;
  if (!(s = malloc((size_t)n * sizeof *s)) || !(dv = malloc((size_t)n * sizeof *dv))) {
    free(s);
    return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  }
  memcpy(s, v, (size_t)n * sizeof *s);
  med = median_select(s, n);
  for (int i = 0; i < n; i++) s[i] = fabs(v[i] - med);
  thr = k * 1.4826 * median_select(s, n);
  if (thr < floor * fabs(med)) thr = floor * fabs(med);
  for (int i = 0; thr > 0 && i < n; i++)
    if (fabs(v[i] - med) > thr) dv[rejected++] = (deviation){fabs(v[i] - med), i};
  /* a majority is the sample, not an outlier: reject only the farthest of a minority */
  if (rejected > cap) {
    qsort(dv, (size_t)rejected, sizeof *dv, cmp_dev_desc);
    rejected = cap;
  }
  for (int j = 0; j < rejected; j++) keep[dv[j].i] = 0;
  free(s);
  free(dv);
  return rejected;
}

int fupermod_outliers(const double *v, int n, double k, int *keep) { return fupermod_outliers_floor(v, n, k, 0.0, keep); }

/* The median of a few values: an insertion sort, not qsort's calls (s is reordered). */
static double median_few(double *s, int n) {
  for (int a = 1; a < n; a++) {
    double v = s[a];
    int b = a;
    for (; b > 0 && s[b - 1] > v; b--) s[b] = s[b - 1];
    s[b] = v;
  }
  return median_sorted(s, n);
}

/* The median of six values (no NaN) by an optimal sorting network, in registers: no branch on the
 * data, which speeds on noisy measurements would mispredict at every other comparison. */
#define CE(a, b)                   \
  do {                             \
    double lo_ = a < b ? a : b;    \
    b = a < b ? b : a;             \
    a = lo_;                       \
  } while (0)
static double median6(const double *s) {
  double a = s[0], b = s[1], c = s[2], d = s[3], e = s[4], f = s[5];
  CE(a, f); CE(b, d); CE(c, e); CE(b, c); CE(d, e); CE(a, d);
  CE(c, f); CE(a, b); CE(c, d); CE(e, f); CE(b, c); CE(d, e);
  return 0.5 * (c + d);
}
#undef CE

/* r_i = t_i / (d_i / s_i) - 1 with s_i the median speed of the sizes around i without i: a median,
 * unlike the smoothed fit, is not pulled towards the outlier. */
int fupermod_points_outliers(const fupermod_points *pts, double k, int *keep) {
  int n, w = FUPERMOD_CALIB_WINDOW, out;
  double *r, sp[2 * FUPERMOD_CALIB_WINDOW];
  if (!pts || !keep || pts->count < 0 || (pts->count > 0 && !pts->pts))
    return fupermod_error(FUPERMOD_ERR_USAGE, "fupermod_points_outliers: NULL points or keep");
  if (!(k > 0) || !isfinite(k)) return fupermod_error(FUPERMOD_ERR_USAGE, "fupermod_points_outliers: k %g must be > 0", k);
  n = pts->count;
  if (n < 3) {
    for (int i = 0; i < n; i++) keep[i] = 1;
    return 0;
  }
  if (!(r = malloc((size_t)n * sizeof *r))) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  for (int i = 0; i < n; i++) {
    int m = 0, span = n - 1 < 2 * w ? n - 1 : 2 * w, lo = i - span / 2;
    double med;
    if (lo < 0) lo = 0;
    if (lo + span >= n) lo = n - 1 - span;
    for (int j = lo; j <= lo + span; j++)
      if (j != i) sp[m++] = (double)pts->pts[j].d / pts->pts[j].t;
    med = m == 6 ? median6(sp) : median_few(sp, m);
    r[i] = pts->pts[i].t * med / (double)pts->pts[i].d - 1.0;
  }
  out = fupermod_outliers(r, n, k, keep);
  free(r);
  return out;
}

double fupermod_dist_efficiency(const fupermod_dist *dist) {
  double sum = 0, max = 0;
  if (!dist || dist->size < 1) return NAN;
  for (int i = 0; i < dist->size; i++) {
    sum += dist->parts[i].t;
    if (dist->parts[i].t > max) max = dist->parts[i].t;
  }
  return max > 0 ? sum / dist->size / max : 1.0;
}

int fupermod_dist_idle_reason(const fupermod_dist *dist, int i, const fupermod_points *pts, int energy_objective,
                              char *buf, size_t size) {
  double T;
  const fupermod_point *p;
  if (!dist || !buf || size < 1 || i < 0 || i >= dist->size || !pts || pts->count < 1 || !pts->pts)
    return fupermod_error(FUPERMOD_ERR_USAGE, "fupermod_dist_idle_reason: bad arguments (process %d)", i);
  if (dist->parts[i].d != 0)
    return fupermod_error(FUPERMOD_ERR_USAGE, "fupermod_dist_idle_reason: process %d has %ld units", i, dist->parts[i].d);
  T = fupermod_dist_time(dist);
  p = &pts->pts[0];
  if (energy_objective) /* the makespan does not bind an energy objective */
    snprintf(buf, size, "idling saves energy: no distribution that uses it costs less (its smallest measured size, d=%ld, "
                        "takes %.4g s and %.4g J)", p->d, p->t, p->e);
  else if (p->t > T)
    snprintf(buf, size, "its time for its smallest measured size (d=%ld: %.4g s) exceeds the makespan (%.4g s)", p->d,
             p->t, T);
  else
    snprintf(buf, size, "it could take its smallest measured size (d=%ld: %.4g s) within the makespan (%.4g s), but no "
                        "distribution that uses it is faster", p->d, p->t, T);
  return FUPERMOD_SUCCESS;
}
