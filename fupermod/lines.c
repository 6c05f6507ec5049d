#include <float.h>
#include <stdlib.h>
#include <string.h>
#include "fupermod/error.h"
#include "fupermod/lines.h"

#define BLANKS " \t\r\v\f"

/* BLANKS, without a strchr call per character of every point file */
static int blank(char c) {
  switch (c) {
  case ' ': case '\t': case '\r': case '\v': case '\f': return 1;
  default: return 0;
  }
}

void fupermod_lines_init(fupermod_lines *r, const char *text, size_t len, const char *name) {
  memset(r, 0, sizeof *r);
  r->text = text;
  r->len = text ? len : 0;
  r->name = name ? name : "(text)";
}

void fupermod_lines_free(fupermod_lines *r) {
  if (!r) return;
  free(r->buf);
  r->buf = NULL;
  r->cap = 0;
}

int fupermod_lines_next(fupermod_lines *r, char **line) {
  *line = NULL;
  while (r->pos < r->len) {
    const char *s = r->text + r->pos, *nl = memchr(s, '\n', r->len - r->pos);
    size_t n = nl ? (size_t)(nl - s) : r->len - r->pos;
    char *hash;
    r->pos += n + (nl != NULL);
    r->line++;
    if (memchr(s, '\0', n))
      return fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: binary data (NUL byte)", r->name, r->line);
    if (n + 1 > r->cap) {
      size_t cap = r->cap ? r->cap : 256;
      char *nb;
      while (cap < n + 1) cap *= 2;
      if (!(nb = realloc(r->buf, cap)))
        return fupermod_error(FUPERMOD_ERR_NOMEM, "%s:%d: out of memory for a line of %zu bytes", r->name,
                              r->line, n);
      r->buf = nb;
      r->cap = cap;
    }
    memcpy(r->buf, s, n);
    r->buf[n] = '\0';
    if ((hash = strchr(r->buf, '#'))) *hash = '\0';
    if (r->buf[strspn(r->buf, BLANKS)]) {
      *line = r->buf;
      return FUPERMOD_SUCCESS;
    }
  }
  return FUPERMOD_SUCCESS;
}

int fupermod_lines_fields(char *s, char **field, int max) {
  int n = 0;
  while (*s) {
    while (blank(*s)) s++;
    if (!*s) break;
    if (n == max) return max + 1;
    field[n++] = s;
    while (*s && !blank(*s)) s++;
    if (*s) *s++ = '\0';
  }
  return n;
}

/* The run of digits at s (before limit) appended to *m, *count counting them: the end of the
 * run, or NULL when *count would pass max. Eight bytes at a time where eight can be read: which of
 * them are digits, and their value, without a branch per byte (little-endian). */
__attribute__((always_inline)) static inline const char *digit_run(const char *s, const char *limit, unsigned long long *m,
                                                                    int *count, int max) {
#ifdef FUPERMOD_LINES_SWAR
  while (limit - s >= 8) {
    unsigned long long x;
    int k;
    memcpy(&x, s, sizeof x);
    if (!(k = fupermod_lines_digits8(x))) return s;
    if (*count > max - k) return NULL;
    *count += k;
    *m = *m * fupermod_lines_pow10[k] + fupermod_lines_value(x, k);
    s += k;
    if (k < 8) return s;
  }
#endif
  for (; s < limit && (unsigned)(*s - '0') < 10; s++) {
    if (++*count > max) return NULL;
    *m = *m * 10 + (unsigned)(*s - '0');
  }
  return s;
}

const char *fupermod_lines_integer(const char *s, const char *limit, long *out) {
  /* a byte at a time: these are short (sizes, repetitions) */
  const char *first = s;
  unsigned long long m = 0; /* wraps, without harm, on a run too long to be taken anyway */
  for (; s < limit && (unsigned)(*s - '0') < 10; s++) m = m * 10 + (unsigned)(*s - '0');
  if (s == first || s - first > 18) return NULL;
  *out = (long)m;
  return s;
}

const char *fupermod_lines_number(const char *s, const char *limit, double *out) {
  unsigned long long m = 0;
  int digits = 0, e = 0, neg = 0, any;
  const char *first;
  double d;
  if (s < limit && (*s == '+' || *s == '-')) neg = *s++ == '-';
  first = s;
  while (s < limit && *s == '0') s++;
  if (!(s = digit_run(s, limit, &m, &digits, 19))) return NULL;
  any = s > first;
  if (s < limit && *s == '.') {
    const char *frac = ++s;
    if (m == 0)
      while (s < limit && *s == '0') s++; /* not significant */
    if (!(s = digit_run(s, limit, &m, &digits, 19))) return NULL;
    e = -(int)(s - frac);
    any |= s > frac;
  }
  if (!any) return NULL;
  if (s < limit && (*s == 'e' || *s == 'E')) {
    int x = 0, eneg = 0;
    s++;
    if (s < limit && (*s == '+' || *s == '-')) eneg = *s++ == '-';
    if (!(s < limit && *s >= '0' && *s <= '9')) return NULL;
    for (; s < limit && *s >= '0' && *s <= '9'; s++) {
      if (x > 1000) return NULL;
      x = x * 10 + (*s - '0');
    }
    e += eneg ? -x : x;
  }
  if (fupermod_lines_compose(m, e, &d) != 0) return NULL;
  *out = neg ? -d : d;
  return s;
}

int fupermod_lines_decimal(const char *s, const char *end, double *out) {
  double x;
  if (fupermod_lines_number(s, end, &x) != end) return -1;
  *out = x;
  return 0;
}
