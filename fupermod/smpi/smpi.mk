# The SMPI build (configure --with-smpi; docs/simulate.md): fupermod for SimGrid's simulator,
# compiled with smpicc; fupermod-mpi links libfupermod and libfupermod_apps statically
# (tools/tools.mk), so that each simulated rank has their globals to itself.
EXTRA_DIST += fupermod/smpi/compat.h
