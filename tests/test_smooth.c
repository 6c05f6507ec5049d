/* Smoothed functions (fupermod_points_smooth): against an independent least-squares oracle on
 * random point sets with holes, exact on straight lines, and calibrated: the 95 % prediction
 * interval covers a new run about 95 % of the time. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include "fupermod/fupermod.h"
#include "tests/tap.h"

/* n random distinct sizes (holes of random width), sorted */
static void sizes(gsl_rng *r, int n, long *d) {
  long x = 1 + (long)gsl_rng_uniform_int(r, 20);
  for (int i = 0; i < n; i++) {
    d[i] = x;
    x += 1 + (long)gsl_rng_uniform_int(r, gsl_rng_uniform(r) < 0.2 ? 200 : 30);
  }
}

static void make(fupermod_points *p, int n, const long *d, const double *t, const double *e) {
  p->count = n;
  p->pts = calloc((size_t)n, sizeof *p->pts);
  p->has_energy = e != NULL;
  for (int i = 0; i < n; i++) {
    fupermod_point q = {.d = d[i], .t = t[i], .ci = 0.01 * t[i], .e = e ? e[i] : -1.0, .e_ci = e ? 0.01 * e[i] : -1.0,
                        .reps = 5, .samples = -1};
    p->pts[i] = q;
  }
}

/* Oracle: the fit at index i from the normal equations of the rows lo..lo+k-1 (uncentred), and
 * the hat matrix diagonal from the explicit inverse of X'X. */
static void oracle_fit(const long *d, const double *y, int n, int w, int i, double *v, double *h) {
  int k = n < 2 * w + 1 ? n : 2 * w + 1, lo = i - w;
  double s0 = 0, s1 = 0, s2 = 0, sy = 0, sxy = 0, det, a, b, x = (double)d[i];
  if (lo > n - k) lo = n - k;
  if (lo < 0) lo = 0;
  for (int j = lo; j < lo + k; j++) {
    double dj = (double)d[j];
    s0 += 1, s1 += dj, s2 += dj * dj, sy += y[j], sxy += dj * y[j];
  }
  det = s0 * s2 - s1 * s1;
  a = (s2 * sy - s1 * sxy) / det;
  b = (s0 * sxy - s1 * sy) / det;
  *v = a + b * x;
  /* weights of y[j] in the fit: (1, x) inv(X'X) (1, d_j)'; h = sum of their squares */
  *h = 0;
  for (int j = lo; j < lo + k; j++) {
    double dj = (double)d[j], lj = ((s2 - s1 * dj) + x * (s0 * dj - s1)) / det;
    *h += lj * lj;
  }
}

static void oracle(const long *d, const double *y, int n, int w, double cl, double *v, double *ci, double *s) {
  double ss = 0, nu = 0, h[512];
  int used = 0;
  for (int i = 0; i < n; i++) {
    double hi;
    oracle_fit(d, y, n, w, i, &v[i], &hi);
    h[i] = hi;
    if (v[i] <= 0) continue; /* no relative residual where the fit is not positive */
    used++;
    /* the weight of y[i] in its own fit, by refitting with y[i] + 1 */
    {
      double y2[512], v2, dummy;
      memcpy(y2, y, (size_t)n * sizeof *y);
      y2[i] += 1.0;
      oracle_fit(d, y2, n, w, i, &v2, &dummy);
      nu += v2 - v[i];
    }
    ss += ((y[i] - v[i]) / v[i]) * ((y[i] - v[i]) / v[i]);
  }
  *s = sqrt(ss / (used - nu));
  for (int i = 0; i < n; i++) ci[i] = gsl_cdf_tdist_Pinv((1 + cl) / 2, used - nu) * *s * v[i] * sqrt(1 + h[i]);
}

static double rel(double a, double b) { return fabs(a - b) / fmax(fabs(b), 1e-300); }

int main(void) {
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  fupermod_points p, q;
  long d[512];
  double t[512], e[512], v[512], ci[512], s, se, so;
  int rc, bad;
  gsl_rng_set(r, 20261122);

  /* a straight line is its own fit, with no scatter */
  sizes(r, 20, d);
  for (int i = 0; i < 20; i++) t[i] = 0.5 + 0.01 * (double)d[i], e[i] = 3.0 * t[i];
  make(&p, 20, d, t, e);
  rc = fupermod_points_smooth(&p, 3, 0.95, &q, &s, &se);
  bad = rc != 0;
  for (int i = 0; !bad && i < 20; i++)
    bad = rel(q.pts[i].t, t[i]) > 1e-9 || q.pts[i].ci > 1e-9 * t[i] || rel(q.pts[i].e, e[i]) > 1e-9 ||
          q.pts[i].d != d[i] || q.pts[i].reps != 5;
  ok(!bad && s < 1e-9 && se < 1e-9, "a straight line (with holes) is kept exactly, with zero scatter and ci");
  fupermod_points_free(&q);
  fupermod_points_free(&p);

  /* random sets with holes, noise and curvature, any window: the oracle's fit, ci and scatter */
  bad = 0;
  for (int trial = 0; trial < 300; trial++) {
    int n = 3 + (int)gsl_rng_uniform_int(r, 60), w = 1 + (int)gsl_rng_uniform_int(r, 8);
    double curv = gsl_rng_uniform(r) < 0.3 ? 1e-4 : 0.0, cl = trial % 2 ? 0.95 : 0.9;
    sizes(r, n, d);
    for (int i = 0; i < n; i++) {
      t[i] = (1.0 + 0.02 * (double)d[i] + curv * (double)d[i] * (double)d[i]) * (1.0 + gsl_ran_gaussian(r, 0.1));
      if (t[i] <= 0) t[i] = 1e-3;
    }
    make(&p, n, d, t, NULL);
    rc = fupermod_points_smooth(&p, w, cl, &q, &s, &se);
    oracle(d, t, n, w, cl, v, ci, &so);
    if (rc != 0 || !isnan(se) || rel(s, so) > 1e-6) bad++, diag("trial %d: rc %d s %g oracle %g", trial, rc, s, so);
    for (int i = 0; rc == 0 && i < n; i++) {
      double want = v[i] > 0 ? v[i] : t[i];
      if (rel(q.pts[i].t, want) > 1e-6 || (v[i] > 0 && rel(q.pts[i].ci, ci[i]) > 1e-6) || q.pts[i].e != -1.0) {
        bad++;
        diag("trial %d n %d w %d point %d: t %g want %g, ci %g want %g", trial, n, w, i, q.pts[i].t, want, q.pts[i].ci, ci[i]);
        break;
      }
    }
    if (rc == 0) fupermod_points_free(&q);
    fupermod_points_free(&p);
  }
  ok(bad == 0, "300 random sets (3-62 sizes with holes, windows 3-17, curvature): fit, ci and scatter match the oracle");

  /* calibration: the 95 % prediction interval at a size covers a new run there ~95 % of the time,
   * and the smoothed function is closer to the truth than the raw points */
  {
    int trials = 4000, cover = 0;
    double err_raw = 0, err_smooth = 0;
    for (int trial = 0; trial < trials; trial++) {
      int n = 32, i = (int)gsl_rng_uniform_int(r, 32);
      double a = gsl_rng_uniform(r), b = 0.01 + gsl_rng_uniform(r) * 0.1, truth, fresh;
      for (int j = 0; j < n; j++) d[j] = 18 * (j + 1);
      for (int j = 0; j < n; j++) t[j] = (a + b * (double)d[j]) * (1.0 + gsl_ran_gaussian(r, 0.1));
      make(&p, n, d, t, NULL);
      truth = a + b * (double)d[i];
      fresh = truth * (1.0 + gsl_ran_gaussian(r, 0.1));
      if (fupermod_points_smooth(&p, 3, 0.95, &q, NULL, NULL) == 0) {
        cover += fabs(fresh - q.pts[i].t) <= q.pts[i].ci;
        err_raw += (t[i] - truth) * (t[i] - truth) / (truth * truth);
        err_smooth += (q.pts[i].t - truth) * (q.pts[i].t - truth) / (truth * truth);
        fupermod_points_free(&q);
      }
      fupermod_points_free(&p);
    }
    ok(cover >= 0.93 * trials && cover <= 0.97 * trials, "95 %% prediction interval covers a new run in %d of %d (93-97 %%)",
       cover, trials);
    ok(err_smooth < 0.5 * err_raw, "smoothed points are nearer the true function (mean sq. rel. error %.3g vs raw %.3g)",
       err_smooth / trials, err_raw / trials);
  }

  /* energy is smoothed with its own scatter */
  sizes(r, 16, d);
  for (int i = 0; i < 16; i++) t[i] = 0.1 * (double)d[i], e[i] = 2.0 * (double)d[i] * (i % 2 ? 1.1 : 0.9);
  make(&p, 16, d, t, e);
  rc = fupermod_points_smooth(&p, 2, 0.95, &q, &s, &se);
  ok(rc == 0 && s < 1e-9 && se > 0.05 && se < 0.4 && q.pts[5].e > 0 && q.pts[5].e_ci > 0 && q.pts[5].ci < 1e-9,
     "energy smoothed separately (time scatter %.2g, energy scatter %.3g)", s, se);
  if (rc == 0) fupermod_points_free(&q);

  /* bad input: named, nothing allocated */
  rc = fupermod_points_smooth(&p, 0, 0.95, &q, NULL, NULL);
  ok(rc == FUPERMOD_ERR_USAGE && strstr(fupermod_error_message(), "half-width"), "w = 0 refused: %s", fupermod_error_message());
  rc = fupermod_points_smooth(&p, 2, 1.5, &q, NULL, NULL);
  ok(rc == FUPERMOD_ERR_USAGE && strstr(fupermod_error_message(), "confidence"), "cl = 1.5 refused: %s", fupermod_error_message());
  rc = fupermod_points_smooth(&p, 2, NAN, &q, NULL, NULL);
  ok(rc == FUPERMOD_ERR_USAGE, "cl = NaN refused");
  fupermod_points_free(&p);
  make(&p, 2, d, t, NULL);
  rc = fupermod_points_smooth(&p, 2, 0.95, &q, NULL, NULL);
  ok(rc == FUPERMOD_ERR_INPUT && strstr(fupermod_error_message(), "at least 3"), "2 points refused: %s", fupermod_error_message());
  fupermod_points_free(&p);
  /* three points: one degree of freedom, still a finite interval */
  make(&p, 3, d, t, NULL);
  p.pts[1].t *= 1.2;
  rc = fupermod_points_smooth(&p, 1, 0.95, &q, &s, NULL);
  ok(rc == 0 && isfinite(q.pts[1].ci) && q.pts[1].ci > 0 && s > 0, "3 points: a global line, one degree of freedom");
  if (rc == 0) fupermod_points_free(&q);
  fupermod_points_free(&p);
  gsl_rng_free(r);
  return done_testing();
}
