# Performance models: cpm, piecewise (fupermod_coarsen), akima, tabulated.
check_PROGRAMS += tests/test_models
TESTS += tests/test_models
tests_test_models_SOURCES = tests/test_models.c tests/tap.h
tests_test_models_LDADD = $(TEST_LDADD)
