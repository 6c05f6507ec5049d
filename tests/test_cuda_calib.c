/* The simulated H100 ($FAKE_CUDA_SIM=h100) against the H100's measured figures
 * (../shared/device/README.md, docs/performance.md "One GPU node"), through fupermod's own CUDA
 * executor as the applications use it. The description (tests/fake_cuda/devices/h100.conf) holds
 * the parts: rates of GEMM shapes, bandwidths, first use, pinning. This test checks that whole
 * operations put together from them come out as measured: the executor's first use, pinning 4.3
 * GB, a resident GEMM at a shape between the listed ones, and one row phase of the 2D-FFT with its
 * pinned transfers, one after the other on one stream (116 GFLOP/s measured). It prints the
 * calibration table of docs/kernels.md. The executor's overlapped operations (the row phase, the
 * SUMMA update, the streamed DGEMM) are judged against bounds derived from the description's
 * link (link_of, below): the least time the link and the compute engine need for the transfers
 * the operation must make, which no schedule can beat. */
#include "config.h"
#ifndef FUPERMOD_HAVE_CUDA
#include "tests/standin_check.h"
STANDIN_SKIP_MAIN
#else
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <cufft.h>
#include "fupermod/fupermod.h"
#include "tests/tap.h"
#include "tests/standin_check.h"

#define N16 16384L
/* The host's real time between calls counts on the virtual clock: a loaded machine can add tens
 * of ms to a host-side span; the device-side rows are read with the device's own events. */
#define SLACK 0.1

/* within rel of want */
static int within(double got, double want, double rel) { return fabs(got - want) <= rel * want; }

static void row(const char *what, double sim, double ref, const char *unit) {
  diag("| %s | %.4g %s | %.4g %s | %+.1f %% |", what, sim, unit, ref, unit, 100.0 * (sim - ref) / ref);
}

/* The link of the simulated device, as the stand-in read it from its description
 * (fupermod_standin_sim_param; docs/kernels.md, "A simulated GPU"): the pinned bandwidths each
 * way, duplex (while both directions move data, the link carries 2 duplex times one direction's
 * bandwidth in all), and a 2D copy's cost per row and the fraction of the bandwidth its bytes
 * move at; beside it the compute engine's FFT rate and cost per launch. The bounds below come
 * from these, so that they follow the description. */
typedef struct {
  double up, down, duplex, row, eff, fft, fft_launch;
} link_model;

static int link_of(link_model *l) {
  int (*param)(const char *, double *);
  *(void **)&param = dlsym(RTLD_DEFAULT, "fupermod_standin_sim_param");
  return param && !param("h2d_pinned", &l->up) && !param("d2h_pinned", &l->down) && !param("duplex", &l->duplex) &&
         !param("pitched_row", &l->row) && !param("pitched_eff", &l->eff) && !param("fft", &l->fft) &&
         !param("fft_launch", &l->fft_launch);
}

/* Seconds of one pinned copy of bytes alone on the link, as rows rows of a 2D copy (rows 1: one
 * piece). Data contiguous in host memory can always move as one piece, so the bounds take that. */
static double copy_s(const link_model *l, int up, double bytes, double rows) {
  return rows > 1 ? bytes / ((up ? l->up : l->down) * l->eff) + rows * l->row : bytes / (up ? l->up : l->down);
}

/* The least time in which the link moves what takes up_s seconds up and down_s seconds down, each
 * alone: neither direction faster than alone, and both together no faster than the link's total,
 * 2 duplex times one direction's rate. (The simulator gives the copy queued first its full rate
 * and the other 2 duplex - 1 of its own, so a schedule that cannot keep both directions busy at
 * once takes longer; no schedule takes less.) */
static double link_s(const link_model *l, double up_s, double down_s) {
  return fmax(fmax(up_s, down_s), (up_s + down_s) / (2 * l->duplex));
}

int main(void) {
  char dir[4096], where[4096];
  fupermod_exec_opts o = {.kind = FUPERMOD_EXEC_CUDA, .threads = 1, .cuda_device = 0, .mem_limit = 0};
  fupermod_exec *e = NULL;
  fupermod_exec_stats st;
  link_model lk = {0, 0, 0, 0, 0, 0, 0};
  double t0, t, *host, *C, *A, *B;
  (void)st;
  const size_t big = (size_t)N16 * N16 * 16; /* 16384 x 16384 complex doubles: 4.3 GB */
  standin_simulate("h100"); /* times only: nothing is computed or copied */
  standin_build_dir(dir, sizeof dir);
  ok(standin_all(dir, "cudart cublas", where, sizeof where), "the CUDA is the stand-in: %s", where);
  int have_link = link_of(&lk);
  ok(have_link && lk.up > 0 && lk.down > 0 && lk.duplex >= 0.5 && lk.eff > 0 && lk.fft > 0,
     "the simulated device's link: %.4g and %.4g GB/s pinned, duplex %g, 2D copies at %g of it and %g s a row",
     lk.up * 1e-9, lk.down * 1e-9, lk.duplex, lk.eff, lk.row);
  diag("| operation (simulated H100) | simulated | measured on the H100 | difference |");
  diag("|---|---|---|---|");

  /* first use: the executor opens the device (context, cuBLAS handle) */
  t0 = fupermod_time();
  {
    int rc = fupermod_exec_open(&o, &e);
    ok(rc == FUPERMOD_SUCCESS, "the CUDA executor opens on the simulated H100 (%s)",
       e ? fupermod_exec_describe(e) : fupermod_error_message());
  }
  if (!e) return done_testing();
  t = fupermod_time() - t0;
  fupermod_exec_get_stats(e, &st);
  row("first use (context and cuBLAS handle)", t, 0.14, "s");
  ok(t >= 0.14 && t <= 0.14 + SLACK, "first use: %.3f s, measured 0.14 s", t);

  /* page-locking 4.3 GB: never touched, no payload */
  host = malloc(big);
  t0 = fupermod_time();
  ok(host && fupermod_exec_pin(e, host, big) == FUPERMOD_SUCCESS, "4.3 GB of host memory page-locked");
  t = fupermod_time() - t0;
  row("cudaHostRegister of 4.3 GB", t, 0.50, "s");
  ok(t >= 0.49 && t <= 0.50 + SLACK, "pinning 4.3 GB: %.3f s, measured 0.50 s", t);

  /* one row phase of the 2D-FFT, n = 16384, as it was measured on the H100: upload, cuFFT and
   * download one after the other on one stream, from pinned memory */
  {
    double flops = 5.0 * N16 * log2((double)N16) * N16, gf;
    cufftHandle h = 0;
    cudaStream_t s = NULL;
    double *d = NULL;
    int good = cudaMalloc((void **)&d, big) == cudaSuccess && cudaStreamCreate(&s) == cudaSuccess &&
               cufftPlan1d(&h, (int)N16, CUFFT_Z2Z, (int)N16) == CUFFT_SUCCESS && cufftSetStream(h, s) == CUFFT_SUCCESS;
    t0 = fupermod_time();
    good = good && cudaMemcpyAsync(d, host, big, cudaMemcpyHostToDevice, s) == cudaSuccess &&
           cufftExecZ2Z(h, (cufftDoubleComplex *)d, (cufftDoubleComplex *)d, CUFFT_FORWARD) == CUFFT_SUCCESS &&
           cudaMemcpyAsync(host, d, big, cudaMemcpyDeviceToHost, s) == cudaSuccess && cudaStreamSynchronize(s) == cudaSuccess;
    t = fupermod_time() - t0;
    gf = flops / t * 1e-9;
    row("one row phase of the 2D-FFT, n = 16384, pinned transfers, one stream (GFLOP/s)", gf, 116, "GFLOP/s");
    ok(good && within(gf, 116, 0.10), "row phase with its transfers, one stream: %.1f GFLOP/s (%.3f s), measured 116", gf, t);
    if (h) cufftDestroy(h);
    if (s) cudaStreamDestroy(s);
    cudaFree(d);
  }
  /* the same through the executor, which overlaps the batches' uploads, transforms and downloads.
   * Its bound: the array (contiguous rows) up and down, at least as long as each direction alone
   * and as both sharing the link (link_s), or the transforms on the compute engine (one launch at
   * least), whichever is longer. With duplex below 1 the link, not the upload, bounds it */
  {
    fupermod_exec_fft_layout l = {N16, N16, 1, N16, 1, 0};
    double up = copy_s(&lk, 1, (double)big, 1), down = copy_s(&lk, 0, (double)big, 1);
    double fft = lk.fft_launch + 5.0 * N16 * log2((double)N16) * N16 / lk.fft, bound = fmax(link_s(&lk, up, down), fft);
    int rc = fupermod_exec_fft(e, &l, host, -1); /* the plans, made once per layout */
    t0 = fupermod_time();
    rc = rc ? rc : fupermod_exec_fft(e, &l, host, -1);
    t = fupermod_time() - t0;
    diag("| one row phase through the executor (batches overlapped) | %.4g s | bound %.4g s (the link: up %.4g s, down "
         "%.4g s, both %.4g s; transforms %.4g s) | %.1f %% of it |", t, bound, up, down, (up + down) / (2 * lk.duplex), fft,
         100 * bound / t);
    ok(rc == FUPERMOD_SUCCESS && bound / t >= 0.85 && t >= bound * 0.999,
       "the executor's row phase: %.3f s, %.1f %% of its bound (%.3f s; at least 85 %%)", t, 100 * bound / t, bound);
  }
  fupermod_exec_unpin(e, host);
  free(host);

  /* a resident GEMM at a shape between the listed ones: cuBLAS directly, timed by events */
  {
    cublasHandle_t h;
    cudaEvent_t a, b;
    double *d, one = 1, zero = 0;
    float ms = 0;
    const int n = 12288;
    double tf, lo = 59.5e12, hi = 64.7e12;
    cublasCreate(&h);
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    if (cudaMalloc((void **)&d, (size_t)n * n * sizeof *d) == cudaSuccess) {
      cudaEventRecord(a, 0);
      cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, d, n, d, n, &zero, d, n);
      cudaEventRecord(b, 0);
      cudaEventSynchronize(b);
      cudaEventElapsedTime(&ms, a, b);
      cudaFree(d);
    }
    tf = 2.0 * n * n * (double)n / (ms * 1e-3);
    diag("| cublasDgemm resident, n = 12288 (between the measured 8192 and 16384) | %.4g TFLOP/s | 59.5-64.7 TFLOP/s | |",
         tf * 1e-12);
    ok(tf > lo && tf < hi, "a resident GEMM of n = 12288 runs between the measured rates of 16384 and 8192: %.1f TFLOP/s",
       tf * 1e-12);
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    cublasDestroy(h);
  }

  /* the SUMMA update through the executor: C resident, panels of k = 1024 from pinned memory
   * (contiguous: A m x k, B k x m), the GEMM at the description's measured rate of its shape */
  {
    const long m = N16, k = 1024;
    const double up = copy_s(&lk, 1, 2.0 * m * k * 8, 1), gemm = 2.0 * m * m * k / 55.6e12;
    double per, tf;
    int rc;
    C = malloc((size_t)m * m * sizeof *C);
    A = malloc((size_t)m * k * sizeof *A);
    B = malloc((size_t)m * k * sizeof *B);
    rc = C && A && B ? FUPERMOD_SUCCESS : FUPERMOD_ERR_NOMEM;
    if (!rc) rc = fupermod_exec_pin(e, A, (size_t)m * k * sizeof *A);
    if (!rc) rc = fupermod_exec_pin(e, B, (size_t)m * k * sizeof *B);
    /* sessions of 1 and of 9 updates: the difference is 8 updates, without the session's start
     * and the download of C at its end */
    double ts[2];
    for (int r = 0; r < 2 && !rc; r++) {
      t0 = fupermod_time();
      rc = fupermod_exec_gemm_begin(e, C, m, m, m, k, 1);
      for (int i = 0; i < (r ? 9 : 1) && !rc; i++) rc = fupermod_exec_gemm_update(e, 0, k, A, m, B, k);
      if (!rc) rc = fupermod_exec_gemm_end(e);
      ts[r] = fupermod_time() - t0;
    }
    per = rc ? 0 : (ts[1] - ts[0]) / 8;
    tf = 2.0 * m * m * k / per;
    diag("| SUMMA update through the executor, m = n = 16384, k = 1024, panels uploaded | %.4g TFLOP/s | 55.6 TFLOP/s resident "
         "(bounds here: %.4g serial, %.4g overlapped) | |", tf * 1e-12, 2.0 * m * m * k / (up + gemm) * 1e-12,
         2.0 * m * m * k / gemm * 1e-12);
    ok(rc == FUPERMOD_SUCCESS && per >= gemm * 0.99 && per <= gemm * 1.03 + SLACK / 8,
       "an update takes %.2f ms: the GEMM's time (%.2f ms), its panels' upload hidden behind the GEMM before it "
       "(not GEMM + panels, %.2f ms)", per * 1e3, gemm * 1e3, (up + gemm) * 1e3);
    fupermod_exec_unpin(e, A);
    fupermod_exec_unpin(e, B);
    free(A);
    free(B);
    free(C);
  }
  /* the streamed DGEMM (fupermod_exec_dgemm), host-resident: C_i = A_i B + C_i with d rows of
   * n = 16384 (the dgemm-ooc kernel's product), against its bound: the larger of the resident GEMM
   * of the whole product (the compute engine's least time: cuBLAS on the device, timed by events)
   * and the link's least time for what must cross it, A, B and C up and C down (link_s; every
   * one contiguous in host memory, so one piece each at best). At d = 65536 the reference is the
   * resident GEMM alone, issue 52's target on a device (the streamed DGEMM at least 85 % of
   * cuBLAS resident); the link's time is below it there */
  for (int r = 0; r < 2; r++) {
    const long d = r ? 65536 : N16, n = N16;
    const double need = 0.85;
    double *Ah = malloc((size_t)d * n * 8), *Bh = malloc((size_t)n * n * 8), *Ch = malloc((size_t)d * n * 8);
    double gemm_s = 0, up_s = copy_s(&lk, 1, 8.0 * (2.0 * d * n + (double)n * n), 1), down_s = copy_s(&lk, 0, 8.0 * d * n, 1);
    double link = link_s(&lk, up_s, down_s), bound;
    fupermod_exec_dgemm_info info;
    int rc = Ah && Bh && Ch ? FUPERMOD_SUCCESS : FUPERMOD_ERR_NOMEM;
    {
      cublasHandle_t h;
      cudaEvent_t a, b;
      double *dA = NULL, *dB = NULL, *dC = NULL, one = 1;
      float ms = 0;
      cublasCreate(&h);
      cudaEventCreate(&a);
      cudaEventCreate(&b);
      if (cudaMalloc((void **)&dA, (size_t)d * n * 8) == cudaSuccess && cudaMalloc((void **)&dB, (size_t)n * n * 8) == cudaSuccess &&
          cudaMalloc((void **)&dC, (size_t)d * n * 8) == cudaSuccess) {
        cudaEventRecord(a, 0);
        cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, (int)d, (int)n, (int)n, &one, dA, (int)d, dB, (int)n, &one, dC, (int)d);
        cudaEventRecord(b, 0);
        cudaEventSynchronize(b);
        cudaEventElapsedTime(&ms, a, b);
      }
      cudaFree(dA), cudaFree(dB), cudaFree(dC);
      cudaEventDestroy(a), cudaEventDestroy(b);
      cublasDestroy(h);
      gemm_s = ms * 1e-3;
    }
    bound = r ? gemm_s : fmax(gemm_s, link);
    if (!rc) rc = fupermod_exec_pin(e, Ah, (size_t)d * n * 8);
    if (!rc) rc = fupermod_exec_pin(e, Bh, (size_t)n * n * 8);
    if (!rc) rc = fupermod_exec_pin(e, Ch, (size_t)d * n * 8);
    if (!rc) rc = fupermod_exec_dgemm(e, 0, d, n, n, 1.0, Ah, d, Bh, n, 1.0, Ch, d, &info); /* first: buffers */
    /* the better of two: the host's real time between calls counts, and a loaded host adds to it */
    t = INFINITY;
    for (int k = 0; k < 2 && !rc; k++) {
      double tk;
      t0 = fupermod_time();
      rc = fupermod_exec_dgemm(e, 0, d, n, n, 1.0, Ah, d, Bh, n, 1.0, Ch, d, &info);
      tk = fupermod_time() - t0;
      if (tk < t) t = tk;
    }
    diag("| streamed DGEMM host-resident, d = %ld, n = 16384 (%ld x %ld tiles) | %.4g TFLOP/s | %s %.4g s (resident GEMM "
         "%.4g s; the link %.4g s: up %.4g s, down %.4g s) | %.1f %% of it |", d, info.row_tiles, info.col_tiles,
         2.0 * d * n * n / t * 1e-12, r ? "resident cuBLAS" : "bound", bound, gemm_s, link, up_s, down_s, 100 * bound / t);
    ok(rc == FUPERMOD_SUCCESS && info.in_card && bound / t >= need && t >= fmax(gemm_s, link) * 0.999,
       "the streamed DGEMM, d = %ld, n = 16384, from host memory: %.1f ms, %.1f %% of %s (%.1f ms; at least %.0f %%)", d,
       t * 1e3, 100 * bound / t, r ? "the resident cuBLAS" : "its bound", bound * 1e3, need * 100);
    fupermod_exec_unpin(e, Ah), fupermod_exec_unpin(e, Bh), fupermod_exec_unpin(e, Ch);
    free(Ah), free(Bh), free(Ch);
  }
  /* the dgemm-cuda rows of docs/performance.md were measured (b = 1024) with the kernel's own
   * cuBLAS code of then: per run, the host copies the pivot panels out of A and B (pinned), uploads
   * them (and C, unless resident) with cudaMemcpy, runs one cublasDgemm and downloads C (or
   * synchronises). The same sequence here; the host copies take this machine's real time, and are
   * taken out and put back at the H100 node's host's pace. */
  {
    static const long ds[3] = {64, 256, 1024};
    static const double moved[3] = {2.7, 3.8, 5.0}, held[3] = {4.8, 9.4, 16.4};
    const long b = 1024;
    cublasHandle_t h;
    cublasCreate(&h);
    for (int res = 0; res < 2; res++)
      for (int i = 0; i < 3; i++) {
        long m = (long)sqrt((double)ds[i]);
        size_t rows = (size_t)(m * b), cols = rows, elems = rows * cols;
        double *Ah = malloc(elems * 8), *Bh = malloc(elems * 8), *Ch = malloc(elems * 8), *Ab = NULL, *Bb = NULL;
        double *dA = NULL, *dB = NULL, *dC = NULL, one = 1, tf, host = 0;
        int good = Ah && Bh && Ch && cudaHostRegister(Ah, elems * 8, 0) == cudaSuccess &&
                   cudaHostRegister(Bh, elems * 8, 0) == cudaSuccess && cudaHostRegister(Ch, elems * 8, 0) == cudaSuccess &&
                   cudaMallocHost((void **)&Ab, rows * b * 8) == cudaSuccess &&
                   cudaMallocHost((void **)&Bb, b * cols * 8) == cudaSuccess &&
                   cudaMalloc((void **)&dA, rows * b * 8) == cudaSuccess && cudaMalloc((void **)&dB, b * cols * 8) == cudaSuccess &&
                   cudaMalloc((void **)&dC, elems * 8) == cudaSuccess;
        const int runs = 3;
        for (int r = -1; r < runs && good; r++) { /* one warm-up, which touches the pivot's memory */
          size_t p = 0;
          double t1, t2;
          t0 = fupermod_time();
          for (size_t k = 0; k < rows; k++) memcpy(Ab + k * b, Ah + k * cols + p * b, b * 8);
          memcpy(Bb, Bh + p * b * cols, b * cols * 8);
          t1 = fupermod_time();
          good = cudaMemcpy(dA, Ab, rows * b * 8, cudaMemcpyHostToDevice) == cudaSuccess &&
                 cudaMemcpy(dB, Bb, b * cols * 8, cudaMemcpyHostToDevice) == cudaSuccess &&
                 (res || cudaMemcpy(dC, Ch, elems * 8, cudaMemcpyHostToDevice) == cudaSuccess) &&
                 cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, (int)cols, (int)rows, (int)b, &one, dB, (int)cols, dA, (int)b, &one, dC,
                             (int)cols) == CUBLAS_STATUS_SUCCESS &&
                 (res ? cudaDeviceSynchronize() : cudaMemcpy(Ch, dC, elems * 8, cudaMemcpyDeviceToHost)) == cudaSuccess;
          t2 = fupermod_time();
          if (r == 0) t = 0;
          if (r >= 0) t += t2 - t0, host += t1 - t0;
        }
        /* the device's part is simulated; the host's copies are this machine's. The H100 node's
         * host core copied the panels at about 6 GB/s (fitted to these six rows): with that */
        {
          double flop = 2.0 * (double)rows * (double)cols * (double)b, dev = (t - host) / runs;
          double node = dev + 8.0 * (double)(rows * b + b * cols) / 6e9, want = res ? held[i] : moved[i];
          tf = good ? flop / (t / runs) * 1e-12 : 0;
          diag("| dgemm-cuda of then, C %s, d = %ld: %.2f ms a run, of which the host's copies %.2f ms here | %.3g TFLOP/s; with "
               "the node's host: %.3g TFLOP/s | %.3g TFLOP/s | %+.1f %% |", res ? "held" : "moved", ds[i], t / runs * 1e3,
               host / runs * 1e3, tf, flop / node * 1e-12, want, 100.0 * (flop / node * 1e-12 - want) / want);
          ok(good && within(flop / node * 1e-12, want, 0.15),
             "dgemm-cuda's sequence of then, d = %ld, C %s: the simulated device with the node's host copies gives %.2f "
             "TFLOP/s, measured %.1f (within 15 %%)", ds[i], res ? "held" : "moved", flop / node * 1e-12, want);
        }
        cudaFree(dA), cudaFree(dB), cudaFree(dC), cudaFreeHost(Ab), cudaFreeHost(Bb);
        if (Ah) cudaHostUnregister(Ah);
        if (Bh) cudaHostUnregister(Bh);
        if (Ch) cudaHostUnregister(Ch);
        free(Ah), free(Bh), free(Ch);
      }
    cublasDestroy(h);
  }
  fupermod_exec_close(e);
  return done_testing();
}
#endif
