/* Hierarchical partitioning, the hierarchy itself: configuration entries grouped into nodes
 * (sub-option group=NAME, else the hostname), and the node and leader communicators
 * (docs/hierarchical.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "partitioners/hier.h"

#define KEY_MAX 256

int fupermod_hier_key(const fupermod_process_conf *pc, char *buf, size_t size) {
  char g[KEY_MAX];
  int rc;
  if (!pc || !buf || size < 1) return fupermod_error(FUPERMOD_ERR_USAGE, "hier key: NULL argument");
  rc = fupermod_subopt_get(pc->subopts ? pc->subopts : "", "group", g, sizeof g);
  if (rc < 0) return fupermod_error(FUPERMOD_ERR_INPUT, "configuration line %d: group name too long", pc->line);
  if (rc == 1 && !g[0]) return fupermod_error(FUPERMOD_ERR_INPUT, "configuration line %d: empty group=", pc->line);
  /* prefixes keep a group name from ever matching a host name */
  if ((size_t)snprintf(buf, size, "%s:%s", rc == 1 ? "group" : "host", rc == 1 ? g : pc->hostname) >= size)
    return fupermod_error(FUPERMOD_ERR_INPUT, "configuration line %d: group key too long", pc->line);
  return FUPERMOD_SUCCESS;
}

int fupermod_hier_groups(const fupermod_conf *conf, int *node, int *nodes) {
  char (*keys)[KEY_MAX];
  int n = 0, rc = FUPERMOD_SUCCESS;
  if (!conf || !node || !nodes) return fupermod_error(FUPERMOD_ERR_USAGE, "hier groups: NULL argument");
  if (conf->count < 1) return fupermod_error(FUPERMOD_ERR_INPUT, "hier groups: empty configuration");
  if (!(keys = malloc((size_t)conf->count * sizeof *keys))) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  for (int i = 0; i < conf->count && rc == FUPERMOD_SUCCESS; i++) {
    if ((rc = fupermod_hier_key(&conf->procs[i], keys[i], KEY_MAX)) != FUPERMOD_SUCCESS) break;
    node[i] = -1;
    for (int j = 0; j < i && node[i] < 0; j++)
      if (strcmp(keys[i], keys[j]) == 0) node[i] = node[j];
    if (node[i] < 0) node[i] = n++;
  }
  free(keys);
  if (rc == FUPERMOD_SUCCESS) *nodes = n;
  return rc;
}

void fupermod_hier_comm_free(fupermod_hier_comm *hc) {
  if (!hc) return;
  free(hc->node_of);
  free(hc->node_size);
  free(hc->node_first);
  if (hc->comm_node != MPI_COMM_NULL && hc->comm_node != 0) MPI_Comm_free(&hc->comm_node);
  if (hc->comm_leaders != MPI_COMM_NULL && hc->comm_leaders != 0) MPI_Comm_free(&hc->comm_leaders);
  memset(hc, 0, sizeof *hc);
  hc->comm = hc->comm_node = hc->comm_leaders = MPI_COMM_NULL;
}

int fupermod_hier_comm_from_key(const char *key, MPI_Comm comm, fupermod_hier_comm *hc) {
  char mine[KEY_MAX] = "", (*all)[KEY_MAX] = NULL;
  int rc = FUPERMOD_SUCCESS, size, rank, q = 0;
  if (!hc) return fupermod_error(FUPERMOD_ERR_USAGE, "hier comm: NULL result");
  memset(hc, 0, sizeof *hc);
  hc->comm = hc->comm_node = hc->comm_leaders = MPI_COMM_NULL;
  if (comm == MPI_COMM_NULL) return fupermod_error(FUPERMOD_ERR_USAGE, "hier comm: no communicator");
  MPI_Comm_size(comm, &size);
  MPI_Comm_rank(comm, &rank);
  if (!key || !key[0]) rc = fupermod_error(FUPERMOD_ERR_USAGE, "hier comm: empty group key");
  else if (strlen(key) >= KEY_MAX) rc = fupermod_error(FUPERMOD_ERR_USAGE, "hier comm: group key longer than %d", KEY_MAX - 1);
  else strcpy(mine, key);
  if (rc == FUPERMOD_SUCCESS &&
      (!(all = malloc((size_t)size * sizeof *all)) || !(hc->node_of = malloc((size_t)size * sizeof *hc->node_of)) ||
       !(hc->node_size = calloc((size_t)size, sizeof *hc->node_size)) ||
       !(hc->node_first = calloc((size_t)size + 1, sizeof *hc->node_first))))
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  if ((rc = fupermod_agree(rc, comm)) != FUPERMOD_SUCCESS) goto fail;
  if (MPI_Allgather(mine, KEY_MAX, MPI_CHAR, all, KEY_MAX, MPI_CHAR, comm) != MPI_SUCCESS) {
    rc = fupermod_error(FUPERMOD_ERR_MPI, "hier comm: MPI_Allgather failed");
    goto fail;
  }
  for (int r = 0; r < size; r++) {
    hc->node_of[r] = -1;
    for (int s = 0; s < r && hc->node_of[r] < 0; s++)
      if (strcmp(all[r], all[s]) == 0) hc->node_of[r] = hc->node_of[s];
    if (hc->node_of[r] < 0) hc->node_of[r] = q++;
    hc->node_size[hc->node_of[r]]++;
  }
  hc->nodes = q;
  hc->node = hc->node_of[rank];
  for (int k = 0; k < q; k++) hc->node_first[k + 1] = hc->node_first[k] + hc->node_size[k];
  hc->comm = comm;
  rc = MPI_Comm_split(comm, hc->node, rank, &hc->comm_node) == MPI_SUCCESS ? FUPERMOD_SUCCESS : FUPERMOD_ERR_MPI;
  if (rc == FUPERMOD_SUCCESS) {
    MPI_Comm_rank(hc->comm_node, &hc->node_rank);
    if (MPI_Comm_split(comm, hc->node_rank == 0 ? 0 : MPI_UNDEFINED, hc->node, &hc->comm_leaders) != MPI_SUCCESS)
      rc = FUPERMOD_ERR_MPI;
  }
  if (rc != FUPERMOD_SUCCESS) {
    rc = fupermod_error(rc, "hier comm: MPI_Comm_split failed");
    goto fail;
  }
  free(all);
  return FUPERMOD_SUCCESS;
fail:
  free(all);
  fupermod_hier_comm_free(hc);
  return rc;
}

int fupermod_hier_comm_create(const fupermod_conf *conf, MPI_Comm comm, fupermod_hier_comm *hc) {
  char key[KEY_MAX], host[MPI_MAX_PROCESSOR_NAME] = "";
  int rc = FUPERMOD_SUCCESS, idx = -1, len;
  if (hc) memset(hc, 0, sizeof *hc);
  if (comm == MPI_COMM_NULL) return fupermod_error(FUPERMOD_ERR_USAGE, "hier comm: no communicator");
  MPI_Get_processor_name(host, &len);
  if (conf) {
    /* collective, and agreed by itself */
    if ((rc = fupermod_conf_locate(conf, comm, &idx, NULL)) != FUPERMOD_SUCCESS) return rc;
    const fupermod_process_conf *pc = &conf->procs[idx];
    char g[KEY_MAX];
    if ((rc = fupermod_hier_key(pc, key, sizeof key)) == FUPERMOD_SUCCESS &&
        fupermod_subopt_get(pc->subopts ? pc->subopts : "", "group", g, sizeof g) == 0 &&
        strcmp(pc->hostname, "localhost") == 0 && (size_t)snprintf(key, sizeof key, "host:%s", host) >= sizeof key)
      rc = fupermod_error(FUPERMOD_ERR_INPUT, "processor name too long");
  } else if ((size_t)snprintf(key, sizeof key, "host:%s", host) >= sizeof key)
    rc = fupermod_error(FUPERMOD_ERR_INPUT, "processor name too long");
  if ((rc = fupermod_agree(rc, comm)) != FUPERMOD_SUCCESS) return rc;
  return fupermod_hier_comm_from_key(key, comm, hc);
}
