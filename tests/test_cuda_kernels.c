/* The GPU kernels and the out-of-card GEMM on two stand-in GPUs (tests/fake_cuda), with what only
 * the stand-in offers: a second device and small device memories. dgemm-cuda and fft-rows-cuda
 * (through their CUDA executors) verify on either device while the caller is on the other one,
 * and from another host thread, and give the caller's device back; in a small device memory the
 * GEMM goes out of card and the FFT reports its plan's work area; the out-of-card GEMM on device
 * 1 cuts C to that device's memory, an executor session holds C in it, and both free it again. */
#include "config.h"
#ifndef FUPERMOD_HAVE_CUDA
#include "tests/standin_check.h"
STANDIN_SKIP_MAIN
#else
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>
#include "fupermod/fupermod.h"
#include "kernels/ooc/ooc.h"
#include "tests/tap.h"
#include "tests/standin_check.h"

static int current(void) {
  int d = -1;
  cudaGetDevice(&d);
  return d;
}

static size_t free_on(int dev) {
  size_t f = 0, t = 0;
  int prev = current();
  cudaSetDevice(dev);
  cudaMemGetInfo(&f, &t);
  cudaSetDevice(prev);
  return f;
}

/* Load, verify, one initialize-execute-finalize, unload; the caller's device must not move. */
static void kernel_on(const char *name, const char *size_opt, int dev) {
  char opts[64];
  fupermod_kernel *k = NULL;
  int caller = 1 - dev, rc, moved = 0;
  cudaSetDevice(caller);
  snprintf(opts, sizeof opts, "device=%d,%s", dev, size_opt);
  rc = fupermod_kernel_load(name, opts, &k);
  moved |= current() != caller;
  if (rc == FUPERMOD_SUCCESS) rc = k->ops->verify(k->ctx);
  moved |= current() != caller;
  if (rc == FUPERMOD_SUCCESS && (rc = k->ops->initialize(5, k->ctx)) == FUPERMOD_SUCCESS) {
    moved |= current() != caller;
    rc = k->ops->execute(k->ctx);
    moved |= current() != caller;
    if (k->ops->finalize(k->ctx) != FUPERMOD_SUCCESS && rc == FUPERMOD_SUCCESS) rc = -1;
    moved |= current() != caller;
  }
  ok(rc == FUPERMOD_SUCCESS && !moved, "%s on device %d: verify, initialize, execute, finalize (%s); the caller stays on "
     "device %d", name, dev, rc ? fupermod_error_message() : "ok", caller);
  if (k) fupermod_kernel_unload(k);
}

typedef struct {
  fupermod_kernel *k;
  int rc, dev_before, dev_after;
} verify_arg;

static void *verify_thread(void *arg) {
  verify_arg *v = arg;
  v->dev_before = current();
  v->rc = v->k->ops->verify(v->k->ctx);
  v->dev_after = current();
  return NULL;
}

static void other_thread(const char *name, const char *opts) {
  verify_arg v = {NULL, -1, -1, -1};
  pthread_t th;
  if (fupermod_kernel_load(name, opts, &v.k) == FUPERMOD_SUCCESS) {
    pthread_create(&th, NULL, verify_thread, &v);
    pthread_join(th, NULL);
  }
  ok(v.rc == FUPERMOD_SUCCESS && v.dev_before == 0 && v.dev_after == 0,
     "%s (%s) created in one host thread verifies in another, which stays on its device 0", name, opts);
  if (v.k) fupermod_kernel_unload(v.k);
}

static void memory_limits(void) {
  fupermod_kernel *k = NULL;
  int rc;
  setenv("FAKE_CUDA_MEM", "1M", 1);
  cudaSetDevice(0);
  /* the kernels compute through their CUDA executor: what does not fit goes out of card */
  rc = fupermod_kernel_load("dgemm-cuda", "b=64,resident=1", &k);
  if (rc == FUPERMOD_SUCCESS && (rc = k->ops->initialize(100, k->ctx)) == FUPERMOD_SUCCESS) {
    rc = k->ops->execute(k->ctx);
    if (k->ops->finalize(k->ctx) != FUPERMOD_SUCCESS && rc == FUPERMOD_SUCCESS) rc = -1;
  }
  ok(rc == FUPERMOD_SUCCESS, "dgemm-cuda, resident=1, 1 MB of device memory: d=100 (3.9 MB) runs out of card (%s)",
     rc ? fupermod_error_message() : "ok");
  if (k) {
    rc = k->ops->verify(k->ctx);
    ok(rc == FUPERMOD_SUCCESS, "and its self-check passes there (%s)", rc ? fupermod_error_message() : "ok");
    fupermod_kernel_unload(k);
  }
  ok(free_on(0) == 1u << 20, "unloading the kernel gives the device all its memory back (%zu)", free_on(0));
  k = NULL;
  /* 4099 is prime: the stand-in's cuFFT needs a work area as large as the data */
  rc = fupermod_kernel_load("fft-rows-cuda", "n=4099", &k);
  if (rc == FUPERMOD_SUCCESS && (rc = k->ops->initialize(10, k->ctx)) == FUPERMOD_SUCCESS) {
    rc = k->ops->execute(k->ctx);
    if (rc == FUPERMOD_SUCCESS) rc = k->ops->verify(k->ctx);
    k->ops->finalize(k->ctx);
  }
  ok(rc == FUPERMOD_SUCCESS, "fft-rows-cuda n=4099: 10 rows fit in 1 MB but not with the plan's work area: they run in "
     "smaller batches, exactly (%s)", rc ? fupermod_error_message() : "ok");
  if (k) fupermod_kernel_unload(k);
  ok(free_on(0) == 1u << 20, "unloading the kernel gives the device all its memory back (%zu)", free_on(0));
  k = NULL;
  /* 40009 is prime: one row (640 kB) and its work area do not fit in 1 MB */
  rc = fupermod_kernel_load("fft-rows-cuda", "n=40009", &k);
  if (rc == FUPERMOD_SUCCESS && (rc = k->ops->initialize(1, k->ctx)) == FUPERMOD_SUCCESS) {
    rc = k->ops->execute(k->ctx);
    k->ops->finalize(k->ctx);
  }
  ok(rc == FUPERMOD_ERR_NOMEM && strstr(fupermod_error_message(), "out of device memory for its work area"),
     "fft-rows-cuda n=40009: one row fits in 1 MB but not with its plan's work area: out of memory (%s)",
     fupermod_error_message());
  if (k) fupermod_kernel_unload(k);
  ok(free_on(0) == 1u << 20, "and the failed run leaves all the device memory free once unloaded (%zu)", free_on(0));
  setenv("FAKE_CUDA_MEM", "64M", 1);
}

/* The executor on device 1 while the caller is on device 0, in 512 kB: out of card, then C held. */
static void ooc_on_device_1(void) {
  enum { M = 200, N = 150, K = 120 };
  double *A = malloc(M * K * 8), *B = malloc(K * N * 8), *C = malloc(M * N * 8), *R = malloc(M * N * 8);
  fupermod_ooc_opts o = {1, 0.0, 0, 0};
  fupermod_ooc_stats st;
  fupermod_ooc *ctx = NULL;
  size_t f0, held = 0, f_other;
  long bad = 0;
  int rc, moved = 0;
  uint64_t s = 1;
  setenv("FAKE_CUDA_MEM", "512k", 1);
  cudaSetDevice(0);
  f0 = free_on(1);
  for (int i = 0; i < M * K; i++) A[i] = (double)((s = s * 6364136223846793005ULL + 1) >> 61) - 3.0;
  for (int i = 0; i < K * N; i++) B[i] = (double)((s = s * 6364136223846793005ULL + 1) >> 61) - 3.0;
  for (int i = 0; i < M * N; i++) C[i] = R[i] = (double)(i % 7);
  for (int j = 0; j < N; j++)
    for (int i = 0; i < M; i++) {
      double acc = 0;
      for (int p = 0; p < K; p++) acc += A[i + p * M] * B[p + j * K];
      R[i + j * M] = 2.0 * acc + R[i + j * M];
    }
  rc = fupermod_ooc_create(&o, &ctx);
  if (rc == FUPERMOD_SUCCESS) rc = fupermod_ooc_dgemm(ctx, M, N, K, 2.0, A, M, B, K, 1.0, C, M, &st);
  moved |= current() != 0;
  for (int i = 0; i < M * N; i++) bad += C[i] != R[i];
  ok(rc == FUPERMOD_SUCCESS && !st.plan.in_card && bad == 0 && !moved,
     "ooc on device 1 with 512 kB: split %ld x %ld to fit the free memory, exact (%ld differ); the caller stays on 0",
     st.plan.h, st.plan.v, bad);
  fupermod_ooc_destroy(ctx);
  /* held: C (100 x 100) and panels of 20 take device 1's memory until the session ends */
  f_other = free_on(0);
  memcpy(R, C, 100 * 100 * 8);
  {
    fupermod_exec_opts eo = {.kind = FUPERMOD_EXEC_CUDA, .threads = 1, .cuda_device = 1, .mem_limit = 0};
    fupermod_exec *e = NULL;
    if (rc == FUPERMOD_SUCCESS) rc = fupermod_exec_open(&eo, &e);
    if (rc == FUPERMOD_SUCCESS && (rc = fupermod_exec_gemm_begin(e, C, 100, 100, 100, 20, 0)) == FUPERMOD_SUCCESS) {
      held = f0 - free_on(1);
      for (int step = 0; step < 3 && rc == FUPERMOD_SUCCESS; step++)
        rc = fupermod_exec_gemm_update(e, 0, 20, A + step, M, B + step, K);
      for (int step = 0; step < 3; step++)
        for (int j = 0; j < 100; j++)
          for (int i = 0; i < 100; i++) {
            double acc = 0;
            for (int p = 0; p < 20; p++) acc += A[step + i + p * M] * B[step + p + j * K];
            R[i + j * 100] += acc;
          }
      if (rc == FUPERMOD_SUCCESS) rc = fupermod_exec_gemm_end(e);
    }
    bad = 0;
    for (int i = 0; i < 100 * 100; i++) bad += C[i] != R[i];
    ok(rc == FUPERMOD_SUCCESS && held >= 8u * (100 * 100 + 2 * 100 * 20) && free_on(0) == f_other && bad == 0 &&
           current() == 0,
       "a C held by an executor session takes %zu bytes of device 1 only; three updates and the end give the exact "
       "result (%ld differ)", held, bad);
    fupermod_exec_close(e);
  }
  ok(free_on(1) == f0, "closing the executors frees device 1's memory (%zu of %zu free)", free_on(1), f0);
  setenv("FAKE_CUDA_MEM", "64M", 1);
  free(A), free(B), free(C), free(R);
}

int main(void) {
  char dir[4096], where[4096];
  setenv("FAKE_CUDA_DEVICES", "2", 1);
  setenv("FAKE_CUDA_MEM", "64M", 1);
  for (int dev = 0; dev < 2; dev++) {
    kernel_on("dgemm-cuda", "b=8", dev);
    kernel_on("dgemm-cuda", "b=8,resident=1", dev);
    kernel_on("fft-rows-cuda", "n=64", dev);
  }
  cudaSetDevice(0);
  other_thread("dgemm-cuda", "device=1,b=16");
  other_thread("fft-rows-cuda", "device=1,n=30");
  memory_limits();
  ooc_on_device_1();
  standin_build_dir(dir, sizeof dir);
  ok(standin_all(dir, "cudart cublas cufft", where, sizeof where), "the kernels and the executor ran on the stand-in: %s",
     where);
  return done_testing();
}
#endif
