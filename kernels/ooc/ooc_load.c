/* The out-of-card GEMM's contexts: a thin layer over a CUDA executor (fupermod/exec.h), whose
 * streamed DGEMM (fupermod_exec_dgemm) does the work. libfupermod_ooc itself needs no CUDA library. */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "kernels/ooc/ooc.h"

struct fupermod_ooc {
  fupermod_exec *e;
  fupermod_ooc_opts opts;
};

int fupermod_ooc_create(const fupermod_ooc_opts *opts, fupermod_ooc **out) {
  fupermod_ooc_opts o = {0, 0.0, 0, 0};
  fupermod_exec_opts eo;
  fupermod_ooc *c;
  int rc;
  if (!out) return fupermod_error(FUPERMOD_ERR_USAGE, "ooc dgemm: NULL result");
  *out = NULL;
  if (opts) o = *opts;
  if (o.device < 0) return fupermod_error(FUPERMOD_ERR_USAGE, "ooc dgemm: device %d", o.device);
  if (!(c = calloc(1, sizeof *c))) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  eo = (fupermod_exec_opts){.kind = FUPERMOD_EXEC_CUDA, .threads = 1, .cuda_device = o.device, .mem_limit = o.mem_limit};
  if ((rc = fupermod_exec_open(&eo, &c->e)) != FUPERMOD_SUCCESS) {
    free(c);
    return fupermod_error_prefix(rc, "ooc dgemm");
  }
  c->opts = o;
  *out = c;
  return FUPERMOD_SUCCESS;
}

void fupermod_ooc_destroy(fupermod_ooc *c) {
  if (!c) return;
  fupermod_exec_close(c->e);
  free(c);
}

int fupermod_ooc_dgemm(fupermod_ooc *c, long M, long N, long K, double alpha, const double *A, long lda,
                       const double *B, long ldb, double beta, double *C, long ldc, fupermod_ooc_stats *stats) {
  fupermod_exec_stats s0, s1;
  fupermod_exec_dgemm_info info;
  double t0;
  int rc, pinned = 0;
  if (!c) return fupermod_error(FUPERMOD_ERR_USAGE, "ooc dgemm: no context");
  if (M < 1 || N < 1 || K < 1 || !A || !B || !C || lda < M || ldb < K || ldc < M)
    return fupermod_error(FUPERMOD_ERR_USAGE, "ooc dgemm: M=%ld N=%ld K=%ld lda=%ld ldb=%ld ldc=%ld", M, N, K, lda, ldb,
                          ldc);
  /* page-locked for the call unless the caller's memory is already (no_pin) */
  if (!c->opts.no_pin) {
    const void *p[3] = {A, B, C};
    size_t bytes[3] = {8 * ((size_t)lda * (size_t)(K - 1) + (size_t)M), 8 * ((size_t)ldb * (size_t)(N - 1) + (size_t)K),
                       8 * ((size_t)ldc * (size_t)(N - 1) + (size_t)M)};
    for (; pinned < 3 && fupermod_exec_pin(c->e, (void *)p[pinned], bytes[pinned]) == FUPERMOD_SUCCESS; pinned++) {}
  }
  fupermod_exec_get_stats(c->e, &s0);
  t0 = fupermod_time();
  rc = fupermod_exec_dgemm(c->e, c->opts.synchronous ? FUPERMOD_EXEC_DGEMM_SERIAL : 0, M, N, K, alpha, A, lda, B, ldb,
                           beta, C, ldc, &info);
  if (stats) {
    fupermod_exec_get_stats(c->e, &s1);
    memset(stats, 0, sizeof *stats);
    stats->plan = (fupermod_ooc_plan){M, N, K, info.row_tiles, info.col_tiles, info.rows, info.cols, info.in_card,
                                      (long)(info.device_bytes / 8.0)};
    stats->time = fupermod_time() - t0;
    stats->bytes_up = s1.bytes_up - s0.bytes_up;
    stats->bytes_down = s1.bytes_down - s0.bytes_down;
  }
  if (pinned > 0) fupermod_exec_unpin(c->e, (void *)A);
  if (pinned > 1) fupermod_exec_unpin(c->e, (void *)B);
  if (pinned > 2) fupermod_exec_unpin(c->e, (void *)C);
  return rc;
}
