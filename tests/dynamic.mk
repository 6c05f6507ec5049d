# Dynamic partitioning (DPA, spec T8) and load balancing tests, and the dypart/pipeline tools.
DYNAMIC_TESTS = tests/mpi_dpa_np2 tests/mpi_balance_np2
check_PROGRAMS += $(DYNAMIC_TESTS)
TESTS += $(DYNAMIC_TESTS)
tests_mpi_dpa_np2_SOURCES = tests/mpi_dpa.c tests/tap.h
tests_mpi_dpa_np2_LDADD = $(TEST_LDADD)
tests_mpi_balance_np2_SOURCES = tests/mpi_balance.c tests/tap.h
tests_mpi_balance_np2_LDADD = $(TEST_LDADD)
DYNAMIC_TOOL_TESTS = tests/tools_dypart.sh
TESTS += $(DYNAMIC_TOOL_TESTS)
EXTRA_DIST += $(DYNAMIC_TOOL_TESTS)
PIPELINE_TESTS = tests/tools_pipeline.sh
TESTS += $(PIPELINE_TESTS)
EXTRA_DIST += $(PIPELINE_TESTS)
