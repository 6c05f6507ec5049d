# Benchmarks (built with `make bench`, never part of `make check`).
BENCH_BINS =
include bench/partitioners.mk
include bench/paraleph.mk
include bench/apps.mk
bench: $(BENCH_BINS)
.PHONY: bench
