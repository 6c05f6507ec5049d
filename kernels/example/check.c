/* check: load a kernel, run its self-check, and measure it at a few sizes (docs/kernels.md).
 *   usage: check KERNEL SUBOPTS D...
 * KERNEL is a name (searched in $FUPERMOD_KERNEL_PATH) or a path to the .so. Prints one line per
 * size: d, mean time (s), repetitions, confidence half-width (s), speed (complexity units/s).
 * Build:  mpicc -O2 $(pkg-config --cflags fupermod) check.c -o check $(pkg-config --libs fupermod) */
#include <stdio.h>
#include <stdlib.h>
#include <mpi.h>
#include <fupermod/fupermod.h>
#include "fupermod/mpi_thread.h"

int main(int argc, char **argv) {
  fupermod_precision prec = FUPERMOD_PRECISION_DEFAULT;
  fupermod_kernel *k;
  int rc, status = 0;
  if (argc < 4) {
    fprintf(stderr, "usage: %s KERNEL SUBOPTS D...\n", argv[0]);
    return 2;
  }
  { /* OpenMP, OpenBLAS or FFTW threads compute while the main thread calls MPI */
    int trc = fupermod_mpi_init_thread(&argc, &argv, MPI_THREAD_FUNNELED, "check", NULL);
    if (trc != FUPERMOD_SUCCESS) {
      fprintf(stderr, "check: %s\n", fupermod_error_message());
      MPI_Finalize();
      return fupermod_exit_status(trc);
    }
  }
  prec.time_max = 5.0; /* seconds per size at most */
  if ((rc = fupermod_kernel_load(argv[1], argv[2], &k)) != FUPERMOD_SUCCESS) {
    fprintf(stderr, "check: %s\n", fupermod_error_message());
    MPI_Finalize();
    return fupermod_exit_status(rc);
  }
  if (k->ops->verify) {
    rc = k->ops->verify(k->ctx);
    printf("verify: %s%s\n", rc == FUPERMOD_SUCCESS ? "pass" : "FAIL: ", rc == FUPERMOD_SUCCESS ? "" : fupermod_error_message());
    if (rc != FUPERMOD_SUCCESS) status = 1;
  }
  for (int i = 3; i < argc && status == 0; i++) {
    fupermod_point pt;
    long d;
    if (fupermod_parse_long(argv[i], &d) != 0 || d <= 0) {
      fprintf(stderr, "check: size '%s' is not a positive integer\n", argv[i]);
      status = 2;
    } else if ((rc = fupermod_benchmark(k, d, &prec, MPI_COMM_SELF, &pt)) != FUPERMOD_SUCCESS) {
      fprintf(stderr, "check: %s\n", fupermod_error_message());
      status = fupermod_exit_status(rc);
    } else {
      printf("%ld %.6g %d %.3g %.6g\n", pt.d, pt.t, pt.reps, pt.ci, fupermod_kernel_complexity(k, d) / pt.t);
    }
  }
  fupermod_kernel_unload(k);
  MPI_Finalize();
  return status;
}
