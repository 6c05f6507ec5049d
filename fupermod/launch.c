/* Where the job really runs: each rank's host, intra-node rank, configuration line, binding and
 * CPUs, checked against what the configuration asks for. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <hwloc.h>
#include "fupermod/conf.h"
#include "fupermod/error.h"

static void own_cpus(hwloc_bitmap_t set) {
  cpu_set_t mask;
  hwloc_bitmap_zero(set);
  if (sched_getaffinity(0, sizeof mask, &mask) != 0) return;
  for (int c = 0; c < CPU_SETSIZE; c++)
    if (CPU_ISSET(c, &mask)) hwloc_bitmap_set(set, (unsigned)c);
}

int fupermod_launch_map(const fupermod_conf *conf, int index, MPI_Comm comm, fupermod_launch_entry **out) {
  fupermod_launch_entry me, *all;
  hwloc_bitmap_t set = hwloc_bitmap_alloc(), other = hwloc_bitmap_alloc();
  int size, rc = FUPERMOD_SUCCESS, len;
  MPI_Comm intra;
  *out = NULL;
  if (!set || !other) {
    hwloc_bitmap_free(set);
    hwloc_bitmap_free(other);
    return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  }
  memset(&me, 0, sizeof me);
  MPI_Comm_size(comm, &size);
  MPI_Get_processor_name(me.host, &len);
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &intra);
  MPI_Comm_rank(intra, &me.rank_intra);
  MPI_Comm_free(&intra);
  if (index >= 0 && index < conf->count) {
    me.line = conf->procs[index].line;
    snprintf(me.bind, sizeof me.bind, "%s", conf->procs[index].bind);
  } else
    snprintf(me.bind, sizeof me.bind, "none");
  own_cpus(set);
  hwloc_bitmap_list_snprintf(me.cpus, sizeof me.cpus, set);
  all = malloc((size_t)size * sizeof *all);
  if (!all) rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  rc = fupermod_agree(rc, comm);
  if (rc == FUPERMOD_SUCCESS)
    MPI_Allgather(&me, (int)sizeof me, MPI_BYTE, all, (int)sizeof me, MPI_BYTE, comm);
  /* ranks that share a CPU although the configuration binds them apart: they would be measured
   * time-sharing, a platform other than the configured one */
  for (int i = 0; i < size && rc == FUPERMOD_SUCCESS; i++)
    for (int j = i + 1; j < size && rc == FUPERMOD_SUCCESS; j++) {
      if (strcmp(all[i].host, all[j].host) != 0 || strcmp(all[i].bind, "none") == 0 ||
          strcmp(all[j].bind, "none") == 0 || strcmp(all[i].bind, all[j].bind) == 0)
        continue;
      hwloc_bitmap_list_sscanf(set, all[i].cpus);
      hwloc_bitmap_list_sscanf(other, all[j].cpus);
      if (hwloc_bitmap_intersects(set, other))
        rc = fupermod_error(FUPERMOD_ERR_INPUT,
                            "%s: ranks %d and %d on %s share CPUs (%s and %s) although lines %d and %d bind them "
                            "apart (%s, %s): the host gives the job fewer CPUs than the configuration assumes",
                            conf->source ? conf->source : "configuration", i, j, all[i].host, all[i].cpus,
                            all[j].cpus, all[i].line, all[j].line, all[i].bind, all[j].bind);
    }
  hwloc_bitmap_free(set);
  hwloc_bitmap_free(other);
  if (rc != FUPERMOD_SUCCESS) {
    free(all);
    return rc;
  }
  *out = all;
  return FUPERMOD_SUCCESS;
}

int fupermod_launch_host_index(const fupermod_launch_entry *map, int size, int *host) {
  int n = 0;
  for (int i = 0; i < size; i++) {
    int h = -1;
    for (int j = 0; j < i && h < 0; j++)
      if (strcmp(map[i].host, map[j].host) == 0) h = host ? host[j] : 0;
    if (h < 0) h = n++;
    if (host) host[i] = h;
  }
  return n;
}

int fupermod_launch_hosts(const fupermod_launch_entry *map, int size) { return fupermod_launch_host_index(map, size, NULL); }
