/* HiSCALE for energy (docs/hierarchical.md "HiSCALE"): the Lagrangian relaxation of
 * min sum e_i(x_i), sum x_i = D, solved on two levels.
 *
 * For a multiplier lambda every device minimises e_i(x) - lambda x, which only its lower convex
 * hull decides; a node's hull is the Minkowski sum of its devices' hulls (their edges merged by
 * slope). Between nodes, the least lambda whose largest minimisers reach D is found by bisection;
 * then each node splits its share along the same edges. At most one device ends inside an edge;
 * it takes that size if it was measured, else its units are placed by the repair below (one or
 * two moves, an exact dp over the cheapest moves, or the minimum-makespan distribution). The
 * dual value lambda D + sum_i min_x (e_i(x) - lambda x) bounds the exact optimum from below. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "partitioners/hier_scale_impl.h"

/* Lower hull of (0, 0) and the points with t <= budget: vertices as point indices (-1: the origin),
 * edge slopes strictly increasing as computed. Returns the vertex count. */
static int device_hull(const fupermod_hscale_fn *f, double budget, int *v, double *slope) {
  int n = 1;
  v[0] = -1;
  for (int j = 0; j < f->count; j++) {
    if (!(f->t[j] <= budget)) continue;
    for (;;) {
      const long xa = v[n - 1] < 0 ? 0 : f->x[v[n - 1]];
      const double ea = v[n - 1] < 0 ? 0.0 : f->e[v[n - 1]];
      const double s = (f->e[j] - ea) / (double)(f->x[j] - xa);
      if (n >= 2 && slope[n - 2] >= s) {
        n--;
        continue;
      }
      slope[n - 1] = s;
      v[n++] = j;
      break;
    }
  }
  return n;
}

typedef struct {
  int *v;
  double *slope;
  int *nv;
  int cap;
} hulls_t;

static int hulls_make(const fupermod_hs_node *nd, double budget, hulls_t *h) {
  const int need = nd->p * (nd->mcap + 1);
  if (need > h->cap) {
    free(h->v);
    free(h->slope);
    free(h->nv);
    h->cap = need;
    h->v = malloc((size_t)need * sizeof *h->v);
    h->slope = malloc((size_t)need * sizeof *h->slope);
    h->nv = malloc((size_t)nd->pcap * sizeof *h->nv);
    if (!h->v || !h->slope || !h->nv) {
      h->cap = 0;
      return fupermod_error(FUPERMOD_ERR_NOMEM, "hiscale: out of memory for hulls");
    }
  }
  for (int i = 0; i < nd->p; i++)
    h->nv[i] = device_hull(&nd->fn[i], budget, h->v + (size_t)i * (nd->mcap + 1), h->slope + (size_t)i * (nd->mcap + 1));
  return FUPERMOD_SUCCESS;
}

static void hulls_free(hulls_t *h) {
  free(h->v);
  free(h->slope);
  free(h->nv);
  memset(h, 0, sizeof *h);
}

static inline long hx(const fupermod_hs_node *nd, int i, int j) { return j < 0 ? 0 : nd->fn[i].x[j]; }

/* The node's edges merged by slope (device order on ties): slope[e], cumulative size cw[e + 1]. */
static long node_edges(const fupermod_hs_node *nd, const hulls_t *h, double *slope, long *cw) {
  int ptr[64] = {0};
  long n = 0;
  const int stride = nd->mcap + 1;
  cw[0] = 0;
  for (;;) {
    int best = -1;
    double bs = INFINITY;
    for (int i = 0; i < nd->p; i++)
      if (ptr[i] < h->nv[i] - 1 && (best < 0 || h->slope[(size_t)i * stride + ptr[i]] < bs)) {
        best = i;
        bs = h->slope[(size_t)i * stride + ptr[i]];
      }
    if (best < 0) break;
    {
      const int *v = h->v + (size_t)best * stride;
      slope[n] = bs;
      cw[n + 1] = cw[n] + hx(nd, best, v[ptr[best] + 1]) - hx(nd, best, v[ptr[best]]);
      n++;
      ptr[best]++;
    }
  }
  return n;
}

/* edges with slope < lambda (strict) or <= lambda */
static long count_below(const double *s, long n, double lambda, int strict) {
  long lo = 0, hi = n;
  while (lo < hi) {
    long mid = lo + (hi - lo) / 2;
    if (strict ? s[mid] < lambda : s[mid] <= lambda) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

static long sum_hi(int q, double *const *s, const long *ne, long *const *cw, double lambda) {
  long sum = 0;
#pragma omp parallel for reduction(+ : sum) schedule(static) if (q >= 1024)
  for (int k = 0; k < q; k++) sum += cw[k][count_below(s[k], ne[k], lambda, 0)];
  return sum;
}

/* Split of node k's share w at lambda: devices at their lower minimiser, tied devices raised in
 * order. *resid: units of a device left inside an edge that no measured size takes. */
static void split_energy(const fupermod_hs_node *nd, const hulls_t *h, long w, double lambda, double budget, long *x,
                         long *resid) {
  const int stride = nd->mcap + 1;
  long rho = w;
  long lo[64], hi[64];
  *resid = 0;
  for (int i = 0; i < nd->p; i++) {
    const double *s = h->slope + (size_t)i * stride;
    const int *v = h->v + (size_t)i * stride;
    const long ne = h->nv[i] - 1;
    lo[i] = hx(nd, i, v[count_below(s, ne, lambda, 1)]);
    hi[i] = hx(nd, i, v[count_below(s, ne, lambda, 0)]);
    x[i] = lo[i];
    rho -= lo[i];
  }
  for (int i = 0; i < nd->p && rho > 0; i++) {
    long take = hi[i] - lo[i] < rho ? hi[i] - lo[i] : rho;
    if (take == 0) continue;
    if (take == hi[i] - lo[i] || (lo[i] + take <= nd->xmax[i] && nd->idx[i][lo[i] + take] >= 0 &&
                                   nd->fn[i].t[nd->idx[i][lo[i] + take]] <= budget)) {
      x[i] += take;
      rho -= take;
    } else {
      *resid = rho;
      rho = 0;
    }
  }
}

static double dual_term(const fupermod_hscale_fn *f, double budget, double lambda) {
  double m = 0.0;
  for (int j = 0; j < f->count; j++)
    if (f->t[j] <= budget && f->e[j] - lambda * (double)f->x[j] < m) m = f->e[j] - lambda * (double)f->x[j];
  return m;
}

/* energy and max time of one node's shares x (measured sizes) */
static void node_value(const fupermod_hs_node *nd, const long *x, double *esum, double *tmax) {
  for (int i = 0; i < nd->p; i++)
    if (x[i] > 0) {
      const int j = nd->idx[i][x[i]];
      *esum += nd->fn[i].e[j];
      if (nd->fn[i].t[j] > *tmax) *tmax = nd->fn[i].t[j];
    }
}

/* max device time and the energy of the shares (a pass over the functions) */
static int shares_value(MPI_Comm comm, const fupermod_hscale_problem *prob, int k0, int k1, const long *first,
                        const long *share, double *tmax_out, double *esum_out) {
  double tmax = 0.0, esum = 0.0;
  int rc = FUPERMOD_SUCCESS;
  fupermod_hs_fail fail4 = {FUPERMOD_SUCCESS, ""};
#pragma omp parallel
  {
    fupermod_hs_node nd;
    int trc = FUPERMOD_SUCCESS;
    memset(&nd, 0, sizeof nd);
#pragma omp for schedule(dynamic, 8) reduction(max : tmax) reduction(+ : esum)
    for (int k = k0; k < k1; k++) {
      if (trc != FUPERMOD_SUCCESS || (trc = fupermod_hs_node_load(prob, k, 1, &nd)) != FUPERMOD_SUCCESS) continue;
      node_value(&nd, share + first[k], &esum, &tmax);
    }
#pragma omp critical
    fupermod_hs_fail_keep(&fail4, trc);
    fupermod_hs_node_free(&nd);
  }
  if ((rc = fupermod_hs_agree(comm, fupermod_hs_fail_take(&fail4, rc))) != FUPERMOD_SUCCESS) return rc;
  if (comm != MPI_COMM_NULL) {
    MPI_Allreduce(MPI_IN_PLACE, &tmax, 1, MPI_DOUBLE, MPI_MAX, comm);
    MPI_Allreduce(MPI_IN_PLACE, &esum, 1, MPI_DOUBLE, MPI_SUM, comm);
  }
  *tmax_out = tmax;
  *esum_out = esum;
  return FUPERMOD_SUCCESS;
}

/* ---------------------------------------------------------------- the last units
 *
 * r units are left over: the shares x sum to D - r, and every device sits at a minimiser of
 * e_i(x) - lambda x. So a repair y (measured sizes within the budget, or idle, summing to D) has
 * energy bound + sum_i rc_i(y_i), with rc_i >= 0 that function less its minimum: any repair is
 * the moves d_i = y_i - x_i (sum r), each costing rc_i >= 0. Taken in the order "a positive move
 * while the sum is below r, else a negative one", their partial sums stay in [r - M, r + M), M
 * the largest size within the budget. So more than 2M - 1 moves contain a run summing to 0, which
 * can be dropped, at no extra energy: some optimal repair moves at most min(P, 2M - 1) devices, by
 * at most M each. If a repair makes at most c moves, only the c cheapest moves of each amount (on
 * distinct devices) are needed: a move outside them can be swapped for one of them on a device
 * the others do not use. */

/* The dp's extent: c W <= REPAIR_SPAN, c candidates per amount |d| <= W, partial sums in
 * [-cW, cW]. Time (2cW + 1) x (moves + devices) <= 2,049 x 4,096 steps, memory (2cW + 1) x
 * devices <= 2,049 x 2,048 ints (17 MB). */
#define REPAIR_SPAN 1024L
/* Amounts kept for the single moves and pairs (beyond the leftover r): 2 moves each. */
#define REPAIR_PAIRS (1L << 14)

typedef struct {
  double de;             /* extra energy */
  long node, dev, size;  /* the device and its new size (0: idle) */
  long d;                /* size - share */
  double t, told;        /* the device's new and old time */
} move_t;

static const move_t no_move = {INFINITY, -1, -1, -1, 0, 0.0, 0.0};

/* least energy, then node and device: a total order, so that merges in any order agree */
static int move_better(const move_t *a, const move_t *b) {
  if (b->node < 0) return a->node >= 0;
  if (a->node < 0) return 0;
  if (a->de != b->de) return a->de < b->de;
  return a->node < b->node || (a->node == b->node && a->dev < b->dev);
}

/* list[0..cap): the cap best moves offered, best first (a device has one move per amount) */
static void offer(move_t *list, long cap, const move_t *m) {
  long j = cap;
  if (cap < 1 || !move_better(m, &list[cap - 1])) return;
  for (; j > 0 && move_better(m, &list[j - 1]); j--)
    if (j < cap) list[j] = list[j - 1];
  list[j] = *m;
}

/* Candidate moves by amount d, in one buffer (merged and gathered whole): the 2 cheapest for
 * |d| <= M2 (single moves and pairs), the c cheapest for |d| <= W (the dp). */
typedef struct {
  long M2, W, c;
  size_t n;
} cands_t;

static size_t two_at(const cands_t *cd, long d) { return 2 * (size_t)(d + cd->M2); }
static size_t near_at(const cands_t *cd, long d) {
  return 2 * (size_t)(2 * cd->M2 + 1) + (size_t)cd->c * (size_t)(d + cd->W);
}

static void cands_offer(const cands_t *cd, move_t *s, const move_t *m) {
  if (labs(m->d) <= cd->M2) offer(s + two_at(cd, m->d), 2, m);
  if (labs(m->d) <= cd->W) offer(s + near_at(cd, m->d), cd->c, m);
}

static void cands_merge(const cands_t *cd, move_t *into, const move_t *from) {
  for (long d = -cd->M2; d <= cd->M2; d++)
    for (long u = 0; u < 2 && from[two_at(cd, d) + u].node >= 0; u++) offer(into + two_at(cd, d), 2, &from[two_at(cd, d) + u]);
  for (long d = -cd->W; d <= cd->W; d++)
    for (long u = 0; u < cd->c && from[near_at(cd, d) + u].node >= 0; u++)
      offer(into + near_at(cd, d), cd->c, &from[near_at(cd, d) + u]);
}

/* Every device's moves to its other sizes within the budget and to idle (collective: every rank
 * gets the merged lists). One pass over the functions, O(c) per kept move. */
static int collect_moves(MPI_Comm comm, const fupermod_hscale_problem *prob, int k0, int k1, const long *first,
                         const long *share, double budget, const cands_t *cd, move_t *slots) {
  int rc = FUPERMOD_SUCCESS;
  for (size_t a = 0; a < cd->n; a++) slots[a] = no_move;
  fupermod_hs_fail fail3 = {FUPERMOD_SUCCESS, ""};
#pragma omp parallel
  {
    fupermod_hs_node nd;
    move_t *mine = malloc(cd->n * sizeof *mine);
    int trc = mine ? FUPERMOD_SUCCESS : fupermod_error(FUPERMOD_ERR_NOMEM, "hiscale: out of memory for the repair");
    memset(&nd, 0, sizeof nd);
    for (size_t a = 0; mine && a < cd->n; a++) mine[a] = no_move;
#pragma omp for schedule(dynamic, 8)
    for (int k = k0; k < k1; k++) {
      if (trc != FUPERMOD_SUCCESS || (trc = fupermod_hs_node_load(prob, k, 1, &nd)) != FUPERMOD_SUCCESS) continue;
      for (int i = 0; i < nd.p; i++) {
        const fupermod_hscale_fn *f = &nd.fn[i];
        const long x = share[first[k] + i];
        const double ex = x > 0 ? f->e[nd.idx[i][x]] : 0.0, tx = x > 0 ? f->t[nd.idx[i][x]] : 0.0;
        if (x > 0) cands_offer(cd, mine, &(move_t){-ex, k, i, 0, -x, 0.0, tx});
        for (int j = 0; j < f->count; j++)
          if (f->x[j] != x && f->t[j] <= budget)
            cands_offer(cd, mine, &(move_t){f->e[j] - ex, k, i, f->x[j], f->x[j] - x, f->t[j], tx});
      }
    }
#pragma omp critical
    {
      fupermod_hs_fail_keep(&fail3, trc);
      if (mine) cands_merge(cd, slots, mine);
    }
    free(mine);
    fupermod_hs_node_free(&nd);
  }
  if ((rc = fupermod_hs_agree(comm, fupermod_hs_fail_take(&fail3, rc))) != FUPERMOD_SUCCESS) return rc;
  if (comm != MPI_COMM_NULL) {
    void *all = NULL;
    int np;
    MPI_Comm_size(comm, &np);
    rc = fupermod_hs_gather(comm, slots, (long)(cd->n * sizeof *slots), MPI_BYTE, 1, &all);
    if ((rc = fupermod_hs_agree(comm, rc)) != FUPERMOD_SUCCESS) {
      free(all);
      return rc;
    }
    for (size_t a = 0; a < cd->n; a++) slots[a] = no_move;
    for (int r = 0; r < np; r++) cands_merge(cd, slots, (const move_t *)all + (size_t)r * cd->n);
    free(all);
  }
  return FUPERMOD_SUCCESS;
}

/* The cheapest single move of r, or pair of moves on two devices summing to r: O(M2). */
static double best_pair(const cands_t *cd, const move_t *s, long r, move_t *out, int *nout) {
  double best = INFINITY;
  *nout = 0;
  if (r <= cd->M2 && s[two_at(cd, r)].node >= 0) {
    out[0] = s[two_at(cd, r)];
    best = out[0].de;
    *nout = 1;
  }
  for (long a = r - cd->M2; a <= r / 2; a++)
    for (int u = 0; u < 2 && a != 0; u++)
      for (int v = a == r - a ? u + 1 : 0; v < 2; v++) {
        const move_t *p1 = &s[two_at(cd, a) + u], *p2 = &s[two_at(cd, r - a) + v];
        if (p1->node < 0 || p2->node < 0 || (p1->node == p2->node && p1->dev == p2->dev)) continue;
        if (p1->de + p2->de < best) {
          best = p1->de + p2->de;
          out[0] = *p1;
          out[1] = *p2;
          *nout = 2;
        }
      }
  return best;
}

static int by_device(const void *a, const void *b) {
  const move_t *m = a, *n = b;
  if (m->node != n->node) return m->node < n->node ? -1 : 1;
  if (m->dev != n->dev) return m->dev < n->dev ? -1 : 1;
  return (m->d > n->d) - (m->d < n->d);
}

/* Exact: the least extra energy of moves from the c-lists (|d| <= W), at most one per device,
 * summing to r with partial sums in [-cW, cW]. 1 found (out, *nout, *de), 0 none, < 0 error. */
static int best_dp(const cands_t *cd, const move_t *s, long r, move_t *out, int *nout, double *de) {
  const long L = cd->c * cd->W, S = 2 * L + 1;
  long nm = 0, ng = 0, g = 0, st;
  move_t *mv = malloc((size_t)cd->c * (size_t)(2 * cd->W + 1) * sizeof *mv);
  double *cur = malloc((size_t)S * sizeof *cur), *nxt = malloc((size_t)S * sizeof *nxt);
  int *choice = NULL, rc = 0;
  if (!mv || !cur || !nxt) {
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "hiscale: out of memory for the repair");
    goto out;
  }
  for (long d = -cd->W; d <= cd->W; d++)
    for (long u = 0; u < cd->c && s[near_at(cd, d) + u].node >= 0; u++) mv[nm++] = s[near_at(cd, d) + u];
  qsort(mv, (size_t)nm, sizeof *mv, by_device);
  for (long j = 0; j < nm; j++) ng += j == 0 || mv[j].node != mv[j - 1].node || mv[j].dev != mv[j - 1].dev;
  if (r > L || nm == 0) goto out;
  if (!(choice = malloc((size_t)ng * (size_t)S * sizeof *choice))) {
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "hiscale: out of memory for the repair");
    goto out;
  }
  for (long a = 0; a < S; a++) cur[a] = INFINITY;
  cur[L] = 0.0;
  for (long j = 0; j < nm; g++) { /* one device: stay, or one of its moves */
    int *ch = choice + (size_t)g * (size_t)S;
    const long j0 = j;
    for (long a = 0; a < S; a++) {
      nxt[a] = cur[a];
      ch[a] = -1;
    }
    for (; j < nm && mv[j].node == mv[j0].node && mv[j].dev == mv[j0].dev; j++)
      for (long a = mv[j].d > 0 ? mv[j].d : 0; a < S + (mv[j].d < 0 ? mv[j].d : 0); a++)
        if (cur[a - mv[j].d] + mv[j].de < nxt[a]) {
          nxt[a] = cur[a - mv[j].d] + mv[j].de;
          ch[a] = (int)j;
        }
    {
      double *t = cur;
      cur = nxt;
      nxt = t;
    }
  }
  if (cur[r + L] == INFINITY) goto out;
  *de = cur[r + L];
  *nout = 0;
  for (st = r + L, g = ng - 1; g >= 0; g--) {
    const int j = choice[(size_t)g * (size_t)S + (size_t)st];
    if (j >= 0) {
      out[(*nout)++] = mv[j];
      st -= mv[j].d;
    }
  }
  rc = 1;
out:
  free(mv);
  free(cur);
  free(nxt);
  free(choice);
  return rc;
}

/* No repair found and none proven impossible: the minimum-makespan distribution y decides (a
 * distribution within the budget exists iff its makespan is within it). Its moves from the shares,
 * taken in the order above with every run summing to 0 dropped, are the repair: at most 2M - 1
 * devices change, at no more energy than y's (which is kept if lower). */
static int via_min_makespan(MPI_Comm comm, const fupermod_hscale_problem *prob, double budget, long M, long r, int k0,
                            int k1, const long *first, fupermod_hscale_result *res) {
  fupermod_hscale_result y;
  const int P = res->total;
  int *pos = NULL, *neg = NULL, *stk = NULL, np = 0, nn = 0, ip = 0, in = 0, depth = 0;
  long *at = NULL, *psum = NULL, *z = NULL, s = 0;
  double tz, ez;
  int rc = fupermod_hscale_time(comm, prob, &y);
  if (rc != FUPERMOD_SUCCESS) return rc;
  if (y.time > budget) {
    rc = fupermod_error(FUPERMOD_ERR_INFEASIBLE,
                        "hiscale: no distribution of D = %ld within the time budget %.17g (the least makespan is %.17g)",
                        prob->D, budget, y.time);
    goto done;
  }
  rc = (pos = malloc((size_t)P * sizeof *pos)) && (neg = malloc((size_t)P * sizeof *neg)) &&
               (stk = malloc((size_t)P * sizeof *stk)) && (psum = malloc(((size_t)P + 1) * sizeof *psum)) &&
               (at = malloc((2 * (size_t)M + 1) * sizeof *at)) && (z = malloc((size_t)P * sizeof *z))
           ? FUPERMOD_SUCCESS
           : fupermod_error(FUPERMOD_ERR_NOMEM, "hiscale: out of memory for the repair");
  if ((rc = fupermod_hs_agree(comm, rc)) != FUPERMOD_SUCCESS) goto done;
  for (int i = 0; i < P; i++) {
    if (y.share[i] > res->share[i]) pos[np++] = i;
    if (y.share[i] < res->share[i]) neg[nn++] = i;
  }
  for (long a = 0; a <= 2 * M; a++) at[a] = -1;
  psum[0] = 0;
  at[M - r] = 0; /* at[s - (r - M)]: the depth where the partial sum s stands */
  while (ip < np || in < nn) {
    const int i = (s < r ? ip < np : in >= nn) ? pos[ip++] : neg[in++];
    s += y.share[i] - res->share[i];
    if (s < r - M || s >= r + M) break; /* cannot happen: s + the moves left = r */
    if (at[s - r + M] >= 0) /* the moves since then sum to 0: drop them and this one */
      for (; depth > at[s - r + M]; depth--) at[psum[depth] - r + M] = -1;
    else {
      stk[depth++] = i;
      psum[depth] = s;
      at[s - r + M] = depth;
    }
  }
  if (s != r) {
    rc = fupermod_error(FUPERMOD_ERR_NUMERIC, "hiscale energy: the repair moves %ld units, not %ld", s, r);
    goto done;
  }
  memcpy(z, res->share, (size_t)P * sizeof *z);
  for (int d = 0; d < depth; d++) z[stk[d]] = y.share[stk[d]];
  if ((rc = shares_value(comm, prob, k0, k1, first, z, &tz, &ez)) != FUPERMOD_SUCCESS) goto done;
  if (y.energy < ez) {
    memcpy(res->share, y.share, (size_t)P * sizeof *z);
    res->time = y.time;
    res->energy = y.energy;
  } else {
    memcpy(res->share, z, (size_t)P * sizeof *z);
    res->time = tz;
    res->energy = ez;
  }
done:
  fupermod_hscale_result_free(&y);
  free(pos);
  free(neg);
  free(stk);
  free(psum);
  free(at);
  free(z);
  return rc;
}

/* Place the r units left inside a hull edge (the shares sum to D - r): the cheapest of one or two
 * moves and the exact dp; else, when the dp covered every repair, there is none; else the
 * minimum-makespan fallback. */
static int last_units(MPI_Comm comm, const fupermod_hscale_problem *prob, double budget, long M, long r, int k0, int k1,
                      const long *first, fupermod_hscale_result *res) {
  const long P = res->total, cneed = P < 2 * M - 1 ? P : 2 * M - 1;
  cands_t cd = {r > REPAIR_PAIRS ? r : REPAIR_PAIRS, M, cneed, 0};
  move_t *slots = NULL, *m = NULL, pair[2];
  int complete = 1, nm = 0, np = 0, rc, slowest = 0;
  double de = INFINITY, dpe = INFINITY;
  if (cd.M2 > M) cd.M2 = M;
  if (cneed > REPAIR_SPAN / M) { /* too large to cover every repair: a window of amounts */
    complete = 0;
    cd.W = r > REPAIR_SPAN / 8 ? r : REPAIR_SPAN / 8;
    if (cd.W > M) cd.W = M;
    cd.c = REPAIR_SPAN / cd.W < cneed ? REPAIR_SPAN / cd.W : cneed;
  }
  cd.n = 2 * (2 * (size_t)cd.M2 + 1) + (size_t)cd.c * (2 * (size_t)cd.W + 1);
  rc = (slots = malloc(cd.n * sizeof *slots)) && (m = malloc(((size_t)cd.c * (2 * (size_t)cd.W + 1) + 2) * sizeof *m))
           ? FUPERMOD_SUCCESS
           : fupermod_error(FUPERMOD_ERR_NOMEM, "hiscale: out of memory for the repair");
  if ((rc = fupermod_hs_agree(comm, rc)) != FUPERMOD_SUCCESS) goto done;
  if ((rc = collect_moves(comm, prob, k0, k1, first, res->share, budget, &cd, slots)) != FUPERMOD_SUCCESS) goto done;
  de = best_pair(&cd, slots, r, pair, &np);
  rc = cd.c > 0 ? best_dp(&cd, slots, r, m, &nm, &dpe) : FUPERMOD_SUCCESS;
  if ((rc = fupermod_hs_agree(comm, rc < 0 ? rc : FUPERMOD_SUCCESS)) != FUPERMOD_SUCCESS) goto done;
  if (np > 0 && !(nm > 0 && dpe < de)) {
    memcpy(m, pair, sizeof pair);
    nm = np;
    res->repair = 1;
  } else if (nm > 0) {
    de = dpe;
    res->repair = 2;
  } else if (complete) {
    rc = fupermod_error(FUPERMOD_ERR_INFEASIBLE, "hiscale: no distribution of D = %ld on measured sizes%s", prob->D,
                        isinf(budget) ? "" : " within the time budget");
    goto done;
  } else {
    res->repair = 3;
    rc = via_min_makespan(comm, prob, budget, M, r, k0, k1, first, res);
    goto done;
  }
  for (int u = 0; u < nm; u++) {
    res->share[first[m[u].node] + m[u].dev] = m[u].size;
    slowest |= m[u].told >= res->time;
  }
  if (slowest) /* a moved device may have been the slowest */
    rc = shares_value(comm, prob, k0, k1, first, res->share, &res->time, &res->energy);
  else {
    res->energy += de;
    for (int u = 0; u < nm; u++) res->time = m[u].t > res->time ? m[u].t : res->time;
  }
done:
  free(slots);
  free(m);
  return rc;
}

/* The energy solver's state: the node hulls' edges, slopes S[k] and cumulative sizes CW[k] (after
 * stage 1 every rank holds every node's), the node shares w. */
typedef struct {
  fupermod_hs_run run;
  double budget;
  long *ne, *w;
  long resid; /* units left inside a hull edge, for last_units */
  long xtop;  /* the largest size of any device within the budget */
  double **S, *Sall, *Sloc;
  long **CW, *CWall, *CWloc;
  size_t *off;
} hs_energy;

static int energy_alloc(hs_energy *s) {
  const fupermod_hscale_problem *prob = s->run.prob;
  const size_t q = (size_t)s->run.q, nloc = (size_t)(s->run.k1 - s->run.k0);
  if (!(s->ne = calloc(q, sizeof *s->ne)) || !(s->w = calloc(q, sizeof *s->w)) || !(s->S = calloc(q, sizeof *s->S)) ||
      !(s->CW = calloc(q, sizeof *s->CW)) || !(s->off = calloc(nloc + 1, sizeof *s->off)))
    return fupermod_error(FUPERMOD_ERR_NOMEM, "hiscale: out of memory");
  for (int k = 0; k < prob->q; k++)
    if (prob->devices[k] > 64)
      return fupermod_error(FUPERMOD_ERR_USAGE, "hiscale energy: node %d has %d devices (at most 64)", k,
                            prob->devices[k]);
  return FUPERMOD_SUCCESS;
}

static void energy_free(hs_energy *s) {
  void *arrays[] = {s->ne, s->w, s->S, s->CW, s->Sall, s->CWall, s->Sloc, s->CWloc, s->off};
  for (size_t i = 0; i < sizeof arrays / sizeof *arrays; i++) free(arrays[i]);
}

/* Stage 1: the hulls of this rank's nodes, each in its own slots; edges are at most the points, so
 * the slots are sized by max_points. */
static int node_hulls(hs_energy *s) {
  const fupermod_hscale_problem *prob = s->run.prob;
  const int k0 = s->run.k0, k1 = s->run.k1, nloc = k1 - k0;
  size_t *off = s->off;
  long *ne = s->ne, xtop = 0;
  double *Sloc;
  long *CWloc;
  fupermod_hs_fail fail = {FUPERMOD_SUCCESS, ""};
  for (int k = k0; k < k1; k++) off[k + 1 - k0] = off[k - k0] + (size_t)prob->devices[k] * (size_t)prob->max_points;
  if (!(Sloc = s->Sloc = malloc((off[nloc] ? off[nloc] : 1) * sizeof *Sloc)) ||
      !(CWloc = s->CWloc = malloc((off[nloc] + (size_t)nloc + 1) * sizeof *CWloc)))
    return fupermod_error(FUPERMOD_ERR_NOMEM, "hiscale: out of memory for the node hulls");
#pragma omp parallel
  {
    fupermod_hs_node nd;
    hulls_t h = {0};
    int trc = FUPERMOD_SUCCESS;
    memset(&nd, 0, sizeof nd);
#pragma omp for schedule(dynamic, 8) reduction(max : xtop)
    for (int k = k0; k < k1; k++)
      if (trc == FUPERMOD_SUCCESS && (trc = fupermod_hs_node_load(prob, k, 1, &nd)) == FUPERMOD_SUCCESS &&
          (trc = hulls_make(&nd, s->budget, &h)) == FUPERMOD_SUCCESS) {
        ne[k] = node_edges(&nd, &h, Sloc + off[k - k0], CWloc + off[k - k0] + (k - k0));
        for (int i = 0; i < nd.p; i++) { /* the last hull vertex: the largest size within the budget */
          const long top = hx(&nd, i, h.v[(size_t)i * (nd.mcap + 1) + h.nv[i] - 1]);
          if (top > xtop) xtop = top;
        }
      }
#pragma omp critical
    fupermod_hs_fail_keep(&fail, trc);
    hulls_free(&h);
    fupermod_hs_node_free(&nd);
  }
  s->xtop = xtop;
  return fupermod_hs_agree(s->run.comm, fupermod_hs_fail_take(&fail, FUPERMOD_SUCCESS));
}

/* Stage 1, then: the edges compacted, so that only they travel, and gathered on every rank; S[k]
 * and CW[k] point into them. */
static int share_hulls(hs_energy *s) {
  const MPI_Comm comm = s->run.comm;
  const int q = s->run.q, k0 = s->run.k0, k1 = s->run.k1;
  const size_t *off = s->off;
  long *ne = s->ne;
  size_t o = 0, oc = 0;
  int rc;
  if (comm != MPI_COMM_NULL) MPI_Allreduce(MPI_IN_PLACE, &s->xtop, 1, MPI_LONG, MPI_MAX, comm);
  for (int k = k0; k < k1; k++) {
    memmove(s->Sloc + o, s->Sloc + off[k - k0], (size_t)ne[k] * sizeof *s->Sloc);
    memmove(s->CWloc + oc, s->CWloc + off[k - k0] + (k - k0), ((size_t)ne[k] + 1) * sizeof *s->CWloc);
    o += (size_t)ne[k];
    oc += (size_t)ne[k] + 1;
  }
  if (comm != MPI_COMM_NULL) {
    void *a = NULL, *b = NULL, *c = NULL;
    rc = fupermod_hs_gather(comm, ne + k0, k1 - k0, MPI_LONG, sizeof(long), &a);
    if (rc == FUPERMOD_SUCCESS) rc = fupermod_hs_gather(comm, s->Sloc, (long)o, MPI_DOUBLE, sizeof(double), &b);
    if (rc == FUPERMOD_SUCCESS) rc = fupermod_hs_gather(comm, s->CWloc, (long)oc, MPI_LONG, sizeof(long), &c);
    if (rc == FUPERMOD_SUCCESS) memcpy(ne, a, (size_t)q * sizeof *ne);
    free(a);
    s->Sall = b;
    s->CWall = c;
    if ((rc = fupermod_hs_agree(comm, rc)) != FUPERMOD_SUCCESS) return rc;
    free(s->Sloc);
    free(s->CWloc);
  } else {
    s->Sall = s->Sloc;
    s->CWall = s->CWloc;
  }
  s->Sloc = NULL;
  s->CWloc = NULL;
  o = oc = 0;
  for (int k = 0; k < q; k++) {
    s->S[k] = s->Sall + o;
    s->CW[k] = s->CWall + oc;
    o += (size_t)ne[k];
    oc += (size_t)ne[k] + 1;
  }
  return FUPERMOD_SUCCESS;
}

/* Stage 2 (D > 0): the least lambda whose largest minimisers reach D, and the node shares at it:
 * each node's edges below lambda, then those at lambda in node order until D. */
static int between_nodes_energy(hs_energy *s, double *lambda_out) {
  const long D = s->run.prob->D;
  const int q = s->run.q;
  double **S = s->S, lambda;
  long **CW = s->CW, *ne = s->ne, *w = s->w, rho = D;
  uint64_t lo = fupermod_hs_key(-INFINITY), hi = fupermod_hs_key(INFINITY);
  if (sum_hi(q, S, ne, CW, INFINITY) < D)
    return fupermod_error(FUPERMOD_ERR_INFEASIBLE, "hiscale: D = %ld exceeds what the devices can take%s", D,
                          isinf(s->budget) ? "" : " within the time budget");
  while (lo < hi) {
    uint64_t mid = lo + (hi - lo) / 2;
    if (sum_hi(q, S, ne, CW, fupermod_hs_unkey(mid)) >= D) hi = mid;
    else lo = mid + 1;
  }
  lambda = fupermod_hs_unkey(lo);
  for (int k = 0; k < q; k++) {
    w[k] = CW[k][count_below(S[k], ne[k], lambda, 1)];
    rho -= w[k];
  }
  for (int k = 0; k < q && rho > 0; k++) {
    long span = CW[k][count_below(S[k], ne[k], lambda, 0)] - w[k], take = span < rho ? span : rho;
    w[k] += take;
    rho -= take;
  }
  *lambda_out = lambda;
  return FUPERMOD_SUCCESS;
}

/* Stage 3: each of this rank's nodes splits its share at lambda; then every rank gets every share,
 * the dual bound and the distribution's time and energy, and s->resid the units left inside an
 * edge. */
static int inside_nodes_energy(hs_energy *s, double lambda, fupermod_hscale_result *res) {
  const fupermod_hs_run *run = &s->run;
  const long *w = s->w, *first = run->first;
  double dual = 0.0, tmax = 0.0, esum = 0.0;
  long resid = 0;
  int rc;
  fupermod_hs_fail fail = {FUPERMOD_SUCCESS, ""};
#pragma omp parallel
  {
    fupermod_hs_node nd;
    hulls_t h = {0};
    int trc = FUPERMOD_SUCCESS;
    memset(&nd, 0, sizeof nd);
#pragma omp for schedule(dynamic, 8) reduction(+ : dual, esum) reduction(max : tmax)
    for (int k = run->k0; k < run->k1; k++) {
      long r = 0, *x = res->share + first[k];
      if (trc != FUPERMOD_SUCCESS) continue;
      if ((trc = fupermod_hs_node_load(run->prob, k, 1, &nd)) != FUPERMOD_SUCCESS) continue;
      if ((trc = hulls_make(&nd, s->budget, &h)) != FUPERMOD_SUCCESS) continue;
      for (int i = 0; i < nd.p; i++) dual += dual_term(&nd.fn[i], s->budget, lambda);
      if (w[k] > 0) split_energy(&nd, &h, w[k], lambda, s->budget, x, &r);
      if (r > 0)
#pragma omp critical
        resid = r;
      node_value(&nd, x, &esum, &tmax); /* hull vertices or checked sizes: measured, within the budget */
    }
#pragma omp critical
    fupermod_hs_fail_keep(&fail, trc);
    hulls_free(&h);
    fupermod_hs_node_free(&nd);
  }
  rc = fupermod_hs_agree(run->comm, fupermod_hs_fail_take(&fail, FUPERMOD_SUCCESS));
  if (rc != FUPERMOD_SUCCESS) return rc;
  if (run->comm != MPI_COMM_NULL) {
    double sums[2] = {dual, esum};
    if ((rc = fupermod_hs_gather_shares(run->comm, first, run->k0, run->k1, res)) != FUPERMOD_SUCCESS) return rc;
    MPI_Allreduce(MPI_IN_PLACE, sums, 2, MPI_DOUBLE, MPI_SUM, run->comm);
    MPI_Allreduce(MPI_IN_PLACE, &tmax, 1, MPI_DOUBLE, MPI_MAX, run->comm);
    MPI_Allreduce(MPI_IN_PLACE, &resid, 1, MPI_LONG, MPI_MAX, run->comm);
    dual = sums[0];
    esum = sums[1];
  }
  s->resid = resid;
  res->bound = lambda * (double)run->prob->D + dual;
  res->energy = esum;
  res->time = tmax;
  return FUPERMOD_SUCCESS;
}

/* The node shares of the device shares, which must sum to D. */
static int node_shares(const fupermod_hs_run *run, fupermod_hscale_result *res) {
  long sum = 0;
  for (int k = 0; k < run->q; k++) {
    res->node_share[k] = 0;
    for (int i = run->first[k]; i < run->first[k + 1]; i++) res->node_share[k] += res->share[i];
    sum += res->node_share[k];
  }
  if (sum != run->prob->D)
    return fupermod_error(FUPERMOD_ERR_NUMERIC, "hiscale energy: shares sum to %ld, not D = %ld", sum, run->prob->D);
  return FUPERMOD_SUCCESS;
}

int fupermod_hscale_energy(MPI_Comm comm, const fupermod_hscale_problem *prob, fupermod_hscale_result *res) {
  hs_energy s = {0};
  int rc;
  double t0, lambda = 0.0;
  if ((rc = fupermod_hs_start(comm, prob, res, &s.run)) != FUPERMOD_SUCCESS) return rc;
  s.budget = isnan(prob->budget) ? INFINITY : prob->budget;
  /* 1. node hulls */
  t0 = fupermod_hs_now();
  if ((rc = energy_alloc(&s)) != FUPERMOD_SUCCESS || (rc = node_hulls(&s)) != FUPERMOD_SUCCESS ||
      (rc = share_hulls(&s)) != FUPERMOD_SUCCESS)
    goto done;
  res->stage_s[0] = fupermod_hs_now() - t0;
  /* 2. between nodes */
  t0 = fupermod_hs_now();
  if (prob->D > 0 && (rc = between_nodes_energy(&s, &lambda)) != FUPERMOD_SUCCESS) goto done;
  res->stage_s[1] = fupermod_hs_now() - t0;
  free(s.Sall);
  free(s.CWall);
  s.Sall = NULL;
  s.CWall = NULL;
  /* 3. inside nodes, with the dual bound, the distribution's time and energy */
  t0 = fupermod_hs_now();
  if ((rc = inside_nodes_energy(&s, lambda, res)) != FUPERMOD_SUCCESS) goto done;
  if (s.resid > 0) {
    s.run.exact++;
    if ((rc = last_units(comm, prob, s.budget, s.xtop, s.resid, s.run.k0, s.run.k1, s.run.first, res)) !=
        FUPERMOD_SUCCESS)
      goto done;
  }
  rc = node_shares(&s.run, res);
  res->stage_s[2] = fupermod_hs_now() - t0;
done:
  energy_free(&s);
  return fupermod_hs_end(&s.run, rc, res);
}
