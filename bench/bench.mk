# Benchmarks (built with `make bench`, never part of `make check`).
BENCH_BINS =
include bench/partitioners.mk
include bench/paraleph.mk
include bench/summa.mk
include bench/fft2d.mk
include bench/fft_panels.mk
include bench/scale.mk
include bench/model_cost.mk
bench: $(BENCH_BINS)
.PHONY: bench
# bench/cluster.sh: bench/summa and bench/fft2d on one node and on two virtual nodes (root)
EXTRA_DIST += bench/cluster.sh
