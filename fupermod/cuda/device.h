/* The current CUDA device is per host thread and belongs to the caller: a kernel or executor
 * entry point that selects its own device puts the caller's back before it returns. */
#ifndef FUPERMOD_CUDA_DEVICE_H
#define FUPERMOD_CUDA_DEVICE_H

#include <cuda_runtime.h>

/* The caller's device, or -1 when the runtime cannot say (then nothing is restored). */
static inline int kern_cuda_saved(void) {
  int dev = -1;
  if (cudaGetDevice(&dev) != cudaSuccess) {
    cudaGetLastError();
    dev = -1;
  }
  return dev;
}

static inline void kern_cuda_restore(int dev) {
  if (dev >= 0 && cudaSetDevice(dev) != cudaSuccess) cudaGetLastError();
}

/* int prev = kern_cuda_saved(); return kern_cuda_back(prev, work(...)); */
static inline int kern_cuda_back(int prev, int rc) {
  kern_cuda_restore(prev);
  return rc;
}

#endif
