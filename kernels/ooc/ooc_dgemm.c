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
} cuda_ooc;

static int cuda_err(int code, const char *what, cudaError_t e) {
  return fupermod_error(code, "ooc dgemm: %s: %s", what, cudaGetErrorString(e));
}

static void ooc_destroy(void *impl) {
  cuda_ooc *c = impl;
  int prev;
  if (!c) return;
  prev = kern_cuda_saved();
  cudaSetDevice(c->opts.device);
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

__attribute__((visibility("default"))) const fupermod_ooc_module fupermod_ooc_cuda_module = {
  FUPERMOD_OOC_MODULE_API, ooc_create, ooc_destroy, ooc_dgemm};
