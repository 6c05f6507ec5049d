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
         "  --grid unit            the exact algorithms choose any share of one unit up to each function's\n"
         "                         largest measured size, on the functions interpolated between the\n"
         "                         measured sizes (fupermod run's predictions); default --grid measured:\n"
         "                         among the measured sizes (docs/evaluation.md)\n"
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
#endif

/* fupermod partition's command line. */
typedef struct {
  const char *algname, *out, *conf, *data, *model_type, *layout;
  long D, P, threads, smooth;
  int M, N; /* --blocks */
  double static_power;
  int static_power_set; /* 0 W is a valid platform: only a missing option is an error */
  int json, faithful, objective, objective_set;
  int unit; /* --grid unit */
} part_args;

/* --grid unit: every function at every size from 1 to its largest, interpolated between the
 * measured ones, so that the exact algorithms choose any share of one unit on the model that
 * fupermod run predicts with and fupermod sweep evaluates on */
static int unit_grid(fupermod_points *pts, int n, int unit) {
  for (int i = 0; unit && i < n; i++) {
    fupermod_points g;
    int rc = tool_unit_points(&pts[i], NULL, &g);
    if (rc != FUPERMOD_SUCCESS) return rc;
    fupermod_points_free(&pts[i]);
    pts[i] = g;
  }
  return FUPERMOD_SUCCESS;
}

/* The most the functions hold: the sum of their largest measured sizes. */
static long largest_sum(int p, const fupermod_points *const *f) {
  long most = 0;
  for (int i = 0; i < p; i++) most += f[i]->count > 0 ? f[i]->pts[f[i]->count - 1].d : 0;
  return most;
}

/* An exact algorithm that found no combination of measured sizes for a D the functions can hold
 * would find one on --grid unit's sizes, which its message cannot know of (the library's). */
static int suggest_unit(const part_args *a, int p, const fupermod_points *const *f, int rc) {
  char msg[1024];
  if (rc != FUPERMOD_ERR_INFEASIBLE || a->unit || a->D > largest_sum(p, f)) return rc;
  snprintf(msg, sizeof msg, "%s", fupermod_error_message());
  return fupermod_error(rc, "%s; or give --grid unit: any share of one unit, up to each function's largest measured "
                        "size", msg);
}

/* --grid unit does not extrapolate: a process at its largest measured size that finishes before the
 * slowest would have taken more work, had larger sizes been measured. */
static void warn_capped(const part_args *a, int p, const fupermod_points *const *f, const fupermod_dist *d) {
  char list[512] = "";
  size_t n = 0;
  int k = 0;
  double tmax = fupermod_dist_time(d);
  for (int i = 0; a->unit && i < p && i < d->size; i++) {
    long cap = f[i]->count > 0 ? f[i]->pts[f[i]->count - 1].d : 0;
    if (d->parts[i].d != cap || !(d->parts[i].t < tmax * (1 - 1e-9))) continue;
    if (k++ < 8 && n < sizeof list)
      n += (size_t)snprintf(list + n, sizeof list - n, "%sprocess %d at d=%ld", k > 1 ? ", " : "", i, cap);
  }
  if (k > 8 && n < sizeof list) snprintf(list + n, sizeof list - n, " and %d more", k - 8);
  if (k)
    fprintf(stderr, "fupermod %s: warning: --grid unit holds each process to its largest measured size, which "
            "held back %s (they finish before the slowest): measure larger sizes for %s, or use a continuous "
            "partitioner (-a geometric or -a numerical), which extrapolates\n", SUB, list, k > 1 ? "them" : "it");
}

enum { GO_ON = -1 }; /* the command goes on; any other value is its exit status */

#ifndef TOOL_LEAN
/* paraleph under mpirun: inputs are read on rank 0 and broadcast by the partitioner itself. */
static int run_paraleph(const fupermod_partitioner *alg, const part_args *a, int nf, char **files) {
  int rank, rc = FUPERMOD_SUCCESS, status = 0, has_energy = 1, n = 0, p = 0;
  fupermod_points *pts = NULL;
  const fupermod_points **f = NULL;
  fupermod_dist *dist = NULL;
  fupermod_front front = {0, NULL};
  if ((status = tool_mpi_init(SUB, NULL, NULL, TOOL_MPI_LEVEL)) != 0) return status;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    rc = tool_load_points(nf, files, a->conf, a->data, &pts, &n);
    if (rc == FUPERMOD_SUCCESS) rc = tool_smooth_points(pts, n, a->smooth);
    if (rc == FUPERMOD_SUCCESS) rc = unit_grid(pts, n, a->unit);
    if (rc == FUPERMOD_SUCCESS) {
      p = a->P > 0 ? (int)a->P : n;
      if (!(f = malloc((size_t)p * sizeof *f))) rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
      for (int i = 0; f && i < p; i++) {
        f[i] = &pts[a->P > 0 ? 0 : i];
        if (!f[i]->has_energy) has_energy = 0;
      }
    }
    if (rc == FUPERMOD_SUCCESS && a->objective != FUPERMOD_OBJ_TIME && !has_energy)
      rc = fupermod_error(FUPERMOD_ERR_INPUT, "paraleph -F %s: the point files carry no energy (columns e e_ci)",
                          a->objective == FUPERMOD_OBJ_ENERGY ? "sum" : "pareto");
  }
  MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Bcast(&has_energy, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (rc != FUPERMOD_SUCCESS) {
    if (rank == 0) status = tool_fail(SUB, rc);
    else status = fupermod_exit_status(rc);
  } else {
    fupermod_problem prob = {a->D, p, f, a->static_power, 0, a->objective};
    int objective = a->objective;
    if (objective == FUPERMOD_OBJ_PARETO || objective == FUPERMOD_OBJ_PARETO_TOTAL)
      rc = fupermod_paraleph_pareto(MPI_COMM_WORLD, 0, rank == 0 ? &prob : NULL, objective, (int)a->threads, &front,
                                    NULL);
    else
      rc = fupermod_paraleph(MPI_COMM_WORLD, 0, rank == 0 ? &prob : NULL, objective, (int)a->threads, &dist, NULL);
    if (rc == FUPERMOD_SUCCESS && rank == 0 && dist && a->layout)
      rc = layout_out(a->layout, a->M, a->N, f, has_energy, dist);
    if (rc != FUPERMOD_SUCCESS) status = rank == 0 ? tool_fail(SUB, suggest_unit(a, p, f, rc)) : fupermod_exit_status(rc);
    else if (rank == 0 && dist) warn_capped(a, p, f, dist);
    if (rc == FUPERMOD_SUCCESS && rank == 0)
      status = dist ? output_single(alg->name, a->D, dist, has_energy, a->json, a->out, f,
                                    objective == FUPERMOD_OBJ_ENERGY)
                    : output_front(alg, a->D, &front, a->json, a->out, objective == FUPERMOD_OBJ_PARETO_TOTAL, f);
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

/* GO_ON, or the exit status: 0 after --help, a usage error's. */
static int parse_options(int argc, char **argv, part_args *a) {
  static const struct option opts[] = {
    {"algorithm", required_argument, NULL, 'a'}, {"json", no_argument, NULL, 'j'},
    {"static-power", required_argument, NULL, 's'}, {"faithful", no_argument, NULL, 'f'},
    {"conf", required_argument, NULL, 'c'}, {"data", required_argument, NULL, 'd'},
    {"threads", required_argument, NULL, 't'}, {"help", no_argument, NULL, 'h'},
    {"layout", required_argument, NULL, 'L'}, {"blocks", required_argument, NULL, 'B'},
    {"smooth", required_argument, NULL, 'S'}, {"grid", required_argument, NULL, 'G'}, {NULL, 0, NULL, 0}};
  int c;
  optind = 0; /* a full reset of glibc's getopt: the parse may run more than once per process */
  while ((c = getopt_long(argc, argv, "a:D:p:o:F:m:h", opts, NULL)) != -1) {
    switch (c) {
    case 'a': a->algname = optarg; break;
    case 'D':
      if (fupermod_parse_long(optarg, &a->D) || a->D < 0)
        return tool_usage(SUB, "-D '%s' must be an integer >= 0", optarg);
      break;
    case 'p':
      if (fupermod_parse_long(optarg, &a->P) || a->P < 1 || a->P > 1000000)
        return tool_usage(SUB, "-p '%s' must be an integer >= 1", optarg);
      break;
    case 'o': a->out = optarg; break;
    case 'F':
      if (parse_objective(optarg, &a->objective))
        return tool_usage(SUB, "-F '%s' must be max, sum, pareto or pareto-total", optarg);
      a->objective_set = 1;
      break;
    case 'm': a->model_type = optarg; break;
    case 'j': a->json = 1; break;
    case 's':
      if (fupermod_parse_double(optarg, &a->static_power) || a->static_power < 0)
        return tool_usage(SUB, "--static-power '%s' must be a number >= 0 (W)", optarg);
      a->static_power_set = 1;
      break;
    case 'f': a->faithful = 1; break;
    case 't':
      if (fupermod_parse_long(optarg, &a->threads) || a->threads < 1 || a->threads > 4096)
        return tool_usage(SUB, "--threads '%s' must be an integer >= 1", optarg);
      break;
    case 'c': a->conf = optarg; break;
    case 'd': a->data = optarg; break;
    case 'L': a->layout = optarg; break;
    case 'S':
      if (fupermod_parse_long(optarg, &a->smooth) || a->smooth < 0 || a->smooth > 1000)
        return tool_usage(SUB, "--smooth '%s' must be an integer in 0..1000", optarg);
      break;
    case 'G':
      if (strcmp(optarg, "unit") != 0 && strcmp(optarg, "measured") != 0)
        return tool_usage(SUB, "--grid '%s' must be unit or measured", optarg);
      a->unit = strcmp(optarg, "unit") == 0;
      break;
    case 'B':
      if (parse_blocks(optarg, &a->M, &a->N))
        return tool_usage(SUB, "--blocks '%s' must be M or MxN, integers >= 1", optarg);
      break;
#ifdef TOOL_LEAN
    case 'h': return tool_exec_full(); /* the full command lists paraleph too */
#else
    case 'h': help(); return 0;
#endif
    default: return tool_bad_option(SUB, argv, "a:D:p:o:F:m:h", opts);
    }
  }
  return GO_ON;
}

/* The algorithm (*alg) and the options that go with it, for nf point files: GO_ON, or the exit
 * status (the front command hands what it cannot do to the full command). */
static int check_args(const part_args *a, int nf, const fupermod_partitioner **alg) {
#ifdef TOOL_LEAN
  /* the front command reads point files only; a configuration or a layout needs the full command */
  if (a->conf || a->data || a->layout) return tool_exec_full();
#endif
  if (!a->algname) return tool_usage(SUB, "no algorithm given (-a ALGO)");
  if (!(*alg = fupermod_partitioner_find(a->algname))) {
#ifdef TOOL_LEAN
    return tool_exec_full(); /* paraleph (MPI), or unknown: the full command says which */
#endif
    fprintf(stderr, "fupermod partition: %s\n", fupermod_error_message()); /* the closest name, the known ones */
    return 2;
  }
  if (a->D < 0) return tool_usage(SUB, "no problem size given (-D N)");
  if (a->P > 0 && (nf != 1 || a->conf)) return tool_usage(SUB, "-p needs exactly one point file");
  if (a->objective_set && strcmp((*alg)->name, "dp") != 0 && strcmp((*alg)->name, "paraleph") != 0)
    return tool_usage(SUB, "-F applies to dp and paraleph only");
  if (!a->layout != !a->M) return tool_usage(SUB, "--layout and --blocks go together");
  if (a->layout && (long)a->M * a->N != a->D)
    return tool_usage(SUB, "--blocks %dx%d makes %ld blocks, not -D %ld", a->M, a->N, (long)a->M * a->N, a->D);
  if (a->layout && (a->objective != FUPERMOD_OBJ_TIME || (*alg)->kind == FUPERMOD_PART_PARETO || (*alg)->needs_energy))
    return tool_usage(SUB, "--layout fits the sizes to time: it takes a time partitioner (-F max), not %s",
                      (*alg)->name);
  return GO_ON;
}

/* The nf point files (or CONF's in DIR), smoothed with --smooth, into pts (*npts); *f: the function
 * of each of the *p processors (-p: one file for all). GO_ON, or the exit status. */
static int load_functions(const part_args *a, int nf, char **files, fupermod_points **pts, int *npts,
                          const fupermod_points ***f, int *p, int *has_energy) {
  int rc;
#ifdef TOOL_LEAN
  rc = tool_load_files(nf, files, pts, npts);
#else
  rc = tool_load_points(nf, files, a->conf, a->data, pts, npts);
#endif
  if (rc == FUPERMOD_SUCCESS) rc = tool_smooth_points(*pts, *npts, a->smooth);
  if (rc == FUPERMOD_SUCCESS) rc = unit_grid(*pts, *npts, a->unit);
  if (rc != FUPERMOD_SUCCESS) return tool_fail(SUB, rc);
  *p = a->P > 0 ? (int)a->P : *npts;
  if (!(*f = malloc((size_t)*p * sizeof **f)))
    return tool_fail(SUB, fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory"));
  *has_energy = 1;
  for (int i = 0; i < *p; i++) {
    (*f)[i] = &(*pts)[a->P > 0 ? 0 : i];
    if (!(*f)[i]->has_energy) *has_energy = 0;
  }
  return GO_ON;
}

/* A model-based partitioner, on models (*models, p of them) of type -m or its own. GO_ON, or the
 * exit status. */
static int partition_continuous(const fupermod_partitioner *alg, const part_args *a, int p, const fupermod_points **f,
                                fupermod_model ***models, fupermod_dist *dist) {
  const char *type = a->model_type ? a->model_type : alg->model_type;
  int rc;
  *models = calloc((size_t)p, sizeof **models);
  for (int i = 0; *models && i < p; i++)
    if ((rc = fupermod_model_create(type, f[i], a->D, &(*models)[i])) != FUPERMOD_SUCCESS) return tool_fail(SUB, rc);
  if ((rc = alg->continuous(p, *models, dist)) != FUPERMOD_SUCCESS) return tool_fail(SUB, rc);
  return GO_ON;
}

/* A partitioner on the functions: a distribution (dist, GO_ON), or a Pareto front, printed and
 * written here (front). Otherwise the exit status. */
static int partition_discrete(const fupermod_partitioner *alg, const part_args *a, int p, const fupermod_points **f,
                              int has_energy, fupermod_dist *dist, fupermod_front *front) {
  fupermod_problem prob = {a->D, p, f, a->static_power, a->faithful, a->objective};
  int pareto = alg->kind == FUPERMOD_PART_PARETO ||
               (alg->pareto && (a->objective == FUPERMOD_OBJ_PARETO || a->objective == FUPERMOD_OBJ_PARETO_TOTAL));
  int rc;
  if (alg->needs_static_power && !a->static_power_set)
    return tool_usage(SUB, "%s needs --static-power W (>= 0)", alg->name);
  /* the library's partitioners check the problem first thing: a second pass over every point
   * only for the others */
  if (!fupermod_partitioner_builtin(alg) && (rc = fupermod_problem_check(&prob, alg)) != FUPERMOD_SUCCESS)
    return tool_fail(SUB, rc);
  if ((a->objective == FUPERMOD_OBJ_ENERGY || pareto) && !has_energy)
    return tool_fail(SUB, fupermod_error(FUPERMOD_ERR_INPUT, "%s: the point files carry no energy (columns e e_ci)",
                                         alg->name));
  rc = pareto ? alg->pareto(&prob, front) : alg->discrete(&prob, dist);
  if (rc != FUPERMOD_SUCCESS) return tool_fail(SUB, suggest_unit(a, p, f, rc));
  if (!pareto) warn_capped(a, p, f, dist);
  if (pareto)
    return output_front(alg, a->D, front, a->json, a->out,
                        a->objective == FUPERMOD_OBJ_PARETO_TOTAL || alg->needs_static_power, f);
  return GO_ON;
}

int cmd_partition(int argc, char **argv) {
  part_args a = {NULL, NULL, NULL, NULL, NULL, NULL, -1, 0, 0, 0, 0, 0, 0.0, 0, 0, 0, FUPERMOD_OBJ_TIME, 0, 0};
  int nf, p = 0, has_energy = 0, status;
  fupermod_points *pts = NULL;
  const fupermod_points **f = NULL;
  const fupermod_partitioner *alg = NULL;
  fupermod_dist *dist = NULL;
  fupermod_front front = {0, NULL};
  fupermod_model **models = NULL;

  if ((status = parse_options(argc, argv, &a)) != GO_ON) return status;
  nf = argc - optind;
  if ((status = check_args(&a, nf, &alg)) != GO_ON) return status;
#ifndef TOOL_LEAN
  if (strcmp(alg->name, "paraleph") == 0) {
    if (!a.static_power_set && a.objective == FUPERMOD_OBJ_PARETO_TOTAL)
      return tool_usage(SUB, "-F pareto-total needs --static-power W (>= 0)");
    return run_paraleph(alg, &a, nf, argv + optind);
  }
#endif
  if ((status = load_functions(&a, nf, argv + optind, &pts, &nf, &f, &p, &has_energy)) != GO_ON) goto done;
  if (!(dist = fupermod_dist_alloc(a.D, p))) {
    status = tool_fail(SUB, FUPERMOD_ERR_USAGE);
    goto done;
  }
  if (alg->kind == FUPERMOD_PART_CONTINUOUS) status = partition_continuous(alg, &a, p, f, &models, dist);
  else status = partition_discrete(alg, &a, p, f, has_energy, dist, &front);
  if (status != GO_ON) goto done;
#ifndef TOOL_LEAN
  {
    int rc;
    if (a.layout && (rc = layout_out(a.layout, a.M, a.N, f, has_energy, dist)) != FUPERMOD_SUCCESS) {
      status = tool_fail(SUB, rc);
      goto done;
    }
  }
#endif
  status = output_single(alg->name, a.D, dist, has_energy, a.json, a.out, f,
                         a.objective == FUPERMOD_OBJ_ENERGY || strcmp(alg->name, "eopta") == 0 ||
                           strcmp(alg->name, "heopta") == 0);
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
