/* Continuous partitioners: even, cpm, geometric (GPA), numerical (NPA).
 * Golden vectors T3, T4, T6, T7, T10 of spec 6.6; random instances are checked against an
 * independent balance (bisection on the common time, written here, not in the library). */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fupermod/fupermod.h"
#include "partitioners/continuous.h"
#include "partitioners/partitioners.h"
#include "tests/tap.h"

/* ---- deterministic random numbers (splitmix64) ---- */
static uint64_t rng_state = 0x5eed2014c1a4cULL;
static uint64_t rnd64(void) {
  uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
static double urand(double a, double b) { return a + (b - a) * (double)(rnd64() >> 11) / 9007199254740992.0; }
static long irand(long a, long b) { return a + (long)(rnd64() % (uint64_t)(b - a + 1)); }

/* ---- models from speed points (t = d / s, C(d) = d) ---- */
static fupermod_model *model_from_speeds(const char *type, int n, const long *d, const double *s,
                                         long D) {
  fupermod_points pts = {0, NULL, 0};
  fupermod_model *m = NULL;
  pts.pts = calloc((size_t)n, sizeof *pts.pts);
  for (int i = 0; i < n; i++) {
    fupermod_point p = FUPERMOD_POINT_INIT;
    p.d = d[i];
    p.t = (double)d[i] / s[i];
    pts.pts[i] = p;
  }
  pts.count = n;
  if (fupermod_model_create(type, &pts, D, &m) != FUPERMOD_SUCCESS) {
    diag("model_create(%s): %s", type, fupermod_error_message());
    m = NULL;
  }
  free(pts.pts);
  return m;
}

static void free_models(fupermod_model **m, int p) {
  for (int i = 0; i < p; i++) fupermod_model_free(m[i]);
}

/* ---- analytic models (own ops): exact derivatives and call counting ---- */
enum { ANA_CONST, ANA_SMOOTH, ANA_BADDERIV, ANA_CLIFF };
typedef struct ana {
  int kind;
  double A, K, L, c; /* SMOOTH: s = A (c + x/K)/(1 + x/K)/(1 + x/L); CLIFF: A up to K, A/20 beyond */
  long calls;
} ana;

/* SMOOTH rises from A c to about A, then falls; s(x)/x decreases, so t(x) = x/s(x) increases */
static double ana_speed(const ana *a, double x) {
  switch (a->kind) {
  case ANA_CONST: return a->A;
  case ANA_CLIFF: return x <= a->K ? a->A : a->A / 20.0;
  default: return a->A * (a->c + x / a->K) / (1.0 + x / a->K) / (1.0 + x / a->L);
  }
}

/* dt/dx of SMOOTH: t = x u v / (A w), u = 1 + x/K, v = 1 + x/L, w = c + x/K */
static double ana_smooth_dtdx(const ana *a, double x) {
  double u = 1.0 + x / a->K, v = 1.0 + x / a->L, w = a->c + x / a->K;
  return (u * v / w + x * (v / a->K / w + u / a->L / w - u * v / (a->K * w * w))) / a->A;
}
static double ana_t(const fupermod_model *m, double x) {
  ana *a = m->impl;
  a->calls++;
  return x / ana_speed(a, x);
}
static int ana_dtdx(const fupermod_model *m, double x, double *d) {
  const ana *a = m->impl;
  switch (a->kind) {
  case ANA_CONST:
  case ANA_CLIFF: *d = 1.0 / ana_speed(a, x); break;
  case ANA_SMOOTH: *d = ana_smooth_dtdx(a, x); break;
  default: *d = -50.0 * ana_smooth_dtdx(a, x); break; /* wrong on purpose */
  }
  return FUPERMOD_SUCCESS;
}
static const fupermod_model_ops ana_ops = {"analytic", ana_t, NULL, ana_dtdx, NULL, NULL};
static fupermod_point ana_point = {.d = 1, .t = 1.0, .e = -1.0, .e_ci = -1.0, .reps = 1, .samples = -1};

static void ana_init(fupermod_model *m, ana *a) {
  memset(m, 0, sizeof *m);
  m->ops = &ana_ops;
  m->points.count = 1; /* fupermod_model_time needs a non-empty model */
  m->points.pts = &ana_point;
  m->impl = a;
}

/* ---- independent balance: bisection on the common time T ----
 * x_i(T) = largest x in [0, D] with t_i(x) <= T (t_i non-decreasing); returns the brackets
 * lo (sum <= D) and hi (sum >= D) of the balanced distribution. */
static double x_at_time(const fupermod_model *m, double T, double D) {
  double lo = 0.0, hi = D;
  if (fupermod_model_time(m, D) <= T) return D;
  for (int k = 0; k < 200 && hi - lo > 1e-15 * D; k++) {
    double mid = 0.5 * (lo + hi);
    if (fupermod_model_time(m, mid) <= T) lo = mid;
    else hi = mid;
  }
  return lo;
}
static void balance(int p, fupermod_model **m, long D, double *xlo, double *xhi) {
  double Tlo = 0.0, Thi = 0.0;
  for (int i = 0; i < p; i++) {
    double t = fupermod_model_time(m[i], (double)D);
    if (t > Thi) Thi = t;
  }
  for (int k = 0; k < 300 && Thi - Tlo > 1e-16 * Thi; k++) {
    double T = 0.5 * (Tlo + Thi), sum = 0.0;
    for (int i = 0; i < p; i++) sum += x_at_time(m[i], T, (double)D);
    if (sum > (double)D) Thi = T;
    else Tlo = T;
  }
  for (int i = 0; i < p; i++) {
    xlo[i] = x_at_time(m[i], Tlo, (double)D);
    xhi[i] = x_at_time(m[i], Thi, (double)D);
  }
}

/* t non-decreasing on a fine grid of (0, D]: the bisection reference is then exact. */
static int time_monotone(const fupermod_model *m, long D) {
  double prev = 0.0;
  for (int k = 1; k <= 4000; k++) {
    double t = fupermod_model_time(m, (double)D * k / 4000.0);
    if (t < prev) return 0;
    prev = t;
  }
  return 1;
}

/* ---- helpers ---- */
static int run(const char *alg, int p, fupermod_model **m, long D, fupermod_dist **out) {
  const fupermod_partitioner *pa = fupermod_partitioner_find(alg);
  fupermod_dist *dist = fupermod_dist_alloc(D, p);
  int rc;
  *out = NULL;
  if (!pa || !dist) {
    fupermod_dist_free(dist);
    return -100;
  }
  rc = pa->continuous(p, m, dist);
  if (rc == FUPERMOD_SUCCESS) *out = dist;
  else fupermod_dist_free(dist);
  return rc;
}

static int dist_is(const fupermod_dist *d, const long *want) {
  for (int i = 0; i < d->size; i++)
    if (d->parts[i].d != want[i]) return 0;
  return 1;
}

static void diag_dist(const char *what, const fupermod_dist *d) {
  char buf[512];
  int n = 0;
  for (int i = 0; i < d->size && n < 450; i++) n += snprintf(buf + n, sizeof buf - (size_t)n, " %ld", d->parts[i].d);
  diag("%s:%s", what, buf);
}

/* valid: sum D, d >= 0, t = model time at d (0 for d = 0), finite */
static int valid(const fupermod_dist *d, fupermod_model **m, const char **why) {
  long sum = 0;
  for (int i = 0; i < d->size; i++) {
    const fupermod_part *pt = &d->parts[i];
    double t = pt->d > 0 ? fupermod_model_time(m[i], (double)pt->d) : 0.0;
    if (pt->d < 0) return *why = "negative part", 0;
    if (!isfinite(pt->t) || pt->t != t) return *why = "t not the model's time at d", 0;
    sum += pt->d;
  }
  if (sum != d->D) return *why = "parts do not sum to D", 0;
  return 1;
}

/* ---- random model shapes ---- */
/* Increasing-concave up to a peak, decreasing after it (sometimes a cliff), some noise. */
static fupermod_model *random_shaped(const char *type, long D, int noisy) {
  int n = (int)irand(1, 12);
  long d[12];
  double s[12], smax = urand(1.0, 1000.0), xp = urand(0.05, 1.5) * (double)D;
  double a = urand(0.0, 0.9), b = urand(0.0, 3.0), cliff = urand(0.2, 2.0) * (double)D;
  int has_cliff = irand(0, 3) == 0;
  long top = 2 * D > 12 ? 2 * D : 12;
  for (int i = 0; i < n; i++) { /* distinct sorted sizes in [1, 2D] */
    long v;
    int dup;
    do {
      v = irand(1, top);
      dup = 0;
      for (int j = 0; j < i; j++) dup |= d[j] == v;
    } while (dup);
    int j = i;
    while (j > 0 && d[j - 1] > v) {
      d[j] = d[j - 1];
      j--;
    }
    d[j] = v;
  }
  for (int i = 0; i < n; i++) {
    double x = (double)d[i], v;
    if (x <= xp) v = smax * (1.0 - a * (1.0 - x / xp) * (1.0 - x / xp));
    else v = smax * exp(-b * (x - xp) / (double)D);
    if (has_cliff && x > cliff) v *= 0.05;
    if (noisy) v *= urand(0.95, 1.05);
    s[i] = v;
  }
  return model_from_speeds(type, n, d, s, D);
}

/* Smooth speed sampled at n points: A x/(x+K)/(1+x/L) (rise then fall). */
static fupermod_model *random_smooth_akima(long D, ana *shape) {
  long d[40];
  double s[40];
  int n = (int)irand(12, 40);
  shape->kind = ANA_SMOOTH;
  shape->A = urand(1.0, 100.0);
  shape->K = urand(0.01, 0.5) * (double)D;
  shape->L = urand(0.2, 3.0) * (double)D;
  shape->c = urand(0.1, 1.0);
  for (int i = 0; i < n; i++) {
    d[i] = 1 + (long)((double)(2 * D - 1) * i / (n - 1));
    if (i > 0 && d[i] <= d[i - 1]) d[i] = d[i - 1] + 1;
    s[i] = ana_speed(shape, (double)d[i]);
  }
  return model_from_speeds("akima", n, d, s, D);
}

/* ====================================================================== */

static void test_registry(void) {
  const char *names[] = {"even", "cpm", "geometric", "numerical"};
  const char *types[] = {"cpm", "piecewise", "piecewise", "akima"}; /* cpm reads s(D/p) of full models */
  int good = 1;
  for (int i = 0; i < 4; i++) {
    const fupermod_partitioner *pa = fupermod_partitioner_find(names[i]);
    if (!pa || pa->kind != FUPERMOD_PART_CONTINUOUS || !pa->continuous || !pa->model_type ||
        strcmp(pa->model_type, types[i]) != 0 || !pa->description) {
      diag("descriptor %s missing or wrong", names[i]);
      good = 0;
    }
  }
  ok(good, "registry: even, cpm, geometric, numerical are continuous with model types cpm, piecewise, piecewise, akima");
}

static void test_even(void) {
  fupermod_model *m[5];
  fupermod_dist *d = NULL;
  long d1[3] = {4, 3, 3}, d2[5] = {1, 1, 0, 0, 0};
  long x[1] = {10};
  double s[5] = {1, 2, 3, 4, 5};
  int good;
  for (int i = 0; i < 5; i++) {
    double si = s[i];
    m[i] = model_from_speeds("cpm", 1, x, &si, 0);
  }
  good = run("even", 3, m, 10, &d) == 0 && dist_is(d, d1) && fabs(d->parts[0].t - 4.0) < 1e-12 &&
         fabs(d->parts[1].t - 1.5) < 1e-12 && fabs(d->parts[2].t - 1.0) < 1e-12;
  if (!good && d) diag_dist("even D=10 p=3", d);
  fupermod_dist_free(d);
  ok(good, "even: D=10, p=3 -> (4,3,3), t = d/s");
  good = run("even", 5, m, 2, &d) == 0 && dist_is(d, d2) && d->parts[4].t == 0.0;
  if (!good && d) diag_dist("even D=2 p=5", d);
  fupermod_dist_free(d);
  ok(good, "even: D=2, p=5 -> (1,1,0,0,0), idle parts have t = 0");
  free_models(m, 5);
}

static void test_T6(void) {
  fupermod_model *m[4];
  fupermod_dist *d = NULL;
  long x[1] = {25};
  double s[4] = {1, 2, 3, 4};
  long want1[4] = {10, 20, 30, 40}, want2[3] = {4, 3, 3};
  int good;
  for (int i = 0; i < 4; i++) m[i] = model_from_speeds("cpm", 1, x, &s[i], 100);
  good = run("cpm", 4, m, 100, &d) == 0 && dist_is(d, want1);
  for (int i = 0; good && i < 4; i++) good = fabs(d->parts[i].t - 10.0) < 1e-12;
  if (!good && d) diag_dist("cpm T6a", d);
  fupermod_dist_free(d);
  ok(good, "T6 cpm: speeds (1,2,3,4), D=100 -> (10,20,30,40), all t = 10");
  free_models(m, 4);
  for (int i = 0; i < 3; i++) {
    double one = 1.0;
    m[i] = model_from_speeds("cpm", 1, x, &one, 10);
  }
  good = run("cpm", 3, m, 10, &d) == 0 && dist_is(d, want2);
  if (!good && d) diag_dist("cpm T6b", d);
  fupermod_dist_free(d);
  ok(good, "T6 cpm: speeds (1,1,1), D=10 -> (4,3,3)");
  free_models(m, 3);
}

static void test_T7(void) {
  long dA[3] = {10, 50, 100}, dB[2] = {10, 100};
  double sA[3] = {100, 100, 20}, sB[2] = {50, 50}, x[2], xL[2];
  fupermod_model *m[2];
  fupermod_dist *d = NULL;
  fupermod_gpa_info gi;
  long gpa[2] = {62, 38}, cpm[2] = {67, 33};
  int good, rc;
  m[0] = model_from_speeds("piecewise", 3, dA, sA, 100);
  m[1] = model_from_speeds("piecewise", 2, dB, sB, 100);
  if (!m[0] || !m[1]) {
    ok(0, "T7: piecewise models could not be built");
    return;
  }
  rc = fupermod_geometric_solve(2, m, 100, 1.0, x, xL, &gi);
  good = rc == 0 && gi.bisections == 6 && fabs(x[0] - 61.8026) < 5e-4 && fabs(x[1] - 38.0952) < 5e-4 &&
         gi.D_U <= 100.0 && gi.D_L >= 100.0 && gi.D_L - gi.D_U < 1.0;
  if (!good)
    diag("GPA T7: rc=%d bisections=%d x^U=(%.6f, %.6f) D_U=%.6f D_L=%.6f", rc, gi.bisections, x[0], x[1],
         gi.D_U, gi.D_L);
  ok(good, "T7 GPA: 6 slope bisections, x^U = (61.8026, 38.0952), D_U <= 100 <= D_L, D_L - D_U < 1");
  good = run("geometric", 2, m, 100, &d) == 0 && dist_is(d, gpa) && fabs(d->parts[0].t - 0.7673) < 1e-4 &&
         fabs(d->parts[1].t - 0.7600) < 1e-4;
  if (!good && d) diag_dist("geometric T7", d);
  fupermod_dist_free(d);
  ok(good, "T7 GPA: (62,38), t = (0.7673, 0.7600)");
  good = run("cpm", 2, m, 100, &d) == 0 && dist_is(d, cpm) && fabs(d->parts[0].t - 0.9203) < 1e-4 &&
         fabs(d->parts[1].t - 0.66) < 1e-4;
  if (!good && d) diag_dist("cpm T7", d);
  fupermod_dist_free(d);
  ok(good, "T7 CPM on the same models: (67,33), t = (0.9203, 0.66)");
  /* exact balance of T7: x_A = 61.8457 */
  {
    double lo[2], hi[2];
    balance(2, m, 100, lo, hi);
    ok(fabs(lo[0] - 61.8457) < 1e-3 && fabs(hi[1] - 38.1543) < 1e-3,
       "T7 reference balance in this test: x = (%.4f, %.4f)", lo[0], hi[1]);
  }
  free_models(m, 2);
}

/* T3: one-point models are horizontal lines: GPA and NPA equal CPM up to rounding. */
static void test_T3(void) {
  int cases = 300, bad_gpa = 0, bad_npa = 0, same_npa = 0;
  for (int c = 0; c < cases; c++) {
    int p = (int)irand(2, 9);
    long D = irand(p, 100000);
    fupermod_model *pw[9], *ak[9], *cp[9];
    fupermod_dist *dg = NULL, *dn = NULL, *dc = NULL;
    double x[9], speeds[9], sum = 0.0;
    fupermod_npa_info ni;
    for (int i = 0; i < p; i++) {
      long d1 = irand(1, 2 * D);
      speeds[i] = urand(0.5, 50.0);
      sum += speeds[i];
      pw[i] = model_from_speeds("piecewise", 1, &d1, &speeds[i], D);
      ak[i] = model_from_speeds("akima", 1, &d1, &speeds[i], D);
      cp[i] = model_from_speeds("cpm", 1, &d1, &speeds[i], D);
    }
    int rc = run("geometric", p, pw, D, &dg) | run("numerical", p, ak, D, &dn) | run("cpm", p, cp, D, &dc);
    int gbad = rc != 0, nbad = rc != 0;
    for (int i = 0; !rc && i < p; i++) {
      if (labs(dg->parts[i].d - dc->parts[i].d) > 1) gbad = 1;
      if (labs(dn->parts[i].d - dc->parts[i].d) > 1) nbad = 1;
    }
    if (!rc) {
      int same = 1;
      for (int i = 0; i < p; i++) same &= dn->parts[i].d == dc->parts[i].d;
      same_npa += same;
    }
    /* NPA's continuous answer is CPM's x exactly (relative 1e-9) */
    if (!rc && fupermod_numerical_solve(p, ak, D, x, &ni) == 0) {
      for (int i = 0; i < p; i++)
        if (fabs(x[i] - (double)D * speeds[i] / sum) > 1e-9 * (double)D) nbad = 1;
      if (ni.fallback) nbad = 1;
    } else nbad = 1;
    if (gbad && !bad_gpa++) {
      diag("T3 GPA case %d: p=%d D=%ld rc=%d", c, p, D, rc);
      if (dg) diag_dist("gpa", dg);
      if (dc) diag_dist("cpm", dc);
    }
    if (nbad && !bad_npa++) {
      diag("T3 NPA case %d: p=%d D=%ld rc=%d fallback=%d", c, p, D, rc, ni.fallback);
      if (dn) diag_dist("npa", dn);
      if (dc) diag_dist("cpm", dc);
    }
    fupermod_dist_free(dg);
    fupermod_dist_free(dn);
    fupermod_dist_free(dc);
    free_models(pw, p);
    free_models(ak, p);
    free_models(cp, p);
  }
  ok(bad_gpa == 0, "T3: GPA on one-point models within 1 unit per device of CPM (%d/%d bad)", bad_gpa, cases);
  ok(bad_npa == 0, "T3: NPA on one-point models solves to CPM's x (1e-9 D) without fallback, within 1 unit (%d/%d bad; %d identical)",
     bad_npa, cases, same_npa);
}

/* T4: equal flat models: GPA gives D/p with zero bisections and reads each model once. */
static void test_T4(void) {
  ana a[4];
  fupermod_model mm[4], *m[4];
  fupermod_gpa_info gi;
  fupermod_dist *d = NULL;
  double x[4];
  long want[4] = {250, 250, 250, 250}, want2[4] = {251, 250, 250, 250};
  long calls = 0;
  int good;
  for (int i = 0; i < 4; i++) {
    a[i] = (ana){ANA_CONST, 7.5, 0, 0, 0, 0};
    ana_init(&mm[i], &a[i]);
    m[i] = &mm[i];
  }
  good = fupermod_geometric_solve(4, m, 1000, 1.0, x, NULL, &gi) == 0 && gi.bisections == 0;
  for (int i = 0; i < 4; i++) good &= x[i] == 250.0;
  ok(good, "T4: equal flat models -> x = D/p with %d bisections", gi.bisections);
  for (int i = 0; i < 4; i++) a[i].calls = 0;
  good = run("geometric", 4, m, 1000, &d) == 0 && dist_is(d, want);
  for (int i = 0; i < 4; i++) calls += a[i].calls;
  if (!good && d) diag_dist("T4", d);
  fupermod_dist_free(d);
  ok(good && calls == 8, "T4: geometric -> (250,250,250,250) reading each model once + once to predict (%ld calls)",
     calls);
  good = run("geometric", 4, m, 1001, &d) == 0 && dist_is(d, want2);
  fupermod_dist_free(d);
  ok(good, "T4: D=1001 -> (251,250,250,250): the remainder to the lowest rank");
}

/* GPA on random concave-then-decreasing piecewise models vs the independent balance. */
#ifndef GPA_CASES
#define GPA_CASES 400
#endif
static void test_gpa_random(void) {
  int cases = GPA_CASES, invalid = 0, far = 0, bracket = 0, beyond1 = 0;
  double worst = 0.0;
  for (int c = 0; c < cases; c++) {
    int p = (int)irand(2, 8);
    long D = irand(p, 100000);
    fupermod_model *m[8];
    fupermod_dist *d = NULL;
    double lo[8], hi[8], x[8], xL[8];
    fupermod_gpa_info gi;
    const char *why = "";
    int bad = 0;
    for (int i = 0; i < p; i++) m[i] = random_shaped("piecewise", D, c % 3 == 0);
    int rc = run("geometric", p, m, D, &d);
    if (rc != 0 || !valid(d, m, &why)) {
      if (!invalid++) diag("GPA random case %d: rc=%d (%s) %s", c, rc, fupermod_error_message(), rc ? "" : why);
      bad = 1;
    }
    if (!bad) {
      balance(p, m, D, lo, hi);
      for (int i = 0; i < p; i++) {
        double v = (double)d->parts[i].d;
        double e = v < lo[i] ? lo[i] - v : v > hi[i] ? v - hi[i] : 0.0;
        if (e > worst) worst = e;
        if (e > 1.0 + 1e-9) beyond1++;
        if (e >= 2.0) bad = 1;
      }
      if (bad && !far++) {
        diag("GPA random case %d: p=%d D=%ld, a part is 2 units or more from the balance", c, p, D);
        diag_dist("gpa", d);
        for (int i = 0; i < p; i++) diag("  balance x[%d] in [%.6f, %.6f]", i, lo[i], hi[i]);
      }
      /* the continuous answer lies left of the balance (upper line), D_U <= D <= D_L */
      if (fupermod_geometric_solve(p, m, D, 1.0, x, xL, &gi) == 0) {
        int b = !(gi.D_U <= (double)D + 1e-9 * D && gi.D_L >= (double)D - 1e-9 * D);
        for (int i = 0; i < p; i++) b |= x[i] > hi[i] * (1 + 1e-12) + 1e-12 || xL[i] < lo[i] * (1 - 1e-12);
        if (b && !bracket++) diag("GPA case %d: x^U/x^L do not bracket the balance (D_U=%g D_L=%g)", c, gi.D_U, gi.D_L);
      } else bracket++;
    }
    fupermod_dist_free(d);
    free_models(m, p);
  }
  ok(invalid == 0, "GPA random shaped piecewise models: %d cases valid (sum D, d >= 0, t filled) (%d bad)", cases, invalid);
  /* x^U <= x* <= x^L with sum(x^L - x^U) < 1, then floor/+1: |d - x*| < 2 is the guarantee;
   * beyond 1 needs a large fraction left without the +1 and most of the gap on that device */
  ok(far == 0, "GPA random: every part within 2 units of the independent balance (%d bad, worst %.4f)", far, worst);
  ok(beyond1 * 200 <= cases,
     "GPA random: parts more than 1 unit from the balance are rare (%d of %d cases x parts; at most 0.5%% of cases allowed)",
     beyond1, cases);
  ok(bracket == 0, "GPA random: x^U <= balance <= x^L and D_U <= D <= D_L (%d bad)", bracket);
}

/* NPA on smooth Akima models (and the analytic functions themselves). */
static void test_npa_smooth(void) {
  int cases = 200, unconv = 0, far = 0, invalid = 0, ana_bad = 0, maxit = 0, nonmono = 0, fallbacks = 0;
  double worst_res = 0.0;
  for (int c = 0; c < cases; c++) {
    int p = (int)irand(2, 8);
    long D = irand(10 * p, 1000000);
    fupermod_model *m[8], mm[8], *am[8];
    ana shape[8];
    fupermod_dist *d = NULL;
    fupermod_npa_info ni;
    double x[8], F[8], lo[8], hi[8], T;
    const char *why = "";
    int bad = 0;
    for (int i = 0; i < p; i++) {
      m[i] = random_smooth_akima(D, &shape[i]);
      ana_init(&mm[i], &shape[i]);
      am[i] = &mm[i];
    }
    /* a monotone time per model makes the root unique and F free of stationary points
     * (Clarke's P2), so the solver itself must converge; otherwise the fallback may answer */
    int mono = 1;
    for (int i = 0; i < p; i++) mono &= time_monotone(m[i], D);
    nonmono += !mono;
    /* continuous answer: relative residual < 1e-8 */
    if (fupermod_numerical_solve(p, m, D, x, &ni) != 0 || (mono && ni.fallback) ||
        fupermod_numerical_system(p, m, D, x, F, NULL) != 0) {
      bad = 1;
    } else {
      T = fupermod_model_time(m[0], x[0]);
      double r = fabs(F[0]) / (double)D;
      for (int i = 1; i < p; i++) r += fabs(F[i]) / T;
      if (r > worst_res) worst_res = r;
      if (!(r < 1e-8)) bad = 1;
      if (ni.iterations > maxit) maxit = ni.iterations;
      fallbacks += ni.fallback;
    }
    if (bad && !unconv++) diag("NPA smooth case %d: p=%d D=%ld fallback=%d iterations=%d rD=%g rT=%g (%s)", c, p, D,
                               ni.fallback, ni.iterations, ni.residual_D, ni.residual_time, fupermod_error_message());
    /* integer answer: valid, within 1 unit of the independent balance */
    if (run("numerical", p, m, D, &d) != 0 || !valid(d, m, &why)) {
      if (!invalid++) diag("NPA smooth case %d invalid: %s", c, d ? why : fupermod_error_message());
    } else {
      int fb = 0;
      if (!mono) { /* several balances may exist: the reference is NPA's own x (checked above) */
        for (int i = 0; i < p; i++) lo[i] = hi[i] = x[i];
      } else balance(p, m, D, lo, hi);
      for (int i = 0; i < p; i++) {
        double v = (double)d->parts[i].d;
        if (v < lo[i] - 1.0 - 1e-9 || v > hi[i] + 1.0 + 1e-9) fb = 1;
      }
      if (fb && !far++) {
        diag("NPA smooth case %d: p=%d D=%ld part more than 1 unit from the balance", c, p, D);
        diag_dist("npa", d);
        for (int i = 0; i < p; i++) diag("  balance x[%d] in [%.6f, %.6f], x*=%.6f", i, lo[i], hi[i], x[i]);
      }
    }
    fupermod_dist_free(d);
    /* the analytic functions with exact dt/dx: x within 1e-9 D of their own balance */
    if (fupermod_numerical_solve(p, am, D, x, &ni) != 0 || ni.fallback) ana_bad++;
    else {
      balance(p, am, D, lo, hi);
      for (int i = 0; i < p; i++)
        if (x[i] < lo[i] - 1e-9 * D || x[i] > hi[i] + 1e-9 * D) {
          if (!ana_bad++) diag("NPA analytic case %d: x[%d]=%.9f not in [%.9f, %.9f]", c, i, x[i], lo[i], hi[i]);
          break;
        }
    }
    free_models(m, p);
  }
  ok(unconv == 0,
     "NPA smooth Akima: relative |F| < 1e-8, by the solver alone where every spline time is monotone (%d bad; worst %.2g, max %d iterations; %d fallbacks among %d non-monotone cases)",
     unconv, worst_res, maxit, fallbacks, nonmono);
  ok(invalid == 0 && far == 0,
     "NPA smooth Akima: valid and within 1 unit per device of the independent balance (%d invalid, %d far; non-monotone cases compared with NPA's x)",
     invalid, far);
  ok(ana_bad == 0, "NPA analytic models with exact dt/dx: x within 1e-9 D of the independent balance (%d bad)", ana_bad);
}

/* T10: Jacobian of eq. 4.8 against central differences of F. */
static void test_T10(void) {
  int cases = 100, bad = 0, row1 = 0, signs = 0;
  double worst = 0.0;
  for (int c = 0; c < cases; c++) {
    int p = (int)irand(2, 6);
    long D = irand(100, 100000);
    fupermod_model *m[6], mm[6];
    ana shape[6];
    double x[6], J[36], F1[6], F2[6], xs[6];
    int akima = c % 2 == 0;
    for (int i = 0; i < p; i++) {
      if (akima) m[i] = random_smooth_akima(D, &shape[i]);
      else {
        shape[i] = (ana){ANA_SMOOTH, urand(1, 100), urand(0.01, 0.5) * D, urand(0.2, 3) * D, urand(0.1, 1), 0};
        ana_init(&mm[i], &shape[i]);
        m[i] = &mm[i];
      }
      x[i] = urand(0.05, 0.95) * (double)D;
    }
    if (fupermod_numerical_system(p, m, D, x, F1, J) != 0) {
      if (!bad++) diag("T10 case %d: %s", c, fupermod_error_message());
      if (akima) free_models(m, p);
      continue;
    }
    for (int j = 0; j < p; j++) row1 += J[j] != -1.0;
    for (int i = 1; i < p; i++) {
      /* time increases with x here, so column 1 is -g_1 < 0 and the diagonal g_i > 0 */
      if (!(J[i * p] < 0) || !(J[i * p + i] > 0)) signs++;
      for (int j = 1; j < p; j++)
        if (j != i && J[i * p + j] != 0.0) signs++;
    }
    for (int j = 0; j < p; j++) {
      double h = 1e-5 * x[j];
      memcpy(xs, x, sizeof xs);
      xs[j] = x[j] + h;
      fupermod_numerical_system(p, m, D, xs, F2, NULL);
      xs[j] = x[j] - h;
      fupermod_numerical_system(p, m, D, xs, F1, NULL);
      for (int i = 0; i < p; i++) {
        double fd = (F2[i] - F1[i]) / (2 * h), scale = fabs(J[i * p + i]) + fabs(J[i * p]);
        double e = fabs(fd - J[i * p + j]) / (scale > 0 ? scale : 1.0);
        if (i == 0) e = fabs(fd - J[j]);
        if (e > worst) worst = e;
        if (e > 1e-4) {
          if (!bad) diag("T10 case %d (%s): J[%d][%d] = %.10g, central difference %.10g", c, akima ? "akima" : "analytic",
                         i, j, J[i * p + j], fd);
          bad++;
        }
      }
    }
    if (akima) free_models(m, p);
  }
  ok(bad == 0, "T10: Jacobian (eq. 4.8) matches central differences of F (%d bad entries, worst rel %.2g)", bad, worst);
  ok(row1 == 0, "T10: row 1 of the Jacobian is all -1 (%d wrong)", row1);
  ok(signs == 0, "T10: column 1 negative below row 1, diagonal positive, other entries 0 (%d wrong)", signs);
}

/* The fallback: a wrong derivative or a speed cliff defeats the solver; still valid and balanced. */
static void test_npa_fallback(void) {
  ana a[3];
  fupermod_model mm[3], *m[3];
  fupermod_npa_info ni;
  fupermod_dist *d = NULL;
  double x[3], lo[3], hi[3];
  const char *why = "";
  int good, rc;
  a[0] = (ana){ANA_BADDERIV, 10.0, 100.0, 3000.0, 0.3, 0};
  a[1] = (ana){ANA_SMOOTH, 30.0, 50.0, 1000.0, 0.5, 0};
  a[2] = (ana){ANA_BADDERIV, 5.0, 500.0, 5000.0, 0.2, 0};
  for (int i = 0; i < 3; i++) {
    ana_init(&mm[i], &a[i]);
    m[i] = &mm[i];
  }
  memset(&ni, 0, sizeof ni);
  rc = fupermod_numerical_solve(3, m, 1000, x, &ni);
  good = rc == 0;
  if (!good) diag("rc=%d %s", rc, fupermod_error_message());
  balance(3, m, 1000, lo, hi);
  for (int i = 0; good && i < 3; i++) good = x[i] >= lo[i] - 1e-6 && x[i] <= hi[i] + 1e-6;
  if (!good) diag("x = (%g %g %g), balance lo (%g %g %g), fallback=%d", x[0], x[1], x[2], lo[0], lo[1], lo[2], ni.fallback);
  ok(good, "NPA with a wrong dt/dx: answer at the balance (fallback=%d, %d iterations)", ni.fallback, ni.iterations);
  /* a speed cliff at x=300 on device 0: no exact root of F exists */
  a[0] = (ana){ANA_CLIFF, 100.0, 300.0, 0, 0, 0};
  a[1] = (ana){ANA_CONST, 10.0, 0, 0, 0, 0};
  a[2] = (ana){ANA_CONST, 10.0, 0, 0, 0, 0};
  good = fupermod_numerical_solve(3, m, 1000, x, &ni) == 0 && ni.fallback == 1;
  ok(good, "NPA on a speed cliff with no exact balance: the bisection fallback is used (fallback=%d, %d iterations)",
     ni.fallback, ni.iterations);
  good = run("numerical", 3, m, 1000, &d) == 0 && valid(d, m, &why);
  if (good) {
    /* the cliff device stops at 300 units; the rest split evenly */
    long want[3] = {300, 350, 350};
    good = dist_is(d, want);
    if (!good) diag_dist("cliff", d);
  }
  fupermod_dist_free(d);
  ok(good, "NPA on the cliff: valid distribution (300,350,350)");
}

/* Random property test of all four: valid, deterministic, errors never crash. */
static void test_property(void) {
  const char *algs[4] = {"even", "cpm", "geometric", "numerical"};
  const char *types[3] = {"cpm", "piecewise", "akima"};
  int cases = 1500, bad[4] = {0, 0, 0, 0}, nondet[4] = {0, 0, 0, 0}, fallbacks = 0, resets = 0;
  for (int c = 0; c < cases; c++) {
    int p = (int)irand(1, 10);
    long D = c % 10 == 0 ? irand(0, 3) : irand(0, 2000000);
    long Dm = D > 0 ? D : 1;
    fupermod_model *m[10];
    for (int i = 0; i < p; i++) m[i] = random_shaped(types[irand(0, 2)], Dm, (int)irand(0, 1));
    if (D > 0) {
      double x[10];
      fupermod_npa_info ni;
      if (fupermod_numerical_solve(p, m, D, x, &ni) == 0) {
        fallbacks += ni.fallback;
        resets += ni.resets > 0;
      }
    }
    for (int a = 0; a < 4; a++) {
      fupermod_dist *d1 = NULL, *d2 = NULL;
      const char *why = "";
      int rc1 = run(algs[a], p, m, D, &d1), rc2 = run(algs[a], p, m, D, &d2);
      if (rc1 != 0 || !valid(d1, m, &why)) {
        if (!bad[a]++)
          diag("%s property case %d (p=%d D=%ld): rc=%d %s", algs[a], c, p, D, rc1, rc1 ? fupermod_error_message() : why);
      } else if (rc2 != 0 || memcmp(d1->parts, d2->parts, (size_t)p * sizeof *d1->parts) != 0) {
        if (!nondet[a]++) diag("%s property case %d: second run differs", algs[a], c);
      }
      fupermod_dist_free(d1);
      fupermod_dist_free(d2);
    }
    free_models(m, p);
  }
  diag("NPA on these mixed models: %d fallbacks, %d solves with an iterate clamped into (0, D]", fallbacks, resets);
  for (int a = 0; a < 4; a++)
    ok(bad[a] == 0 && nondet[a] == 0,
       "property %s: %d random instances valid (sum D, d >= 0, t = model time) and deterministic (%d bad, %d differ)",
       algs[a], cases, bad[a], nondet[a]);
}

static void test_bad_input(void) {
  const char *algs[4] = {"even", "cpm", "geometric", "numerical"};
  long x[1] = {10};
  double s[1] = {2.0};
  fupermod_model *m[3], *mnull[3];
  fupermod_model empty;
  memset(&empty, 0, sizeof empty);
  for (int i = 0; i < 3; i++) m[i] = model_from_speeds("piecewise", 1, x, s, 30);
  for (int a = 0; a < 4; a++) {
    const fupermod_partitioner *pa = fupermod_partitioner_find(algs[a]);
    fupermod_dist *dist = fupermod_dist_alloc(30, 3);
    fupermod_dist bad = *dist;
    int good = 1, rc;
    if (!pa) {
      ok(0, "%s: not registered", algs[a]);
      fupermod_dist_free(dist);
      continue;
    }
#define EXPECT(call, code, word)                                                                      \
  do {                                                                                                \
    rc = (call);                                                                                      \
    if (rc != (code) || !strstr(fupermod_error_message(), (word))) {                                  \
      diag("%s: %s gave %d '%s' (want %d naming '%s')", algs[a], #call, rc, fupermod_error_message(), \
           code, word);                                                                               \
      good = 0;                                                                                       \
    }                                                                                                 \
  } while (0)
    EXPECT(pa->continuous(0, m, dist), FUPERMOD_ERR_USAGE, "size");
    EXPECT(pa->continuous(-2, m, dist), FUPERMOD_ERR_USAGE, "size");
    EXPECT(pa->continuous(3, NULL, dist), FUPERMOD_ERR_USAGE, "models");
    EXPECT(pa->continuous(3, m, NULL), FUPERMOD_ERR_USAGE, "dist");
    EXPECT(pa->continuous(2, m, dist), FUPERMOD_ERR_USAGE, "dist->size");
    bad.D = -5;
    EXPECT(pa->continuous(3, m, &bad), FUPERMOD_ERR_USAGE, "D");
    bad.D = 30;
    bad.parts = NULL;
    EXPECT(pa->continuous(3, m, &bad), FUPERMOD_ERR_USAGE, "parts");
    mnull[0] = m[0];
    mnull[1] = NULL;
    mnull[2] = m[2];
    EXPECT(pa->continuous(3, mnull, dist), FUPERMOD_ERR_USAGE, "models[1]");
    mnull[1] = &empty;
    EXPECT(pa->continuous(3, mnull, dist), FUPERMOD_ERR_USAGE, "models[1]");
    ok(good, "%s: size < 1, NULL models/dist, size mismatch, D < 0, NULL parts, NULL model give usage errors naming them",
       algs[a]);
    fupermod_dist_free(dist);
    /* D = 0: all zeros, t = 0 */
    {
      fupermod_dist *d = NULL;
      good = run(algs[a], 3, m, 0, &d) == 0;
      for (int i = 0; good && i < 3; i++) good = d->parts[i].d == 0 && d->parts[i].t == 0.0;
      fupermod_dist_free(d);
      ok(good, "%s: D = 0 gives all zeros", algs[a]);
    }
  }
  /* the solvers behind the partitioners check their arguments too */
  {
    fupermod_model *mn[2] = {m[0], NULL};
    double x2[2], F2[2];
    int good = fupermod_geometric_solve(2, NULL, 30, 1.0, x2, NULL, NULL) == FUPERMOD_ERR_USAGE &&
               fupermod_geometric_solve(2, m, -1, 1.0, x2, NULL, NULL) == FUPERMOD_ERR_USAGE &&
               fupermod_numerical_solve(2, mn, 30, x2, NULL) == FUPERMOD_ERR_USAGE &&
               strstr(fupermod_error_message(), "models[1]") &&
               fupermod_numerical_solve(0, m, 30, x2, NULL) == FUPERMOD_ERR_USAGE &&
               fupermod_numerical_system(2, m, 30, x2, NULL, NULL) == FUPERMOD_ERR_USAGE &&
               fupermod_numerical_system(2, m, 0, x2, F2, NULL) == FUPERMOD_ERR_USAGE;
    ok(good, "geometric_solve, numerical_solve, numerical_system reject NULL models, size < 1, bad D, NULL F");
  }
  /* a tabulated model is infinitely slow between points: a clear error, not a wrong answer */
  {
    fupermod_model *t[2];
    fupermod_dist *d = NULL;
    int good = 1;
    t[0] = model_from_speeds("tabulated", 1, x, s, 30);
    t[1] = model_from_speeds("tabulated", 1, x, s, 30);
    for (int a = 1; a < 4; a++) {
      int rc = run(algs[a], 2, t, 30, &d);
      if (rc == 0 || !strstr(fupermod_error_message(), "models[")) {
        diag("%s on tabulated models: rc=%d '%s'", algs[a], rc, fupermod_error_message());
        good = 0;
      }
      fupermod_dist_free(d);
    }
    ok(good, "cpm, geometric, numerical reject tabulated models (speed 0 between points) naming the model");
    free_models(t, 2);
  }
  free_models(m, 3);
}

int main(void) {
  const char *seed = getenv("FUPERMOD_TEST_SEED"); /* to reproduce or vary the random cases */
  if (seed && *seed) rng_state = strtoull(seed, NULL, 0);
  diag("seed 0x%llx (FUPERMOD_TEST_SEED)", (unsigned long long)rng_state);
  test_registry();
  test_even();
  test_T6();
  test_T7();
  test_T4();
  test_T3();
  test_gpa_random();
  test_npa_smooth();
  test_T10();
  test_npa_fallback();
  test_property();
  test_bad_input();
  return done_testing();
}
