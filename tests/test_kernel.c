/* Kernel plug-ins: loading by name and by path, sub-options, and clear errors. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fupermod/fupermod.h"
#include "tests/tap.h"

int main(void) {
  fupermod_kernel *k = NULL;
  char path[512], sub[600];
  const char *dir = getenv("FUPERMOD_KERNEL_PATH");
  FILE *fp;
  snprintf(path, sizeof path, "/tmp/fupermod-kernel-%d.points", (int)getpid());
  fp = fopen(path, "w");
  fprintf(fp, "10 0.001\n20 0.004\n");
  fclose(fp);
  snprintf(sub, sizeof sub, "points=%s", path);
  ok(fupermod_kernel_load("emulated", sub, &k) == 0 && strcmp(k->ops->name, "emulated") == 0, "load by name");
  if (k) {
    /* the least of 20 runs: a loaded host wakes the sleeping kernel late, never early; below
     * 4 ms tells the interpolated 2.5 ms from the next point's 4 ms */
    double t = 1e30;
    k->ops->initialize(15, k->ctx);
    for (int i = 0; i < 20; i++) {
      double t0 = fupermod_time(), ti;
      k->ops->execute(k->ctx);
      ti = fupermod_time() - t0;
      if (ti < t) t = ti;
    }
    ok(t >= 0.0025 && t < 0.004, "emulated run of 15 units takes the interpolated 2.5 ms (least of 20: %.5f s)", t);
    ok(fupermod_kernel_complexity(k, 15) == 15.0, "complexity of the emulated kernel is d");
    k->ops->finalize(k->ctx);
    fupermod_kernel_unload(k);
  }
  if (dir) {
    char full[1024];
    snprintf(full, sizeof full, "%s/fupermod_kernel_emulated.so", dir);
    ok(fupermod_kernel_load(full, sub, &k) == 0, "load by path");
    fupermod_kernel_unload(k);
  } else {
    skip("FUPERMOD_KERNEL_PATH not set");
  }
  ok(fupermod_kernel_load("no-such-kernel", "", &k) == FUPERMOD_ERR_INPUT &&
         strstr(fupermod_error_message(), "kernel 'no-such-kernel' not found"),
     "missing kernel named in the error");
  ok(fupermod_kernel_load("/nonexistent/k.so", "", &k) == FUPERMOD_ERR_INPUT &&
         strstr(fupermod_error_message(), "/nonexistent/k.so: cannot load"),
     "missing path named in the error");
  { /* by path: a bare "libc.so.6" would only be looked up as a kernel name, and not found */
    Dl_info info;
    int rc = 0, tried = dladdr((void *)printf, &info) && info.dli_fname && strchr(info.dli_fname, '/');
    if (tried) rc = fupermod_kernel_load(info.dli_fname, "", &k);
    ok(tried && rc == FUPERMOD_ERR_INPUT && k == NULL && strstr(fupermod_error_message(), "not a fupermod kernel"),
       "a library that is not a kernel is refused (%s)", tried ? fupermod_error_message() : "no path for libc");
  }
  ok(fupermod_kernel_load("emulated", "", &k) == FUPERMOD_ERR_USAGE && strstr(fupermod_error_message(), "points=FILE"),
     "missing sub-option explained");
  ok(fupermod_kernel_load("emulated", "points=/nonexistent.points", &k) == FUPERMOD_ERR_INPUT &&
         strstr(fupermod_error_message(), "/nonexistent.points"),
     "bad points file of the emulated kernel named");
  snprintf(sub, sizeof sub, "points=%s,noise=2", path);
  ok(fupermod_kernel_load("emulated", sub, &k) == FUPERMOD_ERR_USAGE, "noise out of range rejected");
  remove(path);
  return done_testing();
}
