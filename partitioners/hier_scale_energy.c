/* HiSCALE for energy (docs/hierarchical.md "HiSCALE"): the Lagrangian relaxation of
 * min sum e_i(x_i), sum x_i = D, solved on two levels.
 *
 * For a multiplier lambda every device minimises e_i(x) - lambda x, which only its lower convex
 * hull decides; a node's hull is the Minkowski sum of its devices' hulls (their edges merged by
 * slope). Between nodes, the least lambda whose largest minimisers reach D is found by bisection;
 * then each node splits its share along the same edges. At most one device ends inside an edge;
 * its units go to the measured size that fits, else to the device whose move costs least. The
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

typedef struct {
  double de;
  long node, dev, size;
  double t, told;
} move_t;

/* Keep the two best moves of one amount, on different devices (least energy, then node and device). */
static int move_better(const move_t *a, const move_t *b) {
  if (a->de != b->de) return a->de < b->de;
  if (b->node < 0) return a->node >= 0;
  return a->node >= 0 && (a->node < b->node || (a->node == b->node && a->dev < b->dev));
}

static void offer(move_t *top2, move_t m) {
  if (top2[0].node == m.node && top2[0].dev == m.dev) {
    if (move_better(&m, &top2[0])) top2[0] = m;
  } else if (move_better(&m, &top2[0])) {
    top2[1] = top2[0];
    top2[0] = m;
  } else if (move_better(&m, &top2[1]))
    top2[1] = m;
}

/* max device time of the shares (a pass over the functions) */
static int shares_time(MPI_Comm comm, const fupermod_hscale_problem *prob, int k0, int k1, const long *first,
                       const long *share, double *tmax_out) {
  double tmax = 0.0;
  int rc = FUPERMOD_SUCCESS;
#pragma omp parallel
  {
    fupermod_hs_node nd;
    int trc = FUPERMOD_SUCCESS;
    memset(&nd, 0, sizeof nd);
#pragma omp for schedule(dynamic, 8) reduction(max : tmax)
    for (int k = k0; k < k1; k++) {
      if (trc != FUPERMOD_SUCCESS || (trc = fupermod_hs_node_load(prob, k, 1, &nd)) != FUPERMOD_SUCCESS) continue;
      for (int i = 0; i < nd.p; i++)
        if (share[first[k] + i] > 0 && nd.fn[i].t[nd.idx[i][share[first[k] + i]]] > tmax)
          tmax = nd.fn[i].t[nd.idx[i][share[first[k] + i]]];
    }
#pragma omp critical
    if (trc != FUPERMOD_SUCCESS && rc == FUPERMOD_SUCCESS) rc = trc;
    fupermod_hs_node_free(&nd);
  }
  if ((rc = fupermod_hs_agree(comm, rc)) != FUPERMOD_SUCCESS) return rc;
  if (comm != MPI_COMM_NULL) MPI_Allreduce(MPI_IN_PLACE, &tmax, 1, MPI_DOUBLE, MPI_MAX, comm);
  *tmax_out = tmax;
  return FUPERMOD_SUCCESS;
}

int fupermod_hscale_energy(MPI_Comm comm, const fupermod_hscale_problem *prob, fupermod_hscale_result *res) {
  int total, k0, k1, q, rc, nloc;
  long *ne = NULL, *first = NULL, *w = NULL, resid = 0, resid_node = -1, exact = 0;
  double **S = NULL, *Sall = NULL, *Sloc = NULL, t0, lambda = 0.0, budget;
  long **CW = NULL, *CWall = NULL, *CWloc = NULL;
  size_t *off = NULL;
  if (!res) return fupermod_error(FUPERMOD_ERR_USAGE, "hiscale: NULL result");
  if ((rc = fupermod_hs_result_alloc(prob, res, &total)) != FUPERMOD_SUCCESS) return rc;
  q = prob->q;
  budget = isnan(prob->budget) ? INFINITY : prob->budget;
  fupermod_hs_block(comm, q, &k0, &k1);
  nloc = k1 - k0;
  t0 = fupermod_hs_now();
  if (!(ne = calloc((size_t)q, sizeof *ne)) || !(first = calloc((size_t)q + 1, sizeof *first)) ||
      !(w = calloc((size_t)q, sizeof *w)) || !(S = calloc((size_t)q, sizeof *S)) ||
      !(CW = calloc((size_t)q, sizeof *CW)) || !(off = calloc((size_t)nloc + 1, sizeof *off))) {
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "hiscale: out of memory");
    goto done;
  }
  for (int k = 0; k < q; k++) {
    if (prob->devices[k] > 64) {
      rc = fupermod_error(FUPERMOD_ERR_USAGE, "hiscale energy: node %d has %d devices (at most 64)", k, prob->devices[k]);
      goto done;
    }
    first[k + 1] = first[k] + prob->devices[k];
  }
  /* 1. node hulls: edges are at most the points, so the slots are sized by max_points */
  for (int k = k0; k < k1; k++) off[k + 1 - k0] = off[k - k0] + (size_t)prob->devices[k] * (size_t)prob->max_points;
  if (!(Sloc = malloc((off[nloc] ? off[nloc] : 1) * sizeof *Sloc)) ||
      !(CWloc = malloc((off[nloc] + (size_t)nloc + 1) * sizeof *CWloc))) {
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "hiscale: out of memory for the node hulls");
    goto done;
  }
#pragma omp parallel
  {
    fupermod_hs_node nd;
    hulls_t h = {0};
    int trc = FUPERMOD_SUCCESS;
    memset(&nd, 0, sizeof nd);
#pragma omp for schedule(dynamic, 8)
    for (int k = k0; k < k1; k++)
      if (trc == FUPERMOD_SUCCESS && (trc = fupermod_hs_node_load(prob, k, 1, &nd)) == FUPERMOD_SUCCESS &&
          (trc = hulls_make(&nd, budget, &h)) == FUPERMOD_SUCCESS)
        ne[k] = node_edges(&nd, &h, Sloc + off[k - k0], CWloc + off[k - k0] + (k - k0));
#pragma omp critical
    if (trc != FUPERMOD_SUCCESS && rc == FUPERMOD_SUCCESS) rc = trc;
    hulls_free(&h);
    fupermod_hs_node_free(&nd);
  }
  if ((rc = fupermod_hs_agree(comm, rc)) != FUPERMOD_SUCCESS) goto done;
  /* compact, so that only the edges travel */
  {
    size_t o = 0, oc = 0;
    for (int k = k0; k < k1; k++) {
      memmove(Sloc + o, Sloc + off[k - k0], (size_t)ne[k] * sizeof *Sloc);
      memmove(CWloc + oc, CWloc + off[k - k0] + (k - k0), ((size_t)ne[k] + 1) * sizeof *CWloc);
      o += (size_t)ne[k];
      oc += (size_t)ne[k] + 1;
    }
    if (comm != MPI_COMM_NULL) {
      void *a = NULL, *b = NULL, *c = NULL;
      rc = fupermod_hs_gather(comm, ne + k0, nloc, MPI_LONG, sizeof(long), &a);
      if (rc == FUPERMOD_SUCCESS) rc = fupermod_hs_gather(comm, Sloc, (long)o, MPI_DOUBLE, sizeof(double), &b);
      if (rc == FUPERMOD_SUCCESS) rc = fupermod_hs_gather(comm, CWloc, (long)oc, MPI_LONG, sizeof(long), &c);
      if (rc == FUPERMOD_SUCCESS) memcpy(ne, a, (size_t)q * sizeof *ne);
      free(a);
      Sall = b;
      CWall = c;
      if ((rc = fupermod_hs_agree(comm, rc)) != FUPERMOD_SUCCESS) goto done;
      free(Sloc);
      free(CWloc);
      Sloc = NULL;
      CWloc = NULL;
    } else {
      Sall = Sloc;
      CWall = CWloc;
      Sloc = NULL;
      CWloc = NULL;
    }
    o = oc = 0;
    for (int k = 0; k < q; k++) {
      S[k] = Sall + o;
      CW[k] = CWall + oc;
      o += (size_t)ne[k];
      oc += (size_t)ne[k] + 1;
    }
  }
  res->stage_s[0] = fupermod_hs_now() - t0;
  /* 2. between nodes: the least lambda whose largest minimisers reach D */
  t0 = fupermod_hs_now();
  if (prob->D > 0) {
    uint64_t lo = fupermod_hs_key(-INFINITY), hi = fupermod_hs_key(INFINITY);
    long rho = prob->D;
    if (sum_hi(q, S, ne, CW, INFINITY) < prob->D) {
      rc = fupermod_error(FUPERMOD_ERR_INFEASIBLE, "hiscale: D = %ld exceeds what the devices can take%s", prob->D,
                          isinf(budget) ? "" : " within the time budget");
      goto done;
    }
    while (lo < hi) {
      uint64_t mid = lo + (hi - lo) / 2;
      if (sum_hi(q, S, ne, CW, fupermod_hs_unkey(mid)) >= prob->D) hi = mid;
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
  }
  res->stage_s[1] = fupermod_hs_now() - t0;
  free(Sall);
  free(CWall);
  Sall = NULL;
  CWall = NULL;
  /* 3. inside nodes, with the dual bound, the distribution's time and energy */
  t0 = fupermod_hs_now();
  {
    double dual = 0.0, tmax = 0.0, esum = 0.0;
#pragma omp parallel
    {
      fupermod_hs_node nd;
      hulls_t h = {0};
      int trc = FUPERMOD_SUCCESS;
      memset(&nd, 0, sizeof nd);
#pragma omp for schedule(dynamic, 8) reduction(+ : dual, esum) reduction(max : tmax)
      for (int k = k0; k < k1; k++) {
        long r = 0, *x = res->share + first[k];
        if (trc != FUPERMOD_SUCCESS) continue;
        if ((trc = fupermod_hs_node_load(prob, k, 1, &nd)) != FUPERMOD_SUCCESS) continue;
        if ((trc = hulls_make(&nd, budget, &h)) != FUPERMOD_SUCCESS) continue;
        for (int i = 0; i < nd.p; i++) dual += dual_term(&nd.fn[i], budget, lambda);
        if (w[k] > 0) split_energy(&nd, &h, w[k], lambda, budget, x, &r);
        if (r > 0)
#pragma omp critical
        {
          resid = r;
          resid_node = k;
        }
        for (int i = 0; i < nd.p; i++)
          if (x[i] > 0) { /* hull vertices or checked sizes: measured, within the budget */
            const int j = nd.idx[i][x[i]];
            esum += nd.fn[i].e[j];
            if (nd.fn[i].t[j] > tmax) tmax = nd.fn[i].t[j];
          }
      }
#pragma omp critical
      if (trc != FUPERMOD_SUCCESS && rc == FUPERMOD_SUCCESS) rc = trc;
      hulls_free(&h);
      fupermod_hs_node_free(&nd);
    }
    if ((rc = fupermod_hs_agree(comm, rc)) != FUPERMOD_SUCCESS) goto done;
    if (comm != MPI_COMM_NULL) {
      void *all;
      long rr[2] = {resid, resid_node}, rmax[2];
      double sums[2] = {dual, esum};
      if ((rc = fupermod_hs_gather(comm, res->share + first[k0], first[k1] - first[k0], MPI_LONG, sizeof(long),
                                   &all)) != FUPERMOD_SUCCESS)
        goto done;
      memcpy(res->share, all, (size_t)total * sizeof *res->share);
      free(all);
      MPI_Allreduce(MPI_IN_PLACE, sums, 2, MPI_DOUBLE, MPI_SUM, comm);
      MPI_Allreduce(MPI_IN_PLACE, &tmax, 1, MPI_DOUBLE, MPI_MAX, comm);
      MPI_Allreduce(rr, rmax, 2, MPI_LONG, MPI_MAX, comm);
      dual = sums[0];
      esum = sums[1];
      resid = rmax[0];
      resid_node = rmax[1];
    }
    res->bound = lambda * (double)prob->D + dual;
    res->energy = esum;
    res->time = tmax;
  }
  /* the units left inside an edge: the cheapest single move, or pair of moves on two devices,
   * that takes them exactly (every device's cheapest two moves by amount) */
  if (resid > 0) {
    const size_t slots = 2 * ((size_t)resid + 1);
    move_t *top = malloc(slots * sizeof *top), *m[2] = {NULL, NULL};
    double de = INFINITY;
    exact++;
    if (!top) {
      rc = fupermod_error(FUPERMOD_ERR_NOMEM, "hiscale: out of memory");
      goto done;
    }
    for (size_t a = 0; a < slots; a++) top[a] = (move_t){INFINITY, -1, -1, -1, 0.0, 0.0};
#pragma omp parallel
    {
      fupermod_hs_node nd;
      move_t *mine = malloc(slots * sizeof *mine);
      int trc = mine ? FUPERMOD_SUCCESS : fupermod_error(FUPERMOD_ERR_NOMEM, "hiscale: out of memory");
      memset(&nd, 0, sizeof nd);
      for (size_t a = 0; mine && a < slots; a++) mine[a] = (move_t){INFINITY, -1, -1, -1, 0.0, 0.0};
#pragma omp for schedule(dynamic, 8)
      for (int k = k0; k < k1; k++) {
        if (trc != FUPERMOD_SUCCESS || (trc = fupermod_hs_node_load(prob, k, 1, &nd)) != FUPERMOD_SUCCESS) continue;
        for (int i = 0; i < nd.p; i++) {
          const long x = res->share[first[k] + i];
          const double ex = x > 0 ? nd.fn[i].e[nd.idx[i][x]] : 0.0, tx = x > 0 ? nd.fn[i].t[nd.idx[i][x]] : 0.0;
          for (long a = 1; a <= resid && x + a <= nd.xmax[i]; a++) {
            const int j = nd.idx[i][x + a];
            if (j >= 0 && nd.fn[i].t[j] <= budget)
              offer(mine + 2 * a, (move_t){nd.fn[i].e[j] - ex, k, i, x + a, nd.fn[i].t[j], tx});
          }
        }
      }
#pragma omp critical
      {
        if (trc != FUPERMOD_SUCCESS && rc == FUPERMOD_SUCCESS) rc = trc;
        for (size_t a = 0; mine && a < slots; a++)
          if (mine[a].node >= 0) offer(top + 2 * (a / 2), mine[a]);
      }
      free(mine);
      fupermod_hs_node_free(&nd);
    }
    if ((rc = fupermod_hs_agree(comm, rc)) != FUPERMOD_SUCCESS) {
      free(top);
      goto done;
    }
    if (comm != MPI_COMM_NULL) {
      void *all = NULL;
      int np;
      MPI_Comm_size(comm, &np);
      if ((rc = fupermod_hs_gather(comm, top, (long)(slots * sizeof *top), MPI_BYTE, 1, &all)) != FUPERMOD_SUCCESS) {
        free(top);
        goto done;
      }
      for (size_t a = 0; a < slots; a++) top[a] = (move_t){INFINITY, -1, -1, -1, 0.0, 0.0};
      for (int r = 0; r < np; r++)
        for (size_t a = 0; a < slots; a++)
          if (((move_t *)all)[(size_t)r * slots + a].node >= 0) offer(top + 2 * (a / 2), ((move_t *)all)[(size_t)r * slots + a]);
      free(all);
    }
    if (top[2 * resid].node >= 0) {
      m[0] = &top[2 * resid];
      de = m[0]->de;
    }
    for (long a = 1; a <= resid - a; a++)
      for (int u = 0; u < 2; u++)
        for (int v = 0; v < 2; v++) {
          move_t *p1 = &top[2 * a + u], *p2 = &top[2 * (resid - a) + v];
          if (p1->node < 0 || p2->node < 0 || (p1->node == p2->node && p1->dev == p2->dev)) continue;
          if (p1->de + p2->de < de) {
            de = p1->de + p2->de;
            m[0] = p1;
            m[1] = p2;
          }
        }
    if (!m[0]) {
      free(top);
      rc = fupermod_error(FUPERMOD_ERR_NUMERIC,
                          "hiscale energy: %ld units of node %ld fall inside a hull edge and no one or two devices "
                          "can take them on measured sizes",
                          resid, resid_node);
      goto done;
    }
    for (int u = 0; u < 2 && m[u]; u++) res->share[first[m[u]->node] + m[u]->dev] = m[u]->size;
    res->energy += de;
    if (!m[1] && m[0]->told < res->time) res->time = m[0]->t > res->time ? m[0]->t : res->time;
    else if ((rc = shares_time(comm, prob, k0, k1, first, res->share, &res->time)) != FUPERMOD_SUCCESS) {
      free(top);
      goto done; /* a moved device may have been the slowest */
    }
    free(top);
  }
  {
    long sum = 0;
    for (int k = 0; k < q; k++) {
      res->node_share[k] = 0;
      for (int i = first[k]; i < first[k + 1]; i++) res->node_share[k] += res->share[i];
      sum += res->node_share[k];
    }
    if (sum != prob->D)
      rc = fupermod_error(FUPERMOD_ERR_NUMERIC, "hiscale energy: shares sum to %ld, not D = %ld", sum, prob->D);
  }
  res->stage_s[2] = fupermod_hs_now() - t0;
done:
  res->exact_checks = exact;
  if (rc != FUPERMOD_SUCCESS) fupermod_hscale_result_free(res);
  free(ne);
  free(first);
  free(w);
  free(S);
  free(CW);
  free(Sall);
  free(CWall);
  free(Sloc);
  free(CWloc);
  free(off);
  return rc;
}
