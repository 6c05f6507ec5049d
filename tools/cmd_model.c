/* fupermod model: fit a model to point files, print it, and plot speed and time with gnuplot. */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "tools/tools.h"

static const char *SUB = "model";

static void help(void) {
  printf("usage: fupermod model [-m TYPE] [-D N] [-n K] [--plot DIR] FILE...\n\n"
         "Fits a model to each point file and prints time, speed (and energy) at the measured sizes\n"
         "and K evenly spaced sizes (default 10). Options:\n"
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
            pass ? "time (s)" : "speed (complexity units/s)");
    fprintf(af.fp, "set title '%s model: %s'\nplot ", type, pass ? "time" : "speed");
    for (int i = 0; i < n; i++)
      fprintf(af.fp, "%s'%s/model%d.dat' index 0 using 1:%d with points pt 7 ps 0.6 lc %d title '%s points', "
                     "'%s/model%d.dat' index 1 using 1:%d with lines lw 2 lc %d title '%s model'",
              i ? ", " : "", dir, i, pass ? 2 : 3, i + 1, base(files[i]), dir, i, pass ? 2 : 3, i + 1,
              base(files[i]));
    fprintf(af.fp, "\n");
  }
  if ((rc = fupermod_atomic_commit(&af)) != FUPERMOD_SUCCESS) return rc;
  if (tool_gnuplot(path) != 0)
    fprintf(stderr, "fupermod model: gnuplot not available or failed; the plot script is %s\n", path);
  else
    fprintf(stderr, "fupermod model: plots in %s/speed.png and %s/time.png\n", dir, dir);
  return FUPERMOD_SUCCESS;
}

int cmd_model(int argc, char **argv) {
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
    default: return tool_usage(SUB, "unknown option");
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
           "speed", energy ? "          e (J)" : "", "");
    for (long k = 0; k < p->count + K; k++) {
      double x = k < p->count ? (double)p->pts[k].d : lo + (double)(hi - lo) * (double)(k - p->count + 1) / (double)(K + 1);
      printf("  %12.6g %14.8g %14.8g", x, fupermod_model_time(models[i], x), fupermod_model_speed(models[i], x));
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
