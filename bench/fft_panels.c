/* Column-FFT layouts of the 2D-FFT's column phase, one process, in one run: c column FFTs of
 * length M stored (a) contiguously (U, c x M: the reference), (b) strided (T, M x c, stride c),
 * (c) in w-wide panels (M x w blocks one after another, as apps/fft2d's shared strategy stores
 * them), for w = 2, 4, 8, 16. Every layout transforms the same M c numbers.
 *
 *   bench/fft_panels [M [c [measure]]]     (defaults 4096 1024; ESTIMATE plans unless "measure")
 *
 * Prints the best of 5 executions per layout and contiguous / this (> 1: faster than contiguous).
 * Planning is not timed. */
#include <fftw3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fupermod/fupermod.h"

static double best_of(fftw_plan p, fftw_complex *Y, long M, int c, int w) {
  double best = 1e300;
  for (int r = 0; r < 5; r++) {
    double t0 = fupermod_time(), t;
    if (w == 0) fftw_execute(p);
    else
      for (long j = 0; j < c; j += w) fftw_execute_dft(p, Y + j * M, Y + j * M);
    t = fupermod_time() - t0;
    if (t < best) best = t;
  }
  return best;
}

int main(int argc, char **argv) {
  long M = argc > 1 ? atol(argv[1]) : 4096;
  int c = argc > 2 ? atoi(argv[2]) : 1024, n = (int)M, widths[] = {2, 4, 8, 16};
  unsigned flags = argc > 3 && !strcmp(argv[3], "measure") ? FFTW_MEASURE : FFTW_ESTIMATE;
  fftw_complex *Y;
  fftw_plan p;
  double ref, t;
  if (M < 2 || M > 1 << 26 || c < 16 || c % 16) {
    fprintf(stderr, "bench/fft_panels: M must be 2..2^26 and c a positive multiple of 16\n");
    return 2;
  }
  if (!(Y = fftw_alloc_complex((size_t)M * (size_t)c))) return 1;
  memset(Y, 0, sizeof(fftw_complex) * (size_t)M * (size_t)c);
  printf("# bench/fft_panels: M=%ld c=%d planner=%s; best of 5; ratio = contiguous / this\n", M, c,
         flags == FFTW_MEASURE ? "measure" : "estimate");
  printf("%-12s %10s %8s\n", "layout", "best_s", "ratio");
  p = fftw_plan_many_dft(1, &n, c, Y, NULL, 1, n, Y, NULL, 1, n, FFTW_FORWARD, flags);
  ref = best_of(p, Y, M, c, 0);
  fftw_destroy_plan(p);
  printf("%-12s %10.5f %8.3f\n", "contiguous", ref, 1.0);
  p = fftw_plan_many_dft(1, &n, c, Y, NULL, c, 1, Y, NULL, c, 1, FFTW_FORWARD, flags);
  t = best_of(p, Y, M, c, 0);
  fftw_destroy_plan(p);
  printf("%-12s %10.5f %8.3f\n", "strided", t, ref / t);
  for (size_t k = 0; k < sizeof widths / sizeof widths[0]; k++) {
    int w = widths[k];
    char name[16];
    p = fftw_plan_many_dft(1, &n, w, Y, NULL, w, 1, Y, NULL, w, 1, FFTW_FORWARD, flags);
    t = best_of(p, Y, M, c, w);
    fftw_destroy_plan(p);
    snprintf(name, sizeof name, "panels w=%d", w);
    printf("%-12s %10.5f %8.3f\n", name, t, ref / t);
  }
  fftw_free(Y);
  return 0;
}
