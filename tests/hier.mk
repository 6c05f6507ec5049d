# Hierarchical partitioning: HiPOPTA against flat dp, grouping, INPA/IDPA on emulated nodes (group=).
HIER_TESTS = tests/test_hier tests/mpi_hier_np6
check_PROGRAMS += $(HIER_TESTS)
TESTS += $(HIER_TESTS)
tests_test_hier_SOURCES = tests/test_hier.c tests/tap.h tests/oracle_time.h
tests_test_hier_LDADD = $(TEST_LDADD)
tests_mpi_hier_np6_SOURCES = tests/mpi_hier.c tests/tap.h tests/oracle_time.h
tests_mpi_hier_np6_LDADD = $(TEST_LDADD)
# HiSCALE against flat dp on random instances, alone and collective on 2 ranks.
check_PROGRAMS += tests/test_hier_scale tests/mpi_hier_scale_np2
TESTS += tests/test_hier_scale tests/mpi_hier_scale_np2
tests_test_hier_scale_SOURCES = tests/test_hier_scale.c tests/tap.h tests/oracle_time.h
tests_test_hier_scale_LDADD = $(TEST_LDADD)
tests_mpi_hier_scale_np2_SOURCES = tests/test_hier_scale.c tests/tap.h tests/oracle_time.h
tests_mpi_hier_scale_np2_LDADD = $(TEST_LDADD)
# bench/scale: --check, and the same optima on 2 MPI ranks as in one process.
TESTS += tests/bench_scale.sh
EXTRA_DIST += tests/bench_scale.sh
# Out-of-card GEMM: slice choice, the stream schedule on emulated streams, the CUDA path (skipped
# without a device).
check_PROGRAMS += tests/test_ooc
TESTS += tests/test_ooc
tests_test_ooc_SOURCES = tests/test_ooc.c tests/tap.h
tests_test_ooc_LDADD = libfupermod_ooc.la $(TEST_LDADD)
# fupermod hpartition against fupermod partition -a dp on emulated groups.
TESTS += tests/tools_hpartition.sh
EXTRA_DIST += tests/tools_hpartition.sh
# Hybrid SUMMA on emulated nodes (exact checks; the GPU case is skipped without a device).
check_PROGRAMS += tests/mpi_summa_hybrid_np4
TESTS += tests/mpi_summa_hybrid_np4
tests_mpi_summa_hybrid_np4_SOURCES = tests/mpi_summa_hybrid.c tests/tap.h
tests_mpi_summa_hybrid_np4_LDADD = libfupermod_apps.la $(TEST_LDADD) $(OPENBLAS_LIBS)
