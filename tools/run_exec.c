/* fupermod run (tools/cmd_run.c): the applications' runs on a distribution, timed and recorded
 * (tools/run_job.h). */
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

/* Student-t half-width of this process's mean compute time over the reps, at the benchmark's
 * confidence level, so that it compares with the points' ci. */
static void meas_ci(const options *o, run_t *r, int rank) {
  int n = o->reps;
  double m = r->meas_proc[rank], var = n > 1 ? (r->meas_sq[rank] - n * m * m) / (n - 1) : 0.0;
  r->meas_ci[rank] = n > 1 ? fupermod_student_ci(n, sqrt(var > 0 ? var : 0.0), o->prec.cl) : INFINITY;
}

void run_init(run_t *r, const char *label, fupermod_dist *dist) {
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

void run_free(run_t *r) {
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
void run_gather_reps(const options *o, run_t *r, int rank, int size) {
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
int run_once(const options *o, tool_proc *tp, const app_t *a, MPI_Comm share, run_t *r) {
  return a->ops ? run_plugin(o, tp, a, share, r) : a->b ? run_dgemm(o, tp, a, share, r) : run_fft(o, tp, a, share, r);
}
