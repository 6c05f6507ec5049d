/* The collective parts of the configuration: locating every process, and agreeing on a status. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fupermod/conf.h"
#include "fupermod/error.h"

int fupermod_conf_locate(const fupermod_conf *conf, MPI_Comm comm, int *index, MPI_Comm *comm_intra) {
  char host[MPI_MAX_PROCESSOR_NAME] = "";
  int len, rank, size, rank_intra, idx, *all = NULL;
  MPI_Comm intra;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  MPI_Get_processor_name(host, &len);
  if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &intra) != MPI_SUCCESS)
    return fupermod_error(FUPERMOD_ERR_MPI, "cannot split the intra-node communicator");
  MPI_Comm_rank(intra, &rank_intra);
  idx = fupermod_conf_find(conf, host, rank_intra);
  all = malloc((size_t)size * sizeof *all);
  if (!all) {
    MPI_Comm_free(&intra);
    return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  }
  MPI_Allgather(&idx, 1, MPI_INT, all, 1, MPI_INT, comm);
  for (int r = 0; r < size; r++)
    if (all[r] < 0) {
      char bad[MPI_MAX_PROCESSOR_NAME];
      int bad_intra = rank_intra;
      memcpy(bad, host, sizeof bad);
      MPI_Bcast(bad, sizeof bad, MPI_CHAR, r, comm);
      MPI_Bcast(&bad_intra, 1, MPI_INT, r, comm);
      free(all);
      MPI_Comm_free(&intra);
      return fupermod_error(FUPERMOD_ERR_INPUT,
                            "%s: no line for MPI rank %d (host %s, intra-node rank %d): the job has %d "
                            "processes, the configuration %d lines",
                            conf->source ? conf->source : "configuration", r, bad, bad_intra, size,
                            conf->count);
    }
  free(all);
  *index = idx;
  if (comm_intra) *comm_intra = intra;
  else MPI_Comm_free(&intra);
  return FUPERMOD_SUCCESS;
}

int fupermod_agree(int rc, MPI_Comm comm) {
  int rank, me, who;
  struct {
    int code;
    char msg[1000];
  } m;
  MPI_Comm_rank(comm, &rank);
  me = rc != FUPERMOD_SUCCESS ? rank : INT_MAX;
  if (MPI_Allreduce(&me, &who, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS)
    return fupermod_error(FUPERMOD_ERR_MPI, "MPI_Allreduce failed while agreeing on a status");
  if (who == INT_MAX) return FUPERMOD_SUCCESS;
  memset(&m, 0, sizeof m);
  if (rank == who) {
    m.code = rc;
    snprintf(m.msg, sizeof m.msg, "%s", fupermod_error_message());
  }
  if (MPI_Bcast(&m, (int)sizeof m, MPI_BYTE, who, comm) != MPI_SUCCESS)
    return fupermod_error(FUPERMOD_ERR_MPI, "MPI_Bcast failed while agreeing on a status");
  if (rank == who) return rc;
  return fupermod_error(m.code, "rank %d: %s", who, m.msg);
}
