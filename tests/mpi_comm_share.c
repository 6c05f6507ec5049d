/* Several messages at once between hosts (fupermod_comm_share_measure) on one machine, its
 * processes named as hosts: on the links fupermod_comm_measure measured, a share > 0 for two
 * hosts of two processes each and for three hosts (a bye each round: no process waits for a
 * message nobody sends), none for one host, the same on every rank; bad arguments refused before
 * any message. */
#include <math.h>
#include <stdio.h>
#include <mpi.h>
#include "fupermod/fupermod.h"
#include "fupermod/comm.h"
#include "fupermod/mpi_thread.h"
#include "tests/tap.h"

static int all(int good) {
  int a = 0;
  MPI_Allreduce(&good, &a, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return a;
}

int main(int argc, char **argv) {
  static const long sizes[2] = {65536, 1048576};
  static const int two[4] = {0, 0, 1, 1}, three[4] = {0, 1, 2, 2}, one[4] = {0, 0, 0, 0}, bad[4] = {0, -1, 1, 1};
  fupermod_precision prec = FUPERMOD_PRECISION_DEFAULT;
  fupermod_comm c;
  double share = -1, lo, hi;
  int size, rank, rc;
  if (fupermod_mpi_init_thread(&argc, &argv, MPI_THREAD_FUNNELED, "mpi_comm_share", NULL) != FUPERMOD_SUCCESS) {
    printf("Bail out! %s\n", fupermod_error_message());
    MPI_Finalize();
    return 1;
  }
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  tap_quiet(rank != 0);
  if (size != 4) {
    skip("4 processes needed");
    MPI_Finalize();
    return done_testing();
  }
  prec.reps_min = 3, prec.reps_max = 5, prec.eps = 0.2, prec.time_max = 2;
  fupermod_comm_init(&c, 4);
  rc = fupermod_comm_measure(MPI_COMM_WORLD, sizes, 2, &prec, &c, NULL, NULL);
  ok(all(rc == FUPERMOD_SUCCESS), "the links measured");
  rc = fupermod_comm_share_measure(MPI_COMM_WORLD, two, &c, 1 << 20, 3, &share);
  MPI_Allreduce(&share, &lo, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&share, &hi, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  diag("two hosts of two: messages at once take %.3g x their times one at a time", share);
  ok(all(rc == FUPERMOD_SUCCESS) && lo > 0 && isfinite(hi) && lo == hi, "two hosts: a share > 0, the same on every rank (%g)",
     share);
  rc = fupermod_comm_share_measure(MPI_COMM_WORLD, three, &c, 1 << 16, 3, &share);
  ok(all(rc == FUPERMOD_SUCCESS && share > 0 && isfinite(share)), "three hosts, byes in turn: a share > 0 (%g)", share);
  rc = fupermod_comm_share_measure(MPI_COMM_WORLD, one, &c, 1 << 16, 3, &share);
  ok(all(rc == FUPERMOD_SUCCESS && share == 0), "one host: nothing to measure");
  rc = fupermod_comm_share_measure(MPI_COMM_WORLD, bad, &c, 1 << 16, 3, &share);
  ok(all(rc == FUPERMOD_ERR_USAGE), "a negative host is refused: %s", fupermod_error_message());
  ok(all(fupermod_comm_share_measure(MPI_COMM_WORLD, two, &c, 4, 3, &share) == FUPERMOD_ERR_USAGE),
     "fewer than 8 bytes refused");
  fupermod_comm_free(&c);
  MPI_Finalize();
  return done_testing();
}
