/* Hybrid SUMMA (Clarke thesis 3.2, mxm_hybrid; docs/hierarchical.md): C = A B for n x n
 * matrices. Nodes own rectangles of b x b blocks (the INPA layout); each node's rectangle is cut
 * into vertical slices of element columns, one per device (IDPA). A device is one process
 * computing through its executor (fupermod/exec.h): its cores, or a GPU driven from its host core,
 * the GPU's time including every host-device transfer. The product is the one SUMMA of
 * apps/summa.h on the slices' element extents (fupermod_summa_dgemm_extents). A, B and C share the
 * slices; each process stores its slice column-major, leading dimension = its number of rows. */
#ifndef FUPERMOD_SUMMA_HYBRID_H
#define FUPERMOD_SUMMA_HYBRID_H

#include <stdint.h>
#include <mpi.h>
#include <fupermod/fupermod.h>
#include "../partitioners/hier.h"

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

/* Collective over comm (size hl->p). accumulate = 0: C = A B; 1: C += A B, computed through this
 * process's executor (NULL: OpenBLAS in the calling thread; processes may pass executors of
 * different kinds). Per pivot, each process receives the rows of A's pivot columns that its
 * slice spans and the columns of B's pivot rows over its slice, from the processes that own them
 * (the next pivot's messages are in flight during the update). *compute (if not NULL) = seconds
 * in the updates, a GPU's transfers included. Errors are agreed: every rank returns the same
 * status. */
int fupermod_hybrid_dgemm(MPI_Comm comm, const fupermod_hybrid_layout *hl, fupermod_exec *exec, const double *A,
                          const double *B, double *C, int accumulate, double *compute);

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
 * B_(b)(b x d) through this process's executor (NULL: OpenBLAS in this thread), C' held by the
 * executor as in the product (a GPU's time includes the panels' transfers), the mean of reps
 * updates after one warm-up, the co-located devices of comm_sync running together. */
typedef struct fupermod_hybrid_measure_ctx {
  long b;
  int reps;
  fupermod_exec *exec;
} fupermod_hybrid_measure_ctx;

int fupermod_hybrid_measure(long bm, long d, MPI_Comm comm_sync, fupermod_point *pt, void *ctx);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
