/* fft-rows: forward 1D complex FFTs of a block of d rows of length N (the row phase of the
 * row-column 2D FFT), batched in one FFTW plan. One unit is one row; complexity = 5 N log2(N) d
 * (the usual FFT flop convention). The transform is in place, as in apps/fft2d (an out-of-place
 * one moves twice the memory and measured 1.3-1.7x slower here); each run transforms the last
 * run's output, so the input is refilled every REFILL runs before the values can overflow.
 * Planning happens in initialize, never in execute.
 * Sub-options: n=N (row length, default 4096, >= 2), threads=T (FFTW OpenMP threads of the plan,
 * default 1; the planner setting of the program is restored after planning),
 * place=in|out (default in; out keeps the input, every run transforms the same data),
 * wisdom=FILE (import FFTW wisdom; plans found there are used, others fall back to FFTW_ESTIMATE).
 * Through an executor (use_exec, fupermod/exec.h) each run is the executor's in-place transform of
 * the d rows, as the 2D-FFT's row phase on that device (a GPU: upload, cuFFT, download).
 * Built as fft-rows-cuda (KERN_CUDA), the kernel opens a CUDA executor of its own on device=N
 * (default 0): the same transforms through the same GPU code as the 2D-FFT's, in place only.
 * Without a CUDA device, create fails with FUPERMOD_ERR_NODEVICE. */
#include <pthread.h>
#include <fftw3.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "kernels/cpu/common.h"

#ifdef KERN_CUDA
#define NAME "fft-rows-cuda"
#else
#define NAME "fft-rows"
#endif
/* |x| grows by at most sqrt(N) per forward transform in the 2-norm: 32 runs stay finite for any N
 * below 2^60 */
#define REFILL 32

typedef struct {
  long n, threads;
  fupermod_exec *exec; /* NULL: FFTW in this process */
  fupermod_exec *own;  /* fft-rows-cuda: the executor it opened */
  int wisdom, inplace;
  long d, runs;
  fftw_complex *in, *out;
  fftw_plan plan;
} fft_ctx;

static pthread_once_t threads_once = PTHREAD_ONCE_INIT;
static int threads_ok;
static void init_threads(void) { threads_ok = fftw_init_threads(); }

static const fupermod_option options[] = {
    {"n", FUPERMOD_OPT_LONG, 2, 2147483647.0, "4096", "the row length N", NULL},
    {"threads", FUPERMOD_OPT_LONG, 1, 4096, "1", "FFTW threads of the plan", NULL},
    {"place", FUPERMOD_OPT_STRING, 1, 0, "in", "in: each run transforms the last output; out: the same input", "in|out"},
    {"wisdom", FUPERMOD_OPT_STRING, 1, 0, NULL, "a file of FFTW wisdom to import", NULL},
#ifdef KERN_CUDA
    {"device", FUPERMOD_OPT_LONG, 0, 1023, "0", "the CUDA device", NULL},
#endif
    FUPERMOD_OPTION_END};

static int create(const char *subopts, void **ctx) {
  fft_ctx *k;
  long n = 4096, threads = 1;
  char path[4096];
  int rc, has_wisdom, inplace;
  if ((rc = kern_opt_long(NAME, options, subopts, "n", &n)) != FUPERMOD_SUCCESS) return rc;
  if ((rc = kern_opt_long(NAME, options, subopts, "threads", &threads)) != FUPERMOD_SUCCESS) return rc;
  if ((rc = fupermod_option_string(options, subopts, "place", path, sizeof path)) < 0) return rc;
  inplace = strcmp(path, "in") == 0;
  if ((has_wisdom = fupermod_option_string(options, subopts, "wisdom", path, sizeof path)) < 0) return has_wisdom;
  pthread_once(&threads_once, init_threads);
  if (!threads_ok) return fupermod_error(FUPERMOD_ERR_SYSTEM, NAME " kernel: fftw_init_threads failed");
  if (has_wisdom && !fftw_import_wisdom_from_filename(path))
    return fupermod_error(FUPERMOD_ERR_INPUT, NAME " kernel: sub-option wisdom=%s: cannot read FFTW wisdom from it",
                          path);
#ifdef KERN_CUDA
  long device = 0;
  if ((rc = kern_opt_long(NAME, options, subopts, "device", &device)) != FUPERMOD_SUCCESS) return rc;
  if (!inplace) return fupermod_error(FUPERMOD_ERR_USAGE, NAME " kernel: place=out: a GPU transforms in place");
#endif
  if (!(k = calloc(1, sizeof *k))) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  k->n = n;
  k->threads = threads;
  k->wisdom = has_wisdom;
  k->inplace = inplace;
#ifdef KERN_CUDA
  if ((rc = kern_open_cuda(NAME, device, &k->own)) != FUPERMOD_SUCCESS) {
    free(k);
    return rc;
  }
  k->exec = k->own;
#endif
  *ctx = k;
  return FUPERMOD_SUCCESS;
}

static double complexity(long d, void *ctx) {
  double n = (double)((fft_ctx *)ctx)->n;
  return d > 0 ? 5.0 * n * log2(n) * (double)d : 0.0;
}

static int finalize(void *ctx) {
  fft_ctx *k = ctx;
  if (k->exec && k->in) fupermod_exec_unpin(k->exec, k->in);
  if (k->plan) fftw_destroy_plan(k->plan);
  if (k->out != k->in) fftw_free(k->out);
  fftw_free(k->in);
  k->plan = NULL;
  k->in = k->out = NULL;
  k->d = 0;
  return FUPERMOD_SUCCESS;
}

static int initialize(long d, void *ctx) {
  fft_ctx *k = ctx;
  double bytes = (k->inplace ? 1.0 : 2.0) * 16.0 * (double)d * (double)k->n;
  size_t len;
  int n = (int)k->n, rc, saved;
  if ((rc = kern_check_d(NAME, d)) != FUPERMOD_SUCCESS) return rc;
  finalize(k);
  if ((rc = kern_mem_check(NAME, d, bytes, kern_mem_limit(), "(3/4 of the physical memory)")) != FUPERMOD_SUCCESS)
    return rc;
  if (d > 0x7fffffffL)
    return fupermod_error(FUPERMOD_ERR_INPUT, NAME " kernel: d=%ld rows exceed FFTW's batch limit of 2^31-1", d);
  len = (size_t)d * (size_t)k->n;
  k->in = fftw_malloc(len * sizeof(fftw_complex));
  k->out = k->inplace ? k->in : fftw_malloc(len * sizeof(fftw_complex));
  if (!k->in || !k->out) {
    finalize(k);
    return fupermod_error(FUPERMOD_ERR_NOMEM, NAME " kernel: cannot allocate %.0f bytes for d=%ld", bytes, d);
  }
  if (k->exec) {
    kern_fill((double *)k->in, 2 * len, 21);
    k->d = d;
    k->runs = 0;
    if ((rc = fupermod_exec_pin(k->exec, k->in, len * sizeof(fftw_complex))) != FUPERMOD_SUCCESS) finalize(k);
    return rc;
  }
  /* the planner's thread count is global FFTW state: set it for this plan only (a plan keeps
   * its count) and give the program back its own */
  saved = fftw_planner_nthreads();
  fftw_plan_with_nthreads((int)k->threads);
  if (k->wisdom)
    k->plan = fftw_plan_many_dft(1, &n, (int)d, k->in, NULL, 1, n, k->out, NULL, 1, n, FFTW_FORWARD,
                                 FFTW_MEASURE | FFTW_WISDOM_ONLY);
  if (!k->plan)
    k->plan = fftw_plan_many_dft(1, &n, (int)d, k->in, NULL, 1, n, k->out, NULL, 1, n, FFTW_FORWARD, FFTW_ESTIMATE);
  fftw_plan_with_nthreads(saved);
  if (!k->plan) {
    finalize(k);
    return fupermod_error(FUPERMOD_ERR_SYSTEM, NAME " kernel: FFTW could not plan %ld rows of %ld", d, k->n);
  }
  /* fill after planning: planners other than ESTIMATE may overwrite the arrays */
  kern_fill((double *)k->in, 2 * len, 21);
  if (!k->inplace) memset(k->out, 0, len * sizeof(fftw_complex));
  k->d = d;
  k->runs = 0;
  return FUPERMOD_SUCCESS;
}

static int execute(void *ctx) {
  fft_ctx *k = ctx;
  if (!k->d) return fupermod_error(FUPERMOD_ERR_USAGE, NAME " kernel: execute before initialize");
  if (k->inplace && k->runs > 0 && k->runs % REFILL == 0) kern_fill((double *)k->in, 2 * (size_t)k->d * (size_t)k->n, 21);
  k->runs++;
  if (k->exec) {
    fupermod_exec_fft_layout rows = {k->n, k->d, 1, k->n, 1, 0};
    return fupermod_exec_fft(k->exec, &rows, (double *)k->in, FFTW_FORWARD);
  }
#ifdef _OPENMP
  {
    /* FFTW's OpenMP loops take the calling thread's OpenMP thread count, not the plan's: a
     * program run with OMP_NUM_THREADS=1 would run every plan on one thread */
    int saved = omp_get_max_threads();
    omp_set_num_threads((int)k->threads);
    fftw_execute(k->plan);
    omp_set_num_threads(saved);
  }
#else
  fftw_execute(k->plan);
#endif
  return FUPERMOD_SUCCESS;
}

static void destroy(void *ctx) {
  if (!ctx) return;
  finalize(ctx);
  fupermod_exec_close(((fft_ctx *)ctx)->own);
  free(ctx);
}

/* Every row against a naive DFT (relative error <= 1e-9), out of place twice (the input must be
 * preserved) and in place once, then again after the refill of run REFILL. */
static int check_one(long n, long d, long threads, int inplace, fupermod_exec *exec) {
  fft_ctx k = {n, threads, exec, NULL, 0, inplace, 0, 0, NULL, NULL, NULL};
  double *ref, err = 0.0;
  size_t row = 2 * (size_t)n;
  int rc = initialize(d, &k);
  if (rc != FUPERMOD_SUCCESS) return rc;
  if (!(ref = malloc(row * (size_t)d * sizeof *ref))) {
    finalize(&k);
    return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  }
  for (long i = 0; i < d; i++)
    if (kern_ref_dft(n, (const double *)k.in + i * row, ref + i * row) != 0) {
      free(ref);
      finalize(&k);
      return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
    }
  for (int r = 0; r < 2 && rc == FUPERMOD_SUCCESS; r++) {
    double e;
    if (inplace && r == 1)
      while (rc == FUPERMOD_SUCCESS && k.runs % REFILL != 0) rc = execute(&k); /* the next run refills */
    if (!inplace) memset(k.out, 0, row * (size_t)d * sizeof(double));
    if (rc == FUPERMOD_SUCCESS) rc = execute(&k);
    e = kern_rel_err((const double *)k.out, ref, row * (size_t)d);
    if (isnan(e) || e > err) err = e;
  }
  free(ref);
  finalize(&k);
  if (rc != FUPERMOD_SUCCESS) return rc;
  if (!(err <= 1e-9))
    return fupermod_error(FUPERMOD_ERR_NUMERIC, NAME " kernel: verify failed for n=%ld d=%ld: relative error %g", n, d,
                          err);
  return FUPERMOD_SUCCESS;
}

static int verify(void *ctx) {
  fft_ctx *k = ctx;
  /* powers of two, primes and mixed radices */
  static const long cases[][2] = {{2, 1}, {3, 3}, {5, 2}, {8, 4}, {12, 3}, {17, 2}, {64, 5}, {210, 2}, {1024, 2}};
  int rc;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    /* an executor transforms in place only */
    if ((rc = check_one(cases[i][0], cases[i][1], k->threads, k->exec ? 1 : (int)(i % 2), k->exec)) != FUPERMOD_SUCCESS)
      return rc;
  if (k->n <= 4096) return check_one(k->n, 2, k->threads, k->inplace, k->exec);
  return FUPERMOD_SUCCESS;
}

static int use_exec(void *ctx, fupermod_exec *exec) {
  fft_ctx *k = ctx;
  if (k->d) return fupermod_error(FUPERMOD_ERR_USAGE, NAME " kernel: use_exec between initialize and finalize");
  if (!k->inplace) return fupermod_error(FUPERMOD_ERR_USAGE, NAME " kernel: place=out cannot run through an executor");
  /* the process's device replaces the one fft-rows-cuda opened */
  if (k->own && exec) {
    fupermod_exec_close(k->own);
    k->own = NULL;
  }
  k->exec = exec ? exec : k->own;
  return FUPERMOD_SUCCESS;
}

const fupermod_kernel_ops fupermod_kernel_plugin = {
  FUPERMOD_KERNEL_API, NAME,
#ifdef KERN_CUDA
  "batched forward 1D complex FFTs of d rows of length N on a GPU (its CUDA executor, transfers included)",
#else
  "batched forward 1D complex FFTs of d rows of length N (FFTW, or the process's executor)",
#endif
  create, complexity, initialize, execute, finalize, destroy, verify, NULL, use_exec, options};
