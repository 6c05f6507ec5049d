/* fupermod run: the main job. Under mpirun, from a process configuration: build (or reuse) the
 * time and energy functions of the DGEMM and 2D-FFT kernels on every process in parallel, and the
 * links between them; partition with PARALEPH (time and energy), the Pareto algorithm and the
 * whole-run partition; predict every distribution's whole run with the application's cost model
 * (apps/app_model.h), calibrated by the applications' own runs; choose (fupermod_choose); run
 * heterogeneous SUMMA and 2D-FFT on every distribution, and report (table, CSV, plots:
 * tools/run_report.c). This file orchestrates: its options, the order of the steps and the
 * choice; the steps are in tools/run_*.c (tools/run_job.h). */
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
#include "tools/run_job.h"

static const char SUB[] = "run";
/* the leave-one-out check's error beyond which the predictions cannot rank the candidates */
#define LOO_TRUST 0.10

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

/* Collective: leader[i] = the lowest rank of the processes that time-share process i's cores
 * (share, from fupermod_share_comm), i itself when it has its cores alone. */
static void share_leaders(MPI_Comm share, int *leader) {
  int rank, mine;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  mine = rank;
  if (share != MPI_COMM_NULL) MPI_Allreduce(&rank, &mine, 1, MPI_INT, MPI_MIN, share);
  MPI_Allgather(&mine, 1, MPI_INT, leader, 1, MPI_INT, MPI_COMM_WORLD);
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
      if (run_same_dist(runs[j].dist, runs[k].dist) && pred[2 * j] == pred[2 * k]) c[k].same_as = j;
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
  int *leader = NULL, *threads = NULL, *hostix = NULL;
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
  if ((rc = tool_agree(SUB, run_exec_setup(&tp, a, &ex), MPI_COMM_WORLD)) != FUPERMOD_SUCCESS) goto done;
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
  if ((rc = run_build_function(o, &tp, a, &ex, &mine, &el)) != FUPERMOD_SUCCESS) goto done;
  if (!job->links_done && (rc = run_measure_links(o, &tp, job)) != FUPERMOD_SUCCESS) goto done;
  run_gather_points(&mine, &all, size);
  if (rank == 0) run_report_model_cost(a, all, size);
  scatter = calloc((size_t)size, sizeof *scatter);
  if ((rc = run_smooth_all(o, all, size, &raw, scatter)) != FUPERMOD_SUCCESS) goto done;
  snprintf(host, sizeof host, "%s.%d", tp.conf.procs[tp.index].hostname, tp.conf.procs[tp.index].rank_intra);
  if (rank == 0) hostbuf = malloc((size_t)size * sizeof host);
  MPI_Gather(host, sizeof host, MPI_CHAR, hostbuf, sizeof host, MPI_CHAR, 0, MPI_COMM_WORLD);
  if ((rc = run_partition_all(o, a, all, size, runs, &nruns, &front, &chosen, &tp)) != FUPERMOD_SUCCESS) goto done;
  if (!(leader = malloc((size_t)size * sizeof *leader))) {
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "run: out of memory");
    goto done;
  }
  if ((rc = tool_agree(SUB, fupermod_share_comm(MPI_COMM_WORLD, &share), MPI_COMM_WORLD)) != FUPERMOD_SUCCESS) goto done;
  share_leaders(share, leader);
  if (tool_app_dgemm(a) && (rc = run_realise_layouts(o, a, runs, nruns, all, size)) != FUPERMOD_SUCCESS) {
    if (rank == 0) fprintf(stderr, "fupermod run: %s: layout failed: %s\n", a->name, fupermod_error_message());
    goto done;
  }
  /* uncalibrated until run_calibrate(); processes time-sharing cores take turns for their messages */
  if ((rc = tool_agree(SUB, fupermod_app_model_init(&rm.m, a->ops, a->pb, a->n, a->b, size, leader), MPI_COMM_WORLD)) !=
      FUPERMOD_SUCCESS)
    goto done;
  rm.m.cm = &job->links;
  /* the hosts: messages between them cross a network */
  if (tp.nmap == size && (hostix = malloc((size_t)size * sizeof *hostix))) {
    fupermod_launch_host_index(tp.map, size, hostix);
    rm.m.host = hostix;
  }
  rm.m.link_share = job->link_share;
  if (rank == 0)
    for (int k = 0; k < nruns; k++) run_predict(&rm.m, &runs[k], all, a, leader, 0);
  if ((rc = run_calibrate(o, &tp, a, share, runs, nruns, &loo, &rm, &job->launch)) != FUPERMOD_SUCCESS) goto done;
  if ((rc = run_add_whole(o, &rm.m, a, all, size, leader, runs, &nruns)) != FUPERMOD_SUCCESS) goto done;
  if (tool_app_dgemm(a) && (rc = run_add_square_corner(&tp, a, all, size, runs, &nruns)) != FUPERMOD_SUCCESS) goto done;
  if (rank == 0)
    for (int k = 0; k < nruns; k++) {
      run_predict(&rm.m, &runs[k], all, a, leader, 0);
      run_predict_wrong(&rm.m, &runs[k], a);
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
  for (int k = 0; k < nruns && rc == FUPERMOD_SUCCESS; k++) run_gather_reps(o, &runs[k], rank, size);
  if (rc == FUPERMOD_SUCCESS && rank == 0) {
    hosts = malloc((size_t)size * sizeof *hosts);
    for (int i = 0; i < size; i++) hosts[i] = hostbuf + (size_t)i * sizeof host;
    run_report rep = {o, a, runs, nruns, all, raw ? raw : all, scatter, size, &front, chosen, &tp, hosts, leader, threads, best,
                      choice, job->links.p == size};
    tool_run_report(&rep);
    if (tool_history_append(o->models, &job->launch, a, runs, nruns, best) != FUPERMOD_SUCCESS)
      fprintf(stderr, "fupermod run: warning: %s\n", fupermod_error_message());
    if (run_record_rounds(o, a, runs, nruns, leader, &job->launch) != FUPERMOD_SUCCESS)
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
  free(hostix);
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
#ifdef FUPERMOD_SMPI
  if (rc == FUPERMOD_SUCCESS && rank == 0)
    printf("fupermod run: SIMULATED: every time is SimGrid's simulated clock on the platform (SMPI, docs/simulate.md); the "
           "devices are emulated and compute nothing, so the products are not checked\n");
#else
  if (rc == FUPERMOD_SUCCESS && rank == 0 && o.simulated)
    printf("fupermod run: SIMULATED: GPU times come from the simulated device %s (the stand-in CUDA's virtual clock, "
           "docs/kernels.md)%s\n", getenv("FAKE_CUDA_SIM") ? getenv("FAKE_CUDA_SIM") : "?",
           o.simulated == 2 ? "; it computes nothing, so the products are not checked" : "");
#endif
  if (rc == FUPERMOD_SUCCESS) rc = run_apps(&o, &job);
  if (rank == 0 && rc == FUPERMOD_SUCCESS) printf("\nfupermod run: done in %.1f s; results in %s\n", fupermod_time() - t0, o.out);
  fupermod_comm_free(&job.links);
  tool_exec_close();
  MPI_Finalize();
  return fupermod_exit_status(rc);
}
