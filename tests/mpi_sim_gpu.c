/* SUMMA on one simulated H100 ($FAKE_CUDA_SIM=h100, no payload) through fupermod's CUDA executor,
 * as `fupermod run` calls it: A, B and C page-locked once, one untimed product, then a timed one.
 * n = 16384, b = 1024: the GPU alone must reach 80 % of its bound, the larger of its GEMM time at
 * the measured rate of the update's shape (55.6 TFLOP/s for 16384 x 16384 x 1024) and its transfer
 * time (A and B up, C down, at 55 GB/s each way). Then the 2D-FFT n = 16384 on the GPU alone
 * must reach 85 % of its transfer bound. Every time here is SIMULATED. */
#include "config.h"
#ifndef FUPERMOD_HAVE_CUDA
#include "tests/standin_check.h"
STANDIN_SKIP_MAIN
#else
#include <stdio.h>
#include <stdlib.h>
#include <mpi.h>
#include <cuda_runtime.h>
#include "apps/summa.h"
#include "fupermod/fupermod.h"
#include "fupermod/mpi_thread.h"
#include "tests/standin_check.h"
#include "apps/fft2d.h"
#include "tests/tap.h"

int main(int argc, char **argv) {
  char dir[4096], where[4096];
  const int n = 16384, b = 1024;
  const size_t bytes = (size_t)n * n * sizeof(double);
  fupermod_exec_opts o = {.kind = FUPERMOD_EXEC_CUDA, .threads = 1, .cuda_device = 0, .mem_limit = 0};
  fupermod_exec *e = NULL;
  fupermod_exec_stats st0, st1;
  double *A, *B, *C, t = 0, gemm = 2.0 * n * (double)n * n / 55.6e12, xfer = 2.0 * (double)bytes / 55e9, bound;
  int rc, row0 = 0, col0 = 0, rows = n, cols = n;
  standin_simulate("h100"); /* times only: nothing is computed or copied */
  int got = 0;
  if (fupermod_mpi_init_thread(&argc, &argv, MPI_THREAD_FUNNELED, "mpi_sim_gpu", &got) != FUPERMOD_SUCCESS) {
    fprintf(stderr, "mpi_sim_gpu: %s\n", fupermod_error_message());
    return 1;
  }
  /* linked to the stand-in, not only reached through the executor module: fupermod_time finds
   * its virtual clock */
  int count = 0;
  cudaGetDeviceCount(&count);
  rc = fupermod_exec_open(&o, &e);
  ok(rc == FUPERMOD_SUCCESS, "the CUDA executor opens on the simulated H100 (%s)",
     e ? fupermod_exec_describe(e) : fupermod_error_message());
  A = malloc(bytes), B = malloc(bytes), C = malloc(bytes);
  if (rc || !A || !B || !C) {
    MPI_Finalize();
    return done_testing();
  }
  /* as fupermod run: the matrices page-locked before the products */
  rc = fupermod_exec_pin(e, A, bytes);
  if (!rc) rc = fupermod_exec_pin(e, B, bytes);
  if (!rc) rc = fupermod_exec_pin(e, C, bytes);
  /* the first product pins the panels once; the second is timed */
  for (int rep = 0; rep < 2 && !rc; rep++) {
    double t0;
    fupermod_exec_get_stats(e, &st0);
    t0 = fupermod_time();
    rc = fupermod_summa_dgemm_extents(MPI_COMM_SELF, &row0, &rows, &col0, &cols, n, b, A, B, C, 0, e, NULL);
    t = fupermod_time() - t0;
    fupermod_exec_get_stats(e, &st1);
  }
  bound = gemm > xfer ? gemm : xfer;
  standin_build_dir(dir, sizeof dir);
  ok(standin_all(dir, "cudart cublas", where, sizeof where), "the CUDA is the stand-in: %s", where);
  ok(rc == FUPERMOD_SUCCESS, "SUMMA n = %d, b = %d on the GPU alone: %.1f ms SIMULATED (%s)", n, b, t * 1e3,
     rc ? fupermod_error_message() : "ok");
  diag("SIMULATED H100: SUMMA n = %d, b = %d, GPU alone %.1f ms = %.1f TFLOP/s; bound %.1f ms (GEMM %.1f, transfers %.1f): "
       "%.1f %% of it", n, b, t * 1e3, 2.0 * n * (double)n * n / t * 1e-12, bound * 1e3, gemm * 1e3, xfer * 1e3,
       100.0 * bound / t);
  ok(rc == FUPERMOD_SUCCESS && t >= bound * 0.999 && bound / t >= 0.80, "it reaches %.1f %% of its bound (at least 80 %%)",
     100.0 * bound / t);
  ok(st1.pin_s == st0.pin_s, "the timed product page-locks nothing (%.3f s of pinning before, none in it)", st0.pin_s);
  fupermod_exec_unpin(e, A), fupermod_exec_unpin(e, B), fupermod_exec_unpin(e, C);
  free(A), free(B), free(C);
  /* the 2D-FFT n = 16384 on the GPU alone: its bound is the array's way up and back (every
   * output needs every input, so the two cannot overlap), 2 x 4.3 GB at 55 GB/s */
  {
    fupermod_dist *rd = fupermod_dist_alloc(n, 1), *cd = fupermod_dist_alloc(n, 1);
    fupermod_fft2d *plan = NULL;
    double fbound = 2.0 * 16.0 * n * (double)n / 55e9, tf = 0;
    rd->parts[0].d = cd->parts[0].d = n;
    rc = fupermod_fft2d_plan_exec(MPI_COMM_SELF, n, n, rd, cd, e, 1U << 6 /* FFTW_ESTIMATE */, FUPERMOD_FFT2D_SHARED,
                                  &plan);
    if (!rc) rc = fupermod_exec_pin(e, fupermod_fft2d_local(plan), 2 * bytes);
    for (int rep = 0; rep < 2 && !rc; rep++) { /* the first makes the plans */
      double t0 = fupermod_time();
      rc = fupermod_fft2d_execute(plan, FUPERMOD_FFT2D_FORWARD, NULL);
      tf = fupermod_time() - t0;
    }
    diag("SIMULATED H100: 2D-FFT n = %d, GPU alone %.1f ms; bound %.1f ms (the array up and down): %.1f %% of it", n,
         tf * 1e3, fbound * 1e3, 100.0 * fbound / tf);
    ok(rc == FUPERMOD_SUCCESS && tf >= fbound * 0.999 && fbound / tf >= 0.85,
       "the 2D-FFT n = %d on the GPU alone: %.1f ms SIMULATED, %.1f %% of its transfer bound (at least 85 %%)%s%s", n,
       tf * 1e3, 100.0 * fbound / tf, rc ? ": " : "", rc ? fupermod_error_message() : "");
    if (plan) fupermod_exec_unpin(e, fupermod_fft2d_local(plan));
    fupermod_fft2d_destroy(plan);
    fupermod_dist_free(rd), fupermod_dist_free(cd);
  }
  fupermod_exec_close(e);
  MPI_Finalize();
  return done_testing();
}
#endif
