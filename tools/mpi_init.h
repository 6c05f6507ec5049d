/* MPI initialisation of the `fupermod` subcommands at the thread level they need. */
#ifndef FUPERMOD_TOOLS_MPI_INIT_H
#define FUPERMOD_TOOLS_MPI_INIT_H

#include <mpi.h>

/* Only the subcommands that need MPI start it: build, run, config, dypart and doctor always;
 * partition and hpartition only for paraleph; model and campaign never. A serial partitioner
 * run without mpirun so skips Open MPI's singleton start (tests/tools_lean_start.sh).
 * Every subcommand computes in threads (the benchmark's filler thread, OpenBLAS, OpenMP, FFTW)
 * while only the main thread calls MPI. */
#define TOOL_MPI_LEVEL MPI_THREAD_SERIALIZED /* SUMMA progresses its messages from a helper thread */

/* Initialise MPI (or check an initialised one) at `required`. 0 on success; otherwise prints
 * "fupermod SUB: ... needs MPI thread level X, MPI provides Y", finalises MPI, and returns the
 * exit status. */
int tool_mpi_init(const char *sub, int *argc, char ***argv, int required);

#endif
