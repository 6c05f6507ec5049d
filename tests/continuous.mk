# Continuous partitioners (even, cpm, geometric, numerical).
check_PROGRAMS += tests/test_continuous
TESTS += tests/test_continuous
tests_test_continuous_SOURCES = tests/test_continuous.c tests/tap.h
tests_test_continuous_LDADD = $(TEST_LDADD)
