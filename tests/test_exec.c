/* Executors (fupermod/exec.h) against host references: GEMM sessions (random shapes, A plain and
 * transposed, from zero or accumulating, empty shares, padded leading dimensions) and FFT layouts
 * (rows, interleaved columns, panels in blocks, both signs) on the CPU executor with 1 and 2
 * threads, and, where a CUDA device is seen (a real one, or tests/standin_exec.sh's two stand-in GPUs), on the
 * CUDA executor with C held on the device and with memory limits that force out-of-card tiles and
 * FFTs in parts; options from configuration lines and their errors. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fupermod/fupermod.h"
#include "fupermod/meter.h"
#include "tests/tap.h"
#include "tests/standin_check.h"

static uint64_t rng = 12345;
static double rnd(void) {
  rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(rng >> 11) / 9007199254740992.0 - 0.5;
}

/* one session of updates against a triple loop: max relative difference */
static double gemm_case(fupermod_exec *e, long m, long n, long kmax, int updates, int zero, int *rc) {
  long ldc = m + 3, lda = kmax + m + 2, ldb = kmax + 1;
  double *C = malloc(sizeof(double) * (size_t)(ldc * (n ? n : 1))), *R = malloc(sizeof(double) * (size_t)(m * n + 1));
  double *A = malloc(sizeof(double) * (size_t)(lda * (m + kmax + 1))), *B = malloc(sizeof(double) * (size_t)(ldb * (n + 1)));
  double err = 0, scale = 1e-300;
  for (long i = 0; i < ldc * n; i++) C[i] = rnd();
  for (long j = 0; j < n; j++)
    for (long i = 0; i < m; i++) R[i + j * m] = zero ? 0.0 : C[i + j * ldc];
  *rc = fupermod_exec_gemm_begin(e, C, m, n, ldc, kmax, zero);
  for (int u = 0; u < updates && *rc == FUPERMOD_SUCCESS; u++) {
    long k = 1 + (long)((rnd() + 0.5) * (double)kmax);
    int trans = u % 2;
    if (k > kmax) k = kmax;
    for (long i = 0; i < lda * (m + kmax + 1); i++) A[i] = rnd();
    for (long i = 0; i < ldb * (n + 1); i++) B[i] = rnd();
    *rc = fupermod_exec_gemm_update(e, trans, k, A, trans ? lda : lda, B, ldb);
    for (long j = 0; j < n; j++)
      for (long i = 0; i < m; i++) {
        double s = 0;
        for (long p = 0; p < k; p++) s += (trans ? A[p + i * lda] : A[i + p * lda]) * B[p + j * ldb];
        R[i + j * m] += s;
      }
  }
  if (*rc == FUPERMOD_SUCCESS) *rc = fupermod_exec_gemm_end(e);
  for (long j = 0; j < n; j++)
    for (long i = 0; i < m; i++) {
      double d = fabs(C[i + j * ldc] - R[i + j * m]);
      if (isnan(d) || d > err) err = isnan(d) ? INFINITY : d;
      if (fabs(R[i + j * m]) > scale) scale = fabs(R[i + j * m]);
    }
  free(A), free(B), free(C), free(R);
  return err / scale;
}

static void gemm_all(fupermod_exec *e, const char *what) {
  static const long shapes[][3] = {{1, 1, 1}, {7, 5, 3}, {64, 48, 16}, {33, 100, 20}, {100, 9, 40}, {0, 5, 4}, {6, 0, 4}};
  double worst = 0;
  int bad = 0;
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
    for (int zero = 0; zero < 2; zero++) {
      int rc;
      double err = gemm_case(e, shapes[s][0], shapes[s][1], shapes[s][2], 4, zero, &rc);
      if (rc != FUPERMOD_SUCCESS || !(err <= 1e-12)) {
        bad++;
        diag("%s: %ld x %ld, kmax %ld, zero %d: rc %d (%s), error %g", what, shapes[s][0], shapes[s][1], shapes[s][2],
             zero, rc, fupermod_error_message(), err);
      }
      if (err > worst && isfinite(err)) worst = err;
    }
  ok(bad == 0, "%s: GEMM sessions of 4 updates (A plain and transposed, from 0 and accumulating, empty shares, padded "
     "leading dimensions) match a triple loop (worst relative error %.1e)", what, worst);
}

/* One-shot DGEMMs (fupermod_exec_dgemm) of random shapes against a triple loop: A plain and
 * transposed, alpha and beta of any sign, beta = 0 (C not read), K = 0, padded leading
 * dimensions, serial and overlapped. The tiles counted: *tiled of them cut C, *blocks cut its rows. */
static void dgemm_all(fupermod_exec *e, const char *what, long *tiled, long *blocks) {
  static const double alphas[] = {1.0, -0.5, 2.0}, betas[] = {0.0, 1.0, 0.5, -1.5};
  double worst = 0;
  int bad = 0, cases = 60;
  *tiled = *blocks = 0;
  for (int c = 0; c < cases; c++) {
    long M = 1 + (long)((rnd() + 0.5) * 70), N = 1 + (long)((rnd() + 0.5) * 70), K = c % 10 == 9 ? 0 : 1 + (long)((rnd() + 0.5) * 60);
    int flags = (c % 2 ? FUPERMOD_EXEC_DGEMM_TRANS : 0) | (c % 7 == 3 ? FUPERMOD_EXEC_DGEMM_SERIAL : 0), rc;
    int trans = flags & FUPERMOD_EXEC_DGEMM_TRANS;
    double alpha = alphas[c % 3], beta = betas[(c / 3) % 4], err = 0, scale = 1e-300;
    long lda = (trans ? K : M) + c % 3 + (K == 0), ldb = K + c % 2 + (K == 0), ldc = M + c % 4;
    double *A = malloc(sizeof(double) * (size_t)(lda * (trans ? M : K) + 1)), *B = malloc(sizeof(double) * (size_t)(ldb * N));
    double *C = malloc(sizeof(double) * (size_t)(ldc * N)), *R = malloc(sizeof(double) * (size_t)(M * N));
    fupermod_exec_dgemm_info info;
    for (long i = 0; i < lda * (trans ? M : K) + 1; i++) A[i] = rnd();
    for (long i = 0; i < ldb * N; i++) B[i] = rnd();
    for (long i = 0; i < ldc * N; i++) C[i] = beta == 0.0 ? NAN : rnd(); /* beta = 0: C is not read */
    for (long j = 0; j < N; j++)
      for (long i = 0; i < M; i++) {
        double acc = 0;
        for (long p = 0; p < K; p++) acc += (trans ? A[p + i * lda] : A[i + p * lda]) * B[p + j * ldb];
        R[i + j * M] = alpha * acc + (beta == 0.0 ? 0.0 : beta * C[i + j * ldc]);
      }
    rc = fupermod_exec_dgemm(e, flags, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, &info);
    for (long j = 0; j < N; j++)
      for (long i = 0; i < M; i++) {
        double d = fabs(C[i + j * ldc] - R[i + j * M]);
        if (isnan(d) || d > err) err = isnan(d) ? INFINITY : d;
        if (fabs(R[i + j * M]) > scale) scale = fabs(R[i + j * M]);
      }
    err /= scale;
    if (rc != FUPERMOD_SUCCESS || !(err <= 1e-12)) {
      if (bad++ < 3)
        diag("%s: DGEMM %ld x %ld x %ld flags %d alpha %g beta %g: rc %d (%s), error %g", what, M, N, K, flags, alpha, beta,
             rc, rc ? fupermod_error_message() : "", err);
    } else if (err > worst)
      worst = err;
    *tiled += rc == FUPERMOD_SUCCESS && info.row_tiles * info.col_tiles > 1;
    *blocks += rc == FUPERMOD_SUCCESS && info.row_tiles > 1;
    free(A), free(B), free(C), free(R);
  }
  ok(bad == 0, "%s: %d one-shot DGEMMs (A plain and transposed, any alpha and beta, beta = 0 with C not read, K = 0, "
     "padded leading dimensions, serial and overlapped; %ld cut into tiles, %ld into row blocks) match a triple loop "
     "(worst relative error %.1e)", what, cases, *tiled, *blocks, worst);
}

/* the layout's transforms against a naive DFT of each signal */
static double fft_case(fupermod_exec *e, const fupermod_exec_fft_layout *l, int sign, int *rc) {
  size_t span = (size_t)((l->blocks - 1) * l->block_dist + (l->howmany - 1) * l->dist + (l->n - 1) * l->stride + 1);
  double *x = malloc(16 * span), *y = malloc(16 * span), err = 0, scale = 1e-300;
  for (size_t i = 0; i < 2 * span; i++) x[i] = y[i] = rnd();
  *rc = fupermod_exec_fft(e, l, x, sign);
  for (long b = 0; b < l->blocks; b++)
    for (long s = 0; s < l->howmany; s++) {
      size_t o = (size_t)(b * l->block_dist + s * l->dist);
      for (long k = 0; k < l->n; k++) {
        double re = 0, im = 0;
        for (long j = 0; j < l->n; j++) {
          double a = sign * 2.0 * M_PI * (double)((j * k) % l->n) / (double)l->n;
          const double *v = y + 2 * (o + (size_t)(j * l->stride));
          re += v[0] * cos(a) - v[1] * sin(a);
          im += v[0] * sin(a) + v[1] * cos(a);
        }
        {
          const double *w = x + 2 * (o + (size_t)(k * l->stride));
          double d = fabs(w[0] - re) + fabs(w[1] - im);
          if (isnan(d) || d > err) err = isnan(d) ? INFINITY : d;
          if (fabs(re) + fabs(im) > scale) scale = fabs(re) + fabs(im);
        }
      }
    }
  free(x), free(y);
  return err / scale;
}

/* 2D FFTs (fupermod_exec_fft2d) against a naive 2D DFT: max relative difference */
static double fft2d_case(fupermod_exec *e, long M, long N, int sign, int *rc) {
  double *x = malloc(16 * (size_t)(M * N)), *y = malloc(16 * (size_t)(M * N)), err = 0, scale = 1e-300;
  for (long i = 0; i < 2 * M * N; i++) x[i] = y[i] = rnd();
  *rc = fupermod_exec_fft2d(e, M, N, x, sign);
  for (long k1 = 0; k1 < M; k1++)
    for (long k2 = 0; k2 < N; k2++) {
      double re = 0, im = 0, d;
      for (long j1 = 0; j1 < M; j1++)
        for (long j2 = 0; j2 < N; j2++) {
          double a = sign * 2.0 * M_PI * ((double)((j1 * k1) % M) / (double)M + (double)((j2 * k2) % N) / (double)N);
          const double *v = y + 2 * (j1 * N + j2);
          re += v[0] * cos(a) - v[1] * sin(a);
          im += v[0] * sin(a) + v[1] * cos(a);
        }
      d = fabs(x[2 * (k1 * N + k2)] - re) + fabs(x[2 * (k1 * N + k2) + 1] - im);
      if (isnan(d) || d > err) err = isnan(d) ? INFINITY : d;
      if (fabs(re) + fabs(im) > scale) scale = fabs(re) + fabs(im);
    }
  free(x), free(y);
  return err / scale;
}

static void fft2d_all(fupermod_exec *e, const char *what) {
  static const long shapes[][2] = {{1, 1}, {12, 20}, {33, 16}, {64, 40}, {50, 12}, {7, 1}};
  int bad = 0;
  double worst = 0;
  for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
    for (int sign = -1; sign <= 1; sign += 2) {
      int rc;
      double err = fft2d_case(e, shapes[i][0], shapes[i][1], sign, &rc);
      if (rc != FUPERMOD_SUCCESS || !(err <= 1e-12)) {
        if (bad++ < 3) diag("%s: 2D FFT %ld x %ld sign %d: rc %d (%s), error %g", what, shapes[i][0], shapes[i][1], sign, rc,
                            rc ? fupermod_error_message() : "", err);
      } else if (err > worst)
        worst = err;
    }
  ok(bad == 0, "%s: 2D FFTs of 1 x 1 to 64 x 40, both signs, match a naive 2D DFT (worst relative error %.1e)", what, worst);
}

static void fft_all(fupermod_exec *e, const char *what) {
  /* rows, interleaved columns (stride = howmany, distance 1), panels of 4 in 5 blocks, a tail */
  static const fupermod_exec_fft_layout ls[] = {
    {16, 6, 1, 16, 1, 0}, {12, 5, 5, 1, 1, 0}, {32, 4, 4, 1, 5, 128}, {20, 3, 3, 1, 1, 0}, {7, 1, 1, 7, 1, 0},
    /* 40 kB each: under an 8 kB limit, batches of rows and of columns */
    {64, 40, 1, 64, 1, 0}, {64, 40, 40, 1, 1, 0}};
  int bad = 0;
  double worst = 0;
  for (size_t i = 0; i < sizeof ls / sizeof ls[0]; i++)
    for (int sign = -1; sign <= 1; sign += 2) {
      int rc;
      double err = fft_case(e, &ls[i], sign, &rc);
      if (rc != FUPERMOD_SUCCESS || !(err <= 1e-12)) {
        bad++;
        diag("%s: FFT layout %zu sign %d: rc %d (%s), error %g", what, i, sign, rc, fupermod_error_message(), err);
      }
      if (err > worst && isfinite(err)) worst = err;
    }
  ok(bad == 0, "%s: FFTs in place of rows, interleaved columns, 5 blocks of 4-column panels, a tail, 40 rows and 40 "
     "columns of 64, both signs, match a naive DFT (worst relative error %.1e)", what, worst);
}

static void cpu_exec(void) {
  for (int t = 1; t <= 2; t++) {
    fupermod_exec_opts o = {.kind = FUPERMOD_EXEC_CPU, .threads = t, .cuda_device = 0, .mem_limit = 0};
    fupermod_exec *e = NULL;
    char what[64];
    int rc = fupermod_exec_open(&o, &e);
    snprintf(what, sizeof what, "cpu, %d thread%s", t, t == 1 ? "" : "s");
    ok(rc == FUPERMOD_SUCCESS && fupermod_exec_kind(e) == FUPERMOD_EXEC_CPU && fupermod_exec_threads(e) == t &&
           strcmp(fupermod_exec_describe(e), what) == 0,
       "a CPU executor opens: '%s'", e ? fupermod_exec_describe(e) : fupermod_error_message());
    if (!e) continue;
    {
      long tiled, blocks;
      gemm_all(e, what);
      dgemm_all(e, what, &tiled, &blocks);
    }
    fft_all(e, what);
    fft2d_all(e, what);
    fupermod_exec_close(e);
  }
}

static void lines(void) {
  char host[] = "localhost", none[] = "none", gpu[] = "gpu", cpu[] = "cpu", opts[] = "threads=3,device=1,mem_limit=2M",
       empty[] = "", zero[] = "threads=0", lots[] = "mem_limit=lots";
  fupermod_process_conf pc = {host, 0, none, gpu, opts, 4};
  fupermod_exec_opts o;
  int rc = fupermod_exec_opts_line(&pc, "x.conf:4", &o);
  ok(rc == FUPERMOD_SUCCESS && o.kind == FUPERMOD_EXEC_CUDA && o.threads == 3 && o.cuda_device == 1 &&
         o.mem_limit == 2.0 * 1024 * 1024,
     "a gpu line: CUDA, threads=3, device=1, mem_limit=2M");
  pc.device_type = cpu, pc.subopts = empty;
  rc = fupermod_exec_opts_line(&pc, "x.conf:4", &o);
  ok(rc == FUPERMOD_SUCCESS && o.kind == FUPERMOD_EXEC_CPU && o.threads == 1 && o.cuda_device == 0,
     "a cpu line bound to none: one thread");
  pc.subopts = zero;
  rc = fupermod_exec_opts_line(&pc, "x.conf:4", &o);
  ok(rc == FUPERMOD_ERR_INPUT && strstr(fupermod_error_message(), "x.conf:4: threads=0"), "threads=0 is refused naming the line");
  pc.subopts = lots;
  rc = fupermod_exec_opts_line(&pc, "x.conf:4", &o);
  ok(rc == FUPERMOD_ERR_INPUT && strstr(fupermod_error_message(), "x.conf:4: mem_limit=lots"), "a bad mem_limit is refused");
}

/* the processes that share a device: gpu lines of one host (or localhost) with the same device= */
static void sharers(void) {
  static const char text[] = "n1 0 none gpu device=0\nn1 1 none gpu\nn1 2 none gpu device=1\nn2 0 none gpu device=0\n"
                             "localhost 5 none gpu device=0\nn1 3 core:0 cpu\n";
  static const int want[] = {3, 3, 1, 2, 4, 1};
  fupermod_conf c;
  fupermod_exec_opts o;
  int rc = fupermod_conf_parse(text, strlen(text), "s.conf", &c), good = rc == FUPERMOD_SUCCESS;
  for (int i = 0; good && i < c.count; i++) {
    good &= fupermod_exec_opts_conf(&c, i, "s.conf", &o) == FUPERMOD_SUCCESS && o.device_sharers == want[i];
    if (!good) diag("line %d: %d sharers, want %d", i + 1, o.device_sharers, want[i]);
  }
  ok(good, "device sharers: 3 on n1's device 0 (device= or its default), 1 on its device 1, 2 on n2's, "
           "a localhost line with every host's, 1 for a cpu line");
  ok(good && fupermod_exec_opts_conf(&c, 9, "s.conf", &o) == FUPERMOD_ERR_USAGE, "a line the configuration lacks is refused");
  if (rc == FUPERMOD_SUCCESS) fupermod_conf_free(&c);
}

static void cuda(void) {
  const char *dir = getenv("FUPERMOD_CUDA_STANDIN");
  char where[4096];
  int count = fupermod_cuda_device_count();
  /* the last device: with two, not the default one */
  fupermod_exec_opts o = {.kind = FUPERMOD_EXEC_CUDA, .threads = 1, .cuda_device = count - 1, .mem_limit = 0};
  fupermod_exec *e = NULL;
  int rc;
  if (count < 1) {
    skip("no CUDA device here (tests/standin_exec.sh runs this on two stand-in GPUs)");
    return;
  }
  rc = fupermod_exec_open(&o, &e);
  ok(rc == FUPERMOD_SUCCESS && fupermod_exec_kind(e) == FUPERMOD_EXEC_CUDA && fupermod_exec_pci_bus_id(e)[0],
     "a CUDA executor on device %d: %s", count - 1, e ? fupermod_exec_describe(e) : fupermod_error_message());
  if (dir) {
    static const char *so[3] = {"libcudart.so.13", "libcublas.so.13", "libcufft.so.12"},
                      *mark[3] = {"fupermod_cudart_standin", "fupermod_cublas_standin", "fupermod_cufft_standin"};
    for (int i = 0; i < 3; i++) {
      int good = standin_loaded(so[i], mark[i], dir, where, sizeof where);
      ok(good, "it runs on the stand-in %s: %s", so[i], where);
    }
  }
  if (e) {
    fupermod_exec_stats st;
    long tiled, blocks;
    gemm_all(e, "cuda, C held on the device");
    dgemm_all(e, "cuda", &tiled, &blocks);
    fft_all(e, "cuda");
    fft2d_all(e, "cuda, on the device");
    fupermod_exec_get_stats(e, &st);
    ok(st.fallbacks == 0, "with memory enough, no fallback (%ld)", st.fallbacks);
    fupermod_exec_close(e);
  }
  /* 8 KiB: C of 64 x 48 and its panels do not fit: out-of-card tiles; FFT blocks in parts */
  o.mem_limit = 8192;
  rc = fupermod_exec_open(&o, &e);
  if (rc == FUPERMOD_SUCCESS) {
    int rc2;
    double err;
    fupermod_exec_stats st;
    long tiled = 0, blocks = 0;
    gemm_all(e, "cuda, 8 KiB limit (out of card)");
    dgemm_all(e, "cuda, 8 KiB limit", &tiled, &blocks);
    ok(tiled > 40 && blocks > 20, "under 8 KiB most DGEMMs are cut: %ld into tiles, %ld into row blocks", tiled, blocks);
    fupermod_exec_get_stats(e, &st);
    ok(st.fallbacks > 0, "the statistics count the GEMMs that went out of card (%ld fallbacks)", st.fallbacks);
    fft_all(e, "cuda, 8 KiB limit");
    fft2d_all(e, "cuda, 8 KiB limit (rows, then columns)");
    /* one signal longer than the limit: refused with the limit named */
    {
      fupermod_exec_fft_layout big = {1024, 1, 1, 1024, 1, 0};
      err = fft_case(e, &big, -1, &rc2);
      ok(rc2 == FUPERMOD_ERR_NOMEM && strstr(fupermod_error_message(), "memory limit"),
         "an FFT larger than the memory limit is refused: %s", fupermod_error_message());
      (void)err;
    }
    fupermod_exec_close(e);
  } else
    ok(0, "a CUDA executor with a memory limit: %s", fupermod_error_message());
  if (dir) {
    /* 32 KiB: C in tiles on two buffers, each tile's C uploaded behind the next tile's B; the
     * stand-in runs queued work of independent streams latest first where it may */
    long tiled = 0, blocks = 0;
    o.mem_limit = 32 * 1024;
    setenv("FAKE_CUDA_ORDER", "adversarial", 1);
    if ((rc = fupermod_exec_open(&o, &e)) == FUPERMOD_SUCCESS) {
      dgemm_all(e, "cuda, 32 KiB, adversarial order", &tiled, &blocks);
      ok(tiled > 30, "under 32 KiB, %ld DGEMMs cut into tiles (%ld into row blocks)", tiled, blocks);
      fupermod_exec_close(e);
    } else
      ok(0, "a CUDA executor with 32 KiB: %s", fupermod_error_message());
    unsetenv("FAKE_CUDA_ORDER");
  }
  if (dir && count == 2) {
    /* the NVML meter finds a CUDA device by its PCI bus id: the stand-in NVML numbers the two
     * stand-in GPUs the other way round, and only its device 0 (CUDA's 1) has a counter */
    const char *top = getenv("top_builddir");
    char sub[4200];
    fupermod_meter *m = NULL;
    char mj[] = "/tmp/fupermod-test-nvml-XXXXXX";
    int fd = mkstemp(mj);
    if (fd >= 0 && write(fd, "1000\n", 5) == 5) setenv("FAKE_NVML_ENERGY", mj, 1);
    if (fd >= 0) close(fd);
    snprintf(sub, sizeof sub, "nvml_lib=%s/tests/.libs/fake_nvml.so,device=1", top ? top : ".");
    rc = fupermod_meter_create("nvml", sub, &m);
    ok(rc == FUPERMOD_SUCCESS && strcmp(fupermod_meter_domain(m), "nvml:0000:18:00.0") == 0,
       "the NVML meter of CUDA device 1 is the GPU of its PCI bus id: %s",
       rc == FUPERMOD_SUCCESS ? fupermod_meter_describe(m) : fupermod_error_message());
    fupermod_meter_free(m);
    snprintf(sub, sizeof sub, "nvml_lib=%s/tests/.libs/fake_nvml.so,device=0", top ? top : ".");
    rc = fupermod_meter_create("nvml", sub, &m);
    ok(rc == FUPERMOD_ERR_NODEVICE && strstr(fupermod_error_message(), "PCI 0000:10:00.0"),
       "CUDA device 0's GPU, by PCI, has no counter here: %s", fupermod_error_message());
    unlink(mj);
  }
  o.cuda_device = 7;
  rc = fupermod_exec_open(&o, &e);
  ok(rc == FUPERMOD_ERR_NODEVICE && strstr(fupermod_error_message(), "no CUDA device 7"),
     "device 7 of %d: %s", count, fupermod_error_message());
}

int main(void) {
  cpu_exec();
  lines();
  sharers();
  cuda();
  return done_testing();
}
