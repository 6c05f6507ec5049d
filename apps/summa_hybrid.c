/* Hybrid SUMMA: node rectangles cut into per-device column slices (docs/hierarchical.md). */
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apps/summa.h"
#include "apps/summa_hybrid.h"

/* Every rank returns the first failure (lowest rank) with its status and message. */
static int agree(int rc, MPI_Comm comm, const char *what) {
  (void)what;
  return fupermod_agree(rc, comm);
}

void fupermod_hybrid_layout_free(fupermod_hybrid_layout *hl) {
  if (!hl) return;
  free(hl->row0), free(hl->rows), free(hl->col0), free(hl->cols);
  free(hl);
}

static fupermod_hybrid_layout *layout_alloc(int p, int n, int b) {
  fupermod_hybrid_layout *hl = calloc(1, sizeof *hl);
  if (!hl) return NULL;
  hl->p = p;
  hl->n = n;
  hl->b = b;
  hl->row0 = calloc((size_t)p, sizeof(int));
  hl->rows = calloc((size_t)p, sizeof(int));
  hl->col0 = calloc((size_t)p, sizeof(int));
  hl->cols = calloc((size_t)p, sizeof(int));
  if (!hl->row0 || !hl->rows || !hl->col0 || !hl->cols) {
    fupermod_hybrid_layout_free(hl);
    return NULL;
  }
  return hl;
}

int fupermod_hybrid_layout_make(const fupermod_hier_comm *hc, const fupermod_layout *nodes, const long *columns,
                                int n, int b, fupermod_hybrid_layout **out) {
  fupermod_hybrid_layout *hl;
  int rc, p, K;
  if (!out) return fupermod_error(FUPERMOD_ERR_USAGE, "hybrid layout: NULL result");
  *out = NULL;
  if (!hc || !nodes || !columns || n < 1 || b < 1)
    return fupermod_error(FUPERMOD_ERR_USAGE, "hybrid layout: bad arguments (n = %d, b = %d)", n, b);
  K = (int)(((long)n + b - 1) / b);
  if (nodes->p != hc->nodes || nodes->M != K || nodes->N != K)
    return fupermod_error(FUPERMOD_ERR_USAGE, "hybrid layout: %d node rectangles on %d x %d blocks, need %d on %d x %d",
                          nodes->p, nodes->M, nodes->N, hc->nodes, K, K);
  if ((rc = fupermod_layout_check(nodes)) != FUPERMOD_SUCCESS) return rc;
  p = hc->node_first[hc->nodes];
  if (!(hl = layout_alloc(p, n, b))) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  for (int k = 0; k < hc->nodes; k++) {
    const fupermod_rect *r = &nodes->rects[k];
    long r0 = (long)r->row * b, c0 = (long)r->col * b, r1 = (long)(r->row + r->height) * b,
         c1 = (long)(r->col + r->width) * b, off = 0, width;
    if (r->height == 0 || r->width == 0) r1 = r0, c1 = c0;
    if (r1 > n) r1 = n;
    if (c1 > n) c1 = n;
    width = c1 - c0;
    for (int q = 0; q < p; q++) {
      if (hc->node_of[q] != k) continue;
      if (columns[q] < 0 || columns[q] > width - off) {
        fupermod_hybrid_layout_free(hl);
        return fupermod_error(FUPERMOD_ERR_USAGE, "hybrid layout: node %d is %ld columns wide; rank %d's slice of %ld "
                              "columns after %ld does not fit", k, width, q, columns[q], off);
      }
      if (columns[q] > 0 && r1 > r0) {
        hl->row0[q] = (int)r0;
        hl->rows[q] = (int)(r1 - r0);
        hl->col0[q] = (int)(c0 + off);
        hl->cols[q] = (int)columns[q];
      }
      off += columns[q];
    }
    if (off != width) {
      fupermod_hybrid_layout_free(hl);
      return fupermod_error(FUPERMOD_ERR_USAGE, "hybrid layout: node %d's slices sum to %ld columns, its rectangle has %ld",
                            k, off, width);
    }
  }
  *out = hl;
  return FUPERMOD_SUCCESS;
}

int fupermod_hybrid_layout_inpa(const fupermod_hier_comm *hc, const fupermod_inpa_result *res, int n, int b,
                                fupermod_hybrid_layout **out) {
  long mine = 0, *all = NULL;
  int rc = FUPERMOD_SUCCESS, size;
  if (out) *out = NULL;
  if (!hc || hc->comm == MPI_COMM_NULL) return fupermod_error(FUPERMOD_ERR_USAGE, "hybrid layout: no communicator");
  MPI_Comm_size(hc->comm, &size);
  if (!res || !res->devices || !res->layout || !out) rc = fupermod_error(FUPERMOD_ERR_USAGE, "hybrid layout: no INPA result");
  else if (!(all = malloc((size_t)size * sizeof *all))) rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  else mine = res->devices->parts[hc->device].d;
  if ((rc = agree(rc, hc->comm, "hybrid layout")) != FUPERMOD_SUCCESS) {
    free(all);
    return rc;
  }
  MPI_Allgather(&mine, 1, MPI_LONG, all, 1, MPI_LONG, hc->comm);
  rc = fupermod_hybrid_layout_make(hc, res->layout, all, n, b, out);
  free(all);
  return agree(rc, hc->comm, "hybrid layout");
}

int fupermod_hybrid_device_of(const fupermod_process_conf *pc, fupermod_hybrid_device *dev) {
  char buf[32];
  long d = 0;
  int rc;
  if (!pc || !dev) return fupermod_error(FUPERMOD_ERR_USAGE, "hybrid device: NULL argument");
  dev->gpu = -1;
  dev->gpu_mem = 0.0;
  if (strcmp(pc->device_type, "cpu") == 0) return FUPERMOD_SUCCESS;
  if (strcmp(pc->device_type, "gpu") != 0)
    return fupermod_error(FUPERMOD_ERR_INPUT, "configuration line %d: device type '%s' (cpu or gpu)", pc->line,
                          pc->device_type);
  rc = fupermod_subopt_get(pc->subopts ? pc->subopts : "", "device", buf, sizeof buf);
  if (rc < 0) return rc;
  if (rc == 1 && (fupermod_parse_long(buf, &d) || d < 0 || d > 1023))
    return fupermod_error(FUPERMOD_ERR_INPUT, "configuration line %d: device=%s", pc->line, buf);
  dev->gpu = (int)d;
  return FUPERMOD_SUCCESS;
}

/* ---------------------------------------------------------------- the multiplication */

static void overlap(int a0, int an, int b0, int bn, int *o0, int *on) {
  int lo = a0 > b0 ? a0 : b0, hi = a0 + an < b0 + bn ? a0 + an : b0 + bn;
  *o0 = lo;
  *on = hi > lo ? hi - lo : 0;
}

/* Messages of one pivot: strided sub-blocks described by MPI vector types, no packing. */
typedef struct {
  int n;
  MPI_Request *req;
  MPI_Datatype *type;
} msgs;

static int add_msg(msgs *m, MPI_Comm comm, int send, void *buf, int ni, int nj, int ld, int peer, int tag) {
  MPI_Datatype t;
  if (MPI_Type_vector(nj, ni, ld, MPI_DOUBLE, &t) != MPI_SUCCESS || MPI_Type_commit(&t) != MPI_SUCCESS)
    return fupermod_error(FUPERMOD_ERR_MPI, "hybrid summa: MPI_Type_vector failed");
  m->type[m->n] = t;
  if ((send ? MPI_Isend(buf, 1, t, peer, tag, comm, &m->req[m->n]) : MPI_Irecv(buf, 1, t, peer, tag, comm, &m->req[m->n])) !=
      MPI_SUCCESS)
    return fupermod_error(FUPERMOD_ERR_MPI, "hybrid summa: MPI_%s failed", send ? "Isend" : "Irecv");
  m->n++;
  return FUPERMOD_SUCCESS;
}

static int wait_msgs(msgs *m) {
  int rc = MPI_Waitall(m->n, m->req, MPI_STATUSES_IGNORE) == MPI_SUCCESS ? FUPERMOD_SUCCESS : FUPERMOD_ERR_MPI;
  for (int k = 0; k < m->n; k++) MPI_Type_free(&m->type[k]);
  m->n = 0;
  return rc == FUPERMOD_SUCCESS ? rc : fupermod_error(rc, "hybrid summa: MPI_Waitall failed");
}

/* Post pivot k: what this rank needs of A's block column k and B's block row k, and what it
 * owns of them for the others. Its own parts are copied. */
static int post_pivot(MPI_Comm comm, const fupermod_hybrid_layout *hl, int me, int k, const double *A, const double *B,
                      double *Ap, double *Bp, msgs *m) {
  const int p0 = k * hl->b, pk = hl->n - p0 < hl->b ? hl->n - p0 : hl->b, tag = 2 * (k % 2);
  const int mr0 = hl->row0[me], mrs = hl->rows[me], mc0 = hl->col0[me], mcs = hl->cols[me];
  int rc = FUPERMOD_SUCCESS;
  for (int q = 0; q < hl->p && rc == FUPERMOD_SUCCESS; q++) {
    int i0, ni, j0, nj;
    if (hl->rows[q] == 0 || hl->cols[q] == 0) continue;
    /* A(rows_q ∩ rows_me, pivot ∩ cols_owner) from owner to needer */
    if (mrs > 0 && mcs > 0) {
      overlap(hl->row0[q], hl->rows[q], mr0, mrs, &i0, &ni);
      overlap(hl->col0[q], hl->cols[q], p0, pk, &j0, &nj);
      if (ni > 0 && nj > 0) {
        double *dst = Ap + (size_t)(j0 - p0) * (size_t)mrs + (size_t)(i0 - mr0);
        if (q == me) {
          const double *src = A + (size_t)(j0 - mc0) * (size_t)mrs + (size_t)(i0 - mr0);
          for (int j = 0; j < nj; j++) memcpy(dst + (size_t)j * mrs, src + (size_t)j * mrs, (size_t)ni * sizeof *dst);
        } else
          rc = add_msg(m, comm, 0, dst, ni, nj, mrs, q, tag);
      }
      /* B(pivot ∩ rows_owner, cols_q ∩ cols_me) */
      overlap(hl->row0[q], hl->rows[q], p0, pk, &i0, &ni);
      overlap(hl->col0[q], hl->cols[q], mc0, mcs, &j0, &nj);
      if (rc == FUPERMOD_SUCCESS && ni > 0 && nj > 0) {
        double *dst = Bp + (size_t)(j0 - mc0) * (size_t)pk + (size_t)(i0 - p0);
        if (q == me) {
          const double *src = B + (size_t)(j0 - mc0) * (size_t)mrs + (size_t)(i0 - mr0);
          for (int j = 0; j < nj; j++) memcpy(dst + (size_t)j * pk, src + (size_t)j * mrs, (size_t)ni * sizeof *dst);
        } else
          rc = add_msg(m, comm, 0, dst, ni, nj, pk, q, tag + 1);
      }
    }
    /* what q needs from this rank's parts */
    if (rc == FUPERMOD_SUCCESS && q != me && mrs > 0 && mcs > 0) {
      overlap(mr0, mrs, hl->row0[q], hl->rows[q], &i0, &ni);
      overlap(mc0, mcs, p0, pk, &j0, &nj);
      if (ni > 0 && nj > 0)
        rc = add_msg(m, comm, 1, (void *)(A + (size_t)(j0 - mc0) * (size_t)mrs + (size_t)(i0 - mr0)), ni, nj, mrs, q, tag);
      overlap(mr0, mrs, p0, pk, &i0, &ni);
      overlap(mc0, mcs, hl->col0[q], hl->cols[q], &j0, &nj);
      if (rc == FUPERMOD_SUCCESS && ni > 0 && nj > 0)
        rc = add_msg(m, comm, 1, (void *)(B + (size_t)(j0 - mc0) * (size_t)mrs + (size_t)(i0 - mr0)), ni, nj, mrs, q,
                     tag + 1);
    }
  }
  return rc;
}

int fupermod_hybrid_dgemm(MPI_Comm comm, const fupermod_hybrid_layout *hl, const fupermod_hybrid_device *dev,
                          const double *A, const double *B, double *C, int accumulate, double *compute) {
  int rc = FUPERMOD_SUCCESS, size = 0, me = 0, K = 0, rows = 0, cols = 0, b = 0, held = 0;
  double *Ap[2] = {NULL, NULL}, *Bp[2] = {NULL, NULL}, busy = 0.0;
  msgs m[2] = {{0, NULL, NULL}, {0, NULL, NULL}};
  fupermod_ooc *ooc = NULL;
  if (comm == MPI_COMM_NULL) return fupermod_error(FUPERMOD_ERR_USAGE, "hybrid summa: no communicator");
  MPI_Comm_size(comm, &size);
  MPI_Comm_rank(comm, &me);
  if (!hl || !dev || hl->p != size || hl->n < 1 || hl->b < 1)
    rc = fupermod_error(FUPERMOD_ERR_USAGE, "hybrid summa: layout for %d processes on %d", hl ? hl->p : 0, size);
  else {
    rows = hl->rows[me];
    cols = hl->cols[me];
    b = hl->b;
    K = (int)(((long)hl->n + b - 1) / b);
    if (rows > 0 && cols > 0 && (!A || !B || !C)) rc = fupermod_error(FUPERMOD_ERR_USAGE, "hybrid summa: NULL matrix");
  }
  if (rc == FUPERMOD_SUCCESS)
    for (int s = 0; s < 2 && rc == FUPERMOD_SUCCESS; s++) {
      m[s].req = malloc(4 * (size_t)size * sizeof *m[s].req);
      m[s].type = malloc(4 * (size_t)size * sizeof *m[s].type);
      Ap[s] = malloc(((size_t)rows * (size_t)b + 1) * sizeof(double));
      Bp[s] = malloc(((size_t)b * (size_t)cols + 1) * sizeof(double));
      if (!m[s].req || !m[s].type || !Ap[s] || !Bp[s]) rc = fupermod_error(FUPERMOD_ERR_NOMEM, "hybrid summa: out of memory");
    }
  /* a GPU process without its GPU fails here, on every rank */
  if (rc == FUPERMOD_SUCCESS && dev->gpu >= 0 && rows > 0 && cols > 0) {
    fupermod_ooc_opts o = {dev->gpu, dev->gpu_mem, 0, 0};
    rc = fupermod_ooc_create(&o, &ooc);
  }
  if ((rc = agree(rc, comm, "hybrid summa")) != FUPERMOD_SUCCESS) goto out;
  if (!accumulate && rows > 0 && cols > 0) memset(C, 0, (size_t)rows * (size_t)cols * sizeof *C);
  if (ooc) {
    /* C stays on the GPU for the whole product when it fits; else every update moves it */
    double t0 = fupermod_time();
    if ((rc = fupermod_ooc_hold(ooc, C, rows, cols, rows, b)) == FUPERMOD_SUCCESS) held = 1;
    else if (rc == FUPERMOD_ERR_NOMEM) rc = FUPERMOD_SUCCESS;
    busy += fupermod_time() - t0;
  }
  if ((rc = agree(rc, comm, "hybrid summa")) != FUPERMOD_SUCCESS) goto out;
  rc = post_pivot(comm, hl, me, 0, A, B, Ap[0], Bp[0], &m[0]);
  for (int k = 0; k < K && rc == FUPERMOD_SUCCESS; k++) {
    const int s = k % 2, pk = hl->n - k * b < b ? hl->n - k * b : b;
    if ((rc = wait_msgs(&m[s])) != FUPERMOD_SUCCESS) break;
    /* the next pivot travels during this update */
    if (k + 1 < K && (rc = post_pivot(comm, hl, me, k + 1, A, B, Ap[1 - s], Bp[1 - s], &m[1 - s])) != FUPERMOD_SUCCESS)
      break;
    if (rows > 0 && cols > 0) {
      double t0 = fupermod_time();
      if (ooc)
        rc = fupermod_ooc_dgemm(ooc, rows, cols, pk, 1.0, Ap[s], rows, Bp[s], pk, 1.0, C, rows, NULL);
      else
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, rows, cols, pk, 1.0, Ap[s], rows, Bp[s], pk, 1.0, C, rows);
      busy += fupermod_time() - t0;
    }
  }
  /* a failed update must not leave messages behind */
  for (int s = 0; s < 2; s++)
    if (m[s].n) wait_msgs(&m[s]);
  if (held) {
    double t0 = fupermod_time();
    int rrc = fupermod_ooc_release(ooc);
    if (rc == FUPERMOD_SUCCESS) rc = rrc;
    busy += fupermod_time() - t0;
  }
  rc = agree(rc, comm, "hybrid summa");
out:
  if (compute) *compute = busy;
  fupermod_ooc_destroy(ooc);
  for (int s = 0; s < 2; s++) {
    free(m[s].req), free(m[s].type), free(Ap[s]), free(Bp[s]);
  }
  return rc;
}

int fupermod_hybrid_fill(const fupermod_hybrid_layout *hl, int rank, uint64_t seed, int kind, double *X) {
  if (!hl || rank < 0 || rank >= hl->p) return fupermod_error(FUPERMOD_ERR_USAGE, "hybrid fill: bad rank %d", rank);
  if (kind != FUPERMOD_SUMMA_INTEGER && kind != FUPERMOD_SUMMA_UNIFORM)
    return fupermod_error(FUPERMOD_ERR_USAGE, "hybrid fill: unknown kind %d", kind);
  if (hl->rows[rank] > 0 && hl->cols[rank] > 0 && !X) return fupermod_error(FUPERMOD_ERR_USAGE, "hybrid fill: X is NULL");
  for (int j = 0; j < hl->cols[rank]; j++)
    for (int i = 0; i < hl->rows[rank]; i++)
      X[(size_t)j * hl->rows[rank] + i] = fupermod_summa_value(seed, kind, hl->row0[rank] + i, hl->col0[rank] + j);
  return FUPERMOD_SUCCESS;
}

int fupermod_hybrid_check(MPI_Comm comm, const fupermod_hybrid_layout *hl, int kind, uint64_t seed_a,
                          uint64_t seed_b, int has_c0, uint64_t seed_c, const double *C, double tol, long *mismatches,
                          double *maxrel) {
  int me, size, rc = FUPERMOD_SUCCESS, rows = 0, cols = 0, n = 0;
  double *arow = NULL, *bcol = NULL, rel = 0.0, relmax = 0.0;
  long bad = 0, all = 0;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &size);
  if (!hl || hl->p != size || !mismatches || !maxrel)
    rc = fupermod_error(FUPERMOD_ERR_USAGE, "hybrid check: bad arguments");
  else {
    rows = hl->rows[me];
    cols = hl->cols[me];
    n = hl->n;
    if (rows > 0 && cols > 0 &&
        (!C || !(arow = malloc((size_t)rows * (size_t)n * sizeof *arow)) || !(bcol = malloc((size_t)n * sizeof *bcol))))
      rc = fupermod_error(FUPERMOD_ERR_NOMEM, "hybrid check: out of memory or no C");
  }
  if ((rc = agree(rc, comm, "hybrid check")) != FUPERMOD_SUCCESS) {
    free(arow), free(bcol);
    return rc;
  }
  for (int i = 0; i < rows && cols > 0; i++)
    for (int k = 0; k < n; k++) arow[(size_t)i * n + k] = fupermod_summa_value(seed_a, kind, hl->row0[me] + i, k);
  for (int j = 0; j < cols && rows > 0; j++) {
    for (int k = 0; k < n; k++) bcol[k] = fupermod_summa_value(seed_b, kind, k, hl->col0[me] + j);
    for (int i = 0; i < rows; i++) {
      const double *a = arow + (size_t)i * n;
      double s = has_c0 ? fupermod_summa_value(seed_c, kind, hl->row0[me] + i, hl->col0[me] + j) : 0.0, mag = fabs(s);
      double got = C[(size_t)j * rows + i], d;
      for (int k = 0; k < n; k++) {
        s += a[k] * bcol[k];
        mag += fabs(a[k] * bcol[k]);
      }
      d = fabs(got - s);
      if (!(d <= tol * mag)) bad++;
      rel = mag > 0 ? d / mag : d;
      if (!(rel <= relmax)) relmax = isnan(rel) ? INFINITY : rel;
    }
  }
  free(arow), free(bcol);
  MPI_Allreduce(&bad, &all, 1, MPI_LONG, MPI_SUM, comm);
  MPI_Allreduce(&relmax, maxrel, 1, MPI_DOUBLE, MPI_MAX, comm);
  *mismatches = all;
  return FUPERMOD_SUCCESS;
}

/* ---------------------------------------------------------------- measurement for INPA */

int fupermod_hybrid_measure(long bm, long d, MPI_Comm comm_sync, fupermod_point *pt, void *vctx) {
  fupermod_hybrid_measure_ctx *ctx = vctx;
  const long b = ctx ? ctx->b : 0;
  double *Ab, *Bb, *Cs, sum = 0.0;
  int rc = FUPERMOD_SUCCESS, reps;
  if (!ctx || b < 1 || bm < 1 || d < 1 || !pt)
    return fupermod_error(FUPERMOD_ERR_USAGE, "hybrid measure: bad arguments (bm = %ld, d = %ld)", bm, d);
  reps = ctx->reps > 0 ? ctx->reps : 3;
  if (ctx->dev.gpu >= 0 && !ctx->ooc) {
    fupermod_ooc_opts o = {ctx->dev.gpu, ctx->dev.gpu_mem, 0, 0};
    if ((rc = fupermod_ooc_create(&o, &ctx->ooc)) != FUPERMOD_SUCCESS) return rc;
  }
  Ab = malloc((size_t)bm * (size_t)b * sizeof *Ab);
  Bb = malloc((size_t)b * (size_t)d * sizeof *Bb);
  Cs = malloc((size_t)bm * (size_t)d * sizeof *Cs);
  if (!Ab || !Bb || !Cs) rc = fupermod_error(FUPERMOD_ERR_NOMEM, "hybrid measure: bm = %ld, d = %ld: out of memory", bm, d);
  if (rc == FUPERMOD_SUCCESS) {
    for (size_t i = 0; i < (size_t)bm * (size_t)b; i++) Ab[i] = (double)(i % 7) * 0.125 - 0.375;
    for (size_t i = 0; i < (size_t)b * (size_t)d; i++) Bb[i] = (double)(i % 5) * 0.25 - 0.5;
    memset(Cs, 0, (size_t)bm * (size_t)d * sizeof *Cs);
  }
  /* as in the product, C stays on the GPU when it fits (its transfers are then once per product) */
  if (rc == FUPERMOD_SUCCESS && ctx->ooc && (rc = fupermod_ooc_hold(ctx->ooc, Cs, bm, d, bm, b)) == FUPERMOD_ERR_NOMEM)
    rc = FUPERMOD_SUCCESS;
  /* one warm-up run, then reps timed runs started together on the node */
  for (int r = 0; r <= reps && rc == FUPERMOD_SUCCESS; r++) {
    double t0;
    if (comm_sync != MPI_COMM_NULL) MPI_Barrier(comm_sync);
    t0 = fupermod_time();
    if (ctx->ooc)
      rc = fupermod_ooc_dgemm(ctx->ooc, bm, d, b, 1.0, Ab, bm, Bb, b, 1.0, Cs, bm, NULL);
    else
      cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)bm, (int)d, (int)b, 1.0, Ab, (int)bm, Bb, (int)b, 1.0,
                  Cs, (int)bm);
    if (r > 0) sum += fupermod_time() - t0;
  }
  if (ctx->ooc) {
    int rrc = fupermod_ooc_release(ctx->ooc);
    if (rc == FUPERMOD_SUCCESS) rc = rrc;
  }
  free(Ab), free(Bb), free(Cs);
  if (rc != FUPERMOD_SUCCESS) return rc;
  *pt = (fupermod_point)FUPERMOD_POINT_INIT;
  pt->d = d;
  pt->t = sum / reps > 1e-9 ? sum / reps : 1e-9;
  pt->reps = reps;
  return FUPERMOD_SUCCESS;
}
