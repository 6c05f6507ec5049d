/* The Student-t confidence interval and the benchmark's stop rule on synthetic samples. */
#include <math.h>
#include "fupermod/fupermod.h"
#include "tests/tap.h"

static unsigned long long rng = 0x243F6A8885A308D3ULL;
static double urand(void) {
  rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
  return ((double)(rng >> 11) + 0.5) / 9007199254740992.0;
}
static double gauss(void) { return sqrt(-2 * log(urand())) * cos(2 * M_PI * urand()); }

/* Sequential sampling as the benchmark does it: returns n at stop, with mean and ci. */
static int sample_until_done(const fupermod_precision *p, double mu, double sigma, double *mean, double *ci,
                             int *early) {
  double sum = 0, sumsq = 0, elapsed = 0;
  int n = 0;
  *early = 0;
  for (;;) {
    double m = n ? sum / n : 0, sd = n > 1 ? sqrt((sumsq - n * m * m) / (n - 1)) : 0;
    double c = fupermod_student_ci(n, sd, p->cl);
    if (fupermod_precision_done(p, n, m, c, elapsed)) {
      *mean = m;
      *ci = c;
      return n;
    }
    if (n >= p->reps_min && n >= 2 && c <= p->eps * m) *early = 1; /* precise but not stopped */
    double x = mu + sigma * gauss();
    sum += x;
    sumsq += x * x;
    elapsed += x;
    n++;
  }
}

int main(void) {
  /* t quantiles from tables: t_{0.975,4} = 2.776445, t_{0.975,9} = 2.262157, t_{0.995,2} = 9.924843 */
  ok(fabs(fupermod_student_ci(5, 1.0, 0.95) - 2.776445 / sqrt(5)) < 1e-6, "ci(n=5, cl=0.95) uses t_{0.975,4}");
  ok(fabs(fupermod_student_ci(10, 2.0, 0.95) - 2.262157 * 2 / sqrt(10)) < 1e-5, "ci(n=10, cl=0.95) uses t_{0.975,9}");
  ok(fabs(fupermod_student_ci(3, 1.0, 0.99) - 9.924843 / sqrt(3)) < 1e-5, "ci(n=3, cl=0.99) uses t_{0.995,2}");
  ok(isinf(fupermod_student_ci(1, 1.0, 0.95)), "one sample has no interval");
  {
    /* coverage: the interval holds the true mean in about cl of the experiments */
    int hit = 0, N = 4000;
    for (int k = 0; k < N; k++) {
      double s = 0, ss = 0, xs[5];
      for (int i = 0; i < 5; i++) s += xs[i] = 1.0 + 0.1 * gauss();
      double m = s / 5;
      for (int i = 0; i < 5; i++) ss += (xs[i] - m) * (xs[i] - m);
      if (fabs(m - 1.0) <= fupermod_student_ci(5, sqrt(ss / 4), 0.95)) hit++;
    }
    ok(hit > 0.93 * N && hit < 0.97 * N, "95%% intervals cover the true mean in %d of %d experiments", hit, N);
  }
  {
    fupermod_precision p = {.reps_min = 3, .reps_max = 1000, .cl = 0.95, .eps = 0.02};
    double mean, ci;
    int early, bad = 0, total_n = 0;
    for (int k = 0; k < 500; k++) {
      int n = sample_until_done(&p, 1.0, 0.05, &mean, &ci, &early);
      total_n += n;
      if (!(ci <= 0.02 * mean) || early || n < 3) bad++;
    }
    /* expected n: t * 0.05 / sqrt(n) <= 0.02  =>  n about 25 */
    ok(bad == 0, "stops exactly when ci <= eps * mean, never before (500 runs)");
    ok(total_n / 500 > 15 && total_n / 500 < 40, "mean repetitions %d for s.d. 5%% and eps 2%%", total_n / 500);
    int n = sample_until_done(&p, 1.0, 0.0, &mean, &ci, &early);
    ok(n == 3 && ci == 0.0, "zero variance stops at reps_min");
    p.reps_max = 7;
    n = sample_until_done(&p, 1.0, 0.5, &mean, &ci, &early);
    ok(n == 7, "reps_max caps noisy samples (stopped at %d)", n);
    p.reps_max = 1000;
    p.time_max = 10.0;
    n = sample_until_done(&p, 1.0, 0.5, &mean, &ci, &early);
    ok(n >= 9 && n <= 12, "time cap of 10 s stops 1-second runs after about 10 (%d)", n);
  }
  {
    fupermod_precision bad1 = {.reps_min = 0, .reps_max = 10, .cl = 0.95, .eps = 0.1},
                       bad2 = {.reps_min = 3, .reps_max = 2, .cl = 0.95, .eps = 0.1},
                       bad3 = {.reps_min = 3, .reps_max = 10, .cl = 1.0, .eps = 0.1},
                       bad4 = {.reps_min = 3, .reps_max = 10, .cl = 0.95, .eps = NAN};
    ok(fupermod_precision_check(&bad1) == FUPERMOD_ERR_USAGE && fupermod_precision_check(&bad2) == FUPERMOD_ERR_USAGE &&
           fupermod_precision_check(&bad3) == FUPERMOD_ERR_USAGE && fupermod_precision_check(&bad4) == FUPERMOD_ERR_USAGE,
       "invalid precision parameters rejected");
  }
  return done_testing();
}
