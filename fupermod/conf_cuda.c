/* What the CUDA runtime says about this process's devices, for fupermod config (docs/formats.md,
 * "Process configuration") and the NVML meter, without linking it: one binary serves CPU-only and
 * GPU hosts. */
#include <dlfcn.h>
#include <stddef.h>
#include "fupermod/conf.h"
#include "fupermod/error.h"

/* The first CUDA runtime the loader finds, or NULL. */
static void *cudart(void) {
  static const char *const names[] = {"libcudart.so", "libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    void *h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (h) return h;
  }
  return NULL;
}

int fupermod_cuda_device_count(void) {
  void *h = cudart();
  int (*count)(int *);
  int n = 0;
  /* any failure means 0 devices */
  if (!h) return 0;
  count = (int (*)(int *))dlsym(h, "cudaGetDeviceCount");
  if (!count || count(&n) != 0) n = 0;
  dlclose(h);
  return n > 0 ? n : 0;
}

int fupermod_cuda_pci_bus_id(int device, char *buf, size_t size) {
  void *h = cudart();
  int (*bus)(char *, int, int);
  int r;
  if (!h) return fupermod_error(FUPERMOD_ERR_NODEVICE, "no CUDA runtime");
  bus = (int (*)(char *, int, int))dlsym(h, "cudaDeviceGetPCIBusId");
  r = bus ? bus(buf, (int)size, device) : -1;
  dlclose(h);
  return r == 0 ? FUPERMOD_SUCCESS : fupermod_error(FUPERMOD_ERR_NODEVICE, "no PCI bus id for CUDA device %d", device);
}
