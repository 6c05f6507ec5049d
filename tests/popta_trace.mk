# POPTA's sub-call trace (partitioners/popta.h) against the paper's worked example (spec 4.1).
check_PROGRAMS += tests/test_popta_trace
TESTS += tests/test_popta_trace
tests_test_popta_trace_SOURCES = tests/test_popta_trace.c tests/tap.h partitioners/popta.h
tests_test_popta_trace_LDADD = $(TEST_LDADD)
