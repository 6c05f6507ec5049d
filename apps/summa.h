/* Heterogeneous SUMMA: C = A B (+ C) for n x n matrices distributed by a layout of b x b blocks
 * (partitioners/matrix.h): A, B and C share the rectangles, process i stores its rectangle of
 * each column-major with leading dimension = its number of rows. On a layout with pieces, process
 * i stores its pieces one after another in piece order, each column-major with leading dimension
 * = its number of rows. Works with any exact tiling, zero-area processes and b not dividing n
 * (the last block row and column are partial). */
#ifndef FUPERMOD_SUMMA_H
#define FUPERMOD_SUMMA_H

#include <stdint.h>
#include <mpi.h>
#include <fupermod/fupermod.h>
#include "../partitioners/matrix.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* the public API; the libraries build with -fvisibility=hidden */

/* Element extent of process rank: rows [*row0, *row0 + *rows), columns [*col0, *col0 + *cols);
 * rows or cols is 0 for a process without data. The layout must have M = N = ceil(n/b).
 * FUPERMOD_ERR_USAGE for a process with several pieces (fupermod_summa_local gives its storage). */
int fupermod_summa_extent(const fupermod_layout *l, int rank, int n, int b, int *row0, int *rows, int *col0,
                          int *cols);

/* Elements process rank stores of each matrix: the sum over its pieces (its rectangle in a plain
 * layout), each clipped at n. */
int fupermod_summa_local(const fupermod_layout *l, int rank, int n, int b, long *count);

/* Collective over comm (size l->p, rank i owns l->rects[i], or its pieces). accumulate = 0: C = A B;
 * accumulate = 1: C += A B. Pivot block column k of A goes along rows, pivot block row k of B
 * along columns, to every process whose rectangle overlaps it; the next pivot's messages are in
 * flight during the local GEMM (OpenBLAS). Arguments are agreed between the ranks first: when
 * any rank's are invalid, or the ranks' layouts differ, every rank returns the same error. */
int fupermod_summa_dgemm(MPI_Comm comm, const fupermod_layout *l, int n, int b, const double *A, const double *B,
                         double *C, int accumulate);
/* The same, appending to *compute (if not NULL) the interval of every local GEMM update (the part
 * the dgemm kernel's model predicts; the rest is communication and waiting): its
 * fupermod_trace_total is this process's compute time, and fupermod_share_busy that of the
 * processes sharing its cores. */
int fupermod_summa_dgemm_timed(MPI_Comm comm, const fupermod_layout *l, int n, int b, const double *A,
                               const double *B, double *C, int accumulate, fupermod_trace *compute);

/* The same computed through this process's executor (fupermod/exec.h; NULL: OpenBLAS in this
 * thread): a GEMM session on its rectangle of C from the first pivot to the last, so a GPU keeps
 * C on the device; each pivot's panels are its updates. The session's end (C back in host memory)
 * counts as computation. Processes may pass executors of different kinds. On a layout with pieces
 * every update of every piece is one fupermod_exec_dgemm (no session: a session holds one C). */
int fupermod_summa_dgemm_exec(MPI_Comm comm, const fupermod_layout *l, int n, int b, const double *A,
                              const double *B, double *C, int accumulate, fupermod_exec *exec, fupermod_trace *compute);

/* The same on element extents: process i (of comm) owns rows [row0[i], row0[i] + rows[i]) and
 * columns [col0[i], col0[i] + cols[i]) of C, A and B, column-major with leading dimension
 * rows[i]; the extents tile the n x n matrix exactly, at any granularity. Pivots are b wide, cut
 * further where an extent begins or ends. Every rank passes the same extents, n and b. */
int fupermod_summa_dgemm_extents(MPI_Comm comm, const int *row0, const int *rows, const int *col0, const int *cols,
                                 int n, int b, const double *A, const double *B, double *C, int accumulate,
                                 fupermod_exec *exec, fupermod_trace *compute);

/* Collective: *l on root (its status rc_root: a failure there is returned on every rank with
 * root's message) is copied to every other rank, which allocates its own *l. */
int fupermod_layout_bcast(MPI_Comm comm, int root, int rc_root, fupermod_layout **l);

enum fupermod_summa_fill_kind {
  FUPERMOD_SUMMA_INTEGER = 0, /* integers in [-4, 4]: every product and sum is exact */
  FUPERMOD_SUMMA_UNIFORM = 1  /* uniform in [-1, 1) */
};

/* The value fupermod_summa_fill puts at global element (i, j) (for other data distributions,
 * e.g. ScaLAPACK's, holding the same matrix). */
double fupermod_summa_value(uint64_t seed, int kind, long i, long j);

/* Fill process rank's part of a matrix (all its pieces) with values that depend only on (seed, global i, j), so
 * any layout of the same seed holds the same matrix. */
int fupermod_summa_fill(const fupermod_layout *l, int rank, int n, int b, uint64_t seed, int kind, double *X);

/* Exact check (small n; rank 0 gathers A, B, C0 and C and runs a serial GEMM): *mismatches
 * counts elements of C that differ from the serial C0 + A B (C0 NULL: A B), *maxdiff the
 * largest absolute difference; both on every rank. Bit-exact only with FUPERMOD_SUMMA_INTEGER
 * data. n is limited to 4096. */
int fupermod_summa_check_exact(MPI_Comm comm, const fupermod_layout *l, int n, int b, const double *A,
                               const double *B, const double *C0, const double *C, long *mismatches,
                               double *maxdiff);

/* Randomised check (any n): with a random vector x from seed, *ratio = max_i |(C x)_i -
 * (C0 x + A (B x))_i| / (5 n eps ((|A| |B| |x|)_i + (|C0| |x|)_i) + tiny), on every rank. A
 * correct product gives ratio <= 1 (a rounding-error bound); a wrong element gives far more. */
int fupermod_summa_check_random(MPI_Comm comm, const fupermod_layout *l, int n, int b, const double *A,
                                const double *B, const double *C0, const double *C, uint64_t seed,
                                double *ratio);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
