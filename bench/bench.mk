# Benchmarks (built with `make bench`, never part of `make check`).
BENCH_BINS =
# bench scripts: the build and source directories written in
BENCH_SCRIPT = $(MKDIR_P) bench && sed -e 's|%BUILD_DIR%|$(abs_top_builddir)|g' -e 's|%SRC_DIR%|$(abs_top_srcdir)|g' \
  $(srcdir)/$@.sh >$@ && chmod +x $@
include bench/partitioners.mk
include bench/paraleph.mk
include bench/summa.mk
include bench/fft2d.mk
include bench/gpunode.mk
include bench/fft_panels.mk
include bench/scale.mk
include bench/model_cost.mk
# fupermod sweep against one fupermod partition per workload (a script; --help; docs/performance.md)
BENCH_BINS += bench/sweep
EXTRA_DIST += bench/sweep.sh
CLEANFILES += bench/sweep
check_SCRIPTS += bench/sweep
bench/sweep: $(srcdir)/bench/sweep.sh
	$(BENCH_SCRIPT)
bench: $(BENCH_BINS)
.PHONY: bench
# bench/cluster.sh: bench/summa and bench/fft2d on one node and on two virtual nodes (root)
EXTRA_DIST += bench/cluster.sh
