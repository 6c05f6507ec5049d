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

int fupermod_lines_peek(const fupermod_lines *r, const char **s, const char **e) {
  const char *nl;
  if (r->pos >= r->len) return 0;
  *s = r->text + r->pos;
  nl = memchr(*s, '\n', r->len - r->pos);
  *e = nl ? nl : r->text + r->len;
  return 1;
}

int fupermod_lines_skip(fupermod_lines *r) {
  const char *s, *e;
  if (fupermod_lines_peek(r, &s, &e)) r->pos = (size_t)(e - r->text) + (e < r->text + r->len);
  return ++r->line;
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

int fupermod_lines_decimal(const char *s, const char *end, double *out) {
#if LDBL_MANT_DIG == 64 && (defined(__x86_64__) || defined(__i386__))
  static const long double p10[28] = {1e0L,  1e1L,  1e2L,  1e3L,  1e4L,  1e5L,  1e6L,  1e7L,  1e8L,  1e9L,
                                      1e10L, 1e11L, 1e12L, 1e13L, 1e14L, 1e15L, 1e16L, 1e17L, 1e18L, 1e19L,
                                      1e20L, 1e21L, 1e22L, 1e23L, 1e24L, 1e25L, 1e26L, 1e27L};
  unsigned long long m = 0, low;
  int digits = 0, e = 0, neg = 0, any = 0;
  long double v;
  double d;
  if (s < end && (*s == '+' || *s == '-')) neg = *s++ == '-';
  for (int frac = 0; s < end; s++) {
    if (*s >= '0' && *s <= '9') {
      any = 1;
      if (m || *s != '0') {
        if (++digits > 19) return -1;
        m = m * 10 + (unsigned)(*s - '0');
      }
      e -= frac;
    } else if (*s == '.' && !frac) {
      frac = 1;
    } else break;
  }
  if (!any) return -1;
  if (s < end && (*s == 'e' || *s == 'E')) {
    int x = 0, eneg = 0;
    s++;
    if (s < end && (*s == '+' || *s == '-')) eneg = *s++ == '-';
    if (!(s < end && *s >= '0' && *s <= '9')) return -1;
    for (; s < end && *s >= '0' && *s <= '9'; s++) {
      if (x > 1000) return -1;
      x = x * 10 + (*s - '0');
    }
    e += eneg ? -x : x;
  }
  if (s != end) return -1;
  if (m == 0) {
    *out = neg ? -0.0 : 0.0;
    return 0;
  }
  if (e < -27 || e > 27) return -1;
  v = e >= 0 ? (long double)m * p10[e] : (long double)m / p10[-e];
  memcpy(&low, &v, sizeof low); /* the 64-bit significand, explicit leading bit included */
  if ((low & 0x7FF) == 0x400) return -1;
  d = (double)v;
  *out = neg ? -d : d;
  return 0;
#else
  (void)s;
  (void)end;
  (void)out;
  return -1;
#endif
}
