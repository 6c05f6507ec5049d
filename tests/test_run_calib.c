/* The whole-run model's calibration over several distributions (tools/run_calib.h), on synthetic
 * runs whose true factors are known: a linear cost model t = sum_i f_i w_si + m c_s per set s. */
#include <math.h>
#include <stdlib.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_randist.h>
#include "fupermod/error.h"
#include "tests/tap.h"
#include "tools/run_calib.h"

#define P 3
/* per set: each process's computation at factor 1 (0: idle), and its messages at the links' cost */
static const double W[2][P] = {{1.0, 0.5, 0.0}, {0.6, 0.6, 0.6}};
static const double C[2] = {0.2, 0.4};

static double pred(int s, const double *f, int with, void *ctx) {
  double t = 0;
  (void)ctx;
  for (int i = 0; i < P; i++) t += (f[i] > 0 ? f[i] : 1.0) * W[s][i];
  return t + (with ? C[s] : 0.0);
}

/* n runs of set s with true factors tf and messages' factor tm, each scattered by sd (relative) */
static void make_runs(tool_cal_runs *r, int s, int n, const double *tf, double tm, double sd, gsl_rng *g) {
  r->p = P;
  for (int k = 0; k < n; k++) {
    double f[3 * P] = {0}, e = 1 + gsl_ran_gaussian(g, sd), t = tm * C[s];
    for (int i = 0; i < P; i++)
      if (W[s][i] > 0) {
        f[i] = tf[i] * (1 + gsl_ran_gaussian(g, sd));
        t += tf[i] * W[s][i];
      }
    tool_cal_runs_add(r, t * e, f);
  }
}

int main(void) {
  gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
  const double tf[P] = {1.2, 0.9, 1.5}, tm = 3.0;
  int bad = 0, covered = 0;
  for (int trial = 0; trial < 50; trial++) {
    tool_cal_runs sets[2] = {{0}, {0}};
    tool_cal_fit fit;
    gsl_rng_set(g, (unsigned long)trial + 1);
    make_runs(&sets[0], 0, 5, tf, tm, 0.01, g);
    make_runs(&sets[1], 1, 5, tf, tm, 0.01, g);
    if (trial == 0) {
      /* a 100x spike of the host in set 0: rejected, not learned */
      double f[3 * P] = {120, 90, 0};
      tool_cal_runs_add(&sets[0], 100 * sets[0].whole[0], f);
    }
    if (tool_cal_fit_sets(sets, 2, ~0u, pred, NULL, &fit) != FUPERMOD_SUCCESS) return 1;
    for (int i = 0; i < P; i++) bad += fabs(fit.f[i] / tf[i] - 1) > 0.03;
    bad += fabs(fit.msgs / tm - 1) > 0.15;
    if (trial == 0) {
      ok(fit.rejected == 1, "a 100x spike is rejected (%d rejected)", fit.rejected);
      ok(fabs(fit.f[2] / tf[2] - 1) < 0.03, "a process idle in one distribution takes its factor from the other (%.3f, true %.3f)",
         fit.f[2], tf[2]);
    }
    {
      double lo[3 * P], hi[3 * P], mlo, mhi;
      if (tool_cal_bootstrap(sets, 2, pred, NULL, 200, 0.95, lo, hi, &mlo, &mhi) != FUPERMOD_SUCCESS) return 1;
      covered += lo[0] <= fit.f[0] && fit.f[0] <= hi[0] && mlo <= fit.msgs && fit.msgs <= mhi && lo[0] < hi[0];
    }
    {
      double pr[2], me[2];
      if (tool_cal_leave_one_out(sets, 2, pred, NULL, pr, me) != FUPERMOD_SUCCESS) return 1;
      /* set 1 fitted on set 0 alone: process 2 idle there keeps factor 1 (true 1.5): off */
      if (trial == 1) {
        ok(fabs(pr[0] / me[0] - 1) < 0.05, "leave one out: set 0 predicted from set 1 within 5 %% (%.4g vs %.4g)", pr[0], me[0]);
        ok(pr[1] / me[1] - 1 < -0.05, "leave one out: set 1 from set 0, where process 2 was idle, falls short (%.4g vs %.4g)",
           pr[1], me[1]);
      }
    }
    tool_cal_fit_free(&fit);
    tool_cal_runs_free(&sets[0]);
    tool_cal_runs_free(&sets[1]);
  }
  ok(bad == 0, "50 random instances: every factor within 3 %% of the truth, the messages' factor within 15 %% (%d off)", bad);
  ok(covered == 50, "each bootstrap interval holds the fit's own factor and messages' factor, with a width (%d of 50)", covered);
  {
    /* one set alone: the messages' factor solves its median whole run exactly, as before */
    tool_cal_runs one = {0};
    tool_cal_fit fit;
    double f[3 * P] = {1.0, 1.0, 0};
    one.p = P;
    tool_cal_runs_add(&one, 1.0 + 0.5 + 0.2 * 2.5, f);
    tool_cal_fit_sets(&one, 1, ~0u, pred, NULL, &fit);
    ok(fabs(fit.msgs - 2.5) < 1e-9, "one distribution: the messages' factor makes its prediction its run (%.9g)", fit.msgs);
    tool_cal_fit_free(&fit);
    tool_cal_runs_add(&one, 1.0 + 0.5 + 0.2 * 50, f);
    tool_cal_runs_add(&one, 1.0 + 0.5 + 0.2 * 50, f);
    tool_cal_fit_sets(&one, 1, ~0u, pred, NULL, &fit);
    ok(fit.msgs == 10.0, "the messages' factor stays within [0.2, 10] (%g)", fit.msgs);
    tool_cal_fit_free(&fit);
    tool_cal_runs_free(&one);
  }
  gsl_rng_free(g);
  return done_testing();
}
