/* Layout files (docs/matrix.md): save, parse and load, with the tiling check. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "fupermod/lines.h"
#include "partitioners/layout_impl.h"

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
