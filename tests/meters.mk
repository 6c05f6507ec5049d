# Energy meter tests: recorded powercap trees, fake external meter and NVML, attribution under MPI.
METER_TESTS = tests/test_meters tests/mpi_meters_np2 tests/test_point_span
check_PROGRAMS += $(METER_TESTS)
TESTS += $(METER_TESTS)
tests_test_meters_SOURCES = tests/test_meters.c tests/tap.h
tests_test_meters_LDADD = $(TEST_LDADD)
tests_test_point_span_SOURCES = tests/test_point_span.c tests/tap.h
tests_test_point_span_LDADD = $(TEST_LDADD)
tests_mpi_meters_np2_SOURCES = tests/mpi_meters.c tests/tap.h
tests_mpi_meters_np2_LDADD = $(TEST_LDADD)
# stands in for libnvidia-ml.so.1 (test_meters loads it with nvml_lib=)
check_LTLIBRARIES += tests/fake_nvml.la
tests_fake_nvml_la_SOURCES = tests/fake_nvml.c
tests_fake_nvml_la_LDFLAGS = -module -avoid-version -shared -rpath /nowhere
METER_TOOL_TESTS = tests/tools_build_meters.sh tests/tools_build_adaptive.sh tests/tools_energy_import.sh
TESTS += $(METER_TOOL_TESTS)
EXTRA_DIST += $(METER_TOOL_TESTS)
# adaptive building: fupermod build --adaptive against the full grid, fupermod run's default
ADAPTIVE_TOOL_TESTS = tests/tools_build_share.sh tests/tools_build_refine.sh tests/tools_build_adaptive_opt.sh tests/tools_build_adaptive_rules.sh tests/tools_run_adaptive.sh
TESTS += $(ADAPTIVE_TOOL_TESTS)
EXTRA_DIST += $(ADAPTIVE_TOOL_TESTS)
