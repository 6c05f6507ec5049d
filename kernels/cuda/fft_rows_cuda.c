/* fft-rows-cuda: the fft-rows kernel on a GPU with cuFFT. The device is the GPU together with its
 * host core: execute uploads the d rows, runs one batched forward Z2Z transform in place on the
 * device and downloads the result, so the time includes every host-device transfer.
 * complexity = 5 N log2(N) d, as for fft-rows. The plan is made in initialize.
 * Sub-options: n=N (row length, default 4096, >= 2), device=N (default 0).
 * Without a usable CUDA device, create fails with FUPERMOD_ERR_NODEVICE ("no CUDA device"). */
#include <pthread.h>
#include <cuda_runtime.h>
#include <cufft.h>
#include "kernels/cpu/common.h"
#include "kernels/cuda/device.h"

#define NAME "fft-rows-cuda"

typedef struct {
  long n, device;
  long d;
  int planned;
  cufftHandle plan;
  double *in, *out; /* pinned host memory, interleaved complex */
  cufftDoubleComplex *dev;
} fft_ctx;

static int cuda_fail(int code, const char *what, cudaError_t e) {
  return fupermod_error(code, NAME " kernel: %s: %s", what, cudaGetErrorString(e));
}

static int create(const char *subopts, void **ctx) {
  fft_ctx *k;
  long n = 4096, device = 0;
  int rc, count, prev;
  cudaError_t e;
  if ((rc = kern_opt_long(NAME, subopts, "n", 2, 0x7fffffffL, &n)) != FUPERMOD_SUCCESS) return rc;
  if ((rc = kern_opt_long(NAME, subopts, "device", 0, 1023, &device)) != FUPERMOD_SUCCESS) return rc;
  if ((count = fupermod_cuda_device_count()) == 0)
    return fupermod_error(FUPERMOD_ERR_NODEVICE, NAME " kernel: no CUDA device");
  if (device >= count)
    return fupermod_error(FUPERMOD_ERR_NODEVICE, NAME " kernel: no CUDA device %ld (%d present)", device, count);
  /* whether the device can be selected; the caller keeps its own (device.h) */
  prev = kern_cuda_saved();
  e = cudaSetDevice((int)device);
  kern_cuda_restore(prev);
  if (e != cudaSuccess) return cuda_fail(FUPERMOD_ERR_NODEVICE, "no CUDA device: cudaSetDevice", e);
  if (!(k = calloc(1, sizeof *k))) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  k->n = n;
  k->device = device;
  *ctx = k;
  return FUPERMOD_SUCCESS;
}

static double complexity(long d, void *ctx) {
  double n = (double)((fft_ctx *)ctx)->n;
  return d > 0 ? 5.0 * n * log2(n) * (double)d : 0.0;
}

static int finalize(void *ctx) {
  fft_ctx *k = ctx;
  if (k->planned) cufftDestroy(k->plan);
  cudaFreeHost(k->in), cudaFreeHost(k->out), cudaFree(k->dev);
  k->planned = 0;
  k->in = k->out = NULL;
  k->dev = NULL;
  k->d = 0;
  return FUPERMOD_SUCCESS;
}

static int run(void *ctx);

static int initialize_on(long d, void *ctx) {
  fft_ctx *k = ctx;
  double bytes = 16.0 * (double)d * (double)k->n;
  size_t freeb = 0, total = 0, len;
  int n = (int)k->n, rc;
  cufftResult r;
  cudaError_t e;
  if ((rc = kern_check_d(NAME, d)) != FUPERMOD_SUCCESS) return rc;
  finalize(k);
  if ((e = cudaSetDevice((int)k->device)) != cudaSuccess) return cuda_fail(FUPERMOD_ERR_NODEVICE, "cudaSetDevice", e);
  if ((rc = kern_mem_check(NAME, d, 2.0 * bytes, kern_mem_limit(), "(3/4 of the physical memory)")) != FUPERMOD_SUCCESS)
    return rc;
  if ((e = cudaMemGetInfo(&freeb, &total)) != cudaSuccess) return cuda_fail(FUPERMOD_ERR_NODEVICE, "cudaMemGetInfo", e);
  /* cuFFT needs work space too; ask for the data to fit in 3/4 of the free device memory */
  if ((rc = kern_mem_check(NAME, d, bytes, 0.75 * (double)freeb, "(3/4 of the free memory of the CUDA device)")) !=
      FUPERMOD_SUCCESS)
    return rc;
  if (d > 0x7fffffffL)
    return fupermod_error(FUPERMOD_ERR_INPUT, NAME " kernel: d=%ld rows exceed cuFFT's batch limit of 2^31-1", d);
  len = (size_t)d * (size_t)k->n;
  if (cudaMallocHost((void **)&k->in, len * 2 * sizeof(double)) != cudaSuccess ||
      cudaMallocHost((void **)&k->out, len * 2 * sizeof(double)) != cudaSuccess) {
    finalize(k);
    return fupermod_error(FUPERMOD_ERR_NOMEM, NAME " kernel: cannot allocate %.0f bytes of pinned host memory for d=%ld",
                          2.0 * bytes, d);
  }
  if (cudaMalloc((void **)&k->dev, len * sizeof(cufftDoubleComplex)) != cudaSuccess) {
    finalize(k);
    return fupermod_error(FUPERMOD_ERR_NOMEM, NAME " kernel: cannot allocate %.0f bytes on CUDA device %ld for d=%ld",
                          bytes, k->device, d);
  }
  if ((r = cufftPlanMany(&k->plan, 1, &n, NULL, 1, n, NULL, 1, n, CUFFT_Z2Z, (int)d)) != CUFFT_SUCCESS) {
    finalize(k);
    return fupermod_error(r == CUFFT_ALLOC_FAILED ? FUPERMOD_ERR_NOMEM : FUPERMOD_ERR_NODEVICE,
                          NAME " kernel: cufftPlanMany failed for %ld rows of %ld (cufftResult %d)", d, k->n, (int)r);
  }
  k->planned = 1;
  kern_fill(k->in, 2 * len, 21);
  memset(k->out, 0, len * 2 * sizeof(double));
  k->d = d;
  /* cuFFT loads its code on the first execution: not in a timed run (run() is stateless) */
  if ((rc = run(k)) != FUPERMOD_SUCCESS) {
    finalize(k);
    return rc;
  }
  return FUPERMOD_SUCCESS;
}

static int run(void *ctx) {
  fft_ctx *k = ctx;
  size_t size = (size_t)k->d * (size_t)k->n * sizeof(cufftDoubleComplex);
  cudaError_t e;
  if (!k->d) return fupermod_error(FUPERMOD_ERR_USAGE, NAME " kernel: execute before initialize");
  /* the current device is per host thread, and execute may run in another thread */
  if ((e = cudaSetDevice((int)k->device)) != cudaSuccess) return cuda_fail(FUPERMOD_ERR_SYSTEM, "cudaSetDevice", e);
  if ((e = cudaMemcpy(k->dev, k->in, size, cudaMemcpyHostToDevice)) != cudaSuccess)
    return cuda_fail(FUPERMOD_ERR_SYSTEM, "upload", e);
  if (cufftExecZ2Z(k->plan, k->dev, k->dev, CUFFT_FORWARD) != CUFFT_SUCCESS)
    return fupermod_error(FUPERMOD_ERR_SYSTEM, NAME " kernel: cufftExecZ2Z failed");
  if ((e = cudaMemcpy(k->out, k->dev, size, cudaMemcpyDeviceToHost)) != cudaSuccess)
    return cuda_fail(FUPERMOD_ERR_SYSTEM, "download", e);
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

/* initialize selects the kernel's device too: the caller gets its own back (device.h) */
static int initialize(long d, void *ctx) {
  int prev = kern_cuda_saved();
  return kern_cuda_back(prev, initialize_on(d, ctx));
}

static void destroy(void *ctx) {
  if (!ctx) return;
  finalize(ctx);
  free(ctx);
}

static int check_one(const fft_ctx *base, long n, long d) {
  fft_ctx k = {n, base->device, 0, 0, 0, NULL, NULL, NULL};
  double *ref, err = 0.0;
  size_t row = 2 * (size_t)n;
  int rc = initialize(d, &k);
  if (rc != FUPERMOD_SUCCESS) return rc;
  if (!(ref = malloc(row * (size_t)d * sizeof *ref))) {
    finalize(&k);
    return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  }
  for (long i = 0; i < d && rc == FUPERMOD_SUCCESS; i++)
    if (kern_ref_dft(n, k.in + i * row, ref + i * row) != 0) rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  for (int r = 0; r < 2 && rc == FUPERMOD_SUCCESS; r++) {
    double e;
    memset(k.out, 0, row * (size_t)d * sizeof(double));
    if ((rc = execute(&k)) != FUPERMOD_SUCCESS) break;
    e = kern_rel_err(k.out, ref, row * (size_t)d);
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
  static const long cases[][2] = {{2, 1}, {3, 3}, {5, 2}, {8, 4}, {12, 3}, {17, 2}, {64, 5}, {210, 2}, {1024, 2}};
  int rc;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    if ((rc = check_one(k, cases[i][0], cases[i][1])) != FUPERMOD_SUCCESS) return rc;
  if (k->n <= 4096) return check_one(k, k->n, 2);
  return FUPERMOD_SUCCESS;
}

const fupermod_kernel_ops fupermod_kernel_plugin = {
  FUPERMOD_KERNEL_API, NAME, "batched forward 1D complex FFTs of d rows on a GPU (cuFFT), transfers included",
  create, complexity, initialize, execute, finalize, destroy, verify, NULL, NULL};
