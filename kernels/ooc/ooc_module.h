/* The CUDA executor of the out-of-card GEMM is a module (fupermod_ooc_cuda.so in the kernel
 * directory) that libfupermod_ooc loads on the first context, so that nothing linking
 * libfupermod_ooc maps the CUDA libraries before a GPU is actually asked for. Not installed. */
#ifndef FUPERMOD_OOC_MODULE_H
#define FUPERMOD_OOC_MODULE_H

#include "kernels/ooc/ooc.h"

#define FUPERMOD_OOC_MODULE "fupermod_ooc_cuda"
#define FUPERMOD_OOC_MODULE_API 2

typedef struct fupermod_ooc_module {
  int api_version; /* FUPERMOD_OOC_MODULE_API */
  int (*create)(const fupermod_ooc_opts *opts, void **impl);
  void (*destroy)(void *impl);
  int (*dgemm)(void *impl, long M, long N, long K, double alpha, const double *A, long lda, const double *B, long ldb,
               double beta, double *C, long ldc, fupermod_ooc_stats *stats);
  int (*hold)(void *impl, double *C, long M, long N, long ldc, long kmax);
  int (*release)(void *impl);
} fupermod_ooc_module;

#endif
