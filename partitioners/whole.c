/* fupermod_whole_partition: the whole-run objective, min over working sets S and shares d of
 * max_{i in S} cost(i, d_i, S) (partitioners/whole.h).
 *
 * For one set S of k processes (k <= units, since each works at least one unit) the cost table
 * c[j][x] = cost(member j, x, S), x = 1..units-k+1, is read once, then a min-max dynamic
 * programme over the units gives the optimum for S exactly, whatever the costs (monotone or not):
 *   f[0][u] = c[0][u],  f[j][u] = min_{x = 1..u-j} max(f[j-1][u-x], c[j][x]),
 * with u limited so that every later member keeps at least one unit. O(k units^2) per set.
 * Exact mode runs it on every non-empty set; NESTED on the p prefixes of one ordering.
 * A NaN cost counts as INFINITY (never chosen). Within a set the smallest share reaching the
 * minimum is kept at each step, so the shares are deterministic. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "partitioners/whole.h"

#define DEFAULT_MAX_WORK 2e9

/* scratch for one set, sized for the largest set once */
typedef struct whole_work {
  int p;
  long units;
  double *c;   /* p x (units + 1): the cost table of the set's members */
  double *f;   /* p x (units + 1): f[j][u] */
  long *arg;   /* p x (units + 1): the share of member j at f[j][u] */
  int *member; /* the set's members, ascending index */
  long *share; /* p: the shares of the set just solved */
} whole_work;

static double whole_cost_at(fupermod_whole_cost cost, void *ctx, int i, long d, uint64_t working) {
  double v = cost(i, d, working, ctx);
  return isnan(v) ? INFINITY : v;
}

/* The optimum over shares for the set `mask`; its shares in w->share (0 outside the set).
 * INFINITY when no finite choice exists (or the set has more members than units). */
static double whole_solve_set(whole_work *w, uint64_t mask, fupermod_whole_cost cost, void *ctx) {
  const long units = w->units, stride = units + 1;
  int k = 0;
  for (int i = 0; i < w->p; i++)
    if (mask >> i & 1) w->member[k++] = i;
  if (k > units) return INFINITY;
  const long R = units - k + 1; /* the largest share any member can take */
  for (int j = 0; j < k; j++)
    for (long x = 1; x <= R; x++) w->c[j * stride + x] = whole_cost_at(cost, ctx, w->member[j], x, mask);

  /* member 0 alone takes u, for u = 1..R */
  for (long u = 1; u <= R; u++) {
    w->f[u] = w->c[u];
    w->arg[u] = u;
  }
  for (int j = 1; j < k; j++) {
    const double *prev = w->f + (j - 1) * stride, *cj = w->c + j * stride;
    double *fj = w->f + j * stride;
    long *aj = w->arg + j * stride;
    /* members 0..j hold u >= j+1 units; members j+1..k-1 still need one each */
    long ulo = j + 1, uhi = units - (k - 1 - j);
    if (j == k - 1) ulo = units;
    for (long u = ulo; u <= uhi; u++) {
      double best = INFINITY;
      long barg = 1;
      for (long x = 1; x <= u - j; x++) {
        double v = prev[u - x];
        if (cj[x] > v) v = cj[x];
        if (v < best) {
          best = v;
          barg = x;
        }
      }
      fj[u] = best;
      aj[u] = barg;
    }
  }
  double t = w->f[(k - 1) * stride + units];
  if (!(t < INFINITY)) return INFINITY;
  for (int i = 0; i < w->p; i++) w->share[i] = 0;
  long u = units;
  for (int j = k - 1; j >= 1; j--) {
    long x = w->arg[j * stride + u];
    w->share[w->member[j]] = x;
    u -= x;
  }
  w->share[w->member[0]] = u;
  return t;
}

static int popcount64(uint64_t m) {
  int n = 0;
  for (; m; m &= m - 1) n++;
  return n;
}

/* the tie rule: smaller time, then fewer processes, then the lower mask */
static int whole_better(double t, uint64_t mask, double bt, uint64_t bmask, int have) {
  if (!have) return 1;
  if (t != bt) return t < bt;
  int n = popcount64(mask), bn = popcount64(bmask);
  if (n != bn) return n < bn;
  return mask < bmask;
}

/* the best set so far */
typedef struct whole_best {
  double t;
  uint64_t mask;
  int have;
  long sets;
  long *share;
} whole_best;

/* Solve the set mask and keep it when it beats the best so far. */
static void try_set(whole_work *w, uint64_t mask, fupermod_whole_cost cost, void *ctx, whole_best *b) {
  double t = whole_solve_set(w, mask, cost, ctx);
  b->sets++;
  if (t < INFINITY && whole_better(t, mask, b->t, b->mask, b->have)) {
    b->t = t;
    b->mask = mask;
    b->have = 1;
    memcpy(b->share, w->share, (size_t)w->p * sizeof *b->share);
  }
}

int fupermod_whole_partition(int p, long units, fupermod_whole_cost cost, void *ctx, double max_work,
                             long *d, fupermod_whole_result *res) {
  if (p < 1 || p > 63) return fupermod_error(FUPERMOD_ERR_USAGE, "whole: p = %d, must be in 1..63", p);
  if (units < 1) return fupermod_error(FUPERMOD_ERR_USAGE, "whole: units = %ld, must be >= 1", units);
  if (!cost) return fupermod_error(FUPERMOD_ERR_USAGE, "whole: cost is NULL");
  if (!d) return fupermod_error(FUPERMOD_ERR_USAGE, "whole: d is NULL");
  if (isnan(max_work) || max_work < 0)
    return fupermod_error(FUPERMOD_ERR_USAGE, "whole: max_work = %g, must be >= 0 (0: the default)", max_work);
  if (max_work == 0) max_work = DEFAULT_MAX_WORK;

  const uint64_t all = ((uint64_t)1 << p) - 1;
  const double work = ldexp(1.0, p) * p * (double)units * (double)units;
  const int mode = work <= max_work ? FUPERMOD_WHOLE_EXACT : FUPERMOD_WHOLE_NESTED;

  /* scratch: three p x (units + 1) tables */
  whole_work w = {.p = p, .units = units};
  if ((uint64_t)units + 1 > SIZE_MAX / sizeof(double) / (size_t)p)
    return fupermod_error(FUPERMOD_ERR_NOMEM, "whole: units = %ld is too large for p = %d", units, p);
  const size_t cells = (size_t)p * (size_t)(units + 1);
  w.c = malloc(cells * sizeof *w.c);
  w.f = malloc(cells * sizeof *w.f);
  w.arg = malloc(cells * sizeof *w.arg);
  w.member = malloc((size_t)p * sizeof *w.member);
  w.share = malloc((size_t)p * sizeof *w.share);
  long *bshare = malloc((size_t)p * sizeof *bshare);
  int rc = FUPERMOD_SUCCESS;
  if (!w.c || !w.f || !w.arg || !w.member || !w.share || !bshare) {
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "whole: no memory for p = %d, units = %ld", p, units);
    goto out;
  }

  whole_best b = {INFINITY, 0, 0, 0, bshare};
  if (mode == FUPERMOD_WHOLE_EXACT) {
    for (uint64_t mask = 1; mask <= all; mask++) {
      try_set(&w, mask, cost, ctx, &b);
    }
  } else {
    /* processes by their cost at an even share with everybody working, ascending (index on ties) */
    int order[63];
    double key[63];
    const long even = (units + p - 1) / p;
    for (int i = 0; i < p; i++) {
      double v = whole_cost_at(cost, ctx, i, even, all);
      int j = i;
      for (; j > 0 && key[j - 1] > v; j--) {
        key[j] = key[j - 1];
        order[j] = order[j - 1];
      }
      key[j] = v;
      order[j] = i;
    }
    uint64_t mask = 0;
    for (int k = 1; k <= p; k++) {
      mask |= (uint64_t)1 << order[k - 1];
      try_set(&w, mask, cost, ctx, &b);
    }
  }

  if (res) {
    res->time = b.t;
    res->working = b.mask;
    res->mode = mode;
    res->sets = b.sets;
  }
  if (!b.have) {
    for (int i = 0; i < p; i++) d[i] = 0;
    rc = fupermod_error(FUPERMOD_ERR_INFEASIBLE, "whole: every choice of %ld units over %s is infinite", units,
                        mode == FUPERMOD_WHOLE_EXACT ? "the working sets" : "the nested working sets");
    goto out;
  }
  memcpy(d, bshare, (size_t)p * sizeof *d);
out:
  free(w.c);
  free(w.f);
  free(w.arg);
  free(w.member);
  free(w.share);
  free(bshare);
  return rc;
}
