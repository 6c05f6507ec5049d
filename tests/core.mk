# Core tests: TAP programs; mpi_*_npN run under mpirun -np N.
CORE_TESTS = tests/test_run_calib tests/test_clock tests/test_points tests/test_parse tests/test_lines tests/test_smooth tests/test_smooth_edges tests/test_dist tests/test_student tests/test_conf tests/test_kernel \
  tests/test_blas tests/test_blas_scope tests/test_share tests/mpi_benchmark_np4 tests/test_point_flags \
  tests/mpi_abandon_np2 tests/mpi_outliers_np2 tests/test_comm tests/mpi_comm_share_np4 tests/test_choose
check_PROGRAMS += $(CORE_TESTS)
TESTS += $(CORE_TESTS)
tests_test_points_SOURCES = tests/test_points.c tests/tap.h
# the calibration's fit, from the tool's own files (fupermod run links them into the command)
tests_test_run_calib_SOURCES = tests/test_run_calib.c tests/tap.h tools/run_calib.c tools/run_history.c
tests_test_run_calib_LDADD = $(TEST_LDADD)
tests_test_clock_SOURCES = tests/test_clock.c tests/tap.h
tests_test_clock_LDADD = $(TEST_LDADD)
tests_test_choose_SOURCES = tests/test_choose.c tests/tap.h
tests_test_choose_LDADD = $(TEST_LDADD)
tests_test_points_LDADD = $(TEST_LDADD)
# the reader is internal (hidden in the shared library): the test compiles its own copy
tests_test_lines_SOURCES = tests/test_lines.c tests/tap.h fupermod/lines.c fupermod/lines.h
tests_test_lines_LDADD = $(TEST_LDADD)
tests_test_parse_SOURCES = tests/test_parse.c tests/tap.h
tests_test_parse_LDADD = $(TEST_LDADD)
tests_test_smooth_SOURCES = tests/test_smooth.c tests/tap.h
tests_test_smooth_LDADD = $(TEST_LDADD)
tests_test_smooth_edges_SOURCES = tests/test_smooth_edges.c tests/tap.h
tests_test_smooth_edges_LDADD = $(TEST_LDADD)
tests_test_dist_SOURCES = tests/test_dist.c tests/tap.h
tests_test_dist_LDADD = $(TEST_LDADD)
tests_test_student_SOURCES = tests/test_student.c tests/tap.h
tests_test_student_LDADD = $(TEST_LDADD)
tests_test_conf_SOURCES = tests/test_conf.c tests/tap.h
tests_test_conf_LDADD = $(TEST_LDADD)
# stands in for the CUDA runtime (test_conf loads it before asking for the device count)
check_LTLIBRARIES += tests/libcudart.la
tests_libcudart_la_SOURCES = tests/fake_cudart.c
# the soname of the runtime fupermod's probe links (CUDA 13), so that the probe finds it loaded
tests_libcudart_la_LDFLAGS = -shared -rpath /nowhere -version-info 13:0:0
tests_test_kernel_SOURCES = tests/test_kernel.c tests/tap.h
tests_test_kernel_LDADD = $(TEST_LDADD)
tests_test_blas_SOURCES = tests/test_blas.c tests/tap.h
tests_test_blas_CPPFLAGS = $(AM_CPPFLAGS) $(OPENBLAS_CFLAGS)
tests_test_blas_LDADD = $(TEST_LDADD) $(OPENBLAS_LIBS) $(GSL_LIBS)
tests_test_blas_scope_SOURCES = tests/test_blas_scope.c tests/tap.h
# libfupermod alone: the test checks that the program itself asks for no BLAS or GSL
tests_test_blas_scope_LDADD = $(top_builddir)/libfupermod.la $(LIBS)
tests_test_share_SOURCES = tests/test_share.c tests/tap.h
tests_test_share_LDADD = $(TEST_LDADD)
tests_mpi_benchmark_np4_SOURCES = tests/mpi_benchmark.c tests/tap.h
tests_mpi_benchmark_np4_LDADD = $(TEST_LDADD)
tests_test_point_flags_SOURCES = tests/test_point_flags.c tests/tap.h
tests_test_point_flags_LDADD = $(TEST_LDADD)
tests_mpi_abandon_np2_SOURCES = tests/mpi_abandon.c tests/tap.h
tests_mpi_abandon_np2_LDADD = $(TEST_LDADD)
tests_mpi_outliers_np2_SOURCES = tests/mpi_outliers.c tests/tap.h
tests_mpi_outliers_np2_LDADD = $(TEST_LDADD)
TOOL_TESTS = tests/tools_model.sh tests/tools_partition.sh tests/tools_build.sh tests/tools_run.sh tests/tools_failures.sh tests/tools_valgrind.sh \
  tests/tools_build_flags.sh tests/tools_outliers.sh tests/tools_run_reuse.sh tests/tools_run_threads.sh \
  tests/tools_lock.sh tests/tools_additivity.sh tests/newcomer_mistakes.sh tests/tools_run_history.sh tests/tools_run_programs.sh \
  tests/tools_run_accuracy.sh tests/tools_run_algorithms.sh tests/tools_run_app.sh
TESTS += $(TOOL_TESTS)
EXTRA_DIST += $(TOOL_TESTS) tests/valgrind.supp
# The library calls no strtok: the text formats share one line reader (fupermod/lines.c).
TESTS += tests/lib_nostrtok.sh tests/cuda_symbols.sh tests/function_length.sh
EXTRA_DIST += tests/lib_nostrtok.sh tests/cuda_symbols.sh tests/function_length.sh
tests_mpi_comm_share_np4_SOURCES = tests/mpi_comm_share.c tests/tap.h
tests_mpi_comm_share_np4_LDADD = $(TEST_LDADD)
tests_test_comm_SOURCES = tests/test_comm.c tests/tap.h
tests_test_comm_LDADD = $(TEST_LDADD)
# fupermod comm: message times between every pair of processes (docs/models.md, "Communication").
TESTS += tests/tools_comm.sh
EXTRA_DIST += tests/tools_comm.sh
