/* cblas_dgemm taken from OpenBLAS itself (private to the BLAS kernels; include after cblas.h).
 * A kernel is dlopen'ed RTLD_LOCAL, so its undefined symbols resolve in the global scope first, and
 * every program linked with libfupermod has GSL's reference CBLAS there (libgsl needs
 * libgslcblas): a plain call to cblas_dgemm silently binds to it in any program that does not link
 * OpenBLAS itself (toolchain-pitfalls P3; measured 4.5 against 30+ GFLOP/s). openblas_get_config
 * exists only in OpenBLAS, so its address names the library to ask. */
#ifndef FUPERMOD_KERNELS_BLAS_H
#define FUPERMOD_KERNELS_BLAS_H

#include <dlfcn.h>

typedef __typeof__(cblas_dgemm) *kern_dgemm_fn;

static inline kern_dgemm_fn kern_openblas_dgemm(void) {
  kern_dgemm_fn f = NULL;
  Dl_info info;
  void *h;
  if (dladdr((void *)openblas_get_config, &info) && info.dli_fname &&
      (h = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD))) {
    f = (kern_dgemm_fn)dlsym(h, "cblas_dgemm");
    dlclose(h); /* the kernel's own NEEDED entry keeps OpenBLAS loaded */
  }
  return f ? f : cblas_dgemm;
}

#endif
