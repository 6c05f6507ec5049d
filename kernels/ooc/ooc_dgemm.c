/* Out-of-card GEMM: the CUDA executor of the schedule (ooc_plan.c) on two streams with events.
 * Plain C over the cudart and cuBLAS host APIs (no nvcc behind libtool). Built only with CUDA, as
 * the module fupermod_ooc_cuda.so that ooc_load.c loads on the first context (ooc_module.h). */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "kernels/ooc/ooc.h"
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include "kernels/cuda/device.h"
#include "kernels/ooc/ooc_module.h"

typedef struct {
  fupermod_ooc_opts opts;
  cublasHandle_t handle;
  cudaStream_t stream[2];
  cudaEvent_t event[3];
  double *dev;      /* one allocation split into the five buffers */
  size_t dev_elems; /* its capacity */
  /* a held C (fupermod_ooc_hold): its device copy, then room for A (M x kmax) and B (kmax x N) */
  double *hC, *hdev;
  long hM, hN, hldc, hK;
  struct { const void *p; size_t bytes; } pins[8]; /* host panels page-locked until the release */
  int npins;
} cuda_ooc;

static int cuda_err(int code, const char *what, cudaError_t e) {
  return fupermod_error(code, "ooc dgemm: %s: %s", what, cudaGetErrorString(e));
}

static void unhold(cuda_ooc *c) {
  for (int k = 0; k < c->npins; k++) cudaHostUnregister((void *)c->pins[k].p);
  c->npins = 0;
  if (c->hdev) cudaFree(c->hdev);
  c->hdev = c->hC = NULL;
}

static void ooc_destroy(void *impl) {
  cuda_ooc *c = impl;
  int prev;
  if (!c) return;
  prev = kern_cuda_saved();
  cudaSetDevice(c->opts.device);
  unhold(c);
  if (c->dev) cudaFree(c->dev);
  for (int k = 0; k < 3; k++)
    if (c->event[k]) cudaEventDestroy(c->event[k]);
  for (int k = 0; k < 2; k++)
    if (c->stream[k]) cudaStreamDestroy(c->stream[k]);
  if (c->handle) cublasDestroy(c->handle);
  free(c);
  kern_cuda_restore(prev);
}

static int create_on(const fupermod_ooc_opts *o, cuda_ooc **out) {
  cuda_ooc *c;
  cudaError_t e;
  int count;
  if ((count = fupermod_cuda_device_count()) == 0) return fupermod_error(FUPERMOD_ERR_NODEVICE, "ooc dgemm: no CUDA device");
  if (o->device >= count)
    return fupermod_error(FUPERMOD_ERR_NODEVICE, "ooc dgemm: no CUDA device %d (%d present)", o->device, count);
  if ((e = cudaSetDevice(o->device)) != cudaSuccess) return cuda_err(FUPERMOD_ERR_NODEVICE, "no CUDA device: cudaSetDevice", e);
  if (!(c = calloc(1, sizeof *c))) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  c->opts = *o;
  if (cublasCreate(&c->handle) != CUBLAS_STATUS_SUCCESS) {
    free(c);
    return fupermod_error(FUPERMOD_ERR_NODEVICE, "ooc dgemm: no CUDA device: cublasCreate failed");
  }
  for (int k = 0; k < 2; k++)
    if ((e = cudaStreamCreateWithFlags(&c->stream[k], cudaStreamNonBlocking)) != cudaSuccess) {
      ooc_destroy(c);
      return cuda_err(FUPERMOD_ERR_SYSTEM, "cudaStreamCreate", e);
    }
  for (int k = 0; k < 3; k++)
    if ((e = cudaEventCreateWithFlags(&c->event[k], cudaEventDisableTiming)) != cudaSuccess) {
      ooc_destroy(c);
      return cuda_err(FUPERMOD_ERR_SYSTEM, "cudaEventCreate", e);
    }
  *out = c;
  return FUPERMOD_SUCCESS;
}

/* opts are checked by the caller (ooc_load.c) */
static int ooc_create(const fupermod_ooc_opts *opts, void **out) {
  cuda_ooc *c = NULL;
  int prev = kern_cuda_saved(), rc = kern_cuda_back(prev, create_on(opts, &c));
  *out = c;
  return rc;
}

/* Page-lock a host range for the call; already pinned memory (cudaMallocHost, or registered by
 * the caller) is fine as it is. Returns 1 when this call registered it. */
static int pin(const void *p, size_t bytes) {
  cudaError_t e = cudaHostRegister((void *)p, bytes, cudaHostRegisterDefault);
  if (e == cudaSuccess) return 1;
  cudaGetLastError(); /* clear the sticky-free error of a refused registration */
  return 0;
}

/* A held C's panels are the caller's same few buffers call after call: lock them once. */
static void pin_kept(cuda_ooc *c, const void *p, size_t bytes) {
  for (int k = 0; k < c->npins; k++)
    if (c->pins[k].p == p && c->pins[k].bytes >= bytes) return;
  if (c->npins < (int)(sizeof c->pins / sizeof c->pins[0]) && pin(p, bytes)) {
    c->pins[c->npins].p = p;
    c->pins[c->npins++].bytes = bytes;
  }
}

/* C = alpha A B + beta C on the held device copy: A and B up, one GEMM, no C transfer */
static int held_dgemm(cuda_ooc *c, long M, long N, long K, double alpha, const double *A, long lda, const double *B,
                      long ldb, double beta, fupermod_ooc_stats *stats) {
  double *dA = c->hdev, *dB = dA + (size_t)M * (size_t)c->hK, *dC = dB + (size_t)c->hK * (size_t)N;
  double t0 = fupermod_time();
  cudaStream_t st = c->stream[0];
  cudaError_t e;
  int rc = FUPERMOD_SUCCESS;
  if (!c->opts.no_pin) {
    pin_kept(c, A, ((size_t)lda * (size_t)(K - 1) + (size_t)M) * sizeof(double));
    pin_kept(c, B, ((size_t)ldb * (size_t)(N - 1) + (size_t)K) * sizeof(double));
  }
  if ((e = cudaMemcpy2DAsync(dA, (size_t)M * 8, A, (size_t)lda * 8, (size_t)M * 8, (size_t)K, cudaMemcpyHostToDevice,
                             st)) != cudaSuccess ||
      (e = cudaMemcpy2DAsync(dB, (size_t)K * 8, B, (size_t)ldb * 8, (size_t)K * 8, (size_t)N, cudaMemcpyHostToDevice,
                             st)) != cudaSuccess)
    rc = cuda_err(FUPERMOD_ERR_SYSTEM, "uploading A and B", e);
  if (rc == FUPERMOD_SUCCESS &&
      (cublasSetStream(c->handle, st) != CUBLAS_STATUS_SUCCESS ||
       cublasDgemm(c->handle, CUBLAS_OP_N, CUBLAS_OP_N, (int)M, (int)N, (int)K, &alpha, dA, (int)M, dB, (int)K, &beta, dC,
                   (int)M) != CUBLAS_STATUS_SUCCESS))
    rc = fupermod_error(FUPERMOD_ERR_SYSTEM, "ooc dgemm: cublasDgemm on the held C failed");
  /* the caller may refill its panels as soon as this returns */
  if ((e = cudaStreamSynchronize(st)) != cudaSuccess && rc == FUPERMOD_SUCCESS)
    rc = cuda_err(FUPERMOD_ERR_SYSTEM, "cudaStreamSynchronize", e);
  if (stats) {
    memset(stats, 0, sizeof *stats);
    stats->plan.M = M, stats->plan.N = N, stats->plan.K = K;
    stats->plan.h = stats->plan.v = 1;
    stats->plan.mh = M, stats->plan.nv = N;
    stats->plan.in_card = 1;
    stats->plan.elements = (long)(M * c->hK + c->hK * N + M * N);
    stats->time = fupermod_time() - t0;
    stats->bytes_up = 8.0 * ((double)M * (double)K + (double)K * (double)N);
  }
  return rc;
}

static int dgemm_on(cuda_ooc *c, long M, long N, long K, double alpha, const double *A, long lda, const double *B,
                    long ldb, double beta, double *C, long ldc, fupermod_ooc_stats *stats) {
  fupermod_ooc_plan plan;
  fupermod_ooc_schedule s = {0, NULL, 0, 0};
  size_t freeb = 0, total = 0, need;
  double limit, t0, up = 0, down = 0;
  double *dA[2], *dB, *dC[2];
  long ldA, ldC;
  int rc, pinned[3] = {0, 0, 0}, load_c = beta != 0.0;
  cudaError_t e = cudaSuccess;
  if ((e = cudaSetDevice(c->opts.device)) != cudaSuccess) return cuda_err(FUPERMOD_ERR_NODEVICE, "cudaSetDevice", e);
  if (c->hC && C == c->hC) {
    if (M != c->hM || N != c->hN || ldc != c->hldc || K > c->hK)
      return fupermod_error(FUPERMOD_ERR_USAGE,
                            "ooc dgemm: C is held as %ld x %ld (ldc %ld, K <= %ld), called with %ld x %ld (ldc %ld, K %ld)",
                            c->hM, c->hN, c->hldc, c->hK, M, N, ldc, K);
    return held_dgemm(c, M, N, K, alpha, A, lda, B, ldb, beta, stats);
  }
  if ((e = cudaMemGetInfo(&freeb, &total)) != cudaSuccess) return cuda_err(FUPERMOD_ERR_NODEVICE, "cudaMemGetInfo", e);
  /* cached buffers count as available: they are ours to reuse */
  limit = c->opts.mem_limit > 0 ? c->opts.mem_limit : 0.9 * ((double)freeb + 8.0 * (double)c->dev_elems);
  if ((rc = fupermod_ooc_plan_make(M, N, K, (long)(limit / 8.0), &plan)) != FUPERMOD_SUCCESS) return rc;
  if ((rc = fupermod_ooc_schedule_make(&plan, load_c, &s)) != FUPERMOD_SUCCESS) return rc;
  need = (size_t)plan.elements;
  if (need > c->dev_elems) {
    if (c->dev) cudaFree(c->dev);
    c->dev = NULL;
    c->dev_elems = 0;
    if ((e = cudaMalloc((void **)&c->dev, need * sizeof(double))) != cudaSuccess) {
      fupermod_ooc_schedule_free(&s);
      cudaGetLastError();
      return fupermod_error(FUPERMOD_ERR_NOMEM, "ooc dgemm: cannot allocate %zu bytes on CUDA device %d", need * 8,
                            c->opts.device);
    }
    c->dev_elems = need;
  }
  if (plan.in_card) {
    ldA = M;
    ldC = M;
    dA[0] = dA[1] = c->dev;
    dB = dA[0] + (size_t)M * (size_t)K;
    dC[0] = dC[1] = dB + (size_t)K * (size_t)N;
  } else {
    ldA = plan.mh;
    ldC = plan.mh;
    dA[0] = c->dev;
    dA[1] = dA[0] + (size_t)plan.mh * (size_t)K;
    dB = dA[1] + (size_t)plan.mh * (size_t)K;
    dC[0] = dB + (size_t)K * (size_t)plan.nv;
    dC[1] = dC[0] + (size_t)plan.mh * (size_t)plan.nv;
  }
  if (!c->opts.no_pin) {
    pinned[0] = pin(A, ((size_t)lda * (size_t)(K - 1) + (size_t)M) * sizeof(double));
    pinned[1] = pin(B, ((size_t)ldb * (size_t)(N - 1) + (size_t)K) * sizeof(double));
    pinned[2] = pin(C, ((size_t)ldc * (size_t)(N - 1) + (size_t)M) * sizeof(double));
  }
  t0 = fupermod_time();
  rc = FUPERMOD_SUCCESS;
  for (int k = 0; k < s.count && rc == FUPERMOD_SUCCESS; k++) {
    const fupermod_ooc_op *op = &s.ops[k];
    cudaStream_t st = c->stream[op->stream];
    long r0 = 0, mr = M, c0 = 0, nc = N;
    if (!plan.in_card) {
      fupermod_ooc_slice(M, plan.h, op->i, &r0, &mr);
      fupermod_ooc_slice(N, plan.v, op->j, &c0, &nc);
    }
    switch (op->code) {
    case FUPERMOD_OOC_UPLOAD_A:
      e = cudaMemcpy2DAsync(dA[op->buf], (size_t)ldA * 8, A + r0, (size_t)lda * 8, (size_t)mr * 8, (size_t)K,
                            cudaMemcpyHostToDevice, st);
      up += 8.0 * (double)mr * (double)K;
      break;
    case FUPERMOD_OOC_UPLOAD_B:
      e = cudaMemcpy2DAsync(dB, (size_t)K * 8, B + (size_t)c0 * (size_t)ldb, (size_t)ldb * 8, (size_t)K * 8, (size_t)nc,
                            cudaMemcpyHostToDevice, st);
      up += 8.0 * (double)K * (double)nc;
      break;
    case FUPERMOD_OOC_UPLOAD_C:
      e = cudaMemcpy2DAsync(dC[op->buf], (size_t)ldC * 8, C + r0 + (size_t)c0 * (size_t)ldc, (size_t)ldc * 8,
                            (size_t)mr * 8, (size_t)nc, cudaMemcpyHostToDevice, st);
      up += 8.0 * (double)mr * (double)nc;
      break;
    case FUPERMOD_OOC_GEMM: {
      const double b = load_c ? beta : 0.0;
      if (cublasSetStream(c->handle, st) != CUBLAS_STATUS_SUCCESS ||
          cublasDgemm(c->handle, CUBLAS_OP_N, CUBLAS_OP_N, (int)mr, (int)nc, (int)K, &alpha, dA[op->buf], (int)ldA, dB,
                      (int)K, &b, dC[op->buf], (int)ldC) != CUBLAS_STATUS_SUCCESS)
        rc = fupermod_error(FUPERMOD_ERR_SYSTEM, "ooc dgemm: cublasDgemm of block (%ld, %ld) failed", op->i, op->j);
      break;
    }
    case FUPERMOD_OOC_DOWNLOAD_C:
      e = cudaMemcpy2DAsync(C + r0 + (size_t)c0 * (size_t)ldc, (size_t)ldc * 8, dC[op->buf], (size_t)ldC * 8,
                            (size_t)mr * 8, (size_t)nc, cudaMemcpyDeviceToHost, st);
      down += 8.0 * (double)mr * (double)nc;
      break;
    case FUPERMOD_OOC_RECORD:
      e = cudaEventRecord(c->event[op->event], st);
      break;
    case FUPERMOD_OOC_WAIT:
      e = cudaStreamWaitEvent(st, c->event[op->event], 0);
      break;
    }
    if (e != cudaSuccess) rc = cuda_err(FUPERMOD_ERR_SYSTEM, "issuing the pipeline", e);
    if (rc == FUPERMOD_SUCCESS && c->opts.synchronous && (e = cudaStreamSynchronize(st)) != cudaSuccess)
      rc = cuda_err(FUPERMOD_ERR_SYSTEM, "cudaStreamSynchronize", e);
  }
  /* every stream drained before the host reads C or unpins anything, even after an error */
  for (int k = 0; k < 2; k++)
    if ((e = cudaStreamSynchronize(c->stream[k])) != cudaSuccess && rc == FUPERMOD_SUCCESS)
      rc = cuda_err(FUPERMOD_ERR_SYSTEM, "cudaStreamSynchronize", e);
  if (stats) {
    stats->plan = plan;
    stats->time = fupermod_time() - t0;
    stats->bytes_up = up;
    stats->bytes_down = down;
  }
  if (pinned[0]) cudaHostUnregister((void *)A);
  if (pinned[1]) cudaHostUnregister((void *)B);
  if (pinned[2]) cudaHostUnregister((void *)C);
  fupermod_ooc_schedule_free(&s);
  return rc;
}

/* arguments are checked by the caller (ooc_load.c) */
static int ooc_dgemm(void *impl, long M, long N, long K, double alpha, const double *A, long lda, const double *B,
                     long ldb, double beta, double *C, long ldc, fupermod_ooc_stats *stats) {
  int prev = kern_cuda_saved();
  return kern_cuda_back(prev, dgemm_on(impl, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, stats));
}

static int hold_on(cuda_ooc *c, double *C, long M, long N, long ldc, long kmax) {
  double need = 8.0 * ((double)M * (double)kmax + (double)kmax * (double)N + (double)M * (double)N), limit;
  size_t freeb = 0, total = 0;
  cudaError_t e;
  if (c->hC) return fupermod_error(FUPERMOD_ERR_USAGE, "ooc hold: a C is already held (release it first)");
  if ((e = cudaSetDevice(c->opts.device)) != cudaSuccess) return cuda_err(FUPERMOD_ERR_NODEVICE, "cudaSetDevice", e);
  if ((e = cudaMemGetInfo(&freeb, &total)) != cudaSuccess) return cuda_err(FUPERMOD_ERR_NODEVICE, "cudaMemGetInfo", e);
  /* the out-of-card buffers are not needed while C is held */
  limit = c->opts.mem_limit > 0 ? c->opts.mem_limit : 0.9 * ((double)freeb + 8.0 * (double)c->dev_elems);
  if (need > limit)
    return fupermod_error(FUPERMOD_ERR_NOMEM, "ooc hold: C of %ld x %ld with panels of %ld needs %.0f bytes, limit %.0f",
                          M, N, kmax, need, limit);
  if (c->dev) cudaFree(c->dev);
  c->dev = NULL;
  c->dev_elems = 0;
  if ((e = cudaMalloc((void **)&c->hdev, (size_t)(need / 8.0) * sizeof(double))) != cudaSuccess) {
    cudaGetLastError();
    c->hdev = NULL;
    return fupermod_error(FUPERMOD_ERR_NOMEM, "ooc hold: cannot allocate %.0f bytes on CUDA device %d", need,
                          c->opts.device);
  }
  c->hM = M, c->hN = N, c->hldc = ldc, c->hK = kmax;
  if ((e = cudaMemcpy2D(c->hdev + (size_t)M * (size_t)kmax + (size_t)kmax * (size_t)N, (size_t)M * 8, C,
                        (size_t)ldc * 8, (size_t)M * 8, (size_t)N, cudaMemcpyHostToDevice)) != cudaSuccess) {
    unhold(c);
    return cuda_err(FUPERMOD_ERR_SYSTEM, "ooc hold: uploading C", e);
  }
  c->hC = C;
  return FUPERMOD_SUCCESS;
}

static int release_on(cuda_ooc *c) {
  cudaError_t e = cudaSuccess;
  int rc = FUPERMOD_SUCCESS;
  if (!c->hC) return FUPERMOD_SUCCESS;
  if ((e = cudaSetDevice(c->opts.device)) != cudaSuccess ||
      (e = cudaStreamSynchronize(c->stream[0])) != cudaSuccess ||
      (e = cudaMemcpy2D(c->hC, (size_t)c->hldc * 8, c->hdev + (size_t)c->hM * (size_t)c->hK + (size_t)c->hK * (size_t)c->hN,
                        (size_t)c->hM * 8, (size_t)c->hM * 8, (size_t)c->hN, cudaMemcpyDeviceToHost)) != cudaSuccess)
    rc = cuda_err(FUPERMOD_ERR_SYSTEM, "ooc release: downloading C", e);
  unhold(c);
  return rc;
}

static int ooc_hold(void *impl, double *C, long M, long N, long ldc, long kmax) {
  int prev = kern_cuda_saved();
  return kern_cuda_back(prev, hold_on(impl, C, M, N, ldc, kmax));
}

static int ooc_release(void *impl) {
  int prev = kern_cuda_saved();
  return kern_cuda_back(prev, release_on(impl));
}

__attribute__((visibility("default"))) const fupermod_ooc_module fupermod_ooc_cuda_module = {
  FUPERMOD_OOC_MODULE_API, ooc_create, ooc_destroy, ooc_dgemm, ooc_hold, ooc_release};
