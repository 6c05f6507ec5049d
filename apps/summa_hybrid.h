/* Hybrid SUMMA (Clarke thesis 3.2, mxm_hybrid; docs/hierarchical.md): C = A B for n x n
 * matrices. Nodes own rectangles of b x b blocks (the INPA layout); each node's rectangle is cut
 * into vertical slices of element columns, one per device (IDPA). A device is one process: CPU
 * devices compute with OpenBLAS, GPU devices with cuBLAS through the out-of-card GEMM, whose time
 * includes every host-device transfer; the process driving a GPU is its dedicated host core.
 * A, B and C share the slices; each process stores its slice column-major, leading dimension =
 * its number of rows. */
#ifndef FUPERMOD_SUMMA_HYBRID_H
#define FUPERMOD_SUMMA_HYBRID_H

#include <stdint.h>
#include <mpi.h>
#include <fupermod/fupermod.h>
#include "../partitioners/hier.h"
#include "../kernels/ooc/ooc.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* the public API; the libraries build with -fvisibility=hidden */

/* Element extent of every process of the communicator (rows or cols 0: no data). */
typedef struct fupermod_hybrid_layout {
  int p, n, b;
  int *row0, *rows, *col0, *cols;
} fupermod_hybrid_layout;

/* From the node rectangles (hc->nodes rectangles of b x b blocks, M = N = ceil(n/b)) and the slice
 * width of every rank of hc->comm (columns[r], element columns; a node's slices go left to right
 * in device order and must sum to the node's width in elements). Not collective. */
int fupermod_hybrid_layout_make(const fupermod_hier_comm *hc, const fupermod_layout *nodes, const long *columns,
                                int n, int b, fupermod_hybrid_layout **out);
/* Collective over hc->comm: the layout of an INPA result (every rank gives its own slice). */
int fupermod_hybrid_layout_inpa(const fupermod_hier_comm *hc, const fupermod_inpa_result *res, int n, int b,
                                fupermod_hybrid_layout **out);
void fupermod_hybrid_layout_free(fupermod_hybrid_layout *hl);

/* What computes this process's updates. */
typedef struct fupermod_hybrid_device {
  int gpu;        /* -1: CPU (OpenBLAS); otherwise the CUDA device index */
  double gpu_mem; /* bytes the GPU GEMM may use (<= 0: 90 % of the free memory) */
} fupermod_hybrid_device;

/* The device of a configuration line: device_type gpu takes sub-option device=N (default 0). */
int fupermod_hybrid_device_of(const fupermod_process_conf *pc, fupermod_hybrid_device *dev);

/* Collective over comm (size hl->p). accumulate = 0: C = A B; 1: C += A B. Per pivot block k, each
 * process receives the rows of A's block column k that its slice spans and the columns of B's
 * block row k over its slice, from the processes that own them (the next pivot's messages are in
 * flight during the update), then updates its slice on its device. *compute (if not NULL) =
 * seconds in the updates, transfers to a GPU included. Errors are agreed: every rank returns the
 * same status (no GPU on a GPU rank: FUPERMOD_ERR_NODEVICE everywhere). */
int fupermod_hybrid_dgemm(MPI_Comm comm, const fupermod_hybrid_layout *hl, const fupermod_hybrid_device *dev,
                          const double *A, const double *B, double *C, int accumulate, double *compute);

/* Fill rank's slice with the values of fupermod_summa_value(seed, kind, i, j). */
int fupermod_hybrid_fill(const fupermod_hybrid_layout *hl, int rank, uint64_t seed, int kind, double *X);

/* Collective check of C against C0 + A B computed from the generator (C0: seed_c, or none when
 * has_c0 = 0), each rank for its own slice (O(rows cols n)). *mismatches: elements differing by
 * more than tol times the magnitude of the terms (tol 0: exact, for FUPERMOD_SUMMA_INTEGER data),
 * summed over ranks; *maxrel: the largest relative difference. */
int fupermod_hybrid_check(MPI_Comm comm, const fupermod_hybrid_layout *hl, int kind, uint64_t seed_a,
                          uint64_t seed_b, int has_c0, uint64_t seed_c, const double *C, double tol, long *mismatches,
                          double *maxrel);

/* A fupermod_hier_measure for INPA on real devices: the time of C'(bm x d) += A_(b)(bm x b)
 * B_(b)(b x d) on this process's device (a GPU's time includes the transfers), the mean of reps
 * runs after one warm-up, the co-located devices of comm_sync running together. */
typedef struct fupermod_hybrid_measure_ctx {
  long b;
  int reps;
  fupermod_hybrid_device dev;
  fupermod_ooc *ooc; /* created on first use for a GPU; free with fupermod_ooc_destroy */
} fupermod_hybrid_measure_ctx;

int fupermod_hybrid_measure(long bm, long d, MPI_Comm comm_sync, fupermod_point *pt, void *ctx);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
