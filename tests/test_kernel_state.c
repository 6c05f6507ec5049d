/* Kernel plug-ins give back the process-wide state they change: OpenBLAS's thread count
 * (dgemm, dgemm-rows with threads=N) and FFTW's planner threads (fft-rows). */
#include <stdio.h>
#include <cblas.h>
#include <fftw3.h>
#include "fupermod/fupermod.h"
#include "tests/tap.h"

static void blas_kernel(const char *name) {
  fupermod_kernel *k = NULL;
  int rc = fupermod_kernel_load(name, "threads=2", &k), during = -1, after_init = -1;
  if (rc != FUPERMOD_SUCCESS) {
    ok(0, "%s: load (%s)", name, fupermod_error_message());
    return;
  }
  openblas_set_num_threads(3);
  if ((rc = k->ops->initialize(4, k->ctx)) == FUPERMOD_SUCCESS) {
    during = openblas_get_num_threads();
    rc = k->ops->execute(k->ctx);
    /* a second initialize (the next size) must not take the kernel's count as the program's */
    if (rc == FUPERMOD_SUCCESS) rc = k->ops->initialize(2, k->ctx);
    after_init = openblas_get_num_threads();
    k->ops->finalize(k->ctx);
  }
  ok(rc == FUPERMOD_SUCCESS && during == 2 && after_init == 2, "%s threads=2: OpenBLAS runs 2 threads from initialize on (%d, %d)",
     name, during, after_init);
  ok(openblas_get_num_threads() == 3, "%s: finalize gives back the program's 3 OpenBLAS threads (%d)", name,
     openblas_get_num_threads());
  openblas_set_num_threads(3);
  rc = k->ops->verify ? k->ops->verify(k->ctx) : FUPERMOD_SUCCESS;
  ok(rc == FUPERMOD_SUCCESS && openblas_get_num_threads() == 3, "%s: verify leaves 3 OpenBLAS threads (%d)", name,
     openblas_get_num_threads());
  /* destroy without finalize (an aborted benchmark) restores too */
  if (k->ops->initialize(2, k->ctx) == FUPERMOD_SUCCESS) {
    fupermod_kernel_unload(k);
    ok(openblas_get_num_threads() == 3, "%s: unload after initialize gives back 3 OpenBLAS threads (%d)", name,
       openblas_get_num_threads());
  } else {
    ok(0, "%s: initialize (%s)", name, fupermod_error_message());
    fupermod_kernel_unload(k);
  }
}

int main(void) {
  fupermod_kernel *k = NULL;
  int rc;
  blas_kernel("dgemm");
  blas_kernel("dgemm-rows");

  if (!fftw_init_threads()) {
    ok(0, "fftw_init_threads");
    return done_testing();
  }
  fftw_plan_with_nthreads(3);
  rc = fupermod_kernel_load("fft-rows", "n=64,threads=2", &k);
  if (rc == FUPERMOD_SUCCESS) rc = k->ops->initialize(8, k->ctx);
  ok(rc == FUPERMOD_SUCCESS && fftw_planner_nthreads() == 3,
     "fft-rows threads=2: initialize gives back the program's 3 planner threads (%d)", fftw_planner_nthreads());
  if (rc == FUPERMOD_SUCCESS) rc = k->ops->execute(k->ctx);
  if (rc == FUPERMOD_SUCCESS) rc = k->ops->finalize(k->ctx);
  ok(rc == FUPERMOD_SUCCESS && fftw_planner_nthreads() == 3, "fft-rows: after execute and finalize still 3 (%d)",
     fftw_planner_nthreads());
  if (k) fupermod_kernel_unload(k);
  return done_testing();
}
