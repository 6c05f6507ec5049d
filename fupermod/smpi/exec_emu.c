/* The emulated device of the SMPI build (docs/simulate.md). A configuration line's emulate=FILE
 * makes its process's executor take, for every GEMM and FFT it is given, the simulated time that
 * the point file gives for the operation's flops (d = flops / emulate_unit, the times interpolated
 * linearly between the file's sizes and proportional beyond its ends, as the emulated kernel's);
 * emulate=platform, as a line without emulate=, makes it execute the flops on its simulated host
 * at the platform's speed (smpi_execute_flops). Either way nothing is computed: the matrices and
 * signals keep what they held, and fupermod run does not check the products
 * (fupermod_time_simulated() is 2 in this build). The process is still the one device object of fupermod/exec.h: kernels, the benchmark
 * and the applications call it as they call a CPU, so the models it yields are its point file,
 * seen through the applications' own operations. Compiled only with smpicc (configure
 * --with-smpi), where nanosleep is SimGrid's simulated sleep (smpi_helpers.h). */
#include <math.h>
#include <smpi/smpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "fupermod/point.h"
#include "fupermod/smpi/exec_emu.h"

typedef struct {
  fupermod_points pts; /* points mode; count 0: the platform's speed */
  double unit;         /* flops of one unit of d */
  double m, n;         /* the GEMM session's C */
} emu;

static int emu_open(const fupermod_exec_opts *o, void **impl, char *describe, size_t dsize, char *pci, size_t psize) {
  emu *e = calloc(1, sizeof *e);
  int rc;
  if (!e) return fupermod_error(FUPERMOD_ERR_NOMEM, "emulated device: out of memory");
  e->unit = o->emulate_unit > 0 ? o->emulate_unit : FUPERMOD_EXEC_EMU_UNIT;
  if (!o->emulate[0] || strcmp(o->emulate, "platform") == 0)
    snprintf(describe, dsize, "emulated: the simulated host's flop rate (SMPI, computes nothing)");
  else if ((rc = fupermod_points_load(o->emulate, &e->pts)) != FUPERMOD_SUCCESS) {
    free(e);
    return fupermod_error_prefix(rc, "emulate=%s", o->emulate);
  } else if (e->pts.count < 1 || !(e->pts.pts[0].d > 0)) {
    fupermod_points_free(&e->pts);
    free(e);
    return fupermod_error(FUPERMOD_ERR_INPUT, "emulate=%s: no point with d > 0", o->emulate);
  } else
    snprintf(describe, dsize, "emulated: %s, d in units of %g flop (SMPI, computes nothing)", o->emulate, e->unit);
  if (psize) pci[0] = '\0';
  *impl = e;
  return FUPERMOD_SUCCESS;
}

static void emu_close(void *impl) {
  emu *e = impl;
  if (!e) return;
  fupermod_points_free(&e->pts);
  free(e);
}

/* The point file's time at x units: linear between its sizes, proportional beyond its ends. */
static double points_time(const fupermod_points *f, double x) {
  const fupermod_point *a = f->pts, *b = f->pts + f->count - 1;
  if (x <= (double)a->d) return a->t * x / (double)a->d;
  if (x >= (double)b->d) return b->t * x / (double)b->d;
  while (a + 1 < b && (double)a[1].d <= x) a++;
  b = a + 1;
  return a->t + (b->t - a->t) * (x - (double)a->d) / (double)(b->d - a->d);
}

/* Take the simulated time of flops on this process's device. */
static int take(emu *e, double flops) {
  if (!(flops > 0)) return FUPERMOD_SUCCESS;
  if (e->pts.count == 0) {
    smpi_execute_flops(flops);
  } else {
    double t = points_time(&e->pts, flops / e->unit);
    struct timespec ts = {(time_t)t, (long)((t - floor(t)) * 1e9)};
    if (!(t >= 0) || !isfinite(t)) return fupermod_error(FUPERMOD_ERR_INPUT, "emulated device: time %g for %g flop", t, flops);
    nanosleep(&ts, NULL);
  }
  return FUPERMOD_SUCCESS;
}

static int emu_pin(void *impl, void *ptr, size_t bytes) { return FUPERMOD_SUCCESS; }
static int emu_unpin(void *impl, void *ptr) { return FUPERMOD_SUCCESS; }

static int emu_gemm_begin(void *impl, double *C, long m, long n, long ldc, long kmax, int zero) {
  emu *e = impl;
  e->m = (double)m, e->n = (double)n;
  return FUPERMOD_SUCCESS;
}

static int emu_gemm_update(void *impl, int trans, long k, const double *A, long lda, const double *B, long ldb) {
  emu *e = impl;
  return take(e, 2.0 * e->m * e->n * (double)k);
}

static int emu_gemm_end(void *impl) {
  emu *e = impl;
  e->m = e->n = 0;
  return FUPERMOD_SUCCESS;
}

static int emu_dgemm(void *impl, int flags, long M, long N, long K, double alpha, const double *A, long lda,
                     const double *B, long ldb, double beta, double *C, long ldc, fupermod_exec_dgemm_info *info) {
  if (info) *info = (fupermod_exec_dgemm_info){1, 1, M, N, K, 0.0, 1};
  return take(impl, 2.0 * (double)M * (double)N * (double)K);
}

/* 5 n log2 n flops per transform of n points, as FFTW's and fupermod's FFT kernels count them */
static int emu_fft(void *impl, const fupermod_exec_fft_layout *l, double *data, int sign) {
  double n = (double)l->n;
  return take(impl, n > 1 ? 5.0 * n * log2(n) * (double)l->howmany * (double)l->blocks : 0.0);
}

static void emu_stats(void *impl, fupermod_exec_stats *s) { memset(s, 0, sizeof *s); }

const fupermod_exec_ops fupermod_exec_emu_ops = {FUPERMOD_EXEC_MODULE_API, emu_open, emu_close, emu_pin, emu_unpin,
                                                 emu_gemm_begin, emu_gemm_update, emu_gemm_end, emu_fft, emu_stats,
                                                 NULL, NULL, emu_dgemm, NULL, NULL};
