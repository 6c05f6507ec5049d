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

#endif
