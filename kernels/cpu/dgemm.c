/* dgemm: one iteration of the heterogeneous SUMMA block update (Clarke thesis, Appendix A), as
 * apps/summa.c computes it. d is an area in b x b blocks; the process owns a rows x cols rectangle
 * (column-major, like the application) with rows = m b, m = floor(sqrt d), and cols chosen so that
 * rows x cols = d b^2 to within one column (kern_gemm_shape): the work of exactly d blocks.
 * execute does C_i += A_i(:, pivot) B_i(pivot, :) with OpenBLAS on the pivot block column of A_i
 * and block row of B_i in place, as the owner of a pivot does in SUMMA; the receives of the
 * panels are communication, which the application does not count as computation either.
 * complexity = 2 rows cols b.
 * Sub-options: b=BLOCK (default 64), threads=N (openblas_set_num_threads from initialize to
 * finalize, which restores the program's count; default: unchanged).
 * Through an executor (use_exec, fupermod/exec.h) the runs are the updates of one GEMM session
 * from initialize to finalize, as SUMMA's on that device: on a GPU, C stays on the device and
 * every run uploads its pivot panels, with A, B and C page-locked.
 * Built as dgemm-cuda (KERN_CUDA), the kernel opens a CUDA executor of its own on device=N
 * (default 0), so that fupermod build measures a GPU without a process executor: the same update
 * through the same GPU code as SUMMA's. Sub-option resident=0 (the default) makes every run a
 * session of its own, C uploaded and downloaded with it (the thesis's GPU kernel); resident=1
 * keeps C on the device from initialize to finalize. Without a CUDA device, create fails with
 * FUPERMOD_ERR_NODEVICE. */
#define _GNU_SOURCE /* dladdr */
#include <cblas.h>
#include "kernels/cpu/blas.h"
#include "kernels/cpu/common.h"

#ifdef KERN_CUDA
#define NAME "dgemm-cuda"
#else
#define NAME "dgemm"
#endif

typedef struct {
  kern_dgemm_fn gemm; /* OpenBLAS's, whatever the global scope holds (blas.h) */
  long b, threads;
  int saved_threads; /* OpenBLAS's thread count before initialize; 0: nothing to restore */
  long d, m, iter;
  size_t rows, cols; /* m*b, about d b^2 / rows */
  double *A, *B, *C;
  fupermod_exec *exec; /* NULL: OpenBLAS in this thread */
  fupermod_exec *own;  /* dgemm-cuda: the executor it opened */
  int per_run;         /* dgemm-cuda, resident=0: every run a GEMM session of its own, C moved with it */
} dgemm_ctx;

static const fupermod_option options[] = {
    {"b", FUPERMOD_OPT_LONG, 1, 16384, "64", "the block size: one unit is a b x b block", NULL},
    {"threads", FUPERMOD_OPT_LONG, 1, 4096, NULL, "OpenBLAS threads while measuring (default: unchanged)", NULL},
#ifdef KERN_CUDA
    {"device", FUPERMOD_OPT_LONG, 0, 1023, "0", "the CUDA device", NULL},
    {"resident", FUPERMOD_OPT_LONG, 0, 1, "0", "1: C stays on the device from initialize to finalize", NULL},
#endif
    FUPERMOD_OPTION_END};

static int create(const char *subopts, void **ctx) {
  dgemm_ctx *k;
  long b = 64, threads = 0;
  int rc;
  if ((rc = kern_opt_long(NAME, options, subopts, "b", &b)) != FUPERMOD_SUCCESS) return rc;
  if ((rc = kern_opt_long(NAME, options, subopts, "threads", &threads)) != FUPERMOD_SUCCESS) return rc;
#ifdef KERN_CUDA
  long device = 0, resident = 0;
  if ((rc = kern_opt_long(NAME, options, subopts, "device", &device)) != FUPERMOD_SUCCESS) return rc;
  if ((rc = kern_opt_long(NAME, options, subopts, "resident", &resident)) != FUPERMOD_SUCCESS) return rc;
#endif
  if (!(k = calloc(1, sizeof *k))) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  k->gemm = kern_openblas_dgemm();
  k->b = b;
  k->threads = threads;
#ifdef KERN_CUDA
  if ((rc = kern_open_cuda(NAME, device, &k->own)) != FUPERMOD_SUCCESS) {
    free(k);
    return rc;
  }
  k->exec = k->own;
  k->per_run = !resident;
#endif
  *ctx = k;
  return FUPERMOD_SUCCESS;
}

static double complexity(long d, void *ctx) {
  long b = ((dgemm_ctx *)ctx)->b, rows, cols;
  kern_gemm_shape(d, b, &rows, &cols);
  return d > 0 ? 2.0 * (double)rows * (double)cols * (double)b : 0.0;
}

static int finalize(void *ctx) {
  dgemm_ctx *k = ctx;
  int rc = FUPERMOD_SUCCESS;
  if (k->exec && k->d) {
    /* C back in host memory; the session and the page-locking end with the size */
    if (!k->per_run) rc = fupermod_exec_gemm_end(k->exec);
    fupermod_exec_unpin(k->exec, k->A), fupermod_exec_unpin(k->exec, k->B), fupermod_exec_unpin(k->exec, k->C);
  }
  /* the thread count is process-wide: give the program back its own */
  if (k->saved_threads > 0) openblas_set_num_threads(k->saved_threads);
  k->saved_threads = 0;
  free(k->A), free(k->B), free(k->C);
  k->A = k->B = k->C = NULL;
  k->d = 0;
  return rc;
}

/* the next pivot's update through the executor */
static int update(dgemm_ctx *k) {
  size_t b = (size_t)k->b, p = (size_t)(k->iter++ % k->m);
  return fupermod_exec_gemm_update(k->exec, 0, k->b, k->A + p * b * k->rows, (long)k->rows, k->B + p * b, (long)k->rows);
}

static int initialize(long d, void *ctx) {
  dgemm_ctx *k = ctx;
  double bytes;
  size_t rc_elems;
  int rc;
  if ((rc = kern_check_d(NAME, d)) != FUPERMOD_SUCCESS) return rc;
  finalize(k);
  {
    long rows, cols;
    kern_gemm_shape(d, k->b, &rows, &cols);
    k->m = rows / k->b;
    k->rows = (size_t)rows;
    k->cols = (size_t)cols;
  }
  bytes = 8.0 * 3.0 * (double)k->rows * (double)k->cols;
  if ((rc = kern_mem_check(NAME, d, bytes, kern_mem_limit(), "(3/4 of the physical memory)")) != FUPERMOD_SUCCESS)
    return rc;
  rc_elems = k->rows * k->cols;
  k->A = kern_alloc_doubles(rc_elems);
  k->B = kern_alloc_doubles(rc_elems);
  k->C = kern_alloc_doubles(rc_elems);
  if (!k->A || !k->B || !k->C) {
    finalize(k);
    return fupermod_error(FUPERMOD_ERR_NOMEM, NAME " kernel: cannot allocate %.0f bytes for d=%ld", bytes, d);
  }
  kern_fill(k->A, rc_elems, 1);
  kern_fill(k->B, rc_elems, 2);
  kern_fill(k->C, rc_elems, 3);
  k->d = d;
  k->iter = 0;
  if (k->exec) {
    size_t by = rc_elems * sizeof(double);
    if ((rc = fupermod_exec_pin(k->exec, k->A, by)) == FUPERMOD_SUCCESS &&
        (rc = fupermod_exec_pin(k->exec, k->B, by)) == FUPERMOD_SUCCESS &&
        (rc = fupermod_exec_pin(k->exec, k->C, by)) == FUPERMOD_SUCCESS && !k->per_run)
      rc = fupermod_exec_gemm_begin(k->exec, k->C, (long)k->rows, (long)k->cols, (long)k->rows, k->b, 0);
    /* one update queued before the measured runs: each run then waits for the one before it, as a
     * SUMMA pivot does in steady state (its panels move while the previous GEMM runs) */
    if (rc == FUPERMOD_SUCCESS && !k->per_run) rc = update(k);
    if (rc != FUPERMOD_SUCCESS) {
      k->d = 0; /* no session to end */
      fupermod_exec_unpin(k->exec, k->A), fupermod_exec_unpin(k->exec, k->B), fupermod_exec_unpin(k->exec, k->C);
      finalize(k);
    }
    return rc;
  }
  if (k->threads > 0) {
    k->saved_threads = openblas_get_num_threads();
    openblas_set_num_threads((int)k->threads);
  }
  return FUPERMOD_SUCCESS;
}

static int execute(void *ctx) {
  dgemm_ctx *k = ctx;
  size_t b = (size_t)k->b, p;
  if (!k->d) return fupermod_error(FUPERMOD_ERR_USAGE, NAME " kernel: execute before initialize");
  if (k->exec && !k->per_run) {
    int rc = update(k);
    return rc == FUPERMOD_SUCCESS ? fupermod_exec_gemm_wait(k->exec, 1) : rc;
  }
  if (k->exec) {
    /* dgemm-cuda, resident=0: C goes to the device and back with every run */
    int rc = fupermod_exec_gemm_begin(k->exec, k->C, (long)k->rows, (long)k->cols, (long)k->rows, k->b, 0), erc;
    if (rc == FUPERMOD_SUCCESS) rc = update(k);
    erc = fupermod_exec_gemm_end(k->exec);
    return rc != FUPERMOD_SUCCESS ? rc : erc;
  }
  /* pivot block p of the SUMMA loop: m b <= cols, so it is a column block of A_i and a row block of B_i */
  p = (size_t)(k->iter++ % k->m);
  k->gemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)k->rows, (int)k->cols, (int)b, 1.0, k->A + p * b * k->rows,
          (int)k->rows, k->B + p * b, (int)k->rows, 1.0, k->C, (int)k->rows);
  return FUPERMOD_SUCCESS;
}

static void destroy(void *ctx) {
  if (!ctx) return;
  finalize(ctx);
  fupermod_exec_close(((dgemm_ctx *)ctx)->own);
  free(ctx);
}

/* Run the kernel for (b, d) and compare C with C_0 + sum of the pivot products by a triple loop. */
static int check_one(long b, long d, long threads, fupermod_exec *exec, int per_run) {
  dgemm_ctx k = {kern_openblas_dgemm(), b, threads, 0, 0, 0, 0, 0, 0, NULL, NULL, NULL, exec, NULL, per_run};
  const int runs = 3;
  double *ref, err;
  size_t n;
  int rc = initialize(d, &k);
  if (rc != FUPERMOD_SUCCESS) return rc;
  n = k.rows * k.cols;
  if (!(ref = malloc(n * sizeof *ref))) {
    finalize(&k);
    return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  }
  kern_fill(ref, n, 3);
  /* an executor's session queued one update in initialize */
  for (long r = exec && !per_run ? -1 : 0; r < runs && rc == FUPERMOD_SUCCESS; r++) {
    long p = (r + (exec && !per_run)) % k.m;
    if (r >= 0) rc = execute(&k);
    /* column-major C += A_p B_p is row-major C^T += B_p^T A_p^T */
    kern_ref_gemm((long)k.cols, (long)k.rows, b, k.B + p * b, (long)k.rows, k.A + p * b * (long)k.rows, (long)k.rows,
                  ref, (long)k.rows);
  }
  /* an executor hands C back at the end of its session */
  if (exec && !per_run && rc == FUPERMOD_SUCCESS) rc = fupermod_exec_gemm_end(exec);
  err = kern_rel_err(k.C, ref, n);
  free(ref);
  finalize(&k);
  if (rc != FUPERMOD_SUCCESS) return rc;
  if (!(err <= 1e-12))
    return fupermod_error(FUPERMOD_ERR_NUMERIC, NAME " kernel: verify failed for b=%ld d=%ld: relative error %g", b, d,
                          err);
  return FUPERMOD_SUCCESS;
}

static int verify(void *ctx) {
  dgemm_ctx *k = ctx;
  /* d = 1 and 2 (one pivot, wrapped), non-square d, d = 10 (3 block rows, 13 of 12+ columns) */
  static const long cases[][2] = {{1, 1}, {3, 2}, {5, 7}, {4, 10}, {8, 6}, {16, 12}};
  int rc;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    if ((rc = check_one(cases[i][0], cases[i][1], k->threads, k->exec, k->per_run)) != FUPERMOD_SUCCESS)
      return rc;
  if (k->b <= 128) return check_one(k->b, 5, k->threads, k->exec, k->per_run); /* the configured block size */
  return FUPERMOD_SUCCESS;
}

static int use_exec(void *ctx, fupermod_exec *exec) {
  dgemm_ctx *k = ctx;
  if (k->d) return fupermod_error(FUPERMOD_ERR_USAGE, NAME " kernel: use_exec between initialize and finalize");
  /* the process's device replaces the one dgemm-cuda opened */
  if (k->own && exec) {
    fupermod_exec_close(k->own);
    k->own = NULL;
    k->per_run = 0;
  }
  k->exec = exec ? exec : k->own;
  return FUPERMOD_SUCCESS;
}

const fupermod_kernel_ops fupermod_kernel_plugin = {
  FUPERMOD_KERNEL_API, NAME,
#ifdef KERN_CUDA
  "SUMMA block update: C += A_(b) B_(b) on a GPU (its CUDA executor, transfers included)",
#else
  "SUMMA block update: C += A_(b) B_(b) (OpenBLAS, or the process's executor)",
#endif
  create, complexity, initialize, execute, finalize, destroy, verify, NULL, use_exec, options};
