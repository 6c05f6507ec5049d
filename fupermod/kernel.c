#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fupermod/error.h"
#include "fupermod/exec.h"
#include "fupermod/kernel.h"

#ifndef FUPERMOD_KERNEL_DIR
#define FUPERMOD_KERNEL_DIR "/usr/local/lib/fupermod/kernels"
#endif

static int is_path(const char *s) {
  size_t n = strlen(s);
  return strchr(s, '/') != NULL || (n > 3 && strcmp(s + n - 3, ".so") == 0);
}

/* Try DIR/fupermod_kernel_NAME.so then DIR/NAME.so; returns a malloc'ed path or NULL. */
static char *search_dir(const char *dir, size_t dn, const char *name) {
  static const char *const fmt[] = {"%.*s/fupermod_kernel_%s.so", "%.*s/%s.so"};
  for (int k = 0; k < 2; k++) {
    size_t n = dn + strlen(name) + 32;
    char *p = malloc(n);
    if (!p) return NULL;
    snprintf(p, n, fmt[k], (int)dn, dir, name);
    if (access(p, R_OK) == 0) return p;
    free(p);
  }
  return NULL;
}

static char *find_kernel(const char *name, char *searched, size_t ssize) {
  const char *env = getenv("FUPERMOD_KERNEL_PATH");
  const char *dirs[2] = {env, FUPERMOD_KERNEL_DIR};
  searched[0] = '\0';
  for (int i = 0; i < 2; i++) {
    const char *s = dirs[i];
    while (s && *s) {
      const char *end = strchr(s, ':');
      size_t dn = end ? (size_t)(end - s) : strlen(s);
      if (dn) {
        char *p = search_dir(s, dn, name);
        if (p) return p;
        size_t used = strlen(searched);
        snprintf(searched + used, ssize - used, "%s%.*s", used ? ":" : "", (int)dn, s);
      }
      s = end ? end + 1 : NULL;
    }
  }
  return NULL;
}

int fupermod_kernel_find(const char *name, char **path) {
  char searched[2048];
  *path = NULL;
  if (!name || !*name) return fupermod_error(FUPERMOD_ERR_USAGE, "no kernel given");
  if (!(*path = find_kernel(name, searched, sizeof searched)))
    return fupermod_error(FUPERMOD_ERR_INPUT,
                          "kernel '%s' not found (looked for fupermod_kernel_%s.so and %s.so in %s; "
                          "set FUPERMOD_KERNEL_PATH or give a path)",
                          name, name, name, searched);
  return FUPERMOD_SUCCESS;
}

int fupermod_kernel_load(const char *name_or_path, const char *subopts, fupermod_kernel **out) {
  fupermod_kernel *k;
  const fupermod_kernel_ops *ops;
  char *path;
  int rc;
  *out = NULL;
  if (!name_or_path || !*name_or_path) return fupermod_error(FUPERMOD_ERR_USAGE, "no kernel given");
  if (is_path(name_or_path)) {
    if (!(path = strdup(name_or_path))) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  } else if ((rc = fupermod_kernel_find(name_or_path, &path)) != FUPERMOD_SUCCESS) {
    return rc;
  }
  k = calloc(1, sizeof *k);
  if (!k) {
    free(path);
    return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  }
  k->path = path;
  k->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!k->handle) {
    rc = fupermod_error(FUPERMOD_ERR_INPUT, "kernel %s: cannot load: %s", path, dlerror());
    goto fail;
  }
  ops = (const fupermod_kernel_ops *)dlsym(k->handle, "fupermod_kernel_plugin");
  if (!ops) {
    rc = fupermod_error(FUPERMOD_ERR_INPUT, "kernel %s: no symbol fupermod_kernel_plugin (not a fupermod kernel)",
                        path);
    goto fail;
  }
  if (ops->api_version != FUPERMOD_KERNEL_API && ops->api_version != 1) {
    rc = fupermod_error(FUPERMOD_ERR_INPUT, "kernel %s: API version %d, expected 1 to %d", path, ops->api_version,
                        FUPERMOD_KERNEL_API);
    goto fail;
  }
  if (!ops->create || !ops->complexity || !ops->initialize || !ops->execute || !ops->finalize) {
    rc = fupermod_error(FUPERMOD_ERR_INPUT, "kernel %s: incomplete operations table", path);
    goto fail;
  }
  k->ops = ops;
  if ((rc = ops->create(subopts ? subopts : "", &k->ctx)) != FUPERMOD_SUCCESS) {
    fupermod_error_prefix(rc, "kernel %s", ops->name ? ops->name : path);
    k->ops = NULL;
    goto fail;
  }
  *out = k;
  return FUPERMOD_SUCCESS;
fail:
  if (k->handle) dlclose(k->handle);
  free(k->path);
  free(k);
  return rc;
}

void fupermod_kernel_unload(fupermod_kernel *k) {
  if (!k) return;
  if (k->ops && k->ops->destroy) k->ops->destroy(k->ctx);
  if (k->handle) dlclose(k->handle);
  free(k->path);
  free(k);
}

double fupermod_kernel_complexity(const fupermod_kernel *k, long d) { return k->ops->complexity(d, k->ctx); }

int fupermod_kernel_use_exec(fupermod_kernel *k, fupermod_exec *exec) {
  if (!k || !exec) return fupermod_error(FUPERMOD_ERR_USAGE, "kernel use_exec: NULL argument");
  /* a version-1 table ends before use_exec */
  if (k->ops->api_version >= 2 && k->ops->use_exec) return k->ops->use_exec(k->ctx, exec);
  if (fupermod_exec_kind(exec) == FUPERMOD_EXEC_CPU) return FUPERMOD_SUCCESS;
  return fupermod_error(FUPERMOD_ERR_USAGE, "kernel %s computes on the CPU only: it cannot run on %s",
                        k->ops->name ? k->ops->name : k->path, fupermod_exec_describe(exec));
}
