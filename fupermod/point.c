#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include "fupermod/error.h"
#include "fupermod/lines.h"
#include "fupermod/point.h"
#include "fupermod/util.h"

typedef struct {
  fupermod_point p;
  int line;
} lined_point;

/* The stored host names: a list that only grows and stays reachable until exit (freeing it at
 * exit could pull a name from under a point still in use then). */
typedef struct host_name {
  struct host_name *next;
  char name[];
} host_name;

static host_name *hosts;
static pthread_mutex_t hosts_lock = PTHREAD_MUTEX_INITIALIZER;

const char *fupermod_point_host(const char *name) {
  size_t n = name ? strlen(name) : 0;
  host_name *h;
  if (n == 0 || n > FUPERMOD_POINT_HOST_MAX) {
    fupermod_error(FUPERMOD_ERR_USAGE, "host name '%s' must have 1 to %d characters", name ? name : "",
                   FUPERMOD_POINT_HOST_MAX);
    return NULL;
  }
  pthread_mutex_lock(&hosts_lock);
  for (h = hosts; h && strcmp(h->name, name) != 0; h = h->next) {
  }
  if (!h && (h = malloc(sizeof *h + n + 1))) {
    memcpy(h->name, name, n + 1);
    h->next = hosts;
    hosts = h;
  }
  pthread_mutex_unlock(&hosts_lock);
  if (!h) fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory (host name %s)", name);
  return h ? h->name : NULL;
}

static int cmp_lined(const void *a, const void *b) {
  const lined_point *x = a, *y = b;
  if (x->p.d != y->p.d) return x->p.d < y->p.d ? -1 : 1;
  return x->line - y->line;
}

/* A word, not a number: "nan" and "inf" stay numbers (and errors). */
static int is_word(const char *t) {
  char *end;
  if (!isalpha((unsigned char)t[0])) return 0;
  (void)strtod(t, &end);
  return end == t;
}

/* The status word a data line may end with. */
static int parse_status(const char *w, int *flags) {
  if (strcmp(w, "abandoned") == 0) *flags = FUPERMOD_POINT_ABANDONED;
  else if (strcmp(w, "imprecise") == 0) *flags = FUPERMOD_POINT_IMPRECISE;
  else return -1;
  return 0;
}

/* The key=value fields that may follow the positional ones (docs/formats.md). */
static int parse_tag(const char *tk, const char *name, int line, fupermod_point *p) {
  const char *eq = strchr(tk, '=');
  size_t kn = (size_t)(eq - tk);
  const char *val = eq + 1;
  double x;
  long v;
  if (kn == 7 && strncmp(tk, "t_start", kn) == 0) {
    if (fupermod_parse_double(val, &x) != 0 || !(x > 0))
      return fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: t_start '%s' must be a positive number (UNIX seconds)", name,
                            line, val);
    p->t_start = x;
  } else if (kn == 5 && strncmp(tk, "t_end", kn) == 0) {
    if (fupermod_parse_double(val, &x) != 0 || !(x > 0))
      return fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: t_end '%s' must be a positive number (UNIX seconds)", name,
                            line, val);
    p->t_end = x;
  } else if (kn == 4 && strncmp(tk, "host", kn) == 0) {
    if (!*val || strlen(val) > FUPERMOD_POINT_HOST_MAX)
      return fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: host '%s' must have 1 to %d characters", name, line, val,
                            FUPERMOD_POINT_HOST_MAX);
    if (!(p->host = fupermod_point_host(val))) return FUPERMOD_ERR_NOMEM;
  } else if (kn == 7 && strncmp(tk, "samples", kn) == 0) {
    if (fupermod_parse_long(val, &v) != 0 || v < 0 || v > 2147483647L)
      return fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: samples '%s' must be an integer >= 0", name, line, val);
    p->samples = (int)v;
  } else if (kn == 8 && strncmp(tk, "rejected", kn) == 0) {
    if (fupermod_parse_long(val, &v) != 0 || v < 0 || v > 2147483647L)
      return fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: rejected '%s' must be an integer >= 0 (repetitions)", name,
                            line, val);
    p->rejected = (int)v;
  } else {
    return fupermod_error(FUPERMOD_ERR_INPUT,
                          "%s:%d: unknown field '%.*s' (known: rejected, t_start, t_end, host, samples)", name, line,
                          (int)kn, tk);
  }
  return FUPERMOD_SUCCESS;
}

#define MAX_FIELDS 16

/* Whether positional field i (d t reps ci e e_ci) may hold v: the format's rules, for both the
 * general reader and the fast one. */
static int field_ok(int i, double v) {
  switch (i) {
  case 0: /* d */
  case 1: return v > 0; /* t */
  case 2: return v >= 1 && v <= 2147483647.0; /* reps */
  default: return v >= 0;
  }
}

static int parse_line(char *s, const char *name, int line, fupermod_point *pt) {
  char *tok[MAX_FIELDS];
  long v;
  double x;
  int n = fupermod_lines_fields(s, tok, MAX_FIELDS), rc;
  fupermod_point p = FUPERMOD_POINT_INIT;
  if (n > MAX_FIELDS) return fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: too many fields", name, line);
  /* key=value fields come last, after the status */
  while (n > 0 && strchr(tok[n - 1], '=')) {
    if ((rc = parse_tag(tok[n - 1], name, line, &p)) != FUPERMOD_SUCCESS) return rc;
    n--;
  }
  for (int i = 0; i < n; i++)
    if (strchr(tok[i], '='))
      return fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: '%s' must come after the other fields", name, line, tok[i]);
  if ((p.t_start > 0) != (p.t_end > 0))
    return fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: give both t_start and t_end, or neither", name, line);
  if (p.t_end < p.t_start)
    return fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: t_end %.17g is before t_start %.17g", name, line, p.t_end,
                          p.t_start);
  /* a status is a word; every other field is a number */
  if (n >= 3 && n <= 7 && is_word(tok[n - 1])) {
    if (parse_status(tok[n - 1], &p.flags) != 0)
      return fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: status '%s' must be 'abandoned' or 'imprecise'", name, line,
                            tok[n - 1]);
    n--;
  }
  if (n > 6)
    return fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: too many fields (at most 7: d t reps ci e e_ci status)",
                          name, line);
  if (n == 0) return fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: empty line", name, line);
  if (n == 1)
    return fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: a point needs at least d and t", name, line);
  if (fupermod_parse_long(tok[0], &v) != 0)
    return fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: d '%s' is not an integer", name, line, tok[0]);
  if (!field_ok(0, (double)v))
    return fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: d must be positive, got %ld", name, line, v);
  p.d = v;
  if (fupermod_parse_double(tok[1], &x) != 0)
    return fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: t '%s' is not a finite number", name, line,
                          tok[1]);
  if (!field_ok(1, x))
    return fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: t must be > 0 seconds, got %s", name, line,
                          tok[1]);
  p.t = x;
  if (n > 2) {
    if (fupermod_parse_long(tok[2], &v) != 0 || !field_ok(2, (double)v))
      return fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: reps '%s' must be an integer >= 1", name,
                            line, tok[2]);
    p.reps = (int)v;
  }
  if (n > 3) {
    if (fupermod_parse_double(tok[3], &x) != 0 || !field_ok(3, x))
      return fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: ci '%s' must be a finite number >= 0", name,
                            line, tok[3]);
    p.ci = x;
  }
  if (n > 4) {
    if (fupermod_parse_double(tok[4], &x) != 0 || !field_ok(4, x))
      return fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: e '%s' must be a finite number >= 0 (joules)",
                            name, line, tok[4]);
    p.e = x;
    p.e_ci = 0.0;
  }
  if (n > 5) {
    if (fupermod_parse_double(tok[5], &x) != 0 || !field_ok(5, x))
      return fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: e_ci '%s' must be a finite number >= 0", name,
                            line, tok[5]);
    p.e_ci = x;
  }
  *pt = p;
  return FUPERMOD_SUCCESS;
}

/* A point of size d from its n positional fields x (reps an exact integer there), field by field
 * as FUPERMOD_POINT_INIT and parse_line would leave it: no record-sized copy. */
static inline void set_point(fupermod_point *pt, int n, long d, const double *x) {
  pt->d = d;
  pt->t = x[1];
  pt->ci = n > 3 ? x[3] : 0.0;
  pt->e = n > 4 ? x[4] : -1.0;
  pt->e_ci = n > 5 ? x[5] : n > 4 ? 0.0 : -1.0;
  pt->t_start = pt->t_end = 0.0;
  pt->host = NULL;
  pt->reps = n > 2 ? (int)x[2] : 1;
  pt->flags = 0;
  pt->samples = -1;
  pt->rejected = 0;
}

#ifdef FUPERMOD_LINES_SWAR
/* The plainest field: digits, or digits '.' digits (no sign, no exponent, fewer than 8 digits
 * before the point), read eight bytes at a time with no check of the text's end (the caller
 * leaves room): its end, with *m and the power of ten *e; NULL for anything else. */
static inline const char *plain_field(const char *s, unsigned long long *m, int *e) {
  unsigned long long x, v;
  int k, n;
  memcpy(&x, s, sizeof x);
  k = fupermod_lines_digits8(x);
  if (k == 0 || k == 8) return NULL;
  v = fupermod_lines_value(x, k);
  s += k;
  n = k;
  *e = 0;
  if (*s == '.') {
    s++;
    do {
      memcpy(&x, s, sizeof x);
      k = fupermod_lines_digits8(x);
      if ((n += k) > 19) return NULL;
      if (k) v = v * fupermod_lines_pow10[k] + fupermod_lines_value(x, k);
      *e -= k;
      s += k;
    } while (k == 8);
  }
  *m = v;
  return s;
}

/* The usual line of plain fields, "d t [reps [ci [e [e_ci]]]]" separated by blanks, when at least
 * PLAIN_ROOM bytes of text follow its start: read with no end check and no call per character,
 * into *pt as parse_line would: where the next line starts; NULL for anything else (fast_line
 * and parse_line then read it). */
#define PLAIN_ROOM 256
static const char *plain_line(const char *s, fupermod_point *pt) {
  const char *start = s;
  unsigned long long m[6];
  double x[6];
  int n = 0, e;
  for (;;) {
    if (!(s = plain_field(s, &m[n], &e))) return NULL;
    if (n == 0 || n == 2) {
      if (e != 0) return NULL;
      x[n] = (double)m[n];
    } else if (fupermod_lines_compose(m[n], e, &x[n]) != 0) {
      return NULL;
    }
    if (!field_ok(n, x[n])) return NULL;
    n++;
    while ((*s == ' ' || *s == '\t') && s - start < PLAIN_ROOM - 40) s++;
    if (*s == '\r') s++;
    if (*s == '\n') break;
    if (n == 6 || s - start > PLAIN_ROOM - 40) return NULL;
  }
  if (n < 2) return NULL;
  set_point(pt, n, (long)m[0], x);
  return s + 1;
}
#endif

#if defined(__SSE2__)
/* The commonest line of all, "d t" alone (d of 1 to 7 digits, one blank, t of 1 to 7 digits, '.',
 * 1 to 16 digits, then the line's end), when PLAIN_ROOM bytes follow its start: its 32 first bytes
 * sorted into digits and others at once, every field then read in one piece. Where the next line
 * starts; NULL for any other line (plain_line and the general readers then read it). */
static inline const char *two_field_line(const char *s, fupermod_point *pt) {
  const __m128i below = _mm_set1_epi8('0' - 1), above = _mm_set1_epi8('9' + 1);
  __m128i a = _mm_loadu_si128((const __m128i *)s), b = _mm_loadu_si128((const __m128i *)(s + 16));
  unsigned dig = (unsigned)_mm_movemask_epi8(_mm_and_si128(_mm_cmpgt_epi8(a, below), _mm_cmplt_epi8(a, above))) |
                 (unsigned)_mm_movemask_epi8(_mm_and_si128(_mm_cmpgt_epi8(b, below), _mm_cmplt_epi8(b, above))) << 16;
  unsigned long long x, d, whole, frac, m;
  int dl, il, fl, ts, fs, end;
  double t;
  if (dig == ~0u) return NULL;
  dl = __builtin_ctz(~dig);
  if (dl == 0 || dl > 7 || s[dl] != ' ') return NULL;
  ts = dl + 1;
  il = __builtin_ctz(~(dig >> ts));
  if (il == 0 || il > 7 || s[ts + il] != '.') return NULL;
  fs = ts + il + 1;
  fl = __builtin_ctz(~(dig >> fs));
  if (fl == 0 || fl > 16 || il + fl > 19) return NULL;
  end = fs + fl;
  if (s[end] == '\r') end++;
  if (s[end] != '\n') return NULL;
  memcpy(&x, s, sizeof x);
  if ((d = fupermod_lines_value(x, dl)) == 0) return NULL; /* d must be positive: the general reader says so */
  memcpy(&x, s + ts, sizeof x);
  whole = fupermod_lines_value(x, il);
  memcpy(&x, s + fs, sizeof x);
  frac = fupermod_lines_value(x, fl < 8 ? fl : 8);
  if (fl > 8) {
    memcpy(&x, s + fs + 8, sizeof x);
    frac = frac * fupermod_lines_pow10[fl - 8] + fupermod_lines_value(x, fl - 8);
  }
  /* t = 0 refused on its digits (the general reader then says why) */
  if ((m = whole * fupermod_lines_pow10[fl] + frac) == 0 || fupermod_lines_compose(m, -fl, &t) != 0) return NULL;
  set_point(pt, 2, (long)d, (double[2]){(double)d, t});
  return s + end + 1;
}
#endif

/* The usual line, "d t [reps [ci [e [e_ci]]]]" of plain numbers with nothing else on it, read
 * straight from the text into *pt, as parse_line would: where the next line starts. NULL for
 * anything else (a comment, a status, key=value, a bad value), which parse_line then reads, or
 * reports. */
static const char *fast_line(const char *s, const char *limit, fupermod_point *pt) {
  double x[6];
  long v[3] = {0, 0, 1};
  int n = 0;
  for (;; n++) {
    while (s < limit && (*s == ' ' || *s == '\t' || *s == '\r')) s++;
    if (s == limit || *s == '\n') break;
    if (n == 6) return NULL;
    if (n == 0 || n == 2) {
      if (!(s = fupermod_lines_integer(s, limit, &v[n]))) return NULL;
      x[n] = (double)v[n];
    } else if (!(s = fupermod_lines_number(s, limit, &x[n]))) {
      return NULL;
    }
    /* the field ends here, as a blank-separated one would */
    if (s < limit && *s != ' ' && *s != '\t' && *s != '\r' && *s != '\n') return NULL;
    if (!field_ok(n, x[n])) return NULL;
  }
  if (n < 2) return NULL;
  set_point(pt, n, v[0], x);
  return s < limit ? s + 1 : s;
}

/* The line at s read by the quickest reader that takes it: where the next line starts; NULL when
 * none does (the general reader then reads it, or reports). */
static inline const char *quick_line(const char *s, const char *limit, fupermod_point *pt) {
  const char *next = NULL;
#ifdef FUPERMOD_LINES_SWAR
  if (limit - s >= PLAIN_ROOM) {
#if defined(__SSE2__)
    next = two_field_line(s, pt);
#endif
    if (!next) next = plain_line(s, pt);
  }
#endif
  return next ? next : fast_line(s, limit, pt);
}

static int parse_points(const char *text, size_t len, const char *name, int keep_abandoned, fupermod_points *out) {
  fupermod_point *pts = NULL;
  int *lines = NULL;
  int count = 0, cap = 0, kept = 0, rc = FUPERMOD_SUCCESS, with_e = 0, without_e = 0, abandoned = 0;
  int first_e_line = 0, first_noe_line = 0, sorted = 1;
  fupermod_lines rd;
  char *buf;
  out->count = 0;
  out->pts = NULL;
  out->has_energy = 0;
  if (!name) name = "(points)";
  if (memchr(text, '\0', len))
    return fupermod_error(FUPERMOD_ERR_INPUT, "%s: binary data (NUL byte) in a text point file", name);
  /* a point line holds at least "1 1\n": one allocation of at most a point per 4 bytes (untouched
   * beyond the points, and shrunk to them), parsed in place, no second pass to count lines. The
   * points last: at the heap's top, their shrinking gives the rest back to the next file's. */
  cap = (int)((len + 1) / 4 < INT_MAX - 1 ? (len + 1) / 4 + 1 : INT_MAX);
  if ((!(lines = malloc((size_t)cap * sizeof *lines)) || !(pts = malloc((size_t)cap * sizeof *pts)))) {
    free(lines);
    return fupermod_error(FUPERMOD_ERR_NOMEM, "%s: out of memory", name);
  }
  fupermod_lines_init(&rd, text, len, name);
  for (const char *ls, *next; (ls = fupermod_lines_rest(&rd));) {
    int line;
    if (count == cap) {
      rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s: more than %d points", name, cap);
      goto fail;
    }
    if ((next = quick_line(ls, text + len, &pts[count]))) {
      line = fupermod_lines_took(&rd, next);
    } else {
      /* the general reader takes this line (and skips blank and comment lines after it) */
      if ((rc = fupermod_lines_next(&rd, &buf)) != FUPERMOD_SUCCESS) goto fail;
      if (!buf) break;
      line = rd.line;
      if ((rc = parse_line(buf, name, line, &pts[count])) != FUPERMOD_SUCCESS) goto fail;
    }
    lines[count] = line;
    /* an abandoned size was not measured: whether it has an energy does not matter */
    if (fupermod_point_abandoned(&pts[count])) {
      abandoned++;
    } else if (fupermod_point_has_energy(&pts[count])) {
      if (!with_e++) first_e_line = line;
    } else if (!without_e++) {
      first_noe_line = line;
    }
    if (count > 0 && pts[count].d <= pts[count - 1].d) sorted = 0;
    count++;
  }
  if (count == 0 || (count == abandoned && !keep_abandoned)) {
    if (abandoned)
      rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s: no measured points (%d abandoned sizes only)", name, abandoned);
    else rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s: no data points (empty point file)", name);
    goto fail;
  }
  if (with_e && without_e) {
    rc = fupermod_error(FUPERMOD_ERR_INPUT,
                        "%s:%d: point has no energy but line %d has: give e on every line or none",
                        name, first_noe_line, first_e_line);
    goto fail;
  }
  if (!sorted) {
    /* files are usually in order already: only the others pay for the sort */
    lined_point *lp = malloc((size_t)count * sizeof *lp);
    if (!lp) {
      rc = fupermod_error(FUPERMOD_ERR_NOMEM, "%s: out of memory", name);
      goto fail;
    }
    for (int i = 0; i < count; i++) lp[i] = (lined_point){pts[i], lines[i]};
    qsort(lp, (size_t)count, sizeof *lp, cmp_lined);
    for (int i = 0; i < count; i++) {
      pts[i] = lp[i].p;
      lines[i] = lp[i].line;
    }
    free(lp);
  }
  for (int i = 1; !sorted && i < count; i++) /* in strictly increasing order there is none */
    if (pts[i].d == pts[i - 1].d) {
      rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: duplicate d=%ld (also on line %d)", name,
                          lines[i], pts[i].d, lines[i - 1]);
      goto fail;
    }
  /* duplicates were checked over every line, abandoned or not; then the abandoned go */
  if (keep_abandoned || !abandoned) kept = count;
  else
    for (int i = 0; i < count; i++)
      if (!fupermod_point_abandoned(&pts[i])) pts[kept++] = pts[i];
  if (kept < cap) {
    fupermod_point *fit = realloc(pts, (size_t)kept * sizeof *pts);
    if (fit) pts = fit;
  }
  out->pts = pts;
  out->count = kept;
  out->has_energy = with_e > 0;
  free(lines);
  fupermod_lines_free(&rd);
  return FUPERMOD_SUCCESS;
fail:
  free(pts);
  free(lines);
  fupermod_lines_free(&rd);
  return rc;
}

int fupermod_points_parse(const char *text, size_t len, const char *name, fupermod_points *out) {
  return parse_points(text, len, name, 0, out);
}

int fupermod_points_parse_all(const char *text, size_t len, const char *name, fupermod_points *out) {
  return parse_points(text, len, name, 1, out);
}

static int load_points(const char *path, int keep_abandoned, fupermod_points *out) {
  char *text;
  size_t len;
  int rc = fupermod_read_file(path, &text, &len);
  out->count = 0;
  out->pts = NULL;
  out->has_energy = 0;
  if (rc != FUPERMOD_SUCCESS) return rc;
  rc = parse_points(text, len, path, keep_abandoned, out);
  free(text);
  return rc;
}

int fupermod_points_load(const char *path, fupermod_points *out) { return load_points(path, 0, out); }

int fupermod_points_load_all(const char *path, fupermod_points *out) { return load_points(path, 1, out); }

int fupermod_point_format(const fupermod_point *pt, char *buf, size_t size) {
  /* abandoned wins: such a point is no measurement, precise or not */
  const char *status = fupermod_point_abandoned(pt) ? " abandoned" : fupermod_point_imprecise(pt) ? " imprecise" : "";
  char tags[192] = "";
  int n = 0;
  if (pt->rejected > 0) n = snprintf(tags, sizeof tags, " rejected=%d", pt->rejected);
  if (fupermod_point_has_span(pt)) {
    n += snprintf(tags + n, sizeof tags - (size_t)n, " t_start=%.17g t_end=%.17g", pt->t_start, pt->t_end);
    if (pt->samples >= 0 && fupermod_point_has_energy(pt))
      snprintf(tags + n, sizeof tags - (size_t)n, " samples=%d", pt->samples);
  }
  if (fupermod_point_has_energy(pt))
    n = snprintf(buf, size, "%ld %.17g %d %.17g %.17g %.17g%s%s%s%s", pt->d, pt->t, pt->reps, pt->ci, pt->e,
                 pt->e_ci >= 0 ? pt->e_ci : 0.0, status, tags, pt->host ? " host=" : "", pt->host ? pt->host : "");
  else
    n = snprintf(buf, size, "%ld %.17g %d %.17g%s%s%s%s", pt->d, pt->t, pt->reps, pt->ci, status, tags,
                 pt->host ? " host=" : "", pt->host ? pt->host : "");
  return (n < 0 || (size_t)n >= size) ? FUPERMOD_ERR_USAGE : FUPERMOD_SUCCESS;
}

static const char *header = FUPERMOD_POINTS_HEADER "\n";

int fupermod_points_save(const char *path, const fupermod_points *pts, const char *comment) {
  fupermod_atomic_file af;
  char line[512];
  int rc = fupermod_atomic_open(&af, path);
  if (rc != FUPERMOD_SUCCESS) return rc;
  fputs(header, af.fp);
  if (comment) {
    const char *s = comment;
    while (*s) {
      const char *e = strchr(s, '\n');
      size_t n = e ? (size_t)(e - s) : strlen(s);
      fprintf(af.fp, "# %.*s\n", (int)n, s);
      s += n + (e ? 1 : 0);
    }
  }
  for (int i = 0; i < pts->count; i++) {
    fupermod_point_format(&pts->pts[i], line, sizeof line);
    fprintf(af.fp, "%s\n", line);
  }
  return fupermod_atomic_commit(&af);
}

int fupermod_points_append(const char *path, const fupermod_point *pt) {
  char line[512];
  int fd, n;
  if (fupermod_point_format(pt, line, sizeof line - 1) != FUPERMOD_SUCCESS)
    return fupermod_error(FUPERMOD_ERR_USAGE, "%s: point does not fit a line", path);
  n = (int)strlen(line);
  line[n++] = '\n';
  fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0644);
  if (fd < 0) return fupermod_error(FUPERMOD_ERR_SYSTEM, "%s: %s", path, strerror(errno));
  if (lseek(fd, 0, SEEK_END) == 0 && write(fd, header, strlen(header)) < 0) {
    close(fd);
    return fupermod_error(FUPERMOD_ERR_SYSTEM, "%s: %s", path, strerror(errno));
  }
  /* one write() of a whole line, then fsync: an interrupted run never leaves half a point */
  if (write(fd, line, (size_t)n) != n || fsync(fd) != 0) {
    int rc = fupermod_error(FUPERMOD_ERR_SYSTEM, "%s: append failed: %s", path, strerror(errno));
    close(fd);
    return rc;
  }
  if (close(fd) != 0) return fupermod_error(FUPERMOD_ERR_SYSTEM, "%s: %s", path, strerror(errno));
  return FUPERMOD_SUCCESS;
}

int fupermod_points_find(const fupermod_points *set, long d) {
  int lo = 0, hi = set->count - 1;
  while (lo <= hi) {
    int mid = lo + (hi - lo) / 2;
    if (set->pts[mid].d == d) return mid;
    if (set->pts[mid].d < d) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

int fupermod_points_below(const fupermod_points *set, double x) {
  int lo = 0, hi = set->count;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if ((double)set->pts[mid].d < x) lo = mid + 1;
    else hi = mid;
  }
  return hi;
}

double fupermod_points_linear(const fupermod_points *set, long d, int energy) {
  const fupermod_point *a = set->pts, *b = set->pts + set->count - 1;
  int hi;
  double ya, yb;
  if (d <= a->d) return (energy ? a->e : a->t) * (double)d / (double)a->d;
  if (d >= b->d) return (energy ? b->e : b->t) * (double)d / (double)b->d;
  hi = fupermod_points_below(set, (double)d);
  if (set->pts[hi].d == d) hi++; /* a measured size: the segment that starts there */
  a = &set->pts[hi - 1];
  b = &set->pts[hi];
  ya = energy ? a->e : a->t;
  yb = energy ? b->e : b->t;
  return ya + (yb - ya) * (double)(d - a->d) / (double)(b->d - a->d);
}

int fupermod_points_interpolate(const fupermod_points *f, double x, double *t, double *e) {
  int hi = fupermod_points_below(f, x); /* the first point at or above x */
  const fupermod_point *a, *b;
  double w, sp, q;
  if (hi < f->count && (double)f->pts[hi].d == x) {
    *t = f->pts[hi].t;
    *e = f->has_energy ? f->pts[hi].e : NAN;
    return hi;
  }
  a = &f->pts[hi > 0 ? hi - 1 : 0];
  b = &f->pts[hi < f->count ? hi : f->count - 1];
  w = a == b ? 0.0 : (x - (double)a->d) / (double)(b->d - a->d);
  sp = (1 - w) * (double)a->d / a->t + w * (double)b->d / b->t;
  q = (1 - w) * a->e / (double)a->d + w * b->e / (double)b->d;
  *t = x / sp;
  *e = f->has_energy ? x * q : NAN;
  return hi - 1;
}

static void update_energy_flag(fupermod_points *set) {
  int measured = 0;
  set->has_energy = 1;
  for (int i = 0; i < set->count; i++)
    if (!fupermod_point_abandoned(&set->pts[i])) {
      measured++;
      if (!fupermod_point_has_energy(&set->pts[i])) set->has_energy = 0;
    }
  if (!measured) set->has_energy = 0;
}

int fupermod_points_insert(fupermod_points *set, const fupermod_point *pt) {
  int i = fupermod_points_find(set, pt->d), pos;
  fupermod_point *np;
  if (pt->d <= 0 || !(pt->t > 0) || !isfinite(pt->t))
    return fupermod_error(FUPERMOD_ERR_INPUT, "point d=%ld t=%g: d and t must be positive", pt->d,
                          pt->t);
  if (i >= 0) {
    set->pts[i] = *pt;
    update_energy_flag(set);
    return FUPERMOD_SUCCESS;
  }
  np = realloc(set->pts, (size_t)(set->count + 1) * sizeof *np);
  if (!np) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  set->pts = np;
  for (pos = set->count; pos > 0 && set->pts[pos - 1].d > pt->d; pos--) set->pts[pos] = set->pts[pos - 1];
  set->pts[pos] = *pt;
  set->count++;
  update_energy_flag(set);
  return FUPERMOD_SUCCESS;
}

int fupermod_points_copy(fupermod_points *dst, const fupermod_points *src) {
  dst->count = 0;
  dst->has_energy = src->has_energy;
  dst->pts = NULL;
  if (src->count == 0) return FUPERMOD_SUCCESS;
  dst->pts = malloc((size_t)src->count * sizeof *dst->pts);
  if (!dst->pts) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  memcpy(dst->pts, src->pts, (size_t)src->count * sizeof *dst->pts);
  dst->count = src->count;
  return FUPERMOD_SUCCESS;
}

void fupermod_points_free(fupermod_points *set) {
  if (!set) return;
  free(set->pts);
  set->pts = NULL;
  set->count = 0;
  set->has_energy = 0;
}
