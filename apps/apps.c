#include "apps/apps.h"
#include "fupermod/mpi_thread.h"

int fupermod_dist_offsets(const fupermod_dist *dist, long *offsets) {
  if (!dist || !offsets) return fupermod_error(FUPERMOD_ERR_USAGE, "dist offsets: NULL argument");
  offsets[0] = 0;
  for (int i = 0; i < dist->size; i++) {
    if (dist->parts[i].d < 0)
      return fupermod_error(FUPERMOD_ERR_INPUT, "distribution part %d is negative (%ld)", i, dist->parts[i].d);
    offsets[i + 1] = offsets[i] + dist->parts[i].d;
  }
  return FUPERMOD_SUCCESS;
}

int fupermod_barrier_idle(MPI_Comm comm, int idle) {
  MPI_Request req;
  if (MPI_Ibarrier(comm, &req) != MPI_SUCCESS ||
      (idle ? fupermod_mpi_wait_idle(&req, 20000) != 0 : MPI_Wait(&req, MPI_STATUS_IGNORE) != MPI_SUCCESS))
    return fupermod_error(FUPERMOD_ERR_MPI, "barrier failed");
  return FUPERMOD_SUCCESS;
}
