/* Heterogeneous SUMMA over any exact tiling, rectangles or pieces (docs/matrix.md). */
#include <cblas.h>
#include <float.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "apps/apps.h"
#include "apps/summa.h"
#include "apps/summa_pieces.h"

typedef struct {
  int row0, rows, col0, cols;
} extent;

static int ceil_div(int n, int b) { return (int)(((long)n + b - 1) / b); }

static void rect_extent(const fupermod_rect *r, int n, int b, extent *e) {
  long r1, c1;
  if (r->height == 0 || r->width == 0) {
    *e = (extent){0, 0, 0, 0};
    return;
  }
  r1 = (long)(r->row + r->height) * b;
  c1 = (long)(r->col + r->width) * b;
  e->row0 = r->row * b; /* row < M = ceil(n/b), so row*b < n fits */
  e->col0 = r->col * b;
  e->rows = (int)((r1 < n ? r1 : n) - e->row0);
  e->cols = (int)((c1 < n ? c1 : n) - e->col0);
}

static void extent_of(const fupermod_layout *l, int i, int n, int b, extent *e) { rect_extent(&l->rects[i], n, b, e); }

/* The tiles of l: its pieces, or (a plain layout) its processes' rectangles, tile j of process j.
 * A process stores its tiles one after another in increasing j. */
static int tiles(const fupermod_layout *l) { return l->npieces > 0 ? l->npieces : l->p; }
static int tile_owner(const fupermod_layout *l, int j) { return l->npieces > 0 ? l->owner[j] : j; }
static void tile_extent(const fupermod_layout *l, int j, int n, int b, extent *e) {
  rect_extent(l->npieces > 0 ? &l->pieces[j] : &l->rects[j], n, b, e);
}

/* Elements process i stores. */
static long local_of(const fupermod_layout *l, int i, int n, int b) {
  long c = 0;
  extent e;
  if (l->npieces <= 0) {
    extent_of(l, i, n, b, &e);
    return (long)e.rows * e.cols;
  }
  for (int j = 0; j < l->npieces; j++)
    if (l->owner[j] == i) {
      tile_extent(l, j, n, b, &e);
      c += (long)e.rows * e.cols;
    }
  return c;
}

static int check_shape(const fupermod_layout *l, int n, int b) {
  int K;
  if (!l) return fupermod_error(FUPERMOD_ERR_USAGE, "summa: layout is NULL");
  if (n < 1) return fupermod_error(FUPERMOD_ERR_USAGE, "summa: matrix order n = %d (must be >= 1)", n);
  if (b < 1) return fupermod_error(FUPERMOD_ERR_USAGE, "summa: block size b = %d (must be >= 1)", b);
  K = ceil_div(n, b);
  if (l->M != K || l->N != K)
    return fupermod_error(FUPERMOD_ERR_USAGE,
                          "summa: the layout has %d x %d blocks, but n = %d and b = %d need %d x %d", l->M, l->N, n,
                          b, K, K);
  return FUPERMOD_SUCCESS;
}

int fupermod_summa_extent(const fupermod_layout *l, int rank, int n, int b, int *row0, int *rows, int *col0,
                          int *cols) {
  extent e;
  int rc = check_shape(l, n, b);
  if (rc != FUPERMOD_SUCCESS) return rc;
  if (rank < 0 || rank >= l->p)
    return fupermod_error(FUPERMOD_ERR_USAGE, "summa: rank %d out of range 0..%d", rank, l->p - 1);
  if (fupermod_layout_npieces(l, rank) > 1)
    return fupermod_error(FUPERMOD_ERR_USAGE, "summa: rank %d owns %d pieces, not one rectangle (its storage: "
                          "fupermod_summa_local)", rank, fupermod_layout_npieces(l, rank));
  extent_of(l, rank, n, b, &e);
  if (row0) *row0 = e.row0;
  if (rows) *rows = e.rows;
  if (col0) *col0 = e.col0;
  if (cols) *cols = e.cols;
  return FUPERMOD_SUCCESS;
}

int fupermod_summa_local(const fupermod_layout *l, int rank, int n, int b, long *count) {
  int rc = check_shape(l, n, b);
  if (rc != FUPERMOD_SUCCESS) return rc;
  if (rank < 0 || rank >= l->p)
    return fupermod_error(FUPERMOD_ERR_USAGE, "summa: rank %d out of range 0..%d", rank, l->p - 1);
  if (l->npieces > 0 && (!l->pieces || !l->owner))
    return fupermod_error(FUPERMOD_ERR_USAGE, "summa: a layout of %d pieces without its pieces", l->npieces);
  if (count) *count = local_of(l, rank, n, b);
  return FUPERMOD_SUCCESS;
}

/* Every rank returns the lowest status; the failing rank's message is broadcast so all ranks
 * report the same thing. */
static int agree(MPI_Comm comm, int rc) { return fupermod_agree(rc, comm); }

static uint64_t layout_hash(const fupermod_layout *l) {
  uint64_t h = 1469598103934665603ULL;
  int head[3] = {l->p, l->M, l->N};
  const unsigned char *s = (const unsigned char *)head;
  for (size_t k = 0; k < sizeof head; k++) h = (h ^ s[k]) * 1099511628211ULL;
  s = (const unsigned char *)l->rects;
  for (size_t k = 0; k < (size_t)l->p * sizeof *l->rects; k++) h = (h ^ s[k]) * 1099511628211ULL;
  if (l->npieces > 0) { /* the pieces are the truth: rects alone cannot tell two piece layouts apart */
    s = (const unsigned char *)&l->npieces;
    for (size_t k = 0; k < sizeof l->npieces; k++) h = (h ^ s[k]) * 1099511628211ULL;
    s = (const unsigned char *)l->pieces;
    for (size_t k = 0; k < (size_t)l->npieces * sizeof *l->pieces; k++) h = (h ^ s[k]) * 1099511628211ULL;
    s = (const unsigned char *)l->owner;
    for (size_t k = 0; k < (size_t)l->npieces * sizeof *l->owner; k++) h = (h ^ s[k]) * 1099511628211ULL;
  }
  return h;
}

/* Validate the arguments on every rank and agree; also that every rank holds the same layout. */
static int agree_args(MPI_Comm comm, const fupermod_layout *l, int n, int b, const double *const *ptrs, int nptrs,
                      const char *const *names) {
  int size, rank, rc = FUPERMOD_SUCCESS;
  unsigned long hv[2] = {0, 0}, hmax[2];
  MPI_Comm_size(comm, &size);
  MPI_Comm_rank(comm, &rank);
  if ((rc = check_shape(l, n, b)) == FUPERMOD_SUCCESS && (rc = fupermod_layout_check(l)) != FUPERMOD_SUCCESS)
    fupermod_error_prefix(rc, "summa");
  if (rc == FUPERMOD_SUCCESS && l->p != size)
    rc = fupermod_error(FUPERMOD_ERR_USAGE, "summa: the layout has %d processes, the communicator %d", l->p, size);
  if (rc == FUPERMOD_SUCCESS && l->npieces > 0) {
    long cnt = local_of(l, rank, n, b);
    for (int k = 0; k < nptrs && rc == FUPERMOD_SUCCESS; k++)
      if (cnt > 0 && !ptrs[k])
        rc = fupermod_error(FUPERMOD_ERR_USAGE, "summa: %s is NULL on rank %d, which owns %ld elements in %d pieces",
                            names[k], rank, cnt, fupermod_layout_npieces(l, rank));
  } else if (rc == FUPERMOD_SUCCESS) {
    extent e;
    extent_of(l, rank, n, b, &e);
    for (int k = 0; k < nptrs && rc == FUPERMOD_SUCCESS; k++)
      if (e.rows > 0 && e.cols > 0 && !ptrs[k])
        rc = fupermod_error(FUPERMOD_ERR_USAGE, "summa: %s is NULL on rank %d, which owns %d x %d elements",
                            names[k], rank, e.rows, e.cols);
  }
  if ((rc = agree(comm, rc)) != FUPERMOD_SUCCESS) return rc;
  hv[0] = (unsigned long)layout_hash(l);
  hv[1] = ~hv[0];
  if (MPI_Allreduce(hv, hmax, 2, MPI_UNSIGNED_LONG, MPI_MAX, comm) != MPI_SUCCESS)
    return fupermod_error(FUPERMOD_ERR_MPI, "summa: MPI_Allreduce failed");
  if (hmax[0] != hv[0] || hmax[1] != hv[1])
    return fupermod_error(FUPERMOD_ERR_MPI, "summa: the ranks were given different layouts");
  return FUPERMOD_SUCCESS;
}

int fupermod_layout_bcast(MPI_Comm comm, int root, int rc_root, fupermod_layout **l) {
  int me, rc, head[5] = {0, 0, 0, 0, 0};
  if (comm == MPI_COMM_NULL || !l) return fupermod_error(FUPERMOD_ERR_USAGE, "layout bcast: NULL argument");
  MPI_Comm_rank(comm, &me);
  rc = me == root ? rc_root : FUPERMOD_SUCCESS;
  if (me == root && rc == FUPERMOD_SUCCESS && !*l) rc = fupermod_error(FUPERMOD_ERR_USAGE, "layout bcast: no layout on the root");
  if ((rc = agree(comm, rc)) != FUPERMOD_SUCCESS) return rc;
  if (me == root) {
    head[0] = (*l)->p;
    head[1] = (*l)->M;
    head[2] = (*l)->N;
    head[3] = (*l)->ncols;
    head[4] = (*l)->npieces > 0 ? (*l)->npieces : 0;
  }
  if (MPI_Bcast(head, 5, MPI_INT, root, comm) != MPI_SUCCESS)
    return fupermod_error(FUPERMOD_ERR_MPI, "layout bcast: MPI_Bcast failed");
  if (me != root) {
    *l = NULL;
    if ((rc = fupermod_layout_alloc(head[0], head[1], head[2], l)) == FUPERMOD_SUCCESS) {
      (*l)->ncols = head[3];
      if (head[4] > 0) {
        (*l)->pieces = malloc((size_t)head[4] * sizeof *(*l)->pieces);
        (*l)->owner = malloc((size_t)head[4] * sizeof *(*l)->owner);
        if (!(*l)->pieces || !(*l)->owner)
          rc = fupermod_error(FUPERMOD_ERR_NOMEM, "layout bcast: out of memory for %d pieces", head[4]);
        else
          (*l)->npieces = head[4];
      }
    }
  }
  if ((rc = agree(comm, rc)) != FUPERMOD_SUCCESS) {
    if (me != root) {
      fupermod_layout_free(*l);
      *l = NULL;
    }
    return rc;
  }
  if (MPI_Bcast((*l)->rects, 4 * head[0], MPI_INT, root, comm) != MPI_SUCCESS ||
      MPI_Bcast((*l)->column, head[0], MPI_INT, root, comm) != MPI_SUCCESS ||
      (head[4] > 0 && (MPI_Bcast((*l)->pieces, 4 * head[4], MPI_INT, root, comm) != MPI_SUCCESS ||
                       MPI_Bcast((*l)->owner, head[4], MPI_INT, root, comm) != MPI_SUCCESS)))
    return fupermod_error(FUPERMOD_ERR_MPI, "layout bcast: MPI_Bcast failed");
  return FUPERMOD_SUCCESS;
}

_Static_assert(sizeof(fupermod_rect) == 4 * sizeof(int), "rectangles are broadcast as 4 ints");

/* ---- the multiplication ---- */


/* Buffers and requests of one pivot step (two of them: the next pivot travels while this one is
 * multiplied). Every message is contiguous, so Open MPI can use its single-copy path and the
 * receiver can pull the data without waiting for the sender to enter MPI. */
typedef struct {
  MPI_Request *req;
  int count;
  double *apan;  /* my rows of the pivot column of A, transposed: kb x rows, ld kb */
  double *bpan;  /* the pivot row of B over my columns: kb x cols, ld kb */
  double *sendA; /* my part of the pivot column, transposed, when I own it */
  double *sendB; /* my part of the pivot row, when I own it */
  int a_plain;   /* apan holds the pivot column as it is in A (rows x kb, ld rows), not transposed */
} step_buf;

static int overlap(int a0, int a1, int b0, int b1, int *lo, int *hi) {
  *lo = a0 > b0 ? a0 : b0;
  *hi = a1 < b1 ? a1 : b1;
  return *lo < *hi;
}

/* Post the messages of pivot k: what I own goes to every process whose rectangle overlaps it
 * in rows (A) or columns (B); what I lack comes from the owners. */
static int post_step(MPI_Comm comm, int p, const extent *ext, int me, const int *seg, int k, const double *A,
                     const double *B, step_buf *s) {
  const extent *my = &ext[me];
  int kc0 = seg[k], kc1 = seg[k + 1], kb = kc1 - kc0, tagA = 2 * (k & 0x3fff), tagB = tagA + 1;
  int have_a = kc0 >= my->col0 && kc0 < my->col0 + my->cols;
  int have_b = kc0 >= my->row0 && kc0 < my->row0 + my->rows;
  int packed_a = 0, packed_b = 0;
  s->count = 0;
  s->a_plain = 0;
  if (my->rows == 0 || my->cols == 0) return MPI_SUCCESS;
  for (int q = 0; q < p; q++) {
    const extent *o = &ext[q];
    int lo, hi, err;
    if (q == me || o->rows == 0 || o->cols == 0) continue;
    if (overlap(my->row0, my->row0 + my->rows, o->row0, o->row0 + o->rows, &lo, &hi)) {
      int q_has = kc0 >= o->col0 && kc0 < o->col0 + o->cols;
      /* same rows on both sides (column strips): the block goes as it lies in A, with no packing */
      int same_rows = o->row0 == my->row0 && o->rows == my->rows;
      if (have_a && !q_has && same_rows) {
        err = MPI_Isend(A + (size_t)(kc0 - my->col0) * my->rows, my->rows * kb, MPI_DOUBLE, q, tagA, comm,
                        &s->req[s->count++]);
        if (err != MPI_SUCCESS) return err;
      } else if (!have_a && q_has && same_rows) {
        err = MPI_Irecv(s->apan, my->rows * kb, MPI_DOUBLE, q, tagA, comm, &s->req[s->count++]);
        if (err != MPI_SUCCESS) return err;
        s->a_plain = 1;
      } else if (have_a && !q_has) {
        /* transposed, a range of rows is contiguous */
        if (!packed_a) {
          const double *src = A + (size_t)(kc0 - my->col0) * my->rows;
          for (int i0 = 0; i0 < my->rows; i0 += 64) /* tiles keep both sides in cache */
            for (int j0 = 0; j0 < kb; j0 += 64)
              for (int j = j0; j < kb && j < j0 + 64; j++)
                for (int i = i0; i < my->rows && i < i0 + 64; i++)
                  s->sendA[(size_t)i * kb + j] = src[(size_t)j * my->rows + i];
          packed_a = 1;
        }
        err = MPI_Isend(s->sendA + (size_t)(lo - my->row0) * kb, (hi - lo) * kb, MPI_DOUBLE, q, tagA, comm,
                        &s->req[s->count++]);
        if (err != MPI_SUCCESS) return err;
      } else if (!have_a && q_has) {
        err = MPI_Irecv(s->apan + (size_t)(lo - my->row0) * kb, (hi - lo) * kb, MPI_DOUBLE, q, tagA, comm,
                        &s->req[s->count++]);
        if (err != MPI_SUCCESS) return err;
      }
    }
    if (overlap(my->col0, my->col0 + my->cols, o->col0, o->col0 + o->cols, &lo, &hi)) {
      int q_has = kc0 >= o->row0 && kc0 < o->row0 + o->rows;
      if (have_b && !q_has) {
        if (!packed_b) {
          const double *src = B + (kc0 - my->row0);
          for (int j = 0; j < my->cols; j++)
            memcpy(s->sendB + (size_t)j * kb, src + (size_t)j * my->rows, (size_t)kb * sizeof(double));
          packed_b = 1;
        }
        err = MPI_Isend(s->sendB + (size_t)(lo - my->col0) * kb, (hi - lo) * kb, MPI_DOUBLE, q, tagB, comm,
                        &s->req[s->count++]);
        if (err != MPI_SUCCESS) return err;
      } else if (!have_b && q_has) {
        err = MPI_Irecv(s->bpan + (size_t)(lo - my->col0) * kb, (hi - lo) * kb, MPI_DOUBLE, q, tagB, comm,
                        &s->req[s->count++]);
        if (err != MPI_SUCCESS) return err;
      }
    }
  }
  return MPI_SUCCESS;
}

/* MPI_Waitall that yields its core between tests once the wait is longer than a moment: a rank
 * sharing a core with others (the heterogeneous configurations) gives it to them at once. Not a
 * sleep: without a single-copy transport (no CMA in many containers) Open MPI moves a large
 * message a fragment per test on each side: with 1 ms naps an 8 MB panel took 89 ms between two
 * cores (108 ms on one), with this loop 3 ms (2.5 ms on one; docs/matrix.md). */
static int polite_waitall(int count, MPI_Request *req) {
  double t0 = MPI_Wtime();
  int flag = 0, err;
#ifdef FUPERMOD_SMPI
  /* SimGrid: no core to yield, and each test of a pending message leaves an entry behind in the
   * simulator that every later message pays for (docs/simulate.md) */
  (void)t0, (void)flag, (void)err;
  return MPI_Waitall(count, req, MPI_STATUSES_IGNORE);
#endif
  for (;;) {
    if ((err = MPI_Testall(count, req, &flag, MPI_STATUSES_IGNORE)) != MPI_SUCCESS || flag) return err;
    if (MPI_Wtime() - t0 > 1e-4) sched_yield();
  }
}

/* Open MPI moves a large message only inside MPI calls on both sides (rendezvous, then one
 * fragment train per call); without a single-copy transport a panel then crawls while the ranks
 * compute. With MPI_THREAD_SERIALIZED a helper thread tests the next step's requests while the
 * main thread is inside the GEMM, which makes no MPI call meanwhile (so the calls stay serialized).
 * It sleeps between tests: its CPU time is a small fraction of the core it shares. */
typedef struct {
  MPI_Request *req;
  int count, err;
  atomic_int stop;
} progress_arg;

static void *progress_thread(void *p) {
  progress_arg *a = p;
  int flag = 0;
  long ns = 20000; /* short at first: the rendezvous handshakes need a reply quickly */
  while (!atomic_load(&a->stop)) {
    if ((a->err = MPI_Testall(a->count, a->req, &flag, MPI_STATUSES_IGNORE)) != MPI_SUCCESS || flag) break;
    struct timespec nap = {0, ns};
    nanosleep(&nap, NULL);
    if (ns < 200000) ns += ns / 2;
  }
  return NULL;
}

static int serialized_mpi(void) {
  int level = MPI_THREAD_SINGLE;
  MPI_Query_thread(&level);
  return level >= MPI_THREAD_SERIALIZED;
}

int fupermod_summa_dgemm(MPI_Comm comm, const fupermod_layout *l, int n, int b, const double *A, const double *B,
                         double *C, int accumulate) {
  return fupermod_summa_dgemm_timed(comm, l, n, b, A, B, C, accumulate, NULL);
}

/* Append the GEMM call that started at wall time g0 and thread CPU time c0; the first failure sticks. */
static void note_gemm(fupermod_trace *compute, int *rc, double g0, double c0) {
  if (compute && *rc == FUPERMOD_SUCCESS) *rc = fupermod_trace_add_cpu(compute, g0, fupermod_time(), fupermod_cpu_time() - c0);
}

int fupermod_summa_dgemm_timed(MPI_Comm comm, const fupermod_layout *l, int n, int b, const double *A, const double *B,
                               double *C, int accumulate, fupermod_trace *compute) {
  return fupermod_summa_dgemm_exec(comm, l, n, b, A, B, C, accumulate, NULL, compute);
}

/* The end of a product on this rank: an MPI failure or a trace's failure becomes the status, then a
 * process without data waits for the others without taking a core one may share. */
static int step_end(MPI_Comm work, int me, int mpi_err, int rc, int trace_rc, int idle) {
  if (mpi_err != MPI_SUCCESS) {
    char es[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(mpi_err, es, &len);
    rc = fupermod_error(FUPERMOD_ERR_MPI, "summa: communication failed on rank %d: %s", me, es);
  }
  if (rc == FUPERMOD_SUCCESS && trace_rc != FUPERMOD_SUCCESS) rc = trace_rc;
  if (work != MPI_COMM_NULL && fupermod_barrier_idle(work, idle) != FUPERMOD_SUCCESS && rc == FUPERMOD_SUCCESS)
    rc = fupermod_error(FUPERMOD_ERR_MPI, "summa: the final barrier failed on rank %d", me);
  return rc;
}

/* Each step buffer's panels for my extent, pivots at most kbmax wide: with an executor, its
 * page-locked host memory (a GPU moves the panels fastest from it, and it is pinned once per
 * executor, not in every product). */
static int alloc_panels(step_buf *st, const extent *my, int me, int kbmax, fupermod_exec *exec) {
  int rc = FUPERMOD_SUCCESS;
  if (my->rows <= 0 || my->cols <= 0) return rc;
  for (int s = 0; s < 2 && rc == FUPERMOD_SUCCESS; s++) {
    size_t na = (size_t)my->rows * kbmax * sizeof(double), nb = (size_t)kbmax * my->cols * sizeof(double);
    double **bufs[4] = {&st[s].apan, &st[s].sendA, &st[s].bpan, &st[s].sendB};
    for (int i = 0; i < 4 && rc == FUPERMOD_SUCCESS; i++) {
      size_t by = i < 2 ? na : nb;
      if (exec) rc = fupermod_exec_host_alloc(exec, by, (void **)bufs[i]);
      else if (!(*bufs[i] = malloc(by)))
        rc = fupermod_error(FUPERMOD_ERR_NOMEM, "summa: out of memory for the panels on rank %d (%d x %d, b = %d)",
                            me, my->rows, my->cols, kbmax);
    }
  }
  return rc;
}

static void free_panels(step_buf *st, fupermod_exec *exec) {
  for (int s = 0; s < 2; s++) {
    double *bufs[4] = {st[s].apan, st[s].bpan, st[s].sendA, st[s].sendB};
    for (int i = 0; i < 4; i++)
      if (exec) fupermod_exec_host_free(exec, bufs[i]);
      else free(bufs[i]);
  }
}

/* One pivot's operands of my update: my own columns of A and rows of B where the pivot falls in
 * them, the received panels otherwise (A's as sent: plain, or transposed kb x rows). */
typedef struct {
  const double *a, *b;
  int lda, ldb, kb;
  CBLAS_TRANSPOSE ta;
} operands;

static operands step_operands(const extent *my, const step_buf *cur, int kc0, int kb, const double *A,
                              const double *B) {
  operands o = {NULL, NULL, my->rows, my->rows, kb, CblasNoTrans};
  if (kc0 >= my->col0 && kc0 < my->col0 + my->cols) o.a = A + (size_t)(kc0 - my->col0) * my->rows;
  else if (cur->a_plain) o.a = cur->apan;
  else {
    o.a = cur->apan;
    o.lda = kb;
    o.ta = CblasTrans;
  }
  if (kc0 >= my->row0 && kc0 < my->row0 + my->rows) o.b = B + (kc0 - my->row0);
  else {
    o.b = cur->bpan;
    o.ldb = kb;
  }
  return o;
}

/* My update with one pivot's operands while the next step's messages (nxt) travel: a helper
 * thread progresses them where MPI allows it (or none are due, or the executor computes), else
 * the update runs in column chunks with a test between them (MPI progresses only inside MPI
 * calls). Returns the first MPI error of the tests. */
static int update_step(const extent *my, const operands *o, step_buf *nxt, double *C, int use_thread,
                       fupermod_exec *exec, fupermod_trace *compute, int *rc, int *trace_rc) {
  int mpi_err = MPI_SUCCESS, err, flag;
  double g0, c0;
  if (nxt->count == 0 || use_thread || exec) {
    progress_arg pa = {nxt->req, nxt->count, MPI_SUCCESS, 0};
    pthread_t th;
    /* only where another thread may call MPI: otherwise the update runs whole */
    int started = use_thread && nxt->count > 0 && pthread_create(&th, NULL, progress_thread, &pa) == 0;
    g0 = fupermod_time();
    c0 = fupermod_cpu_time();
    if (!exec)
      cblas_dgemm(CblasColMajor, o->ta, CblasNoTrans, my->rows, my->cols, o->kb, 1.0, o->a, o->lda, o->b, o->ldb, 1.0,
                  C, my->rows);
    else if (*rc == FUPERMOD_SUCCESS)
      *rc = fupermod_exec_gemm_update(exec, o->ta == CblasTrans, o->kb, o->a, o->lda, o->b, o->ldb);
    note_gemm(compute, trace_rc, g0, c0);
    if (started) {
      atomic_store(&pa.stop, 1);
      pthread_join(th, NULL);
      mpi_err = pa.err;
    }
    return mpi_err;
  }
  int chunk = (my->cols + 3) / 4;
  if (chunk < 128) chunk = 128;
  for (int j0 = 0; j0 < my->cols; j0 += chunk) {
    int w = my->cols - j0 < chunk ? my->cols - j0 : chunk;
    g0 = fupermod_time(); /* the tests below progress communication: not computation */
    c0 = fupermod_cpu_time();
    cblas_dgemm(CblasColMajor, o->ta, CblasNoTrans, my->rows, w, o->kb, 1.0, o->a, o->lda, o->b + (size_t)j0 * o->ldb,
                o->ldb, 1.0, C + (size_t)j0 * my->rows, my->rows);
    note_gemm(compute, trace_rc, g0, c0);
#ifndef FUPERMOD_SMPI /* SimGrid moves messages without calls, and a test costs every later one (docs/simulate.md) */
    if (j0 + w < my->cols && (err = MPI_Testall(nxt->count, nxt->req, &flag, MPI_STATUSES_IGNORE)) != MPI_SUCCESS &&
        mpi_err == MPI_SUCCESS)
      mpi_err = err;
#else
    (void)err, (void)flag;
#endif
  }
  return mpi_err;
}

/* Where an executor computes: C kept on its device from the first update to the last (one
 * update per pivot). Returns whether this process still updates. */
static int exec_begin(fupermod_exec *exec, const extent *my, int kbmax, int K, double *C, int accumulate, int *rc) {
  if ((*rc = fupermod_exec_gemm_begin(exec, C, my->rows, my->cols, my->rows, kbmax, !accumulate)) != FUPERMOD_SUCCESS)
    return 0;
  if ((*rc = fupermod_exec_gemm_plan(exec, K)) != FUPERMOD_SUCCESS) {
    fupermod_exec_gemm_end(exec);
    return 0;
  }
  return 1;
}

/* The product over the pivots seg[0] = 0 < seg[1] < ... < seg[K] = n, each at most kbmax wide and
 * inside one owner's columns of A and one owner's rows of B for every process (every extent's
 * edges are pivot edges). The arguments are agreed already. */
static int summa_run(MPI_Comm comm, int p, const extent *ext, const int *seg, int K, int kbmax, const double *A,
                     const double *B, double *C, int accumulate, fupermod_exec *exec, fupermod_trace *compute) {
  double g0, c0;
  int trace_rc = FUPERMOD_SUCCESS;
  MPI_Comm work = MPI_COMM_NULL;
  MPI_Request *reqbuf = NULL;
  step_buf st[2];
  int rc = FUPERMOD_SUCCESS, me, mpi_err = MPI_SUCCESS;
  MPI_Comm_rank(comm, &me);
  memset(st, 0, sizeof st);
  reqbuf = malloc((size_t)8 * p * sizeof *reqbuf);
  if (!reqbuf) rc = fupermod_error(FUPERMOD_ERR_NOMEM, "summa: out of memory on rank %d", me);
  else rc = alloc_panels(st, &ext[me], me, kbmax, exec);
  if ((rc = agree(comm, rc)) != FUPERMOD_SUCCESS) goto done;
  /* a private communicator: our tags cannot meet the caller's messages */
  if (MPI_Comm_dup(comm, &work) != MPI_SUCCESS) {
    rc = fupermod_error(FUPERMOD_ERR_MPI, "summa: MPI_Comm_dup failed");
    goto done;
  }
  MPI_Comm_set_errhandler(work, MPI_ERRORS_RETURN);
  const extent *my = &ext[me];
  int active = my->rows > 0 && my->cols > 0, use_thread = serialized_mpi();
  st[0].req = reqbuf;
  st[1].req = reqbuf + 4 * p;
  if (active && exec && my->rows == seg[K] && my->cols == seg[K] && !compute) {
    /* this process owns it all (the others, if any, nothing): every pivot is its own, one
     * product streamed by the executor; no other process sends or waits for a panel (a
     * compute trace, where asked for, keeps one interval per pivot) */
    g0 = fupermod_time();
    c0 = fupermod_cpu_time();
    rc = fupermod_exec_dgemm(exec, 0, my->rows, my->cols, seg[K], 1.0, A, my->rows, B, my->rows, accumulate ? 1.0 : 0.0,
                             C, my->rows, NULL);
    note_gemm(compute, &trace_rc, g0, c0);
    active = 0;
  }
  if (active && exec) active = exec_begin(exec, my, kbmax, K, C, accumulate, &rc);
  else if (active && !accumulate)
    for (int j = 0; j < my->cols; j++) memset(C + (size_t)j * my->rows, 0, (size_t)my->rows * sizeof *C);
  mpi_err = post_step(work, p, ext, me, seg, 0, A, B, &st[0]);
  for (int k = 0; k < K; k++) {
    step_buf *cur = &st[k & 1], *nxt = &st[(k + 1) & 1];
    int err;
    if ((err = polite_waitall(cur->count, cur->req)) != MPI_SUCCESS && mpi_err == MPI_SUCCESS) mpi_err = err;
    cur->count = 0;
    nxt->count = 0;
    if (k + 1 < K && mpi_err == MPI_SUCCESS) mpi_err = post_step(work, p, ext, me, seg, k + 1, A, B, nxt);
    if (!active || mpi_err != MPI_SUCCESS) continue;
    operands o = step_operands(my, cur, seg[k], seg[k + 1] - seg[k], A, B);
    if ((err = update_step(my, &o, nxt, C, use_thread, exec, compute, &rc, &trace_rc)) != MPI_SUCCESS &&
        mpi_err == MPI_SUCCESS)
      mpi_err = err;
  }
  /* requests left by a failed step must not outlive the buffers */
  for (int s = 0; s < 2; s++)
    if (st[s].count > 0) MPI_Waitall(st[s].count, st[s].req, MPI_STATUSES_IGNORE);
  if (active && exec) {
    /* the executor's C back in the host's C: the end of the last update */
    g0 = fupermod_time();
    c0 = fupermod_cpu_time();
    int erc = fupermod_exec_gemm_end(exec);
    note_gemm(compute, &trace_rc, g0, c0);
    if (rc == FUPERMOD_SUCCESS) rc = erc;
  }
  rc = step_end(work, me, mpi_err, rc, trace_rc, ext[me].rows == 0 || ext[me].cols == 0);
  rc = agree(comm, rc);
done:
  if (work != MPI_COMM_NULL) MPI_Comm_free(&work);
  free_panels(st, exec);
  free(reqbuf);
  return rc;
}

/* ---- the multiplication on a layout with pieces ---- */

/* One pivot step on pieces (two of them, as in summa_run): my panels, A's transposed (kb x rows,
 * ld kb) and B's (kb x columns, ld kb), each over the rows or columns my pieces cover, in
 * increasing global order, so every piece's part is one contiguous slice. */
typedef struct {
  MPI_Request *req;
  int count;
  double *apan, *bpan;
} piece_step;

/* Post pivot k on pieces: my parts of the pivot go into my own panels first (my pieces' rows are
 * rows I need), then every receive and every send is a slice of a panel. Sender and receiver take
 * the transfers from the same enumeration (apps/summa_pieces.c), so between two ranks the
 * messages of one tag are posted in the same order on both sides. */
static int post_pieces(MPI_Comm comm, fupermod_summa_plan *pl, int me, int k, const double *A, const double *B,
                       fupermod_summa_xfer *x, piece_step *s) {
  int kc0 = k * pl->b, kb = pl->b < pl->n - kc0 ? pl->b : pl->n - kc0, err;
  s->count = 0;
  for (int kind = 0; kind < 2; kind++) {
    long nx = fupermod_summa_plan_xfers(pl, k, kind, me, x);
    double *pan = kind ? s->bpan : s->apan;
    int tag = 2 * (k & 0x3fff) + kind;
    for (long t = 0; t < nx; t++) {
      const fupermod_summa_xfer *y = &x[t];
      int j = y->piece, rows = pl->rows[j];
      if (y->from != me || y->to != me) continue;
      if (kind == 0) {
        /* rows lo..hi of the pivot column of my piece j, transposed; tiles keep both in cache */
        const double *src = A + pl->off[j] + (size_t)(kc0 - pl->col0[j]) * rows + (y->lo - pl->row0[j]);
        double *dst = pan + (size_t)y->at_to * kb;
        int h = y->hi - y->lo;
        for (int i0 = 0; i0 < h; i0 += 64)
          for (int c0 = 0; c0 < kb; c0 += 64)
            for (int c = c0; c < kb && c < c0 + 64; c++)
              for (int i = i0; i < h && i < i0 + 64; i++) dst[(size_t)i * kb + c] = src[(size_t)c * rows + i];
      } else {
        /* columns lo..hi of the pivot row of my piece j: kb contiguous elements a column */
        const double *src = B + pl->off[j] + (size_t)(y->lo - pl->col0[j]) * rows + (kc0 - pl->row0[j]);
        for (int c = 0; c < y->hi - y->lo; c++)
          memcpy(pan + (size_t)(y->at_to + c) * kb, src + (size_t)c * rows, (size_t)kb * sizeof *pan);
      }
    }
    for (long t = 0; t < nx; t++)
      if (x[t].to == me && x[t].from != me &&
          (err = MPI_Irecv(pan + (size_t)x[t].at_to * kb, (x[t].hi - x[t].lo) * kb, MPI_DOUBLE, x[t].from, tag, comm,
                           &s->req[s->count++])) != MPI_SUCCESS)
        return err;
    for (long t = 0; t < nx; t++)
      if (x[t].from == me && x[t].to != me &&
          (err = MPI_Isend(pan + (size_t)x[t].at_from * kb, (x[t].hi - x[t].lo) * kb, MPI_DOUBLE, x[t].to, tag, comm,
                           &s->req[s->count++])) != MPI_SUCCESS)
        return err;
  }
  return MPI_SUCCESS;
}

/* The product on a layout with pieces (the arguments are agreed already): per pivot, each of my
 * pieces' update C_j += A(rows_j, k) B(k, cols_j) from the panels, through cblas_dgemm or the
 * executor's one-call GEMM (no GEMM session: a session holds one C). The next pivot's messages
 * travel during the updates, as in summa_run. */
static int summa_pieces_run(MPI_Comm comm, const fupermod_layout *l, int n, int b, const double *A, const double *B,
                            double *C, int accumulate, fupermod_exec *exec, fupermod_trace *compute) {
  fupermod_summa_plan pl;
  fupermod_summa_xfer *x = NULL;
  MPI_Request *reqbuf = NULL;
  MPI_Comm work = MPI_COMM_NULL;
  piece_step st[2];
  int rc, me, K, kbmax = b < n ? b : n, mpi_err = MPI_SUCCESS, trace_rc = FUPERMOD_SUCCESS, *mine = NULL, nmine = 0,
          active;
  long xmax = 1, rmax = 1;
  double g0, c0;
  MPI_Comm_rank(comm, &me);
  memset(st, 0, sizeof st);
  if ((rc = agree(comm, fupermod_summa_plan_make(l, n, b, &pl))) != FUPERMOD_SUCCESS) {
    fupermod_summa_plan_free(&pl); /* built on the ranks where it did not fail */
    return rc;
  }
  K = pl.K;
  active = pl.local[me] > 0;
  /* the most transfers and messages of mine in one pivot: the request arrays' size */
  for (int k = 0; k < K; k++)
    for (int kind = 0; kind < 2; kind++) {
      long c = fupermod_summa_plan_xfers(&pl, k, kind, me, NULL);
      if (c > xmax) xmax = c;
    }
  if (!(x = malloc((size_t)xmax * sizeof *x)) || !(mine = malloc((size_t)(pl.np ? pl.np : 1) * sizeof *mine))) {
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "summa: out of memory on rank %d", me);
    goto allocated;
  }
  for (int j = 0; j < pl.np; j++)
    if (pl.owner[j] == me) mine[nmine++] = j;
  for (int k = 0; k < K; k++) {
    long c = 0;
    for (int kind = 0; kind < 2; kind++) {
      long nx = fupermod_summa_plan_xfers(&pl, k, kind, me, x);
      for (long t = 0; t < nx; t++) c += (x[t].from == me) != (x[t].to == me);
    }
    if (c > rmax) rmax = c;
  }
  if (!(reqbuf = malloc((size_t)2 * rmax * sizeof *reqbuf))) {
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "summa: out of memory for %ld requests on rank %d", 2 * rmax, me);
    goto allocated;
  }
  for (int s = 0; s < 2 && active && rc == FUPERMOD_SUCCESS; s++) {
    size_t by[2] = {(size_t)pl.arows[me] * kbmax * sizeof(double), (size_t)pl.bcols[me] * kbmax * sizeof(double)};
    double **bufs[2] = {&st[s].apan, &st[s].bpan};
    for (int i = 0; i < 2 && rc == FUPERMOD_SUCCESS; i++)
      if (exec) rc = fupermod_exec_host_alloc(exec, by[i], (void **)bufs[i]);
      else if (!(*bufs[i] = malloc(by[i])))
        rc = fupermod_error(FUPERMOD_ERR_NOMEM, "summa: out of memory for the panels on rank %d (%ld rows, %ld columns, "
                            "b = %d)", me, pl.arows[me], pl.bcols[me], kbmax);
  }
allocated:
  if ((rc = agree(comm, rc)) != FUPERMOD_SUCCESS) goto done;
  if (MPI_Comm_dup(comm, &work) != MPI_SUCCESS) {
    rc = fupermod_error(FUPERMOD_ERR_MPI, "summa: MPI_Comm_dup failed");
    goto done;
  }
  MPI_Comm_set_errhandler(work, MPI_ERRORS_RETURN);
  {
    int use_thread = serialized_mpi();
    st[0].req = reqbuf;
    st[1].req = reqbuf + rmax;
    if (active && !accumulate) memset(C, 0, (size_t)pl.local[me] * sizeof *C);
    mpi_err = post_pieces(work, &pl, me, 0, A, B, x, &st[0]);
    for (int k = 0; k < K; k++) {
      piece_step *cur = &st[k & 1], *nxt = &st[(k + 1) & 1];
      int kb = pl.b < n - k * pl.b ? pl.b : n - k * pl.b, err, started;
      progress_arg pa;
      pthread_t th;
      if ((err = polite_waitall(cur->count, cur->req)) != MPI_SUCCESS && mpi_err == MPI_SUCCESS) mpi_err = err;
      cur->count = 0;
      nxt->count = 0;
      if (k + 1 < K && mpi_err == MPI_SUCCESS) mpi_err = post_pieces(work, &pl, me, k + 1, A, B, x, nxt);
      if (!active || mpi_err != MPI_SUCCESS) continue;
      pa = (progress_arg){nxt->req, nxt->count, MPI_SUCCESS, 0};
      /* only where another thread may call MPI; otherwise tests between the pieces' updates */
      started = use_thread && nxt->count > 0 && pthread_create(&th, NULL, progress_thread, &pa) == 0;
      for (int t = 0; t < nmine; t++) {
        int j = mine[t], flag, cols = pl.cols[j];
        const double *ap = cur->apan + (size_t)pl.prow[j] * kb, *bp = cur->bpan + (size_t)pl.pcol[j] * kb;
        double *cp = C + pl.off[j];
        /* on the CPU a piece's update runs in column chunks with a test between them, as
         * update_step's, so that the next pivot's messages move during it (MPI progresses only
         * inside MPI calls), however few pieces a process has */
        int chunk = exec ? cols : (cols + 3) / 4 < 128 ? 128 : (cols + 3) / 4;
        for (int j0 = 0; j0 < cols; j0 += chunk) {
          int w = cols - j0 < chunk ? cols - j0 : chunk;
          g0 = fupermod_time();
          c0 = fupermod_cpu_time();
          if (!exec)
            cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, pl.rows[j], w, kb, 1.0, ap, kb, bp + (size_t)j0 * kb, kb,
                        1.0, cp + (size_t)j0 * pl.rows[j], pl.rows[j]);
          else if (rc == FUPERMOD_SUCCESS)
            rc = fupermod_exec_dgemm(exec, FUPERMOD_EXEC_DGEMM_TRANS, pl.rows[j], cols, kb, 1.0, ap, kb, bp, kb, 1.0, cp,
                                     pl.rows[j], NULL);
          note_gemm(compute, &trace_rc, g0, c0);
#ifndef FUPERMOD_SMPI /* as in update_step */
          if (!started && nxt->count > 0 && (t + 1 < nmine || j0 + w < cols) &&
              (err = MPI_Testall(nxt->count, nxt->req, &flag, MPI_STATUSES_IGNORE)) != MPI_SUCCESS &&
              mpi_err == MPI_SUCCESS)
            mpi_err = err;
#else
          (void)flag;
#endif
        }
      }
      if (started) {
        atomic_store(&pa.stop, 1);
        pthread_join(th, NULL);
        if (pa.err != MPI_SUCCESS && mpi_err == MPI_SUCCESS) mpi_err = pa.err;
      }
    }
    /* requests left by a failed step must not outlive the buffers */
    for (int s = 0; s < 2; s++)
      if (st[s].count > 0) MPI_Waitall(st[s].count, st[s].req, MPI_STATUSES_IGNORE);
  }
  rc = step_end(work, me, mpi_err, rc, trace_rc, !active);
  rc = agree(comm, rc);
done:
  if (work != MPI_COMM_NULL) MPI_Comm_free(&work);
  for (int s = 0; s < 2; s++) {
    double *bufs[2] = {st[s].apan, st[s].bpan};
    for (int i = 0; i < 2; i++)
      if (exec) fupermod_exec_host_free(exec, bufs[i]);
      else free(bufs[i]);
  }
  free(reqbuf);
  free(x);
  free(mine);
  fupermod_summa_plan_free(&pl);
  return rc;
}

int fupermod_summa_dgemm_exec(MPI_Comm comm, const fupermod_layout *l, int n, int b, const double *A, const double *B,
                              double *C, int accumulate, fupermod_exec *exec, fupermod_trace *compute) {
  const double *ptrs[3] = {A, B, C};
  const char *names[3] = {"A", "B", "C"};
  extent *ext = NULL;
  int *seg = NULL, rc, K;
  if (comm == MPI_COMM_NULL) return fupermod_error(FUPERMOD_ERR_USAGE, "summa: communicator is MPI_COMM_NULL");
  if ((rc = agree_args(comm, l, n, b, ptrs, 3, names)) != FUPERMOD_SUCCESS) return rc;
  if (l->npieces > 0) return summa_pieces_run(comm, l, n, b, A, B, C, accumulate, exec, compute);
  K = l->M;
  ext = malloc((size_t)l->p * sizeof *ext);
  seg = malloc((size_t)(K + 1) * sizeof *seg);
  if (!ext || !seg) rc = fupermod_error(FUPERMOD_ERR_NOMEM, "summa: out of memory");
  for (int i = 0; ext && i < l->p; i++) extent_of(l, i, n, b, &ext[i]);
  for (int k = 0; seg && k <= K; k++) seg[k] = k < K ? k * b : n;
  if ((rc = agree(comm, rc)) == FUPERMOD_SUCCESS)
    rc = summa_run(comm, l->p, ext, seg, K, b < n ? b : n, A, B, C, accumulate, exec, compute);
  free(ext);
  free(seg);
  return rc;
}

static int by_int(const void *a, const void *b) { return (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b); }

/* The extents must tile the n x n matrix: each inside it, no two overlapping, their areas summing
 * to n^2. */
static int check_extents(int p, const extent *ext, int n) {
  long area = 0;
  for (int i = 0; i < p; i++) {
    const extent *e = &ext[i];
    if (e->rows < 0 || e->cols < 0 || ((e->rows > 0 && e->cols > 0) &&
        (e->row0 < 0 || e->col0 < 0 || (long)e->row0 + e->rows > n || (long)e->col0 + e->cols > n)))
      return fupermod_error(FUPERMOD_ERR_USAGE, "summa: process %d's extent (rows %d + %d, columns %d + %d) is not "
                            "inside the %d x %d matrix", i, e->row0, e->rows, e->col0, e->cols, n, n);
    if (e->rows == 0 || e->cols == 0) continue;
    area += (long)e->rows * e->cols;
    for (int j = 0; j < i; j++) {
      const extent *f = &ext[j];
      int lo, hi, lo2, hi2;
      if (f->rows > 0 && f->cols > 0 && overlap(e->row0, e->row0 + e->rows, f->row0, f->row0 + f->rows, &lo, &hi) &&
          overlap(e->col0, e->col0 + e->cols, f->col0, f->col0 + f->cols, &lo2, &hi2))
        return fupermod_error(FUPERMOD_ERR_USAGE, "summa: the extents of processes %d and %d overlap", j, i);
    }
  }
  if (area != (long)n * n)
    return fupermod_error(FUPERMOD_ERR_USAGE, "summa: the extents cover %ld of the %ld elements", area, (long)n * n);
  return FUPERMOD_SUCCESS;
}

int fupermod_summa_dgemm_extents(MPI_Comm comm, const int *row0, const int *rows, const int *col0, const int *cols,
                                 int n, int b, const double *A, const double *B, double *C, int accumulate,
                                 fupermod_exec *exec, fupermod_trace *compute) {
  extent *ext = NULL;
  int *seg = NULL, rc = FUPERMOD_SUCCESS, p = 0, me = 0, K = 0;
  uint64_t h = 1469598103934665603ULL;
  unsigned long hv[2], hmax[2];
  if (comm == MPI_COMM_NULL) return fupermod_error(FUPERMOD_ERR_USAGE, "summa: communicator is MPI_COMM_NULL");
  MPI_Comm_size(comm, &p);
  MPI_Comm_rank(comm, &me);
  if (!row0 || !rows || !col0 || !cols) rc = fupermod_error(FUPERMOD_ERR_USAGE, "summa: NULL extents");
  else if (n < 1 || b < 1) rc = fupermod_error(FUPERMOD_ERR_USAGE, "summa: n = %d, b = %d (both must be >= 1)", n, b);
  else if (!(ext = malloc((size_t)p * sizeof *ext)) || !(seg = malloc((size_t)(n / b + 4 * p + 2) * sizeof *seg)))
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "summa: out of memory");
  else {
    for (int i = 0; i < p; i++) ext[i] = (extent){row0[i], rows[i], col0[i], cols[i]};
    if ((rc = check_extents(p, ext, n)) == FUPERMOD_SUCCESS && ext[me].rows > 0 && ext[me].cols > 0 && (!A || !B || !C))
      rc = fupermod_error(FUPERMOD_ERR_USAGE, "summa: a matrix is NULL on rank %d, which owns %d x %d elements", me,
                          ext[me].rows, ext[me].cols);
  }
  if (rc == FUPERMOD_SUCCESS) {
    /* pivots: every b columns, cut where an extent begins or ends */
    int m = 0;
    for (int k = 0; k < n; k += b) seg[m++] = k;
    for (int i = 0; i < p; i++)
      if (ext[i].rows > 0 && ext[i].cols > 0) {
        seg[m++] = ext[i].row0, seg[m++] = ext[i].row0 + ext[i].rows;
        seg[m++] = ext[i].col0, seg[m++] = ext[i].col0 + ext[i].cols;
      }
    seg[m++] = n;
    qsort(seg, (size_t)m, sizeof *seg, by_int);
    for (int k = 0; k < m; k++)
      if (K == 0 || seg[k] != seg[K - 1]) seg[K++] = seg[k];
    K--; /* pivots between the K + 1 edges */
    for (int i = 0; i < p; i++) {
      const int v[4] = {ext[i].row0, ext[i].rows, ext[i].col0, ext[i].cols};
      const unsigned char *c = (const unsigned char *)v;
      for (size_t k = 0; k < sizeof v; k++) h = (h ^ c[k]) * 1099511628211ULL;
    }
  }
  if ((rc = agree(comm, rc)) == FUPERMOD_SUCCESS) {
    hv[0] = (unsigned long)h ^ (unsigned long)n ^ ((unsigned long)b << 32);
    hv[1] = ~hv[0];
    if (MPI_Allreduce(hv, hmax, 2, MPI_UNSIGNED_LONG, MPI_MAX, comm) != MPI_SUCCESS)
      rc = fupermod_error(FUPERMOD_ERR_MPI, "summa: MPI_Allreduce failed");
    else if (hmax[0] != hv[0] || hmax[1] != hv[1])
      rc = fupermod_error(FUPERMOD_ERR_USAGE, "summa: the ranks were given different extents, n or b");
  }
  if (rc == FUPERMOD_SUCCESS) rc = summa_run(comm, p, ext, seg, K, b < n ? b : n, A, B, C, accumulate, exec, compute);
  free(ext);
  free(seg);
  return rc;
}

/* ---- data and verification ---- */

static uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static double value_at(uint64_t seed, int kind, long i, long j) {
  uint64_t h = mix(seed * 0xd1342543de82ef95ULL + (uint64_t)i * 0x9e3779b97f4a7c15ULL +
                   (uint64_t)j * 0xc2b2ae3d27d4eb4fULL + 0x632be59bd9b4e019ULL);
  if (kind == FUPERMOD_SUMMA_INTEGER) return (double)((int)(h % 9) - 4);
  return (double)(h >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

double fupermod_summa_value(uint64_t seed, int kind, long i, long j) { return value_at(seed, kind, i, j); }

int fupermod_summa_fill(const fupermod_layout *l, int rank, int n, int b, uint64_t seed, int kind, double *X) {
  extent e;
  size_t off = 0;
  int rc = check_shape(l, n, b);
  if (rc != FUPERMOD_SUCCESS) return rc;
  if (rank < 0 || rank >= l->p)
    return fupermod_error(FUPERMOD_ERR_USAGE, "summa fill: rank %d out of range 0..%d", rank, l->p - 1);
  if (kind != FUPERMOD_SUMMA_INTEGER && kind != FUPERMOD_SUMMA_UNIFORM)
    return fupermod_error(FUPERMOD_ERR_USAGE, "summa fill: unknown kind %d", kind);
  if (local_of(l, rank, n, b) > 0 && !X) return fupermod_error(FUPERMOD_ERR_USAGE, "summa fill: X is NULL");
  for (int t = 0; t < tiles(l); t++) {
    if (tile_owner(l, t) != rank) continue;
    tile_extent(l, t, n, b, &e);
    for (int j = 0; j < e.cols; j++)
      for (int i = 0; i < e.rows; i++) X[off + (size_t)j * e.rows + i] = value_at(seed, kind, e.row0 + i, e.col0 + j);
    off += (size_t)e.rows * e.cols;
  }
  return FUPERMOD_SUCCESS;
}

/* Whether C0 is given: decided by the ranks that own data; they must agree. */
static int agree_c0(MPI_Comm comm, long local, const double *C0, int *has) {
  int in[2], out[2];
  int owns = local > 0;
  in[0] = owns ? C0 != NULL : 0;     /* max */
  in[1] = owns ? -(C0 != NULL) : -1; /* max of negated: -min */
  if (MPI_Allreduce(in, out, 2, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS)
    return fupermod_error(FUPERMOD_ERR_MPI, "summa check: MPI_Allreduce failed");
  if (out[0] != -out[1])
    return fupermod_error(FUPERMOD_ERR_USAGE, "summa check: C0 is given on some ranks that own data but not on others");
  *has = out[0];
  return FUPERMOD_SUCCESS;
}

int fupermod_summa_check_exact(MPI_Comm comm, const fupermod_layout *l, int n, int b, const double *A,
                               const double *B, const double *C0, const double *C, long *mismatches,
                               double *maxdiff) {
  const double *ptrs[3] = {A, B, C};
  const char *names[3] = {"A", "B", "C"};
  double *full[4] = {NULL, NULL, NULL, NULL}, *ref = NULL, *tmp = NULL, res[2] = {0.0, 0.0};
  int rc, me, has_c0 = 0, nmat;
  long *loc = NULL;
  if (comm == MPI_COMM_NULL) return fupermod_error(FUPERMOD_ERR_USAGE, "summa check: communicator is MPI_COMM_NULL");
  if ((rc = agree_args(comm, l, n, b, ptrs, 3, names)) != FUPERMOD_SUCCESS) return rc;
  if (n > 4096) return fupermod_error(FUPERMOD_ERR_USAGE, "summa exact check: n = %d is too large (at most 4096; use the randomised check)", n);
  MPI_Comm_rank(comm, &me);
  rc = (loc = malloc((size_t)l->p * sizeof *loc)) ? FUPERMOD_SUCCESS
                                                   : fupermod_error(FUPERMOD_ERR_NOMEM, "summa check: out of memory");
  if ((rc = agree(comm, rc)) != FUPERMOD_SUCCESS) goto done;
  for (int i = 0; i < l->p; i++) loc[i] = local_of(l, i, n, b);
  if ((rc = agree_c0(comm, loc[me], C0, &has_c0)) != FUPERMOD_SUCCESS) goto done;
  nmat = has_c0 ? 4 : 3;
  if (me == 0) {
    for (int m = 0; m < nmat && rc == FUPERMOD_SUCCESS; m++)
      if (!(full[m] = malloc((size_t)n * n * sizeof(double))))
        rc = fupermod_error(FUPERMOD_ERR_NOMEM, "summa exact check: out of memory for %d x %d matrices", n, n);
    size_t most = 1;
    for (int q = 1; q < l->p; q++)
      if ((size_t)loc[q] > most) most = (size_t)loc[q];
    if (rc == FUPERMOD_SUCCESS && (!(ref = calloc((size_t)n * n, sizeof *ref)) || !(tmp = malloc(most * sizeof *tmp))))
      rc = fupermod_error(FUPERMOD_ERR_NOMEM, "summa exact check: out of memory");
  }
  if ((rc = agree(comm, rc)) != FUPERMOD_SUCCESS) goto done;
  {
    const double *mine[4] = {A, B, C, C0};
    int err = MPI_SUCCESS;
    for (int m = 0; m < nmat; m++) {
      if (me != 0) {
        if (loc[me] > 0 && err == MPI_SUCCESS) err = MPI_Send(mine[m], (int)loc[me], MPI_DOUBLE, 0, m, comm);
        continue;
      }
      for (int q = 0; q < l->p; q++) {
        const double *src = q == 0 ? mine[m] : tmp;
        if (loc[q] == 0) continue;
        if (q != 0 && err == MPI_SUCCESS) err = MPI_Recv(tmp, (int)loc[q], MPI_DOUBLE, q, m, comm, MPI_STATUS_IGNORE);
        /* q's tiles one after another */
        for (int t = 0; t < tiles(l); t++) {
          extent e;
          if (tile_owner(l, t) != q) continue;
          tile_extent(l, t, n, b, &e);
          for (int j = 0; j < e.cols; j++)
            memcpy(full[m] + (size_t)(e.col0 + j) * n + e.row0, src + (size_t)j * e.rows, (size_t)e.rows * sizeof *src);
          src += (size_t)e.rows * e.cols;
        }
      }
    }
    if (err != MPI_SUCCESS) rc = fupermod_error(FUPERMOD_ERR_MPI, "summa exact check: gathering failed");
  }
  if (me == 0 && rc == FUPERMOD_SUCCESS) {
    long bad = 0;
    double md = 0.0;
    if (has_c0) memcpy(ref, full[3], (size_t)n * n * sizeof *ref);
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, full[0], n, full[1], n, 1.0, ref, n);
    for (size_t k = 0; k < (size_t)n * n; k++) {
      double d = fabs(full[2][k] - ref[k]);
      if (!(full[2][k] == ref[k])) bad++;
      if (!(d <= md)) md = d; /* NaN propagates */
    }
    res[0] = (double)bad;
    res[1] = md;
  }
  if ((rc = agree(comm, rc)) != FUPERMOD_SUCCESS) goto done;
  if (MPI_Bcast(res, 2, MPI_DOUBLE, 0, comm) != MPI_SUCCESS) {
    rc = fupermod_error(FUPERMOD_ERR_MPI, "summa exact check: MPI_Bcast failed");
    goto done;
  }
  if (mismatches) *mismatches = (long)res[0];
  if (maxdiff) *maxdiff = res[1];
done:
  for (int m = 0; m < 4; m++) free(full[m]);
  free(ref);
  free(tmp);
  free(loc);
  return rc;
}

/* acc[row0 + i] += sum_j X(i, j) x[col0 + j], and absacc the same with |X| and |x|. */
static void matvec(const extent *e, const double *X, const double *x, const double *ax, double *acc, double *absacc) {
  for (int j = 0; j < e->cols; j++) {
    const double *col = X + (size_t)j * e->rows;
    double xj = x[e->col0 + j], axj = ax ? ax[e->col0 + j] : 0.0;
    double *a = acc + e->row0, *s = absacc ? absacc + e->row0 : NULL;
    for (int i = 0; i < e->rows; i++) a[i] += col[i] * xj;
    if (s)
      for (int i = 0; i < e->rows; i++) s[i] += fabs(col[i]) * axj;
  }
}

/* matvec over each of rank's tiles, stored one after another */
static void matvecs(const fupermod_layout *l, int rank, int n, int b, const double *X, const double *x, const double *ax,
                    double *acc, double *absacc) {
  for (int t = 0; t < tiles(l); t++) {
    extent e;
    if (tile_owner(l, t) != rank) continue;
    tile_extent(l, t, n, b, &e);
    if (e.rows == 0 || e.cols == 0) continue;
    matvec(&e, X, x, ax, acc, absacc);
    X += (size_t)e.rows * e.cols;
  }
}

int fupermod_summa_check_random(MPI_Comm comm, const fupermod_layout *l, int n, int b, const double *A,
                                const double *B, const double *C0, const double *C, uint64_t seed,
                                double *ratio) {
  const double *ptrs[3] = {A, B, C};
  const char *names[3] = {"A", "B", "C"};
  double *v = NULL, *x, *ax, *u, *w;
  int rc, me, has_c0 = 0;
  if (comm == MPI_COMM_NULL) return fupermod_error(FUPERMOD_ERR_USAGE, "summa check: communicator is MPI_COMM_NULL");
  if (!ratio) return fupermod_error(FUPERMOD_ERR_USAGE, "summa check: ratio is NULL");
  if ((rc = agree_args(comm, l, n, b, ptrs, 3, names)) != FUPERMOD_SUCCESS) return rc;
  MPI_Comm_rank(comm, &me);
  if ((rc = agree_c0(comm, local_of(l, me, n, b), C0, &has_c0)) != FUPERMOD_SUCCESS) return rc;
  /* x, |x|, then [B x, |B| |x|] and [A (B x), |A| |B| |x|, C x, C0 x, |C0| |x|] */
  v = calloc((size_t)11 * n, sizeof *v);
  rc = v ? FUPERMOD_SUCCESS : fupermod_error(FUPERMOD_ERR_NOMEM, "summa check: out of memory (n = %d)", n);
  if ((rc = agree(comm, rc)) != FUPERMOD_SUCCESS) goto done;
  x = v;
  ax = v + n;
  u = v + 2 * (size_t)n;
  w = v + 4 * (size_t)n;
  for (int j = 0; j < n; j++) {
    x[j] = value_at(seed ^ 0x5851f42d4c957f2dULL, FUPERMOD_SUMMA_UNIFORM, -1, j);
    ax[j] = fabs(x[j]);
  }
  matvecs(l, me, n, b, B, x, ax, u, u + n);
  if (MPI_Allreduce(MPI_IN_PLACE, u, 2 * n, MPI_DOUBLE, MPI_SUM, comm) != MPI_SUCCESS) {
    rc = fupermod_error(FUPERMOD_ERR_MPI, "summa check: MPI_Allreduce failed");
    goto done;
  }
  matvecs(l, me, n, b, A, u, u + n, w, w + n);
  matvecs(l, me, n, b, C, x, NULL, w + 2 * (size_t)n, NULL);
  if (has_c0) matvecs(l, me, n, b, C0, x, ax, w + 3 * (size_t)n, w + 4 * (size_t)n);
  if (MPI_Allreduce(MPI_IN_PLACE, w, 5 * n, MPI_DOUBLE, MPI_SUM, comm) != MPI_SUCCESS) {
    rc = fupermod_error(FUPERMOD_ERR_MPI, "summa check: MPI_Allreduce failed");
    goto done;
  }
  {
    double worst = 0.0, tol = 5.0 * n * DBL_EPSILON;
    for (int i = 0; i < n; i++) {
      double diff = fabs(w[2 * (size_t)n + i] - (w[3 * (size_t)n + i] + w[i]));
      double r = diff / (tol * (w[(size_t)n + i] + w[4 * (size_t)n + i]) + DBL_MIN);
      if (!(r <= worst)) worst = r; /* NaN propagates */
    }
    *ratio = worst;
  }
done:
  free(v);
  return rc;
}
