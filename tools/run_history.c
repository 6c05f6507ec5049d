/* fupermod run's history: its launches' whole runs and calibration runs, kept beside the models
 * (tools/run_history.h; docs/models.md, "History"). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include "config.h"
#include "tools/run_history.h"

#define CAL_HEADER "# fupermod calibration runs v1 (docs/models.md, \"History\")\n" \
                   "launch,date,version,platform,app,size,shares,whole,factors,fresh\n"
#define PHASES_HEADER "# fupermod phases v1 (docs/models.md, \"History\")\n" \
                      "launch,date,version,platform,app,size,names,rank,d,pred_comp,pred_comm,meas_comp,meas_busy,meas_cpu," \
                      "meas_rows,meas_cols,meas_copy\n"
#define HIST_HEADER "# fupermod history v1 (docs/models.md, \"History\")\n" \
                    "launch,date,version,platform,app,size,names,shares,pred_run,pred_run_ci,meas_run,meas_run_ci,sample,chosen\n"

void tool_launch_init(tool_launch *l, uint64_t platform) {
  time_t now = time(NULL);
  struct tm tm;
  gmtime_r(&now, &tm);
  strftime(l->date, sizeof l->date, "%Y-%m-%dT%H:%M:%SZ", &tm);
  snprintf(l->launch, sizeof l->launch, "%s.%ld", l->date, (long)getpid());
  l->platform = platform;
}

void tool_cal_runs_free(tool_cal_runs *r) {
  free(r->whole);
  free(r->f);
  memset(r, 0, sizeof *r);
}

int tool_cal_runs_add(tool_cal_runs *r, double whole, const double *f) {
  if (r->n == r->cap) {
    int cap = r->cap ? 2 * r->cap : 8;
    double *w = realloc(r->whole, (size_t)cap * sizeof *w), *g;
    if (!w) return fupermod_error(FUPERMOD_ERR_NOMEM, "run: out of memory for the calibration runs");
    r->whole = w;
    if (!(g = realloc(r->f, (size_t)cap * 3 * (size_t)r->p * sizeof *g)))
      return fupermod_error(FUPERMOD_ERR_NOMEM, "run: out of memory for the calibration runs");
    r->f = g;
    r->cap = cap;
  }
  r->whole[r->n] = whole;
  memcpy(r->f + (size_t)r->n * 3 * r->p, f, 3 * (size_t)r->p * sizeof *f);
  r->n++;
  return FUPERMOD_SUCCESS;
}

static void path_of(char *buf, size_t size, const char *models, const char *file) {
  snprintf(buf, size, "%s/%s", models, file);
}

/* Open MODELS/FILE for appending, its header written when it is new. */
static FILE *open_append(const char *models, const char *file, const char *header, int *rc) {
  char path[4200];
  FILE *fp;
  if ((*rc = fupermod_mkdir_p(models)) != FUPERMOD_SUCCESS) return NULL;
  path_of(path, sizeof path, models, file);
  if (!(fp = fopen(path, "a"))) {
    *rc = fupermod_error(FUPERMOD_ERR_SYSTEM, "%s: cannot append: %s", path, strerror(errno));
    return NULL;
  }
  if (ftell(fp) == 0) fputs(header, fp);
  return fp;
}

static int close_append(FILE *fp, const char *out, const char *file) {
  char path[4200];
  path_of(path, sizeof path, out, file);
  /* each launch's lines reach the disk before the next step: nothing measured is lost */
  if (fflush(fp) != 0 || fsync(fileno(fp)) != 0 || fclose(fp) != 0)
    return fupermod_error(FUPERMOD_ERR_SYSTEM, "%s: cannot write: %s", path, strerror(errno));
  return FUPERMOD_SUCCESS;
}

static void put_shares(FILE *fp, const fupermod_dist *d) {
  for (int i = 0; i < d->size; i++) fprintf(fp, "%s%ld", i ? " " : "", d->parts[i].d);
}

static void put_head(FILE *fp, const tool_launch *l, const app_t *a) {
  fprintf(fp, "%s,%s,%s,%016" PRIx64 ",%s,%ld,", l->launch, l->date, PACKAGE_VERSION, l->platform, a->name, a->n);
}

int tool_history_cal_append(const char *out, const tool_launch *l, const app_t *a, const fupermod_dist *d,
                            const tool_cal_runs *r, int fresh) {
  int rc;
  FILE *fp = open_append(out, "calibration.csv", CAL_HEADER, &rc);
  if (!fp) return rc;
  for (int k = 0; k < r->n; k++) {
    put_head(fp, l, a);
    put_shares(fp, d);
    fprintf(fp, ",%.9g,", r->whole[k]);
    for (int j = 0; j < 3 * r->p; j++) fprintf(fp, "%s%.9g", j ? " " : "", r->f[(size_t)k * 3 * r->p + j]);
    fprintf(fp, ",%d\n", fresh);
  }
  return close_append(fp, out, "calibration.csv");
}

/* Split a CSV line (no quoting: none of our fields holds a comma) into at most n fields, in place. */
static int fields(char *line, char **f, int n) {
  int k = 0;
  line[strcspn(line, "\r\n")] = 0;
  for (char *s = line; k < n;) {
    f[k++] = s;
    if (!(s = strchr(s, ','))) break;
    *s++ = 0;
  }
  return k;
}

/* Parse a space-separated list of n numbers; 0 when it holds exactly n. */
static int numbers(const char *s, double *v, int n) {
  char *end;
  for (int i = 0; i < n; i++) {
    v[i] = strtod(s, &end);
    if (end == s) return -1;
    s = end;
  }
  while (*s == ' ') s++;
  return *s ? -1 : 0;
}

static int same_key(char **f, const tool_launch *l, const app_t *a, const fupermod_dist *d) {
  char plat[32], size[32];
  double *v;
  int same;
  snprintf(plat, sizeof plat, "%016" PRIx64, l->platform);
  snprintf(size, sizeof size, "%ld", a->n);
  if (strcmp(f[3], plat) != 0 || strcmp(f[4], a->name) != 0 || strcmp(f[5], size) != 0) return 0;
  if (!(v = malloc((size_t)d->size * sizeof *v))) return 0;
  same = numbers(f[6], v, d->size) == 0;
  for (int i = 0; same && i < d->size; i++) same = v[i] == (double)d->parts[i].d;
  free(v);
  return same;
}

int tool_history_cal_load(const char *out, const tool_launch *l, const app_t *a, const fupermod_dist *d,
                          tool_cal_runs *r) {
  char path[4200], line[65536], *f[10], reset[64] = "";
  int p = d->size, rc = FUPERMOD_SUCCESS, no = 0;
  double *v = malloc(3 * (size_t)p * sizeof *v), whole;
  FILE *fp;
  memset(r, 0, sizeof *r);
  r->p = p;
  path_of(path, sizeof path, out, "calibration.csv");
  if (!v) return fupermod_error(FUPERMOD_ERR_NOMEM, "run: out of memory");
  if (!(fp = fopen(path, "r"))) {
    free(v);
    return errno == ENOENT ? FUPERMOD_SUCCESS : fupermod_error(FUPERMOD_ERR_SYSTEM, "%s: %s", path, strerror(errno));
  }
  while (rc == FUPERMOD_SUCCESS && fgets(line, sizeof line, fp)) {
    no++;
    if (line[0] == '#' || strncmp(line, "launch,", 7) == 0) continue;
    if (fields(line, f, 10) != 10 || numbers(f[7], &whole, 1) != 0 || (strcmp(f[9], "0") != 0 && strcmp(f[9], "1") != 0))
      rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: not a calibration run (launch,date,version,platform,app,size,"
                          "shares,whole,factors,fresh)", path, no);
    else if (same_key(f, l, a, d)) {
      if (numbers(f[8], v, 3 * p) != 0 || !(whole > 0))
        rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: %d factors and a whole run > 0 expected", path, no, 3 * p);
      else {
        /* a launch that calibrated afresh (the platform drifted): the runs before it no longer count */
        if (strcmp(f[9], "1") == 0 && strcmp(reset, f[0]) != 0) {
          r->n = 0;
          snprintf(reset, sizeof reset, "%s", f[0]);
        }
        rc = tool_cal_runs_add(r, whole, v);
      }
    }
  }
  fclose(fp);
  free(v);
  if (rc != FUPERMOD_SUCCESS) tool_cal_runs_free(r);
  return rc;
}

/* NAME=SECONDS in a space-separated list: the seconds, NAN where the name is absent. */
static double phase_of(const char *list, const char *name) {
  size_t n = strlen(name);
  for (const char *s = list; s && *s;) {
    while (*s == ' ') s++;
    if (strncmp(s, name, n) == 0 && s[n] == '=') return strtod(s + n + 1, NULL);
    s = strchr(s, ' ');
  }
  return NAN;
}

int tool_history_app_runs(const char *models, const char *app, long size, const fupermod_dist *d,
                          const char *const *hosts, int nnames, const char *const *names, tool_app_runs *out) {
  char path[4200], line[8192], *f[10], cur[64] = "";
  int p = d->size, rc = FUPERMOD_SUCCESS, no = 0, seen = 0, match = 0;
  double whole = NAN, *ph = calloc((size_t)p * nnames, sizeof *ph);
  FILE *fp;
  memset(out, 0, sizeof *out);
  out->p = p, out->nnames = nnames;
  if (!ph) return fupermod_error(FUPERMOD_ERR_NOMEM, "run: out of memory");
  path_of(path, sizeof path, models, "runs.csv");
  if (!(fp = fopen(path, "r"))) {
    free(ph);
    return errno == ENOENT ? FUPERMOD_SUCCESS : fupermod_error(FUPERMOD_ERR_SYSTEM, "%s: %s", path, strerror(errno));
  }
  /* a run's lines come together, one per rank: it counts where every rank ran on the same host
   * with the same share as rank r of d */
  for (int more = 1; rc == FUPERMOD_SUCCESS && more;) {
    long rank, sz, share;
    char *end;
    more = fgets(line, sizeof line, fp) != NULL;
    if (more) no++;
    if (more && (line[0] == '#' || strncmp(line, "launch,", 7) == 0)) continue;
    if (more && (fields(line, f, 10) != 10 || (sz = strtol(f[4], &end, 10), *end) || (rank = strtol(f[5], &end, 10), *end) ||
                 (share = strtol(f[7], &end, 10), *end) || rank < 0)) {
      rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: not an application run (launch,date,version,app,size,rank,host,"
                          "share,whole,phases)", path, no);
      break;
    }
    if (!more || strcmp(cur, f[0]) != 0) {
      /* the run before is complete */
      if (seen == p && match == p && whole > 0) {
        double *w = realloc(out->whole, (size_t)(out->n + 1) * sizeof *w);
        double *x = realloc(out->phases, (size_t)(out->n + 1) * p * nnames * sizeof *x);
        if (w) out->whole = w;
        if (x) out->phases = x;
        if (!w || !x) {
          rc = fupermod_error(FUPERMOD_ERR_NOMEM, "run: out of memory");
          break;
        }
        memcpy(out->phases + (size_t)out->n * p * nnames, ph, (size_t)p * nnames * sizeof *ph);
        out->whole[out->n++] = whole;
      }
      if (!more) break;
      snprintf(cur, sizeof cur, "%s", f[0]);
      seen = match = 0;
      whole = strtod(f[8], NULL);
      for (int k = 0; k < p * nnames; k++) ph[k] = NAN;
    }
    seen++;
    if (strcmp(f[3], app) == 0 && sz == size && rank < p && strcmp(f[6], hosts[rank]) == 0 && share == d->parts[rank].d) {
      match++;
      for (int k = 0; k < nnames; k++) ph[rank * nnames + k] = phase_of(f[9], names[k]);
    }
  }
  fclose(fp);
  free(ph);
  if (rc != FUPERMOD_SUCCESS) tool_app_runs_free(out);
  return rc;
}

void tool_app_runs_free(tool_app_runs *r) {
  free(r->whole);
  free(r->phases);
  memset(r, 0, sizeof *r);
}

double tool_median(double *v, int n) {
  gsl_sort(v, 1, (size_t)n);
  return gsl_stats_median_from_sorted_data(v, 1, (size_t)n);
}

/* Runs on one distribution: the same shares and the same prediction (the same layout, then: a
 * square-corner layout of equal areas is priced otherwise) were measured under several names. */
int tool_same_run(const run_t *x, const run_t *y) {
  for (int i = 0; i < x->dist->size; i++)
    if (x->dist->parts[i].d != y->dist->parts[i].d) return 0;
  return x->pred_run == y->pred_run || (isnan(x->pred_run) && isnan(y->pred_run));
}

static double rel_error(double pred, double meas) { return (pred - meas) / meas; }

/* DIR/models/phases.csv: per distinct distribution and process, the predicted computation and
 * messages and what the rounds measured (each mean over the distribution's names): its
 * computation, how long its cores were busy, the CPU time they gave, and the 2D-FFT's phases. */
static int phases_append(const char *out, const tool_launch *l, const app_t *a, const run_t *runs, int nruns) {
  int rc;
  FILE *fp = open_append(out, "phases.csv", PHASES_HEADER, &rc);
  if (!fp) return rc;
  for (int k = 0; k < nruns; k++) {
    int first = 1;
    for (int j = 0; j < k && first; j++) first = !tool_same_run(&runs[j], &runs[k]);
    for (int i = 0; first && i < runs[k].dist->size; i++) {
      double m[6] = {0};
      int n = 0;
      put_head(fp, l, a);
      for (int j = k; j < nruns; j++)
        if (tool_same_run(&runs[k], &runs[j])) {
          const double *v[6] = {runs[j].meas_proc, runs[j].meas_wall, runs[j].meas_cpu, runs[j].meas_rows,
                                runs[j].meas_cols, runs[j].meas_copy};
          fprintf(fp, "%s%s", n++ ? "=" : "", runs[j].label);
          for (int f = 0; f < 6; f++) m[f] += v[f] ? v[f][i] : NAN;
        }
      fprintf(fp, ",%d,%ld,%.9g,%.9g", i, runs[k].dist->parts[i].d, runs[k].pred_comp ? runs[k].pred_comp[i] : NAN,
              runs[k].pred_comm ? runs[k].pred_comm[i] : NAN);
      for (int f = 0; f < 6; f++) fprintf(fp, ",%.9g", !tool_app_fft(a) && f >= 3 ? NAN : m[f] / n);
      fprintf(fp, "\n");
    }
  }
  return close_append(fp, out, "phases.csv");
}

int tool_history_append(const char *out, const tool_launch *l, const app_t *a, const run_t *runs, int nruns, int best) {
  int rc;
  FILE *fp = open_append(out, "history.csv", HIST_HEADER, &rc);
  if (!fp) return rc;
  for (int k = 0; k < nruns; k++) {
    int first = 1, n = 0, chosen = 0, sample = 0;
    double meas = 0, ci = 0;
    for (int j = 0; j < k && first; j++) first = !tool_same_run(&runs[j], &runs[k]);
    if (!first) continue;
    put_head(fp, l, a);
    for (int j = k; j < nruns; j++)
      if (tool_same_run(&runs[k], &runs[j])) {
        fprintf(fp, "%s%s", n ? "=" : "", runs[j].label);
        meas += runs[j].meas_time, ci += runs[j].meas_run_ci, n++;
        chosen |= j == best;
        sample |= runs[j].calibrated;
      }
    fprintf(fp, ",");
    put_shares(fp, runs[k].dist);
    fprintf(fp, ",%.9g,%.9g,%.9g,%.9g,%s,%d\n", runs[k].pred_run, runs[k].pred_run_ci, meas / n, ci / n,
            sample ? "in" : "out", chosen);
  }
  rc = close_append(fp, out, "history.csv");
  return rc == FUPERMOD_SUCCESS ? phases_append(out, l, a, runs, nruns) : rc;
}

/* ---- fupermod model history ---- */

typedef struct {
  char launch[64], date[32], version[32], platform[32], app[16], size[24];
  int out_k, out_n, in_k, in_n;
  double err[64];
  double chosen, best, chosen_ci, best_ci;
} launch_app;

/* Every launch of one application and size, for the totals (the acceptance of docs/models.md:
 * the strict score over all launches, the regret's median, mean and worst, and the launches whose
 * choice was slower than the best beyond both measured intervals). */
#define TOTAL_CAP 4096
typedef struct {
  char app[16], size[24];
  int launches, out_k, out_n, in_k, in_n, beyond;
  double err[TOTAL_CAP], regret[TOTAL_CAP];
} app_total;

static void total_add(app_total *t, int *nt, int cap, const launch_app *x) {
  app_total *g = NULL;
  for (int k = 0; k < *nt && !g; k++)
    if (strcmp(t[k].app, x->app) == 0 && strcmp(t[k].size, x->size) == 0) g = &t[k];
  if (!g && *nt < cap) {
    g = &t[(*nt)++];
    memset(g, 0, sizeof *g);
    snprintf(g->app, sizeof g->app, "%s", x->app);
    snprintf(g->size, sizeof g->size, "%s", x->size);
  }
  if (!g || g->launches >= TOTAL_CAP) return;
  g->regret[g->launches++] = x->chosen / x->best - 1;
  g->beyond += x->chosen - x->chosen_ci > x->best + x->best_ci;
  g->out_k += x->out_k, g->in_k += x->in_k, g->in_n += x->in_n;
  for (int i = 0; i < x->out_n && g->out_n < TOTAL_CAP; i++) g->err[g->out_n++] = x->err[i];
}

static void total_print(app_total *g) {
  double sum = 0, rmed, emed = NAN, worst = NAN;
  for (int k = 0; k < g->launches; k++) sum += g->regret[k];
  rmed = tool_median(g->regret, g->launches);
  if (g->out_n > 0) {
    emed = tool_median(g->err, g->out_n);
    worst = g->err[g->out_n - 1];
  }
  printf("# all %d launches of %s n=%s: out of sample %d of %d within 10 %% (%.0f %%; median %.1f %%, worst %.1f %%); in sample "
         "%d of %d; regret median %.2f %%, mean %.2f %%, worst %.2f %%; chosen slower than the best beyond both intervals: %d\n",
         g->launches, g->app, g->size, g->out_k, g->out_n, g->out_n ? 100.0 * g->out_k / g->out_n : NAN, 100 * emed,
         100 * worst, g->in_k, g->in_n, 100 * rmed, 100 * sum / g->launches, 100 * g->regret[g->launches - 1], g->beyond);
}

static void print_one(const launch_app *x) {
  double e[64], med = NAN, worst = NAN;
  memcpy(e, x->err, (size_t)x->out_n * sizeof *e);
  if (x->out_n > 0) {
    med = tool_median(e, x->out_n);
    worst = e[x->out_n - 1];
  }
  printf("%s  %-7s %-8s %-6s n=%-6s out of sample %d of %d within 10 %% (median %.1f %%, worst %.1f %%); in sample %d of %d; "
         "chosen %.4g s, best measured %.4g s (regret %.1f %%)\n",
         x->date, x->version, x->platform + 8, x->app, x->size, x->out_k, x->out_n, 100 * med, 100 * worst, x->in_k, x->in_n,
         x->chosen, x->best, 100 * (x->chosen / x->best - 1));
}

int tool_history_print(const char *dir) {
  char path[4200], line[65536], *f[14];
  launch_app cur;
  int no = 0, have = 0, launches = 0, rc = FUPERMOD_SUCCESS, nt = 0;
  app_total *tot = calloc(16, sizeof *tot);
  FILE *fp;
  if (!tot) return fupermod_error(FUPERMOD_ERR_NOMEM, "history: out of memory");
  /* a run's directory, or a models directory of its own (fupermod run --models) */
  snprintf(path, sizeof path, "%s/models/history.csv", dir);
  if (access(path, F_OK) != 0) snprintf(path, sizeof path, "%s/history.csv", dir);
  if (!(fp = fopen(path, "r"))) {
    free(tot);
    return fupermod_error(FUPERMOD_ERR_INPUT, "%s: %s (fupermod run --out %s, or --models %s, writes it)", path, strerror(errno), dir, dir);
  }
  printf("# %s: each launch's whole-run predictions, scored strictly (|pred - meas| / meas <= 10 %%, each distinct\n"
         "# distribution once, in sample the calibration's), and its choice's regret; platform: its fingerprint's last 8\n"
         "# digits\n", path);
  while (rc == FUPERMOD_SUCCESS && fgets(line, sizeof line, fp)) {
    double v[4];
    no++;
    if (line[0] == '#' || strncmp(line, "launch,", 7) == 0) continue;
    if (fields(line, f, 14) != 14 || numbers(f[8], &v[0], 1) || numbers(f[10], &v[1], 1) || numbers(f[13], &v[2], 1) ||
        numbers(f[11], &v[3], 1) ||
        (strcmp(f[12], "in") != 0 && strcmp(f[12], "out") != 0)) {
      rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: not a history line (launch,date,version,platform,app,size,names,"
                          "shares,pred_run,pred_run_ci,meas_run,meas_run_ci,sample,chosen)", path, no);
      break;
    }
    if (have && (strcmp(cur.launch, f[0]) != 0 || strcmp(cur.app, f[4]) != 0)) {
      print_one(&cur);
      total_add(tot, &nt, 16, &cur);
      have = 0;
    }
    if (!have) {
      memset(&cur, 0, sizeof cur);
      snprintf(cur.launch, sizeof cur.launch, "%s", f[0]);
      snprintf(cur.date, sizeof cur.date, "%s", f[1]);
      snprintf(cur.version, sizeof cur.version, "%s", f[2]);
      snprintf(cur.platform, sizeof cur.platform, "%s", f[3]);
      snprintf(cur.app, sizeof cur.app, "%s", f[4]);
      snprintf(cur.size, sizeof cur.size, "%s", f[5]);
      cur.best = INFINITY;
      have = 1;
      launches++;
    }
    double e = fabs(rel_error(v[0], v[1]));
    if (strcmp(f[12], "in") == 0) cur.in_n++, cur.in_k += e <= 0.1;
    else if (cur.out_n < 64) cur.err[cur.out_n++] = isnan(e) ? INFINITY : e, cur.out_k += e <= 0.1;
    if (v[2] == 1) cur.chosen = v[1], cur.chosen_ci = v[3];
    if (v[1] < cur.best) cur.best = v[1], cur.best_ci = v[3];
  }
  if (have && rc == FUPERMOD_SUCCESS) {
    print_one(&cur);
    total_add(tot, &nt, 16, &cur);
  }
  fclose(fp);
  if (rc == FUPERMOD_SUCCESS && launches == 0) rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s: no launches recorded", path);
  for (int k = 0; rc == FUPERMOD_SUCCESS && k < nt; k++) total_print(&tot[k]);
  free(tot);
  return rc;
}
