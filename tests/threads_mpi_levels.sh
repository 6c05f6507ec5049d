#!/bin/bash
# Every program initialises MPI at a thread level it checks (fupermod_mpi_init_thread, the
# drivers' driver_mpi_start or the tools' tool_mpi_init), never with a bare MPI_Init or an unchecked MPI_Init_thread.
. "${top_srcdir:-..}/tests/tap.sh"
cd "${top_srcdir:-..}" || exit 1
for f in tools/cmd_*.c apps/*_main.c apps/driver.c bench/*.c kernels/example/check.c tests/mpi_*.c; do
  case "$f" in tests/mpi_thread.c) continue ;; esac # initialises at SINGLE on purpose
  if grep -Eq '\bMPI_Init(_thread)?\(' "$f"; then
    ok 1 "$f calls MPI_Init/MPI_Init_thread directly"
    grep -En '\bMPI_Init(_thread)?\(' "$f" | sed 's/^/# /'
  else
    ok 0 "$f: no unchecked MPI initialisation"
  fi
done
# the programs that initialise MPI at all do it through the checked helpers
n=$(grep -lE 'fupermod_mpi_init_thread|tool_mpi_init\(|driver_mpi_start\(' tools/cmd_*.c apps/*_main.c bench/*.c kernels/example/check.c tests/mpi_*.c | wc -l)
ok $([ "$n" -ge 28 ] && echo 0 || echo 1) "$n programs initialise MPI through a level check"
done_testing
