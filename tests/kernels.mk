# Kernel tests. test_kernels deliberately does not link OpenBLAS: the dgemm kernels must still get
# OpenBLAS when the program's global symbol scope holds GSL's reference CBLAS (kernels/cpu/blas.h).
KERNEL_TESTS = tests/test_kernels
check_PROGRAMS += $(KERNEL_TESTS)
TESTS += $(KERNEL_TESTS) tests/kernels_example.sh
tests_test_kernels_SOURCES = tests/test_kernels.c tests/tap.h
tests_test_kernels_CPPFLAGS = $(AM_CPPFLAGS) $(FFTW3_CFLAGS)
tests_test_kernels_LDADD = $(TEST_LDADD) $(FFTW3_OMP_LIBS) $(FFTW3_LIBS)
EXTRA_DIST += tests/kernels_example.sh
