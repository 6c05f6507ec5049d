/* GPU-node benchmark: fupermod's GPU engine (the CUDA executor) against the vendor's own figures,
 * and the applications on the GPU alone and beside CPU processes, in one run.
 *
 *   mpirun --bind-to none -np P bench/gpunode [--n N] [--d D] [--fft-n F] [--mix-n M] [--b B]
 *          [--device G] [--threads T] [--reps R]
 *
 * Rank 0 computes on CUDA device G (default 0) through its executor, ranks 1..P-1 on CPU executors
 * of T threads (default 1). On a machine without a GPU it runs on a simulated one: the stand-in
 * CUDA with FAKE_CUDA_SIM=h100 FAKE_CUDA_REALTIME=1 FAKE_CUDA_NOPAYLOAD=1 (docs/kernels.md), its
 * rows then marked SIMULATED. Rows (the best of R runs, default 3), each with its bound:
 *   cuBLAS resident        cublasDgemm of D x N x N on device data (its own bound)
 *   cuBLAS-Xt              cublasXtDgemm of D x N x N on the host matrices (real GPU only)
 *   streamed DGEMM         fupermod_exec_dgemm, C = A B + C on host matrices; bound: the larger of
 *                          the resident GEMM and the upload of A, B and C at the measured link speed
 *   cuFFT 2D               on device data (F x F), and with its upload and download one after the other
 *   2D-FFT GPU alone       fupermod_fft2d on rank 0 alone; bound: the array up and down
 *   SUMMA GPU alone        fupermod_summa_dgemm_extents, N x N, b = B; bound: the resident GEMM at its size
 *   SUMMA GPU + CPU, even  at M x M (default N): column slices by the processes' measured speeds, and even
 *   2D-FFT GPU + CPU       at M x M: rows by the processes' measured speeds
 * The last line gives the ratios the engine is held to: the streamed DGEMM's rate over cuBLAS
 * resident (at least 0.85), SUMMA alone's over the streamed DGEMM's (0.9), cuFFT with transfers'
 * time over the 2D-FFT alone's (0.9), and the GPU alone's time over the GPU + CPU's for SUMMA and
 * the 2D-FFT (0.98). Defaults: N = 16384, D = 65536, F = 16384, B = 1024. */
#include <fftw3.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "apps/fft2d.h"
#include "apps/summa.h"
#include "bench/machine.h"
#include "fupermod/fupermod.h"
#include "fupermod/mpi_thread.h"

typedef struct {
  long n, d, f, mix, b, reps;
  int device, threads;
} opts;

static int rank, size, simulated;
static fupermod_exec *ex;

static void usage(void) {
  printf("usage: mpirun --bind-to none -np P bench/gpunode [--n N] [--d D] [--fft-n F] [--mix-n M] [--b B]\n"
         "                                                [--device G] [--threads T] [--reps R]\n"
         "Rank 0 on CUDA device G, ranks 1..P-1 on CPU executors of T threads: cuBLAS, cuBLAS-Xt and cuFFT\n"
         "against the streamed DGEMM, the 2D-FFT and SUMMA on the GPU alone and with the CPUs, each with\n"
         "its bound; the last line gives the ratios (docs/performance.md). Defaults: N = 16384,\n"
         "D = 65536, F = 16384, M = N, B = 1024, G = 0, T = 1, R = 3.\n");
}

static double tmax(double t) {
  double m;
  MPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return m;
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

/* SUMMA on column slices: cols[i] columns to process i; the best of reps, the slowest process */
static double summa(const opts *o, long n, const long *cols) {
  int *row0 = calloc((size_t)size, sizeof(int)), *rows = calloc((size_t)size, sizeof(int));
  int *col0 = calloc((size_t)size, sizeof(int)), *c = calloc((size_t)size, sizeof(int)), rc = FUPERMOD_SUCCESS;
  size_t cnt = (size_t)n * (size_t)(cols[rank] > 0 ? cols[rank] : 1);
  double *A = NULL, *B = NULL, *C = NULL, best = INFINITY;
  for (int i = 0; i < size; i++) {
    rows[i] = (int)n, c[i] = (int)cols[i];
    col0[i] = i ? col0[i - 1] + c[i - 1] : 0;
  }
  if (fupermod_exec_host_alloc(ex, cnt * 8, (void **)&A) || fupermod_exec_host_alloc(ex, cnt * 8, (void **)&B) ||
      fupermod_exec_host_alloc(ex, cnt * 8, (void **)&C))
    rc = FUPERMOD_ERR_NOMEM;
  if ((rank != 0 || simulated < 2) && rc == FUPERMOD_SUCCESS) /* a simulated GPU's host memory stays untouched */
    for (size_t i = 0; i < cnt; i++) A[i] = B[i] = 1.0 / (double)(1 + i % 7);
  for (long r = -1; r < o->reps && rc == FUPERMOD_SUCCESS; r++) {
    double t0;
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = fupermod_time();
    rc = fupermod_summa_dgemm_extents(MPI_COMM_WORLD, row0, rows, col0, c, (int)n, (int)o->b, A, B, C, 0, ex, NULL);
    t0 = tmax(fupermod_time() - t0);
    if (r >= 0 && t0 < best) best = t0;
  }
  if (rc != FUPERMOD_SUCCESS) fprintf(stderr, "bench/gpunode: rank %d: SUMMA n = %ld: %s\n", rank, n, fupermod_error_message());
  fupermod_exec_host_free(ex, A), fupermod_exec_host_free(ex, B), fupermod_exec_host_free(ex, C);
  free(row0), free(rows), free(col0), free(c);
  MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return rc == FUPERMOD_SUCCESS ? best : -1;
}

/* the 2D-FFT of m x m with rows[i] rows to process i */
static double fft2d(const opts *o, long m, const long *rows) {
  fupermod_dist *rd = fupermod_dist_alloc(m, size);
  fupermod_fft2d *plan = NULL;
  double best = INFINITY;
  int rc;
  for (int i = 0; i < size; i++) rd->parts[i].d = rows[i];
  rc = fupermod_fft2d_plan_exec(MPI_COMM_WORLD, m, m, rd, NULL, ex, FFTW_ESTIMATE, FUPERMOD_FFT2D_AUTO, &plan);
  for (long r = -1; r < o->reps && rc == FUPERMOD_SUCCESS; r++) {
    double t0;
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = fupermod_time();
    rc = fupermod_fft2d_execute(plan, FUPERMOD_FFT2D_FORWARD, NULL);
    t0 = tmax(fupermod_time() - t0);
    if (r >= 0 && t0 < best) best = t0;
  }
  if (rc != FUPERMOD_SUCCESS && rank == 0) fprintf(stderr, "bench/gpunode: 2D-FFT m = %ld: %s\n", m, fupermod_error_message());
  fupermod_fft2d_destroy(plan);
  fupermod_dist_free(rd);
  return rc == FUPERMOD_SUCCESS ? best : -1;
}

/* shares of total in proportion to speed (at least one for every process with a speed) */
static void shares(long total, const double *speed, long *part) {
  double sum = 0;
  long given = 0;
  int fastest = 0;
  for (int i = 0; i < size; i++) sum += speed[i], fastest = speed[i] > speed[fastest] ? i : fastest;
  for (int i = 0; i < size; i++) given += part[i] = (long)floor((double)total * speed[i] / sum);
  part[fastest] += total - given;
}

/* the figures of the run (seconds; -1 where not measured) */
typedef struct {
  double cublas, xt, ours, fft, fftm, fft_alone, s_alone, s_mix, s_even, s_mix_alone, f_mix, f_mix_alone, link;
} figs;

/* 0 with the options set, else the exit status (2: bad option, 1: --help printed) */
static int parse(int argc, char **argv, opts *o) {
  static const struct option lo[] = {{"n", 1, 0, 'n'},      {"d", 1, 0, 'd'},       {"fft-n", 1, 0, 'f'},
                                     {"mix-n", 1, 0, 'm'},  {"b", 1, 0, 'b'},       {"device", 1, 0, 'g'},
                                     {"threads", 1, 0, 't'}, {"reps", 1, 0, 'r'},   {"help", 0, 0, 'h'},
                                     {0, 0, 0, 0}};
  int c;
  *o = (opts){16384, 65536, 16384, 0, 1024, 3, 0, 1};
  while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) switch (c) {
    case 'n': o->n = atol(optarg); break;
    case 'd': o->d = atol(optarg); break;
    case 'f': o->f = atol(optarg); break;
    case 'm': o->mix = atol(optarg); break;
    case 'b': o->b = atol(optarg); break;
    case 'g': o->device = atoi(optarg); break;
    case 't': o->threads = atoi(optarg); break;
    case 'r': o->reps = atol(optarg); break;
    case 'h': usage(); return 1;
    default: usage(); return 2;
    }
  if (optind < argc || o->n < 1 || o->d < 1 || o->f < 1 || o->b < 1 || o->n % o->b || o->reps < 1 || o->threads < 1 ||
      o->device < 0 || o->mix < 0) {
    fprintf(stderr, "bench/gpunode: invalid option (--n a multiple of --b, every value positive; --help)\n");
    return 2;
  }
  if (!o->mix) o->mix = o->n;
  if (o->mix % o->b) {
    fprintf(stderr, "bench/gpunode: --mix-n %ld is not a multiple of --b %ld\n", o->mix, o->b);
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
    printf("SIMULATED: the GPU is the stand-in CUDA's %s (its times come from the device description)%s\n",
           getenv("FAKE_CUDA_SIM") ? getenv("FAKE_CUDA_SIM") : "?", simulated == 2 ? ", computing nothing" : "");
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

/* the device alone, on rank 0: the vendor's references, the streamed DGEMM and the 2D-FFT */
static void device_alone(const opts *o, figs *g) {
  size_t an = (size_t)o->d * (size_t)o->n, bn = (size_t)o->n * (size_t)o->n, fn = (size_t)o->f * (size_t)o->f;
  double *m[3] = {NULL, NULL, NULL}, *F = NULL, up;
  double gemm_fl = 2.0 * (double)an * (double)o->n, fl = 5.0 * (double)fn * log2((double)fn), fb;
  fupermod_exec_reference(ex, FUPERMOD_EXEC_REF_GEMM, o->d, o->n, o->n, &g->cublas);
  if (fupermod_exec_reference(ex, FUPERMOD_EXEC_REF_GEMM_XT, o->d, o->n, o->n, &g->xt) != FUPERMOD_SUCCESS) g->xt = -1;
  fupermod_exec_reference(ex, FUPERMOD_EXEC_REF_FFT2D, o->f, o->f, 1, &g->fft);
  fupermod_exec_reference(ex, FUPERMOD_EXEC_REF_FFT2D_MOVED, o->f, o->f, 1, &g->fftm);
  /* the link's speed, from cuFFT's transfers: (moved - on device) for 2 x 16 F^2 bytes */
  if (g->fftm > g->fft && g->fft > 0) g->link = 32.0 * (double)fn / (g->fftm - g->fft);
  if (!fupermod_exec_host_alloc(ex, an * 8, (void **)&m[0]) && !fupermod_exec_host_alloc(ex, bn * 8, (void **)&m[1]) &&
      !fupermod_exec_host_alloc(ex, an * 8, (void **)&m[2]))
    g->ours = best_of(o, streamed_dgemm, m);
  for (int i = 0; i < 3; i++) fupermod_exec_host_free(ex, m[i]);
  up = 8.0 * (2.0 * (double)an + (double)bn) / g->link;
  row("cuBLAS resident (D x N x N)", g->cublas, gemm_fl, g->cublas);
  row(g->xt > 0 ? "cuBLAS-Xt, host matrices" : "cuBLAS-Xt (not in this CUDA)", g->xt, gemm_fl,
      g->cublas > up ? g->cublas : up);
  row("streamed DGEMM, host matrices", g->ours, gemm_fl, g->cublas > up ? g->cublas : up);
  fb = 32.0 * (double)fn / g->link;
  if (!fupermod_exec_host_alloc(ex, fn * 16, (void **)&F)) g->fft_alone = best_of(o, executor_fft, F);
  fupermod_exec_host_free(ex, F);
  row("cuFFT 2D, device data (F x F)", g->fft, fl, g->fft);
  row("cuFFT 2D with its transfers", g->fftm, fl, fb);
  row("2D-FFT GPU alone (executor)", g->fft_alone, fl, fb);
}

/* this process's DGEMM rate: the GPU's streamed rate, a CPU's from a DGEMM of 1024^3 */
static double my_speed(const opts *o, const figs *g) {
  if (rank == 0) return g->ours > 0 ? 2.0 * (double)o->d * o->n * o->n / g->ours : 1;
  size_t k = 1024;
  double *A = calloc(k * k, 8), *B = calloc(k * k, 8), *C = calloc(k * k, 8), t0, mine;
  fupermod_exec_dgemm(ex, 0, (long)k, (long)k, (long)k, 1.0, A, (long)k, B, (long)k, 0.0, C, (long)k, NULL);
  t0 = fupermod_time();
  fupermod_exec_dgemm(ex, 0, (long)k, (long)k, (long)k, 1.0, A, (long)k, B, (long)k, 0.0, C, (long)k, NULL);
  mine = 2.0 * (double)k * k * k / (fupermod_time() - t0);
  free(A), free(B), free(C);
  return mine;
}

/* the GPU beside the CPU processes at M x M: SUMMA by speed and even, the 2D-FFT by speed */
static void mixed(const opts *o, figs *g, long *part, double *speed) {
  double mine = my_speed(o, g), sfl = 2.0 * (double)o->mix * o->mix * o->mix;
  double fl = 5.0 * (double)o->mix * o->mix * log2((double)o->mix * o->mix);
  MPI_Allgather(&mine, 1, MPI_DOUBLE, speed, 1, MPI_DOUBLE, MPI_COMM_WORLD);
  for (int i = 0; i < size; i++) part[i] = i == 0 ? o->mix : 0;
  g->s_mix_alone = o->mix == o->n ? g->s_alone : summa(o, o->mix, part);
  shares(o->mix, speed, part);
  if (rank == 0) printf("| SUMMA at M = %ld: columns by speed:", o->mix);
  for (int i = 0; i < size && rank == 0; i++) printf(" %ld", part[i]);
  if (rank == 0) printf(" |\n");
  g->s_mix = summa(o, o->mix, part);
  for (int i = 0; i < size; i++) part[i] = o->mix / size + (i < o->mix % size);
  g->s_even = summa(o, o->mix, part);
  row("SUMMA GPU alone (M x M)", g->s_mix_alone, sfl, 0);
  row("SUMMA GPU + CPU (M x M)", g->s_mix, sfl, 0);
  row("SUMMA even (M x M)", g->s_even, sfl, 0);
  for (int i = 0; i < size; i++) part[i] = i == 0 ? o->mix : 0;
  g->f_mix_alone = fft2d(o, o->mix, part);
  shares(o->mix, speed, part);
  g->f_mix = fft2d(o, o->mix, part);
  row("2D-FFT GPU alone (M x M)", g->f_mix_alone, fl, 0);
  row("2D-FFT GPU + CPU (M x M, rows by speed)", g->f_mix, fl, 0);
}

static double ratio(double num, double den) { return num > 0 && den > 0 ? num / den : 0; }

static void ratios(const opts *o, const figs *g) {
  if (rank != 0) return;
  double r2 = g->s_alone > 0 && g->ours > 0
                  ? (2.0 * (double)o->n * o->n * o->n / g->s_alone) / (2.0 * (double)o->d * o->n * o->n / g->ours)
                  : 0;
  printf("%sratios: streamed DGEMM / cuBLAS resident %.3f (>= 0.85), SUMMA alone / streamed DGEMM %.3f (>= 0.9), "
         "2D-FFT alone vs cuFFT with transfers %.3f (>= 0.9), GPU + CPU vs GPU alone: SUMMA %.3f, 2D-FFT %.3f (>= 0.98)\n",
         simulated ? "SIMULATED " : "", ratio(g->cublas, g->ours), r2, ratio(g->fftm, g->fft_alone),
         ratio(g->s_mix_alone, g->s_mix), ratio(g->f_mix_alone, g->f_mix));
}

int main(int argc, char **argv) {
  opts o;
  figs g = {-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 55e9};
  int got = 0, rc = parse(argc, argv, &o);
  if (rc) return rc == 1 ? 0 : rc;
  if (fupermod_mpi_init_thread(&argc, &argv, MPI_THREAD_FUNNELED, "bench/gpunode", &got) != FUPERMOD_SUCCESS) {
    fprintf(stderr, "bench/gpunode: %s\n", fupermod_error_message());
    return 1;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  fupermod_exec_opts eo = {rank == 0 ? FUPERMOD_EXEC_CUDA : FUPERMOD_EXEC_CPU, rank == 0 ? 1 : o.threads, o.device, 0};
  rc = fupermod_exec_open(&eo, &ex);
  if (rc != FUPERMOD_SUCCESS) fprintf(stderr, "bench/gpunode: rank %d: %s\n", rank, fupermod_error_message());
  MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (rc != FUPERMOD_SUCCESS) {
    MPI_Finalize();
    return 1;
  }
  simulated = fupermod_time_simulated();
  MPI_Allreduce(MPI_IN_PLACE, &simulated, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  long *part = calloc((size_t)size, sizeof *part);
  double *speed = calloc((size_t)size, sizeof *speed);
  header(&o);
  if (rank == 0) device_alone(&o, &g);
  MPI_Barrier(MPI_COMM_WORLD);
  /* SUMMA N x N on the GPU alone */
  for (int i = 0; i < size; i++) part[i] = i == 0 ? o.n : 0;
  g.s_alone = summa(&o, o.n, part);
  row("SUMMA GPU alone (N x N)", g.s_alone, 2.0 * (double)o.n * o.n * o.n,
      g.cublas > 0 ? g.cublas * (double)o.n / (double)o.d : 0);
  if (size > 1) mixed(&o, &g, part, speed);
  ratios(&o, &g);
  free(part), free(speed);
  fupermod_exec_close(ex);
  MPI_Finalize();
  return 0;
}
