#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "fupermod/dist.h"
#include "fupermod/error.h"
#include "fupermod/lines.h"
#include "fupermod/util.h"

fupermod_dist *fupermod_dist_alloc(long D, int size) {
  fupermod_dist *dist;
  if (size < 1 || D < 0) {
    fupermod_error(FUPERMOD_ERR_USAGE, "distribution of D=%ld over %d processes: need D >= 0 and size >= 1",
                   D, size);
    return NULL;
  }
  dist = malloc(sizeof *dist);
  if (!dist || !(dist->parts = calloc((size_t)size, sizeof *dist->parts))) {
    free(dist);
    fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
    return NULL;
  }
  dist->D = D;
  dist->size = size;
  for (int i = 0; i < size; i++) {
    dist->parts[i].d = D / size + (i < D % size ? 1 : 0);
    dist->parts[i].t = 0.0;
    dist->parts[i].e = NAN;
  }
  return dist;
}

void fupermod_dist_free(fupermod_dist *dist) {
  if (!dist) return;
  free(dist->parts);
  free(dist);
}

int fupermod_dist_copy(fupermod_dist *dst, const fupermod_dist *src) {
  if (dst->size != src->size)
    return fupermod_error(FUPERMOD_ERR_USAGE, "copying a distribution of %d parts into one of %d",
                          src->size, dst->size);
  dst->D = src->D;
  memcpy(dst->parts, src->parts, (size_t)src->size * sizeof *src->parts);
  return FUPERMOD_SUCCESS;
}

typedef struct {
  double frac;
  int i;
} frac_idx;

static int by_frac_desc(const void *a, const void *b) {
  const frac_idx *x = a, *y = b;
  if (x->frac != y->frac) return x->frac > y->frac ? -1 : 1;
  return x->i - y->i;
}

int fupermod_dist_round(const double *x, int p, long D, long *d) {
  frac_idx *order;
  long sum = 0, diff;
  if (p < 1 || D < 0) return fupermod_error(FUPERMOD_ERR_USAGE, "rounding: need p >= 1 and D >= 0");
  for (int i = 0; i < p; i++)
    if (!isfinite(x[i]))
      return fupermod_error(FUPERMOD_ERR_NUMERIC, "rounding: x[%d] is not finite", i);
  order = malloc((size_t)p * sizeof *order);
  if (!order) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  for (int i = 0; i < p; i++) {
    double v = x[i] > 0 ? x[i] : 0.0;
    double f = floor(v);
    if (f > (double)D) f = (double)D;
    d[i] = (long)f;
    order[i].frac = v - f;
    order[i].i = i;
    sum += d[i];
  }
  qsort(order, (size_t)p, sizeof *order, by_frac_desc);
  diff = D - sum;
  /* missing units: largest fractional parts first (then round-robin in the same order) */
  for (long k = 0; diff > 0; k++, diff--) d[order[k % p].i]++;
  /* surplus units: smallest fractional parts first, skipping empty parts */
  for (long k = 0; diff < 0; k++) {
    int i = order[p - 1 - (int)(k % p)].i;
    if (d[i] > 0) {
      d[i]--;
      diff++;
    }
  }
  free(order);
  return FUPERMOD_SUCCESS;
}

int fupermod_dist_predict(fupermod_dist *dist, fupermod_model **models) {
  for (int i = 0; i < dist->size; i++) {
    fupermod_part *pt = &dist->parts[i];
    if (pt->d <= 0) {
      pt->t = 0.0;
      pt->e = 0.0;
      continue;
    }
    pt->t = fupermod_model_time(models[i], (double)pt->d);
    pt->e = fupermod_model_energy(models[i], (double)pt->d);
  }
  return FUPERMOD_SUCCESS;
}

double fupermod_dist_time(const fupermod_dist *dist) {
  double t = 0.0;
  for (int i = 0; i < dist->size; i++)
    if (dist->parts[i].t > t) t = dist->parts[i].t;
  return t;
}

double fupermod_dist_energy(const fupermod_dist *dist) {
  double e = 0.0;
  for (int i = 0; i < dist->size; i++) e += dist->parts[i].e;
  return e;
}

int fupermod_dist_save(const char *path, const fupermod_dist *dist, const char *comment) {
  fupermod_atomic_file af;
  int rc = fupermod_atomic_open(&af, path);
  if (rc != FUPERMOD_SUCCESS) return rc;
  fprintf(af.fp, "# fupermod distribution v1\n");
  if (comment) fprintf(af.fp, "# %s\n", comment);
  fprintf(af.fp, "# D size\n%ld %d\n# rank d t e\n", dist->D, dist->size);
  for (int i = 0; i < dist->size; i++) {
    const fupermod_part *pt = &dist->parts[i];
    if (isfinite(pt->e))
      fprintf(af.fp, "%d %ld %.17g %.17g\n", i, pt->d, pt->t, pt->e);
    else
      fprintf(af.fp, "%d %ld %.17g\n", i, pt->d, pt->t);
  }
  return fupermod_atomic_commit(&af);
}

int fupermod_dist_load(const char *path, fupermod_dist **out) {
  char *text;
  size_t len;
  int rc;
  *out = NULL;
  if ((rc = fupermod_read_file(path, &text, &len)) != FUPERMOD_SUCCESS) return rc;
  rc = fupermod_dist_parse(text, len, path, out);
  free(text);
  return rc;
}

int fupermod_dist_parse(const char *input, size_t len, const char *path, fupermod_dist **out) {
  int rc = FUPERMOD_SUCCESS, have_header = 0, seen_count = 0;
  long D = 0, sum = 0;
  int size = 0;
  char *seen = NULL, *line;
  fupermod_dist *dist = NULL;
  fupermod_lines rd;
  *out = NULL;
  if (!path) path = "(distribution)";
  if (memchr(input, '\0', len))
    return fupermod_error(FUPERMOD_ERR_INPUT, "%s: binary data in a distribution file", path);
  fupermod_lines_init(&rd, input, len, path);
  while ((rc = fupermod_lines_next(&rd, &line)) == FUPERMOD_SUCCESS && line) {
    const int lineno = rd.line;
    char *tok[4];
    int n = fupermod_lines_fields(line, tok, 4);
    if (!have_header) {
      long sz;
      if (n != 2 || fupermod_parse_long(tok[0], &D) || fupermod_parse_long(tok[1], &sz) || D < 0 ||
          sz < 1 || sz > 10000000) {
        rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: expected 'D size' (D >= 0, size >= 1)", path,
                            lineno);
        goto fail;
      }
      size = (int)sz;
      if (!(dist = fupermod_dist_alloc(D, size)) || !(seen = calloc((size_t)size, 1))) {
        rc = fupermod_error(FUPERMOD_ERR_NOMEM, "%s: out of memory", path);
        goto fail;
      }
      have_header = 1;
      continue;
    }
    {
      long r, d;
      double t = 0.0, e = NAN;
      if (n < 2 || n > 4 || fupermod_parse_long(tok[0], &r) || fupermod_parse_long(tok[1], &d) ||
          (n > 2 && fupermod_parse_double(tok[2], &t)) || (n > 3 && fupermod_parse_double(tok[3], &e))) {
        rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: expected 'rank d [t [e]]'", path, lineno);
        goto fail;
      }
      if (r < 0 || r >= size) {
        rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: rank %ld out of range 0..%d", path, lineno, r,
                            size - 1);
        goto fail;
      }
      if (seen[r]) {
        rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: rank %ld given twice", path, lineno, r);
        goto fail;
      }
      if (d < 0 || t < 0 || (isfinite(e) && e < 0)) {
        rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: negative d, t or e", path, lineno);
        goto fail;
      }
      seen[r] = 1;
      seen_count++;
      dist->parts[r].d = d;
      dist->parts[r].t = t;
      dist->parts[r].e = e;
      sum += d;
    }
  }
  if (rc != FUPERMOD_SUCCESS) goto fail;
  if (!have_header) {
    rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s: empty distribution file", path);
    goto fail;
  }
  if (seen_count != size) {
    rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s: %d of %d ranks given", path, seen_count, size);
    goto fail;
  }
  if (sum != D) {
    rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s: parts sum to %ld, not D=%ld", path, sum, D);
    goto fail;
  }
  free(seen);
  fupermod_lines_free(&rd);
  *out = dist;
  return FUPERMOD_SUCCESS;
fail:
  free(seen);
  fupermod_lines_free(&rd);
  fupermod_dist_free(dist);
  return rc;
}
