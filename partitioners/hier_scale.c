/* HiSCALE for time (docs/hierarchical.md "HiSCALE"): exact two-level min-max partitioning for
 * machines with tens of thousands of nodes.
 *
 * Device i under a makespan tau can take B_i(tau) = {0} u {x : t_i(x) <= tau}; a workload w fits
 * iff w is in the Minkowski sum of these sets. Its largest element is the sum of the largest
 * sizes X_i(tau), so tau_lo(w) = min{tau : sum X_i(tau) >= w} is a lower bound on the optimum,
 * and it is the optimum when the overshoot sum X_i - w can be removed within the sets
 * (fupermod_hs_reduce: contiguous runs below the tops, else an exact subset-sum). Node functions
 * come from a sweep over the devices' staircases X_i(tau); between nodes the same test runs on a
 * bisection over tau, each node's largest share under tau a binary search in its suffix minima. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "partitioners/hier_scale_impl.h"

/* Words of bitset rows the exact subset-sum may hold (512 MiB). */
#define HS_BITS_LIMIT (1L << 26)

double fupermod_hs_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

uint64_t fupermod_hs_key(double v) {
  uint64_t u;
  memcpy(&u, &v, sizeof u);
  return (u >> 63) ? ~u : u | (1ULL << 63);
}

double fupermod_hs_unkey(uint64_t k) {
  uint64_t u = (k >> 63) ? k & ~(1ULL << 63) : ~k;
  double v;
  memcpy(&v, &u, sizeof v);
  return v;
}

/* ---------------------------------------------------------------- device functions */

void fupermod_hs_node_free(fupermod_hs_node *nd) {
  if (nd->idx)
    for (int i = 0; i < nd->pcap; i++) free(nd->idx[i]);
  free(nd->idx);
  free(nd->xmax);
  free(nd->idxcap);
  free(nd->fn);
  free(nd->xbuf);
  free(nd->tbuf);
  free(nd->ebuf);
  memset(nd, 0, sizeof *nd);
}

int fupermod_hs_node_load(const fupermod_hscale_problem *prob, int k, int energy, fupermod_hs_node *nd) {
  const int p = prob->devices[k], m = prob->max_points;
  if (p > nd->pcap || m > nd->mcap) {
    int pc = p > nd->pcap ? p : nd->pcap, mc = m > nd->mcap ? m : nd->mcap;
    fupermod_hs_node_free(nd);
    nd->pcap = pc;
    nd->mcap = mc;
    if (!(nd->fn = calloc((size_t)pc, sizeof *nd->fn)) || !(nd->idx = calloc((size_t)pc, sizeof *nd->idx)) ||
        !(nd->xmax = calloc((size_t)pc, sizeof *nd->xmax)) || !(nd->idxcap = calloc((size_t)pc, sizeof *nd->idxcap)) ||
        !(nd->xbuf = malloc((size_t)pc * (size_t)mc * sizeof *nd->xbuf)) ||
        !(nd->tbuf = malloc((size_t)pc * (size_t)mc * sizeof *nd->tbuf)) ||
        !(nd->ebuf = malloc((size_t)pc * (size_t)mc * sizeof *nd->ebuf))) {
      fupermod_hs_node_free(nd);
      return fupermod_error(FUPERMOD_ERR_NOMEM, "hiscale: out of memory for node %d", k);
    }
  }
  nd->p = p;
  for (int i = 0; i < p; i++) {
    fupermod_hscale_fn *f = &nd->fn[i];
    int rc;
    f->count = 0;
    f->x = nd->xbuf + (size_t)i * (size_t)m;
    f->t = nd->tbuf + (size_t)i * (size_t)m;
    f->e = nd->ebuf + (size_t)i * (size_t)m;
    if ((rc = prob->device(k, i, f, prob->ctx)) != FUPERMOD_SUCCESS)
      return fupermod_error_prefix(rc, "hiscale: function of node %d device %d", k, i);
    if (f->count < 1 || f->count > m)
      return fupermod_error(FUPERMOD_ERR_INPUT, "hiscale: node %d device %d has %d points (need 1..%d)", k, i,
                            f->count, m);
    if (energy && !f->e)
      return fupermod_error(FUPERMOD_ERR_INPUT, "hiscale: node %d device %d has no energies", k, i);
    for (int j = 0; j < f->count; j++)
      if (f->x[j] < 1 || (j && f->x[j] <= f->x[j - 1]) || !(f->t[j] > 0) || !isfinite(f->t[j]) ||
          (energy && (!(f->e[j] >= 0) || !isfinite(f->e[j]))))
        return fupermod_error(FUPERMOD_ERR_INPUT,
                              "hiscale: node %d device %d point %d: need ascending sizes >= 1, time > 0%s", k, i, j,
                              energy ? ", finite energy >= 0" : "");
    nd->xmax[i] = f->x[f->count - 1];
    if ((size_t)nd->xmax[i] + 1 > nd->idxcap[i]) {
      free(nd->idx[i]);
      nd->idxcap[i] = (size_t)nd->xmax[i] + 1;
      if (!(nd->idx[i] = malloc(nd->idxcap[i] * sizeof *nd->idx[i]))) {
        nd->idxcap[i] = 0;
        return fupermod_error(FUPERMOD_ERR_NOMEM, "hiscale: out of memory for node %d", k);
      }
    }
    for (long x = 0; x <= nd->xmax[i]; x++) nd->idx[i][x] = -1;
    for (int j = 0; j < f->count; j++) nd->idx[i][f->x[j]] = j;
  }
  return FUPERMOD_SUCCESS;
}

int fupermod_hscale_points(int node, int device, fupermod_hscale_fn *fn, void *ctx) {
  const fupermod_hscale_points_ctx *c = ctx;
  const fupermod_points *f = c->f[c->first[node] + device];
  fn->count = f->count;
  for (int j = 0; j < f->count; j++) {
    fn->x[j] = f->pts[j].d;
    fn->t[j] = f->pts[j].t;
    if (f->has_energy) fn->e[j] = f->pts[j].e;
  }
  if (!f->has_energy) fn->e = NULL;
  return FUPERMOD_SUCCESS;
}

/* ---------------------------------------------------------------- reductions */

/* dst |= src << s over words of bits */
static void shift_or(uint64_t *dst, const uint64_t *src, long words, long s) {
  const long ws = s / 64, bs = s % 64;
  for (long w = words - 1; w >= ws; w--) {
    uint64_t v = src[w - ws] << bs;
    if (bs && w - ws - 1 >= 0) v |= src[w - ws - 1] >> (64 - bs);
    dst[w] |= v;
  }
}

static inline int bit(const uint64_t *row, long v) { return (int)((row[v / 64] >> (v % 64)) & 1U); }

/* Rows of reachable reduction sums over [0, r]: row j+1 after items[0..j]. keep: every row. The
 * returned row index holds the last computed row; stop early when stop_r is reached. */
static long reach(int n, const int *items, const long *M, fupermod_hs_member in, const void *ctx, long r, int keep,
                  uint64_t *rows, long words, int stop_at_r) {
  long cur = 0;
  memset(rows, 0, (size_t)words * sizeof *rows);
  rows[0] = 1;
  for (int j = 0; j < n; j++) {
    const int i = items ? items[j] : j;
    const long nxt = keep ? j + 1 : (cur ^ 1);
    uint64_t *dst = rows + nxt * words;
    const uint64_t *src = rows + cur * words;
    const long top = M[i] < r ? M[i] : r;
    memset(dst, 0, (size_t)words * sizeof *dst);
    for (long d = 0; d <= top; d++)
      if (in(ctx, i, M[i] - d)) shift_or(dst, src, words, d);
    cur = nxt;
    if (stop_at_r && bit(dst, r)) break;
  }
  return cur;
}

int fupermod_hs_reduce(int n, const int *items, const long *M, fupermod_hs_member in, const void *ctx, long r,
                       long *delta, long *exact) {
  long left = r, words, cur;
  uint64_t *rows;
  for (int j = n - 1; j >= 0; j--) {
    const int i = items ? items[j] : j;
    long c = 0;
    while (c < left && c < M[i] && in(ctx, i, M[i] - c - 1)) c++;
    if (delta) delta[i] = c;
    left -= c;
  }
  if (left == 0) return 1;
  if (delta)
    for (int j = 0; j < n; j++) delta[items ? items[j] : j] = 0;
  if (exact) (*exact)++;
  words = r / 64 + 1;
  if ((delta ? (long)n + 1 : 2L) > HS_BITS_LIMIT / words)
    return fupermod_error(FUPERMOD_ERR_NOMEM, "hiscale: exact check of %ld units over %d items is too large", r, n);
  if (!(rows = malloc((size_t)(delta ? n + 1 : 2) * (size_t)words * sizeof *rows)))
    return fupermod_error(FUPERMOD_ERR_NOMEM, "hiscale: out of memory for the exact check");
  cur = reach(n, items, M, in, ctx, r, delta != NULL, rows, words, 1);
  if (!bit(rows + cur * words, r)) {
    free(rows);
    return 0;
  }
  if (delta) {
    long s = r;
    for (long j = cur - 1; j >= 0; j--) {
      const int i = items ? items[j] : (int)j;
      const uint64_t *prev = rows + j * words;
      long d;
      for (d = 0; d <= s && d <= M[i]; d++)
        if (in(ctx, i, M[i] - d) && bit(prev, s - d)) break;
      delta[i] = d; /* found: the row was built from the same tests */
      s -= d;
    }
  }
  free(rows);
  return 1;
}

static const long *sort_M;
static int by_top(const void *a, const void *b) {
  const int i = *(const int *)a, j = *(const int *)b;
  if (sort_M[i] != sort_M[j]) return sort_M[i] > sort_M[j] ? -1 : 1;
  return (i > j) - (i < j);
}

int fupermod_hs_fewest(int n, const long *M, fupermod_hs_member in, const void *ctx, long target, long *x,
                       long *exact) {
  int *order = malloc((size_t)n * sizeof *order), c = 0, rc = 0;
  long *delta = calloc((size_t)n, sizeof *delta), sum = 0, total = 0;
  if (!order || !delta) {
    free(order);
    free(delta);
    return fupermod_error(FUPERMOD_ERR_NOMEM, "hiscale: out of memory");
  }
  for (int i = 0; i < n; i++) {
    order[i] = i;
    total += M[i];
  }
  if (total >= target) {
    /* n is small (devices) or the sort is once per solve (nodes): a comparison sort is enough */
#pragma omp critical
    {
      sort_M = M;
      qsort(order, (size_t)n, sizeof *order, by_top);
    }
    /* the shortest prefix of this order that takes target exactly */
    while (sum < target) sum += M[order[c++]];
    for (; rc == 0 && c <= n; sum += c < n ? M[order[c]] : 0, c++)
      if ((rc = fupermod_hs_reduce(c, order, M, in, ctx, sum - target, delta, exact)) == 1) {
        for (int i = 0; i < n; i++) x[i] = 0;
        for (int j = 0; j < c; j++) x[order[j]] = M[order[j]] - delta[order[j]];
      }
  }
  free(order);
  free(delta);
  return rc;
}

/* ---------------------------------------------------------------- MPI helpers */

void fupermod_hs_block(MPI_Comm comm, int q, int *k0, int *k1) {
  int rank = 0, size = 1;
  if (comm != MPI_COMM_NULL) {
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
  }
  *k0 = (int)((long)q * rank / size);
  *k1 = (int)((long)q * (rank + 1) / size);
}

void fupermod_hs_fail_keep(fupermod_hs_fail *f, int trc) {
  if (trc == FUPERMOD_SUCCESS || f->rc != FUPERMOD_SUCCESS) return;
  f->rc = trc;
  snprintf(f->msg, sizeof f->msg, "%s", fupermod_error_message());
}

int fupermod_hs_fail_take(const fupermod_hs_fail *f, int rc) {
  if (rc != FUPERMOD_SUCCESS || f->rc == FUPERMOD_SUCCESS) return rc;
  return fupermod_error(f->rc, "%s", f->msg);
}

int fupermod_hs_agree(MPI_Comm comm, int rc) {
  int size, *all;
  if (comm == MPI_COMM_NULL) return rc;
  MPI_Comm_size(comm, &size);
  if (!(all = malloc((size_t)size * sizeof *all))) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  if (MPI_Allgather(&rc, 1, MPI_INT, all, 1, MPI_INT, comm) != MPI_SUCCESS) {
    free(all);
    return fupermod_error(FUPERMOD_ERR_MPI, "hiscale: MPI_Allgather failed");
  }
  for (int r = 0; r < size; r++)
    if (all[r] != FUPERMOD_SUCCESS) {
      int first = all[r];
      if (rc == FUPERMOD_SUCCESS) fupermod_error(first, "hiscale: rank %d failed", r);
      free(all);
      return first;
    }
  free(all);
  return FUPERMOD_SUCCESS;
}

int fupermod_hs_gather(MPI_Comm comm, const void *mine, long n, MPI_Datatype type, size_t size, void **all) {
  int np, rc = FUPERMOD_SUCCESS, *cnt = NULL, *dsp = NULL;
  long mylong = n, *lens = NULL, total = 0;
  *all = NULL;
  MPI_Comm_size(comm, &np);
  if (!(lens = malloc((size_t)np * sizeof *lens)) || !(cnt = malloc((size_t)np * sizeof *cnt)) ||
      !(dsp = malloc((size_t)np * sizeof *dsp))) {
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "hiscale: out of memory");
    goto done;
  }
  MPI_Allgather(&mylong, 1, MPI_LONG, lens, 1, MPI_LONG, comm);
  for (int r = 0; r < np; r++) {
    if (total > INT_MAX - lens[r]) {
      rc = fupermod_error(FUPERMOD_ERR_USAGE, "hiscale: %ld gathered items exceed one MPI message", total + lens[r]);
      goto done;
    }
    cnt[r] = (int)lens[r];
    dsp[r] = (int)total;
    total += lens[r];
  }
  if (!(*all = malloc((size_t)(total ? total : 1) * size))) {
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "hiscale: out of memory for %ld gathered items", total);
    goto done;
  }
  if (MPI_Allgatherv(mine, (int)n, type, *all, cnt, dsp, type, comm) != MPI_SUCCESS)
    rc = fupermod_error(FUPERMOD_ERR_MPI, "hiscale: MPI_Allgatherv failed");
done:
  free(lens);
  free(cnt);
  free(dsp);
  if (rc != FUPERMOD_SUCCESS) {
    free(*all);
    *all = NULL;
  }
  return rc;
}

int fupermod_hs_gather_shares(MPI_Comm comm, const long *first, int k0, int k1, fupermod_hscale_result *res) {
  void *all;
  int rc = fupermod_hs_gather(comm, res->share + first[k0], first[k1] - first[k0], MPI_LONG, sizeof(long), &all);
  if (rc != FUPERMOD_SUCCESS) return rc;
  memcpy(res->share, all, (size_t)res->total * sizeof *res->share);
  free(all);
  return FUPERMOD_SUCCESS;
}

int fupermod_hs_start(MPI_Comm comm, const fupermod_hscale_problem *prob, fupermod_hscale_result *res,
                      fupermod_hs_run *run) {
  int total, rc;
  memset(run, 0, sizeof *run);
  if (!res) return fupermod_error(FUPERMOD_ERR_USAGE, "hiscale: NULL result");
  if ((rc = fupermod_hs_result_alloc(prob, res, &total)) != FUPERMOD_SUCCESS) return rc;
  run->comm = comm;
  run->prob = prob;
  run->q = prob->q;
  fupermod_hs_block(comm, run->q, &run->k0, &run->k1);
  if (!(run->first = calloc((size_t)run->q + 1, sizeof *run->first))) {
    fupermod_hscale_result_free(res);
    return fupermod_error(FUPERMOD_ERR_NOMEM, "hiscale: out of memory");
  }
  for (int k = 0; k < run->q; k++) run->first[k + 1] = run->first[k] + prob->devices[k];
  return FUPERMOD_SUCCESS;
}

int fupermod_hs_end(fupermod_hs_run *run, int rc, fupermod_hscale_result *res) {
  res->exact_checks = run->exact;
  if (rc != FUPERMOD_SUCCESS) fupermod_hscale_result_free(res);
  free(run->first);
  return rc;
}

void fupermod_hscale_result_free(fupermod_hscale_result *res) {
  if (!res) return;
  free(res->node_share);
  free(res->share);
  memset(res, 0, sizeof *res);
}

int fupermod_hs_result_alloc(const fupermod_hscale_problem *prob, fupermod_hscale_result *res, int *total) {
  memset(res, 0, sizeof *res);
  if (!prob || prob->q < 1 || !prob->devices || !prob->device || prob->max_points < 1 || prob->D < 0)
    return fupermod_error(FUPERMOD_ERR_USAGE,
                          "hiscale: bad problem (need q >= 1 nodes, devices, a device callback, max_points >= 1, D >= 0)");
  *total = 0;
  for (int k = 0; k < prob->q; k++) {
    if (prob->devices[k] < 1 || *total > INT_MAX - prob->devices[k])
      return fupermod_error(FUPERMOD_ERR_USAGE, "hiscale: node %d has %d devices", k, prob->devices[k]);
    *total += prob->devices[k];
  }
  res->q = prob->q;
  res->total = *total;
  if (!(res->node_share = calloc((size_t)prob->q, sizeof *res->node_share)) ||
      !(res->share = calloc((size_t)*total, sizeof *res->share))) {
    fupermod_hscale_result_free(res);
    return fupermod_error(FUPERMOD_ERR_NOMEM, "hiscale: out of memory for %d devices", *total);
  }
  return FUPERMOD_SUCCESS;
}

/* ---------------------------------------------------------------- node functions */

typedef struct {
  const fupermod_hs_node *nd;
  const long *X;
  double tau;
} dev_in_ctx;

static int dev_in(const void *ctx, int i, long v) {
  const dev_in_ctx *c = ctx;
  int j;
  if (v == 0 || v == c->X[i]) return 1;
  j = c->nd->idx[i][v];
  return j >= 0 && c->nd->fn[i].t[j] <= c->tau;
}

/* The sweep: staircase steps of every device in increasing time; after each, the pending
 * workloads (at most sum X) are certified by runs, else by the subset-sum of the overshoot. */
static int node_time(const fupermod_hs_node *nd, long wmax, double *T, long *exact) {
  const int p = nd->p;
  int *roff = malloc(((size_t)p + 1) * sizeof *roff), *rec = NULL, *ptr = calloc((size_t)p, sizeof *ptr);
  long *X = calloc((size_t)p, sizeof *X), *pend = malloc(((size_t)wmax + 1) * sizeof *pend), U = 0, done = 0;
  uint64_t *rows = NULL;
  long np = 0, rows_words = 0, *ex = NULL;
  double *et = NULL;
  int rc = FUPERMOD_SUCCESS, n = 0, *ed = NULL;
  dev_in_ctx c = {nd, X, 0.0};
  if (!roff || !ptr || !X || !pend) {
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "hiscale: out of memory");
    goto done;
  }
  for (int i = 0; i < p; i++) n += nd->fn[i].count;
  if (!(rec = malloc((size_t)n * sizeof *rec))) {
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "hiscale: out of memory");
    goto done;
  }
  /* every device's points in increasing time (insertion sort: measured functions are nearly
   * sorted by size already) */
  n = 0;
  for (int i = 0; i < p; i++) {
    const fupermod_hscale_fn *f = &nd->fn[i];
    roff[i] = n;
    for (int j = 0; j < f->count; j++) {
      int a = n + j;
      while (a > roff[i] && f->t[rec[a - 1]] > f->t[j]) {
        rec[a] = rec[a - 1];
        a--;
      }
      rec[a] = j;
    }
    n += f->count;
  }
  roff[p] = n;
  /* merged over the devices (lower device on ties), so that the sweep reads one array */
  if (!(et = malloc((size_t)n * sizeof *et)) || !(ex = malloc((size_t)n * sizeof *ex)) ||
      !(ed = malloc((size_t)n * sizeof *ed))) {
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "hiscale: out of memory");
    goto done;
  }
  {
    double head[64], *hp = p <= 64 ? head : malloc((size_t)p * sizeof *hp);
    if (!hp) {
      rc = fupermod_error(FUPERMOD_ERR_NOMEM, "hiscale: out of memory");
      goto done;
    }
    for (int i = 0; i < p; i++) hp[i] = roff[i] < roff[i + 1] ? nd->fn[i].t[rec[roff[i]]] : INFINITY;
    for (int e = 0; e < n; e++) {
      int best = 0;
      double bt = hp[0];
      for (int i = 1; i < p; i++) { /* branch-free: the winner is unpredictable */
        const int lt = hp[i] < bt;
        best = lt ? i : best;
        bt = lt ? hp[i] : bt;
      }
      et[e] = hp[best];
      ex[e] = nd->fn[best].x[rec[roff[best] + ptr[best]]];
      ed[e] = best;
      ptr[best]++;
      hp[best] = roff[best] + ptr[best] < roff[best + 1] ? nd->fn[best].t[rec[roff[best] + ptr[best]]] : INFINITY;
    }
    if (hp != head) free(hp);
  }
  T[0] = 0.0;
  for (long w = 1; w <= wmax; w++) T[w] = INFINITY;
  for (int e = 0; e < n;) {
    const double tau = et[e];
    long C = 0, rmax, keep = 0;
    int grew = 0;
    /* the sets B_i(tau) gain these points; X_i moves when one is larger */
    for (; e < n && et[e] == tau; e++)
      if (ex[e] > X[ed[e]]) {
        U += ex[e] - X[ed[e]];
        X[ed[e]] = ex[e];
        grew = 1;
      }
    if (!grew && np == 0) continue;
    c.tau = tau;
    for (; done < wmax && done < U; done++) pend[np++] = done + 1;
    if (np == 0) continue;
    rmax = U - pend[0];
    for (int i = 0; i < p && C < rmax; i++)
      for (long r = 0; C < rmax && r < X[i] && dev_in(&c, i, X[i] - r - 1); r++) C++;
    for (long j = 0; j < np; j++)
      if (U - pend[j] <= C) T[pend[j]] = tau;
      else pend[keep++] = pend[j];
    np = keep;
    if (np == 0) continue;
    /* the rest: which overshoots in (C, rmax] are sums of reductions (one table for all) */
    rmax = U - pend[0];
    if (exact) (*exact)++;
    if (rmax / 64 + 1 > rows_words) {
      free(rows);
      rows_words = rmax / 64 + 1;
      if (!(rows = malloc(2 * (size_t)rows_words * sizeof *rows))) {
        rc = fupermod_error(FUPERMOD_ERR_NOMEM, "hiscale: out of memory");
        goto done;
      }
    }
    {
      const long words = rmax / 64 + 1, cur = reach(p, NULL, X, dev_in, &c, rmax, 0, rows, words, 0);
      const uint64_t *row = rows + cur * words;
      keep = 0;
      for (long j = 0; j < np; j++)
        if (bit(row, U - pend[j])) T[pend[j]] = tau;
        else pend[keep++] = pend[j];
      np = keep;
    }
  }
done:
  free(et);
  free(ex);
  free(ed);
  free(roff);
  free(rec);
  free(ptr);
  free(X);
  free(pend);
  free(rows);
  return rc;
}

static long node_wmax(const fupermod_hs_node *nd, long D) {
  long w = 0;
  for (int i = 0; i < nd->p; i++) w += nd->xmax[i];
  return w < D ? w : D;
}

int fupermod_hscale_node_time(const fupermod_hscale_problem *prob, int k, long wmax, double *T) {
  fupermod_hs_node nd;
  int rc;
  if (!prob || k < 0 || k >= prob->q || !T || wmax < 0)
    return fupermod_error(FUPERMOD_ERR_USAGE, "hiscale: node function: bad arguments");
  memset(&nd, 0, sizeof nd);
  rc = fupermod_hs_node_load(prob, k, 0, &nd);
  if (rc == FUPERMOD_SUCCESS) rc = node_time(&nd, wmax, T, NULL);
  fupermod_hs_node_free(&nd);
  return rc;
}

/* ---------------------------------------------------------------- between nodes */

typedef struct {
  double *const *T;
  double tau;
} node_in_ctx;

static int node_in(const void *ctx, int k, long v) {
  const node_in_ctx *c = ctx;
  return v == 0 || c->T[k][v] <= c->tau;
}

/* largest w with Tsuf[w] <= tau and finite (Tsuf non-decreasing, Tsuf[0] = 0) */
static long top_under(const double *Tsuf, long W, double tau) {
  long lo = 0, hi = W;
  while (lo < hi) {
    long mid = lo + (hi - lo + 1) / 2;
    if (Tsuf[mid] <= tau && Tsuf[mid] < INFINITY) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

static long sum_tops(int q, double *const *Tsuf, const long *W, double tau, long *M) {
  long s = 0;
#pragma omp parallel for reduction(+ : s) schedule(static) if (q >= 1024)
  for (int k = 0; k < q; k++) {
    long m = top_under(Tsuf[k], W[k], tau);
    if (M) M[k] = m;
    s += m;
  }
  return s;
}

/* The least tau whose node sets reach D, the node shares w, or FUPERMOD_ERR_INFEASIBLE. */
static int between_nodes(int q, double *const *T, double *const *Tsuf, const long *W, long D, double *tau_out,
                         long *w, long *exact) {
  long *M = malloc((size_t)q * sizeof *M);
  uint64_t lo, hi;
  double tau;
  int rc = FUPERMOD_SUCCESS;
  node_in_ctx c = {T, 0.0};
  if (!M) return fupermod_error(FUPERMOD_ERR_NOMEM, "hiscale: out of memory");
  if (sum_tops(q, Tsuf, W, INFINITY, NULL) < D) {
    free(M);
    return fupermod_error(FUPERMOD_ERR_INFEASIBLE, "hiscale: D = %ld exceeds what the nodes can take", D);
  }
  /* least tau (a node-function value) with sum of tops >= D */
  lo = fupermod_hs_key(0.0);
  hi = fupermod_hs_key(INFINITY);
  while (lo < hi) {
    uint64_t mid = lo + (hi - lo) / 2;
    if (sum_tops(q, Tsuf, W, fupermod_hs_unkey(mid), NULL) >= D) hi = mid;
    else lo = mid + 1;
  }
  tau = fupermod_hs_unkey(lo);
  for (;;) {
    double next = INFINITY;
    sum_tops(q, Tsuf, W, tau, M);
    c.tau = tau;
    rc = fupermod_hs_fewest(q, M, node_in, &c, D, w, exact);
    if (rc != 0) break;
    /* not reachable at tau: the next node-function value */
#pragma omp parallel for reduction(min : next) schedule(static)
    for (int k = 0; k < q; k++)
      for (long v = 1; v <= W[k]; v++)
        if (T[k][v] > tau && T[k][v] < next) next = T[k][v];
    if (next == INFINITY) {
      rc = fupermod_error(FUPERMOD_ERR_INFEASIBLE, "hiscale: no split of D = %ld between the nodes", D);
      break;
    }
    tau = next;
  }
  free(M);
  if (rc == 1) {
    *tau_out = tau;
    rc = FUPERMOD_SUCCESS;
  }
  return rc;
}

/* ---------------------------------------------------------------- inside nodes */

/* Device shares of node k for workload w under makespan tau (fewest active devices). */
static int split_time(const fupermod_hs_node *nd, int k, long w, double tau, long *x, long *exact) {
  long X[64], *Xp = nd->p <= 64 ? X : malloc((size_t)nd->p * sizeof *Xp);
  dev_in_ctx c = {nd, NULL, tau};
  int rc;
  if (!Xp) return fupermod_error(FUPERMOD_ERR_NOMEM, "hiscale: out of memory");
  for (int i = 0; i < nd->p; i++) {
    Xp[i] = 0;
    for (int j = 0; j < nd->fn[i].count; j++)
      if (nd->fn[i].t[j] <= tau) Xp[i] = nd->fn[i].x[j];
  }
  c.X = Xp;
  rc = fupermod_hs_fewest(nd->p, Xp, dev_in, &c, w, x, exact);
  if (rc == 0)
    rc = fupermod_error(FUPERMOD_ERR_NUMERIC, "hiscale: node %d cannot split its share %ld at time %.17g", k, w, tau);
  if (Xp != X) free(Xp);
  return rc < 0 ? rc : FUPERMOD_SUCCESS;
}

/* ---------------------------------------------------------------- the solver */

/* The time solver's state: the node functions T[k] over 0..W[k] (after stage 1 every rank holds
 * every node's), their suffix minima, the node shares w. */
typedef struct {
  fupermod_hs_run run;
  long *W, *Wloc, *w;
  double **T, **Tsuf, *Tall, *Tloc;
  size_t *off;
} hs_time;

static int time_alloc(hs_time *s) {
  const size_t q = (size_t)s->run.q;
  if (!(s->W = calloc(q, sizeof *s->W)) || !(s->T = calloc(q, sizeof *s->T)) ||
      !(s->Tsuf = calloc(q, sizeof *s->Tsuf)) || !(s->off = calloc(q + 1, sizeof *s->off)) ||
      !(s->w = calloc(q, sizeof *s->w)))
    return fupermod_error(FUPERMOD_ERR_NOMEM, "hiscale: out of memory");
  return FUPERMOD_SUCCESS;
}

static void time_free(hs_time *s) {
  void *arrays[] = {s->W, s->Wloc, s->T, s->Tsuf ? s->Tsuf[0] : NULL, s->Tsuf, s->Tall, s->Tloc, s->off, s->w};
  if (s->T && !s->Tall) /* not gathered: each node function is its own block */
    for (int k = 0; k < s->run.q; k++) free(s->T[k]);
  for (size_t i = 0; i < sizeof arrays / sizeof *arrays; i++) free(arrays[i]);
}

/* Stage 1: the node functions of this rank's nodes, each in its own block. */
static int node_functions(hs_time *s) {
  fupermod_hs_run *run = &s->run;
  fupermod_hs_fail fail = {FUPERMOD_SUCCESS, ""};
  long exact = 0;
#pragma omp parallel
  {
    fupermod_hs_node nd;
    long ex = 0;
    int trc = FUPERMOD_SUCCESS;
    memset(&nd, 0, sizeof nd);
#pragma omp for schedule(dynamic, 8)
    for (int k = run->k0; k < run->k1; k++) {
      if (trc != FUPERMOD_SUCCESS || (trc = fupermod_hs_node_load(run->prob, k, 0, &nd)) != FUPERMOD_SUCCESS) continue;
      s->W[k] = node_wmax(&nd, run->prob->D);
      if (!(s->T[k] = malloc(((size_t)s->W[k] + 1) * sizeof *s->T[k])))
        trc = fupermod_error(FUPERMOD_ERR_NOMEM, "hiscale: out of memory for the node functions");
      else trc = node_time(&nd, s->W[k], s->T[k], &ex);
    }
#pragma omp critical
    {
      fupermod_hs_fail_keep(&fail, trc);
      exact += ex;
    }
    fupermod_hs_node_free(&nd);
  }
  run->exact += exact;
  return fupermod_hs_agree(run->comm, fupermod_hs_fail_take(&fail, FUPERMOD_SUCCESS));
}

/* Stage 1, collective: every rank gets every node function, in one array. */
static int share_node_functions(hs_time *s) {
  const MPI_Comm comm = s->run.comm;
  const int q = s->run.q, k0 = s->run.k0, k1 = s->run.k1, nloc = k1 - k0;
  size_t *off = s->off, o = 0;
  void *all;
  int rc = FUPERMOD_SUCCESS;
  for (int k = k0; k < k1; k++) off[k + 1 - k0] = off[k - k0] + (size_t)s->W[k] + 1;
  if (!(s->Tloc = malloc((off[nloc] ? off[nloc] : 1) * sizeof *s->Tloc)))
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "hiscale: out of memory for the node functions");
  for (int k = k0; k < k1 && rc == FUPERMOD_SUCCESS; k++) {
    memcpy(s->Tloc + off[k - k0], s->T[k], ((size_t)s->W[k] + 1) * sizeof *s->Tloc);
    free(s->T[k]);
    s->T[k] = NULL;
  }
  if ((rc = fupermod_hs_agree(comm, rc)) != FUPERMOD_SUCCESS) return rc;
  if ((rc = fupermod_hs_gather(comm, s->W + k0, nloc, MPI_LONG, sizeof(long), &all)) == FUPERMOD_SUCCESS) {
    s->Wloc = all;
    memcpy(s->W, s->Wloc, (size_t)q * sizeof *s->W);
    rc = fupermod_hs_gather(comm, s->Tloc, (long)off[nloc], MPI_DOUBLE, sizeof(double), &all);
    s->Tall = all;
  }
  if ((rc = fupermod_hs_agree(comm, rc)) != FUPERMOD_SUCCESS) return rc;
  free(s->Tloc);
  s->Tloc = NULL;
  for (int k = 0; k < q; k++) {
    s->T[k] = s->Tall + o;
    o += (size_t)s->W[k] + 1;
  }
  return FUPERMOD_SUCCESS;
}

/* Stage 2: Tsuf[k][v] = min T[k][v..W[k]], for the tops under a makespan. */
static int suffix_minima(hs_time *s) {
  const int q = s->run.q;
  long *W = s->W;
  double **T = s->T, **Tsuf = s->Tsuf, *sufall;
  size_t o = 0;
  for (int k = 0; k < q; k++) o += (size_t)W[k] + 1;
  if (!(sufall = malloc(o * sizeof *sufall)))
    return fupermod_error(FUPERMOD_ERR_NOMEM, "hiscale: out of memory for the suffix minima");
  o = 0;
  for (int k = 0; k < q; k++) {
    Tsuf[k] = sufall + o;
    o += (size_t)W[k] + 1;
  }
#pragma omp parallel for schedule(dynamic, 64)
  for (int k = 0; k < q; k++) {
    Tsuf[k][W[k]] = T[k][W[k]];
    for (long v = W[k] - 1; v >= 0; v--) Tsuf[k][v] = T[k][v] < Tsuf[k][v + 1] ? T[k][v] : Tsuf[k][v + 1];
  }
  return FUPERMOD_SUCCESS;
}

/* Stage 3: each of this rank's nodes splits its share under tau; then every rank gets every
 * share and the distribution's makespan and energy. */
static int inside_nodes(hs_time *s, double tau, fupermod_hscale_result *res) {
  fupermod_hs_run *run = &s->run;
  const long *w = s->w, *first = run->first;
  double tmax = 0.0, esum = 0.0;
  long exact = 0;
  int has_e = 1, rc;
  fupermod_hs_fail fail = {FUPERMOD_SUCCESS, ""};
#pragma omp parallel
  {
    fupermod_hs_node nd;
    long ex = 0;
    int trc = FUPERMOD_SUCCESS;
    memset(&nd, 0, sizeof nd);
#pragma omp for schedule(dynamic, 8) reduction(max : tmax) reduction(+ : esum) reduction(&& : has_e)
    for (int k = run->k0; k < run->k1; k++) {
      long *x = res->share + first[k];
      if (trc != FUPERMOD_SUCCESS) continue;
      if ((trc = fupermod_hs_node_load(run->prob, k, 0, &nd)) != FUPERMOD_SUCCESS) continue;
      if (w[k] > 0 && (trc = split_time(&nd, k, w[k], tau, x, &ex)) != FUPERMOD_SUCCESS) continue;
      for (int i = 0; i < nd.p; i++)
        if (x[i] > 0) {
          const int j = nd.idx[i][x[i]];
          if (nd.fn[i].t[j] > tmax) tmax = nd.fn[i].t[j];
          if (nd.fn[i].e) esum += nd.fn[i].e[j];
          else has_e = 0;
        }
    }
#pragma omp critical
    {
      fupermod_hs_fail_keep(&fail, trc);
      exact += ex;
    }
    fupermod_hs_node_free(&nd);
  }
  run->exact += exact;
  rc = fupermod_hs_agree(run->comm, fupermod_hs_fail_take(&fail, FUPERMOD_SUCCESS));
  if (rc != FUPERMOD_SUCCESS) return rc;
  if (run->comm != MPI_COMM_NULL) {
    double tl = tmax, el = has_e ? esum : NAN;
    if ((rc = fupermod_hs_gather_shares(run->comm, first, run->k0, run->k1, res)) != FUPERMOD_SUCCESS) return rc;
    MPI_Allreduce(&tl, &tmax, 1, MPI_DOUBLE, MPI_MAX, run->comm);
    MPI_Allreduce(&el, &esum, 1, MPI_DOUBLE, MPI_SUM, run->comm);
    has_e = !isnan(esum);
    MPI_Allreduce(MPI_IN_PLACE, &run->exact, 1, MPI_LONG, MPI_SUM, run->comm);
  }
  res->time = tmax;
  res->bound = tau;
  res->energy = has_e ? esum : NAN;
  return FUPERMOD_SUCCESS;
}

int fupermod_hscale_time(MPI_Comm comm, const fupermod_hscale_problem *prob, fupermod_hscale_result *res) {
  hs_time s = {0};
  double t0, tau = 0.0;
  int rc;
  if ((rc = fupermod_hs_start(comm, prob, res, &s.run)) != FUPERMOD_SUCCESS) return rc;
  /* 1. node functions */
  t0 = fupermod_hs_now();
  if ((rc = time_alloc(&s)) != FUPERMOD_SUCCESS || (rc = node_functions(&s)) != FUPERMOD_SUCCESS) goto done;
  if (comm != MPI_COMM_NULL && (rc = share_node_functions(&s)) != FUPERMOD_SUCCESS) goto done;
  res->stage_s[0] = fupermod_hs_now() - t0;
  /* 2. between nodes */
  t0 = fupermod_hs_now();
  if ((rc = suffix_minima(&s)) != FUPERMOD_SUCCESS) goto done;
  if (prob->D == 0) {
    res->time = res->bound = 0.0;
    res->energy = 0.0;
    res->stage_s[1] = fupermod_hs_now() - t0;
    goto done;
  }
  rc = between_nodes(prob->q, s.T, s.Tsuf, s.W, prob->D, &tau, s.w, &s.run.exact);
  free(s.Tsuf[0]);
  s.Tsuf[0] = NULL;
  if (rc != FUPERMOD_SUCCESS) goto done;
  memcpy(res->node_share, s.w, (size_t)prob->q * sizeof *s.w);
  res->stage_s[1] = fupermod_hs_now() - t0;
  /* 3. inside nodes */
  t0 = fupermod_hs_now();
  if ((rc = inside_nodes(&s, tau, res)) != FUPERMOD_SUCCESS) goto done;
  if (res->time != tau)
    rc = fupermod_error(FUPERMOD_ERR_NUMERIC, "hiscale: the devices' makespan %.17g is not the optimum %.17g",
                        res->time, tau);
  res->stage_s[2] = fupermod_hs_now() - t0;
done:
  time_free(&s);
  return fupermod_hs_end(&s.run, rc, res);
}
