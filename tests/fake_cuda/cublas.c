/* A stand-in for cuBLAS (libcublas.so.13) over OpenBLAS, for tests without a GPU: the
 * operations are queued on the handle's stream of the stand-in runtime (tests/fake_cuda/cudart.c)
 * and run at its synchronisation points. Arguments are checked as cuBLAS checks them
 * (CUBLAS_STATUS_INVALID_VALUE); matrices that are not device memory of the handle's device, or a
 * call while another device is current, fail with CUBLAS_STATUS_EXECUTION_FAILED, where a GPU
 * would fault. Scalars are read when the call is made (host pointer mode) or when the operation
 * runs (device pointer mode). Matrices are column-major. */
#define _GNU_SOURCE /* dladdr */
#include "config.h"
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cblas.h>
#include <cublas_v2.h>
#include "kernels/cpu/blas.h"
#include "tests/fake_cuda/standin.h"

STANDIN_EXPORT const char fupermod_cublas_standin[] = "fupermod stand-in";

struct cublasContext {
  int dev;
  cudaStream_t stream;
  cublasPointerMode_t pmode;
  cublasMath_t math;
  struct cublasContext *next;
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct cublasContext *handles;
static pthread_once_t blas_once = PTHREAD_ONCE_INIT;
static kern_dgemm_fn dgemm;

static void find_blas(void) { dgemm = kern_openblas_dgemm(); }

/* The live handle h, copied, or NULL. */
static int handle_of(cublasHandle_t h, struct cublasContext *out) {
  int found = 0;
  pthread_mutex_lock(&mu);
  for (struct cublasContext *c = handles; c && !found; c = c->next)
    if (c == h) {
      *out = *c;
      found = 1;
    }
  pthread_mutex_unlock(&mu);
  return found;
}

cublasStatus_t cublasCreate_v2(cublasHandle_t *out) {
  struct cublasContext *c;
  int dev = fupermod_standin_current();
  if (!out) return CUBLAS_STATUS_INVALID_VALUE;
  if (dev < 0) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!(c = calloc(1, sizeof *c))) return CUBLAS_STATUS_ALLOC_FAILED;
  pthread_once(&blas_once, find_blas);
  c->dev = dev;
  c->pmode = CUBLAS_POINTER_MODE_HOST;
  c->math = CUBLAS_DEFAULT_MATH;
  pthread_mutex_lock(&mu);
  c->next = handles;
  handles = c;
  pthread_mutex_unlock(&mu);
  *out = c;
  return CUBLAS_STATUS_SUCCESS;
}

/* Synchronises the handle's device, as cuBLAS does. */
cublasStatus_t cublasDestroy_v2(cublasHandle_t h) {
  struct cublasContext *c = NULL;
  pthread_mutex_lock(&mu);
  for (struct cublasContext **pp = &handles; *pp; pp = &(*pp)->next)
    if (*pp == h) {
      c = *pp;
      *pp = c->next;
      break;
    }
  pthread_mutex_unlock(&mu);
  if (!c) return CUBLAS_STATUS_NOT_INITIALIZED;
  fupermod_standin_sync_device(c->dev);
  free(c);
  return CUBLAS_STATUS_SUCCESS;
}

enum { F_STREAM, F_PMODE, F_MATH };

/* Set one field of a live handle. */
static cublasStatus_t set_field(cublasHandle_t h, int which, long value, cudaStream_t s) {
  cublasStatus_t st = CUBLAS_STATUS_NOT_INITIALIZED;
  pthread_mutex_lock(&mu);
  for (struct cublasContext *c = handles; c; c = c->next)
    if (c == h) {
      st = CUBLAS_STATUS_SUCCESS;
      if (which == F_STREAM) c->stream = s;
      else if (which == F_PMODE) c->pmode = (cublasPointerMode_t)value;
      else c->math = (cublasMath_t)value;
    }
  pthread_mutex_unlock(&mu);
  return st;
}

/* Read one field of a live handle into *out (a cudaStream_t, cublasPointerMode_t or cublasMath_t). */
static cublasStatus_t get_field(cublasHandle_t h, int which, void *out) {
  struct cublasContext c;
  if (!handle_of(h, &c)) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!out) return CUBLAS_STATUS_INVALID_VALUE;
  if (which == F_STREAM) *(cudaStream_t *)out = c.stream;
  else if (which == F_PMODE) *(cublasPointerMode_t *)out = c.pmode;
  else *(cublasMath_t *)out = c.math;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetStream_v2(cublasHandle_t h, cudaStream_t s) { return set_field(h, F_STREAM, 0, s); }
cublasStatus_t cublasGetStream_v2(cublasHandle_t h, cudaStream_t *s) { return get_field(h, F_STREAM, s); }

cublasStatus_t cublasSetPointerMode_v2(cublasHandle_t h, cublasPointerMode_t m) {
  if (m != CUBLAS_POINTER_MODE_HOST && m != CUBLAS_POINTER_MODE_DEVICE) return CUBLAS_STATUS_INVALID_VALUE;
  return set_field(h, F_PMODE, (long)m, NULL);
}

cublasStatus_t cublasGetPointerMode_v2(cublasHandle_t h, cublasPointerMode_t *m) { return get_field(h, F_PMODE, m); }

/* The math mode changes nothing here: every mode computes in double precision. */
cublasStatus_t cublasSetMathMode(cublasHandle_t h, cublasMath_t m) { return set_field(h, F_MATH, (long)m, NULL); }
cublasStatus_t cublasGetMathMode(cublasHandle_t h, cublasMath_t *m) { return get_field(h, F_MATH, m); }

cublasStatus_t cublasSetWorkspace_v2(cublasHandle_t h, void *ws, size_t bytes) {
  struct cublasContext c;
  if (!handle_of(h, &c)) return CUBLAS_STATUS_NOT_INITIALIZED;
  return bytes && !fupermod_standin_accessible(c.dev, ws, bytes) ? CUBLAS_STATUS_INVALID_VALUE : CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetVersion_v2(cublasHandle_t h, int *v) {
  struct cublasContext c;
  if (!handle_of(h, &c)) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!v) return CUBLAS_STATUS_INVALID_VALUE;
  *v = CUBLAS_VERSION;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetProperty(libraryPropertyType type, int *v) {
  return v && standin_version(type, CUBLAS_VER_MAJOR, CUBLAS_VER_MINOR, CUBLAS_VER_PATCH, v) == 0 ? CUBLAS_STATUS_SUCCESS
                                                                                                 : CUBLAS_STATUS_INVALID_VALUE;
}

static const standin_code statuses[] = {
  {CUBLAS_STATUS_SUCCESS, "CUBLAS_STATUS_SUCCESS", "success"},
  {CUBLAS_STATUS_NOT_INITIALIZED, "CUBLAS_STATUS_NOT_INITIALIZED", "the library was not initialized"},
  {CUBLAS_STATUS_ALLOC_FAILED, "CUBLAS_STATUS_ALLOC_FAILED", "the resource allocation failed"},
  {CUBLAS_STATUS_INVALID_VALUE, "CUBLAS_STATUS_INVALID_VALUE", "an invalid numeric value was used as an argument"},
  {CUBLAS_STATUS_MAPPING_ERROR, "CUBLAS_STATUS_MAPPING_ERROR", "an access to GPU memory space failed"},
  {CUBLAS_STATUS_EXECUTION_FAILED, "CUBLAS_STATUS_EXECUTION_FAILED", "the GPU program failed to execute"},
  {CUBLAS_STATUS_NOT_SUPPORTED, "CUBLAS_STATUS_NOT_SUPPORTED", "the functionality requested is not supported"},
};

STANDIN_NAMES(statuses, cublasStatus_t, cublasGetStatusName, "CUBLAS_STATUS_UNKNOWN", cublasGetStatusString, "unknown error")

/* ---------------------------------------------------------------- queued operations */

typedef struct {
  int geam; /* 0: C = alpha op(A) op(B) + beta C; 1: C = alpha op(A) + beta op(B) */
  cublasOperation_t ta, tb;
  int m, n, k, lda, ldb, ldc, count;
  long long sa, sb, sc; /* batch strides */
  double alpha, beta;
  const double *palpha, *pbeta; /* device pointer mode: read when run */
  const double *A, *B;
  double *C;
} blas_op;

static double at(const double *X, int ld, cublasOperation_t t, int i, int j) {
  return t == CUBLAS_OP_N ? X[i + (size_t)j * ld] : X[j + (size_t)i * ld];
}

/* beta = 0 and alpha = 0 do not read C, nor A and B: poisoned (NaN) memory stays unread. */
static void run_blas(void *arg) {
  blas_op *o = arg;
  double alpha = o->palpha ? *o->palpha : o->alpha, beta = o->pbeta ? *o->pbeta : o->beta;
  for (int b = 0; b < o->count; b++) {
    const double *A = o->A ? o->A + b * o->sa : NULL, *B = o->B ? o->B + b * o->sb : NULL; /* unread when NULL */
    double *C = o->C + b * o->sc;
    if (o->geam) {
      for (int j = 0; j < o->n; j++)
        for (int i = 0; i < o->m; i++)
          C[i + (size_t)j * o->ldc] =
            (alpha != 0.0 ? alpha * at(A, o->lda, o->ta, i, j) : 0.0) + (beta != 0.0 ? beta * at(B, o->ldb, o->tb, i, j) : 0.0);
      continue;
    }
    if (beta != 1.0)
      for (int j = 0; j < o->n; j++)
        for (int i = 0; i < o->m; i++) {
          double *c = &C[i + (size_t)j * o->ldc];
          *c = beta == 0.0 ? 0.0 : beta * *c;
        }
    if (o->k > 0 && alpha != 0.0)
      dgemm(CblasColMajor, o->ta == CUBLAS_OP_N ? CblasNoTrans : CblasTrans, o->tb == CUBLAS_OP_N ? CblasNoTrans : CblasTrans,
            o->m, o->n, o->k, alpha, A, o->lda, B, o->ldb, 1.0, C, o->ldc);
  }
}

static int op_ok(cublasOperation_t t) { return t == CUBLAS_OP_N || t == CUBLAS_OP_T || t == CUBLAS_OP_C; }

/* Extent in elements of an r x c matrix (op(X) is r x c) with leading dimension ld. */
static size_t extent(cublasOperation_t t, int r, int c, int ld) {
  if (t != CUBLAS_OP_N) {
    int s = r;
    r = c;
    c = s;
  }
  return r > 0 && c > 0 ? (size_t)ld * (size_t)(c - 1) + (size_t)r : 0;
}

/* Check, then queue on the handle's stream. o->A, o->B are only checked where they are read. */
static cublasStatus_t submit(cublasHandle_t h, blas_op *o, const double *alpha, const double *beta) {
  struct cublasContext c;
  int read_a, read_b, dev;
  size_t ea, eb, ec;
  blas_op *q;
  standin_cost cost;
  if (!handle_of(h, &c)) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!op_ok(o->ta) || !op_ok(o->tb) || o->m < 0 || o->n < 0 || o->k < 0 || o->count < 0) return CUBLAS_STATUS_INVALID_VALUE;
  if (o->geam) {
    if (o->lda < (o->ta == CUBLAS_OP_N ? o->m : o->n) || o->ldb < (o->tb == CUBLAS_OP_N ? o->m : o->n) || o->ldc < o->m ||
        o->lda < 1 || o->ldb < 1 || o->ldc < 1)
      return CUBLAS_STATUS_INVALID_VALUE;
    /* in place only elementwise */
    if ((o->C == o->A && (o->ta != CUBLAS_OP_N || o->lda != o->ldc)) || (o->C == o->B && (o->tb != CUBLAS_OP_N || o->ldb != o->ldc)))
      return CUBLAS_STATUS_INVALID_VALUE;
  } else if (o->lda < (o->ta == CUBLAS_OP_N ? o->m : o->k) || o->ldb < (o->tb == CUBLAS_OP_N ? o->k : o->n) ||
             o->ldc < o->m || o->lda < 1 || o->ldb < 1 || o->ldc < 1)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (!alpha || !beta) return CUBLAS_STATUS_INVALID_VALUE;
  if (o->m == 0 || o->n == 0 || o->count == 0) return CUBLAS_STATUS_SUCCESS;
  dev = fupermod_standin_current();
  if (dev != c.dev) {
    fupermod_standin_note("cuBLAS handle of device %d used while device %d is current", c.dev, dev);
    return CUBLAS_STATUS_EXECUTION_FAILED;
  }
  if (c.pmode == CUBLAS_POINTER_MODE_HOST) {
    o->alpha = *alpha;
    o->beta = *beta;
  } else {
    if (!fupermod_standin_accessible(dev, alpha, sizeof *alpha) || !fupermod_standin_accessible(dev, beta, sizeof *beta)) {
      fupermod_standin_note("cuBLAS: device pointer mode with scalars that are not device memory");
      return CUBLAS_STATUS_EXECUTION_FAILED;
    }
    o->palpha = alpha;
    o->pbeta = beta;
  }
  read_a = o->palpha || o->alpha != 0.0;
  read_b = o->geam ? o->pbeta || o->beta != 0.0 : read_a && o->k > 0;
  read_a = read_a && (o->geam || o->k > 0);
  ea = o->geam ? extent(o->ta, o->m, o->n, o->lda) : extent(o->ta, o->m, o->k, o->lda);
  eb = o->geam ? extent(o->tb, o->m, o->n, o->ldb) : extent(o->tb, o->k, o->n, o->ldb);
  ec = extent(CUBLAS_OP_N, o->m, o->n, o->ldc);
  for (int b = 0; b < o->count; b++)
    if ((read_a && !fupermod_standin_accessible(dev, o->A + b * o->sa, ea * 8)) ||
        (read_b && !fupermod_standin_accessible(dev, o->B + b * o->sb, eb * 8)) ||
        !fupermod_standin_accessible(dev, o->C + b * o->sc, ec * 8)) {
      fupermod_standin_note("cuBLAS: a matrix of %d x %d is not in device %d's memory", o->m, o->n, dev);
      return CUBLAS_STATUS_EXECUTION_FAILED;
    }
  if (!(q = malloc(sizeof *q))) return CUBLAS_STATUS_ALLOC_FAILED;
  *q = *o;
  /* the simulated GPU's cost: a GEMM, or a pass over C (and A and B for geam) */
  if (!o->geam && o->k > 0)
    cost = (standin_cost){STANDIN_COST_GEMM, 2.0 * o->m * o->n * (double)o->k * o->count, o->m, o->n, o->k, 0};
  else
    cost = (standin_cost){STANDIN_COST_BYTES, 0, 0, 0, 0, (o->geam ? 3.0 : 2.0) * 8.0 * o->m * o->n * o->count};
  return fupermod_standin_enqueue_cost(c.stream, dev, &cost, run_blas, free, q) == cudaSuccess
           ? CUBLAS_STATUS_SUCCESS
           : CUBLAS_STATUS_EXECUTION_FAILED;
}

cublasStatus_t cublasDgemm_v2(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                              const double *alpha, const double *A, int lda, const double *B, int ldb, const double *beta,
                              double *C, int ldc) {
  blas_op o = {0, ta, tb, m, n, k, lda, ldb, ldc, 1, 0, 0, 0, 0, 0, NULL, NULL, A, B, C};
  return submit(h, &o, alpha, beta);
}

static int fits(int64_t v) { return v >= INT_MIN && v <= INT_MAX; }

cublasStatus_t cublasDgemm_v2_64(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int64_t m, int64_t n,
                                 int64_t k, const double *alpha, const double *A, int64_t lda, const double *B, int64_t ldb,
                                 const double *beta, double *C, int64_t ldc) {
  if (!fits(m) || !fits(n) || !fits(k) || !fits(lda) || !fits(ldb) || !fits(ldc)) return CUBLAS_STATUS_NOT_SUPPORTED;
  return cublasDgemm_v2(h, ta, tb, (int)m, (int)n, (int)k, alpha, A, (int)lda, B, (int)ldb, beta, C, (int)ldc);
}

cublasStatus_t cublasDgemmStridedBatched(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n,
                                         int k, const double *alpha, const double *A, int lda, long long sa,
                                         const double *B, int ldb, long long sb, const double *beta, double *C, int ldc,
                                         long long sc, int count) {
  blas_op o = {0, ta, tb, m, n, k, lda, ldb, ldc, count, sa, sb, sc, 0, 0, NULL, NULL, A, B, C};
  return submit(h, &o, alpha, beta);
}

cublasStatus_t cublasDgeam(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n,
                           const double *alpha, const double *A, int lda, const double *beta, const double *B, int ldb,
                           double *C, int ldc) {
  blas_op o = {1, ta, tb, m, n, 0, lda, ldb, ldc, 1, 0, 0, 0, 0, 0, NULL, NULL, A, B, C};
  return submit(h, &o, alpha, beta);
}

/* ---------------------------------------------------------------- matrix transfers */

static cublasStatus_t transfer(int rows, int cols, int es, const void *A, int lda, void *B, int ldb, int up,
                               cudaStream_t s, int async) {
  enum cudaMemcpyKind kind = up ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
  size_t w = (size_t)rows * (size_t)es, da = (size_t)lda * (size_t)es, db = (size_t)ldb * (size_t)es;
  cudaError_t e;
  if (rows < 0 || cols < 0 || es <= 0 || lda <= 0 || ldb <= 0 || lda < rows || ldb < rows) return CUBLAS_STATUS_INVALID_VALUE;
  e = async ? cudaMemcpy2DAsync(B, db, A, da, w, (size_t)cols, kind, s) : cudaMemcpy2D(B, db, A, da, w, (size_t)cols, kind);
  return e == cudaSuccess ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_MAPPING_ERROR;
}

cublasStatus_t cublasSetMatrix(int rows, int cols, int es, const void *A, int lda, void *B, int ldb) {
  return transfer(rows, cols, es, A, lda, B, ldb, 1, NULL, 0);
}

cublasStatus_t cublasGetMatrix(int rows, int cols, int es, const void *A, int lda, void *B, int ldb) {
  return transfer(rows, cols, es, A, lda, B, ldb, 0, NULL, 0);
}

cublasStatus_t cublasSetMatrixAsync(int rows, int cols, int es, const void *A, int lda, void *B, int ldb, cudaStream_t s) {
  return transfer(rows, cols, es, A, lda, B, ldb, 1, s, 1);
}

cublasStatus_t cublasGetMatrixAsync(int rows, int cols, int es, const void *A, int lda, void *B, int ldb, cudaStream_t s) {
  return transfer(rows, cols, es, A, lda, B, ldb, 0, s, 1);
}

/* A vector of n elements with stride inc is a 1 x n matrix with leading dimension inc. */
cublasStatus_t cublasSetVector(int n, int es, const void *x, int incx, void *y, int incy) {
  if (incx <= 0 || incy <= 0) return CUBLAS_STATUS_INVALID_VALUE;
  return transfer(1, n, es, x, incx, y, incy, 1, NULL, 0);
}

cublasStatus_t cublasGetVector(int n, int es, const void *x, int incx, void *y, int incy) {
  if (incx <= 0 || incy <= 0) return CUBLAS_STATUS_INVALID_VALUE;
  return transfer(1, n, es, x, incx, y, incy, 0, NULL, 0);
}
