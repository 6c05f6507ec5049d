#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fupermod/error.h"
#include "fupermod/exec.h"
#include "fupermod/kernel.h"
#include "fupermod/meter.h"
#include "fupermod/option.h"
#include "fupermod/conf.h"
#include "fupermod/util.h"

int fupermod_kernel_open(const char *name_or_path, fupermod_kernel **out) {
  fupermod_kernel *k;
  const fupermod_kernel_ops *ops;
  char *path;
  int rc;
  *out = NULL;
  if (!name_or_path || !*name_or_path) return fupermod_error(FUPERMOD_ERR_USAGE, "no kernel given");
  if ((rc = fupermod_plugin_find("kernel", name_or_path, &path)) != FUPERMOD_SUCCESS) return rc;
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
  if (ops->api_version < 1 || ops->api_version > FUPERMOD_KERNEL_API) {
    rc = fupermod_error(FUPERMOD_ERR_INPUT, "kernel %s: API version %d, expected 1 to %d", path, ops->api_version,
                        FUPERMOD_KERNEL_API);
    goto fail;
  }
  if (!ops->create || !ops->complexity || !ops->initialize || !ops->execute || !ops->finalize) {
    rc = fupermod_error(FUPERMOD_ERR_INPUT, "kernel %s: incomplete operations table", path);
    goto fail;
  }
  k->ops = ops;
  *out = k;
  return FUPERMOD_SUCCESS;
fail:
  if (k->handle) dlclose(k->handle);
  free(k->path);
  free(k);
  return rc;
}

int fupermod_kernel_load(const char *name_or_path, const char *subopts, fupermod_kernel **out) {
  fupermod_kernel *k;
  int rc;
  *out = NULL;
  if ((rc = fupermod_kernel_open(name_or_path, &k)) != FUPERMOD_SUCCESS) return rc;
  if ((rc = k->ops->create(subopts ? subopts : "", &k->ctx)) != FUPERMOD_SUCCESS) {
    fupermod_error_prefix(rc, "kernel %s", k->ops->name ? k->ops->name : k->path);
    k->ops = NULL; /* no context to destroy */
    fupermod_kernel_unload(k);
    return rc;
  }
  *out = k;
  return FUPERMOD_SUCCESS;
}

const fupermod_option *fupermod_kernel_options(const fupermod_kernel *k) {
  return k && k->ops && k->ops->api_version >= 3 ? k->ops->options : NULL; /* older tables end before it */
}

/* The declarations of key, from the kernel's table, the executor's, the meter's. */
static const fupermod_option *declared(const fupermod_option *const *tables, int n, const char *key) {
  for (int t = 0; t < n; t++) {
    const fupermod_option *o = fupermod_option_find(tables[t], key);
    if (o) return o;
  }
  return NULL;
}

/* Every name of the tables, for "did you mean" and the list of known keys. */
static size_t all_names(const fupermod_option *const *tables, int n, const char **names, size_t cap) {
  size_t k = 0;
  for (int t = 0; t < n; t++)
    for (const fupermod_option *o = tables[t]; o && o->name; o++) {
      int seen = 0;
      for (size_t i = 0; i < k; i++) seen |= strcmp(names[i], o->name) == 0;
      if (!seen && k < cap) names[k++] = o->name;
    }
  return k;
}

int fupermod_kernel_check_subopts(const fupermod_kernel *const *kernels, int nk, const char *subopts) {
  const fupermod_option *tables[12];
  const char *names[128];
  char meter[64] = "", key[128], value[4096];
  int n = 0, open = 0;
  size_t nn;
  static const fupermod_option core[] = {
      {"kernel", FUPERMOD_OPT_STRING, 1, 0, NULL, "the kernel plug-in: a name or a path", NULL},
      {"group", FUPERMOD_OPT_STRING, 1, 0, NULL, "the node group of hierarchical partitioning", NULL},
      FUPERMOD_OPTION_END};
  if (!subopts) subopts = "";
  if (fupermod_subopt_get(subopts, "meter", meter, sizeof meter) < 0) meter[0] = '\0';
  tables[n++] = core;
  for (int i = 0; i < nk && n < 8; i++) {
    if (fupermod_kernel_options(kernels[i])) tables[n++] = fupermod_kernel_options(kernels[i]);
    else if (kernels[i] && kernels[i]->ops->api_version < 3) open = 1; /* it may read anything */
  }
  tables[n++] = fupermod_exec_options();
  tables[n++] = fupermod_meter_options(NULL);
  if (meter[0] && fupermod_meter_options(meter)) tables[n++] = fupermod_meter_options(meter);
  nn = all_names(tables, n, names, sizeof names / sizeof *names);
  for (const char *s = subopts; *s;) {
    const char *end = strchr(s, ','), *eq;
    size_t len = end ? (size_t)(end - s) : strlen(s), kl;
    const fupermod_option *o;
    eq = memchr(s, '=', len);
    kl = eq ? (size_t)(eq - s) : len;
    if (kl >= sizeof key || (eq && len - kl - 1 >= sizeof value))
      return fupermod_error(FUPERMOD_ERR_INPUT, "sub-option '%.40s...' is too long", s);
    memcpy(key, s, kl);
    key[kl] = '\0';
    if (!eq || kl == 0)
      return fupermod_error(FUPERMOD_ERR_INPUT, "sub-option '%.*s' is not key=value", (int)len, s);
    memcpy(value, eq + 1, len - kl - 1);
    value[len - kl - 1] = '\0';
    for (const char *t = subopts; t < s;) { /* a key given twice: which one counts is a guess */
      const char *tend = strchr(t, ',');
      if (strncmp(t, key, kl) == 0 && t[kl] == '=')
        return fupermod_error(FUPERMOD_ERR_INPUT, "sub-option %s is given twice", key);
      t = tend ? tend + 1 : s;
    }
    if ((o = declared(tables, n, key))) {
      if (fupermod_option_check(o, value) != FUPERMOD_SUCCESS) return FUPERMOD_ERR_INPUT; /* a fault of the line */
    } else if (!open) {
      char list[1024] = "";
      const char *near = fupermod_closest_name(key, names, nn);
      const char *const *meters = fupermod_meter_names();
      for (int i = 0; meters[i]; i++)
        if (fupermod_option_find(fupermod_meter_options(meters[i]), key))
          return fupermod_error(FUPERMOD_ERR_INPUT, "sub-option '%s' is read by the %s meter: add meter=%s%s%s or remove it",
                                key, meters[i], meters[i], meter[0] ? " in place of meter=" : "", meter);
      for (size_t i = 0; i < nn; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? " " : "", names[i]);
      if (near)
        return fupermod_error(FUPERMOD_ERR_INPUT, "unknown sub-option '%s' (did you mean '%s'?); known here: %s", key,
                              near, list);
      return fupermod_error(FUPERMOD_ERR_INPUT, "unknown sub-option '%s'; known here: %s (%s)", key, list,
                            nk > 0 ? "see fupermod kernel show" : "no kernel on this line");
    }
    s = end ? end + 1 : s + len;
  }
  return FUPERMOD_SUCCESS;
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
