# Threads and MPI: thread levels (MPI_THREAD_SINGLE on purpose), plug-ins restoring global state.
THREAD_TESTS = tests/mpi_thread_np1 tests/mpi_thread_np3
check_PROGRAMS += $(THREAD_TESTS)
TESTS += $(THREAD_TESTS)
tests_mpi_thread_np1_SOURCES = tests/mpi_thread.c tests/tap.h
tests_mpi_thread_np1_LDADD = $(TEST_LDADD)
tests_mpi_thread_np3_SOURCES = tests/mpi_thread.c tests/tap.h
tests_mpi_thread_np3_LDADD = $(TEST_LDADD)
TESTS += tests/threads_mpi_levels.sh
EXTRA_DIST += tests/threads_mpi_levels.sh
