# Exact discrete time partitioners (dp, popta, hpopta, balanced) against brute force and dp.
check_PROGRAMS += tests/test_time
TESTS += tests/test_time
tests_test_time_SOURCES = tests/test_time.c tests/tap.h tests/oracle_time.h
tests_test_time_LDADD = $(TEST_LDADD)
check_PROGRAMS += tests/test_hpopta
TESTS += tests/test_hpopta
tests_test_hpopta_SOURCES = tests/test_hpopta.c tests/tap.h tests/oracle_time.h
tests_test_hpopta_LDADD = $(TEST_LDADD)
# The vector kernels' CPU feature query: every bit it asks for, against cpuid and XCR0.
check_PROGRAMS += tests/test_cpu
TESTS += tests/test_cpu
tests_test_cpu_SOURCES = tests/test_cpu.c tests/tap.h
