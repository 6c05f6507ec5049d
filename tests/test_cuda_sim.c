/* The stand-in CUDA as a simulated H100 ($FAKE_CUDA_SIM=h100, docs/kernels.md "A simulated GPU"):
 * the virtual clock's arithmetic on cases that wrong code fails (copy bandwidths, engines that
 * overlap or serialise, copies both ways that share the link, 2D copies with and without gaps,
 * events that order, pageable copies that hold the host, GEMM rates, FFT launches, strided FFTs,
 * first use), the description's values as exported, the host clock (fupermod_standin_sim_time,
 * fupermod_time), the no-payload mode, the adversarial order and the strict mode. Device times
 * are read with events recorded after a long
 * GEMM ("the blocker"), so that the real time the host spends between calls, however loaded this
 * machine is, does not move them. */
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
#include <time.h>
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include "fupermod/fupermod.h"
#include "tests/tap.h"
#include "tests/standin_check.h"
#include "tests/fake_cuda/standin.h"

/* tests/fake_cuda/devices/h100.conf */
#define GB 1e9
#define PINNED 55e9
#define PAGEABLE 8e9
#define LAT 5e-6
#define DUPLEX 0.75
#define FFT_LAUNCH 5e-6
#define FFT_RATE 3358e9
#define HBM 3.35e12
#define ROW 1.9e-8
#define ROW_EFF 0.615
#define ROW_EFF_CONTIG 0.863
/* The host's real time between two calls counts on its virtual clock: a loaded machine may
 * deschedule it for tens of ms. 0.1 s still tells every mistake apart (a second first use is
 * 0.14 s more, a pageable copy counted twice 0.125 s, a held host waits for the 0.148 s blocker). */
#define SLACK 0.1
#define INIT 0.14
#define N16 16384

static cudaStream_t s1, s2, s3;
static cudaEvent_t e0, e1, ev;
static cublasHandle_t h;
static double *big;          /* N16 x N16, never touched: the blocker's matrices */
static char *d1, *d2;        /* 1 GB of device memory each */
static char *p1, *p2, *page; /* 1 GB pinned, pinned, pageable */
static const double one = 1.0, zero = 0.0;

static double real_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Within float milliseconds of want. */
static int near(double got, double want) { return fabs(got - want) <= 1e-6 * want + 1e-7; }

static double gemm_s(double m, double n, double k, double rate) { return LAT + 2.0 * m * n * k / rate; }

/* A GEMM of n on stream s, on big (no payload: nothing is read or written). */
static void gemm_on(cudaStream_t s, int n) {
  cublasSetStream(h, s);
  cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, big, n, big, n, &zero, big, n);
}

/* The blocker on s1, then e0 recorded after it, which s2 and s3 wait for: work queued next on the
 * three streams starts at e0 (the compute engine is free then). */
static void start(void) {
  const char *v = getenv("FAKE_CUDA_NOPAYLOAD");
  int had = v != NULL;
  setenv("FAKE_CUDA_NOPAYLOAD", "1", 1); /* never computed */
  gemm_on(s1, N16);
  if (!had) unsetenv("FAKE_CUDA_NOPAYLOAD");
  cudaEventRecord(e0, s1);
  cudaStreamWaitEvent(s2, e0, 0);
  cudaStreamWaitEvent(s3, e0, 0);
}

/* Seconds from e0 to the end of the work queued since on s1, s2 and s3. */
static double finish(void) {
  float ms = -1;
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  cudaEventRecord(a, s2);
  cudaEventRecord(b, s3);
  cudaStreamWaitEvent(s1, a, 0);
  cudaStreamWaitEvent(s1, b, 0);
  cudaEventRecord(e1, s1);
  cudaEventSynchronize(e1);
  cudaEventElapsedTime(&ms, e0, e1);
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return 1e-3 * ms;
}

static void description(void) {
  struct cudaDeviceProp p;
  double t0 = fupermod_standin_sim_time(), t1;
  cudaError_t e = cudaGetDeviceProperties(&p, 0);
  ok(e == cudaSuccess && strstr(p.name, "simulated H100 SXM") && p.totalGlobalMem == 80000000000u,
     "the description h100.conf is loaded: '%s', %zu bytes", p.name, p.totalGlobalMem);
  cudaFree(0);
  t1 = fupermod_standin_sim_time();
  ok(t1 - t0 >= INIT && t1 - t0 < INIT + SLACK, "the first use of the device takes %g s of the host's time (%g)", INIT,
     t1 - t0);
  /* the description's values as the stand-in exports them (for tests' bounds) */
  {
    int (*param)(const char *, double *);
    double v[3] = {-1, -1, -1}, none = 0;
    int got;
    *(void **)&param = dlsym(RTLD_DEFAULT, "fupermod_standin_sim_param");
    got = param && !param("duplex", &v[0]) && !param("pitched_eff_contiguous", &v[1]) && !param("h2d_pinned", &v[2]) &&
          param("gemm", &none) == -1;
    ok(got && v[0] == DUPLEX && v[1] == ROW_EFF_CONTIG && v[2] == PINNED,
       "fupermod_standin_sim_param gives duplex %g, pitched_eff_contiguous %g, h2d_pinned %g, and refuses a key it "
       "does not give", v[0], v[1], v[2]);
  }
}

static void copies(void) {
  double t, t0, t1;
  start();
  cudaMemcpyAsync(d1, p1, (size_t)GB, cudaMemcpyHostToDevice, s2);
  t = finish();
  ok(near(t, LAT + GB / PINNED), "a pinned 1 GB copy takes 1/55 s: %.6f s", t);
  start();
  cudaMemcpyAsync(d1, p1, (size_t)GB, cudaMemcpyHostToDevice, s2);
  cudaMemcpyAsync(p2, d2, (size_t)GB, cudaMemcpyDeviceToHost, s3);
  t = finish();
  /* the copy up keeps its rate; the copy down, queued beside it, moves at 2 duplex - 1 of its rate
   * until the copy up ends (half of its gigabyte), then at its own */
  ok(near(t, LAT + (1 + (1 - (2 * DUPLEX - 1))) * GB / PINNED),
     "copies in opposite directions on two streams overlap, sharing the link (duplex %g): %.6f s", DUPLEX, t);
  start();
  cudaMemcpyAsync(d1, p1, (size_t)GB, cudaMemcpyHostToDevice, s2);
  cudaMemcpyAsync(p2, d2, (size_t)GB / 2, cudaMemcpyDeviceToHost, s3);
  cudaMemcpyAsync(p2, d2, (size_t)GB / 2, cudaMemcpyDeviceToHost, s3);
  t = finish();
  ok(near(t, 2 * LAT + (1 + (1 - (2 * DUPLEX - 1))) * GB / PINNED),
     "the link's share holds across copies: one up beside two down of half the size: %.6f s", t);
  start();
  cudaMemcpyAsync(d1, p1, (size_t)GB, cudaMemcpyHostToDevice, s2);
  cudaEventRecord(ev, s2);
  cudaStreamWaitEvent(s3, ev, 0);
  cudaMemcpyAsync(p2, d2, (size_t)GB, cudaMemcpyDeviceToHost, s3);
  t = finish();
  ok(near(t, 2 * (LAT + GB / PINNED)), "copies in opposite directions one after the other do not share: %.6f s", t);
  start();
  cudaMemcpyAsync(d1, p1, (size_t)GB, cudaMemcpyHostToDevice, s2);
  cudaMemcpyAsync(d2, p2, (size_t)GB, cudaMemcpyHostToDevice, s3);
  t = finish();
  ok(near(t, 2 * (LAT + GB / PINNED)), "copies in the same direction on two streams serialise: %.6f s", t);
  /* 2D copies move row by row: rows that lie apart on either side at pitched_eff, rows adjacent on
   * both sides at pitched_eff_contiguous, a plain copy of the same bytes at the full rate */
  {
    const size_t w = 32768, rows = 8192;
    double gap[2], dense, plain;
    for (int side = 0; side < 2; side++) { /* the gaps on the host's side, then on the device's */
      start();
      cudaMemcpy2DAsync(d1, side ? 2 * w : w, p1, side ? w : 2 * w, w, rows, cudaMemcpyHostToDevice, s2);
      gap[side] = finish();
    }
    start();
    cudaMemcpy2DAsync(d1, w, p1, w, w, rows, cudaMemcpyHostToDevice, s2);
    dense = finish();
    start();
    cudaMemcpyAsync(d1, p1, w * rows, cudaMemcpyHostToDevice, s2);
    plain = finish();
    ok(near(gap[0], LAT + w * rows / (PINNED * ROW_EFF) + rows * ROW) && near(gap[1], gap[0]),
       "a 2D copy of 8192 rows of 32 KB 64 KB apart on the host (on the device) takes 8192 x %g s + its bytes at %g of "
       "the rate: %.6f s (%.6f s)", ROW, ROW_EFF, gap[0], gap[1]);
    ok(near(dense, LAT + w * rows / (PINNED * ROW_EFF_CONTIG) + rows * ROW) && near(plain, LAT + w * rows / PINNED),
       "the same rows adjacent: at %g of the rate, %.6f s; as one plain copy, %.6f s", ROW_EFF_CONTIG, dense, plain);
  }
  /* the host goes on during a pinned copy, and waits for it at a synchronisation */
  start();
  t0 = fupermod_standin_sim_time();
  cudaMemcpyAsync(d1, p1, (size_t)GB, cudaMemcpyHostToDevice, s2);
  t1 = fupermod_standin_sim_time();
  ok(t1 - t0 < SLACK, "an asynchronous pinned copy does not hold the host (%g s)", t1 - t0);
  t = finish();
  t1 = fupermod_standin_sim_time();
  ok(t1 - t0 >= gemm_s(N16, N16, N16, 59.5e12) - SLACK && t1 - t0 >= t,
     "the host waits for the device at cudaEventSynchronize (%g s)", t1 - t0);
  /* a pageable copy holds the host, either way */
  for (int up = 1; up >= 0; up--) {
    cudaDeviceSynchronize();
    t0 = fupermod_standin_sim_time();
    if (up) cudaMemcpyAsync(d1, page, (size_t)GB, cudaMemcpyHostToDevice, s2);
    else cudaMemcpyAsync(page, d1, (size_t)GB, cudaMemcpyDeviceToHost, s2);
    t1 = fupermod_standin_sim_time();
    ok(t1 - t0 >= LAT + GB / PAGEABLE && t1 - t0 < LAT + GB / PAGEABLE + SLACK,
       "a pageable 1 GB copy %s holds the host for 1/8 s: %.6f s", up ? "to the device" : "back", t1 - t0);
  }
}

static void compute(void) {
  double t, tg = gemm_s(8192, 8192, 8192, 64.7e12), tc = LAT + GB / PINNED;
  float ms;
  start();
  gemm_on(s3, 8192);
  t = finish();
  ok(near(t, tg), "a DGEMM of n = 8192 takes 2 n^3 / 64.7e12 s: %.6f s", t);
  start();
  cublasSetStream(h, s3);
  cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, N16, N16, 1024, &one, big, N16, big, 1024, &zero, big, N16);
  t = finish();
  ok(near(t, gemm_s(N16, N16, 1024, 55.6e12)), "the SUMMA update m = n = 16384, k = 1024 runs at 55.6 TFLOP/s: %.6f s",
     t);
  start();
  cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, N16, N16, 2048, &one, big, N16, big, 2048, &zero, big, N16);
  t = finish();
  ok(t < gemm_s(N16, N16, 2048, 55.6e12) && t > gemm_s(N16, N16, 2048, 57.2e12),
     "k = 2048, not measured, runs between the rates of k = 1024 and 4096: %.6f s", t);
  start();
  gemm_on(s3, 8192);
  cudaMemcpyAsync(d1, p1, (size_t)GB, cudaMemcpyHostToDevice, s2);
  t = finish();
  ok(near(t, fmax(tg, tc)), "a GEMM overlaps a copy on another stream: %.6f s", t);
  start();
  cudaMemcpyAsync(d1, p1, (size_t)GB, cudaMemcpyHostToDevice, s2);
  cudaEventRecord(ev, s2);
  cudaStreamWaitEvent(s3, ev, 0);
  gemm_on(s3, 8192);
  t = finish();
  ok(near(t, tg + tc), "an event makes the GEMM wait for the copy: %.6f s", t);
  ms = -1;
  cudaEventElapsedTime(&ms, e0, ev);
  ok(near(1e-3 * ms, tc), "cudaEventElapsedTime between the streams' events: %.6f s", 1e-3 * ms);
}

static void nothing(void *arg) { (void)arg; }

/* Seconds of one FFT launch of the stand-in cuFFT's cost on stream s3 (c->m = 0: a launch of
 * unknown shape). */
static double fft_launch(const standin_cost *c) {
  start();
  fupermod_standin_enqueue_cost(s3, 0, c, nothing, NULL, NULL);
  return finish();
}

/* An FFT's cost: its flops at the FFT rate plus a launch overhead; a strided one memory-bound at
 * the sector efficiency where that is slower. */
static void ffts(void) {
  const double m = 16384, lg = 14;
  standin_cost big = {STANDIN_COST_FFT, 5 * m * lg * m, m, m, 1, 0};
  standin_cost unknown = {STANDIN_COST_FFT, 5 * m * lg * m, 0, 0, 0, 0};
  standin_cost panel = {STANDIN_COST_FFT, 5 * m * lg * 4, m, 4, m, 0};
  standin_cost contiguous = {STANDIN_COST_FFT, 5 * m * lg * 4, m, 4, 1, 0};
  standin_cost small = {STANDIN_COST_FFT, 5 * 64 * 6 * 4096, 64, 4096, 4096, 0};
  double t;
  t = fft_launch(&unknown);
  ok(near(t, LAT + big.flops / FFT_RATE), "an FFT of unknown shape costs its flops at the FFT rate: %.6f s", t);
  t = fft_launch(&big);
  ok(near(t, LAT + FFT_LAUNCH + big.flops / FFT_RATE), "a batched FFT launch adds its launch cost once: %.6f s", t);
  t = fft_launch(&panel);
  ok(near(t, LAT + FFT_LAUNCH + fmax(panel.flops / FFT_RATE, 2 * 16 * m * 4 / (HBM / 2))) &&
         near(fft_launch(&contiguous), LAT + FFT_LAUNCH + contiguous.flops / FFT_RATE),
     "a strided panel of 4 transforms of 16384 points: %.3g s, its launch most of it", t);
  t = fft_launch(&small);
  ok(near(t, LAT + FFT_LAUNCH + 2 * 16 * 64 * 4096 / (HBM / 2)) && 2 * 16 * 64 * 4096 / (HBM / 2) > small.flops / FFT_RATE,
     "4096 strided transforms of 64 points are memory-bound at half the memory bandwidth (32-byte sectors): %.3g s, "
     "not their flops' %.3g s", t, LAT + FFT_LAUNCH + small.flops / FFT_RATE);
}

/* The host's own time: real time between calls; and fupermod_time follows the virtual clock. */
static void host_clock(void) {
  double t0 = fupermod_standin_sim_time(), r0 = real_now(), t1, f0, f1;
  while (real_now() - r0 < 0.02) {}
  t1 = fupermod_standin_sim_time();
  ok(t1 - t0 >= 0.02, "the host's work counts at its real time (%g s for 0.02)", t1 - t0);
  f0 = fupermod_time();
  ok(fabs(f0 - fupermod_standin_sim_time()) < 0.01, "fupermod_time() reads the virtual clock (%g vs %g)", f0,
     fupermod_standin_sim_time());
  gemm_on(s1, N16);
  cudaStreamSynchronize(s1);
  f1 = fupermod_time();
  ok(f1 - f0 >= gemm_s(N16, N16, N16, 59.5e12) && f1 - f0 < gemm_s(N16, N16, N16, 59.5e12) + SLACK,
     "fupermod_time() around a DGEMM of n = 16384 and its synchronisation: %.6f s", f1 - f0);
}

/* The same GEMM and copies with and without their payload. */
static void payload(void) {
  enum { N = 256 };
  double *A, *C, *hA, *hC, t[2], r0, r1, rate;
  int right = 1;
  cudaMallocHost((void **)&hA, N * N * sizeof *hA);
  cudaMallocHost((void **)&hC, N * N * sizeof *hC);
  unsetenv("FAKE_CUDA_NOPAYLOAD");
  cudaMalloc((void **)&A, N * N * sizeof *A);
  cudaMalloc((void **)&C, N * N * sizeof *C);
  for (int k = 0; k < 2; k++) {
    if (k) setenv("FAKE_CUDA_NOPAYLOAD", "1", 1);
    for (int i = 0; i < N * N; i++) hA[i] = 1.0, hC[i] = -1.0;
    start();
    cudaMemcpyAsync(A, hA, N * N * sizeof *A, cudaMemcpyHostToDevice, s3);
    cublasSetStream(h, s3);
    cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, N, N, N, &one, A, N, A, N, &zero, C, N);
    cudaMemcpyAsync(hC, C, N * N * sizeof *C, cudaMemcpyDeviceToHost, s3);
    t[k] = finish();
    for (int i = 0; i < N * N; i++) right &= hC[i] == (k ? -1.0 : (double)N);
  }
  ok(right, "with the payload the product is computed and copied back; without it, neither");
  rate = 2.0 * N * N * N / (t[0] - 3 * LAT - 2 * N * N * 8.0 / PINNED);
  ok(rate > 1e12 && rate < 44.6e12, "a GEMM of n = 256 runs slower than the measured shapes: %g FLOP/s", rate);
  ok(t[0] == t[1], "the simulated times with and without the payload are equal (%.9f s, %.9f s)", t[0], t[1]);
  r0 = real_now();
  gemm_on(s1, N16);
  cudaStreamSynchronize(s1);
  r1 = real_now();
  ok(r1 - r0 < 1.0, "without the payload a DGEMM of n = 16384 takes %g s of real time", r1 - r0);
  cudaFree(A);
  cudaFree(C);
  cudaFreeHost(hA);
  cudaFreeHost(hC);
}

static int order[8], norder;
static void note(void *k) { order[norder++] = (int)(intptr_t)k; }

/* Host functions on two non-blocking streams, s2's queued first; f1 waits for f3 (an event). */
static void run_notes(void) {
  cudaStream_t a, b;
  cudaEvent_t x;
  norder = 0;
  cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking);
  cudaEventCreate(&x);
  cudaLaunchHostFunc(b, note, (void *)3);
  cudaLaunchHostFunc(b, note, (void *)4);
  cudaEventRecord(x, b);
  cudaLaunchHostFunc(a, note, (void *)1);
  cudaStreamWaitEvent(a, x, 0);
  cudaLaunchHostFunc(a, note, (void *)2);
  cudaDeviceSynchronize();
  cudaEventDestroy(x);
  cudaStreamDestroy(a);
  cudaStreamDestroy(b);
}

static void adversarial(void) {
  int def[4], adv[4], legal;
  run_notes();
  memcpy(def, order, sizeof def);
  setenv("FAKE_CUDA_ORDER", "adversarial", 1);
  run_notes();
  memcpy(adv, order, sizeof adv);
  legal = norder == 4;
  for (int i = 0, seen3 = 0, seen4 = 0, seen1 = 0; i < 4; i++) {
    seen3 |= adv[i] == 3, seen1 |= adv[i] == 1;
    if (adv[i] == 4) legal &= seen3, seen4 = 1;
    if (adv[i] == 2) legal &= seen1 && seen4;
  }
  ok(memcmp(def, adv, sizeof def) != 0 && legal,
     "the adversarial order differs (%d %d %d %d, was %d %d %d %d) and is legal",
     adv[0], adv[1], adv[2], adv[3], def[0], def[1], def[2], def[3]);
  unsetenv("FAKE_CUDA_ORDER");
}

/* A correctly synchronised pipeline gives the same result and times in the adversarial order. */
static void pipeline(void) {
  enum { N = 64 };
  double *A, *C, *hA, *hC, t[2];
  int right = 1;
  unsetenv("FAKE_CUDA_NOPAYLOAD");
  cudaMallocHost((void **)&hA, N * N * sizeof *hA);
  cudaMallocHost((void **)&hC, N * N * sizeof *hC);
  cudaMalloc((void **)&A, N * N * sizeof *A);
  cudaMalloc((void **)&C, N * N * sizeof *C);
  for (int k = 0; k < 2; k++) {
    if (k) setenv("FAKE_CUDA_ORDER", "adversarial", 1);
    for (int i = 0; i < N * N; i++) hA[i] = (double)(i % 7), hC[i] = -1.0;
    cudaMemset(C, 0xFF, N * N * sizeof *C);
    start();
    cudaMemcpyAsync(A, hA, N * N * sizeof *A, cudaMemcpyHostToDevice, s2);
    cudaEventRecord(ev, s2);
    cudaStreamWaitEvent(s3, ev, 0);
    cublasSetStream(h, s3);
    cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, N, N, N, &one, A, N, A, N, &zero, C, N);
    cudaEventRecord(ev, s3);
    cudaStreamWaitEvent(s2, ev, 0);
    cudaMemcpyAsync(hC, C, N * N * sizeof *C, cudaMemcpyDeviceToHost, s2);
    t[k] = finish();
    for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++) {
        double c = 0;
        for (int l = 0; l < N; l++) c += hA[i + l * N] * hA[j + l * N];
        right &= hC[i + j * N] == c;
      }
  }
  unsetenv("FAKE_CUDA_ORDER");
  setenv("FAKE_CUDA_NOPAYLOAD", "1", 1);
  ok(right && t[0] == t[1], "a synchronised pipeline over two streams gives the same product and time (%.9f s) "
     "in the adversarial order", t[1]);
  cudaFree(A);
  cudaFree(C);
  cudaFreeHost(hA);
  cudaFreeHost(hC);
}

static void strict(void) {
  cudaError_t a, b, c;
  setenv("FAKE_CUDA_STRICT", "1", 1);
  a = cudaMemcpyAsync(d1, page, 4096, cudaMemcpyHostToDevice, s2);
  b = cudaMemcpyAsync(d1, p1, 4096, cudaMemcpyHostToDevice, s2);
  c = cudaMemcpy(page, d1, 4096, cudaMemcpyDeviceToHost);
  cudaGetLastError();
  ok(a == cudaErrorInvalidValue && b == cudaSuccess && c == cudaSuccess,
     "strict mode refuses an asynchronous copy of pageable memory (%d), not of pinned (%d), nor a blocking one (%d)",
     (int)a, (int)b, (int)c);
  unsetenv("FAKE_CUDA_STRICT");
}

int main(void) {
  char dir[4096], where[4096];
  /* a simulated H100 with its 80 GB; large buffers are never touched without the payload */
  setenv("FAKE_CUDA_SIM", "h100", 1);
  setenv("FAKE_CUDA_DEVICES", "1", 1);
  setenv("FAKE_CUDA_NOPAYLOAD", "1", 1);
  unsetenv("FAKE_CUDA_MEM");
  unsetenv("FAKE_CUDA_ORDER");
  unsetenv("FAKE_CUDA_STRICT");
  standin_build_dir(dir, sizeof dir);
  ok(standin_all(dir, "cudart cublas", where, sizeof where), "the CUDA is the stand-in: %s", where);
  description();
  cudaStreamCreate(&s1);
  cudaStreamCreate(&s2);
  cudaStreamCreate(&s3);
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  cudaEventCreate(&ev);
  cublasCreate(&h);
  if (cudaMalloc((void **)&big, (size_t)N16 * N16 * sizeof *big) != cudaSuccess ||
      cudaMalloc((void **)&d1, (size_t)GB) != cudaSuccess || cudaMalloc((void **)&d2, (size_t)GB) != cudaSuccess ||
      cudaMallocHost((void **)&p1, (size_t)GB) != cudaSuccess ||
      cudaMallocHost((void **)&p2, (size_t)GB) != cudaSuccess ||
      !(page = malloc((size_t)GB))) {
    diag("cannot allocate the test's buffers");
    return 1;
  }
  copies();
  compute();
  ffts();
  host_clock();
  payload();
  adversarial();
  pipeline();
  strict();
  cublasDestroy(h);
  cudaFree(big);
  cudaFree(d1);
  cudaFree(d2);
  cudaFreeHost(p1);
  cudaFreeHost(p2);
  free(page);
  return done_testing();
}
#endif
