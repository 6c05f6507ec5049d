/* The collective parts of the configuration: locating every process, and agreeing on a status. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fupermod/conf.h"
#include "fupermod/error.h"

/* Collective: when the job runs on fewer hosts than the configuration names, say so. That is the
 * usual reason for a missing line: the launcher started every rank on one node (no remote agent,
 * no hostfile, a smaller allocation). why is "" otherwise. */
static void hosts_diagnosis(const fupermod_conf *conf, const char *host, MPI_Comm comm, char *why, size_t size) {
  char *all;
  int n, job = 0, named = 0, len = MPI_MAX_PROCESSOR_NAME;
  size_t used;
  MPI_Comm_size(comm, &n);
  why[0] = '\0';
  if (!(all = calloc((size_t)n, (size_t)len))) return;
  MPI_Allgather(host, len, MPI_CHAR, all, len, MPI_CHAR, comm);
  for (int i = 0; i < n; i++) {
    int seen = 0;
    for (int j = 0; j < i && !seen; j++) seen = strcmp(all + (size_t)i * len, all + (size_t)j * len) == 0;
    job += !seen;
  }
  for (int i = 0; i < conf->count; i++) {
    int seen = strcmp(conf->procs[i].hostname, "localhost") == 0;
    for (int j = 0; j < i && !seen; j++) seen = strcmp(conf->procs[i].hostname, conf->procs[j].hostname) == 0;
    named += !seen;
  }
  if (job < named) {
    snprintf(why, size, "; the job runs on %d host%s (", job, job == 1 ? "" : "s");
    for (int i = 0, k = 0; i < n; i++) {
      int seen = 0;
      for (int j = 0; j < i && !seen; j++) seen = strcmp(all + (size_t)i * len, all + (size_t)j * len) == 0;
      used = strlen(why);
      if (!seen) snprintf(why + used, size - used, "%s%s", k++ ? ", " : "", all + (size_t)i * len);
    }
    used = strlen(why);
    snprintf(why + used, size - used,
             ") but the configuration names %d: were the ranks started on the nodes (hostfile or --host, "
             "remote agent, Slurm allocation)?", named);
  }
  free(all);
}

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
      char why[512];
      free(all);
      hosts_diagnosis(conf, host, comm, why, sizeof why);
      MPI_Comm_free(&intra);
      return fupermod_error(FUPERMOD_ERR_INPUT,
                            "%s: no line for MPI rank %d (host %s, intra-node rank %d): the job has %d "
                            "processes, the configuration %d lines%s",
                            conf->source ? conf->source : "configuration", r, bad, bad_intra, size,
                            conf->count, why);
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
