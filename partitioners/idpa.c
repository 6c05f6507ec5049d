/* IDPA (docs/hierarchical.md): dynamic partitioning of a node's rectangle into column slices
 * between its devices. Every status is agreed on the node's communicator. */
#include <math.h>
#include <stdlib.h>
#include "partitioners/hier.h"

/* Shares computed on rank 0 of comm and broadcast, so every rank uses the same bits. */
static int partition_root(MPI_Comm comm, fupermod_partition part, int p, fupermod_model **models, fupermod_dist *dist) {
  int rank, rc = FUPERMOD_SUCCESS;
  long *d = malloc((size_t)p * sizeof *d);
  MPI_Comm_rank(comm, &rank);
  if (!d) rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  else if (rank == 0) {
    if ((rc = part(p, models, dist)) == FUPERMOD_SUCCESS) {
      long sum = 0;
      for (int i = 0; i < p; i++) {
        d[i] = dist->parts[i].d;
        sum += d[i] < 0 ? dist->D + 1 : d[i];
      }
      if (sum != dist->D)
        rc = fupermod_error(FUPERMOD_ERR_NUMERIC, "partitioner returned shares summing to %ld for D = %ld", sum, dist->D);
    }
  }
  if ((rc = fupermod_agree(rc, comm)) != FUPERMOD_SUCCESS) {
    free(d);
    return rc;
  }
  MPI_Bcast(d, p, MPI_LONG, 0, comm);
  for (int i = 0; i < p; i++) dist->parts[i].d = d[i];
  free(d);
  return FUPERMOD_SUCCESS;
}

/* Measure this process at d (0: idle), the measuring devices synchronised together. */
static int measure_at(MPI_Comm comm, long bm, long d, fupermod_hier_measure measure, void *ctx, fupermod_point *pt) {
  MPI_Comm active = MPI_COMM_NULL;
  int rc = FUPERMOD_SUCCESS;
  *pt = (fupermod_point)FUPERMOD_POINT_INIT;
  pt->d = d;
  pt->t = 0.0;
  if (MPI_Comm_split(comm, d > 0 ? 0 : MPI_UNDEFINED, 0, &active) != MPI_SUCCESS)
    rc = fupermod_error(FUPERMOD_ERR_MPI, "idpa: MPI_Comm_split failed");
  if (rc == FUPERMOD_SUCCESS && d > 0) {
    rc = measure(bm, d, active, pt, ctx);
    if (rc == FUPERMOD_SUCCESS && (pt->d != d || !(pt->t > 0) || !isfinite(pt->t)))
      rc = fupermod_error(FUPERMOD_ERR_NUMERIC, "idpa: measurement of bm=%ld, d=%ld returned d=%ld, t=%g", bm, d, pt->d,
                          pt->t);
    if (pt->reps < 1) pt->reps = 1;
  }
  if (active != MPI_COMM_NULL) MPI_Comm_free(&active);
  return fupermod_agree(rc, comm);
}

int fupermod_idpa(const fupermod_hier_comm *hc, long bm, long bn, double eps2, int max_measurements,
                  fupermod_partition inner, fupermod_model **models, fupermod_hier_measure measure, void *ctx,
                  fupermod_dist *devices, double *t_node, int *converged, int *measurements) {
  fupermod_dynamic dyn;
  fupermod_point pt;
  int rc = FUPERMOD_SUCCESS, p, me, conv = 0, count = 0, fresh;
  if (!hc || hc->comm_node == MPI_COMM_NULL) return fupermod_error(FUPERMOD_ERR_USAGE, "idpa: no node communicator");
  p = hc->node_size[hc->node];
  me = hc->node_rank;
  if (!models || !measure || !inner || !devices || !t_node || !converged)
    rc = fupermod_error(FUPERMOD_ERR_USAGE, "idpa: NULL argument");
  else if (bm < 1 || bn < p)
    rc = fupermod_error(FUPERMOD_ERR_USAGE, "idpa: slice height %ld and %ld columns for %d devices (need bm >= 1, bn >= devices)",
                        bm, bn, p);
  else if (!(eps2 >= 0) || max_measurements < 1)
    rc = fupermod_error(FUPERMOD_ERR_USAGE, "idpa: eps2 = %g, max measurements %d", eps2, max_measurements);
  else if (devices->size != p)
    rc = fupermod_error(FUPERMOD_ERR_USAGE, "idpa: result for %d devices, node has %d", devices->size, p);
  if ((rc = fupermod_agree(rc, hc->comm_node)) != FUPERMOD_SUCCESS) return rc;
  if ((rc = fupermod_dynamic_init(&dyn, p, models[0]->ops->name, bn, inner)) != FUPERMOD_SUCCESS)
    return fupermod_agree(rc, hc->comm_node);
  /* the caller's models (kept per slice height) replace the fresh ones */
  for (int i = 0; i < p; i++) {
    fupermod_model_free(dyn.models[i]);
    dyn.models[i] = models[i];
    if (rc == FUPERMOD_SUCCESS) rc = fupermod_model_set_D(models[i], bn);
  }
  rc = fupermod_agree(rc, hc->comm_node);
  fresh = models[0]->points.count == 0;
  if (rc == FUPERMOD_SUCCESS && fresh) {
    /* bootstrap: one column each gives every model its first point (IDPA step 1), then even */
    for (int i = 0; i < p; i++) dyn.dist->parts[i].d = 1;
    if ((rc = measure_at(hc->comm_node, bm, 1, measure, ctx, &pt)) == FUPERMOD_SUCCESS)
      rc = fupermod_dynamic_step(&dyn, hc->comm_node, &pt, -1.0, &conv);
    count++;
    if (rc == FUPERMOD_SUCCESS) {
      fupermod_dist *even = fupermod_dist_alloc(bn, p);
      rc = even ? fupermod_dist_copy(dyn.dist, even) : FUPERMOD_ERR_NOMEM;
      fupermod_dist_free(even);
      rc = fupermod_agree(rc, hc->comm_node);
    }
  } else if (rc == FUPERMOD_SUCCESS)
    rc = partition_root(hc->comm_node, inner, p, dyn.models, dyn.dist);
  conv = 0;
  /* the bootstrap point does not count against the cap */
  for (int k = 0; rc == FUPERMOD_SUCCESS && k < max_measurements; k++) {
    if ((rc = measure_at(hc->comm_node, bm, dyn.dist->parts[me].d, measure, ctx, &pt)) != FUPERMOD_SUCCESS) break;
    rc = fupermod_dynamic_step(&dyn, hc->comm_node, &pt, eps2, &conv);
    count++;
    if (conv || rc != FUPERMOD_SUCCESS) break;
    /* the same shares again: measuring them again cannot change the models */
    int same = 1;
    for (int i = 0; i < p && same; i++) same = dyn.dist->parts[i].d == dyn.measured->parts[i].d;
    if (same) break;
  }
  if (rc == FUPERMOD_SUCCESS) {
    /* the last measured distribution: its largest time is the node's time */
    double t = 0.0;
    rc = fupermod_dist_copy(devices, dyn.measured);
    for (int i = 0; i < p; i++)
      if (dyn.measured->parts[i].t > t) t = dyn.measured->parts[i].t;
    *t_node = t;
    *converged = conv;
  }
  if (measurements) *measurements += count;
  for (int i = 0; i < p; i++) dyn.models[i] = NULL;
  fupermod_dynamic_free(&dyn);
  return rc;
}
