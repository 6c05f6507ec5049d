/* Exact discrete time partitioners: dp (time and energy), popta, hpopta, balanced.
 * Brute force is the oracle on tiny instances, dp on larger ones; plus the papers' worked examples. */
#include <math.h>
#include <stdarg.h>
#include <string.h>
#include "tests/tap.h"
#include "tests/oracle_time.h"
#include "partitioners/hpopta.h"

static const fupermod_partitioner *P_DP, *P_POPTA, *P_HPOPTA, *P_BAL;

typedef struct {
  const char *name;
  long runs, feasible, infeasible, bad, subopt;
} tally;

static void fail(tally *ty, const fupermod_problem *pr, const char *fmt, ...) {
  char msg[512], inst[4096];
  va_list ap;
  if (ty->bad++ >= 3) return; /* the first few failures in full */
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  ot_print(pr, inst, sizeof inst);
  diag("%s: %s (faithful=%d objective=%d) on %s", ty->name, msg, pr->faithful, pr->objective, inst);
}

/* Result of one run, after checking the distribution against the problem. */
typedef struct {
  int rc;
  int valid;      /* success, and the distribution is feasible with consistent parts */
  double t, e, spread;
  long d[OT_MAXP];
  char why[256];
} outcome;

static void run(const fupermod_partitioner *alg, fupermod_problem *pr, int faithful, int objective, outcome *o) {
  fupermod_dist *dist = fupermod_dist_alloc(pr->D, pr->p);
  double t, e, lo = INFINITY, hi = 0;
  int rc;
  pr->faithful = faithful;
  pr->objective = objective;
  memset(o, 0, sizeof *o);
  o->rc = alg->discrete(pr, dist);
  if (o->rc != FUPERMOD_SUCCESS) {
    snprintf(o->why, sizeof o->why, "%s", fupermod_error_message());
    fupermod_dist_free(dist);
    return;
  }
  for (int i = 0; i < pr->p; i++) o->d[i] = dist->parts[i].d;
  rc = fupermod_problem_evaluate(pr, o->d, &t, &e, NULL);
  if (rc != FUPERMOD_SUCCESS) {
    snprintf(o->why, sizeof o->why, "invalid distribution: %s", fupermod_error_message());
  } else if (dist->D != pr->D || fupermod_dist_time(dist) != t) {
    snprintf(o->why, sizeof o->why, "reported time %.17g (D=%ld) but recomputed %.17g", fupermod_dist_time(dist),
             dist->D, t);
  } else {
    int parts_ok = 1;
    for (int i = 0; i < pr->p; i++) {
      const fupermod_part *pt = &dist->parts[i];
      int k = pt->d ? fupermod_points_find(pr->f[i], pt->d) : -1;
      if (pt->d ? pt->t != pr->f[i]->pts[k].t : pt->t != 0) parts_ok = 0;
      if (pt->d) {
        if (pt->t < lo) lo = pt->t;
        if (pt->t > hi) hi = pt->t;
      }
    }
    if (!parts_ok) snprintf(o->why, sizeof o->why, "a part's time is not its function's time");
    else {
      o->valid = 1;
      o->t = t;
      o->e = e;
      o->spread = lo == INFINITY ? 0 : hi - lo;
    }
  }
  fupermod_dist_free(dist);
}

static int close_rel(double a, double b) { return fabs(a - b) <= 1e-9 * fmax(1.0, fmax(fabs(a), fabs(b))); }

/* An exact time algorithm against an oracle (feasible, optimal time). exact = 0: only validity,
 * feasibility agreement and value >= optimum; suboptimal answers are counted. */
static void check_time(tally *ty, const fupermod_partitioner *alg, fupermod_problem *pr, int faithful, int feasible,
                       double topt, int exact) {
  outcome o;
  run(alg, pr, faithful, FUPERMOD_OBJ_TIME, &o);
  ty->runs++;
  if (!feasible) {
    ty->infeasible++;
    if (o.rc != FUPERMOD_ERR_INFEASIBLE) fail(ty, pr, "oracle: infeasible, got rc=%d (%s)", o.rc, o.why);
    else if (!strstr(o.why, "D=")) fail(ty, pr, "infeasibility message does not name D: %s", o.why);
    return;
  }
  ty->feasible++;
  if (o.rc != FUPERMOD_SUCCESS) fail(ty, pr, "oracle: feasible (t=%g), got rc=%d (%s)", topt, o.rc, o.why);
  else if (!o.valid) fail(ty, pr, "%s", o.why);
  else if (o.t < topt) fail(ty, pr, "time %.17g below the optimum %.17g", o.t, topt);
  else if (o.t > topt) {
    ty->subopt++;
    if (exact) fail(ty, pr, "time %.17g, optimum %.17g", o.t, topt);
  }
}

static void check_energy(tally *ty, fupermod_problem *pr, int feasible, double eopt) {
  outcome o;
  run(P_DP, pr, 0, FUPERMOD_OBJ_ENERGY, &o);
  ty->runs++;
  if (!feasible) {
    ty->infeasible++;
    if (o.rc != FUPERMOD_ERR_INFEASIBLE) fail(ty, pr, "oracle: infeasible, got rc=%d (%s)", o.rc, o.why);
    return;
  }
  ty->feasible++;
  if (o.rc != FUPERMOD_SUCCESS) fail(ty, pr, "oracle: feasible, got rc=%d (%s)", o.rc, o.why);
  else if (!o.valid) fail(ty, pr, "%s", o.why);
  else if (!close_rel(o.e, eopt)) fail(ty, pr, "energy %.17g, optimum %.17g", o.e, eopt);
}

/* balanced: valid, infeasible exactly when the oracle is; spread checked when the oracle knows it. */
static void check_balanced(tally *ty, fupermod_problem *pr, int feasible, double spread) {
  outcome o;
  run(P_BAL, pr, 0, FUPERMOD_OBJ_TIME, &o);
  ty->runs++;
  if (!feasible) {
    ty->infeasible++;
    if (o.rc != FUPERMOD_ERR_INFEASIBLE) fail(ty, pr, "oracle: infeasible, got rc=%d (%s)", o.rc, o.why);
    return;
  }
  ty->feasible++;
  if (o.rc != FUPERMOD_SUCCESS) fail(ty, pr, "oracle: feasible, got rc=%d (%s)", o.rc, o.why);
  else if (!o.valid) fail(ty, pr, "%s", o.why);
  else if (spread >= 0 && o.spread != spread) fail(ty, pr, "spread %.17g, least spread %.17g", o.spread, spread);
}

static void report(const tally *ty, const char *what) {
  ok(ty->bad == 0 && ty->runs > 0, "%s: %ld runs (%ld feasible, %ld infeasible), %ld failures", what, ty->runs,
     ty->feasible, ty->infeasible, ty->bad);
}

/* ---- random instances ---- */

static void tiny_brute(void) {
  tally dpt = {"dp-time", 0, 0, 0, 0, 0}, dpe = {"dp-energy", 0, 0, 0, 0, 0}, hpd = {"hpopta", 0, 0, 0, 0, 0},
        hpf = {"hpopta-faithful", 0, 0, 0, 0, 0}, bal = {"balanced", 0, 0, 0, 0, 0}, pod = {"popta", 0, 0, 0, 0, 0},
        pof = {"popta-faithful", 0, 0, 0, 0, 0};
  long combos = 0;
  for (int it = 0; it < 12000; it++) {
    ot_inst in;
    ot_brute b;
    long g = it % 5 == 4 ? 3 : 1;
    ot_random(&in, 4, 6, 0, g);
    if (in.prob.D > 12 * g && ot_unit() < 0.7) in.prob.D = ot_int(0, 12) * g;
    ot_bruteforce(&in.prob, &b);
    combos += b.combos;
    check_time(&dpt, P_DP, &in.prob, 0, b.feasible, b.tmin, 1);
    check_energy(&dpe, &in.prob, b.feasible, b.emin);
    check_time(&hpd, P_HPOPTA, &in.prob, 0, b.feasible, b.tmin, 1);
    check_time(&hpf, P_HPOPTA, &in.prob, 1, b.feasible, b.tmin, 1);
    check_balanced(&bal, &in.prob, b.feasible, b.spread);
    ot_free(&in);
  }
  for (int it = 0; it < 6000; it++) {
    ot_inst in;
    ot_brute b;
    ot_random(&in, 5, 6, 1, 1);
    if (in.prob.D > 14 && ot_unit() < 0.7) in.prob.D = ot_int(0, 14);
    ot_bruteforce(&in.prob, &b);
    combos += b.combos;
    check_time(&pod, P_POPTA, &in.prob, 0, b.feasible, b.tmin, 1);
    check_time(&pof, P_POPTA, &in.prob, 1, b.feasible, b.tmin, 0);
    check_time(&dpt, P_DP, &in.prob, 0, b.feasible, b.tmin, 1);
    check_time(&hpd, P_HPOPTA, &in.prob, 0, b.feasible, b.tmin, 1);
    ot_free(&in);
  }
  diag("brute force: %ld combinations enumerated", combos);
  report(&dpt, "dp time = brute force");
  report(&dpe, "dp energy = brute force");
  report(&hpd, "hpopta = brute force");
  report(&hpf, "hpopta faithful = brute force");
  report(&pod, "popta = brute force");
  report(&pof, "popta faithful valid, >= optimum, infeasible exactly when brute force is");
  diag("popta faithful: %ld of %ld feasible tiny instances suboptimal", pof.subopt, pof.feasible);
  report(&bal, "balanced valid with the least spread of brute force");
}

static void larger_dp(void) {
  tally hpd = {"hpopta", 0, 0, 0, 0, 0}, hpf = {"hpopta-faithful", 0, 0, 0, 0, 0},
        pod = {"popta", 0, 0, 0, 0, 0}, pof = {"popta-faithful", 0, 0, 0, 0, 0}, bal = {"balanced", 0, 0, 0, 0, 0},
        dpe = {"dp-energy-perm", 0, 0, 0, 0, 0};
  for (int it = 0; it < 6000; it++) {
    ot_inst in;
    outcome ref, perm;
    int homo = it % 2;
    if (it < 3000) {
      ot_random(&in, 8, 30, homo, 1);
      if (in.prob.D > 200) in.prob.D = ot_int(0, 200);
    } else { /* denser functions, D in the upper part of the range: deeper searches */
      long ties = ot_unit() < 0.5 ? ot_int(1, 4) : 0, top;
      double hole = 0.4 * ot_unit();
      memset(&in, 0, sizeof in);
      in.prob.p = (int)ot_int(3, 12);
      for (int i = 0; i < in.prob.p; i++) {
        if (homo && i) {
          in.f[i] = &in.fn[0];
          continue;
        }
        ot_random_fn(&in.fn[i], ot_int(10, 30), hole, ties, 0, 1);
        in.f[i] = &in.fn[i];
      }
      in.prob.f = in.f;
      top = ot_sum_max(&in.prob) + 1;
      in.prob.D = ot_int(top / 4, top < 300 ? top : 300);
    }
    run(P_DP, &in.prob, 0, FUPERMOD_OBJ_TIME, &ref);
    if (ref.rc != FUPERMOD_SUCCESS && ref.rc != FUPERMOD_ERR_INFEASIBLE) {
      fail(&hpd, &in.prob, "dp failed: %s", ref.why);
      ot_free(&in);
      continue;
    }
    if (homo) {
      check_time(&pod, P_POPTA, &in.prob, 0, ref.rc == 0, ref.t, 1);
      check_time(&pof, P_POPTA, &in.prob, 1, ref.rc == 0, ref.t, 0);
    }
    check_time(&hpd, P_HPOPTA, &in.prob, 0, ref.rc == 0, ref.t, 1);
    check_time(&hpf, P_HPOPTA, &in.prob, 1, ref.rc == 0, ref.t, 1);
    check_balanced(&bal, &in.prob, ref.rc == 0, -1);
    /* reversing the processors changes neither optimum (dp energy too) */
    if (!homo && in.prob.p > 1) {
      const fupermod_points *rev[OT_MAXP];
      const fupermod_points *const *orig = in.prob.f;
      outcome e1, e2;
      run(P_DP, &in.prob, 0, FUPERMOD_OBJ_ENERGY, &e1);
      for (int i = 0; i < in.prob.p; i++) rev[i] = orig[in.prob.p - 1 - i];
      in.prob.f = rev;
      run(P_DP, &in.prob, 0, FUPERMOD_OBJ_TIME, &perm);
      run(P_DP, &in.prob, 0, FUPERMOD_OBJ_ENERGY, &e2);
      dpe.runs++;
      if (perm.rc != ref.rc || e1.rc != e2.rc || (ref.rc == 0 && (perm.t != ref.t || !close_rel(e1.e, e2.e))))
        fail(&dpe, &in.prob, "reversed processors: rc %d/%d t %g/%g, energy rc %d/%d e %g/%g", ref.rc, perm.rc,
             ref.t, perm.t, e1.rc, e2.rc, e1.e, e2.e);
      in.prob.f = orig;
    }
    ot_free(&in);
  }
  report(&hpd, "hpopta = dp (p <= 12, D <= 300)");
  report(&hpf, "hpopta faithful = dp (p <= 12, D <= 300)");
  report(&pod, "popta = dp (p <= 12, D <= 300)");
  report(&pof, "popta faithful valid, >= dp, infeasible exactly when dp is");
  diag("popta faithful: %ld of %ld feasible larger instances suboptimal", pof.subopt, pof.feasible);
  report(&bal, "balanced valid, infeasible exactly when dp is");
  report(&dpe, "dp optima unchanged when the processors are reversed");
}

/* hpopta's default mode with a node budget (test hook) answers with the pruned search past it: still exact. */
static void hpopta_fallback(void) {
  tally ty = {"hpopta-fallback", 0, 0, 0, 0, 0};
  long fell = 0;
  for (int it = 0; it < 1500; it++) {
    ot_inst in;
    outcome ref;
    fupermod_hpopta_trace tr;
    fupermod_dist *dist;
    int rc;
    ot_random(&in, 8, 20, 0, 1);
    run(P_DP, &in.prob, 0, FUPERMOD_OBJ_TIME, &ref);
    dist = fupermod_dist_alloc(in.prob.D, in.prob.p);
    in.prob.faithful = 0;
    tr.node_limit = ot_int(1, 40);
    rc = fupermod_hpopta_traced(&in.prob, dist, &tr);
    ty.runs++;
    fell += tr.fell_back;
    if (ref.rc == FUPERMOD_ERR_INFEASIBLE) {
      ty.infeasible++;
      if (rc != FUPERMOD_ERR_INFEASIBLE) fail(&ty, &in.prob, "dp: infeasible, got rc=%d", rc);
    } else {
      long d[OT_MAXP];
      double t;
      ty.feasible++;
      for (int i = 0; i < in.prob.p; i++) d[i] = dist->parts[i].d;
      if (rc != FUPERMOD_SUCCESS || fupermod_problem_evaluate(&in.prob, d, &t, NULL, NULL) != FUPERMOD_SUCCESS ||
          t != ref.t || fupermod_dist_time(dist) != t)
        fail(&ty, &in.prob, "rc=%d, time %g, dp %g", rc, fupermod_dist_time(dist), ref.t);
    }
    fupermod_hpopta_trace_free(&tr);
    fupermod_dist_free(dist);
    ot_free(&in);
  }
  report(&ty, "hpopta with a tiny node budget (the pruned search answers past it) = dp");
  ok(fell > 100, "the fallback ran (%ld times of %ld)", fell, ty.runs);
}

/* ---- the papers' examples ---- */

static const double THESIS_T[4][16] = {
  {6, 13, 2, 12, 14, 14, 13, 1, 3, 4, 20, 2, 11, 5, 3, 10},
  {12, 10, 7, 6, 4, 4, 8, 1, 3, 16, 13, 13, 16, 18, 20, 17},
  {1, 7, 4, 4, 8, 9, 1, 14, 13, 14, 19, 15, 18, 18, 16, 19},
  {6, 3, 4, 4, 3, 2, 7, 9, 13, 14, 13, 16, 19, 17, 15, 20}};

static void thesis_instance(ot_inst *in, long n) {
  long d[16];
  memset(in, 0, sizeof *in);
  for (int k = 0; k < 16; k++) d[k] = k + 1;
  for (int i = 0; i < 4; i++) {
    ot_set_fn(&in->fn[i], 16, d, THESIS_T[i], THESIS_T[i]);
    in->f[i] = &in->fn[i];
  }
  in->prob.p = 4;
  in->prob.f = in->f;
  in->prob.D = n;
}

static int same(const long *a, const long *b, int p) {
  for (int i = 0; i < p; i++)
    if (a[i] != b[i]) return 0;
  return 1;
}

static int step_is(const fupermod_hpopta_step *s, double tau, const long *x, const long *sigma) {
  return s->tau == tau && (!x || same(s->x, x, 4)) && same(s->sigma, sigma, 4);
}

static void golden_hpopta(void) {
  static const int TABLE[64] = {1, 3, 2, 2, 3, 2, 1, 1, 1, 2, 2, 2, 2, 2, 1, 1, 1, 2, 2, 2, 2, 2,
                                1, 2, 2, 2, 2, 3, 2, 3, 3, 3, 2, 3, 3, 3, 3, 7, 9, 10, 13, 13,
                                13, 13, 13, 13, 13, 13, 14, 15, 15, 15, 15, 15, 15, 16, 16, 16, 16, 17, 17, 17, 19, 20};
  ot_inst in;
  fupermod_hpopta_trace tr;
  fupermod_dist *dist = fupermod_dist_alloc(16, 4);
  outcome o;
  ot_brute b;
  int rc, bad_table = 0, step4 = 0, step3 = 0;

  thesis_instance(&in, 16);
  ot_bruteforce(&in.prob, &b);
  in.prob.faithful = 1;
  tr.node_limit = 0;
  rc = fupermod_hpopta_traced(&in.prob, dist, &tr);
  {
    long x16[4], x8800[4] = {8, 8, 0, 0};
    for (int i = 0; i < 4; i++) x16[i] = dist->parts[i].d;
    ok(rc == 0 && same(x16, x8800, 4) && fupermod_dist_time(dist) == 1 && b.tmin == 1,
       "thesis example n=16: hpopta gives (8,8,0,0), time 1 (brute force: %g)", b.tmin);
  }
  if (rc == 0 && tr.count > 0) {
    static const long X0[4] = {4, 4, 4, 4}, S0[4] = {40, 24, 15, 8}, X4[4] = {0, 8, 3, 5}, S4[4] = {37, 22, 13, 6},
                      X3[4] = {0, 9, 1, 6}, S3[4] = {33, 21, 13, 6}, X1[4] = {8, 8, 0, 0};
    const fupermod_hpopta_step *last = &tr.steps[tr.count - 1];
    for (int k = 0; k < tr.count; k++) {
      step4 += step_is(&tr.steps[k], 4, X4, S4);
      step3 += step_is(&tr.steps[k], 3, X3, S3);
    }
    ok(step_is(&tr.steps[0], 12, X0, S0), "trace: load-equal (4,4,4,4) gives tau=12, sigma=(40,24,15,8)");
    ok(step4 == 1 && step3 == 1 && last->tau == 1 && same(last->x, X1, 4),
       "trace: (0,8,3,5) t=4 sigma=(37,22,13,6), then (0,9,1,6) t=3 sigma=(33,21,13,6), then (8,8,0,0) t=1");
    ok(tr.first_cut_level == 2 && tr.first_cut_w == 16, "trace: the first cut is node (L2, 16) (got L%d, %ld)",
       tr.first_cut_level, tr.first_cut_w);
    {
      char line[512];
      size_t n = 0;
      for (int k = 0; k < tr.count && n < sizeof line; k++)
        n += (size_t)snprintf(line + n, sizeof line - n, " %g(%ld,%ld,%ld,%ld)", tr.steps[k].tau, tr.steps[k].x[0],
                              tr.steps[k].x[1], tr.steps[k].x[2], tr.steps[k].x[3]);
      diag("tau trace:%s; %ld kernel calls", line, tr.nodes);
    }
  } else {
    ok(0, "trace: load-equal step");
    ok(0, "trace: improving steps");
    ok(0, "trace: first cut");
  }
  fupermod_hpopta_trace_free(&tr);
  fupermod_dist_free(dist);

  in.prob.D = 31;
  run(P_HPOPTA, &in.prob, 1, 0, &o);
  {
    long want[4] = {9, 9, 7, 6};
    ok(o.valid && o.t == 3 && same(o.d, want, 4), "thesis n=31, faithful: (9,9,7,6), time 3 (got %ld,%ld,%ld,%ld t=%g)",
       o.d[0], o.d[1], o.d[2], o.d[3], o.t);
  }
  run(P_HPOPTA, &in.prob, 0, 0, &o);
  {
    long want[4] = {15, 9, 7, 0};
    ok(o.valid && o.t == 3 && same(o.d, want, 4), "thesis n=31, default (pruned search, dp's tie rule): "
       "(15,9,7,0), time 3 (got %ld,%ld,%ld,%ld)", o.d[0], o.d[1], o.d[2], o.d[3]);
  }
  run(P_BAL, &in.prob, 0, 0, &o);
  {
    long want[4] = {2, 11, 9, 9};
    ok(o.valid && o.t == 13 && o.spread == 0 && same(o.d, want, 4),
       "thesis n=31: balanced gives (2,11,9,9), every time 13 (got %ld,%ld,%ld,%ld)", o.d[0], o.d[1], o.d[2], o.d[3]);
  }
  run(P_DP, &in.prob, 0, 0, &o);
  {
    long want[4] = {15, 9, 7, 0};
    ok(o.valid && o.t == 3 && same(o.d, want, 4),
       "thesis n=31: dp's tie rule (last processor first, idle then smallest size) gives (15,9,7,0)");
  }
  in.prob.D = 38;
  run(P_HPOPTA, &in.prob, 1, 0, &o);
  {
    long want[4] = {15, 9, 7, 7};
    ok(o.valid && o.t == 7 && same(o.d, want, 4), "thesis n=38, faithful: (15,9,7,7), time 7");
  }
  for (long n = 1; n <= 64; n++) {
    outcome a, f, dp;
    in.prob.D = n;
    run(P_HPOPTA, &in.prob, 0, 0, &a);
    run(P_HPOPTA, &in.prob, 1, 0, &f);
    run(P_DP, &in.prob, 0, 0, &dp);
    if (!a.valid || !f.valid || !dp.valid || a.t != TABLE[n - 1] || f.t != TABLE[n - 1] || dp.t != TABLE[n - 1]) {
      if (bad_table++ == 0)
        diag("n=%ld: table %d, hpopta %g, faithful %g, dp %g", n, TABLE[n - 1], a.t, f.t, dp.t);
    }
  }
  ok(bad_table == 0, "thesis table of optimal times n=1..64: hpopta (both modes) and dp agree");
  in.prob.D = 64;
  run(P_HPOPTA, &in.prob, 1, 0, &o);
  {
    long want[4] = {16, 16, 16, 16};
    ok(o.valid && o.t == 20 && same(o.d, want, 4), "thesis n=64: (16,16,16,16), time 20");
  }
  /* the same table read as energies */
  {
    long ns[3] = {12, 16, 31};
    double es[3] = {2, 2, 7};
    int good = 1;
    for (int k = 0; k < 3; k++) {
      in.prob.D = ns[k];
      run(P_DP, &in.prob, 0, FUPERMOD_OBJ_ENERGY, &o);
      good &= o.valid && o.e == es[k];
    }
    ok(good, "thesis table read as energies: dp gives 2, 2, 7 for n = 12, 16, 31");
  }
  ot_free(&in);

  /* Appendix F: p = 2, n = 4 */
  {
    long d0[4] = {1, 2, 3, 4}, d1[3] = {1, 2, 3}, want_t[2] = {3, 1}, want_e[2] = {4, 0};
    double v0[4] = {10, 30, 20, 25}, v1[3] = {15, 25, 35};
    memset(&in, 0, sizeof in);
    ot_set_fn(&in.fn[0], 4, d0, v0, v0);
    ot_set_fn(&in.fn[1], 3, d1, v1, v1);
    in.f[0] = &in.fn[0];
    in.f[1] = &in.fn[1];
    in.prob.p = 2;
    in.prob.f = in.f;
    in.prob.D = 4;
    run(P_HPOPTA, &in.prob, 0, 0, &o);
    ok(o.valid && o.t == 20 && same(o.d, want_t, 2), "appendix F (p=2, n=4): hpopta (3,1), time 20");
    run(P_HPOPTA, &in.prob, 1, 0, &o);
    ok(o.valid && o.t == 20 && same(o.d, want_t, 2), "appendix F: hpopta faithful (3,1), time 20");
    run(P_DP, &in.prob, 0, FUPERMOD_OBJ_TIME, &o);
    ok(o.valid && o.t == 20 && same(o.d, want_t, 2), "appendix F: dp time (3,1), 20");
    run(P_DP, &in.prob, 0, FUPERMOD_OBJ_ENERGY, &o);
    ok(o.valid && o.e == 25 && same(o.d, want_e, 2), "appendix F: dp energy (4,0), 25");
    {
      fupermod_front fr = {0, NULL};
      int rc2;
      in.prob.objective = FUPERMOD_OBJ_PARETO;
      rc2 = P_DP->pareto(&in.prob, &fr);
      ok(rc2 == 0 && fr.count == 2 && fr.points[0].time == 20 && fr.points[0].energy == 35 &&
         fr.points[1].time == 25 && fr.points[1].energy == 25,
         "appendix F: dp's Pareto entry gives {(T 20, E 35), (T 25, E 25)} (rc=%d, %d points)", rc2, fr.count);
      fupermod_front_free(&fr);
      in.prob.objective = FUPERMOD_OBJ_TIME;
    }
    ot_free(&in);
  }
}

static void homogeneous(ot_inst *in, int p, long n, int m, const double *t) {
  long d[64];
  memset(in, 0, sizeof *in);
  for (int k = 0; k < m; k++) d[k] = k + 1;
  ot_set_fn(&in->fn[0], m, d, t, NULL);
  for (int i = 0; i < p; i++) in->f[i] = &in->fn[0];
  in->prob.p = p;
  in->prob.f = in->f;
  in->prob.D = n;
}

static void golden_popta(void) {
  ot_inst in;
  outcome o;
  {
    const double t[5] = {15, 8, 16, 13, 2};
    homogeneous(&in, 3, 7, 5, t);
    run(P_POPTA, &in.prob, 1, 0, &o);
    ok(o.valid && o.t == 15, "spec 7.2 counterexample (T=(15,8,16,13,2), n=7, p=3): faithful popta gives 15 "
       "(got %g: %ld,%ld,%ld)", o.t, o.d[0], o.d[1], o.d[2]);
    run(P_POPTA, &in.prob, 0, 0, &o);
    ok(o.valid && o.t == 8, "spec 7.2 counterexample: default popta gives the optimum 8 (got %g: %ld,%ld,%ld)", o.t,
       o.d[0], o.d[1], o.d[2]);
    ot_free(&in);
  }
  {
    const double t[5] = {6, 3, 1, 1, 2};
    homogeneous(&in, 6, 13, 5, t);
    run(P_POPTA, &in.prob, 0, 0, &o);
    ok(o.valid && o.t == 1, "spec 7.2 tie counterexample (T=(6,3,1,1,2), n=13, p=6): default popta gives 1");
    run(P_POPTA, &in.prob, 1, 0, &o);
    diag("tie counterexample: faithful popta gives %g (the spec's literal reconstruction gives 2)", o.t);
    ok(o.valid && o.t >= 1, "tie counterexample: faithful popta valid");
    ot_free(&in);
  }
  {
    double t[12];
    for (int k = 0; k < 12; k++) t[k] = k >= 1 && k <= 3 ? 1 : 10;
    homogeneous(&in, 6, 12, 12, t);
    run(P_POPTA, &in.prob, 0, 0, &o);
    ok(o.valid && o.t == 1, "spec 4.2 (T=(10,1,1,1,10,...), n=12, p=6): popta time 1");
    run(P_DP, &in.prob, 0, 0, &o);
    ok(o.valid && o.t == 1, "spec 4.2: dp time 1");
    ot_free(&in);
  }
  {
    /* balanced is optimal when T(n/p) is no slower than every larger size */
    const double t[8] = {9, 9, 9, 2, 3, 5, 4, 7};
    long want[4] = {4, 4, 4, 4};
    homogeneous(&in, 4, 16, 8, t);
    run(P_POPTA, &in.prob, 1, 0, &o);
    ok(o.valid && o.t == 2 && same(o.d, want, 4), "popta faithful: balanced shortcut (4,4,4,4), time 2");
    run(P_POPTA, &in.prob, 0, 0, &o);
    ok(o.valid && o.t == 2, "popta default: time 2 where balanced is optimal");
    ot_free(&in);
  }
}

/* ---- bad input, granules, edge cases ---- */

static void errors_and_edges(void) {
  ot_inst in;
  outcome o;
  fupermod_dist *small;
  int rc;
  {
    long d[3] = {1, 2, 4};
    double t1[3] = {1, 2, 3}, t2[3] = {1, 2, 4};
    memset(&in, 0, sizeof in);
    ot_set_fn(&in.fn[0], 3, d, t1, NULL);
    ot_set_fn(&in.fn[1], 3, d, t2, NULL);
    ot_set_fn(&in.fn[2], 3, d, t1, NULL);
    in.f[0] = &in.fn[0];
    in.f[1] = &in.fn[2];
    in.prob.p = 2;
    in.prob.f = in.f;
    in.prob.D = 5;
    run(P_POPTA, &in.prob, 0, 0, &o);
    ok(o.rc == 0 && o.valid && o.t == 3, "popta accepts equal copies of one function (t=%g)", o.t);
    in.f[1] = &in.fn[1];
    run(P_POPTA, &in.prob, 0, 0, &o);
    ok(o.rc == FUPERMOD_ERR_USAGE && strstr(o.why, "differ"), "popta rejects different functions: %s", o.why);
    run(P_POPTA, &in.prob, 1, 0, &o);
    ok(o.rc == FUPERMOD_ERR_USAGE, "popta faithful rejects different functions too");

    in.prob.D = 9;
    run(P_HPOPTA, &in.prob, 0, 0, &o);
    ok(o.rc == FUPERMOD_ERR_INFEASIBLE && strstr(o.why, "D=9") && strstr(o.why, "exceeds"),
       "D above the sum of the largest sizes: %s", o.why);
    in.prob.D = 7; /* sizes {1,2,4} twice: 7 = 4 + ... no, 4+2+1 needs 3 processors; 4+4=8, 4+2=6 */
    run(P_DP, &in.prob, 0, 0, &o);
    {
      int r1 = o.rc;
      run(P_HPOPTA, &in.prob, 0, 0, &o);
      int r2 = o.rc;
      run(P_BAL, &in.prob, 0, 0, &o);
      ok(r1 == FUPERMOD_ERR_INFEASIBLE && r2 == FUPERMOD_ERR_INFEASIBLE && o.rc == FUPERMOD_ERR_INFEASIBLE &&
         strstr(o.why, "D=7"), "D=7 from {1,2,4} on 2 processors is infeasible for dp, hpopta, balanced: %s", o.why);
    }
    in.prob.D = 0;
    {
      int good = 1;
      const fupermod_partitioner *all[3] = {P_DP, P_HPOPTA, P_BAL};
      for (int k = 0; k < 3; k++) {
        run(all[k], &in.prob, 0, 0, &o);
        good &= o.valid && o.t == 0 && o.d[0] == 0 && o.d[1] == 0;
      }
      ok(good, "D=0: everyone idle, time 0");
    }
    in.prob.D = 3;
    in.prob.p = 0;
    run(P_DP, &in.prob, 0, 0, &o);
    ok(o.rc == FUPERMOD_ERR_USAGE && strstr(o.why, "p"), "p=0 rejected: %s", o.why);
    in.prob.p = 2;
    in.prob.D = -1;
    run(P_HPOPTA, &in.prob, 0, 0, &o);
    ok(o.rc == FUPERMOD_ERR_USAGE && strstr(o.why, "D"), "D<0 rejected: %s", o.why);
    in.prob.D = 3;
    in.prob.objective = 7;
    small = fupermod_dist_alloc(3, 2);
    rc = P_DP->discrete(&in.prob, small);
    ok(rc == FUPERMOD_ERR_USAGE && strstr(fupermod_error_message(), "objective"), "dp: unknown objective rejected: %s",
       fupermod_error_message());
    in.prob.objective = FUPERMOD_OBJ_ENERGY;
    rc = P_DP->discrete(&in.prob, small);
    ok(rc == FUPERMOD_ERR_INPUT && strstr(fupermod_error_message(), "energy"),
       "dp: energy objective without energies rejected: %s", fupermod_error_message());
    in.prob.objective = 0;
    fupermod_dist_free(small);
    small = fupermod_dist_alloc(3, 1);
    rc = P_HPOPTA->discrete(&in.prob, small);
    ok(rc == FUPERMOD_ERR_USAGE, "a distribution with the wrong number of parts is rejected: %s",
       fupermod_error_message());
    fupermod_dist_free(small);
    ot_free(&in);
  }
  {
    /* granule: every size a multiple of 64; D = 64 * k works in granule units */
    long d[4] = {64, 128, 192, 320};
    double t[4] = {3, 1, 4, 2};
    long want = 64 * 7;
    int good = 1;
    memset(&in, 0, sizeof in);
    ot_set_fn(&in.fn[0], 4, d, t, NULL);
    for (int i = 0; i < 3; i++) in.f[i] = &in.fn[0];
    in.prob.p = 3;
    in.prob.f = in.f;
    in.prob.D = want;
    {
      const fupermod_partitioner *all[4] = {P_DP, P_POPTA, P_HPOPTA, P_BAL};
      ot_brute b;
      ot_bruteforce(&in.prob, &b);
      for (int k = 0; k < 4; k++) {
        run(all[k], &in.prob, 0, 0, &o);
        good &= o.valid && (k == 3 || o.t == b.tmin);
      }
      ok(good && b.tmin == 2, "sizes on a granule of 64, D=448: all valid, exact ones optimal (%g)", b.tmin);
    }
    in.prob.D = 64 * 7 + 5;
    run(P_POPTA, &in.prob, 0, 0, &o);
    ok(o.rc == FUPERMOD_ERR_INFEASIBLE && strstr(o.why, "multiple of 64"), "D not a multiple of the granule: %s",
       o.why);
    ot_free(&in);
  }
  {
    /* a D far too large for the tables: a clear error, no crash */
    long d[2] = {1, 1000000000000L};
    double t[2] = {1, 2};
    const fupermod_partitioner *all[4] = {P_DP, P_POPTA, P_HPOPTA, P_BAL};
    int good = 1;
    memset(&in, 0, sizeof in);
    ot_set_fn(&in.fn[0], 2, d, t, NULL);
    in.f[0] = in.f[1] = &in.fn[0];
    in.prob.p = 2;
    in.prob.f = in.f;
    in.prob.D = 1000000000001L;
    for (int k = 0; k < 4; k++) {
      run(all[k], &in.prob, 0, 0, &o);
      good &= o.rc == FUPERMOD_ERR_NOMEM && strstr(o.why, "too large") != NULL;
      if (k == 0) diag("huge D: %s", o.why);
    }
    ok(good, "D=1000000000001 (sizes 1 and 10^12): every algorithm refuses the table size with a clear message");
    ot_free(&in);
  }
  {
    /* p = 1 with a hole at D, and n < p */
    long d[3] = {2, 3, 5};
    double t[3] = {1, 1, 1};
    memset(&in, 0, sizeof in);
    ot_set_fn(&in.fn[0], 3, d, t, NULL);
    in.f[0] = &in.fn[0];
    in.prob.p = 1;
    in.prob.f = in.f;
    in.prob.D = 4;
    run(P_POPTA, &in.prob, 0, 0, &o);
    {
      int r1 = o.rc;
      run(P_HPOPTA, &in.prob, 1, 0, &o);
      ok(r1 == FUPERMOD_ERR_INFEASIBLE && o.rc == FUPERMOD_ERR_INFEASIBLE, "p=1, D=4 not measured: infeasible");
    }
    in.prob.D = 3;
    run(P_POPTA, &in.prob, 1, 0, &o);
    ok(o.valid && o.d[0] == 3, "p=1, D=3: the one processor takes 3");
    for (int i = 0; i < 6; i++) in.f[i] = &in.fn[0];
    in.prob.p = 6;
    in.prob.D = 5;
    run(P_POPTA, &in.prob, 1, 0, &o);
    {
      int okf = o.valid && o.t == 1;
      run(P_POPTA, &in.prob, 0, 0, &o);
      ok(okf && o.valid && o.t == 1, "n < p with a hole at 1: popta (both modes) time 1");
    }
    ot_free(&in);
  }
}

int main(void) {
  P_DP = fupermod_partitioner_find("dp");
  P_POPTA = fupermod_partitioner_find("popta");
  P_HPOPTA = fupermod_partitioner_find("hpopta");
  P_BAL = fupermod_partitioner_find("balanced");
  if (!ok(P_DP && P_POPTA && P_HPOPTA && P_BAL && P_DP->pareto && P_POPTA->homogeneous,
          "dp, popta, hpopta and balanced are registered"))
    return done_testing();
  golden_hpopta();
  golden_popta();
  errors_and_edges();
  tiny_brute();
  larger_dp();
  hpopta_fallback();
  return done_testing();
}
