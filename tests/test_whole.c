/* fupermod_whole_partition: the whole-run objective (which processes work, and how much) against
 * brute force over every working set and every composition, on random small instances with
 * pairwise costs and non-monotone, partly infinite tables; the nested heuristic; bad arguments;
 * and a case where only one process should work. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "tests/tap.h"
#include "partitioners/whole.h"

#define PMAX 4
#define UMAX 8

static uint64_t rng_state = 0x5eed1234abcdULL;

static uint64_t splitmix64(void) {
  uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/* uniform in [0, 1) */
static double urand(void) { return (double)(splitmix64() >> 11) * 0x1.0p-53; }

typedef struct inst {
  int p;
  long units;
  double t[PMAX][UMAX + 1];     /* own time of process i at d units */
  double alpha[PMAX][PMAX];     /* symmetric pairwise costs: alpha + beta * d per other worker */
  double beta[PMAX][PMAX];
  long bad_calls;               /* cost calls outside i in S, 1 <= d <= units */
} inst;

static double inst_cost(int i, long d, uint64_t working, void *ctx) {
  inst *in = ctx;
  if (i < 0 || i >= in->p || !(working >> i & 1) || d < 1 || d > in->units || working >> in->p) {
    in->bad_calls++;
    return INFINITY;
  }
  double c = in->t[i][d];
  for (int j = 0; j < in->p; j++)
    if (j != i && (working >> j & 1)) c += in->alpha[i][j] + in->beta[i][j] * (double)d;
  return c;
}

/* integral: small integer tables and pairwise costs 0 or large, so that many sets tie on time */
static void inst_random(inst *in, double pinf, int integral) {
  memset(in, 0, sizeof *in);
  in->p = 1 + (int)(splitmix64() % PMAX);
  in->units = 1 + (long)(splitmix64() % UMAX);
  for (int i = 0; i < in->p; i++) {
    double speed = 0.2 + 3 * urand();
    for (long d = 1; d <= UMAX; d++) {
      /* roughly proportional to d, with noise that breaks monotonicity, and holes */
      in->t[i][d] = urand() < pinf ? INFINITY
                    : integral ? (double)(1 + splitmix64() % 6)
                               : speed * (double)d * (0.5 + urand()) + urand();
    }
  }
  for (int i = 0; i < in->p; i++)
    for (int j = i + 1; j < in->p; j++) {
      double a = urand(), b = 0.3 * urand();
      if (integral) a = b = 0;
      if (urand() < 0.3) a += 20 + 30 * urand(); /* an expensive pair: idling one of them pays */
      in->alpha[i][j] = in->alpha[j][i] = a;
      in->beta[i][j] = in->beta[j][i] = b;
    }
}

static int popcount64(uint64_t m) {
  int n = 0;
  for (; m; m &= m - 1) n++;
  return n;
}

/* every composition of `left` units over members j..k-1 (each >= 1): the smallest max cost */
static double brute_rec(inst *in, const int *mem, int k, int j, long left, uint64_t mask, double sofar) {
  if (j == k - 1) {
    double c = inst_cost(mem[j], left, mask, in);
    return c > sofar ? c : sofar;
  }
  double best = INFINITY;
  for (long x = 1; x <= left - (k - 1 - j); x++) {
    double c = inst_cost(mem[j], x, mask, in);
    double v = brute_rec(in, mem, k, j + 1, left - x, mask, c > sofar ? c : sofar);
    if (v < best) best = v;
  }
  return best;
}

/* the optimum by brute force, and its working set by the tie rule (time, fewer processes, mask) */
static double brute(inst *in, uint64_t *bmask) {
  double bt = INFINITY;
  *bmask = 0;
  for (uint64_t mask = 1; mask < (1ULL << in->p); mask++) {
    int mem[PMAX], k = 0;
    for (int i = 0; i < in->p; i++)
      if (mask >> i & 1) mem[k++] = i;
    if (k > in->units) continue;
    double t = brute_rec(in, mem, k, 0, in->units, mask, -INFINITY);
    if (!(t < INFINITY)) continue;
    if (t < bt || (t == bt && (popcount64(mask) < popcount64(*bmask) ||
                               (popcount64(mask) == popcount64(*bmask) && mask < *bmask)))) {
      bt = t;
      *bmask = mask;
    }
  }
  return bt;
}

/* how many working sets reach time t (brute force) */
static int ties_at(inst *in, double t) {
  int n = 0;
  for (uint64_t mask = 1; mask < (1ULL << in->p); mask++) {
    int mem[PMAX], k = 0;
    for (int i = 0; i < in->p; i++)
      if (mask >> i & 1) mem[k++] = i;
    if (k <= in->units && brute_rec(in, mem, k, 0, in->units, mask, -INFINITY) == t) n++;
  }
  return n;
}

/* the shares d are valid for working set `working` and give `time`: 1 when so */
static int realises(inst *in, const long *d, uint64_t working, double time) {
  long sum = 0;
  double mx = -INFINITY;
  if (working == 0 || working >> in->p) return 0;
  for (int i = 0; i < in->p; i++) {
    int on = working >> i & 1;
    if (on ? d[i] < 1 : d[i] != 0) return 0;
    sum += d[i];
    if (on) {
      double c = inst_cost(i, d[i], working, in);
      if (c > mx) mx = c;
    }
  }
  return sum == in->units && fabs(mx - time) <= 1e-12 * fmax(1.0, fabs(time));
}

static int close_rel(double a, double b) { return fabs(a - b) <= 1e-12 * fmax(1.0, fabs(b)); }

/* process i costs (i + 1) d, plus 0.01 (1 + d) per other worker */
static double big_cost(int i, long d, uint64_t working, void *ctx) {
  (void)ctx;
  return (double)(1 + i % 5) * (double)d + 0.01 * (double)(popcount64(working) - 1) * (double)(1 + d);
}

static double idle_cost(int i, long d, uint64_t working, void *ctx) {
  double c = (i == 0 ? 1.0 : 10.0) * (double)d;
  (void)ctx;
  for (int j = 0; j < 3; j++)
    if (j != i && (working >> j & 1)) c += 1000; /* processes 1 and 2 are expensive to everybody */
  return c;
}

int main(void) {
  const int N = 3000;
  long d[64];
  fupermod_whole_result res;

  /* 1. exact mode against brute force */
  {
    int bad = 0, badmask = 0, badmode = 0, badinf = 0;
    long idle = 0, feasible = 0, infeasible = 0, calls_bad = 0, tied = 0;
    for (int it = 0; it < N; it++) {
      inst in;
      uint64_t bmask;
      inst_random(&in, it % 40 == 0 ? 1.0 : 0.05, it % 3 == 1); /* every 40th: every entry infinite */
      double bt = brute(&in, &bmask);
      memset(&res, 0, sizeof res);
      int rc = fupermod_whole_partition(in.p, in.units, inst_cost, &in, 0, d, &res);
      calls_bad += in.bad_calls;
      if (res.mode != FUPERMOD_WHOLE_EXACT || res.sets != (1L << in.p) - 1) badmode++;
      if (!(bt < INFINITY)) {
        infeasible++;
        if (rc != FUPERMOD_ERR_INFEASIBLE) {
          if (badinf++ < 5) diag("instance %d: brute force infeasible, partitioner rc %d", it, rc);
        }
        continue;
      }
      feasible++;
      if (rc != FUPERMOD_SUCCESS || !close_rel(res.time, bt) || !realises(&in, d, res.working, res.time)) {
        if (bad++ < 5)
          diag("instance %d (p=%d, units=%ld): rc %d (%s), time %.17g, brute force %.17g", it, in.p, in.units, rc,
               rc ? fupermod_error_message() : "", res.time, bt);
        continue;
      }
      if (res.working != bmask && badmask++ < 5)
        diag("instance %d: working set %#llx, brute force's by the tie rule %#llx", it,
             (unsigned long long)res.working, (unsigned long long)bmask);
      if (popcount64(res.working) < in.p) idle++;
      if (ties_at(&in, bt) > 1) tied++;
    }
    ok(bad == 0, "exact: time = brute force's optimum and d realises it on %ld feasible instances of %d", feasible, N);
    ok(badmask == 0 && tied > 100,
       "exact: the working set is brute force's by the tie rule (time, fewer processes, mask; %ld instances with "
       "several optimal sets)", tied);
    ok(badmode == 0, "exact: mode EXACT, sets = 2^p - 1 on every instance");
    ok(infeasible > 0 && badinf == 0, "infeasible instances give FUPERMOD_ERR_INFEASIBLE (%ld of them)", infeasible);
    ok(calls_bad == 0, "the cost is asked only for i in the working set and 1 <= d <= units (%ld bad calls)",
       calls_bad);
    ok(feasible >= 1000, "at least 1000 feasible instances (%ld)", feasible);
    ok(idle > 0 && idle < feasible, "the optimum leaves a process idle on some instances, not all (%ld of %ld)", idle,
       feasible);
  }

  /* 2. nested mode (max_work = 1): feasible, never better than the exact optimum */
  {
    int bad = 0, badmode = 0;
    long n = 0, worse = 0;
    for (int it = 0; it < 1000; it++) {
      inst in;
      uint64_t bmask;
      fupermod_whole_result ex;
      long dex[PMAX];
      inst_random(&in, 0.0, it % 3 == 1); /* finite costs: every set with at most `units` processes is feasible */
      double bt = brute(&in, &bmask);
      int rce = fupermod_whole_partition(in.p, in.units, inst_cost, &in, 0, dex, &ex);
      int rc = fupermod_whole_partition(in.p, in.units, inst_cost, &in, 1, d, &res);
      n++;
      if (res.mode != FUPERMOD_WHOLE_NESTED || res.sets != in.p) badmode++;
      if (rce != FUPERMOD_SUCCESS || rc != FUPERMOD_SUCCESS || !close_rel(ex.time, bt) || res.time < bt ||
          !realises(&in, d, res.working, res.time)) {
        if (bad++ < 5)
          diag("nested instance %d: rc %d/%d, time %.17g, exact %.17g, brute force %.17g", it, rce, rc, res.time,
               ex.time, bt);
        continue;
      }
      if (res.time > bt) worse++;
    }
    ok(bad == 0, "nested: feasible, realised by d, time >= the exact optimum on %ld instances (%ld worse)", n,
       worse);
    ok(badmode == 0, "nested: mode NESTED, sets = p on every instance");
  }

  /* nested on 63 processes */
  {
    memset(&res, 0, sizeof res);
    int rc = fupermod_whole_partition(63, 200, big_cost, NULL, 0, d, &res);
    long sum = 0;
    int valid = rc == FUPERMOD_SUCCESS;
    for (int i = 0; valid && i < 63; i++) {
      sum += d[i];
      if ((res.working >> i & 1) ? d[i] < 1 : d[i] != 0) valid = 0;
    }
    ok(valid && sum == 200 && res.mode == FUPERMOD_WHOLE_NESTED && res.sets == 63 && res.time < INFINITY,
       "p = 63, 200 units: nested over 63 sets, %d processes work, time %g", popcount64(res.working), res.time);
  }

  /* 3. bad arguments */
  {
    inst in;
    inst_random(&in, 0.0, 0);
    struct {
      int p;
      long units;
      fupermod_whole_cost cost;
      long *d;
      double max_work;
      const char *name;
    } cases[] = {
      {0, 4, inst_cost, d, 0, "p = 0"},       {64, 4, inst_cost, d, 0, "p = 64"},
      {2, 0, inst_cost, d, 0, "units = 0"},   {2, 4, NULL, d, 0, "cost"},
      {2, 4, inst_cost, NULL, 0, "d is"},     {2, 4, inst_cost, d, -1, "max_work"},
      {2, 4, inst_cost, d, NAN, "max_work"},
    };
    in.p = 2;
    in.units = 4;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
      int rc = fupermod_whole_partition(cases[c].p, cases[c].units, cases[c].cost, &in, cases[c].max_work,
                                        cases[c].d, &res);
      ok(rc == FUPERMOD_ERR_USAGE && strstr(fupermod_error_message(), cases[c].name),
         "bad argument: usage error naming it (%s)", fupermod_error_message());
    }
  }

  /* 4. idling is the answer */
  {
    memset(&res, 0, sizeof res);
    int rc = fupermod_whole_partition(3, 6, idle_cost, NULL, 0, d, &res);
    ok(rc == FUPERMOD_SUCCESS && res.working == 1 && d[0] == 6 && d[1] == 0 && d[2] == 0 && res.time == 6 &&
           res.mode == FUPERMOD_WHOLE_EXACT && res.sets == 7,
       "p = 3, one fast process, two expensive to everybody: only process 0 works (working %#llx, time %g)",
       (unsigned long long)res.working, res.time);
  }
  return done_testing();
}
