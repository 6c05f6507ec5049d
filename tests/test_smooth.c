/* Smoothed functions (fupermod_points_smooth): against an independent oracle on random point sets
 * with holes, exact on power laws, local in size, and calibrated: the 95 % prediction interval
 * covers a new run about 95 % of the time. tests/test_smooth_edges.c checks sparse sets. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include "fupermod/fupermod.h"
#include "tests/tap.h"

#define MAXN 64

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

static int cmp_dbl(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Oracle smoother matrix, from the definition: the distances in log size from d_i to every other
 * size, sorted; bandwidth SPAN x the 2w-th of them, at most log REACH; tricube weights; the
 * weighted least-squares line in log d from its uncentred normal equations, and L[i][j] the
 * weight of y_j in its value at d_i; raw[i] when fewer than 3 sizes have weight (y_i alone). */
static void oracle_matrix(const long *d, int n, int w, double L[][MAXN], int *raw) {
  for (int i = 0; i < n; i++) {
    double u[MAXN], k[MAXN], s0 = 0, s1 = 0, s2 = 0, h, det, xi = log((double)d[i]);
    int m = 0, in = 0;
    for (int j = 0; j < n; j++)
      if (j != i) u[m++] = fabs(log((double)d[j]) - xi);
    qsort(u, (size_t)m, sizeof *u, cmp_dbl);
    h = fmin(log(FUPERMOD_SMOOTH_REACH), FUPERMOD_SMOOTH_SPAN * u[(2 * w < m ? 2 * w : m) - 1]);
    for (int j = 0; j < n; j++) {
      double z = fabs(log((double)d[j]) - xi) / h, x = log((double)d[j]);
      k[j] = z < 1 ? pow(1 - z * z * z, 3) : 0;
      in += k[j] > 0;
      s0 += k[j], s1 += k[j] * x, s2 += k[j] * x * x;
    }
    det = s0 * s2 - s1 * s1;
    raw[i] = in < 3;
    for (int j = 0; j < n; j++)
      L[i][j] = in < 3 ? (j == i) : k[j] * ((s2 - s1 * log((double)d[j])) + xi * (s0 * log((double)d[j]) - s1)) / det;
  }
}

/* Oracle smoothing of y: in log y (all y > 0) or, otherwise, in y with relative residuals where the
 * fit is > 0 (beyond rounding: 1e-9 of the largest |y|). The scatter's divisor and degrees of
 * freedom from A = I - L over the residual rows: tr(AA') and tr(AA')^2 / tr((AA')^2); with no
 * residual row, the measured points with their own half-widths own. */
static void oracle(const long *d, const double *y, const double *own, int n, int w, double cl, double *v, double *ci,
                   double *s) {
  static double L[MAXN][MAXN], A[MAXN][MAXN];
  double z[MAXN], fit[MAXN], rss = 0, d1 = 0, d2 = 0, q;
  int logs = 1, used[MAXN], raw[MAXN];
  double tiny = 0;
  oracle_matrix(d, n, w, L, raw);
  for (int i = 0; i < n; i++) logs = logs && y[i] > 0, tiny = fmax(tiny, 1e-9 * fabs(y[i]));
  for (int i = 0; i < n; i++) z[i] = logs ? log(y[i]) : y[i];
  for (int i = 0; i < n; i++) {
    fit[i] = 0;
    for (int j = 0; j < n; j++) fit[i] += L[i][j] * z[j];
    used[i] = logs || fit[i] > tiny;
    if (used[i]) rss += logs ? (z[i] - fit[i]) * (z[i] - fit[i]) : pow((y[i] - fit[i]) / fit[i], 2);
    for (int j = 0; j < n; j++) A[i][j] = used[i] ? (i == j) - L[i][j] : 0;
  }
  for (int i = 0; i < n; i++)
    for (int k = 0; k < n; k++) {
      double p = 0;
      for (int j = 0; j < n; j++) p += A[i][j] * A[k][j];
      d2 += p * p;
      if (i == k) d1 += p;
    }
  *s = d1 > 0 ? sqrt(rss / d1) : NAN;
  /* one residual row: exactly one degree of freedom, whatever the rounding */
  q = d1 > 0 ? gsl_cdf_tdist_Pinv((1 + cl) / 2, fmax(1, d1 * d1 / d2)) : NAN;
  for (int i = 0; i < n; i++) {
    double h = 0;
    for (int j = 0; j < n; j++) h += L[i][j] * L[i][j];
    if (!used[i]) h = 1;
    v[i] = raw[i] || !used[i] ? y[i] : logs ? exp(fit[i] + (d1 > 0 ? *s * *s * (1 - h) / 2 : 0)) : fit[i];
    ci[i] = isfinite(q) ? q * *s * v[i] * sqrt(1 + h) : own[i];
  }
}

static double rel(double a, double b) { return fabs(a - b) / fmax(fabs(b), 1e-300); }

/* equal to 1e-6 relative, or both NaN, or both the same infinity */
static int same(double a, double b) { return (isnan(a) && isnan(b)) || a == b || rel(a, b) <= 1e-6; }

int main(void) {
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  fupermod_points p, q;
  long d[512];
  double t[512], e[512], v[512], ci[512], s, se, so;
  int rc, bad;
  gsl_rng_set(r, 20261122);

  /* a power law (a line in log-log) is its own fit, with no scatter */
  sizes(r, 20, d);
  for (int i = 0; i < 20; i++) t[i] = 0.02 * pow((double)d[i], 1.3), e[i] = 3.0 * t[i];
  make(&p, 20, d, t, e);
  rc = fupermod_points_smooth(&p, 3, 0.95, &q, &s, &se);
  bad = rc != 0;
  for (int i = 0; !bad && i < 20; i++)
    bad = rel(q.pts[i].t, t[i]) > 1e-9 || q.pts[i].ci > 1e-9 * t[i] || rel(q.pts[i].e, e[i]) > 1e-9 ||
          q.pts[i].d != d[i] || q.pts[i].reps != 5;
  ok(!bad && s < 1e-9 && se < 1e-9, "a power law (with holes) is kept exactly, with zero scatter and ci");
  fupermod_points_free(&q);
  fupermod_points_free(&p);

  /* random sets with holes, noise and curvature, any window, energies at 0 in some: the oracle's
   * fits, half-widths and scatters */
  bad = 0;
  for (int trial = 0; trial < 300; trial++) {
    int n = 3 + (int)gsl_rng_uniform_int(r, 60), w = 1 + (int)gsl_rng_uniform_int(r, 8), zeros = trial % 3 == 0;
    double curv = gsl_rng_uniform(r) < 0.3 ? 1e-4 : 0.0, cl = trial % 2 ? 0.95 : 0.9, ve[MAXN], cie[MAXN], soe, ct[MAXN],
           ce[MAXN];
    sizes(r, n, d);
    for (int i = 0; i < n; i++) {
      t[i] = (1.0 + 0.02 * (double)d[i] + curv * (double)d[i] * (double)d[i]) * (1.0 + gsl_ran_gaussian(r, 0.1));
      if (t[i] <= 0) t[i] = 1e-3;
      /* a dynamic energy at the static baseline reads 0 */
      e[i] = fmax(0.0, (zeros ? 0.05 * (double)d[i] - 2.0 : 0.1 * (double)d[i]) * (1.0 + gsl_ran_gaussian(r, 0.1)));
    }
    make(&p, n, d, t, e);
    for (int i = 0; i < n; i++) ct[i] = p.pts[i].ci, ce[i] = p.pts[i].e_ci;
    rc = fupermod_points_smooth(&p, w, cl, &q, &s, &se);
    oracle(d, t, ct, n, w, cl, v, ci, &so);
    oracle(d, e, ce, n, w, cl, ve, cie, &soe);
    if (rc != 0 || !same(s, so) || !same(se, soe))
      bad++, diag("trial %d: rc %d s %g oracle %g, se %g oracle %g", trial, rc, s, so, se, soe);
    for (int i = 0; rc == 0 && i < n; i++) {
      if (!same(q.pts[i].t, v[i]) || !same(q.pts[i].ci, ci[i]) || !same(q.pts[i].e, ve[i]) ||
          !same(q.pts[i].e_ci, cie[i])) {
        bad++;
        diag("trial %d n %d w %d point %d: t %g want %g, ci %g want %g, e %g want %g, e_ci %g want %g", trial, n, w, i,
             q.pts[i].t, v[i], q.pts[i].ci, ci[i], q.pts[i].e, ve[i], q.pts[i].e_ci, cie[i]);
        break;
      }
    }
    if (rc == 0) fupermod_points_free(&q);
    fupermod_points_free(&p);
  }
  ok(bad == 0,
     "300 random sets (3-62 sizes with holes, w 1-8, curvature, energies at 0): fits, ci and scatters match the oracle");

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
  {
    long dz[3] = {0, 5, 9}; /* no logarithm */
    make(&p, 3, dz, t, NULL);
    rc = fupermod_points_smooth(&p, 2, 0.95, &q, NULL, NULL);
    ok(rc == FUPERMOD_ERR_INPUT && strstr(fupermod_error_message(), "d=0"), "d = 0 refused: %s", fupermod_error_message());
    fupermod_points_free(&p);
  }

  /* sizes a factor 10 apart: no size has 2 others within a factor FUPERMOD_SMOOTH_REACH, so every
   * point stays its own measurement, and nothing measures the scatter: the benchmark's half-widths */
  {
    long dd[4] = {10, 100, 1000, 10000};
    double tt[4] = {0.3, 1.1, 9.0, 120.0};
    make(&p, 4, dd, tt, NULL);
    rc = fupermod_points_smooth(&p, 3, 0.95, &q, &s, NULL);
    bad = rc != 0;
    for (int i = 0; !bad && i < 4; i++) bad = q.pts[i].t != tt[i] || q.pts[i].ci != p.pts[i].ci;
    ok(!bad && isnan(s), "sizes 10 times apart: the measured points and half-widths, scatter unknown");
    if (rc == 0) fupermod_points_free(&q);
    fupermod_points_free(&p);
  }

  /* an adaptive build's sizes: 18 has only 54 within a factor 4, so it keeps its measurement (a
   * line through 18..342 extrapolated the cluster's noise to it); the far cluster moves the fits
   * at 18 and 54 only through the pooled scatter, s^2 (1 - leverage) / 2 in log t */
  {
    long dd[12] = {18, 54, 180, 270, 288, 306, 324, 342, 1026, 1080, 1134, 1188};
    double s2, far = 0;
    fupermod_points q2;
    for (int i = 0; i < 12; i++) t[i] = 1e-3 * (double)dd[i] / (1 - exp(-(double)dd[i] / 100)) * (1 + gsl_ran_gaussian(r, 0.05));
    make(&p, 12, dd, t, NULL);
    rc = fupermod_points_smooth(&p, 3, 0.95, &q, &s, NULL);
    ok(rc == 0 && q.pts[0].t == t[0] && isfinite(q.pts[0].ci) && q.pts[0].ci > 0,
       "d=18 with 54 alone within a factor 4: its measurement %.4g (smoothed %.4g), half-width %.3g", t[0],
       rc == 0 ? q.pts[0].t : NAN, rc == 0 ? q.pts[0].ci : NAN);
    for (int i = 3; i < 12; i++) p.pts[i].t *= 1.5;
    if (rc == 0 && fupermod_points_smooth(&p, 3, 0.95, &q2, &s2, NULL) == 0) {
      for (int i = 0; i < 2; i++) far = fmax(far, fabs(log(q2.pts[i].t / q.pts[i].t)) - fabs(s2 * s2 - s * s) / 2);
      ok(far <= 1e-12, "times at 270 and beyond x 1.5: the fits at 18 and 54 move by the scatter's share alone (%.2g over)", far);
      fupermod_points_free(&q2);
    } else
      ok(0, "the smoothing with the far cluster changed");
    if (rc == 0) fupermod_points_free(&q);
    fupermod_points_free(&p);
  }
  gsl_rng_free(r);
  return done_testing();
}
