/* What the driver programs (those of apps/; bench/fft2d, summa, paraleph and scale) share around
 * MPI: the start-up, a status agreed on by every rank, the binding of a configuration and the end.
 * A helper of programs, linked into each driver (libfupermod_driver, never installed): it prints
 * to stderr, as programs do and the libraries never. */
#ifndef FUPERMOD_APPS_DRIVER_H
#define FUPERMOD_APPS_DRIVER_H

#include <mpi.h>

/* Initialise MPI at thread level `required` (fupermod_mpi_init_thread: OpenMP, OpenBLAS or FFTW
 * threads compute while the main thread calls MPI) and get this rank and the size of
 * MPI_COMM_WORLD (provided, rank and size may be NULL). 0 when MPI runs; otherwise "WHO: message"
 * went to stderr, MPI is finalised and the value is main's exit status. WHO also names the
 * program in the messages of driver_agree and driver_end. */
int driver_mpi_start(int *argc, char ***argv, int required, const char *who, int *provided, int *rank, int *size);

/* rc made the same on every rank (collective); the first failing rank prints "WHO: rank R: message". */
int driver_agree(int rc);

/* Apply this process's binding from the configuration file `conffile` (collective; agreed).
 * cpu_only: when not NULL, a line of another device type is an error whose message ends with it. */
int driver_conf_bind(const char *conffile, const char *cpu_only);

/* The end of a driver whose run returned rc (1: a --help handled, exit 0): a failure that
 * driver_agree did not print (an option error, the same on every rank) printed by rank 0, MPI
 * finalised. main's exit status. */
int driver_end(int rc);

#endif
