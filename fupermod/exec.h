/* A process's executor: the one device it computes on, its cores or a GPU with its host core,
 * opened once from its configuration line and kept for the life of the process. Kernels, the
 * benchmark and the applications compute through it, so that what is measured is what the
 * application does (docs/kernels.md, "Executors"). The CPU executor runs OpenBLAS and FFTW with
 * its own thread count, whatever the environment says. The CUDA executor is a module
 * (fupermod_exec_cuda.so in the kernel directory) loaded on the first GPU executor: nothing of
 * CUDA is linked into libfupermod. It keeps its cuBLAS handle, cuFFT plans, streams, page-locked
 * buffers and held data until it is closed.
 *
 * All matrices are column-major doubles and all signals interleaved complex doubles in host
 * memory; an executor moves them to its device and back itself. Calls on one executor come from
 * one thread at a time. */
#ifndef FUPERMOD_EXEC_H
#define FUPERMOD_EXEC_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* the public API; the libraries build with -fvisibility=hidden */

struct fupermod_process_conf;

enum fupermod_exec_kind { FUPERMOD_EXEC_CPU = 0, FUPERMOD_EXEC_CUDA = 1 };

typedef struct fupermod_exec_opts {
  int kind;         /* FUPERMOD_EXEC_CPU or FUPERMOD_EXEC_CUDA */
  int threads;      /* CPU: threads of OpenBLAS, FFTW and OpenMP (>= 1); CUDA: of its host side */
  int cuda_device;  /* CUDA: the device ordinal as this process sees it (after CUDA_VISIBLE_DEVICES) */
  double mem_limit; /* CUDA: device bytes the executor may use; <= 0: the device's share, below */
  int device_sharers; /* CUDA: processes of the configuration on this host's device (< 1: 1); without
                       * mem_limit each may use 90 % of the device's memory divided among them */
#ifdef FUPERMOD_SMPI
  /* The SMPI build only (configure --with-smpi, which defines FUPERMOD_SMPI in every file):
   * emulate=FILE, the point file whose times the device takes on the simulated clock for an
   * operation of d x emulate_unit flops, or emulate=platform, the simulated host's flop rate
   * (docs/simulate.md). Every executor of that build is emulated: "" means "platform". */
  char emulate[4096];
  double emulate_unit; /* <= 0: 1e6 */
#endif
} fupermod_exec_opts;

typedef struct fupermod_exec fupermod_exec;

/* Open an executor. FUPERMOD_ERR_NODEVICE when a CUDA executor has no module, no CUDA runtime or
 * no such device (the message says which). */
int fupermod_exec_open(const fupermod_exec_opts *opts, fupermod_exec **out);
/* The options of a configuration line: device type cpu -> CPU, gpu -> CUDA; threads= (default:
 * the cores of its binding, 1 for none, fupermod_bind_width); device= (default 0); mem_limit=BYTES
 * (suffix K, M, G allowed; default 0). Errors name where (e.g. "conf:3"). */
int fupermod_exec_opts_line(const struct fupermod_process_conf *pc, const char *where, fupermod_exec_opts *opts);
/* As fupermod_exec_opts_line for line index of conf, with device_sharers counted: the gpu lines of
 * conf on the same host with the same device= (a "localhost" line counts with every host). */
struct fupermod_conf;
int fupermod_exec_opts_conf(const struct fupermod_conf *conf, int index, const char *where, fupermod_exec_opts *opts);
struct fupermod_option;
/* The sub-options fupermod_exec_opts_line reads (threads, device, mem_limit). */
const struct fupermod_option *fupermod_exec_options(void);
void fupermod_exec_close(fupermod_exec *e);

int fupermod_exec_kind(const fupermod_exec *e);
int fupermod_exec_threads(const fupermod_exec *e);
/* One line: "cpu, 4 threads" or "cuda device 0 (PCI 0000:3b:00.0, NVIDIA H100, 80 GB, limit ...)". */
const char *fupermod_exec_describe(const fupermod_exec *e);
/* CUDA: the device's PCI bus id, as NVML names it ("0000:3b:00.0"); CPU: "" . */
const char *fupermod_exec_pci_bus_id(const fupermod_exec *e);

/* Page-lock host memory for fast transfers for as long as it is registered (CPU: a no-op). The
 * time it took is added to fupermod_exec_stats' pin_s, reported apart from the computation. */
int fupermod_exec_pin(fupermod_exec *e, void *ptr, size_t bytes);
int fupermod_exec_unpin(fupermod_exec *e, void *ptr);
/* Host memory for buffers an application uses again and again (panels, staging): page-locked on
 * a GPU executor, once: a freed block stays page-locked with the executor and serves a later
 * request of at most its size, until the executor is closed. So pinning, which costs more than the
 * transfers it speeds up, is paid once per executor (in pin_s), not in every product. CPU: plain
 * memory, kept the same way. Its contents are undefined. */
int fupermod_exec_host_alloc(fupermod_exec *e, size_t bytes, void **ptr);
void fupermod_exec_host_free(fupermod_exec *e, void *ptr);

/* A GEMM session: C (m x n, leading dimension ldc, host memory) is updated by a sequence of
 * C += op(A) B, each A m x k (or k x m with trans), B k x n, k <= kmax. The CUDA executor keeps C
 * on the device from begin to end when C and two panels fit in its limit (otherwise each update
 * moves the parts of C it needs, out of card); the CPU executor updates C in place. zero = 1
 * starts from C = 0 without reading C. m or n = 0: an empty session (every call succeeds). An
 * update may return before its GEMM is done (the panels are on the device then: the caller may
 * reuse them). end waits for the last update and leaves the result in the host C. One session at
 * a time. */
int fupermod_exec_gemm_begin(fupermod_exec *e, double *C, long m, long n, long ldc, long kmax, int zero);
int fupermod_exec_gemm_update(fupermod_exec *e, int trans, long k, const double *A, long lda, const double *B,
                              long ldb);
/* A hint after begin: the session will have this many updates. The CUDA executor then holds the
 * last few back and runs them column chunk by column chunk, each chunk of C going back to the host
 * while the next is computed. More or fewer updates than planned are still computed exactly. */
int fupermod_exec_gemm_plan(fupermod_exec *e, long updates);
/* Return when at most `behind` of the session's updates are still computing (0: all are done).
 * An update returns once its panels are on the device, its GEMM queued; a benchmark of one update
 * per run waits with behind = 1, so that a run lasts what a pivot of SUMMA does in steady state. */
int fupermod_exec_gemm_wait(fupermod_exec *e, long behind);
int fupermod_exec_gemm_end(fupermod_exec *e);

/* C = alpha op(A) B + beta C in one call, every matrix in host memory (column-major; op(A) M x K,
 * A K x M with FUPERMOD_EXEC_DGEMM_TRANS). The CPU executor calls BLAS. The CUDA executor streams
 * the product through the device whatever its size: C in tiles as large as the memory limit
 * allows (the whole of C when it fits), each tile accumulated over panels of A and B that are
 * uploaded while the panels before them are multiplied, the first panels small so the device
 * starts early; C's own tile uploaded behind the GEMMs and added on the device (beta), and the tile
 * downloaded in column chunks while the next chunk, or the next tile, is computed. Outside a GEMM
 * session; returns when C is on the host. info (may be NULL) says how C was cut. */
#define FUPERMOD_EXEC_DGEMM_TRANS 1  /* A is stored K x M (op(A) = A^T) */
#define FUPERMOD_EXEC_DGEMM_SERIAL 2 /* CUDA: every operation waits for the one before (no overlap) */
typedef struct fupermod_exec_dgemm_info {
  long row_tiles, col_tiles; /* C cut into row_tiles x col_tiles tiles */
  long rows, cols, panel;    /* the largest tile, and the largest panel depth */
  double device_bytes;       /* device memory the product used */
  int in_card;               /* 1: A, B and C each crossed the link once */
} fupermod_exec_dgemm_info;
int fupermod_exec_dgemm(fupermod_exec *e, int flags, long M, long N, long K, double alpha, const double *A, long lda,
                        const double *B, long ldb, double beta, double *C, long ldc, fupermod_exec_dgemm_info *info);

/* In-place FFTs of howmany complex signals of length n: element j of signal s at
 * data[2 (s dist + j stride)], repeated over blocks blocks block_dist complex elements apart
 * (blocks = 1: one batch). sign -1 forward, +1 backward, unnormalised. Plans are cached per
 * layout for the life of the executor. The CUDA executor uploads, transforms and downloads. */
typedef struct fupermod_exec_fft_layout {
  long n, howmany, stride, dist, blocks, block_dist;
} fupermod_exec_fft_layout;
int fupermod_exec_fft(fupermod_exec *e, const fupermod_exec_fft_layout *layout, double *data, int sign);

/* A whole 2D FFT, in place, of an M x N array of complex doubles in host memory, row-major (row r
 * at data[2 r N]); sign -1 forward, +1 backward, unnormalised. The CUDA executor, where the array
 * fits in its memory, uploads it in batches of rows, each transformed as soon as it is up,
 * transforms the columns on the device and downloads the result: the array crosses the link once
 * each way. Otherwise, and on the CPU, the rows then the columns through fupermod_exec_fft (a
 * CUDA executor counts that as a fallback). */
int fupermod_exec_fft2d(fupermod_exec *e, long M, long N, double *data, int sign);

/* The device vendor's own figures, for benchmarks to compare with (bench/gpunode): the seconds of
 *   FUPERMOD_EXEC_REF_GEMM        cublasDgemm of a x b x c on data already on the device;
 *   FUPERMOD_EXEC_REF_GEMM_XT     cublasXtDgemm of a x b x c on host matrices (FUPERMOD_ERR_NODEVICE
 *                                 where the CUDA libraries have no cuBLAS-Xt);
 *   FUPERMOD_EXEC_REF_FFT2D       a cuFFT 2D transform of a x b on data already on the device;
 *   FUPERMOD_EXEC_REF_FFT2D_MOVED the same with its upload and download, one after the other;
 *   FUPERMOD_EXEC_REF_UP, _DOWN   a copy of a bytes from page-locked host memory to the device, or
 *                                 back (b = 0), or from and to pageable host memory (b = 1).
 * Data are not initialised. The CPU executor has none (FUPERMOD_ERR_NODEVICE). */
enum {
  FUPERMOD_EXEC_REF_GEMM = 1,
  FUPERMOD_EXEC_REF_GEMM_XT = 2,
  FUPERMOD_EXEC_REF_FFT2D = 3,
  FUPERMOD_EXEC_REF_FFT2D_MOVED = 4,
  FUPERMOD_EXEC_REF_UP = 5,
  FUPERMOD_EXEC_REF_DOWN = 6
};
int fupermod_exec_reference(fupermod_exec *e, int what, long a, long b, long c, double *seconds);

/* What the executor did so far: seconds spent page-locking host memory and in the device's first
 * use, bytes moved, and fallbacks: how many times the device's memory was too small for the fast
 * schedule and a slower one ran (a GEMM whose C does not stay on the device, FFTs in smaller
 * batches or without overlap). */
typedef struct fupermod_exec_stats {
  double pin_s, first_use_s;
  double bytes_up, bytes_down;
  long fallbacks;
} fupermod_exec_stats;
void fupermod_exec_get_stats(const fupermod_exec *e, fupermod_exec_stats *stats);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
