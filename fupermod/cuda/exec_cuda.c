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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <cufft.h>
#include "fupermod/benchmark.h"
#include "fupermod/conf.h"
#include "fupermod/exec_impl.h"
#include "kernels/cuda/device.h"

typedef struct plan {
  long n, howmany, stride, dist;
  cufftHandle h;
  struct plan *next;
} plan;

typedef struct pinned {
  void *ptr;
  struct pinned *next;
} pinned;

#define CHUNKS 4 /* column chunks of C in a held-C GEMM */
#define TAIL 4   /* updates held back at the end of a planned session */
#define SLOTS (TAIL + 2) /* panel slots: a held-back update's slot is not reused before its GEMMs */

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
  cublasHandle_t blas;
  /* GEMM session */
  double *C;
  long m, n, ldc, kmax;
  int active, held;
  int slots, tail, next; /* slots in use, updates to hold back, the next slot */
  long done, planned;    /* updates so far; planned (0: not said) */
  held_back back[TAIL];
  int nback;
  double *dC, *dA, *dB, *dP; /* dP: the held session's slots, each kmax (m + n) */
  size_t cap_C, cap_A, cap_B, cap_P; /* elements allocated */
  /* FFTs */
  plan *plans;
  double *dF;
  size_t cap_F;
  pinned *pins;
  fupermod_exec_stats st;
} cx;

static int fail(const cx *x, int code, const char *what, cudaError_t e) {
  return fupermod_error(code, "CUDA executor, device %d: %s: %s", x ? x->device : -1, what, cudaGetErrorString(e));
}

/* a device buffer of at least n doubles, grown as needed (its contents are not kept) */
static int grow(cx *x, double **buf, size_t *cap, size_t n, const char *what) {
  cudaError_t e;
  if (n <= *cap) return FUPERMOD_SUCCESS;
  cudaFree(*buf);
  *buf = NULL;
  *cap = 0;
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

/* Create (make = 1) or destroy (0, those created) every event of the executor. */
static int events(cx *x, int make) {
  struct {
    cudaEvent_t *ev;
    int n;
  } sets[] = {{x->up, SLOTS}, {x->used, SLOTS}, {x->chunk, CHUNKS}, {x->fup, 3}, {x->ffft, 3}, {x->fdown, 3}};
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
  int count = 0, prev = kern_cuda_saved(), rc = FUPERMOD_SUCCESS;
  size_t freeb = 0, total = 0;
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
  x->limit = 0.9 * (double)freeb;
  if (o->mem_limit > 0 && o->mem_limit < x->limit) x->limit = o->mem_limit;
  if (cudaDeviceGetPCIBusId(pci, (int)psize, x->device) != cudaSuccess) {
    cudaGetLastError();
    if (psize) pci[0] = '\0';
  }
  if (cudaGetDeviceProperties(&prop, x->device) != cudaSuccess) {
    cudaGetLastError();
    snprintf(prop.name, sizeof prop.name, "unknown");
  }
  snprintf(describe, dsize, "cuda device %d (%s, PCI %s, %.1f GB, limit %.2f GB, %d host thread%s)", x->device, prop.name,
           psize && pci[0] ? pci : "?", (double)total / 1e9, x->limit / 1e9, o->threads, o->threads == 1 ? "" : "s");
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
  for (plan *p = x->plans, *next; p; p = next) {
    next = p->next;
    cufftDestroy(p->h);
    free(p);
  }
  for (pinned *p = x->pins, *next; p; p = next) {
    next = p->next;
    cudaHostUnregister(p->ptr);
    free(p);
  }
  cudaFree(x->dC), cudaFree(x->dA), cudaFree(x->dB), cudaFree(x->dP), cudaFree(x->dF);
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

/* rows x cols doubles between host (leading dimension ld) and device (leading dimension rows), on
 * stream st */
static int xfer_on(cx *x, cudaStream_t st, int up, double *dev, double *host, long ld, long rows, long cols) {
  size_t dpitch = (size_t)rows * sizeof(double), hpitch = (size_t)ld * sizeof(double);
  cudaError_t e;
  if (rows <= 0 || cols <= 0) return FUPERMOD_SUCCESS;
  e = up ? cudaMemcpy2DAsync(dev, dpitch, host, hpitch, dpitch, (size_t)cols, cudaMemcpyHostToDevice, st)
         : cudaMemcpy2DAsync(host, hpitch, dev, dpitch, dpitch, (size_t)cols, cudaMemcpyDeviceToHost, st);
  *(up ? &x->st.bytes_up : &x->st.bytes_down) += 8.0 * (double)rows * (double)cols;
  return e == cudaSuccess ? FUPERMOD_SUCCESS : fail(x, FUPERMOD_ERR_SYSTEM, up ? "upload" : "download", e);
}

static int put(cx *x, double *dev, const double *host, long ld, long rows, long cols) {
  return xfer_on(x, x->s, 1, dev, (double *)host, ld, rows, cols);
}

static int get(cx *x, double *host, long ld, double *dev, long rows, long cols) {
  return xfer_on(x, x->s, 0, dev, host, ld, rows, cols);
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

/* Out of card: tiles of C of mr rows and nc columns, each with its rows of A and columns of B. */
static int tiled_update(cx *x, int trans, long k, const double *A, long lda, const double *B, long ldb) {
  double cap = x->limit / 8.0;
  long mr = x->m, nc;
  int rc = FUPERMOD_SUCCESS;
  while (mr > 1 && (double)mr * (double)k + (double)k + (double)mr > cap) mr = (mr + 1) / 2;
  nc = (long)((cap - (double)mr * (double)k) / (double)(mr + k));
  if (nc > x->n) nc = x->n;
  if (nc < 1)
    return fupermod_error(FUPERMOD_ERR_NOMEM, "CUDA executor, device %d: an update with k = %ld does not fit in the "
                          "memory limit of %.0f bytes", x->device, k, x->limit);
  if ((rc = grow(x, &x->dC, &x->cap_C, (size_t)mr * (size_t)nc, "a tile of C")) != FUPERMOD_SUCCESS ||
      (rc = grow(x, &x->dA, &x->cap_A, (size_t)mr * (size_t)k, "a tile of A")) != FUPERMOD_SUCCESS ||
      (rc = grow(x, &x->dB, &x->cap_B, (size_t)k * (size_t)nc, "a tile of B")) != FUPERMOD_SUCCESS)
    return rc;
  for (long i0 = 0; i0 < x->m && rc == FUPERMOD_SUCCESS; i0 += mr) {
    long r = x->m - i0 < mr ? x->m - i0 : mr;
    /* A's rows i0..: a row slice of A, or a column slice of its stored transpose */
    rc = trans ? put(x, x->dA, A + (size_t)i0 * (size_t)lda, lda, k, r) : put(x, x->dA, A + i0, lda, r, k);
    for (long j0 = 0; j0 < x->n && rc == FUPERMOD_SUCCESS; j0 += nc) {
      long c = x->n - j0 < nc ? x->n - j0 : nc;
      double *Ct = x->C + (size_t)j0 * (size_t)x->ldc + i0;
      if ((rc = put(x, x->dB, B + (size_t)j0 * (size_t)ldb, ldb, k, c)) == FUPERMOD_SUCCESS &&
          (rc = put(x, x->dC, Ct, x->ldc, r, c)) == FUPERMOD_SUCCESS &&
          (rc = gemm(x, trans, r, c, k, x->dA, trans ? k : r, x->dB, x->dC)) == FUPERMOD_SUCCESS &&
          (rc = get(x, Ct, x->ldc, x->dC, r, c)) == FUPERMOD_SUCCESS)
        rc = wait(x, "an out-of-card tile"); /* the buffers are reused by the next tile */
    }
  }
  return drained(x, rc);
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
  if (rc == FUPERMOD_SUCCESS) {
    cudaError_t e = cudaStreamSynchronize(x->cs);
    if (e == cudaSuccess) e = cudaStreamSynchronize(x->s);
    if (e != cudaSuccess) rc = fail(x, FUPERMOD_ERR_SYSTEM, "downloading C", e);
  }
  x->held = 0;
  return kern_cuda_back(prev, drained(x, rc));
}

static int plan_of(cx *x, const fupermod_exec_fft_layout *l, cufftHandle *out) {
  plan *p;
  int n = (int)l->n, emb = (int)l->n;
  for (p = x->plans; p; p = p->next)
    if (p->n == l->n && p->howmany == l->howmany && p->stride == l->stride && p->dist == l->dist) {
      *out = p->h;
      return FUPERMOD_SUCCESS;
    }
  if (!(p = calloc(1, sizeof *p))) return fupermod_error(FUPERMOD_ERR_NOMEM, "CUDA executor: out of memory");
  {
    cufftResult r = cufftPlanMany(&p->h, 1, &n, &emb, (int)l->stride, (int)l->dist, &emb, (int)l->stride, (int)l->dist,
                                  CUFFT_Z2Z, (int)l->howmany);
    if (r == CUFFT_SUCCESS && cufftSetStream(p->h, x->s) != CUFFT_SUCCESS) r = CUFFT_INTERNAL_ERROR;
    if (r != CUFFT_SUCCESS) {
      free(p);
      /* the plan's work area is device memory too */
      return fupermod_error(r == CUFFT_ALLOC_FAILED ? FUPERMOD_ERR_NOMEM : FUPERMOD_ERR_SYSTEM,
                            "CUDA executor, device %d: cufftPlanMany cannot plan %ld transforms of %ld (stride %ld, "
                            "distance %ld)%s", x->device, l->howmany, l->n, l->stride, l->dist,
                            r == CUFFT_ALLOC_FAILED ? ": out of device memory for its work area" : "");
    }
  }
  p->n = l->n, p->howmany = l->howmany, p->stride = l->stride, p->dist = l->dist;
  p->next = x->plans;
  x->plans = p;
  *out = p->h;
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

/* The layout cuFFT plans for a batch of q units in a device buffer, and how many times it runs
 * there (a batch of whole blocks: once per block). */
static fupermod_exec_fft_layout batch_layout(const fupermod_exec_fft_layout *l, const fft_plan *b, long q, int *runs) {
  fupermod_exec_fft_layout one = *l;
  *runs = b->kind == 0 ? (int)q : 1;
  if (b->kind == 2) return (fupermod_exec_fft_layout){l->n, q, q, 1, 1, 0};
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
  if (b->kind == 2) /* q columns of n: rows of q elements, l->stride apart on the host */
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
  int rc, nexec;
  fupermod_exec_fft_layout one = batch_layout(l, b, q, &nexec);
  cufftHandle h = 0;
  if ((rc = plan_of(x, &one, &h)) != FUPERMOD_SUCCESS) return rc;
  for (int k = 0; k < nexec; k++) {
    cufftDoubleComplex *at = (cufftDoubleComplex *)dev + (b->kind == 0 ? (size_t)k * (size_t)l->block_dist : 0);
    if (cufftExecZ2Z(h, at, at, sign < 0 ? CUFFT_FORWARD : CUFFT_INVERSE) != CUFFT_SUCCESS)
      return fupermod_error(FUPERMOD_ERR_SYSTEM, "CUDA executor, device %d: cufftExecZ2Z failed", x->device);
  }
  return FUPERMOD_SUCCESS;
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
  /* the buffers and the plans' work areas: where the device has less than the limit says,
   * smaller batches (and one buffer), counted in the statistics' fallbacks */
  for (;;) {
    cufftHandle h;
    int runs;
    long tail = b.units % b.q;
    sp = batch_span(l, &b, b.q);
    if ((double)sp > cap)
      return kern_cuda_back(prev, fupermod_error(FUPERMOD_ERR_NOMEM, "CUDA executor, device %d: a transform of %ld (%.0f "
                                                 "bytes) exceeds the memory limit of %.0f bytes", x->device, l->n,
                                                 16.0 * (double)sp, x->limit));
    rc = grow(x, &x->dF, &x->cap_F, 2 * sp * (size_t)nbuf, "the FFT buffers");
    /* the plans of a full batch and of the last one (whole blocks: one plan for both) */
    for (int last = 0; last < 2 && rc == FUPERMOD_SUCCESS; last++)
      if (!last || (tail && b.kind != 0)) {
        fupermod_exec_fft_layout one = batch_layout(l, &b, last ? tail : b.q, &runs);
        rc = plan_of(x, &one, &h);
      }
    if (rc != FUPERMOD_ERR_NOMEM || (b.q == 1 && nbuf == 1)) break;
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
  if (rc == FUPERMOD_SUCCESS) {
    cudaError_t e = cudaStreamSynchronize(x->ds);
    if (e == cudaSuccess) e = cudaStreamSynchronize(x->s);
    if (e == cudaSuccess) e = cudaStreamSynchronize(x->cs);
    if (e != cudaSuccess) rc = fail(x, FUPERMOD_ERR_SYSTEM, "an FFT", e);
  }
  return kern_cuda_back(prev, drained(x, rc));
}

static void x_stats(void *impl, fupermod_exec_stats *s) { *s = ((cx *)impl)->st; }

__attribute__((visibility("default"))) const fupermod_exec_ops fupermod_exec_cuda_ops = {
  FUPERMOD_EXEC_MODULE_API, x_open, x_close, x_pin, x_unpin, x_gemm_begin, x_gemm_update, x_gemm_end, x_fft, x_stats,
  x_gemm_plan, x_gemm_wait};
