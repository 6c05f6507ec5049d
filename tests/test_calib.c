/* Calibration flags, outlier rejection, load-balance efficiency and idle reasons (fupermod/calib.h). */
#include <math.h>
#include <string.h>
#include "fupermod/fupermod.h"
#include "tests/tap.h"

/* n sizes step, step*2, ... with t = d / speed x (1 + noise_k), noise alternating +-rel */
static void line_points(fupermod_points *p, int n, long step, double speed, double rel) {
  p->count = n;
  p->pts = calloc((size_t)n, sizeof *p->pts);
  p->has_energy = 1;
  for (int i = 0; i < n; i++) {
    fupermod_point q = FUPERMOD_POINT_INIT;
    q.d = step * (i + 1);
    q.t = q.d / speed * (1 + (i % 2 ? rel : -rel));
    q.reps = 5;
    q.e = 10 * q.t;
    q.e_ci = 0;
    p->pts[i] = q;
  }
}

static int cmp_dbl(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(void) {
  fupermod_points few, dense, noisy;
  fupermod_calib c;
  char buf[256];
  int rc;
  line_points(&few, 2, 100, 1000, 0);
  line_points(&dense, 20, 50, 1000, 0.02);
  line_points(&noisy, 20, 50, 1000, 0.4);

  /* few sizes: uncalibrated, with a reason */
  rc = fupermod_calib_check(&few, 150, &c);
  ok(rc == FUPERMOD_SUCCESS && !c.calibrated && c.sizes == 2 && isnan(c.scatter) &&
         strstr(c.why, "too few"),
     "2 sizes: uncalibrated (%s)", c.why);
  /* dense sizes near the share: calibrated, scatter about the 2 % alternation */
  rc = fupermod_calib_check(&dense, 500, &c);
  ok(rc == FUPERMOD_SUCCESS && c.calibrated && c.near == 16 && c.exact &&
         c.scatter > 0.01 && c.scatter < 0.05 && c.why[0] == 0,
     "20 sizes from 50 to 1000, share 500: calibrated, 16 near, scatter %.3f", c.scatter);
  /* a share far beyond the measured sizes: nothing near it */
  rc = fupermod_calib_check(&dense, 1999, &c);
  ok(rc == FUPERMOD_SUCCESS && !c.calibrated && c.near == 1 &&
         strstr(c.why, "only 1 measured size within a factor of 2 of 1999"),
     "share 1999 beyond 1000: uncalibrated (%s)", c.why);
  rc = fupermod_calib_check(&dense, 1900, &c);
  ok(rc == FUPERMOD_SUCCESS && c.calibrated && c.near == 2 && !c.exact, "share 1900: 950 and 1000 near, calibrated");
  rc = fupermod_calib_check(&dense, 2001, &c);
  ok(rc == FUPERMOD_SUCCESS && !c.calibrated && c.near == 0 &&
         strstr(c.why, "no measured size within a factor of 2 of 2001"),
     "share 2001: no size within a factor of 2 (%s)", c.why);
  /* one near size but measured exactly: a bracket of one */
  {
    fupermod_points two;
    line_points(&two, 4, 1000, 1000, 0); /* 1000 .. 4000 */
    rc = fupermod_calib_check(&two, 500, &c);
  ok(rc == FUPERMOD_SUCCESS && !c.calibrated && c.near == 1,
       "share 500 with sizes from 1000: only one near");
    rc = fupermod_calib_check(&two, 4000, &c);
  ok(rc == FUPERMOD_SUCCESS && c.calibrated && c.near == 3,
       "share 4000: 3 near, calibrated");
    fupermod_points_free(&two);
  }
  /* scatter of 40 % alternation: uncalibrated even near the share */
  rc = fupermod_calib_check(&noisy, 500, &c);
  ok(rc == FUPERMOD_SUCCESS && !c.calibrated && c.scatter > 0.25 &&
         strstr(c.why, "scatter"),
     "40 %% noise: uncalibrated, scatter %.2f (%s)", c.scatter, c.why);
  rc = fupermod_calib_check(&dense, 0, &c);
  ok(rc == FUPERMOD_SUCCESS && c.calibrated && c.near == 20,
     "the whole model (share 0): calibrated");
  rc = fupermod_calib_check(NULL, 1, &c);
  ok(rc == FUPERMOD_ERR_USAGE, "NULL points refused");
  /* 400 sizes, 2 % alternation from 1 to 100, 40 % above: at a share the scatter is that of the
   * FUPERMOD_CALIB_LOCAL sizes nearest it, so the clean part is calibrated and the noisy part not,
   * while the whole model is as noisy as most of its sizes */
  {
    fupermod_points big;
    line_points(&big, 400, 1, 1000, 0.02);
    for (int i = 100; i < 400; i++) big.pts[i].t = big.pts[i].d / 1000.0 * (1 + (i % 2 ? 0.4 : -0.4));
    rc = fupermod_calib_check(&big, 50, &c);
    ok(rc == FUPERMOD_SUCCESS && c.calibrated && c.scatter < 0.05 && c.near == 76,
       "400 sizes, share 50 in the clean part: calibrated, local scatter %.3f, %d near", c.scatter, c.near);
    rc = fupermod_calib_check(&big, 300, &c);
    ok(rc == FUPERMOD_SUCCESS && !c.calibrated && c.scatter > 0.25, "share 300 in the noisy part: uncalibrated (%s)",
       c.why);
    rc = fupermod_calib_check(&big, 0, &c);
    ok(rc == FUPERMOD_SUCCESS && !c.calibrated && c.scatter > 0.25, "the whole model: uncalibrated (%s)", c.why);
    rc = fupermod_calib_check(&big, 1, &c); /* the window shifts inwards at the ends */
    ok(rc == FUPERMOD_SUCCESS && c.calibrated && c.scatter < 0.05, "share 1: the first %d sizes, calibrated",
       FUPERMOD_CALIB_LOCAL);
    rc = fupermod_calib_check(&big, 100000, &c);
    ok(rc == FUPERMOD_SUCCESS && !c.calibrated && c.scatter > 0.25 && c.near == 0,
       "a share beyond the last size: the last sizes, noisy and none near (%s)", c.why);
    fupermod_points_free(&big);
  }

  /* outliers: 8 repetitions near 1.0 and two slow ones */
  {
    double v[10] = {1.00, 1.02, 0.98, 1.01, 0.99, 1.03, 0.97, 1.00, 1.60, 2.50};
    int keep[10], n = fupermod_outliers(v, 10, 3.5, keep);
    ok(n == 2 && !keep[8] && !keep[9] && keep[0] && keep[6], "two slow repetitions of ten rejected (%d)", n);
    double w[5] = {1, 1, 1, 1, 5};
    ok(fupermod_outliers(w, 5, 3.5, keep) == 0 && keep[4], "MAD 0: nothing rejected");
    double u[6] = {1.0, 1.1, 0.9, 1.05, 0.95, 1.2};
    ok(fupermod_outliers(u, 6, 3.5, keep) == 0, "no outlier in a plain scatter");
    /* median 0, MAD 1: the threshold is 3.5 x 1.4826 = 5.19, so 4.5 stays and 5.5 goes */
    double m[8] = {-1, 1, -1, 1, 0, 0, 0, 4.5};
    ok(fupermod_outliers(m, 8, 3.5, keep) == 0, "4.5 within 3.5 normal-scaled MADs: kept");
    m[7] = 5.5;
    ok(fupermod_outliers(m, 8, 3.5, keep) == 1 && !keep[7], "5.5 beyond 3.5 normal-scaled MADs: rejected");
    double x[2] = {1, 100};
    ok(fupermod_outliers(x, 2, 3.5, keep) == 0 && keep[1], "two values: kept");
    double bad[3] = {1, NAN, 2};
    ok(fupermod_outliers(bad, 3, 3.5, keep) == FUPERMOD_ERR_USAGE, "NaN refused");
    ok(fupermod_outliers(v, 10, 0, keep) == FUPERMOD_ERR_USAGE, "k 0 refused");
    /* the floor: MAD 0 (quantised times) rejects only what is also farther than floor x median */
    double q[7] = {1.0, 1.0, 1.0, 1.0, 1.04, 1.0, 1.2};
    ok(fupermod_outliers_floor(q, 7, 3.5, 0.05, keep) == 1 && !keep[6] && keep[4],
       "floor 5 %%, MAD 0: 1.2 rejected, 1.04 kept");
    ok(fupermod_outliers_floor(q, 7, 3.5, 0.0, keep) == 0, "floor 0, MAD 0: nothing rejected");
    ok(fupermod_outliers_floor(v, 10, 3.5, 0.7, keep) == 1 && !keep[9] && keep[8],
       "a floor above k MADs raises the threshold: 1.6 kept, 2.5 rejected");
    /* the minority cap: with k 0.1 five of seven are beyond the threshold; the 3 farthest go */
    double c7[7] = {1.0, 1.5, 0.4, 2.0, 0.1, 3.5, 1.1};
    ok(fupermod_outliers_floor(c7, 7, 0.1, 0.0, keep) == 3 && !keep[5] && !keep[4] && !keep[3] && keep[0] && keep[1] &&
           keep[2] && keep[6],
       "never more than a minority: 5 of 7 beyond k 0.1, the 3 farthest from the median 1.1 rejected");
    double c4[4] = {1.0, 1.0, 9.0, 9.0};
    ok(fupermod_outliers_floor(c4, 4, 0.1, 0.05, keep) == 1, "half of 4 is no minority: 1 rejected");
    {
      /* the rule against medians taken by sorting, on random samples with ties, odd and even */
      int bad = 0;
      unsigned long long x = 12345;
      for (int it = 0; it < 3000; it++) {
        int n = 3 + it % 60, kr[64], want = 0, rc;
        double r[64], srt[64], dev[64], med, mad, thr;
        for (int i = 0; i < n; i++) {
          x = x * 6364136223846793005ULL + 1442695040888963407ULL;
          r[i] = (double)((x >> 33) % (it % 3 ? 1000 : 7)) * (it % 5 ? 1.0 : 0.01) + ((x >> 20) % 50 == 0 ? 1e4 : 0.0);
          srt[i] = r[i];
        }
        qsort(srt, (size_t)n, sizeof *srt, cmp_dbl);
        med = n % 2 ? srt[n / 2] : 0.5 * (srt[n / 2 - 1] + srt[n / 2]);
        for (int i = 0; i < n; i++) dev[i] = fabs(r[i] - med);
        qsort(dev, (size_t)n, sizeof *dev, cmp_dbl);
        mad = n % 2 ? dev[n / 2] : 0.5 * (dev[n / 2 - 1] + dev[n / 2]);
        thr = 3.5 * 1.4826 * mad;
        for (int i = 0; thr > 0 && i < n; i++) want += fabs(r[i] - med) > thr;
        if (want > (n - 1) / 2) want = (n - 1) / 2;
        rc = fupermod_outliers_floor(r, n, 3.5, 0.0, kr);
        bad += rc != want;
      }
      ok(bad == 0, "3000 random samples with ties (3-62 values): as many rejected as the rule with sorted medians gives (%d differ)",
         bad);
    }
    ok(fupermod_outliers_floor(v, 10, 3.5, -0.1, keep) == FUPERMOD_ERR_USAGE && strstr(fupermod_error_message(), "floor"),
       "a negative floor refused, naming it");
  }

  /* an outlying point: the 6th of 20 dense sizes measured 3 times too slow is found, left out of
   * the scatter, and the model stays calibrated; its 2 % neighbours are not outliers */
  {
    fupermod_points spike;
    int keep[20], n;
    line_points(&spike, 20, 50, 1000, 0.02);
    spike.pts[5].t *= 3;
    n = fupermod_points_outliers(&spike, 3.5, keep);
    ok(n == 1 && !keep[5] && keep[4] && keep[6], "one outlying point of 20 (%d)", n);
    rc = fupermod_calib_check(&spike, 300, &c);
    ok(rc == FUPERMOD_SUCCESS && c.calibrated && c.outliers == 1 && c.scatter < 0.05,
       "calibrated without it: outliers %d, scatter %.3f", c.outliers, c.scatter);
    ok(fupermod_points_outliers(&dense, 3.5, keep) == 0, "no outlying point on a 2 %% alternation");
    ok(fupermod_points_outliers(&few, 3.5, keep) == 0 && keep[0] && keep[1], "2 points: both kept");
    ok(fupermod_points_outliers(&spike, 0, keep) == FUPERMOD_ERR_USAGE && fupermod_points_outliers(NULL, 3.5, keep) ==
       FUPERMOD_ERR_USAGE, "k 0 and NULL points refused");
    fupermod_points_free(&spike);
  }

  /* the residuals behind fupermod_points_outliers against sorted medians of each point's window
   * (the six neighbours go through a sorting network; fewer through a sort): the same points kept,
   * on random sets with repeated times */
  {
    int bad = 0;
    unsigned seed = 11;
    for (int trial = 0; trial < 2000; trial++) {
      int n = 3 + (int)(rand_r(&seed) % 60), w = FUPERMOD_CALIB_WINDOW, got[64], want[64];
      fupermod_point pt[64];
      fupermod_points set = {n, pt, 0};
      double r[64];
      for (int i = 0; i < n; i++) {
        pt[i] = (fupermod_point)FUPERMOD_POINT_INIT;
        pt[i].d = 10 * (i + 1);
        pt[i].t = (double)pt[i].d / (1 + (trial % 2 ? (double)(rand_r(&seed) % 5) : rand_r(&seed) / (double)RAND_MAX));
      }
      for (int i = 0; i < n; i++) {
        double sp[64];
        int m = 0, span = n - 1 < 2 * w ? n - 1 : 2 * w, lo = i - span / 2;
        if (lo < 0) lo = 0;
        if (lo + span >= n) lo = n - 1 - span;
        for (int j = lo; j <= lo + span; j++)
          if (j != i) sp[m++] = (double)pt[j].d / pt[j].t;
        qsort(sp, (size_t)m, sizeof *sp, cmp_dbl);
        r[i] = pt[i].t * (m % 2 ? sp[m / 2] : 0.5 * (sp[m / 2 - 1] + sp[m / 2])) / (double)pt[i].d - 1.0;
      }
      /* a small k rejects the farthest half: which ones turns on every residual */
      double k = trial % 4 < 2 ? 3.5 : 0.05;
      if (fupermod_points_outliers(&set, k, got) != fupermod_outliers(r, n, k, want) ||
          memcmp(got, want, (size_t)n * sizeof *got) != 0)
        bad++;
    }
    ok(bad == 0, "2000 random point sets (3-62 sizes, repeated times, k 3.5 and 0.05): the outliers of sorted window medians (%d differ)",
       bad);
  }

  /* efficiency and idle reasons on a crafted distribution */
  {
    fupermod_dist *d = fupermod_dist_alloc(100, 3);
    fupermod_points slow;
    line_points(&slow, 3, 10, 10, 0); /* d=10 takes 1 s */
    d->parts[0].d = 60;
    d->parts[0].t = 0.6;
    d->parts[1].d = 40;
    d->parts[1].t = 0.4;
    d->parts[2].d = 0;
    d->parts[2].t = 0;
    ok(fabs(fupermod_dist_efficiency(d) - (1.0 / 3) / 0.6) < 1e-12, "efficiency = mean/max = %.4f",
       fupermod_dist_efficiency(d));
    ok(fupermod_dist_idle_reason(d, 2, &slow, 0, buf, sizeof buf) == FUPERMOD_SUCCESS &&
           strstr(buf, "smallest measured size (d=10: 1 s) exceeds the makespan (0.6 s)"),
       "idle: too slow for the makespan (%s)", buf);
    slow.pts[0].t = 0.5;
    ok(fupermod_dist_idle_reason(d, 2, &slow, 1, buf, sizeof buf) == FUPERMOD_SUCCESS && strstr(buf, "idling saves energy"),
       "idle under the energy objective: saves energy (%s)", buf);
    ok(fupermod_dist_idle_reason(d, 2, &slow, 0, buf, sizeof buf) == FUPERMOD_SUCCESS && strstr(buf, "within the makespan"),
       "idle under time though it fits (%s)", buf);
    ok(fupermod_dist_idle_reason(d, 0, &slow, 0, buf, sizeof buf) == FUPERMOD_ERR_USAGE, "a working process has no idle reason");
    d->parts[0].t = d->parts[1].t = 0;
    ok(fupermod_dist_efficiency(d) == 1.0, "all times 0: efficiency 1");
    fupermod_dist_free(d);
    fupermod_points_free(&slow);
  }
  fupermod_points_free(&few);
  fupermod_points_free(&dense);
  fupermod_points_free(&noisy);
  return done_testing();
}
