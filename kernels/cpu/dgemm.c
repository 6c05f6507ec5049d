/* dgemm: one iteration of the heterogeneous SUMMA block update (Clarke thesis, Appendix A).
 * d is an area in b x b blocks; the process owns an m x n rectangle of blocks with
 * m = floor(sqrt d), n = floor(d/m) (so m*n <= d), holding A_i, B_i, C_i of (mb) x (nb) elements.
 * execute copies a pivot column block of A_i and a pivot row block of B_i into the buffers A_(b)
 * ((mb) x b) and B_(b) (b x (nb)), standing in for the receives of the real application, then does
 * C_i += A_(b) B_(b) with OpenBLAS. complexity = 2 (mb)(nb) b.
 * Sub-options: b=BLOCK (default 64), threads=N (openblas_set_num_threads; default: unchanged). */
#define _GNU_SOURCE /* dladdr */
#include <cblas.h>
#include "kernels/cpu/blas.h"
#include "kernels/cpu/common.h"

#define NAME "dgemm"

typedef struct {
  kern_dgemm_fn gemm; /* OpenBLAS's, whatever the global scope holds (blas.h) */
  long b, threads;
  long d, m, n, iter;
  size_t rows, cols; /* m*b, n*b */
  double *A, *B, *C, *Ab, *Bb;
} dgemm_ctx;

static int create(const char *subopts, void **ctx) {
  dgemm_ctx *k;
  long b = 64, threads = 0;
  int rc;
  if ((rc = kern_opt_long(NAME, subopts, "b", 1, 16384, &b)) != FUPERMOD_SUCCESS) return rc;
  if ((rc = kern_opt_long(NAME, subopts, "threads", 1, 4096, &threads)) != FUPERMOD_SUCCESS) return rc;
  if (!(k = calloc(1, sizeof *k))) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  k->gemm = kern_openblas_dgemm();
  k->b = b;
  k->threads = threads;
  *ctx = k;
  return FUPERMOD_SUCCESS;
}

static double complexity(long d, void *ctx) {
  return d > 0 ? kern_dgemm_complexity(d, ((dgemm_ctx *)ctx)->b) : 0.0;
}

static int finalize(void *ctx) {
  dgemm_ctx *k = ctx;
  free(k->A), free(k->B), free(k->C), free(k->Ab), free(k->Bb);
  k->A = k->B = k->C = k->Ab = k->Bb = NULL;
  k->d = 0;
  return FUPERMOD_SUCCESS;
}

static int initialize(long d, void *ctx) {
  dgemm_ctx *k = ctx;
  double bytes;
  size_t rc_elems;
  int rc;
  if ((rc = kern_check_d(NAME, d)) != FUPERMOD_SUCCESS) return rc;
  finalize(k);
  kern_block_shape(d, &k->m, &k->n);
  bytes = 8.0 * (3.0 * (double)(k->m * k->b) * (double)(k->n * k->b) + (double)(k->m * k->b) * (double)k->b +
                 (double)k->b * (double)(k->n * k->b));
  if ((rc = kern_mem_check(NAME, d, bytes, kern_mem_limit(), "(3/4 of the physical memory)")) != FUPERMOD_SUCCESS)
    return rc;
  k->rows = (size_t)(k->m * k->b);
  k->cols = (size_t)(k->n * k->b);
  rc_elems = k->rows * k->cols;
  k->A = kern_alloc_doubles(rc_elems);
  k->B = kern_alloc_doubles(rc_elems);
  k->C = kern_alloc_doubles(rc_elems);
  k->Ab = kern_alloc_doubles(k->rows * (size_t)k->b);
  k->Bb = kern_alloc_doubles((size_t)k->b * k->cols);
  if (!k->A || !k->B || !k->C || !k->Ab || !k->Bb) {
    finalize(k);
    return fupermod_error(FUPERMOD_ERR_NOMEM, NAME " kernel: cannot allocate %.0f bytes for d=%ld", bytes, d);
  }
  kern_fill(k->A, rc_elems, 1);
  kern_fill(k->B, rc_elems, 2);
  kern_fill(k->C, rc_elems, 3);
  memset(k->Ab, 0, k->rows * (size_t)k->b * sizeof(double));
  memset(k->Bb, 0, (size_t)k->b * k->cols * sizeof(double));
  k->d = d;
  k->iter = 0;
  if (k->threads > 0) openblas_set_num_threads((int)k->threads);
  return FUPERMOD_SUCCESS;
}

static int execute(void *ctx) {
  dgemm_ctx *k = ctx;
  size_t b = (size_t)k->b, p;
  if (!k->d) return fupermod_error(FUPERMOD_ERR_USAGE, NAME " kernel: execute before initialize");
  /* pivot block k of the SUMMA loop; m <= n, so it is a valid column of A_i and row of B_i */
  p = (size_t)(k->iter++ % k->m);
  for (size_t i = 0; i < k->rows; i++) memcpy(k->Ab + i * b, k->A + i * k->cols + p * b, b * sizeof(double));
  memcpy(k->Bb, k->B + p * b * k->cols, b * k->cols * sizeof(double));
  k->gemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)k->rows, (int)k->cols, (int)b, 1.0, k->Ab, (int)b,
              k->Bb, (int)k->cols, 1.0, k->C, (int)k->cols);
  return FUPERMOD_SUCCESS;
}

static void destroy(void *ctx) {
  if (!ctx) return;
  finalize(ctx);
  free(ctx);
}

/* Run the kernel for (b, d) and compare C with C_0 + sum of the pivot products by a triple loop. */
static int check_one(long b, long d, long threads) {
  dgemm_ctx k = {kern_openblas_dgemm(), b, threads, 0, 0, 0, 0, 0, 0, NULL, NULL, NULL, NULL, NULL};
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
  for (int r = 0; r < runs && rc == FUPERMOD_SUCCESS; r++) {
    long p = r % k.m;
    rc = execute(&k);
    kern_ref_gemm((long)k.rows, (long)k.cols, b, k.A + p * b, (long)k.cols, k.B + p * b * (long)k.cols,
                  (long)k.cols, ref, (long)k.cols);
  }
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
  /* d = 1 and 2 (one pivot, wrapped), non-square d, d = 10 (3 x 3 blocks: one block unused) */
  static const long cases[][2] = {{1, 1}, {3, 2}, {5, 7}, {4, 10}, {8, 6}, {16, 12}};
  int rc;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    if ((rc = check_one(cases[i][0], cases[i][1], k->threads)) != FUPERMOD_SUCCESS) return rc;
  if (k->b <= 128) return check_one(k->b, 5, k->threads); /* the configured block size itself */
  return FUPERMOD_SUCCESS;
}

const fupermod_kernel_ops fupermod_kernel_plugin = {
  FUPERMOD_KERNEL_API, NAME, "SUMMA block update: pivot-buffer copies then C += A_(b) B_(b) (OpenBLAS)",
  create, complexity, initialize, execute, finalize, destroy, verify, NULL};
