/* dgemm-rows: C_i = A_i B + C_i for a block of d rows of an N x N product (the row formulation of
 * the Khaleghzadeh thesis, chapters 4-5): A_i and C_i are d x N, B is the whole N x N matrix.
 * One unit is one row; complexity = 2 d N^2.
 * Sub-options: n=N (matrix order, default 2048), threads=N (openblas_set_num_threads from
 * initialize to finalize, which restores the program's count). */
#define _GNU_SOURCE /* dladdr */
#include <cblas.h>
#include "kernels/cpu/blas.h"
#include "kernels/cpu/common.h"

#define NAME "dgemm-rows"

typedef struct {
  kern_dgemm_fn gemm; /* OpenBLAS's, whatever the global scope holds (blas.h) */
  long n, threads;
  int saved_threads; /* OpenBLAS's thread count before initialize; 0: nothing to restore */
  long d;
  double *A, *B, *C;
} rows_ctx;

static const fupermod_option options[] = {
    {"n", FUPERMOD_OPT_LONG, 1, 1 << 20, "2048", "the matrix order N", NULL},
    {"threads", FUPERMOD_OPT_LONG, 1, 4096, NULL, "OpenBLAS threads while measuring (default: unchanged)", NULL},
    FUPERMOD_OPTION_END};

static int create(const char *subopts, void **ctx) {
  rows_ctx *k;
  long n = 2048, threads = 0;
  int rc;
  if ((rc = kern_opt_long(NAME, options, subopts, "n", &n)) != FUPERMOD_SUCCESS) return rc;
  if ((rc = kern_opt_long(NAME, options, subopts, "threads", &threads)) != FUPERMOD_SUCCESS) return rc;
  if (!(k = calloc(1, sizeof *k))) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  k->gemm = kern_openblas_dgemm();
  k->n = n;
  k->threads = threads;
  *ctx = k;
  return FUPERMOD_SUCCESS;
}

static double complexity(long d, void *ctx) {
  double n = (double)((rows_ctx *)ctx)->n;
  return d > 0 ? 2.0 * (double)d * n * n : 0.0;
}

static int finalize(void *ctx) {
  rows_ctx *k = ctx;
  /* the thread count is process-wide: give the program back its own */
  if (k->saved_threads > 0) openblas_set_num_threads(k->saved_threads);
  k->saved_threads = 0;
  free(k->A), free(k->B), free(k->C);
  k->A = k->B = k->C = NULL;
  k->d = 0;
  return FUPERMOD_SUCCESS;
}

static int initialize(long d, void *ctx) {
  rows_ctx *k = ctx;
  double bytes = 8.0 * (2.0 * (double)d * (double)k->n + (double)k->n * (double)k->n);
  size_t n = (size_t)k->n;
  int rc;
  if ((rc = kern_check_d(NAME, d)) != FUPERMOD_SUCCESS) return rc;
  finalize(k);
  if ((rc = kern_mem_check(NAME, d, bytes, kern_mem_limit(), "(3/4 of the physical memory)")) != FUPERMOD_SUCCESS)
    return rc;
  /* cblas takes int dimensions */
  if (d > 0x7fffffffL)
    return fupermod_error(FUPERMOD_ERR_INPUT, NAME " kernel: d=%ld rows exceed the BLAS limit of 2^31-1", d);
  k->A = kern_alloc_doubles((size_t)d * n);
  k->B = kern_alloc_doubles(n * n);
  k->C = kern_alloc_doubles((size_t)d * n);
  if (!k->A || !k->B || !k->C) {
    finalize(k);
    return fupermod_error(FUPERMOD_ERR_NOMEM, NAME " kernel: cannot allocate %.0f bytes for d=%ld", bytes, d);
  }
  kern_fill(k->A, (size_t)d * n, 11);
  kern_fill(k->B, n * n, 12);
  kern_fill(k->C, (size_t)d * n, 13);
  k->d = d;
  if (k->threads > 0) {
    k->saved_threads = openblas_get_num_threads();
    openblas_set_num_threads((int)k->threads);
  }
  return FUPERMOD_SUCCESS;
}

static int execute(void *ctx) {
  rows_ctx *k = ctx;
  int n = (int)k->n;
  if (!k->d) return fupermod_error(FUPERMOD_ERR_USAGE, NAME " kernel: execute before initialize");
  k->gemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)k->d, n, n, 1.0, k->A, n, k->B, n, 1.0, k->C, n);
  return FUPERMOD_SUCCESS;
}

static void destroy(void *ctx) {
  if (!ctx) return;
  finalize(ctx);
  free(ctx);
}

/* Two runs against C_0 + A B + A B by a triple loop. */
static int check_one(long n, long d, long threads) {
  rows_ctx k = {kern_openblas_dgemm(), n, threads, 0, 0, NULL, NULL, NULL};
  double *ref, err;
  size_t len = (size_t)(d * n);
  int rc = initialize(d, &k);
  if (rc != FUPERMOD_SUCCESS) return rc;
  if (!(ref = malloc(len * sizeof *ref))) {
    finalize(&k);
    return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  }
  kern_fill(ref, len, 13);
  for (int r = 0; r < 2 && rc == FUPERMOD_SUCCESS; r++) {
    rc = execute(&k);
    kern_ref_gemm(d, n, n, k.A, n, k.B, n, ref, n);
  }
  err = kern_rel_err(k.C, ref, len);
  free(ref);
  finalize(&k);
  if (rc != FUPERMOD_SUCCESS) return rc;
  if (!(err <= 1e-12))
    return fupermod_error(FUPERMOD_ERR_NUMERIC, NAME " kernel: verify failed for n=%ld d=%ld: relative error %g", n, d,
                          err);
  return FUPERMOD_SUCCESS;
}

static int verify(void *ctx) {
  rows_ctx *k = ctx;
  static const long cases[][2] = {{1, 1}, {5, 3}, {17, 4}, {33, 1}, {64, 70}};
  int rc;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    if ((rc = check_one(cases[i][0], cases[i][1], k->threads)) != FUPERMOD_SUCCESS) return rc;
  if (k->n <= 128) return check_one(k->n, 3, k->threads);
  return FUPERMOD_SUCCESS;
}

const fupermod_kernel_ops fupermod_kernel_plugin = {
  FUPERMOD_KERNEL_API, NAME, "C_i = A_i B + C_i for a block of d rows of an N x N product (OpenBLAS)",
  create, complexity, initialize, execute, finalize, destroy, verify, NULL, NULL, options};
