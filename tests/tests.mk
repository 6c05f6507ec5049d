# Core tests here (tests/core.mk); each area adds its own fragment.
EXTRA_DIST += tests/tap.h tests/tap.sh tests/summary.sh tests/run.sh.in

include tests/core.mk
include tests/models.mk
include tests/continuous.mk
include tests/discrete_time.mk
include tests/discrete_energy.mk
include tests/paraleph.mk
include tests/kernels.mk
include tests/meters.mk
include tests/dynamic.mk
include tests/matrix.mk
include tests/apps.mk
include tests/popta_trace.mk
include tests/campaign.mk
include tests/hier.mk
include tests/api.mk
include tests/cluster.mk
include tests/threads.mk
include tests/exec.mk
include tests/fake_cuda.mk
# A command that needs no GPU and no MPI starts without them (tests/tools_lean_start.sh).
TESTS += tests/tools_lean_start.sh
EXTRA_DIST += tests/tools_lean_start.sh
# The 2D FFT gives the caller's FFTW planner thread count back.
check_PROGRAMS += tests/test_fft2d_planner
TESTS += tests/test_fft2d_planner
tests_test_fft2d_planner_SOURCES = tests/test_fft2d_planner.c tests/tap.h
tests_test_fft2d_planner_CPPFLAGS = $(AM_CPPFLAGS) $(FFTW3_CFLAGS)
tests_test_fft2d_planner_LDADD = $(APPS_TEST_LIBS)
# One dp table for every workload (fupermod_dp_table) against dp per workload, and brute force.
check_PROGRAMS += tests/test_dp_table
TESTS += tests/test_dp_table
tests_test_dp_table_SOURCES = tests/test_dp_table.c tests/tap.h tests/oracle_time.h
tests_test_dp_table_LDADD = $(TEST_LDADD)
# The whole-run partitioner (which processes work) against brute force on small instances.
check_PROGRAMS += tests/test_whole
TESTS += tests/test_whole
tests_test_whole_SOURCES = tests/test_whole.c tests/tap.h
tests_test_whole_LDADD = $(TEST_LDADD)
# fupermod sweep: a range of workloads against the partitioners and brute force (docs/evaluation.md).
TESTS += tests/tools_sweep.sh
EXTRA_DIST += tests/tools_sweep.sh
# The tarball ships every tracked file (tests/dist_files.sh); tests/repeat.sh runs tests N times.
TESTS += tests/dist_files.sh
EXTRA_DIST += tests/dist_files.sh tests/repeat.sh
