# PARALEPH: the same test program under 1..4 ranks (tests/run.sh runs mpi_*_npN with mpirun -np N).
PARALEPH_TESTS = tests/mpi_paraleph_np1 tests/mpi_paraleph_np2 tests/mpi_paraleph_np3 \
  tests/mpi_paraleph_np4
check_PROGRAMS += $(PARALEPH_TESTS)
TESTS += $(PARALEPH_TESTS)
tests_mpi_paraleph_np1_SOURCES = tests/mpi_paraleph.c tests/tap.h
tests_mpi_paraleph_np1_LDADD = $(TEST_LDADD)
tests_mpi_paraleph_np2_SOURCES = tests/mpi_paraleph.c tests/tap.h
tests_mpi_paraleph_np2_LDADD = $(TEST_LDADD)
tests_mpi_paraleph_np3_SOURCES = tests/mpi_paraleph.c tests/tap.h
tests_mpi_paraleph_np3_LDADD = $(TEST_LDADD)
tests_mpi_paraleph_np4_SOURCES = tests/mpi_paraleph.c tests/tap.h
tests_mpi_paraleph_np4_LDADD = $(TEST_LDADD)
