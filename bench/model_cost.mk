# Model cost, adaptive against full-grid building: `make bench`, then `bench/model_cost`
# (a script: it starts its own mpirun steps; --help shows them).
BENCH_BINS += bench/model_cost
EXTRA_DIST += bench/model_cost.sh
CLEANFILES += bench/model_cost
bench/model_cost: $(srcdir)/bench/model_cost.sh
	$(BENCH_SCRIPT)
