/* balanced: the thesis' "straightforward load balancing" baseline (Khaleghzadeh, 1.6): the
 * distribution whose active processors have the smallest difference between their times, on the
 * measured functions (idle processors allowed, and not counted in the difference).
 *
 * What it does, exactly:
 *  1. Windows [L, U] of measured times are tried, L and U among the distinct times of usable
 *     points (size <= D). A window is feasible when D is a sum over the processors of 0 or a size
 *     whose time lies in [L, U] (a bitset subset-sum, one pass per processor).
 *  2. For L = the smallest time the least feasible U is found by bisection; then L rises through
 *     the distinct times while U only moves up (two pointers: the least feasible U never falls
 *     as L rises). The window with the smallest U - L wins; on equal widths the first one (the
 *     smaller L, hence the smaller U). A width of 0 stops the sweep.
 *  3. The distribution is the min-max DP witness restricted to the chosen window (dp's tie
 *     rule), so its largest time is U and its active processors' times lie in [L, U].
 * The sweep is exact while it runs to the end. It stops early, keeping the best window so far,
 * after about 2^28 bitset word operations, so on large problems the spread may not be minimal;
 * the result is always a valid distribution, and FUPERMOD_ERR_INFEASIBLE is returned exactly when
 * no composition of D exists. In the thesis' n = 31 example it gives (2,11,9,9), all at time 13. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "partitioners/time_common.h"

#define BUDGET (1L << 28)

static int balanced_discrete(const fupermod_problem *prob, fupermod_dist *out);

const fupermod_partitioner fupermod_partitioner_balanced = {
  .name = "balanced",
  .description = "load balancing on the measured functions: least spread of the active processors' times",
  .kind = FUPERMOD_PART_DISCRETE,
  .model_type = NULL,
  .homogeneous = 0,
  .needs_energy = 0,
  .needs_static_power = 0,
  .continuous = NULL,
  .discrete = balanced_discrete,
  .pareto = NULL,
};

typedef struct {
  int p;
  long D;
  size_t words;
  int *off;      /* per processor, its usable points by (time, size) */
  long *x;
  double *t;
  uint64_t *a, *b;
  long ops;
} win_t;

static int lower(const double *t, int lo, int hi, double v) { /* first index with t >= v */
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (t[mid] < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

static int upper(const double *t, int lo, int hi, double v) { /* first index with t > v */
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (t[mid] <= v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* dst |= src << s over the words of the bitset */
static void shift_or(uint64_t *dst, const uint64_t *src, size_t words, long s) {
  const size_t ws = (size_t)(s >> 6);
  const int bs = (int)(s & 63);
  if (ws >= words) return;
  if (bs == 0) {
    for (size_t w = ws; w < words; w++) dst[w] |= src[w - ws];
  } else {
    dst[ws] |= src[0] << bs;
    for (size_t w = ws + 1; w < words; w++) dst[w] |= src[w - ws] << bs | src[w - ws - 1] >> (64 - bs);
  }
}

/* Can D be composed with every processor idle or at a point whose time is in [lo, hi]? */
static int feasible(win_t *s, double lo, double hi) {
  uint64_t *cur = s->a, *nxt = s->b, *tmp;
  memset(cur, 0, s->words * sizeof *cur);
  cur[0] = 1;
  for (int i = 0; i < s->p; i++) {
    int k0 = lower(s->t, s->off[i], s->off[i + 1], lo), k1 = upper(s->t, k0, s->off[i + 1], hi);
    memcpy(nxt, cur, s->words * sizeof *cur);
    for (int k = k0; k < k1; k++) shift_or(nxt, cur, s->words, s->x[k]);
    s->ops += (long)(k1 - k0 + 1) * (long)s->words;
    tmp = cur;
    cur = nxt;
    nxt = tmp;
  }
  return (int)(cur[s->D >> 6] >> (s->D & 63) & 1);
}

static int cmp_double(const void *a, const void *b) {
  double u = *(const double *)a, v = *(const double *)b;
  return u < v ? -1 : u > v;
}

static int balanced_discrete(const fupermod_problem *prob, fupermod_dist *out) {
  fupermod_dtime dt;
  win_t s;
  int *ord = NULL, K = 0, n = 0, rc;
  double *tv = NULL, value;
  long *d = NULL;
  if ((rc = fupermod_dtime_init(prob, &fupermod_partitioner_balanced, out, &dt)) != FUPERMOD_SUCCESS) return rc;
  memset(&s, 0, sizeof s);
  s.p = dt.p;
  s.D = dt.D;
  s.words = (size_t)(dt.D >> 6) + 1;
  s.off = malloc((size_t)(dt.p + 1) * sizeof *s.off);
  s.x = malloc((size_t)(dt.off[dt.p] + 1) * sizeof *s.x);
  s.t = malloc((size_t)(dt.off[dt.p] + 1) * sizeof *s.t);
  tv = malloc((size_t)(dt.off[dt.p] + 1) * sizeof *tv);
  ord = malloc((size_t)(dt.off[dt.p] + 1) * sizeof *ord);
  d = calloc((size_t)dt.p, sizeof *d);
  if ((rc = fupermod_dtime_table_check("balanced", 2, (long)s.words)) != FUPERMOD_SUCCESS) goto done;
  s.a = malloc(s.words * sizeof *s.a);
  s.b = malloc(s.words * sizeof *s.b);
  if (!s.off || !s.x || !s.t || !tv || !ord || !d || !s.a || !s.b) {
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "balanced: out of memory");
    goto done;
  }
  if (dt.D == 0) { /* everyone idle */
    rc = fupermod_dtime_finish(prob, &dt, d, FUPERMOD_OBJ_TIME, 0.0, out);
    goto done;
  }
  for (int i = 0; i < dt.p; i++) {
    int o = dt.off[i], m = dt.off[i + 1] - o;
    if ((rc = fupermod_dtime_order(dt.x + o, dt.t + o, m, ord)) != FUPERMOD_SUCCESS) goto done;
    s.off[i] = n;
    for (int k = 0; k < m; k++)
      if (dt.x[o + ord[k]] <= dt.D) {
        s.x[n] = dt.x[o + ord[k]];
        s.t[n] = dt.t[o + ord[k]];
        tv[n] = s.t[n];
        n++;
      }
  }
  s.off[dt.p] = n;
  qsort(tv, (size_t)n, sizeof *tv, cmp_double);
  for (int k = 0; k < n; k++)
    if (K == 0 || tv[k] != tv[K - 1]) tv[K++] = tv[k];

  if (K == 0 || !feasible(&s, tv[0], tv[K - 1])) {
    rc = fupermod_dtime_infeasible(prob);
    goto done;
  }
  {
    int lo = 0, hi = K - 1, ba, bb, b;
    while (lo < hi) { /* least feasible U for L = tv[0] */
      int mid = lo + (hi - lo) / 2;
      if (feasible(&s, tv[0], tv[mid])) hi = mid;
      else lo = mid + 1;
    }
    ba = 0;
    bb = b = lo;
    for (int a = 1; a < K && tv[bb] > tv[ba] && s.ops < BUDGET; a++) {
      if (b < a) b = a;
      while (b < K && s.ops < BUDGET && !feasible(&s, tv[a], tv[b])) b++;
      if (b == K || s.ops >= BUDGET) break;
      if (tv[b] - tv[a] < tv[bb] - tv[ba]) {
        ba = a;
        bb = b;
      }
    }
    rc = fupermod_dtime_dp(&dt, FUPERMOD_OBJ_TIME, tv[ba], tv[bb], d, &value);
    if (rc == FUPERMOD_SUCCESS && !isfinite(value))
      rc = fupermod_error(FUPERMOD_ERR_NUMERIC, "balanced: the chosen window admits no distribution (internal error)");
  }
  if (rc == FUPERMOD_SUCCESS) rc = fupermod_dtime_finish(prob, &dt, d, FUPERMOD_OBJ_TIME, value, out);
done:
  free(s.off);
  free(s.x);
  free(s.t);
  free(s.a);
  free(s.b);
  free(tv);
  free(ord);
  free(d);
  fupermod_dtime_free(&dt);
  return rc;
}
