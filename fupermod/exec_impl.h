/* Private interface between fupermod/exec.c, the CPU executor (exec_blas.c, exec_fft.c) and the
 * CUDA executor module (fupermod/cuda/exec_cuda.c). Not installed. */
#ifndef FUPERMOD_EXEC_IMPL_H
#define FUPERMOD_EXEC_IMPL_H

#include "fupermod/error.h"
#include "fupermod/exec.h"

#define FUPERMOD_EXEC_MODULE "fupermod_exec_cuda"
#define FUPERMOD_EXEC_MODULE_API 3
#define FUPERMOD_CUDA_PROBE "fupermod_cuda_probe"
#define FUPERMOD_CUDA_PROBE_API 1

/* The probe module (fupermod/cuda/probe.c): the CUDA runtime's answers, nothing else. */
typedef struct fupermod_cuda_probe_ops {
  int api_version;
  int (*device_count)(void);                        /* 0 on any failure */
  int (*pci_bus_id)(int device, char *buf, int size); /* 0 or -1 */
  int (*runtime_version)(void);                     /* 1000 major + 10 minor, 0 unknown */
} fupermod_cuda_probe_ops;

/* A device's operations (the CPU's are in libfupermod, the CUDA ones in the module). impl is the
 * device's own state. */
typedef struct fupermod_exec_ops {
  int api_version;
  int (*open)(const fupermod_exec_opts *opts, void **impl, char *describe, size_t dsize, char *pci, size_t psize);
  void (*close)(void *impl);
  int (*pin)(void *impl, void *ptr, size_t bytes);
  int (*unpin)(void *impl, void *ptr);
  int (*gemm_begin)(void *impl, double *C, long m, long n, long ldc, long kmax, int zero);
  int (*gemm_update)(void *impl, int trans, long k, const double *A, long lda, const double *B, long ldb);
  int (*gemm_end)(void *impl);
  int (*fft)(void *impl, const fupermod_exec_fft_layout *layout, double *data, int sign);
  void (*stats)(void *impl, fupermod_exec_stats *stats);
  int (*gemm_plan)(void *impl, long updates); /* NULL: the hint is of no use to the device */
  int (*gemm_wait)(void *impl, long behind);  /* NULL: updates are done when they return */
  int (*dgemm)(void *impl, int flags, long M, long N, long K, double alpha, const double *A, long lda, const double *B,
               long ldb, double beta, double *C, long ldc, fupermod_exec_dgemm_info *info);
  int (*fft2d)(void *impl, long M, long N, double *data, int sign); /* NULL: rows, then columns */
  int (*reference)(void *impl, int what, long a, long b, long c, double *seconds); /* NULL: none */
} fupermod_exec_ops;

/* The CPU device: OpenBLAS for GEMM (exec_blas.c), FFTW for FFTs (exec_fft.c). */
typedef struct fupermod_exec_cpu {
  int threads;
  double *C;
  long m, n, ldc;
  void *plans; /* exec_fft.c's cache */
} fupermod_exec_cpu;

int fupermod_exec_cpu_gemm_update(fupermod_exec_cpu *c, int trans, long k, const double *A, long lda, const double *B,
                                  long ldb);
int fupermod_exec_cpu_dgemm(fupermod_exec_cpu *c, int trans, long M, long N, long K, double alpha, const double *A,
                            long lda, const double *B, long ldb, double beta, double *C, long ldc);
int fupermod_exec_cpu_fft(fupermod_exec_cpu *c, const fupermod_exec_fft_layout *layout, double *data, int sign);
void fupermod_exec_cpu_fft_free(fupermod_exec_cpu *c);
/* A layout's problems: NULL when it is valid, else what is wrong. */
const char *fupermod_exec_fft_check(const fupermod_exec_fft_layout *l);

#endif
