/* Shared helpers of the applications (libfupermod_apps). */
#ifndef FUPERMOD_APPS_H
#define FUPERMOD_APPS_H

#include <mpi.h>
#include <fupermod/fupermod.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* the public API; the libraries build with -fvisibility=hidden */

/* offsets[i] = d_0 + ... + d_{i-1} for i = 0..size (offsets has size+1 entries): the first row
 * (or unit) of each process in a row distribution. */
int fupermod_dist_offsets(const fupermod_dist *dist, long *offsets);

/* Collective: a barrier where a process with no work (idle = 1) sleeps between tests instead of
 * polling, so that it leaves its core to a process that shares it and still computes. */
int fupermod_barrier_idle(MPI_Comm comm, int idle);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
