# Performance models: cpm, piecewise (fupermod_coarsen), akima, tabulated.
check_PROGRAMS += tests/test_models
TESTS += tests/test_models
tests_test_models_SOURCES = tests/test_models.c tests/tap.h
tests_test_models_LDADD = $(TEST_LDADD)

# Calibration, outliers, balance efficiency and idle reasons (fupermod/calib.h).
check_PROGRAMS += tests/test_calib
TESTS += tests/test_calib
tests_test_calib_SOURCES = tests/test_calib.c tests/tap.h
tests_test_calib_LDADD = $(TEST_LDADD)
