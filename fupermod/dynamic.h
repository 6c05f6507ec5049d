/* Dynamic partitioning (DPA with partial models) and dynamic load balancing (FuPerMod's
 * fupermod_partition_iterate / fupermod_balance_iterate). The partitioner is a function pointer:
 * the core never names a partitioner. */
#ifndef FUPERMOD_DYNAMIC_H
#define FUPERMOD_DYNAMIC_H

#include <mpi.h>
#include "benchmark.h"
#include "dist.h"
#include "kernel.h"
#include "model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fupermod_dynamic {
  fupermod_partition partition; /* e.g. fupermod_partitioner_find("geometric")->continuous */
  int size;                     /* number of processes of comm */
  fupermod_model **models;      /* current partial estimates, one per process */
  fupermod_dist *dist;          /* current distribution (starts even) */
  int iterations;               /* measurements made so far */
} fupermod_dynamic;

/* Empty partial models of model_type for size processes and the even distribution of D. */
int fupermod_dynamic_init(fupermod_dynamic *dyn, int size, const char *model_type, long D,
                          fupermod_partition partition);
void fupermod_dynamic_free(fupermod_dynamic *dyn);

/* One DPA step, collective over comm (size processes, rank i owns dist->parts[i]): benchmark the
 * kernel at this process's current d with precision, gather the times, and if
 * (t_max - t_min)/t_min <= eps set *converged = 1 and keep the distribution; otherwise add every
 * process's point to its model and re-partition. comm_sync synchronises co-located processes
 * (MPI_COMM_NULL: no synchronisation). */
int fupermod_partition_iterate(fupermod_dynamic *dyn, MPI_Comm comm, MPI_Comm comm_sync,
                               const fupermod_precision *precision, fupermod_kernel *kernel, double eps,
                               int *converged);

/* One load-balancing step inside an iterative application, collective over comm: the iteration
 * that started at `start` (fupermod_time() seconds) ran with dyn->dist; add each process's
 * (d, now - start) point to its model and re-partition into dyn->dist. */
int fupermod_balance_iterate(fupermod_dynamic *dyn, MPI_Comm comm, double start);

#ifdef __cplusplus
}
#endif
#endif
