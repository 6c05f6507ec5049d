/* Performance models: cpm, piecewise (with fupermod_coarsen), akima, tabulated. */
#include <gsl/gsl_errno.h>
#include <gsl/gsl_interp.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fupermod/fupermod.h"
#include "tests/tap.h"

static unsigned long long rng_state = 88172645463325252ULL;
static double urand(void) { /* xorshift64, uniform in [0, 1) */
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (double)(rng_state >> 11) / 9007199254740992.0;
}
static int irand(int lo, int hi) { return lo + (int)(urand() * (hi - lo + 1)); }

static double relerr(double a, double b) {
  if (a == b) return 0.0;
  return fabs(a - b) / fmax(fabs(a), fabs(b));
}

/* Points with t = d/s (so speed with C(x) = x is s); e may be NULL. */
static void make_points(fupermod_points *set, int n, const long *d, const double *s, const double *e) {
  int i;
  memset(set, 0, sizeof *set);
  for (i = 0; i < n; i++) {
    fupermod_point p = FUPERMOD_POINT_INIT;
    p.d = d[i];
    p.t = (double)d[i] / s[i];
    if (e) p.e = e[i];
    if (fupermod_points_insert(set, &p) != FUPERMOD_SUCCESS) {
      diag("make_points: %s", fupermod_error_message());
      exit(99);
    }
  }
}

static fupermod_model *new_model(const char *type, int n, const long *d, const double *s, const double *e, long D) {
  fupermod_points set;
  fupermod_model *m = NULL;
  int rc;
  make_points(&set, n, d, s, e);
  rc = fupermod_model_create(type, &set, D, &m);
  fupermod_points_free(&set);
  if (rc != FUPERMOD_SUCCESS) diag("create %s (n = %d, D = %ld): %s", type, n, D, fupermod_error_message());
  return m;
}

/* GSL's own Akima spline over given nodes, constant outside them. */
typedef struct ref_spline {
  int n;
  double x[64], y[64];
  gsl_interp *in;
  gsl_interp_accel *acc;
} ref_spline;

static void ref_init(ref_spline *r) {
  r->in = gsl_interp_alloc(gsl_interp_akima, (size_t)r->n);
  r->acc = gsl_interp_accel_alloc();
  gsl_interp_init(r->in, r->x, r->y, (size_t)r->n);
}
static void ref_free(ref_spline *r) {
  gsl_interp_free(r->in);
  gsl_interp_accel_free(r->acc);
}
static double ref_eval(ref_spline *r, double x) {
  if (x <= r->x[0]) return r->y[0];
  if (x >= r->x[r->n - 1]) return r->y[r->n - 1];
  return gsl_interp_eval(r->in, r->x, r->y, x, r->acc);
}
static double ref_deriv(ref_spline *r, double x) {
  if (x < r->x[0] || x > r->x[r->n - 1]) return 0.0;
  return gsl_interp_eval_deriv(r->in, r->x, r->y, x, r->acc);
}
static void ref_add(ref_spline *r, double x, double y) {
  r->x[r->n] = x;
  r->y[r->n] = y;
  r->n++;
}

/* Max relative difference between the model's speed / dt/dx and the reference spline on
 * [lo, hi]; dt/dx of the reference is (s - x s')/s^2 for C(x) = x. */
static double cmp_spline(const fupermod_model *m, ref_spline *r, double lo, double hi, int npts, double *dmax) {
  double worst = 0.0, dworst = 0.0;
  int i;
  for (i = 0; i < npts; i++) {
    double x = lo + (hi - lo) * (i + 0.5) / npts, s = ref_eval(r, x), ds = ref_deriv(r, x), dt;
    double e = relerr(fupermod_model_speed(m, x), s);
    if (!(e <= worst)) worst = e;
    if (fupermod_model_time(m, x) <= 0 || !isfinite(fupermod_model_time(m, x))) worst = INFINITY;
    if (m->ops->dtdx(m, x, &dt) != FUPERMOD_SUCCESS) dt = NAN;
    e = fabs(dt - (s - x * ds) / (s * s)) * s; /* relative to 1/s: dt/dx may cross 0 */
    if (!(e <= dworst)) dworst = e;
  }
  if (dmax) *dmax = dworst;
  return worst;
}

static void test_akima_vs_gsl(void) {
  long d[12];
  double s[12], worst, dworst, xk;
  ref_spline r;
  fupermod_model *m;
  int i, k = 12;
  for (i = 0; i < k; i++) {
    d[i] = 10 + 17 * i + (i * i) % 7;
    s[i] = 100.0 + 40.0 * sin(d[i] / 25.0) + 0.1 * d[i] + (i == 6 ? 30.0 : 0.0);
  }
  xk = (double)d[k - 1];

  /* full model (D = 0): 3 flat nodes on [0, x1) and up to 2 x_k */
  m = new_model("akima", k, d, s, NULL, 0);
  r.n = 0;
  ref_add(&r, 0.0, s[0]);
  ref_add(&r, d[0] / 3.0, s[0]);
  ref_add(&r, 2.0 * d[0] / 3.0, s[0]);
  for (i = 0; i < k; i++) ref_add(&r, (double)d[i], s[i]);
  ref_add(&r, xk + xk / 3.0, s[k - 1]);
  ref_add(&r, xk + 2.0 * xk / 3.0, s[k - 1]);
  ref_add(&r, 2.0 * xk, s[k - 1]);
  ref_init(&r);
  worst = m ? cmp_spline(m, &r, 0.01, 3.0 * xk, 2000, &dworst) : INFINITY;
  ok(worst < 1e-12, "akima full model equals gsl_interp_akima on the extended speed points (max rel err %.2e)", worst);
  ok(dworst < 1e-10, "akima full model dt/dx equals (s - x s')/s^2 from GSL's derivative (max rel err %.2e)", dworst);
  ref_free(&r);
  fupermod_model_free(m);

  /* D > 0 with k >= 5 points: the full rule up to max(2D, 2 x_k), whether or not x_k < D */
  {
    long Ds[2] = {400, 150};
    int j;
    worst = 0.0;
    for (j = 0; j < 2; j++) {
      double e = 2.0 * fmax((double)Ds[j], xk), w;
      m = new_model("akima", k, d, s, NULL, Ds[j]);
      r.n = 0;
      ref_add(&r, 0.0, s[0]);
      ref_add(&r, d[0] / 3.0, s[0]);
      ref_add(&r, 2.0 * d[0] / 3.0, s[0]);
      for (i = 0; i < k; i++) ref_add(&r, (double)d[i], s[i]);
      ref_add(&r, xk + (e - xk) / 3.0, s[k - 1]);
      ref_add(&r, xk + 2.0 * (e - xk) / 3.0, s[k - 1]);
      ref_add(&r, e, s[k - 1]);
      ref_init(&r);
      w = m ? cmp_spline(m, &r, 0.01, 3.0 * e, 1000, NULL) : INFINITY;
      if (!(w <= worst)) worst = w;
      ref_free(&r);
      fupermod_model_free(m);
    }
    ok(worst < 1e-12, "akima with D = 400 > x_k and D = 150 < x_k (k = 12): full extension (max rel err %.2e)", worst);
  }

  /* partial k = 3, 4 (D > x_k): (0, s1), points, (D, s_k) */
  for (k = 3; k <= 4; k++) {
    long D = 300;
    m = new_model("akima", k, d, s, NULL, D);
    r.n = 0;
    ref_add(&r, 0.0, s[0]);
    for (i = 0; i < k; i++) ref_add(&r, (double)d[i], s[i]);
    ref_add(&r, (double)D, s[k - 1]);
    ref_init(&r);
    worst = m ? cmp_spline(m, &r, 0.01, 2.0 * D, 1000, &dworst) : INFINITY;
    ok(worst < 1e-12 && dworst < 1e-10, "partial akima k = %d, D = %ld equals GSL on (0,s1), points, (D,s_k) (%.1e, %.1e)",
       k, D, worst, dworst);
    ref_free(&r);
    fupermod_model_free(m);
  }
}

/* Wild data where GSL's Akima spline dips below 0: speed is floored at 1e-3 * min speed. */
static void test_akima_floor(void) {
  long d[9];
  double s[9] = {1, 1, 1, 100, 0.01, 0.01, 100, 100, 100}, floor_s = 1e-3 * 0.01;
  ref_spline r;
  fupermod_model *m;
  int i, dips = 0, bad = 0;
  for (i = 0; i < 9; i++) d[i] = 10 * (i + 1);
  m = new_model("akima", 9, d, s, NULL, 0);
  r.n = 0;
  ref_add(&r, 0.0, s[0]);
  ref_add(&r, 10 / 3.0, s[0]);
  ref_add(&r, 20 / 3.0, s[0]);
  for (i = 0; i < 9; i++) ref_add(&r, (double)d[i], s[i]);
  ref_add(&r, 90 + 30, s[8]);
  ref_add(&r, 90 + 60, s[8]);
  ref_add(&r, 180, s[8]);
  ref_init(&r);
  for (i = 1; m && i < 2000; i++) {
    double x = i * 0.1, raw = ref_eval(&r, x), v = fupermod_model_speed(m, x), t = fupermod_model_time(m, x), dt;
    if (!(t > 0) || !isfinite(t) || m->ops->dtdx(m, x, &dt) != FUPERMOD_SUCCESS || !isfinite(dt)) bad++;
    else if (raw < floor_s) {
      dips++;
      if (relerr(v, floor_s) > 1e-12 || relerr(dt, 1.0 / floor_s) > 1e-12) bad++;
    } else if (relerr(v, raw) > 1e-12) bad++;
  }
  ok(m && dips > 0 && bad == 0, "akima: where GSL's spline dips below 0 (%d x) speed is the floor, t and dt/dx finite (%d bad)",
     dips, bad);
  ref_free(&r);
  fupermod_model_free(m);
}

/* Linear speed a + b d: reproduced inside the points, constant outside. a, b are dyadic so
 * that the speeds C(d)/t recomputed from t = d/s are exactly linear: GSL's Akima switches to
 * its linear branch only when neighbouring slopes are exactly equal (see docs/models.md). */
static void test_linear(void) {
  const char *types[] = {"akima", "piecewise"};
  long d[10];
  double s[10], a = 5.0, b = 0.25;
  int i, ti, exact = 1;
  for (i = 0; i < 10; i++) {
    d[i] = 10 * (i + 1);
    s[i] = a + b * d[i];
    if ((double)d[i] / ((double)d[i] / s[i]) != s[i]) exact = 0;
  }
  if (!exact) diag("test_linear: the speeds are not exactly recomputable from t = d/s");
  for (ti = 0; ti < 2; ti++) {
    fupermod_model *m = new_model(types[ti], 10, d, s, NULL, 0);
    double in = 0.0, out = 0.0;
    for (i = 0; m && i <= 3000; i++) {
      double x = 0.05 + i * 0.1, v = fupermod_model_speed(m, x), e;
      if (x < d[0]) e = relerr(v, s[0]);
      else if (x > d[9]) e = relerr(v, s[9]);
      else {
        e = relerr(v, a + b * x);
        if (!(e <= in)) in = e;
        continue;
      }
      if (!(e <= out)) out = e;
    }
    if (!m) in = out = INFINITY;
    ok(in <= 1e-12 && out <= 1e-12, "%s: linear speed exact inside (%.1e) and constant outside (%.1e)", types[ti], in, out);
    fupermod_model_free(m);
  }
}

/* The coarsening heuristic written literally (list erasure, "drop and step back one point"). */
static int coarsen_ref(const double *x, const double *s, int n, int *out) {
  int *l = malloc((size_t)n * sizeof *l), len = 0, i, imax = 0, k;
  for (i = 1; i < n; i++)
    if (s[i] > s[imax]) imax = i;
  l[len++] = 0;
  for (i = 1; i <= imax; i++)
    if (s[i] >= s[l[len - 1]]) l[len++] = i;
  i = 1;
  while (i < len - 1) {
    double in = (s[l[i]] - s[l[i - 1]]) / (x[l[i]] - x[l[i - 1]]);
    double nx = (s[l[i + 1]] - s[l[i]]) / (x[l[i + 1]] - x[l[i]]);
    if (nx > in) {
      memmove(l + i, l + i + 1, (size_t)(len - i - 1) * sizeof *l);
      len--;
      if (i > 1) i--;
    } else i++;
  }
  for (;;) { /* drop the first point while some segment has a negative intercept */
    int bad = 0;
    for (i = 0; i + 1 < len; i++)
      if (s[l[i]] * x[l[i + 1]] < s[l[i + 1]] * x[l[i]]) bad = 1; /* intercept < 0, without division */
    if (!bad) break;
    memmove(l, l + 1, (size_t)(len - 1) * sizeof *l);
    len--;
  }
  for (i = imax + 1; i < n; i++)
    if (s[i] <= s[l[len - 1]]) l[len++] = i;
  memcpy(out, l, (size_t)len * sizeof *l);
  k = len;
  free(l);
  return k;
}

/* Shape invariants of a coarsened set; returns NULL or what is violated. */
static const char *check_shape(const double *x, const double *s, int n, const int *keep, int k) {
  int i, imax = 0, pmax = -1;
  for (i = 1; i < n; i++)
    if (s[i] > s[imax]) imax = i;
  if (k < 1 || k > n) return "count out of range";
  for (i = 0; i < k; i++) {
    if (keep[i] < 0 || keep[i] >= n) return "index out of range";
    if (i > 0 && keep[i] <= keep[i - 1]) return "indices not strictly increasing";
    if (keep[i] == imax) pmax = i;
  }
  if (pmax < 0) return "maximum-speed point dropped";
  for (i = 0; i + 1 <= pmax; i++)
    if (!(s[keep[i + 1]] > s[keep[i]])) return "not strictly increasing before the maximum";
  for (i = 1; i + 1 <= pmax; i++) {
    double a = (s[keep[i]] - s[keep[i - 1]]) / (x[keep[i]] - x[keep[i - 1]]);
    double b = (s[keep[i + 1]] - s[keep[i]]) / (x[keep[i + 1]] - x[keep[i]]);
    if (b > a) return "slopes increase before the maximum (not concave)";
  }
  for (i = pmax; i + 1 < k; i++)
    if (s[keep[i + 1]] > s[keep[i]]) return "speed increases after the maximum";
  for (i = 0; i + 1 < k; i++) /* s/x at both ends of each segment; linear between */
    if (s[keep[i]] * x[keep[i + 1]] < s[keep[i + 1]] * x[keep[i]]) return "s(x)/x increases on a segment";
  return NULL;
}

static void random_curve(double *x, double *s, int n) {
  int i, shape = irand(0, 3);
  double noise = (double[]){0.0, 0.01, 0.1, 0.3}[irand(0, 3)];
  double A = 10 + 100 * urand(), B = 5 + 200 * urand(), X0 = 50 + 500 * urand(), W = 50 + 500 * urand();
  x[0] = irand(1, 50);
  for (i = 1; i < n; i++) x[i] = x[i - 1] + irand(1, 40);
  for (i = 0; i < n; i++) {
    double v;
    switch (shape) {
    case 0: v = A * x[i] / (x[i] + B) * (x[i] < X0 ? 1.0 : exp(-(x[i] - X0) / W)); break;
    case 1: v = A * (x[i] < X0 ? 1.0 : 0.3) + 0.01 * x[i]; break;  /* memory cliff */
    case 2: v = A * (0.2 + urand()); break;                          /* no shape at all */
    default: v = floor(1 + 4 * urand()); break;                      /* many ties */
    }
    s[i] = v * (1.0 + noise * (2 * urand() - 1));
    if (s[i] <= 0) s[i] = 1e-3;
  }
}

static void test_coarsen(void) {
  double x[200], s[200];
  int keep[200], ref[200], trial, n, k, kr, bad_shape = 0, bad_ref = 0, i, small = 0;
  const char *why = NULL;
  for (trial = 0; trial < 2000; trial++) {
    n = trial % 10 == 0 ? 1 : trial % 10 == 1 ? 2 : irand(3, trial % 3 ? 40 : 200);
    if (n <= 2) small++;
    random_curve(x, s, n);
    k = fupermod_coarsen(x, s, n, keep);
    why = k < 0 ? fupermod_error_message() : check_shape(x, s, n, keep, k);
    if (why && !bad_shape++) {
      diag("coarsen shape failure (%s) on n = %d:", why, n);
      for (i = 0; i < n; i++) diag("  x[%d] = %.17g  s[%d] = %.17g", i, x[i], i, s[i]);
    }
    kr = coarsen_ref(x, s, n, ref);
    if ((k != kr || memcmp(keep, ref, (size_t)kr * sizeof *ref)) && !bad_ref++) {
      diag("coarsen differs from the literal heuristic on n = %d (k = %d vs %d)", n, k, kr);
      for (i = 0; i < n; i++) diag("  x[%d] = %.17g  s[%d] = %.17g", i, x[i], i, s[i]);
    }
  }
  ok(bad_shape == 0, "coarsen: 2000 random noisy curves (%d with n <= 2) keep the max, increasing-concave, "
                     "then decreasing, s/x non-increasing, increasing indices (%d failures)", small, bad_shape);
  ok(bad_ref == 0, "coarsen: same kept set as the literal 4-step heuristic (+ intercept rule) (%d differ)", bad_ref);

  {
    double x2[] = {1, 2}, s2[] = {1, 10};  /* spec's example: negative intercept */
    double x3[] = {10, 20, 30, 40, 50, 60}, s3[] = {4, 5, 3, 3, 5, 2}; /* ties: first max, equal after */
    double x4[] = {10, 20, 30, 40}, s4[] = {10, 12, 30, 31}; /* concavity: 20 dropped, step back */
    int k2 = fupermod_coarsen(x2, s2, 2, keep);
    ok(k2 == 1 && keep[0] == 1, "coarsen (1,1),(2,10): only the max is kept (k = %d)", k2);
    k2 = fupermod_coarsen(x3, s3, 6, keep);
    ok(k2 == 5 && keep[0] == 0 && keep[1] == 1 && keep[2] == 2 && keep[3] == 3 && keep[4] == 5,
       "coarsen ties: x* is the first maximum, equal speeds after it are kept (k = %d)", k2);
    k2 = fupermod_coarsen(x4, s4, 4, keep);
    ok(k2 == 3 && keep[0] == 0 && keep[1] == 2 && keep[2] == 3,
       "coarsen (10,10),(20,12),(30,30),(40,31): drops the concavity violator 20 only (k = %d)", k2);
  }
  {
    double xb[] = {1, 1, 2}, sb[] = {1, 2, 3}, sn[] = {1, -2, 3};
    int r1 = fupermod_coarsen(xb, sb, 3, keep), r2 = fupermod_coarsen(x, sn, 3, keep);
    int r3 = fupermod_coarsen(x, s, 0, keep), r4 = fupermod_coarsen(NULL, s, 3, keep);
    ok(r1 == FUPERMOD_ERR_USAGE && r2 == FUPERMOD_ERR_USAGE && r3 == FUPERMOD_ERR_USAGE && r4 == FUPERMOD_ERR_USAGE,
       "coarsen rejects repeated x, s <= 0, n = 0 and NULL with FUPERMOD_ERR_USAGE (%d %d %d %d)", r1, r2, r3, r4);
  }
}

/* Does the partial Akima model pass through its points and stay positive-finite on (0, 2D]? */
static int partial_ok(const fupermod_model *m, int k, const long *d, const double *s, long D, double *err) {
  int i, good = 1;
  double w = 0.0;
  for (i = 0; i < k; i++) {
    double e = relerr(fupermod_model_speed(m, (double)d[i]), s[i]);
    if (!(e <= w)) w = e;
  }
  for (i = 1; i <= 400; i++) {
    double t = fupermod_model_time(m, 2.0 * D * i / 400.0);
    if (!(t > 0) || !isfinite(t)) good = 0;
  }
  *err = w;
  return good && w < 1e-12;
}

static void test_partial_akima(void) {
  long D = 100, d[4] = {20, 45, 70, 90};
  double s[4] = {50, 80, 65, 90}, err, worst;
  fupermod_model *m;
  int k, i, fails = 0;
  ref_spline r;

  m = new_model("akima", 1, d, s, NULL, D);
  worst = 0;
  for (i = 1; m && i <= 300; i++) {
    double e = relerr(fupermod_model_speed(m, i * 1.0), s[0]);
    if (!(e <= worst)) worst = e;
  }
  ok(m && worst < 1e-12, "partial akima k = 1 is the constant speed s1 on (0, 3D] (max rel err %.1e)", worst);
  fupermod_model_free(m);

  for (k = 2; k <= 4; k++) {
    m = new_model("akima", k, d, s, NULL, D);
    if (!m || !partial_ok(m, k, d, s, D, &err)) {
      fails++;
      diag("partial akima k = %d: err %.2e, %s", k, m ? err : -1.0, m ? "" : fupermod_error_message());
    }
    fupermod_model_free(m);
  }
  ok(fails == 0, "partial akima k = 2, 3, 4 with D build, pass through the points, t > 0 finite on (0, 2D]");

  { /* x_k == D */
    long dd[3] = {30, 60, 100};
    double ss[3] = {40, 70, 55};
    fails = 0;
    for (k = 1; k <= 3; k++) {
      m = new_model("akima", k, dd + 3 - k, ss + 3 - k, NULL, D);
      if (!m || !partial_ok(m, k, dd + 3 - k, ss + 3 - k, D, &err)) fails++;
      fupermod_model_free(m);
    }
    ok(fails == 0, "akima with x_k == D (k = 1, 2, 3) builds and passes through the points");
  }

  /* p = 2 (x1 = D/2) and p = 3 (x1 = D/3): the literal (D - x1)/2 is <= x1. */
  for (k = 2; k <= 3; k++) {
    long Dp = 300, x1 = Dp / k, dd[2] = {x1, x1 + 40};
    double ss[2] = {70, 90};
    int np;
    for (np = 1; np <= 2; np++) {
      int lit_bad = (Dp - dd[np - 1]) / 2.0 <= (double)dd[np - 1];
      m = new_model("akima", np, dd, ss, NULL, Dp);
      r.n = 0; /* the midpoint-fixed nodes */
      ref_add(&r, 0, ss[0]);
      ref_add(&r, dd[0] / 2.0, ss[0]);
      for (i = 0; i < np; i++) ref_add(&r, (double)dd[i], ss[i]);
      ref_add(&r, (dd[np - 1] + Dp) / 2.0, ss[np - 1]);
      ref_add(&r, (double)Dp, ss[np - 1]);
      ref_init(&r);
      worst = m ? cmp_spline(m, &r, 0.5, 2.0 * Dp, 600, NULL) : INFINITY;
      ok(lit_bad && m && worst < 1e-12,
         "p = %d, k = %d: literal (D-x_k)/2 = %g <= x_k = %ld, model uses the midpoint (GSL rel err %.1e)", k, np,
         (Dp - dd[np - 1]) / 2.0, dd[np - 1], worst);
      ref_free(&r);
      fupermod_model_free(m);
    }
  }
}

static void test_constant_and_identities(void) {
  const char *types[] = {"cpm", "piecewise", "akima"};
  long d1[1] = {40}, d[6] = {10, 30, 50, 80, 120, 200};
  double s1[1] = {25.0}, s[6] = {20, 45, 60, 58, 40, 30};
  int ti, i, bad;
  for (ti = 0; ti < 3; ti++) { /* one point: horizontal speed line, D = 0 and D > 0 */
    long Ds[2] = {0, 1000};
    int j;
    bad = 0;
    for (j = 0; j < 2; j++) {
      fupermod_model *m = new_model(types[ti], 1, d1, s1, NULL, Ds[j]);
      for (i = 1; i <= 500; i++) {
        double x = i * 4.1;
        if (!m || relerr(fupermod_model_speed(m, x), s1[0]) > 1e-12) bad++;
      }
      fupermod_model_free(m);
    }
    ok(bad == 0, "%s: a one-point model has constant speed (%d bad)", types[ti], bad);
  }
  {
    fupermod_model *m = new_model("tabulated", 1, d1, s1, NULL, 0);
    ok(m && fupermod_model_time(m, 40) == 40 / 25.0 && relerr(fupermod_model_speed(m, 40), 25.0) < 1e-15 &&
           isinf(fupermod_model_time(m, 41)),
       "tabulated: a one-point model is exact at its d and infinite elsewhere");
    fupermod_model_free(m);
  }
  for (ti = 1; ti < 3; ti++) { /* constant extension */
    fupermod_model *m = new_model(types[ti], 6, d, s, NULL, 0);
    bad = 0;
    for (i = 1; i <= 100; i++) {
      double lo = d[0] * i / 100.0, hi = d[5] * (1.0 + i / 10.0);
      if (!m || relerr(fupermod_model_speed(m, lo), s[0]) > 1e-12 || relerr(fupermod_model_speed(m, hi), s[5]) > 1e-12)
        bad++;
    }
    ok(bad == 0, "%s: speed is s(x1) on (0, x1] and s(x_k) beyond x_k (%d bad)", types[ti], bad);
    fupermod_model_free(m);
  }
  for (ti = 0; ti < 3; ti++) { /* time * speed = C(x), positive finite */
    fupermod_model *m = new_model(types[ti], 6, d, s, NULL, 0);
    double worst = 0.0;
    bad = 0;
    for (i = 0; m && i < 1000; i++) {
      double x = 1e-3 + 1000 * urand(), t = fupermod_model_time(m, x), e = relerr(t * fupermod_model_speed(m, x), x);
      if (!(t > 0) || !isfinite(t)) bad++;
      if (!(e <= worst)) worst = e;
    }
    ok(m && bad == 0 && worst < 1e-13, "%s: t(x) > 0 finite and t*speed = x on 1000 random x (%.1e)", types[ti], worst);
    fupermod_model_free(m);
  }
}

static double c2(double x, void *ctx) { return *(double *)ctx * x; }

static void test_complexity(void) {
  const char *types[] = {"cpm", "piecewise", "akima"};
  long d[6] = {10, 30, 50, 80, 120, 200};
  double s[6] = {20, 45, 60, 58, 40, 30}, c = 2.0;
  int ti, i, bad = 0;
  for (ti = 0; ti < 3; ti++) {
    fupermod_model *m = new_model(types[ti], 6, d, s, NULL, 0);
    double t0[50];
    if (!m) {
      bad++;
      continue;
    }
    for (i = 0; i < 50; i++) t0[i] = fupermod_model_time(m, 1.0 + 5.0 * i);
    if (fupermod_model_set_complexity(m, c2, &c) != FUPERMOD_SUCCESS) bad++; /* set after creation */
    for (i = 0; i < 50; i++) {
      double x = 1.0 + 5.0 * i;
      if (relerr(fupermod_model_time(m, x), t0[i]) > 1e-12 ||
          relerr(fupermod_model_speed(m, x), 2.0 * x / t0[i]) > 1e-12)
        bad++;
    }
    fupermod_model_free(m);
  }
  ok(bad == 0, "linear complexity C(x) = 2x set after creation: times unchanged, speeds doubled (%d bad)", bad);
}

static void test_dtdx(void) {
  long d[8] = {10, 25, 40, 60, 85, 110, 150, 200};
  double s[8] = {20, 40, 52, 60, 61, 50, 42, 30};
  const char *types[] = {"cpm", "piecewise", "akima"};
  int ti, i;
  for (ti = 0; ti < 3; ti++) {
    fupermod_model *m = new_model(types[ti], 8, d, s, NULL, 0);
    double worst = 0.0;
    int fails = 0;
    for (i = 0; m && i < 500; i++) {
      double x = 0.5 + 300.0 * i / 500.0, h = 1e-5 * x, dt, fd, e;
      int j, near = 0;
      for (j = 0; j < 8; j++)
        if (fabs(x - d[j]) < 2 * h) near = 1;
      if (near) continue; /* piecewise: kinks at breakpoints */
      if (m->ops->dtdx(m, x, &dt) != FUPERMOD_SUCCESS) {
        fails++;
        continue;
      }
      fd = (fupermod_model_time(m, x + h) - fupermod_model_time(m, x - h)) / (2 * h);
      e = fabs(dt - fd) / fmax(fabs(fd), 1e-3);
      if (!(e <= worst)) worst = e;
    }
    ok(m && fails == 0 && worst < 1e-5, "%s: dt/dx matches central differences (max rel err %.1e)", types[ti], worst);
    fupermod_model_free(m);
  }
  { /* piecewise right derivative at a breakpoint */
    fupermod_model *m = new_model("piecewise", 8, d, s, NULL, 0);
    double dt = NAN, h = 1e-6, fd = m ? (fupermod_model_time(m, 40 + h) - fupermod_model_time(m, 40)) / h : NAN;
    int rc = m ? m->ops->dtdx(m, 40, &dt) : -1;
    ok(rc == FUPERMOD_SUCCESS && fabs(dt - fd) < 1e-5 * fabs(fd),
       "piecewise: dt/dx at a breakpoint is the right derivative (%g vs %g)", dt, fd);
    fupermod_model_free(m);
  }
  {
    fupermod_model *m = new_model("tabulated", 8, d, s, NULL, 0);
    double dt;
    ok(m && m->ops->dtdx(m, 40, &dt) == FUPERMOD_ERR_USAGE, "tabulated: dt/dx gives FUPERMOD_ERR_USAGE");
    fupermod_model_free(m);
  }
}

static void test_energy(void) {
  long d[4] = {10, 20, 40, 80};
  double s[4] = {10, 20, 25, 20}, e[4] = {50, 80, 200, 320}; /* e/d = 5, 4, 5, 4 */
  const char *types[] = {"piecewise", "akima"};
  int ti, bad;
  for (ti = 0; ti < 2; ti++) {
    fupermod_model *m = new_model(types[ti], 4, d, s, e, 0);
    bad = !m;
    if (m) {
      if (relerr(fupermod_model_energy(m, 20), 80) > 1e-14) bad++;
      if (relerr(fupermod_model_energy(m, 30), 30 * 4.5) > 1e-14) bad++;
      if (relerr(fupermod_model_energy(m, 60), 60 * 4.5) > 1e-14) bad++;
      if (relerr(fupermod_model_energy(m, 5), 5 * 5.0) > 1e-14) bad++;
      if (relerr(fupermod_model_energy(m, 160), 160 * 4.0) > 1e-14) bad++;
    }
    ok(bad == 0, "%s: energy per unit interpolated linearly, constant outside (%d bad)", types[ti], bad);
    fupermod_model_free(m);
    m = new_model(types[ti], 4, d, s, NULL, 0);
    ok(m && isnan(fupermod_model_energy(m, 30)) && isnan(m->ops->e(m, 30)), "%s: no energy in the points gives NAN",
       types[ti]);
    fupermod_model_free(m);
  }
  {
    fupermod_model *m = new_model("cpm", 4, d, s, e, 0), *t = new_model("tabulated", 4, d, s, e, 0);
    fupermod_point p = FUPERMOD_POINT_INIT;
    ok(m && relerr(fupermod_model_energy(m, 33), 33 * 4.0) < 1e-14, "cpm: energy per unit of its speed point (d = 80)");
    p.d = 20;
    p.t = 1.0;
    p.e = 100;
    ok(m && fupermod_model_update(m, &p) == FUPERMOD_SUCCESS && relerr(fupermod_model_energy(m, 33), 33 * 5.0) < 1e-14 &&
           relerr(fupermod_model_speed(m, 33), 20.0) < 1e-14,
       "cpm: after an update speed and energy come from the updated point");
    ok(t && fupermod_model_energy(t, 40) == 200 && fupermod_model_energy(t, 0) == 0 && isinf(fupermod_model_energy(t, 30)),
       "tabulated: energy exact at measured d, 0 at 0, INFINITY elsewhere");
    fupermod_model_free(m);
    fupermod_model_free(t);
  }
}

static void test_tabulated(void) {
  long d[5] = {1, 3, 4, 10, 1000000};
  double s[5] = {2, 7, 1, 9, 5};
  fupermod_model *m = new_model("tabulated", 5, d, s, NULL, 0);
  int i, bad = !m;
  for (i = 0; m && i < 5; i++)
    if (fupermod_model_time(m, (double)d[i]) != m->points.pts[i].t) bad++;
  ok(bad == 0, "tabulated: t at every measured d is the measured time exactly");
  ok(m && fupermod_model_time(m, 0) == 0 && m->ops->t(m, 0) == 0 && isinf(fupermod_model_time(m, 2)) && isinf(fupermod_model_time(m, 3.5)) &&
         isinf(fupermod_model_time(m, 11)) && isinf(fupermod_model_time(m, 2e6)) && isinf(m->ops->t(m, 1e300)),
     "tabulated: t(0) = 0, INFINITY at unmeasured and non-integral sizes");
  fupermod_model_free(m);
}

static void test_update(void) {
  const char *types[] = {"cpm", "piecewise", "akima", "tabulated"};
  int ti, bad;
  for (ti = 0; ti < 4; ti++) {
    fupermod_points empty = {0, NULL, 0};
    fupermod_model *m = NULL;
    fupermod_point p = FUPERMOD_POINT_INIT;
    int rc = fupermod_model_create(types[ti], &empty, 300, &m);
    bad = rc != FUPERMOD_SUCCESS;
    if (!bad) {
      if (!isnan(fupermod_model_time(m, 10))) bad |= 1;
      p.d = 100, p.t = 2.0; /* speed 50 */
      if (fupermod_model_update(m, &p) != FUPERMOD_SUCCESS) bad |= 2;
      if (ti < 3 && relerr(fupermod_model_speed(m, 37), 50) > 1e-12) bad |= 4;
      if (fupermod_model_time(m, 100) != 2.0) bad |= 8;
      p.d = 200, p.t = 2.5; /* speed 80 */
      if (fupermod_model_update(m, &p) != FUPERMOD_SUCCESS) bad |= 16;
      if (relerr(fupermod_model_time(m, 200), 2.5) > 1e-12) bad |= 32;
      p.d = 100, p.t = 1.0; /* replace: speed 100 */
      if (fupermod_model_update(m, &p) != FUPERMOD_SUCCESS || m->points.count != 2) bad |= 64;
      if (ti != 0 && relerr(fupermod_model_time(m, 100), 1.0) > 1e-12) bad |= 128;
      if (ti == 0 && relerr(fupermod_model_speed(m, 250), 100) > 1e-12) bad |= 256; /* cpm: latest point */
      if (ti == 1 && relerr(fupermod_model_speed(m, 150), 90) > 1e-12) bad |= 512; /* max moved to d = 100 */
      if (ti == 2 && !(fupermod_model_speed(m, 150) > 80 && fupermod_model_speed(m, 150) < 100)) bad |= 1024;
      p.d = 150, p.t = -1.0;
      if (fupermod_model_update(m, &p) == FUPERMOD_SUCCESS || m->points.count != 2) bad |= 2048;
    }
    ok(bad == 0, "%s: created empty, updated point by point, replacing a d changes the prediction (bad 0x%x%s%s)",
       types[ti], bad, bad ? ": " : "", bad ? fupermod_error_message() : "");
    fupermod_model_free(m);
  }
  { /* piecewise keeps raw points: a dropped point can come back */
    long d[3] = {10, 20, 30};
    double s[3] = {10, 5, 20};
    fupermod_model *m = new_model("piecewise", 3, d, s, NULL, 0);
    fupermod_point p = FUPERMOD_POINT_INIT;
    double before = m ? fupermod_model_speed(m, 20) : NAN, after;
    int rc;
    p.d = 30, p.t = 30 / 4.0; /* now the max is at 10 and 20 follows the decreasing rule */
    rc = m ? fupermod_model_update(m, &p) : -1;
    after = m ? fupermod_model_speed(m, 20) : NAN;
    ok(rc == FUPERMOD_SUCCESS && relerr(before, 15) < 1e-12 && relerr(after, 5) < 1e-12 && m->points.count == 3,
       "piecewise: update re-coarsens from all raw points (dropped d = 20 comes back: s(20) %g -> %g)", before, after);
    fupermod_model_free(m);
  }
}

static void test_bad_input(void) {
  const char *types[] = {"cpm", "piecewise", "akima", "tabulated"};
  fupermod_point pts[2] = {FUPERMOD_POINT_INIT, FUPERMOD_POINT_INIT};
  fupermod_points set = {2, pts, 0};
  int ti, bad = 0;
  pts[0].d = 10, pts[0].t = 1.0;
  pts[1].d = 20, pts[1].t = 0.0; /* invalid time, bypassing fupermod_points_insert */
  for (ti = 0; ti < 4; ti++) {
    fupermod_model *m = NULL;
    int rc = fupermod_model_create(types[ti], &set, 0, &m);
    if (rc != FUPERMOD_ERR_INPUT || m || !strstr(fupermod_error_message(), "t =")) {
      bad++;
      diag("%s: rc %d, message '%s'", types[ti], rc, fupermod_error_message());
    }
    fupermod_model_free(m);
  }
  ok(bad == 0, "points with t <= 0 are rejected at creation with FUPERMOD_ERR_INPUT naming t");
  {
    long d[2] = {10, 20};
    double s[2] = {1, 2}, dt;
    fupermod_model *m = new_model("akima", 2, d, s, NULL, 0);
    ok(m && m->ops->dtdx(m, 5, NULL) == FUPERMOD_ERR_USAGE && m->ops->dtdx(m, NAN, &dt) == FUPERMOD_ERR_USAGE,
       "dtdx rejects a NULL result pointer and NaN x");
    fupermod_model_free(m);
  }
}

int main(void) {
  gsl_set_error_handler_off(); /* a GSL error must show up as a failed check, not an abort */
  test_akima_vs_gsl();
  test_linear();
  test_akima_floor();
  test_coarsen();
  test_partial_akima();
  test_constant_and_identities();
  test_complexity();
  test_dtdx();
  test_energy();
  test_tabulated();
  test_update();
  test_bad_input();
  return done_testing();
}
