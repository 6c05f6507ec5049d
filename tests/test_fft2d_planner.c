/* The 2D FFT plans with its own FFTW thread count and gives the caller's planner setting back
 * (fftw_plan_with_nthreads is process-wide). */
#include <fftw3.h>
#include "tests/tap.h"
#include "apps/fft2d.h"

int main(int argc, char **argv) {
  fupermod_fft2d *plan = NULL;
  fupermod_dist *rows;
  int rc;
  MPI_Init(&argc, &argv);
  ok(fftw_init_threads() != 0, "FFTW threads initialised");
  fftw_plan_with_nthreads(3);
  rows = fupermod_dist_alloc(16, 1);
  rows->parts[0].d = 16;
  rc = fupermod_fft2d_plan(MPI_COMM_SELF, 16, 16, rows, NULL, 2, FFTW_ESTIMATE, &plan);
  ok(rc == FUPERMOD_SUCCESS, "a 16 x 16 plan with 2 FFTW threads (%s)", rc ? fupermod_error_message() : "ok");
  ok(fftw_planner_nthreads() == 3, "the caller's planner setting, 3 threads, is back (%d)", fftw_planner_nthreads());
  fupermod_fft2d_destroy(plan);
  fupermod_dist_free(rows);
  MPI_Finalize();
  return done_testing();
}
