/* PARALEPH (Manumachu & Lastovetsky, IEEE Access 2018, Alg. 3-10), generalised to
 * heterogeneous functions with holes: the anti-diagonal wavefront over dpt(v, h), see
 * partitioners/paraleph.h for the recurrence and docs/algorithms.md for the scheme.
 *
 * Decisions (spec paraleph-aleph-popta.md section 7):
 *  - rows are v = 0..D with row 0 = 0 and a virtual base column 0 (0 at row 0, inf elsewhere),
 *    so column 1 uses the same recurrence as every other column;
 *  - a pointer is the index j of the size processor h takes (-1 = idle): the traceback needs
 *    nothing else, and one int per cell instead of the paper's four;
 *  - send before receive, from one thread; the traceback is one broadcast per column block
 *    (the block owner walks its columns, then broadcasts the cursor and its block's sizes);
 *  - cells with v above the most units processors 1..h can take are +inf without a scan (the
 *    plain recurrence gives the same bits, +inf with the idle pointer). */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <omp.h>
#include "partitioners/paraleph_impl.h"
#include "fupermod/mpi_thread.h"
#include "fupermod/util.h"

#define PL_TAG 7321
#define PL_BAND 64    /* default band of anti-diagonals (measured: docs/algorithms.md, PARALEPH) */
#define PL_SENDS 4096 /* one-value sends in flight before the oldest must complete */

/* ------------------------------------------------------------------ context and helpers */

double fupermod_paraleph_now(void) { return omp_get_wtime(); }

void *fupermod_paraleph_alloc(pl_ctx *ctx, size_t bytes) {
  const size_t huge = (size_t)2 << 20;
  size_t sz = (bytes + 63) / 64 * 64;
  void *p;
  if (sz >= 4 * huge) {
    /* the wavefront touches every column on every diagonal: 4 KB pages thrash the TLB */
    sz = (sz + huge - 1) / huge * huge;
    p = aligned_alloc(huge, sz);
#ifdef MADV_HUGEPAGE
    if (p) madvise(p, sz, MADV_HUGEPAGE);
#endif
  } else {
    p = sz ? aligned_alloc(64, sz) : NULL;
  }
  if (p && ctx) ctx->mem += sz;
  return p;
}

int fupermod_paraleph_ctx_open(MPI_Comm comm, int root, pl_ctx *ctx) {
  int init = 0, fin = 0;
  memset(ctx, 0, sizeof *ctx);
  ctx->comm = MPI_COMM_NULL;
  ctx->size = 1;
  ctx->root = root;
  MPI_Initialized(&init);
  if (init) MPI_Finalized(&fin);
  if (!init || fin) {
    /* without MPI only a single-rank run is possible */
    if (root != 0) return fupermod_error(FUPERMOD_ERR_USAGE, "paraleph: root %d without MPI", root);
    return FUPERMOD_SUCCESS;
  }
  if (comm == MPI_COMM_NULL) return fupermod_error(FUPERMOD_ERR_USAGE, "paraleph: null communicator");
  MPI_Comm_size(comm, &ctx->size);
  MPI_Comm_rank(comm, &ctx->rank);
  if (root < 0 || root >= ctx->size)
    return fupermod_error(FUPERMOD_ERR_USAGE, "paraleph: root %d not in a communicator of %d ranks", root,
                          ctx->size);
  if (ctx->size > 1) {
    /* OpenMP threads run while one thread calls MPI; the level must allow that on every rank */
    int ok = fupermod_mpi_check_thread(MPI_THREAD_FUNNELED, "paraleph") == FUPERMOD_SUCCESS, all = 0;
    char msg[512];
    snprintf(msg, sizeof msg, "%s", ok ? "" : fupermod_error_message());
    if (MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS)
      return fupermod_error(FUPERMOD_ERR_MPI, "paraleph: MPI_Allreduce failed");
    if (!all)
      return fupermod_error(FUPERMOD_ERR_MPI, "%s", ok ? "paraleph: another rank's MPI thread level is too low" : msg);
  }
  /* own communicator: our messages cannot match the application's */
  if (ctx->size > 1 && MPI_Comm_dup(comm, &ctx->comm) != MPI_SUCCESS)
    return fupermod_error(FUPERMOD_ERR_MPI, "paraleph: MPI_Comm_dup failed");
  if (ctx->size == 1) ctx->comm = MPI_COMM_NULL;
  return FUPERMOD_SUCCESS;
}

void fupermod_paraleph_ctx_close(pl_ctx *ctx) {
  if (ctx->comm != MPI_COMM_NULL) MPI_Comm_free(&ctx->comm);
}

void fupermod_paraleph_bcast(pl_ctx *ctx, void *buf, int count, MPI_Datatype type, int root) {
  if (ctx->size < 2 || count <= 0) return;
  double t0 = fupermod_paraleph_now();
  MPI_Bcast(buf, count, type, root, ctx->comm);
  ctx->comm_time += fupermod_paraleph_now() - t0;
}

int fupermod_paraleph_agree(pl_ctx *ctx, int status) {
  int in[2], out[2];
  char msg[512];
  if (ctx->size < 2) return status;
  in[0] = status;                               /* MIN: some error wins over success */
  in[1] = status != FUPERMOD_SUCCESS ? ctx->rank : ctx->size;
  MPI_Allreduce(in, out, 2, MPI_INT, MPI_MIN, ctx->comm);
  if (out[0] == FUPERMOD_SUCCESS) return FUPERMOD_SUCCESS;
  /* the first failing rank's message and code, the same everywhere */
  int code[1] = {status};
  snprintf(msg, sizeof msg, "%s", fupermod_error_message());
  MPI_Bcast(code, 1, MPI_INT, out[1], ctx->comm);
  MPI_Bcast(msg, (int)sizeof msg, MPI_CHAR, out[1], ctx->comm);
  msg[sizeof msg - 1] = 0;
  if (ctx->rank == out[1]) return code[0];
  return fupermod_error(code[0], "%s (rank %d)", msg, out[1]);
}

/* ------------------------------------------------------------------ problem broadcast */

static int validate(const fupermod_problem *prob, int objective) {
  int rc = fupermod_problem_check(prob, NULL);
  if (rc) return fupermod_error_prefix(rc, "paraleph");
  if (objective < FUPERMOD_OBJ_TIME || objective > FUPERMOD_OBJ_PARETO_TOTAL)
    return fupermod_error(FUPERMOD_ERR_USAGE, "paraleph: unknown objective %d", objective);
  if (prob->D > INT32_MAX - 2)
    return fupermod_error(FUPERMOD_ERR_USAGE, "paraleph: D=%ld is too large (at most %d)", prob->D,
                          INT32_MAX - 2);
  if (objective != FUPERMOD_OBJ_TIME)
    for (int i = 0; i < prob->p; i++)
      if (!prob->f[i]->has_energy)
        return fupermod_error(FUPERMOD_ERR_INPUT, "paraleph: -F sum and Pareto need energy, but the "
                              "function of processor %d has none", i);
  if (objective == FUPERMOD_OBJ_PARETO_TOTAL && !(prob->static_power >= 0 && isfinite(prob->static_power)))
    return fupermod_error(FUPERMOD_ERR_USAGE, "paraleph: total energy needs a static power >= 0 (W)");
  return FUPERMOD_SUCCESS;
}

/* Identical functions (aliased, or equal copies) travel once and share one candidate list; the
 * energy bound is strongest when every processor has the same function. */
static int same_function(const fupermod_points *a, const fupermod_points *b) {
  if (a == b) return 1;
  if (a->count != b->count || !a->has_energy != !b->has_energy) return 0;
  for (int j = 0; j < a->count; j++)
    if (a->pts[j].d != b->pts[j].d || a->pts[j].t != b->pts[j].t ||
        (a->has_energy && a->pts[j].e != b->pts[j].e))
      return 0;
  return 1;
}

void fupermod_paraleph_problem_free(pl_problem *P) {
  free(P->map);
  free(P->m);
  free(P->d);
  free(P->t);
  free(P->e);
  free(P->maxsum);
  free(P->dblk);
  free(P->tblk);
  free(P->eblk);
  memset(P, 0, sizeof *P);
}

int fupermod_paraleph_problem_bcast(pl_ctx *ctx, const fupermod_problem *prob, int objective,
                                    pl_problem *P) {
  long hdr[7] = {0};
  double sp = 0.0;
  int rc = FUPERMOD_SUCCESS, *uniq = NULL;
  memset(P, 0, sizeof *P);
  if (ctx->rank == ctx->root) {
    rc = validate(prob, objective);
    if (rc == FUPERMOD_SUCCESS) {
      /* aliased functions (homogeneous case) travel once */
      P->p = prob->p;
      P->map = malloc((size_t)prob->p * sizeof *P->map);
      uniq = malloc((size_t)prob->p * sizeof *uniq);
      if (!P->map || !uniq) rc = fupermod_error(FUPERMOD_ERR_NOMEM, "paraleph: out of memory");
      long total = 0;
      for (int i = 0; rc == 0 && i < prob->p; i++) {
        int k;
        for (k = 0; k < P->nf; k++)
          if (same_function(prob->f[uniq[k]], prob->f[i])) break;
        if (k == P->nf) {
          uniq[P->nf++] = i;
          total += prob->f[i]->count;
        }
        P->map[i] = k;
      }
      hdr[1] = prob->D;
      hdr[2] = prob->p;
      hdr[3] = objective;
      hdr[4] = P->nf;
      hdr[5] = total;
      hdr[6] = 1;
      for (int i = 0; i < prob->p; i++) hdr[6] &= prob->f[i]->has_energy ? 1 : 0;
      sp = prob->static_power;
    }
    hdr[0] = rc;
  }
  fupermod_paraleph_bcast(ctx, hdr, 7, MPI_LONG, ctx->root);
  if (hdr[0] != FUPERMOD_SUCCESS) {
    free(uniq);
    fupermod_paraleph_problem_free(P);
    /* root's check failed: every rank reports root's message */
    char msg[512];
    if (ctx->rank == ctx->root) snprintf(msg, sizeof msg, "%s", fupermod_error_message());
    fupermod_paraleph_bcast(ctx, msg, (int)sizeof msg, MPI_CHAR, ctx->root);
    msg[sizeof msg - 1] = 0;
    if (ctx->rank == ctx->root) return (int)hdr[0];
    return fupermod_error((int)hdr[0], "%s", msg);
  }
  P->D = hdr[1];
  P->p = (int)hdr[2];
  P->objective = (int)hdr[3];
  P->nf = (int)hdr[4];
  P->has_energy = (int)hdr[6];
  long total = hdr[5];
  rc = FUPERMOD_SUCCESS;
  if (ctx->rank != ctx->root) P->map = malloc((size_t)P->p * sizeof *P->map);
  P->m = malloc((size_t)P->nf * sizeof *P->m);
  P->d = malloc((size_t)P->nf * sizeof *P->d);
  P->t = malloc((size_t)P->nf * sizeof *P->t);
  P->e = malloc((size_t)P->nf * sizeof *P->e);
  P->maxsum = malloc((size_t)(P->p + 1) * sizeof *P->maxsum);
  P->dblk = malloc((size_t)total * sizeof *P->dblk);
  P->tblk = malloc((size_t)total * sizeof *P->tblk);
  P->eblk = malloc((size_t)total * sizeof *P->eblk);
  if (!P->map || !P->m || !P->d || !P->t || !P->e || !P->maxsum || !P->dblk || !P->tblk || !P->eblk)
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "paraleph: out of memory for the problem");
  rc = fupermod_paraleph_agree(ctx, rc);
  if (rc) {
    free(uniq);
    fupermod_paraleph_problem_free(P);
    return rc;
  }
  if (ctx->rank == ctx->root) {
    long at = 0;
    for (int k = 0; k < P->nf; k++) {
      const fupermod_points *f = prob->f[uniq[k]];
      P->m[k] = f->count;
      for (int j = 0; j < f->count; j++, at++) {
        P->dblk[at] = f->pts[j].d;
        P->tblk[at] = f->pts[j].t;
        P->eblk[at] = f->has_energy ? f->pts[j].e : 0.0;
      }
    }
  }
  free(uniq);
  fupermod_paraleph_bcast(ctx, P->map, P->p, MPI_INT, ctx->root);
  fupermod_paraleph_bcast(ctx, P->m, P->nf, MPI_INT, ctx->root);
  fupermod_paraleph_bcast(ctx, P->dblk, (int)total, MPI_LONG, ctx->root);
  fupermod_paraleph_bcast(ctx, P->tblk, (int)total, MPI_DOUBLE, ctx->root);
  fupermod_paraleph_bcast(ctx, P->eblk, (int)total, MPI_DOUBLE, ctx->root);
  fupermod_paraleph_bcast(ctx, &sp, 1, MPI_DOUBLE, ctx->root);
  P->static_power = sp;
  long at = 0;
  for (int k = 0; k < P->nf; k++) {
    P->d[k] = P->dblk + at;
    P->t[k] = P->tblk + at;
    P->e[k] = P->eblk + at;
    at += P->m[k];
  }
  P->maxsum[0] = 0;
  for (int h = 1; h <= P->p; h++) {
    int k = P->map[h - 1];
    long big = 0;
    for (int j = 0; j < P->m[k] && P->d[k][j] <= P->D; j++) big = P->d[k][j];
    P->maxsum[h] = P->maxsum[h - 1] + big;
    if (P->maxsum[h] > P->D) P->maxsum[h] = P->D + 1; /* saturate: no overflow */
  }
  return FUPERMOD_SUCCESS;
}

int fupermod_paraleph_first(int r, int active, int p) {
  int base = p / active, rem = p % active;
  return r * base + (r < rem ? r : rem) + 1;
}

void fupermod_paraleph_layout(int size, int rank, int p, pl_layout *lay) {
  lay->active = size < p ? size : p;
  if (rank < lay->active) {
    lay->h0 = fupermod_paraleph_first(rank, lay->active, p);
    lay->nb = fupermod_paraleph_first(rank + 1, lay->active, p) - lay->h0;
  } else {
    lay->h0 = p + 1;
    lay->nb = 0;
  }
}

int fupermod_paraleph_make_dist(const pl_problem *P, const long *d, fupermod_dist **out) {
  fupermod_dist *dist = fupermod_dist_alloc(P->D, P->p);
  if (!dist) return fupermod_error_prefix(FUPERMOD_ERR_NOMEM, "paraleph");
  for (int i = 0; i < P->p; i++) {
    int k = P->map[i];
    dist->parts[i].d = d[i];
    dist->parts[i].t = 0.0;
    dist->parts[i].e = P->has_energy ? 0.0 : NAN;
    if (d[i] > 0)
      for (int j = 0; j < P->m[k]; j++)
        if (P->d[k][j] == d[i]) {
          dist->parts[i].t = P->t[k][j];
          if (P->has_energy) dist->parts[i].e = P->e[k][j];
          break;
        }
  }
  *out = dist;
  return FUPERMOD_SUCCESS;
}

/* ------------------------------------------------------------------ candidate lists */

typedef struct {
  double key, idx;
} keyed;

static int by_key(const void *a, const void *b) {
  const keyed *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static void list_free(pl_list *c) {
  free(c->off);
  free(c->val);
  free(c->key);
  free(c->idx);
  free(c->xs);
  free(c->vs);
  free(c->rev);
  free(c->jofx);
  free((void *)c->sm_own);
  free(c->lam);
  free(c->phi);
  free(c->segofy);
  free(c->soff);
  free(c->sval);
  free(c->skey);
  free(c->sidx);
  memset(c, 0, sizeof *c);
}

/* Sort sizes j = 0..m-1 by key (then j) into the padded arrays off/val/key/idx. */
static int sort_into(const pl_problem *P, int k, const double *f, const double *keys, int m, int npad,
                     int32_t *off, double *val, double *key, double *idx) {
  keyed *ord = malloc((size_t)(m > 0 ? m : 1) * sizeof *ord);
  if (!ord) return -1;
  for (int j = 0; j < m; j++) {
    ord[j].idx = j;
    ord[j].key = keys[j];
  }
  qsort(ord, (size_t)m, sizeof *ord, by_key);
  for (int i = 0; i < npad; i++) {
    if (i < m) {
      int j = (int)ord[i].idx;
      off[i] = (int32_t)P->d[k][j];
      val[i] = f[j];
      key[i] = ord[i].key;
      idx[i] = j;
    } else {
      off[i] = INT32_MAX;
      val[i] = key[i] = idx[i] = INFINITY;
    }
  }
  free(ord);
  return 0;
}

#define PL_MAXSEG 64

/* Everything the kernels need for function k and op (see paraleph_kernel.c). */
static int list_build(pl_ctx *ctx, const pl_problem *P, int k, int op, pl_list *c) {
  const double *f = op == PL_OP_SUM ? P->e[k] : P->t[k];
  int m = 0, rc = 0;
  memset(c, 0, sizeof *c);
  while (m < P->m[k] && P->d[k][m] <= P->D) m++;
  c->m = c->n = m;
  c->X = m > 0 ? (int)P->d[k][m - 1] : 0;
  c->npad = (m + PL_PAD - 1) / PL_PAD * PL_PAD;
  if (c->npad == 0) c->npad = PL_PAD;
  size_t np = (size_t)c->npad;
  c->off = fupermod_paraleph_alloc(ctx, np * sizeof *c->off);
  c->val = fupermod_paraleph_alloc(ctx, np * sizeof *c->val);
  c->key = fupermod_paraleph_alloc(ctx, np * sizeof *c->key);
  c->idx = fupermod_paraleph_alloc(ctx, np * sizeof *c->idx);
  c->xs = fupermod_paraleph_alloc(ctx, np * sizeof *c->xs);
  c->vs = fupermod_paraleph_alloc(ctx, np * sizeof *c->vs);
  double *keys = malloc(np * sizeof *keys);
  if (!c->off || !c->val || !c->key || !c->idx || !c->xs || !c->vs || !keys) goto nomem;
  int prune_ok = 1;
  for (int i = 0; i < c->npad; i++) {
    c->xs[i] = i < m ? (int32_t)P->d[k][i] : INT32_MAX;
    c->vs[i] = i < m ? f[i] : INFINITY;
    if (i < m && (!(f[i] >= 0.0) || !isfinite(f[i]))) prune_ok = 0;
  }
  c->slack = 64.0 * ((double)P->p + 16.0) * DBL_EPSILON;
  if (c->slack < 1e-9) c->slack = 1e-9;
  if (op == PL_OP_SUM) {
    /* rho <= min e(x)/x over every processor's function (column h-1 mixes them), rounded down */
    double rho = INFINITY;
    for (int kk = 0; kk < P->nf; kk++)
      for (int j = 0; j < P->m[kk] && P->d[kk][j] <= P->D; j++) {
        double r = P->e[kk][j] / (double)P->d[kk][j];
        if (!(r >= 0.0) || !isfinite(r)) prune_ok = 0;
        if (r < rho) rho = r;
      }
    c->rho = m > 0 && prune_ok ? rho * (1.0 - 4 * DBL_EPSILON) : 0.0;
  }
  for (int j = 0; j < m; j++)
    keys[j] = !prune_ok ? -INFINITY : op == PL_OP_SUM ? f[j] - c->rho * (double)P->d[k][j] : f[j];
  if (sort_into(P, k, f, keys, m, c->npad, c->off, c->val, c->key, c->idx)) goto nomem;

  if (m > 0 && prune_ok && (long)c->X <= 4L * m + 64) {
    /* dense form: reversed times padded with +inf on both sides, suffix minimum, j of x */
    const int X = c->X;
    double *sm = fupermod_paraleph_alloc(ctx, ((size_t)X + 1) * sizeof *sm);
    c->rev = fupermod_paraleph_alloc(ctx, ((size_t)X + 2 + PL_PAD) * sizeof *c->rev);
    c->jofx = fupermod_paraleph_alloc(ctx, ((size_t)X + 1) * sizeof *c->jofx);
    c->sm_own = sm; /* the suffix minimum means something for times only */
    if (!sm || !c->rev || !c->jofx) goto nomem;
    for (int i = 0; i < X + 2 + PL_PAD; i++) c->rev[i] = INFINITY;
    for (int x = 0; x <= X; x++) c->jofx[x] = -1;
    for (int j = 0; j < m; j++) {
      c->rev[X + 1 - P->d[k][j]] = f[j];
      c->jofx[P->d[k][j]] = j;
    }
    sm[0] = 0.0;
    double run = INFINITY;
    for (int x = X; x >= 1; x--) {
      double t = c->rev[X + 1 - x];
      if (t < run) run = t;
      sm[x] = run;
    }
    c->dense = 1;
  }

  if (op == PL_OP_SUM && m > 0 && prune_ok && P->nf == 1) {
    /* lower convex hull of (0,0) and the points; its slopes are the multipliers */
    int *hv = malloc(((size_t)m + 1) * sizeof *hv), r = 0; /* hull vertices: -1 = origin, else j */
    if (!hv) goto nomem;
    hv[r++] = -1;
    for (int j = 0; j < m; j++) {
      double xj = (double)P->d[k][j], ej = f[j];
      while (r >= 2) {
        double x1 = hv[r - 2] < 0 ? 0 : (double)P->d[k][hv[r - 2]], e1 = hv[r - 2] < 0 ? 0 : f[hv[r - 2]];
        double x2 = hv[r - 1] < 0 ? 0 : (double)P->d[k][hv[r - 1]], e2 = hv[r - 1] < 0 ? 0 : f[hv[r - 1]];
        if ((x2 - x1) * (ej - e1) - (e2 - e1) * (xj - x1) <= 0) r--; /* not a left turn */
        else break;
      }
      hv[r++] = j;
    }
    int nh = r - 1; /* hull segments */
    int ns = nh < PL_MAXSEG ? nh : PL_MAXSEG;
    c->nseg = ns;
    c->lam = malloc((size_t)ns * sizeof *c->lam);
    c->phi = malloc((size_t)ns * sizeof *c->phi);
    c->segofy = malloc(((size_t)c->X + 1) * sizeof *c->segofy);
    c->soff = fupermod_paraleph_alloc(ctx, (size_t)ns * np * sizeof *c->soff);
    c->sval = fupermod_paraleph_alloc(ctx, (size_t)ns * np * sizeof *c->sval);
    c->skey = fupermod_paraleph_alloc(ctx, (size_t)ns * np * sizeof *c->skey);
    c->sidx = fupermod_paraleph_alloc(ctx, (size_t)ns * np * sizeof *c->sidx);
    if (!c->lam || !c->phi || !c->segofy || !c->soff || !c->sval || !c->skey || !c->sidx) {
      free(hv);
      goto nomem;
    }
    /* kept segment q stands for hull segments around seg(q); any slope gives a valid bound */
    for (int q = 0; q < ns; q++) {
      int sgm = ns == nh ? q : (int)((long)q * (nh - 1) / (ns > 1 ? ns - 1 : 1));
      double x1 = hv[sgm] < 0 ? 0 : (double)P->d[k][hv[sgm]], e1 = hv[sgm] < 0 ? 0 : f[hv[sgm]];
      double x2 = (double)P->d[k][hv[sgm + 1]], e2 = f[hv[sgm + 1]];
      double lam = (e2 - e1) / (x2 - x1), phi = 0.0;
      for (int j = 0; j < m; j++) {
        keys[j] = f[j] - lam * (double)P->d[k][j];
        if (keys[j] < phi) phi = keys[j];
      }
      c->lam[q] = lam;
      c->phi[q] = phi;
      if (sort_into(P, k, f, keys, m, c->npad, c->soff + q * np, c->sval + q * np, c->skey + q * np,
                    c->sidx + q * np)) {
        free(hv);
        goto nomem;
      }
    }
    for (int sgm = 0, y = 0; y <= c->X; y++) {
      while (sgm + 1 < nh && (long)P->d[k][hv[sgm + 1]] <= y) sgm++;
      c->segofy[y] = ns == nh ? sgm : (int)(((long)sgm * (ns - 1) + (nh - 1) / 2) / (nh > 1 ? nh - 1 : 1));
    }
    free(hv);
  }
  free(keys);
  return rc;
nomem:
  free(keys);
  list_free(c);
  return fupermod_error(FUPERMOD_ERR_NOMEM, "paraleph: out of memory for candidate lists");
}

/* ------------------------------------------------------------------ the wavefront */

static inline void ring_put(double *ring, long gm, long W, long v, double x) {
  long s = v & gm;
  ring[s] = x;
  if (s < 16) ring[s + W] = x;
}

static inline long cell_count(pl_run *R, int h, long v) {
  const size_t c = (size_t)(h - R->lay.h0);
  const double *g = c == 0 ? R->left : R->ring + (c - 1) * R->rs;
  const long gm = c == 0 ? R->left_gm : R->gm;
  double x = INFINITY;
  int32_t j = -1;
  long ev = 0;
  if (v <= R->P->maxsum[h]) {
    const pl_list *L = &R->lists[R->P->map[h - 1]];
    ev = L->fn(L, g, gm, (int32_t)v, h, R->idle ? g[v & gm] : INFINITY, &x, &j);
  }
  ring_put(R->ring + c * R->rs, R->gm, R->W, v, x);
  if (R->p16) R->p16[c * R->ld + (size_t)v] = (int16_t)j;
  else R->p32[c * R->ld + (size_t)v] = j;
  if (R->full) R->full[c * R->ld + (size_t)v] = x;
  return ev;
}

/* Estimated cost of column h, in cell overheads: every row costs one (ring, pointer, bounds),
 * a feasible row (v <= the most units processors 1..h take) a kernel call; for max the window
 * scan grows with the balanced size v/h (about one 16-size block per 16 units). Calibrated on
 * the benchmark's DGEMM and FFT shapes; only the balance between blocks depends on it. */
static double column_cost(const pl_problem *P, int op, int h) {
  double F = (double)(P->maxsum[h] < P->D ? P->maxsum[h] : P->D), per = 1.0;
  if (op == PL_OP_MAX) per += F / (2.0 * h) / 24.0;
  else per += 0.5;
  return (double)P->D + 1 + F * per;
}

/* Split columns first..first+n-1 into k contiguous non-empty parts (n >= k) of nearly equal
 * estimated cost. */
static void split_cost(const pl_problem *P, int op, int first, int n, int k, int *cut) {
  double total = 0, acc = 0;
  for (int h = first; h < first + n; h++) total += column_cost(P, op, h);
  cut[0] = first;
  int h = first;
  for (int i = 1; i < k; i++) {
    double target = total * i / k;
    while (h < first + n - (k - i) && (h < cut[i - 1] + 1 || acc + column_cost(P, op, h) / 2 < target)) {
      acc += column_cost(P, op, h);
      h++;
    }
    cut[i] = h;
  }
  cut[k] = first + n;
}

/* Wait for MPI requests without monopolising the core (spin a little, then yield). */
static void polite_waitall(int n, MPI_Request *rq) {
  double t0 = 0;
#ifdef FUPERMOD_SMPI
  /* SimGrid: no core to yield, and each test of a pending message leaves an entry behind in the
   * simulator that every later message pays for (docs/simulate.md) */
  (void)t0;
  MPI_Waitall(n, rq, MPI_STATUSES_IGNORE);
  return;
#endif
  for (int spin = 0, done = 0;; spin++) {
    MPI_Testall(n, rq, &done, MPI_STATUSES_IGNORE);
    if (done) return;
    /* the neighbour usually answers within a band's work: spin ~0.2 ms before yielding, or a
     * yield on a busy machine costs a whole time slice per band */
    if (spin == 64) t0 = fupermod_paraleph_now();
    if (spin > 64 && fupermod_paraleph_now() - t0 > 2e-4) sched_yield();
  }
}

static void polite_wait(MPI_Request *rq) { polite_waitall(1, rq); }

/* Cells of column h in band T (diagonals Lbeg + T*B .. + B-1), rows ascending. */
static void band_cols(pl_run *R, long Lbeg, long T, int a, int b, int progress, double *evals, double *cells) {
  const long D = R->P->D, L0 = Lbeg + T * R->band, L1 = L0 + R->band - 1;
  for (int h = a; h <= b; h++) {
    long vlo = L0 - h > 1 ? L0 - h : 1, vhi = L1 - h < D ? L1 - h : D;
    /* Open MPI moves shared-memory messages only inside MPI calls: keep them flowing while
     * computing, or queued one-value messages wait for the next band (thread 0 only) */
#ifndef FUPERMOD_SMPI /* SimGrid moves messages without calls (docs/simulate.md) */
    if (progress && (h - a) % 8 == 7) {
      int flag;
      MPI_Iprobe(MPI_ANY_SOURCE, PL_TAG, R->ctx->comm, &flag, MPI_STATUS_IGNORE);
    }
#endif
    for (long v = vlo; v <= vhi; v++) *evals += cell_count(R, h, v);
    if (vhi >= vlo) *cells += vhi - vlo + 1;
  }
}

/* The wavefront, in bands of B anti-diagonals: thread tau owns a fixed block of this rank's
 * columns and at step S computes band S - tau of it, column by column (a skewed pipeline: the
 * band of the column to its left was finished at step S - 1). One barrier per step; B = 1 is the
 * paper's schedule (one diagonal at a time), larger B keeps the left column's rows in cache
 * while a column advances B rows. Thread 0 does the MPI: before its band it sends every finished
 * value of the rank's last column to the right (one double per message, rows in order), then
 * receives the left column's rows that the band needs. */
static void wavefront(pl_run *R) {
  const long D = R->P->D;
  const int h0 = R->lay.h0, nb = R->lay.nb, h1 = h0 + nb - 1, T = R->threads;
  const int me = R->ctx->rank, lrank = me > 0 ? me - 1 : -1,
            rrank = me + 1 < R->lay.active ? me + 1 : -1;
  const MPI_Comm comm = R->ctx->comm;
  const long B = R->band, Lbeg = h0 + 1, Lend = (long)h1 + D, nbands = (Lend - Lbeg + B) / B;
  double evals = 0, cells = 0, commt = 0;
  long msgs = 0;
  double t0 = fupermod_paraleph_now();
  if (nb == 0) return;
  /* row 0; the base column (rank 0) or the received column's row 0 */
  for (int c = 0; c < nb; c++) {
    double z = R->idle ? 0.0 : INFINITY;
    ring_put(R->ring + (size_t)c * R->rs, R->gm, R->W, 0, z);
    if (R->p16) R->p16[(size_t)c * R->ld] = -1;
    else R->p32[(size_t)c * R->ld] = -1;
    if (R->full) R->full[(size_t)c * R->ld] = z;
  }
  if (me == 0) {
    R->left[0] = 0.0;
    for (long v = 1; v <= D; v++) R->left[v] = INFINITY;
  } else {
    ring_put(R->left, R->gm, R->W, 0, R->idle ? 0.0 : INFINITY);
  }
  pl_sync sync;
  pl_sync_init(&sync, T);
  int tcut[T + 1];
  long next_send = 1, next_recv = 1;
  double rbuf[B > 0 ? B : 1];
  MPI_Request rreq[B > 0 ? B : 1];
  MPI_Request *sreq = R->sreq;
  double *sbuf = R->sbuf;
  for (int i = 0; sreq && i < PL_SENDS; i++) sreq[i] = MPI_REQUEST_NULL;
#pragma omp parallel num_threads(T) reduction(+ : evals, cells, commt, msgs)
  {
    const int tid = omp_get_thread_num();
#pragma omp single
    {
      sync.n = omp_get_num_threads(); /* the team may be smaller than asked */
      int k = sync.n < nb ? sync.n : nb;
      split_cost(R->P, R->op, h0, nb, k, tcut);
      for (int i = k + 1; i <= sync.n; i++) tcut[i] = h1 + 1;
    }
    const int nt = sync.n, a = tcut[tid], b = tcut[tid + 1] - 1;
    int last = 0, sense = 0; /* the thread that owns column h1 */
    while (tcut[last + 1] <= h1) last++;
    const long nsteps = nbands + last;
    for (long S = 0; S <= nsteps; S++) {
      if (tid == 0) {
        double c0 = fupermod_paraleph_now();
        /* send first: rows of column h1 finished by thread `last` (bands <= S - 1 - last) */
        long fin = S - 1 - last < 0 ? 0 : Lbeg + (S - last) * B - 1 - h1;
        if (fin > D) fin = D;
        for (; rrank >= 0 && next_send <= fin; next_send++, msgs++) {
          /* nonblocking from a stable buffer: a blocking send would wait (polling) whenever
           * the right rank falls a FIFO's worth of messages behind */
          MPI_Request *rq = &sreq[next_send % PL_SENDS];
          if (*rq != MPI_REQUEST_NULL) polite_wait(rq);
          sbuf[next_send] = pl_run_val(R, (size_t)nb - 1, next_send);
          MPI_Isend(sbuf + next_send, 1, MPI_DOUBLE, rrank, PL_TAG, comm, rq);
        }
        if (S == nsteps)
          for (int i = 0; rrank >= 0 && i < PL_SENDS; i++)
            if (sreq[i] != MPI_REQUEST_NULL) polite_wait(&sreq[i]);
        long need = S < nbands ? Lbeg + (S + 1) * B - 1 - h0 : 0;
        if (need > D) need = D;
        if (lrank >= 0 && next_recv <= need) {
          /* one message per row, waited for politely: a blocking MPI_Recv polls without
           * yielding and, on a shared or oversubscribed core, starves the rank it waits for */
          int n = (int)(need - next_recv + 1);
          for (int i = 0; i < n; i++)
            MPI_Irecv(rbuf + i, 1, MPI_DOUBLE, lrank, PL_TAG, comm, rreq + i);
          polite_waitall(n, rreq);
          for (int i = 0; i < n; i++) ring_put(R->left, R->gm, R->W, next_recv + i, rbuf[i]);
          next_recv = need + 1;
        }
        commt += fupermod_paraleph_now() - c0;
      }
      if (S == nsteps) break;
      long Tb = S - tid;
      if (a <= b && Tb >= 0 && Tb < nbands)
        band_cols(R, Lbeg, Tb, a, b, tid == 0 && (lrank >= 0 || rrank >= 0), &evals, &cells);
      if (nt > 1) pl_sync_barrier(&sync, &sense);
    }
  }
  R->evals = evals;
  R->cells = cells;
  R->messages = msgs;
  R->ctx->comm_time += commt;
  R->table_time = fupermod_paraleph_now() - t0;
}

/* Shared by the single-objective and SUMMA entry points: lists, storage, table. */
int fupermod_paraleph_run_table(pl_ctx *ctx, pl_problem *P, int op, int idle, int threads, int kernel,
                                int keep_full, int band, pl_run *R) {
  int rc = FUPERMOD_SUCCESS, chosen = 0;
  memset(R, 0, sizeof *R);
  R->ctx = ctx;
  R->P = P;
  R->op = op;
  R->idle = idle;
  R->threads = threads > 0 ? threads : omp_get_max_threads();
  if (R->threads < 1) R->threads = 1;
  R->band = band > 0 ? band : PL_BAND;
  fupermod_paraleph_layout(ctx->size, ctx->rank, P->p, &R->lay);
  /* contiguous column blocks of nearly equal cost (the same on every rank) */
  R->cut = malloc(((size_t)R->lay.active + 1) * sizeof *R->cut);
  if (!R->cut) rc = fupermod_error(FUPERMOD_ERR_NOMEM, "paraleph: out of memory");
  else {
    split_cost(P, op, 1, P->p, R->lay.active, R->cut);
    if (ctx->rank < R->lay.active) {
      R->lay.h0 = R->cut[ctx->rank];
      R->lay.nb = R->cut[ctx->rank + 1] - R->lay.h0;
    }
  }
  R->ld = (size_t)P->D + 1;
  R->kern = fupermod_paraleph_kernel(op, kernel, &chosen);
  R->kind = chosen;
  if (!R->kern)
    rc = fupermod_error(FUPERMOD_ERR_USAGE, "paraleph: this CPU does not support the %s kernel",
                        fupermod_paraleph_kernel_name(kernel));
  if (rc == 0 && R->lay.nb > 0) {
    R->lists = calloc((size_t)P->nf, sizeof *R->lists);
    if (!R->lists) rc = fupermod_error(FUPERMOD_ERR_NOMEM, "paraleph: out of memory");
    for (int k = 0; rc == 0 && k < P->nf; k++) rc = list_build(ctx, P, k, op, &R->lists[k]);
    int Xall = 0, mmax = 0;
    for (int k = 0; rc == 0 && k < P->nf; k++) {
      if (R->lists[k].X > Xall) Xall = R->lists[k].X;
      if (P->m[k] > mmax) mmax = P->m[k];
    }
    if (rc == 0 && op == PL_OP_MAX) { /* for the window kernel's limits */
      if (P->nf == 1 && R->lists[0].dense) {
        R->lists[0].sm_all = R->lists[0].sm_own;
        R->lists[0].Xall = R->lists[0].X;
      } else {
        R->sm_all = fupermod_paraleph_alloc(ctx, ((size_t)Xall + 1) * sizeof *R->sm_all);
        if (!R->sm_all) rc = fupermod_error(FUPERMOD_ERR_NOMEM, "paraleph: out of memory");
        int alldense = 1;
        for (int k = 0; k < P->nf; k++) alldense &= R->lists[k].dense;
        for (int y = 0; rc == 0 && y <= Xall; y++) {
          /* a function without the dense form has no suffix minimum: no bound then (0) */
          double mn = y == 0 || !alldense ? 0.0 : INFINITY;
          for (int k = 0; y > 0 && alldense && k < P->nf; k++)
            if (y <= R->lists[k].X && R->lists[k].sm_own[y] < mn) mn = R->lists[k].sm_own[y];
          R->sm_all[y] = mn;
        }
        for (int k = 0; rc == 0 && k < P->nf; k++) {
          R->lists[k].sm_all = R->sm_all;
          R->lists[k].Xall = Xall;
        }
      }
    }
    for (int k = 0; rc == 0 && k < P->nf; k++) R->lists[k].fn = fupermod_paraleph_kernel_for(&R->lists[k], op, chosen);
    /* ring of W rows: W > X + 1, or the whole column when that is smaller */
    long need = (long)Xall + 3 * R->band + 2 < P->D + 1 ? (long)Xall + 3 * R->band + 2 : P->D + 1;
    R->W = 32;
    while (R->W < need) R->W <<= 1;
    R->gm = R->W - 1;
    R->rs = (size_t)R->W + 16;
    R->left_gm = ctx->rank == 0 ? -1 : R->gm;
    size_t cells = (size_t)R->lay.nb * R->ld;
    if (rc == 0 && cells / R->ld != (size_t)R->lay.nb)
      rc = fupermod_error(FUPERMOD_ERR_NOMEM, "paraleph: table too large");
    if (rc == 0) {
      R->ring = fupermod_paraleph_alloc(ctx, (size_t)R->lay.nb * R->rs * sizeof *R->ring);
      R->left = fupermod_paraleph_alloc(ctx, (ctx->rank == 0 ? R->ld : R->rs) * sizeof *R->left);
      if (mmax < 32768) R->p16 = fupermod_paraleph_alloc(ctx, cells * sizeof *R->p16);
      else R->p32 = fupermod_paraleph_alloc(ctx, cells * sizeof *R->p32);
      if (keep_full) R->full = fupermod_paraleph_alloc(ctx, cells * sizeof *R->full);
      int sends = ctx->rank + 1 < R->lay.active;
      if (sends) {
        R->sbuf = fupermod_paraleph_alloc(ctx, R->ld * sizeof *R->sbuf);
        R->sreq = fupermod_paraleph_alloc(ctx, PL_SENDS * sizeof *R->sreq);
      }
      if (!R->ring || !R->left || (!R->p16 && !R->p32) || (keep_full && !R->full) ||
          (sends && (!R->sbuf || !R->sreq)))
        rc = fupermod_error(FUPERMOD_ERR_NOMEM, "paraleph: out of memory for %d columns of %ld rows "
                            "(%.1f MB)", R->lay.nb, P->D + 1, (double)cells * (mmax < 32768 ? 2 : 4) / 1e6);
      else
        for (size_t i = 0; i < (size_t)R->lay.nb * R->rs; i++) R->ring[i] = INFINITY;
    }
  }
  rc = fupermod_paraleph_agree(ctx, rc);
  if (rc) return rc;
  wavefront(R);
  return FUPERMOD_SUCCESS;
}

void fupermod_paraleph_run_free(pl_run *R) {
  if (R->lists)
    for (int k = 0; k < R->P->nf; k++) list_free(&R->lists[k]);
  free(R->lists);
  free(R->cut);
  free(R->sm_all);
  free(R->ring);
  free(R->p16);
  free(R->p32);
  free(R->full);
  free(R->sbuf);
  free(R->sreq);
  free(R->left);
  memset(R, 0, sizeof *R);
}

/* Traceback from (D, hstart): one broadcast per block, right to left. Columns above hstart
 * are idle. d[0..p-1] is filled on every rank. */
void fupermod_paraleph_traceback(pl_ctx *ctx, const pl_run *R, int hstart, long *d) {
  const pl_problem *P = R->P;
  const int active = R->lay.active;
  int nbmax = 0;
  for (int r = 0; r < active; r++)
    if (R->cut[r + 1] - R->cut[r] > nbmax) nbmax = R->cut[r + 1] - R->cut[r];
  long buf[1 + nbmax];
  long v = P->D;
  for (int i = 0; i < P->p; i++) d[i] = 0;
  for (int r = active - 1; r >= 0; r--) {
    int h0 = R->cut[r], h1 = R->cut[r + 1] - 1;
    if (h0 > hstart) continue; /* idle block: nothing to trace */
    if (ctx->rank == r) {
      for (int h = (h1 < hstart ? h1 : hstart); h >= h0; h--) {
        int32_t j = pl_run_ptr(R, (size_t)(h - h0), v);
        long x = j < 0 ? 0 : P->d[P->map[h - 1]][j];
        buf[1 + (h - h0)] = x;
        v -= x;
      }
      for (int h = hstart + 1; h <= h1; h++) buf[1 + (h - h0)] = 0;
      buf[0] = v;
    }
    fupermod_paraleph_bcast(ctx, buf, 1 + (h1 - h0 + 1), MPI_LONG, r);
    v = buf[0];
    for (int h = h0; h <= h1; h++) d[h - 1] = buf[1 + (h - h0)];
  }
}

/* Value of cell (D, h) on every rank (broadcast by its owner). */
static double corner(pl_ctx *ctx, const pl_run *R, int h) {
  const int active = R->lay.active;
  int owner = 0;
  while (owner + 1 < active && R->cut[owner + 1] <= h) owner++;
  double x = 0;
  if (ctx->rank == owner) x = pl_run_val(R, (size_t)(h - R->lay.h0), R->P->D);
  fupermod_paraleph_bcast(ctx, &x, 1, MPI_DOUBLE, owner);
  return x;
}

static int gather_table(pl_ctx *ctx, const pl_run *R, fupermod_paraleph_table *tab) {
  const pl_problem *P = R->P;
  const int isroot = ctx->rank == ctx->root;
  int rc = FUPERMOD_SUCCESS, *cnt = NULL, *dsp = NULL;
  size_t total = (size_t)P->p * R->ld;
  if (total > INT_MAX) rc = fupermod_error(FUPERMOD_ERR_USAGE, "paraleph: table too large to gather");
  if (rc == 0 && isroot) {
    tab->D = P->D;
    tab->p = P->p;
    tab->val = malloc(total * sizeof *tab->val);
    tab->ptr = malloc(total * sizeof *tab->ptr);
    cnt = malloc((size_t)ctx->size * sizeof *cnt);
    dsp = malloc((size_t)ctx->size * sizeof *dsp);
    if (!tab->val || !tab->ptr || !cnt || !dsp) {
      fupermod_paraleph_table_free(tab);
      rc = fupermod_error(FUPERMOD_ERR_NOMEM, "paraleph: out of memory for the table copy");
    }
  }
  rc = fupermod_paraleph_agree(ctx, rc);
  int32_t *mp = NULL;
  size_t mine_n = (size_t)R->lay.nb * R->ld;
  if (rc == 0) {
    mp = malloc((mine_n ? mine_n : 1) * sizeof *mp);
    rc = fupermod_paraleph_agree(ctx, mp ? 0 : fupermod_error(FUPERMOD_ERR_NOMEM, "paraleph: out of memory"));
  }
  for (size_t i = 0; rc == 0 && i < mine_n; i++) mp[i] = R->p16 ? R->p16[i] : R->p32[i];
  if (rc == 0 && ctx->size < 2) {
    memcpy(tab->val, R->full, total * sizeof *tab->val);
    for (size_t i = 0; i < total; i++) tab->ptr[i] = mp[i];
  } else if (rc == 0) {
    for (int r = 0; isroot && r < ctx->size; r++) {
      int a = r < R->lay.active ? R->cut[r] : P->p + 1, nb = r < R->lay.active ? R->cut[r + 1] - a : 0;
      cnt[r] = nb * (int)R->ld;
      dsp[r] = nb ? (a - 1) * (int)R->ld : 0;
    }
    int mine = R->lay.nb * (int)R->ld;
    MPI_Gatherv(R->full, mine, MPI_DOUBLE, isroot ? tab->val : NULL, cnt, dsp, MPI_DOUBLE, ctx->root,
                ctx->comm);
    MPI_Gatherv(mp, mine, MPI_INT32_T, isroot ? tab->ptr : NULL, cnt, dsp, MPI_INT32_T, ctx->root,
                ctx->comm);
  }
  free(mp);
  free(cnt);
  free(dsp);
  return rc;
}

void fupermod_paraleph_finish_stats(pl_ctx *ctx, const pl_run *R, double t0, double objective,
                                    fupermod_paraleph_stats *st) {
  double mx[4] = {fupermod_paraleph_now() - t0, R->table_time, ctx->comm_time, (double)ctx->mem};
  double sm[3] = {R->cells, R->evals, (double)R->messages};
  if (ctx->size > 1) {
    MPI_Allreduce(MPI_IN_PLACE, mx, 4, MPI_DOUBLE, MPI_MAX, ctx->comm);
    MPI_Allreduce(MPI_IN_PLACE, sm, 3, MPI_DOUBLE, MPI_SUM, ctx->comm);
  }
  if (!st) return; /* the reductions above run anyway: stats may be NULL on some ranks only */
  st->kernel = fupermod_paraleph_kernel_name(R->kind);
  st->objective = objective;
  st->time = mx[0];
  st->table_time = mx[1];
  st->comm_time = mx[2];
  st->mem_rank = (size_t)mx[3];
  st->cells = sm[0];
  st->evals = sm[1];
  st->messages = (long)sm[2];
  st->nprocs = R->lay.active;
  st->threads = R->threads;
}

/* ------------------------------------------------------------------ entry points */

void fupermod_paraleph_table_free(fupermod_paraleph_table *tab) {
  if (!tab) return;
  free(tab->val);
  free(tab->ptr);
  tab->val = NULL;
  tab->ptr = NULL;
}

static int op_of(int objective) { return objective == FUPERMOD_OBJ_ENERGY ? PL_OP_SUM : PL_OP_MAX; }

int fupermod_paraleph_opt(MPI_Comm comm, int root, const fupermod_problem *prob, int objective,
                          const fupermod_paraleph_opts *opts, fupermod_dist **out,
                          fupermod_paraleph_stats *stats) {
  static const fupermod_paraleph_opts dflt = {0, FUPERMOD_PARALEPH_AUTO, 0, NULL};
  pl_ctx ctx;
  pl_problem P;
  pl_run R;
  double t0 = fupermod_paraleph_now();
  int rc;
  if (!opts) opts = &dflt;
  if (out) *out = NULL;
  if ((rc = fupermod_paraleph_ctx_open(comm, root, &ctx))) return rc;
  /* argument errors are local but identical on every rank */
  if (objective != FUPERMOD_OBJ_TIME && objective != FUPERMOD_OBJ_ENERGY)
    rc = fupermod_error(FUPERMOD_ERR_USAGE, "paraleph: objective must be time (-F max) or energy "
                        "(-F sum); use fupermod_paraleph_pareto for fronts");
  else if (!out)
    rc = fupermod_error(FUPERMOD_ERR_USAGE, "paraleph: no output given");
  if (rc) {
    fupermod_paraleph_ctx_close(&ctx);
    return rc;
  }
  if ((rc = fupermod_paraleph_problem_bcast(&ctx, prob, objective, &P))) {
    fupermod_paraleph_ctx_close(&ctx);
    return rc;
  }
  fupermod_test_hold("paraleph"); /* every rank has the problem; the DP's messages follow */
  int want = opts->table != NULL; /* root decides: a table copy is collective */
  fupermod_paraleph_bcast(&ctx, &want, 1, MPI_INT, ctx.root);
  rc = fupermod_paraleph_run_table(&ctx, &P, op_of(objective), 1, opts->threads, opts->kernel, want, opts->band, &R);
  if (rc == 0 && want) rc = gather_table(&ctx, &R, opts->table);
  double best = 0;
  long *d = NULL;
  if (rc == 0) {
    best = corner(&ctx, &R, P.p);
    if (!isfinite(best))
      rc = fupermod_error(FUPERMOD_ERR_INFEASIBLE, "paraleph: no distribution of D=%ld units over %d "
                          "processors uses only measured sizes", P.D, P.p);
  }
  if (rc == 0) {
    d = malloc((size_t)P.p * sizeof *d);
    rc = fupermod_paraleph_agree(&ctx, d ? 0 : fupermod_error(FUPERMOD_ERR_NOMEM, "paraleph: out of memory"));
  }
  if (rc == 0) {
    fupermod_paraleph_traceback(&ctx, &R, P.p, d);
    rc = fupermod_paraleph_agree(&ctx, fupermod_paraleph_make_dist(&P, d, out));
    if (rc && *out) {
      fupermod_dist_free(*out);
      *out = NULL;
    }
  }
  if (R.P) {
    fupermod_paraleph_finish_stats(&ctx, &R, t0, best, stats);
    fupermod_paraleph_run_free(&R);
  }
  free(d);
  fupermod_paraleph_problem_free(&P);
  fupermod_paraleph_ctx_close(&ctx);
  return rc;
}

int fupermod_paraleph(MPI_Comm comm, int root, const fupermod_problem *prob, int objective,
                      int threads, fupermod_dist **out, fupermod_paraleph_stats *stats) {
  fupermod_paraleph_opts o = {threads, FUPERMOD_PARALEPH_AUTO, 0, NULL};
  return fupermod_paraleph_opt(comm, root, prob, objective, &o, out, stats);
}

/* ------------------------------------------------------------------ sequential reference */

int fupermod_paraleph_sequential(const fupermod_problem *prob, int objective, int idle,
                                 fupermod_paraleph_table *tab) {
  int rc;
  if (!tab) return fupermod_error(FUPERMOD_ERR_USAGE, "paraleph: no table given");
  memset(tab, 0, sizeof *tab);
  if (objective != FUPERMOD_OBJ_TIME && objective != FUPERMOD_OBJ_ENERGY)
    return fupermod_error(FUPERMOD_ERR_USAGE, "paraleph: the reference is for time or energy");
  if ((rc = validate(prob, objective))) return rc;
  const long D = prob->D;
  const int p = prob->p, sum = objective == FUPERMOD_OBJ_ENERGY;
  const size_t ld = (size_t)D + 1;
  tab->D = D;
  tab->p = p;
  tab->val = malloc((size_t)p * ld * sizeof *tab->val);
  tab->ptr = malloc((size_t)p * ld * sizeof *tab->ptr);
  double *base = malloc(ld * sizeof *base);
  if (!tab->val || !tab->ptr || !base) {
    free(base);
    fupermod_paraleph_table_free(tab);
    return fupermod_error(FUPERMOD_ERR_NOMEM, "paraleph: out of memory for the reference table");
  }
  base[0] = 0.0;
  for (size_t v = 1; v < ld; v++) base[v] = INFINITY;
  for (int h = 1; h <= p; h++) {
    const fupermod_points *f = prob->f[h - 1];
    const double *g = h == 1 ? base : tab->val + (size_t)(h - 2) * ld;
    double *col = tab->val + (size_t)(h - 1) * ld;
    int *pc = tab->ptr + (size_t)(h - 1) * ld;
    for (long v = 0; v <= D; v++) {
      double b = idle ? g[v] : INFINITY;
      int j = -1;
      for (int k = 0; k < f->count && f->pts[k].d <= v; k++) {
        double a = sum ? f->pts[k].e : f->pts[k].t, w = g[v - f->pts[k].d];
        double x = sum ? a + w : (a > w ? a : w);
        if (x < b) {
          b = x;
          j = k;
        }
      }
      col[v] = b;
      pc[v] = j;
    }
  }
  free(base);
  return FUPERMOD_SUCCESS;
}

/* ------------------------------------------------------------------ registry descriptor */

static int paraleph_discrete(const fupermod_problem *prob, fupermod_dist *out) {
  fupermod_dist *d = NULL;
  int rc;
  if (!prob || !out) return fupermod_error(FUPERMOD_ERR_USAGE, "paraleph: no problem or output");
  if (out->size != prob->p)
    return fupermod_error(FUPERMOD_ERR_USAGE, "paraleph: output has %d parts for %d processors",
                          out->size, prob->p);
  rc = fupermod_paraleph(MPI_COMM_SELF, 0, prob, prob->objective, 0, &d, NULL);
  if (rc) return rc;
  rc = fupermod_dist_copy(out, d);
  fupermod_dist_free(d);
  return rc;
}

const fupermod_partitioner fupermod_partitioner_paraleph = {
    .name = "paraleph",
    .description = "PARALEPH: exact dynamic programming on an MPI+OpenMP wavefront "
                   "(objective time = min-max or energy = min-sum; heterogeneous functions)",
    .kind = FUPERMOD_PART_DISCRETE,
    .model_type = NULL,
    .homogeneous = 0,
    .needs_energy = 0,
    .needs_static_power = 0,
    .continuous = NULL,
    .discrete = paraleph_discrete,
    .pareto = NULL,
};
