/* Private helpers shared by the bundled kernels: sub-option parsing, the memory bound,
 * deterministic test data and naive reference computations for verify().
 * Includes neither cblas.h nor fftw3.h, so any kernel may use it (toolchain-pitfalls P1/P2). */
#ifndef FUPERMOD_KERNELS_COMMON_H
#define FUPERMOD_KERNELS_COMMON_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fupermod/fupermod.h"

/* Integer sub-option KEY of a kernel, checked against its declaration in table (range and
 * default); *out keeps the caller's value when absent without a default. */
static inline int kern_opt_long(const char *kernel, const fupermod_option *table, const char *subopts, const char *key,
                                long *out) {
  int rc = fupermod_option_long(table, subopts, key, out);
  (void)kernel; /* fupermod_kernel_load names the kernel */
  return rc >= 0 ? FUPERMOD_SUCCESS : rc;
}

/* The GPU variants of the kernels (KERN_CUDA): a CUDA executor of their own on the device of
 * sub-option device=N (default 0), opened at create. */
static inline int kern_open_cuda(const char *kernel, long device, fupermod_exec **out) {
  fupermod_exec_opts o = {.kind = FUPERMOD_EXEC_CUDA, .threads = 1, .cuda_device = (int)device, .mem_limit = 0};
  int rc = fupermod_exec_open(&o, out);
  return rc == FUPERMOD_SUCCESS ? rc : fupermod_error_prefix(rc, "%s kernel", kernel);
}

/* Largest host allocation a kernel accepts: 3/4 of the physical memory, so that a model-building
 * range that overshoots fails with a message instead of swapping the node to a halt. */
/* 64-byte aligned doubles (whole cache lines, AVX-512 loads); free() releases them. */
static inline double *kern_alloc_doubles(size_t n) {
  void *p = NULL;
  return posix_memalign(&p, 64, (n ? n : 1) * sizeof(double)) == 0 ? p : NULL;
}

static inline double kern_mem_limit(void) {
  long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || psize <= 0) return 64.0 * 1024 * 1024 * 1024;
  return 0.75 * (double)pages * (double)psize;
}

/* bytes is computed in double by the caller, so huge d cannot overflow before this check. */
static inline int kern_mem_check(const char *kernel, long d, double bytes, double limit, const char *where) {
  if (!(bytes <= limit))
    return fupermod_error(FUPERMOD_ERR_INPUT, "%s kernel: d=%ld needs %.0f bytes, more than the %.0f bytes allowed %s",
                          kernel, d, bytes, limit, where);
  return FUPERMOD_SUCCESS;
}

static inline int kern_check_d(const char *kernel, long d) {
  if (d <= 0) return fupermod_error(FUPERMOD_ERR_USAGE, "%s kernel: d must be > 0, got %ld", kernel, d);
  return FUPERMOD_SUCCESS;
}

/* floor(sqrt(d)) exactly, for any d >= 0 (sqrt of a double can be one off near squares). */
static inline long kern_isqrt(long d) {
  long m = (long)sqrt((double)d);
  while (m > 0 && (double)m * (double)m > (double)d) m--;
  while ((double)(m + 1) * (double)(m + 1) <= (double)d) m++;
  return m;
}

/* SUMMA block shape of d blocks: m = floor(sqrt d), n = floor(d/m); m*n <= d (m <= n). */
static inline void kern_block_shape(long d, long *m, long *n) {
  *m = d > 0 ? kern_isqrt(d) : 0;
  *n = *m > 0 ? d / *m : 0;
}

/* The CPU dgemm kernel's rectangle: (m b) rows, m = floor(sqrt d), and as many columns as make
 * the area d b^2 elements to within one column, so the work is that of exactly d blocks, as in the
 * application's rectangles (whose sides need not be multiples of b). */
static inline void kern_gemm_shape(long d, long b, long *rows, long *cols) {
  long m = d > 0 ? kern_isqrt(d) : 0;
  *rows = m * b;
  *cols = *rows > 0 ? (long)((double)d * (double)b * (double)b / (double)*rows + 0.5) : 0;
}

static inline double kern_dgemm_complexity(long d, long b) {
  long m, n;
  kern_block_shape(d, &m, &n);
  return 2.0 * (double)(m * b) * (double)(n * b) * (double)b;
}

/* Deterministic values in [-0.5, 0.5) from (seed, index): data and references agree exactly. */
static inline double kern_value(uint64_t seed, uint64_t i) {
  uint64_t z = seed * 0x9E3779B97F4A7C15ULL + i + 0x632BE59BD9B4E019ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  return (double)(z >> 11) * (1.0 / 9007199254740992.0) - 0.5;
}

static inline void kern_fill(double *x, size_t n, uint64_t seed) {
  for (size_t i = 0; i < n; i++) x[i] = kern_value(seed, i);
}

/* C (m x n) += A (m x k, leading dim lda) * B (k x n, leading dim ldb), row-major, triple loop. */
static inline void kern_ref_gemm(long m, long n, long k, const double *A, long lda, const double *B, long ldb,
                                 double *C, long ldc) {
  for (long i = 0; i < m; i++)
    for (long j = 0; j < n; j++) {
      double s = 0.0;
      for (long p = 0; p < k; p++) s += A[i * lda + p] * B[p * ldb + j];
      C[i * ldc + j] += s;
    }
}

/* Naive forward DFT (sign -1) of one row of n interleaved complex values. The twiddle index is
 * reduced mod n and the twiddles are tabulated, which keeps the reference accurate to ~1e-15
 * relative and O(n^2) cheap. Returns 0, or -1 when out of memory. */
static inline int kern_ref_dft(long n, const double *in, double *out) {
  double *tw = malloc(2 * (size_t)n * sizeof *tw);
  if (!tw) return -1;
  for (long t = 0; t < n; t++) {
    double a = -2.0 * M_PI * (double)t / (double)n;
    tw[2 * t] = cos(a);
    tw[2 * t + 1] = sin(a);
  }
  for (long k = 0; k < n; k++) {
    double re = 0.0, im = 0.0;
    for (long j = 0; j < n; j++) {
      const double *w = tw + 2 * ((j * k) % n);
      re += in[2 * j] * w[0] - in[2 * j + 1] * w[1];
      im += in[2 * j] * w[1] + in[2 * j + 1] * w[0];
    }
    out[2 * k] = re;
    out[2 * k + 1] = im;
  }
  free(tw);
  return 0;
}

/* max |x - y| / max(max |y|, tiny): the relative error verify() compares with a tolerance. */
static inline double kern_rel_err(const double *x, const double *y, size_t n) {
  double num = 0.0, den = 1e-300;
  for (size_t i = 0; i < n; i++) {
    double e = fabs(x[i] - y[i]);
    if (isnan(e)) return NAN; /* fails every "err <= tol" comparison */
    if (e > num) num = e;
    if (fabs(y[i]) > den) den = fabs(y[i]);
  }
  return num / den;
}

#endif
