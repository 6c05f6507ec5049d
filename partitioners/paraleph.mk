# PARALEPH: MPI+OpenMP wavefront DP (paraleph.c), Pareto cells (paraleph_pareto.c), SUMMA's
# communication cost (paraleph_summa.c) and the cell kernels (paraleph_kernel.c: AVX2/AVX-512
# through target attributes, chosen at run time, so no special flags are needed and the library
# runs on CPUs without them).
libfupermod_la_SOURCES += partitioners/paraleph.c partitioners/paraleph.h \
  partitioners/paraleph_pareto.c partitioners/paraleph_summa.c partitioners/paraleph_kernel.c \
  partitioners/paraleph_kernel.h partitioners/paraleph_sorted.h partitioners/paraleph_impl.h
