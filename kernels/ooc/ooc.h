/* Out-of-card GEMM on a GPU (Khaleghzadeh thesis ch. 6, HCLOOC/ZZGemmOOC; docs/hierarchical.md):
 * C = alpha A B + beta C, column-major, A M x K, B K x N, C M x N, when the three do not fit in
 * device memory. A is cut into h row slices, B into v column slices, C into h x v blocks; the
 * device holds five buffers, {dA[0], dC[0]}, {dA[1], dC[1]} and one dB, and two CUDA streams
 * alternate over the blocks (column by column) so that uploads and downloads overlap GEMMs.
 *
 * The plan and the schedule are the thesis's algorithm as plain CPU logic, kept for reference and
 * checked by the tests. fupermod_ooc_dgemm runs on a CUDA executor (fupermod/exec.h): its streamed
 * DGEMM (fupermod_exec_dgemm), which keeps A's rows on the device and overlaps every transfer, does
 * the work, so libfupermod_ooc links no CUDA library; without CUDA in the build or without a
 * device, create reports FUPERMOD_ERR_NODEVICE. */
#ifndef FUPERMOD_OOC_H
#define FUPERMOD_OOC_H

#include <fupermod/fupermod.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* the public API; the libraries build with -fvisibility=hidden */

typedef struct fupermod_ooc_plan {
  long M, N, K;
  long h, v;      /* slices of A (rows) and of B (columns) */
  long mh, nv;    /* largest slices: ceil(M/h) rows, ceil(N/v) columns */
  int in_card;    /* 1: A, B and C fit at once (h = v = 1, one upload each and one GEMM) */
  long elements;  /* device memory the plan uses, in matrix elements */
} fupermod_ooc_plan;

/* Device elements a split needs: in card M K + K N + M N; out of card (Eq. 6.1 with integer
 * slices) 2 ceil(M/h) K + K ceil(N/v) + 2 ceil(M/h) ceil(N/v). -1 on overflow. */
long fupermod_ooc_elements(long M, long N, long K, long h, long v, int in_card);

/* The integer-exact choice for a device of mem elements: in card when everything fits; else the
 * fewest B slices v whose split fits with some h (h >= 2, or 1 when M = 1), then the fewest
 * blocks h v. FUPERMOD_ERR_INFEASIBLE when even one-row, one-column slices do not fit. */
int fupermod_ooc_plan_make(long M, long N, long K, long mem, fupermod_ooc_plan *plan);

/* The thesis's Alg. 9 as printed (fractional M/h in Eq. 6.2): for comparison only, since the
 * split it returns may not fit ([TRAP]: M = 4, N = 4, K = 8, mem 44 gives (3, 2), needing 56). */
int fupermod_ooc_plan_printed(long M, long N, long K, long mem, fupermod_ooc_plan *plan);

/* Slice k of n items cut into parts: floor(n/parts) each, the first n mod parts one more. */
void fupermod_ooc_slice(long n, long parts, long k, long *start, long *len);

/* The stream engine's work as a list of operations in issue order. Each stream runs its
 * operations in order; WAIT makes its stream wait for the latest RECORD of the same event slot
 * issued before it (CUDA's cudaStreamWaitEvent semantics). */
enum fupermod_ooc_opcode {
  FUPERMOD_OOC_UPLOAD_A = 0,   /* rows of slice i of A -> dA[buf] */
  FUPERMOD_OOC_UPLOAD_B = 1,   /* columns of slice j of B -> dB */
  FUPERMOD_OOC_UPLOAD_C = 2,   /* block (i, j) of C -> dC[buf] */
  FUPERMOD_OOC_GEMM = 3,       /* dC[buf] = alpha dA[buf] dB + beta dC[buf] (beta 0 without UPLOAD_C) */
  FUPERMOD_OOC_DOWNLOAD_C = 4, /* dC[buf] -> block (i, j) of C */
  FUPERMOD_OOC_RECORD = 5,     /* record event slot `event` on the stream */
  FUPERMOD_OOC_WAIT = 6        /* the stream waits for event slot `event` */
};

typedef struct fupermod_ooc_op {
  int code;
  int stream; /* 0 or 1 */
  int buf;    /* buffer set 0 or 1 (A and C operations, GEMM) */
  int event;  /* event slot (RECORD, WAIT) */
  long i, j;  /* slice of A / block row, slice of B / block column */
} fupermod_ooc_op;

typedef struct fupermod_ooc_schedule {
  int count;
  fupermod_ooc_op *ops;
  int events;  /* event slots used */
  int streams; /* 1 (in card) or 2 */
} fupermod_ooc_schedule;

/* Blocks in column-major order idx = i + j h on stream idx % 2 with buffer set idx % 2 (Alg. 8
 * with its slips fixed). load_c = 0 (beta = 0) leaves out the C uploads. */
int fupermod_ooc_schedule_make(const fupermod_ooc_plan *plan, int load_c, fupermod_ooc_schedule *s);
void fupermod_ooc_schedule_free(fupermod_ooc_schedule *s);

/* ---- on a GPU ---- */

typedef struct fupermod_ooc_opts {
  int device;       /* CUDA device index */
  double mem_limit; /* device bytes the GEMM may use; <= 0: 90 % of the free memory */
  int synchronous;  /* 1: wait for every operation before issuing the next (no overlap) */
  int no_pin;       /* 1: the host matrices are page-locked already (else they are during a call) */
} fupermod_ooc_opts;

typedef struct fupermod_ooc_stats {
  fupermod_ooc_plan plan; /* the executor's cut: h row blocks, v tiles of columns (mh x nv at most) */
  double time;            /* seconds, transfers included */
  double bytes_up, bytes_down;
} fupermod_ooc_stats;

typedef struct fupermod_ooc fupermod_ooc;

/* A context on one device: a CUDA executor of that device with that memory limit.
 * FUPERMOD_ERR_NODEVICE ("no CUDA device") when the build has no CUDA or no device is usable. */
int fupermod_ooc_create(const fupermod_ooc_opts *opts, fupermod_ooc **out);
void fupermod_ooc_destroy(fupermod_ooc *ctx);

/* C = alpha A B + beta C (column-major, leading dimensions lda >= M, ldb >= K, ldc >= M) through
 * fupermod_exec_dgemm. stats may be NULL. A C that stays on the device across many updates is a
 * GEMM session of the executor (fupermod_exec_gemm_begin). */
int fupermod_ooc_dgemm(fupermod_ooc *ctx, long M, long N, long K, double alpha, const double *A, long lda,
                       const double *B, long ldb, double beta, double *C, long ldc, fupermod_ooc_stats *stats);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
