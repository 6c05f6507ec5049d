/* Executors (fupermod/exec.h): options from a configuration line, the CPU device, and the CUDA
 * module, loaded once on the first GPU executor and never unloaded (CUDA's state outlives it). */
#include "config.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fupermod/conf.h"
#include "fupermod/exec_impl.h"
#include "fupermod/kernel.h"
#include "fupermod/option.h"
#include "fupermod/util.h"
#ifdef FUPERMOD_SMPI
#include "fupermod/smpi/exec_emu.h"
#endif

/* a block of host memory the executor keeps page-locked for reuse (fupermod_exec_host_alloc) */
typedef struct host_block {
  void *ptr;
  size_t bytes;
  int used;
  struct host_block *next;
} host_block;

struct fupermod_exec {
  const fupermod_exec_ops *ops;
  void *impl;
  int kind, threads;
  char describe[256], pci[32];
  host_block *blocks;
};

/* ---- the CPU device ---- */

static int cpu_open(const fupermod_exec_opts *o, void **impl, char *describe, size_t dsize, char *pci, size_t psize) {
  fupermod_exec_cpu *c = calloc(1, sizeof *c);
  if (!c) return fupermod_error(FUPERMOD_ERR_NOMEM, "executor: out of memory");
  c->threads = o->threads;
  snprintf(describe, dsize, "cpu, %d thread%s", o->threads, o->threads == 1 ? "" : "s");
  if (psize) pci[0] = '\0';
  *impl = c;
  return FUPERMOD_SUCCESS;
}

static void cpu_close(void *impl) {
  fupermod_exec_cpu *c = impl;
  if (!c) return;
  fupermod_exec_cpu_fft_free(c);
  free(c);
}

static int cpu_pin(void *impl, void *ptr, size_t bytes) { return FUPERMOD_SUCCESS; }
static int cpu_unpin(void *impl, void *ptr) { return FUPERMOD_SUCCESS; }

static int cpu_gemm_begin(void *impl, double *C, long m, long n, long ldc, long kmax, int zero) {
  fupermod_exec_cpu *c = impl;
  c->C = C, c->m = m, c->n = n, c->ldc = ldc;
  for (long j = 0; zero && m > 0 && j < n; j++) memset(C + (size_t)j * (size_t)ldc, 0, (size_t)m * sizeof *C);
  return FUPERMOD_SUCCESS;
}

static int cpu_gemm_update(void *impl, int trans, long k, const double *A, long lda, const double *B, long ldb) {
  return fupermod_exec_cpu_gemm_update(impl, trans, k, A, lda, B, ldb);
}

static int cpu_dgemm(void *impl, int flags, long M, long N, long K, double alpha, const double *A, long lda,
                     const double *B, long ldb, double beta, double *C, long ldc, fupermod_exec_dgemm_info *info) {
  if (info) *info = (fupermod_exec_dgemm_info){1, 1, M, N, K, 0.0, 1};
  return fupermod_exec_cpu_dgemm(impl, flags & FUPERMOD_EXEC_DGEMM_TRANS, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

static int cpu_gemm_end(void *impl) {
  fupermod_exec_cpu *c = impl;
  c->C = NULL;
  return FUPERMOD_SUCCESS;
}

static int cpu_fft(void *impl, const fupermod_exec_fft_layout *l, double *data, int sign) {
  return fupermod_exec_cpu_fft(impl, l, data, sign);
}

static void cpu_stats(void *impl, fupermod_exec_stats *s) { memset(s, 0, sizeof *s); }

static const fupermod_exec_ops cpu_ops = {FUPERMOD_EXEC_MODULE_API, cpu_open, cpu_close, cpu_pin, cpu_unpin,
                                          cpu_gemm_begin, cpu_gemm_update, cpu_gemm_end, cpu_fft, cpu_stats, NULL, NULL,
                                          cpu_dgemm, NULL, NULL};

/* ---- CUDA code: the one place that loads it ---- */

/* Two modules in the kernel directory, each loaded once and never unloaded (CUDA's state outlives
 * them): the probe, which links the CUDA runtime alone, for device counts and PCI ids; and the
 * executor, which links the same runtime with cuBLAS and cuFFT. Nothing else in fupermod opens
 * a CUDA library, so the runtime a process asks about is the one it computes with. */
static pthread_mutex_t module_lock = PTHREAD_MUTEX_INITIALIZER;
static const fupermod_exec_ops *cuda_ops;
static const fupermod_cuda_probe_ops *probe_ops;
static int probe_tried;

/* dlopen the kernel directory's module name and return its symbol sym in *out. */
static int load_module(const char *name, const char *sym, const char *what, void **handle, const void **out) {
  char *path = NULL;
  int rc = FUPERMOD_SUCCESS;
  *handle = NULL, *out = NULL;
  if ((rc = fupermod_kernel_find(name, &path)) != FUPERMOD_SUCCESS)
    rc = fupermod_error_prefix(FUPERMOD_ERR_NODEVICE, "no %s (fupermod was built without CUDA, or its kernel "
                               "directory is elsewhere)", what);
  else if (!(*handle = dlopen(path, RTLD_NOW | RTLD_LOCAL)))
    rc = fupermod_error(FUPERMOD_ERR_NODEVICE, "%s %s: cannot load: %s", what, path, dlerror());
  else if (!(*out = dlsym(*handle, sym)))
    rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s is not a %s of this fupermod", path, what);
  free(path);
  return rc;
}

static int load_cuda(const fupermod_exec_ops **out) {
  void *h = NULL;
  const void *sym;
  const fupermod_exec_ops *m;
  int rc = FUPERMOD_SUCCESS;
  pthread_mutex_lock(&module_lock);
  if (cuda_ops) goto done;
  if ((rc = load_module(FUPERMOD_EXEC_MODULE, "fupermod_exec_cuda_ops", "CUDA executor", &h, &sym)) != FUPERMOD_SUCCESS)
    goto done;
  m = sym;
  if (m->api_version != FUPERMOD_EXEC_MODULE_API || !m->open || !m->close || !m->gemm_begin || !m->gemm_update ||
      !m->gemm_end || !m->fft || !m->pin || !m->unpin || !m->stats || !m->dgemm || !m->fft2d) {
    rc = fupermod_error(FUPERMOD_ERR_INPUT, "the CUDA executor module is not of this fupermod (API %d, expected %d)",
                        m->api_version, FUPERMOD_EXEC_MODULE_API);
    goto done;
  }
  cuda_ops = m;
done:
  if (rc != FUPERMOD_SUCCESS && h) dlclose(h);
  *out = cuda_ops;
  pthread_mutex_unlock(&module_lock);
  return rc;
}

/* The probe, or NULL where it cannot load (no CUDA build, no runtime): then no device. */
static const fupermod_cuda_probe_ops *probe(void) {
  const fupermod_cuda_probe_ops *p;
  pthread_mutex_lock(&module_lock);
  if (!probe_tried) {
    void *h = NULL;
    const void *sym;
    char *kept = strdup(fupermod_error_message()); /* a question, not an error: keep the caller's message */
    probe_tried = 1;
    if (load_module(FUPERMOD_CUDA_PROBE, "fupermod_cuda_probe", "CUDA probe", &h, &sym) == FUPERMOD_SUCCESS &&
        ((const fupermod_cuda_probe_ops *)sym)->api_version == FUPERMOD_CUDA_PROBE_API)
      probe_ops = sym;
    else if (h)
      dlclose(h);
    if (kept && kept[0]) fupermod_error(FUPERMOD_SUCCESS, "%s", kept);
    else fupermod_error_clear();
    free(kept);
  }
  p = probe_ops;
  pthread_mutex_unlock(&module_lock);
  return p;
}

int fupermod_cuda_device_count(void) {
  const fupermod_cuda_probe_ops *p = probe();
  return p ? p->device_count() : 0;
}

int fupermod_cuda_pci_bus_id(int device, char *buf, size_t size) {
  const fupermod_cuda_probe_ops *p = probe();
  if (!p) return fupermod_error(FUPERMOD_ERR_NODEVICE, "no CUDA runtime");
  if (p->pci_bus_id(device, buf, size > 4096 ? 4096 : (int)size) != 0)
    return fupermod_error(FUPERMOD_ERR_NODEVICE, "no PCI bus id for CUDA device %d", device);
  return FUPERMOD_SUCCESS;
}

int fupermod_cuda_runtime_version(void) {
  const fupermod_cuda_probe_ops *p = probe();
  return p ? p->runtime_version() : 0;
}

/* ---- the executor ---- */

int fupermod_exec_open(const fupermod_exec_opts *opts, fupermod_exec **out) {
  fupermod_exec *e;
  const fupermod_exec_ops *ops = &cpu_ops;
  int rc;
  if (!out || !opts) return fupermod_error(FUPERMOD_ERR_USAGE, "executor: NULL argument");
  *out = NULL;
  if (opts->kind != FUPERMOD_EXEC_CPU && opts->kind != FUPERMOD_EXEC_CUDA)
    return fupermod_error(FUPERMOD_ERR_USAGE, "executor: unknown kind %d", opts->kind);
  if (opts->threads < 1 || opts->threads > 4096)
    return fupermod_error(FUPERMOD_ERR_USAGE, "executor: threads=%d must be from 1 to 4096", opts->threads);
  if (opts->kind == FUPERMOD_EXEC_CUDA && opts->cuda_device < 0)
    return fupermod_error(FUPERMOD_ERR_USAGE, "executor: CUDA device %d", opts->cuda_device);
#ifdef FUPERMOD_HAVE_CUDA
  /* the cheap question first: without a device, neither the module nor cuBLAS is ever mapped */
  if (opts->kind == FUPERMOD_EXEC_CUDA && fupermod_cuda_device_count() == 0)
    return fupermod_error(FUPERMOD_ERR_NODEVICE, "no CUDA device");
#endif
  if (opts->kind == FUPERMOD_EXEC_CUDA && (rc = load_cuda(&ops)) != FUPERMOD_SUCCESS) return rc;
#ifdef FUPERMOD_SMPI
  if (opts->kind == FUPERMOD_EXEC_CPU) ops = &fupermod_exec_emu_ops; /* SMPI: every CPU is emulated */
#endif
  if (!(e = calloc(1, sizeof *e))) return fupermod_error(FUPERMOD_ERR_NOMEM, "executor: out of memory");
  e->ops = ops;
  e->kind = opts->kind;
  e->threads = opts->threads;
  if ((rc = ops->open(opts, &e->impl, e->describe, sizeof e->describe, e->pci, sizeof e->pci)) != FUPERMOD_SUCCESS) {
    free(e);
    return rc;
  }
  *out = e;
  return FUPERMOD_SUCCESS;
}

void fupermod_exec_close(fupermod_exec *e) {
  if (!e) return;
  for (host_block *b = e->blocks, *next; b; b = next) {
    next = b->next;
    e->ops->unpin(e->impl, b->ptr);
    free(b->ptr);
    free(b);
  }
  e->ops->close(e->impl);
  free(e);
}

int fupermod_exec_host_alloc(fupermod_exec *e, size_t bytes, void **ptr) {
  host_block *best = NULL, *b;
  int rc;
  if (!e || !ptr) return fupermod_error(FUPERMOD_ERR_USAGE, "executor host memory: NULL argument");
  *ptr = NULL;
  if (bytes == 0) bytes = 1;
  /* the smallest free block that holds it: page-locked already */
  for (b = e->blocks; b; b = b->next)
    if (!b->used && b->bytes >= bytes && (!best || b->bytes < best->bytes)) best = b;
  if (!best) {
    if (!(best = calloc(1, sizeof *best)) || !(best->ptr = malloc(bytes))) {
      free(best);
      return fupermod_error(FUPERMOD_ERR_NOMEM, "executor: no host memory for %zu bytes", bytes);
    }
    if ((rc = e->ops->pin(e->impl, best->ptr, bytes)) != FUPERMOD_SUCCESS) {
      free(best->ptr);
      free(best);
      return rc;
    }
    best->bytes = bytes;
    best->next = e->blocks;
    e->blocks = best;
  }
  best->used = 1;
  *ptr = best->ptr;
  return FUPERMOD_SUCCESS;
}

void fupermod_exec_host_free(fupermod_exec *e, void *ptr) {
  if (!e || !ptr) return;
  for (host_block *b = e->blocks; b; b = b->next)
    if (b->ptr == ptr) b->used = 0;
}


static const fupermod_option exec_opts[] = {
    {"threads", FUPERMOD_OPT_LONG, 1, 4096, NULL, "threads of a cpu line's executor (default: the binding's cores)", NULL},
    {"device", FUPERMOD_OPT_LONG, 0, 1023, "0", "the CUDA device of a gpu line", NULL},
    {"mem_limit", FUPERMOD_OPT_STRING, 1, 0, NULL, "device memory a gpu line may use, bytes with K, M or G (default: 90 % shared among its device's lines)", NULL},
#ifdef FUPERMOD_SMPI
    {"emulate", FUPERMOD_OPT_STRING, 1, 0, "platform", "SMPI build: the point file whose times the device takes, or platform (the simulated host's flop rate)", NULL},
    {"emulate_unit", FUPERMOD_OPT_DOUBLE, 1, 1e30, "1e6", "SMPI build: the flops of one unit of d in the emulate= point file", NULL},
#endif
    FUPERMOD_OPTION_END};

const fupermod_option *fupermod_exec_options(void) { return exec_opts; }

int fupermod_exec_opts_line(const fupermod_process_conf *pc, const char *where, fupermod_exec_opts *o) {
  char buf[64];
  long v;
  int got, rc;
  memset(o, 0, sizeof *o);
  o->kind = strcmp(pc->device_type, "gpu") == 0 ? FUPERMOD_EXEC_CUDA : FUPERMOD_EXEC_CPU;
  if ((got = fupermod_subopt_get(pc->subopts, "threads", buf, sizeof buf)) < 0) return fupermod_error_prefix(got, "%s", where);
  if (got) {
    if (fupermod_parse_long(buf, &v) != 0 || v < 1 || v > 4096)
      return fupermod_error(FUPERMOD_ERR_INPUT, "%s: threads=%s must be an integer from 1 to 4096", where, buf);
    o->threads = (int)v;
  } else if ((rc = fupermod_bind_width(pc->bind, &o->threads)) != FUPERMOD_SUCCESS)
    return fupermod_error_prefix(rc, "%s", where);
  if (o->threads < 1) o->threads = 1;
  if ((got = fupermod_subopt_get(pc->subopts, "device", buf, sizeof buf)) < 0) return fupermod_error_prefix(got, "%s", where);
  if (got && (fupermod_parse_long(buf, &v) != 0 || v < 0 || v > 1023))
    return fupermod_error(FUPERMOD_ERR_INPUT, "%s: device=%s must be a CUDA device number from 0", where, buf);
  o->cuda_device = got ? (int)v : 0;
  if ((got = fupermod_subopt_get(pc->subopts, "mem_limit", buf, sizeof buf)) < 0) return fupermod_error_prefix(got, "%s", where);
  if (got && fupermod_parse_bytes(buf, &o->mem_limit) != 0)
    return fupermod_error(FUPERMOD_ERR_INPUT, "%s: mem_limit=%s must be bytes, with K, M or G allowed", where, buf);
#ifdef FUPERMOD_SMPI
  /* SMPI (docs/simulate.md): a simulated host has no GPU, and every CPU is an emulated device */
  if (o->kind == FUPERMOD_EXEC_CUDA)
    return fupermod_error(FUPERMOD_ERR_NODEVICE, "%s: a gpu line in the SMPI build, which has no GPU: describe the device "
                          "as a cpu line with emulate=FILE (its point file)", where);
  if ((got = fupermod_subopt_get(pc->subopts, "emulate", o->emulate, sizeof o->emulate)) < 0)
    return fupermod_error_prefix(got, "%s", where);
  if ((got = fupermod_subopt_get(pc->subopts, "emulate_unit", buf, sizeof buf)) < 0) return fupermod_error_prefix(got, "%s", where);
  if (got && (fupermod_parse_double(buf, &o->emulate_unit) != 0 || !(o->emulate_unit > 0)))
    return fupermod_error(FUPERMOD_ERR_INPUT, "%s: emulate_unit=%s must be a number of flops > 0", where, buf);
#endif
  return FUPERMOD_SUCCESS;
}

/* The device= of a gpu line (default 0), or -1 for any other line. */
static long line_device(const fupermod_process_conf *pc) {
  char buf[64];
  long v = 0;
  if (strcmp(pc->device_type, "gpu") != 0) return -1;
  if (fupermod_subopt_get(pc->subopts, "device", buf, sizeof buf) > 0 && fupermod_parse_long(buf, &v) != 0) return -1;
  return v;
}

int fupermod_exec_opts_conf(const fupermod_conf *conf, int index, const char *where, fupermod_exec_opts *o) {
  const fupermod_process_conf *me;
  long dev;
  int rc;
  if (!conf || index < 0 || index >= conf->count) return fupermod_error(FUPERMOD_ERR_USAGE, "executor: line %d of a configuration", index);
  me = &conf->procs[index];
  if ((rc = fupermod_exec_opts_line(me, where, o)) != FUPERMOD_SUCCESS) return rc;
  o->device_sharers = 1;
  if ((dev = line_device(me)) < 0) return FUPERMOD_SUCCESS;
  o->device_sharers = 0;
  for (int i = 0; i < conf->count; i++) {
    const char *h = conf->procs[i].hostname;
    int same_host = strcmp(h, me->hostname) == 0 || strcmp(h, "localhost") == 0 || strcmp(me->hostname, "localhost") == 0;
    o->device_sharers += same_host && line_device(&conf->procs[i]) == dev;
  }
  return FUPERMOD_SUCCESS;
}

int fupermod_exec_kind(const fupermod_exec *e) { return e ? e->kind : FUPERMOD_EXEC_CPU; }
int fupermod_exec_threads(const fupermod_exec *e) { return e ? e->threads : 1; }
const char *fupermod_exec_describe(const fupermod_exec *e) { return e ? e->describe : ""; }
const char *fupermod_exec_pci_bus_id(const fupermod_exec *e) { return e ? e->pci : ""; }

int fupermod_exec_pin(fupermod_exec *e, void *ptr, size_t bytes) {
  if (!e) return fupermod_error(FUPERMOD_ERR_USAGE, "executor: NULL");
  return ptr && bytes ? e->ops->pin(e->impl, ptr, bytes) : FUPERMOD_SUCCESS;
}

int fupermod_exec_unpin(fupermod_exec *e, void *ptr) {
  if (!e) return fupermod_error(FUPERMOD_ERR_USAGE, "executor: NULL");
  return ptr ? e->ops->unpin(e->impl, ptr) : FUPERMOD_SUCCESS;
}

int fupermod_exec_gemm_begin(fupermod_exec *e, double *C, long m, long n, long ldc, long kmax, int zero) {
  if (!e) return fupermod_error(FUPERMOD_ERR_USAGE, "executor: NULL");
  if (m < 0 || n < 0 || kmax < 0 || (m > 0 && n > 0 && (!C || ldc < m)))
    return fupermod_error(FUPERMOD_ERR_USAGE, "executor GEMM: C %ld x %ld with ldc %ld, kmax %ld%s", m, n, ldc, kmax,
                          !C ? ", C NULL" : "");
  return e->ops->gemm_begin(e->impl, C, m, n, ldc, kmax, zero);
}

int fupermod_exec_gemm_update(fupermod_exec *e, int trans, long k, const double *A, long lda, const double *B,
                              long ldb) {
  if (!e) return fupermod_error(FUPERMOD_ERR_USAGE, "executor: NULL");
  if (k < 0 || (k > 0 && (!A || !B))) return fupermod_error(FUPERMOD_ERR_USAGE, "executor GEMM: update of k = %ld", k);
  return e->ops->gemm_update(e->impl, trans, k, A, lda, B, ldb);
}

int fupermod_exec_gemm_plan(fupermod_exec *e, long updates) {
  if (!e) return fupermod_error(FUPERMOD_ERR_USAGE, "executor: NULL");
  if (updates < 0) return fupermod_error(FUPERMOD_ERR_USAGE, "executor GEMM: %ld updates planned", updates);
  return e->ops->gemm_plan ? e->ops->gemm_plan(e->impl, updates) : FUPERMOD_SUCCESS;
}

int fupermod_exec_gemm_wait(fupermod_exec *e, long behind) {
  if (!e) return fupermod_error(FUPERMOD_ERR_USAGE, "executor: NULL");
  if (behind < 0) return fupermod_error(FUPERMOD_ERR_USAGE, "executor GEMM: wait with %ld updates behind", behind);
  return e->ops->gemm_wait ? e->ops->gemm_wait(e->impl, behind) : FUPERMOD_SUCCESS;
}

int fupermod_exec_gemm_end(fupermod_exec *e) {
  if (!e) return fupermod_error(FUPERMOD_ERR_USAGE, "executor: NULL");
  return e->ops->gemm_end(e->impl);
}

int fupermod_exec_dgemm(fupermod_exec *e, int flags, long M, long N, long K, double alpha, const double *A, long lda,
                        const double *B, long ldb, double beta, double *C, long ldc, fupermod_exec_dgemm_info *info) {
  int trans = flags & FUPERMOD_EXEC_DGEMM_TRANS;
  if (!e) return fupermod_error(FUPERMOD_ERR_USAGE, "executor: NULL");
  if (flags & ~(FUPERMOD_EXEC_DGEMM_TRANS | FUPERMOD_EXEC_DGEMM_SERIAL))
    return fupermod_error(FUPERMOD_ERR_USAGE, "executor DGEMM: unknown flags %#x", (unsigned)flags);
  if (M < 0 || N < 0 || K < 0 || ldc < (M > 1 ? M : 1) || lda < ((trans ? K : M) > 1 ? (trans ? K : M) : 1) ||
      ldb < (K > 1 ? K : 1) || (M > 0 && N > 0 && (!C || (K > 0 && (!A || !B)))))
    return fupermod_error(FUPERMOD_ERR_USAGE, "executor DGEMM: M=%ld N=%ld K=%ld lda=%ld ldb=%ld ldc=%ld%s", M, N, K, lda,
                          ldb, ldc, trans ? " (A transposed)" : "");
  if (M > 0x7fffffffL || N > 0x7fffffffL || K > 0x7fffffffL || lda > 0x7fffffffL || ldb > 0x7fffffffL ||
      ldc > 0x7fffffffL)
    return fupermod_error(FUPERMOD_ERR_USAGE, "executor DGEMM: M=%ld N=%ld K=%ld: a dimension above 2^31 - 1", M, N, K);
  if (info) memset(info, 0, sizeof *info);
  if (M == 0 || N == 0) return FUPERMOD_SUCCESS;
  return e->ops->dgemm(e->impl, flags, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, info);
}

const char *fupermod_exec_fft_check(const fupermod_exec_fft_layout *l) {
  if (!l) return "no layout";
  if (l->n < 1 || l->howmany < 0 || l->blocks < 0) return "n >= 1, howmany >= 0 and blocks >= 0 are needed";
  if (l->n > 0x7fffffffL || l->howmany > 0x7fffffffL || l->blocks > 0x7fffffffL) return "a dimension above 2^31 - 1";
  if (l->stride < 1 || l->dist < 0 || l->block_dist < 0) return "stride >= 1, dist >= 0 and block_dist >= 0 are needed";
  return NULL;
}

int fupermod_exec_fft(fupermod_exec *e, const fupermod_exec_fft_layout *l, double *data, int sign) {
  const char *why;
  if (!e) return fupermod_error(FUPERMOD_ERR_USAGE, "executor: NULL");
  if ((why = fupermod_exec_fft_check(l)) != NULL) return fupermod_error(FUPERMOD_ERR_USAGE, "executor FFT: %s", why);
  if (sign != -1 && sign != 1) return fupermod_error(FUPERMOD_ERR_USAGE, "executor FFT: sign %d (-1 or +1)", sign);
  if (l->howmany == 0 || l->blocks == 0) return FUPERMOD_SUCCESS;
  if (!data) return fupermod_error(FUPERMOD_ERR_USAGE, "executor FFT: data is NULL");
  return e->ops->fft(e->impl, l, data, sign);
}

int fupermod_exec_fft2d(fupermod_exec *e, long M, long N, double *data, int sign) {
  fupermod_exec_fft_layout rows = {N, M, 1, N, 1, 0}, cols = {M, N, N, 1, 1, 0};
  int rc;
  if (!e) return fupermod_error(FUPERMOD_ERR_USAGE, "executor: NULL");
  if (M < 0 || N < 0 || M > 0x7fffffffL || N > 0x7fffffffL)
    return fupermod_error(FUPERMOD_ERR_USAGE, "executor 2D FFT: M = %ld, N = %ld", M, N);
  if (sign != -1 && sign != 1) return fupermod_error(FUPERMOD_ERR_USAGE, "executor 2D FFT: sign %d (-1 or +1)", sign);
  if (M == 0 || N == 0) return FUPERMOD_SUCCESS;
  if (!data) return fupermod_error(FUPERMOD_ERR_USAGE, "executor 2D FFT: data is NULL");
  if (e->ops->fft2d) return e->ops->fft2d(e->impl, M, N, data, sign);
  rc = e->ops->fft(e->impl, &rows, data, sign);
  return rc == FUPERMOD_SUCCESS ? e->ops->fft(e->impl, &cols, data, sign) : rc;
}

int fupermod_exec_reference(fupermod_exec *e, int what, long a, long b, long c, double *seconds) {
  if (!e || !seconds) return fupermod_error(FUPERMOD_ERR_USAGE, "executor: NULL");
  *seconds = 0;
  if (what == FUPERMOD_EXEC_REF_UP || what == FUPERMOD_EXEC_REF_DOWN) {
    if (a < 1 || (b != 0 && b != 1))
      return fupermod_error(FUPERMOD_ERR_USAGE, "executor reference: a copy of %ld bytes, host kind %ld", a, b);
  } else if (what < FUPERMOD_EXEC_REF_GEMM || what > FUPERMOD_EXEC_REF_FFT2D_MOVED || a < 1 || b < 1 ||
      ((what == FUPERMOD_EXEC_REF_GEMM || what == FUPERMOD_EXEC_REF_GEMM_XT) && c < 1) || a > 0x7fffffffL ||
      b > 0x7fffffffL || c > 0x7fffffffL)
    return fupermod_error(FUPERMOD_ERR_USAGE, "executor reference: %d of %ld x %ld x %ld", what, a, b, c);
  if (!e->ops->reference) return fupermod_error(FUPERMOD_ERR_NODEVICE, "executor reference: the %s has none", e->describe);
  return e->ops->reference(e->impl, what, a, b, c, seconds);
}

void fupermod_exec_get_stats(const fupermod_exec *e, fupermod_exec_stats *s) {
  if (!e) {
    memset(s, 0, sizeof *s);
    return;
  }
  e->ops->stats(e->impl, s);
}
