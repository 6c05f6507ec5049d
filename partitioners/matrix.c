/* Column-based matrix layouts (KL, BR, 1.5D), the tiling check, the volume H and the layout
 * file. docs/matrix.md describes the algorithms and the decisions taken here. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fupermod/lines.h"
#include "partitioners/matrix.h"

#define LAYOUT_P_MAX 10000000

int fupermod_layout_alloc(int p, int M, int N, fupermod_layout **out) {
  fupermod_layout *l;
  if (!out) return fupermod_error(FUPERMOD_ERR_USAGE, "layout: out is NULL");
  *out = NULL;
  if (p < 1 || p > LAYOUT_P_MAX)
    return fupermod_error(FUPERMOD_ERR_USAGE, "layout: number of processes p = %d (must be 1..%d)", p,
                          LAYOUT_P_MAX);
  if (M < 1 || N < 1)
    return fupermod_error(FUPERMOD_ERR_USAGE, "layout: matrix of M = %d by N = %d blocks (both must be >= 1)",
                          M, N);
  if (!(l = calloc(1, sizeof *l)) || !(l->rects = calloc((size_t)p, sizeof *l->rects)) ||
      !(l->column = malloc((size_t)p * sizeof *l->column))) {
    fupermod_layout_free(l);
    return fupermod_error(FUPERMOD_ERR_NOMEM, "layout: out of memory for %d processes", p);
  }
  l->p = p;
  l->M = M;
  l->N = N;
  for (int i = 0; i < p; i++) l->column[i] = -1;
  *out = l;
  return FUPERMOD_SUCCESS;
}

void fupermod_layout_free(fupermod_layout *l) {
  if (!l) return;
  free(l->rects);
  free(l->column);
  free(l);
}

int fupermod_layout_copy(const fupermod_layout *src, fupermod_layout **out) {
  int rc;
  if (!src) return fupermod_error(FUPERMOD_ERR_USAGE, "layout copy: source is NULL");
  if ((rc = fupermod_layout_alloc(src->p, src->M, src->N, out)) != FUPERMOD_SUCCESS) return rc;
  (*out)->ncols = src->ncols;
  memcpy((*out)->rects, src->rects, (size_t)src->p * sizeof *src->rects);
  memcpy((*out)->column, src->column, (size_t)src->p * sizeof *src->column);
  return FUPERMOD_SUCCESS;
}

static int rect_empty(const fupermod_rect *r) { return r->height == 0 || r->width == 0; }

long fupermod_layout_area(const fupermod_layout *l, int i) {
  if (!l || i < 0 || i >= l->p) return 0;
  return (long)l->rects[i].height * l->rects[i].width;
}

double fupermod_layout_volume(const fupermod_layout *l) {
  double H = 0.0;
  if (!l) return NAN;
  for (int i = 0; i < l->p; i++)
    if (!rect_empty(&l->rects[i]))
      H += (double)l->rects[i].height / l->M + (double)l->rects[i].width / l->N;
  return H;
}

typedef struct {
  int i;
  const fupermod_rect *r;
} rect_ref;

static int by_col_row(const void *a, const void *b) {
  const fupermod_rect *x = ((const rect_ref *)a)->r, *y = ((const rect_ref *)b)->r;
  if (x->col != y->col) return x->col < y->col ? -1 : 1;
  if (x->row != y->row) return x->row < y->row ? -1 : 1;
  return 0;
}

int fupermod_layout_check(const fupermod_layout *l) {
  long total = 0;
  int q = 0, rc = FUPERMOD_SUCCESS;
  rect_ref *refs;
  if (!l || !l->rects || !l->column) return fupermod_error(FUPERMOD_ERR_USAGE, "layout check: NULL layout");
  if (l->p < 1 || l->M < 1 || l->N < 1)
    return fupermod_error(FUPERMOD_ERR_INPUT, "layout: p = %d, M = %d, N = %d (all must be >= 1)", l->p,
                          l->M, l->N);
  if (l->ncols < 0) return fupermod_error(FUPERMOD_ERR_INPUT, "layout: ncols = %d is negative", l->ncols);
  for (int i = 0; i < l->p; i++) {
    const fupermod_rect *r = &l->rects[i];
    if (r->height < 0 || r->width < 0)
      return fupermod_error(FUPERMOD_ERR_INPUT, "layout: process %d has a negative height or width (%d x %d)",
                            i, r->height, r->width);
    if (rect_empty(r)) {
      if (l->column[i] != -1)
        return fupermod_error(FUPERMOD_ERR_INPUT, "layout: process %d has an empty rectangle but column %d (must be -1)",
                              i, l->column[i]);
      continue;
    }
    if (r->row < 0 || r->col < 0 || r->height > l->M - r->row || r->width > l->N - r->col)
      return fupermod_error(FUPERMOD_ERR_INPUT,
                            "layout: rectangle of process %d (row %d, col %d, %d x %d) lies outside the %d x %d matrix",
                            i, r->row, r->col, r->height, r->width, l->M, l->N);
    if (l->ncols == 0 ? l->column[i] != -1 : (l->column[i] < 0 || l->column[i] >= l->ncols))
      return fupermod_error(FUPERMOD_ERR_INPUT, "layout: process %d has column %d (must be %s)", i,
                            l->column[i], l->ncols == 0 ? "-1 in a general tiling" : "0..ncols-1");
    total += (long)r->height * r->width;
    q++;
  }
  if (total != (long)l->M * l->N)
    return fupermod_error(FUPERMOD_ERR_INPUT, "layout: rectangles cover %ld blocks, the matrix has %ld", total,
                          (long)l->M * l->N);
  /* areas sum to M*N, so no overlap means an exact cover. Sorted by column start, a rectangle
   * can only overlap those that start before its right edge: the scan stops there. */
  if (!(refs = malloc((size_t)q * sizeof *refs)))
    return fupermod_error(FUPERMOD_ERR_NOMEM, "layout check: out of memory");
  q = 0;
  for (int i = 0; i < l->p; i++)
    if (!rect_empty(&l->rects[i])) refs[q++] = (rect_ref){i, &l->rects[i]};
  qsort(refs, (size_t)q, sizeof *refs, by_col_row);
  for (int a = 0; a < q && rc == FUPERMOD_SUCCESS; a++) {
    const fupermod_rect *x = refs[a].r;
    for (int c = a + 1; c < q && refs[c].r->col < x->col + x->width; c++) {
      const fupermod_rect *y = refs[c].r;
      if (y->row < x->row + x->height && x->row < y->row + y->height) {
        rc = fupermod_error(FUPERMOD_ERR_INPUT, "layout: rectangles of processes %d and %d overlap",
                            refs[a].i < refs[c].i ? refs[a].i : refs[c].i,
                            refs[a].i < refs[c].i ? refs[c].i : refs[a].i);
        break;
      }
    }
  }
  free(refs);
  if (rc != FUPERMOD_SUCCESS) return rc;
  /* column-based: a processor column is one vertical slice */
  if (l->ncols > 0) {
    int *first = malloc((size_t)l->ncols * sizeof *first);
    if (!first) return fupermod_error(FUPERMOD_ERR_NOMEM, "layout check: out of memory");
    for (int j = 0; j < l->ncols; j++) first[j] = -1;
    for (int i = 0; i < l->p && rc == FUPERMOD_SUCCESS; i++) {
      int j = l->column[i], k;
      if (j < 0) continue;
      if ((k = first[j]) < 0) first[j] = i;
      else if (l->rects[k].col != l->rects[i].col || l->rects[k].width != l->rects[i].width)
        rc = fupermod_error(FUPERMOD_ERR_INPUT,
                            "layout: processes %d and %d are in column %d but have different column extents", k,
                            i, j);
    }
    free(first);
  }
  return rc;
}

/* ---- shared pieces of the column-based layouts ---- */

/* Validate areas and return their sum in *total. */
static int check_areas(const char *alg, const double *areas, int p, int M, int N, double *total) {
  double s = 0.0;
  if (!areas) return fupermod_error(FUPERMOD_ERR_USAGE, "%s layout: areas is NULL", alg);
  if (p < 1 || p > LAYOUT_P_MAX)
    return fupermod_error(FUPERMOD_ERR_USAGE, "%s layout: number of processes p = %d (must be 1..%d)", alg, p,
                          LAYOUT_P_MAX);
  if (M < 1 || N < 1)
    return fupermod_error(FUPERMOD_ERR_USAGE, "%s layout: matrix of M = %d by N = %d blocks (both must be >= 1)",
                          alg, M, N);
  for (int i = 0; i < p; i++) {
    if (!isfinite(areas[i]) || areas[i] < 0.0)
      return fupermod_error(FUPERMOD_ERR_USAGE, "%s layout: areas[%d] = %g (must be finite and >= 0)", alg, i,
                            areas[i]);
    s += areas[i];
  }
  if (!(s > 0.0) || !isfinite(s))
    return fupermod_error(FUPERMOD_ERR_USAGE, "%s layout: the areas sum to %g (need a positive finite sum)", alg, s);
  *total = s;
  return FUPERMOD_SUCCESS;
}

/* fupermod_dist_round, but an entry with x = 0 never gets a unit (rounding noise in the
 * shares could otherwise hand one to an empty column or a zero-area process). */
static int round_shares(const double *x, int n, long D, long *d) {
  int rc = fupermod_dist_round(x, n, D, d), big = 0;
  if (rc != FUPERMOD_SUCCESS) return rc;
  for (int k = 1; k < n; k++)
    if (x[k] > x[big]) big = k;
  for (int k = 0; k < n; k++)
    if (!(x[k] > 0.0) && d[k] > 0 && k != big) {
      d[big] += d[k];
      d[k] = 0;
    }
  return FUPERMOD_SUCCESS;
}

/* Lay out columns: column j holds members[start[j] .. start[j+1]) top to bottom, with real
 * width share w[j] (sum 1) and real height shares h[k] (sum 1 within the column). */
static int place_columns(int c, const int *start, const int *members, const double *w, const double *h,
                         fupermod_layout *l) {
  long *W = malloc((size_t)c * sizeof *W), *Hgt = NULL;
  double *x = NULL;
  int rc = FUPERMOD_SUCCESS, col = 0, maxr = 1, used = 0;
  for (int j = 0; j < c; j++)
    if (start[j + 1] - start[j] > maxr) maxr = start[j + 1] - start[j];
  x = calloc((size_t)(c > maxr ? c : maxr), sizeof *x);
  Hgt = malloc((size_t)maxr * sizeof *Hgt);
  if (!W || !x || !Hgt) {
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "layout: out of memory");
    goto done;
  }
  for (int j = 0; j < c; j++) x[j] = w[j] * l->N;
  if ((rc = round_shares(x, c, l->N, W)) != FUPERMOD_SUCCESS) goto done;
  for (int j = 0; j < c; j++) {
    int r = start[j + 1] - start[j], row = 0;
    if (W[j] == 0) continue; /* a sliver narrower than a block: its processes get nothing */
    for (int k = 0; k < r; k++) x[k] = h[start[j] + k] * l->M;
    if ((rc = round_shares(x, r, l->M, Hgt)) != FUPERMOD_SUCCESS) goto done;
    for (int k = 0; k < r; k++) {
      int i = members[start[j] + k];
      if (Hgt[k] == 0) continue;
      l->rects[i] = (fupermod_rect){row, col, (int)Hgt[k], (int)W[j]};
      l->column[i] = used;
      row += (int)Hgt[k];
    }
    col += (int)W[j];
    used++;
  }
  l->ncols = used;
done:
  free(W);
  free(Hgt);
  free(x);
  return rc;
}

int fupermod_layout_kl(const double *areas, int p, int ncols, const int *col_sizes, int M, int N,
                       fupermod_layout **out) {
  double total, *w = NULL, *h = NULL;
  int *start = NULL, *members = NULL, rc;
  fupermod_layout *l = NULL;
  if (!out) return fupermod_error(FUPERMOD_ERR_USAGE, "kl layout: out is NULL");
  *out = NULL;
  if ((rc = check_areas("kl", areas, p, M, N, &total)) != FUPERMOD_SUCCESS) return rc;
  if (ncols <= 0) {
    if (col_sizes) return fupermod_error(FUPERMOD_ERR_USAGE, "kl layout: col_sizes given without ncols");
    ncols = (int)floor(sqrt((double)p) + 0.5);
  }
  if (ncols > p)
    return fupermod_error(FUPERMOD_ERR_USAGE, "kl layout: ncols = %d exceeds the %d processes", ncols, p);
  if (col_sizes) {
    long s = 0;
    for (int j = 0; j < ncols; j++) {
      if (col_sizes[j] < 1)
        return fupermod_error(FUPERMOD_ERR_USAGE, "kl layout: col_sizes[%d] = %d (must be >= 1)", j, col_sizes[j]);
      s += col_sizes[j];
    }
    if (s != p)
      return fupermod_error(FUPERMOD_ERR_USAGE, "kl layout: col_sizes sum to %ld, not p = %d", s, p);
  }
  if ((rc = fupermod_layout_alloc(p, M, N, &l)) != FUPERMOD_SUCCESS) return rc;
  start = malloc((size_t)(ncols + 1) * sizeof *start);
  members = malloc((size_t)p * sizeof *members);
  w = malloc((size_t)ncols * sizeof *w);
  h = malloc((size_t)p * sizeof *h);
  if (!start || !members || !w || !h) {
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "kl layout: out of memory");
    goto done;
  }
  start[0] = 0;
  for (int j = 0; j < ncols; j++)
    start[j + 1] = start[j] + (col_sizes ? col_sizes[j] : p / ncols + (j < p % ncols));
  for (int i = 0; i < p; i++) members[i] = i;
  for (int j = 0; j < ncols; j++) {
    double s = 0.0;
    for (int k = start[j]; k < start[j + 1]; k++) s += areas[k];
    w[j] = s / total;
    for (int k = start[j]; k < start[j + 1]; k++) h[k] = s > 0.0 ? areas[k] / s : 0.0;
  }
  rc = place_columns(ncols, start, members, w, h, l);
done:
  free(start);
  free(members);
  free(w);
  free(h);
  if (rc == FUPERMOD_SUCCESS) *out = l;
  else fupermod_layout_free(l);
  return rc;
}

/* ---- BR: the communication-minimising dynamic program ---- */

typedef struct {
  double a;
  int i;
} area_idx;

static int by_area(const void *x, const void *y) {
  const area_idx *u = x, *v = y;
  if (u->a != v->a) return u->a < v->a ? -1 : 1;
  return u->i < v->i ? -1 : (u->i > v->i);
}

/* Positive areas sorted ascending (ties by rank), normalised to sum 1, with prefix sums
 * A[0..q]. Returns q. */
static int sorted_prefix(const double *areas, int p, double total, area_idx *s, double *A) {
  int q = 0;
  for (int i = 0; i < p; i++)
    if (areas[i] > 0.0) s[q++] = (area_idx){areas[i] / total, i};
  qsort(s, (size_t)q, sizeof *s, by_area);
  A[0] = 0.0;
  for (int k = 0; k < q; k++) A[k + 1] = A[k] + s[k].a;
  return q;
}

/* Ties are common (equal areas): keep the earlier split unless clearly better, so the result
 * does not depend on rounding in the prefix sums. */
static int better(double v, double best) { return v < best - 1e-12 * (best > 1.0 ? best : 1.0); }

/* Exactly-c tables: T[c][i] = best H of the first i processes in c columns, r <= rmax each. */
static int br_tables(const double *A, int q, int cmax, int rmax, double *T, int *arg) {
  size_t w = (size_t)q + 1;
  for (size_t i = 0; i < w; i++) T[i] = i == 0 ? 0.0 : INFINITY;
  for (int c = 1; c <= cmax; c++) {
    double *prev = T + (size_t)(c - 1) * w, *cur = T + (size_t)c * w;
    int *ac = arg + (size_t)c * w;
    for (int i = 0; i <= q; i++) {
      double best = INFINITY;
      int bj = -1;
      int lo = i - rmax > c - 1 ? i - rmax : c - 1;
      for (int j = lo; j < i; j++) {
        double v;
        if (!isfinite(prev[j])) continue;
        v = prev[j] + 1.0 + (double)(i - j) * (A[i] - A[j]);
        if (bj < 0 || better(v, best)) {
          best = v;
          bj = j;
        }
      }
      cur[i] = best;
      ac[i] = bj;
    }
  }
  return FUPERMOD_SUCCESS;
}

int fupermod_br_table(const double *areas, int p, int cmax, double *H) {
  double total, *A = NULL, *T = NULL;
  area_idx *s = NULL;
  int *arg = NULL, q, rc;
  if ((rc = check_areas("br", areas, p, 1, 1, &total)) != FUPERMOD_SUCCESS) return rc;
  if (!H) return fupermod_error(FUPERMOD_ERR_USAGE, "br table: H is NULL");
  if (cmax < 1) return fupermod_error(FUPERMOD_ERR_USAGE, "br table: cmax = %d (must be >= 1)", cmax);
  s = malloc((size_t)p * sizeof *s);
  A = malloc(((size_t)p + 1) * sizeof *A);
  if (!s || !A) {
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "br table: out of memory");
    goto done;
  }
  q = sorted_prefix(areas, p, total, s, A);
  {
    int cm = cmax < q ? cmax : q;
    T = malloc(((size_t)cm + 1) * ((size_t)q + 1) * sizeof *T);
    arg = malloc(((size_t)cm + 1) * ((size_t)q + 1) * sizeof *arg);
    if (!T || !arg) {
      rc = fupermod_error(FUPERMOD_ERR_NOMEM, "br table: out of memory for %d x %d entries", cm + 1, q + 1);
      goto done;
    }
    br_tables(A, q, cm, q, T, arg);
    for (int c = 1; c <= cmax; c++) H[c - 1] = c <= cm ? T[(size_t)c * (q + 1) + q] : INFINITY;
  }
done:
  free(s);
  free(A);
  free(T);
  free(arg);
  return rc;
}

int fupermod_layout_br(const double *areas, int p, int ncols, int M, int N, fupermod_layout **out) {
  double total, *A = NULL, *w = NULL, *h = NULL, *T = NULL;
  area_idx *s = NULL;
  int *arg = NULL, *cuts = NULL, *members = NULL, q, rc, c = 0, rmax, cmax;
  fupermod_layout *l = NULL;
  if (!out) return fupermod_error(FUPERMOD_ERR_USAGE, "br layout: out is NULL");
  *out = NULL;
  if ((rc = check_areas("br", areas, p, M, N, &total)) != FUPERMOD_SUCCESS) return rc;
  if ((rc = fupermod_layout_alloc(p, M, N, &l)) != FUPERMOD_SUCCESS) return rc;
  s = malloc((size_t)p * sizeof *s);
  A = malloc(((size_t)p + 1) * sizeof *A);
  cuts = malloc(((size_t)p + 1) * sizeof *cuts);
  members = malloc((size_t)p * sizeof *members);
  w = malloc((size_t)p * sizeof *w);
  h = malloc((size_t)p * sizeof *h);
  if (!s || !A || !cuts || !members || !w || !h) {
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "br layout: out of memory");
    goto done;
  }
  q = sorted_prefix(areas, p, total, s, A);
  if (ncols > q) {
    rc = fupermod_error(FUPERMOD_ERR_USAGE, "br layout: ncols = %d exceeds the %d processes with positive area",
                        ncols, q);
    goto done;
  }
  if (ncols > N) {
    rc = fupermod_error(FUPERMOD_ERR_USAGE, "br layout: ncols = %d exceeds the N = %d block columns", ncols, N);
    goto done;
  }
  /* columns no wider than the matrix allows: at most N columns of at most M processes (relaxed
   * when there are more processes than blocks, where some must get nothing anyway) */
  cmax = ncols > 0 ? ncols : (q < N ? q : N);
  rmax = (long)q <= (long)M * cmax ? M : q;
  if (ncols <= 0 && cmax == q) {
    /* the column count is free: the O(q * rmax) program over the number of processes placed */
    double *G = malloc(((size_t)q + 1) * sizeof *G);
    int *bj = malloc(((size_t)q + 1) * sizeof *bj), n = 0;
    if (!G || !bj) {
      free(G);
      free(bj);
      rc = fupermod_error(FUPERMOD_ERR_NOMEM, "br layout: out of memory");
      goto done;
    }
    G[0] = 0.0;
    for (int i = 1; i <= q; i++) {
      G[i] = INFINITY;
      bj[i] = 0;
      int lo = i - rmax > 0 ? i - rmax : 0;
      for (int j = lo; j < i; j++) {
        double v = G[j] + 1.0 + (double)(i - j) * (A[i] - A[j]);
        if (j == lo || better(v, G[i])) {
          G[i] = v;
          bj[i] = j;
        }
      }
    }
    for (int i = q; i > 0; i = bj[i]) cuts[n++] = i;
    c = n;
    free(G);
    free(bj);
  } else {
    size_t wd = (size_t)q + 1;
    int best_c = -1;
    T = malloc(((size_t)cmax + 1) * wd * sizeof *T);
    arg = malloc(((size_t)cmax + 1) * wd * sizeof *arg);
    if (!T || !arg) {
      rc = fupermod_error(FUPERMOD_ERR_NOMEM, "br layout: out of memory for %d x %d entries", cmax + 1, q + 1);
      goto done;
    }
    br_tables(A, q, cmax, rmax, T, arg);
    for (int cc = ncols > 0 ? ncols : 1; cc <= cmax; cc++)
      if (isfinite(T[cc * wd + q]) && (best_c < 0 || better(T[cc * wd + q], T[best_c * wd + q]))) best_c = cc;
    if (best_c < 0) {
      rc = fupermod_error(FUPERMOD_ERR_INFEASIBLE, "br layout: no arrangement in %d columns of at most %d processes",
                          cmax, rmax);
      goto done;
    }
    c = 0;
    for (int cc = best_c, i = q; cc > 0; i = arg[cc * wd + i], cc--) cuts[c++] = i;
  }
  /* cuts[] holds the column ends from the right: turn them into starts, left to right */
  {
    int *start = malloc(((size_t)c + 1) * sizeof *start);
    if (!start) {
      rc = fupermod_error(FUPERMOD_ERR_NOMEM, "br layout: out of memory");
      goto done;
    }
    start[0] = 0;
    for (int j = 0; j < c; j++) start[j + 1] = cuts[c - 1 - j];
    for (int k = 0; k < q; k++) members[k] = s[k].i;
    for (int j = 0; j < c; j++) {
      w[j] = A[start[j + 1]] - A[start[j]];
      for (int k = start[j]; k < start[j + 1]; k++) h[k] = s[k].a / w[j];
    }
    rc = place_columns(c, start, members, w, h, l);
    free(start);
  }
done:
  free(s);
  free(A);
  free(T);
  free(arg);
  free(cuts);
  free(members);
  free(w);
  free(h);
  if (rc == FUPERMOD_SUCCESS) *out = l;
  else fupermod_layout_free(l);
  return rc;
}

int fupermod_layout_15d(fupermod_partition partition, int p, fupermod_model **models, int M, int N,
                        fupermod_dist *dist, fupermod_layout **out) {
  fupermod_dist *d = dist;
  double *areas = NULL;
  int rc;
  long D;
  if (!out) return fupermod_error(FUPERMOD_ERR_USAGE, "1.5d layout: out is NULL");
  *out = NULL;
  if (!partition) return fupermod_error(FUPERMOD_ERR_USAGE, "1.5d layout: partition is NULL");
  if (!models) return fupermod_error(FUPERMOD_ERR_USAGE, "1.5d layout: models is NULL");
  if (p < 1 || p > LAYOUT_P_MAX)
    return fupermod_error(FUPERMOD_ERR_USAGE, "1.5d layout: number of processes p = %d (must be 1..%d)", p,
                          LAYOUT_P_MAX);
  if (M < 1 || N < 1)
    return fupermod_error(FUPERMOD_ERR_USAGE, "1.5d layout: matrix of M = %d by N = %d blocks (both must be >= 1)",
                          M, N);
  D = (long)M * N;
  if (d) {
    if (d->D != D || d->size != p || !d->parts)
      return fupermod_error(FUPERMOD_ERR_USAGE,
                            "1.5d layout: dist has D = %ld, size = %d (must be D = M*N = %ld, size = p = %d)", d->D,
                            d->size, D, p);
  } else if (!(d = fupermod_dist_alloc(D, p))) {
    return fupermod_error(FUPERMOD_ERR_NOMEM, "1.5d layout: out of memory");
  }
  if ((rc = partition(p, models, d)) != FUPERMOD_SUCCESS) {
    fupermod_error_prefix(rc, "1.5d layout");
    goto done;
  }
  if (!(areas = malloc((size_t)p * sizeof *areas))) {
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "1.5d layout: out of memory");
    goto done;
  }
  {
    long sum = 0;
    for (int i = 0; i < p; i++) {
      if (d->parts[i].d < 0) {
        rc = fupermod_error(FUPERMOD_ERR_NUMERIC, "1.5d layout: the partitioner gave process %d a negative area %ld",
                            i, d->parts[i].d);
        goto done;
      }
      sum += d->parts[i].d;
      areas[i] = (double)d->parts[i].d;
    }
    if (sum != D) {
      rc = fupermod_error(FUPERMOD_ERR_NUMERIC, "1.5d layout: the partitioner's areas sum to %ld, not M*N = %ld", sum,
                          D);
      goto done;
    }
  }
  rc = fupermod_layout_br(areas, p, 0, M, N, out);
done:
  free(areas);
  if (d != dist) fupermod_dist_free(d);
  return rc;
}

int fupermod_layout_by_name(const char *alg, const double *areas, int p, int M, int N,
                            fupermod_layout **out) {
  if (!alg) return fupermod_error(FUPERMOD_ERR_USAGE, "layout: algorithm name is NULL");
  if (strcmp(alg, "kl") == 0) return fupermod_layout_kl(areas, p, 0, NULL, M, N, out);
  if (strcmp(alg, "br") == 0) return fupermod_layout_br(areas, p, 0, M, N, out);
  if (strcmp(alg, "even") == 0) {
    double *ones;
    int rc;
    if (p < 1 || p > LAYOUT_P_MAX)
      return fupermod_error(FUPERMOD_ERR_USAGE, "even layout: number of processes p = %d (must be 1..%d)", p,
                            LAYOUT_P_MAX);
    if (!(ones = malloc((size_t)p * sizeof *ones))) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
    for (int i = 0; i < p; i++) ones[i] = 1.0;
    rc = fupermod_layout_br(ones, p, 0, M, N, out);
    free(ones);
    return rc;
  }
  return fupermod_error(FUPERMOD_ERR_USAGE, "layout: unknown algorithm '%s' (kl, br, even)", alg);
}

/* ---- layout files ---- */

int fupermod_layout_save(const char *path, const fupermod_layout *l, const char *comment) {
  fupermod_atomic_file af;
  int rc;
  if (!path || !l) return fupermod_error(FUPERMOD_ERR_USAGE, "layout save: NULL argument");
  if ((rc = fupermod_layout_check(l)) != FUPERMOD_SUCCESS) return fupermod_error_prefix(rc, "%s", path);
  if ((rc = fupermod_atomic_open(&af, path)) != FUPERMOD_SUCCESS) return rc;
  fprintf(af.fp, "# fupermod layout v1\n");
  if (comment) fprintf(af.fp, "# %s\n", comment);
  fprintf(af.fp, "# H %.17g\n# p M N ncols (N, M in blocks)\n%d %d %d %d\n", fupermod_layout_volume(l), l->p,
          l->M, l->N, l->ncols);
  fprintf(af.fp, "# rank row col height width column\n");
  for (int i = 0; i < l->p; i++) {
    const fupermod_rect *r = &l->rects[i];
    fprintf(af.fp, "%d %d %d %d %d %d\n", i, r->row, r->col, r->height, r->width, l->column[i]);
  }
  return fupermod_atomic_commit(&af);
}

static int parse_int(const char *s, int *v) {
  long x;
  if (fupermod_parse_long(s, &x) || x < INT32_MIN || x > INT32_MAX) return -1;
  *v = (int)x;
  return 0;
}

int fupermod_layout_parse(const char *input, size_t len, const char *name, fupermod_layout **out) {
  int rc = FUPERMOD_SUCCESS, seen_count = 0;
  char *seen = NULL, *line;
  fupermod_layout *l = NULL;
  fupermod_lines rd;
  if (!out) return fupermod_error(FUPERMOD_ERR_USAGE, "layout parse: out is NULL");
  *out = NULL;
  if (!input) return fupermod_error(FUPERMOD_ERR_USAGE, "layout parse: text is NULL");
  if (!name) name = "(layout)";
  if (memchr(input, '\0', len)) return fupermod_error(FUPERMOD_ERR_INPUT, "%s: binary data in a layout file", name);
  fupermod_lines_init(&rd, input, len, name);
  while ((rc = fupermod_lines_next(&rd, &line)) == FUPERMOD_SUCCESS && line) {
    const int lineno = rd.line;
    char *tok[6];
    int n = fupermod_lines_fields(line, tok, 6), v[6];
    for (int k = 0; k < n && k < 6; k++)
      if (parse_int(tok[k], &v[k])) {
        rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: field %d ('%s') is not an integer", name, lineno, k + 1,
                            tok[k]);
        goto fail;
      }
    if (!l) {
      if (n != 4) {
        rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: expected the header 'p M N ncols'", name, lineno);
        goto fail;
      }
      if (v[3] < 0) {
        rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: ncols = %d is negative", name, lineno, v[3]);
        goto fail;
      }
      if ((rc = fupermod_layout_alloc(v[0], v[1], v[2], &l)) != FUPERMOD_SUCCESS) {
        rc = fupermod_error_prefix(FUPERMOD_ERR_INPUT, "%s:%d", name, lineno);
        goto fail;
      }
      l->ncols = v[3];
      if (!(seen = calloc((size_t)l->p, 1))) {
        rc = fupermod_error(FUPERMOD_ERR_NOMEM, "%s: out of memory", name);
        goto fail;
      }
      continue;
    }
    if (n != 6) {
      rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: expected 'rank row col height width column'", name, lineno);
      goto fail;
    }
    if (v[0] < 0 || v[0] >= l->p) {
      rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: rank %d out of range 0..%d", name, lineno, v[0], l->p - 1);
      goto fail;
    }
    if (seen[v[0]]) {
      rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: rank %d given twice", name, lineno, v[0]);
      goto fail;
    }
    seen[v[0]] = 1;
    seen_count++;
    l->rects[v[0]] = (fupermod_rect){v[1], v[2], v[3], v[4]};
    l->column[v[0]] = v[5];
  }
  if (rc != FUPERMOD_SUCCESS) goto fail;
  if (!l) {
    rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s: empty layout file", name);
    goto fail;
  }
  if (seen_count != l->p) {
    rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s: %d of %d ranks given", name, seen_count, l->p);
    goto fail;
  }
  if ((rc = fupermod_layout_check(l)) != FUPERMOD_SUCCESS) {
    fupermod_error_prefix(rc, "%s", name);
    goto fail;
  }
  free(seen);
  fupermod_lines_free(&rd);
  *out = l;
  return FUPERMOD_SUCCESS;
fail:
  free(seen);
  fupermod_lines_free(&rd);
  fupermod_layout_free(l);
  return rc;
}

int fupermod_layout_load(const char *path, fupermod_layout **out) {
  char *text;
  size_t len;
  int rc;
  if (!out) return fupermod_error(FUPERMOD_ERR_USAGE, "layout load: out is NULL");
  *out = NULL;
  if (!path) return fupermod_error(FUPERMOD_ERR_USAGE, "layout load: path is NULL");
  if ((rc = fupermod_read_file(path, &text, &len)) != FUPERMOD_SUCCESS) return rc;
  rc = fupermod_layout_parse(text, len, path, out);
  free(text);
  return rc;
}
