/* Dynamic partitioning (DPA with partial models) and dynamic load balancing (FuPerMod's
 * fupermod_partition_iterate / fupermod_balance_iterate). The partitioner is a function pointer:
 * the core never names a partitioner. */
#ifndef FUPERMOD_DYNAMIC_H
#define FUPERMOD_DYNAMIC_H

#include <mpi.h>
#include "benchmark.h"
#include "dist.h"
#include "kernel.h"
#include "meter.h"
#include "model.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* the public API; the libraries build with -fvisibility=hidden */

typedef struct fupermod_dynamic {
  fupermod_partition partition; /* e.g. fupermod_partitioner_find("geometric")->continuous */
  int size;                     /* number of processes of comm */
  fupermod_model **models;      /* current partial estimates, one per process */
  fupermod_dist *dist;          /* current distribution (starts even) */
  int iterations;               /* measurements made so far */
  /* Extensions (docs/dynamic.md); fupermod_dynamic_init sets them. */
  fupermod_dist *measured;      /* the distribution measured last: d, measured t (and e) */
  double imbalance;             /* (t_max - t_min)/t_min of the last measurement, over d > 0 */
  fupermod_meter *meter;        /* energy meter for partition_iterate (NULL: kernel's own); not owned */
  double static_power;          /* W subtracted from the meter's energy */
} fupermod_dynamic;

/* Empty partial models of model_type for size processes and the even distribution of D
 * (D >= size: every process needs a first point). */
int fupermod_dynamic_init(fupermod_dynamic *dyn, int size, const char *model_type, long D,
                          fupermod_partition partition);
void fupermod_dynamic_free(fupermod_dynamic *dyn);

/* One DPA step, collective over comm (size processes, rank i owns dist->parts[i]): benchmark the
 * kernel at this process's current d with precision, gather the times, and if
 * (t_max - t_min)/t_min <= eps set *converged = 1 and keep the distribution; otherwise add every
 * process's point to its model and re-partition. comm_sync synchronises co-located processes
 * (MPI_COMM_NULL: no synchronisation). The points are added to the models in both cases; on
 * convergence dist->parts[i].t holds the measured times. Processes given 0 units idle. */
int fupermod_partition_iterate(fupermod_dynamic *dyn, MPI_Comm comm, MPI_Comm comm_sync,
                               const fupermod_precision *precision, fupermod_kernel *kernel, double eps,
                               int *converged);

/* One load-balancing step inside an iterative application, collective over comm: the iteration
 * that started at `start` (fupermod_time() seconds) ran with dyn->dist; add each process's
 * (d, now - start) point to its model and re-partition into dyn->dist. */
int fupermod_balance_iterate(fupermod_dynamic *dyn, MPI_Comm comm, double start);

/* The step both share, from this process's measured point (d must be dist->parts[rank].d; d = 0:
 * idle, no point): gather every point into dyn->measured and the models, compute dyn->imbalance,
 * and unless eps >= 0 and imbalance <= eps (*converged = 1) re-partition on rank 0 and broadcast
 * the new distribution. Collective over comm. */
int fupermod_dynamic_step(fupermod_dynamic *dyn, MPI_Comm comm, const fupermod_point *mine, double eps,
                          int *converged);

/* DPA to the end: fupermod_partition_iterate until converged or max_iterations measurements. */
int fupermod_partition_dynamic(fupermod_dynamic *dyn, MPI_Comm comm, MPI_Comm comm_sync,
                               const fupermod_precision *precision, fupermod_kernel *kernel, double eps,
                               int max_iterations, int *converged);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
