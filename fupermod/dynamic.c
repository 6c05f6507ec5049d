/* Dynamic partitioning (DPA with partial models, thesis 2.6) and dynamic load balancing (2.7):
 * both measure every process at its current share, add the points to the partial models and
 * re-partition with the partitioner they were given. docs/dynamic.md. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fupermod/dynamic.h"
#include "fupermod/error.h"

int fupermod_dynamic_init(fupermod_dynamic *dyn, int size, const char *model_type, long D,
                          fupermod_partition partition) {
  int rc;
  if (!dyn) return fupermod_error(FUPERMOD_ERR_USAGE, "dynamic: NULL state");
  memset(dyn, 0, sizeof *dyn);
  if (!partition) return fupermod_error(FUPERMOD_ERR_USAGE, "dynamic: no partitioner given");
  if (size < 1) return fupermod_error(FUPERMOD_ERR_USAGE, "dynamic: %d processes (need >= 1)", size);
  if (D < size)
    return fupermod_error(FUPERMOD_ERR_USAGE,
                          "dynamic: D = %ld is below the %d processes (every process needs a first point)", D, size);
  dyn->partition = partition;
  dyn->size = size;
  dyn->imbalance = INFINITY;
  if (!(dyn->models = calloc((size_t)size, sizeof *dyn->models))) {
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
    goto fail;
  }
  for (int i = 0; i < size; i++)
    if ((rc = fupermod_model_create(model_type, NULL, D, &dyn->models[i])) != FUPERMOD_SUCCESS) goto fail;
  if (!(dyn->dist = fupermod_dist_alloc(D, size)) || !(dyn->measured = fupermod_dist_alloc(D, size))) {
    rc = FUPERMOD_ERR_NOMEM;
    goto fail;
  }
  for (int i = 0; i < size; i++) dyn->measured->parts[i].d = 0;
  return FUPERMOD_SUCCESS;
fail:
  fupermod_dynamic_free(dyn);
  return rc;
}

void fupermod_dynamic_free(fupermod_dynamic *dyn) {
  if (!dyn) return;
  if (dyn->models)
    for (int i = 0; i < dyn->size; i++) fupermod_model_free(dyn->models[i]);
  free(dyn->models);
  fupermod_dist_free(dyn->dist);
  fupermod_dist_free(dyn->measured);
  dyn->models = NULL;
  dyn->dist = dyn->measured = NULL;
}

/* Every process learns whether someone failed; the failing ones keep their own message. */
static int agree(int rc, MPI_Comm comm, const char *what) {
  int bad = rc != FUPERMOD_SUCCESS, any = 0, rank, who = 0, me;
  MPI_Comm_rank(comm, &rank);
  me = bad ? rank : 1 << 30;
  if (MPI_Allreduce(&me, &who, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS)
    return fupermod_error(FUPERMOD_ERR_MPI, "%s: MPI_Allreduce failed", what);
  any = who != 1 << 30;
  if (bad) return rc;
  if (any) return fupermod_error(FUPERMOD_ERR_MPI, "%s: process %d failed", what, who);
  return FUPERMOD_SUCCESS;
}

static int state_ok(const fupermod_dynamic *dyn, MPI_Comm comm, int *rank) {
  int size;
  if (!dyn || !dyn->models || !dyn->dist || !dyn->measured || !dyn->partition)
    return fupermod_error(FUPERMOD_ERR_USAGE, "dynamic: state not initialised (fupermod_dynamic_init)");
  if (comm == MPI_COMM_NULL) return fupermod_error(FUPERMOD_ERR_USAGE, "dynamic: no communicator");
  MPI_Comm_size(comm, &size);
  MPI_Comm_rank(comm, rank);
  if (size != dyn->size)
    return fupermod_error(FUPERMOD_ERR_USAGE, "dynamic: state for %d processes used on %d", dyn->size, size);
  return FUPERMOD_SUCCESS;
}

int fupermod_dynamic_step(fupermod_dynamic *dyn, MPI_Comm comm, const fupermod_point *mine, double eps,
                          int *converged) {
  int rank = 0, rc, p;
  double mine6[6], *all = NULL, tmin = INFINITY, tmax = 0.0;
  struct {
    int rc;
    char msg[512];
  } part = {FUPERMOD_SUCCESS, ""};
  if ((rc = state_ok(dyn, comm, &rank)) == FUPERMOD_SUCCESS) {
    if (!mine || !converged) rc = fupermod_error(FUPERMOD_ERR_USAGE, "dynamic step: NULL argument");
    else if (isnan(eps)) rc = fupermod_error(FUPERMOD_ERR_USAGE, "dynamic step: eps is NaN");
    else if (mine->d != dyn->dist->parts[rank].d)
      rc = fupermod_error(FUPERMOD_ERR_USAGE, "dynamic step: rank %d measured d = %ld but was given %ld", rank, mine->d,
                          dyn->dist->parts[rank].d);
    else if (mine->d > 0 && (!(mine->t > 0) || !isfinite(mine->t)))
      rc = fupermod_error(FUPERMOD_ERR_INPUT, "dynamic step: rank %d measured t = %g for d = %ld (must be > 0)", rank,
                          mine->t, mine->d);
  }
  /* a caller that passes a bad state on one rank only must not hang the others */
  if (comm == MPI_COMM_NULL) return rc;
  if ((rc = agree(rc, comm, "dynamic step")) != FUPERMOD_SUCCESS) return rc;
  *converged = 0;
  p = dyn->size;
  mine6[0] = (double)mine->d;
  mine6[1] = mine->d > 0 ? mine->t : 0.0;
  mine6[2] = mine->reps;
  mine6[3] = mine->ci;
  mine6[4] = mine->e;
  mine6[5] = mine->e_ci;
  if (!(all = malloc((size_t)p * 6 * sizeof *all))) rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  if ((rc = agree(rc, comm, "dynamic step")) != FUPERMOD_SUCCESS) {
    free(all);
    return rc;
  }
  if (MPI_Allgather(mine6, 6, MPI_DOUBLE, all, 6, MPI_DOUBLE, comm) != MPI_SUCCESS) {
    free(all);
    return fupermod_error(FUPERMOD_ERR_MPI, "dynamic step: MPI_Allgather failed");
  }
  /* every rank adds the same points, so the models stay identical everywhere */
  for (int i = 0; i < p; i++) {
    fupermod_point pt = FUPERMOD_POINT_INIT;
    double *v = all + 6 * i;
    pt.d = (long)v[0];
    pt.t = v[1];
    pt.reps = v[2] >= 1 ? (int)v[2] : 1;
    pt.ci = v[3] >= 0 ? v[3] : 0.0;
    pt.e = v[4];
    pt.e_ci = v[5];
    dyn->measured->parts[i].d = pt.d;
    dyn->measured->parts[i].t = pt.t;
    dyn->measured->parts[i].e = pt.d > 0 && pt.e >= 0 ? pt.e : pt.d > 0 ? NAN : 0.0;
    if (pt.d <= 0) continue;
    if (pt.t < tmin) tmin = pt.t;
    if (pt.t > tmax) tmax = pt.t;
    if (rc == FUPERMOD_SUCCESS && (rc = fupermod_model_update(dyn->models[i], &pt)) != FUPERMOD_SUCCESS)
      rc = fupermod_error_prefix(rc, "dynamic step: model of rank %d", i);
  }
  free(all);
  if (rc != FUPERMOD_SUCCESS) return rc; /* same data everywhere: every rank fails alike */
  dyn->iterations++;
  dyn->imbalance = tmax > 0 ? (tmax - tmin) / tmin : 0.0;
  if (eps >= 0 && dyn->imbalance <= eps) {
    *converged = 1;
    return fupermod_dist_copy(dyn->dist, dyn->measured);
  }
  /* one rank partitions so that every rank uses bit-identical shares */
  if (rank == 0) {
    fupermod_dist *next = fupermod_dist_alloc(dyn->dist->D, p);
    if (!next) part.rc = FUPERMOD_ERR_NOMEM;
    else if ((part.rc = dyn->partition(p, dyn->models, next)) == FUPERMOD_SUCCESS) {
      long sum = 0, neg = 0;
      for (int i = 0; i < p; i++) {
        sum += next->parts[i].d;
        if (next->parts[i].d < 0) neg++;
      }
      if (neg || sum != dyn->dist->D)
        part.rc = fupermod_error(FUPERMOD_ERR_NUMERIC, "the partitioner returned %s shares summing to %ld for D = %ld",
                                 neg ? "negative" : "", sum, dyn->dist->D);
      else fupermod_dist_copy(dyn->dist, next);
    }
    if (part.rc != FUPERMOD_SUCCESS) snprintf(part.msg, sizeof part.msg, "%s", fupermod_error_message());
    fupermod_dist_free(next);
  }
  if (MPI_Bcast(&part, (int)sizeof part, MPI_BYTE, 0, comm) != MPI_SUCCESS)
    return fupermod_error(FUPERMOD_ERR_MPI, "dynamic step: MPI_Bcast failed");
  if (part.rc != FUPERMOD_SUCCESS) return fupermod_error(part.rc, "dynamic step: partitioning failed: %s", part.msg);
  {
    /* d, t, e of every part */
    double *buf = malloc((size_t)p * 3 * sizeof *buf);
    int ok = buf != NULL, allok = 0;
    MPI_Allreduce(&ok, &allok, 1, MPI_INT, MPI_MIN, comm);
    if (!allok) {
      free(buf);
      return fupermod_error(FUPERMOD_ERR_NOMEM, "dynamic step: out of memory");
    }
    if (rank == 0)
      for (int i = 0; i < p; i++) {
        buf[3 * i] = (double)dyn->dist->parts[i].d;
        buf[3 * i + 1] = dyn->dist->parts[i].t;
        buf[3 * i + 2] = dyn->dist->parts[i].e;
      }
    if (MPI_Bcast(buf, 3 * p, MPI_DOUBLE, 0, comm) != MPI_SUCCESS) {
      free(buf);
      return fupermod_error(FUPERMOD_ERR_MPI, "dynamic step: MPI_Bcast failed");
    }
    for (int i = 0; i < p; i++) {
      dyn->dist->parts[i].d = (long)buf[3 * i];
      dyn->dist->parts[i].t = buf[3 * i + 1];
      dyn->dist->parts[i].e = buf[3 * i + 2];
    }
    free(buf);
  }
  return FUPERMOD_SUCCESS;
}

int fupermod_partition_iterate(fupermod_dynamic *dyn, MPI_Comm comm, MPI_Comm comm_sync,
                               const fupermod_precision *precision, fupermod_kernel *kernel, double eps,
                               int *converged) {
  int rank = 0, rc;
  long d = 0;
  fupermod_point pt = FUPERMOD_POINT_INIT;
  MPI_Comm active = MPI_COMM_NULL;
  if ((rc = state_ok(dyn, comm, &rank)) == FUPERMOD_SUCCESS) {
    if (!precision || !kernel || !converged) rc = fupermod_error(FUPERMOD_ERR_USAGE, "partition_iterate: NULL argument");
    else if (!(eps >= 0) || !isfinite(eps))
      rc = fupermod_error(FUPERMOD_ERR_USAGE, "partition_iterate: eps = %g (must be a number >= 0)", eps);
    else rc = fupermod_precision_check(precision);
  }
  if (comm == MPI_COMM_NULL) return rc;
  if ((rc = agree(rc, comm, "partition_iterate")) != FUPERMOD_SUCCESS) return rc;
  d = dyn->dist->parts[rank].d;
  /* processes given nothing idle, and leave the co-located synchronisation to the others */
  if (comm_sync != MPI_COMM_NULL &&
      MPI_Comm_split(comm_sync, d > 0 ? 0 : MPI_UNDEFINED, 0, &active) != MPI_SUCCESS)
    rc = fupermod_error(FUPERMOD_ERR_MPI, "partition_iterate: MPI_Comm_split failed");
  pt.d = d;
  pt.t = 0.0;
  if (rc == FUPERMOD_SUCCESS && d > 0) {
    rc = fupermod_benchmark_meter(kernel, dyn->meter, dyn->static_power, d, precision, active, &pt);
    /* an abandoned run still ran to completion: DPA takes its time as a one-run point, so that work
     * moves away from a device that slow */
    if (rc == FUPERMOD_SUCCESS && fupermod_point_abandoned(&pt)) pt.flags = FUPERMOD_POINT_IMPRECISE;
  }
  if (active != MPI_COMM_NULL) MPI_Comm_free(&active);
  if ((rc = agree(rc, comm, "partition_iterate")) != FUPERMOD_SUCCESS) return rc;
  return fupermod_dynamic_step(dyn, comm, &pt, eps, converged);
}

int fupermod_balance_iterate(fupermod_dynamic *dyn, MPI_Comm comm, double start) {
  double now = fupermod_time();
  int rank = 0, rc, converged = 0;
  fupermod_point pt = FUPERMOD_POINT_INIT;
  if ((rc = state_ok(dyn, comm, &rank)) == FUPERMOD_SUCCESS && (!isfinite(start) || start > now))
    rc = fupermod_error(FUPERMOD_ERR_USAGE, "balance_iterate: start %.6f is not a past fupermod_time()", start);
  if (comm == MPI_COMM_NULL) return rc;
  if ((rc = agree(rc, comm, "balance_iterate")) != FUPERMOD_SUCCESS) return rc;
  pt.d = dyn->dist->parts[rank].d;
  pt.t = pt.d > 0 ? now - start : 0.0;
  if (pt.d > 0 && !(pt.t > 0)) pt.t = 1e-9; /* a clock tick too coarse for the iteration */
  /* the application decides when to stop: always re-partition (eps < 0) */
  return fupermod_dynamic_step(dyn, comm, &pt, -1.0, &converged);
}

int fupermod_partition_dynamic(fupermod_dynamic *dyn, MPI_Comm comm, MPI_Comm comm_sync,
                               const fupermod_precision *precision, fupermod_kernel *kernel, double eps,
                               int max_iterations, int *converged) {
  int rc = FUPERMOD_SUCCESS;
  if (!converged) return fupermod_error(FUPERMOD_ERR_USAGE, "partition_dynamic: NULL converged");
  *converged = 0;
  if (max_iterations < 1)
    return fupermod_error(FUPERMOD_ERR_USAGE, "partition_dynamic: max_iterations = %d (must be >= 1)", max_iterations);
  for (int k = 0; k < max_iterations && !*converged && rc == FUPERMOD_SUCCESS; k++)
    rc = fupermod_partition_iterate(dyn, comm, comm_sync, precision, kernel, eps, converged);
  return rc;
}
