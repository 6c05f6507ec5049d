/* fupermod sweep: every workload of a range partitioned by the optimal algorithm and by the
 * alternatives, every distribution evaluated on one model of the functions, and the optimum's gain
 * over each alternative per workload with its minimum, average and maximum (docs/evaluation.md). */
#include <dirent.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "partitioners/partitioners.h"
#include "tools/tools.h"

static const char *SUB = "sweep";

enum { MODE_TIME, MODE_ENERGY, MODE_PARETO };
/* the table-solved algorithms choose among the measured sizes, or among every share of one unit
 * on the model that judges (auto: the unit grid while its table costs at most UNIT_BUDGET) */
enum { GRID_AUTO, GRID_UNIT, GRID_MEASURED };
#define UNIT_BUDGET 2e9
#define MAX_ALGS 32
#define MAX_WORKLOADS 100000L
#define DEFAULT_WORKLOADS 1000L
#define DEFAULT_ALTS "balanced,geometric,numerical,cpm,even"

typedef struct {
  const fupermod_partitioner *alg;
  int objective;            /* of the problems it is given */
  fupermod_dp_table *table; /* one table serves every workload, or NULL */
  int own_table;            /* this entry frees it */
  char why[512];            /* the first refusal's message */
} algo_t;

/* one algorithm at one workload */
typedef struct {
  int status;          /* FUPERMOD_SUCCESS, FUPERMOD_ERR_INFEASIBLE or the refusal's status */
  int idle, outside;   /* processors idle, and given a size outside their measured range */
  double t, e;         /* on the common model; Pareto: the time-optimal end of the front */
  int front;           /* Pareto: its points */
  double t_end, e_end; /* Pareto: the energy-optimal end */
} cell_t;

typedef struct {
  int mode, nf, p, na, parts_out, nnames, piecewise;
  long k, smooth;
  char **names; /* the files of the nf functions */
  fupermod_points *pts;
  const fupermod_points **f; /* p: copy c of function u is processor c nf + u */
  fupermod_model **pw;       /* --eval piecewise: the model of each function */
  int grid;                  /* GRID_*: the shares the table-solved algorithms choose among */
  fupermod_points *dense;    /* GRID_UNIT: each function at every size 1..its largest, on the model */
  const fupermod_points **fd; /* p pointers into dense */
  double unit_cost;          /* the unit grid's table cost (p x Dmax x sizes), for the header */
  algo_t algs[MAX_ALGS];     /* [0] the optimum */
  long *D, nD, g, capacity;
  cell_t *cells; /* nD x na */
  long *parts;   /* nD x na x p with --parts */
} sweep_t;

static void help(void) {
  printf("usage: fupermod sweep [-D RANGE] [-F max|sum|pareto] [--optimal ALGO] [-a ALGO,...] [-k K]\n"
         "                      [--smooth W] [--eval interpolate|piecewise] [--threads T] [--csv FILE]\n"
         "                      [--out DIR] [--parts] [--summary] [--grid unit|measured] [-q] FILE...|DIR\n"
         "       fupermod sweep ... --conf CONF [--data DIR]\n\n"
         "Partitions every workload D of a range with the optimal algorithm and with the alternatives,\n"
         "evaluates every distribution on the same model of the functions (the measured point at a\n"
         "measured size, speed and energy per unit interpolated linearly between), and reports\n"
         "per D each algorithm's time and dynamic energy and the optimum's gain over it, then the\n"
         "minimum, average and maximum gain over the range (docs/evaluation.md).\n\n"
         "The functions: point files, one per processor; a directory of them (a fupermod run's\n"
         "DIR/models/APP, or DIR itself when it holds one application); --conf CONF --data DIR (the\n"
         "files fupermod build wrote); or --conf CONF alone for emulated processors (points=FILE).\n"
         "  -D RANGE        START:END:STEP, START:END (step: the granule, the gcd of the sizes), or\n"
         "                  D1,D2,... (default: the granule to what the functions hold, in granule\n"
         "                  steps, at most %ld workloads)\n"
         "  -F max          time: the optimum hpopta, gain (T_alg - T_opt) / T_opt x 100 %% (default)\n"
         "  -F sum          dynamic energy: the optimum heopta, gain (E_alg - E_opt) / E_opt x 100 %%,\n"
         "                  and the time optimum (hpopta) among the alternatives\n"
         "  -F pareto       the Pareto front of time and energy (hepopta): its size and the spread of\n"
         "                  its ends; the alternatives' gains against its time and its energy end\n"
         "  --optimal ALGO  the optimum (default: hpopta, heopta, hepopta by -F)\n"
         "  -a ALGO,...     the alternatives (default %s)\n"
         "  -k K            K copies of the platform (a simulated platform of K nodes)\n"
         "  --eval piecewise  evaluate between measured sizes on the coarsened piecewise model instead\n"
         "                  (GPA's: a non-concave function looks faster between its sizes)\n"
         "  --smooth W      partition and evaluate smoothed functions, as fupermod run does: local fits\n"
         "                  of log time over the measured sizes near each (docs/models.md)\n"
         "  --threads T     threads over the workloads (default: OMP_NUM_THREADS, else every core)\n"
         "  --csv FILE      one CSV row per workload and algorithm\n"
         "  --out DIR       DIR/sweep.csv, DIR/gain.dat, DIR/sweep.gp and, with gnuplot, the plots of the\n"
         "                  gain against D (DIR/gain-time.png, gain-energy.png, front.png)\n"
         "  --parts         the distributions in the CSV (column parts)\n"
         "  --summary       print the summary only, not the row of every workload\n"
         "  --grid unit     the time or energy optimum chooses every share of one unit up to each\n"
         "                  function's largest measured size, on the model that evaluates all, so no\n"
         "                  alternative inside the measured sizes beats it (the default while its dp\n"
         "                  table costs at most %.0g size steps: p x Dmax x sizes)\n"
         "  --grid measured the optimum chooses among the measured sizes, as fupermod partition does\n"
         "  -q              no progress on stderr\n\n"
         "dp and hpopta (the same distribution) are computed from one dp table for the whole range;\n"
         "past dp's table limit they run per workload. Marks: infeasible (no distribution), idle N\n"
         "(processors left idle), outside N (shares beyond the measured sizes, extrapolated).\n"
         "exit status: 0 ok, 1 bad input, 2 usage, 3 no workload of the range has a feasible optimum\n",
         DEFAULT_WORKLOADS, DEFAULT_ALTS, UNIT_BUDGET);
}

/* ---- input ---- */

typedef struct {
  char *path, *host;
  long rank;
} named_file;

static int by_host_rank(const void *a, const void *b) {
  const named_file *x = a, *y = b;
  int c = strcmp(x->host, y->host);
  return c ? c : (x->rank > y->rank) - (x->rank < y->rank);
}

static int is_dir(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The *.points files directly in dir, in (host, rank) order for HOST.RANK.points. */
static int list_points(const char *dir, named_file **out, int *n) {
  DIR *dp = opendir(dir);
  struct dirent *de;
  int cap = 0, rc = FUPERMOD_SUCCESS;
  *out = NULL;
  *n = 0;
  if (!dp) return fupermod_error(FUPERMOD_ERR_INPUT, "%s: cannot open the directory", dir);
  while ((de = readdir(dp))) {
    size_t len = strlen(de->d_name);
    named_file *nf;
    char *dot;
    if (de->d_name[0] == '.' || len < 8 || strcmp(de->d_name + len - 7, ".points") != 0) continue;
    if (*n == cap) {
      named_file *g = realloc(*out, (size_t)(cap ? 2 * cap : 16) * sizeof *g);
      if (!g) {
        rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
        break;
      }
      *out = g;
      cap = cap ? 2 * cap : 16;
    }
    nf = &(*out)[*n];
    nf->path = malloc(strlen(dir) + len + 2);
    nf->host = strdup(de->d_name);
    if (!nf->path || !nf->host) {
      free(nf->path);
      free(nf->host);
      rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
      break;
    }
    sprintf(nf->path, "%s/%s", dir, de->d_name);
    nf->host[len - 7] = '\0';
    nf->rank = -1;
    if ((dot = strrchr(nf->host, '.')) && fupermod_parse_long(dot + 1, &nf->rank) == 0) *dot = '\0';
    (*n)++;
  }
  closedir(dp);
  if (*n > 1) qsort(*out, (size_t)*n, sizeof **out, by_host_rank);
  return rc;
}

/* DIR holds point files; or it is a fupermod run's output with one application in DIR/models. */
static int resolve_dir(const char *dir, char *buf, size_t size) {
  char models[4096];
  DIR *dp;
  struct dirent *de;
  int apps = 0;
  char list[1024] = "";
  snprintf(buf, size, "%s", dir);
  snprintf(models, sizeof models, "%s/models", dir);
  if (!is_dir(models)) return FUPERMOD_SUCCESS;
  if (!(dp = opendir(models))) return FUPERMOD_SUCCESS;
  while ((de = readdir(dp))) {
    char sub[4096];
    if (de->d_name[0] == '.' || snprintf(sub, sizeof sub, "%s/%s", models, de->d_name) >= (int)sizeof sub ||
        !is_dir(sub))
      continue;
    if (apps++ == 0 && snprintf(buf, size, "%s", sub) >= (int)size) continue;
    snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", apps > 1 ? ", " : "", de->d_name);
  }
  closedir(dp);
  if (apps > 1)
    return fupermod_error(FUPERMOD_ERR_USAGE, "%s holds the models of several applications (%s): name one, e.g. %s",
                          models, list, buf);
  return FUPERMOD_SUCCESS;
}

/* The files named on the command line, or found in the one directory named. */
static int load_files(sweep_t *s, int nargs, char **args) {
  named_file *list = NULL;
  int n = 0, rc = FUPERMOD_SUCCESS, owned = nargs == 1 && is_dir(args[0]);
  char dir[4096];
  if (owned) {
    if ((rc = resolve_dir(args[0], dir, sizeof dir)) == FUPERMOD_SUCCESS && (rc = list_points(dir, &list, &n)) ==
        FUPERMOD_SUCCESS && n == 0)
      rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s: no point files (*.points) in the directory", dir);
  } else if (!(list = calloc((size_t)nargs, sizeof *list)))
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  else
    for (; n < nargs; n++) list[n].path = args[n];
  if (rc == FUPERMOD_SUCCESS && !(s->names = calloc((size_t)n, sizeof *s->names)))
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  for (int i = 0; rc == FUPERMOD_SUCCESS && i < n; i++)
    if (!(s->names[s->nnames++] = strdup(list[i].path))) rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  for (int i = 0; owned && i < n; i++) {
    free(list[i].path);
    free(list[i].host);
  }
  free(list);
  return rc == FUPERMOD_SUCCESS ? tool_load_files(n, s->names, &s->pts, &s->nf) : rc;
}

#ifndef TOOL_LEAN
/* --conf CONF alone: each line's emulated processor (kernel=emulated,points=FILE) is its function. */
static int load_emulated(sweep_t *s, const char *conf) {
  fupermod_conf c;
  int rc = fupermod_conf_load(conf, &c);
  if (rc != FUPERMOD_SUCCESS) return rc;
  if (!(s->names = calloc((size_t)c.count, sizeof *s->names))) rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  for (int i = 0; rc == FUPERMOD_SUCCESS && i < c.count; i++) {
    char kernel[64], path[4096];
    const fupermod_process_conf *pc = &c.procs[i];
    if (fupermod_subopt_get(pc->subopts, "kernel", kernel, sizeof kernel) <= 0 || strcmp(kernel, "emulated") != 0 ||
        fupermod_subopt_get(pc->subopts, "points", path, sizeof path) <= 0)
      rc = fupermod_error(FUPERMOD_ERR_USAGE,
                          "%s:%d: without --data DIR every line must be an emulated processor "
                          "(kernel=emulated,points=FILE), whose file is its function",
                          conf, pc->line);
    else if (!(s->names[s->nnames++] = strdup(path)))
      rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  }
  if (rc == FUPERMOD_SUCCESS) rc = tool_load_files(c.count, s->names, &s->pts, &s->nf);
  fupermod_conf_free(&c);
  return rc;
}

/* --conf CONF --data DIR: the files fupermod build wrote, named HOST.RANK.points */
static int load_conf_data(sweep_t *s, const char *conf, const char *data) {
  fupermod_conf c;
  int rc = fupermod_conf_load(conf, &c);
  if (rc != FUPERMOD_SUCCESS) return rc;
  if (!(s->names = calloc((size_t)c.count, sizeof *s->names))) rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  for (int i = 0; rc == FUPERMOD_SUCCESS && i < c.count; i++) {
    char path[4096];
    tool_points_path(path, sizeof path, data, &c.procs[i]);
    if (!(s->names[s->nnames++] = strdup(path))) rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  }
  if (rc == FUPERMOD_SUCCESS) rc = tool_load_points(0, NULL, conf, data, &s->pts, &s->nf);
  fupermod_conf_free(&c);
  return rc;
}
#endif

/* ---- the workloads ---- */

static long gcd(long a, long b) { return b ? gcd(b, a % b) : a; }

static int add_D(sweep_t *s, long D, long *cap) {
  if (s->nD == MAX_WORKLOADS)
    return fupermod_error(FUPERMOD_ERR_USAGE, "-D: more than %ld workloads", MAX_WORKLOADS);
  if (s->nD == *cap) {
    long *g = realloc(s->D, (size_t)(*cap ? 2 * *cap : 64) * sizeof *g);
    if (!g) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
    s->D = g;
    *cap = *cap ? 2 * *cap : 64;
  }
  s->D[s->nD++] = D;
  return FUPERMOD_SUCCESS;
}

typedef struct {
  sweep_t *s;
  long cap;
} list_ctx;

static int list_item(const char *item, void *ctx) {
  list_ctx *l = ctx;
  long D;
  if (fupermod_parse_long(item, &D) || D < 0) {
    fupermod_error(FUPERMOD_ERR_USAGE, "-D: '%s' is not an integer >= 0", item);
    return -1;
  }
  return add_D(l->s, D, &l->cap) == FUPERMOD_SUCCESS ? 0 : -1;
}

/* -D START:END[:STEP] or D1,D2,...; none: the granule to the capacity in granule steps (thinned) */
static int parse_range(sweep_t *s, const char *spec) {
  long a, b, step = s->g, cap = 0;
  char buf[128], *c1, *c2;
  if (!spec) {
    long n = s->capacity / s->g;
    step = s->g * ((n + DEFAULT_WORKLOADS - 1) / DEFAULT_WORKLOADS);
    for (long i = 1; i <= s->capacity / step; i++)
      if (add_D(s, i * step, &cap) != FUPERMOD_SUCCESS) return FUPERMOD_ERR_USAGE;
    return FUPERMOD_SUCCESS;
  }
  if (!strchr(spec, ':')) {
    list_ctx l = {s, 0};
    return tool_list("-D", spec, 64, list_item, &l);
  }
  if (strlen(spec) >= sizeof buf) return fupermod_error(FUPERMOD_ERR_USAGE, "-D '%s' is too long", spec);
  strcpy(buf, spec);
  c1 = strchr(buf, ':');
  *c1++ = '\0';
  if ((c2 = strchr(c1, ':'))) *c2++ = '\0';
  if (fupermod_parse_long(buf, &a) || a < 0 || fupermod_parse_long(c1, &b) || b < a ||
      (c2 && (fupermod_parse_long(c2, &step) || step < 1)))
    return fupermod_error(FUPERMOD_ERR_USAGE,
                          "-D '%s' must be START:END[:STEP] with 0 <= START <= END and STEP >= 1 (or D1,D2,...)", spec);
  if ((b - a) / step >= MAX_WORKLOADS)
    return fupermod_error(FUPERMOD_ERR_USAGE, "-D '%s' makes more than %ld workloads", spec, MAX_WORKLOADS);
  for (long D = a; D <= b && D >= 0; D += step) {
    if (add_D(s, D, &cap) != FUPERMOD_SUCCESS) return FUPERMOD_ERR_USAGE;
    if (D > LONG_MAX - step) break;
  }
  return FUPERMOD_SUCCESS;
}

/* ---- the algorithms ---- */

static int add_alg(sweep_t *s, const char *name, int objective) {
  const fupermod_partitioner *alg = fupermod_partitioner_find(name);
  if (!alg) return FUPERMOD_ERR_USAGE; /* the message: the closest name, the known ones */
  if (strcmp(alg->name, "paraleph") == 0)
    return fupermod_error(FUPERMOD_ERR_USAGE, "paraleph runs under MPI: dp and hpopta give its distribution");
  if (alg->needs_static_power)
    return fupermod_error(FUPERMOD_ERR_USAGE, "%s needs a static power, which the sweep does not take", alg->name);
  if (objective == FUPERMOD_OBJ_PARETO ? !alg->pareto : alg->kind == FUPERMOD_PART_PARETO)
    return fupermod_error(FUPERMOD_ERR_USAGE, "%s %s", alg->name,
                          objective == FUPERMOD_OBJ_PARETO ? "gives no Pareto front (-F pareto takes hepopta, aleph or dp)"
                                                           : "gives a Pareto front: it is the optimum of -F pareto");
  if (s->na == MAX_ALGS) return fupermod_error(FUPERMOD_ERR_USAGE, "-a: more than %d algorithms", MAX_ALGS - 1);
  for (int a = 1; a < s->na; a++)
    if (s->algs[a].alg == alg && objective == s->algs[a].objective)
      return fupermod_error(FUPERMOD_ERR_USAGE, "-a: %s is named twice", alg->name);
  s->algs[s->na].alg = alg;
  s->algs[s->na].objective = objective;
  s->na++;
  return FUPERMOD_SUCCESS;
}

static int alt_item(const char *item, void *ctx) {
  return add_alg(ctx, item, FUPERMOD_OBJ_TIME) == FUPERMOD_SUCCESS ? 0 : -1;
}

/* Each algorithm's problem checked once for the whole range (its kind of functions, energy). */
static int check_algs(const sweep_t *s) {
  fupermod_problem prob = {0, s->p, s->f, 0.0, 0, FUPERMOD_OBJ_TIME};
  for (int u = 0; u < s->nf; u++)
    if (!s->pts[u].has_energy && (s->mode != MODE_TIME || s->algs[0].alg->needs_energy))
      return fupermod_error(FUPERMOD_ERR_INPUT, "%s: no energy (columns e e_ci), which %s needs", s->names[u],
                            s->mode == MODE_TIME ? s->algs[0].alg->name : s->mode == MODE_ENERGY ? "-F sum" : "-F pareto");
  for (int a = 0; a < s->na; a++) {
    const fupermod_partitioner *alg = s->algs[a].alg;
    int rc;
    if (alg->kind == FUPERMOD_PART_CONTINUOUS) continue;
    if ((rc = fupermod_problem_check(&prob, alg)) != FUPERMOD_SUCCESS) return fupermod_error_prefix(rc, "%s", alg->name);
  }
  return FUPERMOD_SUCCESS;
}

/* dp and hpopta read one dp table for the whole range; past dp's limit they run per workload. */
static int build_tables(sweep_t *s, long Dmax, int quiet) {
  fupermod_dp_table *shared[2] = {NULL, NULL}; /* time, energy */
  int tried[2] = {0, 0};
  for (int a = 0; a < s->na; a++) {
    algo_t *A = &s->algs[a];
    int energy = A->objective == FUPERMOD_OBJ_ENERGY, rc;
    fupermod_problem prob = {Dmax, s->p, s->fd ? s->fd : s->f, 0.0, 0, A->objective};
    /* on the unit grid the exact energy optimum is the table's too: heopta per workload would
     * cost a table each */
    if (!(strcmp(A->alg->name, "dp") == 0 || (strcmp(A->alg->name, "hpopta") == 0 && !energy) ||
          (s->fd && strcmp(A->alg->name, "heopta") == 0)) ||
        A->objective == FUPERMOD_OBJ_PARETO)
      continue;
    if (!tried[energy]) {
      tried[energy] = 1;
      rc = fupermod_dp_table_build(&prob, &shared[energy]);
      if (rc == FUPERMOD_ERR_NOMEM) {
        if (!quiet)
          fprintf(stderr, "fupermod sweep: one table for the range is refused (%s): dp and hpopta run per workload\n",
                  fupermod_error_message());
      } else if (rc != FUPERMOD_SUCCESS)
        return rc;
      else
        A->own_table = 1;
    }
    A->table = shared[energy];
  }
  return FUPERMOD_SUCCESS;
}

/* ---- one workload ---- */

typedef struct {
  fupermod_dist *dist;
  fupermod_model **m, **own; /* p pointers to the nf models of a continuous algorithm */
  fupermod_front front;
} scratch_t;

/* dist on the common model: the measured point at a measured size, elsewhere the interpolation
 * (fupermod run's predictions), or with --eval piecewise the coarsened piecewise model */
static void evaluate(const sweep_t *s, const fupermod_dist *dist, cell_t *c, long *parts) {
  double T = 0.0, E = 0.0;
  c->idle = c->outside = 0;
  for (int i = 0; i < dist->size; i++) {
    const int u = i % s->nf;
    const fupermod_points *f = s->f[u];
    const long d = dist->parts[i].d;
    int k = d > 0 ? fupermod_points_find(f, d) : -1;
    double t = 0.0, e = 0.0;
    if (parts) parts[i] = d;
    if (d == 0) {
      c->idle++;
      continue;
    }
    if (k >= 0) {
      t = f->pts[k].t;
      e = f->has_energy ? f->pts[k].e : NAN;
    } else {
      if (s->pw) {
        t = fupermod_model_time(s->pw[u], (double)d);
        e = fupermod_model_energy(s->pw[u], (double)d);
      } else
        fupermod_points_interpolate(f, (double)d, &t, &e);
      c->outside += d < f->pts[0].d || d > f->pts[f->count - 1].d;
    }
    T = t > T ? t : T;
    E += e;
  }
  c->t = T;
  c->e = E;
}

static void refused(algo_t *A) {
#pragma omp critical(sweep_why)
  if (!A->why[0]) snprintf(A->why, sizeof A->why, "%s", fupermod_error_message());
}

static void run_one(sweep_t *s, int a, long w, scratch_t *sc) {
  algo_t *A = &s->algs[a];
  const fupermod_partitioner *alg = A->alg;
  const long D = s->D[w];
  cell_t *c = &s->cells[w * s->na + a];
  long *parts = s->parts ? s->parts + (size_t)(w * s->na + a) * (size_t)s->p : NULL;
  fupermod_problem prob = {D, s->p, s->f, 0.0, 0, A->objective};
  int rc = FUPERMOD_SUCCESS;
  memset(c, 0, sizeof *c);
  sc->dist->D = D;
  if (A->table)
    rc = fupermod_dp_table_solve(A->table, D, sc->dist);
  else if (alg->kind == FUPERMOD_PART_CONTINUOUS) {
    /* the models fupermod partition would build for this D; copies of a function share one */
    for (int u = 0; u < s->nf && rc == FUPERMOD_SUCCESS; u++)
      rc = fupermod_model_create(alg->model_type, s->f[u], D, &sc->own[u]);
    for (int i = 0; i < s->p; i++) sc->m[i] = sc->own[i % s->nf];
    if (rc == FUPERMOD_SUCCESS) rc = alg->continuous(s->p, sc->m, sc->dist);
    for (int u = 0; u < s->nf; u++) {
      fupermod_model_free(sc->own[u]);
      sc->own[u] = NULL;
    }
  } else if (A->objective == FUPERMOD_OBJ_PARETO) {
    if ((rc = alg->pareto(&prob, &sc->front)) == FUPERMOD_SUCCESS && sc->front.count > 0) {
      cell_t end;
      evaluate(s, sc->front.points[sc->front.count - 1].dist, &end, NULL);
      evaluate(s, sc->front.points[0].dist, c, parts);
      c->front = sc->front.count;
      c->t_end = end.t;
      c->e_end = end.e;
    }
    fupermod_front_free(&sc->front);
    c->status = rc;
    if (rc != FUPERMOD_SUCCESS && rc != FUPERMOD_ERR_INFEASIBLE) refused(A);
    return;
  } else
    rc = alg->discrete(&prob, sc->dist);
  c->status = rc;
  if (rc == FUPERMOD_SUCCESS) evaluate(s, sc->dist, c, parts);
  else if (rc != FUPERMOD_ERR_INFEASIBLE) refused(A);
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Every workload, over the threads; progress on stderr every 2 s. */
static int run_all(sweep_t *s, int quiet) {
  const double t0 = now();
  double next = t0 + 2.0;
  long done = 0;
  int rc = FUPERMOD_SUCCESS;
#pragma omp parallel
  {
    scratch_t sc = {fupermod_dist_alloc(0, s->p), calloc((size_t)s->p, sizeof(fupermod_model *)),
                    calloc((size_t)s->nf, sizeof(fupermod_model *)), {0, NULL}};
    int ok = sc.dist && sc.m && sc.own;
    if (!ok) {
#pragma omp critical(sweep_rc)
      rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
    }
#pragma omp for schedule(dynamic, 1)
    for (long w = 0; w < s->nD; w++) {
      if (!ok) continue;
      for (int a = 0; a < s->na; a++) run_one(s, a, w, &sc);
#pragma omp critical(sweep_progress)
      {
        double t = now();
        done++;
        if (!quiet && t >= next && done < s->nD) {
          fprintf(stderr, "fupermod sweep: %ld of %ld workloads, %.1f s\n", done, s->nD, t - t0);
          next = t + 2.0;
        }
      }
    }
    fupermod_dist_free(sc.dist);
    free(sc.m);
    free(sc.own);
  }
  return rc;
}

/* ---- the report ---- */

static const cell_t *cell(const sweep_t *s, long w, int a) { return &s->cells[w * s->na + a]; }

/* The optimum's gain over algorithm a at workload w, in time or energy (%); NAN where either has
 * no distribution or the optimum's value is 0. Pareto: against the front's end of that objective. */
static double gain(const sweep_t *s, long w, int a, int energy) {
  const cell_t *o = cell(s, w, 0), *c = cell(s, w, a);
  double ref = energy ? (s->mode == MODE_PARETO ? o->e_end : o->e) : o->t, alt = energy ? c->e : c->t;
  if (o->status != FUPERMOD_SUCCESS || c->status != FUPERMOD_SUCCESS || !(ref > 0) || !isfinite(alt)) return NAN;
  return (alt - ref) / ref * 100.0;
}

/* which gains the mode reports: bit 0 time, bit 1 energy */
static int gains_of(const sweep_t *s) { return s->mode == MODE_TIME ? 1 : s->mode == MODE_ENERGY ? 2 : 3; }

static const char *status_word(int status) {
  return status == FUPERMOD_SUCCESS ? "ok" : status == FUPERMOD_ERR_INFEASIBLE ? "infeasible" : "refused";
}

static void notes(const cell_t *c, char *buf, size_t size) {
  buf[0] = '\0';
  if (c->status != FUPERMOD_SUCCESS) {
    snprintf(buf, size, "%s", status_word(c->status));
    return;
  }
  if (c->idle) snprintf(buf + strlen(buf), size - strlen(buf), "idle %d", c->idle);
  if (c->outside) snprintf(buf + strlen(buf), size - strlen(buf), "%soutside %d", buf[0] ? ", " : "", c->outside);
}

static void print_number(double x, const char *fmt) {
  if (isfinite(x)) printf(fmt, x);
  else printf(" %10s", "-");
}

static const char *mode_name(int mode) {
  return mode == MODE_TIME ? "time (-F max)" : mode == MODE_ENERGY ? "dynamic energy (-F sum)" : "Pareto front (-F pareto)";
}

static void print_header(const sweep_t *s) {
  const char *opt = s->algs[0].alg->name;
  printf("# fupermod sweep: %d processors", s->p);
  if (s->k > 1) printf(" (%ld copies of %d)", s->k, s->nf);
  printf(", %ld workloads from D=%ld to D=%ld, objective %s\n", s->nD, s->D[0], s->D[s->nD - 1], mode_name(s->mode));
  printf("# functions:");
  for (int u = 0; u < s->nf && u < 8; u++) printf(" %s", s->names[u]);
  if (s->nf > 8) printf(" ... (%d files)", s->nf);
  printf("\n# granule %ld, the functions hold at most D=%ld\n", s->g, s->capacity);
  if (s->smooth > 0)
    printf("# smoothed functions (--smooth %ld): local fits of log time over the measured sizes near each, as\n"
           "# fupermod run partitions and predicts\n", s->smooth);
  if (s->piecewise)
    printf("# every distribution is evaluated on one model: the measured point at a measured size, the\n"
           "# coarsened piecewise model elsewhere (--eval piecewise); idle processors cost nothing\n");
  else
    printf("# every distribution is evaluated on one model: the measured point at a measured size, speed and\n"
           "# energy per unit interpolated linearly between (beyond the ends: the end's), as fupermod run predicts;\n"
           "# idle processors cost nothing\n");
  for (int a = 0; a < s->na; a++)
    if (s->algs[a].table && (a == 0 || s->algs[a].own_table))
      printf("# %s: one dp table serves every workload (%s)\n", s->algs[a].alg->name,
             s->algs[a].objective == FUPERMOD_OBJ_ENERGY ? "dp's minimum energy" : "dp's tie rule, hpopta's distribution");
  if (s->fd && s->algs[0].table)
    printf("# %s chooses among every share of one unit up to each function's largest measured size, on the\n"
           "# model that evaluates all (--grid unit): no alternative inside the measured sizes can beat it there\n", opt);
  else
    printf("# %s chooses among the measured sizes only (%s):\n"
           "# an alternative given other sizes can come out ahead on the interpolated model\n", opt,
           s->grid == GRID_MEASURED ? "--grid measured"
           : s->mode == MODE_PARETO || !s->algs[0].table ? "its front and this algorithm are solved on the measured sizes"
                                                         : "--grid unit would cost too much here");
  if (s->mode == MODE_TIME)
    printf("# gain = (T_alg - T_opt) / T_opt x 100 %%, T_opt the time of %s (> 0: %s is faster)\n", opt, opt);
  else if (s->mode == MODE_ENERGY)
    printf("# gain = (E_alg - E_opt) / E_opt x 100 %%, E_opt the dynamic energy of %s (> 0: %s saves energy)\n", opt,
           opt);
  else
    printf("# the front of %s: time gain = (T_alg - T_fast) / T_fast x 100 %% against its fastest point, energy\n"
           "# gain = (E_alg - E_frugal) / E_frugal x 100 %% against its least energy; spread of its ends: (T_frugal -\n"
           "# T_fast) / T_fast and (E_fast - E_frugal) / E_frugal x 100 %%\n",
           opt);
  printf("# marks: infeasible (no distribution), refused (see below), idle N (processors given nothing),\n"
         "# outside N (shares beyond the measured sizes: the model extrapolates)\n");
}

static void print_rows(const sweep_t *s) {
  const int which = gains_of(s);
  printf("%10s  %-12s %12s %12s", "D", "algorithm", "time (s)", "energy (J)");
  if (which & 1) printf(" %10s", "gain T %");
  if (which & 2) printf(" %10s", "gain E %");
  printf("  notes\n");
  for (long w = 0; w < s->nD; w++)
    for (int a = 0; a < s->na; a++) {
      const cell_t *c = cell(s, w, a);
      char buf[128];
      int ok = c->status == FUPERMOD_SUCCESS;
      printf("%10ld  %-12s", s->D[w], s->algs[a].alg->name);
      print_number(ok ? c->t : NAN, " %12.6g");
      print_number(ok ? c->e : NAN, " %12.6g");
      for (int b = 0; b < 2; b++)
        if (which & (1 << b)) print_number(a ? gain(s, w, a, b) : NAN, " %10.2f");
      notes(c, buf, sizeof buf);
      printf("  %s", buf);
      if (a == 0 && ok && s->mode == MODE_PARETO)
        printf("%sfront %d, least energy %.6g J at %.6g s", buf[0] ? ", " : "", c->front, c->e_end, c->t_end);
      printf("\n");
    }
}

typedef struct {
  long n;
  double min, sum, max, at;
} stat_t;

static void stat_add(stat_t *st, double x, double at) {
  if (!isfinite(x)) return;
  if (st->n == 0 || x < st->min) st->min = x;
  if (st->n == 0 || x > st->max) {
    st->max = x;
    st->at = at;
  }
  st->sum += x;
  st->n++;
}

static void print_stat(const stat_t *st, const char *fmt) {
  if (st->n == 0) {
    printf(" %9s %9s %9s %10s", "-", "-", "-", "-");
    return;
  }
  printf(fmt, st->min);
  printf(fmt, st->sum / (double)st->n);
  printf(fmt, st->max);
  printf(" %10.0f", st->at);
}

/* Minimum, average and maximum over the workloads where both have a distribution. */
static void print_summary(const sweep_t *s) {
  const int which = gains_of(s);
  const char *opt = s->algs[0].alg->name;
  long feasible = 0, idle = 0;
  for (long w = 0; w < s->nD; w++) {
    feasible += cell(s, w, 0)->status == FUPERMOD_SUCCESS;
    idle += cell(s, w, 0)->status == FUPERMOD_SUCCESS && cell(s, w, 0)->idle > 0;
  }
  printf("\n%s: a distribution at %ld of %ld workloads, processors idle at %ld\n", opt, feasible, s->nD, idle);
  if (s->mode == MODE_PARETO) {
    stat_t size = {0}, st = {0}, se = {0};
    for (long w = 0; w < s->nD; w++) {
      const cell_t *o = cell(s, w, 0);
      if (o->status != FUPERMOD_SUCCESS) continue;
      stat_add(&size, o->front, (double)s->D[w]);
      stat_add(&st, o->t > 0 ? (o->t_end - o->t) / o->t * 100.0 : NAN, (double)s->D[w]);
      stat_add(&se, o->e_end > 0 ? (o->e - o->e_end) / o->e_end * 100.0 : NAN, (double)s->D[w]);
    }
    printf("%-28s %9s %9s %9s %10s\n", "front of the optimum", "min", "avg", "max", "max at D");
    printf("%-28s", "  points");
    print_stat(&size, " %9.0f");
    printf("\n%-28s", "  time spread of the ends %");
    print_stat(&st, " %9.2f");
    printf("\n%-28s", "  energy spread of the ends %");
    print_stat(&se, " %9.2f");
    printf("\n");
  }
  if (s->na < 2) return;
  for (int b = 0; b < 2; b++) {
    if (!(which & (1 << b))) continue;
    printf("\ngain of %s in %s over each alternative, %% (min / avg / max over the workloads where both\n"
           "have a distribution):\n", opt, b ? "dynamic energy" : "time");
    printf("  %-12s %9s %9s %9s %10s %9s %10s %7s %8s %8s\n", "algorithm", "min", "avg", "max", "max at D", "workloads",
           "infeasible", "refused", "idle at", "outside");
    for (int a = 1; a < s->na; a++) {
      stat_t st = {0};
      long inf = 0, ref = 0, idl = 0, out = 0;
      for (long w = 0; w < s->nD; w++) {
        const cell_t *c = cell(s, w, a);
        stat_add(&st, gain(s, w, a, b), (double)s->D[w]);
        inf += c->status == FUPERMOD_ERR_INFEASIBLE;
        ref += c->status != FUPERMOD_SUCCESS && c->status != FUPERMOD_ERR_INFEASIBLE;
        idl += c->status == FUPERMOD_SUCCESS && c->idle > 0;
        out += c->status == FUPERMOD_SUCCESS && c->outside > 0;
      }
      printf("  %-12s", s->algs[a].alg->name);
      print_stat(&st, " %9.2f");
      printf(" %9ld %10ld %7ld %8ld %8ld\n", st.n, inf, ref, idl, out);
    }
  }
  for (int a = 0; a < s->na; a++) {
    const char *name = s->algs[a].alg->name, *why = s->algs[a].why;
    size_t n = strlen(name);
    if (!why[0]) continue;
    if (strncmp(why, name, n) == 0 && why[n] == ':') printf("refused: %s\n", why); /* it names itself */
    else printf("refused: %s: %s\n", name, why);
  }
}

static void csv_number(FILE *fp, double x) {
  if (isfinite(x)) fprintf(fp, ",%.17g", x);
  else fputc(',', fp);
}

static int write_csv(const sweep_t *s, const char *path) {
  fupermod_atomic_file af;
  int rc = fupermod_atomic_open(&af, path);
  if (rc != FUPERMOD_SUCCESS) return rc;
  fprintf(af.fp, "D,algorithm,role,status,time,energy,gain_time,gain_energy,idle,outside,front,time_end,energy_end%s\n",
          s->parts ? ",parts" : "");
  for (long w = 0; w < s->nD; w++)
    for (int a = 0; a < s->na; a++) {
      const cell_t *c = cell(s, w, a);
      int ok = c->status == FUPERMOD_SUCCESS, pareto = a == 0 && s->mode == MODE_PARETO && ok;
      fprintf(af.fp, "%ld,%s,%s,%s", s->D[w], s->algs[a].alg->name, a ? "alternative" : "optimum", status_word(c->status));
      csv_number(af.fp, ok ? c->t : NAN);
      csv_number(af.fp, ok ? c->e : NAN);
      csv_number(af.fp, a && (gains_of(s) & 1) ? gain(s, w, a, 0) : NAN);
      csv_number(af.fp, a && (gains_of(s) & 2) ? gain(s, w, a, 1) : NAN);
      if (ok) fprintf(af.fp, ",%d,%d", c->idle, c->outside);
      else fprintf(af.fp, ",,");
      if (pareto) fprintf(af.fp, ",%d", c->front);
      else fputc(',', af.fp);
      csv_number(af.fp, pareto ? c->t_end : NAN);
      csv_number(af.fp, pareto ? c->e_end : NAN);
      if (s->parts) {
        const long *d = s->parts + (size_t)(w * s->na + a) * (size_t)s->p;
        fputc(',', af.fp);
        for (int i = 0; ok && i < s->p; i++) fprintf(af.fp, "%s%ld", i ? " " : "", d[i]);
      }
      fputc('\n', af.fp);
    }
  return fupermod_atomic_commit(&af);
}

static void dat_number(FILE *fp, double x) {
  if (isfinite(x)) fprintf(fp, " %.9g", x);
  else fputs(" ?", fp);
}

/* DIR/gain.dat (D, then per alternative its time and energy gains and its shares outside the
 * measured sizes, then the front) and the plots */
static int write_plots(const sweep_t *s, const char *dir) {
  char dat[4200], gp[4200];
  fupermod_atomic_file af;
  const int which = gains_of(s);
  int rc;
  snprintf(dat, sizeof dat, "%s/gain.dat", dir);
  snprintf(gp, sizeof gp, "%s/sweep.gp", dir);
  if ((rc = fupermod_atomic_open(&af, dat)) != FUPERMOD_SUCCESS) return rc;
  fprintf(af.fp, "# D");
  for (int a = 1; a < s->na; a++)
    fprintf(af.fp, " gain_time_%s gain_energy_%s outside_%s", s->algs[a].alg->name, s->algs[a].alg->name,
            s->algs[a].alg->name);
  fprintf(af.fp, "%s\n", s->mode == MODE_PARETO ? " front time_spread energy_spread" : "");
  for (long w = 0; w < s->nD; w++) {
    const cell_t *o = cell(s, w, 0);
    int ok = o->status == FUPERMOD_SUCCESS;
    fprintf(af.fp, "%ld", s->D[w]);
    for (int a = 1; a < s->na; a++) {
      const cell_t *c = cell(s, w, a);
      dat_number(af.fp, which & 1 ? gain(s, w, a, 0) : NAN);
      dat_number(af.fp, which & 2 ? gain(s, w, a, 1) : NAN);
      dat_number(af.fp, c->status == FUPERMOD_SUCCESS ? c->outside : NAN);
    }
    if (s->mode == MODE_PARETO) {
      dat_number(af.fp, ok ? o->front : NAN);
      dat_number(af.fp, ok && o->t > 0 ? (o->t_end - o->t) / o->t * 100.0 : NAN);
      dat_number(af.fp, ok && o->e_end > 0 ? (o->e - o->e_end) / o->e_end * 100.0 : NAN);
    }
    fputc('\n', af.fp);
  }
  if ((rc = fupermod_atomic_commit(&af)) != FUPERMOD_SUCCESS) return rc;
  if ((rc = fupermod_atomic_open(&af, gp)) != FUPERMOD_SUCCESS) return rc;
  fprintf(af.fp, "set terminal pngcairo size 900,650 noenhanced\nset grid\nset key below\n"
                 "set datafile missing '?'\nset xlabel 'workload D (units)'\n");
  for (int b = 0; b < 2 && s->na > 1; b++) {
    if (!(which & (1 << b))) continue;
    fprintf(af.fp, "set output '%s/gain-%s.png'\nset ylabel 'gain (%%)'\n", dir, b ? "energy" : "time");
    fprintf(af.fp, "set title 'gain of %s in %s: (%s_alg - %s_opt) / %s_opt x 100'\nplot ",
            s->algs[0].alg->name, b ? "dynamic energy" : "time", b ? "E" : "T", b ? "E" : "T", b ? "E" : "T");
    /* open circles where the alternative's shares leave the measured sizes (extrapolated) */
    for (int a = 1; a < s->na; a++)
      fprintf(af.fp, "%s'%s' using 1:%d with linespoints lc %d pt 7 ps 0.4 title '%s', '' using 1:($%d > 0 ? $%d : 1/0) "
              "with points lc %d pt 6 ps 1 %s", a > 1 ? ", " : "", dat, 3 * a - 1 + b, a, s->algs[a].alg->name,
              3 * a + 1, 3 * a - 1 + b, a, a == 1 ? "title 'o: shares outside the measured sizes'" : "notitle");
    fprintf(af.fp, "\n");
  }
  if (s->mode == MODE_PARETO)
    fprintf(af.fp, "set output '%s/front.png'\nset title 'front of %s: points, and the spread of its ends (%%)'\n"
                   "set ylabel 'points'\nset y2label 'spread (%%)'\nset y2tics\nset ytics nomirror\n"
                   "plot '%s' using 1:%d with linespoints pt 7 ps 0.4 title 'points', '' using 1:%d axes x1y2 with lines "
                   "title 'time spread %%', '' using 1:%d axes x1y2 with lines title 'energy spread %%'\n",
            dir, s->algs[0].alg->name, dat, 3 * s->na - 1, 3 * s->na, 3 * s->na + 1);
  if ((rc = fupermod_atomic_commit(&af)) != FUPERMOD_SUCCESS) return rc;
  if (tool_gnuplot(gp) == 0)
    printf("plots: %s/*.png (script %s)\n", dir, gp);
  else
    printf("gnuplot not available: the plot script is %s\n", gp);
  return FUPERMOD_SUCCESS;
}

/* ---- the command ---- */

static void sweep_free(sweep_t *s) {
  for (int a = 0; a < s->na; a++)
    if (s->algs[a].own_table) fupermod_dp_table_free(s->algs[a].table);
  for (int u = 0; s->pw && u < s->nf; u++) fupermod_model_free(s->pw[u]);
  free(s->pw);
  for (int u = 0; s->pts && u < s->nf; u++) fupermod_points_free(&s->pts[u]);
  free(s->pts);
  for (int u = 0; u < s->nnames; u++) free(s->names[u]);
  free(s->names);
  free(s->f);
  for (int u = 0; s->dense && u < s->nf; u++) fupermod_points_free(&s->dense[u]);
  free(s->dense);
  free(s->fd);
  free(s->D);
  free(s->cells);
  free(s->parts);
}

/* --grid unit: each function at every size from 1 to its largest measured one, on the model that
 * evaluates (the measured point at a measured size, else the interpolation or --eval's model),
 * for the algorithms solved by one dp table. Pareto fronts stay on the measured sizes. */
static int unit_grid(sweep_t *s, long Dmax) {
  const char *opt = s->algs[0].alg->name;
  int tabled = strcmp(opt, "dp") == 0 || (s->mode == MODE_TIME && strcmp(opt, "hpopta") == 0) ||
               (s->mode == MODE_ENERGY && strcmp(opt, "heopta") == 0);
  double sizes = 0;
  if (s->grid == GRID_MEASURED || s->mode == MODE_PARETO || !tabled) return FUPERMOD_SUCCESS;
  for (int u = 0; u < s->nf; u++) sizes += (double)s->k * (double)s->pts[u].pts[s->pts[u].count - 1].d;
  s->unit_cost = (double)Dmax * sizes;
  if (s->grid == GRID_AUTO && s->unit_cost > UNIT_BUDGET) return FUPERMOD_SUCCESS;
  if (!(s->dense = calloc((size_t)s->nf, sizeof *s->dense)) || !(s->fd = malloc((size_t)s->p * sizeof *s->fd)))
    return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  for (int u = 0; u < s->nf; u++) {
    int rc = tool_unit_points(&s->pts[u], s->pw ? s->pw[u] : NULL, &s->dense[u]);
    if (rc != FUPERMOD_SUCCESS) return rc;
  }
  for (int i = 0; i < s->p; i++) s->fd[i] = &s->dense[i % s->nf];
  return FUPERMOD_SUCCESS;
}

/* what the functions hold and their granule, over all copies */
static int platform(sweep_t *s) {
  long g = 0, most = 0;
  if ((long)s->nf * s->k > 1000000)
    return fupermod_error(FUPERMOD_ERR_USAGE, "-k %ld: %ld processors, more than 1000000", s->k, (long)s->nf * s->k);
  s->p = (int)(s->nf * s->k);
  if (!(s->f = malloc((size_t)s->p * sizeof *s->f)) || (s->piecewise && !(s->pw = calloc((size_t)s->nf, sizeof *s->pw))))
    return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  for (int i = 0; i < s->p; i++) s->f[i] = &s->pts[i % s->nf];
  for (int u = 0; u < s->nf; u++) {
    const fupermod_points *f = &s->pts[u];
    int rc = s->pw ? fupermod_model_create("piecewise", f, 0, &s->pw[u]) : FUPERMOD_SUCCESS;
    if (rc != FUPERMOD_SUCCESS) return fupermod_error_prefix(rc, "%s", s->names[u]);
    for (int k = 0; k < f->count; k++) g = gcd(f->pts[k].d, g);
    if (f->pts[f->count - 1].d > (LONG_MAX - most) / s->k) most = LONG_MAX;
    else most += s->k * f->pts[f->count - 1].d;
  }
  s->g = g;
  s->capacity = most;
  return FUPERMOD_SUCCESS;
}

int cmd_sweep(int argc, char **argv) {
  static const struct option opts[] = {
    {"optimal", required_argument, NULL, 'O'}, {"threads", required_argument, NULL, 't'},
    {"csv", required_argument, NULL, 'C'},     {"out", required_argument, NULL, 'o'},
    {"parts", no_argument, NULL, 'P'},         {"summary", no_argument, NULL, 's'},
    {"conf", required_argument, NULL, 'c'},    {"data", required_argument, NULL, 'd'},
    {"smooth", required_argument, NULL, 'S'},  {"eval", required_argument, NULL, 'E'},
    {"grid", required_argument, NULL, 'G'},    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0}};
  sweep_t s;
  const char *range = NULL, *alts = DEFAULT_ALTS, *optimal = NULL, *csv = NULL, *out = NULL, *conf = NULL,
             *data = NULL;
  long threads = 0, Dmax = 0, feasible = 0, smooth = 0;
  int c, rc, quiet = 0, summary = 0, status = 0, alts_set = 0;
  memset(&s, 0, sizeof s);
  s.k = 1;
  optind = 0; /* a full reset of glibc's getopt: the parse may run more than once per process */
  while ((c = getopt_long(argc, argv, "D:F:a:k:qh", opts, NULL)) != -1) {
    switch (c) {
    case 'D': range = optarg; break;
    case 'F':
      if (strcmp(optarg, "max") == 0) s.mode = MODE_TIME;
      else if (strcmp(optarg, "sum") == 0) s.mode = MODE_ENERGY;
      else if (strcmp(optarg, "pareto") == 0) s.mode = MODE_PARETO;
      else return tool_usage(SUB, "-F '%s' must be max, sum or pareto", optarg);
      break;
    case 'a':
      alts = optarg;
      alts_set = 1;
      break;
    case 'O': optimal = optarg; break;
    case 'k':
      if (fupermod_parse_long(optarg, &s.k) || s.k < 1 || s.k > 1000000)
        return tool_usage(SUB, "-k '%s' must be an integer in 1..1000000", optarg);
      break;
    case 't':
      if (fupermod_parse_long(optarg, &threads) || threads < 1 || threads > 4096)
        return tool_usage(SUB, "--threads '%s' must be an integer in 1..4096", optarg);
      break;
    case 'C': csv = optarg; break;
    case 'o': out = optarg; break;
    case 'P': s.parts_out = 1; break;
    case 's': summary = 1; break;
    case 'q': quiet = 1; break;
    case 'E':
      if (strcmp(optarg, "interpolate") != 0 && strcmp(optarg, "piecewise") != 0)
        return tool_usage(SUB, "--eval '%s' must be interpolate or piecewise", optarg);
      s.piecewise = strcmp(optarg, "piecewise") == 0;
      break;
    case 'S':
      if (fupermod_parse_long(optarg, &smooth) || smooth < 0 || smooth > 1000)
        return tool_usage(SUB, "--smooth '%s' must be an integer in 0..1000", optarg);
      break;
    case 'c': conf = optarg; break;
    case 'd': data = optarg; break;
    case 'G':
      if (strcmp(optarg, "unit") != 0 && strcmp(optarg, "measured") != 0)
        return tool_usage(SUB, "--grid '%s' must be unit or measured", optarg);
      s.grid = strcmp(optarg, "unit") == 0 ? GRID_UNIT : GRID_MEASURED;
      break;
    case 'h': help(); return 0;
    default: return tool_bad_option(SUB, argv, "D:F:a:k:qh", opts);
    }
  }
#ifdef TOOL_LEAN
  if (conf || data) return tool_exec_full(); /* the configuration reader is in the full command */
#endif
  if (data && !conf) return tool_usage(SUB, "--data needs --conf");
  if (conf && optind < argc) return tool_usage(SUB, "give point files or --conf, not both");
  if (!conf && optind == argc) return tool_usage(SUB, "no functions given (FILE..., DIR or --conf CONF)");
  /* the algorithms first: a misspelt name costs no loading */
  if ((rc = add_alg(&s, optimal ? optimal : s.mode == MODE_TIME ? "hpopta" : s.mode == MODE_ENERGY ? "heopta" : "hepopta",
                    s.mode == MODE_TIME ? FUPERMOD_OBJ_TIME : s.mode == MODE_ENERGY ? FUPERMOD_OBJ_ENERGY
                                                                                   : FUPERMOD_OBJ_PARETO)) != FUPERMOD_SUCCESS)
    return tool_usage(SUB, "--optimal: %s", fupermod_error_message());
  if (s.mode == MODE_ENERGY && !alts_set && add_alg(&s, "hpopta", FUPERMOD_OBJ_TIME) != FUPERMOD_SUCCESS)
    return tool_fail(SUB, FUPERMOD_ERR_USAGE);
  if (strcmp(alts, "none") != 0 && tool_list("-a", alts, 64, alt_item, &s) != FUPERMOD_SUCCESS)
    return tool_usage(SUB, "%s", fupermod_error_message());
#ifdef TOOL_LEAN
  rc = load_files(&s, argc - optind, argv + optind);
#else
  rc = conf && data ? load_conf_data(&s, conf, data) : conf ? load_emulated(&s, conf) : load_files(&s, argc - optind, argv + optind);
#endif
  if (rc == FUPERMOD_SUCCESS && (rc = tool_smooth_points(s.pts, s.nf, smooth)) != FUPERMOD_SUCCESS)
    rc = fupermod_error_prefix(rc, "--smooth %ld", smooth);
  s.smooth = smooth;
  if (rc == FUPERMOD_SUCCESS) rc = platform(&s);
  if (rc == FUPERMOD_SUCCESS) rc = parse_range(&s, range);
  if (rc == FUPERMOD_SUCCESS && s.nD == 0)
    rc = fupermod_error(FUPERMOD_ERR_USAGE, "-D: no workload (the functions hold at most D=%ld)", s.capacity);
  if (rc == FUPERMOD_SUCCESS) rc = check_algs(&s);
  if (rc == FUPERMOD_SUCCESS && s.parts_out && (double)s.nD * s.na * s.p > (double)(1L << 28))
    rc = fupermod_error(FUPERMOD_ERR_USAGE, "--parts: %ld workloads x %d algorithms x %d processors is too many to keep",
                        s.nD, s.na, s.p);
  for (long w = 0; rc == FUPERMOD_SUCCESS && w < s.nD; w++) Dmax = s.D[w] > Dmax ? s.D[w] : Dmax;
  if (rc == FUPERMOD_SUCCESS) rc = unit_grid(&s, Dmax);
  if (rc == FUPERMOD_SUCCESS && !(s.cells = calloc((size_t)(s.nD * s.na), sizeof *s.cells)))
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  if (rc == FUPERMOD_SUCCESS && s.parts_out &&
      !(s.parts = calloc((size_t)(s.nD * s.na) * (size_t)s.p, sizeof *s.parts)))
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
#ifdef _OPENMP
  if (threads > 0) omp_set_num_threads((int)threads);
#endif
  if (rc == FUPERMOD_SUCCESS) rc = build_tables(&s, Dmax, quiet);
  if (rc == FUPERMOD_SUCCESS) rc = run_all(&s, quiet);
  if (rc != FUPERMOD_SUCCESS) {
    status = rc == FUPERMOD_ERR_USAGE ? tool_usage(SUB, "%s", fupermod_error_message()) : tool_fail(SUB, rc);
    goto done;
  }
  print_header(&s);
  if (!summary) print_rows(&s);
  print_summary(&s);
  if (csv && (rc = write_csv(&s, csv)) != FUPERMOD_SUCCESS) status = tool_fail(SUB, rc);
  if (!status && out) {
    char path[4200];
    snprintf(path, sizeof path, "%s/sweep.csv", out);
    if ((rc = fupermod_mkdir_p(out)) != FUPERMOD_SUCCESS || (rc = write_csv(&s, path)) != FUPERMOD_SUCCESS ||
        (rc = write_plots(&s, out)) != FUPERMOD_SUCCESS)
      status = tool_fail(SUB, rc);
  }
  for (long w = 0; w < s.nD; w++) feasible += cell(&s, w, 0)->status == FUPERMOD_SUCCESS;
  if (!status && feasible == 0)
    status = tool_fail(SUB, fupermod_error(FUPERMOD_ERR_INFEASIBLE, "%s has no distribution at any workload of the range",
                                           s.algs[0].alg->name));
done:
  sweep_free(&s);
  return status;
}
