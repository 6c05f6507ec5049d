/* Where plug-ins are found (fupermod_kernel_find, fupermod/kernel.h): the kernels and the
 * executors' modules, by name, in $FUPERMOD_KERNEL_PATH and then the installed directory. Apart
 * from kernel.c, which loads and runs them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fupermod/error.h"
#include "fupermod/kernel.h"

#ifndef FUPERMOD_KERNEL_DIR
#define FUPERMOD_KERNEL_DIR "/usr/local/lib/fupermod/kernels"
#endif

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

