/* Where plug-ins are found (fupermod_plugin_find, fupermod/kernel.h): the kernels, the executors'
 * modules and the applications (apps/app.h), by name, in $FUPERMOD_KERNEL_PATH and then the
 * installed directory. Apart from kernel.c and apps/app.c, which load them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fupermod/error.h"
#include "fupermod/kernel.h"

#ifndef FUPERMOD_KERNEL_DIR
#define FUPERMOD_KERNEL_DIR "/usr/local/lib/fupermod/kernels"
#endif

/* Try DIR/PREFIXNAME.so then DIR/NAME.so; returns a malloc'ed path or NULL. */
static char *search_dir(const char *dir, size_t dn, const char *prefix, const char *name) {
  for (int k = 0; k < 2; k++) {
    size_t n = dn + strlen(prefix) + strlen(name) + 8;
    char *p = malloc(n);
    if (!p) return NULL;
    snprintf(p, n, "%.*s/%s%s.so", (int)dn, dir, k == 0 ? prefix : "", name);
    if (access(p, R_OK) == 0) return p;
    free(p);
  }
  return NULL;
}

static char *find_plugin(const char *prefix, const char *name, char *searched, size_t ssize) {
  const char *env = getenv("FUPERMOD_KERNEL_PATH");
  const char *dirs[2] = {env, FUPERMOD_KERNEL_DIR};
  searched[0] = '\0';
  for (int i = 0; i < 2; i++) {
    const char *s = dirs[i];
    while (s && *s) {
      const char *end = strchr(s, ':');
      size_t dn = end ? (size_t)(end - s) : strlen(s);
      if (dn) {
        char *p = search_dir(s, dn, prefix, name);
        if (p) return p;
        size_t used = strlen(searched);
        snprintf(searched + used, ssize - used, "%s%.*s", used ? ":" : "", (int)dn, s);
      }
      s = end ? end + 1 : NULL;
    }
  }
  return NULL;
}

/* a path (it has a '/' or ends in .so) rather than a name */
static int is_path(const char *s) {
  size_t n = strlen(s);
  return strchr(s, '/') != NULL || (n > 3 && strcmp(s + n - 3, ".so") == 0);
}

int fupermod_plugin_find(const char *kind, const char *name_or_path, char **path) {
  char searched[2048], prefix[64];
  *path = NULL;
  if (!kind || !*kind) return fupermod_error(FUPERMOD_ERR_USAGE, "plugin find: no kind given");
  if (!name_or_path || !*name_or_path) return fupermod_error(FUPERMOD_ERR_USAGE, "no %s given", kind);
  if (is_path(name_or_path)) {
    if (!(*path = strdup(name_or_path))) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
    return FUPERMOD_SUCCESS;
  }
  snprintf(prefix, sizeof prefix, "fupermod_%s_", kind);
  if (!(*path = find_plugin(prefix, name_or_path, searched, sizeof searched)))
    return fupermod_error(FUPERMOD_ERR_INPUT,
                          "%s '%s' not found (looked for %s%s.so and %s.so in %s; "
                          "set FUPERMOD_KERNEL_PATH or give a path)",
                          kind, name_or_path, prefix, name_or_path, name_or_path, searched);
  return FUPERMOD_SUCCESS;
}

int fupermod_kernel_find(const char *name, char **path) {
  *path = NULL;
  if (!name || !*name) return fupermod_error(FUPERMOD_ERR_USAGE, "no kernel given");
  return fupermod_plugin_find("kernel", name, path);
}
