/* MPI thread levels: initialise MPI at the level a program needs, or check the level of an MPI
 * that is already initialised (docs/models.md, "Threads"). */
#ifndef FUPERMOD_MPI_THREAD_H
#define FUPERMOD_MPI_THREAD_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* the public API; the libraries build with -fvisibility=hidden */

/* "MPI_THREAD_SINGLE", ... for a level; "unknown" otherwise. */
const char *fupermod_mpi_thread_name(int level);

/* Initialise MPI asking for `required` (MPI_Init_thread); when MPI is already initialised, query
 * its level instead. *provided (may be NULL) gets the level MPI gives. FUPERMOD_ERR_MPI, with a
 * message naming both levels and `who`, when it is lower than required; MPI stays initialised
 * (the caller finalises it). FUPERMOD_ERR_USAGE after MPI_Finalize. */
int fupermod_mpi_init_thread(int *argc, char ***argv, int required, const char *who, int *provided);

/* Check that an initialised MPI allows `required` (MPI_Query_thread). A level below
 * MPI_THREAD_SERIALIZED holds only on the main thread, so a caller on another thread needs
 * MPI_THREAD_SERIALIZED when it asks for MPI_THREAD_FUNNELED. */
int fupermod_mpi_check_thread(int required, const char *who);

/* Complete req, sleeping nap_ns between tests: a process that waits (an idle one, one that
 * finished early) must not load the cores others are measured on, as MPI's busy polling would.
 * 0 when done, -1 when MPI_Test fails. */
int fupermod_mpi_wait_idle(MPI_Request *req, long nap_ns);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif
