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
  if (nodes->npieces > 0)
    return fupermod_error(FUPERMOD_ERR_USAGE, "hybrid layout: the node layout has pieces; each node needs one rectangle");
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
  else mine = res->devices->parts[hc->node_rank].d;
  if ((rc = agree(rc, hc->comm, "hybrid layout")) != FUPERMOD_SUCCESS) {
    free(all);
    return rc;
  }
  MPI_Allgather(&mine, 1, MPI_LONG, all, 1, MPI_LONG, hc->comm);
  rc = fupermod_hybrid_layout_make(hc, res->layout, all, n, b, out);
  free(all);
  return agree(rc, hc->comm, "hybrid layout");
}

/* ---------------------------------------------------------------- the multiplication */

int fupermod_hybrid_dgemm(MPI_Comm comm, const fupermod_hybrid_layout *hl, fupermod_exec *exec, const double *A,
                          const double *B, double *C, int accumulate, double *compute) {
  fupermod_trace tr = FUPERMOD_TRACE_INIT;
  int rc = FUPERMOD_SUCCESS, size = 0;
  if (compute) *compute = 0.0;
  if (comm == MPI_COMM_NULL) return fupermod_error(FUPERMOD_ERR_USAGE, "hybrid summa: no communicator");
  MPI_Comm_size(comm, &size);
  if (!hl || hl->p != size)
    rc = fupermod_error(FUPERMOD_ERR_USAGE, "hybrid summa: layout for %d processes on %d", hl ? hl->p : 0, size);
  if ((rc = agree(rc, comm, "hybrid summa")) != FUPERMOD_SUCCESS) return rc;
  rc = fupermod_summa_dgemm_extents(comm, hl->row0, hl->rows, hl->col0, hl->cols, hl->n, hl->b, A, B, C, accumulate,
                                    exec, compute ? &tr : NULL);
  if (compute) *compute = fupermod_trace_total(&tr);
  fupermod_trace_free(&tr);
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
  Ab = malloc((size_t)bm * (size_t)b * sizeof *Ab);
  Bb = malloc((size_t)b * (size_t)d * sizeof *Bb);
  Cs = malloc((size_t)bm * (size_t)d * sizeof *Cs);
  if (!Ab || !Bb || !Cs) rc = fupermod_error(FUPERMOD_ERR_NOMEM, "hybrid measure: bm = %ld, d = %ld: out of memory", bm, d);
  if (rc == FUPERMOD_SUCCESS) {
    for (size_t i = 0; i < (size_t)bm * (size_t)b; i++) Ab[i] = (double)(i % 7) * 0.125 - 0.375;
    for (size_t i = 0; i < (size_t)b * (size_t)d; i++) Bb[i] = (double)(i % 5) * 0.25 - 0.5;
    memset(Cs, 0, (size_t)bm * (size_t)d * sizeof *Cs);
  }
  /* as in the product: one session, C' kept where the device computes */
  if (rc == FUPERMOD_SUCCESS && ctx->exec) rc = fupermod_exec_gemm_begin(ctx->exec, Cs, bm, d, bm, b, 1);
  /* one warm-up update, then reps timed ones started together on the node */
  for (int r = 0; r <= reps && rc == FUPERMOD_SUCCESS; r++) {
    double t0;
    if (comm_sync != MPI_COMM_NULL) MPI_Barrier(comm_sync);
    t0 = fupermod_time();
    if (ctx->exec) rc = fupermod_exec_gemm_update(ctx->exec, 0, b, Ab, bm, Bb, b);
    else
      cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)bm, (int)d, (int)b, 1.0, Ab, (int)bm, Bb, (int)b, 1.0,
                  Cs, (int)bm);
    if (r > 0) sum += fupermod_time() - t0;
  }
  if (ctx->exec) {
    int erc = fupermod_exec_gemm_end(ctx->exec);
    if (rc == FUPERMOD_SUCCESS) rc = erc;
  }
  free(Ab), free(Bb), free(Cs);
  if (rc != FUPERMOD_SUCCESS) return rc;
  *pt = (fupermod_point)FUPERMOD_POINT_INIT;
  pt->d = d;
  pt->t = sum / reps > 1e-9 ? sum / reps : 1e-9;
  pt->reps = reps;
  return FUPERMOD_SUCCESS;
}
