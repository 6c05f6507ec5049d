/* dgemm-ooc: the row formulation C_i = A_i B + C_i (d rows of an N x N product, the whole of B)
 * on a GPU through its CUDA executor's streamed DGEMM (fupermod_exec_dgemm), so d is not limited
 * by the device memory. Every transfer is inside the timed execute (the GPU "device" includes its
 * PCIe link and host core); the matrices are page-locked once, by the executor. Sub-options:
 * n=N (2048), device=D (0), mem=BYTES (device memory the GEMM may use; 0: 90 % of the free memory;
 * small values force many blocks), sync=0|1 (no overlap). complexity = 2 d N^2. Without a usable
 * CUDA device, create fails with FUPERMOD_ERR_NODEVICE. */
#include <pthread.h>
#include "kernels/cpu/common.h"

#define NAME "dgemm-ooc"

typedef struct {
  long n, device, sync;
  double mem;
  fupermod_exec *e;
  long d;
  double *A, *B, *C; /* page-locked by the executor, column-major: A, C are d x n (ld d), B is n x n */
} ooc_ctx;

static const fupermod_option options[] = {
    {"n", FUPERMOD_OPT_LONG, 1, 1 << 20, "2048", "the matrix order N", NULL},
    {"device", FUPERMOD_OPT_LONG, 0, 1023, "0", "the CUDA device", NULL},
    {"sync", FUPERMOD_OPT_LONG, 0, 1, "0", "1: no overlap of transfers and computation", NULL},
    {"mem", FUPERMOD_OPT_LONG, 0, 1125899906842624.0, "0", "device memory (bytes) the GEMM may use; 0: 90 % of the free", NULL},
    FUPERMOD_OPTION_END};

static int create(const char *subopts, void **ctx) {
  ooc_ctx *k;
  long n = 2048, device = 0, sync = 0, mem = 0;
  fupermod_exec_opts o;
  int rc;
  if ((rc = kern_opt_long(NAME, options, subopts, "n", &n)) != FUPERMOD_SUCCESS) return rc;
  if ((rc = kern_opt_long(NAME, options, subopts, "device", &device)) != FUPERMOD_SUCCESS) return rc;
  if ((rc = kern_opt_long(NAME, options, subopts, "sync", &sync)) != FUPERMOD_SUCCESS) return rc;
  if ((rc = kern_opt_long(NAME, options, subopts, "mem", &mem)) != FUPERMOD_SUCCESS) return rc;
  if (!(k = calloc(1, sizeof *k))) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  k->n = n;
  k->device = device;
  k->sync = sync;
  k->mem = (double)mem;
  o = (fupermod_exec_opts){.kind = FUPERMOD_EXEC_CUDA, .threads = 1, .cuda_device = (int)device, .mem_limit = (double)mem};
  if ((rc = fupermod_exec_open(&o, &k->e)) != FUPERMOD_SUCCESS) {
    free(k);
    return rc;
  }
  *ctx = k;
  return FUPERMOD_SUCCESS;
}

static double complexity(long d, void *ctx) {
  double n = (double)((ooc_ctx *)ctx)->n;
  return 2.0 * (double)d * n * n;
}

static void release(ooc_ctx *k) {
  fupermod_exec_host_free(k->e, k->A), fupermod_exec_host_free(k->e, k->B), fupermod_exec_host_free(k->e, k->C);
  k->A = k->B = k->C = NULL;
  k->d = 0;
}

static int finalize(void *ctx) {
  release(ctx);
  return FUPERMOD_SUCCESS;
}

static int alloc_fill(ooc_ctx *k, long d) {
  const size_t n = (size_t)k->n, rows = (size_t)d;
  double host = 8.0 * (2.0 * (double)d * (double)k->n + (double)k->n * (double)k->n);
  int rc, fail;
  if ((rc = kern_check_d(NAME, d)) != FUPERMOD_SUCCESS) return rc;
  if ((rc = kern_mem_check(NAME, d, host, kern_mem_limit(), "(3/4 of the physical memory)")) != FUPERMOD_SUCCESS)
    return rc;
  release(k);
  fail = fupermod_exec_host_alloc(k->e, rows * n * sizeof(double), (void **)&k->A) != FUPERMOD_SUCCESS ||
         fupermod_exec_host_alloc(k->e, n * n * sizeof(double), (void **)&k->B) != FUPERMOD_SUCCESS ||
         fupermod_exec_host_alloc(k->e, rows * n * sizeof(double), (void **)&k->C) != FUPERMOD_SUCCESS;
  if (fail) {
    release(k);
    return fupermod_error(FUPERMOD_ERR_NOMEM, NAME " kernel: cannot allocate %.0f bytes of pinned host memory for d=%ld",
                          host, d);
  }
  kern_fill(k->A, rows * n, 1);
  kern_fill(k->B, n * n, 2);
  kern_fill(k->C, rows * n, 3);
  k->d = d;
  return FUPERMOD_SUCCESS;
}

static int initialize(long d, void *ctx) { return alloc_fill(ctx, d); }

static int execute(void *ctx) {
  ooc_ctx *k = ctx;
  int old, rc;
  if (!k->d) return fupermod_error(FUPERMOD_ERR_USAGE, NAME " kernel: execute before initialize");
  /* never cancelled inside the CUDA runtime (see dgemm-cuda) */
  pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
  rc = fupermod_exec_dgemm(k->e, k->sync ? FUPERMOD_EXEC_DGEMM_SERIAL : 0, k->d, k->n, k->n, 1.0, k->A, k->d, k->B, k->n,
                           1.0, k->C, k->d, NULL);
  pthread_setcancelstate(old, NULL);
  return rc;
}

static void destroy(void *ctx) {
  ooc_ctx *k = ctx;
  if (!k) return;
  release(k);
  fupermod_exec_close(k->e);
  free(k);
}

/* Column-major C += A B by a triple loop, against the GPU with memory limits that force slices. */
static int verify(void *ctx) {
  static const long cases[][3] = {{1, 1, 0}, {5, 7, 0}, {33, 17, 1200}, {64, 70, 9000}, {9, 40, 2000}, {100, 3, 60}};
  ooc_ctx *base = ctx;
  int rc = FUPERMOD_SUCCESS;
  for (size_t c = 0; c < sizeof cases / sizeof cases[0] && rc == FUPERMOD_SUCCESS; c++) {
    ooc_ctx k = {cases[c][1], base->device, 0, 8.0 * (double)cases[c][2], NULL, 0, NULL, NULL, NULL};
    fupermod_exec_opts o = {.kind = FUPERMOD_EXEC_CUDA, .threads = 1, .cuda_device = (int)base->device, .mem_limit = k.mem};
    long d = cases[c][0], n = k.n;
    fupermod_exec_dgemm_info st;
    double *ref;
    if ((rc = fupermod_exec_open(&o, &k.e)) != FUPERMOD_SUCCESS) break;
    if ((rc = alloc_fill(&k, d)) == FUPERMOD_SUCCESS) {
      if (!(ref = malloc((size_t)(d * n) * sizeof *ref))) rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
      else {
        memcpy(ref, k.C, (size_t)(d * n) * sizeof *ref);
        for (long j = 0; j < n; j++)
          for (long i = 0; i < d; i++) {
            double s = 0.0;
            for (long p = 0; p < n; p++) s += k.A[i + p * d] * k.B[p + j * n];
            ref[i + j * d] += s;
          }
        rc = fupermod_exec_dgemm(k.e, 0, d, n, n, 1.0, k.A, d, k.B, n, 1.0, k.C, d, &st);
        if (rc == FUPERMOD_SUCCESS && !(kern_rel_err(k.C, ref, (size_t)(d * n)) <= 1e-12))
          rc = fupermod_error(FUPERMOD_ERR_NUMERIC, NAME " kernel: d=%ld n=%ld split %ld x %ld: relative error %g", d, n,
                              st.row_tiles, st.col_tiles, kern_rel_err(k.C, ref, (size_t)(d * n)));
        free(ref);
      }
    }
    release(&k);
    fupermod_exec_close(k.e);
  }
  return rc;
}

const fupermod_kernel_ops fupermod_kernel_plugin = {
  FUPERMOD_KERNEL_API, NAME, "C_i = A_i B + C_i over d rows of N on a GPU, streamed (any d)",
  create, complexity, initialize, execute, finalize, destroy, verify, NULL, NULL, options};
