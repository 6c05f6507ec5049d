/* Which CUDA library a test loaded: the GPU tests run by tests/standin.sh ($FUPERMOD_CUDA_STANDIN
 * names the stand-in's directory) prove that the CUDA they ran on is the stand-in. */
#ifndef FUPERMOD_TESTS_STANDIN_CHECK_H
#define FUPERMOD_TESTS_STANDIN_CHECK_H

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The file mapped at address a (from /proc/self/maps: no dladdr, so no _GNU_SOURCE needed). */
static inline int standin_file_at(const void *a, char *path, size_t n) {
  char line[4096];
  FILE *fp = fopen("/proc/self/maps", "r");
  int found = 0;
  while (fp && !found && fgets(line, sizeof line, fp)) {
    unsigned long lo, hi;
    char *p = strchr(line, '/');
    if (sscanf(line, "%lx-%lx", &lo, &hi) == 2 && (uintptr_t)a >= lo && (uintptr_t)a < hi && p) {
      p[strcspn(p, "\n")] = '\0';
      snprintf(path, n, "%s", p);
      found = 1;
    }
  }
  if (fp) fclose(fp);
  return found;
}

/* Whether this process has loaded the library with soname `so` and it is the stand-in (it defines
 * `marker`) from directory dir (a canonical path); its path, or why not, goes to where. */
static inline int standin_loaded(const char *so, const char *marker, const char *dir, char *where, size_t n) {
  void *h = dlopen(so, RTLD_NOW | RTLD_NOLOAD);
  const char *mark;
  int good;
  if (!h) {
    snprintf(where, n, "%s is not loaded", so);
    return 0;
  }
  if (!(mark = dlsym(h, marker))) snprintf(where, n, "%s has no %s: not the stand-in", so, marker);
  else if (!standin_file_at(mark, where, n)) snprintf(where, n, "%s is not in /proc/self/maps", so);
  good = mark && strcmp(mark, "fupermod stand-in") == 0 && dir && strncmp(where, dir, strlen(dir)) == 0;
  dlclose(h);
  return good;
}

/* Whether each of libs ("cudart cublas cufft", any of them) is loaded and is the stand-in from dir;
 * where gets their paths, or the first that is not. */
static inline int standin_all(const char *dir, const char *libs, char *where, size_t n) {
  static const char *const names[3] = {"cudart", "cublas", "cufft"};
  size_t used = 0;
  where[0] = '\0';
  for (int k = 0; k < 3; k++) {
    char so[32], marker[64], one[1024];
    if (!strstr(libs, names[k])) continue;
    snprintf(so, sizeof so, "lib%s.so.%d", names[k], k == 2 ? 12 : 13);
    snprintf(marker, sizeof marker, "fupermod_%s_standin", names[k]);
    if (!standin_loaded(so, marker, dir, one, sizeof one)) {
      snprintf(where, n, "%s", one);
      return 0;
    }
    used += (size_t)snprintf(where + used, used < n ? n - used : 0, "%s%s", used ? ", " : "", one);
    if (used >= n) used = n - 1;
  }
  return 1;
}

/* The stand-in's directory in this build tree, as a canonical path. */
static inline void standin_build_dir(char *dir, size_t n) {
  char rel[4096];
  const char *top = getenv("top_builddir");
  snprintf(rel, sizeof rel, "%s/tests/fake_cuda/.libs/", top ? top : "..");
  if (n < 4096 || !realpath(rel, dir)) snprintf(dir, n, "%s", rel);
}

#ifdef FUPERMOD_TAP_H
/* Under tests/standin.sh: one test point, that libs are the stand-in the GPU tests ran on. */
static inline void standin_prove(const char *libs) {
  const char *dir = getenv("FUPERMOD_CUDA_STANDIN");
  char where[4096];
  if (dir) ok(standin_all(dir, libs, where, sizeof where), "the CUDA the GPU tests ran on is the stand-in: %s", where);
}
#endif

/* The main of a stand-in test built without the CUDA headers. */
/* One simulated device of the description `name` (tests/fake_cuda/devices), times only: no
 * payload is computed or copied, the default memory, order and copy rules. Before the first CUDA call. */
static inline void standin_simulate(const char *name) {
  setenv("FAKE_CUDA_SIM", name, 1);
  setenv("FAKE_CUDA_DEVICES", "1", 1);
  setenv("FAKE_CUDA_NOPAYLOAD", "1", 1);
  unsetenv("FAKE_CUDA_MEM");
  unsetenv("FAKE_CUDA_ORDER");
  unsetenv("FAKE_CUDA_STRICT");
  /* the stand-in reads the description now and gives the program its clock (fupermod_clock_inject),
   * before the program reads any time: a clock once read stays */
  {
    double (*now)(void) = NULL;
    void *self = dlopen(NULL, RTLD_NOW); /* the program's global scope */
    if (self) *(void **)&now = dlsym(self, "fupermod_standin_sim_time");
    if (now) now();
  }
}

#define STANDIN_SKIP_MAIN                                                                                              \
  int main(void) {                                                                                                     \
    printf("1..0 # SKIP the stand-in CUDA is not built (configure found no CUDA headers)\n");                          \
    return 0;                                                                                                          \
  }

#endif
