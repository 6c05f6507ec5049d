/* BR layout (docs/matrix.md): the communication-minimising dynamic program over columns of
 * processes sorted by area. */
#include <math.h>
#include <stdlib.h>
#include "partitioners/layout_impl.h"

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
  if ((rc = fupermod_lay_check_areas("br", areas, p, 1, 1, &total)) != FUPERMOD_SUCCESS) return rc;
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
  if ((rc = fupermod_lay_check_areas("br", areas, p, M, N, &total)) != FUPERMOD_SUCCESS) return rc;
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
    rc = fupermod_lay_place_columns(c, start, members, w, h, l);
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
