/* Integer sizes of a column-based layout fitted to the processes' time models (docs/matrix.md,
 * "Fitting a layout to the models"): the areas a 1D partitioner gives are rarely whole rectangles
 * of blocks, and rounding them can move a block row or column onto the slowest process. */
#include <math.h>
#include <stdlib.h>
#include "partitioners/layout_impl.h"

#define FIT_BUDGET 5e7 /* N q M^2 below this: every width and height is tried */

typedef struct {
  int ncols;
  int *start;   /* column j holds members[start[j] .. start[j+1]), top to bottom */
  int *members; /* process ranks */
  int *w0;      /* the given widths, per column */
  int *h0;      /* the given heights, per member slot */
} arrangement;

static int better(double v, double best) { return v < best - 1e-12 * fabs(best); }

/* Sizes tried for a width or height given as x0 in 1..hi: nearest first (ties keep x0), within k. */
static int sizes_near(int x0, int k, int hi, int *out) {
  int n = 0;
  out[n++] = x0;
  for (int s = 1; s <= k; s++) {
    if (x0 + s <= hi) out[n++] = x0 + s;
    if (x0 - s >= 1) out[n++] = x0 - s;
  }
  return n;
}

static double safe_time(fupermod_area_time time, void *ctx, int i, long area) {
  double t = time(i, area, ctx);
  return isnan(t) ? INFINITY : t;
}

/* Best bottleneck of column j at width w: g[r] over the first members placed in r rows. With arg
 * (size m x (M+1)) the chosen heights can be traced back. */
static double column_best(const arrangement *a, int j, int w, int M, int k, fupermod_area_time time, void *ctx,
                          double *g, double *gn, double *th, int *hs, int *arg) {
  int m = a->start[j + 1] - a->start[j];
  for (int r = 0; r <= M; r++) g[r] = r == 0 ? 0.0 : INFINITY;
  for (int s = 0; s < m; s++) {
    int slot = a->start[j] + s, i = a->members[slot];
    int nh = sizes_near(a->h0[slot], k, M, hs);
    for (int x = 0; x < nh; x++) th[x] = safe_time(time, ctx, i, (long)w * hs[x]);
    for (int r = 0; r <= M; r++) {
      double best = INFINITY;
      int bh = -1;
      for (int x = 0; x < nh; x++) {
        double v;
        if (hs[x] > r || g[r - hs[x]] == INFINITY) continue;
        v = g[r - hs[x]] > th[x] ? g[r - hs[x]] : th[x];
        if (bh < 0 || better(v, best)) {
          best = v;
          bh = hs[x];
        }
      }
      gn[r] = bh < 0 ? INFINITY : best;
      if (arg) arg[(size_t)s * (M + 1) + r] = bh;
    }
    for (int r = 0; r <= M; r++) g[r] = gn[r];
  }
  return g[M];
}

typedef struct {
  int col, row, i;
} place;

/* left to right by first block column, then top to bottom */
static int by_place(const void *x, const void *y) {
  const place *a = x, *b = y;
  if (a->col != b->col) return a->col < b->col ? -1 : 1;
  return (a->row > b->row) - (a->row < b->row);
}

/* The processes with data in place order, cut into columns where the first block column changes. */
static int arrangement_of(const fupermod_layout *l, arrangement *a) {
  int p = l->p, c = 0, q = 0, rc = FUPERMOD_SUCCESS;
  place *pl = malloc((size_t)p * sizeof *pl);
  a->start = malloc(((size_t)p + 1) * sizeof *a->start);
  a->members = malloc((size_t)p * sizeof *a->members);
  a->w0 = malloc((size_t)p * sizeof *a->w0);
  a->h0 = malloc((size_t)p * sizeof *a->h0);
  if (!pl || !a->start || !a->members || !a->w0 || !a->h0) {
    free(pl);
    return fupermod_error(FUPERMOD_ERR_NOMEM, "layout fit: out of memory");
  }
  for (int i = 0; i < p; i++)
    if (l->rects[i].height > 0 && l->rects[i].width > 0) pl[q++] = (place){l->rects[i].col, l->rects[i].row, i};
  qsort(pl, (size_t)q, sizeof *pl, by_place);
  for (int s = 0; s < q && rc == FUPERMOD_SUCCESS; s++) {
    const fupermod_rect *r = &l->rects[pl[s].i];
    a->members[s] = pl[s].i;
    a->h0[s] = r->height;
    if (s == 0 || pl[s].col != pl[s - 1].col) {
      a->start[c] = s;
      a->w0[c++] = r->width;
    } else if (r->width != a->w0[c - 1])
      rc = fupermod_error(FUPERMOD_ERR_INPUT, "layout fit: processes %d and %d start a column with different widths",
                          pl[s - 1].i, pl[s].i);
  }
  a->start[c] = q;
  a->ncols = c;
  free(pl);
  return rc;
}

int fupermod_layout_fit(const fupermod_layout *l, fupermod_area_time time, void *ctx, fupermod_layout **out,
                        double *tmax) {
  arrangement a = {0, NULL, NULL, NULL, NULL};
  int rc, M, N, c, q, k, mmax = 1, *ws = NULL, *hs = NULL, *warg = NULL, *harg = NULL, *wch = NULL;
  double *B = NULL, *F = NULL, *Fn = NULL, *g = NULL, *gn = NULL, *th = NULL, worst = 0.0;
  fupermod_layout *r = NULL;
  if (!out) return fupermod_error(FUPERMOD_ERR_USAGE, "layout fit: out is NULL");
  *out = NULL;
  if (!l || !time) return fupermod_error(FUPERMOD_ERR_USAGE, "layout fit: %s is NULL", l ? "the time function" : "the layout");
  if (l->npieces > 0)
    return fupermod_error(FUPERMOD_ERR_USAGE, "layout fit: the layout has pieces and is not column-based (kl and br "
                          "are; fupermod_layout_sc_fit fits a square-corner layout)");
  if (l->ncols < 1)
    return fupermod_error(FUPERMOD_ERR_USAGE, "layout fit: the layout is not column-based (kl and br are)");
  if ((rc = fupermod_layout_check(l)) != FUPERMOD_SUCCESS) return rc;
  M = l->M;
  N = l->N;
  if ((rc = arrangement_of(l, &a)) != FUPERMOD_SUCCESS) goto done;
  c = a.ncols;
  q = a.start[c];
  for (int j = 0; j < c; j++)
    if (a.start[j + 1] - a.start[j] > mmax) mmax = a.start[j + 1] - a.start[j];
  /* exact within the budget; otherwise a window of +-k blocks around the given sizes */
  if ((double)N * q * M * M <= FIT_BUDGET) k = M > N ? M : N;
  else {
    k = (int)((sqrt(FIT_BUDGET / ((double)q * M)) - 1.0) / 2.0);
    if (k < 1) k = 1;
  }
  ws = malloc(((size_t)2 * k + 2) * sizeof *ws);
  hs = malloc(((size_t)2 * k + 2) * sizeof *hs);
  th = malloc(((size_t)2 * k + 2) * sizeof *th);
  g = malloc(((size_t)M + 1) * sizeof *g);
  gn = malloc(((size_t)M + 1) * sizeof *gn);
  B = malloc(((size_t)2 * k + 2) * sizeof *B);
  F = malloc(((size_t)N + 1) * sizeof *F);
  Fn = malloc(((size_t)N + 1) * sizeof *Fn);
  warg = calloc((size_t)c * ((size_t)N + 1), sizeof *warg);
  harg = malloc((size_t)mmax * ((size_t)M + 1) * sizeof *harg);
  wch = malloc((size_t)c * sizeof *wch);
  if (!ws || !hs || !th || !g || !gn || !B || !F || !Fn || !warg || !harg || !wch) {
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "layout fit: out of memory for %d columns of %d x %d blocks", c, M, N);
    goto done;
  }
  /* F[x]: best bottleneck of the columns placed so far in x block columns */
  for (int x = 0; x <= N; x++) F[x] = x == 0 ? 0.0 : INFINITY;
  for (int j = 0; j < c; j++) {
    int nw = sizes_near(a.w0[j], k, N, ws);
    for (int y = 0; y < nw; y++) B[y] = column_best(&a, j, ws[y], M, k, time, ctx, g, gn, th, hs, NULL);
    for (int x = 0; x <= N; x++) {
      double best = INFINITY;
      int bw = -1;
      for (int y = 0; y < nw; y++) {
        double v;
        if (ws[y] > x || F[x - ws[y]] == INFINITY || B[y] == INFINITY) continue;
        v = F[x - ws[y]] > B[y] ? F[x - ws[y]] : B[y];
        if (bw < 0 || better(v, best)) {
          best = v;
          bw = ws[y];
        }
      }
      Fn[x] = bw < 0 ? INFINITY : best;
      warg[(size_t)j * (N + 1) + x] = bw;
    }
    for (int x = 0; x <= N; x++) F[x] = Fn[x];
  }
  if (warg[(size_t)(c - 1) * (N + 1) + N] < 0) {
    /* only when every choice predicts an infinite time: keep the layout as it is */
    rc = fupermod_layout_copy(l, &r);
    if (rc == FUPERMOD_SUCCESS) worst = INFINITY;
    goto done;
  }
  for (int j = c - 1, x = N; j >= 0; j--) {
    wch[j] = warg[(size_t)j * (N + 1) + x];
    x -= wch[j];
  }
  if ((rc = fupermod_layout_copy(l, &r)) != FUPERMOD_SUCCESS) goto done;
  for (int j = 0, col = 0; j < c; j++) {
    int m = a.start[j + 1] - a.start[j];
    column_best(&a, j, wch[j], M, k, time, ctx, g, gn, th, hs, harg);
    for (int s = m - 1, rows = M; s >= 0; s--) {
      int i = a.members[a.start[j] + s], h = harg[(size_t)s * (M + 1) + rows];
      double t = safe_time(time, ctx, i, (long)wch[j] * h);
      rows -= h;
      r->rects[i] = (fupermod_rect){rows, col, h, wch[j]};
      if (t > worst) worst = t;
    }
    col += wch[j];
  }
done:
  free(a.start);
  free(a.members);
  free(a.w0);
  free(a.h0);
  free(ws);
  free(hs);
  free(th);
  free(g);
  free(gn);
  free(B);
  free(F);
  free(Fn);
  free(warg);
  free(harg);
  free(wch);
  if (rc == FUPERMOD_SUCCESS) {
    *out = r;
    if (tmax) *tmax = worst;
  } else fupermod_layout_free(r);
  return rc;
}
