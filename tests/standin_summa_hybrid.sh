#!/bin/bash
# tests/mpi_summa_hybrid_np4 on two stand-in GPUs per process: CPU and GPU devices in one node.
. "$top_srcdir/tests/standin.sh"
exec "${MPIEXEC:-mpirun}" --oversubscribe --bind-to none -np 4 "${top_builddir:-..}/tests/mpi_summa_hybrid_np4"
