/* Application runs recorded beside the models (docs/formats.md, "Application runs"): what a run
 * of an application measured, process by process, kept in DIR/models/runs.csv so that runs on
 * any distribution, from `fupermod run` or from the application's own program, can later be set
 * against the predictions and against one another. */
#ifndef FUPERMOD_APPS_RECORD_H
#define FUPERMOD_APPS_RECORD_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

#define FUPERMOD_RECORD_PHASES 8

/* Append one run of application `app` (a name without commas) of problem size `size` on a
 * distribution where this process held `share` units: the run's whole time `whole` (s, the same
 * on every rank: the slowest process's) and this process's `nphases` phases (s; names the same on
 * every rank, without commas, spaces or '='; at most FUPERMOD_RECORD_PHASES). Collective over
 * comm: rank 0 appends a line per process (its host and rank), creating DIR/models and the file
 * with its header; each run's lines reach the disk before it returns. Every rank returns the
 * same status. */
int fupermod_app_record(MPI_Comm comm, const char *dir, const char *app, long size, long share, double whole,
                        int nphases, const char *const *names, const double *phases);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
