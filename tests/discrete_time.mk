# Exact discrete time partitioners (dp, popta, hpopta, balanced) against brute force and dp.
check_PROGRAMS += tests/test_time
TESTS += tests/test_time
tests_test_time_SOURCES = tests/test_time.c tests/tap.h tests/oracle_time.h
tests_test_time_LDADD = $(TEST_LDADD)
