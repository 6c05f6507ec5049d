/* Matrix layouts (docs/matrix.md): allocation, layouts with pieces, the tiling check, the volume
 * H, the choice of a layout by name, and the parts shared by the column-based layouts KL and BR. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "partitioners/layout_impl.h"

int fupermod_layout_alloc(int p, int M, int N, fupermod_layout **out) {
  fupermod_layout *l;
  if (!out) return fupermod_error(FUPERMOD_ERR_USAGE, "layout: out is NULL");
  *out = NULL;
  if (p < 1 || p > FUPERMOD_LAYOUT_P_MAX)
    return fupermod_error(FUPERMOD_ERR_USAGE, "layout: number of processes p = %d (must be 1..%d)", p,
                          FUPERMOD_LAYOUT_P_MAX);
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
  free(l->pieces);
  free(l->owner);
  free(l);
}

int fupermod_layout_copy(const fupermod_layout *src, fupermod_layout **out) {
  int rc;
  if (!src) return fupermod_error(FUPERMOD_ERR_USAGE, "layout copy: source is NULL");
  if ((rc = fupermod_layout_alloc(src->p, src->M, src->N, out)) != FUPERMOD_SUCCESS) return rc;
  (*out)->ncols = src->ncols;
  memcpy((*out)->rects, src->rects, (size_t)src->p * sizeof *src->rects);
  memcpy((*out)->column, src->column, (size_t)src->p * sizeof *src->column);
  if (src->npieces > 0) {
    fupermod_layout *l = *out;
    if (!(l->pieces = malloc((size_t)src->npieces * sizeof *l->pieces)) ||
        !(l->owner = malloc((size_t)src->npieces * sizeof *l->owner))) {
      fupermod_layout_free(l);
      *out = NULL;
      return fupermod_error(FUPERMOD_ERR_NOMEM, "layout copy: out of memory for %d pieces", src->npieces);
    }
    memcpy(l->pieces, src->pieces, (size_t)src->npieces * sizeof *l->pieces);
    memcpy(l->owner, src->owner, (size_t)src->npieces * sizeof *l->owner);
    l->npieces = src->npieces;
  }
  return FUPERMOD_SUCCESS;
}

static int rect_empty(const fupermod_rect *r) { return r->height == 0 || r->width == 0; }

int fupermod_layout_set_pieces(fupermod_layout *l, int n, const fupermod_rect *pieces, const int *owner) {
  int *count, m = 0, several = 0;
  fupermod_rect *pc = NULL;
  int *ow = NULL;
  if (!l || !l->rects || !l->column) return fupermod_error(FUPERMOD_ERR_USAGE, "layout pieces: NULL layout");
  if (n < 0 || (n > 0 && (!pieces || !owner)))
    return fupermod_error(FUPERMOD_ERR_USAGE, "layout pieces: %d pieces%s", n, n < 0 ? "" : " but NULL arrays");
  for (int j = 0; j < n; j++)
    if (owner[j] < 0 || owner[j] >= l->p)
      return fupermod_error(FUPERMOD_ERR_USAGE, "layout pieces: piece %d has owner %d (must be 0..%d)", j, owner[j],
                            l->p - 1);
  if (!(count = calloc((size_t)l->p, sizeof *count)) ||
      (n > 0 && (!(pc = malloc((size_t)n * sizeof *pc)) || !(ow = malloc((size_t)n * sizeof *ow))))) {
    free(count), free(pc), free(ow);
    return fupermod_error(FUPERMOD_ERR_NOMEM, "layout pieces: out of memory for %d pieces", n);
  }
  for (int j = 0; j < n; j++) {
    if (rect_empty(&pieces[j])) continue;
    pc[m] = pieces[j];
    ow[m++] = owner[j];
    if (++count[owner[j]] > 1) several = 1;
  }
  free(l->pieces);
  free(l->owner);
  l->pieces = NULL;
  l->owner = NULL;
  l->npieces = 0;
  l->ncols = 0;
  for (int i = 0; i < l->p; i++) {
    l->rects[i] = (fupermod_rect){0, 0, 0, 0};
    l->column[i] = -1;
  }
  for (int j = 0; j < m; j++)
    if (count[ow[j]] == 1) l->rects[ow[j]] = pc[j];
  if (several) {
    l->pieces = pc;
    l->owner = ow;
    l->npieces = m;
  } else
    free(pc), free(ow);
  free(count);
  return FUPERMOD_SUCCESS;
}

long fupermod_layout_area(const fupermod_layout *l, int i) {
  long a = 0;
  if (!l || i < 0 || i >= l->p || (l->npieces > 0 && (!l->owner || !l->pieces))) return 0;
  if (l->npieces <= 0) return (long)l->rects[i].height * l->rects[i].width;
  for (int j = 0; j < l->npieces; j++)
    if (l->owner[j] == i) a += (long)l->pieces[j].height * l->pieces[j].width;
  return a;
}

int fupermod_layout_npieces(const fupermod_layout *l, int i) {
  int c = 0;
  if (!l || i < 0 || i >= l->p || (l->npieces > 0 && !l->owner)) return 0;
  if (l->npieces <= 0) return !rect_empty(&l->rects[i]);
  for (int j = 0; j < l->npieces; j++) c += l->owner[j] == i;
  return c;
}

double fupermod_layout_volume(const fupermod_layout *l) {
  double H = 0.0;
  const fupermod_rect *r;
  int n;
  if (!l || (l->npieces > 0 && !l->pieces)) return NAN;
  r = l->npieces > 0 ? l->pieces : l->rects;
  n = l->npieces > 0 ? l->npieces : l->p;
  for (int i = 0; i < n; i++)
    if (!rect_empty(&r[i])) H += (double)r[i].height / l->M + (double)r[i].width / l->N;
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

int fupermod_lay_overlap(const fupermod_rect *r, int n, int *x, int *y) {
  int q = 0;
  rect_ref *refs;
  *x = *y = -1;
  if (!(refs = malloc((size_t)(n > 0 ? n : 1) * sizeof *refs)))
    return fupermod_error(FUPERMOD_ERR_NOMEM, "layout check: out of memory");
  for (int i = 0; i < n; i++)
    if (!rect_empty(&r[i])) refs[q++] = (rect_ref){i, &r[i]};
  /* sorted by column start, a rectangle can only overlap those that start before its right edge:
   * the scan stops there */
  qsort(refs, (size_t)q, sizeof *refs, by_col_row);
  for (int a = 0; a < q && *x < 0; a++) {
    const fupermod_rect *u = refs[a].r;
    for (int c = a + 1; c < q && refs[c].r->col < u->col + u->width; c++) {
      const fupermod_rect *v = refs[c].r;
      if (v->row < u->row + u->height && u->row < v->row + v->height) {
        *x = refs[a].i < refs[c].i ? refs[a].i : refs[c].i;
        *y = refs[a].i < refs[c].i ? refs[c].i : refs[a].i;
        break;
      }
    }
  }
  free(refs);
  return FUPERMOD_SUCCESS;
}

static int inside(const fupermod_layout *l, const fupermod_rect *r) {
  return r->row >= 0 && r->col >= 0 && r->height <= l->M - r->row && r->width <= l->N - r->col;
}

/* A tiling by pieces: each inside and not empty, owners in range, no overlap, areas summing to
 * M*N; rects, column and ncols as the pieces make them. */
static int check_pieces(const fupermod_layout *l) {
  long total = 0;
  int rc, x, y, *count;
  if (!l->pieces || !l->owner)
    return fupermod_error(FUPERMOD_ERR_INPUT, "layout: %d pieces, but no piece or owner array", l->npieces);
  if (l->ncols != 0)
    return fupermod_error(FUPERMOD_ERR_INPUT, "layout: a layout with pieces has ncols = %d (must be 0)", l->ncols);
  for (int j = 0; j < l->npieces; j++) {
    const fupermod_rect *r = &l->pieces[j];
    if (l->owner[j] < 0 || l->owner[j] >= l->p)
      return fupermod_error(FUPERMOD_ERR_INPUT, "layout: piece %d has owner %d (must be 0..%d)", j, l->owner[j],
                            l->p - 1);
    if (r->height < 1 || r->width < 1)
      return fupermod_error(FUPERMOD_ERR_INPUT, "layout: piece %d of process %d is empty or negative (%d x %d)", j,
                            l->owner[j], r->height, r->width);
    if (!inside(l, r))
      return fupermod_error(FUPERMOD_ERR_INPUT,
                            "layout: piece %d of process %d (row %d, col %d, %d x %d) lies outside the %d x %d matrix",
                            j, l->owner[j], r->row, r->col, r->height, r->width, l->M, l->N);
    total += (long)r->height * r->width;
  }
  if (total != (long)l->M * l->N)
    return fupermod_error(FUPERMOD_ERR_INPUT, "layout: pieces cover %ld blocks, the matrix has %ld", total,
                          (long)l->M * l->N);
  if ((rc = fupermod_lay_overlap(l->pieces, l->npieces, &x, &y)) != FUPERMOD_SUCCESS) return rc;
  if (x >= 0)
    return fupermod_error(FUPERMOD_ERR_INPUT, "layout: pieces %d and %d (of processes %d and %d) overlap", x, y,
                          l->owner[x], l->owner[y]);
  if (!(count = calloc((size_t)l->p, sizeof *count))) return fupermod_error(FUPERMOD_ERR_NOMEM, "layout check: out of memory");
  for (int j = 0; j < l->npieces; j++) count[l->owner[j]]++;
  for (int i = 0; i < l->p && rc == FUPERMOD_SUCCESS; i++) {
    fupermod_rect want = {0, 0, 0, 0};
    if (count[i] == 1)
      for (int j = 0; j < l->npieces; j++)
        if (l->owner[j] == i) want = l->pieces[j];
    if (memcmp(&want, &l->rects[i], sizeof want) != 0 || l->column[i] != -1)
      rc = fupermod_error(FUPERMOD_ERR_INPUT,
                          "layout: process %d's rectangle or column does not match its %d pieces (its piece when it "
                          "owns exactly one, else empty; column -1)", i, count[i]);
  }
  free(count);
  return rc;
}

int fupermod_layout_check(const fupermod_layout *l) {
  long total = 0;
  int rc = FUPERMOD_SUCCESS, x, y;
  if (!l || !l->rects || !l->column) return fupermod_error(FUPERMOD_ERR_USAGE, "layout check: NULL layout");
  if (l->p < 1 || l->M < 1 || l->N < 1)
    return fupermod_error(FUPERMOD_ERR_INPUT, "layout: p = %d, M = %d, N = %d (all must be >= 1)", l->p,
                          l->M, l->N);
  if (l->ncols < 0) return fupermod_error(FUPERMOD_ERR_INPUT, "layout: ncols = %d is negative", l->ncols);
  if (l->npieces < 0) return fupermod_error(FUPERMOD_ERR_INPUT, "layout: npieces = %d is negative", l->npieces);
  if (l->npieces > 0) return check_pieces(l);
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
    if (!inside(l, r))
      return fupermod_error(FUPERMOD_ERR_INPUT,
                            "layout: rectangle of process %d (row %d, col %d, %d x %d) lies outside the %d x %d matrix",
                            i, r->row, r->col, r->height, r->width, l->M, l->N);
    if (l->ncols == 0 ? l->column[i] != -1 : (l->column[i] < 0 || l->column[i] >= l->ncols))
      return fupermod_error(FUPERMOD_ERR_INPUT, "layout: process %d has column %d (must be %s)", i,
                            l->column[i], l->ncols == 0 ? "-1 in a general tiling" : "0..ncols-1");
    total += (long)r->height * r->width;
  }
  if (total != (long)l->M * l->N)
    return fupermod_error(FUPERMOD_ERR_INPUT, "layout: rectangles cover %ld blocks, the matrix has %ld", total,
                          (long)l->M * l->N);
  /* areas sum to M*N, so no overlap means an exact cover */
  if ((rc = fupermod_lay_overlap(l->rects, l->p, &x, &y)) != FUPERMOD_SUCCESS) return rc;
  if (x >= 0) return fupermod_error(FUPERMOD_ERR_INPUT, "layout: rectangles of processes %d and %d overlap", x, y);
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

int fupermod_layout_by_name(const char *alg, const double *areas, int p, int M, int N,
                            fupermod_layout **out) {
  if (!alg) return fupermod_error(FUPERMOD_ERR_USAGE, "layout: algorithm name is NULL");
  if (strcmp(alg, "kl") == 0) return fupermod_layout_kl(areas, p, 0, NULL, M, N, out);
  if (strcmp(alg, "br") == 0) return fupermod_layout_br(areas, p, 0, M, N, out);
  if (strcmp(alg, "sc") == 0) return fupermod_layout_sc(areas, p, M, N, out);
  if (strcmp(alg, "even") == 0) {
    double *ones;
    int rc;
    if (p < 1 || p > FUPERMOD_LAYOUT_P_MAX)
      return fupermod_error(FUPERMOD_ERR_USAGE, "even layout: number of processes p = %d (must be 1..%d)", p,
                            FUPERMOD_LAYOUT_P_MAX);
    if (!(ones = malloc((size_t)p * sizeof *ones))) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
    for (int i = 0; i < p; i++) ones[i] = 1.0;
    rc = fupermod_layout_br(ones, p, 0, M, N, out);
    free(ones);
    return rc;
  }
  return fupermod_error(FUPERMOD_ERR_USAGE, "layout: unknown algorithm '%s' (kl, br, even, sc)", alg);
}

/* ---- shared parts of the column-based layouts ---- */

int fupermod_lay_check_areas(const char *alg, const double *areas, int p, int M, int N, double *total) {
  double s = 0.0;
  if (!areas) return fupermod_error(FUPERMOD_ERR_USAGE, "%s layout: areas is NULL", alg);
  if (p < 1 || p > FUPERMOD_LAYOUT_P_MAX)
    return fupermod_error(FUPERMOD_ERR_USAGE, "%s layout: number of processes p = %d (must be 1..%d)", alg, p,
                          FUPERMOD_LAYOUT_P_MAX);
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

int fupermod_lay_place_columns(int c, const int *start, const int *members, const double *w, const double *h,
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
