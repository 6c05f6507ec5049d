/* The CUDA probe module (fupermod_cuda_probe.so in the kernel directory): what the CUDA runtime
 * says about this host's devices, asked through the very runtime the executor module links, so
 * that one process never meets two runtime versions. It links the runtime alone: counting
 * devices on a host without any must not map cuBLAS and cuFFT (hundreds of MB). Loaded by
 * fupermod/exec.c, the one place that loads CUDA code. */
#include <cuda_runtime.h>
#include "fupermod/exec_impl.h"

static int device_count(void) {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError(); /* "no device" is sticky until read, and is not this caller's error */
    return 0;
  }
  return n > 0 ? n : 0;
}

static int pci_bus_id(int device, char *buf, int size) {
  if (cudaDeviceGetPCIBusId(buf, size, device) == cudaSuccess) return 0;
  cudaGetLastError();
  return -1;
}

static int runtime_version(void) {
  int v = 0;
  return cudaRuntimeGetVersion(&v) == cudaSuccess ? v : 0;
}

__attribute__((visibility("default"))) const fupermod_cuda_probe_ops fupermod_cuda_probe = {
    FUPERMOD_CUDA_PROBE_API, device_count, pci_bus_id, runtime_version};
