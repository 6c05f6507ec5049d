/* fupermod energy import: fill the energies of points measured with meter=external from a power
 * series recorded outside the processes (a wattmeter; Grid'5000 Kwollect). docs/energy.md. */
#define _GNU_SOURCE /* timegm */
#include <ctype.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "tools/tools.h"

static const char *SUB = "energy import";

static void help(void) {
  printf("usage: fupermod energy import [--static WATTS|auto] [--metric NAME] [--max-gap S] SERIES POINTFILE...\n\n"
         "Fills the dynamic energy of every point measured with meter=external from SERIES, a power\n"
         "series per host: CSV lines 'time,host,watts' (header optional; time in UNIX seconds or ISO\n"
         "8601), or Kwollect JSON (one object per line, or an array) with timestamp, device_id,\n"
         "metric_id and value. Each node's power is integrated over the span of its points' runs\n"
         "(trapezoids, linear interpolation at the ends), less the static power times the span; points\n"
         "of one node whose runs overlap share that energy in proportion to their run time. Give every\n"
         "point file of the job at once. The files are rewritten atomically. Options:\n"
         "  --static W|auto  static power of a node in watts, or auto (default): the mean of the node's\n"
         "                   samples outside every run\n"
         "  --metric NAME    use only the JSON objects of this metric_id (e.g. wattmetre_power_watt,\n"
         "                   bmc_node_power_watt); needed when the series holds several\n"
         "  --max-gap S      longest gap between samples allowed within a point's span (default 5 s)\n");
}

typedef struct {
  double t, w;
} sample;

typedef struct {
  char name[64];
  sample *s;
  int n, cap;
} host_series;

typedef struct {
  host_series *h;
  int n, cap;
  char metric[64]; /* the metric kept (JSON) */
  char other[64];  /* a second metric seen, when no --metric chose */
} series;

static int add_sample(series *S, const char *host, double t, double w, const char *file, int line) {
  host_series *h = NULL;
  if (!*host || strlen(host) >= sizeof S->h->name)
    return fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: host '%s' must have 1 to 63 characters", file, line, host);
  if (!isfinite(w) || w < 0)
    return fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: power %g W must be a finite number >= 0", file, line, w);
  for (int i = 0; i < S->n && !h; i++)
    if (strcmp(S->h[i].name, host) == 0) h = &S->h[i];
  if (!h) {
    if (S->n == S->cap) {
      int nc = S->cap ? 2 * S->cap : 8;
      host_series *nh = realloc(S->h, (size_t)nc * sizeof *nh);
      if (!nh) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
      S->h = nh;
      S->cap = nc;
    }
    h = &S->h[S->n++];
    memset(h, 0, sizeof *h);
    strcpy(h->name, host);
  }
  if (h->n == h->cap) {
    int nc = h->cap ? 2 * h->cap : 256;
    sample *ns = realloc(h->s, (size_t)nc * sizeof *ns);
    if (!ns) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
    h->s = ns;
    h->cap = nc;
  }
  h->s[h->n].t = t;
  h->s[h->n].w = w;
  h->n++;
  return FUPERMOD_SUCCESS;
}

static void series_free(series *S) {
  for (int i = 0; i < S->n; i++) free(S->h[i].s);
  free(S->h);
}

/* UNIX seconds, or ISO 8601 "YYYY-MM-DD[T ]HH:MM:SS[.frac][Z|+HH:MM|-HH:MM|+HHMM]" (no zone: UTC). */
static int parse_time(const char *s, double *out) {
  struct tm tm;
  int y, mo, d, h, mi, sc, n = 0, sign, zh = 0, zm = 0;
  double frac = 0.0;
  time_t base;
  if (fupermod_parse_double(s, out) == 0) return *out > 0 ? 0 : -1;
  if (sscanf(s, "%4d-%2d-%2d%n", &y, &mo, &d, &n) != 3 || n != 10 || (s[10] != 'T' && s[10] != ' ')) return -1;
  s += 11;
  n = 0;
  if (sscanf(s, "%2d:%2d:%2d%n", &h, &mi, &sc, &n) != 3 || n != 8) return -1;
  s += 8;
  if (*s == '.' || *s == ',') {
    char buf[32] = "0.";
    size_t k = strspn(s + 1, "0123456789");
    if (k == 0 || k > 20) return -1;
    memcpy(buf + 2, s + 1, k);
    buf[2 + k] = '\0';
    frac = strtod(buf, NULL);
    s += 1 + k;
  }
  if (*s == 'Z' || *s == 'z') s++;
  else if (*s == '+' || *s == '-') {
    sign = *s == '+' ? 1 : -1;
    if (isdigit((unsigned char)s[1]) && isdigit((unsigned char)s[2]) && s[3] == ':' && isdigit((unsigned char)s[4]) &&
        isdigit((unsigned char)s[5]))
      zh = (s[1] - '0') * 10 + s[2] - '0', zm = (s[4] - '0') * 10 + s[5] - '0', s += 6;
    else if (isdigit((unsigned char)s[1]) && isdigit((unsigned char)s[2]) && isdigit((unsigned char)s[3]) &&
             isdigit((unsigned char)s[4]))
      zh = (s[1] - '0') * 10 + s[2] - '0', zm = (s[3] - '0') * 10 + s[4] - '0', s += 5;
    else if (isdigit((unsigned char)s[1]) && isdigit((unsigned char)s[2]) && !isdigit((unsigned char)s[3]))
      zh = (s[1] - '0') * 10 + s[2] - '0', s += 3;
    else return -1;
    zh *= sign;
    zm *= sign;
  }
  if (*s) return -1;
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sc > 60 || zh < -14 || zh > 14 || zm < -59 || zm > 59)
    return -1;
  memset(&tm, 0, sizeof tm);
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  base = timegm(&tm);
  if (base == (time_t)-1) return -1;
  *out = (double)base + sc + frac - 3600.0 * zh - 60.0 * zm;
  return *out > 0 ? 0 : -1;
}

/* CSV: time,host,watts per line; '#' comments and blank lines skipped; a header only first. */
static int parse_csv(char *text, const char *file, series *S) {
  int line = 0, data = 0, rc;
  char *p = text;
  while (p && *p) {
    char *nl = strchr(p, '\n'), *f[4], *s;
    int n = 0;
    double t, w;
    if (nl) *nl = '\0';
    line++;
    s = tool_trim(p);
    p = nl ? nl + 1 : NULL;
    if (!*s || *s == '#') continue;
    for (char *q = s; n < 4; n++) {
      f[n] = q;
      if (!(q = strchr(q, ','))) {
        n++;
        break;
      }
      *q++ = '\0';
    }
    for (int i = 0; i < n; i++) f[i] = tool_trim(f[i]);
    if (n != 3)
      return fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: expected 'time,host,watts', got %s fields", file, line,
                            n > 3 ? "more than 3" : n == 2 ? "2" : "1");
    if (parse_time(f[0], &t) != 0) {
      if (data == 0 && fupermod_parse_double(f[2], &w) != 0) { /* the header */
        data = 1;
        continue;
      }
      return fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: time '%s' is neither UNIX seconds nor ISO 8601", file, line,
                            f[0]);
    }
    data = 1;
    if (fupermod_parse_double(f[2], &w) != 0)
      return fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: watts '%s' is not a number", file, line, f[2]);
    if ((rc = add_sample(S, f[1], t, w, file, line)) != FUPERMOD_SUCCESS) return rc;
  }
  return FUPERMOD_SUCCESS;
}

/* A small JSON reader: enough for Kwollect's flat objects (nested values are skipped). */
typedef struct {
  const char *s, *file;
  int line;
} jrd;

static void jws(jrd *j) {
  for (; *j->s && isspace((unsigned char)*j->s); j->s++)
    if (*j->s == '\n') j->line++;
}

static int jfail(jrd *j, const char *what) {
  return fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: malformed JSON: %s", j->file, j->line, what);
}

/* A string into buf (escapes other than \" \\ \/ kept as written). */
static int jstring(jrd *j, char *buf, size_t size) {
  size_t n = 0;
  if (*j->s != '"') return jfail(j, "expected a string");
  for (j->s++; *j->s != '"'; j->s++) {
    char c = *j->s;
    if (!c || c == '\n') return jfail(j, "unterminated string");
    if (c == '\\') {
      c = *++j->s;
      if (!c) return jfail(j, "unterminated string");
      if (c != '"' && c != '\\' && c != '/' && n + 1 < size) buf[n++] = '\\';
    }
    if (n + 1 < size) buf[n++] = c;
  }
  j->s++;
  buf[n] = '\0';
  return FUPERMOD_SUCCESS;
}

static int jskip(jrd *j, int depth) {
  char tmp[8];
  int rc;
  jws(j);
  if (depth > 64) return jfail(j, "nested too deeply");
  if (*j->s == '"') return jstring(j, tmp, sizeof tmp);
  if (*j->s == '{' || *j->s == '[') {
    char close = *j->s == '{' ? '}' : ']';
    j->s++;
    jws(j);
    if (*j->s == close) {
      j->s++;
      return FUPERMOD_SUCCESS;
    }
    for (;;) {
      if (close == '}') {
        if ((rc = jstring(j, tmp, sizeof tmp)) != FUPERMOD_SUCCESS) return rc;
        jws(j);
        if (*j->s++ != ':') return jfail(j, "expected ':'");
      }
      if ((rc = jskip(j, depth + 1)) != FUPERMOD_SUCCESS) return rc;
      jws(j);
      if (*j->s == ',') j->s++, jws(j);
      else if (*j->s == close) {
        j->s++;
        return FUPERMOD_SUCCESS;
      } else return jfail(j, close == '}' ? "expected ',' or '}'" : "expected ',' or ']'");
    }
  }
  {
    size_t k = strcspn(j->s, ",}] \t\r\n");
    if (k == 0) return jfail(j, "expected a value");
    j->s += k;
  }
  return FUPERMOD_SUCCESS;
}

/* A scalar as text: a string's contents or a bare number/literal. */
static int jscalar(jrd *j, char *buf, size_t size, int *is_string) {
  size_t k;
  jws(j);
  *is_string = *j->s == '"';
  if (*is_string) return jstring(j, buf, size);
  if (*j->s == '{' || *j->s == '[') {
    buf[0] = '\0';
    return jskip(j, 0);
  }
  k = strcspn(j->s, ",}] \t\r\n");
  if (k == 0) return jfail(j, "expected a value");
  snprintf(buf, size, "%.*s", (int)(k < size ? k : size - 1), j->s);
  j->s += k;
  return FUPERMOD_SUCCESS;
}

static int json_object(jrd *j, const char *want, series *S) {
  char key[64], val[128], ts[128] = "", host[128] = "", metric[128] = "", value[128] = "";
  int rc, str, line = j->line, have = 0;
  double t, w;
  j->s++; /* '{' */
  jws(j);
  if (*j->s == '}') j->s++;
  else
    for (;;) {
      jws(j);
      if ((rc = jstring(j, key, sizeof key)) != FUPERMOD_SUCCESS) return rc;
      jws(j);
      if (*j->s++ != ':') return jfail(j, "expected ':'");
      if ((rc = jscalar(j, val, sizeof val, &str)) != FUPERMOD_SUCCESS) return rc;
      if (strcmp(key, "timestamp") == 0) snprintf(ts, sizeof ts, "%s", val), have |= 1;
      else if (strcmp(key, "device_id") == 0) snprintf(host, sizeof host, "%s", val), have |= 2;
      else if (strcmp(key, "value") == 0) snprintf(value, sizeof value, "%s", str ? "" : val), have |= 4;
      else if (strcmp(key, "metric_id") == 0) snprintf(metric, sizeof metric, "%s", val);
      jws(j);
      if (*j->s == ',') j->s++;
      else if (*j->s == '}') {
        j->s++;
        break;
      } else return jfail(j, "expected ',' or '}'");
    }
  if (have != 7)
    return fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: the object lacks %s", j->file, line,
                          !(have & 1) ? "timestamp" : !(have & 2) ? "device_id" : "value");
  if (want && strcmp(metric, want) != 0) return FUPERMOD_SUCCESS;
  if (!want && *metric) {
    if (!S->metric[0]) snprintf(S->metric, sizeof S->metric, "%s", metric);
    else if (strcmp(S->metric, metric) != 0 && !S->other[0]) snprintf(S->other, sizeof S->other, "%s", metric);
  }
  if (parse_time(ts, &t) != 0)
    return fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: timestamp '%s' is neither UNIX seconds nor ISO 8601", j->file,
                          line, ts);
  if (fupermod_parse_double(value, &w) != 0)
    return fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: value '%s' is not a number", j->file, line, value);
  return add_sample(S, host, t, w, j->file, line);
}

/* Objects one per line (JSON lines) or in an array. */
static int parse_json(const char *text, const char *file, const char *want, series *S) {
  jrd j = {text, file, 1};
  int rc, in_array = 0;
  jws(&j);
  if (*j.s == '[') {
    in_array = 1;
    j.s++;
  }
  for (;;) {
    jws(&j);
    if (!*j.s) return in_array ? jfail(&j, "the array is not closed") : FUPERMOD_SUCCESS;
    if (in_array && *j.s == ']') {
      j.s++;
      jws(&j);
      return *j.s ? jfail(&j, "text after the array") : FUPERMOD_SUCCESS;
    }
    if (*j.s != '{') return jfail(&j, "expected an object");
    if ((rc = json_object(&j, want, S)) != FUPERMOD_SUCCESS) return rc;
    jws(&j);
    if (in_array && *j.s == ',') j.s++;
  }
}

static int cmp_sample(const void *a, const void *b) {
  const sample *x = a, *y = b;
  return x->t < y->t ? -1 : x->t > y->t;
}

static int load_series(const char *file, const char *metric, series *S) {
  char *text = NULL, *p;
  size_t len;
  int rc = fupermod_read_file(file, &text, &len);
  memset(S, 0, sizeof *S);
  if (rc != FUPERMOD_SUCCESS) return rc;
  if (memchr(text, '\0', len)) rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s: binary data (NUL byte) in a series", file);
  for (p = text; rc == FUPERMOD_SUCCESS && isspace((unsigned char)*p); p++) {
  }
  if (rc == FUPERMOD_SUCCESS)
    rc = (*p == '{' || *p == '[') ? parse_json(text, file, metric, S) : parse_csv(text, file, S);
  free(text);
  if (metric) snprintf(S->metric, sizeof S->metric, "%s", metric);
  if (rc == FUPERMOD_SUCCESS && S->other[0])
    rc = fupermod_error(FUPERMOD_ERR_USAGE, "%s holds metrics %s and %s: choose one with --metric", file, S->metric,
                        S->other);
  if (rc == FUPERMOD_SUCCESS && S->n == 0)
    rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s: no power samples%s%s", file, metric ? " of metric " : "",
                        metric ? metric : "");
  for (int i = 0; rc == FUPERMOD_SUCCESS && i < S->n; i++)
    qsort(S->h[i].s, (size_t)S->h[i].n, sizeof *S->h[i].s, cmp_sample);
  return rc;
}

/* The series of a point's host: the same name, else the same name up to the first dot. */
static host_series *find_host(series *S, const char *host) {
  size_t hn = strcspn(host, ".");
  for (int i = 0; i < S->n; i++)
    if (strcmp(S->h[i].name, host) == 0) return &S->h[i];
  for (int i = 0; i < S->n; i++) {
    size_t sn = strcspn(S->h[i].name, ".");
    if (sn == hn && strncmp(S->h[i].name, host, hn) == 0) return &S->h[i];
  }
  return NULL;
}

/* Power at t by linear interpolation between samples k and k+1. */
static double power_at(const host_series *h, int k, double t) {
  const sample *a = &h->s[k], *b = &h->s[k + 1 < h->n ? k + 1 : k];
  if (!(b->t > a->t)) return a->w;
  return a->w + (b->w - a->w) * (t - a->t) / (b->t - a->t);
}

/* Integral of the power over [a, b] (the series covers it). */
static double integrate(const host_series *h, double a, double b) {
  double sum = 0.0;
  for (int k = 0; k + 1 < h->n; k++) {
    double x0 = h->s[k].t > a ? h->s[k].t : a, x1 = h->s[k + 1].t < b ? h->s[k + 1].t : b;
    if (x1 > x0) sum += (x1 - x0) * 0.5 * (power_at(h, k, x0) + power_at(h, k, x1));
  }
  return sum;
}

/* One point with a span, of one of the files. */
typedef struct {
  int file, idx;
  host_series *h;
  double a, b, busy;
  int cluster;
} entry;

static int cmp_entry(const void *x, const void *y) {
  const entry *p = x, *q = y;
  if (p->h != q->h) return p->h < q->h ? -1 : 1;
  return p->a < q->a ? -1 : p->a > q->a;
}

/* Coverage and gaps of [a, b]; *inside = samples within it. */
static int check_span(const host_series *h, const entry *e, const char *file, long d, double max_gap, int *inside) {
  int first = -1, last = -1;
  *inside = 0;
  if (h->n == 0 || h->s[0].t > e->a || h->s[h->n - 1].t < e->b)
    return fupermod_error(FUPERMOD_ERR_INPUT,
                          "%s: d=%ld ran over [%.3f, %.3f] but the series of host %s covers [%.3f, %.3f] only", file,
                          d, e->a, e->b, h->name, h->s[0].t, h->s[h->n - 1].t);
  for (int k = 0; k < h->n; k++) {
    if (h->s[k].t <= e->a) first = k;
    if (h->s[k].t >= e->b && last < 0) last = k;
    if (h->s[k].t >= e->a && h->s[k].t <= e->b) (*inside)++;
  }
  for (int k = first; k < last; k++)
    if (h->s[k + 1].t - h->s[k].t > max_gap)
      return fupermod_error(FUPERMOD_ERR_INPUT,
                            "%s: d=%ld: the series of host %s has a gap of %.3f s (%.3f to %.3f) within the runs' "
                            "span [%.3f, %.3f], more than --max-gap %g s",
                            file, d, h->name, h->s[k + 1].t - h->s[k].t, h->s[k].t, h->s[k + 1].t, e->a, e->b,
                            max_gap);
  return FUPERMOD_SUCCESS;
}

/* The node's static power from its samples outside every run of it (entries es[0..n) of host h). */
static int auto_static(const host_series *h, const entry *es, int n, double *watts, int *count) {
  double sum = 0.0;
  int k = 0;
  for (int i = 0; i < h->n; i++) {
    int in = 0;
    for (int j = 0; j < n && !in; j++) in = h->s[i].t >= es[j].a && h->s[i].t <= es[j].b;
    if (!in) sum += h->s[i].w, k++;
  }
  if (k < 2)
    return fupermod_error(FUPERMOD_ERR_INPUT,
                          "--static auto: the series of host %s has %d sample%s outside the runs (2 needed): fetch a "
                          "longer window, or give --static WATTS",
                          h->name, k, k == 1 ? "" : "s");
  *watts = sum / k;
  *count = k;
  return FUPERMOD_SUCCESS;
}

static int import(const char *sfile, const char *metric, double static_w, double max_gap, int nfiles, char **files) {
  series S;
  fupermod_points *pts = calloc((size_t)nfiles, sizeof *pts);
  entry *es = NULL;
  double *host_static = NULL;
  int *host_count = NULL, n = 0, cap = 0, rc;
  if (!pts) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  if ((rc = load_series(sfile, metric, &S)) != FUPERMOD_SUCCESS) goto done;
  for (int f = 0; f < nfiles && rc == FUPERMOD_SUCCESS; f++) {
    int spans = 0;
    if ((rc = fupermod_points_load_all(files[f], &pts[f])) != FUPERMOD_SUCCESS) break;
    for (int i = 0; i < pts[f].count && rc == FUPERMOD_SUCCESS; i++) {
      const fupermod_point *p = &pts[f].pts[i];
      host_series *h;
      if (!fupermod_point_has_span(p) || !p->host) {
        if (fupermod_point_abandoned(p)) continue;
        rc = fupermod_error(FUPERMOD_ERR_INPUT,
                            "%s: d=%ld has no t_start, t_end and host: measure it with meter=external", files[f], p->d);
        break;
      }
      if (!(h = find_host(&S, p->host))) {
        rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s: host %s (d=%ld) has no sample in %s", files[f], p->host, p->d,
                            sfile);
        break;
      }
      if (n == cap) {
        int nc = cap ? 2 * cap : 64;
        entry *ne = realloc(es, (size_t)nc * sizeof *ne);
        if (!ne) {
          rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
          break;
        }
        es = ne;
        cap = nc;
      }
      /* an abandoned run's energy is dropped, but it shares the node's power meanwhile; so do
       * rejected repetitions (counted at the mean time: the span has no per-run record) */
      es[n++] = (entry){f, i, h, p->t_start, p->t_end, p->t * (p->reps + p->rejected), -1};
      spans++;
    }
    if (rc == FUPERMOD_SUCCESS && !spans)
      rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s: no point has t_start, t_end and host: measure with meter=external",
                          files[f]);
  }
  if (rc != FUPERMOD_SUCCESS) goto done;
  host_static = calloc((size_t)S.n, sizeof *host_static);
  host_count = calloc((size_t)S.n, sizeof *host_count);
  if (!host_static || !host_count) {
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
    goto done;
  }
  qsort(es, (size_t)n, sizeof *es, cmp_entry);
  for (int i = 0; i < n && rc == FUPERMOD_SUCCESS; i++) {
    int inside;
    if ((rc = check_span(es[i].h, &es[i], files[es[i].file], pts[es[i].file].pts[es[i].idx].d, max_gap, &inside)) !=
        FUPERMOD_SUCCESS)
      break;
    pts[es[i].file].pts[es[i].idx].samples = inside;
  }
  /* per host: its static power, then each group of overlapping spans (measured together) */
  for (int i = 0, j; i < n && rc == FUPERMOD_SUCCESS; i = j) {
    int hi = (int)(es[i].h - S.h);
    for (j = i; j < n && es[j].h == es[i].h;) j++;
    if (static_w >= 0) host_static[hi] = static_w;
    else if ((rc = auto_static(es[i].h, es + i, j - i, &host_static[hi], &host_count[hi])) != FUPERMOD_SUCCESS) break;
    for (int g = i, k; g < j; g = k) {
      double lo = es[g].a, hi_t = es[g].b, busy = 0.0, dyn;
      for (k = g; k < j && es[k].a <= hi_t; k++) {
        if (es[k].b > hi_t) hi_t = es[k].b;
        busy += es[k].busy;
      }
      dyn = integrate(es[g].h, lo, hi_t) - host_static[hi] * (hi_t - lo);
      for (int m = g; m < k; m++) {
        fupermod_point *p = &pts[es[m].file].pts[es[m].idx];
        double e;
        if (fupermod_point_abandoned(p)) continue;
        /* busy attribution: the group's dynamic energy in proportion to each one's run time */
        e = busy > 0 ? dyn * p->t / busy : 0.0;
        p->e = e > 0 ? e : 0.0; /* below the static baseline: noise around 0 */
        p->e_ci = p->e * p->ci / p->t;
      }
    }
  }
  for (int f = 0; f < nfiles && rc == FUPERMOD_SUCCESS; f++) {
    char comment[1024];
    int smin = -1, smax = 0, hi = -1;
    for (int i = 0; i < pts[f].count; i++) {
      const fupermod_point *p = &pts[f].pts[i];
      /* every file has a point with a span whose host has a series (checked above) */
      if (hi < 0 && fupermod_point_has_span(p) && p->host) hi = (int)(find_host(&S, p->host) - S.h);
      if (fupermod_point_abandoned(p)) continue;
      if (smin < 0 || p->samples < smin) smin = p->samples;
      if (p->samples > smax) smax = p->samples;
    }
    pts[f].has_energy = 1;
    if (smin < 0) smin = 0; /* abandoned points only */
    if (static_w >= 0)
      snprintf(comment, sizeof comment, "energy: dynamic, imported from %s%s%s, static power %.6g W (given), "
               "attribution busy", sfile, S.metric[0] ? " metric " : "", S.metric, host_static[hi]);
    else
      snprintf(comment, sizeof comment, "energy: dynamic, imported from %s%s%s, static power %.6g W (auto: mean of "
               "%d samples outside the runs), attribution busy", sfile, S.metric[0] ? " metric " : "",
               S.metric[0] ? S.metric : "", host_static[hi], host_count[hi]);
    if ((rc = fupermod_points_save(files[f], &pts[f], comment)) != FUPERMOD_SUCCESS) break;
    printf("%s: host %s, static %.6g W, %d to %d samples per point\n", files[f], S.h[hi].name, host_static[hi], smin,
           smax);
  }
done:
  for (int f = 0; f < nfiles; f++) fupermod_points_free(&pts[f]);
  free(pts);
  free(es);
  free(host_static);
  free(host_count);
  series_free(&S);
  return rc;
}

int cmd_energy(int argc, char **argv) {
  static const struct option opts[] = {{"static", required_argument, NULL, 's'},
                                       {"metric", required_argument, NULL, 'm'},
                                       {"max-gap", required_argument, NULL, 'g'},
                                       {"help", no_argument, NULL, 'h'},
                                       {NULL, 0, NULL, 0}};
  double static_w = -1.0, max_gap = 5.0;
  const char *metric = NULL;
  int c, rc;
  if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
    help();
    return 0;
  }
  if (argc < 2 || strcmp(argv[1], "import") != 0)
    return tool_usage("energy", "expected 'fupermod energy import ...'");
  argc--;
  argv++;
  optind = 0;
  while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
    switch (c) {
    case 's':
      if (strcmp(optarg, "auto") == 0) static_w = -1.0;
      else if (fupermod_parse_double(optarg, &static_w) || !(static_w >= 0) || static_w > 1e7)
        return tool_usage(SUB, "--static '%s' must be watts >= 0 or auto", optarg);
      break;
    case 'm':
      if (!*optarg || strlen(optarg) >= 64) return tool_usage(SUB, "--metric '%s': 1 to 63 characters", optarg);
      metric = optarg;
      break;
    case 'g':
      if (fupermod_parse_double(optarg, &max_gap) || !(max_gap > 0))
        return tool_usage(SUB, "--max-gap '%s' must be seconds > 0", optarg);
      break;
    case 'h': help(); return 0;
    default: return tool_bad_option(SUB, argv, "h", opts);
    }
  }
  if (argc - optind < 2) return tool_usage(SUB, "give a power series and at least one point file");
  if ((rc = import(argv[optind], metric, static_w, max_gap, argc - optind - 1, argv + optind + 1)) != FUPERMOD_SUCCESS)
    return tool_fail(SUB, rc);
  return 0;
}
