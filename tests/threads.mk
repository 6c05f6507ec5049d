# Threads and MPI: thread levels (MPI_THREAD_SINGLE on purpose), plug-ins restoring global state.
THREAD_TESTS = tests/mpi_thread_np1 tests/mpi_thread_np3
check_PROGRAMS += $(THREAD_TESTS)
TESTS += $(THREAD_TESTS)
tests_mpi_thread_np1_SOURCES = tests/mpi_thread.c tests/tap.h
tests_mpi_thread_np1_LDADD = $(TEST_LDADD)
tests_mpi_thread_np3_SOURCES = tests/mpi_thread.c tests/tap.h
tests_mpi_thread_np3_LDADD = $(TEST_LDADD)
check_PROGRAMS += tests/test_kernel_state
TESTS += tests/test_kernel_state
tests_test_kernel_state_SOURCES = tests/test_kernel_state.c tests/tap.h
tests_test_kernel_state_CPPFLAGS = $(AM_CPPFLAGS) $(OPENBLAS_CFLAGS) $(FFTW3_CFLAGS)
tests_test_kernel_state_LDADD = $(TEST_LDADD) $(OPENBLAS_LIBS) $(FFTW3_OMP_LIBS) $(FFTW3_LIBS)
TESTS += tests/threads_mpi_levels.sh
EXTRA_DIST += tests/threads_mpi_levels.sh
