/* cblas_dgemm must bind to OpenBLAS, not GSL's reference CBLAS (toolchain-pitfalls P3). The test
 * is linked like the kernels: OpenBLAS and GSL both on the line. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <string.h>
#include <cblas.h>
#include "tests/tap.h"

extern char *openblas_get_config(void);

int main(void) {
  Dl_info info;
  double a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8}, c[4] = {0, 0, 0, 0};
  int found = dladdr((void *)cblas_dgemm, &info);
  ok(found && info.dli_fname && strstr(info.dli_fname, "openblas") != NULL, "cblas_dgemm comes from %s",
     found && info.dli_fname ? info.dli_fname : "(unknown)");
  ok(found && info.dli_fname && strstr(info.dli_fname, "gslcblas") == NULL, "not from GSL's reference CBLAS");
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 2, 2, 2, 1.0, a, 2, b, 2, 0.0, c, 2);
  ok(c[0] == 19 && c[1] == 22 && c[2] == 43 && c[3] == 50, "2x2 product correct");
  diag("%s", openblas_get_config());
  return done_testing();
}
