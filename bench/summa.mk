# SUMMA vs ScaLAPACK PDGEMM: `make bench`, then e.g.
#   mpirun --bind-to none -np 2 bench/summa                   (homogeneous)
#   mpirun --bind-to none -np 4 bench/summa --config hetero   (heterogeneous)
# (not in the SMPI build, which has no ScaLAPACK: docs/simulate.md)
if !SMPI
noinst_PROGRAMS += bench/summa
BENCH_BINS += bench/summa
endif
bench_summa_SOURCES = bench/summa.c
bench_summa_LDADD = libfupermod_driver.la libfupermod_apps.la libfupermod.la $(SCALAPACK_LIBS) $(OPENBLAS_LIBS) \
  $(HWLOC_LIBS) $(LIBS)
