# Matrix partitioning (partitioners/layout*.c) and the heterogeneous SUMMA (apps/summa.c).
check_PROGRAMS += tests/test_matrix
TESTS += tests/test_matrix
tests_test_matrix_SOURCES = tests/test_matrix.c tests/tap.h
tests_test_matrix_LDADD = $(TEST_LDADD)
# SUMMA: the same program under 1..7 and 14 ranks (tests/run.sh: mpi_*_npN runs with -np N).
SUMMA_TESTS = tests/mpi_summa_np1 tests/mpi_summa_np2 tests/mpi_summa_np3 tests/mpi_summa_np4 tests/mpi_summa_np5 tests/mpi_summa_np6 tests/mpi_summa_np7 tests/mpi_summa_np14
check_PROGRAMS += $(SUMMA_TESTS)
TESTS += $(SUMMA_TESTS)
tests_mpi_summa_np1_SOURCES = tests/mpi_summa.c tests/tap.h tests/exec_env.h
tests_mpi_summa_np1_LDADD = libfupermod_apps.la $(TEST_LDADD) $(OPENBLAS_LIBS)
tests_mpi_summa_np2_SOURCES = tests/mpi_summa.c tests/tap.h tests/exec_env.h
tests_mpi_summa_np2_LDADD = libfupermod_apps.la $(TEST_LDADD) $(OPENBLAS_LIBS)
tests_mpi_summa_np3_SOURCES = tests/mpi_summa.c tests/tap.h tests/exec_env.h
tests_mpi_summa_np3_LDADD = libfupermod_apps.la $(TEST_LDADD) $(OPENBLAS_LIBS)
tests_mpi_summa_np4_SOURCES = tests/mpi_summa.c tests/tap.h tests/exec_env.h
tests_mpi_summa_np4_LDADD = libfupermod_apps.la $(TEST_LDADD) $(OPENBLAS_LIBS)
tests_mpi_summa_np5_SOURCES = tests/mpi_summa.c tests/tap.h tests/exec_env.h
tests_mpi_summa_np5_LDADD = libfupermod_apps.la $(TEST_LDADD) $(OPENBLAS_LIBS)
tests_mpi_summa_np6_SOURCES = tests/mpi_summa.c tests/tap.h tests/exec_env.h
tests_mpi_summa_np6_LDADD = libfupermod_apps.la $(TEST_LDADD) $(OPENBLAS_LIBS)
tests_mpi_summa_np7_SOURCES = tests/mpi_summa.c tests/tap.h tests/exec_env.h
tests_mpi_summa_np7_LDADD = libfupermod_apps.la $(TEST_LDADD) $(OPENBLAS_LIBS)
tests_mpi_summa_np14_SOURCES = tests/mpi_summa.c tests/tap.h tests/exec_env.h
tests_mpi_summa_np14_LDADD = libfupermod_apps.la $(TEST_LDADD) $(OPENBLAS_LIBS)
# the fupermod-summa driver (a shell test; it starts its own mpirun)
TESTS += tests/summa_driver.sh
EXTRA_DIST += tests/summa_driver.sh
