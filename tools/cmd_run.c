/* fupermod run: the main job. Under mpirun, from a process configuration: build (or reuse) the
 * time and energy functions of the DGEMM and 2D-FFT kernels on every process in parallel, and the
 * links between them; partition with PARALEPH (time and energy), the Pareto algorithm and the
 * whole-run partition; predict every distribution's whole run with the application's cost model
 * (apps/model.h), calibrated by the applications' own runs, and choose the least; run heterogeneous SUMMA and 2D-FFT
 * on every distribution, and report (table, CSV, plots: tools/run_report.c). */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cblas.h>
#include <fftw3.h>
#include <gsl/gsl_sort_double.h>
#include <gsl/gsl_statistics_double.h>
#include <mpi.h>
#include "apps/fft2d.h"
#include "apps/model.h"
#include "fupermod/comm.h"
#include "apps/summa.h"
#include "partitioners/whole.h"
#include "partitioners/hier.h"
#include "partitioners/paraleph.h"
#include "partitioners/partitioners.h"
#include "tools/build_common.h"
#include "tools/mpi_init.h"
#include "tools/run_report.h"
#include "tools/run_history.h"
#include "tools/run_calib.h"
#include "tools/provenance.h"
#include "apps/app_model.h"

static const char *SUB = "run";
/* the leave-one-out check's error beyond which the predictions cannot rank the candidates */
#define LOO_TRUST 0.10
/* What one launch holds across its applications. */
typedef struct {
  fupermod_comm links; /* every pair's messages (rank 0; p = 0 for one process), measured with the first application */
  tool_launch launch;  /* this launch: its id, date and platform (rank 0's), for the history */
  int map_shown;       /* where the ranks run: printed once, with the first application */
  int links_done;      /* the links between the processes: measured once, with the first application */
} run_job;

/* An application's whole-run model (apps/app_model.h) with the buffers its calibration fills
 * (rank 0): the factors, the solo factors (fupermod_app_model) and which processes transform
 * directly. */
typedef struct {
  fupermod_app_model m;
  double *factors, *solo;
  int *direct;
} run_model;

static void help(void) {
  printf("usage: mpirun -np P fupermod run --conf CONF [--out DIR] [OPTIONS]\n\n"
         "The main job. Every process finds its line in CONF, then:\n"
         "  1. builds the time and dynamic-energy functions of the DGEMM (SUMMA block update) and\n"
         "     row-FFT kernels on a grid of K sizes, all processes in parallel, adaptively: only the\n"
         "     sizes where the distributions are decided (--full-grid: every size), on a finer grid\n"
         "     for a device too slow to take one step of it (docs/models.md), each process\n"
         "     with the threads of its line (threads=, default: the cores of its binding); reused\n"
         "     from DIR/models when nothing that determines them changed (the line, the host, the\n"
         "     node's lines, the kernel, the sizes, the precision), and an interrupted build resumes;\n"
         "  2. partitions with PARALEPH for time (or --algorithm), PARALEPH for energy, and HEPOPTA's\n"
         "     Pareto front of time and energy (chosen point: least energy within --tradeoff of the\n"
         "     fastest); when the processes span several hosts or group= keys, also hierarchically\n"
         "     (HiPOPTA: node functions from each node's optimal intra-node distribution);\n"
         "  3. measures every pair's links, runs each application on PARALEPH's distribution (SUMMA 3\n"
         "     times, the 2D-FFT 5) to calibrate its cost model (apps/model.h), partitions for the\n"
         "     whole run (which processes work at all), predicts each distribution's whole run and\n"
         "     chooses one (--choose);\n"
         "  4. runs heterogeneous SUMMA DGEMM and 2D-FFT on each distribution, on the fastest process\n"
         "     alone and on the even one;\n"
         "  5. reports: a table with the predicted and measured whole runs, DIR/report-APP.csv,\n"
         "     DIR/summary-APP.csv, DIR/front-APP.csv and plots.\n"
         "Options:\n"
         "  --out DIR          results (default fupermod-run)\n"
         "  --models MDIR      the models, links and history (default DIR/models): several runs\n"
         "                     may share one, as a campaign's partitioner experiments do\n"
         "  --apps LIST        dgemm,fft (default both, unless --app is given)\n"
         "  --app LIST         application plug-ins (fupermod_app_NAME.so, or paths; apps/app.h), built,\n"
         "                     partitioned, predicted, chosen and run as the others, at --size (default\n"
         "                     4096): e.g. --app jacobi (docs/apps.md, \"Your own application\")\n"
         "  --size N           matrix order and signal side for every app (or --dgemm-n, --fft-n;\n"
         "                     defaults 3072 and 4096)\n"
         "  --dgemm-b B        SUMMA block size (default 128)\n"
         "  --points K         grid sizes per function (default 32; N/b squared and N must be\n"
         "                     multiples of K)\n"
         "  --full-grid        measure every grid size (default: adaptive, docs/models.md)\n"
         "  --algorithm A      the partitioner of the first distribution (default paraleph), any of the\n"
         "                     registry: a discrete one's distribution, a continuous one's on its\n"
         "                     model type, a Pareto one's fastest point, one for identical processors\n"
         "                     on the processes' mean function (docs/models.md); A is one of:\n"
         "                    ");
  for (const fupermod_partitioner *const *p = fupermod_partitioners(); *p; p++) printf(" %s", (*p)->name);
  printf("\n"
         "  --static-power W   the static power (W) that htpopta adds to the energy (default 0)\n"
         "  --smooth W         partition and predict on smoothed functions: local fits of log time over\n"
         "                     the measured sizes near each (weighted as 2W+1 sizes around it, within\n"
         "                     a factor of 4), with a prediction interval from the points' scatter\n"
         "                     about them (default 3; 0: the raw points and their benchmark confidence)\n"
         "  --tradeoff X       Pareto choice: least energy with time <= (1+X) x fastest (default 0.1)\n"
         "  --reps R           application runs per distribution (default 5)\n"
         "  --choose P         the choice among the distributions (default race): race: where the\n"
         "                     predictions' intervals overlap the least one's, run those distributions\n"
         "                     in rounds until one leads beyond the runs' half-widths, or --race-rounds\n"
         "                     end (the least mean then); the report's rounds are run after, apart;\n"
         "                     predict: PARALEPH's distribution unless another is predicted faster\n"
         "                     beyond both intervals; least: the least predicted whole run. A\n"
         "                     distribution whose whole run cannot be predicted is never chosen\n"
         "  --race-rounds N    the race's budget (default 5 rounds)\n"
         "  --race-top K       the K least predictions race even where their intervals part (default\n"
         "                     3): a prediction can be wrong beyond its interval, which holds only the\n"
         "                     measurements' noise; a clearly slower one leaves after two rounds\n"
         "  --rebuild          measure again even when the models could be reused\n"
         "  --lock-wait S      wait at most S s (default 3600) for a models directory that another\n"
         "                     job is writing (DIR/models/APP/.fupermod-lock), then stop\n"
         "  -r/-R/-e/-i/-T     benchmark precision as in fupermod build\n"
         "  --keep-outliers    average every benchmark repetition; by default outlying ones are\n"
         "                     rejected and counted, as in fupermod build (docs/models.md)\n"
         "  --allow-fewer      a job of fewer processes than the configuration's lines uses the first\n"
         "                     lines (without it, such a job is refused)\n"
         "  -q                 no progress lines\n");
}

static int add_app(const char *item, void *ctx) {
  options *o = ctx;
  if (strcmp(item, "dgemm") == 0) o->apps_dgemm = 1;
  else if (strcmp(item, "fft") == 0) o->apps_fft = 1;
  else return fupermod_error(FUPERMOD_ERR_USAGE, "--apps: '%s' is not an app (dgemm, fft)", item);
  return 0;
}

static int no_item(const char *item, void *ctx) { return FUPERMOD_SUCCESS; }

static int parse_apps(const char *s, options *o) {
  o->apps_dgemm = o->apps_fft = 0;
  return tool_list("--apps", s, 16, add_app, o);
}

/* Bump when a kernel's measured work changes (2: in-place fft-rows, exact-area dgemm; 3: processes
 * sharing cores record the union of their runs; 4: early finishers keep loading the machine;
 * 5: outlying repetitions rejected). */
#define RUN_MODELS_REV 5

/* What a process computes app a with: its threads, the kernel's options, and what determines its
 * models besides them (the host, the node's lines, the kernel's code). */
typedef struct {
  int threads;   /* the line's threads=, else the cores of its binding (1 when bound to none) */
  char sub[2048]; /* the kernel's sub-options: the app's own, then the line's */
  char host[MPI_MAX_PROCESSOR_NAME];
  char *node;    /* every line of this node, with its threads, in intra-node rank order */
  uint64_t code; /* the kernel plug-in's bytes, the executor module's and the library they compute with */
  const fupermod_exec *exec; /* the process's device */
} run_exec;

static uint64_t fnv(uint64_t h, const void *data, size_t n) {
  const unsigned char *s = data;
  for (size_t i = 0; i < n; i++) h = (h ^ s[i]) * 1099511628211ULL;
  return h;
}

/* The fingerprint of everything that determines a model: reuse only when it matches. */
static uint64_t fingerprint(const fupermod_process_conf *pc, const run_exec *ex, const app_t *a,
                            const fupermod_precision *p) {
  char buf[8192];
  uint64_t h = 1469598103934665603ULL;
  snprintf(buf, sizeof buf, "rev%d|%s %d %s %s %s|threads=%d|%s|%s|n=%ld|b=%ld|g=%ld|K=%d|%d|%d|%g|%g|%g|%d|",
           RUN_MODELS_REV, pc->hostname, pc->rank_intra, pc->bind, pc->device_type, pc->subopts, ex->threads, a->kernel,
           ex->sub, a->n, a->b, a->g, a->K, p->reps_min, p->reps_max, p->cl, p->eps, p->time_max, p->keep_outliers);
  h = fnv(h, buf, strlen(buf));
  h = fnv(h, ex->host, strlen(ex->host) + 1);
  h = fnv(h, ex->node, strlen(ex->node) + 1);
  {
    /* the device: its kind and PCI bus id (not its free memory, which varies) */
    int kind = fupermod_exec_kind(ex->exec);
    const char *pci = fupermod_exec_pci_bus_id(ex->exec);
    h = fnv(fnv(h, &kind, sizeof kind), pci, strlen(pci) + 1);
  }
  return fnv(h, &ex->code, sizeof ex->code);
}

static long *app_grid(const app_t *a) {
  long *grid = malloc((size_t)a->K * sizeof *grid);
  for (int i = 0; grid && i < a->K; i++) grid[i] = a->g * (i + 1);
  return grid;
}

/* The adaptive build on app a's grid g, 2g, ..., D, measuring the shares of what this job
 * partitions: time with --algorithm (PARALEPH where that is not a discrete time partitioner of
 * heterogeneous functions: the adaptive build needs exact shares on measured sizes; the others'
 * shares are then interpolated), energy (PARALEPH) when the functions have energy, and HiPOPTA's
 * over several nodes. */
static int build_adaptive(const options *o, tool_proc *tp, const app_t *a, fupermod_kernel *k, const char *path,
                          fupermod_points *pts) {
  tool_adaptive ad;
  int rc;
  memset(&ad, 0, sizeof ad);
  ad.grid = app_grid(a);
  ad.ngrid = a->K;
  ad.D = a->D;
  {
    const fupermod_partitioner *alg = fupermod_partitioner_find(o->algorithm);
    ad.algorithm = alg && alg->kind == FUPERMOD_PART_DISCRETE && !alg->homogeneous && !alg->needs_energy ? o->algorithm : "paraleph";
  }
  ad.objectives = TOOL_ADAPT_TIME | TOOL_ADAPT_ENERGY | TOOL_ADAPT_HIER | TOOL_ADAPT_PARETO;
  ad.tradeoff = o->tradeoff;
  ad.init = 4;
  ad.max_rounds = 10;
  ad.tol = 0.05;
  ad.smooth = o->smooth;
  ad.cl = o->prec.cl;
  ad.quiet = o->quiet;
  ad.refine = 1;
  ad.sub = SUB;
  rc = ad.grid ? tool_adaptive_build(&ad, tp, k, &o->prec, path, pts) : fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  tool_adaptive_free(&ad);
  free((long *)ad.grid);
  return rc;
}

/* What building the models cost (rank 0): sizes measured per process, their benchmark seconds,
 * and the full grid's, estimated from the functions. */
static void report_model_cost(const app_t *a, const fupermod_points *all, int size) {
  long *grid = app_grid(a);
  if (!grid) return;
  printf("   %s models:\n", a->name);
  tool_adaptive_report(stdout, all, size, grid, a->K);
  free(grid);
}

/* The bytes of the plug-in NAME, into the hash h. */
static int hash_plugin(const char *name, uint64_t *h) {
  char *path = NULL, *text = NULL;
  size_t len = 0;
  int rc = fupermod_kernel_find(name, &path);
  if (rc == FUPERMOD_SUCCESS) rc = fupermod_read_file(path, &text, &len);
  if (rc == FUPERMOD_SUCCESS) *h = fnv(*h, text, len);
  free(text);
  free(path);
  return rc;
}

/* The kernel's code: the plug-in file's bytes, on a GPU the executor module's, and the library
 * the CPU computes with. */
static int kernel_code(const app_t *a, const fupermod_exec *exec, uint64_t *code) {
  const char *lib = tool_app_fft(a) ? fftw_version : openblas_get_config();
  uint64_t h = 1469598103934665603ULL;
  int rc = hash_plugin(a->kernel, &h);
  if (rc == FUPERMOD_SUCCESS && fupermod_exec_kind(exec) == FUPERMOD_EXEC_CUDA) rc = hash_plugin("fupermod_exec_cuda", &h);
  *code = fnv(h, lib, strlen(lib));
  return rc;
}

/* This process's run_exec for app a (collective over the node: the node's lines). */
static int exec_setup(const tool_proc *tp, const app_t *a, run_exec *ex) {
  const fupermod_process_conf *pc = &tp->conf.procs[tp->index];
  char mine[2048];
  int rc, n = 0, len = 0;
  char *all = NULL;
  memset(ex, 0, sizeof *ex);
  ex->exec = tp->exec;
  ex->threads = fupermod_exec_threads(tp->exec);
  if (a->ops) snprintf(ex->sub, sizeof ex->sub, "%s", a->pb->kernel_subopts);
  else if (a->b) snprintf(ex->sub, sizeof ex->sub, "b=%ld,threads=%d", a->b, ex->threads);
  else snprintf(ex->sub, sizeof ex->sub, "n=%ld,threads=%d,place=in", a->n, ex->threads);
  /* then the line's other sub-options (those the app sets agree with it: check_lines) */
  for (const char *s = pc->subopts; *s;) {
    size_t k = strcspn(s, ",");
    if (!((k > 2 && strncmp(s, "b=", 2) == 0) || (k > 2 && strncmp(s, "n=", 2) == 0) ||
          (k > 8 && strncmp(s, "threads=", 8) == 0) || (k > 6 && strncmp(s, "place=", 6) == 0)))
      snprintf(ex->sub + strlen(ex->sub), sizeof ex->sub - strlen(ex->sub), "%s%.*s", ex->sub[0] ? "," : "", (int)k, s);
    s += k + (s[k] == ',');
  }
  MPI_Get_processor_name(ex->host, &len);
  rc = kernel_code(a, tp->exec, &ex->code);
  snprintf(mine, sizeof mine, "%s %d %s %s %s, threads %d", pc->hostname, pc->rank_intra, pc->bind, pc->device_type,
           pc->subopts, ex->threads);
  MPI_Comm_size(tp->intra, &n);
  all = malloc((size_t)n * sizeof mine);
  ex->node = malloc((size_t)n * sizeof mine);
  /* every process of the node takes part, even when it failed above */
  MPI_Allgather(mine, sizeof mine, MPI_CHAR, all ? all : mine, all ? (int)sizeof mine : 0, MPI_CHAR, tp->intra);
  if (!all || !ex->node) rc = fupermod_error(FUPERMOD_ERR_NOMEM, "run: out of memory");
  else {
    ex->node[0] = '\0';
    for (int r = 0; r < n; r++) {
      strcat(ex->node, all + (size_t)r * sizeof mine);
      if (r + 1 < n) strcat(ex->node, "\n");
    }
  }
  free(all);
  return rc;
}

/* Every line asks for what the job can do, or the job stops before it measures anything: no
 * kernel but the applications', threads from 1 to 4096, and no kernel sub-option that contradicts
 * what the application computes. */
static int check_lines(const options *o) {
  fupermod_conf conf;
  char buf[256];
  long v;
  int rc = fupermod_conf_load(o->conf, &conf), loaded = rc == FUPERMOD_SUCCESS;
  for (int i = 0; rc == FUPERMOD_SUCCESS && i < conf.count; i++) {
    const fupermod_process_conf *pc = &conf.procs[i];
    const char *where = o->conf;
    int line = pc->line;
    if (fupermod_subopt_get(pc->subopts, "kernel", buf, sizeof buf) == 1 && strcmp(buf, "dgemm") != 0 &&
        strcmp(buf, "fft-rows") != 0 && strcmp(buf, "dgemm-cuda") != 0 && strcmp(buf, "fft-rows-cuda") != 0)
      rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: kernel=%s computes neither of fupermod run's applications (SUMMA "
                          "DGEMM: kernel dgemm; 2D-FFT: kernel fft-rows; on a gpu line through its executor, "
                          "dgemm-cuda and fft-rows-cuda name the same)", where, line, buf);
    else if (fupermod_subopt_get(pc->subopts, "threads", buf, sizeof buf) == 1 &&
             (fupermod_parse_long(buf, &v) != 0 || v < 1 || v > 4096))
      rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: threads=%s must be an integer from 1 to 4096", where, line, buf);
    else if (o->apps_dgemm && fupermod_subopt_get(pc->subopts, "b", buf, sizeof buf) == 1 &&
             (fupermod_parse_long(buf, &v) != 0 || v != o->dgemm_b))
      rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: b=%s: SUMMA multiplies blocks of %ld (--dgemm-b), which the DGEMM "
                          "kernel measures", where, line, buf, o->dgemm_b);
    else if (o->apps_fft && fupermod_subopt_get(pc->subopts, "n", buf, sizeof buf) == 1 &&
             (fupermod_parse_long(buf, &v) != 0 || v != o->fft_n))
      rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: n=%s: the 2D-FFT transforms rows of %ld (--fft-n), which the FFT "
                          "kernel measures", where, line, buf, o->fft_n);
    else if (o->apps_fft && fupermod_subopt_get(pc->subopts, "place", buf, sizeof buf) == 1 && strcmp(buf, "in") != 0)
      rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: place=%s: the 2D-FFT transforms in place", where, line, buf);
    else if (o->apps_fft && fupermod_subopt_get(pc->subopts, "wisdom", buf, sizeof buf) == 1)
      rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: wisdom=%s: the 2D-FFT plans without wisdom (FFTW_ESTIMATE)", where,
                          line, buf);
  }
  if (loaded) fupermod_conf_free(&conf);
  return rc;
}

/* Build or reuse this process's function for app a: every size is measured with the node's
 * processes in step; each point is appended at once so an interrupted run resumes. */
static int build_function(const options *o, tool_proc *tp, const app_t *a, const run_exec *ex, fupermod_points *pts,
                          double *elapsed) {
  const fupermod_process_conf *pc = &tp->conf.procs[tp->index];
  char dir[4096], path[4200], head[256];
  const char *sub = ex->sub;
  uint64_t fp = fingerprint(pc, ex, a, &o->prec);
  fupermod_kernel *k = NULL;
  int rc = FUPERMOD_SUCCESS, rank, reuse = 0, lockfd = -1;
  double t0 = fupermod_time();
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  snprintf(dir, sizeof dir, "%s/%s", o->models, a->name);
  snprintf(path, sizeof path, "%s/%s.%d.points", dir, pc->hostname, pc->rank_intra);
  snprintf(head, sizeof head, "# fupermod run model: app %s kernel %s fingerprint %016llx", a->name, a->kernel,
           (unsigned long long)fp);
  pts->count = 0;
  pts->pts = NULL;
  if ((rc = tool_agree(SUB, fupermod_mkdir_p(dir), MPI_COMM_WORLD)) != FUPERMOD_SUCCESS) goto done;
  /* another job's models are read once it let go of them (tool_dir_lock) */
  if ((rc = tool_dir_lock(SUB, dir, o->lock_wait, &lockfd)) != FUPERMOD_SUCCESS) goto done;
  if (!o->rebuild && access(path, F_OK) == 0) {
    char *text = NULL;
    size_t len;
    if (fupermod_read_file(path, &text, &len) == FUPERMOD_SUCCESS && strstr(text, head) &&
        fupermod_points_parse(text, len, path, pts) == FUPERMOD_SUCCESS)
      reuse = 1; /* same fingerprint: keep what was measured, measure what is missing */
    free(text);
  }
  if (rc == FUPERMOD_SUCCESS && !reuse) {
    fupermod_atomic_file af;
    fupermod_points_free(pts);
    if ((rc = fupermod_atomic_open(&af, path)) == FUPERMOD_SUCCESS) {
      fprintf(af.fp, FUPERMOD_POINTS_HEADER "\n%s\n# energy: %s\n", head, tp->label[0] ? tp->label : "none");
      /* for fupermod model list/show/plot: the kernel (its complexity) and the configuration line */
      fprintf(af.fp, "# kernel: %s %s\n# line: %s %d %s %s %s\n", a->kernel, sub, pc->hostname, pc->rank_intra, pc->bind,
              pc->device_type, pc->subopts);
      /* what else the fingerprint covers, for a reader */
      fprintf(af.fp, "# measured on host %s, executor %s, beside the node's lines:\n# | ", ex->host,
              fupermod_exec_describe(tp->exec));
      for (const char *c = ex->node; *c; c++)
        if (*c == '\n') fputs("\n# | ", af.fp);
        else fputc(*c, af.fp);
      fputc('\n', af.fp);
      rc = fupermod_atomic_commit(&af);
    }
  }
  if (rc == FUPERMOD_SUCCESS) rc = fupermod_kernel_load(a->kernel, sub, &k);
  /* measured on the process's device, as the application computes */
  if (rc == FUPERMOD_SUCCESS) rc = fupermod_kernel_use_exec(k, tp->exec);
  if ((rc = tool_agree(SUB, rc, MPI_COMM_WORLD)) != FUPERMOD_SUCCESS) goto done;
  if (!o->full_grid && (rc = build_adaptive(o, tp, a, k, path, pts)) != FUPERMOD_SUCCESS) goto done;
  for (int i = 1; o->full_grid && i <= a->K; i++) {
    long d = a->g * i;
    int need = fupermod_points_find(pts, d) < 0, node_need = 0, any = 0;
    fupermod_point pt = FUPERMOD_POINT_INIT;
    MPI_Allreduce(&need, &node_need, 1, MPI_INT, MPI_MAX, tp->intra);
    MPI_Allreduce(&node_need, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (node_need) {
      rc = fupermod_benchmark_meter(k, tp->meter, tp->static_power, d, &o->prec, tp->intra, &pt);
      if (rc == FUPERMOD_SUCCESS && need) {
        if (pt.reps == 0) pt.reps = 1;
        if (!tp->meter) pt.e = pt.e_ci = -1.0;
        if ((rc = fupermod_points_append(path, &pt)) == FUPERMOD_SUCCESS) rc = fupermod_points_insert(pts, &pt);
      }
    }
    if ((rc = tool_agree(SUB, rc, MPI_COMM_WORLD)) != FUPERMOD_SUCCESS) goto done;
    if (rank == 0 && !o->quiet && any)
      fprintf(stderr, "fupermod run: %s model: size %d of %d (d=%ld), %.1f s\n", a->name, i, a->K, d,
              fupermod_time() - t0);
  }
  if (rank == 0 && !o->quiet && reuse)
    fprintf(stderr, "fupermod run: %s models reused from %s/%s\n", a->name, o->models, a->name);
done:
  tool_dir_unlock(&lockfd);
  fupermod_kernel_unload(k);
  *elapsed = fupermod_time() - t0;
  return rc;
}

/* Gather every process's points on rank 0 (pts_all[size]). */
static int gather_points(const fupermod_points *mine, fupermod_points **all, int size) {
  int rank, n = mine->count, *counts = NULL, *displs = NULL, total = 0;
  double *buf = NULL, *recv = NULL;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  buf = malloc((size_t)(n ? n : 1) * 7 * sizeof *buf);
  for (int i = 0; i < n; i++) {
    const fupermod_point *p = &mine->pts[i];
    double row[7] = {(double)p->d, p->t, p->reps, p->ci, p->e, p->e_ci, p->rejected};
    memcpy(buf + 7 * i, row, sizeof row);
  }
  if (rank == 0) {
    counts = malloc((size_t)size * sizeof *counts);
    displs = malloc((size_t)size * sizeof *displs);
  }
  n *= 7;
  MPI_Gather(&n, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    for (int r = 0; r < size; r++) displs[r] = total, total += counts[r];
    recv = malloc((size_t)(total ? total : 1) * sizeof *recv);
  }
  MPI_Gatherv(buf, n, MPI_DOUBLE, recv, counts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    *all = calloc((size_t)size, sizeof **all);
    for (int r = 0; r < size; r++) {
      fupermod_points *f = &(*all)[r];
      f->count = counts[r] / 7;
      f->pts = malloc((size_t)(f->count ? f->count : 1) * sizeof *f->pts);
      f->has_energy = f->count > 0;
      for (int i = 0; i < f->count; i++) {
        const double *row = recv + displs[r] + 7 * i;
        fupermod_point p = {.d = (long)row[0], .t = row[1], .ci = row[3], .e = row[4], .e_ci = row[5], .reps = (int)row[2],
                            .samples = -1, .rejected = (int)row[6]};
        f->pts[i] = p;
        if (p.e < 0) f->has_energy = 0;
      }
    }
  }
  free(buf);
  free(recv);
  free(counts);
  free(displs);
  return FUPERMOD_SUCCESS;
}

/* Process i's function at size x (x > 0): the measured point at a measured size, otherwise
 * speed and energy per unit interpolated between its neighbours (fupermod_points_interpolate,
 * as fupermod sweep evaluates), with the relative confidence half-width interpolated too. */
static void value_at(const fupermod_points *f, double x, double *t, double *e, double *ci) {
  int lo;
  double rel;
  if (f->count == 0) {
    *t = *e = *ci = INFINITY;
    return;
  }
  lo = fupermod_points_interpolate(f, x, t, e);
  if (lo >= 0 && (double)f->pts[lo].d == x) rel = f->pts[lo].ci / f->pts[lo].t;
  else if (lo < 0) rel = f->pts[0].ci / f->pts[0].t;
  else if (lo == f->count - 1) rel = f->pts[lo].ci / f->pts[lo].t;
  else {
    const fupermod_point *l = &f->pts[lo], *h = &f->pts[lo + 1];
    double w = (x - (double)l->d) / (double)(h->d - l->d);
    rel = (1 - w) * l->ci / l->t + w * h->ci / h->t;
  }
  *ci = rel * *t;
}

typedef struct {
  const run_t *r;
  const app_t *a;
} run_time_ctx;

/* Whether process i time-shares its cores with another */
static int grouped(const int *group, int i, int p) {
  for (int j = 0; group && j < p; j++)
    if (j != i && group[j] == group[i]) return 1;
  return 0;
}

/* Process i's time of one kernel run on units (fupermod_app_time): predict()'s at its share (a
 * group's, for processes time-sharing cores) in proportion. */
static double run_time_of(int i, double units, double *ci, void *ctx) {
  const run_time_ctx *c = ctx;
  long d = c->r->dist->parts[i].d;
  double s = d > 0 ? units / (double)d : 0.0;
  if (ci) *ci = c->r->pred_ci[i] / c->a->iters * s;
  return c->r->dist->parts[i].t * s;
}

/* The whole run on r's distribution, by the application's model m (quiet: a failed prediction is
 * no news, as for the descent's trial distributions). */
static void predict_run(const fupermod_app_model *m, run_t *r, const app_t *a, int quiet) {
  run_time_ctx c = {r, a};
  fupermod_app_pred pr = {0, 0, r->pred_comp, r->pred_comm};
  int rc = fupermod_app_model_predict(m, r->dist, r->layout, run_time_of, &c, &pr);
  r->pred_run = rc == FUPERMOD_SUCCESS ? pr.time : NAN;
  r->pred_run_ci = rc == FUPERMOD_SUCCESS ? pr.ci : NAN;
  if (rc != FUPERMOD_SUCCESS && !quiet)
    fprintf(stderr, "fupermod run: %s: no whole-run prediction for %s: %s\n", a->name, r->label, fupermod_error_message());
}

/* r's whole run by the two wrong models the report scores beside the model (run_report.h): the
 * functions and links alone (the calibration's factors 1; the structure kept: core groups, shared
 * memory, direct transforms), and the calibrated model without messages (rank 0). */
static void predict_wrong(const fupermod_app_model *m, run_t *r, const app_t *a) {
  fupermod_app_model uncal = *m, nomsg = *m;
  uncal.factors = uncal.solo = NULL;
  uncal.msgs = 0;
  nomsg.cm = NULL;
  predict_run(&uncal, r, a, 1);
  r->pred_wrong[TOOL_MODEL_UNCALIBRATED] = r->pred_run;
  predict_run(&nomsg, r, a, 1);
  r->pred_wrong[TOOL_MODEL_NO_MESSAGES] = r->pred_run;
  predict_run(m, r, a, 0); /* the model's own, per process too */
}

/* Predictions of a distribution from the measured functions. Processes that time-share cores
 * (leader[i], the lowest rank of i's group) were measured together, each with the same size:
 * their point at x is how long their cores need for x from each of them. The group's
 * prediction, which every member shows, is therefore the members' mean at the group's mean
 * share, compared with how long the cores computed in the run (fupermod_share_busy). */
static void predict(const fupermod_app_model *m, run_t *r, const fupermod_points *f, const app_t *a, const int *leader,
                    int quiet) {
  int p = r->dist->size;
  double T = 0, E = 0;
  for (int i = 0; i < p; i++) {
    long d = r->dist->parts[i].d;
    double t = 0, e = 0, ci = 0;
    if (d > 0) value_at(&f[i], (double)d, &t, &e, &ci);
    r->dist->parts[i].t = t;
    r->dist->parts[i].e = e;
    r->pred_ci[i] = ci * a->iters;
  }
  for (int g = 0; g < p; g++) {
    int members = 0;
    double sum = 0, t = 0, ci = 0;
    for (int i = 0; i < p; i++)
      if (leader[i] == g) {
        members++;
        sum += (double)r->dist->parts[i].d;
      }
    if (members < 2) continue;
    for (int i = 0; i < p && sum > 0; i++)
      if (leader[i] == g) {
        double ti, ei, cii;
        value_at(&f[i], sum / members, &ti, &ei, &cii);
        t += ti / members;
        ci += cii / members;
      }
    for (int i = 0; i < p; i++)
      if (leader[i] == g) {
        r->dist->parts[i].t = t;
        r->pred_ci[i] = ci * a->iters;
      }
  }
  for (int i = 0; i < p; i++) {
    if (r->dist->parts[i].t > T) T = r->dist->parts[i].t;
    E += r->dist->parts[i].e;
  }
  r->pred_time = T * a->iters;
  r->pred_energy = E * a->iters;
  predict_run(m, r, a, quiet);
}

/* Collective: leader[i] = the lowest rank of the processes that time-share process i's cores
 * (share, from fupermod_share_comm), i itself when it has its cores alone. */
static void share_leaders(MPI_Comm share, int *leader) {
  int rank, mine;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  mine = rank;
  if (share != MPI_COMM_NULL) MPI_Allreduce(&rank, &mine, 1, MPI_INT, MPI_MIN, share);
  MPI_Allgather(&mine, 1, MPI_INT, leader, 1, MPI_INT, MPI_COMM_WORLD);
}

/* Student-t half-width of this process's mean compute time over the reps, at the benchmark's
 * confidence level, so that it compares with the points' ci. */
static void meas_ci(const options *o, run_t *r, int rank) {
  int n = o->reps;
  double m = r->meas_proc[rank], var = n > 1 ? (r->meas_sq[rank] - n * m * m) / (n - 1) : 0.0;
  r->meas_ci[rank] = n > 1 ? fupermod_student_ci(n, sqrt(var > 0 ? var : 0.0), o->prec.cl) : INFINITY;
}

static void run_init(run_t *r, const char *label, fupermod_dist *dist) {
  memset(r, 0, sizeof *r);
  r->label = label;
  r->dist = dist;
  r->meas_proc = calloc((size_t)dist->size, sizeof(double));
  r->meas_proc_e = calloc((size_t)dist->size, sizeof(double));
  r->pred_ci = calloc((size_t)dist->size, sizeof(double));
  r->meas_sq = calloc((size_t)dist->size, sizeof(double));
  r->meas_ci = calloc((size_t)dist->size, sizeof(double));
  r->meas_cpu = calloc((size_t)dist->size, sizeof(double));
  r->meas_wall = calloc((size_t)dist->size, sizeof(double));
  r->pred_comp = calloc((size_t)dist->size, sizeof(double));
  r->pred_comm = calloc((size_t)dist->size, sizeof(double));
  r->meas_rows = calloc((size_t)dist->size, sizeof(double));
  r->meas_cols = calloc((size_t)dist->size, sizeof(double));
  r->meas_copy = calloc((size_t)dist->size, sizeof(double));
}

static void run_free(run_t *r) {
  fupermod_dist_free(r->dist);
  fupermod_layout_free(r->layout);
  free(r->meas_proc);
  free(r->meas_proc_e);
  free(r->pred_ci);
  free(r->meas_sq);
  free(r->meas_ci);
  free(r->meas_cpu);
  free(r->meas_wall);
  free(r->pred_comp);
  free(r->pred_comm);
  free(r->meas_rows);
  free(r->meas_cols);
  free(r->meas_copy);
}

/* The share of a window's dynamic energy e (over st seconds) that falls in the computation
 * intervals (busy seconds of this process; in a group that time-shares its cores, the group's
 * summed CPU time, as each member's benchmark runs spanned the group's): the same thing the
 * models predict, which were measured
 * on runs that only compute. Exact for the model meter (power x time); for a measuring meter it
 * charges the window's mean power to the computation. */
static double compute_energy(double e, double st, double busy, long d) {
  /* no units, no computation: the empty phases of an idle process cost nothing, as predicted */
  return d > 0 && st > 0 && busy > 0 ? e * (busy < st ? busy / st : 1.0) : 0.0;
}

/* Measured dynamic energy of a window on this process (0 without a meter). */
static double window_energy(tool_proc *tp, int start, double *t) {
  double j = 0, s = 0;
  if (!tp->meter) return 0.0;
  if (start) {
    fupermod_meter_start(tp->meter);
    return 0.0;
  }
  fupermod_meter_stop(tp->meter, &j, &s);
  *t = s;
  return j - tp->static_power * s > 0 ? j - tp->static_power * s : 0.0;
}

/* The computation of one run: *wall = how long this process's cores computed (for a group that
 * time-shares them, the union of the members' intervals), *cpu = the CPU seconds they gave it
 * (summed over the group). Collective over share. */
static int share_times(MPI_Comm share, const fupermod_trace *tr, double *wall, double *cpu) {
  int rc = fupermod_share_busy(share, tr, wall);
  *cpu = tr ? tr->cpu : 0.0;
  if (rc == FUPERMOD_SUCCESS && share != MPI_COMM_NULL &&
      MPI_Allreduce(MPI_IN_PLACE, cpu, 1, MPI_DOUBLE, MPI_SUM, share) != MPI_SUCCESS)
    rc = fupermod_error(FUPERMOD_ERR_MPI, "run: MPI_Allreduce of the CPU times failed");
  return rc;
}

/* One timed run's computation on this process: wall = how long its cores computed, cpu = the CPU
 * they gave it (share_times), e = its dynamic energy. What is compared with the model: alone, the
 * wall time; in a group that time-shares its cores, the CPU time. In the benchmark the members only
 * compute, so there the union of their runs is the CPU their core gave them; in the application a
 * member's communication takes the core while another computes, and the union counts that too
 * (4-10 % of the DGEMM group's time in session 4). */
static void record_rep(const options *o, run_t *r, int rank, MPI_Comm share, double wall, double cpu, double e) {
  double cmp = share != MPI_COMM_NULL ? cpu : wall;
  r->meas_cpu[rank] += cpu / o->reps;
  r->meas_wall[rank] += wall / o->reps;
  r->meas_proc[rank] += cmp / o->reps;
  r->meas_sq[rank] += cmp * cmp;
  r->meas_proc_e[rank] += e / o->reps;
}

/* A timed run into r: its whole run tmax (the slowest process's), the dynamic energy e of its
 * window of st seconds, and this process's computation (its trace tr; comp and cpu as
 * share_times gives them). */
static void record_run(const options *o, run_t *r, int rank, MPI_Comm share, double tmax, double e, double st,
                       const fupermod_trace *tr, double comp, double cpu) {
  r->tsum += tmax;
  r->tsq += tmax * tmax;
  r->esum_run += e;
  e = compute_energy(e, st, share != MPI_COMM_NULL ? cpu : fupermod_trace_total(tr), r->dist->parts[rank].d);
  r->esum += e;
  record_rep(o, r, rank, share, comp, cpu, e);
}

/* After the last round: the means, and every process's means and confidence half-widths
 * everywhere (collective). */
static void gather_reps(const options *o, run_t *r, int rank, int size) {
  double *v[] = {r->meas_ci, r->meas_proc, r->meas_cpu, r->meas_wall, r->meas_proc_e, r->meas_rows, r->meas_cols, r->meas_copy};
  r->meas_time = r->tsum / o->reps;
  {
    double var = o->reps > 1 ? (r->tsq - o->reps * r->meas_time * r->meas_time) / (o->reps - 1) : 0.0;
    r->meas_run_ci = o->reps > 1 ? fupermod_student_ci(o->reps, sqrt(var > 0 ? var : 0.0), o->prec.cl) : INFINITY;
  }
  MPI_Allreduce(&r->esum, &r->meas_energy, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  r->meas_energy /= o->reps;
  MPI_Allreduce(&r->esum_run, &r->meas_energy_run, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  r->meas_energy_run /= o->reps;
  meas_ci(o, r, rank);
  for (size_t k = 0; k < sizeof v / sizeof v[0]; k++) MPI_Allreduce(MPI_IN_PLACE, v[k], size, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}

/* as predict() sees it (ctx: the functions) */
static double area_time(int i, long area, void *ctx) {
  const fupermod_points *f = ctx;
  double t, e, ci;
  value_at(&f[i], (double)area, &t, &e, &ci);
  return t;
}

/* SUMMA computes whole rectangles of blocks: every distribution becomes the areas of its BR layout
 * (rounding can move a block row or column from one process to another), and a time-optimal one
 * gets the integer sizes its arrangement predicts fastest (fupermod_layout_fit), so that what is
 * predicted and reported is what runs. Collective; the layouts stay on rank 0. */
static int realise_layouts(const options *o, const app_t *a, run_t *runs, int nruns, const fupermod_points *f,
                           int size) {
  int rank, rc = FUPERMOD_SUCCESS, nb = (int)(a->n / a->b);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (int k = 0; k < nruns && rank == 0 && rc == FUPERMOD_SUCCESS; k++) {
    int fit = strcmp(runs[k].label, o->algorithm) == 0 || strcmp(runs[k].label, "hipopta") == 0 ||
              strcmp(runs[k].label, "whole-run") == 0;
    rc = tool_dist_layout(runs[k].dist, nb, nb, fit ? area_time : NULL, (void *)f, &runs[k].layout, NULL);
  }
  MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
  for (int k = 0; k < nruns && rc == FUPERMOD_SUCCESS; k++)
    for (int i = 0; i < size; i++) MPI_Bcast(&runs[k].dist->parts[i].d, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  return rc;
}

/* Run SUMMA on r->layout (rank 0's); measure the whole multiply. */
static int run_dgemm(const options *o, tool_proc *tp, const app_t *a, MPI_Comm share, run_t *r) {
  int rank, size, rc = FUPERMOD_SUCCESS;
  long count = 0;
  fupermod_layout *l = NULL;
  double *A = NULL, *B = NULL, *C = NULL;
  fupermod_trace gemms = FUPERMOD_TRACE_INIT;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) rc = fupermod_layout_copy(r->layout, &l);
  if ((rc = fupermod_layout_bcast(MPI_COMM_WORLD, 0, rc, &l)) != FUPERMOD_SUCCESS) goto done;
  /* the elements of this process's rectangle, or of all its pieces */
  rc = fupermod_summa_local(l, rank, (int)a->n, (int)a->b, &count);
  if (rc == FUPERMOD_SUCCESS) {
    size_t cnt = (size_t)count + 1;
    A = malloc(cnt * sizeof *A);
    B = malloc(cnt * sizeof *B);
    C = malloc(cnt * sizeof *C);
    if (!A || !B || !C) rc = fupermod_error(FUPERMOD_ERR_NOMEM, "SUMMA: no memory for %ld elements", count);
  }
  /* the matrices stay in host memory, page-locked for a GPU (the cost is the executor's pin time) */
  for (int m = 0; m < 3 && rc == FUPERMOD_SUCCESS; m++)
    rc = fupermod_exec_pin(tp->exec, m == 0 ? A : m == 1 ? B : C, ((size_t)count + 1) * sizeof *A);
  if (rc == FUPERMOD_SUCCESS) rc = fupermod_summa_fill(l, rank, (int)a->n, (int)a->b, 1, FUPERMOD_SUMMA_UNIFORM, A);
  if (rc == FUPERMOD_SUCCESS) rc = fupermod_summa_fill(l, rank, (int)a->n, (int)a->b, 2, FUPERMOD_SUMMA_UNIFORM, B);
  if ((rc = tool_agree(SUB, rc, MPI_COMM_WORLD)) != FUPERMOD_SUCCESS) goto done;
  /* one untimed warm-up (fresh memory), then this round's timed run */
  for (int rep = -1; rep < 1 && rc == FUPERMOD_SUCCESS; rep++) {
    double t0, t1, mine, tmax, e, st = 0, comp = 0, cpu = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    window_energy(tp, 1, NULL);
    t0 = fupermod_time();
    fupermod_trace_clear(&gemms);
    rc = fupermod_summa_dgemm_exec(MPI_COMM_WORLD, l, (int)a->n, (int)a->b, A, B, C, 0, tp->exec, &gemms);
    t1 = fupermod_time();
    e = window_energy(tp, 0, &st);
    mine = t1 - t0;
    MPI_Allreduce(&mine, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (rep < 0 || rc != FUPERMOD_SUCCESS) continue;
    /* processes sharing cores: the time their cores computed, as their models measured it */
    if ((rc = tool_agree(SUB, share_times(share, &gemms, &comp, &cpu), MPI_COMM_WORLD)) != FUPERMOD_SUCCESS) continue;
    record_run(o, r, rank, share, tmax, e, st, &gemms, comp, cpu);
  }
  if (rc == FUPERMOD_SUCCESS && o->simulated < 2) {
    double ratio = 0;
    /* every run verifies its product (randomised check: C x against A (B x)) */
    rc = fupermod_summa_check_random(MPI_COMM_WORLD, l, (int)a->n, (int)a->b, A, B, NULL, C, 7, &ratio);
    if (rc == FUPERMOD_SUCCESS && !(ratio <= 1.0))
      rc = fupermod_error(FUPERMOD_ERR_NUMERIC, "SUMMA on the %s distribution gave a wrong product (check ratio %g)",
                          r->label, ratio);
  }
done:
  fupermod_trace_free(&gemms);
  fupermod_exec_unpin(tp->exec, A), fupermod_exec_unpin(tp->exec, B), fupermod_exec_unpin(tp->exec, C);
  free(A);
  free(B);
  free(C);
  fupermod_layout_free(l);
  return tool_agree(SUB, rc, MPI_COMM_WORLD);
}

/* Run the 2D-FFT with r->dist's rows; per process the compute time is row + column FFT phases. */
static int run_fft(const options *o, tool_proc *tp, const app_t *a, MPI_Comm share, run_t *r) {
  int rank, size, rc;
  fupermod_fft2d *plan = NULL;
  double *data;
  long rows;
  fupermod_trace phases = FUPERMOD_TRACE_INIT;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  rc = fupermod_fft2d_plan_exec(MPI_COMM_WORLD, a->n, a->n, r->dist, NULL, tp->exec, FFTW_ESTIMATE, FUPERMOD_FFT2D_AUTO, &plan);
  if (rc != FUPERMOD_SUCCESS) return tool_agree(SUB, rc, MPI_COMM_WORLD);
  data = fupermod_fft2d_local(plan);
  rows = r->dist->parts[rank].d;
  for (long i = 0; i < rows * a->n; i++) {
    data[2 * i] = sin(0.001 * (double)(i + rank * 7919));
    data[2 * i + 1] = 0.0;
  }
  /* one untimed warm-up (fresh plan and memory), then this round's timed run */
  for (int rep = -1; rep < 1 && rc == FUPERMOD_SUCCESS; rep++) {
    double t0, mine, tmax, e, st = 0, comp = 0, cpu = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    window_energy(tp, 1, NULL);
    t0 = fupermod_time();
    rc = fupermod_fft2d_execute(plan, FFTW_FORWARD, data);
    mine = fupermod_time() - t0;
    e = window_energy(tp, 0, &st);
    MPI_Allreduce(&mine, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (rep < 0 || rc != FUPERMOD_SUCCESS) continue;
    /* the row and column FFT phases; for processes sharing cores, the time their cores computed */
    fupermod_trace_clear(&phases);
    rc = fupermod_fft2d_compute_trace(plan, &phases);
    if (rc == FUPERMOD_SUCCESS) {
      fupermod_trace busy = FUPERMOD_TRACE_INIT;
      rc = fupermod_fft2d_busy_trace(plan, &busy);
      r->meas_rows[rank] += (phases.iv[1] - phases.iv[0]) / o->reps;
      r->meas_cols[rank] += (phases.iv[3] - phases.iv[2]) / o->reps;
      r->meas_copy[rank] += fmax(0.0, fupermod_trace_total(&busy) - fupermod_trace_total(&phases)) / o->reps;
      fupermod_trace_free(&busy);
    }
    r->shared = fupermod_fft2d_strategy(plan) == FUPERMOD_FFT2D_SHARED;
    {
      /* every member of the group takes part, even with a failed trace */
      int rc2 = share_times(share, rc == FUPERMOD_SUCCESS ? &phases : NULL, &comp, &cpu);
      if (rc == FUPERMOD_SUCCESS) rc = rc2;
    }
    if ((rc = tool_agree(SUB, rc, MPI_COMM_WORLD)) != FUPERMOD_SUCCESS) continue;
    record_run(o, r, rank, share, tmax, e, st, &phases, comp, cpu);
  }
  fupermod_fft2d_destroy(plan);
  fupermod_trace_free(&phases);
  return tool_agree(SUB, rc, MPI_COMM_WORLD);
}

/* Run the application plug-in on r->dist (apps/app.h): a warm-up, then this round's timed run. */
static int run_plugin(const options *o, tool_proc *tp, const app_t *a, MPI_Comm share, run_t *r) {
  int rank, rc = FUPERMOD_SUCCESS;
  fupermod_trace tr = FUPERMOD_TRACE_INIT;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (int rep = -1; rep < 1 && rc == FUPERMOD_SUCCESS; rep++) {
    double mine = 0, tmax, e, st = 0, comp = 0, cpu = 0;
    fupermod_trace_clear(&tr);
    window_energy(tp, 1, NULL);
    rc = a->ops->run(MPI_COMM_WORLD, a->pb, r->dist, tp->exec, &tr, &mine);
    e = window_energy(tp, 0, &st);
    if ((rc = tool_agree(SUB, rc, MPI_COMM_WORLD)) != FUPERMOD_SUCCESS) break;
    MPI_Allreduce(&mine, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (rep < 0) continue;
    if ((rc = tool_agree(SUB, share_times(share, &tr, &comp, &cpu), MPI_COMM_WORLD)) != FUPERMOD_SUCCESS) break;
    record_run(o, r, rank, share, tmax, e, st, &tr, comp, cpu);
  }
  fupermod_trace_free(&tr);
  return rc;
}

/* One round's run of app a on r's distribution. Collective. */
static int run_once(const options *o, tool_proc *tp, const app_t *a, MPI_Comm share, run_t *r) {
  return a->ops ? run_plugin(o, tp, a, share, r) : a->b ? run_dgemm(o, tp, a, share, r) : run_fft(o, tp, a, share, r);
}

/* HiPOPTA (exact two-level) over the configuration's nodes or groups, on rank 0; NULL when the
 * processes form one group. The result is in rank order. */
static fupermod_dist *hier_partition(const app_t *a, fupermod_points *f, int size, const tool_proc *tp, int *rc) {
  int rank, *index = NULL;
  const fupermod_points **fp = NULL;
  fupermod_dist *out = NULL;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  *rc = FUPERMOD_SUCCESS;
  if (rank == 0) {
    index = malloc((size_t)size * sizeof *index);
    fp = malloc((size_t)size * sizeof *fp);
    if (!index || !fp) *rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
    for (int r = 0; fp && r < size; r++) fp[r] = &f[r];
  }
  MPI_Gather(&tp->index, 1, MPI_INT, index, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank == 0 && *rc == FUPERMOD_SUCCESS) *rc = tool_hier_partition(&tp->conf, index, a->D, size, fp, &out);
  MPI_Bcast(rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
  {
    int have = out != NULL;
    MPI_Bcast(&have, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (*rc == FUPERMOD_SUCCESS && have) {
      if (rank != 0) out = fupermod_dist_alloc(a->D, size);
      for (int i = 0; i < size; i++) MPI_Bcast(&out->parts[i].d, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    }
  }
  free(index);
  free(fp);
  return out;
}

/* The reference where one process does all: the one its function predicts fastest for the whole
 * (rank 0 decides; every rank gets the distribution). */
static fupermod_dist *fastest_alone(const app_t *a, const fupermod_points *f, int size) {
  fupermod_dist *d = fupermod_dist_alloc(a->D, size);
  int rank, best = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    double tbest = INFINITY;
    for (int i = 0; i < size; i++) {
      double t, e, ci;
      value_at(&f[i], (double)a->D, &t, &e, &ci);
      if (t > 0 && t < tbest) tbest = t, best = i;
    }
  }
  MPI_Bcast(&best, 1, MPI_INT, 0, MPI_COMM_WORLD);
  for (int i = 0; i < size; i++) d->parts[i].d = i == best ? a->D : 0;
  return d;
}

typedef struct {
  const app_t *a;
  const fupermod_points *f;
  const fupermod_app_model *m;
  long unit; /* the partition's step: 1 (every share the application realises) or the granule */
} whole_ctx;

/* The application's cost of u steps (of w->unit) on process i when the processes of working work
 * (fupermod_whole_cost), on the functions as predict() evaluates them. */
static double whole_cost(int i, long u, uint64_t working, void *ctx) {
  const whole_ctx *w = ctx;
  long d = u * w->unit;
  double t, e, ci;
  value_at(&w->f[i], (double)d, &t, &e, &ci);
  if (!(t > 0) || !isfinite(t)) return INFINITY;
  /* a plug-in gives its whole run only: its computation here, the descent then on its prediction */
  return fupermod_app_model_share_cost(w->m, i, d, working, t, w->a->iters);
}

/* The whole-run prediction of distribution d as it would run (fupermod_app_predict_fn; rank 0):
 * SUMMA's on the layout realise_layouts gives it. */
typedef struct {
  const app_t *a;
  const fupermod_points *f;
  const int *leader;
  const fupermod_app_model *m;
} descend_ctx;

static double predict_dist(const fupermod_dist *d, void *ctx) {
  const descend_ctx *c = ctx;
  fupermod_dist *x = fupermod_dist_alloc(d->D, d->size);
  run_t r;
  double t = NAN;
  if (!x) return NAN;
  fupermod_dist_copy(x, d);
  run_init(&r, "whole-run", x);
  if (!c->a->b || tool_dist_layout(r.dist, (int)(c->a->n / c->a->b), (int)(c->a->n / c->a->b), area_time, (void *)c->f,
                                   &r.layout, NULL) == FUPERMOD_SUCCESS) {
    predict(c->m, &r, c->f, c->a, c->leader, 1);
    t = r.pred_run;
  }
  run_free(&r);
  return t;
}

/* The distribution of least whole-run cost over every set of working processes (partitioners/whole.h),
 * in steps of one unit or of the granule, exact on the per-process costs (an approximation of
 * the prediction, apps/model.h), then descended on the prediction itself to a local minimum
 * (fupermod_app_descend); rank 0 decides, every rank gets it. *mode: FUPERMOD_WHOLE_EXACT or _NESTED. */
static fupermod_dist *whole_partition(const fupermod_app_model *m, const app_t *a, const fupermod_points *f, int size,
                                      const int *leader, int *rc, int *mode) {
  int rank;
  long *d = calloc((size_t)size, sizeof *d);
  /* every share the application realises well (a block; 8 rows of the 2D-FFT, whose column phase
   * and transpose back ran 20-50 % slower on shares off multiples of 8 rows, which the functions
   * measured on the grid cannot show) while the search stays within its work bound */
  long step = tool_app_fft(a) && a->D % 8 == 0 ? 8 : 1;
  long unit = ldexp(1.0, size) * size * (double)(a->D / step) * (double)(a->D / step) <= 2e9 ? step : a->g;
  fupermod_dist *out = NULL;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  *rc = d ? FUPERMOD_SUCCESS : fupermod_error(FUPERMOD_ERR_NOMEM, "run: out of memory");
  if (rank == 0 && *rc == FUPERMOD_SUCCESS) {
    whole_ctx w = {a, f, m, unit};
    fupermod_whole_result res;
    *rc = fupermod_whole_partition(size, a->D / unit, whole_cost, &w, 0, d, &res);
    *mode = res.mode;
    if (*rc == FUPERMOD_SUCCESS && unit > 1)
      printf("   whole-run partition: shares in steps of %ld units (the grid's), as every unit would cost too much\n", unit);
    if (*rc == FUPERMOD_SUCCESS && size <= 32) {
      /* the per-process costs approximate the prediction; the prediction itself decides the shares */
      descend_ctx dc = {a, f, leader, m};
      fupermod_dist *x = fupermod_dist_alloc(a->D, size);
      double start = NAN, best = NAN;
      int moves = 0;
      for (int i = 0; x && i < size; i++) x->parts[i].d = d[i] * unit;
      if (x && isfinite(start = predict_dist(x, &dc)) &&
          fupermod_app_descend(x, unit, predict_dist, &dc, 1000, &best, &moves) == FUPERMOD_SUCCESS) {
        for (int i = 0; i < size; i++) d[i] = x->parts[i].d / unit;
        printf("   whole-run partition: exact on the per-process costs (an approximation), then %d move%s on the whole-run "
               "prediction itself: %.4g s to %.4g s, a local minimum (docs/models.md)\n", moves, moves == 1 ? "" : "s",
               start, best);
      }
      fupermod_dist_free(x);
    }
  }
  *rc = tool_agree(SUB, *rc, MPI_COMM_WORLD);
  if (*rc != FUPERMOD_SUCCESS) {
    free(d);
    return NULL;
  }
  MPI_Bcast(d, size, MPI_LONG, 0, MPI_COMM_WORLD);
  MPI_Bcast(mode, 1, MPI_INT, 0, MPI_COMM_WORLD);
  out = fupermod_dist_alloc(a->D, size);
  for (int i = 0; i < size; i++) out->parts[i].d = d[i] * unit;
  free(d);
  return out;
}

static int same_dist(const fupermod_dist *x, const fupermod_dist *y) {
  for (int i = 0; x && y && i < x->size; i++)
    if (x->parts[i].d != y->parts[i].d) return 0;
  return x && y;
}

/* The processes' mean function at process 0's sizes: what a partitioner for identical processors
 * (POPTA, EOPTA, ALEPH) is given on processors that are not (docs/models.md, "Any partitioner"). */
static int mean_function(const fupermod_problem *prob, fupermod_points *mean) {
  const fupermod_points *f0 = prob->f[0];
  int rc = fupermod_points_copy(mean, f0);
  for (int k = 0; rc == FUPERMOD_SUCCESS && k < mean->count; k++) {
    fupermod_point *pt = &mean->pts[k];
    double st = 0, se = 0, sc = 0;
    for (int i = 0; i < prob->p; i++) {
      double t, e, ci;
      value_at(prob->f[i], (double)pt->d, &t, &e, &ci);
      st += t;
      se += e;
      sc += ci;
    }
    pt->t = st / prob->p;
    pt->ci = sc / prob->p;
    if (mean->has_energy) pt->e = se / prob->p;
  }
  return rc;
}

/* A continuous partitioner's distribution, on its model type fitted to each function. */
static int continuous_dist(const fupermod_partitioner *alg, const fupermod_problem *prob, fupermod_dist *dt) {
  fupermod_model **m = calloc((size_t)prob->p, sizeof *m);
  int rc = m ? FUPERMOD_SUCCESS : fupermod_error(FUPERMOD_ERR_NOMEM, "run: out of memory");
  for (int i = 0; rc == FUPERMOD_SUCCESS && i < prob->p; i++) rc = fupermod_model_create(alg->model_type, prob->f[i], prob->D, &m[i]);
  if (rc == FUPERMOD_SUCCESS) rc = alg->continuous(prob->p, m, dt);
  for (int i = 0; m && i < prob->p; i++) fupermod_model_free(m[i]);
  free(m);
  return rc;
}

/* A Pareto partitioner's fastest point (its front is ordered by increasing time). */
static int pareto_fastest(const fupermod_partitioner *alg, const fupermod_problem *prob, fupermod_dist *dt) {
  fupermod_front front = {0, NULL};
  int rc = alg->pareto(prob, &front);
  if (rc == FUPERMOD_SUCCESS && front.count == 0)
    rc = fupermod_error(FUPERMOD_ERR_INFEASIBLE, "%s: an empty Pareto front", alg->name);
  if (rc == FUPERMOD_SUCCESS) rc = fupermod_dist_copy(dt, front.points[0].dist);
  fupermod_front_free(&front);
  return rc;
}

/* --algorithm's time distribution on rank 0, from any partitioner of the registry: a discrete
 * one's own; a continuous one's on its model type fitted to each process's function (its shares
 * are whole units, which the applications and the predictions take as they are); a Pareto
 * one's fastest point; one for identical processors on the processes' mean function. */
static int algorithm_dist(const options *o, const app_t *a, const fupermod_problem *prob0,
                          const fupermod_partitioner *alg, fupermod_dist *dt) {
  fupermod_problem prob = *prob0;
  fupermod_points mean = {0, NULL, 0};
  const fupermod_points **same = NULL;
  int rc = FUPERMOD_SUCCESS;
  prob.static_power = o->static_power;
  for (int i = 0; alg->needs_energy && i < prob.p; i++)
    if (!prob.f[i]->has_energy)
      return fupermod_error(FUPERMOD_ERR_INPUT, "--algorithm %s: %s needs dynamic energy, and process %d's %s function has "
                            "none (a meter on its configuration line, docs/energy.md)", o->algorithm, alg->name, i, a->name);
  if (alg->homogeneous) {
    if ((rc = mean_function(&prob, &mean)) == FUPERMOD_SUCCESS && !(same = malloc((size_t)prob.p * sizeof *same)))
      rc = fupermod_error(FUPERMOD_ERR_NOMEM, "run: out of memory");
    for (int i = 0; same && i < prob.p; i++) same[i] = &mean;
    prob.f = same;
  }
  if (rc == FUPERMOD_SUCCESS) {
    if (alg->kind == FUPERMOD_PART_CONTINUOUS) rc = continuous_dist(alg, &prob, dt);
    else if ((rc = fupermod_problem_check(&prob, alg)) == FUPERMOD_SUCCESS)
      rc = alg->kind == FUPERMOD_PART_PARETO || !alg->discrete ? pareto_fastest(alg, &prob, dt) : alg->discrete(&prob, dt);
  }
  if (rc != FUPERMOD_SUCCESS)
    rc = fupermod_error_prefix(rc, "--algorithm %s%s", o->algorithm,
                               alg->homogeneous ? " (for identical processors, on the processes' mean function)" : "");
  free(same);
  fupermod_points_free(&mean);
  return rc;
}

/* Partition on rank 0 (except paraleph, which runs on every process); results on every rank. */
static int partition_all(const options *o, const app_t *a, fupermod_points *f, int size, run_t *runs, int *nruns,
                         fupermod_front *front, int *chosen, const tool_proc *tp) {
  fupermod_dist *dh = NULL, *alone;
  int rank, rc = FUPERMOD_SUCCESS, has_energy = 1;
  const fupermod_points **fp = NULL;
  fupermod_dist *dt = NULL, *de = NULL, *dc = NULL, *even = fupermod_dist_alloc(a->D, size);
  const fupermod_partitioner *alg = fupermod_partitioner_find(o->algorithm);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    fp = malloc((size_t)size * sizeof *fp);
    for (int i = 0; i < size; i++) {
      fp[i] = &f[i];
      if (!f[i].has_energy) has_energy = 0;
    }
  }
  MPI_Bcast(&has_energy, 1, MPI_INT, 0, MPI_COMM_WORLD);
  {
    fupermod_problem prob = {a->D, size, fp, 0.0, 0, FUPERMOD_OBJ_TIME};
    if (strcmp(o->algorithm, "paraleph") == 0) {
      rc = fupermod_paraleph(MPI_COMM_WORLD, 0, rank == 0 ? &prob : NULL, FUPERMOD_OBJ_TIME, 0, &dt, NULL);
    } else {
      if (rank == 0) {
        dt = fupermod_dist_alloc(a->D, size);
        rc = dt ? algorithm_dist(o, a, &prob, alg, dt) : fupermod_error(FUPERMOD_ERR_NOMEM, "run: out of memory");
      }
      MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
      if (rc == FUPERMOD_SUCCESS) {
        if (rank != 0) dt = fupermod_dist_alloc(a->D, size);
        for (int i = 0; i < size; i++) MPI_Bcast(&dt->parts[i].d, 1, MPI_LONG, 0, MPI_COMM_WORLD);
      }
    }
    if (rc == FUPERMOD_SUCCESS && has_energy)
      rc = fupermod_paraleph(MPI_COMM_WORLD, 0, rank == 0 ? &prob : NULL, FUPERMOD_OBJ_ENERGY, 0, &de, NULL);
    if (rc == FUPERMOD_SUCCESS && has_energy) {
      int r2 = FUPERMOD_SUCCESS;
      *chosen = -1;
      if (rank == 0) r2 = tool_pareto_pick(&prob, o->tradeoff, front, chosen);
      MPI_Bcast(&r2, 1, MPI_INT, 0, MPI_COMM_WORLD);
      MPI_Bcast(chosen, 1, MPI_INT, 0, MPI_COMM_WORLD);
      rc = r2;
      if (rc == FUPERMOD_SUCCESS && *chosen >= 0) {
        dc = fupermod_dist_alloc(a->D, size);
        if (rank == 0) fupermod_dist_copy(dc, front->points[*chosen].dist);
        for (int i = 0; i < size; i++) MPI_Bcast(&dc->parts[i].d, 1, MPI_LONG, 0, MPI_COMM_WORLD);
      }
    }
  }
  free(fp);
  if (rc == FUPERMOD_SUCCESS) dh = hier_partition(a, f, size, tp, &rc);
  if (rc != FUPERMOD_SUCCESS) {
    if (rank == 0) fprintf(stderr, "fupermod run: %s: partitioning failed: %s\n", a->name, fupermod_error_message());
    fupermod_dist_free(dh);
    fupermod_dist_free(dt);
    fupermod_dist_free(de);
    fupermod_dist_free(dc);
    fupermod_dist_free(even);
    return rc;
  }
  alone = size > 1 ? fastest_alone(a, f, size) : NULL;
  *nruns = 0;
  run_init(&runs[(*nruns)++], o->algorithm, dt);
  if (dh) run_init(&runs[(*nruns)++], "hipopta", dh);
  if (de) run_init(&runs[(*nruns)++], "paraleph-energy", de);
  if (dc) run_init(&runs[(*nruns)++], "pareto-choice", dc);
  if (alone) run_init(&runs[(*nruns)++], "fastest-alone", alone);
  run_init(&runs[(*nruns)++], "even", even); /* last: the report compares with it */
  return FUPERMOD_SUCCESS;
}

/* On rank 0: replace every process's points by its smoothed function (fupermod_points_smooth);
 * raw keeps the measured ones for the plots, scatter[i] the relative scatter about the fit. */
static int smooth_all(const options *o, fupermod_points *all, int size, fupermod_points **raw, double *scatter) {
  int rank, rc = FUPERMOD_SUCCESS;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0 && o->smooth > 0) {
    if (!scatter || !(*raw = calloc((size_t)size, sizeof **raw)))
      rc = fupermod_error(FUPERMOD_ERR_NOMEM, "run: out of memory");
    for (int i = 0; i < size && rc == FUPERMOD_SUCCESS; i++) {
      fupermod_points sm;
      if ((rc = fupermod_points_smooth(&all[i], o->smooth, o->prec.cl, &sm, &scatter[i], NULL)) != FUPERMOD_SUCCESS) break;
      (*raw)[i] = all[i];
      all[i] = sm;
    }
  }
  return tool_agree(SUB, rc, MPI_COMM_WORLD);
}

/* A GPU process's link to its device as its executor moves data: uploads and downloads from
 * page-locked and pageable host memory at the sizes (the mean of the benchmark's minimum of
 * repetitions, at least 3), each fitted t = alpha + beta bytes; rank 0 prints them. Collective. */
static int device_links(const options *o, tool_proc *tp, const long *sizes, int ns, char **names) {
  double fit[8] = {0}, *all = NULL;
  int rank, size, rc = FUPERMOD_SUCCESS, reps = o->prec.reps_min > 3 ? o->prec.reps_min : 3, any;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (tp->exec && fupermod_exec_kind(tp->exec) == FUPERMOD_EXEC_CUDA)
    for (int k = 0; k < 4 && rc == FUPERMOD_SUCCESS; k++) {
      fupermod_comm_point pts[16];
      fupermod_comm_link l = {ns < 16 ? ns : 16, pts, 0, 0};
      for (int i = 0; i < l.n && rc == FUPERMOD_SUCCESS; i++) {
        double sum = 0, t;
        for (int r = 0; r < reps && rc == FUPERMOD_SUCCESS; r++)
          if ((rc = fupermod_exec_reference(tp->exec, k % 2 ? FUPERMOD_EXEC_REF_DOWN : FUPERMOD_EXEC_REF_UP, sizes[i], k / 2,
                                            1, &t)) == FUPERMOD_SUCCESS)
            sum += t;
        pts[i] = (fupermod_comm_point){(double)sizes[i], sum / reps, 0, reps};
      }
      if (rc == FUPERMOD_SUCCESS) fupermod_comm_fit(&l);
      fit[2 * k] = l.alpha, fit[2 * k + 1] = l.beta;
    }
  any = tp->exec && fupermod_exec_kind(tp->exec) == FUPERMOD_EXEC_CUDA;
  MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if ((rc = tool_agree(SUB, rc, MPI_COMM_WORLD)) != FUPERMOD_SUCCESS || !any) return rc;
  if (rank == 0 && !(all = malloc((size_t)size * sizeof fit))) rc = fupermod_error(FUPERMOD_ERR_NOMEM, "run: out of memory");
  MPI_Gather(fit, 8, MPI_DOUBLE, all, 8, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  for (int i = 0; rank == 0 && all && i < size; i++) {
    static const char *const kinds[4] = {"up pinned", "down pinned", "up pageable", "down pageable"};
    const double *f = all + 8 * i;
    if (f[1] <= 0 && f[3] <= 0) continue;
    printf("   device link of %s (through its executor, t = alpha + beta bytes):", names[i]);
    for (int k = 0; k < 4; k++)
      printf("%s %s %.2f us, %.2f GB/s", k ? ";" : "", kinds[k], f[2 * k] * 1e6, f[2 * k + 1] > 0 ? 1e-9 / f[2 * k + 1] : 0.0);
    printf("\n");
  }
  free(all);
  return tool_agree(SUB, rc, MPI_COMM_WORLD);
}

/* Every pair of processes' one-way message time at the applications' range of message sizes (as
 * fupermod comm), kept in DIR/models/comm-FINGERPRINT.txt and reused while nothing that determines
 * it changed (--rebuild measures again; an interrupted measurement resumes); rank 0 prints each
 * link's Hockney fit. */
static int measure_links(const options *o, tool_proc *tp, run_job *job) {
  static const long sizes[] = {8, 4096, 65536, 1048576, 16777216};
  const int ns = (int)(sizeof sizes / sizeof sizes[0]);
  fupermod_comm cm = {0, NULL};
  char path[4096], **names = NULL;
  int rank, size, rc = FUPERMOD_SUCCESS;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  job->links_done = 1;
  snprintf(path, sizeof path, "%s", o->models);
  if (rank == 0 && mkdir(path, 0777) != 0 && errno != EEXIST)
    rc = fupermod_error(FUPERMOD_ERR_SYSTEM, "%s: cannot create the directory: %s", path, strerror(errno));
  if ((rc = tool_agree(SUB, rc, MPI_COMM_WORLD)) != FUPERMOD_SUCCESS) return rc;
  {
    /* kept under the fingerprint of what determines them: every process's line and real host,
     * the sizes and the precision */
    char mine[1024], host[MPI_MAX_PROCESSOR_NAME], *all = rank == 0 ? malloc((size_t)size * sizeof mine) : NULL;
    const fupermod_process_conf *pc = &tp->conf.procs[tp->index];
    uint64_t h = 1469598103934665603ULL;
    int len = 0;
    MPI_Get_processor_name(host, &len);
    memset(mine, 0, sizeof mine);
    snprintf(mine, sizeof mine, "%s %d %s %s %s|%s", pc->hostname, pc->rank_intra, pc->bind, pc->device_type, pc->subopts,
             host);
    MPI_Gather(mine, sizeof mine, MPI_CHAR, all, sizeof mine, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (rank == 0) {
      char pbuf[256];
      for (int r = 0; all && r < size; r++) h = fnv(h, all + (size_t)r * sizeof mine, strlen(all + (size_t)r * sizeof mine) + 1);
      h = fnv(h, sizes, sizeof sizes);
      snprintf(pbuf, sizeof pbuf, "%d|%d|%g|%g|%g|%d", o->prec.reps_min, o->prec.reps_max, o->prec.cl, o->prec.eps,
               o->prec.time_max, o->prec.keep_outliers);
      h = fnv(h, pbuf, strlen(pbuf));
    }
    free(all);
    MPI_Bcast(&h, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    snprintf(path, sizeof path, "%s/comm-%016llx.txt", o->models, (unsigned long long)h);
    /* the same fingerprint names the platform in the history (tools/run_history.h) */
    tool_launch_init(&job->launch, h);
  }
  if (size < 2) return FUPERMOD_SUCCESS;
  rc = tool_comm_links(SUB, tp, path, sizes, ns, &o->prec, o->rebuild, o->quiet, &cm, &names);
  if (rc == FUPERMOD_SUCCESS && rank == 0) {
    printf("   links (one-way time t = alpha + beta bytes, half a ping-pong, 8 B to 16 MiB; %s):", path);
    for (int i = 0; i < size; i++)
      for (int j = i + 1; j < size; j++) {
        const fupermod_comm_link *l = fupermod_comm_link_of(&cm, i, j);
        printf("%s %s - %s %.2f us, %.2f GB/s", i + j > 1 ? ";" : "", names[i], names[j], l->alpha * 1e6,
               l->beta > 0 ? 1e-9 / l->beta : 0.0);
      }
    printf("\n   the energy of communication is not modelled (no meter measures it apart)\n");
  }
  if (rc == FUPERMOD_SUCCESS) rc = device_links(o, tp, sizes, ns, names);
  if (rc == FUPERMOD_SUCCESS && rank == 0) job->links = cm;
  else fupermod_comm_free(&cm);
  for (int i = 0; names && names[i]; i++) free(names[i]);
  free(names);
  return rc;
}

/* One calibration run on base's distribution (after its warm-up, as the rounds run): its whole
 * run, and on rank 0 per working process its computation over what predict() gives for its share
 * (SUMMA: the updates on its rectangle; the 2D-FFT: the row phase, the column phase on as many
 * columns, and its own copies per byte) into fk (run_model's factors' layout). Collective. */
static int calibration_run(const options *o, tool_proc *tp, const app_t *a, MPI_Comm share, const run_t *base, double *fk,
                           double *whole, fupermod_app_model *m) {
  options one = *o;
  int rank, size, rc;
  run_t r;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  one.reps = 1;
  run_init(&r, base->label, base->dist);
  r.layout = base->layout;
  rc = run_once(&one, tp, a, share, &r);
  if (rc == FUPERMOD_SUCCESS) gather_reps(&one, &r, rank, size);
  m->shared = r.shared;
  *whole = r.meas_time;
  for (int i = 0; fk && rc == FUPERMOD_SUCCESS && i < size; i++) {
    long d = base->dist->parts[i].d, c = d; /* a square signal: as many columns as rows */
    double t = base->dist->parts[i].t; /* one kernel run at d, as predict() gives it */
    fk[i] = fk[size + i] = fk[2 * size + i] = 0;
    if (d <= 0 || !(t > 0)) continue;
    /* alone its wall time, in a group the CPU its cores gave the members' updates (the union of
     * their phases also holds one's messages during another's update, and gaps where the two fall
     * out of step, which the messages' model and the steps carry) */
    if (!tool_app_fft(a)) fk[i] = r.meas_proc[i] / (t * a->iters);
    else {
      fk[i] = r.meas_rows[i] / t;
      fk[size + i] = r.meas_cols[i] / (t * (double)c / (double)d);
      fk[2 * size + i] = r.meas_copy[i] / (2 * 16.0 * (double)d * (double)a->n);
    }
  }
  /* A group time-sharing its cores ends a phase when its last member does: the members' own
   * factors scatter between 1 and 1/members from run to run with how their phases fell in step
   * (one finishing early on the cores the other then has alone), so each member takes the group's
   * slowest, which is the phase's (the copies stay each member's own) */
  for (int k = 0; fk && m->group && rc == FUPERMOD_SUCCESS && k < 2; k++)
    for (int g = 0; g < size; g++) {
      double slowest = 0;
      for (int i = 0; i < size; i++)
        if (m->group[i] == g && fk[k * size + i] > slowest) slowest = fk[k * size + i];
      for (int i = 0; i < size; i++)
        if (m->group[i] == g && fk[k * size + i] > 0) fk[k * size + i] = slowest;
    }
  r.dist = NULL;
  r.layout = NULL;
  run_free(&r);
  return rc;
}

/* Whether the launch's own runs left the platform the history knows: the ratio of their median
 * whole run to the history's beyond 1.5 either way and beyond 5 x 1.4826 MADs of the history's
 * log times, or beyond 2 either way whatever the history's scatter (rank 0). */
static int drifted(const tool_cal_runs *past, const tool_cal_runs *now, double *mp, double *mn) {
  double *f = malloc(3 * (size_t)now->p * sizeof *f), *dev = malloc((size_t)past->n * sizeof *dev), mad, r;
  if (!f || !dev) {
    free(f), free(dev);
    return 0;
  }
  tool_cal_pool(past, f, mp);
  tool_cal_pool(now, f, mn);
  for (int k = 0; k < past->n; k++) dev[k] = fabs(log(past->whole[k] / *mp));
  gsl_sort(dev, 1, (size_t)past->n);
  mad = gsl_stats_median_from_sorted_data(dev, 1, (size_t)past->n);
  free(f), free(dev);
  r = fabs(log(*mn / *mp));
  /* 1.5: the 2D-FFT's whole runs scatter by 10-20 % from one launch to the next on shared cores;
   * 2: a loaded host's history may scatter so much that its MADs would hide any drift */
  return r > log(2.0) || (r > log(1.5) && r > 5 * 1.4826 * mad);
}

/* The runs a set's fit uses (now's, and the history's unless the platform drifted) into *use; the
 * line saying so, with their medians and the runs rejected as outlying (rank 0). */
static int set_runs(const options *o, const app_t *a, const char *label, const tool_cal_runs *past,
                    const tool_cal_runs *now, int drift, tool_cal_runs *use) {
  int rej, rc = FUPERMOD_SUCCESS;
  double *f = malloc(3 * (size_t)now->p * sizeof *f), mn = NAN, mp = NAN, m;
  use->p = now->p;
  for (int k = 0; !drift && k < past->n && rc == FUPERMOD_SUCCESS; k++)
    rc = tool_cal_runs_add(use, past->whole[k], past->f + (size_t)k * 3 * past->p);
  for (int k = 0; k < now->n && rc == FUPERMOD_SUCCESS; k++) rc = tool_cal_runs_add(use, now->whole[k], now->f + (size_t)k * 3 * now->p);
  if (rc != FUPERMOD_SUCCESS || !f) {
    free(f);
    return fupermod_error(FUPERMOD_ERR_NOMEM, "run: out of memory");
  }
  rej = tool_cal_pool(use, f, &m);
  /* what was rejected is said even with -q: a spike of the host, not learned */
  if (!o->quiet || rej) {
    tool_cal_pool(now, f, &mn);
    if (past->n > 0 && !drift) tool_cal_pool(past, f, &mp);
    fprintf(stderr, "fupermod run: %s: %s: calibration on %d run%s of this launch (median %.4g s) and %d of earlier ones",
            a->name, label, now->n, now->n == 1 ? "" : "s", mn, drift ? 0 : past->n);
    if (past->n > 0 && !drift) fprintf(stderr, " (median %.4g s)", mp);
    fprintf(stderr, "%s", rej ? "" : "\n");
  }
  if (rej) fprintf(stderr, "; %d outlying (a whole run beyond 5 MADs and 20 %% of the median) rejected\n", rej);
  free(f);
  return FUPERMOD_SUCCESS;
}

/* The processes alone on cores they shared in the calibration take the median factors of those
 * that had their cores to themselves there (1 without any), not their own (rank 0). */
static void solo_factors(run_model *rm, int size) {
  const int *group = rm->m.group;
  const double *f = rm->factors;
  if (!group || !(rm->solo = calloc(3 * (size_t)size, sizeof *rm->solo))) return;
  for (int k = 0; k < 3; k++) {
    double v[64], ref = 0;
    int n = 0;
    for (int i = 0; i < size && n < 64; i++)
      if (!grouped(group, i, size) && f[k * size + i] > 0) v[n++] = f[k * size + i];
    if (n > 0) {
      gsl_sort(v, 1, (size_t)n);
      ref = gsl_stats_median_from_sorted_data(v, 1, (size_t)n);
    }
    for (int i = 0; i < size; i++) rm->solo[k * size + i] = grouped(group, i, size) ? ref : f[k * size + i];
  }
  rm->m.solo = rm->solo;
}

/* calibrate()'s sets for cal_predict: set s's run and the application */
typedef struct {
  const app_t *a;
  run_t **set;
  const fupermod_app_model *m;
} cal_pred_ctx;

/* Set s's whole run by the cost model with the factors f and the messages at the links' cost
 * (with) or free: tools/run_calib.h's tool_cal_predict (rank 0). */
static double cal_predict(int s, const double *f, int with, void *ctx) {
  const cal_pred_ctx *c = ctx;
  fupermod_app_model trial = *c->m;
  trial.factors = f;
  trial.solo = NULL;
  trial.msgs = 0;
  if (!with) trial.cm = NULL;
  predict_run(&trial, c->set[s], c->a, 1);
  return c->set[s]->pred_run;
}

/* The leave-one-out check on two distributions (tool_cal_leave_one_out): the larger relative
 * error of the two, NaN on one distribution; its line unless quiet (rank 0). */
static double leave_one_out(const options *o, const app_t *a, const tool_cal_runs *use, int nsets, cal_pred_ctx *pc) {
  double pr[2], me[2];
  if (nsets != 2 || tool_cal_leave_one_out(use, nsets, cal_predict, pc, pr, me) != FUPERMOD_SUCCESS) return NAN;
  if (!o->quiet)
    fprintf(stderr, "fupermod run: %s: leave one out: calibrated on %s alone, %s predicted %.4g s, measured %.4g s (%+.1f %%); "
                    "calibrated on %s alone, %s predicted %.4g s, measured %.4g s (%+.1f %%)\n", a->name,
            pc->set[1]->label, pc->set[0]->label, pr[0], me[0], 100 * (pr[0] / me[0] - 1), pc->set[0]->label,
            pc->set[1]->label, pr[1], me[1], 100 * (pr[1] / me[1] - 1));
  return fmax(fabs(pr[0] / me[0] - 1), fabs(pr[1] / me[1] - 1));
}

/* The fit's bootstrap intervals (rank 0). */
static void report_fit(const options *o, const app_t *a, const tool_cal_runs *use, int nsets, cal_pred_ctx *pc) {
  int p = use[0].p;
  double *lo = malloc(3 * (size_t)p * sizeof *lo), *hi = malloc(3 * (size_t)p * sizeof *hi), mlo = NAN, mhi = NAN;
  if (lo && hi && tool_cal_bootstrap(use, nsets, cal_predict, pc, 200, o->prec.cl, lo, hi, &mlo, &mhi) == FUPERMOD_SUCCESS) {
    fprintf(stderr, "fupermod run: %s: their %g %% bootstrap intervals (over the calibration runs):", a->name, 100 * o->prec.cl);
    for (int i = 0; i < p; i++)
      if (!tool_app_fft(a)) fprintf(stderr, " %.3g-%.3g", lo[i], hi[i]);
      else fprintf(stderr, " %.3g-%.3g/%.3g-%.3g", lo[i], hi[i], lo[p + i], hi[p + i]);
    if (pc->m->msgs > 0) fprintf(stderr, "; messages %.3g-%.3g", mlo, mhi);
    fprintf(stderr, "\n");
  }
  free(lo), free(hi);
}

/* The application's own runs where the kernels' functions and the links do not tell
 * (calibration_run), on two distributions so that every process has worked and the messages'
 * factor is fitted on more than one pattern: the partitioner's optimum (runs[0]) and even
 * (runs[nruns - 1]; one alone where they coincide). Per distribution, SUMMA three runs and the
 * 2D-FFT five (whose runs are short and scatter), pooled by their medians with the runs earlier
 * launches kept for the same platform, application, size and distribution (tools/run_history.h):
 * with enough of those, one run of this launch checks that the platform has not drifted (if it
 * has, that distribution is calibrated afresh on this launch's runs alone). The fit
 * (tools/run_calib.h) into rm on rank 0; the launch's runs appended to the history; *loo: the
 * leave-one-out check's larger error (rank 0; NaN on one distribution). Collective. */
static int calibrate(const options *o, tool_proc *tp, const app_t *a, MPI_Comm share, run_t *runs, int nruns, double *loo,
                     run_model *rm, const tool_launch *launch) {
  const int RUNS = tool_app_fft(a) ? 5 : 3;
  run_t *set[2] = {&runs[0], &runs[nruns - 1]};
  int nsets = nruns > 1 && !same_dist(runs[0].dist, runs[nruns - 1].dist) ? 2 : 1;
  int rank, size, rc = FUPERMOD_SUCCESS, todo[2] = {RUNS, RUNS}, drift[2] = {0, 0};
  tool_cal_runs past[2] = {{0}, {0}}, now[2] = {{0}, {0}}, use[2] = {{0}, {0}};
  tool_cal_fit fit = {0};
  fupermod_app_model *m = &rm->m;
  cal_pred_ctx pc = {a, set, m};
  double *fk = NULL, mp = NAN, mn = NAN, whole;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  *loo = NAN;
  free(rm->factors);
  free(rm->direct);
  free(rm->solo);
  rm->factors = rm->solo = NULL;
  rm->direct = rank == 0 ? calloc((size_t)size, sizeof *rm->direct) : NULL;
  {
    /* a GPU holding the whole signal transforms it in one call (apps/fft2d.c) */
    int mine = tp->exec && fupermod_exec_kind(tp->exec) != FUPERMOD_EXEC_CPU;
    MPI_Gather(&mine, 1, MPI_INT, rm->direct, 1, MPI_INT, 0, MPI_COMM_WORLD);
  }
  /* fitted uncalibrated, the direct transforms known once the factors are */
  m->factors = m->solo = NULL, m->direct = NULL, m->msgs = 0;
  m->cal_dist = runs[0].dist;
  for (int s = 0; s < nsets; s++) {
    now[s].p = size;
    set[s]->calibrated = 1;
  }
  for (int s = 0; rank == 0 && s < nsets && rc == FUPERMOD_SUCCESS; s++) {
    rc = tool_history_cal_load(o->models, launch, a, set[s]->dist, &past[s]);
    if (past[s].n >= RUNS) todo[s] = 1;
  }
  if (rank == 0 && rc == FUPERMOD_SUCCESS && !(fk = calloc(3 * (size_t)size, sizeof *fk)))
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "run: out of memory");
  if ((rc = tool_agree(SUB, rc, MPI_COMM_WORLD)) != FUPERMOD_SUCCESS) goto done;
  MPI_Bcast(todo, 2, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank == 0 && !o->quiet) {
    fprintf(stderr, "fupermod run: %s: calibration runs of the whole-run model: %d on the %s distribution", a->name, todo[0],
            set[0]->label);
    if (nsets == 2) fprintf(stderr, ", %d on the %s one", todo[1], set[1]->label);
    fprintf(stderr, "%s\n", todo[0] < RUNS || todo[nsets - 1] < RUNS ? " (with the earlier launches' runs)" : "");
  }
  for (int s = 0; s < nsets; s++)
    for (int k = 0; k < todo[s] && rc == FUPERMOD_SUCCESS; k++) {
      rc = calibration_run(o, tp, a, share, set[s], fk, &whole, m);
      if (rc == FUPERMOD_SUCCESS && rank == 0) rc = tool_cal_runs_add(&now[s], whole, fk);
      if (k + 1 == todo[s] && todo[s] < RUNS) {
        /* off the history: as many runs as without one, this launch's alone if they agree */
        int more = rank == 0 && drifted(&past[s], &now[s], &mp, &mn);
        MPI_Bcast(&more, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (more) todo[s] = RUNS;
      }
    }
  if ((rc = tool_agree(SUB, rc, MPI_COMM_WORLD)) != FUPERMOD_SUCCESS || rank != 0) goto done;
  for (int s = 0; s < nsets && rc == FUPERMOD_SUCCESS; s++) {
    if (past[s].n > 0 && (drift[s] = drifted(&past[s], &now[s], &mp, &mn)))
      fprintf(stderr, "fupermod run: %s: the platform drifted: whole runs of %.4g s on the %s distribution against %.4g s in "
                      "the history (%d runs): calibrated on this launch's runs alone\n", a->name, mn, set[s]->label, mp,
              past[s].n);
    rc = set_runs(o, a, set[s]->label, &past[s], &now[s], drift[s], &use[s]);
  }
  if (rc != FUPERMOD_SUCCESS || !(rm->factors = calloc(3 * (size_t)size, sizeof *rm->factors))) goto done;
  if (tool_cal_fit_sets(use, nsets, ~0u, cal_predict, &pc, &fit) != FUPERMOD_SUCCESS) goto done;
  memcpy(rm->factors, fit.f, 3 * (size_t)size * sizeof *rm->factors);
  m->factors = rm->factors, m->direct = rm->direct, m->msgs = fit.msgs;
  solo_factors(rm, size);
  for (int s = 0; s < nsets; s++)
    if (tool_history_cal_append(o->models, launch, a, set[s]->dist, &now[s], drift[s]) != FUPERMOD_SUCCESS)
      fprintf(stderr, "fupermod run: warning: %s\n", fupermod_error_message());
  if (!o->quiet) {
    fprintf(stderr, "fupermod run: %s: the application over its functions (median):", a->name);
    for (int i = 0; i < size; i++)
      if (!tool_app_fft(a)) fprintf(stderr, " %.3g", rm->factors[i]);
      else fprintf(stderr, " %.3g/%.3g/%.3g GB/s", rm->factors[i], rm->factors[size + i],
                   rm->factors[2 * size + i] > 0 ? 1e-9 / rm->factors[2 * size + i] : 0.0);
    fprintf(stderr, "; messages %.3g x the links'\n", m->msgs > 0 ? m->msgs : 1.0);
    report_fit(o, a, use, nsets, &pc);
  }
  *loo = leave_one_out(o, a, use, nsets, &pc);
done:
  free(fk);
  tool_cal_fit_free(&fit);
  for (int s = 0; s < 2; s++) {
    tool_cal_runs_free(&past[s]);
    tool_cal_runs_free(&now[s]);
    tool_cal_runs_free(&use[s]);
  }
  return rc;
}

/* The whole-run candidate (whole_partition, on the calibrated model), run where it differs from
 * every other distribution: put second, its layout realised. Collective. */
static int add_whole(const options *o, const fupermod_app_model *m, const app_t *a, fupermod_points *all, int size,
                     const int *leader, run_t *runs, int *nruns) {
  int rc, mode = FUPERMOD_WHOLE_EXACT, rank;
  fupermod_dist *dw;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (size > 63) {
    /* the working sets are bit masks of 63 processes at most: the other candidates remain */
    if (rank == 0) printf("   whole-run partition: not run for %d processes (at most 63)\n", size);
    return FUPERMOD_SUCCESS;
  }
  if (!(dw = whole_partition(m, a, all, size, leader, &rc, &mode))) return rc;
  if (rank == 0 && mode == FUPERMOD_WHOLE_NESTED)
    printf("   whole-run partition: too many processes for every working set; searched the nested sets of the\n"
           "   fastest processes (a heuristic, docs/algorithms.md)\n");
  memmove(&runs[2], &runs[1], (size_t)(*nruns - 1) * sizeof *runs);
  (*nruns)++;
  run_init(&runs[1], "whole-run", dw);
  if (tool_app_dgemm(a) && (rc = realise_layouts(o, a, &runs[1], 1, all, size)) != FUPERMOD_SUCCESS) return rc;
  /* as realised: run only where it differs from every other */
  for (int k = 0; k < *nruns; k++)
    if (k != 1 && same_dist(runs[1].dist, runs[k].dist)) {
      run_free(&runs[1]);
      memmove(&runs[1], &runs[2], (size_t)(*nruns - 2) * sizeof *runs);
      (*nruns)--;
      break;
    }
  return FUPERMOD_SUCCESS;
}

/* The square-corner layout (partitioners/matrix.h) of the time-optimal distribution's areas, its
 * squares fitted to the functions: a candidate beside the column layouts where it exists (one
 * process fast enough that the others' squares fit on the diagonal) and every process computes on
 * its cores, put before even. Collective. */
static int add_square_corner(const tool_proc *tp, const app_t *a, fupermod_points *all, int size, run_t *runs,
                             int *nruns) {
  int rank, rc = FUPERMOD_SUCCESS, nb = (int)(a->n / a->b), ok = 0, device;
  fupermod_layout *l = NULL;
  fupermod_dist *d = NULL;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  /* a GPU multiplies a process's pieces one update at a time, C moved each time: not a candidate */
  device = tp->exec && fupermod_exec_kind(tp->exec) != FUPERMOD_EXEC_CPU;
  MPI_Allreduce(MPI_IN_PLACE, &device, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (device) {
    if (rank == 0)
      printf("   square-corner layout: not a candidate with a GPU process (its pieces would move C at every update)\n");
    return FUPERMOD_SUCCESS;
  }
  if (rank == 0) {
    double *areas = malloc((size_t)size * sizeof *areas), tmax = 0;
    if (!areas) rc = fupermod_error(FUPERMOD_ERR_NOMEM, "run: out of memory");
    for (int i = 0; areas && i < size; i++) areas[i] = (double)runs[0].dist->parts[i].d;
    if (rc == FUPERMOD_SUCCESS) {
      rc = fupermod_layout_sc_fit(areas, size, nb, nb, area_time, (void *)all, &l, &tmax);
      if (rc == FUPERMOD_ERR_INFEASIBLE) {
        printf("   square-corner layout: none for the %s areas (%s)\n", runs[0].label, fupermod_error_message());
        rc = FUPERMOD_SUCCESS;
      } else if (rc == FUPERMOD_SUCCESS && !(d = fupermod_dist_alloc((long)nb * nb, size)))
        rc = fupermod_error(FUPERMOD_ERR_NOMEM, "run: out of memory");
      for (int i = 0; d && i < size; i++) d->parts[i].d = fupermod_layout_area(l, i);
      ok = d != NULL;
    }
    free(areas);
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if ((rc = tool_agree(SUB, rc, MPI_COMM_WORLD)) != FUPERMOD_SUCCESS || !ok) {
    fupermod_layout_free(l);
    fupermod_dist_free(d);
    return rc;
  }
  if (rank != 0 && !(d = fupermod_dist_alloc((long)nb * nb, size))) rc = fupermod_error(FUPERMOD_ERR_NOMEM, "run: out of memory");
  if ((rc = tool_agree(SUB, rc, MPI_COMM_WORLD)) != FUPERMOD_SUCCESS) {
    fupermod_layout_free(l);
    fupermod_dist_free(d);
    return rc;
  }
  for (int i = 0; i < size; i++) MPI_Bcast(&d->parts[i].d, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  memmove(&runs[*nruns], &runs[*nruns - 1], sizeof *runs);
  run_init(&runs[*nruns - 1], "square-corner", d);
  runs[*nruns - 1].layout = l;
  (*nruns)++;
  return FUPERMOD_SUCCESS;
}

/* The race's runs: one of a candidate's distribution, as the rounds run it, apart from them. */
typedef struct {
  const options *o;
  tool_proc *tp;
  const app_t *a;
  MPI_Comm share;
  const run_t *runs;
} race_ctx;

static int race_measure(int k, void *ctx, double *t) {
  race_ctx *c = ctx;
  options one = *c->o;
  run_t r;
  int rc;
  one.reps = 1;
  run_init(&r, c->runs[k].label, c->runs[k].dist);
  r.layout = c->runs[k].layout;
  rc = run_once(&one, c->tp, c->a, c->share, &r);
  *t = r.tsum; /* the slowest process's, the same on every process */
  r.dist = NULL;
  r.layout = NULL;
  run_free(&r);
  return rc;
}

/* The choice among the runs by o->choose (fupermod_choose), on every process: the predictions
 * (rank 0's) shared first. *note: the report's lines on it (rank 0). Collective. */
static int choose(const options *o, tool_proc *tp, const app_t *a, MPI_Comm share, const run_t *runs, int nruns, double loo,
                  int *best, char **note) {
  fupermod_candidate c[16];
  fupermod_choose_stats st;
  race_ctx ctx = {o, tp, a, share, runs};
  fupermod_choose_opts co = {o->choose, 0, o->race_rounds, o->race_top, o->prec.cl, race_measure, &ctx};
  double pred[32];
  int rank, rc, len = 0, all; /* every candidate races: the model failed its leave-one-out check */
  size_t cap = 4096;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (int k = 0; k < nruns; k++) pred[2 * k] = runs[k].pred_run, pred[2 * k + 1] = runs[k].pred_run_ci;
  MPI_Bcast(pred, 2 * nruns, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  /* a model that fails its own leave-one-out check cannot rank the candidates: every one races */
  MPI_Bcast(&loo, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  all = loo > LOO_TRUST && o->choose == FUPERMOD_CHOOSE_RACE;
  if (all) co.top = nruns;
  for (int k = 0; k < nruns; k++) {
    c[k] = (fupermod_candidate){runs[k].label, pred[2 * k], pred[2 * k + 1], -1, 0, 0, 0};
    /* the same shares and prediction: the same distribution under another name, raced once */
    for (int j = 0; j < k && c[k].same_as < 0; j++)
      if (same_dist(runs[j].dist, runs[k].dist) && pred[2 * j] == pred[2 * k]) c[k].same_as = j;
    if (rank == 0 && !isfinite(c[k].pred))
      fprintf(stderr, "fupermod run: %s: the %s distribution's whole run cannot be predicted (%g s): it is not a "
                      "candidate\n", a->name, runs[k].label, c[k].pred);
  }
  if (rank == 0 && all)
    fprintf(stderr, "fupermod run: %s: the leave-one-out check missed by %.0f %% (beyond %.0f %%): the predictions cannot "
                    "rank the distributions, so every one races (at most %d rounds)\n", a->name, 100 * loo, 100 * LOO_TRUST,
            o->race_rounds);
  else if (rank == 0 && !o->quiet && o->choose == FUPERMOD_CHOOSE_RACE)
    fprintf(stderr, "fupermod run: %s: racing the %d least predicted distributions and those whose predictions overlap "
                    "the least one's (at most %d rounds)\n", a->name, o->race_top, o->race_rounds);
  rc = fupermod_choose(c, nruns, &co, best, &st);
  if (rc != FUPERMOD_SUCCESS) {
    if (rank == 0) fprintf(stderr, "fupermod run: %s: no distribution chosen: %s\n", a->name, fupermod_error_message());
    return rc;
  }
  if (rank != 0 || !(*note = malloc(cap))) return FUPERMOD_SUCCESS;
  len += snprintf(*note + len, cap - len, "   the choice (--choose %s): %s", fupermod_choose_name(o->choose),
                  runs[*best].label);
  if (o->choose == FUPERMOD_CHOOSE_LEAST) snprintf(*note + len, cap - len, ", the least predicted whole run");
  else if (o->choose == FUPERMOD_CHOOSE_PREDICT)
    snprintf(*note + len, cap - len, ", %s", *best == 0 ? "the partitioner's, no other predicted faster beyond both intervals"
                                                       : "predicted faster than the partitioner's beyond both intervals");
  else if (st.top < 2)
    snprintf(*note + len, cap - len, ", the only distinct distribution with a prediction: no race");
  else {
    char why[128];
    if (all) snprintf(why, sizeof why, "every distinct one: the leave-one-out check failed");
    else snprintf(why, sizeof why, "the %d least predicted and those whose intervals overlap the least one's", o->race_top);
    len += snprintf(*note + len, cap - len, ", %s after %d round%s of the %d raced (%s; runs apart from the table's):",
                    st.decided ? "ahead beyond both half-widths" : "the least mean when the rounds ran out", st.rounds,
                    st.rounds == 1 ? "" : "s", st.top, why);
    for (int k = 0; k < nruns && len < (int)cap - 80; k++)
      if (c[k].raced) len += snprintf(*note + len, cap - len, " %s %.4g s +- %.2g (%d)", runs[k].label, c[k].race_mean,
                                      c[k].race_ci, c[k].raced);
  }
  if (st.refused)
    snprintf(*note + strlen(*note), cap - strlen(*note), "; %d without a prediction, not candidates", st.refused);
  return FUPERMOD_SUCCESS;
}

static int run_app(const options *o, app_t *a, run_job *job) {
  tool_proc tp;
  fupermod_points mine = {0, NULL, 0}, *all = NULL, *raw = NULL;
  double *scatter = NULL;
  fupermod_front front = {0, NULL};
  run_t runs[8];
  int rank, size, nruns = 0, chosen = -1, rc, best = 0;
  double el, loo = NAN;
  char host[MPI_MAX_PROCESSOR_NAME] = "", *hostbuf = NULL;
  const char **hosts = NULL;
  int *leader = NULL, *threads = NULL;
  MPI_Comm share = MPI_COMM_NULL;
  run_exec ex = {0};
  run_model rm = {0};
  char *choice = NULL;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if ((rc = tool_proc_setup(SUB, o->conf, a->kernel, 1, &tp)) != FUPERMOD_SUCCESS) return rc;
  /* the partitions and the report need energies during the job; an import comes after it */
  if (tp.meter && fupermod_meter_is_external(tp.meter))
    rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: meter=external has energies only after the job: use fupermod build, "
                        "fupermod energy import, then fupermod partition", o->conf, tp.conf.procs[tp.index].line);
  if ((rc = tool_agree(SUB, rc, MPI_COMM_WORLD)) != FUPERMOD_SUCCESS) goto done;
  /* the device of the line, opened once for the process (a gpu line without a GPU stops here) */
  if ((rc = tool_proc_exec(SUB, o->conf, &tp)) != FUPERMOD_SUCCESS) goto done;
  if ((rc = tool_agree(SUB, exec_setup(&tp, a, &ex), MPI_COMM_WORLD)) != FUPERMOD_SUCCESS) goto done;
  /* the process's threads, for the application's BLAS as for its models (OpenBLAS's own default
   * would split every update over threads sharing the cores the process is bound to) */
  openblas_set_num_threads(ex.threads);
  if (rank == 0 && !(threads = malloc((size_t)size * sizeof *threads))) rc = fupermod_error(FUPERMOD_ERR_NOMEM, "run: out of memory");
  MPI_Gather(&ex.threads, 1, MPI_INT, threads, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if ((rc = tool_agree(SUB, rc, MPI_COMM_WORLD)) != FUPERMOD_SUCCESS) goto done;
  {
    /* every rank's device and meter, for the map */
    char mine[1200], *all = rank == 0 ? malloc((size_t)size * sizeof mine) : NULL;
    /* a measuring meter's label gives the process's static power too; an estimate's, its power */
    snprintf(mine, sizeof mine, "%s; energy: %s", fupermod_exec_describe(tp.exec),
             !tp.meter ? "none"
             : fupermod_meter_is_estimate(tp.meter) || fupermod_meter_is_external(tp.meter) ? fupermod_meter_describe(tp.meter)
                                                                                          : tp.label);
    MPI_Gather(mine, sizeof mine, MPI_CHAR, all, sizeof mine, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (rank == 0 && !job->map_shown && all) {
      job->map_shown = 1;
      printf("   on %d host%s:\n", fupermod_launch_hosts(tp.map, tp.nmap), fupermod_launch_hosts(tp.map, tp.nmap) == 1 ? "" : "s");
      for (int r = 0; r < tp.nmap; r++) {
        const fupermod_process_conf *pc = tool_rank_conf(&tp, r);
        printf("   rank %d on %s (%s.%d in the tables), intra-node rank %d, line %d, bind %s, cpus %s, threads %d\n"
               "     device: %s\n", r, tp.map[r].host, pc->hostname, pc->rank_intra, tp.map[r].rank_intra, tp.map[r].line,
               tp.map[r].bind, tp.map[r].cpus, threads[r], all + (size_t)r * sizeof mine);
      }
    }
    free(all);
  }
  if ((rc = build_function(o, &tp, a, &ex, &mine, &el)) != FUPERMOD_SUCCESS) goto done;
  if (!job->links_done && (rc = measure_links(o, &tp, job)) != FUPERMOD_SUCCESS) goto done;
  gather_points(&mine, &all, size);
  if (rank == 0) report_model_cost(a, all, size);
  scatter = calloc((size_t)size, sizeof *scatter);
  if ((rc = smooth_all(o, all, size, &raw, scatter)) != FUPERMOD_SUCCESS) goto done;
  snprintf(host, sizeof host, "%s.%d", tp.conf.procs[tp.index].hostname, tp.conf.procs[tp.index].rank_intra);
  if (rank == 0) hostbuf = malloc((size_t)size * sizeof host);
  MPI_Gather(host, sizeof host, MPI_CHAR, hostbuf, sizeof host, MPI_CHAR, 0, MPI_COMM_WORLD);
  if ((rc = partition_all(o, a, all, size, runs, &nruns, &front, &chosen, &tp)) != FUPERMOD_SUCCESS) goto done;
  if (!(leader = malloc((size_t)size * sizeof *leader))) {
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "run: out of memory");
    goto done;
  }
  if ((rc = tool_agree(SUB, fupermod_share_comm(MPI_COMM_WORLD, &share), MPI_COMM_WORLD)) != FUPERMOD_SUCCESS) goto done;
  share_leaders(share, leader);
  if (tool_app_dgemm(a) && (rc = realise_layouts(o, a, runs, nruns, all, size)) != FUPERMOD_SUCCESS) {
    if (rank == 0) fprintf(stderr, "fupermod run: %s: layout failed: %s\n", a->name, fupermod_error_message());
    goto done;
  }
  /* uncalibrated until calibrate(); processes time-sharing cores take turns for their messages */
  if ((rc = tool_agree(SUB, fupermod_app_model_init(&rm.m, a->ops, a->pb, a->n, a->b, size, leader), MPI_COMM_WORLD)) !=
      FUPERMOD_SUCCESS)
    goto done;
  rm.m.cm = &job->links;
  if (rank == 0)
    for (int k = 0; k < nruns; k++) predict(&rm.m, &runs[k], all, a, leader, 0);
  if ((rc = calibrate(o, &tp, a, share, runs, nruns, &loo, &rm, &job->launch)) != FUPERMOD_SUCCESS) goto done;
  if ((rc = add_whole(o, &rm.m, a, all, size, leader, runs, &nruns)) != FUPERMOD_SUCCESS) goto done;
  if (tool_app_dgemm(a) && (rc = add_square_corner(&tp, a, all, size, runs, &nruns)) != FUPERMOD_SUCCESS) goto done;
  if (rank == 0)
    for (int k = 0; k < nruns; k++) {
      predict(&rm.m, &runs[k], all, a, leader, 0);
      predict_wrong(&rm.m, &runs[k], a);
    }
  if ((rc = choose(o, &tp, a, share, runs, nruns, loo, &best, &choice)) != FUPERMOD_SUCCESS) goto done;
  /* Round robin: each round runs every distribution once, so that the machine's drift while they
   * run falls on all of them alike rather than on whichever ran last. */
  for (int round = 0; round < o->reps && rc == FUPERMOD_SUCCESS; round++) {
    if (rank == 0 && !o->quiet)
      fprintf(stderr, "fupermod run: %s round %d of %d (a run on each of %d distributions)\n", a->name, round + 1, o->reps,
              nruns);
    for (int k = 0; k < nruns && rc == FUPERMOD_SUCCESS; k++)
      rc = run_once(o, &tp, a, share, &runs[k]);
  }
  for (int k = 0; k < nruns && rc == FUPERMOD_SUCCESS; k++) gather_reps(o, &runs[k], rank, size);
  if (rc == FUPERMOD_SUCCESS && rank == 0) {
    hosts = malloc((size_t)size * sizeof *hosts);
    for (int i = 0; i < size; i++) hosts[i] = hostbuf + (size_t)i * sizeof host;
    run_report rep = {o, a, runs, nruns, all, raw ? raw : all, scatter, size, &front, chosen, &tp, hosts, leader, threads, best,
                      choice, job->links.p == size};
    tool_run_report(&rep);
    if (tool_history_append(o->models, &job->launch, a, runs, nruns, best) != FUPERMOD_SUCCESS)
      fprintf(stderr, "fupermod run: warning: %s\n", fupermod_error_message());
  }
done:
  for (int k = 0; k < nruns; k++) run_free(&runs[k]);
  for (int i = 0; rank == 0 && all && i < size; i++) {
    fupermod_points_free(&all[i]);
    if (raw) fupermod_points_free(&raw[i]);
  }
  free(raw);
  free(scatter);
  free(all);
  free(hosts);
  free(leader);
  free(threads);
  free(ex.node);
  if (share != MPI_COMM_NULL) MPI_Comm_free(&share);
  free(hostbuf);
  free(choice);
  fupermod_front_free(&front);
  fupermod_points_free(&mine);
  fupermod_app_model_free(&rm.m);
  free(rm.factors);
  free(rm.solo);
  free(rm.direct);
  tool_proc_free(&tp);
  return rc;
}

/* An application plug-in of --app (apps/app.h), loaded on every process: its problem at --size,
 * then the main job on it. Collective. */
static int run_plugin_app(const options *o, const char *name, run_job *job) {
  fupermod_app *app = NULL;
  fupermod_app_problem pb;
  int rc;
  memset(&pb, 0, sizeof pb);
  pb.n = o->app_n;
  rc = fupermod_app_open(name, &app);
  if (rc == FUPERMOD_SUCCESS && (strcmp(app->ops->name, "dgemm") == 0 || strcmp(app->ops->name, "fft") == 0))
    rc = fupermod_error(FUPERMOD_ERR_INPUT, "--app %s: %s names a built-in application (--apps)", name, app->ops->name);
  if (rc == FUPERMOD_SUCCESS && (rc = app->ops->problem(o->app_n, (int)o->K, &pb)) == FUPERMOD_SUCCESS &&
      !(pb.D > 0 && pb.g > 0 && pb.D == pb.g * o->K && pb.iters > 0))
    rc = fupermod_error(FUPERMOD_ERR_INPUT, "--app %s: its problem of size %ld has D = %ld, g = %ld, iters = %g: D must be "
                        "--points (%ld) times g > 0, iters > 0 (apps/app.h)", name, o->app_n, pb.D, pb.g, pb.iters, o->K);
  else if (rc != FUPERMOD_SUCCESS && app)
    fupermod_error_prefix(rc, "--app %s", name);
  if ((rc = tool_agree(SUB, rc, MPI_COMM_WORLD)) == FUPERMOD_SUCCESS) {
    app_t a = {app->ops->name, app->ops->kernel, o->app_n, 0, pb.D, pb.g, (int)o->K, pb.iters, app->ops, &pb};
    /* its lines may carry its kernel's keys too */
    tool_line_kernels[2] = app->ops->kernel;
    rc = run_app(o, &a, job);
    tool_line_kernels[2] = NULL;
  }
  fupermod_app_close(app);
  return rc;
}

typedef struct {
  const options *o;
  run_job *job;
  int rc;
} plugins_ctx;

static int add_plugin(const char *item, void *ctx) {
  plugins_ctx *c = ctx;
  if (c->rc == FUPERMOD_SUCCESS) c->rc = run_plugin_app(c->o, item, c->job);
  return FUPERMOD_SUCCESS;
}

/* The applications of --apps, then those of --app. Collective. */
static int run_apps(const options *o, run_job *job) {
  int rc = FUPERMOD_SUCCESS;
  if (o->apps_dgemm) {
    long nb = o->dgemm_n / o->dgemm_b;
    app_t a = {"dgemm", "dgemm", o->dgemm_n, o->dgemm_b, nb * nb, nb * nb / o->K, (int)o->K, (double)nb, NULL, NULL};
    rc = run_app(o, &a, job);
  }
  if (rc == FUPERMOD_SUCCESS && o->apps_fft) {
    app_t a = {"fft", "fft-rows", o->fft_n, 0, o->fft_n, o->fft_n / o->K, (int)o->K, 2.0, NULL, NULL};
    rc = run_app(o, &a, job);
  }
  if (rc == FUPERMOD_SUCCESS && o->app_plugins) {
    plugins_ctx c = {o, job, FUPERMOD_SUCCESS};
    tool_list("--app", o->app_plugins, 4096, add_plugin, &c); /* the list was checked before MPI started */
    rc = c.rc;
  }
  return rc;
}

/* DIR/provenance.txt (docs/formats.md, "Provenance"): where, when and with what software the
 * results beside it were measured, the exact command and the configuration's SHA-256; line: the
 * one-line summary that the report and the plots carry (rank 0). */
static int write_provenance(const options *o, int argc, char **argv, int size, char *line, size_t n) {
  fupermod_provenance p;
  fupermod_atomic_file af;
  char path[4200], sha[65] = "unknown";
  int rc;
  fupermod_provenance_collect(&p);
  snprintf(line, n, "fupermod %s (%s), host %s (%s), %s", p.version, p.commit, p.host, p.cpu, p.date);
  for (char *c = line; *c; c++)
    if (*c == '\'' || *c == '\\') *c = ' '; /* it goes into gnuplot's quotes */
  if (fupermod_sha256_file(o->conf, sha) != FUPERMOD_SUCCESS) snprintf(sha, sizeof sha, "unknown");
  snprintf(path, sizeof path, "%s/provenance.txt", o->out);
  if ((rc = fupermod_atomic_open(&af, path)) != FUPERMOD_SUCCESS) return rc;
  fprintf(af.fp, "# fupermod run provenance: what the results in this directory were measured on and with (docs/formats.md)\n");
  fupermod_provenance_write(af.fp, &p, "");
  fprintf(af.fp, "processes=%d\nconf=%s sha256=%s\nmodels=%s\ncommand=", size, o->conf, sha, o->models);
  fprintf(af.fp, "fupermod");
  for (int i = 0; i < argc; i++) fprintf(af.fp, " %s", argv[i]);
  fprintf(af.fp, "\n");
  return fupermod_atomic_commit(&af);
}

/* What the options ask for, checked before MPI starts: the exit status of a usage or input error,
 * or -1 to go on (o->models set, into buf when --models was not given). */
static int check_options(options *o, char *buf, size_t size) {
  long nb = o->dgemm_n / o->dgemm_b;
  if (!o->conf) return tool_usage(SUB, "no process configuration given (--conf CONF)");
  if (!o->models) {
    if (snprintf(buf, size, "%s/models", o->out) >= (int)size) return tool_usage(SUB, "--out '%s' is too long a path", o->out);
    o->models = buf;
  }
  /* one configuration serves both applications: its lines may carry either kernel's keys */
  tool_line_kernels[0] = "dgemm";
  tool_line_kernels[1] = "fft-rows";
  if (o->smooth > 0 && o->K < 3)
    return tool_usage(SUB, "--smooth %d needs --points >= 3 (a fit with its own scatter), got %ld; or --smooth 0", o->smooth,
                      o->K);
  if (fupermod_precision_check(&o->prec) != FUPERMOD_SUCCESS) return tool_fail(SUB, FUPERMOD_ERR_USAGE);
  if (!fupermod_partitioner_find(o->algorithm)) return tool_usage(SUB, "--algorithm: %s", fupermod_error_message());
  if (o->apps_dgemm && (o->dgemm_n % o->dgemm_b || (nb * nb) % o->K))
    return tool_usage(SUB, "dgemm: n=%ld must be a multiple of b=%ld, and (n/b)^2=%ld a multiple of --points %ld", o->dgemm_n,
                      o->dgemm_b, nb * nb, o->K);
  if (o->apps_fft && o->fft_n % o->K) return tool_usage(SUB, "fft: n=%ld must be a multiple of --points %ld", o->fft_n, o->K);
  if (check_lines(o) != FUPERMOD_SUCCESS) return tool_fail(SUB, FUPERMOD_ERR_INPUT);
  return -1;
}

int cmd_run(int argc, char **argv) {
  static const struct option opts[] = {
    {"conf", required_argument, NULL, 'C'}, {"out", required_argument, NULL, 'o'}, {"models", required_argument, NULL, 'M'},
    {"apps", required_argument, NULL, 'a'}, {"app", required_argument, NULL, 'x'},
    {"size", required_argument, NULL, 'N'}, {"dgemm-n", required_argument, NULL, 'G'},
    {"dgemm-b", required_argument, NULL, 'B'}, {"fft-n", required_argument, NULL, 'F'},
    {"points", required_argument, NULL, 'K'}, {"algorithm", required_argument, NULL, 'A'},
    {"tradeoff", required_argument, NULL, 'X'}, {"reps", required_argument, NULL, 'P'},
    {"rebuild", no_argument, NULL, 'b'}, {"full-grid", no_argument, NULL, 'g'}, {"smooth", required_argument, NULL, 'S'},
    {"keep-outliers", no_argument, NULL, 'k'}, {"lock-wait", required_argument, NULL, 'l'},
    {"help", no_argument, NULL, 'h'}, {"allow-fewer", no_argument, NULL, 'W'}, {"choose", required_argument, NULL, 'c'},
    {"race-rounds", required_argument, NULL, 'n'}, {"race-top", required_argument, NULL, 't'},
    {"static-power", required_argument, NULL, 'w'}, {NULL, 0, NULL, 0}};
  options o = {.out = "fupermod-run", .algorithm = "paraleph", .apps_dgemm = 1, .apps_fft = 1, .reps = 5, .dgemm_n = 3072,
               .dgemm_b = 128, .fft_n = 4096, .app_n = 4096, .K = 32, .smooth = 3, .tradeoff = 0.1,
               .prec = FUPERMOD_PRECISION_DEFAULT, .lock_wait = 3600, .choose = FUPERMOD_CHOOSE_RACE, .race_rounds = 5,
               .race_top = 3};
  int c, rc = FUPERMOD_SUCCESS, rank, size;
  char models[4096], prov[1024];
  int apps_given = 0;
  run_job job = {0};
  double t0;
  o.prec.reps_min = 3;
  o.prec.reps_max = 10;
  o.prec.eps = 0.05;
  o.prec.time_max = 5.0;
  optind = 0; /* a full reset of glibc's getopt: the parse may run more than once per process */
  while ((c = getopt_long(argc, argv, "r:R:e:i:T:qh", opts, NULL)) != -1) {
    long v;
    double x;
    switch (c) {
    case 'C': o.conf = optarg; break;
    case 'o': o.out = optarg; break;
    case 'M': o.models = optarg; break;
    case 'a':
      if (parse_apps(optarg, &o)) return tool_usage(SUB, "%s", fupermod_error_message());
      apps_given = 1;
      break;
    case 'x':
      if (tool_list("--app", optarg, 4096, no_item, NULL) != FUPERMOD_SUCCESS)
        return tool_usage(SUB, "%s", fupermod_error_message());
      o.app_plugins = optarg;
      break;
    case 'A': o.algorithm = optarg; break;
    case 'b': o.rebuild = 1; break;
    case 'g': o.full_grid = 1; break;
    case 'k': o.prec.keep_outliers = 1; break;
    case 'S': {
      long v;
      if (fupermod_parse_long(optarg, &v) || v < 0 || v > 1000)
        return tool_usage(SUB, "--smooth '%s' must be an integer from 0 (no smoothing) to 1000", optarg);
      o.smooth = (int)v;
      break;
    }
    case 'q': o.quiet = 1; break;
    case 'W': tool_allow_fewer = 1; break;
    case 'c':
      if ((o.choose = fupermod_choose_parse(optarg)) < 0)
        return tool_usage(SUB, "--choose '%s' is not a policy (race, predict, least)", optarg);
      break;
    case 'n': case 't': {
      long v;
      if (fupermod_parse_long(optarg, &v) || v < (c == 't' ? 0 : 1) || v > 100)
        return tool_usage(SUB, "--race-%s '%s' must be an integer from %d to 100", c == 't' ? "top" : "rounds", optarg,
                          c == 't' ? 0 : 1);
      if (c == 'n') o.race_rounds = (int)v;
      else o.race_top = (int)v;
      break;
    }
    case 'h': help(); return 0;
    case 'l':
      if (fupermod_parse_double(optarg, &x) || !(x >= 0) || !isfinite(x))
        return tool_usage(SUB, "--lock-wait '%s' must be a number of seconds >= 0", optarg);
      o.lock_wait = x;
      break;
    case 'w':
      if (fupermod_parse_double(optarg, &x) || !(x >= 0) || !isfinite(x))
        return tool_usage(SUB, "--static-power '%s' must be a number of watts >= 0", optarg);
      o.static_power = x;
      break;
    case 'X': case 'e': case 'i': case 'T':
      if (fupermod_parse_double(optarg, &x) || x < 0) return tool_usage(SUB, "-%c '%s' must be a number >= 0", c, optarg);
      if (c == 'X') o.tradeoff = x;
      else if (c == 'e') o.prec.eps = x;
      else if (c == 'i') o.prec.cl = x;
      else o.prec.time_max = x;
      break;
    case 'N': case 'G': case 'B': case 'F': case 'K': case 'P': case 'r': case 'R':
      if (fupermod_parse_long(optarg, &v) || v < 1 || v > 1000000)
        return tool_usage(SUB, "'%s' must be a positive integer", optarg);
      if (c == 'N') o.dgemm_n = o.fft_n = o.app_n = v;
      else if (c == 'G') o.dgemm_n = v;
      else if (c == 'B') o.dgemm_b = v;
      else if (c == 'F') o.fft_n = v;
      else if (c == 'K') o.K = v;
      else if (c == 'P') o.reps = (int)v;
      else if (c == 'r') o.prec.reps_min = (int)v;
      else o.prec.reps_max = (int)v;
      break;
    default: return tool_bad_option(SUB, argv, "r:R:e:i:T:qh", opts);
    }
  }
  if (optind < argc) return tool_usage(SUB, "unexpected argument '%s'", argv[optind]);
  if (o.app_plugins && !apps_given) o.apps_dgemm = o.apps_fft = 0; /* --app alone: the plug-ins alone */
  if ((rc = check_options(&o, models, sizeof models)) >= 0) return rc;
  if ((rc = tool_mpi_init(SUB, &argc, &argv, TOOL_MPI_LEVEL)) != 0) return rc;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  t0 = fupermod_time();
  rc = tool_agree(SUB, rank == 0 ? fupermod_mkdir_p(o.out) : FUPERMOD_SUCCESS, MPI_COMM_WORLD);
  o.simulated = fupermod_time_simulated();
  MPI_Allreduce(MPI_IN_PLACE, &o.simulated, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rc == FUPERMOD_SUCCESS && rank == 0 && write_provenance(&o, argc, argv, size, prov, sizeof prov) == FUPERMOD_SUCCESS)
    o.provenance = prov;
  if (rc == FUPERMOD_SUCCESS && rank == 0)
    printf("fupermod run: %d processes, configuration %s, results in %s\nfupermod run: %s\n", size, o.conf, o.out,
           o.provenance ? o.provenance : "provenance unknown");
  if (rc == FUPERMOD_SUCCESS && rank == 0 && o.simulated)
    printf("fupermod run: SIMULATED: GPU times come from the simulated device %s (the stand-in CUDA's virtual clock, "
           "docs/kernels.md)%s\n", getenv("FAKE_CUDA_SIM") ? getenv("FAKE_CUDA_SIM") : "?",
           o.simulated == 2 ? "; it computes nothing, so the products are not checked" : "");
  if (rc == FUPERMOD_SUCCESS) rc = run_apps(&o, &job);
  if (rank == 0 && rc == FUPERMOD_SUCCESS) printf("\nfupermod run: done in %.1f s; results in %s\n", fupermod_time() - t0, o.out);
  fupermod_comm_free(&job.links);
  tool_exec_close();
  MPI_Finalize();
  return fupermod_exit_status(rc);
}
