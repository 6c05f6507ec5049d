/* The simulated H100 judged on figures it was not fitted on (docs/kernels.md, "A simulated GPU").
 * tests/fake_cuda/devices/h100.measured lists the H100's measured rows, each with its source, as
 * a calibration set (the description's constants are taken or fitted from it) and a held-out set
 * (never used for fitting). This test
 * - refits the constants that are fitted, by the procedure the table states (pitched_row,
 *   pitched_eff and pitched_eff_contiguous by linear least squares of the relative errors, none
 *   below 0, on the out-of-card GEMM's one-at-a-time rows; the dgemm-cuda node's host copy rate,
 *   which is not the device's, by least squares on the rows with C held), and checks that
 *   h100.conf holds what the fit gives;
 * - runs every row's operation on the simulated H100 as the measurement ran it, and prints
 *   measured, simulated and error; a held-out row must be within 15 % of its measured figure.
 * Each evaluation runs in a child process of its own (fork, before any CUDA call here), so that
 * it starts on a fresh device, and so that the fit can load descriptions with other constants. */
#include "config.h"
#ifndef FUPERMOD_HAVE_CUDA
#include "tests/standin_check.h"
STANDIN_SKIP_MAIN
#else
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <cufft.h>
#include "kernels/ooc/ooc.h"
#include "tests/tap.h"
#include "tests/standin_check.h"
#include "tests/fake_cuda/standin.h"

#ifndef STANDIN_DEVICES
#define STANDIN_DEVICES "."
#endif
#define HELD_OUT_TOLERANCE 0.15
#define MAXROWS 64
#define N16 16384L

typedef struct {
  char set[16], src[8], op[16], args[160], unit[16], gap[16];
  double figure;
} row;

static row rows[MAXROWS];
static int nrows;

/* The value of name=VALUE among r's arguments, or dflt. */
static double arg(const row *r, const char *name, double dflt) {
  char key[40];
  const char *p;
  snprintf(key, sizeof key, "%s=", name);
  for (p = strstr(r->args, key); p && p != r->args && p[-1] != ' '; p = strstr(p + 1, key)) {}
  return p ? strtod(p + strlen(key), NULL) : dflt;
}

static int load_table(const char *path) {
  FILE *f = fopen(path, "r");
  char line[1024];
  if (!f) return -1;
  while (fgets(line, sizeof line, f) && nrows < MAXROWS) {
    row *r = &rows[nrows];
    char *eq;
    int used = 0;
    line[strcspn(line, "#\n")] = '\0';
    if (strncmp(line, "source ", 7) == 0 || !(eq = strchr(line, '='))) continue;
    if (sscanf(line, "%15s %7s %15s %n", r->set, r->src, r->op, &used) < 3) continue;
    /* the arguments run to the '=' that stands alone */
    for (eq = line + used; (eq = strchr(eq, '=')) && !(eq[-1] == ' ' && eq[1] == ' '); eq++) {}
    if (!eq) continue;
    snprintf(r->args, sizeof r->args, "%.*s", (int)(eq - line - used), line + used);
    if (sscanf(eq + 1, "%lf %15s %15s", &r->figure, r->unit, r->gap) < 2) continue;
    nrows++;
  }
  fclose(f);
  return 0;
}

/* ---------------------------------------------------------------- one row on the simulated device */

static double host_now(void) { return fupermod_standin_sim_time(); }

/* Seconds between two events around what fn queues on stream s. */
static double timed_on(cudaStream_t s, void (*fn)(cudaStream_t, void *), void *x) {
  cudaEvent_t a, b;
  float ms = -1;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  cudaEventRecord(a, s);
  fn(s, x);
  cudaEventRecord(b, s);
  cudaEventSynchronize(b);
  cudaEventElapsedTime(&ms, a, b);
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return ms < 0 ? -1 : 1e-3 * ms;
}

typedef struct {
  long m, n, k;
  double *d;
  cublasHandle_t h;
} gemm_x;

static void gemm_fn(cudaStream_t s, void *p) {
  gemm_x *g = p;
  const double one = 1, zero = 0;
  cublasSetStream(g->h, s);
  cublasDgemm(g->h, CUBLAS_OP_N, CUBLAS_OP_N, (int)g->m, (int)g->n, (int)g->k, &one, g->d, (int)g->m, g->d, (int)g->k, &zero,
              g->d, (int)g->m);
}

/* A resident cublasDgemm of m x n x k (one buffer for all three: nothing is computed). */
static double op_gemm(const row *r) {
  gemm_x g = {(long)arg(r, "m", 0), (long)arg(r, "n", 0), (long)arg(r, "k", 0), NULL, NULL};
  size_t el = (size_t)fmax(fmax((double)g.m * g.k, (double)g.k * g.n), (double)g.m * g.n);
  double t = -1;
  if (cublasCreate(&g.h) != CUBLAS_STATUS_SUCCESS || cudaMalloc((void **)&g.d, el * 8) != cudaSuccess) return -1;
  t = timed_on(0, gemm_fn, &g);
  cudaFree(g.d);
  cublasDestroy(g.h);
  return 2.0 * g.m * g.n * g.k / t * 1e-12;
}

typedef struct {
  void *dst;
  const void *src;
  size_t bytes;
  int up;
} copy_x;

static void copy_fn(cudaStream_t s, void *p) {
  copy_x *c = p;
  cudaMemcpyAsync(c->dst, c->src, c->bytes, c->up ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost, s);
}

/* One copy of bytes each way, from pinned or pageable memory, in GB/s. */
static double op_copy(const row *r) {
  copy_x c = {NULL, NULL, (size_t)arg(r, "bytes", 0), (int)arg(r, "up", 1)};
  void *dev = NULL, *host = NULL;
  int pin = (int)arg(r, "pinned", 1);
  double t;
  if (cudaMalloc(&dev, c.bytes) != cudaSuccess) return -1;
  if (pin ? cudaMallocHost(&host, c.bytes) != cudaSuccess : !(host = malloc(c.bytes))) return -1;
  c.dst = c.up ? dev : host;
  c.src = c.up ? host : dev;
  t = timed_on(0, copy_fn, &c);
  if (pin) cudaFreeHost(host);
  else free(host);
  cudaFree(dev);
  return (double)c.bytes / t * 1e-9;
}

typedef struct {
  cufftHandle plan;
  void *dev, *host;
  size_t bytes;
  int transfers;
} fft_x;

static void fft_fn(cudaStream_t s, void *p) {
  fft_x *f = p;
  cufftSetStream(f->plan, s);
  if (f->transfers) cudaMemcpyAsync(f->dev, f->host, f->bytes, cudaMemcpyHostToDevice, s);
  cufftExecZ2Z(f->plan, f->dev, f->dev, CUFFT_FORWARD);
  if (f->transfers) cudaMemcpyAsync(f->host, f->dev, f->bytes, cudaMemcpyDeviceToHost, s);
}

/* A 2D complex FFT of n x n on the device, with or without its pinned transfers both ways, one
 * after the other on one stream, in GFLOP/s (5 N log2 N with N = n^2). */
static double op_fft2d(const row *r, int transfers) {
  long n = (long)arg(r, "n", 0);
  fft_x f = {0, NULL, NULL, (size_t)n * (size_t)n * 16, transfers};
  double pts = (double)n * (double)n, t;
  if (cufftPlan2d(&f.plan, (int)n, (int)n, CUFFT_Z2Z) != CUFFT_SUCCESS || cudaMalloc(&f.dev, f.bytes) != cudaSuccess ||
      (transfers && cudaMallocHost(&f.host, f.bytes) != cudaSuccess))
    return -1;
  t = timed_on(0, fft_fn, &f);
  cufftDestroy(f.plan);
  cudaFree(f.dev);
  if (f.host) cudaFreeHost(f.host);
  return 5.0 * pts * log2(pts) / t * 1e-9;
}

/* The first use of the device: context and cuBLAS handle, on the host's clock. */
static double op_init(void) {
  cublasHandle_t h;
  double t0 = host_now(), t;
  cudaFree(0);
  cublasCreate(&h);
  t = host_now() - t0;
  cublasDestroy(h);
  return t;
}

/* cudaHostRegister of bytes, on the host's clock. */
static double op_register(const row *r) {
  size_t bytes = (size_t)arg(r, "bytes", 0);
  void *p = malloc(bytes); /* never touched */
  double t0, t;
  cudaFree(0);
  t0 = host_now();
  if (!p || cudaHostRegister(p, bytes, 0) != cudaSuccess) return -1;
  t = host_now() - t0;
  cudaHostUnregister(p);
  free(p);
  return t;
}

/* The out-of-card GEMM as dgemm-ooc measured it (source P): C = A B + C with A, C d x n and B
 * n x n in page-locked memory, the plan and schedule of kernels/ooc/ooc_plan.c, issued as the
 * CUDA executor of then issued them (kernels/ooc/ooc_dgemm.c at commit 8397dd1): five device
 * buffers, two non-blocking streams, 2D copies of slices. One call warms up (the device buffer);
 * the second is timed. */
static double op_ooc(const row *r) {
  const long M = (long)arg(r, "d", 0), N = N16, K = N16;
  const double mem = arg(r, "mem", 0), one = 1;
  const int sync = (int)arg(r, "sync", 0);
  double *A = NULL, *B = NULL, *C = NULL, *dev = NULL, *dA[2], *dB, *dC[2], t = -1;
  size_t freeb = 0, total = 0, have = 0;
  cublasHandle_t h;
  cudaStream_t st[2];
  cudaEvent_t ev[3];
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS || cudaMallocHost((void **)&A, (size_t)(M * K) * 8) != cudaSuccess ||
      cudaMallocHost((void **)&B, (size_t)(K * N) * 8) != cudaSuccess ||
      cudaMallocHost((void **)&C, (size_t)(M * N) * 8) != cudaSuccess)
    return -1;
  for (int k = 0; k < 2; k++) cudaStreamCreateWithFlags(&st[k], cudaStreamNonBlocking);
  for (int k = 0; k < 3; k++) cudaEventCreateWithFlags(&ev[k], cudaEventDisableTiming);
  for (int run = 0; run < 2; run++) {
    fupermod_ooc_plan plan;
    fupermod_ooc_schedule s = {0, NULL, 0, 0};
    long ldA, ldC;
    double t0 = host_now(), limit;
    int bad = 0;
    cudaMemGetInfo(&freeb, &total);
    limit = mem > 0 ? mem : 0.9 * ((double)freeb + 8.0 * (double)have);
    if (fupermod_ooc_plan_make(M, N, K, (long)(limit / 8.0), &plan) || fupermod_ooc_schedule_make(&plan, 1, &s)) return -1;
    if ((size_t)plan.elements > have) {
      cudaFree(dev);
      if (cudaMalloc((void **)&dev, (size_t)plan.elements * 8) != cudaSuccess) return -1;
      have = (size_t)plan.elements;
    }
    ldA = ldC = plan.in_card ? M : plan.mh;
    dA[0] = dev;
    dA[1] = plan.in_card ? dev : dA[0] + (size_t)plan.mh * (size_t)K;
    dB = dA[1] + (size_t)ldA * (size_t)K;
    dC[0] = dB + (size_t)K * (size_t)(plan.in_card ? N : plan.nv);
    dC[1] = plan.in_card ? dC[0] : dC[0] + (size_t)plan.mh * (size_t)plan.nv;
    for (int k = 0; k < s.count && !bad; k++) {
      const fupermod_ooc_op *o = &s.ops[k];
      cudaStream_t q = st[o->stream];
      long r0 = 0, mr = M, c0 = 0, nc = N;
      if (!plan.in_card) {
        fupermod_ooc_slice(M, plan.h, o->i, &r0, &mr);
        fupermod_ooc_slice(N, plan.v, o->j, &c0, &nc);
      }
      switch (o->code) {
      case FUPERMOD_OOC_UPLOAD_A:
        bad = cudaMemcpy2DAsync(dA[o->buf], (size_t)ldA * 8, A + r0, (size_t)M * 8, (size_t)mr * 8, (size_t)K,
                                cudaMemcpyHostToDevice, q) != cudaSuccess;
        break;
      case FUPERMOD_OOC_UPLOAD_B:
        bad = cudaMemcpy2DAsync(dB, (size_t)K * 8, B + (size_t)c0 * (size_t)K, (size_t)K * 8, (size_t)K * 8, (size_t)nc,
                                cudaMemcpyHostToDevice, q) != cudaSuccess;
        break;
      case FUPERMOD_OOC_UPLOAD_C:
        bad = cudaMemcpy2DAsync(dC[o->buf], (size_t)ldC * 8, C + r0 + (size_t)c0 * (size_t)M, (size_t)M * 8, (size_t)mr * 8,
                                (size_t)nc, cudaMemcpyHostToDevice, q) != cudaSuccess;
        break;
      case FUPERMOD_OOC_GEMM:
        bad = cublasSetStream(h, q) != CUBLAS_STATUS_SUCCESS ||
              cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, (int)mr, (int)nc, (int)K, &one, dA[o->buf], (int)ldA, dB, (int)K, &one,
                          dC[o->buf], (int)ldC) != CUBLAS_STATUS_SUCCESS;
        break;
      case FUPERMOD_OOC_DOWNLOAD_C:
        bad = cudaMemcpy2DAsync(C + r0 + (size_t)c0 * (size_t)M, (size_t)M * 8, dC[o->buf], (size_t)ldC * 8, (size_t)mr * 8,
                                (size_t)nc, cudaMemcpyDeviceToHost, q) != cudaSuccess;
        break;
      case FUPERMOD_OOC_RECORD: bad = cudaEventRecord(ev[o->event], q) != cudaSuccess; break;
      case FUPERMOD_OOC_WAIT: bad = cudaStreamWaitEvent(q, ev[o->event], 0) != cudaSuccess; break;
      default: bad = 1;
      }
      if (!bad && sync) bad = cudaStreamSynchronize(q) != cudaSuccess;
    }
    for (int k = 0; k < 2; k++) cudaStreamSynchronize(st[k]);
    fupermod_ooc_schedule_free(&s);
    if (bad) return -1;
    t = host_now() - t0;
  }
  return 2.0 * (double)M * (double)N * (double)K / t * 1e-12;
}

/* The device's part of dgemm-cuda as it was measured (source K), in seconds per run: the pivot
 * panels (m b x b and b x m b, m = sqrt(d)) uploaded with cudaMemcpy from page-locked buffers, C
 * too unless resident, one cublasDgemm, C downloaded or the device synchronised. The host's copies
 * of the panels are not run: they are the node's, added by the caller. */
static double op_dgemmcuda_device(const row *r) {
  const long b = 1024, m = (long)sqrt(arg(r, "d", 0)), rows_ = m * b;
  const int res = (int)arg(r, "resident", 0);
  const size_t el = (size_t)rows_ * (size_t)rows_, pan = (size_t)rows_ * (size_t)b;
  double *Ab, *Bb, *Ch, *dA, *dB, *dC, one = 1, t = 0;
  cublasHandle_t h;
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS || cudaMallocHost((void **)&Ab, pan * 8) != cudaSuccess ||
      cudaMallocHost((void **)&Bb, pan * 8) != cudaSuccess || cudaMallocHost((void **)&Ch, el * 8) != cudaSuccess ||
      cudaMalloc((void **)&dA, pan * 8) != cudaSuccess || cudaMalloc((void **)&dB, pan * 8) != cudaSuccess ||
      cudaMalloc((void **)&dC, el * 8) != cudaSuccess)
    return -1;
  for (int run = 0; run < 2; run++) { /* a warm-up, as the kernel's initialize did, then one timed */
    double t0 = host_now();
    int good = cudaMemcpy(dA, Ab, pan * 8, cudaMemcpyHostToDevice) == cudaSuccess &&
               cudaMemcpy(dB, Bb, pan * 8, cudaMemcpyHostToDevice) == cudaSuccess &&
               (res || cudaMemcpy(dC, Ch, el * 8, cudaMemcpyHostToDevice) == cudaSuccess) &&
               cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, (int)rows_, (int)rows_, (int)b, &one, dB, (int)rows_, dA, (int)b, &one,
                           dC, (int)rows_) == CUBLAS_STATUS_SUCCESS &&
               (res ? cudaDeviceSynchronize() : cudaMemcpy(Ch, dC, el * 8, cudaMemcpyDeviceToHost)) == cudaSuccess;
    if (!good) return -1;
    t = host_now() - t0;
  }
  return t;
}

/* The simulated figure of row r in its unit (the dgemm-cuda rows: the device's seconds). */
static double run_row(const row *r) {
  if (!strcmp(r->op, "gemm")) return op_gemm(r);
  if (!strcmp(r->op, "copy")) return op_copy(r);
  if (!strcmp(r->op, "fft2d")) return op_fft2d(r, 0);
  if (!strcmp(r->op, "fft2dxfer")) return op_fft2d(r, 1);
  if (!strcmp(r->op, "init")) return op_init();
  if (!strcmp(r->op, "register")) return op_register(r);
  if (!strcmp(r->op, "ooc")) return op_ooc(r);
  if (!strcmp(r->op, "dgemmcuda")) return op_dgemmcuda_device(r);
  if (!strcmp(r->op, "devices")) {
    int n = -1;
    return cudaGetDeviceCount(&n) == cudaSuccess ? n : 0;
  }
  return -1;
}

/* Row r simulated in a child process on the description conf (a name or a path), or -1. */
static double simulate(const row *r, const char *conf) {
  int fd[2], status;
  double v = -1;
  pid_t pid;
  if (pipe(fd) != 0) return -1;
  fflush(stdout);
  if ((pid = fork()) < 0) return -1;
  if (pid == 0) {
    close(fd[0]);
    standin_simulate(conf);
    if (strcmp(r->op, "copy") == 0 && !arg(r, "pinned", 1)) unsetenv("FAKE_CUDA_STRICT");
    v = run_row(r);
    if (write(fd[1], &v, sizeof v) != (ssize_t)sizeof v) _exit(1);
    _exit(0);
  }
  close(fd[1]);
  if (read(fd[0], &v, sizeof v) != (ssize_t)sizeof v) v = -1;
  close(fd[0]);
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  return v;
}

/* ---------------------------------------------------------------- the fits */

static char conf_path[4096];

/* The description h100.conf with the lines extra appended (a key given again takes its last
 * value), in a temporary file whose path goes to out. */
static int variant(const char *extra, char *out, size_t n) {
  FILE *in = fopen(conf_path, "r"), *f;
  char buf[1024], tmpl[] = "/tmp/fupermod_heldout_XXXXXX";
  size_t got;
  int fd = mkstemp(tmpl);
  if (!in || fd < 0 || !(f = fdopen(fd, "w"))) {
    if (in) fclose(in);
    if (fd >= 0) close(fd), unlink(tmpl);
    return -1;
  }
  while ((got = fread(buf, 1, sizeof buf, in)) > 0) fwrite(buf, 1, got, f);
  fprintf(f, "\n%s\n", extra);
  fclose(in);
  fclose(f);
  snprintf(out, n, "%s", tmpl);
  return 0;
}

/* Row r simulated on h100.conf with extra appended. */
static double simulate_with(const row *r, const char *extra) {
  char path[64];
  double v;
  if (variant(extra, path, sizeof path) != 0) return -1;
  v = simulate(r, path);
  unlink(path);
  return v;
}

/* A key's value in h100.conf, or -1. */
static double conf_value(const char *key) {
  FILE *f = fopen(conf_path, "r");
  char line[512], k[64];
  double v = -1, x;
  while (f && fgets(line, sizeof line, f))
    if (line[0] != '#' && sscanf(line, " %63[a-z_0-9] = %lf", k, &x) == 2 && strcmp(k, key) == 0) v = x;
  if (f) fclose(f);
  return v;
}

/* Seconds of an out-of-card row from its TFLOP/s. */
static double ooc_seconds(const row *r, double tflops) { return 2.0 * arg(r, "d", 0) * N16 * N16 / (tflops * 1e12); }

static int is(const row *r, const char *set, const char *op) { return !strcmp(r->set, set) && !strcmp(r->op, op); }

/* Least squares of y on the p columns of X (n rows), each coefficient at least 0: of the subsets
 * of columns whose unconstrained solution has no negative coefficient, the one with the least sum
 * of squares (the others held at 0). The sum of squares, or -1 if no subset gives one. */
#define NFIT 3
static double nonneg_lsq(double X[][NFIT], const double *y, int n, int p, double *coef) {
  double best = -1;
  for (int mask = 1; mask < 1 << p; mask++) {
    double A[NFIT][NFIT + 1] = {{0}}, c[NFIT] = {0}, sse = 0;
    int idx[NFIT], m = 0, bad = 0;
    for (int j = 0; j < p; j++)
      if (mask & 1 << j) idx[m++] = j;
    for (int a = 0; a < m; a++) { /* the normal equations of the subset */
      for (int b = 0; b < m; b++)
        for (int i = 0; i < n; i++) A[a][b] += X[i][idx[a]] * X[i][idx[b]];
      for (int i = 0; i < n; i++) A[a][m] += X[i][idx[a]] * y[i];
    }
    for (int a = 0; a < m && !bad; a++) { /* Gauss-Jordan; the matrix is positive semi-definite */
      if (fabs(A[a][a]) < 1e-300) bad = 1;
      for (int r = 0; r < m && !bad; r++)
        if (r != a) {
          double f = A[r][a] / A[a][a];
          for (int k = a; k <= m; k++) A[r][k] -= f * A[a][k];
        }
    }
    for (int a = 0; a < m && !bad; a++) bad = (c[idx[a]] = A[a][m] / A[a][a]) < 0;
    if (bad) continue;
    for (int i = 0; i < n; i++) {
      double r = -y[i];
      for (int j = 0; j < p; j++) r += X[i][j] * c[j];
      sse += r * r;
    }
    if (best < 0 || sse < best) {
      best = sse;
      memcpy(coef, c, sizeof c);
    }
  }
  return best;
}

/* pitched_row (c), pitched_eff (e, 2D copies whose rows lie apart) and pitched_eff_contiguous (f,
 * 2D copies whose rows do not) on the calibration rows of the out-of-card GEMM one operation at a
 * time: nothing overlaps there, so a row's time is T0 + R c + S (1/e - 1) + Q (1/f - 1), with T0, R,
 * S and Q read from four simulations; c, 1/e - 1 and 1/f - 1 minimise the sum of squared relative
 * errors, none below 0 (nonneg_lsq). *rms: the fit's root mean square relative error, in sample. */
static int fit_pitched(double *c, double *e, double *f, double *rms) {
  static const char *const base = "pitched_row = 0\npitched_eff = 1\npitched_eff_contiguous = 1";
  static const char *const moved[NFIT] = {"pitched_row = 1e-6\npitched_eff = 1\npitched_eff_contiguous = 1",
                                          "pitched_row = 0\npitched_eff = 0.5\npitched_eff_contiguous = 1",
                                          "pitched_row = 0\npitched_eff = 1\npitched_eff_contiguous = 0.5"};
  static const double step[NFIT] = {1e-6, 1, 1}; /* what each moved line adds to its unknown */
  double X[MAXROWS][NFIT], y[MAXROWS], coef[NFIT] = {0}, sse;
  int n = 0;
  for (int i = 0; i < nrows; i++) {
    const row *r = &rows[i];
    double t0, Y;
    if (!is(r, "calibration", "ooc") || arg(r, "sync", 0) != 1) continue;
    t0 = ooc_seconds(r, simulate_with(r, base));
    Y = ooc_seconds(r, r->figure);
    if (!(t0 > 0)) return -1;
    for (int j = 0; j < NFIT; j++) {
      double t = ooc_seconds(r, simulate_with(r, moved[j]));
      if (!(t > 0)) return -1;
      X[n][j] = (t - t0) / step[j] / Y;
    }
    y[n++] = (Y - t0) / Y;
  }
  if (n < NFIT || (sse = nonneg_lsq(X, y, n, NFIT, coef)) < 0) return -1;
  *c = coef[0], *e = 1 / (1 + coef[1]), *f = 1 / (1 + coef[2]);
  *rms = sqrt(sse / n);
  return n;
}

/* dgemm-cuda's flops and the bytes the node's host copied per run (both pivot panels). */
static double dc_flop(const row *r) { double m = sqrt(arg(r, "d", 0)) * 1024; return 2.0 * m * m * 1024; }
static double dc_bytes(const row *r) { return 2.0 * sqrt(arg(r, "d", 0)) * 1024 * 1024 * 8; }

/* The node's host copy rate, bytes/s: measured = device (simulated) + bytes / rate on the
 * calibration rows of dgemm-cuda, least squares of the relative error. */
static double fit_host_rate(void) {
  double aa = 0, ay = 0;
  for (int i = 0; i < nrows; i++) {
    const row *r = &rows[i];
    double dev, Y;
    if (!is(r, "calibration", "dgemmcuda")) continue;
    if (!((dev = simulate(r, "h100")) > 0)) return -1;
    Y = dc_flop(r) / (r->figure * 1e12);
    aa += pow(dc_bytes(r) / Y, 2), ay += dc_bytes(r) / Y * (Y - dev) / Y;
  }
  return aa > 0 && ay > 0 ? aa / ay : -1;
}

int main(void) {
  char path[4096];
  double c = 0, e = 0, f = 0, rms = 0, rate, worst = 0;
  int n, held = 0, passed = 0;
  snprintf(path, sizeof path, "%s/h100.measured", STANDIN_DEVICES);
  snprintf(conf_path, sizeof conf_path, "%s/h100.conf", STANDIN_DEVICES);
  if (load_table(path) != 0) {
    ok(0, "the table of measured rows %s can be read", path);
    return done_testing();
  }
  ok(nrows > 0, "%d measured rows in %s", nrows, path);

  /* the fitted constants, refitted on the calibration rows only */
  n = fit_pitched(&c, &e, &f, &rms);
  ok(n > 1 && fabs(conf_value("pitched_row") - c) <= 0.03 * c && fabs(conf_value("pitched_eff") - e) <= 0.03 * e &&
         fabs(conf_value("pitched_eff_contiguous") - f) <= 0.03 * f,
     "h100.conf's pitched_row %g s, pitched_eff %g and pitched_eff_contiguous %g are the fit on the %d one-at-a-time "
     "calibration rows (%.3g s, %.3f, %.3f; in sample, %.1f %% root mean square)", conf_value("pitched_row"),
     conf_value("pitched_eff"), conf_value("pitched_eff_contiguous"), n, c, e, f, 100 * rms);
  rate = fit_host_rate();
  ok(rate > 0, "the H100 node's host copied dgemm-cuda's panels at %.2f GB/s (fitted on the rows with C held)",
     rate * 1e-9);

  /* the description's keys are checked: a link shared beyond what one direction alone carries,
   * and a key it does not know, leave no device */
  {
    row probe = {"", "", "devices", "", "", "", 0};
    double as_is = simulate(&probe, "h100"), low, unknown;
    fprintf(stderr, "two refused descriptions follow:\n");
    low = simulate_with(&probe, "duplex = 0.4");
    unknown = simulate_with(&probe, "fft_sectors = 32");
    ok(as_is == 1 && low == 0 && unknown == 0,
       "h100.conf gives one device (%g); with duplex = 0.4 or an unknown key, none (%g, %g)", as_is, low, unknown);
  }

  /* every row on the description as it is */
  diag("| set | source | operation | measured | simulated | error |");
  diag("|---|---|---|---|---|---|");
  for (int i = 0; i < nrows; i++) {
    const row *r = &rows[i];
    double v = simulate(r, "h100"), err;
    if (!strcmp(r->op, "dgemmcuda")) v = v > 0 && rate > 0 ? dc_flop(r) / (v + dc_bytes(r) / rate) * 1e-12 : -1;
    err = (v - r->figure) / r->figure;
    diag("| %s | %s | %s %s| %.4g %s | %.4g | %+.1f %% |", r->set, r->src, r->op, r->args, r->figure, r->unit, v,
         100 * err);
    if (!strcmp(r->set, "held-out")) {
      int good = v > 0 && fabs(err) <= HELD_OUT_TOLERANCE;
      held++;
      passed += good;
      if (fabs(err) > worst) worst = fabs(err);
      if (strcmp(r->gap, "gap") == 0) {
        /* a known miss (h100.measured says why): reported, not counted, until the model meets it */
        printf("%sok %d - held out: %s %s(%s): simulated %.4g, measured %.4g %s, %+.1f %% # TODO a known gap of the "
               "model (h100.measured)\n", good ? "" : "not ", ++tap_n, r->op, r->args, r->src, v, r->figure, r->unit,
               100 * err);
        continue;
      }
      ok(good, "held out: %s %s(%s): simulated %.4g, measured %.4g %s, %+.1f %%", r->op, r->args, r->src, v, r->figure,
         r->unit, 100 * err);
    }
  }
  diag("%d of %d held-out rows within %.0f %% (worst %.1f %%)", passed, held, 100 * HELD_OUT_TOLERANCE, 100 * worst);
  ok(held >= 8, "%d held-out rows", held);
  return done_testing();
}
#endif
