/* MPI thread levels: a level below the one asked for is an error naming both, and PARALEPH
 * refuses an MPI that does not allow threads next to its MPI calls. MPI is initialised at
 * MPI_THREAD_SINGLE on purpose. */
#include <stdio.h>
#include <string.h>
#include <mpi.h>
#include "fupermod/fupermod.h"
#include "fupermod/mpi_thread.h"
#include "partitioners/paraleph.h"
#include "tests/tap.h"

int main(int argc, char **argv) {
  int provided = -1, rank, size, rc, got = -1, world_rc;
  fupermod_points f = {0};
  fupermod_point pts[3];
  const fupermod_points *fs[4];
  fupermod_dist *dist = NULL;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  tap_quiet(rank != 0);
  diag("%d ranks, MPI gives %s for MPI_THREAD_SINGLE", size, fupermod_mpi_thread_name(provided));
  if (provided >= MPI_THREAD_FUNNELED) {
    /* an MPI that always gives more cannot show the refusal */
    skip("MPI provides more than MPI_THREAD_SINGLE when asked for it");
    MPI_Finalize();
    return done_testing();
  }
  ok(strcmp(fupermod_mpi_thread_name(MPI_THREAD_FUNNELED), "MPI_THREAD_FUNNELED") == 0 &&
         strcmp(fupermod_mpi_thread_name(MPI_THREAD_MULTIPLE), "MPI_THREAD_MULTIPLE") == 0,
     "level names");
  ok(fupermod_mpi_check_thread(MPI_THREAD_SINGLE, "test") == FUPERMOD_SUCCESS, "SINGLE suffices for SINGLE");
  rc = fupermod_mpi_check_thread(MPI_THREAD_FUNNELED, "test");
  ok(rc == FUPERMOD_ERR_MPI && strstr(fupermod_error_message(), "MPI_THREAD_FUNNELED") &&
         strstr(fupermod_error_message(), "MPI_THREAD_SINGLE"),
     "FUNNELED asked of a SINGLE MPI: FUPERMOD_ERR_MPI naming both levels (%s)", fupermod_error_message());
  rc = fupermod_mpi_init_thread(&argc, &argv, MPI_THREAD_FUNNELED, "test", &got);
  ok(rc == FUPERMOD_ERR_MPI && got == MPI_THREAD_SINGLE,
     "init at FUNNELED on an initialised SINGLE MPI: error, provided = SINGLE");
  ok(fupermod_mpi_check_thread(42, "test") == FUPERMOD_ERR_USAGE, "an unknown level is a usage error");

  for (int j = 0; j < 3; j++) {
    fupermod_point p = FUPERMOD_POINT_INIT;
    p.d = j + 1;
    p.t = 1.0 + j;
    pts[j] = p;
  }
  f.count = 3;
  f.pts = pts;
  for (int i = 0; i < 4; i++) fs[i] = &f;
  {
    fupermod_problem prob = {6, 4, fs, 0.0, 0, FUPERMOD_OBJ_TIME};
    rc = fupermod_paraleph(MPI_COMM_WORLD, 0, rank == 0 ? &prob : NULL, FUPERMOD_OBJ_TIME, 2, &dist, NULL);
    if (size > 1)
      ok(rc == FUPERMOD_ERR_MPI && strstr(fupermod_error_message(), "MPI_THREAD_FUNNELED"),
         "paraleph on %d ranks of a SINGLE MPI: FUPERMOD_ERR_MPI (%s)", size, fupermod_error_message());
    else
      ok(rc == FUPERMOD_SUCCESS, "paraleph on one rank makes no MPI call: runs (%s)",
         rc ? fupermod_error_message() : "ok");
    world_rc = rc;
    fupermod_dist_free(dist);
    dist = NULL;
    rc = fupermod_paraleph(MPI_COMM_SELF, 0, &prob, FUPERMOD_OBJ_TIME, 2, &dist, NULL);
    ok(rc == FUPERMOD_SUCCESS && dist, "paraleph on MPI_COMM_SELF runs");
    fupermod_dist_free(dist);
  }
  {
    /* the error is agreed: every rank saw the same status */
    int mine = world_rc, lo, hi;
    MPI_Allreduce(&mine, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&mine, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    ok(lo == hi, "every rank returns the same status");
  }
  MPI_Finalize();
  return done_testing();
}
