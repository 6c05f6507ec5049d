/* GPU-node benchmark: fupermod's GPU engine (the CUDA executor) against the vendor's own figures,
 * and the applications on the GPU alone and beside CPU processes, in one run.
 *
 *   mpirun --bind-to none -np P bench/gpunode [--n N] [--d D] [--fft-n F] [--mix-n M] [--b B]
 *          [--mix-b MB] [--pay-n Q] [--pay-b QB] [--device G] [--threads T] [--reps R]
 *
 * Rank 0 computes on CUDA device G (default 0) through its executor, ranks 1..P-1 on CPU executors
 * of T threads (default 1). On a machine without a GPU it runs on a simulated one: the stand-in
 * CUDA with FAKE_CUDA_SIM=h100 FAKE_CUDA_REALTIME=1 FAKE_CUDA_NOPAYLOAD=1 (docs/kernels.md), its
 * rows then marked SIMULATED. The GPU alone (the best of R runs, default 3), each row with its bound:
 *   link up, down          a 256 MiB copy from and to page-locked memory, less a 64 MiB one
 *   cuBLAS resident        cublasDgemm of D x N x N on device data (its own bound)
 *   cuBLAS-Xt              cublasXtDgemm of D x N x N on the host matrices (real GPU only)
 *   streamed DGEMM         fupermod_exec_dgemm, C = A B + C on host matrices; bound: the larger of
 *                          the resident GEMM and the upload of A, B and C at the link's speed
 *   cuFFT 2D               on device data (F x F), and with its upload and download one after the other
 *   2D-FFT GPU alone       fupermod_exec_fft2d; bound: the array up and down
 *   SUMMA GPU alone        N x N, b = B; bound: the resident GEMM at its size
 * The references are measured on the device in the same run; on the simulator they run on the
 * same virtual clock as the executor and the link's speed is the simulator's own, so the ratios of
 * the GPU alone measure only how well the executor overlaps against the simulator's curves: the
 * last line marks them "overlap only" there.
 *
 * Then the GPU beside the CPU processes, SUMMA (b = MB, default B) and the 2D-FFT at M x M (default
 * N), each on four distributions, measured in rounds that run each once, with their shares and
 * predictions: the GPU alone; the whole-run model's (fupermod run's: fupermod_whole_partition on
 * the applications' per-process costs, then fupermod_app_descend on their whole-run predictions,
 * apps/model.h), the model built here from the dgemm and fft-rows kernels measured through every
 * process's executor (fupermod_benchmark), the links between the processes
 * (fupermod_comm_measure) and the factors of the even run and of the GPU alone's; by speed alone
 * (each process's speed at an equal share); and even. Among them, fupermod run's choice
 * (fupermod_choose: the three least predictions race). With --pay-n Q the same at Q x Q (b = QB,
 * default MB). The last line gives the ratios the engine is held to: the streamed DGEMM's rate
 * over cuBLAS resident (at least 0.85), SUMMA alone's over the streamed DGEMM's (0.9), cuFFT with
 * transfers' time over the 2D-FFT alone's (0.9), and the GPU alone's time over the choice's for
 * SUMMA and the 2D-FFT with the units it gives the CPU (0.98; 1.0 at Q where the CPU works).
 * Defaults: N = 16384, D = 65536, F = 16384, B = 1024. */
#include <fftw3.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "apps/fft2d.h"
#include "apps/model.h"
#include "apps/summa.h"
#include "bench/machine.h"
#include "fupermod/fupermod.h"
#include "fupermod/mpi_thread.h"
#include "partitioners/matrix.h"
#include "partitioners/whole.h"

typedef struct {
  long n, d, f, mix, b, mix_b, pay, pay_b, reps;
  int device, threads;
} opts;

static int rank, size, simulated;
static fupermod_exec *ex;

static void usage(void) {
  printf("usage: mpirun --bind-to none -np P bench/gpunode [--n N] [--d D] [--fft-n F] [--mix-n M] [--b B]\n"
         "                        [--mix-b MB] [--pay-n Q] [--pay-b QB] [--device G] [--threads T] [--reps R]\n"
         "Rank 0 on CUDA device G, ranks 1..P-1 on CPU executors of T threads: cuBLAS, cuBLAS-Xt and cuFFT\n"
         "against the streamed DGEMM, the 2D-FFT and SUMMA on the GPU alone, each with its bound; SUMMA\n"
         "(b = MB) and the 2D-FFT at M x M (and Q x Q, b = QB) on the GPU alone, on the whole-run model's\n"
         "distribution, by speed alone and even; the last line gives the ratios (docs/performance.md).\n"
         "Defaults: N = 16384, D = 65536, F = 16384, M = N, B = 1024, MB = B, Q none, QB = MB, G = 0,\n"
         "T = 1, R = 3.\n");
}

static double tmax(double t) {
  double m;
  MPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return m;
}

/* every rank's status: the first failure's on all of them */
static int agree(int rc) {
  MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return rc;
}

static void row(const char *what, double t, double flops, double bound) {
  if (rank != 0) return;
  if (!(t > 0)) {
    printf("| %-34s | %12s | %14s | %12s | %10s |\n", what, "-", "-", "-", "-");
    return;
  }
  printf("| %-34s | %10.2f ms | %8.2f %s | ", what, t * 1e3, flops / t * (flops > 1e14 ? 1e-12 : 1e-9),
         flops > 1e14 ? "TFLOP/s" : "GFLOP/s");
  if (bound > 0) printf("%9.2f ms | %8.1f %% |\n", bound * 1e3, 100 * bound / t);
  else printf("%12s | %10s |\n", "-", "-");
}

/* ---- an application at one size: its whole-run model and its runs ---- */

typedef struct {
  int fft;                /* 0: SUMMA, 1: the 2D-FFT */
  int fit;                /* SUMMA: predictions on layouts fitted to the functions (fupermod run's optimum) */
  long m, b;              /* M x M; SUMMA's block */
  long units, step;       /* SUMMA: (M/b)^2 blocks, steps of 1; the 2D-FFT: M rows, steps of 8 where M allows */
  fupermod_points *f;     /* rank 0: process i's kernel function, units -> seconds of one run */
  double *fac;            /* rank 0: 3p factors of the even run, then 3p of the GPU alone's */
  int *direct;            /* rank 0: the GPU transforms a whole signal in one call */
  fupermod_app_cal mixed, alone;
  const fupermod_comm *cm; /* the links (NULL for one process) */
} model;

static const char *app_name(const model *md) { return md->fft ? "2D-FFT" : "SUMMA"; }
static const char *unit_name(const model *md) { return md->fft ? "rows" : "blocks"; }

static int model_init(model *md, int fft, long m, long b, const fupermod_comm *cm) {
  *md = (model){.fft = fft, .fit = 1, .m = m, .b = b, .units = fft ? m : (m / b) * (m / b), .step = fft && m % 8 == 0 ? 8 : 1,
                .cm = cm};
  if (rank != 0) return FUPERMOD_SUCCESS;
  md->f = calloc((size_t)size, sizeof *md->f);
  md->fac = calloc(6 * (size_t)size, sizeof *md->fac);
  md->direct = calloc((size_t)size, sizeof *md->direct);
  if (!md->f || !md->fac || !md->direct) return fupermod_error(FUPERMOD_ERR_NOMEM, "bench/gpunode: out of memory");
  for (int i = 0; i < 6 * size; i++) md->fac[i] = 1;
  md->direct[0] = fft; /* apps/fft2d.c: a GPU holding the whole signal transforms it in one call */
  md->mixed = (fupermod_app_cal){.comp = md->fac, .cols = fft ? md->fac + size : NULL, .direct = md->direct};
  md->alone = (fupermod_app_cal){.comp = md->fac + 3 * size, .cols = fft ? md->fac + 4 * size : NULL, .direct = md->direct};
  return FUPERMOD_SUCCESS;
}

static void model_free(model *md) {
  for (int i = 0; md->f && i < size; i++) fupermod_points_free(&md->f[i]);
  free(md->f), free(md->fac), free(md->direct);
}

/* process i's function at units (the points' speed interpolated, their ends' beyond them) */
static double ftime(const model *md, int i, double units) {
  double t, e;
  if (units <= 0) return 0;
  if (md->f[i].count == 0) return INFINITY;
  fupermod_points_interpolate(&md->f[i], units, &t, &e);
  return t;
}

static double app_time(int i, double units, double *ci, void *ctx) {
  if (ci) *ci = 0;
  return ftime(ctx, i, units);
}

static double area_time(int i, long area, void *ctx) { return ftime(ctx, i, (double)area); }

/* a process working alone has its own factors (a GPU's direct transform, C held for the run) */
static const fupermod_app_cal *cal_of(const model *md, uint64_t working) {
  return __builtin_popcountll(working) == 1 ? &md->alone : &md->mixed;
}

/* SUMMA's layout of block shares, as fupermod run realises one: BR, fitted to the functions */
static int layout_of(const model *md, const long *shares, int fit, fupermod_layout **out) {
  double *areas = malloc((size_t)size * sizeof *areas);
  fupermod_layout *l = NULL;
  int nb = (int)(md->m / md->b), rc;
  if (!areas) return fupermod_error(FUPERMOD_ERR_NOMEM, "bench/gpunode: out of memory");
  for (int i = 0; i < size; i++) areas[i] = (double)shares[i];
  rc = fupermod_layout_br(areas, size, 0, nb, nb, &l);
  free(areas);
  if (rc == FUPERMOD_SUCCESS && fit) {
    fupermod_layout *fitted = NULL;
    rc = fupermod_layout_fit(l, area_time, (void *)md, &fitted, NULL);
    fupermod_layout_free(l);
    l = fitted;
  }
  *out = rc == FUPERMOD_SUCCESS ? l : NULL;
  return rc;
}

/* the whole-run prediction of a distribution (fupermod_app_predict_fn; rank 0) */
static double predict(const fupermod_dist *d, void *ctx) {
  const model *md = ctx;
  fupermod_app_pred pr = {0, 0, NULL, NULL};
  uint64_t working = 0;
  long *shares = calloc((size_t)size, sizeof *shares);
  fupermod_layout *l = NULL;
  int rc = shares ? FUPERMOD_SUCCESS : FUPERMOD_ERR_NOMEM;
  for (int i = 0; shares && i < size; i++) {
    shares[i] = d->parts[i].d;
    if (shares[i] > 0) working |= 1ULL << i;
  }
  if (rc == FUPERMOD_SUCCESS && md->fft)
    rc = fupermod_fft2d_predict(md->m, md->m, d, app_time, (void *)md, md->cm, cal_of(md, working), &pr);
  else if (rc == FUPERMOD_SUCCESS && (rc = layout_of(md, shares, md->fit, &l)) == FUPERMOD_SUCCESS)
    rc = fupermod_summa_predict(l, (int)md->m, (int)md->b, app_time, (void *)md, md->cm, cal_of(md, working), &pr);
  fupermod_layout_free(l);
  free(shares);
  return rc == FUPERMOD_SUCCESS ? pr.time : NAN;
}

static double predict_shares(const model *md, const long *shares) {
  fupermod_dist *d = fupermod_dist_alloc(md->units, size);
  double t = NAN;
  if (!d) return t;
  for (int i = 0; i < size; i++) d->parts[i].d = shares[i];
  t = predict(d, (void *)md);
  fupermod_dist_free(d);
  return t;
}

/* fupermod_whole_cost: u steps on process i when the processes of working work */
static double whole_cost(int i, long u, uint64_t working, void *ctx) {
  const model *md = ctx;
  long d = u * md->step;
  double t = ftime(md, i, (double)d);
  if (!(t > 0) || !isfinite(t)) return INFINITY;
  return md->fft ? fupermod_fft2d_share_cost(md->m, md->m, i, d, working, t, md->cm, cal_of(md, working))
                 : fupermod_summa_share_cost((int)md->m, (int)md->b, i, d, working, t, md->cm, cal_of(md, working));
}

/* The whole-run model's shares, as fupermod run finds them: exact over every working set on the
 * per-process costs, then descended on the whole-run prediction itself. Collective. */
static int whole_run(const model *md, long *shares) {
  int rc = FUPERMOD_SUCCESS;
  if (rank == 0) {
    long *u = calloc((size_t)size, sizeof *u);
    fupermod_dist *x = fupermod_dist_alloc(md->units, size);
    fupermod_whole_result res;
    double best;
    rc = u && x ? fupermod_whole_partition(size, md->units / md->step, whole_cost, (void *)md, 0, u, &res)
                : fupermod_error(FUPERMOD_ERR_NOMEM, "bench/gpunode: out of memory");
    for (int i = 0; rc == FUPERMOD_SUCCESS && i < size; i++) x->parts[i].d = u[i] * md->step;
    if (rc == FUPERMOD_SUCCESS) rc = fupermod_app_descend(x, md->step, predict, (void *)md, 1000, &best, NULL);
    for (int i = 0; rc == FUPERMOD_SUCCESS && i < size; i++) shares[i] = x->parts[i].d;
    free(u);
    fupermod_dist_free(x);
  }
  if ((rc = agree(rc)) == FUPERMOD_SUCCESS) MPI_Bcast(shares, size, MPI_LONG, 0, MPI_COMM_WORLD);
  return rc;
}

/* Every process's function: its kernel (dgemm at b, fft-rows at M) through its executor, as
 * fupermod run builds them, at 1, 2, 4, ... steps up to the whole. A CPU process stops where one
 * run outlasts cap (the GPU alone's whole run: no larger share can pay), its speed there holding
 * beyond. Gathered on rank 0. Collective. */
static int measure(model *md, double cap) {
  char sub[64];
  fupermod_kernel *k = NULL;
  fupermod_precision prec = {3, 10, 0.95, 0.05, 1.0, 0, 1, 0};
  double mine[128], *all = NULL;
  int n = 0, *cnt = NULL, *off = NULL, rc;
  snprintf(sub, sizeof sub, md->fft ? "n=%ld" : "b=%ld", md->fft ? md->m : md->b);
  rc = fupermod_kernel_load(md->fft ? "fft-rows" : "dgemm", sub, &k);
  if (rc == FUPERMOD_SUCCESS) rc = fupermod_kernel_use_exec(k, ex);
  for (long d = md->step; rc == FUPERMOD_SUCCESS && n < 64; d = 2 * d < md->units ? 2 * d : md->units) {
    fupermod_point pt = FUPERMOD_POINT_INIT;
    if ((rc = fupermod_benchmark(k, d, &prec, MPI_COMM_NULL, &pt)) != FUPERMOD_SUCCESS) break;
    mine[2 * n] = (double)d, mine[2 * n + 1] = pt.t, n++;
    if (d == md->units || (rank != 0 && pt.t > cap)) break;
  }
  if (rc != FUPERMOD_SUCCESS) fprintf(stderr, "bench/gpunode: rank %d: %s kernel: %s\n", rank, app_name(md), fupermod_error_message());
  fupermod_kernel_unload(k);
  if ((rc = agree(rc)) != FUPERMOD_SUCCESS) return rc;
  n *= 2;
  if (rank == 0 && (!(cnt = calloc(2 * (size_t)size, sizeof *cnt)) || !(all = malloc(128 * (size_t)size * sizeof *all))))
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "bench/gpunode: out of memory");
  if ((rc = agree(rc)) != FUPERMOD_SUCCESS) return rc;
  off = cnt ? cnt + size : NULL;
  MPI_Gather(&n, 1, MPI_INT, cnt, 1, MPI_INT, 0, MPI_COMM_WORLD);
  for (int i = 0; rank == 0 && i < size; i++) off[i] = 128 * i;
  MPI_Gatherv(mine, n, MPI_DOUBLE, all, cnt, off, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  for (int i = 0; rank == 0 && i < size && rc == FUPERMOD_SUCCESS; i++)
    for (int j = 0; j < cnt[i] / 2 && rc == FUPERMOD_SUCCESS; j++) {
      fupermod_point pt = FUPERMOD_POINT_INIT;
      pt.d = (long)all[off[i] + 2 * j], pt.t = all[off[i] + 2 * j + 1];
      rc = fupermod_points_insert(&md->f[i], &pt);
    }
  free(cnt), free(all);
  return agree(rc);
}

/* One distribution of an application, ready to run again and again (its layout and matrices, or
 * its plan), as the application keeps them between products. */
typedef struct {
  model *md;
  long *shares;
  fupermod_layout *l; /* SUMMA */
  double *A, *B, *C;
  fupermod_trace tr;
  fupermod_dist *rd; /* the 2D-FFT */
  fupermod_fft2d *plan;
} prepared;

static int host3(size_t n, double **A, double **B, double **C) {
  if (fupermod_exec_host_alloc(ex, n * 8, (void **)A) || fupermod_exec_host_alloc(ex, n * 8, (void **)B) ||
      fupermod_exec_host_alloc(ex, n * 8, (void **)C))
    return fupermod_error(FUPERMOD_ERR_NOMEM, "bench/gpunode: no host memory for %zu elements", n);
  /* a simulated GPU that computes nothing never reads its host memory */
  for (size_t i = 0; (rank != 0 || simulated < 2) && i < n; i++) (*A)[i] = (*B)[i] = 1.0 / (double)(1 + i % 7);
  return FUPERMOD_SUCCESS;
}

/* SUMMA: the BR layout of the shares (fitted to the functions with fit), whose areas the shares
 * become; the 2D-FFT: the plan of the row shares. Collective. */
static int prep_open(model *md, long *shares, int fit, prepared *p) {
  int rc = FUPERMOD_SUCCESS;
  *p = (prepared){.md = md, .shares = shares, .tr = FUPERMOD_TRACE_INIT};
  if (!md->fft) {
    long cnt = 0;
    if ((rc = fupermod_layout_bcast(MPI_COMM_WORLD, 0, rank == 0 ? layout_of(md, shares, fit, &p->l) : rc, &p->l)) ==
        FUPERMOD_SUCCESS) {
      for (int i = 0; i < size; i++) shares[i] = fupermod_layout_area(p->l, i);
      rc = fupermod_summa_local(p->l, rank, (int)md->m, (int)md->b, &cnt);
    }
    if (rc == FUPERMOD_SUCCESS) rc = host3((size_t)(cnt > 0 ? cnt : 1), &p->A, &p->B, &p->C);
    return agree(rc);
  }
  if (!(p->rd = fupermod_dist_alloc(md->m, size))) rc = fupermod_error(FUPERMOD_ERR_NOMEM, "bench/gpunode: out of memory");
  for (int i = 0; p->rd && i < size; i++) p->rd->parts[i].d = shares[i];
  if ((rc = agree(rc)) == FUPERMOD_SUCCESS)
    rc = fupermod_fft2d_plan_exec(MPI_COMM_WORLD, md->m, md->m, p->rd, NULL, ex, FFTW_ESTIMATE, FUPERMOD_FFT2D_AUTO, &p->plan);
  if (rc == FUPERMOD_SUCCESS && (rank != 0 || simulated < 2)) {
    double *x = fupermod_fft2d_local(p->plan);
    for (long i = 0; x && i < 2 * shares[rank] * md->m; i++) x[i] = 1.0 / (double)(1 + i % 7);
  }
  return rc;
}

static void prep_close(prepared *p) {
  fupermod_trace_free(&p->tr);
  fupermod_exec_host_free(ex, p->A), fupermod_exec_host_free(ex, p->B), fupermod_exec_host_free(ex, p->C);
  fupermod_layout_free(p->l);
  fupermod_fft2d_destroy(p->plan);
  fupermod_dist_free(p->rd);
}

/* One run: the slowest process's time, -1 where it failed; traced: SUMMA's updates recorded for
 * prep_calib. Collective. */
static double prep_run(prepared *p, int traced) {
  double t0;
  int rc;
  fupermod_trace_clear(&p->tr);
  MPI_Barrier(MPI_COMM_WORLD);
  t0 = fupermod_time();
  rc = p->md->fft ? fupermod_fft2d_execute(p->plan, FUPERMOD_FFT2D_FORWARD, NULL)
                  : fupermod_summa_dgemm_exec(MPI_COMM_WORLD, p->l, (int)p->md->m, (int)p->md->b, p->A, p->B, p->C, 0, ex,
                                              traced ? &p->tr : NULL);
  t0 = tmax(fupermod_time() - t0);
  if ((rc = agree(rc)) != FUPERMOD_SUCCESS && rank == 0)
    fprintf(stderr, "bench/gpunode: %s at M = %ld: %s\n", app_name(p->md), p->md->m, fupermod_error_message());
  return rc == FUPERMOD_SUCCESS ? t0 : -1;
}

/* The factors of the mixed model (rank 0) from the last run: SUMMA, each process's updates over
 * its function's K updates at its area; the 2D-FFT, its row and column phases over its function
 * at its rows and columns, and where the transposes are copies through shared memory, their
 * seconds per byte. Collective. */
static void prep_calib(prepared *p) {
  model *md = p->md;
  double mine[7] = {0}, *all = rank == 0 ? malloc(7 * (size_t)size * sizeof *all) : NULL, *fk = md->fac;
  long first;
  if (!md->fft) mine[0] = fupermod_trace_total(&p->tr), mine[4] = (double)fupermod_layout_area(p->l, rank);
  else {
    fupermod_fft2d_phase_times(p->plan, &mine[0], &mine[1], &mine[2], &mine[3]);
    mine[4] = (double)p->shares[rank], mine[5] = (double)fupermod_fft2d_local_cols(p->plan, &first);
    mine[6] = fupermod_fft2d_strategy(p->plan) == FUPERMOD_FFT2D_SHARED;
  }
  MPI_Gather(mine, 7, MPI_DOUBLE, all, 7, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  for (int i = 0; all && i < size; i++) {
    const double *a = all + 7 * i;
    if (!md->fft && a[4] > 0) fk[i] = a[0] / (ceil((double)md->m / md->b) * ftime(md, i, a[4]));
    if (!md->fft) continue;
    md->mixed.shared = md->alone.shared = (int)a[6];
    if (a[4] > 0) fk[i] = a[0] / ftime(md, i, a[4]);
    if (a[5] > 0) fk[size + i] = a[2] / ftime(md, i, a[5]);
    if (a[4] > 0 && a[6]) fk[2 * size + i] = (a[1] + a[3]) / 2 / (16.0 * a[4] * (double)md->m);
  }
  if (all && md->fft && all[6]) md->mixed.copy = md->alone.copy = fk + 2 * size;
  free(all);
}

/* a warm-up run, then the best of n (the last traced); -1 where one failed */
static double prep_best(prepared *p, long n, int traced) {
  double best = INFINITY, t = prep_run(p, 0);
  for (long r = 0; r < n && t > 0; r++)
    if ((t = prep_run(p, traced && r == n - 1)) > 0 && t < best) best = t;
  return t > 0 ? best : -1;
}

/* shares in proportion to each process's speed at an equal share (rank 0; broadcast) */
static void by_speed(const model *md, long *shares) {
  if (rank == 0) {
    double *x = malloc((size_t)size * sizeof *x), e = (double)(md->units / size > 0 ? md->units / size : 1), sum = 0;
    for (int i = 0; x && i < size; i++) sum += x[i] = e / ftime(md, i, e);
    for (int i = 0; x && i < size; i++) x[i] *= (double)md->units / sum;
    if (!x || !(sum > 0) || fupermod_dist_round(x, size, md->units, shares) != FUPERMOD_SUCCESS)
      for (int i = 0; i < size; i++) shares[i] = i == 0 ? md->units : 0;
    free(x);
  }
  MPI_Bcast(shares, size, MPI_LONG, 0, MPI_COMM_WORLD);
}

/* one distribution of an application: its shares, measured and predicted whole runs */
typedef struct {
  const char *name;
  long *shares;
  double t, pred;
} dist_run;

static void case_rows(const model *md, const dist_run *dr, int n, int chosen) {
  char title[64];
  if (rank != 0) return;
  if (md->fft) snprintf(title, sizeof title, "2D-FFT at M = %ld", md->m);
  else snprintf(title, sizeof title, "SUMMA at M = %ld, b = %ld", md->m, md->b);
  printf("| %s | shares (GPU / CPU) | time | predicted | GPU alone / this |\n|---|---|---|---|---|\n", title);
  for (int k = 0; k < n; k++) {
    char sh[256];
    size_t len = 0;
    for (int i = 0; i < size && len < sizeof sh; i++)
      len += (size_t)snprintf(sh + len, sizeof sh - len, "%s%ld", i ? " / " : "", dr[k].shares[i]);
    printf("| %s%s | %s %s | %.2f ms | %.2f ms | %.3f |\n", dr[k].name, k == chosen ? " (chosen)" : "", sh, unit_name(md),
           dr[k].t * 1e3, dr[k].pred * 1e3,
           dr[0].t > 0 && dr[k].t > 0 ? dr[0].t / dr[k].t : 0.0);
  }
}

/* The model's inputs: the GPU alone's runs (its factors, and the cap of the functions), every
 * process's function, the even distribution's runs (the mixed factors). Collective. */
static int model_build(const opts *o, model *md, prepared *alone, prepared *even) {
  double t = prep_best(alone, o->reps, 0);
  if (!(t > 0) || measure(md, t) != FUPERMOD_SUCCESS || !(prep_best(even, 1, 1) > 0)) return FUPERMOD_ERR_SYSTEM;
  prep_calib(even);
  if (rank == 0) {
    /* alone, the GPU holds C for the whole run, or transforms the whole signal in one call */
    double f = t / (md->fft ? 2 * ftime(md, 0, (double)md->m) : ceil((double)md->m / md->b) * ftime(md, 0, (double)md->units));
    md->fac[3 * size] = f;
    if (md->fft) md->fac[4 * size] = f;
    for (int i = 1; i < size; i++) md->fac[3 * size + i] = md->fac[i], md->fac[4 * size + i] = md->fac[size + i];
  }
  return FUPERMOD_SUCCESS;
}

static int race_run(int k, void *ctx, double *t) {
  *t = prep_run((prepared *)ctx + k, 0);
  return *t > 0 ? FUPERMOD_SUCCESS : FUPERMOD_ERR_SYSTEM;
}

/* The choice among the distributions as fupermod run makes it by default (fupermod_choose): on
 * the predictions, racing the three least and any whose interval reaches theirs, at most five
 * rounds. The index chosen, -1 where it failed. Collective. */
static int choice(const dist_run *dr, prepared *pr, int n, fupermod_choose_stats *st) {
  fupermod_candidate c[4];
  fupermod_choose_opts co = {FUPERMOD_CHOOSE_RACE, 1, 5, 3, 0.95, race_run, pr};
  double pred[4];
  int chosen = -1;
  for (int k = 0; k < n; k++) pred[k] = dr[k].pred;
  MPI_Bcast(pred, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  for (int k = 0; k < n; k++) {
    c[k] = (fupermod_candidate){.label = dr[k].name, .pred = pred[k], .same_as = -1};
    for (int j = 0; j < k && c[k].same_as < 0; j++)
      if (!memcmp(dr[j].shares, dr[k].shares, (size_t)size * sizeof *dr[k].shares)) c[k].same_as = j;
  }
  return fupermod_choose(c, n, &co, &chosen, st) == FUPERMOD_SUCCESS ? chosen : -1;
}

/* The GPU alone, the whole-run model's distribution, by speed alone and even, for one application
 * at M x M (collective), measured in rounds that run each once, so that a drifting machine
 * weighs on all alike; then the choice among them. Returns the GPU alone's time over the
 * choice's (0: a run failed); *cpu: the units the choice gives the CPU processes. */
static double app_case(const opts *o, int fft, long m, long b, const fupermod_comm *cm, long *cpu) {
  static const char *const names[4] = {"GPU alone", "whole-run model", "by speed alone", "even"};
  dist_run dr[4];
  prepared pr[4];
  model md;
  fupermod_choose_stats st;
  double ratio = 0;
  int rc = model_init(&md, fft, m, b, cm), chosen;
  long *sh = calloc(4 * (size_t)size, sizeof *sh);
  for (int k = 0; k < 4; k++) pr[k] = (prepared){.tr = FUPERMOD_TRACE_INIT};
  if ((rc = agree(sh ? rc : FUPERMOD_ERR_NOMEM)) != FUPERMOD_SUCCESS) goto done;
  for (int k = 0; k < 4; k++) dr[k] = (dist_run){names[k], sh + k * size, INFINITY, NAN};
  dr[0].shares[0] = md.units;
  for (int i = 0; i < size; i++) dr[3].shares[i] = md.units / size / md.step * md.step;
  dr[3].shares[0] += md.units - size * dr[3].shares[1];
  if (prep_open(&md, dr[0].shares, 0, &pr[0]) || prep_open(&md, dr[3].shares, 0, &pr[3]) ||
      model_build(o, &md, &pr[0], &pr[3]) || whole_run(&md, dr[1].shares) || prep_open(&md, dr[1].shares, 1, &pr[1]))
    goto done;
  by_speed(&md, dr[2].shares);
  if (prep_open(&md, dr[2].shares, 0, &pr[2]) != FUPERMOD_SUCCESS) goto done;
  for (long r = -1; r < o->reps; r++)
    for (int j = 0; j < 4; j++) {
      int k = (int)((j + r + 1) % 4);
      double t = prep_run(&pr[k], 0);
      if (!(t > 0)) goto done;
      if (r >= 0 && t < dr[k].t) dr[k].t = t;
    }
  for (int k = 0; rank == 0 && k < 4; k++) {
    md.fit = k == 1; /* each as it ran */
    dr[k].pred = predict_shares(&md, dr[k].shares);
  }
  if ((chosen = choice(dr, pr, 4, &st)) < 0) goto done;
  case_rows(&md, dr, 4, chosen);
  if (rank == 0)
    printf("choice (fupermod_choose, fupermod run's race): %s, %d raced in %d round%s%s\n", dr[chosen].name, st.top,
           st.rounds, st.rounds == 1 ? "" : "s", st.top < 2 ? "" : st.decided ? ", decided" : ", the least mean when the rounds ran out");
  ratio = dr[0].t / dr[chosen].t;
  *cpu = 0;
  for (int i = 1; i < size; i++) *cpu += dr[chosen].shares[i];
done:
  for (int k = 0; k < 4; k++) prep_close(&pr[k]);
  free(sh);
  model_free(&md);
  return ratio;
}

/* ---- the GPU alone against the vendor's figures ---- */

/* the figures of the run (seconds, bytes/s; -1 or 0 where not measured) */
typedef struct {
  double cublas, xt, ours, fft, fftm, fft_alone, s_alone, up, down;
  double r[2][2]; /* at M, then Q: the GPU alone's time over the choice's, SUMMA then the 2D-FFT */
  long cpu[2][2];  /* the units the choice gives the CPU processes */
} figs;

/* 0 with the options set, else the exit status (2: bad option, 1: --help printed) */
static int parse(int argc, char **argv, opts *o) {
  static const struct option lo[] = {{"n", 1, 0, 'n'},       {"d", 1, 0, 'd'},      {"fft-n", 1, 0, 'f'},
                                     {"mix-n", 1, 0, 'm'},   {"b", 1, 0, 'b'},      {"mix-b", 1, 0, 'B'},
                                     {"pay-n", 1, 0, 'p'},   {"pay-b", 1, 0, 'P'},  {"device", 1, 0, 'g'},
                                     {"threads", 1, 0, 't'}, {"reps", 1, 0, 'r'},   {"help", 0, 0, 'h'},
                                     {0, 0, 0, 0}};
  int c;
  *o = (opts){16384, 65536, 16384, 0, 1024, 0, 0, 0, 3, 0, 1};
  while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) switch (c) {
    case 'n': o->n = atol(optarg); break;
    case 'd': o->d = atol(optarg); break;
    case 'f': o->f = atol(optarg); break;
    case 'm': o->mix = atol(optarg); break;
    case 'b': o->b = atol(optarg); break;
    case 'B': o->mix_b = atol(optarg); break;
    case 'p': o->pay = atol(optarg); break;
    case 'P': o->pay_b = atol(optarg); break;
    case 'g': o->device = atoi(optarg); break;
    case 't': o->threads = atoi(optarg); break;
    case 'r': o->reps = atol(optarg); break;
    case 'h': usage(); return 1;
    default: usage(); return 2;
    }
  if (!o->mix) o->mix = o->n;
  if (!o->mix_b) o->mix_b = o->b;
  if (!o->pay_b) o->pay_b = o->mix_b;
  if (optind < argc || o->n < 1 || o->d < 1 || o->f < 1 || o->b < 1 || o->n % o->b || o->reps < 1 || o->threads < 1 ||
      o->device < 0 || o->mix < 1 || o->mix_b < 1 || o->mix % o->mix_b || o->pay < 0 || o->pay_b < 1 || o->pay % o->pay_b) {
    fprintf(stderr, "bench/gpunode: invalid option (--n, --mix-n and --pay-n multiples of their blocks, every value "
                    "positive; --help)\n");
    return 2;
  }
  return 0;
}

static void header(const opts *o) {
  char mach[512];
  machine(mach, sizeof mach);
  if (rank != 0) return;
  printf("bench/gpunode: %d processes; rank 0: %s; ranks 1-%d: CPU executors of %d thread%s\n", size,
         fupermod_exec_describe(ex), size - 1, o->threads, o->threads == 1 ? "" : "s");
  printf("machine: %s\n", mach);
  if (simulated)
    printf("SIMULATED: the GPU is the stand-in CUDA's %s (its times come from the device description)%s; the\n"
           "references run on the same virtual clock as the executor and the link's speed is the simulator's\n",
           getenv("FAKE_CUDA_SIM") ? getenv("FAKE_CUDA_SIM") : "?", simulated == 2 ? ", computing nothing" : "");
  else printf("the references (cuBLAS, cuBLAS-Xt, cuFFT, the link) measured on this device in this run\n");
  printf("| %-34s | %12s | %14s | %12s | %10s |\n|---|---|---|---|---|\n", "what", "time", "rate", "bound", "of bound");
}

/* the best of reps of fn(arg) on rank 0's executor: -1 where a run failed */
static double best_of(const opts *o, int (*fn)(const opts *, void *), void *arg) {
  double best = -1;
  for (long r = -1; r < o->reps; r++) {
    double t0 = fupermod_time();
    if (fn(o, arg) != FUPERMOD_SUCCESS) break;
    t0 = fupermod_time() - t0;
    if (r >= 0 && (best < 0 || t0 < best)) best = t0;
  }
  return best;
}

static int streamed_dgemm(const opts *o, void *arg) {
  double **m = arg;
  fupermod_exec_dgemm_info info;
  return fupermod_exec_dgemm(ex, 0, o->d, o->n, o->n, 1.0, m[0], o->d, m[1], o->n, 1.0, m[2], o->d, &info);
}

static int executor_fft(const opts *o, void *arg) { return fupermod_exec_fft2d(ex, o->f, o->f, arg, -1); }

/* the link's speed one way (FUPERMOD_EXEC_REF_UP or _DOWN, page-locked): 256 MiB less 64 MiB, the
 * best of three each, so that the latency drops out; -1 where the executor has no reference */
static double link_speed(int what) {
  double t[2] = {INFINITY, INFINITY}, s;
  for (int k = 0; k < 6; k++)
    if (fupermod_exec_reference(ex, what, (k % 2 ? 256L : 64L) << 20, 0, 1, &s) != FUPERMOD_SUCCESS) return -1;
    else if (s < t[k % 2]) t[k % 2] = s;
  return t[1] > t[0] ? 192.0 * (1 << 20) / (t[1] - t[0]) : -1;
}

/* the device alone, on rank 0: the vendor's references, the streamed DGEMM and the 2D-FFT */
static void device_alone(const opts *o, figs *g) {
  size_t an = (size_t)o->d * (size_t)o->n, bn = (size_t)o->n * (size_t)o->n, fn = (size_t)o->f * (size_t)o->f;
  double *m[3] = {NULL, NULL, NULL}, *F = NULL, up;
  double gemm_fl = 2.0 * (double)an * (double)o->n, fl = 5.0 * (double)fn * log2((double)fn), fb;
  g->up = link_speed(FUPERMOD_EXEC_REF_UP), g->down = link_speed(FUPERMOD_EXEC_REF_DOWN);
  if (g->up <= 0 || g->down <= 0) g->up = g->down = 55e9; /* no reference: the H100's measured figure */
  char link[32];
  snprintf(link, sizeof link, "%.1f / %.1f GB/s", g->up * 1e-9, g->down * 1e-9);
  printf("| %-34s | %12s | %14s | %12s | %10s |\n", "link up / down (page-locked)", "-", link, "-", "-");
  fupermod_exec_reference(ex, FUPERMOD_EXEC_REF_GEMM, o->d, o->n, o->n, &g->cublas);
  if (fupermod_exec_reference(ex, FUPERMOD_EXEC_REF_GEMM_XT, o->d, o->n, o->n, &g->xt) != FUPERMOD_SUCCESS) g->xt = -1;
  fupermod_exec_reference(ex, FUPERMOD_EXEC_REF_FFT2D, o->f, o->f, 1, &g->fft);
  fupermod_exec_reference(ex, FUPERMOD_EXEC_REF_FFT2D_MOVED, o->f, o->f, 1, &g->fftm);
  if (!fupermod_exec_host_alloc(ex, an * 8, (void **)&m[0]) && !fupermod_exec_host_alloc(ex, bn * 8, (void **)&m[1]) &&
      !fupermod_exec_host_alloc(ex, an * 8, (void **)&m[2]))
    g->ours = best_of(o, streamed_dgemm, m);
  for (int i = 0; i < 3; i++) fupermod_exec_host_free(ex, m[i]);
  up = 8.0 * (2.0 * (double)an + (double)bn) / g->up;
  row("cuBLAS resident (D x N x N)", g->cublas, gemm_fl, g->cublas);
  row(g->xt > 0 ? "cuBLAS-Xt, host matrices" : "cuBLAS-Xt (not in this CUDA)", g->xt, gemm_fl,
      g->cublas > up ? g->cublas : up);
  row("streamed DGEMM, host matrices", g->ours, gemm_fl, g->cublas > up ? g->cublas : up);
  fb = 16.0 * (double)fn / g->up + 16.0 * (double)fn / g->down;
  if (!fupermod_exec_host_alloc(ex, fn * 16, (void **)&F)) g->fft_alone = best_of(o, executor_fft, F);
  fupermod_exec_host_free(ex, F);
  row("cuFFT 2D, device data (F x F)", g->fft, fl, g->fft);
  row("cuFFT 2D with its transfers", g->fftm, fl, fb);
  row("2D-FFT GPU alone (executor)", g->fft_alone, fl, fb);
}

/* every pair's links at the applications' message sizes, as fupermod run measures them */
static int links(fupermod_comm *cm) {
  static const long sizes[] = {8, 4096, 65536, 1048576, 16777216};
  fupermod_precision prec = {3, 20, 0.95, 0.05, 2.0, 0, 1, 0};
  int rc = fupermod_comm_init(cm, size);
  if (rc == FUPERMOD_SUCCESS) rc = fupermod_comm_measure(MPI_COMM_WORLD, sizes, 5, &prec, cm, NULL, NULL);
  return agree(rc);
}

static double ratio(double num, double den) { return num > 0 && den > 0 ? num / den : 0; }

static void ratios(const opts *o, const figs *g) {
  const char *ov = simulated ? ", overlap only" : "";
  if (rank != 0) return;
  double r2 = g->s_alone > 0 && g->ours > 0
                  ? (2.0 * (double)o->n * o->n * o->n / g->s_alone) / (2.0 * (double)o->d * o->n * o->n / g->ours)
                  : 0;
  if (simulated)
    printf("overlap only: on the simulator the GPU-alone ratios measure the executor's overlap against the simulator's\n"
           "own curves (the references share its clock); the GPU + CPU ratios can fail (a real CPU, the model's choice)\n");
  printf("%sratios: streamed DGEMM / cuBLAS resident %.3f (>= 0.85%s), SUMMA alone / streamed DGEMM %.3f (>= 0.9%s), "
         "2D-FFT alone vs cuFFT with transfers %.3f (>= 0.9%s)",
         simulated ? "SIMULATED " : "", ratio(g->cublas, g->ours), ov, r2, ov, ratio(g->fftm, g->fft_alone), ov);
  for (int q = 0; q < 2 && size > 1; q++) {
    if (q && !o->pay) break;
    printf(", GPU + CPU (the whole-run model's choice) vs GPU alone at %s = %ld: SUMMA %.3f (the CPU %ld blocks), 2D-FFT "
           "%.3f (the CPU %ld rows) (>= %s)", q ? "Q" : "M", q ? o->pay : o->mix, g->r[q][0], g->cpu[q][0], g->r[q][1],
           g->cpu[q][1], q ? "1.0 where the CPU works, else 0.98" : "0.98");
  }
  printf("\n");
}

/* the GPU beside the CPU processes: both applications at M, and at Q */
static void mixed(const opts *o, figs *g) {
  fupermod_comm cm = {0, NULL};
  if (links(&cm) != FUPERMOD_SUCCESS) {
    if (rank == 0) fprintf(stderr, "bench/gpunode: links: %s\n", fupermod_error_message());
    return;
  }
  for (int a = 0; a < 2; a++) g->r[0][a] = app_case(o, a, o->mix, o->mix_b, rank == 0 ? &cm : NULL, &g->cpu[0][a]);
  for (int a = 0; o->pay && a < 2; a++) g->r[1][a] = app_case(o, a, o->pay, o->pay_b, rank == 0 ? &cm : NULL, &g->cpu[1][a]);
  fupermod_comm_free(&cm);
}

static int start(int *argc, char ***argv, const opts *o) {
  int got = 0, rc;
  if (fupermod_mpi_init_thread(argc, argv, MPI_THREAD_FUNNELED, "bench/gpunode", &got) != FUPERMOD_SUCCESS) {
    fprintf(stderr, "bench/gpunode: %s\n", fupermod_error_message());
    return 1;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  fupermod_exec_opts eo = {.kind = rank == 0 ? FUPERMOD_EXEC_CUDA : FUPERMOD_EXEC_CPU, .threads = rank == 0 ? 1 : o->threads,
                           .cuda_device = o->device};
  rc = fupermod_exec_open(&eo, &ex);
  if (rc != FUPERMOD_SUCCESS) fprintf(stderr, "bench/gpunode: rank %d: %s\n", rank, fupermod_error_message());
  if (agree(rc) != FUPERMOD_SUCCESS) {
    MPI_Finalize();
    return 1;
  }
  simulated = fupermod_time_simulated();
  MPI_Allreduce(MPI_IN_PLACE, &simulated, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return 0;
}

int main(int argc, char **argv) {
  opts o;
  figs g = {-1, -1, -1, -1, -1, -1, -1, 0, 0, {{0, 0}, {0, 0}}, {{0, 0}, {0, 0}}};
  int rc = parse(argc, argv, &o);
  if (rc) return rc == 1 ? 0 : rc;
  if (start(&argc, &argv, &o)) return 1;
  header(&o);
  if (rank == 0) device_alone(&o, &g);
  MPI_Barrier(MPI_COMM_WORLD);
  {
    model md; /* SUMMA N x N on the GPU alone */
    prepared p;
    long *sh = calloc((size_t)size, sizeof *sh);
    model_init(&md, 0, o.n, o.b, NULL);
    if (sh) sh[0] = md.units;
    if (agree(sh ? FUPERMOD_SUCCESS : FUPERMOD_ERR_NOMEM) == FUPERMOD_SUCCESS && prep_open(&md, sh, 0, &p) == FUPERMOD_SUCCESS) {
      g.s_alone = prep_best(&p, o.reps, 0);
      prep_close(&p);
    }
    row("SUMMA GPU alone (N x N)", g.s_alone, 2.0 * (double)o.n * o.n * o.n,
        g.cublas > 0 ? g.cublas * (double)o.n / (double)o.d : 0);
    model_free(&md);
    free(sh);
  }
  if (size > 1) mixed(&o, &g);
  ratios(&o, &g);
  fupermod_exec_close(ex);
  MPI_Finalize();
  return 0;
}
