/* dgemm-cuda: the SUMMA block update of the dgemm kernel on a GPU with cuBLAS. The device is the
 * GPU together with the host core that drives it: execute does the host pivot-buffer copies,
 * uploads A_(b), B_(b) and C_i, runs one DGEMM and downloads C_i, so the time includes every
 * host-device transfer (Clarke thesis 3.2: "the time to transfer the workload to/from the GPU").
 * With resident=1, C_i stays on the GPU between runs (uploaded by initialize, downloaded by
 * finalize), as in an application that keeps its C on the device.
 * complexity = 2 (mb)(nb) b with m = floor(sqrt d), n = floor(d/m), as for dgemm.
 * Sub-options: b=BLOCK (default 64), device=N (default 0), resident=0|1 (default 0).
 * Without a usable CUDA device, create fails with FUPERMOD_ERR_NODEVICE ("no CUDA device"). */
#include <pthread.h>
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include "kernels/cpu/common.h"
#include "kernels/cuda/device.h"

#define NAME "dgemm-cuda"

typedef struct {
  long b, device, resident;
  cublasHandle_t handle;
  long d, m, n, iter;
  size_t rows, cols;
  double *A, *B, *C, *Ab, *Bb; /* pinned host memory */
  double *dA, *dB, *dC;        /* device */
} gemm_ctx;

static int cuda_fail(int code, const char *what, cudaError_t e) {
  return fupermod_error(code, NAME " kernel: %s: %s", what, cudaGetErrorString(e));
}

static int create_on(const char *subopts, void **ctx) {
  gemm_ctx *k;
  long b = 64, device = 0, resident = 0;
  int rc, count;
  cudaError_t e;
  if ((rc = kern_opt_long(NAME, subopts, "b", 1, 16384, &b)) != FUPERMOD_SUCCESS) return rc;
  if ((rc = kern_opt_long(NAME, subopts, "device", 0, 1023, &device)) != FUPERMOD_SUCCESS) return rc;
  if ((rc = kern_opt_long(NAME, subopts, "resident", 0, 1, &resident)) != FUPERMOD_SUCCESS) return rc;
  if ((count = fupermod_cuda_device_count()) == 0)
    return fupermod_error(FUPERMOD_ERR_NODEVICE, NAME " kernel: no CUDA device");
  if (device >= count)
    return fupermod_error(FUPERMOD_ERR_NODEVICE, NAME " kernel: no CUDA device %ld (%d present)", device, count);
  if ((e = cudaSetDevice((int)device)) != cudaSuccess)
    return cuda_fail(FUPERMOD_ERR_NODEVICE, "no CUDA device: cudaSetDevice", e);
  if (!(k = calloc(1, sizeof *k))) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  if (cublasCreate(&k->handle) != CUBLAS_STATUS_SUCCESS) {
    free(k);
    return fupermod_error(FUPERMOD_ERR_NODEVICE, NAME " kernel: no CUDA device: cublasCreate failed");
  }
  k->b = b;
  k->device = device;
  k->resident = resident;
  *ctx = k;
  return FUPERMOD_SUCCESS;
}

static double complexity(long d, void *ctx) {
  return d > 0 ? kern_dgemm_complexity(d, ((gemm_ctx *)ctx)->b) : 0.0;
}

static void release(gemm_ctx *k) {
  cudaFreeHost(k->A), cudaFreeHost(k->B), cudaFreeHost(k->C), cudaFreeHost(k->Ab), cudaFreeHost(k->Bb);
  cudaFree(k->dA), cudaFree(k->dB), cudaFree(k->dC);
  k->A = k->B = k->C = k->Ab = k->Bb = k->dA = k->dB = k->dC = NULL;
  k->d = 0;
}

static int finalize_on(void *ctx) {
  gemm_ctx *k = ctx;
  int rc = FUPERMOD_SUCCESS;
  cudaError_t e;
  if (k->d && k->resident) {
    cudaSetDevice((int)k->device);
    if ((e = cudaMemcpy(k->C, k->dC, k->rows * k->cols * sizeof(double), cudaMemcpyDeviceToHost)) != cudaSuccess)
      rc = cuda_fail(FUPERMOD_ERR_SYSTEM, "downloading C", e);
  }
  release(k);
  return rc;
}

static int initialize_on(long d, void *ctx) {
  gemm_ctx *k = ctx;
  size_t freeb = 0, total = 0, elems, pa, pb;
  double host, dev;
  cudaError_t e;
  int rc;
  if ((rc = kern_check_d(NAME, d)) != FUPERMOD_SUCCESS) return rc;
  release(k);
  /* the current device is per host thread, and execute may run in another thread */
  if ((e = cudaSetDevice((int)k->device)) != cudaSuccess) return cuda_fail(FUPERMOD_ERR_NODEVICE, "cudaSetDevice", e);
  kern_block_shape(d, &k->m, &k->n);
  host = 8.0 * (3.0 * (double)(k->m * k->b) * (double)(k->n * k->b) + (double)(k->m * k->b) * (double)k->b +
                (double)k->b * (double)(k->n * k->b));
  dev = 8.0 * ((double)(k->m * k->b) * (double)(k->n * k->b) + (double)(k->m * k->b) * (double)k->b +
               (double)k->b * (double)(k->n * k->b));
  if ((rc = kern_mem_check(NAME, d, host, kern_mem_limit(), "(3/4 of the physical memory)")) != FUPERMOD_SUCCESS)
    return rc;
  if ((e = cudaMemGetInfo(&freeb, &total)) != cudaSuccess) return cuda_fail(FUPERMOD_ERR_NODEVICE, "cudaMemGetInfo", e);
  if ((rc = kern_mem_check(NAME, d, dev, (double)freeb, "(free memory of the CUDA device)")) != FUPERMOD_SUCCESS)
    return rc;
  k->rows = (size_t)(k->m * k->b);
  k->cols = (size_t)(k->n * k->b);
  elems = k->rows * k->cols;
  pa = k->rows * (size_t)k->b;
  pb = (size_t)k->b * k->cols;
  if (cudaMallocHost((void **)&k->A, elems * sizeof(double)) != cudaSuccess ||
      cudaMallocHost((void **)&k->B, elems * sizeof(double)) != cudaSuccess ||
      cudaMallocHost((void **)&k->C, elems * sizeof(double)) != cudaSuccess ||
      cudaMallocHost((void **)&k->Ab, pa * sizeof(double)) != cudaSuccess ||
      cudaMallocHost((void **)&k->Bb, pb * sizeof(double)) != cudaSuccess) {
    release(k);
    return fupermod_error(FUPERMOD_ERR_NOMEM, NAME " kernel: cannot allocate %.0f bytes of pinned host memory for d=%ld",
                          host, d);
  }
  if (cudaMalloc((void **)&k->dA, pa * sizeof(double)) != cudaSuccess ||
      cudaMalloc((void **)&k->dB, pb * sizeof(double)) != cudaSuccess ||
      cudaMalloc((void **)&k->dC, elems * sizeof(double)) != cudaSuccess) {
    release(k);
    return fupermod_error(FUPERMOD_ERR_NOMEM, NAME " kernel: cannot allocate %.0f bytes on CUDA device %ld for d=%ld",
                          dev, k->device, d);
  }
  {
    /* cuBLAS loads the GEMM's code on its first call of a shape: do that here, not in a timed run
     * (dC is overwritten below or by every run) */
    const double one = 1.0;
    if (cudaMemset(k->dA, 0, pa * sizeof(double)) != cudaSuccess || cudaMemset(k->dB, 0, pb * sizeof(double)) != cudaSuccess ||
        cublasDgemm(k->handle, CUBLAS_OP_N, CUBLAS_OP_N, (int)k->cols, (int)k->rows, (int)k->b, &one, k->dB, (int)k->cols,
                    k->dA, (int)k->b, &one, k->dC, (int)k->cols) != CUBLAS_STATUS_SUCCESS ||
        (e = cudaDeviceSynchronize()) != cudaSuccess) {
      release(k);
      return fupermod_error(FUPERMOD_ERR_SYSTEM, NAME " kernel: warm-up GEMM failed for d=%ld", d);
    }
  }
  kern_fill(k->A, elems, 1);
  kern_fill(k->B, elems, 2);
  kern_fill(k->C, elems, 3);
  memset(k->Ab, 0, pa * sizeof(double));
  memset(k->Bb, 0, pb * sizeof(double));
  if (k->resident && (e = cudaMemcpy(k->dC, k->C, elems * sizeof(double), cudaMemcpyHostToDevice)) != cudaSuccess) {
    release(k);
    return cuda_fail(FUPERMOD_ERR_NODEVICE, "uploading C", e);
  }
  k->d = d;
  k->iter = 0;
  return FUPERMOD_SUCCESS;
}

static int run(void *ctx) {
  gemm_ctx *k = ctx;
  const double one = 1.0;
  size_t b = (size_t)k->b, p, elems = k->rows * k->cols;
  cudaError_t e;
  if (!k->d) return fupermod_error(FUPERMOD_ERR_USAGE, NAME " kernel: execute before initialize");
  if ((e = cudaSetDevice((int)k->device)) != cudaSuccess) return cuda_fail(FUPERMOD_ERR_SYSTEM, "cudaSetDevice", e);
  p = (size_t)(k->iter++ % k->m);
  for (size_t i = 0; i < k->rows; i++) memcpy(k->Ab + i * b, k->A + i * k->cols + p * b, b * sizeof(double));
  memcpy(k->Bb, k->B + p * b * k->cols, b * k->cols * sizeof(double));
  if ((e = cudaMemcpy(k->dA, k->Ab, k->rows * b * sizeof(double), cudaMemcpyHostToDevice)) != cudaSuccess ||
      (e = cudaMemcpy(k->dB, k->Bb, b * k->cols * sizeof(double), cudaMemcpyHostToDevice)) != cudaSuccess ||
      (!k->resident && (e = cudaMemcpy(k->dC, k->C, elems * sizeof(double), cudaMemcpyHostToDevice)) != cudaSuccess))
    return cuda_fail(FUPERMOD_ERR_SYSTEM, "upload", e);
  /* row-major C = Ab Bb is column-major C^T = Bb^T Ab^T */
  if (cublasDgemm(k->handle, CUBLAS_OP_N, CUBLAS_OP_N, (int)k->cols, (int)k->rows, (int)b, &one, k->dB, (int)k->cols,
                  k->dA, (int)b, &one, k->dC, (int)k->cols) != CUBLAS_STATUS_SUCCESS)
    return fupermod_error(FUPERMOD_ERR_SYSTEM, NAME " kernel: cublasDgemm failed");
  /* the download waits for the GEMM; when C is resident, synchronise explicitly */
  e = k->resident ? cudaDeviceSynchronize()
                  : cudaMemcpy(k->C, k->dC, elems * sizeof(double), cudaMemcpyDeviceToHost);
  if (e != cudaSuccess) return cuda_fail(FUPERMOD_ERR_SYSTEM, "download", e);
  return FUPERMOD_SUCCESS;
}

/* A benchmark that abandons a slow run cancels its thread at the next cancellation point, which
 * may lie inside the CUDA runtime with a lock held: finish the run instead. */
static int execute(void *ctx) {
  int old, rc, prev;
  pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
  prev = kern_cuda_saved();
  rc = run(ctx);
  kern_cuda_restore(prev);
  pthread_setcancelstate(old, NULL);
  return rc;
}

/* the other entry points that select the kernel's device give the caller's back (device.h) */
static int create(const char *subopts, void **ctx) {
  int prev = kern_cuda_saved();
  return kern_cuda_back(prev, create_on(subopts, ctx));
}

static int initialize(long d, void *ctx) {
  int prev = kern_cuda_saved();
  return kern_cuda_back(prev, initialize_on(d, ctx));
}

static int finalize(void *ctx) {
  int prev = kern_cuda_saved();
  return kern_cuda_back(prev, finalize_on(ctx));
}

static void destroy(void *ctx) {
  gemm_ctx *k = ctx;
  if (!k) return;
  release(k);
  cublasDestroy(k->handle);
  free(k);
}

/* The GPU result against C_0 + the pivot products computed by a triple loop on the host. */
static int check_one(gemm_ctx *base, long b, long d, long resident) {
  gemm_ctx k = *base;
  const int runs = 3;
  double *ref, err;
  size_t n;
  int rc;
  k.b = b;
  k.resident = resident;
  k.A = k.B = k.C = k.Ab = k.Bb = k.dA = k.dB = k.dC = NULL;
  k.d = 0;
  if ((rc = initialize(d, &k)) != FUPERMOD_SUCCESS) return rc;
  n = k.rows * k.cols;
  if (!(ref = malloc(n * sizeof *ref))) {
    release(&k);
    return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  }
  kern_fill(ref, n, 3);
  for (int r = 0; r < runs && rc == FUPERMOD_SUCCESS; r++) {
    long p = r % k.m;
    rc = execute(&k);
    kern_ref_gemm((long)k.rows, (long)k.cols, b, k.A + p * b, (long)k.cols, k.B + p * b * (long)k.cols,
                  (long)k.cols, ref, (long)k.cols);
  }
  if (rc == FUPERMOD_SUCCESS) {
    /* finalize downloads a resident C; keep the host copy until compared */
    if (k.resident) {
      cudaError_t e = cudaMemcpy(k.C, k.dC, n * sizeof(double), cudaMemcpyDeviceToHost);
      if (e != cudaSuccess) rc = cuda_fail(FUPERMOD_ERR_SYSTEM, "downloading C", e);
    }
  }
  err = rc == FUPERMOD_SUCCESS ? kern_rel_err(k.C, ref, n) : 0.0;
  free(ref);
  release(&k);
  if (rc != FUPERMOD_SUCCESS) return rc;
  if (!(err <= 1e-12))
    return fupermod_error(FUPERMOD_ERR_NUMERIC, NAME " kernel: verify failed for b=%ld d=%ld resident=%ld: relative error %g",
                          b, d, resident, err);
  return FUPERMOD_SUCCESS;
}

static int verify(void *ctx) {
  gemm_ctx *k = ctx;
  static const long cases[][2] = {{1, 1}, {3, 2}, {5, 7}, {4, 10}, {16, 12}, {64, 5}};
  int rc;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    for (long res = 0; res <= 1; res++)
      if ((rc = check_one(k, cases[i][0], cases[i][1], res)) != FUPERMOD_SUCCESS) return rc;
  if (k->b <= 128) return check_one(k, k->b, 5, k->resident);
  return FUPERMOD_SUCCESS;
}


const fupermod_kernel_ops fupermod_kernel_plugin = {
  FUPERMOD_KERNEL_API, NAME, "SUMMA block update on a GPU (cuBLAS), host-device transfers included",
  create, complexity, initialize, execute, finalize, destroy, verify, NULL, NULL};
