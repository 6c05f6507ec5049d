# Exact energy and Pareto partitioners: brute-force and DP oracles, golden vectors.
check_PROGRAMS += tests/test_energy
TESTS += tests/test_energy
tests_test_energy_SOURCES = tests/test_energy.c tests/tap.h
tests_test_energy_LDADD = $(TEST_LDADD)
