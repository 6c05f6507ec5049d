# MPI thread levels (fupermod/mpi_thread.h).
libfupermod_la_SOURCES += fupermod/mpi_thread.c
fupermodinclude_HEADERS += fupermod/mpi_thread.h
# Communication measured between every pair of processes (fupermod/comm.h).
libfupermod_la_SOURCES += fupermod/comm.c
fupermodinclude_HEADERS += fupermod/comm.h
