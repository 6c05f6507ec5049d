# Cost of every partitioner against the exact DP: `make bench`, then `bench/partitioners [--quick]`
# (results in docs/performance.md).
noinst_PROGRAMS += bench/partitioners
BENCH_BINS += bench/partitioners
bench_partitioners_SOURCES = bench/partitioners.c bench/machine.h
bench_partitioners_LDADD = libfupermod.la $(GSL_LIBS) $(LIBS)
