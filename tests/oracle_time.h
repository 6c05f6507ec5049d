/* Test helpers for the discrete time partitioners: random instances and a brute-force oracle. */
#ifndef FUPERMOD_ORACLE_TIME_H
#define FUPERMOD_ORACLE_TIME_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "partitioners/partitioners.h"

#define OT_MAXP 16

/* xorshift64*: reproducible across platforms, unlike rand() */
static uint64_t ot_state = 88172645463325252ULL;
static inline uint64_t ot_next(void) {
  ot_state ^= ot_state >> 12;
  ot_state ^= ot_state << 25;
  ot_state ^= ot_state >> 27;
  return ot_state * 2685821657736338717ULL;
}
static inline long ot_int(long lo, long hi) { return lo + (long)(ot_next() % (uint64_t)(hi - lo + 1)); }
static inline double ot_unit(void) { return (double)(ot_next() >> 11) / 9007199254740992.0; }

/* An instance owns its functions; prob.f points into fn (entries alias when homogeneous). */
typedef struct {
  fupermod_problem prob;
  fupermod_points fn[OT_MAXP];
  const fupermod_points *f[OT_MAXP];
} ot_inst;

static inline void ot_set_fn(fupermod_points *f, int n, const long *d, const double *t, const double *e) {
  f->count = n;
  f->pts = calloc((size_t)n, sizeof *f->pts);
  f->has_energy = e != NULL;
  for (int k = 0; k < n; k++) {
    f->pts[k].d = d[k];
    f->pts[k].t = t[k];
    f->pts[k].reps = 1;
    f->pts[k].ci = 0;
    f->pts[k].e = e ? e[k] : -1.0;
    f->pts[k].e_ci = e ? 0 : -1.0;
  }
}

static inline void ot_free(ot_inst *in) {
  for (int i = 0; i < OT_MAXP; i++) {
    free(in->fn[i].pts);
    in->fn[i].pts = NULL;
    in->fn[i].count = 0;
  }
}

/* Random function: sizes a random subset of g*{1..maxsize} (holes), at least one point; times
 * integers in [1, tie_range] when tie_range > 0 (many ties), else reals in [1, 100); energies
 * integers in [1, 30] (exact sums) or reals when real_e. */
static inline void ot_random_fn(fupermod_points *f, long maxsize, double hole, long tie_range, int real_e, long g) {
  long d[256];
  double t[256], e[256];
  int n = 0;
  for (long x = 1; x <= maxsize && n < 256; x++)
    if (ot_unit() >= hole) {
      d[n] = x * g;
      t[n] = tie_range > 0 ? (double)ot_int(1, tie_range) : 1.0 + 99.0 * ot_unit();
      e[n] = real_e ? 0.5 + 50.0 * ot_unit() : (double)ot_int(1, 30);
      n++;
    }
  if (n == 0) {
    d[0] = ot_int(1, maxsize) * g;
    t[0] = tie_range > 0 ? (double)ot_int(1, tie_range) : 1.0 + 99.0 * ot_unit();
    e[0] = real_e ? 0.5 + 50.0 * ot_unit() : (double)ot_int(1, 30);
    n = 1;
  }
  ot_set_fn(f, n, d, t, e);
}

static inline long ot_sum_max(const fupermod_problem *pr) {
  long s = 0;
  for (int i = 0; i < pr->p; i++) s += pr->f[i]->pts[pr->f[i]->count - 1].d;
  return s;
}

/* Random instance with p in [1, pmax], sizes up to maxsize; homogeneous: one shared function.
 * D is drawn in [0, sum of largest sizes + 2] (so some are infeasible), sometimes below p. */
static inline void ot_random(ot_inst *in, int pmax, long maxsize, int homogeneous, long g) {
  double hole = ot_unit() < 0.3 ? 0.0 : 0.5 * ot_unit();
  long ties = ot_unit() < 0.5 ? ot_int(1, 6) : 0;
  int real_e = ot_unit() < 0.3;
  memset(in, 0, sizeof *in);
  in->prob.p = (int)ot_int(1, pmax);
  for (int i = 0; i < in->prob.p; i++) {
    if (homogeneous && i > 0) {
      in->f[i] = &in->fn[0];
      continue;
    }
    /* some one-point functions */
    ot_random_fn(&in->fn[i], ot_unit() < 0.1 ? 1 : ot_int(1, maxsize), ot_unit() < 0.1 ? 0.9 : hole, ties,
                 real_e, g);
    in->f[i] = &in->fn[i];
  }
  in->prob.f = in->f;
  in->prob.D = ot_unit() < 0.15 ? ot_int(0, in->prob.p) * g : ot_int(0, ot_sum_max(&in->prob) / g + 2) * g;
  if (ot_unit() < 0.05 && g > 1) in->prob.D += ot_int(1, g - 1); /* not a multiple of the granule */
}

static inline void ot_print(const fupermod_problem *pr, char *buf, size_t size) {
  size_t n = 0;
  n += (size_t)snprintf(buf + n, size - n, "D=%ld p=%d", pr->D, pr->p);
  for (int i = 0; i < pr->p && n < size; i++) {
    n += (size_t)snprintf(buf + n, size - n, " | f%d:", i);
    for (int k = 0; k < pr->f[i]->count && n < size; k++)
      n += (size_t)snprintf(buf + n, size - n, " %ld:%.17g/%.17g", pr->f[i]->pts[k].d, pr->f[i]->pts[k].t,
                            pr->f[i]->pts[k].e);
  }
}

/* Brute force over every choice (idle or a point) of every processor. */
typedef struct {
  int feasible;
  double tmin, emin, spread; /* spread: least (max - min) of the active processors' times */
  long combos;
} ot_brute;

static inline void ot_bruteforce(const fupermod_problem *pr, ot_brute *b) {
  int idx[OT_MAXP];
  const int p = pr->p;
  b->feasible = 0;
  b->tmin = b->emin = b->spread = INFINITY;
  b->combos = 0;
  for (int i = 0; i < p; i++) idx[i] = -1;
  for (;;) {
    long sum = 0;
    for (int i = 0; i < p; i++) sum += idx[i] < 0 ? 0 : pr->f[i]->pts[idx[i]].d;
    b->combos++;
    if (sum == pr->D) {
      double t = 0, e = 0, lo = INFINITY, hi = 0;
      for (int i = 0; i < p; i++)
        if (idx[i] >= 0) {
          const fupermod_point *pt = &pr->f[i]->pts[idx[i]];
          if (pt->t > t) t = pt->t;
          e += pt->e;
          if (pt->t < lo) lo = pt->t;
          if (pt->t > hi) hi = pt->t;
        }
      b->feasible = 1;
      if (t < b->tmin) b->tmin = t;
      if (e < b->emin) b->emin = e;
      if ((lo == INFINITY ? 0 : hi - lo) < b->spread) b->spread = lo == INFINITY ? 0 : hi - lo;
    }
    int i = 0;
    while (i < p && ++idx[i] >= pr->f[i]->count) idx[i++] = -1;
    if (i == p) break;
  }
}

#endif
