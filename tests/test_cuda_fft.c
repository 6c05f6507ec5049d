/* The CUDA executor's FFTs on the stand-in: how many cuFFT launches the 2D FFT's column phase
 * makes, and cuFFT's 64-bit sizes.
 *
 * The shared-memory strategy of apps/fft2d.c leaves its c columns as c / 4 panels of M x 4
 * interleaved columns, one after another, and transforms them with one fupermod_exec_fft over the
 * panels (blocks). Run as one cuFFT launch per panel, that is c / 4 launches; the executor must
 * make at most a sixteenth of that: at c = 4096 with a payload, exactly and with the stand-in's
 * work in its adversarial order, and at c = 16384, M = 16384 without one (the simulated H100's
 * time said, SIMULATED). Then, without a payload, a 2D FFT of 65536 x 65536 (its column plan has
 * 2^32 elements) and, on a device of 200 GB, 2^19 rows of 65536 points (batches of 2^31
 * elements) go through the executor's 64-bit cuFFT plans. */
#include "config.h"
#ifndef FUPERMOD_HAVE_CUDA
#include "tests/standin_check.h"
STANDIN_SKIP_MAIN
#else
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "fupermod/fupermod.h"
#include "tests/tap.h"
#include "tests/standin_check.h"

#define PANEL 4 /* columns per panel, as apps/fft2d.c */

/* The stand-in cuFFT's count of executions (fupermod_cufft_standin_execs), -1 without it. */
static long launches(void) {
  void *h = dlopen("libcufft.so.12", RTLD_NOW | RTLD_NOLOAD);
  long (*count)(void) = h ? (long (*)(void))dlsym(h, "fupermod_cufft_standin_execs") : NULL;
  long n = count ? count() : -1;
  if (h) dlclose(h);
  return n;
}

/* Host memory never touched (the runs without a payload move nothing). */
static double *reserve(size_t bytes) {
  void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return m == MAP_FAILED ? NULL : m;
}

/* The column phase on panels of M x c: its launches, and its time. */
static int columns(fupermod_exec *e, long M, long c, double *Y, long *nlaunch, double *seconds) {
  fupermod_exec_fft_layout panels = {M, PANEL, PANEL, 1, c / PANEL, M * PANEL};
  long l0 = launches();
  double t0 = fupermod_time();
  int rc = fupermod_exec_fft(e, &panels, Y, -1);
  *seconds = fupermod_time() - t0;
  *nlaunch = launches() - l0;
  return rc;
}

/* Column j of the panels' layout: element r at Y[2 ((j / 4) 4 M + 4 r + j % 4)]. */
static size_t at(long M, long j, long r) { return (size_t)(j / PANEL) * PANEL * M + (size_t)r * PANEL + (size_t)(j % PANEL); }

static void exact_columns(fupermod_exec *e) {
  enum { M = 512, C = 4096 };
  static const long check[] = {0, 1, 3, 4, 1027, 2050, 4095};
  double *X = malloc(16 * (size_t)M * C), *Y = malloc(16 * (size_t)M * C), err = 0, secs;
  uint64_t s = 7;
  long n = -1;
  int rc;
  for (size_t i = 0; i < 2 * (size_t)M * C; i++) X[i] = Y[i] = (double)((s = s * 6364136223846793005ULL + 1) >> 40) / 16777216.0 - 0.5;
  setenv("FAKE_CUDA_ORDER", "adversarial", 1);
  rc = columns(e, M, C, Y, &n, &secs);
  unsetenv("FAKE_CUDA_ORDER");
  /* a few columns against the DFT's definition */
  for (size_t k = 0; k < sizeof check / sizeof check[0]; k++)
    for (long f = 0; f < M; f += 37) {
      double re = 0, im = 0;
      for (long r = 0; r < M; r++) {
        double a = -2 * M_PI * (double)((f * r) % M) / M, *x = X + 2 * at(M, check[k], r);
        re += x[0] * cos(a) - x[1] * sin(a);
        im += x[0] * sin(a) + x[1] * cos(a);
      }
      err = fmax(err, fmax(fabs(Y[2 * at(M, check[k], f)] - re), fabs(Y[2 * at(M, check[k], f) + 1] - im)));
    }
  ok(rc == FUPERMOD_SUCCESS && err < 1e-9, "column phase, M = %d, c = %d, the stand-in's work in adversarial order: "
     "exact (largest error %.1e against the DFT) (%s)", M, C, err, rc ? fupermod_error_message() : "ok");
  ok(n > 0 && n * 16 <= C / PANEL, "and %ld cuFFT launches, at most 1/16 of one a panel (%d)", n, C / PANEL);
  free(X), free(Y);
}

static void large_columns(fupermod_exec *e) {
  const long M = 16384, C = 16384;
  double *Y = reserve(16 * (size_t)M * (size_t)C), secs = 0;
  long n = -1;
  int rc = Y ? fupermod_exec_pin(e, Y, 16 * (size_t)M * (size_t)C) : -1; /* as apps/fft2d.c's panels are */
  if (rc == FUPERMOD_SUCCESS) rc = columns(e, M, C, Y, &n, &secs);
  if (Y) fupermod_exec_unpin(e, Y);
  ok(rc == FUPERMOD_SUCCESS && n > 0 && n * 16 <= C / PANEL,
     "column phase, M = %ld, c = %ld, no payload: %ld cuFFT launches for %ld panels (at most 1/16); %.1f ms SIMULATED on "
     "the simulated H100 (%s)", M, C, n, C / PANEL, 1e3 * secs, rc ? fupermod_error_message() : "ok");
  if (Y) munmap(Y, 16 * (size_t)M * (size_t)C);
}

/* Transforms whose plans exceed INT_MAX elements, on devices large enough, without a payload. */
static void sizes_64(fupermod_exec *e) {
  const long N2 = 65536, R = 1L << 19;
  size_t bytes = 16 * (size_t)N2 * (size_t)R;
  double *Y = reserve(bytes);
  fupermod_exec_opts o = {.kind = FUPERMOD_EXEC_CUDA, .threads = 1, .cuda_device = 1};
  fupermod_exec_stats s0, s1;
  fupermod_exec_fft_layout rows = {N2, R, 1, N2, 1, 0};
  fupermod_exec *big = NULL;
  long l0 = launches();
  int rc = Y ? FUPERMOD_SUCCESS : -1;
  fupermod_exec_get_stats(e, &s0);
  if (rc == FUPERMOD_SUCCESS) rc = fupermod_exec_fft2d(e, N2, N2, Y, -1);
  fupermod_exec_get_stats(e, &s1);
  ok(rc == FUPERMOD_SUCCESS && s1.fallbacks == s0.fallbacks && launches() > l0,
     "a 2D FFT of %ld x %ld on the device in one piece: its column plan of 2^32 elements goes through cuFFT's 64-bit "
     "interface (%s)", N2, N2, rc ? fupermod_error_message() : "ok");
  setenv("FAKE_CUDA_MEM", "200G", 1);
  if ((rc = fupermod_exec_open(&o, &big)) == FUPERMOD_SUCCESS) {
    l0 = launches();
    rc = fupermod_exec_fft(big, &rows, Y, 1);
  }
  ok(rc == FUPERMOD_SUCCESS && launches() - l0 == 16, "%ld rows of %ld points in 200 GB: 16 launches, each of a 64-bit "
     "plan of 2^31 elements (%ld) (%s)", R, N2, launches() - l0, rc ? fupermod_error_message() : "ok");
  fupermod_exec_close(big);
  unsetenv("FAKE_CUDA_MEM");
  if (Y) munmap(Y, bytes);
}

int main(void) {
  char dir[4096], where[4096];
  fupermod_exec_opts o = {.kind = FUPERMOD_EXEC_CUDA, .threads = 1, .cuda_device = 0};
  fupermod_exec *e = NULL;
  int rc;
  setenv("FAKE_CUDA_SIM", "h100", 1);
  unsetenv("FAKE_CUDA_MEM"); /* the simulated H100's 80 GB */
  rc = fupermod_exec_open(&o, &e);
  ok(rc == FUPERMOD_SUCCESS && launches() >= 0, "the executor opens on the simulated H100: %s",
     rc ? fupermod_error_message() : fupermod_exec_describe(e));
  if (rc != FUPERMOD_SUCCESS) return done_testing();
  exact_columns(e);
  setenv("FAKE_CUDA_NOPAYLOAD", "1", 1);
  large_columns(e);
  sizes_64(e);
  unsetenv("FAKE_CUDA_NOPAYLOAD");
  fupermod_exec_close(e);
  standin_build_dir(dir, sizeof dir);
  ok(standin_all(dir, "cudart cufft", where, sizeof where), "the executor ran on the stand-in: %s", where);
  return done_testing();
}
#endif
