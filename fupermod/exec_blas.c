/* The CPU executor's GEMM: OpenBLAS's own cblas_dgemm (not GSL's, which the global scope may hold
 * first: toolchain pitfall P3), with the executor's threads for the call. cblas.h only here (P1). */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <cblas.h>
#include "fupermod/exec_impl.h"

typedef __typeof__(cblas_dgemm) *dgemm_fn;

static dgemm_fn openblas_dgemm(void) {
  static dgemm_fn f;
  Dl_info info;
  void *h;
  if (f) return f;
  if (dladdr((void *)openblas_get_config, &info) && info.dli_fname &&
      (h = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD))) {
    f = (dgemm_fn)dlsym(h, "cblas_dgemm");
    dlclose(h); /* libfupermod's own NEEDED entry keeps OpenBLAS loaded */
  }
  if (!f) f = cblas_dgemm;
  return f;
}

int fupermod_exec_cpu_dgemm(fupermod_exec_cpu *c, int trans, long M, long N, long K, double alpha, const double *A,
                            long lda, const double *B, long ldb, double beta, double *C, long ldc) {
  int saved = openblas_get_num_threads();
  if (saved != c->threads) openblas_set_num_threads(c->threads);
  openblas_dgemm()(CblasColMajor, trans ? CblasTrans : CblasNoTrans, CblasNoTrans, (int)M, (int)N, (int)K, alpha, A,
                   (int)lda, B, (int)ldb, beta, C, (int)ldc);
  if (saved != c->threads) openblas_set_num_threads(saved);
  return FUPERMOD_SUCCESS;
}

int fupermod_exec_cpu_gemm_update(fupermod_exec_cpu *c, int trans, long k, const double *A, long lda, const double *B,
                                  long ldb) {
  int saved;
  if (!c->C && c->m > 0 && c->n > 0) return fupermod_error(FUPERMOD_ERR_USAGE, "executor GEMM: update outside a session");
  if (c->m == 0 || c->n == 0 || k == 0) return FUPERMOD_SUCCESS;
  if (lda < (trans ? k : c->m) || ldb < k)
    return fupermod_error(FUPERMOD_ERR_USAGE, "executor GEMM: lda %ld or ldb %ld too small for %ld x %ld x %ld%s", lda, ldb,
                          c->m, c->n, k, trans ? " (A transposed)" : "");
  /* the thread count is process-wide: the executor's for this call, the program's after it */
  saved = openblas_get_num_threads();
  if (saved != c->threads) openblas_set_num_threads(c->threads);
  openblas_dgemm()(CblasColMajor, trans ? CblasTrans : CblasNoTrans, CblasNoTrans, (int)c->m, (int)c->n, (int)k, 1.0, A,
                   (int)lda, B, (int)ldb, 1.0, c->C, (int)c->ldc);
  if (saved != c->threads) openblas_set_num_threads(saved);
  return FUPERMOD_SUCCESS;
}
