/* CUDA device count for fupermod config (docs/formats.md, "Process configuration"). */
#include <dlfcn.h>
#include <stddef.h>
#include "fupermod/conf.h"

int fupermod_cuda_device_count(void) {
  /* dlopen so that one binary serves CPU-only and GPU hosts; any failure means 0 devices */
  static const char *const names[] = {"libcudart.so", "libcudart.so.13", "libcudart.so.12",
                                      "libcudart.so.11.0"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    void *h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    int (*count)(int *);
    int n = 0;
    if (!h) continue;
    count = (int (*)(int *))dlsym(h, "cudaGetDeviceCount");
    if (!count || count(&n) != 0) n = 0;
    dlclose(h);
    return n > 0 ? n : 0;
  }
  return 0;
}
