/* Models and GSL under threads: evaluation never refits (a fit follows only from create, update
 * and the setters, which return a status), several threads evaluate one model at once, and NPA
 * leaves GSL's process-wide error handler to the application while reporting no GSL error. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <gsl/gsl_errno.h>
#include "fupermod/fupermod.h"
#include "partitioners/continuous.h"
#include "tests/tap.h"

static fupermod_model *model(const char *type, int n, const long *d, const double *s, long D) {
  fupermod_points set;
  fupermod_model *m = NULL;
  memset(&set, 0, sizeof set);
  for (int i = 0; i < n; i++) {
    fupermod_point p = FUPERMOD_POINT_INIT;
    p.d = d[i];
    p.t = (double)d[i] / s[i];
    if (fupermod_points_insert(&set, &p) != FUPERMOD_SUCCESS) return NULL;
  }
  if (fupermod_model_create(type, &set, D, &m) != FUPERMOD_SUCCESS) diag("create %s: %s", type, fupermod_error_message());
  fupermod_points_free(&set);
  return m;
}

static double twice(double x, void *ctx) { return 2.0 * x; }
static double broken(double x, void *ctx) { return x > 50 ? NAN : x; }

static void test_no_lazy_refit(void) {
  static const char *types[] = {"cpm", "piecewise", "akima"};
  long d[6] = {10, 30, 50, 80, 120, 200};
  double s[6] = {20, 45, 60, 58, 40, 30};
  for (int ti = 0; ti < 3; ti++) {
    fupermod_model *m = model(types[ti], 6, d, s, 0);
    double t0[40], dt;
    int same = 1, nan = 1, rc;
    if (!m) {
      ok(0, "%s: create", types[ti]);
      continue;
    }
    for (int i = 0; i < 40; i++) t0[i] = fupermod_model_time(m, 1.0 + 7.0 * i);
    /* a direct write is not picked up behind the caller's back: the model reports itself stale */
    m->complexity = twice;
    for (int i = 0; i < 40; i++) nan &= isnan(fupermod_model_time(m, 1.0 + 7.0 * i));
    rc = m->ops->dtdx(m, 40, &dt);
    m->complexity = NULL;
    for (int i = 0; i < 40; i++) same &= fupermod_model_time(m, 1.0 + 7.0 * i) == t0[i];
    ok(nan && rc == FUPERMOD_ERR_USAGE && same,
       "%s: evaluation after a direct write of the complexity does not refit (NAN, dt/dx usage error) "
       "and leaves the fit untouched",
       types[ti]);
    /* a refit that fails is a status, and the model stays as it was */
    rc = fupermod_model_set_complexity(m, broken, NULL);
    same = m->complexity == NULL;
    for (int i = 0; i < 40; i++) same &= fupermod_model_time(m, 1.0 + 7.0 * i) == t0[i];
    ok(rc == FUPERMOD_ERR_INPUT && same, "%s: set_complexity with a non-finite C gives FUPERMOD_ERR_INPUT, model unchanged (%s)",
       types[ti], fupermod_error_message());
    rc = fupermod_model_set_complexity(m, twice, NULL);
    same = 1;
    for (int i = 0; i < 40; i++) {
      double x = 1.0 + 7.0 * i;
      same &= fabs(fupermod_model_time(m, x) - t0[i]) <= 1e-12 * t0[i] &&
              fabs(fupermod_model_speed(m, x) - 2.0 * x / t0[i]) <= 1e-12 * (2.0 * x / t0[i]);
    }
    ok(rc == FUPERMOD_SUCCESS && same, "%s: set_complexity(2x) refits: times unchanged, speeds doubled", types[ti]);
    fupermod_model_free(m);
  }
  {
    /* D shapes Akima's partial edges: set_D gives the model created with that D */
    long d2[3] = {40, 90, 150};
    double s2[3] = {30, 50, 35};
    fupermod_model *a = model("akima", 3, d2, s2, 0), *b = model("akima", 3, d2, s2, 400);
    int same = a && b, differs = 0, rc;
    for (int i = 0; a && b && i < 60; i++) differs |= fupermod_model_time(a, 1.0 + 7.0 * i) != fupermod_model_time(b, 1.0 + 7.0 * i);
    rc = a ? fupermod_model_set_D(a, 400) : -1;
    for (int i = 0; same && i < 60; i++) same = fupermod_model_time(a, 1.0 + 7.0 * i) == fupermod_model_time(b, 1.0 + 7.0 * i);
    ok(differs && rc == FUPERMOD_SUCCESS && same && a->D == 400,
       "akima: D = 0 and D = 400 give different edges; set_D(400) equals the model created with D = 400");
    ok(a && fupermod_model_set_D(a, -1) == FUPERMOD_ERR_USAGE && a->D == 400, "set_D(-1): usage error, D kept");
    fupermod_model_free(a);
    fupermod_model_free(b);
  }
}

/* Several threads evaluate the same models; each must see exactly the serial values. */
typedef struct {
  fupermod_model **m;
  const double *want;
  int bad;
} eval_job;

#define NEVAL 2000
static void *evaluate(void *arg) {
  eval_job *j = arg;
  for (int r = 0; r < 5; r++)
    for (int k = 0; k < 3; k++)
      for (int i = 0; i < NEVAL; i++) {
        double dt, x = 0.5 + 0.13 * i, t = fupermod_model_time(j->m[k], x);
        if (t != j->want[k * NEVAL + i]) j->bad++;
        if (j->m[k]->ops->dtdx(j->m[k], x, &dt) != FUPERMOD_SUCCESS || !isfinite(dt)) j->bad++;
      }
  return NULL;
}

static void test_concurrent_evaluation(void) {
  long d[6] = {10, 30, 50, 80, 120, 200};
  double s[6] = {20, 45, 60, 58, 40, 30}, *want = malloc(3 * NEVAL * sizeof *want);
  fupermod_model *m[3] = {model("cpm", 6, d, s, 300), model("piecewise", 6, d, s, 300), model("akima", 6, d, s, 300)};
  eval_job jobs[4];
  pthread_t th[4];
  int bad = 0, started = 0;
  for (int k = 0; k < 3; k++) fupermod_model_set_complexity(m[k], twice, NULL);
  for (int k = 0; k < 3; k++)
    for (int i = 0; i < NEVAL; i++) want[k * NEVAL + i] = fupermod_model_time(m[k], 0.5 + 0.13 * i);
  for (int i = 0; i < 4; i++) {
    jobs[i] = (eval_job){m, want, 0};
    if (pthread_create(&th[i], NULL, evaluate, &jobs[i]) == 0) started++;
  }
  for (int i = 0; i < started; i++) {
    pthread_join(th[i], NULL);
    bad += jobs[i].bad;
  }
  ok(started == 4 && bad == 0, "4 threads evaluate cpm, piecewise and akima at once: serial values, no error (%d bad)", bad);
  for (int k = 0; k < 3; k++) fupermod_model_free(m[k]);
  free(want);
}

/* GSL: the application's handler stays installed during NPA, and NPA raises nothing. */
static int gsl_calls, foreign_handler;
static void app_handler(const char *reason, const char *file, int line, int gsl_errno) { gsl_calls++; }

static double probe(double x, void *ctx) {
  /* runs inside the solve: which handler would a GSL error reach now? */
  gsl_error_handler_t *h = gsl_set_error_handler(NULL);
  gsl_set_error_handler(h);
  if (h != app_handler) foreign_handler++;
  return x;
}

static double urand(unsigned *seed) { return rand_r(seed) / (RAND_MAX + 1.0); }

static void test_gsl_handler(void) {
  unsigned seed = 12345;
  int failed = 0, solves = 0, fallbacks = 0;
  gsl_error_handler_t *before = gsl_set_error_handler(app_handler);
  for (int trial = 0; trial < 300; trial++) {
    int p = 2 + trial % 5, n;
    fupermod_model *m[6] = {NULL};
    double x[6];
    long D = 100 + (long)(urand(&seed) * 1e6);
    fupermod_npa_info info;
    for (int i = 0; i < p; i++) {
      long d[8];
      double s[8];
      n = 1 + (int)(urand(&seed) * 8);
      for (int j = 0; j < n; j++) {
        d[j] = (j + 1) * (1 + D / 9) ;
        /* smooth speeds, some with a sharp rise or a cliff */
        s[j] = 1.0 + 100.0 * urand(&seed) * (trial % 3 == 0 && j == 1 ? 50.0 : 1.0);
      }
      m[i] = model("akima", n, d, s, D);
      if (m[i] && fupermod_model_set_complexity(m[i], probe, NULL) != FUPERMOD_SUCCESS) failed++;
    }
    for (int i = 0; i < p; i++)
      if (!m[i]) failed++;
    if (!failed) {
      if (fupermod_numerical_solve(p, m, D, x, &info) != FUPERMOD_SUCCESS) failed++;
      solves++;
      fallbacks += info.fallback;
    }
    for (int i = 0; i < p; i++) fupermod_model_free(m[i]);
  }
  {
    gsl_error_handler_t *after = gsl_set_error_handler(before);
    ok(failed == 0 && solves == 300, "300 NPA solves on random Akima models (%d fell back)", fallbacks);
    ok(foreign_handler == 0, "GSL's handler during NPA is the application's (%d evaluations saw another)", foreign_handler);
    ok(after == app_handler, "NPA leaves the application's GSL handler installed");
    ok(gsl_calls == 0, "no GSL error raised inside NPA (%d)", gsl_calls);
  }
}

/* Smoothing three sparse points keeps about one degree of freedom; a quantile asked below one
 * goes to GSL's handler, which aborts by default. */
static void smooth_case(int *errors) {
  static const long d[3] = {5, 12, 26};
  static const double t[3] = {0.21, 2.31, 9.31};
  fupermod_points in, out;
  double sc;
  memset(&in, 0, sizeof in);
  for (int i = 0; i < 3; i++) {
    fupermod_point p = FUPERMOD_POINT_INIT;
    p.d = d[i];
    p.t = t[i];
    fupermod_points_insert(&in, &p);
  }
  if (fupermod_points_smooth(&in, 2, 0.15, &out, &sc, NULL) == FUPERMOD_SUCCESS) {
    for (int i = 0; i < 3; i++)
      if (!(out.pts[i].ci > 0 && out.pts[i].t > 0)) (*errors)++;
    fupermod_points_free(&out);
  } else
    (*errors)++;
  fupermod_points_free(&in);
}

static void test_smooth_gsl(void) {
  int errors = 0, status = -1;
  unsigned seed = 7;
  pid_t pid;
  gsl_error_handler_t *before;
  fflush(stdout);
  /* GSL's default handler, in a child: an abort there is a failure, not a crash of the test */
  if ((pid = fork()) == 0) {
    gsl_set_error_handler(NULL);
    smooth_case(&errors);
    _exit(errors ? 1 : 0);
  }
  if (pid > 0) waitpid(pid, &status, 0);
  ok(pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
     "smoothing 3 sparse points at cl 0.15 under GSL's default handler: no abort, finite positive half-widths");
  gsl_calls = 0;
  before = gsl_set_error_handler(app_handler);
  for (int it = 0; it < 20000; it++) {
    int n = 3 + rand_r(&seed) % 4, w = 1 + rand_r(&seed) % 2;
    fupermod_points in, out;
    double cl = (rand_r(&seed) % 99 + 1) / 100.0, sc;
    memset(&in, 0, sizeof in);
    for (int i = 0; i < n; i++) {
      fupermod_point p = FUPERMOD_POINT_INIT;
      p.d = (i + 1) * (1 + rand_r(&seed) % 5) + i * 10;
      p.t = 0.01 + (rand_r(&seed) % 100) / 10.0;
      fupermod_points_insert(&in, &p);
    }
    if (fupermod_points_smooth(&in, w, cl, &out, &sc, NULL) == FUPERMOD_SUCCESS) fupermod_points_free(&out);
    else errors++;
    fupermod_points_free(&in);
  }
  gsl_set_error_handler(before);
  ok(errors == 0 && gsl_calls == 0, "20000 random smoothings of 3-6 points: no GSL error raised (%d), none failed (%d)",
     gsl_calls, errors);
}

int main(void) {
  test_no_lazy_refit();
  test_concurrent_evaluation();
  test_gsl_handler();
  test_smooth_gsl();
  return done_testing();
}
