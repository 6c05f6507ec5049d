/* The CUDA executor (fupermod/exec.h): one device, a compute stream and a copy stream, a cuBLAS
 * handle, cuFFT plans per layout and device buffers, all kept until the executor is closed.
 *
 * A GEMM session holds C on the device when C and a ring of panel slots fit in the memory limit.
 * An update uploads its panels into the next slot (on the copy stream, behind the GEMM that last
 * read that slot) and returns once they are on the device, its GEMM queued on the compute stream:
 * the next panels move, and the caller communicates, while the device multiplies. GEMMs run in
 * column chunks of C. With the number of updates planned (fupermod_exec_gemm_plan), the last TAIL
 * updates are held back and run chunk by chunk, all of them on a chunk before the next chunk, so
 * that each chunk of C goes back to the host while the next is computed: the download of C hides
 * behind TAIL updates, not one. Otherwise every update tiles C so that a tile and its panels fit
 * (out of card). Every error path drains both streams before it returns, so the caller may unpin
 * or free its buffers. Loaded by libfupermod on the first GPU executor (fupermod_exec_cuda.so in
 * the kernel directory). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <cufft.h>
#include "fupermod/benchmark.h"
#include "fupermod/conf.h"
#include "fupermod/exec_impl.h"
#include "fupermod/cuda/device.h"

/* A cuFFT plan, kept for the next FFT of its layout. Its work area is the executor's one shared
 * area (every transform runs on the compute stream, one after another), so a plan holds only
 * what cuFFT keeps for it on the device, as cudaMemGetInfo saw it made. */
typedef struct plan {
  long n, howmany, stride, dist;
  cufftHandle h;
  size_t work;        /* bytes of work area it needs */
  double bytes;       /* device bytes it holds */
  void *area;         /* the work area it was given */
  unsigned long used; /* the operation that used it last (x->op) */
  struct plan *next;
} plan;

#define PLANS_MAX 32 /* plans kept: the least recently used goes first */

typedef struct pinned {
  void *ptr;
  struct pinned *next;
} pinned;

#define CHUNKS 4 /* column chunks of C in a held-C GEMM */
#define TAIL 4   /* updates held back at the end of a planned session */
#define SLOTS (TAIL + 2) /* panel slots: a held-back update's slot is not reused before its GEMMs */
#define NCH 5 /* column chunks of a streamed DGEMM tile's last GEMM: 1/2, 1/4, 1/8, 1/16, 1/16 of it */
/* the streamed DGEMM's events (run_job): each is recorded again only after its waits are queued */
enum { EV_UP, EV_AFREE, EV_BFREE, EV_TFREE = EV_BFREE + 2, EV_CUP = EV_TFREE + 2, EV_CFREE = EV_CUP + 2,
       EV_CHUNK = EV_CFREE + 2, EV_BCHUNK = EV_CHUNK + NCH, NEV = EV_BCHUNK + NCH };

typedef struct {
  int slot, trans;
  long k;
} held_back;

typedef struct {
  int device;
  double limit; /* bytes */
  cudaStream_t s, cs, ds; /* compute; uploads (and the held C's downloads); FFT downloads */
  cudaEvent_t up[SLOTS], used[SLOTS], chunk[CHUNKS];
  cudaEvent_t fup[3], ffft[3], fdown[3]; /* the FFT batches' buffers */
  cudaEvent_t ev[NEV];                    /* the streamed DGEMM's */
  cublasHandle_t blas;
  /* GEMM session */
  double *C;
  long m, n, ldc, kmax;
  int active, held;
  int slots, tail, next; /* slots in use, updates to hold back, the next slot */
  long done, planned;    /* updates so far; planned (0: not said) */
  held_back back[TAIL];
  int nback;
  double *dC, *dP, *dG; /* dP: the held session's slots, each kmax (m + n); dG: the streamed DGEMM's */
  size_t cap_C, cap_P, cap_G; /* elements allocated */
  /* FFTs */
  plan *plans;
  int nplans;
  double plan_bytes; /* what the plans hold */
  double *dF, *dW;   /* the FFT buffers; the plans' work area */
  size_t cap_F, cap_W;
  unsigned long op;  /* operations so far: a plan or buffer not used by this one is idle */
  unsigned busy;     /* the buffers (B_*) this operation uses */
  pinned *pins;
  fupermod_exec_stats st;
} cx;

static int fail(const cx *x, int code, const char *what, cudaError_t e) {
  return fupermod_error(code, "CUDA executor, device %d: %s: %s", x ? x->device : -1, what, cudaGetErrorString(e));
}

/* One budget: what the executor keeps on the device for its next calls (the held C and its slots,
 * the streamed DGEMM's blocks, the FFT buffers, the plans' work area and the plans themselves)
 * stays within its limit together. What an operation needs is made room for by freeing what it
 * does not use: idle plans first, least recently used first (a plan is cheaper to make again than
 * the transfers a buffer saves), then idle buffers. */
enum { B_C = 1, B_P = 2, B_G = 4, B_F = 8, B_W = 16, NBUFS = 5 };

static double **buf_at(cx *x, int i, size_t **cap) {
  double **all[NBUFS] = {&x->dC, &x->dP, &x->dG, &x->dF, &x->dW};
  size_t *caps[NBUFS] = {&x->cap_C, &x->cap_P, &x->cap_G, &x->cap_F, &x->cap_W};
  *cap = caps[i];
  return all[i];
}

static double in_use(const cx *x) {
  return 8.0 * (double)(x->cap_C + x->cap_P + x->cap_G + x->cap_F + x->cap_W) + x->plan_bytes;
}

static void plan_free(cx *x, plan **pp) {
  plan *p = *pp;
  *pp = p->next;
  cufftDestroy(p->h);
  x->plan_bytes -= p->bytes;
  x->nplans--;
  free(p);
}

/* The least recently used plan that this operation does not use (NULL: none). */
static plan **idle_plan(cx *x) {
  plan **lru = NULL;
  for (plan **pp = &x->plans; *pp; pp = &(*pp)->next)
    if ((*pp)->used != x->op && (!lru || (*pp)->used < (*lru)->used)) lru = pp;
  return lru;
}

/* Free idle plans, then idle buffers, until bytes more fit in the limit (all = 1: everything
 * idle); whether they fit. */
static int make_room(cx *x, double bytes, int all) {
  plan **pp;
  while ((all || in_use(x) + bytes > x->limit) && (pp = idle_plan(x))) plan_free(x, pp);
  for (int i = 0; i < NBUFS && (all || in_use(x) + bytes > x->limit); i++) {
    size_t *cap;
    double **b = buf_at(x, i, &cap);
    if (!*b || (x->busy & (1u << i))) continue;
    cudaFree(*b);
    *b = NULL;
    *cap = 0;
  }
  return in_use(x) + bytes <= x->limit;
}

/* A new operation: the plans and buffers of earlier ones are idle (a held C and its slots stay
 * in use for their session). */
static void begin_op(cx *x) {
  x->op++;
  x->busy = x->active && x->held ? B_C | B_P : 0;
}

/* a device buffer of at least n doubles, grown as needed within the limit (its contents are not
 * kept) */
static int grow(cx *x, double **buf, size_t *cap, size_t n, const char *what) {
  cudaError_t e;
  for (int i = 0; i < NBUFS; i++) {
    size_t *c;
    if (buf_at(x, i, &c) == buf) x->busy |= 1u << i;
  }
  if (n <= *cap) return FUPERMOD_SUCCESS;
  cudaFree(*buf);
  *buf = NULL;
  *cap = 0;
  if (!make_room(x, 8.0 * (double)n, 0))
    return fupermod_error(FUPERMOD_ERR_NOMEM, "CUDA executor, device %d: %s (%.0f bytes) exceed the memory limit of %.0f "
                          "bytes beside the %.0f in use", x->device, what, 8.0 * (double)n, x->limit, in_use(x));
  if ((e = cudaMalloc((void **)buf, n * sizeof(double))) != cudaSuccess) {
    cudaGetLastError();
    return fail(x, FUPERMOD_ERR_NOMEM, what, e);
  }
  *cap = n;
  return FUPERMOD_SUCCESS;
}

static int wait(cx *x, const char *what) {
  cudaError_t e = cudaStreamSynchronize(x->s);
  return e == cudaSuccess ? FUPERMOD_SUCCESS : fail(x, FUPERMOD_ERR_SYSTEM, what, e);
}

/* an error leaves nothing queued that reads or writes the caller's memory */
static int drained(cx *x, int rc) {
  if (rc != FUPERMOD_SUCCESS) {
    cudaStreamSynchronize(x->ds);
    cudaStreamSynchronize(x->cs);
    cudaStreamSynchronize(x->s);
    cudaGetLastError();
  }
  return rc;
}

/* rc unchanged, or the failure of waiting for every stream (what: the work waited for) */
static int settled(cx *x, int rc, const char *what) {
  cudaError_t e;
  if (rc != FUPERMOD_SUCCESS) return rc;
  e = cudaStreamSynchronize(x->ds);
  if (e == cudaSuccess) e = cudaStreamSynchronize(x->s);
  if (e == cudaSuccess) e = cudaStreamSynchronize(x->cs);
  return e == cudaSuccess ? rc : fail(x, FUPERMOD_ERR_SYSTEM, what, e);
}

/* Create (make = 1) or destroy (0, those created) every event of the executor. */
static int events(cx *x, int make) {
  struct {
    cudaEvent_t *ev;
    int n;
  } sets[] = {{x->up, SLOTS}, {x->used, SLOTS}, {x->chunk, CHUNKS}, {x->fup, 3}, {x->ffft, 3}, {x->fdown, 3}, {x->ev, NEV}};
  for (size_t k = 0; k < sizeof sets / sizeof sets[0]; k++)
    for (int i = 0; i < sets[k].n; i++) {
      cudaError_t e;
      if (!make) {
        if (sets[k].ev[i]) cudaEventDestroy(sets[k].ev[i]);
      } else if ((e = cudaEventCreateWithFlags(&sets[k].ev[i], cudaEventDisableTiming)) != cudaSuccess)
        return fail(x, FUPERMOD_ERR_NODEVICE, "cudaEventCreate", e);
    }
  return FUPERMOD_SUCCESS;
}

static int x_open(const fupermod_exec_opts *o, void **impl, char *describe, size_t dsize, char *pci, size_t psize) {
  cx *x;
  int count = 0, prev = kern_cuda_saved(), rc = FUPERMOD_SUCCESS, sharers, capped;
  size_t freeb = 0, total = 0;
  char budget[64];
  struct cudaDeviceProp prop;
  cudaError_t e;
  double t0 = fupermod_time();
  if ((e = cudaGetDeviceCount(&count)) != cudaSuccess || count <= 0) {
    cudaGetLastError();
    return fupermod_error(FUPERMOD_ERR_NODEVICE, "no CUDA device%s%s", e != cudaSuccess ? ": " : "",
                          e != cudaSuccess ? cudaGetErrorString(e) : "");
  }
  if (o->cuda_device >= count)
    return fupermod_error(FUPERMOD_ERR_NODEVICE, "no CUDA device %d: this process sees %d (CUDA_VISIBLE_DEVICES numbers "
                          "them from 0)", o->cuda_device, count);
  if (!(x = calloc(1, sizeof *x))) return fupermod_error(FUPERMOD_ERR_NOMEM, "CUDA executor: out of memory");
  x->device = o->cuda_device;
  if ((e = cudaSetDevice(x->device)) != cudaSuccess) rc = fail(x, FUPERMOD_ERR_NODEVICE, "cudaSetDevice", e);
  else if ((e = cudaMemGetInfo(&freeb, &total)) != cudaSuccess) rc = fail(x, FUPERMOD_ERR_NODEVICE, "cudaMemGetInfo", e);
  else if ((e = cudaStreamCreateWithFlags(&x->s, cudaStreamNonBlocking)) != cudaSuccess ||
           (e = cudaStreamCreateWithFlags(&x->cs, cudaStreamNonBlocking)) != cudaSuccess ||
           (e = cudaStreamCreateWithFlags(&x->ds, cudaStreamNonBlocking)) != cudaSuccess)
    rc = fail(x, FUPERMOD_ERR_NODEVICE, "cudaStreamCreate", e);
  else if (cublasCreate(&x->blas) != CUBLAS_STATUS_SUCCESS)
    rc = fupermod_error(FUPERMOD_ERR_NODEVICE, "CUDA executor, device %d: cublasCreate failed", x->device);
  else if (cublasSetStream(x->blas, x->s) != CUBLAS_STATUS_SUCCESS)
    rc = fupermod_error(FUPERMOD_ERR_SYSTEM, "CUDA executor, device %d: cublasSetStream failed", x->device);
  if (rc == FUPERMOD_SUCCESS) rc = events(x, 1);
  if (rc != FUPERMOD_SUCCESS) {
    events(x, 0);
    if (x->blas) cublasDestroy(x->blas);
    if (x->ds) cudaStreamDestroy(x->ds);
    if (x->cs) cudaStreamDestroy(x->cs);
    if (x->s) cudaStreamDestroy(x->s);
    cudaGetLastError();
    free(x);
    return kern_cuda_back(prev, rc);
  }
  /* the processes of the configuration that use this device share it, whoever opens first;
   * an explicit limit is taken as it is, within what is free */
  sharers = o->device_sharers > 1 ? o->device_sharers : 1;
  x->limit = o->mem_limit > 0 ? o->mem_limit : 0.9 * (double)total / sharers;
  capped = x->limit > (double)freeb;
  if (capped) x->limit = (double)freeb;
  if (o->mem_limit > 0) snprintf(budget, sizeof budget, "mem_limit");
  else if (sharers > 1) snprintf(budget, sizeof budget, "90 %% of its memory / %d processes", sharers);
  else snprintf(budget, sizeof budget, "90 %% of its memory");
  if (cudaDeviceGetPCIBusId(pci, (int)psize, x->device) != cudaSuccess) {
    cudaGetLastError();
    if (psize) pci[0] = '\0';
  }
  if (cudaGetDeviceProperties(&prop, x->device) != cudaSuccess) {
    cudaGetLastError();
    snprintf(prop.name, sizeof prop.name, "unknown");
  }
  snprintf(describe, dsize, "cuda device %d (%s, PCI %s, %.1f GB, limit %.2f GB: %s%s, %d host thread%s)", x->device,
           prop.name, psize && pci[0] ? pci : "?", (double)total / 1e9, x->limit / 1e9, budget,
           capped ? ", capped at the free memory" : "", o->threads, o->threads == 1 ? "" : "s");
  x->st.first_use_s = fupermod_time() - t0;
  *impl = x;
  return kern_cuda_back(prev, FUPERMOD_SUCCESS);
}

static void x_close(void *impl) {
  cx *x = impl;
  int prev;
  if (!x) return;
  prev = kern_cuda_saved();
  cudaSetDevice(x->device);
  cudaStreamSynchronize(x->ds);
  cudaStreamSynchronize(x->cs);
  cudaStreamSynchronize(x->s);
  while (x->plans) plan_free(x, &x->plans);
  for (pinned *p = x->pins, *next; p; p = next) {
    next = p->next;
    cudaHostUnregister(p->ptr);
    free(p);
  }
  cudaFree(x->dC), cudaFree(x->dP), cudaFree(x->dG), cudaFree(x->dF), cudaFree(x->dW);
  events(x, 0);
  cublasDestroy(x->blas);
  cudaStreamDestroy(x->ds);
  cudaStreamDestroy(x->cs);
  cudaStreamDestroy(x->s);
  cudaGetLastError();
  free(x);
  kern_cuda_restore(prev);
}

static int x_pin(void *impl, void *ptr, size_t bytes) {
  cx *x = impl;
  pinned *p;
  double t0 = fupermod_time();
  int prev = kern_cuda_saved();
  cudaError_t e;
  cudaSetDevice(x->device);
  e = cudaHostRegister(ptr, bytes, cudaHostRegisterDefault);
  if (e == cudaErrorHostMemoryAlreadyRegistered) { /* someone else's pinning serves as well */
    cudaGetLastError();
    return kern_cuda_back(prev, FUPERMOD_SUCCESS);
  }
  if (e != cudaSuccess) {
    cudaGetLastError();
    return kern_cuda_back(prev, fail(x, FUPERMOD_ERR_SYSTEM, "cudaHostRegister", e));
  }
  if (!(p = malloc(sizeof *p))) {
    cudaHostUnregister(ptr);
    return kern_cuda_back(prev, fupermod_error(FUPERMOD_ERR_NOMEM, "CUDA executor: out of memory"));
  }
  p->ptr = ptr;
  p->next = x->pins;
  x->pins = p;
  x->st.pin_s += fupermod_time() - t0;
  return kern_cuda_back(prev, FUPERMOD_SUCCESS);
}

static int x_unpin(void *impl, void *ptr) {
  cx *x = impl;
  int prev = kern_cuda_saved();
  for (pinned **pp = &x->pins; *pp; pp = &(*pp)->next)
    if ((*pp)->ptr == ptr) {
      pinned *p = *pp;
      cudaError_t e;
      cudaSetDevice(x->device);
      e = cudaHostUnregister(ptr);
      *pp = p->next;
      free(p);
      if (e != cudaSuccess) cudaGetLastError();
      return kern_cuda_back(prev, e == cudaSuccess ? FUPERMOD_SUCCESS : fail(x, FUPERMOD_ERR_SYSTEM, "cudaHostUnregister", e));
    }
  return kern_cuda_back(prev, FUPERMOD_SUCCESS); /* not pinned by this executor: nothing to undo */
}

/* rows x cols doubles between host (leading dimension ld) and device (leading dimension dld), on
 * stream st. Data contiguous on both sides (one column, or columns without gaps) go as one plain
 * copy: a 2D copy is carried out row by row by the copy engine (the H100's in-card out-of-card
 * GEMM, whose 2D copies had no gaps, moved them below the link's rate: docs/kernels.md, "A
 * simulated GPU"), so only data with gaps pay for it. */
static int copy_on(cx *x, cudaStream_t st, int up, double *dev, long dld, double *host, long ld, long rows, long cols) {
  size_t dpitch = (size_t)dld * sizeof(double), hpitch = (size_t)ld * sizeof(double), w = (size_t)rows * sizeof(double);
  cudaError_t e;
  if (rows <= 0 || cols <= 0) return FUPERMOD_SUCCESS;
  if (cols == 1 || (ld == rows && dld == rows))
    e = up ? cudaMemcpyAsync(dev, host, w * (size_t)cols, cudaMemcpyHostToDevice, st)
           : cudaMemcpyAsync(host, dev, w * (size_t)cols, cudaMemcpyDeviceToHost, st);
  else
    e = up ? cudaMemcpy2DAsync(dev, dpitch, host, hpitch, w, (size_t)cols, cudaMemcpyHostToDevice, st)
           : cudaMemcpy2DAsync(host, hpitch, dev, dpitch, w, (size_t)cols, cudaMemcpyDeviceToHost, st);
  *(up ? &x->st.bytes_up : &x->st.bytes_down) += 8.0 * (double)rows * (double)cols;
  return e == cudaSuccess ? FUPERMOD_SUCCESS : fail(x, FUPERMOD_ERR_SYSTEM, up ? "upload" : "download", e);
}

/* the same with the device's leading dimension rows */
static int xfer_on(cx *x, cudaStream_t st, int up, double *dev, double *host, long ld, long rows, long cols) {
  return copy_on(x, st, up, dev, rows, host, ld, rows, cols);
}

static int put(cx *x, double *dev, const double *host, long ld, long rows, long cols) {
  return xfer_on(x, x->s, 1, dev, (double *)host, ld, rows, cols);
}

static int record(cx *x, cudaEvent_t ev, cudaStream_t st) {
  cudaError_t e = cudaEventRecord(ev, st);
  return e == cudaSuccess ? FUPERMOD_SUCCESS : fail(x, FUPERMOD_ERR_SYSTEM, "cudaEventRecord", e);
}

static int after(cx *x, cudaStream_t st, cudaEvent_t ev) {
  cudaError_t e = cudaStreamWaitEvent(st, ev, 0);
  return e == cudaSuccess ? FUPERMOD_SUCCESS : fail(x, FUPERMOD_ERR_SYSTEM, "cudaStreamWaitEvent", e);
}

/* C's columns [j0, j1) of chunk j of CHUNKS */
static void chunk_cols(long n, int j, long *j0, long *j1) {
  *j0 = n * j / CHUNKS;
  *j1 = n * (j + 1) / CHUNKS;
}

static int gemm(cx *x, int trans, long m, long n, long k, const double *dA, long lda, const double *dB, double *dC) {
  const double one = 1.0;
  if (cublasDgemm(x->blas, trans ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_OP_N, (int)m, (int)n, (int)k, &one, dA, (int)lda,
                  dB, (int)k, &one, dC, (int)m) != CUBLAS_STATUS_SUCCESS)
    return fupermod_error(FUPERMOD_ERR_SYSTEM, "CUDA executor, device %d: cublasDgemm of %ld x %ld x %ld failed", x->device,
                          m, n, k);
  return FUPERMOD_SUCCESS;
}

static int x_gemm_begin(void *impl, double *C, long m, long n, long ldc, long kmax, int zero) {
  cx *x = impl;
  int prev = kern_cuda_saved(), rc = FUPERMOD_SUCCESS;
  double cpanel = (double)(kmax ? kmax : 1) * (double)(m + n), need = 8.0 * ((double)m * (double)n + 2.0 * cpanel);
  if (x->active) return fupermod_error(FUPERMOD_ERR_USAGE, "CUDA executor: a GEMM session is open already");
  x->C = C, x->m = m, x->n = n, x->ldc = ldc, x->kmax = kmax;
  x->active = 1;
  x->held = 0;
  if (m == 0 || n == 0) return kern_cuda_back(prev, FUPERMOD_SUCCESS);
  cudaSetDevice(x->device);
  begin_op(x);
  /* C stays on the device when it fits with two slots of panels (SLOTS, to hold back the last
   * updates, where they fit too); else each update tiles it */
  x->done = 0, x->planned = 0, x->nback = 0, x->next = 0;
  if (need <= x->limit) {
    x->slots = 8.0 * ((double)m * (double)n + SLOTS * cpanel) <= x->limit ? SLOTS : 2;
    x->tail = x->slots == SLOTS ? TAIL : 0;
    if ((rc = grow(x, &x->dC, &x->cap_C, (size_t)m * (size_t)n, "C")) == FUPERMOD_SUCCESS &&
        (rc = grow(x, &x->dP, &x->cap_P, (size_t)x->slots * (size_t)cpanel, "the panels")) == FUPERMOD_SUCCESS) {
      cudaError_t e;
      x->held = 1;
      /* C is ready on the compute stream; every slot is free */
      if (zero && (e = cudaMemsetAsync(x->dC, 0, (size_t)m * (size_t)n * sizeof(double), x->s)) != cudaSuccess)
        rc = fail(x, FUPERMOD_ERR_SYSTEM, "clearing C", e);
      else if (!zero) rc = put(x, x->dC, C, ldc, m, n);
      for (int i = 0; i < x->slots && rc == FUPERMOD_SUCCESS; i++) rc = record(x, x->used[i], x->s);
      for (int j = 0; j < CHUNKS && rc == FUPERMOD_SUCCESS; j++) rc = record(x, x->chunk[j], x->s);
      if (rc == FUPERMOD_SUCCESS && !zero) rc = wait(x, "uploading C"); /* the caller may change its C */
      rc = drained(x, rc);
    } else if (rc == FUPERMOD_ERR_NOMEM)
      rc = FUPERMOD_SUCCESS; /* the device has less than it said: out of card */
  }
  if (rc == FUPERMOD_SUCCESS && !x->held && m > 0 && n > 0) x->st.fallbacks++; /* C does not stay on the device */
  if (rc == FUPERMOD_SUCCESS && !x->held && zero)
    for (long j = 0; j < n; j++) memset(C + (size_t)j * (size_t)ldc, 0, (size_t)m * sizeof *C);
  if (rc != FUPERMOD_SUCCESS) x->active = 0;
  return kern_cuda_back(prev, rc);
}

/* ---- the streamed DGEMM (fupermod_exec_dgemm, and an update whose C does not stay on the device) ----
 *
 * C is cut into row blocks of mh rows and, within a block, tiles of nv columns. A block's rows of A
 * stay on the device for all its tiles. Its first tile streams A and B in panels of growing depth
 * (the first small, so the device starts early), each multiplied as soon as it is up; a later
 * tile uploads its columns of B whole while the tile before is computed (two B buffers). A tile's
 * last GEMM runs in column chunks of halving width; each chunk, once computed, gets beta times its
 * part of C (uploaded behind the GEMMs) on the download stream and goes back to the host, so
 * only the last, narrowest chunk is not hidden. Tiles alternate between two buffers where they fit;
 * the tightest memory gets one of each. */

typedef struct {
  int trans, serial;
  long M, N, K;
  double alpha, beta;
  const double *A, *B;
  long lda, ldb;
  double *C;
  long ldc;
  long mh, nv, kb; /* block rows, tile columns, deepest panel */
  int nb;          /* buffers of B, of the tile and of C's tile: 1 or 2 */
} job;

static double job_elems(const job *j) {
  double tile = (double)j->mh * (double)j->nv;
  return (double)j->mh * (double)j->K + (double)j->nb * ((double)j->K * (double)j->nv + tile * (j->beta != 0.0 ? 2 : 1));
}

/* The largest blocks that fit: every tile of a block re-reads the block's A on the device, and
 * every block uploads B again, so rows are kept before columns; two tiles when C has many columns,
 * so the first tile's GEMM hides the upload of A. */
static int job_fit(cx *x, job *j) {
  double cap = x->limit / 8.0;
  j->mh = j->M;
  j->nv = j->N >= 2048 ? (j->N + 1) / 2 : j->N;
  j->kb = j->K < 4096 ? j->K : 4096;
  j->nb = 2;
  while (job_elems(j) > cap) {
    if (j->nv > 1024) j->nv = (j->nv + 1) / 2;
    else if (j->mh > 1024) j->mh = (j->mh + 1) / 2;
    else if (j->nv > 1 && j->nv >= j->mh) j->nv = (j->nv + 1) / 2;
    else if (j->mh > 1) j->mh = (j->mh + 1) / 2;
    else if (j->nb == 2) j->nb = 1;
    else
      return fupermod_error(FUPERMOD_ERR_NOMEM, "CUDA executor, device %d: a DGEMM with K = %ld does not fit in the "
                            "memory limit of %.0f bytes (it needs %.0f)", x->device, j->K, x->limit, 8.0 * job_elems(j));
  }
  return FUPERMOD_SUCCESS;
}

static int gemm_on(cx *x, int trans, long m, long n, long k, double alpha, const double *dA, long lda, const double *dB,
                   long ldb, double beta, double *dC, long ldc) {
  if (cublasDgemm(x->blas, trans ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_OP_N, (int)m, (int)n, (int)k, &alpha, dA, (int)lda,
                  dB, (int)ldb, &beta, dC, (int)ldc) != CUBLAS_STATUS_SUCCESS)
    return fupermod_error(FUPERMOD_ERR_SYSTEM, "CUDA executor, device %d: cublasDgemm of %ld x %ld x %ld failed", x->device,
                          m, n, k);
  return FUPERMOD_SUCCESS;
}

/* columns [*j0, *j1) of chunk c of a tile of n columns */
static void chunk_of(long n, int c, long *j0, long *j1) {
  *j0 = n - (n >> c);
  *j1 = c == NCH - 1 ? n : n - (n >> (c + 1));
}

/* with the serial flag, every operation is waited for */
static int step(cx *x, const job *j, int rc) {
  return j->serial ? settled(x, rc, "a serial DGEMM") : rc;
}

/* a block's A (mh x K, or K x mh stored) and a tile's B (K x nv), device side */
static double *dev_B(cx *x, const job *j, int b) { return x->dG + (size_t)j->mh * (size_t)j->K + (size_t)b * (size_t)j->K * (size_t)j->nv; }
static double *dev_T(cx *x, const job *j, int t) { return dev_B(x, j, j->nb) + (size_t)t * (size_t)j->mh * (size_t)j->nv; }
static double *dev_Cu(cx *x, const job *j, int t) { return dev_T(x, j, j->nb) + (size_t)t * (size_t)j->mh * (size_t)j->nv; }

/* rows [p0, p0 + kb) of the block's A and of the tile's B up, on the copy stream */
static int panel_up(cx *x, const job *j, long r0, long r, long c0, long c, int b, long p0, long kb) {
  int rc;
  double *dA = x->dG;
  if (j->trans) rc = copy_on(x, x->cs, 1, dA + p0, j->K, (double *)j->A + p0 + (size_t)r0 * (size_t)j->lda, j->lda, kb, r);
  else rc = copy_on(x, x->cs, 1, dA + (size_t)p0 * (size_t)r, r, (double *)j->A + r0 + (size_t)p0 * (size_t)j->lda, j->lda, r, kb);
  if (rc == FUPERMOD_SUCCESS)
    rc = copy_on(x, x->cs, 1, dev_B(x, j, b) + p0, j->K, (double *)j->B + p0 + (size_t)c0 * (size_t)j->ldb, j->ldb, kb, c);
  return rc;
}

/* T (r x c) = alpha op(A)[:, p0..p0+kb) B[p0..p0+kb, cols [q0, q1)) + (p0 > 0) T, on the compute stream */
static int panel_gemm(cx *x, const job *j, long r, int b, int t, long p0, long kb, long q0, long q1) {
  const double *dA = j->trans ? x->dG + p0 : x->dG + (size_t)p0 * (size_t)r;
  return gemm_on(x, j->trans, r, q1 - q0, kb, j->alpha, dA, j->trans ? j->K : r,
                 dev_B(x, j, b) + p0 + (size_t)q0 * (size_t)j->K, j->K, p0 > 0 ? 1.0 : 0.0,
                 dev_T(x, j, t) + (size_t)q0 * (size_t)r, r);
}

/* a tile of C: its rows and columns, and its buffers */
typedef struct {
  long r0, r, c0, c;
  int b, t;
} tile;

/* the tile's part of C up into its buffer, behind what the copy stream holds */
static int cu_up(cx *x, const job *j, const tile *tl) {
  int rc = after(x, x->cs, x->ev[EV_CFREE + tl->t]);
  if (rc == FUPERMOD_SUCCESS)
    rc = copy_on(x, x->cs, 1, dev_Cu(x, j, tl->t), tl->r, j->C + tl->r0 + (size_t)tl->c0 * (size_t)j->ldc, j->ldc, tl->r,
                 tl->c);
  if (rc == FUPERMOD_SUCCESS) rc = record(x, x->ev[EV_CUP + tl->t], x->cs);
  return step(x, j, rc);
}

/* chunk ch of a computed tile: beta C added (on the compute stream), then downloaded */
static int chunk_back(cx *x, const job *j, const tile *tl, int ch) {
  const double one = 1.0;
  long q0, q1;
  double *dT;
  int rc = FUPERMOD_SUCCESS;
  chunk_of(tl->c, ch, &q0, &q1);
  if (q1 <= q0) return FUPERMOD_SUCCESS;
  dT = dev_T(x, j, tl->t) + (size_t)q0 * (size_t)tl->r;
  if (j->beta != 0.0 && ch == 0) rc = after(x, x->s, x->ev[EV_CUP + tl->t]); /* C's tile is up */
  if (rc == FUPERMOD_SUCCESS && j->beta != 0.0 &&
      cublasDgeam(x->blas, CUBLAS_OP_N, CUBLAS_OP_N, (int)tl->r, (int)(q1 - q0), &one, dT, (int)tl->r, &j->beta,
                  dev_Cu(x, j, tl->t) + (size_t)q0 * (size_t)tl->r, (int)tl->r, dT, (int)tl->r) != CUBLAS_STATUS_SUCCESS)
    rc = fupermod_error(FUPERMOD_ERR_SYSTEM, "CUDA executor, device %d: cublasDgeam failed", x->device);
  if (rc == FUPERMOD_SUCCESS) rc = record(x, x->ev[EV_CHUNK + ch], x->s);
  if (rc == FUPERMOD_SUCCESS) rc = after(x, x->ds, x->ev[EV_CHUNK + ch]);
  if (rc == FUPERMOD_SUCCESS)
    rc = copy_on(x, x->ds, 0, dT, tl->r, j->C + tl->r0 + (size_t)(tl->c0 + q0) * (size_t)j->ldc, j->ldc, tl->r, q1 - q0);
  return step(x, j, rc);
}

/* the tile's buffers are free once it is downloaded (T) and added (C's) */
static int tile_done(cx *x, const tile *tl) {
  int rc = record(x, x->ev[EV_TFREE + tl->t], x->ds);
  return rc == FUPERMOD_SUCCESS ? record(x, x->ev[EV_CFREE + tl->t], x->s) : rc;
}

/* chunk ch of the tile's last GEMM (its last panel from p0, kb deep, or all of K) */
static int chunk_gemm_of(cx *x, const job *j, const tile *tl, long p0, long kb, int ch) {
  long q0, q1;
  int rc = FUPERMOD_SUCCESS;
  chunk_of(tl->c, ch, &q0, &q1);
  if (q1 <= q0) return FUPERMOD_SUCCESS;
  if (kb > 0) rc = panel_gemm(x, j, tl->r, tl->b, tl->t, p0, kb, q0, q1);
  else { /* K = 0: C = beta C */
    cudaError_t e = cudaMemset2DAsync(dev_T(x, j, tl->t) + (size_t)q0 * (size_t)tl->r, (size_t)tl->r * 8, 0,
                                      (size_t)tl->r * 8, (size_t)(q1 - q0), x->s);
    if (e != cudaSuccess) rc = fail(x, FUPERMOD_ERR_SYSTEM, "clearing a tile", e);
  }
  return step(x, j, rc);
}

static int run_job(cx *x, job *j, fupermod_exec_dgemm_info *info) {
  long tiles = 0, nblocks, ntiles;
  tile pend = {0, 0, 0, 0, 0, 0};
  int rc, pending = 0;
  begin_op(x);
  if ((rc = job_fit(x, j)) != FUPERMOD_SUCCESS) return rc;
  nblocks = (j->M + j->mh - 1) / j->mh, ntiles = (j->N + j->nv - 1) / j->nv;
  if ((rc = grow(x, &x->dG, &x->cap_G, (size_t)job_elems(j), "the DGEMM's blocks")) != FUPERMOD_SUCCESS) return rc;
  if (info)
    *info = (fupermod_exec_dgemm_info){nblocks, ntiles, j->mh, j->nv, j->kb, 8.0 * job_elems(j), nblocks == 1};
  if (cublasSetStream(x->blas, x->s) != CUBLAS_STATUS_SUCCESS)
    return fupermod_error(FUPERMOD_ERR_SYSTEM, "CUDA executor, device %d: cublasSetStream failed", x->device);
  for (int k = 0; k < 2 && rc == FUPERMOD_SUCCESS; k++) /* every buffer free */
    if ((rc = record(x, x->ev[EV_BFREE + k], x->s)) == FUPERMOD_SUCCESS &&
        (rc = record(x, x->ev[EV_TFREE + k], x->s)) == FUPERMOD_SUCCESS)
      rc = record(x, x->ev[EV_CFREE + k], x->s);
  if (rc == FUPERMOD_SUCCESS) rc = record(x, x->ev[EV_AFREE], x->s);
  for (long bi = 0; bi < nblocks && rc == FUPERMOD_SUCCESS; bi++)
    for (long tj = 0; tj < ntiles && rc == FUPERMOD_SUCCESS; tj++, tiles++) {
      tile tl;
      long p0 = 0, kb = j->K;
      /* a tile's chunks go back at once where C need not come up first, where it is the last, or
       * where its buffer is the next tile's; otherwise after the next tile's B and first chunk, so
       * that C's upload waits behind the B the device needs next */
      int now = j->beta == 0.0 || j->nb == 1 || (bi == nblocks - 1 && tj == ntiles - 1);
      tl.r0 = bi * j->mh, tl.r = j->M - tl.r0 < j->mh ? j->M - tl.r0 : j->mh;
      tl.c0 = tj * j->nv, tl.c = j->N - tl.c0 < j->nv ? j->N - tl.c0 : j->nv;
      tl.b = tl.t = (int)(tiles % j->nb);
      if ((rc = after(x, x->cs, x->ev[EV_BFREE + tl.b])) != FUPERMOD_SUCCESS ||
          (rc = after(x, x->s, x->ev[EV_TFREE + tl.t])) != FUPERMOD_SUCCESS)
        break;
      if (tj == 0) { /* A and B in panels of growing depth, each multiplied as soon as it is up */
        long next = j->kb / 8 > 0 ? j->kb / 8 : 1;
        rc = after(x, x->cs, x->ev[EV_AFREE]);
        while (rc == FUPERMOD_SUCCESS && (kb = j->K - p0 < next ? j->K - p0 : next) > 0) {
          if ((rc = panel_up(x, j, tl.r0, tl.r, tl.c0, tl.c, tl.b, p0, kb)) == FUPERMOD_SUCCESS &&
              (rc = record(x, x->ev[EV_UP], x->cs)) == FUPERMOD_SUCCESS)
            rc = after(x, x->s, x->ev[EV_UP]);
          rc = step(x, j, rc);
          if (p0 + kb == j->K) break; /* the last panel runs in chunks, below */
          if (rc == FUPERMOD_SUCCESS) rc = step(x, j, panel_gemm(x, j, tl.r, tl.b, tl.t, p0, kb, 0, tl.c));
          p0 += kb;
          next = next * 4 < j->kb ? next * 4 : j->kb;
        }
      } else if (j->K > 0) { /* this tile's columns of B, chunk by chunk, behind the GEMMs of the tile before */
        for (int ch = 0; ch < NCH && rc == FUPERMOD_SUCCESS; ch++) {
          long q0, q1;
          chunk_of(tl.c, ch, &q0, &q1);
          if (q1 > q0 &&
              (rc = copy_on(x, x->cs, 1, dev_B(x, j, tl.b) + (size_t)q0 * (size_t)j->K, j->K,
                            (double *)j->B + (size_t)(tl.c0 + q0) * (size_t)j->ldb, j->ldb, j->K, q1 - q0)) == FUPERMOD_SUCCESS)
            rc = record(x, x->ev[EV_BCHUNK + ch], x->cs);
          rc = step(x, j, rc);
        }
      }
      /* C's tiles up: the one before first */
      if (rc == FUPERMOD_SUCCESS && pending && j->beta != 0.0) rc = cu_up(x, j, &pend);
      if (rc == FUPERMOD_SUCCESS && now && j->beta != 0.0) rc = cu_up(x, j, &tl);
      for (int ch = 0; ch < NCH && rc == FUPERMOD_SUCCESS; ch++) {
        long q0, q1;
        chunk_of(tl.c, ch, &q0, &q1);
        if (tj > 0 && j->K > 0 && q1 > q0) rc = after(x, x->s, x->ev[EV_BCHUNK + ch]); /* its columns of B are up */
        if (rc == FUPERMOD_SUCCESS && (rc = chunk_gemm_of(x, j, &tl, p0, kb, ch)) == FUPERMOD_SUCCESS && now)
          rc = chunk_back(x, j, &tl, ch);
        if (rc == FUPERMOD_SUCCESS && ch == 0 && pending) { /* the tile before goes back now */
          for (int c2 = 0; c2 < NCH && rc == FUPERMOD_SUCCESS; c2++) rc = chunk_back(x, j, &pend, c2);
          if (rc == FUPERMOD_SUCCESS) rc = tile_done(x, &pend);
          pending = 0;
        }
      }
      if (rc == FUPERMOD_SUCCESS) rc = record(x, x->ev[EV_BFREE + tl.b], x->s);
      if (rc == FUPERMOD_SUCCESS && tj == ntiles - 1) rc = record(x, x->ev[EV_AFREE], x->s);
      if (rc == FUPERMOD_SUCCESS && now) rc = tile_done(x, &tl);
      else pend = tl, pending = 1;
    }
  rc = settled(x, rc, "a DGEMM");
  if (rc == FUPERMOD_SUCCESS && nblocks > 1) x->st.fallbacks++; /* B crossed the link more than once */
  return drained(x, rc);
}

/* Out of card: the update C += op(A) B through the streamed DGEMM. */
static int tiled_update(cx *x, int trans, long k, const double *A, long lda, const double *B, long ldb) {
  job j = {trans, 0, x->m, x->n, k, 1.0, 1.0, A, B, lda, ldb, x->C, x->ldc, 0, 0, 0, 0};
  return run_job(x, &j, NULL);
}

static int x_dgemm(void *impl, int flags, long M, long N, long K, double alpha, const double *A, long lda, const double *B,
                   long ldb, double beta, double *C, long ldc, fupermod_exec_dgemm_info *info) {
  cx *x = impl;
  int prev = kern_cuda_saved(), rc;
  job j = {flags & FUPERMOD_EXEC_DGEMM_TRANS, !!(flags & FUPERMOD_EXEC_DGEMM_SERIAL), M, N, K, alpha, beta, A, B, lda,
           ldb, C, ldc, 0, 0, 0, 0};
  if (x->active) return fupermod_error(FUPERMOD_ERR_USAGE, "CUDA executor: a DGEMM inside a GEMM session");
  cudaSetDevice(x->device);
  rc = run_job(x, &j, info);
  return kern_cuda_back(prev, rc);
}

/* slot s's panels: A (m x k, or k x m transposed) then B (k x n) */
static double *slot_A(cx *x, int s) { return x->dP + (size_t)s * (size_t)(x->kmax ? x->kmax : 1) * (size_t)(x->m + x->n); }
static double *slot_B(cx *x, int s) { return slot_A(x, s) + (size_t)x->m * (size_t)(x->kmax ? x->kmax : 1); }

/* C's column chunk j += the panels of slot s */
static int chunk_gemm(cx *x, int s, int trans, long k, int j) {
  long j0, j1;
  chunk_cols(x->n, j, &j0, &j1);
  if (j1 <= j0) return FUPERMOD_SUCCESS;
  return gemm(x, trans, x->m, j1 - j0, k, slot_A(x, s), trans ? k : x->m, slot_B(x, s) + (size_t)j0 * (size_t)k,
              x->dC + (size_t)j0 * (size_t)x->m);
}

/* the held-back updates, chunk by chunk: chunk j of C is final (its event recorded) before the
 * GEMMs of chunk j + 1 start */
static int flush_back(cx *x) {
  int rc = FUPERMOD_SUCCESS;
  for (int i = 0; i < x->nback && rc == FUPERMOD_SUCCESS; i++) rc = after(x, x->s, x->up[x->back[i].slot]);
  for (int j = 0; j < CHUNKS && rc == FUPERMOD_SUCCESS; j++) {
    for (int i = 0; i < x->nback && rc == FUPERMOD_SUCCESS; i++)
      rc = chunk_gemm(x, x->back[i].slot, x->back[i].trans, x->back[i].k, j);
    if (rc == FUPERMOD_SUCCESS) rc = record(x, x->chunk[j], x->s);
  }
  for (int i = 0; i < x->nback && rc == FUPERMOD_SUCCESS; i++) rc = record(x, x->used[x->back[i].slot], x->s);
  x->nback = 0;
  return rc;
}

/* Held C: the panels into the next slot, on the copy stream behind the GEMMs that last read it;
 * back to the caller once they are on the device, the GEMM queued (or held back, at the end of a
 * planned session). */
static int held_update(cx *x, int trans, long k, const double *A, long lda, const double *B, long ldb) {
  int s = x->next, rc;
  double *dA = slot_A(x, s), *dB = slot_B(x, s);
  int hold = x->tail > 0 && x->planned > 0 && x->done >= x->planned - x->tail && x->done < x->planned;
  cudaError_t e;
  if ((rc = after(x, x->cs, x->used[s])) == FUPERMOD_SUCCESS)
    rc = trans ? xfer_on(x, x->cs, 1, dA, (double *)A, lda, k, x->m) : xfer_on(x, x->cs, 1, dA, (double *)A, lda, x->m, k);
  if (rc == FUPERMOD_SUCCESS) rc = xfer_on(x, x->cs, 1, dB, (double *)B, ldb, k, x->n);
  if (rc == FUPERMOD_SUCCESS) rc = record(x, x->up[s], x->cs);
  if (rc == FUPERMOD_SUCCESS && hold) {
    x->back[x->nback++] = (held_back){s, trans, k};
    if (x->nback == x->tail || x->done + 1 == x->planned) rc = flush_back(x);
  } else if (rc == FUPERMOD_SUCCESS) {
    if (x->nback) rc = flush_back(x); /* more updates than planned: the held-back ones first */
    if (rc == FUPERMOD_SUCCESS) rc = after(x, x->s, x->up[s]);
    for (int j = 0; j < CHUNKS && rc == FUPERMOD_SUCCESS; j++)
      if ((rc = chunk_gemm(x, s, trans, k, j)) == FUPERMOD_SUCCESS) rc = record(x, x->chunk[j], x->s);
    if (rc == FUPERMOD_SUCCESS) rc = record(x, x->used[s], x->s);
  }
  /* the caller's panels are free once they are on the device */
  if (rc == FUPERMOD_SUCCESS && (e = cudaEventSynchronize(x->up[s])) != cudaSuccess)
    rc = fail(x, FUPERMOD_ERR_SYSTEM, "uploading the panels", e);
  x->next = (s + 1) % x->slots;
  x->done++;
  return drained(x, rc);
}

static int x_gemm_wait(void *impl, long behind) {
  cx *x = impl;
  int prev = kern_cuda_saved(), rc = FUPERMOD_SUCCESS;
  long u = x->done - 1 - behind; /* the latest update that must be done */
  if (!x->active || !x->held || u < 0) return FUPERMOD_SUCCESS;
  cudaSetDevice(x->device);
  if (x->nback) rc = flush_back(x);
  if (rc == FUPERMOD_SUCCESS) {
    /* the slots are used in turn: update u's, unless it has been reused since (then u is done) */
    cudaError_t e = x->done - u <= x->slots ? cudaEventSynchronize(x->used[(int)(u % x->slots)]) : cudaSuccess;
    if (e != cudaSuccess) rc = fail(x, FUPERMOD_ERR_SYSTEM, "waiting for an update", e);
  }
  return kern_cuda_back(prev, drained(x, rc));
}

static int x_gemm_plan(void *impl, long updates) {
  cx *x = impl;
  if (!x->active) return fupermod_error(FUPERMOD_ERR_USAGE, "CUDA executor: GEMM plan outside a session");
  if (x->done == 0) x->planned = updates;
  return FUPERMOD_SUCCESS;
}

static int x_gemm_update(void *impl, int trans, long k, const double *A, long lda, const double *B, long ldb) {
  cx *x = impl;
  int prev = kern_cuda_saved(), rc;
  if (!x->active) return fupermod_error(FUPERMOD_ERR_USAGE, "CUDA executor: GEMM update outside a session");
  if (x->m == 0 || x->n == 0 || k == 0) return kern_cuda_back(prev, FUPERMOD_SUCCESS);
  if (k > x->kmax)
    return fupermod_error(FUPERMOD_ERR_USAGE, "CUDA executor: update of k = %ld above the session's kmax %ld", k, x->kmax);
  if (lda < (trans ? k : x->m) || ldb < k)
    return fupermod_error(FUPERMOD_ERR_USAGE, "CUDA executor: lda %ld or ldb %ld too small for %ld x %ld x %ld", lda, ldb,
                          x->m, x->n, k);
  cudaSetDevice(x->device);
  rc = x->held ? held_update(x, trans, k, A, lda, B, ldb) : tiled_update(x, trans, k, A, lda, B, ldb);
  return kern_cuda_back(prev, rc);
}

static int x_gemm_end(void *impl) {
  cx *x = impl;
  int prev = kern_cuda_saved(), rc = FUPERMOD_SUCCESS;
  if (!x->active) return FUPERMOD_SUCCESS;
  x->active = 0;
  if (!x->held || x->m == 0 || x->n == 0) return kern_cuda_back(prev, FUPERMOD_SUCCESS);
  cudaSetDevice(x->device);
  if (x->nback) rc = flush_back(x); /* fewer updates than planned */
  /* each chunk of C comes back as soon as the last GEMM on it is done */
  for (int j = 0; j < CHUNKS && rc == FUPERMOD_SUCCESS; j++) {
    long j0, j1;
    chunk_cols(x->n, j, &j0, &j1);
    if ((rc = after(x, x->cs, x->chunk[j])) == FUPERMOD_SUCCESS)
      rc = xfer_on(x, x->cs, 0, x->dC + (size_t)j0 * (size_t)x->m, x->C + (size_t)j0 * (size_t)x->ldc, x->ldc, x->m, j1 - j0);
  }
  rc = settled(x, rc, "downloading C");
  x->held = 0;
  return kern_cuda_back(prev, drained(x, rc));
}

/* The plan of a layout, used by this operation: kept, or made within the limit (cuFFT's 64-bit
 * interface: a batch whose elements reach 2^31 is planned as any other). Its work area comes from
 * work_area. */
static int plan_of(cx *x, const fupermod_exec_fft_layout *l, plan **out) {
  plan *p, **pp;
  long long n = l->n, emb = l->n;
  size_t f0 = 0, f1 = 0, total;
  cufftResult r;
  for (p = x->plans; p; p = p->next)
    if (p->n == l->n && p->howmany == l->howmany && p->stride == l->stride && p->dist == l->dist) {
      p->used = x->op;
      *out = p;
      return FUPERMOD_SUCCESS;
    }
  if (x->nplans >= PLANS_MAX && (pp = idle_plan(x))) plan_free(x, pp);
  if (!(p = calloc(1, sizeof *p))) return fupermod_error(FUPERMOD_ERR_NOMEM, "CUDA executor: out of memory");
  cudaMemGetInfo(&f0, &total);
  r = cufftCreate(&p->h);
  if (r == CUFFT_SUCCESS) r = cufftSetAutoAllocation(p->h, 0);
  if (r == CUFFT_SUCCESS)
    r = cufftMakePlanMany64(p->h, 1, &n, &emb, l->stride, l->dist, &emb, l->stride, l->dist, CUFFT_Z2Z, l->howmany, &p->work);
  if (r == CUFFT_SUCCESS && cufftSetStream(p->h, x->s) != CUFFT_SUCCESS) r = CUFFT_INTERNAL_ERROR;
  cudaMemGetInfo(&f1, &total);
  cudaGetLastError();
  p->bytes = f1 < f0 ? (double)(f0 - f1) : 0.0; /* another process's allocations may blur it */
  p->n = l->n, p->howmany = l->howmany, p->stride = l->stride, p->dist = l->dist;
  p->used = x->op;
  p->next = x->plans;
  x->plans = p;
  x->nplans++;
  x->plan_bytes += p->bytes;
  if (r != CUFFT_SUCCESS || !make_room(x, 0, 0)) {
    plan_free(x, &x->plans);
    return fupermod_error(r == CUFFT_ALLOC_FAILED || r == CUFFT_SUCCESS ? FUPERMOD_ERR_NOMEM : FUPERMOD_ERR_SYSTEM,
                          "CUDA executor, device %d: cufftMakePlanMany64 cannot plan %ld transforms of %ld (stride %ld, "
                          "distance %ld)%s", x->device, l->howmany, l->n, l->stride, l->dist,
                          r == CUFFT_SUCCESS ? ": the plan does not fit in the memory limit" :
                          r == CUFFT_ALLOC_FAILED ? ": out of device memory" : "");
  }
  *out = p;
  return FUPERMOD_SUCCESS;
}

/* The shared work area, large enough for plans needing bytes (within the limit). */
static int work_area(cx *x, size_t bytes) {
  int rc = grow(x, &x->dW, &x->cap_W, (bytes + 7) / 8, "the FFT plans' work area");
  if (rc == FUPERMOD_ERR_NOMEM)
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "CUDA executor, device %d: cuFFT needs %zu bytes of work area beside the "
                        "FFT's buffers: out of device memory for its work area (limit %.0f bytes)", x->device, bytes,
                        x->limit);
  return rc;
}

/* Execute plan p in place at at, with the shared work area. */
static int plan_exec(cx *x, plan *p, void *at, int dir) {
  if (p->work && p->area != (void *)x->dW) {
    if (cufftSetWorkArea(p->h, x->dW) != CUFFT_SUCCESS)
      return fupermod_error(FUPERMOD_ERR_SYSTEM, "CUDA executor, device %d: cufftSetWorkArea failed", x->device);
    p->area = x->dW;
  }
  if (cufftExecZ2Z(p->h, at, at, dir) != CUFFT_SUCCESS)
    return fupermod_error(FUPERMOD_ERR_SYSTEM, "CUDA executor, device %d: cufftExecZ2Z failed", x->device);
  return FUPERMOD_SUCCESS;
}

/* FFTs in batches through NBUF device buffers: batch i is uploaded on the copy stream into buffer
 * i % NBUF (once the download of batch i - NBUF has left it), transformed on the compute stream,
 * and downloaded on the download stream, so that the upload of one batch, the transform of the
 * next and the download of the one before run at once. A batch is q units: whole blocks, rows
 * (signals one after another) or columns of an interleaved block. */
typedef struct {
  int kind;       /* 0: whole blocks, 1: contiguous signals of one block, 2: interleaved columns */
  long units, q;  /* units in all, per batch */
} fft_plan;

/* The layout cuFFT plans for a batch of q units in a device buffer, how many times it runs there
 * and how far apart (complex elements). Whole blocks with fewer signals than the batch has
 * blocks (the 2D FFT's column panels: a few interleaved columns each) run once per signal over
 * all the batch's blocks, so a batch costs that many launches, not one a block; other blocks run
 * once per block; rows and columns once. */
static fupermod_exec_fft_layout batch_layout(const fupermod_exec_fft_layout *l, const fft_plan *b, long q, int *runs,
                                             size_t *step) {
  fupermod_exec_fft_layout one = *l;
  *runs = 1, *step = 0;
  if (b->kind == 2) return (fupermod_exec_fft_layout){l->n, q, q, 1, 1, 0};
  if (b->kind == 0 && l->howmany < q) {
    *runs = (int)l->howmany, *step = (size_t)l->dist;
    return (fupermod_exec_fft_layout){l->n, q, l->stride, l->block_dist, 1, 0};
  }
  if (b->kind == 0) *runs = (int)q, *step = (size_t)l->block_dist;
  if (b->kind == 1) one.howmany = q;
  one.blocks = 1, one.block_dist = 0;
  return one;
}

static size_t batch_span(const fupermod_exec_fft_layout *l, const fft_plan *b, long q) {
  size_t block = (size_t)(l->howmany - 1) * (size_t)l->dist + (size_t)(l->n - 1) * (size_t)l->stride + 1;
  if (b->kind == 0) return (size_t)(q - 1) * (size_t)l->block_dist + block;
  if (b->kind == 1) return (size_t)(q - 1) * (size_t)l->dist + (size_t)(l->n - 1) * (size_t)l->stride + 1;
  return (size_t)q * (size_t)l->n;
}

/* batch u0..u0+q-1: copy between host and the device buffer dev, on stream st */
static int fft_copy(cx *x, const fupermod_exec_fft_layout *l, const fft_plan *b, int up, double *data, long u0, long q,
                    double *dev, cudaStream_t st) {
  cudaError_t e;
  double *host = data + 2 * (size_t)u0 * (size_t)(b->kind == 0 ? l->block_dist : l->dist);
  size_t sp = batch_span(l, b, q);
  /* q columns of n: rows of q elements, l->stride apart on the host (all the columns: contiguous,
   * one plain copy as copy_on's) */
  if (b->kind == 2 && q < l->stride)
    e = up ? cudaMemcpy2DAsync(dev, 16 * (size_t)q, host, 16 * (size_t)l->stride, 16 * (size_t)q, (size_t)l->n,
                               cudaMemcpyHostToDevice, st)
           : cudaMemcpy2DAsync(host, 16 * (size_t)l->stride, dev, 16 * (size_t)q, 16 * (size_t)q, (size_t)l->n,
                               cudaMemcpyDeviceToHost, st);
  else
    e = up ? cudaMemcpyAsync(dev, host, 16 * sp, cudaMemcpyHostToDevice, st)
           : cudaMemcpyAsync(host, dev, 16 * sp, cudaMemcpyDeviceToHost, st);
  *(up ? &x->st.bytes_up : &x->st.bytes_down) += 16.0 * (double)sp;
  return e == cudaSuccess ? FUPERMOD_SUCCESS : fail(x, FUPERMOD_ERR_SYSTEM, up ? "FFT upload" : "FFT download", e);
}

/* the transforms of a batch of q units in the device buffer dev, on the compute stream */
static int fft_exec(cx *x, const fupermod_exec_fft_layout *l, const fft_plan *b, long q, double *dev, int sign) {
  int rc, runs;
  size_t step;
  fupermod_exec_fft_layout one = batch_layout(l, b, q, &runs, &step);
  plan *p = NULL;
  if ((rc = plan_of(x, &one, &p)) != FUPERMOD_SUCCESS) return rc;
  for (int k = 0; k < runs && rc == FUPERMOD_SUCCESS; k++)
    rc = plan_exec(x, p, (cufftDoubleComplex *)dev + (size_t)k * step, sign < 0 ? CUFFT_FORWARD : CUFFT_INVERSE);
  return rc;
}

static int x_fft(void *impl, const fupermod_exec_fft_layout *l, double *data, int sign) {
  cx *x = impl;
  double cap = x->limit / 16.0; /* complex elements */
  int prev = kern_cuda_saved(), rc = FUPERMOD_SUCCESS, nbuf;
  fft_plan b;
  size_t sp, total;
  cudaSetDevice(x->device);
  if (l->blocks == 1 && l->stride == 1 && l->dist >= l->n) b = (fft_plan){1, l->howmany, 0};
  else if (l->blocks == 1 && l->dist == 1 && l->stride >= l->howmany) b = (fft_plan){2, l->howmany, 0};
  else b = (fft_plan){0, l->blocks, 0}; /* whole blocks (one, for any other layout) */
  total = batch_span(l, &b, b.units);
  /* sixteen batches where the work is large enough to pipeline (the first upload and the last
   * download, a sixteenth each, are what does not overlap), fewer where memory is short */
  b.q = total >= ((size_t)1 << 20) ? (b.units + 15) / 16 : b.units;
  if (b.q < 1) b.q = 1;
  nbuf = b.units > b.q ? 3 : 1;
  while (b.q > 1 && (double)nbuf * (double)batch_span(l, &b, b.q) > cap) b.q = (b.q + 1) / 2;
  if (nbuf > 1 && (double)nbuf * (double)batch_span(l, &b, b.q) > cap) nbuf = 1, x->st.fallbacks++; /* no overlap */
  /* the plans, the buffers and the plans' work area, within the limit: where they do not fit,
   * smaller batches (and one buffer), counted in the statistics' fallbacks; the plans of a
   * larger batch are then idle, the first to make room */
  begin_op(x);
  for (;;) {
    plan *p;
    int runs;
    size_t step, work = 0;
    long tail = b.units % b.q;
    x->op++;
    sp = batch_span(l, &b, b.q);
    if ((double)sp > cap)
      return kern_cuda_back(prev, fupermod_error(FUPERMOD_ERR_NOMEM, "CUDA executor, device %d: a transform of %ld (%.0f "
                                                 "bytes) exceeds the memory limit of %.0f bytes", x->device, l->n,
                                                 16.0 * (double)sp, x->limit));
    /* the plans of a full batch and of the last one (one plan where they are the same) */
    for (int last = 0; last < 2 && rc == FUPERMOD_SUCCESS; last++)
      if (!last || tail) {
        fupermod_exec_fft_layout one = batch_layout(l, &b, last ? tail : b.q, &runs, &step);
        if ((rc = plan_of(x, &one, &p)) == FUPERMOD_SUCCESS && p->work > work) work = p->work;
      }
    if (rc == FUPERMOD_SUCCESS) rc = grow(x, &x->dF, &x->cap_F, 2 * sp * (size_t)nbuf, "the FFT buffers");
    if (rc == FUPERMOD_SUCCESS) rc = work_area(x, work);
    if (rc != FUPERMOD_ERR_NOMEM || (b.q == 1 && nbuf == 1)) break;
    rc = FUPERMOD_SUCCESS;
    cudaFree(x->dF), x->dF = NULL, x->cap_F = 0;
    cudaGetLastError();
    if (nbuf > 1) nbuf = 1;
    else b.q = (b.q + 1) / 2;
    x->st.fallbacks++;
  }
  if (rc != FUPERMOD_SUCCESS) return kern_cuda_back(prev, rc);
  for (int k = 0; k < nbuf && rc == FUPERMOD_SUCCESS; k++) rc = record(x, x->fdown[k], x->s); /* buffers free */
  for (long u0 = 0, i = 0; u0 < b.units && rc == FUPERMOD_SUCCESS; u0 += b.q, i++) {
    long q = b.units - u0 < b.q ? b.units - u0 : b.q;
    int k = (int)(i % nbuf);
    double *dev = x->dF + 2 * sp * (size_t)k;
    if ((rc = after(x, x->cs, x->fdown[k])) == FUPERMOD_SUCCESS &&
        (rc = fft_copy(x, l, &b, 1, data, u0, q, dev, x->cs)) == FUPERMOD_SUCCESS &&
        (rc = record(x, x->fup[k], x->cs)) == FUPERMOD_SUCCESS && (rc = after(x, x->s, x->fup[k])) == FUPERMOD_SUCCESS &&
        (rc = fft_exec(x, l, &b, q, dev, sign)) == FUPERMOD_SUCCESS &&
        (rc = record(x, x->ffft[k], x->s)) == FUPERMOD_SUCCESS && (rc = after(x, x->ds, x->ffft[k])) == FUPERMOD_SUCCESS &&
        (rc = fft_copy(x, l, &b, 0, data, u0, q, dev, x->ds)) == FUPERMOD_SUCCESS)
      rc = record(x, x->fdown[k], x->ds);
  }
  rc = settled(x, rc, "an FFT");
  return kern_cuda_back(prev, drained(x, rc));
}

/* A 2D FFT on the device: rows up in batches, each transformed as it arrives (copy and compute
 * streams), then the columns, then the array down. Where it does not fit: the rows, then the
 * columns, each through x_fft's batches. */
static int x_fft2d(void *impl, long M, long N, double *data, int sign) {
  cx *x = impl;
  fupermod_exec_fft_layout rows = {N, M, 1, N, 1, 0}, cols = {M, N, N, 1, 1, 0};
  size_t total = (size_t)M * (size_t)N; /* complex elements */
  long q = M >= 32 ? (M + 15) / 16 : M; /* sixteen batches, each transformed as soon as it is up */
  int prev = kern_cuda_saved(), rc = FUPERMOD_ERR_NOMEM, dir = sign < 0 ? CUFFT_FORWARD : CUFFT_INVERSE;
  plan *hq = NULL, *ht = NULL, *hc = NULL;
  cudaSetDevice(x->device);
  begin_op(x);
  if (16.0 * (double)total <= x->limit) rc = grow(x, &x->dF, &x->cap_F, 2 * total, "the 2D FFT's array");
  if (rc == FUPERMOD_SUCCESS) {
    fupermod_exec_fft_layout lq = {N, q, 1, N, 1, 0}, lt = {N, M % q, 1, N, 1, 0};
    if ((rc = plan_of(x, &lq, &hq)) == FUPERMOD_SUCCESS && (rc = plan_of(x, &cols, &hc)) == FUPERMOD_SUCCESS && M % q)
      rc = plan_of(x, &lt, &ht);
    if (rc == FUPERMOD_SUCCESS) {
      size_t work = hq->work > hc->work ? hq->work : hc->work;
      rc = work_area(x, ht && ht->work > work ? ht->work : work);
    }
  }
  if (rc == FUPERMOD_ERR_NOMEM) { /* the array, or it and the plans' work area, do not fit */
    cudaGetLastError();
    x->st.fallbacks++;
    cudaFree(x->dF), x->dF = NULL, x->cap_F = 0; /* the rows' and the columns' batches are smaller */
    rc = x_fft(impl, &rows, data, sign);
    return kern_cuda_back(prev, rc == FUPERMOD_SUCCESS ? x_fft(impl, &cols, data, sign) : rc);
  }
  for (long r0 = 0; r0 < M && rc == FUPERMOD_SUCCESS; r0 += q) {
    long qq = M - r0 < q ? M - r0 : q;
    cufftDoubleComplex *at = (cufftDoubleComplex *)x->dF + (size_t)r0 * (size_t)N;
    if ((rc = copy_on(x, x->cs, 1, (double *)at, 2 * qq * N, data + 2 * (size_t)r0 * (size_t)N, 2 * qq * N, 2 * qq * N, 1)) ==
            FUPERMOD_SUCCESS &&
        (rc = record(x, x->ev[EV_UP], x->cs)) == FUPERMOD_SUCCESS && (rc = after(x, x->s, x->ev[EV_UP])) == FUPERMOD_SUCCESS)
      rc = plan_exec(x, qq == q ? hq : ht, at, dir);
  }
  if (rc == FUPERMOD_SUCCESS) rc = plan_exec(x, hc, x->dF, dir);
  if (rc == FUPERMOD_SUCCESS && (rc = record(x, x->ev[EV_CHUNK], x->s)) == FUPERMOD_SUCCESS &&
      (rc = after(x, x->ds, x->ev[EV_CHUNK])) == FUPERMOD_SUCCESS)
    rc = copy_on(x, x->ds, 0, x->dF, 2 * (long)total, data, 2 * (long)total, 2 * (long)total, 1);
  rc = settled(x, rc, "a 2D FFT");
  return kern_cuda_back(prev, drained(x, rc));
}

/* cuBLAS-Xt, where the loaded cuBLAS has it (looked up at run time: the stand-in has none) */
typedef int (*xt_create_fn)(void **);
typedef int (*xt_select_fn)(void *, int, int *);
typedef int (*xt_dgemm_fn)(void *, int, int, size_t, size_t, size_t, const double *, const double *, size_t,
                           const double *, size_t, const double *, double *, size_t);
typedef int (*xt_destroy_fn)(void *);

static int ref_xt(cx *x, long a, long b, long c, double *seconds) {
  static const char *const libs[] = {"libcublas.so.13", "libcublas.so.12", "libcublas.so"};
  void *lib = NULL, *h = NULL;
  xt_create_fn create;
  xt_select_fn select;
  xt_dgemm_fn dgemm;
  xt_destroy_fn destroy;
  double *A = NULL, *B = NULL, *C = NULL, one = 1, t0;
  int rc = FUPERMOD_SUCCESS, dev = x->device;
  for (size_t i = 0; i < sizeof libs / sizeof libs[0] && !lib; i++) lib = dlopen(libs[i], RTLD_NOW | RTLD_NOLOAD);
  create = lib ? (xt_create_fn)dlsym(lib, "cublasXtCreate") : NULL;
  select = lib ? (xt_select_fn)dlsym(lib, "cublasXtDeviceSelect") : NULL;
  dgemm = lib ? (xt_dgemm_fn)dlsym(lib, "cublasXtDgemm") : NULL;
  destroy = lib ? (xt_destroy_fn)dlsym(lib, "cublasXtDestroy") : NULL;
  if (!create || !select || !dgemm || !destroy) {
    if (lib) dlclose(lib);
    return fupermod_error(FUPERMOD_ERR_NODEVICE, "CUDA executor, device %d: the loaded cuBLAS has no cuBLAS-Xt", x->device);
  }
  if (cudaMallocHost((void **)&A, (size_t)a * (size_t)c * 8) != cudaSuccess ||
      cudaMallocHost((void **)&B, (size_t)c * (size_t)b * 8) != cudaSuccess ||
      cudaMallocHost((void **)&C, (size_t)a * (size_t)b * 8) != cudaSuccess || create(&h) != 0 || select(h, 1, &dev) != 0)
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "CUDA executor, device %d: cuBLAS-Xt of %ld x %ld x %ld cannot start", x->device,
                        a, b, c);
  for (int r = 0; r < 2 && rc == FUPERMOD_SUCCESS; r++) { /* the first loads cuBLAS's code */
    t0 = fupermod_time();
    if (dgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, (size_t)a, (size_t)b, (size_t)c, &one, A, (size_t)a, B, (size_t)c, &one, C,
              (size_t)a) != 0)
      rc = fupermod_error(FUPERMOD_ERR_SYSTEM, "CUDA executor, device %d: cublasXtDgemm failed", x->device);
    *seconds = fupermod_time() - t0;
  }
  if (h) destroy(h);
  cudaFreeHost(A), cudaFreeHost(B), cudaFreeHost(C);
  cudaGetLastError();
  dlclose(lib);
  return rc;
}

static int x_reference(void *impl, int what, long a, long b, long c, double *seconds) {
  cx *x = impl;
  int prev = kern_cuda_saved(), rc = FUPERMOD_SUCCESS;
  cudaEvent_t e0 = NULL, e1 = NULL;
  double *d1 = NULL, *d2 = NULL, *d3 = NULL, *host = NULL, one = 1;
  cufftHandle plan = 0;
  float ms = 0;
  size_t n2 = (size_t)a * (size_t)b;
  cudaSetDevice(x->device);
  begin_op(x);
  make_room(x, 0, 1); /* the executor's own buffers and plans make room */
  if (what == FUPERMOD_EXEC_REF_GEMM_XT) return kern_cuda_back(prev, ref_xt(x, a, b, c, seconds));
  if (cudaEventCreate(&e0) != cudaSuccess || cudaEventCreate(&e1) != cudaSuccess)
    rc = fupermod_error(FUPERMOD_ERR_SYSTEM, "CUDA executor, device %d: cudaEventCreate failed", x->device);
  else if (what == FUPERMOD_EXEC_REF_UP || what == FUPERMOD_EXEC_REF_DOWN) {
    /* the link as the executor uses it: one copy on its copy stream (a pageable one holds the host) */
    int up = what == FUPERMOD_EXEC_REF_UP;
    if (cudaMalloc((void **)&d1, (size_t)a) != cudaSuccess ||
        (b ? !(host = malloc((size_t)a)) : cudaMallocHost((void **)&host, (size_t)a) != cudaSuccess))
      rc = fupermod_error(FUPERMOD_ERR_NOMEM, "CUDA executor, device %d: a copy of %ld bytes does not fit", x->device, a);
    if (rc == FUPERMOD_SUCCESS && b) memset(host, 0, (size_t)a); /* pageable memory, touched */
    for (int r = 0; r < 2 && rc == FUPERMOD_SUCCESS; r++)
      if (record(x, e0, x->cs) ||
          (up ? cudaMemcpyAsync(d1, host, (size_t)a, cudaMemcpyHostToDevice, x->cs)
              : cudaMemcpyAsync(host, d1, (size_t)a, cudaMemcpyDeviceToHost, x->cs)) != cudaSuccess ||
          record(x, e1, x->cs))
        rc = fupermod_error(FUPERMOD_ERR_SYSTEM, "CUDA executor, device %d: the copy failed", x->device);
    if (rc == FUPERMOD_SUCCESS && (cudaEventSynchronize(e1) != cudaSuccess || cudaEventElapsedTime(&ms, e0, e1) != cudaSuccess))
      rc = fupermod_error(FUPERMOD_ERR_SYSTEM, "CUDA executor, device %d: timing the copy failed", x->device);
    *seconds = ms * 1e-3;
    cudaStreamSynchronize(x->cs);
    cudaFree(d1);
    if (b) free(host);
    else cudaFreeHost(host);
    cudaEventDestroy(e0), cudaEventDestroy(e1);
    cudaGetLastError();
    return kern_cuda_back(prev, rc);
  } else if (what == FUPERMOD_EXEC_REF_GEMM) {
    if (cudaMalloc((void **)&d1, (size_t)a * (size_t)c * 8) != cudaSuccess || cudaMalloc((void **)&d2, (size_t)c * (size_t)b * 8) != cudaSuccess ||
        cudaMalloc((void **)&d3, n2 * 8) != cudaSuccess)
      rc = fupermod_error(FUPERMOD_ERR_NOMEM, "CUDA executor, device %d: a resident GEMM of %ld x %ld x %ld does not fit",
                          x->device, a, b, c);
    for (int r = 0; r < 2 && rc == FUPERMOD_SUCCESS; r++) /* the first loads cuBLAS's code for the shape */
      if (record(x, e0, x->s) || gemm_on(x, 0, a, b, c, 1.0, d1, a, d2, c, one, d3, a) || record(x, e1, x->s))
        rc = fupermod_error(FUPERMOD_ERR_SYSTEM, "CUDA executor, device %d: the resident GEMM failed", x->device);
  } else {
    int moved = what == FUPERMOD_EXEC_REF_FFT2D_MOVED;
    if (cudaMalloc((void **)&d1, n2 * 16) != cudaSuccess || (moved && cudaMallocHost((void **)&host, n2 * 16) != cudaSuccess) ||
        cufftPlan2d(&plan, (int)a, (int)b, CUFFT_Z2Z) != CUFFT_SUCCESS || cufftSetStream(plan, x->s) != CUFFT_SUCCESS)
      rc = fupermod_error(FUPERMOD_ERR_NOMEM, "CUDA executor, device %d: a 2D FFT of %ld x %ld does not fit", x->device, a,
                          b);
    for (int r = 0; r < 2 && rc == FUPERMOD_SUCCESS; r++) /* the first sets cuFFT up */
      if (record(x, e0, x->s) ||
          (moved && cudaMemcpyAsync(d1, host, n2 * 16, cudaMemcpyHostToDevice, x->s) != cudaSuccess) ||
          cufftExecZ2Z(plan, (cufftDoubleComplex *)d1, (cufftDoubleComplex *)d1, CUFFT_FORWARD) != CUFFT_SUCCESS ||
          (moved && cudaMemcpyAsync(host, d1, n2 * 16, cudaMemcpyDeviceToHost, x->s) != cudaSuccess) || record(x, e1, x->s))
        rc = fupermod_error(FUPERMOD_ERR_SYSTEM, "CUDA executor, device %d: the 2D FFT failed", x->device);
  }
  if (rc == FUPERMOD_SUCCESS && (cudaEventSynchronize(e1) != cudaSuccess || cudaEventElapsedTime(&ms, e0, e1) != cudaSuccess))
    rc = fupermod_error(FUPERMOD_ERR_SYSTEM, "CUDA executor, device %d: timing the reference failed", x->device);
  *seconds = ms * 1e-3;
  cudaStreamSynchronize(x->s);
  if (plan) cufftDestroy(plan);
  cudaFree(d1), cudaFree(d2), cudaFree(d3), cudaFreeHost(host);
  if (e0) cudaEventDestroy(e0);
  if (e1) cudaEventDestroy(e1);
  cudaGetLastError();
  return kern_cuda_back(prev, rc);
}

static void x_stats(void *impl, fupermod_exec_stats *s) { *s = ((cx *)impl)->st; }

__attribute__((visibility("default"))) const fupermod_exec_ops fupermod_exec_cuda_ops = {
  FUPERMOD_EXEC_MODULE_API, x_open, x_close, x_pin, x_unpin, x_gemm_begin, x_gemm_update, x_gemm_end, x_fft, x_stats,
  x_gemm_plan, x_gemm_wait, x_dgemm, x_fft2d, x_reference};
