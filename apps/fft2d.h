/* Heterogeneous 2D FFT of a complex M x N signal distributed by rows in any distribution
 * (docs/apps.md): row FFTs, the distributed transpose from row blocks to column blocks
 * (contiguous blocks exchanged with MPI_Isend/MPI_Irecv, or an MPI-3 shared-memory window on one
 * node), column FFTs, and the transpose back.
 *
 * Layout. Rank r owns rows [R_r, R_r + d_r) of the signal, where d_r = rows->parts[r].d and
 * R_r = d_0 + ... + d_{r-1} (fupermod_dist_offsets); d_r = 0 is allowed. The local block is
 * d_r x N complex numbers, row-major (element (i, j) of the block, i.e. global (R_r + i, j), at
 * index i * N + j), each complex number two doubles (re, im): the layout of fftw_complex and of
 * C99 double complex. The transform is in place and leaves the result in the same layout and
 * the same (natural) order.
 *
 * Transforms are FFTW's, unnormalised: forward uses exp(-2 pi i (k1 n1 / M + k2 n2 / N)),
 * backward the + sign, so backward(forward(x)) = M N x.
 *
 * fftw3.h is deliberately not included here: fftw_complex changes type when <complex.h> (or
 * OpenBLAS's cblas.h) comes first, so the interface uses plain doubles. */
#ifndef FUPERMOD_FFT2D_H
#define FUPERMOD_FFT2D_H

#include <mpi.h>
#include <fupermod/fupermod.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* the public API; the libraries build with -fvisibility=hidden */

enum fupermod_fft2d_direction { FUPERMOD_FFT2D_FORWARD = -1, FUPERMOD_FFT2D_BACKWARD = +1 };

/* How the column phase is laid out (apps/fft2d.c). TRANSPOSE and STRIDED copy the rows into one
 * contiguous block per destination and exchange the blocks with MPI_Isend/MPI_Irecv; the column
 * block arrives as M x c rows. TRANSPOSE: local FFTW transposes around contiguous column FFTs;
 * memory 2 d N + 2 c M complex numbers. STRIDED: strided column FFTs in place; memory
 * 2 d N + c M. SHARED: every column block in one MPI-3 shared-memory window, as 4-column
 * panels, filled and emptied by direct copies instead of messages; only when every process of
 * comm is on one node (else a usage error). TIMED:
 * whichever runs fastest, timed at planning (three transforms each; SHARED is a candidate only on
 * one node). AUTO: SHARED on one node; across nodes TRANSPOSE with FFTW_ESTIMATE, else TIMED. */
enum fupermod_fft2d_strategy {
  FUPERMOD_FFT2D_AUTO = 0,
  FUPERMOD_FFT2D_TRANSPOSE = 1,
  FUPERMOD_FFT2D_STRIDED = 2,
  FUPERMOD_FFT2D_SHARED = 3,
  FUPERMOD_FFT2D_TIMED = 4
};

typedef struct fupermod_fft2d fupermod_fft2d;

/* Collective over comm. rows: D = M, size = the size of comm, every rank passes the same
 * distribution (checked). cols: the distribution of the N columns during the column phase
 * (D = N), or NULL for columns proportional to rows (c_r = floor(N R_{r+1} / M) -
 * floor(N R_r / M): processes without rows get no columns). threads: FFTW threads per process
 * (>= 1). fftw_flags: FFTW planner flags (FFTW_ESTIMATE, FFTW_MEASURE, ...; planning with
 * FFTW_MEASURE overwrites the plan's buffers, never user data). On error every rank returns
 * the same status and *plan is NULL. */
int fupermod_fft2d_plan(MPI_Comm comm, long M, long N, const fupermod_dist *rows,
                        const fupermod_dist *cols, int threads, unsigned fftw_flags,
                        fupermod_fft2d **plan);
/* The same on this process's executor (fupermod/exec.h; NULL: one FFTW thread) and strategy
 * (FUPERMOD_FFT2D_AUTO as fupermod_fft2d_plan): a CPU executor plans FFTW with its threads; a GPU
 * executor runs this process's row and column FFTs on its device, the signal and the column
 * panels page-locked for the plan's life. Processes may give executors of different kinds. */
int fupermod_fft2d_plan_exec(MPI_Comm comm, long M, long N, const fupermod_dist *rows, const fupermod_dist *cols,
                             fupermod_exec *exec, unsigned fftw_flags, int strategy, fupermod_fft2d **plan);
/* The same with a given strategy (fupermod_fft2d_plan uses FUPERMOD_FFT2D_AUTO). */
int fupermod_fft2d_plan_strategy(MPI_Comm comm, long M, long N, const fupermod_dist *rows,
                                 const fupermod_dist *cols, int threads, unsigned fftw_flags,
                                 int strategy, fupermod_fft2d **plan);
/* The strategy a plan uses: FUPERMOD_FFT2D_TRANSPOSE, _STRIDED or _SHARED. */
int fupermod_fft2d_strategy(const fupermod_fft2d *plan);
/* "auto", "transpose", "strided", "shared" ("unknown" for anything else). */
const char *fupermod_fft2d_strategy_name(int strategy);

/* The plan's own local row block (2 d_r N doubles, aligned for SIMD; NULL when d_r = 0). */
double *fupermod_fft2d_local(fupermod_fft2d *plan);
/* Number of local rows d_r, first local row R_r, and columns c_r / first column during the
 * column phase. */
long fupermod_fft2d_local_rows(const fupermod_fft2d *plan, long *first_row);
long fupermod_fft2d_local_cols(const fupermod_fft2d *plan, long *first_col);

/* Collective: transform the local block data in place (data NULL: the plan's own block).
 * A user block must have the same SIMD alignment as fftw_malloc's (fftw_alignment_of), which
 * malloc gives on x86-64. Every rank returns the same status. */
int fupermod_fft2d_execute(fupermod_fft2d *plan, int direction, double *data);

/* Seconds spent by the last execute in each phase on this process: row FFTs, first
 * redistribution (with this process's copies into blocks or panels), column FFTs (with the local
 * transposes of TRANSPOSE), second redistribution (with the copies back) (any pointer may be
 * NULL). */
void fupermod_fft2d_phase_times(const fupermod_fft2d *plan, double *rows, double *transpose,
                                double *cols, double *transpose_back);

/* Append the last execute's row-FFT and column-FFT phases to tr as two intervals (with
 * fupermod_share_busy: how long the cores of processes sharing them computed). */
int fupermod_fft2d_compute_trace(const fupermod_fft2d *plan, fupermod_trace *tr);

/* Append the last execute's busy intervals to tr: the row FFTs with this process's own copies
 * into the column panels (shared) or send blocks (transpose, strided), the column FFTs, and its
 * copies back; the waits at fences and for messages are left out,
 * so that fupermod_share_busy over a core-sharing group gives how long the core worked for the
 * group: the application's own measure of a process's speed (bench/fft2d balances on it). */
int fupermod_fft2d_busy_trace(const fupermod_fft2d *plan, fupermod_trace *tr);

void fupermod_fft2d_destroy(fupermod_fft2d *plan);

/* Floating-point operations credited to one M x N complex 2D FFT, FFTW's convention
 * 5 M N log2(M N) (for N x N: 5 N^2 log2 N^2). */
double fupermod_fft2d_flops(long M, long N);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
