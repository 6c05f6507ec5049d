#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <unistd.h>
#include "config.h"
#include "tools/tools.h"

int tool_unit_points(const fupermod_points *f, const fupermod_model *m, fupermod_points *g) {
  long n = f->count > 0 ? f->pts[f->count - 1].d : 0;
  memset(g, 0, sizeof *g);
  if (n > 0 && !(g->pts = calloc((size_t)n, sizeof *g->pts))) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  for (long d = 1; d <= n; d++) {
    fupermod_point *q = &g->pts[d - 1];
    int k = fupermod_points_find(f, d);
    if (k >= 0) *q = f->pts[k];
    else {
      double t = 0, e = 0;
      if (m) {
        t = fupermod_model_time(m, (double)d);
        e = fupermod_model_energy(m, (double)d);
      } else
        fupermod_points_interpolate(f, (double)d, &t, &e);
      q->d = d;
      q->t = t;
      q->e = f->has_energy ? e : -1.0;
      q->reps = 1;
      q->samples = -1;
    }
  }
  g->count = (int)n;
  g->has_energy = f->has_energy;
  return FUPERMOD_SUCCESS;
}

int tool_mpi_started;

/* Before MPI starts, every rank of mpirun -np P checks the same options and files: rank 0's
 * message speaks for all, instead of P copies of it. The others wait before exiting, since the
 * launcher ends the job at the first failed exit, which could come before rank 0 has spoken.
 * Returns this process's rank (0 when not launched), after that wait for one other than 0: it
 * is alive then only because rank 0 did not fail (a file missing on its host alone), and it says
 * so itself. */
static int tool_rank_waited(void) {
  static const char *vars[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"};
  long rank = 0;
  if (tool_mpi_started) return 0;
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
    const char *v = getenv(vars[i]);
    if (v && *v) {
      rank = strtol(v, NULL, 10);
      break;
    }
  }
  if (rank > 0) sleep(5);
  return rank > 0 ? (int)rank : 0;
}

int tool_fail(const char *sub, int status) {
  int rank = tool_rank_waited();
  if (rank > 0) fprintf(stderr, "fupermod %s: rank %d: %s\n", sub, rank, fupermod_error_message());
  else fprintf(stderr, "fupermod %s: %s\n", sub, fupermod_error_message());
  return fupermod_exit_status(status);
}

int tool_bad_option(const char *sub, char **argv, const char *optstring, const struct option *opts) {
  const char *arg = optind > 0 ? argv[optind - 1] : "";
  const char *names[128];
  size_t n = 0, len;
  if (optopt && strncmp(arg, "--", 2) != 0) { /* a short option: unknown, or its value missing at the end */
    const char *at = strchr(optstring, optopt);
    if (at && at[1] == ':') return tool_usage(sub, "-%c needs a value", optopt);
    return tool_usage(sub, "unknown option -%c", optopt);
  }
  if (strncmp(arg, "--", 2) != 0) return tool_usage(sub, "unknown option '%s'", arg);
  arg += 2;
  len = strcspn(arg, "=");
  for (const struct option *o = opts; o && o->name && n < 128; o++) {
    if (strlen(o->name) == len && strncmp(o->name, arg, len) == 0)
      return tool_usage(sub, o->has_arg == no_argument ? "--%s takes no value" : "--%s needs a value", o->name);
    names[n++] = o->name;
  }
  {
    char word[128];
    const char *near;
    snprintf(word, sizeof word, "%.*s", (int)len, arg);
    /* an abbreviation shared by several options is ambiguous rather than misspelt */
    for (size_t i = 0, k = 0; i < n; i++)
      if (strncmp(names[i], word, len) == 0 && ++k == 2) return tool_usage(sub, "option '--%s' is ambiguous", word);
    if ((near = fupermod_closest_name(word, names, n)))
      return tool_usage(sub, "unknown option '--%s' (did you mean '--%s'?)", word, near);
    return tool_usage(sub, "unknown option '--%s'", word);
  }
}

int tool_usage(const char *sub, const char *fmt, ...) {
  va_list ap;
  int rank = tool_rank_waited();
  if (rank > 0) fprintf(stderr, "fupermod %s: rank %d: ", sub, rank);
  else fprintf(stderr, "fupermod %s: ", sub);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, " (see 'fupermod %s --help')\n", sub);
  return 2;
}

void json_number(FILE *fp, double x) {
  if (isfinite(x)) fprintf(fp, "%.17g", x);
  else fputs("null", fp);
}

void json_string(FILE *fp, const char *s) {
  fputc('"', fp);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') fprintf(fp, "\\%c", c);
    else if (c < 0x20) fprintf(fp, "\\u%04x", c);
    else fputc(c, fp);
  }
  fputc('"', fp);
}

void tool_points_path(char *buf, size_t size, const char *dir, const fupermod_process_conf *pc) {
  snprintf(buf, size, "%s/%s.%d.points", dir, pc->hostname, pc->rank_intra);
}

int tool_load_files(int nfiles, char **files, fupermod_points **out, int *count) {
  fupermod_points *pts;
  int rc;
  *out = NULL;
  *count = 0;
  if (nfiles < 1) return fupermod_error(FUPERMOD_ERR_USAGE, "no point files given");
  if (!(pts = calloc((size_t)nfiles, sizeof *pts))) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  for (int i = 0; i < nfiles; i++)
    if ((rc = fupermod_points_load(files[i], &pts[i])) != FUPERMOD_SUCCESS) {
      for (int j = 0; j < i; j++) fupermod_points_free(&pts[j]);
      free(pts);
      return rc;
    }
  *out = pts;
  *count = nfiles;
  return FUPERMOD_SUCCESS;
}

int tool_list(const char *opt, const char *value, size_t size, int (*each)(const char *item, void *ctx), void *ctx) {
  char *item = malloc(size);
  const char *s = value;
  int k = 1, rc = FUPERMOD_SUCCESS;
  if (!item) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  for (;; k++) {
    size_t len = strcspn(s, ",");
    if (len == 0) {
      rc = fupermod_error(FUPERMOD_ERR_USAGE, "%s: item %d of '%s' is empty", opt, k, value);
      break;
    }
    if (len >= size) {
      rc = fupermod_error(FUPERMOD_ERR_USAGE, "%s: item %d of '%s' is longer than %zu characters", opt, k, value,
                          size - 1);
      break;
    }
    memcpy(item, s, len);
    item[len] = '\0';
    if (each(item, ctx) != 0) {
      rc = FUPERMOD_ERR_USAGE;
      break;
    }
    if (!s[len]) break;
    s += len + 1;
  }
  free(item);
  return rc;
}

int tool_points_equal(const fupermod_points *a, const fupermod_points *b) {
  if (a->count != b->count) return 0;
  for (int k = 0; k < a->count; k++)
    if (a->pts[k].d != b->pts[k].d || a->pts[k].t != b->pts[k].t) return 0;
  return 1;
}

const char *tool_plot_style(char *buf, size_t size, int i) {
  /* filled circle, square, triangle up, triangle down, diamond, pentagon; then their outlines */
  static const int pt[] = {7, 5, 9, 11, 13, 15, 6, 4, 8, 10, 12, 14};
  snprintf(buf, size, "lc %d pt %d dt %d", i + 1, pt[i % (int)(sizeof pt / sizeof pt[0])], i % 5 + 1);
  return buf;
}

int tool_gnuplot(const char *script) {
  char cmd[4200];
  if (!FUPERMOD_GNUPLOT[0]) return -1;
  snprintf(cmd, sizeof cmd, "'%s' '%s' 2>/dev/null", FUPERMOD_GNUPLOT, script);
  return system(cmd) == 0 ? 0 : -1;
}
