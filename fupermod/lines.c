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
