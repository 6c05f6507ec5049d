# Hierarchical partitioning at 80,000+ processors: `make bench`, then `bench/scale [--check]
# [--mpi] [--sweep DIR]` (docs/performance.md "Scale").
noinst_PROGRAMS += bench/scale
BENCH_BINS += bench/scale
bench_scale_SOURCES = bench/scale.c
bench_scale_LDADD = libfupermod_driver.la libfupermod.la $(GSL_LIBS) $(LIBS)
