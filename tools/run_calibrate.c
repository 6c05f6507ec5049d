/* fupermod run (tools/cmd_run.c): the calibration of the whole-run model on the application's own
 * runs (tools/run_job.h). */
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
#include "tools/run_job.h"

static const char SUB[] = "run";

/* Whether process i time-shares its cores with another */
static int grouped(const int *group, int i, int p) {
  for (int j = 0; group && j < p; j++)
    if (j != i && group[j] == group[i]) return 1;
  return 0;
}

/* Per working process of base's distribution, what run r measured over what run_predict() gives
 * for its share (SUMMA: the updates on its rectangle; the 2D-FFT: the row phase, the column phase
 * on as many columns, and its own copies per byte) into fk (run_model's factors' layout; 0 for an
 * idle process). Rank 0. */
static void measured_factors(const app_t *a, const run_t *r, const run_t *base, const int *group, int size, double *fk) {
  for (int i = 0; i < size; i++) {
    long d = base->dist->parts[i].d, c = d; /* a square signal: as many columns as rows */
    double t = base->dist->parts[i].t; /* one kernel run at d, as run_predict() gives it */
    fk[i] = fk[size + i] = fk[2 * size + i] = 0;
    if (d <= 0 || !(t > 0)) continue;
    /* alone its wall time, in a group the CPU its cores gave the members' updates (the union of
     * their phases also holds one's messages during another's update, and gaps where the two fall
     * out of step, which the messages' model and the steps carry) */
    if (!tool_app_fft(a)) fk[i] = r->meas_proc[i] / (t * a->iters);
    else {
      fk[i] = r->meas_rows[i] / t;
      fk[size + i] = r->meas_cols[i] / (t * (double)c / (double)d);
      fk[2 * size + i] = r->meas_copy[i] / (2 * 16.0 * (double)d * (double)a->n);
    }
  }
  /* A group time-sharing its cores ends a phase when its last member does: the members' own
   * factors scatter between 1 and 1/members from run to run with how their phases fell in step
   * (one finishing early on the cores the other then has alone), so each member takes the group's
   * slowest, which is the phase's (the copies stay each member's own) */
  for (int k = 0; group && k < 2; k++)
    for (int g = 0; g < size; g++) {
      double slowest = 0;
      for (int i = 0; i < size; i++)
        if (group[i] == g && fk[k * size + i] > slowest) slowest = fk[k * size + i];
      for (int i = 0; i < size; i++)
        if (group[i] == g && fk[k * size + i] > 0) fk[k * size + i] = slowest;
    }
}

/* One calibration run on base's distribution (after its warm-up, as the rounds run): its whole
 * run, and on rank 0 its factors (measured_factors) into fk. Collective. */
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
  if (rc == FUPERMOD_SUCCESS) run_gather_reps(&one, &r, rank, size);
  m->shared = r.shared;
  *whole = r.meas_time;
  if (fk && rc == FUPERMOD_SUCCESS) measured_factors(a, &r, base, m->group, size, fk);
  r.dist = NULL;
  r.layout = NULL;
  run_free(&r);
  return rc;
}

/* The application's own program's runs on set's distribution and hosts (MODELS/runs.csv) into
 * past, as calibration runs: SUMMA's updates, the 2D-FFT's row and column phases over what
 * run_predict() gives for each share, as measured_factors reads fupermod run's own (the 2D-FFT's
 * copies are not recorded: no factor). A plug-in records what it names: not read. Rank 0; the runs
 * added. */
static int program_runs(const options *o, const app_t *a, const run_t *set, const tool_proc *tp, const int *group,
                        tool_cal_runs *past) {
  static const char *const fft_names[2] = {"rows", "cols"}, *const summa_names[1] = {"updates"};
  int p = set->dist->size, fft = tool_app_fft(a), nn = fft ? 2 : 1, added = 0, rc;
  const char **hosts = malloc((size_t)p * sizeof *hosts);
  double *fk = calloc(3 * (size_t)p, sizeof *fk);
  tool_app_runs ar;
  run_t r;
  if (a->ops || tp->nmap != p) {
    free(hosts), free(fk);
    return 0;
  }
  if (!hosts || !fk) {
    free(hosts), free(fk);
    return fupermod_error(FUPERMOD_ERR_NOMEM, "run: out of memory");
  }
  for (int i = 0; i < p; i++) hosts[i] = tp->map[i].host;
  rc = tool_history_app_runs(o->models, fft ? "fft2d" : "summa", a->n, set->dist, hosts, nn, fft ? fft_names : summa_names, &ar);
  run_init(&r, set->label, set->dist);
  for (int k = 0; rc == FUPERMOD_SUCCESS && k < ar.n; k++) {
    for (int i = 0; i < p; i++) {
      const double *ph = ar.phases + ((size_t)k * p + i) * nn;
      double v0 = ph[0] > 0 ? ph[0] : 0, v1 = fft && ph[1] > 0 ? ph[1] : 0;
      if (fft) r.meas_rows[i] = v0, r.meas_cols[i] = v1, r.meas_copy[i] = 0;
      else r.meas_proc[i] = v0;
    }
    measured_factors(a, &r, set, group, p, fk);
    if ((rc = tool_cal_runs_add(past, ar.whole[k], fk)) == FUPERMOD_SUCCESS) added++;
  }
  r.dist = NULL;
  run_free(&r);
  tool_app_runs_free(&ar);
  free(hosts), free(fk);
  return rc == FUPERMOD_SUCCESS ? added : rc;
}

int run_record_rounds(const options *o, const app_t *a, const run_t *runs, int nruns, const int *group,
                      const tool_launch *launch) {
  int p = runs[0].dist->size, rc = FUPERMOD_SUCCESS;
  tool_cal_runs r = {0};
  double *fk = calloc(3 * (size_t)p, sizeof *fk);
  if (!fk) return fupermod_error(FUPERMOD_ERR_NOMEM, "run: out of memory");
  r.p = p;
  /* each calibration distribution's rounds, as one more run of it (their mean), once however
   * many names it has */
  for (int k = 0; k < nruns && rc == FUPERMOD_SUCCESS; k++) {
    int seen = 0;
    for (int j = 0; j < k; j++) seen |= runs[j].calibrated && run_same_dist(runs[j].dist, runs[k].dist);
    if (!runs[k].calibrated || seen || !(runs[k].meas_time > 0)) continue;
    measured_factors(a, &runs[k], &runs[k], group, p, fk);
    r.n = 0;
    if ((rc = tool_cal_runs_add(&r, runs[k].meas_time, fk)) == FUPERMOD_SUCCESS)
      rc = tool_history_cal_append(o->models, launch, a, runs[k].dist, &r, 0);
  }
  tool_cal_runs_free(&r);
  free(fk);
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
                    const tool_cal_runs *now, int drift, int programs, tool_cal_runs *use) {
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
    if (programs > 0 && !drift)
      fprintf(stderr, ", %d of them by the application's own program (%s/runs.csv)", programs, o->models);
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

/* run_calibrate()'s sets for cal_predict: set s's run and the application */
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
  run_predict_whole(&trial, c->set[s], c->a, 1);
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
int run_calibrate(const options *o, tool_proc *tp, const app_t *a, MPI_Comm share, run_t *runs, int nruns, double *loo,
                     run_model *rm, const tool_launch *launch) {
  const int RUNS = tool_app_fft(a) ? 5 : 3;
  run_t *set[2] = {&runs[0], &runs[nruns - 1]};
  int nsets = nruns > 1 && !run_same_dist(runs[0].dist, runs[nruns - 1].dist) ? 2 : 1;
  int rank, size, rc = FUPERMOD_SUCCESS, todo[2] = {RUNS, RUNS}, drift[2] = {0, 0}, programs[2] = {0, 0};
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
    if (rc == FUPERMOD_SUCCESS && (programs[s] = program_runs(o, a, set[s], tp, m->group, &past[s])) < 0) rc = programs[s];
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
    rc = set_runs(o, a, set[s]->label, &past[s], &now[s], drift[s], programs[s], &use[s]);
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
