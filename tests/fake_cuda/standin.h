/* What the stand-in CUDA runtime (tests/fake_cuda/cudart.c) offers the stand-in cuBLAS and cuFFT:
 * their work is queued on the runtime's streams like a copy, and their pointers are checked
 * against its device allocations. Not part of any CUDA API. */
#ifndef FUPERMOD_TESTS_FAKE_CUDA_STANDIN_H
#define FUPERMOD_TESTS_FAKE_CUDA_STANDIN_H

#include <stddef.h>
#include <cuda_runtime.h>
#include <library_types.h>

#define STANDIN_EXPORT __attribute__((visibility("default")))

typedef void (*standin_fn)(void *arg);

/* Queue run(arg) on stream s (0: the legacy stream of device dev); drop(arg) follows run, or
 * replaces it if the work is discarded. Fails with cudaErrorInvalidResourceHandle for a stream
 * that is not live or belongs to another device than dev; drop(arg) is then called at once. */
cudaError_t fupermod_standin_enqueue(cudaStream_t s, int dev, standin_fn run, standin_fn drop, void *arg);

/* What a queued operation costs on the simulated GPU ($FAKE_CUDA_SIM, docs/kernels.md "A simulated
 * GPU"): a GEMM of m x n x k (flops in all, batches included), an FFT of flops, or a pass over bytes
 * of device memory. All run on the device's compute engine. */
enum { STANDIN_COST_GEMM = 1, STANDIN_COST_FFT, STANDIN_COST_BYTES };
typedef struct {
  int kind;
  double flops, m, n, k, bytes;
} standin_cost;

/* As fupermod_standin_enqueue, for work with a payload (GEMM, FFT) whose cost c the virtual clock
 * counts; with $FAKE_CUDA_NOPAYLOAD set, run is not called (drop still is). */
cudaError_t fupermod_standin_enqueue_cost(cudaStream_t s, int dev, const standin_cost *c, standin_fn run,
                                          standin_fn drop, void *arg);

/* The calling host thread's virtual time in seconds with $FAKE_CUDA_SIM (SIMULATED: the real time
 * the host spends between CUDA calls, plus what it waits for the simulated device); without it,
 * CLOCK_MONOTONIC. The stand-in gives it to fupermod_clock_inject when it reads the description
 * (at load where $FAKE_CUDA_SIM is set then, or at the first call that needs it). */
STANDIN_EXPORT double fupermod_standin_sim_time(void);

/* Whether [p, p + bytes) lies in one allocation of device dev, or of a device whose memory dev
 * has peer access to. bytes 0 checks nothing. */
int fupermod_standin_accessible(int dev, const void *p, size_t bytes);

/* Complete all work queued on device dev (as cudaDeviceSynchronize there). */
void fupermod_standin_sync_device(int dev);

/* The calling thread's current device, or -1 when there is no usable device. */
int fupermod_standin_current(void);

/* Status codes with their names and texts, for cudaGetErrorName, cublasGetStatusString, ... */
typedef struct {
  int code;
  const char *name, *text;
} standin_code;

static inline const char *standin_lookup(const standin_code *t, size_t n, int code, int text, const char *unknown) {
  for (size_t k = 0; k < n; k++)
    if (t[k].code == code) return text ? t[k].text : t[k].name;
  return unknown;
}

/* The functions that name a status code and describe it, from table. */
#define STANDIN_NAMES(table, type, name_fn, unknown_name, text_fn, unknown_text)                                       \
  const char *name_fn(type c) { return standin_lookup(table, sizeof table / sizeof table[0], c, 0, unknown_name); } \
  const char *text_fn(type c) { return standin_lookup(table, sizeof table / sizeof table[0], c, 1, unknown_text); }

/* A library's version part for *GetProperty; -1 for an unknown part. */
static inline int standin_version(libraryPropertyType type, int major, int minor, int patch, int *v) {
  switch (type) {
  case MAJOR_VERSION: *v = major; return 0;
  case MINOR_VERSION: *v = minor; return 0;
  case PATCH_LEVEL: *v = patch; return 0;
  default: return -1;
  }
}

/* A line on stderr when $FAKE_CUDA_VERBOSE is set: why a call was refused. */
void fupermod_standin_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The stand-in cuFFT's executions queued so far, every plan and device: for tests that count
 * launches (libcufft.so.12 exports it; tests/test_cuda_fft looks it up with dlsym). */
STANDIN_EXPORT long fupermod_cufft_standin_execs(void);

/* The loaded device description's value of key (memory, or one of its keys but gemm: h2d_pinned,
 * duplex, pitched_row, ...), as the simulator uses it (a key left out: its default), so that a test
 * derives its bounds from the device it runs on: 0, or -1 without a description or for another
 * key (libcudart.so.13 exports it). */
STANDIN_EXPORT int fupermod_standin_sim_param(const char *key, double *value);

#endif
