/* A program that links only libfupermod (and GSL, as users do) must still see OpenBLAS's
 * cblas_dgemm first in the global scope, ahead of GSL's reference CBLAS: that is what a kernel
 * plug-in loaded with dlopen binds to. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <string.h>
#include "fupermod/fupermod.h"
#include "tests/tap.h"

int main(void) {
  Dl_info info;
  void *sym = dlsym(RTLD_DEFAULT, "cblas_dgemm");
  int found = sym && dladdr(sym, &info) && info.dli_fname;
  ok(found && strstr(info.dli_fname, "openblas") != NULL, "global cblas_dgemm comes from %s",
     found ? info.dli_fname : "(nowhere)");
  ok(fupermod_exit_status(FUPERMOD_SUCCESS) == 0, "linked against libfupermod");
  return done_testing();
}
