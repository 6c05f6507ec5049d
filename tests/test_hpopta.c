/* hpopta's default mode (the pruned decision search) against dp: the same status, the same
 * makespan and the same distribution (dp's tie rule), on random instances with ties, holes,
 * granules and infeasible D, and on small copies of bench/partitioners' exact families. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "tests/tap.h"
#include "tests/oracle_time.h"
#include "partitioners/partitioners.h"

#define PMAX 64

static long irand(long lo, long hi) { return ot_int(lo, hi); }
static double unit(void) { return ot_unit(); }

typedef struct {
  int p;
  long D;
  fupermod_points fn[PMAX];
  const fupermod_points *f[PMAX];
} inst;

enum { RAMP, STEP, RANDOM, LINEAR, PLATEAU, INTEGER, NSHAPE };
static const char *shape_name[NSHAPE] = {"ramp", "step", "random", "linear", "plateau", "integer"};

/* Processor i: m sizes (multiples of g), a fraction hole of them absent, times of the shape;
 * "integer" times in [1, ties] give many ties; round > 0 rounds times to that many digits. */
static void make_fn(fupermod_points *f, int shape, long m, long g, double hole, long ties, int outliers, int round) {
  double c = 1 + 7 * unit(), r = (0.05 + 0.2 * unit()) * (double)m;
  int n = 0;
  f->pts = calloc((size_t)m, sizeof *f->pts);
  f->has_energy = 0;
  for (long j = 1; j <= m; j++) {
    fupermod_point pt = FUPERMOD_POINT_INIT;
    double x = (double)j, t;
    if (n > 0 && unit() < hole) continue;
    if (shape == STEP) t = 15.0 * floor(x / (0.1 * (double)m + 1)) + 30.0 * (1.0 - unit());
    else if (shape == RANDOM) t = 1.0 + 999.0 * unit();
    else if (shape == LINEAR) t = x / (10.0 * c);
    else if (shape == PLATEAU) t = x / (10.0 * c * (1.0 - 0.9 * exp(-x / (0.02 * (double)m + 1))));
    else if (shape == INTEGER) t = (double)irand(1, ties);
    else {
      double sp = 10.0 * c * fmin(1.0, 0.1 + 0.9 * x / r) * (1 + 0.05 * (2 * unit() - 1));
      if (unit() < 0.05) sp *= 0.3 + 0.4 * unit();
      t = x / sp;
    }
    if (round > 0) {
      double s = pow(10.0, round - 1 - floor(log10(t)));
      t = fmax(nearbyint(t * s) / s, 1e-3);
    }
    pt.d = j * g;
    pt.t = t;
    f->pts[n++] = pt;
  }
  if (outliers)
    for (int k = 0; k < 2; k++) f->pts[irand(0, n - 1)].t = 1e6;
  f->count = n;
}

static long sum_max(const inst *in) {
  long s = 0;
  for (int i = 0; i < in->p; i++) s += in->fn[i].pts[in->fn[i].count - 1].d;
  return s;
}

static void free_inst(inst *in) {
  for (int i = 0; i < in->p; i++) free(in->fn[i].pts);
}

typedef struct {
  long runs, feasible, infeasible, bad, drops;
} tally;

static double time_at(const fupermod_points *f, long d) {
  for (int k = 0; k < f->count; k++)
    if (f->pts[k].d == d) return f->pts[k].t;
  return 0;
}

/* Run dp and hpopta on in; count a mismatch of status, makespan or any part. */
static void compare(inst *in, tally *ty, const char *what) {
  fupermod_problem prob = {in->D, in->p, in->f, 0, 0, FUPERMOD_OBJ_TIME};
  fupermod_dist *a = fupermod_dist_alloc(in->D, in->p), *b = fupermod_dist_alloc(in->D, in->p);
  const fupermod_partitioner *dp = fupermod_partitioner_find("dp"), *hp = fupermod_partitioner_find("hpopta");
  int ra = dp->discrete(&prob, a), rb = hp->discrete(&prob, b), same = ra == rb;
  ty->runs++;
  if (ra == FUPERMOD_SUCCESS) {
    double target = fupermod_dist_time(a);
    long rem = in->D;
    ty->feasible++;
    same = same && fupermod_dist_time(a) == fupermod_dist_time(b);
    for (int i = 0; i < in->p; i++) same = same && a->parts[i].d == b->parts[i].d;
    /* does dp's witness lower its target below a bottleneck (the path that searches again)? */
    for (int i = in->p - 1; i > 0; i--) {
      long d = a->parts[i].d;
      rem -= d;
      if (d > 0 && rem > 0 && time_at(in->f[i], d) == target) {
        double rest = 0;
        for (int k = 0; k < i; k++)
          if (a->parts[k].d > 0 && time_at(in->f[k], a->parts[k].d) > rest) rest = time_at(in->f[k], a->parts[k].d);
        if (rest < target) ty->drops++;
        target = rest;
      }
    }
  } else {
    ty->infeasible++;
    same = same && ra == FUPERMOD_ERR_INFEASIBLE;
  }
  if (!same && ty->bad++ < 3) {
    diag("%s: p=%d D=%ld: dp rc=%d t=%.17g, hpopta rc=%d t=%.17g", what, in->p, in->D, ra,
         ra ? NAN : fupermod_dist_time(a), rb, rb ? NAN : fupermod_dist_time(b));
    for (int i = 0; i < in->p && ra == 0 && rb == 0; i++)
      if (a->parts[i].d != b->parts[i].d) diag("  processor %d: dp %ld, hpopta %ld", i, a->parts[i].d, b->parts[i].d);
  }
  fupermod_dist_free(a);
  fupermod_dist_free(b);
}

static void report(const tally *ty, const char *what) {
  ok(ty->bad == 0 && ty->feasible > 0 && ty->infeasible > 0, "%s: %ld runs (%ld feasible, %ld infeasible), %ld differ",
     what, ty->runs, ty->feasible, ty->infeasible, ty->bad);
}

/* Small instances: ties, holes, granules, every D from 0 to above the capacity. */
static void small_random(void) {
  tally ty = {0, 0, 0, 0, 0};
  for (int it = 0; it < 4000; it++) {
    inst in;
    long g = it % 4 == 3 ? 3 : 1, ties = irand(1, 6);
    int shape = (int)irand(0, NSHAPE - 1), round = unit() < 0.3 ? 1 : 0;
    double hole = unit() < 0.3 ? 0 : 0.6 * unit();
    in.p = (int)irand(1, 12);
    for (int i = 0; i < in.p; i++) {
      make_fn(&in.fn[i], shape, irand(1, 30), g, hole, ties, 0, round);
      in.f[i] = &in.fn[i];
    }
    in.D = irand(0, sum_max(&in) / g + 2) * g + (it % 50 == 7 ? 1 : 0);
    compare(&in, &ty, "small");
    free_inst(&in);
  }
  report(&ty, "hpopta = dp (distribution too) on small instances: ties, holes, granule 3, infeasible D");
  ok(ty.drops > 100, "the witness searched again below a bottleneck on %ld small instances", ty.drops);
}

/* Small copies of the exact families of bench/partitioners. */
static void families(void) {
  for (int shape = 0; shape < NSHAPE; shape++) {
    tally ty = {0, 0, 0, 0, 0};
    for (int it = 0; it < 60; it++) {
      inst in;
      long m = irand(20, 200), top;
      int outliers = shape == RAMP && it % 3 == 1, round = it % 4 == 3 ? 2 : 0;
      double hole = shape == RAMP && it % 3 == 2 ? 0.3 : 0;
      in.p = (int)irand(2, it < 50 ? 24 : PMAX);
      for (int i = 0; i < in.p; i++) {
        make_fn(&in.fn[i], shape, m, 1, hole, 4, outliers, round);
        in.f[i] = &in.fn[i];
      }
      top = sum_max(&in);
      in.D = it % 10 == 9 ? top + 1 : it % 10 == 8 ? top : irand(top / 10, top);
      compare(&in, &ty, shape_name[shape]);
      free_inst(&in);
    }
    {
      char what[160];
      snprintf(what, sizeof what, "hpopta = dp (distribution too) on the %s family (p <= %d, m <= 200)",
               shape_name[shape], PMAX);
      report(&ty, what);
    }
  }
}

int main(void) {
  small_random();
  families();
  return done_testing();
}
