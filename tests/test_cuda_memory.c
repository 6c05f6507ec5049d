/* The CUDA executor's memory in one budget, on a stand-in GPU with a small memory: many FFT
 * layouts and sizes (prime ones, whose cuFFT plans need work areas), 2D FFTs that fit and one that
 * does not, streamed DGEMMs and GEMM sessions of several shapes, in three identical rounds. The
 * device memory in use (cudaMemGetInfo, after each operation) never exceeds the executor's budget
 * and does not grow from one round to the next, and every result is right. The budget is, without
 * mem_limit, 90 % of the device's memory divided among the processes that share it
 * (device_sharers), and mem_limit where it is given. The budget can hold only if the device's
 * accounting sees the plans: the stand-in's cuFFT takes a plan's work area from the device's
 * memory, as cudaMemGetInfo reports it. */
#include "config.h"
#ifndef FUPERMOD_HAVE_CUDA
#include "tests/standin_check.h"
STANDIN_SKIP_MAIN
#else
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>
#include <cufft.h>
#include "fupermod/fupermod.h"
#include "tests/tap.h"
#include "tests/standin_check.h"

#define ROUNDS 3

static uint64_t seed = 12345;
static double rnd(void) { return (double)((seed = seed * 6364136223846793005ULL + 1442695040888963407ULL) >> 11) / 9007199254740992.0 - 0.5; }

static size_t device_used(size_t *total) {
  size_t f = 0, t = 0;
  cudaSetDevice(0);
  cudaMemGetInfo(&f, &t);
  if (total) *total = t;
  return t - f;
}

typedef struct {
  fupermod_exec *e;
  double budget;
  size_t peak[ROUNDS], end[ROUNDS]; /* the largest sample of a round; the last */
  int over, wrong, failed;          /* samples above the budget; wrong results; failed calls */
  char first_over[160], first_wrong[160], first_failed[320];
} probe;

static void sample(probe *p, int round, const char *what) {
  size_t used = device_used(NULL);
  if (used > p->peak[round]) p->peak[round] = used;
  p->end[round] = used;
  if ((double)used > p->budget && p->over++ == 0)
    snprintf(p->first_over, sizeof p->first_over, "%zu bytes after %s", used, what);
}

static void check(probe *p, int rc, int right, const char *what) {
  if (rc != FUPERMOD_SUCCESS && p->failed++ == 0)
    snprintf(p->first_failed, sizeof p->first_failed, "%s: %s", what, fupermod_error_message());
  if (rc == FUPERMOD_SUCCESS && !right && p->wrong++ == 0) snprintf(p->first_wrong, sizeof p->first_wrong, "%s", what);
}

/* A forward then a backward FFT of the layout give back n times the signals, and leave the
 * elements between them as they were. */
static void fft_roundtrip(probe *p, int round, const fupermod_exec_fft_layout *l) {
  size_t span = (size_t)(l->blocks - 1) * (size_t)l->block_dist + (size_t)(l->howmany - 1) * (size_t)l->dist +
                (size_t)(l->n - 1) * (size_t)l->stride + 1;
  double *x = malloc(16 * span), *y = malloc(16 * span), err = 0, big = 0, *scale = malloc(8 * span);
  char what[128];
  int rc;
  for (size_t i = 0; i < span; i++) scale[i] = 1.0;
  for (long b = 0; b < l->blocks; b++)
    for (long s = 0; s < l->howmany; s++)
      for (long j = 0; j < l->n; j++) scale[b * l->block_dist + s * l->dist + j * l->stride] = (double)l->n;
  for (size_t i = 0; i < 2 * span; i++) x[i] = y[i] = rnd();
  snprintf(what, sizeof what, "FFTs of %ld x %ld (stride %ld, dist %ld) x %ld blocks", l->howmany, l->n, l->stride, l->dist,
           l->blocks);
  rc = fupermod_exec_fft(p->e, l, y, -1);
  sample(p, round, what);
  if (rc == FUPERMOD_SUCCESS) rc = fupermod_exec_fft(p->e, l, y, 1);
  sample(p, round, what);
  for (size_t i = 0; i < 2 * span; i++) {
    err = fmax(err, fabs(y[i] / scale[i / 2] - x[i]));
    big = fmax(big, fabs(x[i]));
  }
  check(p, rc, err <= 1e-9 * big, what);
  free(x), free(y), free(scale);
}

static void fft2d_roundtrip(probe *p, int round, long M, long N) {
  size_t n = (size_t)M * (size_t)N;
  double *x = malloc(16 * n), *y = malloc(16 * n), err = 0;
  char what[64];
  int rc;
  for (size_t i = 0; i < 2 * n; i++) x[i] = y[i] = rnd();
  snprintf(what, sizeof what, "a 2D FFT of %ld x %ld", M, N);
  rc = fupermod_exec_fft2d(p->e, M, N, y, -1);
  sample(p, round, what);
  if (rc == FUPERMOD_SUCCESS) rc = fupermod_exec_fft2d(p->e, M, N, y, 1);
  sample(p, round, what);
  for (size_t i = 0; i < 2 * n; i++) err = fmax(err, fabs(y[i] / (double)n - x[i]));
  check(p, rc, err <= 1e-9, what);
  free(x), free(y);
}

/* C = A B (+ C) against a loop on the host, through one streamed DGEMM or one session of updates. */
static void gemm(probe *p, int round, long m, long n, long k, int session) {
  double *A = malloc(8 * (size_t)(m * k)), *B = malloc(8 * (size_t)(k * n)), *C = malloc(8 * (size_t)(m * n)),
         *R = malloc(8 * (size_t)(m * n)), err = 0;
  long kb = (k + 2) / 3;
  char what[96];
  int rc = FUPERMOD_SUCCESS;
  for (long i = 0; i < m * k; i++) A[i] = rnd();
  for (long i = 0; i < k * n; i++) B[i] = rnd();
  for (long i = 0; i < m * n; i++) C[i] = R[i] = rnd();
  for (long j = 0; j < n; j++)
    for (long q = 0; q < k; q++)
      for (long i = 0; i < m; i++) R[i + j * m] += A[i + q * m] * B[q + j * k];
  snprintf(what, sizeof what, "%s of %ld x %ld x %ld", session ? "a GEMM session" : "a streamed DGEMM", m, n, k);
  if (!session) rc = fupermod_exec_dgemm(p->e, 0, m, n, k, 1.0, A, m, B, k, 1.0, C, m, NULL);
  else if ((rc = fupermod_exec_gemm_begin(p->e, C, m, n, m, kb, 0)) == FUPERMOD_SUCCESS) {
    for (long q0 = 0; q0 < k && rc == FUPERMOD_SUCCESS; q0 += kb) {
      rc = fupermod_exec_gemm_update(p->e, 0, k - q0 < kb ? k - q0 : kb, A + q0 * m, m, B + q0, k);
      sample(p, round, what);
    }
    if (rc == FUPERMOD_SUCCESS) rc = fupermod_exec_gemm_end(p->e);
    else fupermod_exec_gemm_end(p->e);
  }
  sample(p, round, what);
  for (long i = 0; i < m * n; i++) err = fmax(err, fabs(C[i] - R[i]));
  check(p, rc, err <= 1e-10 * (double)k, what);
  free(A), free(B), free(C), free(R);
}

/* One round: FFTs of many sizes and layouts (rows, interleaved columns, column panels, a strided
 * block), 2D FFTs, and GEMMs of several shapes between them. */
static void round_of(probe *p, int r, int with_gemm) {
  static const long sizes[] = {4099, 1031, 769, 1024, 3001, 97, 2039, 512, 1543, 6007, 255, 4093};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    long n = sizes[i], h = 40000 / n + 1;
    fupermod_exec_fft_layout rows = {n, h, 1, n, 1, 0}, cols = {n, h, h, 1, 1, 0},
                             panels = {n, 4, 4, 1, (h + 3) / 4, 4 * n}, strided = {n, 3, 2, 2 * n + 1, 1, 0};
    fft_roundtrip(p, r, &rows);
    fft_roundtrip(p, r, &cols);
    fft_roundtrip(p, r, &panels);
    fft_roundtrip(p, r, &strided);
    if (with_gemm && i % 3 == 0) gemm(p, r, 150 + 40 * (long)i, 120 + 30 * (long)i, 60 + 20 * (long)i, (int)(i / 3) % 2);
  }
  fft2d_roundtrip(p, r, 256, 256);
  fft2d_roundtrip(p, r, 200, 331);
  fft2d_roundtrip(p, r, 1024, 1024); /* 16 MB: rows, then columns, in batches */
  if (with_gemm) {
    gemm(p, r, 700, 600, 500, 0); /* C does not fit: tiles */
    gemm(p, r, 400, 300, 256, 1);
  }
}

static void run(const fupermod_exec_opts *o, const char *mem, const char *label, int with_gemm) {
  probe p;
  size_t total;
  int rc;
  memset(&p, 0, sizeof p);
  setenv("FAKE_CUDA_MEM", mem, 1);
  device_used(&total);
  p.budget = o->mem_limit > 0 ? o->mem_limit : 0.9 * (double)total / (o->device_sharers > 1 ? o->device_sharers : 1);
  rc = fupermod_exec_open(o, &p.e);
  ok(rc == FUPERMOD_SUCCESS, "%s: the executor opens: %s", label, rc ? fupermod_error_message() : fupermod_exec_describe(p.e));
  if (rc != FUPERMOD_SUCCESS) return;
  for (int r = 0; r < ROUNDS; r++) round_of(&p, r, with_gemm);
  ok(p.failed == 0 && p.wrong == 0, "%s: every operation of %d rounds succeeds with the right result (%d failed%s%s, %d "
     "wrong%s%s)", label, ROUNDS, p.failed, p.failed ? ", first " : "", p.first_failed, p.wrong, p.wrong ? ", first " : "",
     p.first_wrong);
  ok(p.over == 0, "%s: the device memory in use stays within the budget of %.0f bytes (peak %zu; %d samples above%s%s)",
     label, p.budget, p.peak[0] > p.peak[1] ? p.peak[0] : p.peak[1], p.over, p.over ? ", first " : "", p.first_over);
  ok(p.peak[1] <= p.peak[0] && p.peak[2] <= p.peak[0] && p.end[2] <= p.end[0],
     "%s: and it does not grow from round to round (peaks %zu, %zu, %zu; after each round %zu, %zu, %zu)", label, p.peak[0],
     p.peak[1], p.peak[2], p.end[0], p.end[1], p.end[2]);
  fupermod_exec_close(p.e);
  ok(device_used(NULL) == 0, "%s: closing the executor frees all its device memory (%zu bytes in use)", label,
     device_used(NULL));
}

/* A plan of a prime size made with auto-allocation holds its work area in device memory. */
static void work_area_seen(void) {
  cufftHandle h = 0;
  size_t work = 0, before, during = 0, after;
  int made;
  setenv("FAKE_CUDA_MEM", "16M", 1);
  before = device_used(NULL);
  made = cufftCreate(&h) == CUFFT_SUCCESS && cufftMakePlan1d(h, 4099, CUFFT_Z2Z, 8, &work) == CUFFT_SUCCESS;
  if (made) during = device_used(NULL);
  if (h) cufftDestroy(h);
  after = device_used(NULL);
  ok(made && work > 0 && during - before >= work && after == before, "the stand-in's cuFFT plan of 8 x 4099 takes its "
     "work area (%zu bytes) from the device: %zu bytes in use with it, %zu without", work, during, after);
}

int main(void) {
  char dir[4096], where[4096];
  fupermod_exec_opts shared = {.kind = FUPERMOD_EXEC_CUDA, .threads = 1, .cuda_device = 0, .device_sharers = 2},
                     limited = {.kind = FUPERMOD_EXEC_CUDA, .threads = 1, .cuda_device = 0, .mem_limit = 3e6};
  fupermod_exec *e = NULL;
  setenv("FAKE_CUDA_DEVICES", "1", 1);
  work_area_seen();
  /* the default budget is a share of the device, said in the description */
  setenv("FAKE_CUDA_MEM", "16M", 1);
  if (fupermod_exec_open(&shared, &e) == FUPERMOD_SUCCESS) {
    ok(strstr(fupermod_exec_describe(e), "90 % of its memory / 2 processes") != NULL,
       "two processes on one device: each takes 90 %% of its memory / 2 (%s)", fupermod_exec_describe(e));
    fupermod_exec_close(e);
  } else
    ok(0, "the executor opens: %s", fupermod_error_message());
  run(&shared, "16M", "16 MB shared by 2 processes", 1);
  run(&limited, "16M", "mem_limit 3 MB of 16 MB", 0);
  standin_build_dir(dir, sizeof dir);
  ok(standin_all(dir, "cudart cublas cufft", where, sizeof where), "the executor ran on the stand-in: %s", where);
  return done_testing();
}
#endif
