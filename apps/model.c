/* The applications' cost models (apps/model.h). They mirror what apps/summa.c and apps/fft2d.c
 * send: a change of either's messages must change its model here. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "apps/apps.h"
#include "apps/model.h"
#include "apps/summa.h"
#include "apps/summa_pieces.h"

/* One message's time and half-width; FUPERMOD_ERR_INPUT for a link not measured. */
static int msg(const fupermod_comm *cm, int i, int j, double bytes, double *t, double *ci) {
  double c = 0;
  *t = *ci = 0;
  if (!cm || i == j || bytes <= 0) return FUPERMOD_SUCCESS;
  if ((*t = fupermod_comm_time_ci(cm, i, j, bytes, &c)) < 0)
    return fupermod_error(FUPERMOD_ERR_INPUT, "cost model: the link of processes %d and %d was not measured", i, j);
  *ci = c;
  return FUPERMOD_SUCCESS;
}

static int check_comm(const fupermod_comm *cm, int p) {
  if (cm && cm->p != p)
    return fupermod_error(FUPERMOD_ERR_USAGE, "cost model: the communication model has %d processes, the distribution %d",
                          cm->p, p);
  return FUPERMOD_SUCCESS;
}

typedef struct {
  int row0, rows, col0, cols;
} ext_t;

/* A message from i to q of time t (half-width ci): what i sends and q receives; between two
 * processes of one group (grp), also in q's repeat of it (in), so that the group counts it once. */
static void add_msg(const int *grp, int i, int q, double t, double ci, double *s, double *r, double *sci, double *rci,
                    double *in, double *inci) {
  s[i] += t, sci[i] += ci, r[q] += t, rci[q] += ci;
  if (grp && grp[i] == grp[q]) in[q] += t, inci[q] += ci;
}

/* One SUMMA step's messages. Between processes of one host (host NULL: every process on one)
 * they are copied by the processes' own cores: per process, what it sends (s) and receives (r),
 * and the repeats within groups (in), added to its update. Between hosts the network moves them
 * while the update computes (apps/summa.c tests them between chunks of it): per host, the time
 * of what leaves it (out) and what reaches it (into) through its one link, which its processes'
 * messages share (step_wire); wire[i]: process i has some. */
typedef struct {
  const int *grp, *host;
  int p, H;
  double share; /* the measured share of messages at once between hosts (fupermod_comm_share_measure); 0: 1 */
  double *s, *r, *sci, *rci, *in, *inci;
  double *out, *into, *outci, *intoci, *big;
  int *wire;
} step_msgs;

static void step_clear(step_msgs *m) {
  for (int i = 0; i < m->p; i++) m->s[i] = m->r[i] = m->sci[i] = m->rci[i] = m->in[i] = m->inci[i] = 0, m->wire[i] = 0;
  for (int h = 0; h < m->H; h++) m->out[h] = m->into[h] = m->outci[h] = m->intoci[h] = m->big[h] = 0;
}

static void step_add(step_msgs *m, int i, int q, double t, double ci) {
  if (!m->host || m->host[i] == m->host[q]) {
    add_msg(m->grp, i, q, t, ci, m->s, m->r, m->sci, m->rci, m->in, m->inci);
    return;
  }
  m->out[m->host[i]] += t, m->outci[m->host[i]] += ci;
  m->into[m->host[q]] += t, m->intoci[m->host[q]] += ci;
  if (t > m->big[m->host[i]]) m->big[m->host[i]] = t;
  if (t > m->big[m->host[q]]) m->big[m->host[q]] = t;
  m->wire[i] = m->wire[q] = 1;
}

/* Process i's wire time in the step (0 without any): its host's link busy with every message
 * leaving or reaching the host, their times one at a time scaled by the measured share of
 * messages at once (1 without a measurement: one after the other, both directions), and never
 * less than its longest message. */
static double step_wire(const step_msgs *m, int i, double *ci) {
  int h;
  double f = m->share > 0 && isfinite(m->share) ? m->share : 1.0, t;
  *ci = 0;
  if (!m->wire[i]) return 0;
  h = m->host[i];
  t = f * (m->out[h] + m->into[h]);
  *ci = f * (m->outci[h] + m->intoci[h]);
  return t > m->big[h] ? t : m->big[h];
}

/* Per process, its group's messages (cal's group): the sum over the members of what each sends and
 * receives (r may be NULL: in s already), less the repeats; without groups, its own. */
static void group_sum(int p, const int *grp, const double *s, const double *r, const double *in, double *out) {
  for (int i = 0; i < p; i++) out[i] = 0;
  for (int j = 0; j < p; j++) {
    int L = grp && grp[j] >= 0 && grp[j] <= j ? grp[j] : j;
    out[L] += s[j] + (r ? r[j] : 0) - in[j];
  }
  for (int i = 0; i < p; i++)
    if (grp && grp[i] >= 0 && grp[i] < i) out[i] = out[grp[i]];
}

/* Messages of the pivot starting at column kc0, kb wide, into m (step_msgs). */
static int pivot_msgs(const fupermod_comm *cm, step_msgs *m, const ext_t *e, int kc0, int kb) {
  int rc = FUPERMOD_SUCCESS, p = m->p;
  step_clear(m);
  for (int i = 0; i < p && rc == FUPERMOD_SUCCESS; i++) {
    int have_a = kc0 >= e[i].col0 && kc0 < e[i].col0 + e[i].cols, have_b = kc0 >= e[i].row0 && kc0 < e[i].row0 + e[i].rows;
    if (e[i].rows == 0 || e[i].cols == 0 || (!have_a && !have_b)) continue;
    for (int q = 0; q < p && rc == FUPERMOD_SUCCESS; q++) {
      double t, ci;
      if (q == i || e[q].rows == 0 || e[q].cols == 0) continue;
      /* A: my rows of the pivot column to every process overlapping them that lacks it */
      if (have_a && !(kc0 >= e[q].col0 && kc0 < e[q].col0 + e[q].cols)) {
        int lo = e[i].row0 > e[q].row0 ? e[i].row0 : e[q].row0;
        int hi = e[i].row0 + e[i].rows < e[q].row0 + e[q].rows ? e[i].row0 + e[i].rows : e[q].row0 + e[q].rows;
        if (hi > lo && (rc = msg(cm, i, q, 8.0 * (hi - lo) * kb, &t, &ci)) == FUPERMOD_SUCCESS) step_add(m, i, q, t, ci);
      }
      /* B: my columns of the pivot row, likewise along columns */
      if (rc == FUPERMOD_SUCCESS && have_b && !(kc0 >= e[q].row0 && kc0 < e[q].row0 + e[q].rows)) {
        int lo = e[i].col0 > e[q].col0 ? e[i].col0 : e[q].col0;
        int hi = e[i].col0 + e[i].cols < e[q].col0 + e[q].cols ? e[i].col0 + e[i].cols : e[q].col0 + e[q].cols;
        if (hi > lo && (rc = msg(cm, i, q, 8.0 * (hi - lo) * kb, &t, &ci)) == FUPERMOD_SUCCESS) step_add(m, i, q, t, ci);
      }
    }
  }
  return rc;
}

/* pivot_msgs on a layout with pieces: the transfers apps/summa.c posts for pivot k (one message per
 * intersection of a receiver's rows, or columns, with a piece holding the pivot; none for its own) */
static int piece_msgs(const fupermod_comm *cm, step_msgs *m, fupermod_summa_plan *pl, fupermod_summa_xfer *x, int k) {
  int rc = FUPERMOD_SUCCESS, kb = pl->b < pl->n - k * pl->b ? pl->b : pl->n - k * pl->b;
  step_clear(m);
  for (int kind = 0; kind < 2 && rc == FUPERMOD_SUCCESS; kind++) {
    long nx = fupermod_summa_plan_xfers(pl, k, kind, -1, x);
    for (long t = 0; t < nx && rc == FUPERMOD_SUCCESS; t++) {
      double tm, ci;
      if (x[t].from == x[t].to) continue;
      if ((rc = msg(cm, x[t].from, x[t].to, 8.0 * (x[t].hi - x[t].lo) * kb, &tm, &ci)) == FUPERMOD_SUCCESS)
        step_add(m, x[t].from, x[t].to, tm, ci);
    }
  }
  return rc;
}

/* cal's factor for process i (1 without one) */
static double factor(const double *f, int i) { return f && f[i] > 0 && isfinite(f[i]) ? f[i] : 1.0; }
/* cal's factor of the messages */
static double msgs_of(const fupermod_app_cal *cal) { return cal && cal->msgs > 0 && isfinite(cal->msgs) ? cal->msgs : 1.0; }

int fupermod_summa_predict(const fupermod_layout *l, int n, int b, fupermod_app_time t, void *ctx,
                           const fupermod_comm *cm, const fupermod_app_cal *cal, fupermod_app_pred *out) {
  int rc, p, K, pieces;
  ext_t *e;
  double *g, *gci, *s, *r, *sci, *rci, *c, *cci, *in, *inci, *G, *Gci, *hosts = NULL;
  const int *grp = cal ? cal->group : NULL, *host = cal ? cal->host : NULL;
  int H = 0, *wire = NULL;
  step_msgs m;
  fupermod_summa_plan pl;
  fupermod_summa_xfer *x = NULL;
  if (!l || !t || !out || n < 1 || b < 1)
    return fupermod_error(FUPERMOD_ERR_USAGE, "summa predict: NULL layout, time or output, or n, b < 1");
  p = l->p;
  pieces = l->npieces > 0;
  if ((rc = check_comm(cm, p)) != FUPERMOD_SUCCESS) return rc;
  K = (n + b - 1) / b;
  memset(&pl, 0, sizeof pl);
  if (pieces) {
    /* the messages of every pivot, as apps/summa.c enumerates them */
    long xmax = 1;
    if ((rc = fupermod_summa_local(l, 0, n, b, NULL)) != FUPERMOD_SUCCESS ||
        (rc = fupermod_layout_check(l)) != FUPERMOD_SUCCESS)
      return fupermod_error_prefix(rc, "summa predict");
    if ((rc = fupermod_summa_plan_make(l, n, b, &pl)) != FUPERMOD_SUCCESS) return rc;
    for (int k = 0; k < K; k++)
      for (int kind = 0; kind < 2; kind++) {
        long nx = fupermod_summa_plan_xfers(&pl, k, kind, -1, NULL);
        if (nx > xmax) xmax = nx;
      }
    if (!(x = malloc((size_t)xmax * sizeof *x))) {
      fupermod_summa_plan_free(&pl);
      return fupermod_error(FUPERMOD_ERR_NOMEM, "summa predict: out of memory");
    }
  }
  e = calloc((size_t)p, sizeof *e);
  g = calloc((size_t)p * 12, sizeof *g);
  for (int i = 0; host && i < p; i++)
    if (host[i] >= H) H = host[i] + 1;
  hosts = calloc(5 * (size_t)H + 1, sizeof *hosts);
  wire = calloc((size_t)p, sizeof *wire);
  if (!e || !g || !hosts || !wire) {
    free(e), free(g), free(x), free(hosts), free(wire);
    fupermod_summa_plan_free(&pl);
    return fupermod_error(FUPERMOD_ERR_NOMEM, "summa predict: out of memory");
  }
  gci = g + p, s = g + 2 * p, r = g + 3 * p, sci = g + 4 * p, rci = g + 5 * p, c = g + 6 * p, cci = g + 7 * p;
  in = g + 8 * p, inci = g + 9 * p, G = g + 10 * p, Gci = g + 11 * p;
  m = (step_msgs){grp, host, p, H, cal ? cal->link_share : 0, s, r, sci, rci, in, inci,
                  hosts, hosts + H, hosts + 2 * H, hosts + 3 * H, hosts + 4 * H, wire};
  for (int i = 0; i < p && rc == FUPERMOD_SUCCESS && !pieces; i++)
    rc = fupermod_summa_extent(l, i, n, b, &e[i].row0, &e[i].rows, &e[i].col0, &e[i].cols);
  /* a full-width update's time per process (the last pivot, narrower, scales it) */
  for (int i = 0; i < p && rc == FUPERMOD_SUCCESS && !pieces; i++) {
    double units = (double)e[i].rows * e[i].cols / ((double)b * b);
    g[i] = gci[i] = 0;
    if (units > 0) {
      double f = factor(cal ? cal->comp : NULL, i);
      g[i] = f * t(i, units, &gci[i], ctx);
      gci[i] *= f;
    }
    if (!(g[i] >= 0) || !isfinite(g[i]))
      rc = fupermod_error(FUPERMOD_ERR_INPUT, "summa predict: no computation time for process %d at %g blocks", i, units);
  }
  /* with pieces: one update per piece, each at its own area */
  for (int j = 0; j < pl.np && rc == FUPERMOD_SUCCESS; j++) {
    int i = pl.owner[j];
    double units = (double)pl.rows[j] * pl.cols[j] / ((double)b * b), f = factor(cal ? cal->comp : NULL, i), ci = 0,
           tj = f * t(i, units, &ci, ctx);
    if (!(tj >= 0) || !isfinite(tj))
      rc = fupermod_error(FUPERMOD_ERR_INPUT, "summa predict: no computation time for process %d at %g blocks (piece %d)",
                          i, units, j);
    g[i] += tj, gci[i] += f * ci;
  }
  out->time = out->ci = 0;
  for (int i = 0; i < p; i++) {
    if (out->comp) out->comp[i] = 0;
    if (out->comm) out->comm[i] = 0;
  }
  /* pivot 0's messages before the first update */
  if (rc == FUPERMOD_SUCCESS && (rc = pieces ? piece_msgs(cm, &m, &pl, x, 0) : pivot_msgs(cm, &m, e, 0, b < n ? b : n)) ==
                                    FUPERMOD_SUCCESS) {
    double first = 0, fci = 0;
    group_sum(p, grp, s, r, in, G);
    group_sum(p, grp, sci, rci, inci, Gci);
    for (int i = 0; i < p; i++) {
      /* no update yet to hide the network's part behind */
      double wci, wt = step_wire(&m, i, &wci);
      c[i] = msgs_of(cal) * (G[i] + wt);
      cci[i] = msgs_of(cal) * (Gci[i] + wci);
      if (out->comm) out->comm[i] += msgs_of(cal) * (s[i] + r[i] + wt);
      if (c[i] > first) first = c[i], fci = cci[i];
    }
    out->time += first, out->ci += fci;
  }
  for (int k = 0; k < K && rc == FUPERMOD_SUCCESS; k++) {
    int kb = (k + 1) * b <= n ? b : n - k * b;
    double w = (double)kb / b, step = 0, stci = 0;
    if (k + 1 < K) {
      int nkb = (k + 2) * b <= n ? b : n - (k + 1) * b;
      if ((rc = pieces ? piece_msgs(cm, &m, &pl, x, k + 1) : pivot_msgs(cm, &m, e, (k + 1) * b, nkb)) != FUPERMOD_SUCCESS)
        break;
    } else
      step_clear(&m);
    group_sum(p, grp, s, r, in, G);
    group_sum(p, grp, sci, rci, inci, Gci);
    for (int i = 0; i < p; i++) {
      /* the update and the copies within the host, or the network's part if it takes longer */
      double wci, wt = step_wire(&m, i, &wci), busy = g[i] * w + msgs_of(cal) * G[i];
      double bci = gci[i] * w + msgs_of(cal) * Gci[i], net = msgs_of(cal) * wt;
      if (out->comp) out->comp[i] += g[i] * w;
      if (out->comm) out->comm[i] += msgs_of(cal) * (s[i] + r[i] + wt);
      if (busy > step) step = busy, stci = bci;
      if (net > step) step = net, stci = msgs_of(cal) * wci;
    }
    out->time += step, out->ci += stci;
  }
  free(e);
  free(g);
  free(hosts);
  free(wire);
  free(x);
  fupermod_summa_plan_free(&pl);
  return rc;
}

int fupermod_fft2d_predict(long M, long N, const fupermod_dist *rows, fupermod_app_time t, void *ctx,
                           const fupermod_comm *cm, const fupermod_app_cal *cal, fupermod_app_pred *out) {
  int rc, p;
  long *R, *col;
  double *x, *xci, *own, *m, *mci, *in, *inci, *G, *Gci, ph[2] = {0, 0}, phci[2] = {0, 0}, xmax = 0, xmaxci = 0;
  const int *grp = cal ? cal->group : NULL;
  if (!rows || !t || !out || M < 1 || N < 1)
    return fupermod_error(FUPERMOD_ERR_USAGE, "fft2d predict: NULL distribution, time or output, or M, N < 1");
  p = rows->size;
  if ((rc = check_comm(cm, p)) != FUPERMOD_SUCCESS) return rc;
  R = calloc((size_t)p + 1, sizeof *R);
  col = calloc((size_t)p, sizeof *col);
  x = calloc(9 * (size_t)p, sizeof *x);
  if (!R || !col || !x) {
    free(R), free(col), free(x);
    return fupermod_error(FUPERMOD_ERR_NOMEM, "fft2d predict: out of memory");
  }
  xci = x + p, own = x + 2 * p, m = x + 3 * p, mci = x + 4 * p, in = x + 5 * p, inci = x + 6 * p, G = x + 7 * p,
  Gci = x + 8 * p;
  if ((rc = fupermod_dist_offsets(rows, R)) == FUPERMOD_SUCCESS && R[p] != M)
    rc = fupermod_error(FUPERMOD_ERR_INPUT, "fft2d predict: the rows sum to %ld, not M = %ld", R[p], M);
  /* the plan's column distribution: proportional to the rows */
  for (int i = 0; i < p && rc == FUPERMOD_SUCCESS; i++) col[i] = N * R[i + 1] / M - N * R[i] / M;
  for (int i = 0; i < p && rc == FUPERMOD_SUCCESS; i++) {
    for (int k = 0; k < 2; k++) {
      long u = k == 0 ? rows->parts[i].d : col[i];
      double f = factor(cal ? (k ? cal->cols : cal->comp) : NULL, i), ci = 0, ti = u > 0 ? f * t(i, (double)u, &ci, ctx) : 0.0;
      ci *= f;
      if (!(ti >= 0) || !isfinite(ti)) {
        rc = fupermod_error(FUPERMOD_ERR_INPUT, "fft2d predict: no computation time for process %d at %ld %s", i, u,
                            k ? "columns" : "rows");
        break;
      }
      if (out->comp) out->comp[i] = (k ? out->comp[i] : 0) + ti;
      if (ti > ph[k]) ph[k] = ti, phci[k] = ci;
    }
    /* the transpose: i's d_i x c_j block to every j, the d_j x c_i blocks from them; the
     * transpose back moves the same blocks the other way */
    if (cal && cal->copy && cal->copy[i] > 0 && !(rows->parts[i].d == M && cal->direct && cal->direct[i]))
      own[i] = cal->copy[i] * 16.0 * (double)rows->parts[i].d * N;
    for (int j = 0; j < p && rc == FUPERMOD_SUCCESS && !(cal && cal->shared); j++) {
      double tm, cm_ci;
      if (j == i) continue;
      if ((rc = msg(cm, i, j, 16.0 * rows->parts[i].d * col[j], &tm, &cm_ci)) != FUPERMOD_SUCCESS) break;
      m[i] += tm, mci[i] += cm_ci;
      if ((rc = msg(cm, j, i, 16.0 * rows->parts[j].d * col[i], &tm, &cm_ci)) != FUPERMOD_SUCCESS) break;
      m[i] += tm, mci[i] += cm_ci;
      if (grp && grp[i] == grp[j]) in[i] += tm, inci[i] += cm_ci; /* the group's count of it is j's send */
    }
    x[i] = own[i] + msgs_of(cal) * m[i];
    if (out->comm) out->comm[i] = 2 * x[i];
  }
  /* a transpose ends with the slowest group: its members' copies at once, their messages in turn */
  group_sum(p, grp, m, NULL, in, G);
  group_sum(p, grp, mci, NULL, inci, Gci);
  for (int i = 0; i < p && rc == FUPERMOD_SUCCESS; i++) {
    double o = own[i];
    for (int j = 0; grp && j < p; j++)
      if (grp[j] == grp[i] && own[j] > o) o = own[j];
    x[i] = o + msgs_of(cal) * G[i];
    xci[i] = msgs_of(cal) * Gci[i];
    if (x[i] > xmax) xmax = x[i], xmaxci = xci[i];
  }
  if (rc == FUPERMOD_SUCCESS) {
    out->time = ph[0] + ph[1] + 2 * xmax;
    out->ci = phci[0] + phci[1] + 2 * xmaxci;
  }
  free(R);
  free(col);
  free(x);
  return rc;
}

int fupermod_jacobi_predict(long D, const fupermod_dist *rows, int iters, fupermod_app_time t, void *ctx,
                            const fupermod_comm *cm, const fupermod_app_cal *cal, fupermod_app_pred *out) {
  int rc, p;
  double comp = 0, compci = 0, x = 0, xci = 0, lat = 0;
  long total = 0;
  if (!rows || !t || !out || D < 1 || iters < 1)
    return fupermod_error(FUPERMOD_ERR_USAGE, "jacobi predict: NULL distribution, time or output, or D, iters < 1");
  p = rows->size;
  if ((rc = check_comm(cm, p)) != FUPERMOD_SUCCESS) return rc;
  for (int i = 0; i < p; i++) total += rows->parts[i].d;
  if (total != D) return fupermod_error(FUPERMOD_ERR_INPUT, "jacobi predict: the rows sum to %ld, not D = %ld", total, D);
  for (int i = 0; i < p && rc == FUPERMOD_SUCCESS; i++) {
    long d = rows->parts[i].d;
    double f = factor(cal ? cal->comp : NULL, i), ci = 0, ti = d > 0 ? f * t(i, (double)d, &ci, ctx) : 0.0;
    double snd = 0, sci = 0, rcv = 0, rci = 0;
    if (!(ti >= 0) || !isfinite(ti)) {
      rc = fupermod_error(FUPERMOD_ERR_INPUT, "jacobi predict: no computation time for process %d at %ld rows", i, d);
      break;
    }
    if (ti > comp) comp = ti, compci = f * ci;
    for (int j = 0; j < p && rc == FUPERMOD_SUCCESS; j++) {
      double tm, c;
      const fupermod_comm_link *l;
      if (j == i) continue;
      if ((rc = msg(cm, i, j, 8.0 * d, &tm, &c)) != FUPERMOD_SUCCESS) break;
      snd += tm, sci += c;
      if ((rc = msg(cm, j, i, 8.0 * rows->parts[j].d, &tm, &c)) != FUPERMOD_SUCCESS) break;
      rcv += tm, rci += c;
      if ((l = fupermod_comm_link_of(cm, i, j)) && l->n > 0 && l->pts[0].t > lat) lat = l->pts[0].t;
    }
    snd *= msgs_of(cal), rcv *= msgs_of(cal), sci *= msgs_of(cal), rci *= msgs_of(cal);
    if (snd + rcv > x) x = snd + rcv, xci = sci + rci;
    if (out->comp) out->comp[i] = iters * ti;
    if (out->comm) out->comm[i] = iters * (snd + rcv);
  }
  if (rc == FUPERMOD_SUCCESS) {
    double rounds = p > 1 ? ceil(log2((double)p)) : 0;
    out->time = iters * (comp + x + rounds * lat);
    out->ci = iters * (compci + xci);
    for (int i = 0; out->comm && i < p; i++) out->comm[i] += iters * rounds * lat;
  }
  return rc;
}

/* i's links within the working set: latencies summed, the slowest bandwidth; 0 alone */
static void links_of(const fupermod_comm *cm, int i, uint64_t working, double *alpha, double *beta) {
  *alpha = *beta = 0;
  if (!cm) return;
  for (int j = 0; j < cm->p && j < 64; j++) {
    const fupermod_comm_link *l;
    if (j == i || !(working >> j & 1) || !(l = fupermod_comm_link_of(cm, i, j))) continue;
    *alpha += l->alpha > 0 ? l->alpha : 0;
    if (l->beta > *beta) *beta = l->beta;
  }
}

double fupermod_summa_share_cost(int n, int b, int i, long d, uint64_t working, double tcomp, const fupermod_comm *cm,
                                 const fupermod_app_cal *cal) {
  double alpha, beta, nb = ceil((double)n / b), side = sqrt((double)d) * b;
  if (d <= 0) return 0.0;
  tcomp *= factor(cal ? cal->comp : NULL, i);
  links_of(cm, i, working, &alpha, &beta);
  if (side > n) side = n;
  /* each update: a piece of the pivot column (side x b) and of the pivot row (b x side), two
   * messages at the mean latency */
  return nb * (tcomp + (alpha > 0 || beta > 0 ? msgs_of(cal) * (2 * alpha / (__builtin_popcountll(working) - 1) +
                                                                 beta * 2 * 8.0 * side * b)
                                              : 0.0));
}

double fupermod_fft2d_share_cost(long M, long N, int i, long d, uint64_t working, double tcomp,
                                 const fupermod_comm *cm, const fupermod_app_cal *cal) {
  double alpha, beta, kept = (double)d * N / M, own = 0;
  if (d <= 0) return 0.0;
  links_of(cm, i, working, &alpha, &beta);
  if (cal && cal->copy && cal->copy[i] > 0 && !(d == M && cal->direct && cal->direct[i])) own = cal->copy[i] * 16.0 * (double)d * N;
  if (cal && cal->shared) alpha = beta = 0;
  /* each transpose: its copies; d x (N - kept) out, as much in */
  return (factor(cal ? cal->comp : NULL, i) + factor(cal ? cal->cols : NULL, i)) * tcomp +
         2 * (own + msgs_of(cal) * (alpha + beta * 16.0 * d * (N - kept)));
}

/* ---- the whole-run partition on the prediction itself ---- */

int fupermod_app_descend(fupermod_dist *d, long unit, fupermod_app_predict_fn pred, void *ctx, int max_moves,
                         double *best, int *moves) {
  int p, n = 0;
  double cur;
  if (!d || unit < 1 || !pred || max_moves < 0)
    return fupermod_error(FUPERMOD_ERR_USAGE, "descend: no distribution or prediction, or unit < 1, or max_moves < 0");
  p = d->size;
  cur = pred(d, ctx);
  if (!isfinite(cur)) return fupermod_error(FUPERMOD_ERR_INPUT, "descend: the starting distribution has no prediction");
  /* steps from large to the unit: far moves first, then the local minimum at the unit */
  long big = unit;
  while (big * 4 <= d->D / (2L * p) && big < (1L << 40)) big *= 4;
  for (long step = big;; step = step / 4 > unit ? step / 4 : unit) {
    for (;;) {
      int bi = -1, bj = -1;
      double bt = cur;
      /* the best move of step units from one process to another (which may idle it, or wake one) */
      for (int i = 0; i < p; i++) {
        if (d->parts[i].d < step) continue;
        for (int j = 0; j < p; j++) {
          if (j == i) continue;
          d->parts[i].d -= step, d->parts[j].d += step;
          double t = pred(d, ctx);
          d->parts[i].d += step, d->parts[j].d -= step;
          /* strictly lower, beyond rounding: no cycling on equal predictions */
          if (t < bt * (1 - 1e-12)) bt = t, bi = i, bj = j;
        }
      }
      if (bi < 0 || n >= max_moves) break;
      d->parts[bi].d -= step, d->parts[bj].d += step;
      cur = bt;
      n++;
    }
    if (step == unit || n >= max_moves) break;
  }
  if (best) *best = cur;
  if (moves) *moves = n;
  return FUPERMOD_SUCCESS;
}
