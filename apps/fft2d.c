/* Heterogeneous row-distributed 2D FFT (apps/fft2d.h, docs/apps.md).
 * FFTW-MPI cannot take uneven row counts, so the distributed transpose is ours, in one of three
 * strategies. The first two exchange contiguous blocks only (MPI_Isend/MPI_Irecv, one message per
 * pair of processes each way):
 *   strided:   A (d x N) --copy--> S (s's block, d x c_s, one after another) --exchange--> T
 *              (M x c): the blocks from every s lie one after another in T, so nothing is unpacked,
 *              and the column FFTs run in place with stride c; on the way back the blocks of T go
 *              to S and are copied into A. My own block is copied straight between A and T;
 *   transpose: the same exchange, then FFTW local transposes T (M x c) <-> U (c x M) around
 *              contiguous column FFTs;
 *   shared:    every rank's columns live in one MPI-3 shared-memory window (all processes on one
 *              node), as PANEL-wide column panels (M x PANEL, row-major, one after another): each
 *              process copies its row segments straight into the others' panels and later copies
 *              its rows back out, so every element crosses memory once each way, copied by the
 *              process that owns the rows (work proportional to its share, as in the models),
 *              where MPI's shared-memory transport copies it two or three times.
 * Why contiguous blocks: over TCP, Open MPI sends and receives a contiguous buffer directly, and
 * a derived datatype through 128 KiB fragments packed and unpacked by the library. Receiving 16
 * MiB between two nodes with a vector datatype took 20-37 ms against 13-18 ms contiguous, and
 * copying it into blocks here costs 4 ms (bench/fft2d, docs/performance.md).
 * Strided column FFTs over a whole T are 5-10x slower with FFTW_ESTIMATE plans at N = 2048-4096
 * (power-of-two strides alias in the caches) and only competitive with FFTW_MEASURE. Within a
 * 4-wide panel a row is one 64-byte cache line, and ESTIMATE plans of the panel's column FFTs run
 * as fast as contiguous row FFTs (bench/fft_panels), so the shared strategy needs no measuring
 * planner: AUTO takes it on one node; across nodes it takes transpose for ESTIMATE and otherwise
 * times transpose and strided, as FFTW would. */
#include <fftw3.h>
#include <limits.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "apps/apps.h"
#include "apps/fft2d.h"

/* Shared strategy: columns per panel. 4 complex = 64 bytes, one cache line per panel row; 2-4
 * ran as fast as contiguous FFTs with ESTIMATE plans, 16 was 2x slower. */
#define PANEL 4

struct fupermod_fft2d {
  MPI_Comm comm;
  int rank, size, threads, strategy;
  long M, N;
  long *roff, *coff; /* first row / column of each rank, size + 1 entries */
  long d, c;         /* local rows and columns */
  fftw_complex *A;   /* own d x N row block */
  fftw_complex *S;   /* transpose, strided: A cut into one d x c_s block per destination s, in order */
  fftw_complex *T;   /* transpose, strided: my columns of the whole signal, M x c, row-major */
  fftw_complex *Y;   /* where the column FFTs run: transpose c x M (U), strided T itself,
                      * shared: ceil(c / PANEL) panels of M x PANEL (the last M x c % PANEL) */
  fftw_plan row_fwd, row_bwd, col_fwd, col_bwd, tr_TU, tr_UT;
  fftw_plan tail_fwd, tail_bwd; /* shared: the last, narrower panel's column FFTs (c % PANEL) */
  MPI_Win win;          /* shared: the window holding every rank's T */
  fftw_complex **peerY; /* shared: each rank's T, in this process's address space */
  int *cntX, *cntY;     /* rows in the block to / from each rank (0: no message) */
  MPI_Datatype *typeX;  /* row side: one row of s's block of S (c_s complex numbers) */
  MPI_Datatype *typeY;  /* column side: one row of s's block of T (c complex numbers) */
  MPI_Request *req;     /* 2 (size - 1) */
  MPI_Datatype cplx;
  int types_ready; /* typeX/typeY hold valid handles or MPI_DATATYPE_NULL */
  double stamp[5]; /* the last execute's phase boundaries: rows, transpose, cols, transpose back */
  fupermod_exec *exec; /* a GPU executor that runs this process's FFTs (NULL: FFTW's plans here) */
  int alone, owner;    /* one process with a GPU executor holds every row and column: it does all */
  double copied, back; /* the last execute's end of own copies before the first fence or exchange,
                        * start of own copies back after the second */
  double cpu[2];   /* this thread's CPU seconds in the row and column phases (not FFTW's threads) */
};

static int threads_ready = 0;

/* Agree on a status over comm: the lowest failing rank's status and message everywhere. */
static int agree(MPI_Comm comm, int rc) { return fupermod_agree(rc, comm); }

static int check_dist(const fupermod_dist *dist, int size, long D, const char *what) {
  long sum = 0;
  if (dist->size != size)
    return fupermod_error(FUPERMOD_ERR_USAGE, "fft2d: %s distribution has %d parts for %d processes", what,
                          dist->size, size);
  if (dist->D != D)
    return fupermod_error(FUPERMOD_ERR_USAGE, "fft2d: %s distribution has D = %ld, expected %ld", what, dist->D, D);
  for (int i = 0; i < size; i++) {
    if (dist->parts[i].d < 0)
      return fupermod_error(FUPERMOD_ERR_USAGE, "fft2d: %s distribution part %d is negative (%ld)", what, i,
                            dist->parts[i].d);
    sum += dist->parts[i].d;
  }
  if (sum != D)
    return fupermod_error(FUPERMOD_ERR_USAGE, "fft2d: %s distribution sums to %ld, expected %ld", what, sum, D);
  return FUPERMOD_SUCCESS;
}

/* Every rank must pass the same sizes and distributions: compare with rank 0's. */
static int check_same(fupermod_fft2d *p) {
  size_t n = 2 + 2 * (size_t)(p->size + 1);
  long *mine = malloc(n * sizeof *mine), *root = malloc(n * sizeof *root);
  int rc = FUPERMOD_SUCCESS;
  if (!mine || !root) {
    free(mine);
    free(root);
    return agree(p->comm, fupermod_error(FUPERMOD_ERR_NOMEM, "fft2d: out of memory"));
  }
  mine[0] = p->M;
  mine[1] = p->N;
  memcpy(mine + 2, p->roff, (size_t)(p->size + 1) * sizeof(long));
  memcpy(mine + 3 + p->size, p->coff, (size_t)(p->size + 1) * sizeof(long));
  memcpy(root, mine, n * sizeof *root);
  if (MPI_Bcast(root, (int)n, MPI_LONG, 0, p->comm) != MPI_SUCCESS)
    rc = fupermod_error(FUPERMOD_ERR_MPI, "fft2d: MPI_Bcast failed");
  else if (memcmp(root, mine, n * sizeof *root) != 0)
    rc = fupermod_error(FUPERMOD_ERR_USAGE,
                        "fft2d: rank %d passed sizes or distributions different from rank 0's (M, N, rows, cols "
                        "must be the same everywhere)", p->rank);
  free(mine);
  free(root);
  return agree(p->comm, rc);
}

/* Every block is sent as rows, so that no count exceeds the sizes checked at planning. */
static int make_types(fupermod_fft2d *p) {
  if (MPI_Type_contiguous(2, MPI_DOUBLE, &p->cplx) != MPI_SUCCESS || MPI_Type_commit(&p->cplx) != MPI_SUCCESS)
    return fupermod_error(FUPERMOD_ERR_MPI, "fft2d: cannot create the complex datatype");
  for (int s = 0; s < p->size; s++) {
    long ds = p->roff[s + 1] - p->roff[s], cs = p->coff[s + 1] - p->coff[s];
    p->cntX[s] = p->d > 0 && cs > 0 ? (int)p->d : 0;
    p->cntY[s] = ds > 0 && p->c > 0 ? (int)ds : 0;
    if (s == p->rank) continue; /* copied, not sent */
    if ((p->cntX[s] && (MPI_Type_contiguous((int)cs, p->cplx, &p->typeX[s]) != MPI_SUCCESS ||
                        MPI_Type_commit(&p->typeX[s]) != MPI_SUCCESS)) ||
        (p->cntY[s] && (MPI_Type_contiguous((int)p->c, p->cplx, &p->typeY[s]) != MPI_SUCCESS ||
                        MPI_Type_commit(&p->typeY[s]) != MPI_SUCCESS)))
      return fupermod_error(FUPERMOD_ERR_MPI, "fft2d: cannot create the block datatypes for rank %d", s);
  }
  return FUPERMOD_SUCCESS;
}

static int make_plans_threaded(fupermod_fft2d *p, unsigned flags) {
  int n, tr = p->strategy == FUPERMOD_FFT2D_TRANSPOSE;
  if (p->d > 0) {
    n = (int)p->N;
    p->row_fwd = fftw_plan_many_dft(1, &n, (int)p->d, p->A, NULL, 1, n, p->A, NULL, 1, n, FFTW_FORWARD, flags);
    p->row_bwd = fftw_plan_many_dft(1, &n, (int)p->d, p->A, NULL, 1, n, p->A, NULL, 1, n, FFTW_BACKWARD, flags);
    if (!p->row_fwd || !p->row_bwd)
      return fupermod_error(FUPERMOD_ERR_SYSTEM, "fft2d: FFTW could not plan %ld row FFTs of length %ld (flags %#x)",
                            p->d, p->N, flags);
  }
  if (p->c > 0 && p->strategy == FUPERMOD_FFT2D_SHARED) {
    /* the same plans for every panel, moved there by fftw_execute_dft (panels are 64-byte aligned);
     * one thread each: the process's threads take whole panels (execute), where threaded plans
     * would synchronise their threads on every 4-column panel */
    int w[2] = {p->c >= PANEL ? PANEL : 0, (int)(p->c % PANEL)};
    fftw_plan *fw[2] = {&p->col_fwd, &p->tail_fwd}, *bw[2] = {&p->col_bwd, &p->tail_bwd};
    fftw_plan_with_nthreads(1);
    n = (int)p->M;
    for (int k = 0; k < 2; k++) {
      fftw_complex *at = p->Y + (k ? (size_t)(p->c / PANEL) * PANEL * (size_t)p->M : 0);
      if (!w[k]) continue;
      *fw[k] = fftw_plan_many_dft(1, &n, w[k], at, NULL, w[k], 1, at, NULL, w[k], 1, FFTW_FORWARD, flags);
      *bw[k] = fftw_plan_many_dft(1, &n, w[k], at, NULL, w[k], 1, at, NULL, w[k], 1, FFTW_BACKWARD, flags);
      if (!*fw[k] || !*bw[k])
        return fupermod_error(FUPERMOD_ERR_SYSTEM, "fft2d: FFTW could not plan %d column FFTs of length %ld (flags %#x)",
                              w[k], p->M, flags);
    }
  } else if (p->c > 0) {
    int c = (int)p->c;
    n = (int)p->M;
    /* U: c contiguous transforms; T: c interleaved transforms (stride c, adjacent starts) */
    p->col_fwd = fftw_plan_many_dft(1, &n, c, p->Y, NULL, tr ? 1 : c, tr ? n : 1, p->Y, NULL, tr ? 1 : c, tr ? n : 1,
                                    FFTW_FORWARD, flags);
    p->col_bwd = fftw_plan_many_dft(1, &n, c, p->Y, NULL, tr ? 1 : c, tr ? n : 1, p->Y, NULL, tr ? 1 : c, tr ? n : 1,
                                    FFTW_BACKWARD, flags);
    if (!p->col_fwd || !p->col_bwd)
      return fupermod_error(FUPERMOD_ERR_SYSTEM,
                            "fft2d: FFTW could not plan %ld column FFTs of length %ld (flags %#x)", p->c, p->M, flags);
    if (tr) {
      /* rank-0 transforms with two loops are FFTW's transposes */
      fftw_iodim tu[2] = {{n, c, 1}, {c, 1, n}}, ut[2] = {{c, n, 1}, {n, 1, c}};
      p->tr_TU = fftw_plan_guru_dft(0, NULL, 2, tu, p->T, p->Y, FFTW_FORWARD, flags);
      p->tr_UT = fftw_plan_guru_dft(0, NULL, 2, ut, p->Y, p->T, FFTW_FORWARD, flags);
      if (!p->tr_TU || !p->tr_UT)
        return fupermod_error(FUPERMOD_ERR_SYSTEM, "fft2d: FFTW could not plan the %ld x %ld local transposes", p->M,
                              p->c);
    }
  }
  return FUPERMOD_SUCCESS;
}

/* the planner's thread count is process-wide: set it for these plans (a plan keeps its count)
 * and give the caller back its own, as the fft-rows kernel does */
static int make_plans(fupermod_fft2d *p, unsigned flags) {
  int saved = fftw_planner_nthreads(), rc;
  fftw_plan_with_nthreads(p->threads);
  rc = make_plans_threaded(p, flags);
  fftw_plan_with_nthreads(saved);
  return rc;
}

/* Shared strategy: every rank's T (M x c) in one shared-memory window, page-aligned segments
 * (alloc_shared_noncontig) first touched by their owner (the memset in setup). The window stays
 * in a passive epoch for the plan's life; execute synchronises with MPI_Win_sync + barriers. */
static int shared_alloc(fupermod_fft2d *p) {
  MPI_Info info;
  MPI_Aint bytes = (MPI_Aint)((size_t)p->M * (size_t)p->c * sizeof(fftw_complex)), got;
  int unit, e;
  void *base = NULL;
  if (!(p->peerY = calloc((size_t)p->size, sizeof *p->peerY))) return fupermod_error(FUPERMOD_ERR_NOMEM, "fft2d: out of memory");
  MPI_Info_create(&info);
  MPI_Info_set(info, "alloc_shared_noncontig", "true");
  e = MPI_Win_allocate_shared(bytes, (int)sizeof(fftw_complex), info, p->comm, &base, &p->win);
  MPI_Info_free(&info);
  if (e != MPI_SUCCESS) {
    p->win = MPI_WIN_NULL;
    return fupermod_error(FUPERMOD_ERR_NOMEM, "fft2d: cannot allocate the %ld x %ld column block in shared memory", p->c,
                          p->M);
  }
  MPI_Win_set_errhandler(p->win, MPI_ERRORS_RETURN);
  for (int s = 0; s < p->size; s++)
    if (MPI_Win_shared_query(p->win, s, &got, &unit, &p->peerY[s]) != MPI_SUCCESS)
      return fupermod_error(FUPERMOD_ERR_MPI, "fft2d: MPI_Win_shared_query failed for rank %d", s);
  p->Y = p->c > 0 ? p->peerY[p->rank] : NULL;
  if (MPI_Win_lock_all(MPI_MODE_NOCHECK, p->win) != MPI_SUCCESS)
    return fupermod_error(FUPERMOD_ERR_MPI, "fft2d: MPI_Win_lock_all failed");
  return FUPERMOD_SUCCESS;
}

/* Shared strategy: rows to columns (to_cols) copies my row segments into every rank's panels;
 * columns to rows copies them back. My rows of each panel are mine alone, so no two processes ever
 * write the same bytes, and panels are only transformed between execute's two fences. Blocks of
 * ROWS rows keep the rows being read in the caches while one panel after another is written.
 * (Copying transposed into a U, for contiguous column FFTs, was tried: the tiled transposing
 * copies cost more than the strided FFTs saved.) */
#define ROWS 32
static void shared_copy(fupermod_fft2d *p, fftw_complex *A, int to_cols) {
  long r0 = p->roff[p->rank], N = p->N, M = p->M;
  /* blocks of rows write disjoint parts of every panel */
#pragma omp parallel for num_threads(p->threads) schedule(static) if (p->threads > 1 && p->d > ROWS)
  for (long i0 = 0; i0 < p->d; i0 += ROWS) {
    long i1 = p->d - i0 < ROWS ? p->d : i0 + ROWS;
    for (int s = 0; s < p->size; s++) {
      long cs = p->coff[s + 1] - p->coff[s];
      for (long j = 0; j < cs; j += PANEL) {
        long w = cs - j < PANEL ? cs - j : PANEL;
        fftw_complex *row = A + (size_t)i0 * (size_t)N + p->coff[s] + j;
        fftw_complex *t = p->peerY[s] + (size_t)j * (size_t)M + (size_t)(r0 + i0) * (size_t)w;
        if (w == PANEL) {
          /* constant size: the compiler inlines the 64-byte copies */
          for (long i = i0; i < i1; i++, row += N, t += PANEL)
            if (to_cols) memcpy(t, row, PANEL * sizeof(fftw_complex));
            else memcpy(row, t, PANEL * sizeof(fftw_complex));
        } else {
          for (long i = i0; i < i1; i++, row += N, t += w)
            if (to_cols) memcpy(t, row, (size_t)w * sizeof(fftw_complex));
            else memcpy(row, t, (size_t)w * sizeof(fftw_complex));
        }
      }
    }
  }
}

/* Shared strategy: make every rank's copies visible to every other (MPI-3 separate-memory
 * synchronisation: sync, barrier, sync). (A barrier that naps instead of spinning was tried, so
 * that sharers of a core leave it to the last copier: the late wake-ups cost more, model/even
 * 1.25-1.33 against 1.36-1.45 in alternating runs of bench/fft2d.) */
static int shared_fence(fupermod_fft2d *p) {
  /* a process without rows or columns sleeps in it (it leaves a shared core to those computing) */
  if (MPI_Win_sync(p->win) != MPI_SUCCESS || fupermod_barrier_idle(p->comm, p->d == 0 && p->c == 0) != FUPERMOD_SUCCESS ||
      MPI_Win_sync(p->win) != MPI_SUCCESS)
    return fupermod_error(FUPERMOD_ERR_MPI, "fft2d: shared-memory synchronisation failed");
  return FUPERMOD_SUCCESS;
}

/* Copies of row blocks at least this large use non-temporal stores, which do not read the
 * destination into the caches first: copying 8-128 MiB into blocks took 20-28 % less time
 * (2.6 against 3.7 ms at 32 MiB), and 2 MiB as long as memcpy. */
#define STREAM_BYTES (4u << 20)
#ifdef __SSE2__
#include <emmintrin.h>
static void copy_run(fftw_complex *to, const fftw_complex *from, long n, int stream) {
  if (!stream) {
    memcpy(to, from, (size_t)n * sizeof(fftw_complex));
    return;
  }
  /* complex numbers are 16 bytes and the buffers fftw_malloc-aligned (execute checks user data) */
  for (long k = 0; k < n; k++) _mm_stream_pd(to[k], _mm_loadu_pd(from[k]));
}
static void stream_fence(void) { _mm_sfence(); }
#else
static void copy_run(fftw_complex *to, const fftw_complex *from, long n, int stream) {
  (void)stream;
  memcpy(to, from, (size_t)n * sizeof(fftw_complex));
}
static void stream_fence(void) {}
#endif

/* Transpose, strided: rows to blocks (out) copies each row's segment for s into s's block of S,
 * and my own segment straight into T; the other way (!out) copies them back. Each thread reads
 * whole rows of A once. */
static void block_copy(fupermod_fft2d *p, fftw_complex *A, int out) {
  long d = p->d, N = p->N, c = p->c, r0 = p->roff[p->rank];
  int stream = (size_t)d * (size_t)N * sizeof(fftw_complex) >= STREAM_BYTES;
  fftw_complex *S = p->S, *T = p->T;
  const long *coff = p->coff;
  int size = p->size, me = p->rank;
#pragma omp parallel num_threads(p->threads) if (p->threads > 1 && d > 1)
  {
#pragma omp for schedule(static) nowait
    for (long i = 0; i < d; i++)
      for (int s = 0; s < size; s++) {
        long cs = coff[s + 1] - coff[s];
        fftw_complex *row = A + (size_t)i * (size_t)N + coff[s];
        fftw_complex *blk = s == me ? T + (size_t)(r0 + i) * (size_t)c : S + (size_t)d * (size_t)coff[s] + (size_t)i * (size_t)cs;
        if (cs == 0) continue;
        if (out) copy_run(blk, row, cs, stream);
        else copy_run(row, blk, cs, stream);
      }
    if (stream) stream_fence(); /* every thread's streamed stores, before the region's barrier */
  }
}

/* Transpose, strided: send every block of S to its rank and receive s's rows of my columns at
 * row R_s of T (to_cols), or the reverse. Rank r sends first to r + 1, r + 2, ... so that the
 * ranks do not all start on the same destination. */
static int exchange(fupermod_fft2d *p, int to_cols) {
  int n = 0, e = MPI_SUCCESS, tag = to_cols ? 1 : 2;
  for (int k = 1; k < p->size; k++) {
    int s = (p->rank + p->size - k) % p->size;
    if (to_cols && p->cntY[s] && e == MPI_SUCCESS)
      e = MPI_Irecv(p->T + (size_t)p->roff[s] * (size_t)p->c, p->cntY[s], p->typeY[s], s, tag, p->comm, &p->req[n++]);
    else if (!to_cols && p->cntX[s] && e == MPI_SUCCESS)
      e = MPI_Irecv(p->S + (size_t)p->d * (size_t)p->coff[s], p->cntX[s], p->typeX[s], s, tag, p->comm, &p->req[n++]);
  }
  for (int k = 1; k < p->size; k++) {
    int s = (p->rank + k) % p->size;
    if (to_cols && p->cntX[s] && e == MPI_SUCCESS)
      e = MPI_Isend(p->S + (size_t)p->d * (size_t)p->coff[s], p->cntX[s], p->typeX[s], s, tag, p->comm, &p->req[n++]);
    else if (!to_cols && p->cntY[s] && e == MPI_SUCCESS)
      e = MPI_Isend(p->T + (size_t)p->roff[s] * (size_t)p->c, p->cntY[s], p->typeY[s], s, tag, p->comm, &p->req[n++]);
  }
  if (e != MPI_SUCCESS) n--; /* the failed call set no request */
  if (MPI_Waitall(n, p->req, MPI_STATUSES_IGNORE) != MPI_SUCCESS || e != MPI_SUCCESS)
    return fupermod_error(FUPERMOD_ERR_MPI, "fft2d: the exchange %s failed", to_cols ? "from rows to columns" : "from columns to rows");
  return FUPERMOD_SUCCESS;
}

/* 1 when every process of comm shares memory with every other (one node), else 0; collective. */
static int one_node(MPI_Comm comm, int *yes) {
  MPI_Comm node;
  int n, size;
  *yes = 0;
#ifdef FUPERMOD_SMPI
  /* SMPI: no shared-memory windows; AUTO takes a message strategy (docs/simulate.md) */
  return FUPERMOD_SUCCESS;
#endif
  if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) != MPI_SUCCESS)
    return fupermod_error(FUPERMOD_ERR_MPI, "fft2d: MPI_Comm_split_type failed");
  MPI_Comm_size(node, &n);
  MPI_Comm_size(comm, &size);
  MPI_Comm_free(&node);
  *yes = n == size;
  return FUPERMOD_SUCCESS;
}

/* The local part of setup: offsets, row buffers. */
static int setup_local(fupermod_fft2d *p, long M, long N, const fupermod_dist *rows, const fupermod_dist *cols) {
  int rc;
  size_t np1 = (size_t)p->size + 1;
  p->roff = calloc(np1, sizeof(long));
  p->coff = calloc(np1, sizeof(long));
  p->cntX = calloc((size_t)p->size, sizeof(int));
  p->cntY = calloc((size_t)p->size, sizeof(int));
  p->req = calloc(2 * (size_t)p->size, sizeof(MPI_Request));
  p->typeX = calloc((size_t)p->size, sizeof(MPI_Datatype));
  p->typeY = calloc((size_t)p->size, sizeof(MPI_Datatype));
  if (!p->roff || !p->coff || !p->cntX || !p->cntY || !p->req || !p->typeX || !p->typeY)
    return fupermod_error(FUPERMOD_ERR_NOMEM, "fft2d: out of memory");
  for (int s = 0; s < p->size; s++) p->typeX[s] = p->typeY[s] = MPI_DATATYPE_NULL;
  p->types_ready = 1;
  if ((rc = fupermod_dist_offsets(rows, p->roff)) != FUPERMOD_SUCCESS) return rc;
  if (cols) {
    if ((rc = fupermod_dist_offsets(cols, p->coff)) != FUPERMOD_SUCCESS) return rc;
  } else {
    /* Proportional to rows, in exact integer arithmetic (N R_r <= N M < 2^62: M, N <= INT_MAX). */
    for (int s = 0; s <= p->size; s++) p->coff[s] = N * p->roff[s] / M;
  }
  p->d = p->roff[p->rank + 1] - p->roff[p->rank];
  p->c = p->coff[p->rank + 1] - p->coff[p->rank];
  if (p->d > 0 && (!(p->A = fftw_alloc_complex((size_t)p->d * (size_t)N)) ||
                   (p->strategy != FUPERMOD_FFT2D_SHARED && !(p->S = fftw_alloc_complex((size_t)p->d * (size_t)N)))))
    return fupermod_error(FUPERMOD_ERR_NOMEM, "fft2d: cannot allocate %ld x %ld local rows", p->d, N);
  return FUPERMOD_SUCCESS;
}

static int setup(fupermod_fft2d *p, long M, long N, const fupermod_dist *rows, const fupermod_dist *cols,
                 unsigned flags) {
  int rc = setup_local(p, M, N, rows, cols);
  if (p->strategy == FUPERMOD_FFT2D_SHARED) {
    /* collective: only when every rank got this far, and agreed, so that a failure cannot leave
     * one rank outside MPI_Win_allocate_shared or MPI_Win_free */
    if ((rc = agree(p->comm, rc)) == FUPERMOD_SUCCESS) rc = agree(p->comm, shared_alloc(p));
    if (rc != FUPERMOD_SUCCESS) return rc;
  } else if (rc != FUPERMOD_SUCCESS) {
    return rc;
  } else if (p->c > 0 && (!(p->T = fftw_alloc_complex((size_t)M * (size_t)p->c)) ||
                          !(p->Y = p->strategy == FUPERMOD_FFT2D_STRIDED ? p->T
                                                                         : fftw_alloc_complex((size_t)M * (size_t)p->c))))
    return fupermod_error(FUPERMOD_ERR_NOMEM, "fft2d: cannot allocate the %ld x %ld column block", p->c, M);
  if (p->T && p->T != p->Y) memset(p->T, 0, (size_t)M * (size_t)p->c * sizeof(fftw_complex));
  if (p->A) memset(p->A, 0, (size_t)p->d * (size_t)N * sizeof(fftw_complex));
  if (p->S) memset(p->S, 0, (size_t)p->d * (size_t)N * sizeof(fftw_complex));
  if (p->Y) memset(p->Y, 0, (size_t)M * (size_t)p->c * sizeof(fftw_complex));
  if (p->strategy != FUPERMOD_FFT2D_SHARED && (rc = make_types(p)) != FUPERMOD_SUCCESS) return rc;
  return make_plans(p, flags);
}

static int plan_one(MPI_Comm comm, long M, long N, const fupermod_dist *rows, const fupermod_dist *cols,
                    int threads, unsigned fftw_flags, int strategy, fupermod_fft2d **plan) {
  fupermod_fft2d *p;
  int rc = FUPERMOD_SUCCESS, size, rank;
  if (!plan) return fupermod_error(FUPERMOD_ERR_USAGE, "fft2d: plan is NULL");
  *plan = NULL;
  if (comm == MPI_COMM_NULL) return fupermod_error(FUPERMOD_ERR_USAGE, "fft2d: comm is MPI_COMM_NULL");
  if (MPI_Comm_size(comm, &size) != MPI_SUCCESS || MPI_Comm_rank(comm, &rank) != MPI_SUCCESS)
    return fupermod_error(FUPERMOD_ERR_MPI, "fft2d: invalid communicator");
  /* Local argument checks, then one agreement so that no rank is left waiting. */
  if (M < 1 || N < 1)
    rc = fupermod_error(FUPERMOD_ERR_USAGE, "fft2d: M and N must be >= 1 (got M = %ld, N = %ld)", M, N);
  else if (M > INT_MAX || N > INT_MAX)
    rc = fupermod_error(FUPERMOD_ERR_USAGE, "fft2d: M = %ld and N = %ld must each be at most %d", M, N, INT_MAX);
  else if (!rows)
    rc = fupermod_error(FUPERMOD_ERR_USAGE, "fft2d: the row distribution is NULL");
  else if (threads < 1)
    rc = fupermod_error(FUPERMOD_ERR_USAGE, "fft2d: threads must be >= 1 (got %d)", threads);
  else if (strategy < FUPERMOD_FFT2D_AUTO || strategy > FUPERMOD_FFT2D_SHARED)
    rc = fupermod_error(FUPERMOD_ERR_USAGE,
                        "fft2d: strategy must be FUPERMOD_FFT2D_AUTO, _TRANSPOSE, _STRIDED, _SHARED or _TIMED (got %d)", strategy);
  else if ((rc = check_dist(rows, size, M, "row")) == FUPERMOD_SUCCESS && cols)
    rc = check_dist(cols, size, N, "column");
  if (rc == FUPERMOD_SUCCESS) {
    /* Block sizes become int datatype counts: each rank's panel sizes must fit. */
    for (int s = 0; s < size && rc == FUPERMOD_SUCCESS; s++)
      if (rows->parts[s].d > INT_MAX || (cols && cols->parts[s].d > INT_MAX))
        rc = fupermod_error(FUPERMOD_ERR_USAGE, "fft2d: part %d is larger than %d", s, INT_MAX);
  }
  if ((rc = agree(comm, rc)) != FUPERMOD_SUCCESS) return rc;
  if (strategy == FUPERMOD_FFT2D_SHARED) {
    int yes;
    if ((rc = one_node(comm, &yes)) == FUPERMOD_SUCCESS && !yes)
      rc = fupermod_error(FUPERMOD_ERR_USAGE, "fft2d: the shared strategy needs every process on one node (these %d "
                                              "processes span several); use FUPERMOD_FFT2D_AUTO", size);
    if ((rc = agree(comm, rc)) != FUPERMOD_SUCCESS) return rc;
  }

  if (!(p = calloc(1, sizeof *p))) rc = fupermod_error(FUPERMOD_ERR_NOMEM, "fft2d: out of memory");
  if ((rc = agree(comm, rc)) != FUPERMOD_SUCCESS) return rc;
  p->size = size;
  p->rank = rank;
  p->threads = threads;
  p->strategy = strategy;
  p->M = M;
  p->N = N;
  p->cplx = MPI_DATATYPE_NULL;
  p->comm = MPI_COMM_NULL;
  p->win = MPI_WIN_NULL;
  if (MPI_Comm_dup(comm, &p->comm) != MPI_SUCCESS) {
    free(p);
    return fupermod_error(FUPERMOD_ERR_MPI, "fft2d: MPI_Comm_dup failed");
  }
  MPI_Comm_set_errhandler(p->comm, MPI_ERRORS_RETURN);
  /* FFTW's planner is global state: initialise threads once, plan one process at a time
   * within a process (the caller is single-threaded here). */
  if (!threads_ready) {
    if (!fftw_init_threads()) rc = fupermod_error(FUPERMOD_ERR_SYSTEM, "fft2d: fftw_init_threads failed");
    else threads_ready = 1;
  }
  if (rc == FUPERMOD_SUCCESS) rc = setup(p, M, N, rows, cols, fftw_flags);
  if ((rc = agree(p->comm, rc)) == FUPERMOD_SUCCESS) rc = check_same(p);
  if (rc != FUPERMOD_SUCCESS) {
    fupermod_fft2d_destroy(p);
    return rc;
  }
  *plan = p;
  return FUPERMOD_SUCCESS;
}

/* Best of three forward transforms, the slowest process's time, on the plan's own block. */
static int time_plan(fupermod_fft2d *p, double *best) {
  int rc = FUPERMOD_SUCCESS;
  *best = INFINITY;
  /* run 0 is a warm-up: it pays the first touch of freshly allocated buffers */
  for (int r = 0; r < 4 && rc == FUPERMOD_SUCCESS; r++) {
    double t0, t;
    MPI_Barrier(p->comm);
    t0 = fupermod_time();
    rc = fupermod_fft2d_execute(p, FUPERMOD_FFT2D_FORWARD, NULL);
    t = fupermod_time() - t0;
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, p->comm);
    if (r > 0 && t < *best) *best = t;
  }
  return rc;
}

int fupermod_fft2d_plan_strategy(MPI_Comm comm, long M, long N, const fupermod_dist *rows, const fupermod_dist *cols,
                                 int threads, unsigned fftw_flags, int strategy, fupermod_fft2d **plan) {
  double t[FUPERMOD_FFT2D_SHARED + 1];
  int rc, last = FUPERMOD_FFT2D_STRIDED, best = FUPERMOD_FFT2D_TRANSPOSE, yes = 0;
  if (!plan) return fupermod_error(FUPERMOD_ERR_USAGE, "fft2d: plan is NULL");
  if (strategy != FUPERMOD_FFT2D_AUTO && strategy != FUPERMOD_FFT2D_TIMED)
    return plan_one(comm, M, N, rows, cols, threads, fftw_flags, strategy, plan);
  if (comm != MPI_COMM_NULL && (rc = agree(comm, one_node(comm, &yes))) != FUPERMOD_SUCCESS) return rc;
  /* AUTO on one node: shared with any planner. It moves each element once each way, where MPI
   * moves it two or three times, and its panel FFTs run as fast as contiguous ones even with
   * ESTIMATE plans. (Timing it against the others, best of three, picked strided for 4 of 10
   * variants in bench/fft2d on shared cores; those runs had model/even 1.03-1.30, against
   * 1.23-1.45 where shared was used for both.) Across nodes: transpose for ESTIMATE (strided
   * column FFTs need measured plans), else timed. */
  if (strategy == FUPERMOD_FFT2D_AUTO && (yes || (fftw_flags & FFTW_ESTIMATE)))
    return plan_one(comm, M, N, rows, cols, threads, fftw_flags,
                    yes ? FUPERMOD_FFT2D_SHARED : FUPERMOD_FFT2D_TRANSPOSE, plan);
  if (yes) last = FUPERMOD_FFT2D_SHARED;
  /* Time each, one at a time to bound the memory; FFTW's wisdom makes the final re-plan cheap.
   * The timings are the same on every rank, so every rank picks the same strategy. */
  for (int s = FUPERMOD_FFT2D_TRANSPOSE; s <= last; s++) {
    if ((rc = plan_one(comm, M, N, rows, cols, threads, fftw_flags, s, plan)) != FUPERMOD_SUCCESS) return rc;
    rc = time_plan(*plan, &t[s]);
    fupermod_fft2d_destroy(*plan);
    *plan = NULL;
    if (rc != FUPERMOD_SUCCESS) return rc;
    if (t[s] < t[best]) best = s;
  }
  return plan_one(comm, M, N, rows, cols, threads, fftw_flags, best, plan);
}

const char *fupermod_fft2d_strategy_name(int strategy) {
  switch (strategy) {
  case FUPERMOD_FFT2D_AUTO: return "auto";
  case FUPERMOD_FFT2D_TRANSPOSE: return "transpose";
  case FUPERMOD_FFT2D_STRIDED: return "strided";
  case FUPERMOD_FFT2D_SHARED: return "shared";
  case FUPERMOD_FFT2D_TIMED: return "timed";
  default: return "unknown";
  }
}

int fupermod_fft2d_plan(MPI_Comm comm, long M, long N, const fupermod_dist *rows, const fupermod_dist *cols,
                        int threads, unsigned fftw_flags, fupermod_fft2d **plan) {
  return fupermod_fft2d_plan_strategy(comm, M, N, rows, cols, threads, fftw_flags, FUPERMOD_FFT2D_AUTO, plan);
}

int fupermod_fft2d_plan_exec(MPI_Comm comm, long M, long N, const fupermod_dist *rows, const fupermod_dist *cols,
                             fupermod_exec *exec, unsigned fftw_flags, int strategy, fupermod_fft2d **plan) {
  int rc = fupermod_fft2d_plan_strategy(comm, M, N, rows, cols, exec ? fupermod_exec_threads(exec) : 1, fftw_flags,
                                        strategy, plan),
      erc = 0;
  fupermod_fft2d *p = rc == FUPERMOD_SUCCESS ? *plan : NULL;
#ifdef FUPERMOD_SMPI
  /* SMPI: every executor is the emulated device, which takes the FFTs' simulated time */
  if (p && exec) {
#else
  if (p && exec && fupermod_exec_kind(exec) != FUPERMOD_EXEC_CPU) {
#endif
    /* the signal and the column panels move to the device: page-locked */
    p->exec = exec;
    if (p->A) erc = fupermod_exec_pin(exec, p->A, (size_t)p->d * (size_t)p->N * sizeof(fftw_complex));
    if (erc == FUPERMOD_SUCCESS && p->Y) erc = fupermod_exec_pin(exec, p->Y, (size_t)p->M * (size_t)p->c * sizeof(fftw_complex));
  }
  if (p) {
    p->owner = p->exec && p->d == p->M && p->c == p->N;
    MPI_Allreduce(&p->owner, &p->alone, 1, MPI_INT, MPI_SUM, p->comm);
  }
  if (p && (rc = agree(p->comm, erc)) != FUPERMOD_SUCCESS) {
    fupermod_fft2d_destroy(p);
    *plan = NULL;
  }
  return rc;
}

int fupermod_fft2d_strategy(const fupermod_fft2d *plan) { return plan ? plan->strategy : FUPERMOD_FFT2D_AUTO; }

double *fupermod_fft2d_local(fupermod_fft2d *plan) { return plan ? (double *)plan->A : NULL; }

long fupermod_fft2d_local_rows(const fupermod_fft2d *plan, long *first_row) {
  if (!plan) return 0;
  if (first_row) *first_row = plan->roff[plan->rank];
  return plan->d;
}

long fupermod_fft2d_local_cols(const fupermod_fft2d *plan, long *first_col) {
  if (!plan) return 0;
  if (first_col) *first_col = plan->coff[plan->rank];
  return plan->c;
}

/* The column FFTs through the executor, in the layout the strategy left them: panels of PANEL
 * interleaved columns (and a narrower tail), M x c row-major (strided), or c x M (transposed). */
static int exec_columns(fupermod_fft2d *p, int sign) {
  int rc = FUPERMOD_SUCCESS;
  if (p->strategy == FUPERMOD_FFT2D_SHARED) {
    long full = p->c / PANEL, tail = p->c % PANEL;
    fupermod_exec_fft_layout panels = {p->M, PANEL, PANEL, 1, full, p->M * PANEL}, last = {p->M, tail, tail, 1, 1, 0};
    if (full > 0) rc = fupermod_exec_fft(p->exec, &panels, (double *)p->Y, sign);
    if (rc == FUPERMOD_SUCCESS && tail > 0)
      rc = fupermod_exec_fft(p->exec, &last, (double *)(p->Y + (size_t)full * PANEL * (size_t)p->M), sign);
  } else {
    int tr = p->strategy == FUPERMOD_FFT2D_TRANSPOSE;
    fupermod_exec_fft_layout cols = {p->M, p->c, tr ? 1 : p->c, tr ? p->M : 1, 1, 0};
    if (p->tr_TU) fftw_execute(p->tr_TU);
    rc = fupermod_exec_fft(p->exec, &cols, (double *)p->Y, sign);
    if (p->tr_UT) fftw_execute(p->tr_UT);
  }
  return rc;
}

static int execute(fupermod_fft2d *p, int direction, double *data) {
  fftw_complex *A;
  int rc = FUPERMOD_SUCCESS, erc = FUPERMOD_SUCCESS, fwd, shared; /* erc: the executor's, after the collectives */
  double t0, t1, t2, t3, t4, c0;
  if (!p) return fupermod_error(FUPERMOD_ERR_USAGE, "fft2d: plan is NULL");
  A = data ? (fftw_complex *)data : p->A;
  fwd = direction == FUPERMOD_FFT2D_FORWARD;
  shared = p->win != MPI_WIN_NULL;
  if (direction != FUPERMOD_FFT2D_FORWARD && direction != FUPERMOD_FFT2D_BACKWARD)
    rc = fupermod_error(FUPERMOD_ERR_USAGE, "fft2d: direction must be FUPERMOD_FFT2D_FORWARD (-1) or _BACKWARD (+1), "
                                            "got %d", direction);
  else if (p->d > 0 && data && fftw_alignment_of(data) != fftw_alignment_of((double *)p->A))
    rc = fupermod_error(FUPERMOD_ERR_USAGE, "fft2d: data is not aligned like fftw_malloc memory (allocate it with "
                                            "fftw_malloc or malloc, or use fupermod_fft2d_local)");
  if ((rc = agree(p->comm, rc)) != FUPERMOD_SUCCESS) return rc;

  t0 = fupermod_time();
  c0 = fupermod_cpu_time();
  if (p->alone) {
    /* one process holds it all: the whole transform on its device, without the transposes (the
     * others have nothing to do) */
    if (p->owner) erc = fupermod_exec_fft2d(p->exec, p->M, p->N, (double *)A, direction);
    p->cpu[0] = fupermod_cpu_time() - c0;
    p->cpu[1] = 0;
    t1 = fupermod_time();
    p->copied = p->back = t1;
    for (int k = 0; k < 5; k++) p->stamp[k] = k ? t1 : t0;
    return agree(p->comm, erc);
  }
  if (p->d > 0 && p->exec) {
    fupermod_exec_fft_layout rows = {p->N, p->d, 1, p->N, 1, 0};
    erc = fupermod_exec_fft(p->exec, &rows, (double *)A, direction);
  } else if (p->d > 0)
    fftw_execute_dft(fwd ? p->row_fwd : p->row_bwd, A, A);
  t1 = fupermod_time();
  p->cpu[0] = fupermod_cpu_time() - c0;
  if (shared) shared_copy(p, A, 1);
  else block_copy(p, A, 1);
  p->copied = fupermod_time();
  rc = shared ? shared_fence(p) : exchange(p, 1);
  t2 = fupermod_time();
  c0 = fupermod_cpu_time();
  if (rc == FUPERMOD_SUCCESS && p->c > 0 && p->exec) {
    if (erc == FUPERMOD_SUCCESS) erc = exec_columns(p, direction);
  } else if (rc == FUPERMOD_SUCCESS && p->c > 0 && shared) {
#pragma omp parallel for num_threads(p->threads) schedule(static) if (p->threads > 1)
    for (long j = 0; j < p->c; j += PANEL) {
      fftw_complex *at = p->Y + (size_t)j * (size_t)p->M;
      if (p->c - j >= PANEL) fftw_execute_dft(fwd ? p->col_fwd : p->col_bwd, at, at);
      else fftw_execute_dft(fwd ? p->tail_fwd : p->tail_bwd, at, at);
    }
  } else if (rc == FUPERMOD_SUCCESS && p->c > 0) {
    if (p->tr_TU) fftw_execute(p->tr_TU);
    fftw_execute(fwd ? p->col_fwd : p->col_bwd);
    if (p->tr_UT) fftw_execute(p->tr_UT);
  }
  t3 = fupermod_time();
  p->cpu[1] = fupermod_cpu_time() - c0;
  /* shared: no fence after the copy back: the next execute writes only my rows of each T, which
   * no other process reads, and transforms a T only after its first fence */
  if (rc == FUPERMOD_SUCCESS) rc = shared ? shared_fence(p) : exchange(p, 0);
  p->back = fupermod_time();
  if (rc == FUPERMOD_SUCCESS) {
    if (shared) shared_copy(p, A, 0);
    else block_copy(p, A, 0);
  }
  t4 = fupermod_time();
  p->stamp[0] = t0;
  p->stamp[1] = t1;
  p->stamp[2] = t2;
  p->stamp[3] = t3;
  p->stamp[4] = t4;
  /* a process without rows or columns waits for the others' copies back without taking a core */
  if (rc == FUPERMOD_SUCCESS) rc = fupermod_barrier_idle(p->comm, p->d == 0 && p->c == 0);
  /* a device's failure is this rank's alone: every rank learns it (all took part in the exchanges) */
  return agree(p->comm, rc != FUPERMOD_SUCCESS ? rc : erc);
}

/* FFTW's OpenMP loops take the calling thread's OpenMP thread count, not the plan's: set the
 * plan's for the transform (OMP_NUM_THREADS=1 would otherwise serialise it) and give it back. */
int fupermod_fft2d_execute(fupermod_fft2d *p, int direction, double *data) {
#ifdef _OPENMP
  int saved = omp_get_max_threads(), rc;
  if (p) omp_set_num_threads(p->threads);
  rc = execute(p, direction, data);
  omp_set_num_threads(saved);
  return rc;
#else
  return execute(p, direction, data);
#endif
}

void fupermod_fft2d_phase_times(const fupermod_fft2d *p, double *rows, double *transpose, double *cols,
                                double *transpose_back) {
  double *out[4] = {rows, transpose, cols, transpose_back};
  for (int i = 0; i < 4; i++)
    if (out[i]) *out[i] = p ? p->stamp[i + 1] - p->stamp[i] : 0.0;
}

int fupermod_fft2d_compute_trace(const fupermod_fft2d *p, fupermod_trace *tr) {
  int rc;
  if (!p || !tr) return fupermod_error(FUPERMOD_ERR_USAGE, "fft2d: NULL plan or trace");
  if ((rc = fupermod_trace_add_cpu(tr, p->stamp[0], p->stamp[1], p->cpu[0])) != FUPERMOD_SUCCESS) return rc;
  return fupermod_trace_add_cpu(tr, p->stamp[2], p->stamp[3], p->cpu[1]);
}

int fupermod_fft2d_busy_trace(const fupermod_fft2d *p, fupermod_trace *tr) {
  int rc;
  if (!p || !tr) return fupermod_error(FUPERMOD_ERR_USAGE, "fft2d: NULL plan or trace");
  if ((rc = fupermod_trace_add(tr, p->stamp[0], p->copied)) != FUPERMOD_SUCCESS ||
      (rc = fupermod_trace_add(tr, p->stamp[2], p->stamp[3])) != FUPERMOD_SUCCESS)
    return rc;
  return fupermod_trace_add(tr, p->back, p->stamp[4]);
}

void fupermod_fft2d_destroy(fupermod_fft2d *p) {
  if (!p) return;
  if (p->exec) {
    fupermod_exec_unpin(p->exec, p->A);
    fupermod_exec_unpin(p->exec, p->Y);
  }
  if (p->row_fwd) fftw_destroy_plan(p->row_fwd);
  if (p->row_bwd) fftw_destroy_plan(p->row_bwd);
  if (p->col_fwd) fftw_destroy_plan(p->col_fwd);
  if (p->col_bwd) fftw_destroy_plan(p->col_bwd);
  if (p->tr_TU) fftw_destroy_plan(p->tr_TU);
  if (p->tr_UT) fftw_destroy_plan(p->tr_UT);
  if (p->tail_fwd) fftw_destroy_plan(p->tail_fwd);
  if (p->tail_bwd) fftw_destroy_plan(p->tail_bwd);
  for (int s = 0; p->types_ready && s < p->size; s++) {
    if (p->typeX[s] != MPI_DATATYPE_NULL) MPI_Type_free(&p->typeX[s]);
    if (p->typeY[s] != MPI_DATATYPE_NULL) MPI_Type_free(&p->typeY[s]);
  }
  if (p->cplx != MPI_DATATYPE_NULL) MPI_Type_free(&p->cplx);
  if (p->comm != MPI_COMM_NULL) MPI_Comm_free(&p->comm);
  if (p->win != MPI_WIN_NULL) {
    MPI_Win_unlock_all(p->win);
    MPI_Win_free(&p->win); /* frees every rank's T, p->Y included */
  } else {
    if (p->Y != p->T) fftw_free(p->Y);
    fftw_free(p->T);
  }
  fftw_free(p->A);
  fftw_free(p->S);
  free(p->peerY);
  free(p->roff);
  free(p->coff);
  free(p->cntX);
  free(p->cntY);
  free(p->req);
  free(p->typeX);
  free(p->typeY);
  free(p);
}

double fupermod_fft2d_flops(long M, long N) {
  double n = (double)M * (double)N;
  return n > 1.0 ? 5.0 * n * log2(n) : 0.0;
}
