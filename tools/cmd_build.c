/* fupermod build: every process benchmarks its kernel over the same sizes and appends each point
 * to its own file at once; a rerun resumes where an interrupted one stopped. Energy comes from the
 * meter the configuration line selects (docs/energy.md). With --dist, each process is measured at
 * its share of a distribution instead, to check the predicted times. */
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <mpi.h>
#include "partitioners/partitioners.h"
#include "tools/build_common.h"
#include "tools/mpi_init.h"

static const char *SUB = "build";

/* The watchdog: a kernel run that has not returned after twice the time limit per point is taken
 * for hung. The library cannot stop a kernel safely, so the process names itself, its host and
 * the size, and ends; mpirun then ends the job. Every point measured so far is in its file. */
typedef struct {
  double limit;          /* s; 0: no watchdog */
  long d;                /* size in progress (__atomic) */
  int rank, stop;        /* stop: __atomic */
  char host[MPI_MAX_PROCESSOR_NAME];
} watchdog;

static void *watch(void *arg) {
  watchdog *w = arg;
  struct timespec nap = {0, 200000000};
  while (!__atomic_load_n(&w->stop, __ATOMIC_ACQUIRE)) {
    double since = fupermod_benchmark_running();
    if (since > 0 && fupermod_time() - since > w->limit) {
      fprintf(stderr,
              "fupermod build: rank %d on %s: the kernel has not returned from a run at d=%ld for %.0f s, twice "
              "the time limit per point (-T): stopping the job (points measured so far are kept)\n",
              w->rank, w->host, __atomic_load_n(&w->d, __ATOMIC_ACQUIRE), fupermod_time() - since);
      fflush(stderr);
      kill(getpid(), SIGKILL);
    }
    nanosleep(&nap, NULL);
  }
  return NULL;
}

static void help(void) {
  printf("usage: mpirun -np N fupermod build --conf CONF [--data DIR] [-k KERNEL] SIZES [PRECISION]\n"
         "       mpirun -np N fupermod build --conf CONF --dist DIST [-k KERNEL] [PRECISION]\n\n"
         "Each process finds its line in CONF (host, intra-node rank), applies its binding, loads its\n"
         "kernel (-k, or the sub-option kernel=NAME of its line; the line's sub-options reach the kernel),\n"
         "and measures every size with the processes of its node running together. Points are appended\n"
         "to DIR/HOST.RANK_INTRA.points as soon as they are measured; sizes already there are skipped.\n"
         "SIZES:      -L LOW -U HIGH -s STEPS   (-m 0, default: STEPS evenly spaced sizes from LOW to HIGH)\n"
         "            -m 1 -L LOW -U HIGH [-c INCREMENT (1)] [-g GRANULARITY (1)]\n"
         "                 adaptive: from LOW by INCREMENT, doubled whenever the slowest process's\n"
         "                 time / INCREMENT exceeds GRANULARITY (s per unit)\n"
         "            --sizes d1,d2,...         (explicit sizes)\n"
         "            --adaptive  measure only where the distribution is decided, on the grid of -L/-U/-s\n"
         "                 or --sizes: a few log-spaced sizes, then rounds that partition functions\n"
         "                 interpolated over the grid and measure each process's share and its grid\n"
         "                 neighbours, until the distribution is unchanged with its shares measured\n"
         "                 (docs/models.md, \"Adaptive building\"). Options:\n"
         "              --units D       units distributed (default the largest size)\n"
         "              -a ALGO         the discrete time partitioner (default paraleph)\n"
         "              --adapt-for L   time,energy,hier,pareto: distributions whose shares are measured\n"
         "                              (default time; energy: PARALEPH, hier: HiPOPTA over nodes,\n"
         "                              pareto: fupermod run's Pareto choice, with --tradeoff X (0.1))\n"
         "              --init N (4)  --max-rounds N (10)  --tol REL (0.05: the predicted optimum's\n"
         "                              relative half-width that ends a stable build)\n"
         "              --smooth W      partition on smoothed functions, as fupermod run (default 0)\n"
         "              --refine        on a grid g, 2g, ..., D: finer steps when a process could do under 2\n"
         "                              of them within the makespan (a slow device), as fupermod run\n"
         "PRECISION:  -r REPS_MIN (3)  -R REPS_MAX (100)  -i CONFIDENCE (0.95)  -e REL_ERROR (0.025)\n"
         "            -T SECONDS_PER_POINT (60; a kernel run that has not returned after twice this is\n"
         "               taken for hung: the job stops naming the rank, host and size)\n"
         "            -z MIN_SPEED  a run slower than this (complexity units/s) ends its size, which the\n"
         "                          file marks 'abandoned' (0, default: never); docs/kernels.md\n"
         "            --idle-wait  a process that finishes a run first waits idle; by default it keeps\n"
         "                         running the kernel, untimed, until the others finish (docs/kernels.md)\n"
         "            --keep-outliers  average every repetition; by default a repetition whose time is\n"
         "                         farther from the median than 3.5 x 1.4826 x MAD and 10 %% of the median\n"
         "                         is rejected with its energy and counted (rejected=N; docs/models.md)\n"
         "ENERGY:     the line's sub-options meter=rapl|nvml|command|emulated|model|external with the meter's\n"
         "            keys, static_power=W or static_probe=SECONDS, attribution=busy|solo (docs/energy.md);\n"
         "            points then carry the dynamic energy; model-meter energies are labelled ESTIMATE;\n"
         "            external-meter points carry their runs' times, for fupermod energy import\n"
         "  --data DIR  output directory (default fupermod-data); a job holds DIR's lock (DIR/.fupermod-lock)\n"
         "              from before it reads the point files until it ends, so that jobs sharing DIR measure in\n"
         "              turn; another job waits for it, saying which job holds it\n"
         "  --lock-wait S  wait at most S seconds for that lock, then stop (default 3600)\n"
         "ADDITIVITY: --additivity LIST  instead of building: does the node's dynamic energy add up over its\n"
         "            processes? At each combination of LIST (comma-separated; an item is one size for every\n"
         "            process, or d0:d1:... one per process in rank order) each process of a node runs alone,\n"
         "            then all together, to PRECISION; a meter of the whole node read by all its processes\n"
         "            (meter=command, or an emulated node meter) measures both. Writes DIR/additivity.csv,\n"
         "            DIR/additivity-alone.csv and a table of the error (together - sum alone) / sum alone\n"
         "            with its confidence (docs/energy.md, \"Additivity\")\n"
         "  --dist FILE measure each process at its share d of the distribution FILE and print the\n"
         "              predicted and the measured times (nothing is written)\n"
         "  --allow-fewer  a job of fewer processes than the configuration's lines uses the first\n"
         "              lines (without it, such a job is refused)\n"
         "  -q          no progress lines\n");
}

typedef struct {
  long *v;
  int n, cap;
} size_list;

static int add_size(const char *item, void *ctx) {
  size_list *l = ctx;
  long d;
  if (fupermod_parse_long(item, &d) || d <= 0)
    return fupermod_error(FUPERMOD_ERR_USAGE, "--sizes: '%s' is not a positive integer", item);
  if (l->n == l->cap) {
    int nc = l->cap ? 2 * l->cap : 16;
    long *nv = realloc(l->v, (size_t)nc * sizeof *nv);
    if (!nv) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
    l->v = nv;
    l->cap = nc;
  }
  l->v[l->n++] = d;
  return 0;
}

static int add_objective(const char *item, void *ctx) {
  tool_adaptive *ad = ctx;
  if (strcmp(item, "time") == 0) ad->objectives |= TOOL_ADAPT_TIME;
  else if (strcmp(item, "energy") == 0) ad->objectives |= TOOL_ADAPT_ENERGY;
  else if (strcmp(item, "hier") == 0) ad->objectives |= TOOL_ADAPT_HIER;
  else if (strcmp(item, "pareto") == 0) ad->objectives |= TOOL_ADAPT_PARETO;
  else return fupermod_error(FUPERMOD_ERR_USAGE, "--adapt-for: '%s' is not time, energy, hier or pareto", item);
  return 0;
}

static int parse_sizes(const char *s, long **out, int *n) {
  size_list l = {NULL, 0, 0};
  /* 32 characters hold any long with room to spare */
  int rc = tool_list("--sizes", s, 32, add_size, &l);
  if (rc != FUPERMOD_SUCCESS) {
    free(l.v);
    return rc;
  }
  *out = l.v;
  *n = l.n;
  return FUPERMOD_SUCCESS;
}

/* The energy label a point file carries ("# energy: ..."), so estimates are never taken for
 * measurements: kind 0 no energy, 1 measured, 2 estimate. */
static int label_kind(const char *label) {
  if (!label) return 0;
  return strstr(label, "ESTIMATE") ? 2 : 1;
}

/* The label kind of an existing point file, and whether it holds any data line. */
static int scan_point_file(const char *path, int *kind, int *has_data) {
  char *text = NULL, *p;
  int rc = fupermod_read_file(path, &text, NULL);
  *kind = 0;
  *has_data = 0;
  if (rc != FUPERMOD_SUCCESS) return rc;
  for (p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
    const char *q = p;
    while (*q == ' ' || *q == '\t') q++;
    if (strncmp(q, "# energy:", 9) == 0 && !*kind) *kind = strncmp(q, "# energy: ESTIMATE", 18) == 0 ? 2 : 1;
    else if (*q && *q != '#' && *q != '\n' && *q != '\r') *has_data = 1;
  }
  free(text);
  return FUPERMOD_SUCCESS;
}

/* Whether a set holds a measured (not abandoned) point: only those say whether it has energy. */
static int has_measured(const fupermod_points *p) {
  for (int i = 0; i < p->count; i++)
    if (!fupermod_point_abandoned(&p->pts[i])) return 1;
  return 0;
}

/* Start a new point file with the format header and the energy label, flushed to disk. */
static int start_point_file(const char *path, const char *label) {
  char head[1024];
  int fd, n;
  n = snprintf(head, sizeof head, FUPERMOD_POINTS_HEADER "\n%s%s%s", label ? "# energy: " : "", label ? label : "", label ? "\n" : "");
  fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
  if (fd < 0) return fupermod_error(FUPERMOD_ERR_SYSTEM, "%s: cannot create", path);
  if (write(fd, head, (size_t)n) != n || fsync(fd) != 0) {
    close(fd);
    return fupermod_error(FUPERMOD_ERR_SYSTEM, "%s: write failed", path);
  }
  close(fd);
  return FUPERMOD_SUCCESS;
}

/* Measure every process at its share of a distribution and print predicted vs measured. */
static int check_dist(const char *distpath, const tool_proc *en, const fupermod_precision *prec, int rank, int size) {
  fupermod_dist *dist = NULL;
  fupermod_point pt = FUPERMOD_POINT_INIT;
  MPI_Comm active = MPI_COMM_NULL;
  double mine[8], *all = NULL;
  long d;
  int rc = fupermod_dist_load(distpath, &dist);
  if (rc == FUPERMOD_SUCCESS && dist->size != size)
    rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s: a distribution over %d processes, but %d are running", distpath,
                        dist->size, size);
  if ((rc = tool_agree(SUB, rc, MPI_COMM_WORLD)) != FUPERMOD_SUCCESS) {
    fupermod_dist_free(dist);
    return rc;
  }
  d = dist->parts[rank].d;
  /* processes given nothing idle and leave the node's synchronisation to the others */
  MPI_Comm_split(en->intra, d > 0 ? 0 : MPI_UNDEFINED, rank, &active);
  pt.d = d;
  pt.t = 0.0;
  if (d > 0) rc = fupermod_benchmark_meter(en->kernel, en->meter, en->static_power, d, prec, active, &pt);
  if (active != MPI_COMM_NULL) MPI_Comm_free(&active);
  if ((rc = tool_agree(SUB, rc, MPI_COMM_WORLD)) != FUPERMOD_SUCCESS) {
    fupermod_dist_free(dist);
    return rc;
  }
  mine[0] = (double)d;
  mine[1] = pt.t;
  mine[2] = d > 0 ? pt.ci : 0.0;
  mine[3] = d > 0 ? pt.e : -1.0;
  mine[4] = d > 0 ? pt.e_ci : -1.0;
  mine[5] = d > 0 ? pt.reps : 0;
  mine[6] = d > 0 ? pt.flags : 0;
  mine[7] = d > 0 ? pt.rejected : 0;
  if (rank == 0) all = malloc((size_t)size * 8 * sizeof *all);
  MPI_Gather(mine, 8, MPI_DOUBLE, all, 8, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    double worst = 0.0;
    printf("# check of %s: %d processes, D = %ld\n", distpath, size, dist->D);
    printf("# %6s %10s %14s %14s %12s %6s %14s %14s %12s\n", "rank", "d", "predicted t", "measured t", "ci", "reps",
           "predicted e", "measured e", "e ci");
    for (int r = 0; r < size; r++) {
      double *v = all + 8 * r, pred = dist->parts[r].t;
      int flags = (int)v[6];
      printf("  %6d %10ld %14.6g %14.6g %12.3g %6.0f", r, (long)v[0], pred, v[1], v[2], v[5]);
      if (v[3] >= 0) printf(" %14.6g %14.6g %12.3g", dist->parts[r].e, v[3], v[4]);
      printf("%s", flags & FUPERMOD_POINT_ABANDONED ? " abandoned" : flags & FUPERMOD_POINT_IMPRECISE ? " imprecise" : "");
      if (v[7] > 0) printf(" rejected=%.0f", v[7]);
      printf("\n");
      if (v[0] > 0 && pred > 0 && fabs(v[1] - pred) / pred > worst) worst = fabs(v[1] - pred) / pred;
    }
    printf("# largest relative difference of measured and predicted time: %.4g\n", worst);
    if (en->meter && fupermod_meter_is_estimate(en->meter)) printf("# energies are ESTIMATES (model meter)\n");
    free(all);
  }
  fupermod_dist_free(dist);
  return FUPERMOD_SUCCESS;
}

/* What the command line asks for. */
typedef struct {
  const char *confpath, *data, *kname, *sizes_arg, *distpath;
  long L, U, steps, method, incr0;
  double gran, lock_wait;
  int quiet, set_cg, tradeoff_set, adaptive;
  fupermod_precision prec;
  tool_combos combos;
  tool_adaptive ad;
  long *sizes; /* the sizes to measure; -m 1 finds them while measuring */
  int nsizes;
} build_opts;

enum { GO_ON = -1 }; /* the command goes on; any other value is its exit status */

static void opts_init(build_opts *o) {
  memset(o, 0, sizeof *o);
  o->data = "fupermod-data";
  o->incr0 = 1;
  o->gran = 1.0;
  o->lock_wait = 3600;
  o->prec = (fupermod_precision)FUPERMOD_PRECISION_DEFAULT;
  o->ad.algorithm = "paraleph";
  o->ad.objectives = TOOL_ADAPT_TIME;
  o->ad.tradeoff = 0.1;
  o->ad.init = 4;
  o->ad.max_rounds = 10;
  o->ad.tol = 0.05;
  o->ad.sub = SUB;
}

static void opts_free(build_opts *o) {
  tool_adaptive_free(&o->ad);
  tool_combos_free(&o->combos);
  free(o->sizes);
  o->sizes = NULL;
}

/* The options of --adaptive: 1 when c is one of them, with *status 0, or a usage error's. */
static int adaptive_opt(build_opts *o, int c, const char *arg, int *status) {
  tool_adaptive *ad = &o->ad;
  long v;
  double x;
  *status = 0;
  switch (c) {
  case 'N': ad->refine = 1; break;
  case 'a': ad->algorithm = arg; break;
  case 'F':
    ad->objectives = 0;
    if (tool_list("--adapt-for", arg, 16, add_objective, ad) != FUPERMOD_SUCCESS)
      *status = tool_usage(SUB, "%s", fupermod_error_message());
    break;
  case 'u': case 'I': case 'M': case 'w':
    if (fupermod_parse_long(arg, &v) || v < (c == 'w' ? 0 : c == 'I' ? 2 : 1) || v > 1000000000L) {
      *status = tool_usage(SUB, "--%s '%s' must be an integer >= %d",
                           c == 'u' ? "units" : c == 'I' ? "init" : c == 'M' ? "max-rounds" : "smooth", arg,
                           c == 'w' ? 0 : c == 'I' ? 2 : 1);
      break;
    }
    if (c == 'u') ad->D = v;
    else if (c == 'I') ad->init = (int)v;
    else if (c == 'M') ad->max_rounds = (int)v;
    else ad->smooth = (int)v;
    break;
  case 'O':
    if (fupermod_parse_double(arg, &x) || !(x >= 0)) *status = tool_usage(SUB, "--tol '%s' must be a number >= 0", arg);
    else ad->tol = x;
    break;
  case 'X':
    if (fupermod_parse_double(arg, &x) || !(x >= 0) || !isfinite(x)) {
      *status = tool_usage(SUB, "--tradeoff '%s' must be a number >= 0", arg);
      break;
    }
    ad->tradeoff = x;
    o->tradeoff_set = 1;
    break;
  default: return 0;
  }
  return 1;
}

/* GO_ON, or the exit status: 0 after --help, a usage error's. */
static int parse_options(int argc, char **argv, build_opts *o) {
  static const struct option opts[] = {{"conf", required_argument, NULL, 'C'}, {"data", required_argument, NULL, 'd'},
                                       {"sizes", required_argument, NULL, 'S'}, {"dist", required_argument, NULL, 'D'},
                                       {"idle-wait", no_argument, NULL, 'W'}, {"help", no_argument, NULL, 'h'},
                                       {"adaptive", no_argument, NULL, 'A'}, {"units", required_argument, NULL, 'u'},
                                       {"adapt-for", required_argument, NULL, 'F'}, {"init", required_argument, NULL, 'I'},
                                       {"max-rounds", required_argument, NULL, 'M'}, {"tol", required_argument, NULL, 'O'},
                                       {"smooth", required_argument, NULL, 'w'}, {"tradeoff", required_argument, NULL, 'X'},
                                       {"keep-outliers", no_argument, NULL, 'K'}, {"refine", no_argument, NULL, 'N'},
                                       {"lock-wait", required_argument, NULL, 'l'},
                                       {"additivity", required_argument, NULL, 'Y'},
                                       {"allow-fewer", no_argument, NULL, 'f'}, {NULL, 0, NULL, 0}};
  int c, status;
  optind = 0; /* a full reset of glibc's getopt: the parse may run more than once per process */
  while ((c = getopt_long(argc, argv, "a:c:d:k:L:U:s:m:g:" TOOL_PRECISION_OPTS "qh", opts, NULL)) != -1) {
    long v;
    double x;
    switch (c) {
    case 'C': o->confpath = optarg; break;
    case 'd': o->data = optarg; break;
    case 'k': o->kname = optarg; break;
    case 'S': o->sizes_arg = optarg; break;
    case 'D': o->distpath = optarg; break;
    case 'm':
      if (fupermod_parse_long(optarg, &o->method) || (o->method != 0 && o->method != 1))
        return tool_usage(SUB, "-m '%s' must be 0 (fixed steps) or 1 (adaptive)", optarg);
      break;
    case 'L': case 'U': case 's': case 'c':
      if (fupermod_parse_long(optarg, &v) || v < 1 || v > 1000000000L)
        return tool_usage(SUB, "-%c '%s' must be a positive integer", c, optarg);
      if (c == 'L') o->L = v;
      else if (c == 'U') o->U = v;
      else if (c == 's') o->steps = v;
      else o->incr0 = v, o->set_cg = 1;
      break;
    case 'g':
      if (fupermod_parse_double(optarg, &x)) return tool_usage(SUB, "-%c '%s' must be a number", c, optarg);
      if (!(x > 0)) return tool_usage(SUB, "-g '%s' must be > 0 (seconds per unit)", optarg);
      o->gran = x;
      o->set_cg = 1;
      break;
    case 'q': o->quiet = 1; break;
    case 'W': o->prec.idle_wait = 1; break;
    case 'K': o->prec.keep_outliers = 1; break;
    case 'A': o->adaptive = 1; break;
    case 'l':
      if (fupermod_parse_double(optarg, &x) || !(x >= 0) || !isfinite(x))
        return tool_usage(SUB, "--lock-wait '%s' must be a number of seconds >= 0", optarg);
      o->lock_wait = x;
      break;
    case 'Y':
      tool_combos_free(&o->combos);
      if (tool_combos_parse(optarg, &o->combos) != FUPERMOD_SUCCESS)
        return tool_usage(SUB, "%s", fupermod_error_message());
      break;
    case 'f': tool_allow_fewer = 1; break;
    case 'h': help(); return 0;
    default:
      if (tool_precision_opt(SUB, c, optarg, &o->prec, &status) || adaptive_opt(o, c, optarg, &status)) {
        if (status) return status;
        break;
      }
      return tool_bad_option(SUB, argv, "a:c:d:k:L:U:s:m:g:" TOOL_PRECISION_OPTS "qh", opts);
    }
  }
  if (optind < argc) return tool_usage(SUB, "unexpected argument '%s'", argv[optind]);
  return GO_ON;
}

/* --additivity, --adaptive and --dist each exclude some ways of giving sizes. */
static int check_modes(const build_opts *o) {
  if (!o->confpath) return tool_usage(SUB, "no process configuration given (--conf CONF)");
  if (o->combos.n && (o->adaptive || o->distpath || o->sizes_arg || o->L || o->U || o->steps || o->method))
    return tool_usage(SUB, "--additivity gives the sizes itself: not with --adaptive, --dist, --sizes or -L/-U/-s/-m");
  if (o->adaptive && (o->distpath || o->method == 1))
    return tool_usage(SUB, "--adaptive chooses sizes from the grid of -L/-U/-s or --sizes (not --dist, not -m 1)");
  if (o->distpath && (o->sizes_arg || o->L || o->U || o->steps || o->method))
    return tool_usage(SUB, "--dist replaces the sizes; give one or the other");
  return GO_ON;
}

/* The sizes of --sizes, or -L/-U/-s (-m 0); -m 1 only checks its bounds. */
static int grid_sizes(build_opts *o) {
  int rc;
  if (o->sizes_arg) {
    if (o->L || o->U || o->steps || o->method) return tool_usage(SUB, "give --sizes or -L/-U/-s/-m, not both");
    if ((rc = parse_sizes(o->sizes_arg, &o->sizes, &o->nsizes)) != FUPERMOD_SUCCESS) return tool_fail(SUB, rc);
  } else if (o->method == 1) {
    if (!o->L || !o->U) return tool_usage(SUB, "-m 1 needs -L LOW and -U HIGH (and optionally -c, -g)");
    if (o->steps) return tool_usage(SUB, "-s applies to -m 0; -m 1 takes -c INCREMENT and -g GRANULARITY");
    if (o->U < o->L) return tool_usage(SUB, "-U %ld is below -L %ld", o->U, o->L);
  } else {
    if (o->set_cg) return tool_usage(SUB, "-c and -g apply to the adaptive method (-m 1)");
    if (!o->L || !o->U || !o->steps)
      return tool_usage(SUB, "no sizes given (-L LOW -U HIGH -s STEPS, -m 1, or --sizes)");
    if (o->U < o->L) return tool_usage(SUB, "-U %ld is below -L %ld", o->U, o->L);
    if (o->steps > 100000) return tool_usage(SUB, "-s %ld: at most 100000 steps", o->steps);
    o->sizes = malloc((size_t)o->steps * sizeof *o->sizes);
    if (!o->sizes) return tool_fail(SUB, fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory"));
    for (long k = 0; k < o->steps; k++) {
      long d = o->steps == 1 ? o->L : o->L + (long)llround((double)(o->U - o->L) * (double)k / (double)(o->steps - 1));
      if (o->nsizes == 0 || d != o->sizes[o->nsizes - 1]) o->sizes[o->nsizes++] = d;
    }
  }
  return GO_ON;
}

/* --adaptive takes the sizes as its grid; its options apply to it only. */
static int check_adaptive(build_opts *o) {
  tool_adaptive *ad = &o->ad;
  if (!o->adaptive) {
    if (ad->D || ad->smooth || ad->refine || ad->objectives != TOOL_ADAPT_TIME || strcmp(ad->algorithm, "paraleph") ||
        o->tradeoff_set)
      return tool_usage(SUB, "--units, --adapt-for, --smooth, --refine, --tradeoff and -a apply to --adaptive");
    return GO_ON;
  }
  for (int k = 1; k < o->nsizes; k++)
    if (o->sizes[k] <= o->sizes[k - 1])
      return tool_usage(SUB, "--adaptive needs increasing sizes (--sizes: %ld after %ld)", o->sizes[k],
                        o->sizes[k - 1]);
  const fupermod_partitioner *alg = fupermod_partitioner_find(ad->algorithm);
  if (!alg || alg->kind != FUPERMOD_PART_DISCRETE)
    return tool_usage(SUB, "-a '%s' is not a discrete time partitioner (paraleph, dp, hpopta, ...)", ad->algorithm);
  if (!ad->D) ad->D = o->sizes[o->nsizes - 1];
  ad->grid = o->sizes;
  ad->ngrid = o->nsizes;
  ad->quiet = o->quiet;
  ad->cl = o->prec.cl;
  ad->kernel_energy = 1;
  return GO_ON;
}

static int check_options(build_opts *o) {
  int status;
  if ((status = check_modes(o)) != GO_ON) return status;
  if (!o->distpath && !o->combos.n && (status = grid_sizes(o)) != GO_ON) return status;
  if ((status = check_adaptive(o)) != GO_ON) return status;
  if (fupermod_precision_check(&o->prec) != FUPERMOD_SUCCESS) return tool_fail(SUB, FUPERMOD_ERR_USAGE);
  return GO_ON;
}

/* Open this process's point file: resume it, or start it with the meter's energy label. */
static int open_point_file(const build_opts *o, const tool_proc *en, const char *path, fupermod_points *have) {
  const fupermod_process_conf *pc = &en->conf.procs[en->index];
  int kind = 0, has_data = 0, rc;
  if (access(path, F_OK) != 0) return start_point_file(path, en->meter ? en->label : NULL);
  rc = scan_point_file(path, &kind, &has_data);
  if (rc != FUPERMOD_SUCCESS) return rc;
  /* a file a run left before its first point holds nothing measured: start it again */
  if (!has_data) {
    if (unlink(path) != 0) return fupermod_error(FUPERMOD_ERR_SYSTEM, "%s: cannot replace the empty file", path);
    return start_point_file(path, en->meter ? en->label : NULL);
  }
  rc = fupermod_points_load_all(path, have); /* an abandoned size is done too */
  /* a resumed file must not mix measured, estimated and missing energies */
  if (rc == FUPERMOD_SUCCESS && en->meter && !fupermod_meter_is_external(en->meter) && has_measured(have) &&
      !have->has_energy)
    rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s has points without energy, but %s:%d now selects meter=%s: "
                        "remove the file or the meter", path, o->confpath, pc->line, fupermod_meter_name(en->meter));
  else if (rc == FUPERMOD_SUCCESS && en->meter && (kind == 2) != (label_kind(en->label) == 2))
    rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s holds %s energies, but meter=%s %s: remove the file or change the meter",
                        path, kind == 2 ? "estimated" : "measured", fupermod_meter_name(en->meter),
                        kind == 2 ? "measures" : "estimates");
  return rc;
}

/* Collective. Measure size d with the whole node when any process of it lacks d, so that
 * contention is part of every point; those lacking it append the point. *t: this process's time
 * at d; *any: whether any process measured. */
static int measure_size(const tool_proc *en, const fupermod_precision *prec, const char *path, fupermod_points *have,
                        long d, long *watch_d, double *t, int *any) {
  fupermod_point pt = FUPERMOD_POINT_INIT;
  int at = fupermod_points_find(have, d), need = at < 0, node_need = 0, rc;
  *t = at >= 0 ? have->pts[at].t : 0.0;
  *any = 0;
  MPI_Allreduce(&need, &node_need, 1, MPI_INT, MPI_MAX, en->intra);
  MPI_Allreduce(&node_need, any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (!node_need) return FUPERMOD_SUCCESS;
  __atomic_store_n(watch_d, d, __ATOMIC_RELEASE);
  rc = fupermod_benchmark_meter(en->kernel, en->meter, en->static_power, d, prec, en->intra, &pt);
  if (rc != FUPERMOD_SUCCESS || !need) return rc;
  if (has_measured(have) && !fupermod_point_abandoned(&pt) && have->has_energy != fupermod_point_has_energy(&pt))
    rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s: its points %s energy but d=%ld was measured %s: not appended",
                        path, have->has_energy ? "have" : "lack", d, have->has_energy ? "without" : "with");
  if (rc == FUPERMOD_SUCCESS) rc = fupermod_points_append(path, &pt);
  if (rc == FUPERMOD_SUCCESS) rc = fupermod_points_insert(have, &pt);
  *t = pt.t;
  return rc;
}

/* After point k + 1 (size dk; -m 1: d the next size, incr the step). */
static void print_progress(const build_opts *o, int k, long dk, long d, long incr, double start) {
  double el = fupermod_time() - start;
  if (o->method == 1) {
    long left = d <= o->U ? (o->U - d) / incr + 1 : 0;
    fprintf(stderr, "fupermod build: point %d of at most %ld (d=%ld): elapsed %.1f s, at most %.1f s left\n",
            k + 1, k + 1 + left, dk, el, el / (k + 1) * (double)left);
  } else {
    fprintf(stderr, "fupermod build: point %d of %d (d=%ld): elapsed %.1f s, about %.1f s left\n", k + 1,
            o->nsizes, dk, el, el / (k + 1) * (o->nsizes - k - 1));
  }
}

/* Collective. Every process measures every size of the fixed grid, or of -m 1's growing one (then
 * o->nsizes becomes the number of sizes it reached). */
static int build_grid(build_opts *o, const tool_proc *en, const char *path, fupermod_points *have, long *watch_d,
                      MPI_Comm *share, int rank, double start) {
  long d = o->method == 1 ? o->L : 0, incr = o->incr0;
  int rc;
  if ((rc = tool_agree(SUB, fupermod_share_comm(MPI_COMM_WORLD, share), MPI_COMM_WORLD)) != FUPERMOD_SUCCESS) return rc;
  /* a group sharing cores starts from the same points */
  if ((rc = tool_agree(SUB, tool_share_sync(*share, have, path), MPI_COMM_WORLD)) != FUPERMOD_SUCCESS) return rc;
  for (int k = 0; o->method == 1 ? d <= o->U : k < o->nsizes; k++) {
    long dk = o->method == 1 ? d : o->sizes[k];
    double tmine, tmax = 0.0;
    int any;
    rc = measure_size(en, &o->prec, path, have, dk, watch_d, &tmine, &any);
    if ((rc = tool_agree(SUB, rc, MPI_COMM_WORLD)) != FUPERMOD_SUCCESS) return rc;
    if (o->method == 1) {
      /* the slowest process decides, so every process measures the same sizes */
      MPI_Allreduce(&tmine, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      if (tmax / (double)incr > o->gran) incr *= 2;
      d += incr;
    }
    if (rank == 0 && !o->quiet && any) print_progress(o, k, dk, d, incr, start);
    if (o->method == 1) o->nsizes = k + 1;
  }
  return FUPERMOD_SUCCESS;
}

/* Where this process's energies come from: 0 none, 1 measured, 2 estimated, 3 the kernel's, 4 an
 * import to come (an external meter). */
static int energy_source(const tool_proc *en, const fupermod_points *have) {
  if (en->meter && fupermod_meter_is_external(en->meter) && !have->has_energy) return 4;
  return !en->meter ? (have->has_energy ? 3 : 0) : fupermod_meter_is_estimate(en->meter) ? 2 : 1;
}

/* This process's summary: points measured, min and max speed (units/s), min and max J/unit,
 * repetitions rejected as outliers and in how many sizes; marks: points abandoned, imprecise. */
static void point_stats(const tool_proc *en, const fupermod_points *have, double mine[7], int marks[2]) {
  const double init[7] = {0.0, INFINITY, 0.0, INFINITY, 0.0, 0.0, 0.0};
  memcpy(mine, init, sizeof init);
  marks[0] = marks[1] = 0;
  for (int i = 0; i < have->count; i++) {
    double s = (double)have->pts[i].d / have->pts[i].t; /* units/s, as fupermod model prints */
    if (fupermod_point_abandoned(&have->pts[i])) {
      marks[0]++;
      continue;
    }
    if (fupermod_point_imprecise(&have->pts[i])) marks[1]++;
    mine[0]++;
    mine[5] += have->pts[i].rejected;
    mine[6] += have->pts[i].rejected > 0;
    if (s < mine[1]) mine[1] = s;
    if (s > mine[2]) mine[2] = s;
    if (have->has_energy) {
      double epu = have->pts[i].e / (double)have->pts[i].d;
      if (epu < mine[3]) mine[3] = epu;
      if (epu > mine[4]) mine[4] = epu;
    }
  }
}

/* Rank 0: the table of every process's point_stats and energy_source. */
static void print_table(const build_opts *o, int size, const double *all, const int *kinds) {
  static const char *src[] = {"none", "measured", "ESTIMATE", "kernel", "to import"};
  double rejected = 0.0;
  printf("# %d processes, %d sizes, points in %s\n# %6s %8s %14s %14s %9s %6s %10s %14s %14s\n", size, o->nsizes,
         o->data, "rank", "points", "min units/s", "max units/s", "rejected", "sizes", "energy", "min J/unit", "max J/unit");
  for (int r = 0; r < size; r++) {
    const double *v = all + 7 * r;
    printf("  %6d %8.0f %14.6g %14.6g %9.0f %6.0f %10s", r, v[0], v[1], v[2], v[5], v[6], src[kinds[r]]);
    if (isfinite(v[3])) printf(" %14.6g %14.6g", v[3], v[4]);
    printf("\n");
    rejected += v[5];
  }
  if (rejected > 0)
    printf("# rejected: repetitions left out of the points as outlying (in that many sizes; rejected=N in the\n"
           "# point files, per size in 'fupermod model show'; docs/models.md)\n");
  if (o->prec.keep_outliers) printf("# --keep-outliers: every repetition is averaged, outlying ones included\n");
  for (int r = 0; r < size; r++)
    if (kinds[r] == 2) {
      printf("# ESTIMATE: energies of the processes marked so come from the model meter (power x time), "
             "not from a measurement\n");
      break;
    }
}

/* Collective. Per process the number of measured points, the range of speeds and where energies
 * come from; on stderr, how many points the files mark abandoned or imprecise. */
static void print_summary(const build_opts *o, const tool_proc *en, const fupermod_points *have, int rank, int size) {
  double mine[7], *all = NULL;
  int kind = energy_source(en, have), *kinds = NULL, marks[2], allmarks[2] = {0, 0};
  point_stats(en, have, mine, marks);
  if (rank == 0) {
    all = malloc((size_t)size * 7 * sizeof *all);
    kinds = malloc((size_t)size * sizeof *kinds);
  }
  MPI_Gather(mine, 7, MPI_DOUBLE, all, 7, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  MPI_Gather(&kind, 1, MPI_INT, kinds, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Reduce(marks, allmarks, 2, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  /* warnings, not progress: -q keeps them */
  if (rank == 0 && allmarks[0])
    fprintf(stderr, "fupermod build: %d points abandoned (a run slower than the minimum speed, -z): marked "
            "'abandoned' in the point files; models and partitioners leave them out\n", allmarks[0]);
  if (rank == 0 && allmarks[1])
    fprintf(stderr, "fupermod build: %d points imprecise (half-width above the time when the repetition or time "
            "limit ended them): marked 'imprecise' in the point files\n", allmarks[1]);
  if (rank == 0 && all && kinds) print_table(o, size, all, kinds);
  free(all);
  free(kinds);
}

/* The watchdog thread runs while there is a time limit per point; 1 when it started. */
static int watchdog_start(watchdog *wd, pthread_t *th, const fupermod_precision *prec, int rank) {
  int len;
  if (!(prec->time_max > 0)) return 0;
  wd->limit = 2 * prec->time_max;
  wd->rank = rank;
  MPI_Get_processor_name(wd->host, &len);
  return pthread_create(th, NULL, watch, wd) == 0;
}

static void watchdog_stop(watchdog *wd, pthread_t th) {
  __atomic_store_n(&wd->stop, 1, __ATOMIC_RELEASE);
  pthread_join(th, NULL);
}

int cmd_build(int argc, char **argv) {
  build_opts o;
  int rc = FUPERMOD_SUCCESS, rank, size, status, wd_on = 0, lockfd = -1;
  fupermod_points have = {0, NULL, 0};
  tool_proc en;
  char path[4096];
  double start;
  watchdog wd;
  pthread_t wd_thread;
  MPI_Comm share = MPI_COMM_NULL; /* the processes sharing this one's cores (fixed grid) */
  opts_init(&o);
  if ((status = parse_options(argc, argv, &o)) == GO_ON) status = check_options(&o);
  if (status != GO_ON || (status = tool_mpi_init(SUB, &argc, &argv, TOOL_MPI_LEVEL)) != 0) {
    opts_free(&o);
    return status;
  }
  memset(&en, 0, sizeof en);
  memset(&wd, 0, sizeof wd);
  en.intra = MPI_COMM_NULL;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if ((rc = tool_proc_setup(SUB, o.confpath, o.kname, o.quiet, &en)) != FUPERMOD_SUCCESS) goto done;
  if (o.distpath) {
    rc = check_dist(o.distpath, &en, &o.prec, rank, size);
    goto done;
  }
  if ((rc = tool_agree(SUB, fupermod_mkdir_p(o.data), MPI_COMM_WORLD)) != FUPERMOD_SUCCESS) goto done;
  /* what another job wrote until it let go is read after the lock is taken */
  if ((rc = tool_dir_lock(SUB, o.data, o.lock_wait, &lockfd)) != FUPERMOD_SUCCESS) goto done;
  if (o.combos.n) {
    rc = tool_additivity(SUB, o.confpath, &en, &o.combos, &o.prec, o.data, o.quiet);
    goto done;
  }
  tool_points_path(path, sizeof path, o.data, &en.conf.procs[en.index]);
  if ((rc = tool_agree(SUB, open_point_file(&o, &en, path, &have), MPI_COMM_WORLD)) != FUPERMOD_SUCCESS) goto done;
  start = fupermod_time();
  wd_on = watchdog_start(&wd, &wd_thread, &o.prec, rank);
  if (o.adaptive) {
    o.ad.watch_d = &wd.d;
    if ((rc = tool_adaptive_build(&o.ad, &en, en.kernel, &o.prec, path, &have)) != FUPERMOD_SUCCESS) goto done;
    o.nsizes = o.ad.ngrid;
    if (rank == 0) {
      printf("# adaptive: %d rounds%s\n", o.ad.rounds,
             o.ad.converged ? ", the distribution stable" : ", stopped by the round cap");
      tool_adaptive_report(stdout, o.ad.all, size, o.sizes, o.nsizes);
    }
  } else if ((rc = build_grid(&o, &en, path, &have, &wd.d, &share, rank, start)) != FUPERMOD_SUCCESS) {
    goto done;
  }
  print_summary(&o, &en, &have, rank, size);
done:
  if (share != MPI_COMM_NULL) MPI_Comm_free(&share);
  if (wd_on) watchdog_stop(&wd, wd_thread);
  tool_dir_unlock(&lockfd);
  status = fupermod_exit_status(rc);
  tool_proc_free(&en);
  tool_exec_close();
  fupermod_points_free(&have);
  opts_free(&o);
  MPI_Finalize();
  return status;
}
