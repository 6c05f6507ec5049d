/* fupermod model: fit a model to point files, print it, and plot speed and time with gnuplot; and
 * browse stored models (list, show, plot), with their calibration. */
#include <dirent.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include "tools/tools.h"
#include "tools/run_history.h"

static const char *SUB = "model";

static void help(void) {
  printf("usage: fupermod model [-m TYPE] [-D N] [-n K] [--plot DIR] FILE...\n"
         "       fupermod model list [--data DIR] [--conf CONF]\n"
         "       fupermod model show [--data DIR] [--conf CONF] [--share N] FILE|HOST.RANK...\n"
         "       fupermod model plot [--data DIR] [--conf CONF] --out PLOTDIR [FILE|HOST.RANK...]\n"
         "       fupermod model history [DIR]\n\n"
         "list: the stored models (point files) under DIR (default fupermod-run): host, rank, kernel,\n"
         "  sizes, size range, date, whether calibrated, scatter, outlying points, and the configuration\n"
         "  line (from the file, or from CONF). show: one model's points, the smoothed function and its\n"
         "  calibration (at share N with --share). plot: time, speed (GFLOP/s when the kernel gives its\n"
         "  complexity), dynamic energy, power and speed per watt of several models (all of DIR without\n"
         "  names) in one plot each (PLOTDIR/*.png, with the data and the gnuplot script). history: each\n"
         "  launch of fupermod run --out DIR (default fupermod-run), from DIR/models/history.csv (or\n"
         "  DIR/history.csv: fupermod run --models DIR): its whole-run predictions scored strictly, out\n"
         "  of and in sample, and its choice's regret.\n\n"
         "Without a subcommand: fits a model to each point file and prints time, speed (and energy) at\n"
         "the measured sizes and K evenly spaced sizes (default 10). Options:\n"
         "  -m TYPE      cpm, piecewise (default), akima or tabulated\n"
         "  -D N         problem size the model serves (partial Akima models)\n"
         "  -n K         extra evaluation sizes between the smallest and largest point\n"
         "  --plot DIR   write DIR/speed.png and DIR/time.png (gnuplot), with the data and script\n");
}

static const char *base(const char *path) {
  const char *s = strrchr(path, '/');
  return s ? s + 1 : path;
}

static int write_plot(const char *dir, int n, char **files, fupermod_model **models, const char *type) {
  char path[4096];
  fupermod_atomic_file af;
  int rc;
  if ((rc = fupermod_mkdir_p(dir)) != FUPERMOD_SUCCESS) return rc;
  for (int i = 0; i < n; i++) {
    const fupermod_points *pts = &models[i]->points;
    long lo = pts->pts[0].d, hi = pts->pts[pts->count - 1].d;
    snprintf(path, sizeof path, "%s/model%d.dat", dir, i);
    if ((rc = fupermod_atomic_open(&af, path)) != FUPERMOD_SUCCESS) return rc;
    fprintf(af.fp, "# %s: measured points (d t speed), then the %s model (x t speed)\n", files[i], type);
    for (int k = 0; k < pts->count; k++)
      fprintf(af.fp, "%ld %.10g %.10g\n", pts->pts[k].d, pts->pts[k].t,
              fupermod_model_complexity(models[i], (double)pts->pts[k].d) / pts->pts[k].t);
    fprintf(af.fp, "\n\n");
    for (int k = 0; k <= 400; k++) {
      double x = lo + (hi - lo) * k / 400.0;
      if (x <= 0) continue;
      fprintf(af.fp, "%.10g %.10g %.10g\n", x, fupermod_model_time(models[i], x), fupermod_model_speed(models[i], x));
    }
    if ((rc = fupermod_atomic_commit(&af)) != FUPERMOD_SUCCESS) return rc;
  }
  snprintf(path, sizeof path, "%s/model.gp", dir);
  if ((rc = fupermod_atomic_open(&af, path)) != FUPERMOD_SUCCESS) return rc;
  for (int pass = 0; pass < 2; pass++) {
    fprintf(af.fp, "set terminal pngcairo size 900,600 noenhanced\nset output '%s/%s.png'\n", dir,
            pass ? "time" : "speed");
    fprintf(af.fp, "set xlabel 'problem size d (units)'\nset ylabel '%s'\nset key left top\nset grid\n",
            pass ? "time (s)" : "speed: complexity of d per second (d/t for plain points)");
    fprintf(af.fp, "set title '%s model: %s'\nplot ", type, pass ? "time" : "speed");
    for (int i = 0; i < n; i++) {
      char style[64], same[300] = "";
      int j = 0;
      while (j < i && !tool_points_equal(&models[j]->points, &models[i]->points)) j++;
      if (j < i) snprintf(same, sizeof same, ", the same as %s", base(files[j]));
      tool_plot_style(style, sizeof style, i);
      fprintf(af.fp, "%s'%s/model%d.dat' index 0 using 1:%d with points ps 0.6 %s title '%s points%s', "
                     "'%s/model%d.dat' index 1 using 1:%d with lines lw 2 %s title '%s model'",
              i ? ", " : "", dir, i, pass ? 2 : 3, style, base(files[i]), same, dir, i, pass ? 2 : 3, style,
              base(files[i]));
    }
    fprintf(af.fp, "\n");
  }
  if ((rc = fupermod_atomic_commit(&af)) != FUPERMOD_SUCCESS) return rc;
  if (tool_gnuplot(path) != 0)
    fprintf(stderr, "fupermod model: gnuplot not available or failed; the plot script is %s\n", path);
  else
    fprintf(stderr, "fupermod model: plots in %s/speed.png and %s/time.png\n", dir, dir);
  return FUPERMOD_SUCCESS;
}

static int cmd_fit(int argc, char **argv) {
  static const struct option opts[] = {{"plot", required_argument, NULL, 'P'}, {"help", no_argument, NULL, 'h'},
                                       {NULL, 0, NULL, 0}};
  const char *type = "piecewise", *plot = NULL;
  long D = 0, K = 10;
  int c, rc, n, status = 0;
  fupermod_points *pts = NULL;
  fupermod_model **models = NULL;
  optind = 0; /* a full reset of glibc's getopt: the parse may run more than once per process */
  while ((c = getopt_long(argc, argv, "m:D:n:h", opts, NULL)) != -1) {
    switch (c) {
    case 'm': type = optarg; break;
    case 'D':
      if (fupermod_parse_long(optarg, &D) || D < 0) return tool_usage(SUB, "-D '%s' must be an integer >= 0", optarg);
      break;
    case 'n':
      if (fupermod_parse_long(optarg, &K) || K < 0 || K > 100000) return tool_usage(SUB, "-n '%s' must be in 0..100000", optarg);
      break;
    case 'P': plot = optarg; break;
    case 'h': help(); return 0;
    default: return tool_bad_option(SUB, argv, "m:D:n:h", opts);
    }
  }
  if (optind >= argc) return tool_usage(SUB, "no point files given");
  {
    int known = 0;
    for (const char *const *t = fupermod_model_types(); *t; t++) known |= strcmp(*t, type) == 0;
    if (!known) return tool_usage(SUB, "unknown model type '%s' (cpm, piecewise, akima, tabulated)", type);
  }
  if ((rc = tool_load_points(argc - optind, argv + optind, NULL, NULL, &pts, &n)) != FUPERMOD_SUCCESS)
    return tool_fail(SUB, rc);
  models = calloc((size_t)n, sizeof *models);
  for (int i = 0; i < n; i++) {
    const fupermod_points *p = &pts[i];
    int energy = p->has_energy;
    long lo = p->pts[0].d, hi = p->pts[p->count - 1].d;
    if ((rc = fupermod_model_create(type, p, D, &models[i])) != FUPERMOD_SUCCESS) {
      status = tool_fail(SUB, rc);
      goto done;
    }
    printf("# %s: %d points, %s model\n# %12s %14s %14s%s %s\n", argv[optind + i], p->count, type, "x", "t (s)",
           "units/s", energy ? "          e (J)" : "", "");
    for (long k = 0; k < p->count + K; k++) {
      double x = k < p->count ? (double)p->pts[k].d : lo + (double)(hi - lo) * (double)(k - p->count + 1) / (double)(K + 1);
      double t = fupermod_model_time(models[i], x);
      printf("  %12.6g %14.8g %14.8g", x, t, x / t); /* units/s, as fupermod build prints */
      if (energy) printf(" %14.8g", fupermod_model_energy(models[i], x));
      printf("%s\n", k < p->count ? "  measured" : "");
    }
  }
  if (plot && (rc = write_plot(plot, n, argv + optind, models, type)) != FUPERMOD_SUCCESS) status = tool_fail(SUB, rc);
done:
  for (int i = 0; i < n; i++) {
    if (models) fupermod_model_free(models[i]);
    fupermod_points_free(&pts[i]);
  }
  free(models);
  free(pts);
  return status;
}

/* ---- the model browser: list, show, plot ---- */

/* One stored model: a point file and what its comments and name say about it. */
typedef struct {
  char *path;
  char host[256];
  int rank;           /* intra-node rank from HOST.RANK.points; -1 when the name has none */
  char kernel[128];   /* "" when neither the file nor the configuration names it */
  char kopts[1024];   /* the kernel's options, for its complexity */
  char line[1024];    /* the configuration line */
  char energy[512];   /* the energy label */
  time_t mtime;
  fupermod_points pts;
} stored;

static void stored_free(stored *s) {
  free(s->path);
  fupermod_points_free(&s->pts);
}

/* Copy the rest of a comment line after prefix into buf (up to the end of the line). */
static void comment_value(const char *text, const char *prefix, char *buf, size_t size) {
  const char *p = strstr(text, prefix);
  size_t n;
  if (!p || (p != text && p[-1] != '\n')) return;
  p += strlen(prefix);
  n = strcspn(p, "\r\n");
  if (n >= size) n = size - 1;
  memcpy(buf, p, n);
  buf[n] = '\0';
}

/* The first word after key in a comment line (for "kernel K" in a run model's header). */
static void comment_word(const char *text, const char *line, const char *key, char *buf, size_t size) {
  char all[1024] = "";
  const char *p;
  size_t n;
  comment_value(text, line, all, sizeof all);
  if (!(p = strstr(all, key))) return;
  p += strlen(key);
  n = strcspn(p, " ");
  if (n >= size) n = size - 1;
  memcpy(buf, p, n);
  buf[n] = '\0';
}

static int read_stored(const char *path, const fupermod_conf *conf, stored *s) {
  char *text = NULL, name[256], *dot;
  size_t len;
  struct stat st;
  int rc;
  memset(s, 0, sizeof s[0]);
  s->rank = -1;
  if (!(s->path = strdup(path))) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  if ((rc = fupermod_read_file(path, &text, &len)) != FUPERMOD_SUCCESS) return rc;
  rc = fupermod_points_parse(text, len, path, &s->pts);
  if (rc == FUPERMOD_SUCCESS) {
    comment_word(text, "# fupermod run model: ", "kernel ", s->kernel, sizeof s->kernel);
    comment_value(text, "# kernel: ", s->kopts, sizeof s->kopts);
    comment_value(text, "# line: ", s->line, sizeof s->line);
    comment_value(text, "# energy: ", s->energy, sizeof s->energy);
    if (s->kopts[0]) { /* "# kernel: NAME OPTIONS" */
      size_t n = strcspn(s->kopts, " ");
      snprintf(s->kernel, sizeof s->kernel, "%.*s", (int)n, s->kopts);
      memmove(s->kopts, s->kopts + n + (s->kopts[n] == ' '), strlen(s->kopts + n + (s->kopts[n] == ' ')) + 1);
    }
  }
  free(text);
  if (rc != FUPERMOD_SUCCESS) return rc;
  if (stat(path, &st) == 0) s->mtime = st.st_mtime;
  snprintf(name, sizeof name, "%s", base(path));
  if ((dot = strstr(name, ".points")) && dot[7] == '\0') *dot = '\0';
  snprintf(s->host, sizeof s->host, "%s", name);
  if ((dot = strrchr(name, '.')) && dot[1]) {
    long r;
    if (fupermod_parse_long(dot + 1, &r) == 0 && r >= 0 && r < 1000000) {
      s->rank = (int)r;
      snprintf(s->host, sizeof s->host, "%.*s", (int)(dot - name), name);
    }
  }
  if (conf && s->rank >= 0) { /* the configuration fills in what the file does not say */
    int k = fupermod_conf_find(conf, s->host, s->rank);
    if (k >= 0) {
      const fupermod_process_conf *pc = &conf->procs[k];
      if (!s->line[0])
        snprintf(s->line, sizeof s->line, "%s %d %s %s %s", pc->hostname, pc->rank_intra, pc->bind, pc->device_type,
                 pc->subopts);
      if (!s->kernel[0] && fupermod_subopt_get(pc->subopts, "kernel", s->kernel, sizeof s->kernel) > 0)
        snprintf(s->kopts, sizeof s->kopts, "%s", pc->subopts);
    }
  }
  return FUPERMOD_SUCCESS;
}

static int by_path(const void *a, const void *b) { return strcmp(((const stored *)a)->path, ((const stored *)b)->path); }

/* Every *.points file under dir (three levels: DIR, DIR/models, DIR/models/APP), sorted by path. */
static int scan_dir(const char *dir, int depth, const fupermod_conf *conf, stored **list, int *n, int *cap) {
  DIR *dp = opendir(dir);
  struct dirent *de;
  int rc = FUPERMOD_SUCCESS;
  if (!dp) return depth == 0 ? fupermod_error(FUPERMOD_ERR_INPUT, "%s: cannot open the data directory", dir) : FUPERMOD_SUCCESS;
  while (rc == FUPERMOD_SUCCESS && (de = readdir(dp))) {
    char path[4096];
    size_t len = strlen(de->d_name);
    struct stat st;
    if (de->d_name[0] == '.') continue;
    snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
    if (stat(path, &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) {
      if (depth < 2) rc = scan_dir(path, depth + 1, conf, list, n, cap);
      continue;
    }
    if (len < 8 || strcmp(de->d_name + len - 7, ".points") != 0) continue;
    if (*n == *cap) {
      stored *g = realloc(*list, (size_t)(*cap ? 2 * *cap : 16) * sizeof *g);
      if (!g) {
        rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
        break;
      }
      *list = g;
      *cap = *cap ? 2 * *cap : 16;
    }
    if (read_stored(path, conf, &(*list)[*n]) != FUPERMOD_SUCCESS) {
      /* one unreadable file does not hide the others */
      fprintf(stderr, "fupermod model: skipped: %s\n", fupermod_error_message());
      stored_free(&(*list)[*n]);
      continue;
    }
    (*n)++;
  }
  closedir(dp);
  if (depth == 0 && rc == FUPERMOD_SUCCESS && *n > 1) qsort(*list, (size_t)*n, sizeof **list, by_path); /* NULL when none */
  return rc;
}

static void free_list(stored *list, int n) {
  for (int i = 0; i < n; i++) stored_free(&list[i]);
  free(list);
}

/* The kernel's complexity of d units (flop), or NAN when the model does not name a kernel that loads. */
static void complexities(const stored *s, double *c) {
  fupermod_kernel *k = NULL;
  for (int i = 0; i < s->pts.count; i++) c[i] = NAN;
  if (!s->kernel[0] || fupermod_kernel_load(s->kernel, s->kopts, &k) != FUPERMOD_SUCCESS) return;
  for (int i = 0; i < s->pts.count; i++) c[i] = fupermod_kernel_complexity(k, s->pts.pts[i].d);
  fupermod_kernel_unload(k);
}

/* The smoothed copy the calibration uses; 0 when there is none (fewer than 3 points). */
static int smoothed(const fupermod_points *p, fupermod_points *sm, double *scatter, double *escatter) {
  return p->count >= 3 && fupermod_points_smooth(p, FUPERMOD_CALIB_WINDOW, 0.95, sm, scatter, escatter) == FUPERMOD_SUCCESS;
}

static void print_date(time_t t, char *buf, size_t size) {
  struct tm tm;
  if (t && gmtime_r(&t, &tm)) strftime(buf, size, "%Y-%m-%dT%H:%MZ", &tm);
  else snprintf(buf, size, "-");
}

static int model_list(const char *dir, const fupermod_conf *conf) {
  stored *list = NULL;
  int n = 0, cap = 0, rc = scan_dir(dir, 0, conf, &list, &n, &cap), uncal = 0;
  if (rc != FUPERMOD_SUCCESS) {
    free_list(list, n);
    return tool_fail(SUB, rc);
  }
  printf("# %s: %d stored model%s\n", dir, n, n == 1 ? "" : "s");
  printf("# %-34s %-14s %4s %-10s %5s %10s %10s %-17s %-10s %8s %8s  %s\n", "file", "host", "rank", "kernel", "sizes",
         "d min", "d max", "date (UTC)", "calibrated", "scatter", "outliers", "configuration");
  for (int i = 0; i < n; i++) {
    const stored *s = &list[i];
    fupermod_calib c;
    char date[32];
    const char *rel = strncmp(s->path, dir, strlen(dir)) == 0 ? s->path + strlen(dir) + 1 : s->path;
    fupermod_calib_check(&s->pts, 0, &c);
    print_date(s->mtime, date, sizeof date);
    uncal += !c.calibrated;
    printf("  %-34s %-14s %4d %-10s %5d %10ld %10ld %-17s %-10s", rel, s->host, s->rank, s->kernel[0] ? s->kernel : "-",
           s->pts.count, s->pts.pts[0].d, s->pts.pts[s->pts.count - 1].d, date, c.calibrated ? "yes" : "no");
    if (isnan(c.scatter)) printf(" %8s", "-");
    else printf(" %7.1f%%", 100 * c.scatter);
    if (s->pts.count < 3) printf(" %8s", "-");
    else printf(" %8d", c.outliers);
    printf("  %s\n", s->line[0] ? s->line : "-");
  }
  if (uncal)
    printf("# %d model%s not calibrated: fewer than 3 sizes, or points scattering by more than %.0f %% about the\n"
           "# smoothed function ('fupermod model show' says which)\n",
           uncal, uncal == 1 ? "" : "s", 100 * FUPERMOD_CALIB_SCATTER);
  free_list(list, n);
  return 0;
}

/* The stored models named by args (files, or HOST.RANK found under dir). */
static int resolve(int nargs, char **args, const char *dir, const fupermod_conf *conf, stored **out, int *count) {
  stored *all = NULL, *sel = NULL;
  int n = 0, cap = 0, k = 0, rc = FUPERMOD_SUCCESS, scanned = 0;
  for (int a = 0; a < nargs && rc == FUPERMOD_SUCCESS; a++) {
    struct stat st;
    int found = 0;
    if (stat(args[a], &st) == 0 && S_ISREG(st.st_mode)) {
      stored *g = realloc(sel, (size_t)(k + 1) * sizeof *g);
      if (!g) {
        rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
        break;
      }
      sel = g;
      rc = read_stored(args[a], conf, &sel[k++]);
      continue;
    }
    if (!scanned) {
      scanned = 1;
      if ((rc = scan_dir(dir, 0, conf, &all, &n, &cap)) != FUPERMOD_SUCCESS) break;
    }
    for (int i = 0; i < n; i++) {
      char name[600];
      snprintf(name, sizeof name, "%s.%d", all[i].host, all[i].rank);
      if (strcmp(name, args[a]) != 0) continue;
      stored *g = realloc(sel, (size_t)(k + 1) * sizeof *g);
      if (!g) {
        rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
        break;
      }
      sel = g;
      sel[k++] = all[i];
      memset(&all[i], 0, sizeof all[i]);
      found = 1;
    }
    if (!found && rc == FUPERMOD_SUCCESS)
      rc = fupermod_error(FUPERMOD_ERR_INPUT, "'%s': neither a point file nor a stored model HOST.RANK in %s", args[a], dir);
  }
  free_list(all, n);
  if (rc != FUPERMOD_SUCCESS) {
    free_list(sel, k);
    return rc;
  }
  *out = sel;
  *count = k;
  return FUPERMOD_SUCCESS;
}

static void show_one(const stored *s, long share) {
  fupermod_calib c;
  fupermod_points sm = {0, NULL, 0};
  double scatter = NAN, escatter = NAN, *cx = malloc((size_t)s->pts.count * sizeof *cx);
  const fupermod_points *p = &s->pts;
  char date[32];
  int have_sm = smoothed(p, &sm, &scatter, &escatter), *keep = malloc((size_t)p->count * sizeof *keep);
  int outliers = keep ? fupermod_points_outliers(p, FUPERMOD_CALIB_OUTLIER_K, keep) : -1;
  if (cx) complexities(s, cx);
  print_date(s->mtime, date, sizeof date);
  fupermod_calib_check(p, share, &c);
  printf("# model %s\n# host %s, rank %d, kernel %s%s%s, measured %s\n", s->path, s->host, s->rank,
         s->kernel[0] ? s->kernel : "-", s->kopts[0] ? " " : "", s->kopts, date);
  printf("# configuration: %s\n# energy: %s\n", s->line[0] ? s->line : "-", s->energy[0] ? s->energy : "none");
  printf("# %d sizes, d from %ld to %ld\n", p->count, p->pts[0].d, p->pts[p->count - 1].d);
  if (share > 0)
    printf("# calibrated at share %ld: %s%s%s (%d measured sizes within a factor of %g)\n", share,
           c.calibrated ? "yes" : "no", c.calibrated ? "" : ": ", c.why, c.near, FUPERMOD_CALIB_FACTOR);
  else
    printf("# calibrated: %s%s%s\n", c.calibrated ? "yes" : "no", c.calibrated ? "" : ": ", c.why);
  printf("# scatter about the smoothed function (local fits, --smooth %d, outlying points left out): %.2f %%\n",
         FUPERMOD_CALIB_WINDOW, 100 * c.scatter);
  if (outliers >= 0)
    printf("# outlying points (time off its neighbours' median speed by more than %g MADs x 1.4826): %d\n", FUPERMOD_CALIB_OUTLIER_K,
           outliers);
  {
    int rej = 0, sizes = 0;
    for (int i = 0; i < p->count; i++) {
      rej += p->pts[i].rejected;
      sizes += p->pts[i].rejected > 0;
    }
    printf("# outlying repetitions rejected by the benchmark (column rej, not in reps): %d in %d size%s\n", rej, sizes,
           sizes == 1 ? "" : "s");
  }
  printf("# %10s %12s %5s %11s %11s %11s %12s %11s %8s %9s %4s\n", "d", "t (s)", "reps", "ci (s)", "e (J)", "e_ci (J)",
         "smooth t(s)", "pi 95% (s)", "resid", "GFLOP/s", "rej");
  for (int i = 0; i < p->count; i++) {
    const fupermod_point *q = &p->pts[i];
    printf("  %10ld %12.6g %5d %11.3g", q->d, q->t, q->reps, q->ci);
    if (q->e >= 0) printf(" %11.6g %11.3g", q->e, q->e_ci);
    else printf(" %11s %11s", "-", "-");
    if (have_sm) printf(" %12.6g %11.3g %7.1f%%", sm.pts[i].t, sm.pts[i].ci, 100 * (q->t - sm.pts[i].t) / sm.pts[i].t);
    else printf(" %12s %11s %8s", "-", "-", "-");
    if (cx && isfinite(cx[i])) printf(" %9.4g", cx[i] / q->t * 1e-9);
    else printf(" %9s", "-");
    printf(" %4d", q->rejected);
    printf("%s%s\n", fupermod_point_imprecise(q) ? "  imprecise" : "", outliers > 0 && !keep[i] ? "  outlier" : "");
  }
  fupermod_points_free(&sm);
  free(keep);
  free(cx);
}

/* One data file per model: d t speed GFLOP/s e power speed-per-watt ('?' where unknown). */
static int plot_models(const stored *s, int n, const char *dir) {
  char path[4200];
  fupermod_atomic_file af;
  int rc, flops = 1, energy = 1;
  if ((rc = fupermod_mkdir_p(dir)) != FUPERMOD_SUCCESS) return rc;
  for (int i = 0; i < n; i++) {
    double *cx = malloc((size_t)s[i].pts.count * sizeof *cx);
    if (!cx) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
    complexities(&s[i], cx);
    for (int k = 0; k < s[i].pts.count; k++) flops &= isfinite(cx[k]) && cx[k] > 0;
    energy &= s[i].pts.has_energy;
    snprintf(path, sizeof path, "%s/model%d.dat", dir, i);
    if ((rc = fupermod_atomic_open(&af, path)) != FUPERMOD_SUCCESS) {
      free(cx);
      return rc;
    }
    fprintf(af.fp, "# %s (%s.%d): d t(s) speed(units/s) GFLOP/s e(J) power(W) GFLOP/s-per-W units/s-per-W\n",
            s[i].path, s[i].host, s[i].rank);
    for (int k = 0; k < s[i].pts.count; k++) {
      const fupermod_point *q = &s[i].pts.pts[k];
      double sp = q->d / q->t, gf = cx[k] / q->t * 1e-9, w = q->e >= 0 ? q->e / q->t : NAN;
      fprintf(af.fp, "%ld %.9g %.9g", q->d, q->t, sp);
      if (isfinite(gf)) fprintf(af.fp, " %.9g", gf);
      else fprintf(af.fp, " ?");
      if (q->e >= 0) fprintf(af.fp, " %.9g %.9g", q->e, w);
      else fprintf(af.fp, " ? ?");
      if (w > 0 && isfinite(gf)) fprintf(af.fp, " %.9g", gf / w);
      else fprintf(af.fp, " ?");
      if (w > 0) fprintf(af.fp, " %.9g\n", sp / w);
      else fprintf(af.fp, " ?\n");
    }
    free(cx);
    if ((rc = fupermod_atomic_commit(&af)) != FUPERMOD_SUCCESS) return rc;
  }
  snprintf(path, sizeof path, "%s/models.gp", dir);
  if ((rc = fupermod_atomic_open(&af, path)) != FUPERMOD_SUCCESS) return rc;
  fprintf(af.fp, "set terminal pngcairo size 900,600 noenhanced\nset datafile missing '?'\nset grid\nset key outside right\n"
                 "set xlabel 'problem size d (units)'\n");
  {
    static const struct {
      const char *png, *title, *ylabel;
      int col, need_energy;
    } pl[] = {{"time", "time", "time (s)", 2, 0},
              {"speed", "speed", "", 0, 0},
              {"energy", "dynamic energy", "dynamic energy (J)", 5, 1},
              {"power", "dynamic power", "dynamic power (W)", 6, 1},
              {"efficiency", "speed per watt", "", 0, 1}};
    for (size_t j = 0; j < sizeof pl / sizeof pl[0]; j++) {
      int col = pl[j].col;
      const char *yl = pl[j].ylabel;
      if (pl[j].need_energy && !energy) continue;
      if (j == 1) {
        col = flops ? 4 : 3;
        yl = flops ? "speed (GFLOP/s)" : "speed (units/s)";
      } else if (j == 4) {
        col = flops ? 7 : 8;
        yl = flops ? "GFLOP/s per watt" : "units/s per watt";
      }
      fprintf(af.fp, "set output '%s/%s.png'\nset title 'models: %s'\nset ylabel '%s'\nplot ", dir, pl[j].png,
              pl[j].title, yl);
      for (int i = 0; i < n; i++) {
        char style[64], same[300] = "";
        int k = 0;
        while (k < i && !tool_points_equal(&s[k].pts, &s[i].pts)) k++;
        if (k < i) snprintf(same, sizeof same, ", the same as %s.%d", s[k].host, s[k].rank);
        fprintf(af.fp, "%s'%s/model%d.dat' using 1:%d with linespoints ps 0.6 %s title '%s.%d%s'", i ? ", " : "",
                dir, i, col, tool_plot_style(style, sizeof style, i), s[i].host, s[i].rank, same);
      }
      fprintf(af.fp, "\n");
    }
  }
  if ((rc = fupermod_atomic_commit(&af)) != FUPERMOD_SUCCESS) return rc;
  printf("# %d models plotted in %s: time.png, speed.png (%s)%s; data model0.dat..., script models.gp\n", n, dir,
         flops ? "GFLOP/s" : "units/s: no kernel complexity", energy ? ", energy.png, power.png, efficiency.png" : " (no energy)");
  if (tool_gnuplot(path) != 0) fprintf(stderr, "fupermod model: gnuplot not available or failed; the plot script is %s\n", path);
  return FUPERMOD_SUCCESS;
}

static int cmd_browse(int argc, char **argv) {
  static const struct option opts[] = {{"data", required_argument, NULL, 'd'}, {"conf", required_argument, NULL, 'c'},
                                       {"share", required_argument, NULL, 's'}, {"out", required_argument, NULL, 'o'},
                                       {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
  const char *what = argv[1], *dir = "fupermod-run", *confpath = NULL, *out = NULL;
  long share = 0;
  int c, rc, status = 0, n = 0;
  fupermod_conf conf;
  stored *sel = NULL;
  optind = 0; /* a full reset of glibc's getopt: the parse may run more than once per process */
  while ((c = getopt_long(argc - 1, argv + 1, "h", opts, NULL)) != -1) {
    switch (c) {
    case 'd': dir = optarg; break;
    case 'c': confpath = optarg; break;
    case 'o': out = optarg; break;
    case 's':
      if (fupermod_parse_long(optarg, &share) || share < 1) return tool_usage(SUB, "--share '%s' must be an integer >= 1", optarg);
      break;
    case 'h': help(); return 0;
    default: return tool_bad_option(SUB, argv, "m:D:n:h", opts);
    }
  }
  optind++; /* past the subcommand */
  if (strcmp(what, "list") == 0 && optind < argc) return tool_usage(SUB, "list takes no arguments, got '%s'", argv[optind]);
  if (strcmp(what, "show") == 0 && optind >= argc) return tool_usage(SUB, "show: name a point file or HOST.RANK");
  if (strcmp(what, "plot") == 0 && !out) return tool_usage(SUB, "plot needs --out DIR");
  if (share && strcmp(what, "show") != 0) return tool_usage(SUB, "--share applies to show only");
  if (confpath && (rc = fupermod_conf_load(confpath, &conf)) != FUPERMOD_SUCCESS) return tool_fail(SUB, rc);
  if (strcmp(what, "list") == 0) status = model_list(dir, confpath ? &conf : NULL);
  else {
    if (optind < argc) rc = resolve(argc - optind, argv + optind, dir, confpath ? &conf : NULL, &sel, &n);
    else {
      int cap = 0;
      rc = scan_dir(dir, 0, confpath ? &conf : NULL, &sel, &n, &cap);
      if (rc == FUPERMOD_SUCCESS && n == 0) rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s: no point files (*.points)", dir);
    }
    if (rc == FUPERMOD_SUCCESS && strcmp(what, "show") == 0)
      for (int i = 0; i < n; i++) {
        if (i) printf("\n");
        show_one(&sel[i], share);
      }
    else if (rc == FUPERMOD_SUCCESS) rc = plot_models(sel, n, out);
    if (rc != FUPERMOD_SUCCESS) status = tool_fail(SUB, rc);
    free_list(sel, n);
  }
  if (confpath) fupermod_conf_free(&conf);
  return status;
}

/* fupermod model history [DIR]: fupermod run's launches on DIR (tools/run_history.h) */
static int cmd_history(int argc, char **argv) {
  int rc;
  if (argc > 2 && (strcmp(argv[2], "--help") == 0 || strcmp(argv[2], "-h") == 0)) {
    help();
    return 0;
  }
  if (argc > 3) return tool_usage(SUB, "history takes one directory (fupermod run --out DIR), got '%s'", argv[3]);
  if (argc > 2 && argv[2][0] == '-') return tool_usage(SUB, "history: unknown option '%s'", argv[2]);
  if ((rc = tool_history_print(argc > 2 ? argv[2] : "fupermod-run")) != FUPERMOD_SUCCESS) return tool_fail(SUB, rc);
  return 0;
}

int cmd_model(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "history") == 0) return cmd_history(argc, argv);
  if (argc > 1 && (strcmp(argv[1], "list") == 0 || strcmp(argv[1], "show") == 0 || strcmp(argv[1], "plot") == 0))
    return cmd_browse(argc, argv);
  return cmd_fit(argc, argv);
}
