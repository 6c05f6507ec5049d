/* Layout files (docs/matrix.md): save, parse and load, with the tiling check; a rank on several
 * lines makes a layout with pieces. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "fupermod/lines.h"
#include "partitioners/layout_impl.h"

int fupermod_layout_save(const char *path, const fupermod_layout *l, const char *comment) {
  fupermod_atomic_file af;
  int rc, by_pieces = 0;
  if (!path || !l) return fupermod_error(FUPERMOD_ERR_USAGE, "layout save: NULL argument");
  if ((rc = fupermod_layout_check(l)) != FUPERMOD_SUCCESS) return fupermod_error_prefix(rc, "%s", path);
  /* a line per piece only where a process owns several: otherwise rects hold the same tiling, and
   * a file with every rank once loads as a plain layout */
  for (int i = 0; i < l->p && l->npieces > 0 && !by_pieces; i++) by_pieces = fupermod_layout_npieces(l, i) > 1;
  if ((rc = fupermod_atomic_open(&af, path)) != FUPERMOD_SUCCESS) return rc;
  fprintf(af.fp, "# fupermod layout v1\n");
  if (comment) fprintf(af.fp, "# %s\n", comment);
  fprintf(af.fp, "# H %.17g\n# p M N ncols (N, M in blocks)\n%d %d %d %d\n", fupermod_layout_volume(l), l->p,
          l->M, l->N, l->ncols);
  if (by_pieces) {
    fprintf(af.fp, "# rank row col height width column (a line per piece, %d pieces)\n", l->npieces);
    for (int j = 0; j < l->npieces; j++) {
      const fupermod_rect *r = &l->pieces[j];
      fprintf(af.fp, "%d %d %d %d %d -1\n", l->owner[j], r->row, r->col, r->height, r->width);
    }
  } else {
    fprintf(af.fp, "# rank row col height width column\n");
    for (int i = 0; i < l->p; i++) {
      const fupermod_rect *r = &l->rects[i];
      fprintf(af.fp, "%d %d %d %d %d %d\n", i, r->row, r->col, r->height, r->width, l->column[i]);
    }
  }
  return fupermod_atomic_commit(&af);
}

static int parse_int(const char *s, int *v) {
  long x;
  if (fupermod_parse_long(s, &x) || x < INT32_MIN || x > INT32_MAX) return -1;
  *v = (int)x;
  return 0;
}

/* The lines after the header: rank, rectangle, column and line number of each. */
typedef struct {
  int n, cap;
  int *rank, *column, *line;
  fupermod_rect *r;
} entries;

static int entries_add(entries *e, int rank, fupermod_rect r, int column, int line) {
  if (e->n == e->cap) {
    int cap = e->cap ? 2 * e->cap : 64;
    int *a = realloc(e->rank, (size_t)cap * sizeof *a);
    if (a) e->rank = a;
    int *b = realloc(e->column, (size_t)cap * sizeof *b);
    if (b) e->column = b;
    int *c = realloc(e->line, (size_t)cap * sizeof *c);
    if (c) e->line = c;
    fupermod_rect *d = realloc(e->r, (size_t)cap * sizeof *d);
    if (d) e->r = d;
    if (!a || !b || !c || !d) return -1;
    e->cap = cap;
  }
  e->rank[e->n] = rank;
  e->r[e->n] = r;
  e->column[e->n] = column;
  e->line[e->n++] = line;
  return 0;
}

static void entries_free(entries *e) {
  free(e->rank);
  free(e->column);
  free(e->line);
  free(e->r);
}

/* A rank on several lines: the lines are pieces, in file order. Errors name the line. */
static int build_pieces(fupermod_layout *l, const entries *e, const char *name, int header_line) {
  int x, y, rc;
  if (l->ncols != 0)
    return fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: ncols = %d, but a rank on several lines (pieces) needs ncols 0",
                          name, header_line, l->ncols);
  for (int k = 0; k < e->n; k++) {
    const fupermod_rect *r = &e->r[k];
    if (e->column[k] != -1)
      return fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: column %d in a layout with pieces (must be -1)", name,
                            e->line[k], e->column[k]);
    if (r->height < 0 || r->width < 0)
      return fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: rank %d's piece has a negative height or width (%d x %d)",
                            name, e->line[k], e->rank[k], r->height, r->width);
    if (r->height > 0 && r->width > 0 &&
        (r->row < 0 || r->col < 0 || r->height > l->M - r->row || r->width > l->N - r->col))
      return fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: rank %d's piece (row %d, col %d, %d x %d) lies outside the %d x "
                            "%d matrix", name, e->line[k], e->rank[k], r->row, r->col, r->height, r->width, l->M, l->N);
  }
  if ((rc = fupermod_lay_overlap(e->r, e->n, &x, &y)) != FUPERMOD_SUCCESS) return rc;
  if (x >= 0)
    return fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: rank %d's piece overlaps rank %d's of line %d", name, e->line[y],
                          e->rank[y], e->rank[x], e->line[x]);
  return fupermod_layout_set_pieces(l, e->n, e->r, e->rank);
}

int fupermod_layout_parse(const char *input, size_t len, const char *name, fupermod_layout **out) {
  int rc = FUPERMOD_SUCCESS, seen_count = 0, several = 0, header_line = 0;
  int *seen = NULL;
  char *line;
  fupermod_layout *l = NULL;
  fupermod_lines rd;
  entries e = {0, 0, NULL, NULL, NULL, NULL};
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
      header_line = lineno;
      if (!(seen = calloc((size_t)l->p, sizeof *seen))) {
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
    if (seen[v[0]]++) several = 1;
    else seen_count++;
    if (entries_add(&e, v[0], (fupermod_rect){v[1], v[2], v[3], v[4]}, v[5], lineno)) {
      rc = fupermod_error(FUPERMOD_ERR_NOMEM, "%s: out of memory", name);
      goto fail;
    }
  }
  if (rc != FUPERMOD_SUCCESS) goto fail;
  if (!l) {
    rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s: empty layout file", name);
    goto fail;
  }
  if (several) {
    if ((rc = build_pieces(l, &e, name, header_line)) != FUPERMOD_SUCCESS) goto fail;
  } else {
    if (seen_count != l->p) {
      rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s: %d of %d ranks given", name, seen_count, l->p);
      goto fail;
    }
    for (int k = 0; k < e.n; k++) {
      l->rects[e.rank[k]] = e.r[k];
      l->column[e.rank[k]] = e.column[k];
    }
  }
  if ((rc = fupermod_layout_check(l)) != FUPERMOD_SUCCESS) {
    fupermod_error_prefix(rc, "%s", name);
    goto fail;
  }
  free(seen);
  entries_free(&e);
  fupermod_lines_free(&rd);
  *out = l;
  return FUPERMOD_SUCCESS;
fail:
  free(seen);
  entries_free(&e);
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
