/* Exact energy and Pareto partitioners: eopta, heopta, aleph, hepopta, htpopta, fupermod_dp_pareto.
 * Oracles: brute-force enumeration of every distribution (p <= 4, D <= 12), then dp_pareto for
 * larger cases (p <= 8, D <= 150), which is itself checked against brute force and against the
 * independent hepopta and aleph searches. Golden vectors from the papers' worked examples. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "partitioners/partitioners.h"
#include "tests/tap.h"

#define MAXP 8

/* ---------- instances ---------- */

typedef struct {
  int p;
  long D;
  double ps;
  int homog, intmode;
  fupermod_points fun[MAXP];
  const fupermod_points *fp[MAXP];
} inst;

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;
static uint64_t rnd64(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}
static long rnd(long n) { return (long)(rnd64() % (uint64_t)n); }
static double unif(void) { return (double)(rnd64() >> 11) / 9007199254740992.0; }

static void set_fun(fupermod_points *f, int count, const long *d, const double *t, const double *e) {
  f->count = count;
  f->pts = calloc((size_t)count, sizeof *f->pts);
  for (int k = 0; k < count; k++) {
    f->pts[k].d = d[k];
    f->pts[k].t = t[k];
    f->pts[k].reps = 1;
    f->pts[k].e = e ? e[k] : -1.0;
    f->pts[k].e_ci = 0.0;
  }
  f->has_energy = e != NULL;
}

/* Random function: sizes a random subset of 1..maxsize (holes), sometimes a single point;
 * integer mode draws small integers (many ties, exact sums, some zero energies). */
static void gen_fun(fupermod_points *f, int maxsize, int maxcount, int intmode, int tmax) {
  long pool[256], d[256];
  double t[256], e[256];
  int count = rnd(6) == 0 ? 1 : 1 + (int)rnd(maxcount < maxsize ? maxcount : maxsize);
  for (int i = 0; i < maxsize; i++) pool[i] = i + 1;
  for (int i = 0; i < count; i++) { /* partial shuffle */
    int j = i + (int)rnd(maxsize - i);
    long tmp = pool[i];
    pool[i] = pool[j];
    pool[j] = tmp;
  }
  for (int i = 0; i < count; i++) d[i] = pool[i];
  for (int i = 1; i < count; i++) /* insertion sort */
    for (int j = i; j > 0 && d[j - 1] > d[j]; j--) {
      long tmp = d[j];
      d[j] = d[j - 1];
      d[j - 1] = tmp;
    }
  int tradeoff = rnd(3) == 0; /* faster points cost more energy: long fronts */
  for (int i = 0; i < count; i++) {
    t[i] = intmode ? (double)(1 + rnd(tmax)) : 0.05 + 10.0 * unif();
    if (tradeoff)
      e[i] = (double)d[i] * (intmode ? (double)(1 + 20 / (long)t[i] + rnd(2)) : 1.0 + (5.0 + unif()) / t[i]);
    else
      e[i] = intmode ? (double)(rnd(12) == 0 ? 0 : 1 + rnd(9)) : 0.05 + 10.0 * unif();
  }
  set_fun(f, count, d, t, e);
}

/* Random instance; D mostly within the sum of the largest sizes (feasible or blocked by holes),
 * sometimes anywhere up to maxD. */
static void gen_inst(inst *I, int maxp, long maxD, int maxsize, int maxcount, int tmax, int homog) {
  long cap = 0;
  memset(I, 0, sizeof *I);
  I->p = 1 + (int)rnd(maxp);
  I->homog = homog;
  I->intmode = rnd(2) == 0;
  I->ps = rnd(4) == 0 ? 0.0 : (I->intmode ? (double)rnd(5) : 3.0 * unif());
  for (int i = 0; i < (homog ? 1 : I->p); i++) gen_fun(&I->fun[i], maxsize, maxcount, I->intmode, tmax);
  for (int i = 0; i < I->p; i++) {
    I->fp[i] = homog ? &I->fun[0] : &I->fun[i];
    cap += I->fp[i]->pts[I->fp[i]->count - 1].d;
  }
  I->D = rnd(5) == 0 || cap > maxD ? rnd(maxD + 1) : rnd(cap + 1);
}

static void free_inst(inst *I) {
  for (int i = 0; i < MAXP; i++) free(I->fun[i].pts);
  memset(I->fun, 0, sizeof I->fun);
}

static fupermod_problem problem_of(const inst *I, int objective, int faithful) {
  fupermod_problem pr;
  pr.D = I->D;
  pr.p = I->p;
  pr.f = I->fp;
  pr.static_power = I->ps;
  pr.faithful = faithful;
  pr.objective = objective;
  return pr;
}

static void describe(const inst *I) {
  char buf[4096];
  diag("instance: p=%d D=%ld static_power=%.17g %s", I->p, I->D, I->ps, I->homog ? "(identical)" : "");
  for (int i = 0; i < (I->homog ? 1 : I->p); i++) {
    size_t n = 0;
    buf[0] = 0;
    for (int k = 0; k < I->fun[i].count && n < sizeof buf - 80; k++)
      n += (size_t)snprintf(buf + n, sizeof buf - n, " %ld:%.17g:%.17g", I->fun[i].pts[k].d, I->fun[i].pts[k].t,
                            I->fun[i].pts[k].e);
    diag("  f[%d] (d:t:e)%s", i, buf);
  }
}

/* ---------- brute-force oracle ---------- */

typedef struct {
  double t, e;
} vec;

typedef struct {
  int n, cap;
  vec *v;
  double emin;
} orc;

static void orc_add(orc *o, double t, double e) {
  if (o->n == o->cap) {
    o->cap = o->cap ? 2 * o->cap : 64;
    o->v = realloc(o->v, (size_t)o->cap * sizeof *o->v);
  }
  o->v[o->n++] = (vec){t, e};
  if (o->n == 1 || e < o->emin) o->emin = e;
}

/* every distribution, energy summed from processor 0 upwards like fupermod_problem_evaluate */
static void enumerate(const inst *I, int i, long rem, double T, double E, orc *o) {
  if (i == I->p) {
    if (rem == 0) orc_add(o, T, E); /* dynamic energy; total energy is mapped later */
    return;
  }
  enumerate(I, i + 1, rem, T, E + 0.0, o);
  for (int k = 0; k < I->fp[i]->count && I->fp[i]->pts[k].d <= rem; k++) {
    const fupermod_point *pt = &I->fp[i]->pts[k];
    enumerate(I, i + 1, rem - pt->d, pt->t > T ? pt->t : T, E + pt->e, o);
  }
}

static int vec_cmp(const void *a, const void *b) {
  const vec *x = a, *y = b;
  if (x->t != y->t) return x->t < y->t ? -1 : 1;
  return (x->e > y->e) - (x->e < y->e);
}

/* Non-dominated vectors of o (dynamic or total energy), sorted by time; returns the count. */
static int oracle_front(const inst *I, const orc *o, int total, vec *out) {
  int n = 0;
  vec *tmp = malloc((size_t)(o->n ? o->n : 1) * sizeof *tmp);
  for (int i = 0; i < o->n; i++) tmp[i] = (vec){o->v[i].t, total ? o->v[i].e + I->ps * o->v[i].t : o->v[i].e};
  qsort(tmp, (size_t)o->n, sizeof *tmp, vec_cmp);
  for (int i = 0; i < o->n; i++)
    if (n == 0 || tmp[i].e < out[n - 1].e) out[n++] = tmp[i];
  free(tmp);
  return n;
}

/* ---------- checks ---------- */

static int close_enough(double a, double b, double tol) {
  return a == b || fabs(a - b) <= tol * fmax(fabs(a), fabs(b));
}

/* A witness: p parts, each 0 or measured, summing to D, with the given objectives. */
static int check_witness(const fupermod_problem *pr, const fupermod_dist *x, double t, double dyn, char *why,
                         size_t wn) {
  long d[MAXP];
  double tt, ee;
  if (!x || x->size != pr->p || x->D != pr->D) {
    snprintf(why, wn, "witness missing or of wrong shape");
    return 0;
  }
  for (int i = 0; i < pr->p; i++) d[i] = x->parts[i].d;
  if (fupermod_problem_evaluate(pr, d, &tt, &ee, NULL)) {
    snprintf(why, wn, "witness invalid: %s", fupermod_error_message());
    return 0;
  }
  if (tt != t || ee != dyn) {
    snprintf(why, wn, "witness objectives (%.17g, %.17g) differ from reported (%.17g, %.17g)", tt, ee, t, dyn);
    return 0;
  }
  for (int i = 0; i < pr->p; i++) {
    int k = d[i] ? fupermod_points_find(pr->f[i], d[i]) : -1;
    if (x->parts[i].t != (k < 0 ? 0.0 : pr->f[i]->pts[k].t) || x->parts[i].e != (k < 0 ? 0.0 : pr->f[i]->pts[k].e)) {
      snprintf(why, wn, "part %d: t/e not the measured values", i);
      return 0;
    }
  }
  return 1;
}

static int check_front(const fupermod_problem *pr, const fupermod_front *fr, const vec *exp, int n, int total,
                       double tol, char *why, size_t wn) {
  if (fr->count != n) {
    snprintf(why, wn, "front has %d points, oracle %d", fr->count, n);
    return 0;
  }
  for (int i = 0; i < n; i++) {
    const fupermod_front_point *q = &fr->points[i];
    if (q->time != exp[i].t || !close_enough(q->energy, exp[i].e, tol)) {
      snprintf(why, wn, "point %d is (%.17g, %.17g), oracle (%.17g, %.17g)", i, q->time, q->energy, exp[i].t,
               exp[i].e);
      return 0;
    }
    if (i > 0 && !(q->time > fr->points[i - 1].time && q->energy < fr->points[i - 1].energy)) {
      snprintf(why, wn, "points %d and %d not in increasing time / decreasing energy", i - 1, i);
      return 0;
    }
    if (!check_witness(pr, q->dist, q->time, q->dynamic_energy, why, wn)) return 0;
    if (q->energy != (total ? q->dynamic_energy + pr->static_power * q->time : q->dynamic_energy)) {
      snprintf(why, wn, "point %d: energy %.17g is not the objective of its witness", i, q->energy);
      return 0;
    }
  }
  return 1;
}

static void print_front(const char *what, const fupermod_front *fr) {
  for (int i = 0; i < fr->count; i++) {
    char buf[256];
    size_t n = 0;
    buf[0] = 0;
    for (int k = 0; fr->points[i].dist && k < fr->points[i].dist->size && n < 200; k++)
      n += (size_t)snprintf(buf + n, sizeof buf - n, " %ld", fr->points[i].dist->parts[k].d);
    diag("  %s[%d] t=%.17g e=%.17g dyn=%.17g d=(%s )", what, i, fr->points[i].time, fr->points[i].energy,
         fr->points[i].dynamic_energy, buf);
  }
}

static const fupermod_partitioner *alg(const char *name) { return fupermod_partitioner_find(name); }

static int run_front(const char *name, const fupermod_problem *pr, fupermod_front *fr) {
  const fupermod_partitioner *a = alg(name);
  fr->count = 0;
  fr->points = NULL;
  if (!a || !a->pareto) return fupermod_error(FUPERMOD_ERR_USAGE, "no pareto partitioner %s", name);
  return a->pareto(pr, fr);
}

static int run_dist(const char *name, const fupermod_problem *pr, fupermod_dist *x) {
  const fupermod_partitioner *a = alg(name);
  if (!a || !a->discrete) return fupermod_error(FUPERMOD_ERR_USAGE, "no discrete partitioner %s", name);
  return a->discrete(pr, x);
}

/* Per-group counters: one ok() line per group, the first failure diagnosed in full. */
typedef struct {
  const char *name;
  int runs, fails;
} group;

static void group_fail(group *g, const inst *I, const char *why, const fupermod_front *got) {
  if (g->fails++ == 0) {
    diag("%s: first failure: %s", g->name, why);
    describe(I);
    if (got) print_front("got", got);
  }
}

/* A front algorithm against an expected front (vectors) on instance I. */
static void front_case(group *g, const inst *I, const char *name, int objective, int faithful, const vec *exp,
                       int n, int feasible, int bitwise) {
  fupermod_problem pr = problem_of(I, objective, faithful);
  fupermod_front fr;
  char why[512];
  int rc, total = objective == FUPERMOD_OBJ_PARETO_TOTAL;
  g->runs++;
  if (name)
    rc = run_front(name, &pr, &fr);
  else {
    fr.count = 0;
    fr.points = NULL;
    rc = fupermod_dp_pareto(&pr, &fr);
  }
  if (!feasible) {
    if (rc != FUPERMOD_ERR_INFEASIBLE || fr.count != 0) {
      snprintf(why, sizeof why, "expected FUPERMOD_ERR_INFEASIBLE, got %d (%s)", rc, fupermod_error_message());
      group_fail(g, I, why, &fr);
    }
  } else if (rc != FUPERMOD_SUCCESS) {
    snprintf(why, sizeof why, "failed with %d: %s", rc, fupermod_error_message());
    group_fail(g, I, why, NULL);
  } else if (!check_front(&pr, &fr, exp, n, total, I->intmode || bitwise ? 0.0 : 1e-12, why, sizeof why)) {
    group_fail(g, I, why, &fr);
    for (int i = 0; g->fails == 1 && i < n; i++) diag("  oracle[%d] t=%.17g e=%.17g", i, exp[i].t, exp[i].e);
  }
  fupermod_front_free(&fr);
}

/* A single-objective energy algorithm against the least energy (feasible) of instance I. */
static void energy_case(group *g, const inst *I, const char *name, double emin, int feasible) {
  fupermod_problem pr = problem_of(I, FUPERMOD_OBJ_ENERGY, 0);
  fupermod_dist *x = fupermod_dist_alloc(I->D, I->p);
  char why[512];
  int rc = run_dist(name, &pr, x);
  g->runs++;
  if (!feasible) {
    if (rc != FUPERMOD_ERR_INFEASIBLE) {
      snprintf(why, sizeof why, "expected FUPERMOD_ERR_INFEASIBLE, got %d", rc);
      group_fail(g, I, why, NULL);
    }
  } else if (rc != FUPERMOD_SUCCESS) {
    snprintf(why, sizeof why, "failed with %d: %s", rc, fupermod_error_message());
    group_fail(g, I, why, NULL);
  } else {
    double t = 0.0, e = 0.0;
    for (int i = 0; i < I->p; i++) t = fmax(t, x->parts[i].t), e += x->parts[i].e;
    if (!check_witness(&pr, x, t, e, why, sizeof why))
      group_fail(g, I, why, NULL);
    else if (!close_enough(e, emin, I->intmode ? 0.0 : 1e-12)) {
      snprintf(why, sizeof why, "energy %.17g, oracle minimum %.17g", e, emin);
      group_fail(g, I, why, NULL);
    }
  }
  fupermod_dist_free(x);
}

static void group_report(const group *g) {
  ok(g->runs > 0 && g->fails == 0, "%s: %d of %d instances agree", g->name, g->runs - g->fails, g->runs);
}

/* ---------- brute force, tiny instances ---------- */

static void test_bruteforce(int n_hetero, int n_homog) {
  group g_dp = {"dp_pareto (time, dynamic) = brute force", 0, 0};
  group g_dpt = {"dp_pareto (time, total) = brute force", 0, 0};
  group g_hep = {"hepopta = brute force", 0, 0};
  group g_htp = {"htpopta = brute force", 0, 0};
  group g_heo = {"heopta = brute-force minimum energy", 0, 0};
  group g_eo = {"eopta = brute-force minimum energy (identical)", 0, 0};
  group g_al = {"aleph (exact) = brute force (identical)", 0, 0};
  group g_alf = {"aleph faithful: valid, endpoints exact (identical)", 0, 0};
  group g_alh = {"dp_pareto/hepopta = brute force (identical)", 0, 0};
  int infeasible = 0, faithful_misses = 0, ps0 = 0, np = 0, p1 = 0, one = 0, d0 = 0;
  vec *fd = malloc(4096 * sizeof *fd), *ft = malloc(4096 * sizeof *ft);
  for (int it = 0; it < n_hetero + n_homog; it++) {
    inst I;
    orc o = {0, 0, NULL, 0.0};
    int homog = it >= n_hetero, nd, nt, feas;
    gen_inst(&I, 4, 12, 1 + (int)rnd(12), 6, 6, homog);
    enumerate(&I, 0, I.D, 0.0, 0.0, &o);
    feas = o.n > 0;
    nd = oracle_front(&I, &o, 0, fd);
    nt = oracle_front(&I, &o, 1, ft);
    infeasible += !feas;
    ps0 += I.ps == 0.0;
    np += I.D < I.p;
    p1 += I.p == 1;
    d0 += I.D == 0;
    for (int i = 0, c = 0; i < I.p && !c; i++) c = I.fp[i]->count == 1, one += c;
    if (!homog) {
      front_case(&g_dp, &I, NULL, FUPERMOD_OBJ_PARETO, 0, fd, nd, feas, 1);
      front_case(&g_dpt, &I, NULL, FUPERMOD_OBJ_PARETO_TOTAL, 0, ft, nt, feas, 1);
      front_case(&g_hep, &I, "hepopta", FUPERMOD_OBJ_PARETO, 0, fd, nd, feas, 1);
      front_case(&g_htp, &I, "htpopta", FUPERMOD_OBJ_PARETO_TOTAL, 0, ft, nt, feas, 1);
      energy_case(&g_heo, &I, "heopta", o.emin, feas);
    } else {
      energy_case(&g_eo, &I, "eopta", o.emin, feas);
      front_case(&g_al, &I, "aleph", FUPERMOD_OBJ_PARETO, 0, fd, nd, feas, 0);
      front_case(&g_alh, &I, NULL, FUPERMOD_OBJ_PARETO, 0, fd, nd, feas, 1);
      front_case(&g_alh, &I, "hepopta", FUPERMOD_OBJ_PARETO, 0, fd, nd, feas, 1);
      front_case(&g_alh, &I, "htpopta", FUPERMOD_OBJ_PARETO_TOTAL, 0, ft, nt, feas, 1);
      energy_case(&g_alh, &I, "heopta", o.emin, feas);
      { /* faithful: a valid, non-dominated subset with the exact endpoints */
        fupermod_problem pr = problem_of(&I, FUPERMOD_OBJ_PARETO, 1);
        fupermod_front fr;
        char why[512] = "";
        int rc = run_front("aleph", &pr, &fr), good = 1;
        g_alf.runs++;
        if (!feas)
          good = rc == FUPERMOD_ERR_INFEASIBLE;
        else if (rc || fr.count < 1 || fr.count > nd)
          good = 0, snprintf(why, sizeof why, "rc %d, %d points (exact %d)", rc, fr.count, nd);
        else {
          for (int i = 0; good && i < fr.count; i++) {
            int found = 0;
            good = check_witness(&pr, fr.points[i].dist, fr.points[i].time, fr.points[i].dynamic_energy, why,
                                 sizeof why) &&
                   (i == 0 || (fr.points[i].time > fr.points[i - 1].time &&
                               fr.points[i].energy < fr.points[i - 1].energy));
            for (int k = 0; k < o.n && good; k++) /* a faithful point on the front is a true point */
              found |= o.v[k].t == fr.points[i].time && o.v[k].e == fr.points[i].energy;
            if (good && !found) good = 0, snprintf(why, sizeof why, "point %d is not a distribution's vector", i);
          }
          if (good && (fr.points[0].time != fd[0].t ||
                       !close_enough(fr.points[fr.count - 1].energy, fd[nd - 1].e, I.intmode ? 0 : 1e-12)))
            good = 0, snprintf(why, sizeof why, "endpoints differ from the exact front");
          faithful_misses += good && fr.count < nd;
        }
        if (!good) group_fail(&g_alf, &I, why, &fr);
        fupermod_front_free(&fr);
      }
    }
    free(o.v);
    free_inst(&I);
  }
  diag("brute force: %d instances (%d infeasible, %d with D < p, %d with D = 0, %d with p = 1, %d with a one-point "
       "function, %d with static power 0); faithful ALEPH missed points in %d of %d identical instances",
       n_hetero + n_homog, infeasible, np, d0, p1, one, ps0, faithful_misses, n_homog);
  ok(infeasible > 0 && np > 0 && d0 > 0 && p1 > 0 && one > 0 && ps0 > 0,
     "brute-force instances cover infeasible D, D < p, D = 0, p = 1, one-point functions, P_S = 0");
  group_report(&g_dp);
  group_report(&g_dpt);
  group_report(&g_hep);
  group_report(&g_htp);
  group_report(&g_heo);
  group_report(&g_eo);
  group_report(&g_al);
  group_report(&g_alh);
  group_report(&g_alf);
  free(fd);
  free(ft);
}

/* ---------- larger instances, dp_pareto as the oracle ---------- */

static void test_large(int n_hetero, int n_homog) {
  group g_hep = {"hepopta = dp_pareto (p <= 8, D <= 150)", 0, 0};
  group g_htp = {"htpopta = dp_pareto total (p <= 8, D <= 150)", 0, 0};
  group g_heo = {"heopta = dp_pareto minimum energy (p <= 8, D <= 150)", 0, 0};
  group g_al = {"aleph = dp_pareto (identical, p <= 8, D <= 150)", 0, 0};
  group g_eo = {"eopta = dp_pareto minimum energy (identical, p <= 8, D <= 150)", 0, 0};
  int maxfront = 0, bound_ok = 1;
  for (int it = 0; it < n_hetero + n_homog; it++) {
    inst I;
    int homog = it >= n_hetero, nd = 0, nt = 0, feas, mtot = 0;
    fupermod_problem pr;
    fupermod_front fr, frt;
    vec *fd, *ft;
    gen_inst(&I, 8, 150, 10 + (int)rnd(31), 25, 30, homog);
    pr = problem_of(&I, FUPERMOD_OBJ_PARETO, 0);
    feas = fupermod_dp_pareto(&pr, &fr) == FUPERMOD_SUCCESS;
    pr.objective = FUPERMOD_OBJ_PARETO_TOTAL;
    if (feas != (fupermod_dp_pareto(&pr, &frt) == FUPERMOD_SUCCESS)) bound_ok = 0;
    fd = malloc((size_t)(fr.count + 1) * sizeof *fd);
    ft = malloc((size_t)(frt.count + 1) * sizeof *ft);
    for (int i = 0; i < fr.count; i++) fd[nd++] = (vec){fr.points[i].time, fr.points[i].energy};
    for (int i = 0; i < frt.count; i++) ft[nt++] = (vec){frt.points[i].time, frt.points[i].energy};
    for (int i = 0; i < I.p; i++) mtot += I.fp[i]->count;
    if (fr.count > maxfront) maxfront = fr.count;
    if (fr.count > mtot) bound_ok = 0; /* |front| <= m*p (Lemma D.3.1) */
    if (!homog) {
      front_case(&g_hep, &I, "hepopta", FUPERMOD_OBJ_PARETO, 0, fd, nd, feas, 1);
      front_case(&g_htp, &I, "htpopta", FUPERMOD_OBJ_PARETO_TOTAL, 0, ft, nt, feas, 1);
      energy_case(&g_heo, &I, "heopta", nd ? fd[nd - 1].e : 0.0, feas);
    } else {
      front_case(&g_al, &I, "aleph", FUPERMOD_OBJ_PARETO, 0, fd, nd, feas, 0);
      energy_case(&g_eo, &I, "eopta", nd ? fd[nd - 1].e : 0.0, feas);
    }
    fupermod_front_free(&fr);
    fupermod_front_free(&frt);
    free(fd);
    free(ft);
    free_inst(&I);
  }
  diag("larger instances: largest front %d points", maxfront);
  ok(bound_ok, "dp_pareto: fronts within m*p points, total and dynamic agree on feasibility");
  group_report(&g_hep);
  group_report(&g_htp);
  group_report(&g_heo);
  group_report(&g_al);
  group_report(&g_eo);
}

/* ---------- golden vectors ---------- */

static int front_is(const fupermod_front *fr, int n, const double *t, const double *e, const long *d, int p) {
  if (fr->count != n) return 0;
  for (int i = 0; i < n; i++) {
    if (fr->points[i].time != t[i] || fr->points[i].energy != e[i]) return 0;
    for (int k = 0; d && k < p; k++)
      if (fr->points[i].dist->parts[k].d != d[i * p + k]) return 0;
  }
  return 1;
}

/* Thesis Appendix F.3: p = 2, n = 4, times = energies (heterogeneous digest 2.4). */
static void test_interface_example(void) {
  inst I;
  fupermod_problem pr;
  fupermod_front fr;
  fupermod_dist *x = fupermod_dist_alloc(4, 2);
  const long d0[] = {1, 2, 3, 4}, d1[] = {1, 2, 3};
  const double v0[] = {10, 30, 20, 25}, v1[] = {15, 25, 35};
  const double ht[] = {20, 25}, he[] = {35, 25}, tt[] = {20}, te[] = {2035};
  const long hd[] = {3, 1, 4, 0}, td[] = {3, 1};
  int rc;
  memset(&I, 0, sizeof I);
  I.p = 2;
  I.D = 4;
  I.ps = 100.0;
  I.intmode = 1;
  set_fun(&I.fun[0], 4, d0, v0, v0);
  set_fun(&I.fun[1], 3, d1, v1, v1);
  I.fp[0] = &I.fun[0];
  I.fp[1] = &I.fun[1];
  pr = problem_of(&I, FUPERMOD_OBJ_PARETO, 0);
  rc = run_dist("heopta", &pr, x);
  ok(rc == 0 && x->parts[0].d == 4 && x->parts[1].d == 0 && x->parts[0].e + x->parts[1].e == 25,
     "interface example: heopta gives (4,0), energy 25");
  rc = run_front("hepopta", &pr, &fr);
  if (!ok(rc == 0 && front_is(&fr, 2, ht, he, hd, 2), "interface example: hepopta gives {(20,35,(3,1)), (25,25,(4,0))}"))
    print_front("hepopta", &fr);
  fupermod_front_free(&fr);
  rc = fupermod_dp_pareto(&pr, &fr);
  ok(rc == 0 && front_is(&fr, 2, ht, he, hd, 2), "interface example: dp_pareto gives the same front");
  fupermod_front_free(&fr);
  pr.objective = FUPERMOD_OBJ_PARETO_TOTAL;
  rc = run_front("htpopta", &pr, &fr);
  if (!ok(rc == 0 && front_is(&fr, 1, tt, te, td, 2) && fr.points[0].dynamic_energy == 35,
          "interface example: htpopta with P_S = 100 gives {(20, 2035, (3,1))}"))
    print_front("htpopta", &fr);
  fupermod_front_free(&fr);
  rc = fupermod_dp_pareto(&pr, &fr);
  ok(rc == 0 && front_is(&fr, 1, tt, te, td, 2), "interface example: dp_pareto total gives the same");
  fupermod_front_free(&fr);
  pr.static_power = 0.0; /* P_S = 0: the total front is the dynamic one */
  rc = run_front("htpopta", &pr, &fr);
  ok(rc == 0 && front_is(&fr, 2, ht, he, hd, 2), "interface example: htpopta with P_S = 0 equals hepopta");
  fupermod_front_free(&fr);
  fupermod_dist_free(x);
  free_inst(&I);
}

/* HEOPTA worked example (p = 4, m = 14, n = 12): the paper's tables are only in figures, so this is
 * a replica built from every value the text states (heopta-energy.md 3, heterogeneous digest 2.2:
 * P0's energy order, e(3) of each processor, the sigma table for eps = 10, 8, 6, 5, the energies of
 * the three solutions found). Expected: (0,7,5,0), energy 5, the unique optimum. */
static void test_heopta_example(void) {
  static const double e0[14] = {6, 9, 3, 5, 11, 14, 9.5, 12, 8, 13, 16, 10, 17, 15};
  static const double e1[14] = {3, 1, 2, 5, 6, 7, 4, 10, 11, 12, 13, 14, 15, 16};
  static const double e2[14] = {5, 6, 4, 7, 1, 10, 11, 12, 13, 14, 15, 16, 18, 17};
  static const double e3[14] = {4, 5, 1, 3, 6, 9, 10, 11, 12, 13, 14, 15, 16, 17};
  const double *E[4] = {e0, e1, e2, e3};
  long d[14];
  double t[14];
  inst I;
  orc o = {0, 0, NULL, 0.0};
  fupermod_problem pr;
  fupermod_dist *x = fupermod_dist_alloc(12, 4);
  int rc, unique = 0, order_ok = 1;
  static const long order0[14] = {3, 4, 1, 9, 2, 7, 12, 5, 8, 10, 6, 14, 11, 13};
  memset(&I, 0, sizeof I);
  I.p = 4;
  I.D = 12;
  I.intmode = 1;
  for (int k = 0; k < 14; k++) d[k] = k + 1, t[k] = 1.0;
  for (int i = 0; i < 4; i++) {
    set_fun(&I.fun[i], 14, d, t, E[i]);
    I.fp[i] = &I.fun[i];
  }
  for (int k = 1; k < 14; k++) order_ok &= e0[order0[k - 1] - 1] < e0[order0[k] - 1];
  ok(order_ok && e0[2] + e1[2] + e2[2] + e3[2] == 10, "HEOPTA example replica: P0's energy order and eps = 10 as printed");
  pr = problem_of(&I, FUPERMOD_OBJ_ENERGY, 0);
  rc = run_dist("heopta", &pr, x);
  ok(rc == 0 && x->parts[0].d == 0 && x->parts[1].d == 7 && x->parts[2].d == 5 && x->parts[3].d == 0,
     "HEOPTA example: heopta gives (0,7,5,0)");
  ok(rc == 0 && x->parts[1].e + x->parts[2].e == 5, "HEOPTA example: energy 5");
  enumerate(&I, 0, I.D, 0.0, 0.0, &o);
  for (int i = 0; i < o.n; i++) unique += o.v[i].e <= 5.0;
  ok(o.emin == 5.0 && unique == 1, "HEOPTA example: brute force confirms a unique optimum of energy 5");
  free(o.v);
  fupermod_dist_free(x);
  free_inst(&I);
}

/* HEPOPTA worked example (thesis ch. 5, p = 4, m = 4, n = 4): the input is only in a figure; this
 * replica holds every stated value (P0's energy order, e/t of the named edges, the PMem sets, sigma
 * = (8,5,3,1) at eps = 5). Printed front: (E 2, T 6, (2,2,0,0)), (4, 3, (2,1,0,1)), (5, 2, (2,0,2,0)). */
static void test_hepopta_example(void) {
  static const double e[4][4] = {{2, 1, 3, 6}, {2, 1, 7, 8}, {5, 4, 7, 8}, {1, 6, 7, 8}};
  static const double t[4][4] = {{5, 2, 7, 8}, {3, 6, 9, 9}, {1, 2, 9, 9}, {1, 9, 9, 9}};
  const long d[] = {1, 2, 3, 4}, xd[] = {2, 0, 2, 0, 2, 1, 0, 1, 2, 2, 0, 0};
  const double xt[] = {2, 3, 6}, xe[] = {5, 4, 2};
  inst I;
  fupermod_problem pr;
  fupermod_front fr;
  int rc;
  memset(&I, 0, sizeof I);
  I.p = 4;
  I.D = 4;
  I.intmode = 1;
  for (int i = 0; i < 4; i++) {
    set_fun(&I.fun[i], 4, d, t[i], e[i]);
    I.fp[i] = &I.fun[i];
  }
  pr = problem_of(&I, FUPERMOD_OBJ_PARETO, 0);
  rc = run_front("hepopta", &pr, &fr);
  if (!ok(rc == 0 && front_is(&fr, 3, xt, xe, xd, 4), "HEPOPTA example replica: the printed front and distributions"))
    print_front("hepopta", &fr);
  fupermod_front_free(&fr);
  free_inst(&I);
}

/* Thesis 2.1 table (p = 4, sizes 1..16), used both as times and as energies: known t_opt for
 * n = 1..64, and the derived minimum energies n = 12 -> 2, 16 -> 2, 31 -> 7. */
static void test_thesis_table(void) {
  static const double T[4][16] = {
    {6, 13, 2, 12, 14, 14, 13, 1, 3, 4, 20, 2, 11, 5, 3, 10},
    {12, 10, 7, 6, 4, 4, 8, 1, 3, 16, 13, 13, 16, 18, 20, 17},
    {1, 7, 4, 4, 8, 9, 1, 14, 13, 14, 19, 15, 18, 18, 16, 19},
    {6, 3, 4, 4, 3, 2, 7, 9, 13, 14, 13, 16, 19, 17, 15, 20}};
  static const double topt[64] = {1, 3, 2, 2, 3, 2, 1, 1, 1, 2, 2, 2, 2, 2, 1, 1, 1, 2, 2, 2, 2, 2,
                                  1, 2, 2, 2, 2, 3, 2, 3, 3, 3, 2, 3, 3, 3, 3, 7, 9, 10, 13, 13, 13, 13,
                                  13, 13, 13, 13, 14, 15, 15, 15, 15, 15, 15, 16, 16, 16, 16, 17, 17, 17, 19, 20};
  long d[16];
  inst I;
  int tfail = 0, efail = 0, first = -1;
  memset(&I, 0, sizeof I);
  I.p = 4;
  I.intmode = 1;
  for (int k = 0; k < 16; k++) d[k] = k + 1;
  for (int i = 0; i < 4; i++) {
    set_fun(&I.fun[i], 16, d, T[i], T[i]);
    I.fp[i] = &I.fun[i];
  }
  for (long n = 1; n <= 64; n++) {
    fupermod_problem pr;
    fupermod_front fr, ref;
    fupermod_dist *x = fupermod_dist_alloc(n, 4);
    I.D = n;
    pr = problem_of(&I, FUPERMOD_OBJ_PARETO, 0);
    double emin;
    if (run_front("hepopta", &pr, &fr) || fr.points[0].time != topt[n - 1]) tfail++, first = first < 0 ? (int)n : first;
    if (fupermod_dp_pareto(&pr, &ref) || fr.count < 1 || run_dist("heopta", &pr, x)) {
      efail++;
      fupermod_front_free(&fr);
      fupermod_front_free(&ref);
      fupermod_dist_free(x);
      continue;
    }
    emin = ref.points[ref.count - 1].energy;
    if (x->parts[0].e + x->parts[1].e + x->parts[2].e + x->parts[3].e != emin ||
        fr.points[fr.count - 1].energy != emin)
      efail++;
    if ((n == 12 || n == 16) && emin != 2) efail++;
    if (n == 31 && emin != 7) efail++;
    fupermod_front_free(&fr);
    fupermod_front_free(&ref);
    fupermod_dist_free(x);
  }
  if (!ok(tfail == 0, "thesis table: hepopta's fastest point is the printed t_opt for n = 1..64"))
    diag("%d mismatches, first at n = %d", tfail, first);
  ok(efail == 0, "thesis table as energies: heopta = hepopta = dp_pareto least energy; n=12,16 -> 2, n=31 -> 7");
  free_inst(&I);
}

/* ALEPH counterexample (paraleph digest 7.3): m = 4, T = (3,5,8,4), E = (1,2,2,7), n = 8, p = 3. */
static void test_aleph_counterexample(void) {
  const long d[] = {1, 2, 3, 4};
  const double T[] = {3, 5, 8, 4}, E[] = {1, 2, 2, 7};
  const double et[] = {4, 5, 8}, ee[] = {14, 11, 6}, ft[] = {4, 8}, fe[] = {14, 6};
  const long ed[] = {4, 4, 0, 2, 2, 4, 2, 3, 3};
  inst I;
  fupermod_problem pr;
  fupermod_front fr;
  int rc;
  memset(&I, 0, sizeof I);
  I.p = 3;
  I.D = 8;
  I.intmode = 1;
  set_fun(&I.fun[0], 4, d, T, E);
  I.fp[0] = I.fp[1] = I.fp[2] = &I.fun[0];
  pr = problem_of(&I, FUPERMOD_OBJ_PARETO, 0);
  rc = run_front("aleph", &pr, &fr);
  if (!ok(rc == 0 && front_is(&fr, 3, et, ee, ed, 3), "ALEPH counterexample: exact aleph finds (4,14) (5,11) (8,6)"))
    print_front("aleph", &fr);
  fupermod_front_free(&fr);
  rc = fupermod_dp_pareto(&pr, &fr);
  ok(rc == 0 && front_is(&fr, 3, et, ee, NULL, 3), "ALEPH counterexample: dp_pareto agrees");
  fupermod_front_free(&fr);
  pr.faithful = 1;
  rc = run_front("aleph", &pr, &fr);
  if (!ok(rc == 0 && front_is(&fr, 2, ft, fe, NULL, 3),
          "ALEPH counterexample: faithful aleph misses (5,11), returns (4,14) (8,6)"))
    print_front("aleph faithful", &fr);
  fupermod_front_free(&fr);
  free_inst(&I);
}

/* Found by bench/partitioners: faithful ALEPH's single-objective left parts (ALSOO keeps the
 * first of tied optima) can make it return a dominated point. T = (5,4,6,3), E = (8,4,3,3),
 * D = 7, p = 4: the front is {(5,15), (6,6)}; faithful returns (5,20) instead of (5,15). */
static void test_aleph_dominated(void) {
  const long d[] = {1, 2, 3, 4};
  const double T[] = {5, 4, 6, 3}, E[] = {8, 4, 3, 3};
  const double et[] = {5, 6}, ee[] = {15, 6};
  inst I;
  fupermod_problem pr;
  fupermod_front fr, ref;
  int rc, dominated = 0;
  memset(&I, 0, sizeof I);
  I.p = 4;
  I.D = 7;
  I.intmode = 1;
  set_fun(&I.fun[0], 4, d, T, E);
  I.fp[0] = I.fp[1] = I.fp[2] = I.fp[3] = &I.fun[0];
  pr = problem_of(&I, FUPERMOD_OBJ_PARETO, 0);
  rc = fupermod_dp_pareto(&pr, &ref);
  ok(rc == 0 && front_is(&ref, 2, et, ee, NULL, 4), "dominated-point case: the exact front is (5,15) (6,6)");
  rc = run_front("aleph", &pr, &fr);
  if (!ok(rc == 0 && front_is(&fr, 2, et, ee, NULL, 4), "dominated-point case: exact aleph finds it"))
    print_front("aleph", &fr);
  fupermod_front_free(&fr);
  pr.faithful = 1;
  rc = run_front("aleph", &pr, &fr);
  for (int k = 0; rc == 0 && k < fr.count; k++)
    for (int j = 0; j < ref.count; j++)
      if (ref.points[j].time <= fr.points[k].time && ref.points[j].energy < fr.points[k].energy) dominated++;
  if (!ok(rc == 0 && dominated == 1, "dominated-point case: faithful aleph returns one dominated point, (5,20)"))
    print_front("aleph faithful", &fr);
  fupermod_front_free(&fr);
  fupermod_front_free(&ref);
  free_inst(&I);
}

/* POPTA counterexample (digest 7.2): T = (15,8,16,13,2), n = 7, p = 3: least time 8 via {5,2,0}. */
static void test_popta_counterexample(void) {
  const long d[] = {1, 2, 3, 4, 5};
  const double T[] = {15, 8, 16, 13, 2}, E[] = {3, 1, 4, 1, 5};
  inst I;
  fupermod_problem pr;
  fupermod_front fr;
  int good = 1;
  memset(&I, 0, sizeof I);
  I.p = 3;
  I.D = 7;
  set_fun(&I.fun[0], 5, d, T, E);
  I.fp[0] = I.fp[1] = I.fp[2] = &I.fun[0];
  pr = problem_of(&I, FUPERMOD_OBJ_PARETO, 0);
  for (int faithful = 0; faithful < 2; faithful++) {
    pr.faithful = faithful;
    good &= run_front("aleph", &pr, &fr) == 0 && fr.points[0].time == 8;
    fupermod_front_free(&fr);
  }
  good &= run_front("hepopta", &pr, &fr) == 0 && fr.points[0].time == 8;
  fupermod_front_free(&fr);
  good &= fupermod_dp_pareto(&pr, &fr) == 0 && fr.points[0].time == 8;
  fupermod_front_free(&fr);
  ok(good, "POPTA counterexample: every front starts at the true least time 8");
  free_inst(&I);
}

/* Ties: equal vectors keep the witness with fewer active processors; results are deterministic. */
static void test_ties(void) {
  const long d0[] = {1, 2}, d1[] = {1};
  const double t0[] = {1, 1}, e0[] = {1, 2}, t1[] = {1}, e1[] = {1};
  inst I;
  fupermod_problem pr;
  fupermod_front a, b;
  fupermod_dist *x = fupermod_dist_alloc(2, 2);
  int same = 1;
  memset(&I, 0, sizeof I);
  I.p = 2;
  I.D = 2;
  set_fun(&I.fun[0], 2, d0, t0, e0);
  set_fun(&I.fun[1], 1, d1, t1, e1);
  I.fp[0] = &I.fun[0];
  I.fp[1] = &I.fun[1];
  pr = problem_of(&I, FUPERMOD_OBJ_PARETO, 0);
  fupermod_dp_pareto(&pr, &a);
  run_front("hepopta", &pr, &b);
  ok(a.count == 1 && a.points[0].dist->parts[0].d == 2 && b.count == 1 && b.points[0].dist->parts[0].d == 2,
     "ties: (2,0) preferred to (1,1) (same time and energy, fewer active processors)");
  fupermod_front_free(&a);
  fupermod_front_free(&b);
  I.fp[0] = &I.fun[1]; /* mirrored: now (1,1) is generated before (0,2) */
  I.fp[1] = &I.fun[0];
  fupermod_dp_pareto(&pr, &a);
  run_front("hepopta", &pr, &b);
  ok(a.count == 1 && a.points[0].dist->parts[1].d == 2 && b.count == 1 && b.points[0].dist->parts[1].d == 2,
     "ties: (0,2) preferred to (1,1) even when (1,1) is generated first");
  fupermod_front_free(&a);
  fupermod_front_free(&b);
  I.fp[0] = &I.fun[0];
  I.fp[1] = &I.fun[1];
  run_dist("heopta", &pr, x);
  ok(x->parts[0].d == 1 && x->parts[1].d == 1, "ties: heopta keeps the load-equal start on a tie");
  fupermod_dist_free(x);
  free_inst(&I);
  for (int it = 0; it < 50; it++) { /* same input, same witnesses */
    inst J;
    gen_inst(&J, 6, 60, 20, 10, 6, 0);
    pr = problem_of(&J, FUPERMOD_OBJ_PARETO, 0);
    int r1 = fupermod_dp_pareto(&pr, &a), r2 = fupermod_dp_pareto(&pr, &b);
    same &= r1 == r2 && a.count == b.count;
    for (int i = 0; same && i < a.count; i++)
      for (int k = 0; k < J.p; k++) same &= a.points[i].dist->parts[k].d == b.points[i].dist->parts[k].d;
    fupermod_front_free(&a);
    fupermod_front_free(&b);
    free_inst(&J);
  }
  ok(same, "dp_pareto is deterministic (50 instances run twice)");
}

/* ---------- descriptors and errors ---------- */

static void test_descriptors(void) {
  static const struct {
    const char *name;
    int kind, homog, stat;
  } want[] = {{"eopta", FUPERMOD_PART_DISCRETE, 1, 0},
              {"heopta", FUPERMOD_PART_DISCRETE, 0, 0},
              {"aleph", FUPERMOD_PART_PARETO, 1, 0},
              {"hepopta", FUPERMOD_PART_PARETO, 0, 0},
              {"htpopta", FUPERMOD_PART_PARETO, 0, 1}};
  int good = 1;
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    const fupermod_partitioner *a = alg(want[i].name);
    good &= a && a->kind == want[i].kind && a->homogeneous == want[i].homog && a->needs_energy == 1 &&
            a->needs_static_power == want[i].stat && a->description &&
            (a->kind == FUPERMOD_PART_DISCRETE ? a->discrete != NULL : a->pareto != NULL);
    if (!a) diag("%s is not registered", want[i].name);
  }
  ok(good, "registry: eopta heopta aleph hepopta htpopta with the right kind and flags");
}

static int msg_has(const char *s) { return strstr(fupermod_error_message(), s) != NULL; }

static void test_errors(void) {
  const long d[] = {1, 2, 3};
  const double t[] = {1, 2, 3}, e[] = {1, 2, 3}, e2[] = {2, 2, 3};
  inst I;
  fupermod_problem pr;
  fupermod_front fr;
  fupermod_dist *x = fupermod_dist_alloc(4, 2), *x3 = fupermod_dist_alloc(4, 3);
  const char *fronts[] = {"aleph", "hepopta", "htpopta"}, *dists[] = {"eopta", "heopta"};
  int good;
  memset(&I, 0, sizeof I);
  I.p = 2;
  I.D = 4;
  set_fun(&I.fun[0], 3, d, t, e);
  set_fun(&I.fun[1], 3, d, t, NULL); /* no energy */
  I.fp[0] = &I.fun[0];
  I.fp[1] = &I.fun[1];
  pr = problem_of(&I, FUPERMOD_OBJ_PARETO, 0);
  good = fupermod_dp_pareto(&pr, &fr) == FUPERMOD_ERR_INPUT && msg_has("energy") && fr.count == 0;
  for (int i = 0; i < 3; i++) good &= run_front(fronts[i], &pr, &fr) == FUPERMOD_ERR_INPUT && msg_has("energy");
  for (int i = 0; i < 2; i++) good &= run_dist(dists[i], &pr, x) == FUPERMOD_ERR_INPUT && msg_has("energy");
  ok(good, "functions without energy: FUPERMOD_ERR_INPUT naming energy");
  free(I.fun[1].pts);
  set_fun(&I.fun[1], 3, d, t, e2);
  good = run_front("aleph", &pr, &fr) == FUPERMOD_ERR_USAGE && run_dist("eopta", &pr, x) == FUPERMOD_ERR_USAGE &&
         msg_has("identical");
  ok(good, "aleph/eopta with different functions: FUPERMOD_ERR_USAGE");
  I.fun[1].pts[0].e = -1.0; /* claims energy but holds a negative value */
  good = run_front("hepopta", &pr, &fr) == FUPERMOD_ERR_INPUT && run_dist("heopta", &pr, x) == FUPERMOD_ERR_INPUT;
  I.fun[1].pts[0].e = NAN;
  good &= fupermod_dp_pareto(&pr, &fr) == FUPERMOD_ERR_INPUT;
  ok(good, "negative or NaN energies: FUPERMOD_ERR_INPUT");
  I.fun[1].pts[0].e = 2.0;
  pr.objective = FUPERMOD_OBJ_TIME;
  good = fupermod_dp_pareto(&pr, &fr) == FUPERMOD_ERR_USAGE && msg_has("objective");
  ok(good, "dp_pareto with a single objective: FUPERMOD_ERR_USAGE naming objective");
  pr.objective = FUPERMOD_OBJ_PARETO_TOTAL;
  pr.static_power = -1.0;
  good = run_front("htpopta", &pr, &fr) == FUPERMOD_ERR_USAGE && msg_has("static");
  good &= fupermod_dp_pareto(&pr, &fr) == FUPERMOD_ERR_USAGE;
  pr.static_power = NAN;
  good &= run_front("htpopta", &pr, &fr) == FUPERMOD_ERR_USAGE && fupermod_dp_pareto(&pr, &fr) == FUPERMOD_ERR_USAGE;
  ok(good, "negative or NaN static power: FUPERMOD_ERR_USAGE naming static power");
  pr.static_power = 0.0;
  pr.D = -1;
  good = run_front("hepopta", &pr, &fr) == FUPERMOD_ERR_USAGE && msg_has("D");
  pr.D = 4;
  pr.p = 0;
  good &= run_dist("heopta", &pr, x) == FUPERMOD_ERR_USAGE && msg_has("p");
  pr.p = 2;
  good &= run_dist("heopta", NULL, x) == FUPERMOD_ERR_USAGE && run_front("htpopta", NULL, &fr) == FUPERMOD_ERR_USAGE &&
          fupermod_dp_pareto(NULL, &fr) == FUPERMOD_ERR_USAGE;
  ok(good, "bad D, p, or no problem: FUPERMOD_ERR_USAGE");
  good = run_dist("heopta", &pr, x3) == FUPERMOD_ERR_USAGE && msg_has("out") && run_dist("heopta", &pr, NULL) == FUPERMOD_ERR_USAGE;
  good &= alg("hepopta")->pareto(&pr, NULL) == FUPERMOD_ERR_USAGE && fupermod_dp_pareto(&pr, NULL) == FUPERMOD_ERR_USAGE;
  ok(good, "missing or mis-sized output: FUPERMOD_ERR_USAGE");
  pr.D = 7; /* 3 + 3 = 6 at most */
  pr.objective = FUPERMOD_OBJ_PARETO;
  good = run_front("hepopta", &pr, &fr) == FUPERMOD_ERR_INFEASIBLE && msg_has("exceeds");
  good &= fupermod_dp_pareto(&pr, &fr) == FUPERMOD_ERR_INFEASIBLE && fr.count == 0;
  ok(good, "D above the sum of the largest sizes: FUPERMOD_ERR_INFEASIBLE saying why");
  pr.D = 0;
  good = run_front("hepopta", &pr, &fr) == 0 && fr.count == 1 && fr.points[0].time == 0 && fr.points[0].energy == 0 &&
         fr.points[0].dist->parts[0].d == 0 && fr.points[0].dist->parts[1].d == 0;
  fupermod_front_free(&fr);
  good &= run_dist("heopta", &pr, x) == 0 && x->parts[0].d == 0 && x->parts[1].d == 0;
  ok(good, "D = 0: everyone idle, time and energy 0");
  fupermod_dist_free(x);
  fupermod_dist_free(x3);
  free_inst(&I);
}

int main(void) {
  test_descriptors();
  test_errors();
  test_interface_example();
  test_heopta_example();
  test_hepopta_example();
  test_thesis_table();
  test_aleph_counterexample();
  test_aleph_dominated();
  test_popta_counterexample();
  test_ties();
  test_bruteforce(10000, 10000);
  test_large(1000, 1000);
  return done_testing();
}
