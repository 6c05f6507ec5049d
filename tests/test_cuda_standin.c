/* The stand-in CUDA (tests/fake_cuda): which library this is, devices and their memory, poisoned
 * device memory, copies checked against their kind, queued work that takes effect only at the
 * synchronisation points (each missing synchronisation shown to give a wrong result), stream
 * order, events across streams, the legacy stream's ordering, host registration, errors, cuBLAS
 * against a triple loop and cuFFT against a naive DFT, two devices and host threads. */
#include "config.h"
#ifndef FUPERMOD_HAVE_CUDA
#include "tests/standin_check.h"
STANDIN_SKIP_MAIN
#else
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <cufft.h>
#include "fupermod/fupermod.h"
#include "tests/tap.h"
#include "tests/standin_check.h"

static uint64_t rs = 7;
static long rnd(long lo, long hi) {
  rs ^= rs >> 12, rs ^= rs << 25, rs ^= rs >> 27;
  return lo + (long)((rs * 2685821657736338717ULL) % (uint64_t)(hi - lo + 1));
}

static int all_nan(const double *x, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!isnan(x[i])) return 0;
  return 1;
}

static int all_eq(const double *x, double v, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (x[i] != v) return 0;
  return 1;
}

/* ---------------------------------------------------------------- which library */

static void provenance(void) {
  static const char *const libs[3] = {"cudart", "cublas", "cufft"};
  char dir[4096], where[4096];
  standin_build_dir(dir, sizeof dir);
  for (int k = 0; k < 3; k++) ok(standin_all(dir, libs[k], where, sizeof where), "%s is the stand-in: %s", libs[k], where);
  ok(fupermod_cuda_device_count() == 2, "fupermod_cuda_device_count() finds the stand-in's 2 devices (%d)",
     fupermod_cuda_device_count());
}

/* ---------------------------------------------------------------- devices and memory */

typedef struct {
  int before, after, set;
} thread_dev;

static void *other_thread(void *arg) {
  thread_dev *t = arg;
  cudaGetDevice(&t->before);
  t->set = cudaSetDevice(0);
  cudaGetDevice(&t->after);
  return NULL;
}

static void devices(void) {
  int n = 0, d = -1, byid = -1, attr = -1;
  char id0[32], id1[32];
  struct cudaDeviceProp p0, p1;
  thread_dev t = {-1, -1, -1};
  pthread_t th;
  cudaError_t e = cudaGetDeviceCount(&n);
  ok(e == cudaSuccess && n == 2, "2 devices ($FAKE_CUDA_DEVICES): %d", n);
  ok(cudaSetDevice(2) == cudaErrorInvalidDevice && cudaPeekAtLastError() == cudaErrorInvalidDevice &&
         cudaGetLastError() == cudaErrorInvalidDevice && cudaGetLastError() == cudaSuccess,
     "device 2: cudaErrorInvalidDevice, the last error until cudaGetLastError reads it");
  cudaSetDevice(1);
  pthread_create(&th, NULL, other_thread, &t);
  pthread_join(th, NULL);
  cudaGetDevice(&d);
  ok(t.before == 0 && t.set == cudaSuccess && t.after == 0 && d == 1,
     "the current device is per host thread (a new thread starts on 0; this one keeps 1)");
  cudaDeviceGetPCIBusId(id0, sizeof id0, 0);
  cudaDeviceGetPCIBusId(id1, sizeof id1, 1);
  cudaGetDeviceProperties(&p0, 0);
  cudaGetDeviceProperties(&p1, 1);
  cudaDeviceGetByPCIBusId(&byid, id1);
  cudaDeviceGetAttribute(&attr, cudaDevAttrPciBusId, 1);
  ok(strcmp(id0, id1) != 0 && byid == 1 && attr == p1.pciBusID && p0.pciBusID != p1.pciBusID &&
         p0.totalGlobalMem == 64u << 20 && strstr(p0.name, "stand-in"),
     "distinct PCI bus ids (%s, %s), found again by id; properties name the stand-in", id0, id1);
  cudaSetDevice(0);
}

static void memory(void) {
  size_t f0, t0, f1, t1, fa, fb, fc;
  double *d = NULL, *big = NULL, *d1 = NULL, h[64];
  cudaSetDevice(1);
  cudaMemGetInfo(&f1, &t1);
  cudaSetDevice(0);
  cudaMemGetInfo(&f0, &t0);
  ok(f0 == t0 && t0 == 64u << 20, "device 0: %zu of %zu bytes free ($FAKE_CUDA_MEM)", f0, t0);
  cudaMalloc((void **)&d, 40u << 20);
  cudaMemGetInfo(&fa, &t0);
  ok(d && cudaMalloc((void **)&big, 30u << 20) == cudaErrorMemoryAllocation && !big &&
         cudaGetLastError() == cudaErrorMemoryAllocation,
     "with 40 MB allocated, 30 MB more does not fit: cudaErrorMemoryAllocation");
  cudaSetDevice(1);
  cudaMemGetInfo(&fb, &t1);
  ok(fa <= f0 - (40u << 20) && fb == f1 && cudaMalloc((void **)&d1, 30u << 20) == cudaSuccess,
     "cudaMemGetInfo counts the allocation on device 0 only; device 1 has its own memory");
  cudaFree(d1);
  cudaSetDevice(0);
  cudaFree(d);
  cudaMemGetInfo(&fc, &t0);
  ok(fc == f0, "cudaFree gives the memory back (%zu free)", fc);
  cudaMalloc((void **)&d, sizeof h);
  memset(h, 0, sizeof h);
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  ok(all_nan(h, 64), "device memory starts poisoned: a download of what was never uploaded is NaN");
  ok(cudaMemcpy(h, d, sizeof h, cudaMemcpyHostToDevice) == cudaErrorInvalidValue &&
         cudaMemcpy(d, h, sizeof h, cudaMemcpyDeviceToHost) == cudaErrorInvalidValue &&
         cudaMemcpy(h, d, sizeof h, cudaMemcpyHostToHost) == cudaErrorInvalidValue &&
         cudaMemcpy(d, d, sizeof h, cudaMemcpyHostToDevice) == cudaErrorInvalidValue,
     "a device pointer where a host one is expected, and the reverse: cudaErrorInvalidValue");
  ok(cudaMemcpy(d + 1, h, sizeof h, cudaMemcpyHostToDevice) == cudaErrorInvalidValue &&
         cudaMemcpy2D(d, 8, h, 8, 16, 2, cudaMemcpyHostToDevice) == cudaErrorInvalidPitchValue &&
         cudaMemcpy((void *)h, (void *)h, 8, (enum cudaMemcpyKind)9) == cudaErrorInvalidMemcpyDirection,
     "past the end of an allocation, a pitch below the width, an unknown kind: refused");
  for (int i = 0; i < 64; i++) h[i] = i;
  cudaMemcpy(d, h, sizeof h, cudaMemcpyDefault);
  memset(h, 0, sizeof h);
  cudaMemcpy(h + 1, d + 1, 8 * sizeof *h, cudaMemcpyDefault);
  ok(h[0] == 0 && h[1] == 1 && h[8] == 8 && h[9] == 0, "cudaMemcpyDefault tells host from device memory");
  ok(cudaFree(d + 1) == cudaErrorInvalidValue && cudaFree(h) == cudaErrorInvalidValue && cudaFree(d) == cudaSuccess &&
         cudaFree(d) == cudaErrorInvalidValue,
     "cudaFree of an interior, a host or a freed pointer: cudaErrorInvalidValue");
  cudaGetLastError();
}

static void host_memory(void) {
  double *buf = malloc(1024 * sizeof *buf), *pinned = NULL, *d = NULL;
  cudaMallocHost((void **)&pinned, 256);
  cudaMalloc((void **)&d, 256);
  ok(cudaHostRegister(buf, 1024 * sizeof *buf, cudaHostRegisterDefault) == cudaSuccess &&
         cudaHostRegister(buf, 1024 * sizeof *buf, 0) == cudaErrorHostMemoryAlreadyRegistered &&
         cudaHostRegister(buf + 100, 8, 0) == cudaErrorHostMemoryAlreadyRegistered &&
         cudaHostRegister(pinned, 256, 0) == cudaErrorHostMemoryAlreadyRegistered,
     "registering host memory twice, part of it, or cudaMallocHost memory: cudaErrorHostMemoryAlreadyRegistered");
  ok(cudaHostUnregister(buf + 1) == cudaErrorHostMemoryNotRegistered && cudaHostUnregister(buf) == cudaSuccess &&
         cudaHostUnregister(buf) == cudaErrorHostMemoryNotRegistered,
     "unregistering what is not a registration: cudaErrorHostMemoryNotRegistered");
  ok(cudaHostRegister(d, 256, 0) == cudaErrorInvalidValue && cudaFreeHost(buf) == cudaErrorInvalidValue &&
         cudaFreeHost(pinned) == cudaSuccess,
     "device memory cannot be registered; cudaFreeHost takes only cudaMallocHost memory");
  ok(strcmp(cudaGetErrorName(cudaErrorHostMemoryAlreadyRegistered), "cudaErrorHostMemoryAlreadyRegistered") == 0 &&
         strcmp(cudaGetErrorString(cudaErrorMemoryAllocation), "out of memory") == 0,
     "cudaGetErrorName and cudaGetErrorString");
  cudaFree(d);
  free(buf);
  cudaGetLastError();
}

/* ---------------------------------------------------------------- queued work */

static int order[8], norder;
static void note(void *k) { order[norder++] = (int)(intptr_t)k; }

static void streams(void) {
  enum { N = 256 };
  cudaGetLastError();
  double *src = malloc(N * sizeof *src), *dst = malloc(N * sizeof *dst), *d = NULL, *d2 = NULL;
  cudaStream_t s, nb, b2;
  cudaEvent_t ev, e0, e1;
  float ms = -1;
  int before_ok, busy;
  cudaMalloc((void **)&d, N * sizeof *d);
  cudaMalloc((void **)&d2, N * sizeof *d2);
  cudaStreamCreate(&s);
  cudaStreamCreateWithFlags(&nb, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&b2, cudaStreamNonBlocking);

  /* async copies take effect at the synchronisation, reading the host buffer then */
  for (int i = 0; i < N; i++) src[i] = i, dst[i] = -1;
  cudaMemcpyAsync(d, src, N * sizeof *d, cudaMemcpyHostToDevice, nb);
  cudaMemcpyAsync(dst, d, N * sizeof *d, cudaMemcpyDeviceToHost, nb);
  before_ok = all_eq(dst, -1, N);
  src[5] = 500; /* the GPU has not read it yet either */
  cudaStreamSynchronize(nb);
  ok(before_ok && dst[0] == 0 && dst[N - 1] == N - 1 && dst[5] == 500,
     "an async upload and download: nothing before cudaStreamSynchronize, the host buffer as it is then after");

  /* stream order */
  norder = 0;
  for (int k = 1; k <= 3; k++) cudaLaunchHostFunc(nb, note, (void *)(intptr_t)k);
  before_ok = norder == 0;
  cudaStreamSynchronize(nb);
  ok(before_ok && norder == 3 && order[0] == 1 && order[1] == 2 && order[2] == 3, "host functions run in stream order at "
     "the synchronisation");

  /* an event recorded in one stream, waited for by another: the wait pulls the first stream's work */
  cudaEventCreateWithFlags(&ev, cudaEventDisableTiming);
  for (int i = 0; i < N; i++) src[i] = 2 * i, dst[i] = -1;
  cudaMemcpyAsync(d2, src, N * sizeof *d, cudaMemcpyHostToDevice, nb);
  cudaEventRecord(ev, nb);
  cudaStreamWaitEvent(b2, ev, 0);
  cudaMemcpyAsync(dst, d2, N * sizeof *d, cudaMemcpyDeviceToHost, b2);
  cudaStreamSynchronize(b2);
  ok(dst[7] == 14 && dst[N - 1] == 2 * (N - 1), "cudaStreamWaitEvent: synchronising the waiting stream runs the "
     "recording stream's work up to the event first");
  cudaFree(d2);
  cudaMalloc((void **)&d2, N * sizeof *d2);
  cudaMemcpyAsync(d2, src, N * sizeof *d, cudaMemcpyHostToDevice, nb);
  cudaMemcpyAsync(dst, d2, N * sizeof *d, cudaMemcpyDeviceToHost, b2);
  cudaStreamSynchronize(b2);
  ok(all_nan(dst, N), "without the wait the other stream reads the buffer before the upload: NaN (poison)");
  cudaStreamSynchronize(nb);

  /* the legacy stream: a blocking copy waits for blocking streams, not for non-blocking ones */
  for (int i = 0; i < N; i++) src[i] = 3 * i, dst[i] = -1;
  cudaFree(d);
  cudaMalloc((void **)&d, N * sizeof *d);
  cudaMemcpyAsync(d, src, N * sizeof *d, cudaMemcpyHostToDevice, s);
  cudaMemcpy(dst, d, N * sizeof *d, cudaMemcpyDeviceToHost);
  ok(dst[1] == 3 && dst[N - 1] == 3 * (N - 1), "a blocking cudaMemcpy runs after the earlier work of a blocking stream");
  cudaFree(d);
  cudaMalloc((void **)&d, N * sizeof *d);
  cudaMemcpyAsync(d, src, N * sizeof *d, cudaMemcpyHostToDevice, nb);
  cudaMemcpy(dst, d, N * sizeof *d, cudaMemcpyDeviceToHost);
  ok(all_nan(dst, N), "but not after that of a cudaStreamNonBlocking stream: NaN");
  cudaStreamSynchronize(nb);
  cudaMemset(d, 0, N * sizeof *d);
  cudaMemcpyAsync(dst, d, N * sizeof *d, cudaMemcpyDeviceToHost, s);
  cudaStreamSynchronize(s);
  ok(all_eq(dst, 0.0, N), "work of a blocking stream runs after earlier work of the legacy stream (cudaMemset)");

  /* the per-thread default stream is a blocking stream too */
  for (int i = 0; i < N; i++) src[i] = 5 * i, dst[i] = -1;
  cudaMemcpyAsync(d, src, N * sizeof *d, cudaMemcpyHostToDevice, cudaStreamPerThread);
  before_ok = all_eq(dst, -1, N);
  cudaMemcpy(dst, d, N * sizeof *d, cudaMemcpyDeviceToHost);
  ok(before_ok && dst[2] == 10 && dst[N - 1] == 5 * (N - 1), "cudaStreamPerThread: queued, and ordered before a later "
     "blocking copy");
  cudaMemset(d, 0, N * sizeof *d);
  cudaStreamSynchronize(0); /* the non-blocking stream below would not wait for it */

  /* queries report busy once, then complete; events time what ran between them */
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  for (int i = 0; i < N; i++) dst[i] = -1;
  cudaEventRecord(e0, nb);
  cudaMemcpyAsync(dst, d, N * sizeof *d, cudaMemcpyDeviceToHost, nb);
  cudaEventRecord(e1, nb);
  busy = cudaEventQuery(e1) == cudaErrorNotReady && all_eq(dst, -1, N) &&
         cudaEventElapsedTime(&ms, e0, e1) == cudaErrorNotReady;
  ok(busy && cudaEventQuery(e1) == cudaSuccess && all_eq(dst, 0.0, N) && cudaGetLastError() == cudaSuccess,
     "cudaEventQuery: not ready once (nothing ran, not an error), then the work up to the event runs");
  busy = cudaEventElapsedTime(&ms, e0, e1) == cudaSuccess && ms >= 0;
  ok(busy && cudaEventElapsedTime(&ms, e0, ev) == cudaErrorInvalidResourceHandle,
     "cudaEventElapsedTime: %.3f ms; refused for a cudaEventDisableTiming event", ms);
  cudaGetLastError();
  cudaMemcpyAsync(dst, d, N * sizeof *d, cudaMemcpyDeviceToHost, nb);
  ok(cudaStreamQuery(nb) == cudaErrorNotReady && cudaStreamQuery(nb) == cudaSuccess && cudaStreamQuery(nb) == cudaSuccess,
     "cudaStreamQuery: busy once, then done");

  /* device synchronisation covers the current device only; a destroyed stream's work still runs */
  {
    double *d1 = NULL, h1 = -1;
    cudaStream_t s1;
    cudaSetDevice(1);
    cudaMalloc((void **)&d1, sizeof *d1);
    cudaStreamCreate(&s1);
    cudaMemcpyAsync(&h1, d1, sizeof h1, cudaMemcpyDeviceToHost, s1);
    cudaStreamDestroy(s1);
    cudaSetDevice(0);
    for (int i = 0; i < N; i++) dst[i] = -1;
    cudaMemcpyAsync(dst, d, N * sizeof *d, cudaMemcpyDeviceToHost, nb);
    cudaDeviceSynchronize();
    before_ok = h1 == -1 && dst[0] == 0;
    cudaSetDevice(1);
    cudaDeviceSynchronize();
    ok(before_ok && isnan(h1) && cudaStreamSynchronize(s1) == cudaErrorInvalidResourceHandle,
       "cudaDeviceSynchronize runs the current device's work only, that of a destroyed stream included");
    cudaGetLastError();
    cudaFree(d1);
    cudaSetDevice(0);
  }
  cudaEventDestroy(ev), cudaEventDestroy(e0), cudaEventDestroy(e1);
  cudaStreamDestroy(s), cudaStreamDestroy(nb), cudaStreamDestroy(b2);
  cudaFree(d);
  free(src), free(dst);
}

/* Work queued by one host thread, synchronised by another. */
typedef struct {
  cudaStream_t s;
  double *d, *h;
} queue_arg;

static void *queue_in_thread(void *arg) {
  queue_arg *q = arg;
  cudaMemcpyAsync(q->h, q->d, 16 * sizeof(double), cudaMemcpyDeviceToHost, q->s);
  return NULL;
}

static void threads(void) {
  double h[16], *d = NULL;
  queue_arg q = {NULL, NULL, h};
  pthread_t th;
  int before;
  cudaMalloc((void **)&d, sizeof h);
  cudaMemset(d, 0, sizeof h);
  cudaStreamCreate(&q.s);
  q.d = d;
  for (int i = 0; i < 16; i++) h[i] = -1;
  pthread_create(&th, NULL, queue_in_thread, &q);
  pthread_join(th, NULL);
  before = all_eq(h, -1, 16);
  cudaStreamSynchronize(q.s);
  ok(before && all_eq(h, 0.0, 16), "a stream filled in one host thread is synchronised in another");
  cudaStreamDestroy(q.s);
  cudaFree(d);
}

/* ---------------------------------------------------------------- cuBLAS */

static void ref_gemm(char ta, char tb, int m, int n, int k, double alpha, const double *A, int lda, const double *B,
                     int ldb, double beta, double *C, int ldc) {
  for (int j = 0; j < n; j++)
    for (int i = 0; i < m; i++) {
      double s = 0;
      for (int p = 0; p < k; p++)
        s += (ta == 'N' ? A[i + p * lda] : A[p + i * lda]) * (tb == 'N' ? B[p + j * ldb] : B[j + p * ldb]);
      C[i + j * ldc] = alpha * s + (beta == 0 ? 0 : beta * C[i + j * ldc]);
    }
}

static void blas(void) {
  cublasHandle_t h = NULL;
  cudaStream_t s;
  long bad = 0, runs = 0;
  int kept = 0;
  cublasCreate(&h);
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  cublasSetStream(h, s);
  for (int it = 0; it < 30; it++) {
    int m = (int)rnd(1, 40), n = (int)rnd(1, 40), k = (int)rnd(0, 40), ta = (int)rnd(0, 1), tb = (int)rnd(0, 1);
    int lda = (ta ? k : m) + (int)rnd(0, 3), ldb = (tb ? n : k) + (int)rnd(0, 3), ldc = m + (int)rnd(0, 3);
    size_t na, nb, nc;
    double alpha = (double)rnd(-2, 2), beta = it % 3 == 0 ? 0.0 : (double)rnd(-2, 2), *A, *B, *C, *C0, *R, *dA, *dB, *dC;
    if (lda < 1) lda = 1;
    if (ldb < 1) ldb = 1;
    na = (size_t)lda * (size_t)(ta ? m : k) + 1, nb = (size_t)ldb * (size_t)(tb ? k : n) + 1, nc = (size_t)ldc * n;
    A = malloc(na * 8), B = malloc(nb * 8), C = malloc(nc * 8), C0 = malloc(nc * 8), R = malloc(nc * 8);
    cudaMalloc((void **)&dA, na * 8), cudaMalloc((void **)&dB, nb * 8), cudaMalloc((void **)&dC, nc * 8);
    /* small integers: every sum is exact, so the GEMM must match the loop exactly */
    for (size_t i = 0; i < na; i++) A[i] = (double)rnd(-4, 4);
    for (size_t i = 0; i < nb; i++) B[i] = (double)rnd(-4, 4);
    for (size_t i = 0; i < nc; i++) C[i] = C0[i] = R[i] = (double)rnd(-4, 4);
    ref_gemm(ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k, alpha, A, lda, B, ldb, beta, R, ldc);
    cudaMemcpyAsync(dA, A, na * 8, cudaMemcpyHostToDevice, s);
    cudaMemcpyAsync(dB, B, nb * 8, cudaMemcpyHostToDevice, s);
    /* with beta = 0, C is not uploaded: cuBLAS must not read the poison */
    if (beta != 0) cudaMemcpyAsync(dC, C, nc * 8, cudaMemcpyHostToDevice, s);
    else cudaMemcpy2DAsync(dC + m, (size_t)ldc * 8, C + m, (size_t)ldc * 8, (size_t)(ldc - m) * 8, (size_t)n,
                           cudaMemcpyHostToDevice, s);
    if (cublasDgemm(h, ta ? CUBLAS_OP_T : CUBLAS_OP_N, tb ? CUBLAS_OP_T : CUBLAS_OP_N, m, n, k, &alpha, dA, lda, dB, ldb,
                    &beta, dC, ldc) != CUBLAS_STATUS_SUCCESS)
      bad++;
    alpha = 100; /* taken when the call was made */
    cudaMemcpyAsync(C, dC, nc * 8, cudaMemcpyDeviceToHost, s);
    kept += memcmp(C, C0, nc * 8) == 0;
    cudaStreamSynchronize(s);
    size_t i = 0;
    while (i < nc && C[i] == R[i]) i++; /* values: -0 == +0 */
    if (i < nc && bad++ < 3) {
      diag("m=%d n=%d k=%d ta=%d tb=%d lda=%d ldb=%d ldc=%d beta=%g: C[%zu] = %g, not %g", m, n, k, ta, tb, lda, ldb, ldc,
           beta, i, C[i], R[i]);
    }
    runs++;
    free(A), free(B), free(C), free(C0), free(R);
    cudaFree(dA), cudaFree(dB), cudaFree(dC);
  }
  ok(bad == 0 && runs == 30, "cublasDgemm (N/T, lda > rows, k = 0, beta = 0 over poison) on a stream equals a triple "
     "loop exactly: %ld of %ld differ", bad, runs);
  ok(kept == 30, "before the stream's synchronisation C on the host is still the old one (%d of 30)", kept);
  {
    double one = 1, *dA = NULL, hA[4] = {0}, *dev_one = NULL, two = 2, got[4] = {0};
    cudaMalloc((void **)&dA, 4 * 8);
    cudaMalloc((void **)&dev_one, 8);
    ok(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one, dA, 1, dA, 2, &one, dA, 2) == CUBLAS_STATUS_INVALID_VALUE &&
           cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, -1, &one, dA, 2, dA, 2, &one, dA, 2) == CUBLAS_STATUS_INVALID_VALUE &&
           cublasDgemm(h, (cublasOperation_t)7, CUBLAS_OP_N, 2, 2, 2, &one, dA, 2, dA, 2, &one, dA, 2) ==
             CUBLAS_STATUS_INVALID_VALUE &&
           cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one, dA, 2, dA, 2, &one, dA, 1) == CUBLAS_STATUS_INVALID_VALUE,
       "cublasDgemm: lda < m, k < 0, an unknown operation, ldc < m: CUBLAS_STATUS_INVALID_VALUE");
    ok(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one, hA, 2, dA, 2, &one, dA, 2) == CUBLAS_STATUS_EXECUTION_FAILED &&
           cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one, dA + 1, 2, dA, 2, &one, dA, 2) ==
             CUBLAS_STATUS_EXECUTION_FAILED,
       "host memory, or past the end of an allocation, as a matrix: CUBLAS_STATUS_EXECUTION_FAILED (a GPU would fault)");
    cudaSetDevice(1);
    ok(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one, dA, 2, dA, 2, &one, dA, 2) == CUBLAS_STATUS_EXECUTION_FAILED,
       "the handle of device 0 while device 1 is current: CUBLAS_STATUS_EXECUTION_FAILED");
    cudaSetDevice(0);
    /* device pointer mode: the scalar is read when the operation runs, after the upload queued
     * before it (a = 2, not the 1 there when the call is made); geam transposes */
    cudaMemcpy(dev_one, &one, 8, cudaMemcpyHostToDevice);
    cudaMemcpy(dA, (double[4]){1, 2, 3, 4}, 32, cudaMemcpyHostToDevice);
    cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE);
    ok(cublasDgeam(h, CUBLAS_OP_T, CUBLAS_OP_N, 2, 2, dev_one, dA, 2, dev_one, dA, 2, dA, 2) == CUBLAS_STATUS_INVALID_VALUE,
       "cublasDgeam with C = A transposed in place: CUBLAS_STATUS_INVALID_VALUE");
    {
      double *dT = NULL;
      cudaMalloc((void **)&dT, 32);
      cudaMemcpyAsync(dev_one, &two, 8, cudaMemcpyHostToDevice, s);
      cublasDgeam(h, CUBLAS_OP_T, CUBLAS_OP_N, 2, 2, dev_one, dA, 2, dev_one, dA, 2, dT, 2);
      cudaMemcpyAsync(got, dT, 32, cudaMemcpyDeviceToHost, s);
      cudaStreamSynchronize(s);
      cudaFree(dT);
    }
    ok(got[0] == 4 && got[1] == 10 && got[2] == 10 && got[3] == 16,
       "cublasDgeam C = a A^T + a A, a in device memory read when it runs (a = 2): %g %g %g %g", got[0], got[1], got[2],
       got[3]);
    cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST);
    cudaFree(dA), cudaFree(dev_one);
  }
  ok(cublasDestroy(h) == CUBLAS_STATUS_SUCCESS && cublasDestroy(h) == CUBLAS_STATUS_NOT_INITIALIZED &&
         cublasSetStream(h, s) == CUBLAS_STATUS_NOT_INITIALIZED,
     "a destroyed handle: CUBLAS_STATUS_NOT_INITIALIZED");
  cudaStreamDestroy(s);
}

/* ---------------------------------------------------------------- cuFFT */

/* Naive DFT of x (n complex numbers, stride s): sign -1 forward, +1 inverse, unnormalised. */
static void dft(int n, const double *x, int s, double *y, int sign) {
  for (int k = 0; k < n; k++) {
    double re = 0, im = 0;
    for (int j = 0; j < n; j++) {
      double a = sign * 2.0 * M_PI * (double)((long)j * k % n) / n, c = cos(a), si = sin(a);
      re += x[2 * j * s] * c - x[2 * j * s + 1] * si;
      im += x[2 * j * s] * si + x[2 * j * s + 1] * c;
    }
    y[2 * k] = re, y[2 * k + 1] = im;
  }
}

static double rel_err(const double *a, const double *b, size_t n) {
  double e = 0, m = 1e-300;
  for (size_t i = 0; i < n; i++) {
    double d = fabs(a[i] - b[i]);
    if (!(d <= e)) e = isnan(d) ? INFINITY : d;
    if (fabs(b[i]) > m) m = fabs(b[i]);
  }
  return e / m;
}

static void fft(void) {
  static const int sizes[] = {1, 2, 5, 8, 12, 17, 64, 210};
  double worst = 0;
  long bad = 0;
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++)
    for (int place = 0; place < 2; place++)
      for (int sign = -1; sign <= 1; sign += 2) {
        int n = sizes[z], batch = 3, before;
        size_t len = (size_t)2 * n * batch;
        double *x = malloc(len * 8), *y = malloc(len * 8), *ref = malloc(len * 8), *dx = NULL, *dy = NULL, e;
        cufftHandle p;
        for (size_t i = 0; i < len; i++) x[i] = (double)rnd(-1000, 1000) / 100, y[i] = 0;
        for (int b = 0; b < batch; b++) dft(n, x + 2 * n * b, 1, ref + 2 * n * b, sign);
        cudaMalloc((void **)&dx, len * 8);
        dy = place ? dx : NULL;
        if (!place) cudaMalloc((void **)&dy, len * 8);
        if (cufftPlanMany(&p, 1, &n, NULL, 1, n, NULL, 1, n, CUFFT_Z2Z, batch) != CUFFT_SUCCESS) {
          bad++;
          continue;
        }
        cufftSetStream(p, s);
        cudaMemcpyAsync(dx, x, len * 8, cudaMemcpyHostToDevice, s);
        cufftExecZ2Z(p, (cufftDoubleComplex *)dx, (cufftDoubleComplex *)dy, sign);
        cudaMemcpyAsync(y, dy, len * 8, cudaMemcpyDeviceToHost, s);
        before = all_eq(y, 0.0, len);
        cudaStreamSynchronize(s);
        e = rel_err(y, ref, len);
        if (!before || !(e <= 1e-12)) bad++;
        if (e > worst) worst = e;
        cufftDestroy(p);
        cudaFree(dx);
        if (!place) cudaFree(dy);
        free(x), free(y), free(ref);
      }
  ok(bad == 0, "cufftExecZ2Z, batches of 3 rows of 1 to 210, both directions, in and out of place, on a stream: the naive "
     "DFT (worst relative error %.1e)", worst);
  {
    /* advanced layout: 2 interleaved transforms of 6 (stride 2, distance 1) into a packed output */
    int n = 6, emb = 6, before;
    double x[24], y[24], ref[24], *dx = NULL, *dy = NULL;
    cufftHandle p;
    for (int i = 0; i < 24; i++) x[i] = (double)rnd(-9, 9);
    for (int b = 0; b < 2; b++) dft(6, x + 2 * b, 2, ref + 12 * b, -1);
    cudaMalloc((void **)&dx, sizeof x), cudaMalloc((void **)&dy, sizeof y);
    cudaMemcpy(dx, x, sizeof x, cudaMemcpyHostToDevice);
    cufftPlanMany(&p, 1, &n, &emb, 2, 1, &emb, 1, 6, CUFFT_Z2Z, 2);
    cufftExecZ2Z(p, (cufftDoubleComplex *)dx, (cufftDoubleComplex *)dy, CUFFT_FORWARD);
    before = cudaMemcpyAsync(y, dy, sizeof y, cudaMemcpyDeviceToHost, s) == cudaSuccess;
    cudaStreamSynchronize(s);
    ok(before && all_nan(y, 24), "an execution on the legacy stream is not waited for by a non-blocking stream: NaN");
    cudaMemcpy(y, dy, sizeof y, cudaMemcpyDeviceToHost);
    ok(rel_err(y, ref, 24) <= 1e-12, "the advanced layout (istride 2, idist 1) as cuFFT defines it");
    ok(cufftExecZ2Z(p, (cufftDoubleComplex *)dx, (cufftDoubleComplex *)dy, 0) == CUFFT_INVALID_VALUE &&
           cufftExecZ2Z(p, (cufftDoubleComplex *)x, (cufftDoubleComplex *)dy, CUFFT_FORWARD) == CUFFT_EXEC_FAILED &&
           cufftExecD2Z(p, dx, (cufftDoubleComplex *)dy) == CUFFT_INVALID_PLAN,
       "a bad direction, host data, the wrong type of execution: refused");
    cufftDestroy(p);
    ok(cufftExecZ2Z(p, (cufftDoubleComplex *)dx, (cufftDoubleComplex *)dy, CUFFT_FORWARD) == CUFFT_INVALID_PLAN,
       "a destroyed plan: CUFFT_INVALID_PLAN");
    cudaFree(dx), cudaFree(dy);
  }
  {
    /* D2Z then Z2D is n times the identity, out of place and in place (padded rows) */
    int nn[2] = {6, 10}, n = 60, good = 1;
    double x[2 * 6 * 12], y[2 * 6 * 12], *dr = NULL, *dc = NULL;
    cufftHandle f, b;
    for (int i = 0; i < n; i++) x[i] = (double)rnd(-9, 9);
    cudaMalloc((void **)&dr, sizeof x), cudaMalloc((void **)&dc, sizeof x);
    cufftPlan2d(&f, nn[0], nn[1], CUFFT_D2Z);
    cufftPlan2d(&b, nn[0], nn[1], CUFFT_Z2D);
    cudaMemcpy(dr, x, (size_t)n * 8, cudaMemcpyHostToDevice);
    cufftExecD2Z(f, dr, (cufftDoubleComplex *)dc);
    cufftExecZ2D(b, (cufftDoubleComplex *)dc, dr);
    cudaMemcpy(y, dr, (size_t)n * 8, cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; i++) good &= fabs(y[i] - n * x[i]) <= 1e-10 * n;
    for (int r = 0; r < 6; r++)
      for (int c = 0; c < 12; c++) y[r * 12 + c] = c < 10 ? x[r * 10 + c] : 0;
    cudaMemcpy(dc, y, 72 * 8, cudaMemcpyHostToDevice);
    cufftExecD2Z(f, dc, (cufftDoubleComplex *)dc);
    cufftExecZ2D(b, (cufftDoubleComplex *)dc, dc);
    cudaMemcpy(y, dc, 72 * 8, cudaMemcpyDeviceToHost);
    for (int r = 0; r < 6; r++)
      for (int c = 0; c < 10; c++) good &= fabs(y[r * 12 + c] - n * x[r * 10 + c]) <= 1e-10 * n;
    ok(good, "2D D2Z then Z2D gives n x back, out of place and in place");
    cufftDestroy(f), cufftDestroy(b);
    cudaFree(dr), cudaFree(dc);
  }
  {
    /* the work area is device memory: it counts, and a plan without room fails */
    size_t work = 0, f0, f1, t;
    cufftHandle p;
    double *fill = NULL;
    int n = 1 << 16;
    int made;
    cudaMemGetInfo(&f0, &t);
    made = cufftPlan1d(&p, 17 * 13, CUFFT_Z2Z, 1000) == CUFFT_SUCCESS && cufftGetSize(p, &work) == CUFFT_SUCCESS;
    ok(made && work > 0 && cudaMemGetInfo(&f1, &t) == cudaSuccess && f0 - f1 >= work,
       "a plan's work area (%zu bytes for 1000 rows of 221) is taken from the device's memory", work);
    cufftDestroy(p);
    {
      /* without auto-allocation the caller gives the work area */
      int n221 = 221;
      size_t w2 = 0;
      double *area = NULL, *dx = NULL, x[2 * 221], y[2 * 221], ref[2 * 221];
      for (int i = 0; i < 2 * 221; i++) x[i] = (double)rnd(-9, 9);
      dft(221, x, 1, ref, -1);
      cufftCreate(&p);
      cufftSetAutoAllocation(p, 0);
      cufftMakePlanMany(p, 1, &n221, NULL, 1, 221, NULL, 1, 221, CUFFT_Z2Z, 1, &w2);
      cudaMalloc((void **)&dx, sizeof x);
      cudaMemcpy(dx, x, sizeof x, cudaMemcpyHostToDevice);
      made = cudaMemGetInfo(&f1, &t) == cudaSuccess && f1 >= f0 - sizeof x - 256 &&
             cufftExecZ2Z(p, (cufftDoubleComplex *)dx, (cufftDoubleComplex *)dx, CUFFT_FORWARD) == CUFFT_NO_WORKSPACE;
      cudaMalloc((void **)&area, w2);
      made = made && cufftSetWorkArea(p, area) == CUFFT_SUCCESS &&
             cufftExecZ2Z(p, (cufftDoubleComplex *)dx, (cufftDoubleComplex *)dx, CUFFT_FORWARD) == CUFFT_SUCCESS;
      cudaMemcpy(y, dx, sizeof y, cudaMemcpyDeviceToHost);
      ok(made && w2 == sizeof x && rel_err(y, ref, 2 * 221) <= 1e-12, "cufftSetAutoAllocation(0): no work area taken, "
         "CUFFT_NO_WORKSPACE until cufftSetWorkArea gives one of the %zu bytes cufftMakePlanMany asked for", w2);
      cufftDestroy(p);
      cudaFree(area), cudaFree(dx);
    }
    cudaMalloc((void **)&fill, f0 - (1u << 20));
    ok(cufftPlan1d(&p, 17 * 13, CUFFT_Z2Z, 1000) == CUFFT_ALLOC_FAILED && cufftPlan1d(&p, n, CUFFT_Z2Z, 4) == CUFFT_SUCCESS,
       "with 1 MB free, a plan that needs 3.5 MB of work area fails (CUFFT_ALLOC_FAILED); one that needs none does not");
    cufftDestroy(p);
    cudaFree(fill);
    cudaGetLastError();
  }
  cudaStreamDestroy(s);
}

/* ---------------------------------------------------------------- two devices */

static void two_devices(void) {
  double *d0 = NULL, *d1 = NULL, h[8] = {1, 2, 3, 4, 5, 6, 7, 8}, g[8] = {0};
  cudaEvent_t e1;
  cudaStream_t s0;
  int can = 0;
  cudaSetDevice(0);
  cudaMalloc((void **)&d0, sizeof h);
  cudaStreamCreate(&s0);
  cudaSetDevice(1);
  cudaMalloc((void **)&d1, sizeof h);
  cudaEventCreate(&e1);
  cudaMemcpyAsync(d1, h, sizeof h, cudaMemcpyHostToDevice, 0);
  cudaEventRecord(e1, 0);
  ok(cudaEventRecord(e1, s0) == cudaErrorInvalidResourceHandle, "an event of device 1 recorded in a stream of device 0: "
     "cudaErrorInvalidResourceHandle");
  cudaGetLastError();
  cudaSetDevice(0);
  cudaStreamWaitEvent(s0, e1, 0);
  cudaMemcpyPeerAsync(d0, 0, d1, 1, sizeof h, s0);
  cudaMemcpyAsync(g, d0, sizeof h, cudaMemcpyDeviceToHost, s0);
  cudaStreamSynchronize(s0);
  cudaDeviceCanAccessPeer(&can, 0, 1);
  ok(memcmp(g, h, sizeof h) == 0 && can == 1 && cudaDeviceEnablePeerAccess(1, 0) == cudaSuccess &&
         cudaDeviceEnablePeerAccess(1, 0) == cudaErrorPeerAccessAlreadyEnabled,
     "device 1's upload, waited for by device 0's stream, copied from peer to peer; peer access is tracked");
  cudaDeviceDisablePeerAccess(1);
  cudaGetLastError();
  cudaEventDestroy(e1);
  cudaStreamDestroy(s0);
  cudaFree(d0);
  cudaSetDevice(1);
  cudaFree(d1);
  cudaSetDevice(0);
}

int main(void) {
  /* what this test knows: 2 devices of 64 MB */
  setenv("FAKE_CUDA_DEVICES", "2", 1);
  setenv("FAKE_CUDA_MEM", "64M", 1);
  provenance();
  devices();
  memory();
  host_memory();
  streams();
  threads();
  blas();
  fft();
  two_devices();
  return done_testing();
}
#endif
