/* The out-of-card GEMM's contexts: argument checks here, the CUDA work in the module
 * fupermod_ooc_cuda.so (ooc_dgemm.c), found like a kernel plug-in and loaded on the first context
 * that has a device to run on. libfupermod_ooc itself needs no CUDA library. */
#include "config.h"
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include "kernels/ooc/ooc_module.h"

struct fupermod_ooc {
  const fupermod_ooc_module *ops;
  void *impl;
};

#ifdef FUPERMOD_HAVE_CUDA
static pthread_mutex_t module_lock = PTHREAD_MUTEX_INITIALIZER;
static const fupermod_ooc_module *module; /* loaded once, never unloaded (CUDA's state outlives calls) */

static int load_module(const fupermod_ooc_module **out) {
  char *path = NULL;
  void *h;
  const fupermod_ooc_module *m;
  int rc = FUPERMOD_SUCCESS;
  pthread_mutex_lock(&module_lock);
  if (module) goto done;
  if ((rc = fupermod_kernel_find(FUPERMOD_OOC_MODULE, &path)) != FUPERMOD_SUCCESS) {
    fupermod_error_prefix(rc, "ooc dgemm: no CUDA executor");
    goto done;
  }
  if (!(h = dlopen(path, RTLD_NOW | RTLD_LOCAL))) {
    rc = fupermod_error(FUPERMOD_ERR_NODEVICE, "ooc dgemm: CUDA executor %s: cannot load: %s", path, dlerror());
    goto done;
  }
  m = (const fupermod_ooc_module *)dlsym(h, "fupermod_ooc_cuda_module");
  if (!m || m->api_version != FUPERMOD_OOC_MODULE_API || !m->create || !m->destroy || !m->dgemm || !m->hold ||
      !m->release) {
    dlclose(h);
    rc = fupermod_error(FUPERMOD_ERR_INPUT, "ooc dgemm: %s is not a CUDA executor of this fupermod", path);
    goto done;
  }
  module = m;
done:
  *out = module;
  pthread_mutex_unlock(&module_lock);
  free(path);
  return rc;
}
#endif

int fupermod_ooc_create(const fupermod_ooc_opts *opts, fupermod_ooc **out) {
  fupermod_ooc_opts o = {0, 0.0, 0, 0};
  if (!out) return fupermod_error(FUPERMOD_ERR_USAGE, "ooc dgemm: NULL result");
  *out = NULL;
  if (opts) o = *opts;
  if (o.device < 0) return fupermod_error(FUPERMOD_ERR_USAGE, "ooc dgemm: device %d", o.device);
#ifdef FUPERMOD_HAVE_CUDA
  {
    const fupermod_ooc_module *m = NULL;
    fupermod_ooc *c;
    int count, rc;
    /* the cheap question first: without a device the CUDA libraries are never loaded */
    if ((count = fupermod_cuda_device_count()) == 0)
      return fupermod_error(FUPERMOD_ERR_NODEVICE, "ooc dgemm: no CUDA device");
    if (o.device >= count)
      return fupermod_error(FUPERMOD_ERR_NODEVICE, "ooc dgemm: no CUDA device %d (%d present)", o.device, count);
    if ((rc = load_module(&m)) != FUPERMOD_SUCCESS) return rc;
    if (!(c = calloc(1, sizeof *c))) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
    c->ops = m;
    if ((rc = m->create(&o, &c->impl)) != FUPERMOD_SUCCESS) {
      free(c);
      return rc;
    }
    *out = c;
    return FUPERMOD_SUCCESS;
  }
#else
  return fupermod_error(FUPERMOD_ERR_NODEVICE, "ooc dgemm: no CUDA device (fupermod was built without CUDA)");
#endif
}

void fupermod_ooc_destroy(fupermod_ooc *c) {
  if (!c) return;
  c->ops->destroy(c->impl);
  free(c);
}

int fupermod_ooc_dgemm(fupermod_ooc *c, long M, long N, long K, double alpha, const double *A, long lda,
                       const double *B, long ldb, double beta, double *C, long ldc, fupermod_ooc_stats *stats) {
  if (!c) return fupermod_error(FUPERMOD_ERR_USAGE, "ooc dgemm: no context");
  if (M < 1 || N < 1 || K < 1 || !A || !B || !C || lda < M || ldb < K || ldc < M)
    return fupermod_error(FUPERMOD_ERR_USAGE, "ooc dgemm: M=%ld N=%ld K=%ld lda=%ld ldb=%ld ldc=%ld", M, N, K, lda, ldb,
                          ldc);
  if (M > INT_MAX || N > INT_MAX || K > INT_MAX)
    return fupermod_error(FUPERMOD_ERR_USAGE, "ooc dgemm: M=%ld N=%ld K=%ld exceed cuBLAS's int dimensions", M, N, K);
  return c->ops->dgemm(c->impl, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, stats);
}

int fupermod_ooc_hold(fupermod_ooc *c, double *C, long M, long N, long ldc, long kmax) {
  if (!c) return fupermod_error(FUPERMOD_ERR_USAGE, "ooc hold: no context");
  if (!C || M < 1 || N < 1 || kmax < 1 || ldc < M || M > INT_MAX || N > INT_MAX || kmax > INT_MAX)
    return fupermod_error(FUPERMOD_ERR_USAGE, "ooc hold: M=%ld N=%ld ldc=%ld kmax=%ld", M, N, ldc, kmax);
  return c->ops->hold(c->impl, C, M, N, ldc, kmax);
}

int fupermod_ooc_release(fupermod_ooc *c) {
  if (!c) return fupermod_error(FUPERMOD_ERR_USAGE, "ooc release: no context");
  return c->ops->release(c->impl);
}
