/* The bundled computational kernels: loading, self-checks, complexity formulas, the
 * initialize/execute/finalize life cycle, option and size errors, a benchmark on MPI_COMM_SELF,
 * OpenBLAS (not GSL's reference CBLAS) behind dgemm, and the "no device" path of the CUDA kernels
 * (their GPU path under tests/standin_kernels.sh, on the stand-in CUDA of tests/fake_cuda). */
#include "config.h"
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <mpi.h>
#include <fftw3.h>
#include "fupermod/fupermod.h"
#include "tests/tap.h"
#include "tests/standin_check.h"

/* The formulas of docs/kernels.md, computed here independently of the kernels. */
static double dgemm_c(long d, long b) {
  long m = 0, cols;
  while ((m + 1) * (m + 1) <= d) m++;
  cols = (2 * d * b + m) / (2 * m); /* round(d b^2 / (m b)) */
  return 2.0 * (double)(m * b) * (double)cols * (double)b;
}

typedef struct {
  const char *name;
  const char *subopts; /* small sizes so that the suite stays fast */
  const char *size_opt; /* the size sub-option that must reject -3 */
  double (*c)(long d);  /* expected complexity with subopts */
  long mid;             /* a mid size for the benchmark */
} kspec;

static double c_dgemm(long d) { return dgemm_c(d, 16); }
static double c_rows(long d) { return 2.0 * (double)d * 64.0 * 64.0; }
static double c_fft(long d) { return 5.0 * 256.0 * 8.0 * (double)d; }
static double c_jacobi(long d) { return 2.0 * 100.0 * (double)d; }

static const kspec kernels[] = {
  {"dgemm", "b=16", "b", c_dgemm, 40},
  {"dgemm-rows", "n=64", "n", c_rows, 64},
  {"fft-rows", "n=256", "n", c_fft, 64},
  {"jacobi-rows", "n=100", "n", c_jacobi, 200},
};

static int msg_has(const char *s) { return strstr(fupermod_error_message(), s) != NULL; }

static void test_kernel(const kspec *ks) {
  fupermod_kernel *k = NULL;
  static const long ds[] = {1, 2, 7, 10, 12, 30};
  char sub[256], opt[64];
  int rc, good;
  rc = fupermod_kernel_load(ks->name, ks->subopts, &k);
  if (!ok(rc == FUPERMOD_SUCCESS && k && strcmp(k->ops->name, ks->name) == 0, "%s: loads by name (%s)", ks->name,
          rc ? fupermod_error_message() : "ok")) {
    return;
  }
  rc = k->ops->verify ? k->ops->verify(k->ctx) : -100;
  ok(rc == FUPERMOD_SUCCESS, "%s: self-check passes (%s)", ks->name, rc == -100 ? "no verify" : rc ? fupermod_error_message() : "ok");

  good = 1;
  for (size_t i = 0; i < sizeof ds / sizeof ds[0]; i++) {
    double got = fupermod_kernel_complexity(k, ds[i]), want = ks->c(ds[i]);
    if (fabs(got - want) > 1e-12 * want) {
      diag("%s: complexity(%ld) = %.17g, want %.17g", ks->name, ds[i], got, want);
      good = 0;
    }
  }
  ok(good, "%s: complexity follows the documented formula", ks->name);

  good = 1;
  for (size_t i = 0; i < sizeof ds / sizeof ds[0] && good; i++) {
    if ((rc = k->ops->initialize(ds[i], k->ctx)) != FUPERMOD_SUCCESS ||
        (rc = k->ops->execute(k->ctx)) != FUPERMOD_SUCCESS || (rc = k->ops->execute(k->ctx)) != FUPERMOD_SUCCESS ||
        (rc = k->ops->finalize(k->ctx)) != FUPERMOD_SUCCESS) {
      diag("%s at d=%ld: %s", ks->name, ds[i], fupermod_error_message());
      good = 0;
    }
  }
  ok(good, "%s: initialize/execute/finalize at d = 1, 2, 7, 10, 12, 30", ks->name);
  ok(k->ops->initialize(9, k->ctx) == 0 && k->ops->initialize(3, k->ctx) == 0 && k->ops->execute(k->ctx) == 0 &&
         k->ops->finalize(k->ctx) == 0 && k->ops->finalize(k->ctx) == 0 && k->ops->initialize(5, k->ctx) == 0 &&
         k->ops->execute(k->ctx) == 0 && k->ops->finalize(k->ctx) == 0,
     "%s: initialize twice, finalize twice, initialize again", ks->name);
  ok(k->ops->execute(k->ctx) == FUPERMOD_ERR_USAGE && msg_has("before initialize"),
     "%s: execute without initialize is refused", ks->name);
  ok(k->ops->initialize(0, k->ctx) == FUPERMOD_ERR_USAGE && msg_has("d must be > 0") &&
         k->ops->initialize(-4, k->ctx) == FUPERMOD_ERR_USAGE,
     "%s: d <= 0 is refused", ks->name);
  rc = k->ops->initialize(1L << 40, k->ctx);
  ok(rc == FUPERMOD_ERR_INPUT && msg_has("d=1099511627776") && msg_has("bytes"),
     "%s: a size beyond memory is refused, naming d and the bytes (%s)", ks->name, fupermod_error_message());
  if (rc == FUPERMOD_SUCCESS) k->ops->finalize(k->ctx);

  {
    fupermod_precision prec = {3, 20, 0.95, 0.2, 2.0, 0.0, 0};
    fupermod_point pt = FUPERMOD_POINT_INIT;
    rc = fupermod_benchmark(k, ks->mid, &prec, MPI_COMM_SELF, &pt);
    ok(rc == FUPERMOD_SUCCESS && pt.d == ks->mid && pt.t > 0 && isfinite(pt.t) && pt.t < 2.0 && pt.reps >= 3 &&
           pt.ci >= 0 && pt.e < 0,
       "%s: benchmark of d=%ld: t=%.3g s, reps=%d, ci=%.2g, %.3g GFLOP/s", ks->name, ks->mid, pt.t, pt.reps, pt.ci,
       pt.t > 0 ? fupermod_kernel_complexity(k, ks->mid) / pt.t * 1e-9 : 0.0);
  }
  fupermod_kernel_unload(k);

  /* sub-option errors name the option; unknown keys (kernel=, ...) of a configuration line pass */
  snprintf(sub, sizeof sub, "%s=-3", ks->size_opt);
  snprintf(opt, sizeof opt, "%s=-3", ks->size_opt);
  ok(fupermod_kernel_load(ks->name, sub, &k) == FUPERMOD_ERR_USAGE && msg_has(opt), "%s: %s refused (%s)", ks->name,
     sub, fupermod_error_message());
  snprintf(sub, sizeof sub, "%s=0", ks->size_opt);
  snprintf(opt, sizeof opt, "%s=0", ks->size_opt);
  ok(fupermod_kernel_load(ks->name, sub, &k) == FUPERMOD_ERR_USAGE && msg_has(opt), "%s: %s refused", ks->name, sub);
  snprintf(sub, sizeof sub, "%s=12abc", ks->size_opt);
  ok(fupermod_kernel_load(ks->name, sub, &k) == FUPERMOD_ERR_USAGE && msg_has(ks->size_opt), "%s: %s refused",
     ks->name, sub);
  snprintf(sub, sizeof sub, "kernel=%s,%s,bind=none", ks->name, ks->subopts);
  rc = fupermod_kernel_load(ks->name, sub, &k);
  ok(rc == FUPERMOD_SUCCESS && fupermod_kernel_complexity(k, 7) == ks->c(7),
     "%s: sub-options of other components are ignored", ks->name);
  if (rc == FUPERMOD_SUCCESS) fupermod_kernel_unload(k);
}

typedef void (*dgemm_fn)(int, int, int, int, int, int, double, const double *, int, const double *, int, double,
                         double *, int);

/* Speed of dgemm against GSL's reference CBLAS on the kernel's own GEMM shape, both measured
 * now (best of several runs, so that load on the machine affects both alike). The kernel is
 * loaded into a program that does not link OpenBLAS, where a plain cblas_dgemm would bind to
 * GSL's (libfupermod needs libgsl, which needs libgslcblas). */
static void test_dgemm_speed(void) {
  fupermod_kernel *k = NULL;
  const long b = 64, d = 36, rows = 6 * b; /* 6 x 6 blocks: 384 x 384 += (384 x 64)(64 x 384) */
  void *h = dlopen("libgslcblas.so.0", RTLD_NOW | RTLD_LOCAL);
  dgemm_fn ref = h ? (dgemm_fn)dlsym(h, "cblas_dgemm") : NULL;
  double best_k = 1e30, best_r = 1e30, flops;
  double *A, *B, *C;
  if (!ref) {
    skip("libgslcblas.so.0 not available for the reference speed");
    if (h) dlclose(h);
    return;
  }
  if (fupermod_kernel_load("dgemm", "b=64", &k) != FUPERMOD_SUCCESS || k->ops->initialize(d, k->ctx) != 0) {
    ok(0, "dgemm b=64 d=36 for the speed comparison: %s", fupermod_error_message());
    dlclose(h);
    return;
  }
  flops = fupermod_kernel_complexity(k, d);
  A = calloc((size_t)(rows * b), sizeof *A);
  B = calloc((size_t)(rows * b), sizeof *B);
  C = calloc((size_t)(rows * rows), sizeof *C);
  for (long i = 0; i < rows * b; i++) A[i] = B[i] = 0.001 * (double)(i % 17);
  k->ops->execute(k->ctx); /* warm up both */
  ref(101, 111, 111, (int)rows, (int)rows, (int)b, 1.0, A, (int)b, B, (int)rows, 1.0, C, (int)rows);
  for (int r = 0; r < 7; r++) {
    double t0 = fupermod_time(), t1;
    k->ops->execute(k->ctx);
    t1 = fupermod_time();
    if (t1 - t0 < best_k) best_k = t1 - t0;
    t0 = fupermod_time();
    /* 101 = CblasRowMajor, 111 = CblasNoTrans */
    ref(101, 111, 111, (int)rows, (int)rows, (int)b, 1.0, A, (int)b, B, (int)rows, 1.0, C, (int)rows);
    t1 = fupermod_time();
    if (t1 - t0 < best_r) best_r = t1 - t0;
  }
  diag("dgemm kernel %.2f GFLOP/s, GSL reference CBLAS %.2f GFLOP/s (best of 7)", flops / best_k * 1e-9,
       flops / best_r * 1e-9);
  ok(best_k * 2.5 < best_r, "dgemm runs OpenBLAS: over 2.5x the speed of GSL's reference CBLAS (%.1fx)",
     best_r / best_k);
  free(A), free(B), free(C);
  k->ops->finalize(k->ctx);
  fupermod_kernel_unload(k);
  dlclose(h);
}

static void test_specifics(void) {
  fupermod_kernel *k = NULL;
  int rc;
  /* dgemm */
  rc = fupermod_kernel_load("dgemm", "", &k);
  ok(rc == 0 && fupermod_kernel_complexity(k, 1) == 2.0 * 64 * 64 * 64, "dgemm: default b=64, C(1) = 2 b^3");
  if (rc == 0) fupermod_kernel_unload(k);
  rc = fupermod_kernel_load("dgemm", "b=10", &k);
  ok(rc == 0 && fupermod_kernel_complexity(k, 10) == 2.0 * 30 * 33 * 10 &&
         fupermod_kernel_complexity(k, 10) > fupermod_kernel_complexity(k, 9) &&
         fupermod_kernel_complexity(k, 12) == 2.0 * 30 * 40 * 10 && fupermod_kernel_complexity(k, 3) == 2.0 * 10 * 30 * 10,
     "dgemm: d=10 runs a 30 x 33 rectangle (not 3x3 blocks), d=12 30 x 40, d=3 10 x 30");
  if (rc == 0) {
    /* the area is d b^2 to within one column (at most m b elements) for every d */
    int good = 1;
    for (long d = 1; d <= 3000 && good; d++) {
      double area = fupermod_kernel_complexity(k, d) / (2.0 * 10), m = floor(sqrt((double)d));
      if (fabs(area - 100.0 * (double)d) > m * 10 / 2.0 + 1e-9) {
        diag("d=%ld: area %g, want %g to within %g", d, area, 100.0 * (double)d, m * 10 / 2.0);
        good = 0;
      }
    }
    ok(good, "dgemm: the rectangle's area is d b^2 to within half a column, d = 1..3000");
  }
  if (rc == 0) fupermod_kernel_unload(k);
  ok(fupermod_kernel_load("dgemm", "b=0", &k) == FUPERMOD_ERR_USAGE && msg_has("b=0"), "dgemm: b=0 refused (%s)",
     fupermod_error_message());
  ok(fupermod_kernel_load("dgemm", "threads=x", &k) == FUPERMOD_ERR_USAGE && msg_has("threads=x"),
     "dgemm: threads=x refused (%s)", fupermod_error_message());
  ok(fupermod_kernel_load("dgemm-rows", "threads=0", &k) == FUPERMOD_ERR_USAGE && msg_has("threads=0"),
     "dgemm-rows: threads=0 refused");
  ok(fupermod_kernel_load("fft-rows", "threads=two", &k) == FUPERMOD_ERR_USAGE && msg_has("threads=two"),
     "fft-rows: threads=two refused");
  ok(fupermod_kernel_load("fft-rows", "n=1", &k) == FUPERMOD_ERR_USAGE && msg_has("n=1"),
     "fft-rows: n=1 refused (a 1-point FFT does no work)");
  ok(fupermod_kernel_load("fft-rows", "wisdom=/nonexistent/w.fftw", &k) == FUPERMOD_ERR_INPUT &&
         msg_has("/nonexistent/w.fftw"),
     "fft-rows: unreadable wisdom file named");
  rc = fupermod_kernel_load("fft-rows", "", &k);
  ok(rc == 0 && fupermod_kernel_complexity(k, 3) == 5.0 * 4096 * 12 * 3, "fft-rows: default n=4096, C(d) = 5 n log2 n d");
  if (rc == 0) fupermod_kernel_unload(k);
  rc = fupermod_kernel_load("jacobi-rows", "", &k);
  ok(rc == 0 && fupermod_kernel_complexity(k, 3) == 2.0 * 4096 * 3, "jacobi-rows: default n=4096, C(d) = 2 n d");
  if (rc == 0) fupermod_kernel_unload(k);
  rc = fupermod_kernel_load("dgemm-rows", "", &k);
  ok(rc == 0 && fupermod_kernel_complexity(k, 3) == 2.0 * 2048 * 2048 * 3, "dgemm-rows: default n=2048, C(d) = 2 d n^2");
  if (rc == 0) fupermod_kernel_unload(k);

  /* threads: FFTW's OpenMP planner and OpenBLAS threads, checked numerically */
  rc = fupermod_kernel_load("fft-rows", "n=128,threads=2", &k);
  ok(rc == 0 && k->ops->verify(k->ctx) == 0 && k->ops->initialize(40, k->ctx) == 0 && k->ops->execute(k->ctx) == 0 &&
         k->ops->finalize(k->ctx) == 0,
     "fft-rows with threads=2 verifies and runs");
  if (rc == 0) fupermod_kernel_unload(k);
  rc = fupermod_kernel_load("dgemm", "b=32,threads=2", &k);
  ok(rc == 0 && k->ops->verify(k->ctx) == 0 && k->ops->initialize(20, k->ctx) == 0 && k->ops->execute(k->ctx) == 0 &&
         k->ops->finalize(k->ctx) == 0,
     "dgemm with threads=2 verifies and runs");
  if (rc == 0) fupermod_kernel_unload(k);
  /* back to one thread for the rest of the process (OpenBLAS's setting is global) */
  if (fupermod_kernel_load("dgemm", "b=8,threads=1", &k) == 0) {
    k->ops->initialize(1, k->ctx);
    k->ops->finalize(k->ctx);
    fupermod_kernel_unload(k);
  }
}

/* wisdom=FILE: wisdom exported by a program that planned the same batched transform is imported
 * into FFTW, and the kernel plans and verifies with it. */
static void test_fft_wisdom(void) {
  char path[] = "/tmp/fupermod-wisdom-XXXXXX", sub[128];
  int n = 64, fd = mkstemp(path), rc;
  /* the kernel plans with one thread unless told otherwise; match it (the setting is global) */
  int threads = fftw_init_threads() && (fftw_plan_with_nthreads(1), 1);
  fftw_complex *in = fftw_malloc(4 * 64 * sizeof *in), *out = fftw_malloc(4 * 64 * sizeof *out);
  fftw_plan p = fftw_plan_many_dft(1, &n, 4, in, NULL, 1, n, out, NULL, 1, n, FFTW_FORWARD, FFTW_MEASURE);
  fupermod_kernel *k = NULL;
  if (fd >= 0) close(fd);
  ok(threads && fd >= 0 && p && fftw_export_wisdom_to_filename(path), "fft-rows: wisdom file written for 4 rows of 64");
  fftw_destroy_plan(p);
  fftw_forget_wisdom();
  snprintf(sub, sizeof sub, "n=64,place=out,wisdom=%s", path); /* the wisdom's plan is out of place */
  rc = fupermod_kernel_load("fft-rows", sub, &k);
  fftw_plan_with_nthreads(1);
  p = fftw_plan_many_dft(1, &n, 4, in, NULL, 1, n, out, NULL, 1, n, FFTW_FORWARD, FFTW_MEASURE | FFTW_WISDOM_ONLY);
  ok(rc == 0 && p != NULL, "fft-rows: wisdom=FILE imports the wisdom (%s)", rc ? fupermod_error_message() : "ok");
  if (p) fftw_destroy_plan(p);
  ok(rc == 0 && k->ops->initialize(4, k->ctx) == 0 && k->ops->execute(k->ctx) == 0 && k->ops->finalize(k->ctx) == 0 &&
         k->ops->verify(k->ctx) == 0,
     "fft-rows: plans, runs and verifies with the wisdom");
  if (rc == 0) fupermod_kernel_unload(k);
  fftw_free(in);
  fftw_free(out);
  remove(path);
  /* place=in (the default, as apps/fft2d) or out; anything else is refused by name */
  rc = fupermod_kernel_load("fft-rows", "n=64,place=sideways", &k);
  ok(rc == FUPERMOD_ERR_USAGE && msg_has("place"), "fft-rows: place=sideways refused (%s)", fupermod_error_message());
  for (int pl = 0; pl < 2; pl++) {
    rc = fupermod_kernel_load("fft-rows", pl ? "n=64,place=out" : "n=64,place=in", &k);
    /* 70 runs in place pass two refills; verify checks a refill run against the DFT */
    int good = rc == 0 && k->ops->verify(k->ctx) == 0 && k->ops->initialize(3, k->ctx) == 0;
    for (int r = 0; good && r < 70; r++) good = k->ops->execute(k->ctx) == 0;
    good = good && k->ops->finalize(k->ctx) == 0;
    ok(good, "fft-rows: place=%s verifies and runs 70 times", pl ? "out" : "in");
    if (rc == 0) fupermod_kernel_unload(k);
  }
}

static void test_cuda(const char *name, const char *size_opt) {
  char path[1024], sub[64];
  const char *dir = getenv("FUPERMOD_KERNEL_PATH");
  const fupermod_kernel_ops *ops;
  fupermod_kernel *k = NULL;
  void *h, *ctx = NULL;
  int rc;
#ifndef FUPERMOD_HAVE_CUDA
  skip("CUDA kernels not built (configure found no CUDA toolkit)");
  return;
#endif
  if (!dir) {
    skip("FUPERMOD_KERNEL_PATH not set");
    return;
  }
  snprintf(path, sizeof path, "%s/fupermod_kernel_%s.so", dir, name);
  h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  ops = h ? (const fupermod_kernel_ops *)dlsym(h, "fupermod_kernel_plugin") : NULL;
  if (!ok(ops && ops->api_version == FUPERMOD_KERNEL_API && strcmp(ops->name, name) == 0 && ops->verify,
          "%s: built, loads, and exports a complete kernel (%s)", name, h ? "ok" : dlerror())) {
    if (h) dlclose(h);
    return;
  }
  snprintf(sub, sizeof sub, "%s=-3", size_opt);
  ok(ops->create(sub, &ctx) == FUPERMOD_ERR_USAGE && msg_has(sub), "%s: %s refused before any device is touched", name,
     sub);
  ok(ops->create("device=x", &ctx) == FUPERMOD_ERR_USAGE && msg_has("device=x"), "%s: device=x refused", name);
  dlclose(h);
  if (fupermod_cuda_device_count() == 0) {
    rc = fupermod_kernel_load(name, "", &k);
    ok(rc == FUPERMOD_ERR_NODEVICE && k == NULL && msg_has("no CUDA device"), "%s: reports no CUDA device (%s)", name,
       fupermod_error_message());
    rc = fupermod_kernel_load(name, "device=3", &k);
    ok(rc == FUPERMOD_ERR_NODEVICE && k == NULL, "%s: device=3 reports no CUDA device", name);
  } else {
    fupermod_precision prec = {3, 20, 0.95, 0.2, 2.0, 0.0, 0};
    fupermod_point pt = FUPERMOD_POINT_INIT;
    int vrc = -1, brc = -1;
    rc = fupermod_kernel_load(name, "", &k);
    /* run first, report after: the message's arguments must see the results */
    if (rc == FUPERMOD_SUCCESS) vrc = k->ops->verify(k->ctx);
    ok(vrc == FUPERMOD_SUCCESS, "%s: self-check on the GPU (%s)", name, vrc ? fupermod_error_message() : "ok");
    if (rc == FUPERMOD_SUCCESS) brc = fupermod_benchmark(k, 16, &prec, MPI_COMM_SELF, &pt);
    ok(brc == FUPERMOD_SUCCESS && pt.t > 0, "%s: benchmark of d=16: t=%.3g s, %.3g GFLOP/s", name, pt.t,
       brc == 0 && pt.t > 0 ? fupermod_kernel_complexity(k, 16) / pt.t * 1e-9 : 0.0);
    if (rc == FUPERMOD_SUCCESS) fupermod_kernel_unload(k);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  if (!getenv("FUPERMOD_KERNEL_PATH")) diag("FUPERMOD_KERNEL_PATH not set: kernels come from the build tree's default");
  test_dgemm_speed();
  for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++) test_kernel(&kernels[i]);
  test_specifics();
  test_fft_wisdom();
  test_cuda("dgemm-cuda", "b");
  test_cuda("fft-rows-cuda", "n");
  standin_prove("cudart cublas cufft");
  MPI_Finalize();
  return done_testing();
}
