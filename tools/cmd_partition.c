/* fupermod partition: the command-line contract of every partitioner (docs/tools.md). */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "partitioners/partitioners.h"
#include "partitioners/paraleph.h"
#include "tools/tools.h"
#ifndef TOOL_LEAN
#include "tools/mpi_init.h"
#endif

static const char *SUB = "partition";

#ifndef TOOL_LEAN
static void help(void) {
  printf("usage: fupermod partition -a ALGO -D N [-p P] [--static-power W] [--json] [-o FILE]\n"
         "                          [-F max|sum|pareto|pareto-total] [--faithful] [-m MODEL] FILE...\n"
         "       fupermod partition -a ALGO -D N --conf CONF --data DIR ...\n\n"
         "paraleph runs on every process of the job: mpirun -np K fupermod partition -a paraleph ...\n"
         "FILE... are point files, one per processor in rank order; with one FILE, -p P uses it for P\n"
         "processors. Options:\n"
         "  -a, --algorithm ALGO   partitioning algorithm (list below)\n"
         "  -D N                   number of computation units to distribute (>= 0)\n"
         "  -p P                   number of processors sharing one FILE\n"
         "  -F max|sum|pareto|pareto-total   objective of dp and paraleph (default max)\n"
         "  --static-power W       static power of the platform in watts (htpopta, pareto-total)\n"
         "  --threads T            OpenMP threads per process (paraleph; default: OMP_NUM_THREADS)\n"
         "  --smooth W             partition smoothed functions, as fupermod run does: local fits of log\n"
         "                         time over the measured sizes near each, weighted as 2W+1 sizes\n"
         "                         around it and within a factor of 4 (docs/models.md)\n"
         "  --faithful             reproduce the printed algorithm instead of the exact one\n"
         "  -m MODEL               model type for continuous algorithms (default: the algorithm's)\n"
         "  --json                 print JSON on stdout\n"
         "  -o FILE                write the distribution file (fronts: FILE.0, FILE.1, ... by time)\n"
         "  --layout FILE --blocks MxN   the units are the M x N blocks of a matrix (D = M N): write the\n"
         "                         BR layout of the time-optimal distribution, its sizes fitted to the\n"
         "                         functions, to FILE (fupermod-summa -L FILE); the distribution printed\n"
         "                         and written is the layout's areas (docs/matrix.md)\n"
         "  --conf CONF --data DIR read the point files a build wrote for CONF\n\n"
         "algorithms:\n");
  for (const fupermod_partitioner *const *a = fupermod_partitioners(); *a; a++)
    printf("  %-10s %s\n", (*a)->name, (*a)->description);
  printf("\nBelow each table: the load-balance efficiency (mean over max of the predicted times), why a\n"
         "process is idle, and a warning for a share on an uncalibrated model (docs/models.md).\n");
  printf("\nexit status: 0 ok, 1 bad input, 2 usage, 3 no feasible distribution\n");
}
#endif

static void print_parts_json(FILE *fp, const fupermod_dist *d, int energy) {
  fputs("\"parts\":[", fp);
  for (int i = 0; i < d->size; i++) {
    fprintf(fp, "%s{\"d\":%ld,\"t\":", i ? "," : "", d->parts[i].d);
    json_number(fp, d->parts[i].t);
    if (energy) {
      fputs(",\"e\":", fp);
      json_number(fp, d->parts[i].e);
    }
    fputc('}', fp);
  }
  fputc(']', fp);
}

static void print_table(const fupermod_dist *d, int energy) {
  printf("  %6s %12s %14s%s\n", "rank", "d", "t (s)", energy ? "          e (J)" : "");
  for (int i = 0; i < d->size; i++) {
    printf("  %6d %12ld %14.6g", i, d->parts[i].d, d->parts[i].t);
    if (energy) printf(" %14.6g", d->parts[i].e);
    printf("\n");
  }
}

/* Notes of each kind printed one by one, the rest counted: each idle note costs a pass over the
 * distribution, and -p may give hundreds of thousands of processes. */
#define NOTES_MAX 16

/* What the predictions say beyond the table: the balance, why a process is idle, and which
 * shares rest on an uncalibrated model (fupermod/calib.h). */
static void print_notes(const fupermod_dist *d, const fupermod_points *const *f, int energy_objective) {
  char why[512];
  int idle = 0, warned = 0;
  printf("  load-balance efficiency %.3f (mean over max of the predicted times, idle processes at 0)\n",
         fupermod_dist_efficiency(d));
  for (int i = 0; f && i < d->size; i++) {
    fupermod_calib c;
    if (d->parts[i].d == 0) {
      if (idle++ < NOTES_MAX && fupermod_dist_idle_reason(d, i, f[i], energy_objective, why, sizeof why) == FUPERMOD_SUCCESS)
        printf("  process %d idle: %s\n", i, why);
    } else if (fupermod_calib_check(f[i], d->parts[i].d, &c) == FUPERMOD_SUCCESS && !c.calibrated) {
      if (warned++ < NOTES_MAX)
        printf("  warning: process %d's model is not calibrated at d=%ld: %s\n", i, d->parts[i].d, c.why);
    }
  }
  if (idle > NOTES_MAX) printf("  ... and %d more processes idle\n", idle - NOTES_MAX);
  if (warned > NOTES_MAX) printf("  ... and %d more processes on models not calibrated at their shares\n", warned - NOTES_MAX);
  if (warned) printf("  (an uncalibrated prediction is not to be trusted: measure more sizes near the share)\n");
}

static int parse_objective(const char *s, int *obj) {
  if (strcmp(s, "max") == 0) *obj = FUPERMOD_OBJ_TIME;
  else if (strcmp(s, "sum") == 0) *obj = FUPERMOD_OBJ_ENERGY;
  else if (strcmp(s, "pareto") == 0) *obj = FUPERMOD_OBJ_PARETO;
  else if (strcmp(s, "pareto-total") == 0) *obj = FUPERMOD_OBJ_PARETO_TOTAL;
  else return -1;
  return 0;
}

static int output_single(const char *name, long D, const fupermod_dist *dist, int has_energy, int json,
                         const char *out, const fupermod_points *const *f, int energy_objective) {
  int rc;
  if (json) {
    printf("{\"algorithm\":");
    json_string(stdout, name);
    printf(",\"D\":%ld,\"time\":", D);
    json_number(stdout, fupermod_dist_time(dist));
    if (has_energy) {
      printf(",\"energy\":");
      json_number(stdout, fupermod_dist_energy(dist));
    }
    putchar(',');
    print_parts_json(stdout, dist, has_energy);
    printf("}\n");
  } else {
    printf("%s: D=%ld over %d processors, time %.6g s", name, D, dist->size, fupermod_dist_time(dist));
    if (has_energy) printf(", energy %.6g J", fupermod_dist_energy(dist));
    printf("\n");
    print_table(dist, has_energy);
    print_notes(dist, f, energy_objective);
  }
  if (out && (rc = fupermod_dist_save(out, dist, name)) != FUPERMOD_SUCCESS) return tool_fail(SUB, rc);
  return 0;
}

static int output_front(const fupermod_partitioner *alg, long D, const fupermod_front *front, int json,
                        const char *out, int total, const fupermod_points *const *f) {
  int rc = FUPERMOD_SUCCESS;
  if (json) {
    printf("{\"algorithm\":");
    json_string(stdout, alg->name);
    printf(",\"D\":%ld,\"front\":[", D);
    for (int k = 0; k < front->count; k++) {
      const fupermod_front_point *fp = &front->points[k];
      printf("%s{\"time\":", k ? "," : "");
      json_number(stdout, fp->time);
      printf(",\"energy\":");
      json_number(stdout, fp->energy);
      if (total) {
        printf(",\"dynamic_energy\":");
        json_number(stdout, fp->dynamic_energy);
      }
      putchar(',');
      print_parts_json(stdout, fp->dist, 1);
      putchar('}');
    }
    printf("]}\n");
  } else {
    printf("%s: D=%ld, Pareto front of %d points (time, energy)\n", alg->name, D, front->count);
    for (int k = 0; k < front->count; k++) {
      printf("point %d: time %.6g s, energy %.6g J\n", k, front->points[k].time, front->points[k].energy);
      print_table(front->points[k].dist, 1);
      print_notes(front->points[k].dist, f, 1);
    }
  }
  for (int k = 0; out && k < front->count; k++) {
    char path[4096];
    snprintf(path, sizeof path, "%s.%d", out, k);
    if ((rc = fupermod_dist_save(path, front->points[k].dist, alg->name)) != FUPERMOD_SUCCESS) break;
  }
  return rc != FUPERMOD_SUCCESS ? tool_fail(SUB, rc) : 0;
}

/* --smooth W (tools/tools.h) */
int tool_smooth_points(fupermod_points *pts, int n, long w) {
  for (int i = 0; w > 0 && i < n; i++) {
    fupermod_points sm;
    int rc = fupermod_points_smooth(&pts[i], (int)w, 0.95, &sm, NULL, NULL);
    if (rc != FUPERMOD_SUCCESS) return rc;
    fupermod_points_free(&pts[i]);
    pts[i] = sm;
  }
  return FUPERMOD_SUCCESS;
}

/* --blocks M or MxN */
static int parse_blocks(const char *s, int *M, int *N) {
  char buf[64], *x;
  long m, n;
  if (strlen(s) >= sizeof buf) return -1;
  strcpy(buf, s);
  if ((x = strchr(buf, 'x'))) *x++ = '\0';
  if (fupermod_parse_long(buf, &m) || m < 1 || m > 1000000) return -1;
  if (x && (fupermod_parse_long(x, &n) || n < 1 || n > 1000000)) return -1;
  *M = (int)m;
  *N = x ? (int)n : (int)m;
  return 0;
}

#ifndef TOOL_LEAN
/* the function at an area, as fupermod run predicts it (fupermod_points_interpolate) */
static double fit_time(int i, long area, void *ctx) {
  const fupermod_points *const *f = ctx;
  double t, e;
  fupermod_points_interpolate(f[i], (double)area, &t, &e);
  return t;
}

/* --layout: the BR layout of dist's areas on M x N blocks with its sizes fitted to the functions
 * (fupermod_layout_fit), written to file; dist becomes the layout's areas and their predictions. */
static int layout_out(const char *file, int M, int N, const fupermod_points *const *f, int has_energy,
                      fupermod_dist *dist) {
  int p = dist->size, rc;
  double tmax = 0.0;
  fupermod_layout *l = NULL;
  char comment[128];
  rc = tool_dist_layout(dist, M, N, fit_time, (void *)f, &l, &tmax);
  if (rc == FUPERMOD_SUCCESS) {
    snprintf(comment, sizeof comment, "BR layout fitted to the functions: predicted time %.6g s", tmax);
    rc = fupermod_layout_save(file, l, comment);
  }
  for (int i = 0; rc == FUPERMOD_SUCCESS && i < p; i++) {
    long d = dist->parts[i].d;
    double t = 0.0, e = 0.0;
    if (d > 0) fupermod_points_interpolate(f[i], (double)d, &t, &e);
    dist->parts[i].t = t;
    dist->parts[i].e = d == 0 || !has_energy ? 0.0 : e;
  }
  fupermod_layout_free(l);
  return rc;
}

/* paraleph under mpirun: inputs are read on rank 0 and broadcast by the partitioner itself. */
static int run_paraleph(const fupermod_partitioner *alg, int nf, char **files, const char *conf, const char *data,
                        long D, long P, int objective, double static_power, int threads, int json, const char *out,
                        const char *layout, int M, int N, long smooth) {
  int rank, rc = FUPERMOD_SUCCESS, status = 0, has_energy = 1, n = 0, p = 0;
  fupermod_points *pts = NULL;
  const fupermod_points **f = NULL;
  fupermod_dist *dist = NULL;
  fupermod_front front = {0, NULL};
  if ((status = tool_mpi_init(SUB, NULL, NULL, TOOL_MPI_LEVEL)) != 0) return status;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    rc = tool_load_points(nf, files, conf, data, &pts, &n);
    if (rc == FUPERMOD_SUCCESS) rc = tool_smooth_points(pts, n, smooth);
    if (rc == FUPERMOD_SUCCESS) {
      p = P > 0 ? (int)P : n;
      if (!(f = malloc((size_t)p * sizeof *f))) rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
      for (int i = 0; f && i < p; i++) {
        f[i] = &pts[P > 0 ? 0 : i];
        if (!f[i]->has_energy) has_energy = 0;
      }
    }
    if (rc == FUPERMOD_SUCCESS && objective != FUPERMOD_OBJ_TIME && !has_energy)
      rc = fupermod_error(FUPERMOD_ERR_INPUT, "paraleph -F %s: the point files carry no energy (columns e e_ci)",
                          objective == FUPERMOD_OBJ_ENERGY ? "sum" : "pareto");
  }
  MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Bcast(&has_energy, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (rc != FUPERMOD_SUCCESS) {
    if (rank == 0) status = tool_fail(SUB, rc);
    else status = fupermod_exit_status(rc);
  } else {
    fupermod_problem prob = {D, p, f, static_power, 0, objective};
    if (objective == FUPERMOD_OBJ_PARETO || objective == FUPERMOD_OBJ_PARETO_TOTAL)
      rc = fupermod_paraleph_pareto(MPI_COMM_WORLD, 0, rank == 0 ? &prob : NULL, objective, threads, &front, NULL);
    else
      rc = fupermod_paraleph(MPI_COMM_WORLD, 0, rank == 0 ? &prob : NULL, objective, threads, &dist, NULL);
    if (rc == FUPERMOD_SUCCESS && rank == 0 && dist && layout) rc = layout_out(layout, M, N, f, has_energy, dist);
    if (rc != FUPERMOD_SUCCESS) status = rank == 0 ? tool_fail(SUB, rc) : fupermod_exit_status(rc);
    else if (rank == 0)
      status = dist ? output_single(alg->name, D, dist, has_energy, json, out, f, objective == FUPERMOD_OBJ_ENERGY)
                    : output_front(alg, D, &front, json, out, objective == FUPERMOD_OBJ_PARETO_TOTAL, f);
  }
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  fupermod_dist_free(dist);
  fupermod_front_free(&front);
  free(f);
  for (int i = 0; pts && i < n; i++) fupermod_points_free(&pts[i]);
  free(pts);
  MPI_Finalize();
  return status;
}
#endif

int cmd_partition(int argc, char **argv) {
  static const struct option opts[] = {
    {"algorithm", required_argument, NULL, 'a'}, {"json", no_argument, NULL, 'j'},
    {"static-power", required_argument, NULL, 's'}, {"faithful", no_argument, NULL, 'f'},
    {"conf", required_argument, NULL, 'c'}, {"data", required_argument, NULL, 'd'},
    {"threads", required_argument, NULL, 't'}, {"help", no_argument, NULL, 'h'},
    {"layout", required_argument, NULL, 'L'}, {"blocks", required_argument, NULL, 'B'},
    {"smooth", required_argument, NULL, 'S'}, {NULL, 0, NULL, 0}};
  long threads = 0, smooth = 0;
  const char *algname = NULL, *out = NULL, *conf = NULL, *data = NULL, *model_type = NULL, *layout = NULL;
  int M = 0, N = 0;
  long D = -1, P = 0;
  double static_power = 0.0;
  int json = 0, faithful = 0, objective = FUPERMOD_OBJ_TIME, objective_set = 0, c, rc, nf = 0, p = 0;
  int static_power_set = 0; /* 0 W is a valid platform: only a missing option is an error */
  int has_energy, status = 0;
  fupermod_points *pts = NULL;
  const fupermod_points **f = NULL;
  const fupermod_partitioner *alg;
  fupermod_dist *dist = NULL;
  fupermod_front front = {0, NULL};
  fupermod_model **models = NULL;

  optind = 0; /* a full reset of glibc's getopt: the parse may run more than once per process */
  while ((c = getopt_long(argc, argv, "a:D:p:o:F:m:h", opts, NULL)) != -1) {
    switch (c) {
    case 'a': algname = optarg; break;
    case 'D':
      if (fupermod_parse_long(optarg, &D) || D < 0) return tool_usage(SUB, "-D '%s' must be an integer >= 0", optarg);
      break;
    case 'p':
      if (fupermod_parse_long(optarg, &P) || P < 1 || P > 1000000)
        return tool_usage(SUB, "-p '%s' must be an integer >= 1", optarg);
      break;
    case 'o': out = optarg; break;
    case 'F':
      if (parse_objective(optarg, &objective)) return tool_usage(SUB, "-F '%s' must be max, sum, pareto or pareto-total", optarg);
      objective_set = 1;
      break;
    case 'm': model_type = optarg; break;
    case 'j': json = 1; break;
    case 's':
      if (fupermod_parse_double(optarg, &static_power) || static_power < 0)
        return tool_usage(SUB, "--static-power '%s' must be a number >= 0 (W)", optarg);
      static_power_set = 1;
      break;
    case 'f': faithful = 1; break;
    case 't':
      if (fupermod_parse_long(optarg, &threads) || threads < 1 || threads > 4096)
        return tool_usage(SUB, "--threads '%s' must be an integer >= 1", optarg);
      break;
    case 'c': conf = optarg; break;
    case 'd': data = optarg; break;
    case 'L': layout = optarg; break;
    case 'S':
      if (fupermod_parse_long(optarg, &smooth) || smooth < 0 || smooth > 1000)
        return tool_usage(SUB, "--smooth '%s' must be an integer in 0..1000", optarg);
      break;
    case 'B':
      if (parse_blocks(optarg, &M, &N)) return tool_usage(SUB, "--blocks '%s' must be M or MxN, integers >= 1", optarg);
      break;
#ifdef TOOL_LEAN
    case 'h': return tool_exec_full(); /* the full command lists paraleph too */
#else
    case 'h': help(); return 0;
#endif
    default: return tool_usage(SUB, "unknown option");
    }
  }
#ifdef TOOL_LEAN
  /* the front command reads point files only; a configuration or a layout needs the full command */
  if (conf || data || layout) return tool_exec_full();
#endif
  if (!algname) return tool_usage(SUB, "no algorithm given (-a ALGO)");
  if (!(alg = fupermod_partitioner_find(algname))) {
#ifdef TOOL_LEAN
    return tool_exec_full(); /* paraleph (MPI), or unknown: the full command says which */
#endif
    fprintf(stderr, "fupermod partition: unknown algorithm '%s'; known:", algname);
    for (const fupermod_partitioner *const *a = fupermod_partitioners(); *a; a++) fprintf(stderr, " %s", (*a)->name);
    fprintf(stderr, "\n");
    return 2;
  }
  if (D < 0) return tool_usage(SUB, "no problem size given (-D N)");
  nf = argc - optind;
  if (P > 0 && (nf != 1 || conf)) return tool_usage(SUB, "-p needs exactly one point file");
  if (objective_set && strcmp(alg->name, "dp") != 0 && strcmp(alg->name, "paraleph") != 0)
    return tool_usage(SUB, "-F applies to dp and paraleph only");
  if (!layout != !M) return tool_usage(SUB, "--layout and --blocks go together");
  if (layout && (long)M * N != D) return tool_usage(SUB, "--blocks %dx%d makes %ld blocks, not -D %ld", M, N, (long)M * N, D);
  if (layout && (objective != FUPERMOD_OBJ_TIME || alg->kind == FUPERMOD_PART_PARETO || alg->needs_energy))
    return tool_usage(SUB, "--layout fits the sizes to time: it takes a time partitioner (-F max), not %s", alg->name);
#ifndef TOOL_LEAN
  if (strcmp(alg->name, "paraleph") == 0) {
    if (!static_power_set && objective == FUPERMOD_OBJ_PARETO_TOTAL)
      return tool_usage(SUB, "-F pareto-total needs --static-power W (>= 0)");
    return run_paraleph(alg, nf, argv + optind, conf, data, D, P, objective, static_power, (int)threads, json, out,
                        layout, M, N, smooth);
  }
#endif
#ifdef TOOL_LEAN
  rc = tool_load_files(nf, argv + optind, &pts, &nf);
#else
  rc = tool_load_points(nf, argv + optind, conf, data, &pts, &nf);
#endif
  if (rc == FUPERMOD_SUCCESS) rc = tool_smooth_points(pts, nf, smooth);
  if (rc != FUPERMOD_SUCCESS) {
    status = tool_fail(SUB, rc);
    goto done;
  }
  p = P > 0 ? (int)P : nf;
  f = malloc((size_t)p * sizeof *f);
  if (!f) {
    status = tool_fail(SUB, fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory"));
    goto done;
  }
  has_energy = 1;
  for (int i = 0; i < p; i++) {
    f[i] = &pts[P > 0 ? 0 : i];
    if (!f[i]->has_energy) has_energy = 0;
  }
  if (!(dist = fupermod_dist_alloc(D, p))) {
    status = tool_fail(SUB, FUPERMOD_ERR_USAGE);
    goto done;
  }
  if (alg->kind == FUPERMOD_PART_CONTINUOUS) {
    const char *type = model_type ? model_type : alg->model_type;
    models = calloc((size_t)p, sizeof *models);
    for (int i = 0; models && i < p; i++)
      if ((rc = fupermod_model_create(type, f[i], D, &models[i])) != FUPERMOD_SUCCESS) {
        status = tool_fail(SUB, rc);
        goto done;
      }
    rc = alg->continuous(p, models, dist);
  } else {
    fupermod_problem prob = {D, p, f, static_power, faithful, objective};
    int pareto = alg->kind == FUPERMOD_PART_PARETO ||
                 (alg->pareto && (objective == FUPERMOD_OBJ_PARETO || objective == FUPERMOD_OBJ_PARETO_TOTAL));
    if (alg->needs_static_power && !static_power_set) {
      status = tool_usage(SUB, "%s needs --static-power W (>= 0)", alg->name);
      goto done;
    }
    /* the library's partitioners check the problem first thing: a second pass over every point
     * only for the others */
    if (!fupermod_partitioner_builtin(alg) && (rc = fupermod_problem_check(&prob, alg)) != FUPERMOD_SUCCESS) {
      status = tool_fail(SUB, rc);
      goto done;
    }
    if ((objective == FUPERMOD_OBJ_ENERGY || pareto) && !has_energy) {
      status = tool_fail(SUB, fupermod_error(FUPERMOD_ERR_INPUT, "%s: the point files carry no energy (columns e e_ci)", alg->name));
      goto done;
    }
    rc = pareto ? alg->pareto(&prob, &front) : alg->discrete(&prob, dist);
    if (rc == FUPERMOD_SUCCESS && pareto) {
      status = output_front(alg, D, &front, json, out, objective == FUPERMOD_OBJ_PARETO_TOTAL || alg->needs_static_power, f);
      goto done;
    }
  }
  if (rc != FUPERMOD_SUCCESS) {
    status = tool_fail(SUB, rc);
    goto done;
  }
#ifndef TOOL_LEAN
  if (layout && (rc = layout_out(layout, M, N, f, has_energy, dist)) != FUPERMOD_SUCCESS) {
    status = tool_fail(SUB, rc);
    goto done;
  }
#endif
  status = output_single(alg->name, D, dist, has_energy, json, out, f,
                         objective == FUPERMOD_OBJ_ENERGY || strcmp(alg->name, "eopta") == 0 || strcmp(alg->name, "heopta") == 0);
done:
  if (models)
    for (int i = 0; i < p; i++) fupermod_model_free(models[i]);
  free(models);
  fupermod_front_free(&front);
  fupermod_dist_free(dist);
  free(f);
  for (int i = 0; pts && i < nf; i++) fupermod_points_free(&pts[i]);
  free(pts);
  return status;
}
