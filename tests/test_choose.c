/* fupermod_choose: a candidate without a prediction is refused, never chosen; predict keeps the
 * base unless another is faster beyond both intervals; the race measures only the candidates whose
 * intervals overlap the least prediction's, one per distribution, within its rounds, and on
 * random instances with noisy runs picks the truly fastest far more often than the point argmin
 * of biased predictions does. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "fupermod/fupermod.h"
#include "tests/tap.h"

typedef struct {
  const double *truth; /* each candidate's true mean run */
  double noise;        /* relative sd of a run */
  unsigned seed;
  int calls[16];
} bench;

static double gauss(unsigned *s) {
  double u = (rand_r(s) + 1.0) / (RAND_MAX + 2.0), v = (rand_r(s) + 1.0) / (RAND_MAX + 2.0);
  return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

static int measure(int k, void *ctx, double *t) {
  bench *b = ctx;
  b->calls[k]++;
  *t = b->truth[k] * (1 + b->noise * gauss(&b->seed));
  return FUPERMOD_SUCCESS;
}

static fupermod_candidate cand(const char *l, double p, double ci) {
  fupermod_candidate c = {l, p, ci, -1, 0, 0, 0};
  return c;
}

int main(void) {
  int chosen = -1, rc;
  fupermod_choose_stats st;
  fupermod_choose_opts least = {FUPERMOD_CHOOSE_LEAST, 0, 0, 0, 0.95, NULL, NULL};
  fupermod_choose_opts pred = {FUPERMOD_CHOOSE_PREDICT, 1, 0, 0, 0.95, NULL, NULL};
  {
    /* a NaN first: the old argmin kept it, as nothing compares less than NaN */
    fupermod_candidate c[3] = {cand("nan", NAN, 0), cand("b", 2.0, 0.1), cand("c", 1.5, 0.1)};
    rc = fupermod_choose(c, 3, &least, &chosen, &st);
    ok(rc == FUPERMOD_SUCCESS && chosen == 2 && st.refused == 1, "least: a NaN prediction is refused and counted, the least finite chosen (%d)", chosen);
    c[1].pred = c[2].pred = INFINITY;
    rc = fupermod_choose(c, 3, &least, &chosen, &st);
    ok(rc == FUPERMOD_ERR_INFEASIBLE && st.refused == 3 && strstr(fupermod_error_message(), "none of the 3 candidates"),
       "no candidate with a prediction: an error, nothing chosen (%s)", fupermod_error_message());
  }
  {
    fupermod_candidate c[3] = {cand("a", 1.00, 0.05), cand("base", 1.05, 0.05), cand("c", 1.2, 0.01)};
    rc = fupermod_choose(c, 3, &pred, &chosen, NULL);
    ok(rc == 0 && chosen == 1, "predict: the base is kept where a faster prediction lies within the intervals (%d)", chosen);
    c[0].pred = 0.9;
    rc = fupermod_choose(c, 3, &pred, &chosen, NULL);
    ok(rc == 0 && chosen == 0, "predict: another candidate faster beyond both intervals is chosen (%d)", chosen);
    c[0].pred_ci = NAN;
    rc = fupermod_choose(c, 3, &pred, &chosen, NULL);
    ok(rc == 0 && chosen == 1, "predict: a candidate without an interval is never beyond it (%d)", chosen);
    c[1].pred = NAN;
    rc = fupermod_choose(c, 3, &pred, &chosen, NULL);
    ok(rc == 0 && chosen == 0, "predict: a base without a prediction gives way to the least (%d)", chosen);
  }
  {
    /* the race: c is clearly out (its interval above a's), d is b's distribution again */
    double truth[4] = {1.10, 1.00, 3.0, 1.00};
    bench b = {truth, 0.01, 7, {0}};
    fupermod_candidate c[4] = {cand("a", 1.00, 0.1), cand("b", 1.05, 0.1), cand("c", 1.5, 0.1), cand("d", 1.05, 0.1)};
    c[3].same_as = 1;
    fupermod_choose_opts race = {FUPERMOD_CHOOSE_RACE, 0, 6, 1, 0.95, measure, &b};
    rc = fupermod_choose(c, 4, &race, &chosen, &st);
    ok(rc == 0 && chosen == 1, "race: the faster of two overlapping predictions wins by its runs (%d)", chosen);
    ok(st.top == 2 && b.calls[2] == 0 && b.calls[3] == 0, "race: only the overlapping, distinct candidates run (top %d; c %d, d %d runs)",
       st.top, b.calls[2], b.calls[3]);
    ok(st.decided && st.rounds < 6 && b.calls[0] == st.rounds && c[1].raced == st.rounds,
       "race: decided beyond both half-widths before the budget (%d rounds)", st.rounds);
    ok(fabs(c[1].race_mean - 1.0) < 0.05 && c[1].race_ci > 0 && isnan(c[2].race_mean), "race: the runs' mean and half-width reported");
    /* a prediction wrong beyond its interval (the model, not the noise): c is truly the fastest.
     * Racing only the overlapping ones misses it; the top 3 always race, and c wins */
    double wrong[4] = {1.10, 1.00, 0.70, 1.00};
    bench w = {wrong, 0.01, 5, {0}};
    fupermod_choose_opts top1 = {FUPERMOD_CHOOSE_RACE, 0, 6, 1, 0.95, measure, &w}, top3 = top1;
    top3.top = 3;
    rc = fupermod_choose(c, 4, &top1, &chosen, &st);
    ok(rc == 0 && chosen == 1 && w.calls[2] == 0, "race, overlapping only: a candidate predicted out of reach is not run (%d)", chosen);
    rc = fupermod_choose(c, 4, &top3, &chosen, &st);
    ok(rc == 0 && chosen == 2 && st.top == 3 && w.calls[3] == 0,
       "race, top 3: the truly fastest, predicted beyond the intervals, runs and wins (%d; %d raced, d never)", chosen, st.top);
    /* two equal: the budget ends the race, undecided, within its rounds */
    double same[2] = {1.0, 1.0};
    bench e = {same, 0.05, 3, {0}};
    fupermod_candidate c2[2] = {cand("x", 1.0, 0.1), cand("y", 1.0, 0.1)};
    fupermod_choose_opts r2 = {FUPERMOD_CHOOSE_RACE, 0, 4, 1, 0.95, measure, &e};
    rc = fupermod_choose(c2, 2, &r2, &chosen, &st);
    ok(rc == 0 && !st.decided && st.rounds == 4 && e.calls[0] == 4 && e.calls[1] == 4,
       "race: candidates that cannot be told apart run the whole budget, no more (%d rounds)", st.rounds);
    fupermod_choose_opts bad = {FUPERMOD_CHOOSE_RACE, 0, 0, 1, 0.95, measure, &e};
    ok(fupermod_choose(c2, 2, &bad, &chosen, NULL) == FUPERMOD_ERR_USAGE, "race: zero rounds is a usage error");
  }
  {
    /* random instances: 2-5 candidates whose true runs differ by 0-15 %, predictions off by up
     * to +-10 % (the intervals cover it), runs with 5 % noise. The race's regret against the
     * truly fastest, against the argmin of the predictions' */
    int N = 2000, worse = 0, lost_big = 0;
    double reg_race = 0, reg_least = 0;
    unsigned s = 11;
    for (int it = 0; it < N; it++) {
      int n = 2 + rand_r(&s) % 4, cl = -1, cr = -1;
      double truth[5], best = INFINITY;
      fupermod_candidate c[5];
      for (int k = 0; k < n; k++) {
        truth[k] = 1.0 + 0.15 * rand_r(&s) / (double)RAND_MAX;
        best = fmin(best, truth[k]);
        c[k] = cand("r", truth[k] * (1 + 0.2 * (rand_r(&s) / (double)RAND_MAX - 0.5)), 0.1 * truth[k]);
      }
      bench b = {truth, 0.05, (unsigned)it, {0}};
      fupermod_choose_opts race = {FUPERMOD_CHOOSE_RACE, 0, 8, 1, 0.95, measure, &b};
      if (fupermod_choose(c, n, &least, &cl, NULL) || fupermod_choose(c, n, &race, &cr, NULL)) worse = N;
      reg_least += truth[cl] / best - 1, reg_race += truth[cr] / best - 1;
      worse += truth[cr] > truth[cl] + 1e-12;
      lost_big += truth[cr] / best - 1 > 0.05;
    }
    diag("mean regret over %d instances: race %.2f %%, least prediction %.2f %%; race worse in %d, > 5 %% off in %d", N,
         100 * reg_race / N, 100 * reg_least / N, worse, lost_big);
    ok(reg_race < 0.5 * reg_least, "race: mean regret %.2f %% under half the least prediction's %.2f %% on %d random instances",
       100 * reg_race / N, 100 * reg_least / N, N);
    ok(lost_big < N / 100, "race: more than 5 %% slower than the fastest in %d of %d instances (under 1 %%)", lost_big, N);
  }
  ok(fupermod_choose_parse("race") == FUPERMOD_CHOOSE_RACE && fupermod_choose_parse("predict") == FUPERMOD_CHOOSE_PREDICT &&
     fupermod_choose_parse("least") == FUPERMOD_CHOOSE_LEAST && fupermod_choose_parse("fast") == -1 &&
     strcmp(fupermod_choose_name(FUPERMOD_CHOOSE_RACE), "race") == 0, "policy names both ways");
  return done_testing();
}
