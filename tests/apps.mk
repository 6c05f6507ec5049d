# Application tests: the 2D FFT on 1..4 processes, Jacobi with dynamic load balancing.
APPS_TEST_LIBS = libfupermod_apps.la $(TEST_LDADD) $(FFTW3_OMP_LIBS) $(FFTW3_LIBS)
APPS_TESTS = tests/test_app_model tests/mpi_fft2d_np1 tests/mpi_fft2d_np2 tests/mpi_fft2d_np3 tests/mpi_fft2d_np4 \
  tests/mpi_jacobi_np2 tests/mpi_jacobi_np3
check_PROGRAMS += $(APPS_TESTS)
TESTS += $(APPS_TESTS) tests/apps_drivers.sh tests/apps_record.sh
EXTRA_DIST += tests/apps_drivers.sh tests/apps_record.sh
tests_test_app_model_SOURCES = tests/test_app_model.c tests/tap.h
tests_test_app_model_LDADD = $(APPS_TEST_LIBS)
tests_mpi_fft2d_np1_SOURCES = tests/mpi_fft2d.c tests/tap.h tests/exec_env.h
tests_mpi_fft2d_np1_CPPFLAGS = $(AM_CPPFLAGS) $(FFTW3_CFLAGS)
tests_mpi_fft2d_np1_LDADD = $(APPS_TEST_LIBS)
tests_mpi_fft2d_np2_SOURCES = $(tests_mpi_fft2d_np1_SOURCES)
tests_mpi_fft2d_np2_CPPFLAGS = $(tests_mpi_fft2d_np1_CPPFLAGS)
tests_mpi_fft2d_np2_LDADD = $(APPS_TEST_LIBS)
tests_mpi_fft2d_np3_SOURCES = $(tests_mpi_fft2d_np1_SOURCES)
tests_mpi_fft2d_np3_CPPFLAGS = $(tests_mpi_fft2d_np1_CPPFLAGS)
tests_mpi_fft2d_np3_LDADD = $(APPS_TEST_LIBS)
tests_mpi_fft2d_np4_SOURCES = $(tests_mpi_fft2d_np1_SOURCES)
tests_mpi_fft2d_np4_CPPFLAGS = $(tests_mpi_fft2d_np1_CPPFLAGS)
tests_mpi_fft2d_np4_LDADD = $(APPS_TEST_LIBS)
tests_mpi_jacobi_np2_SOURCES = tests/mpi_jacobi.c tests/tap.h
tests_mpi_jacobi_np2_LDADD = $(APPS_TEST_LIBS)
tests_mpi_jacobi_np3_SOURCES = $(tests_mpi_jacobi_np2_SOURCES)
tests_mpi_jacobi_np3_LDADD = $(APPS_TEST_LIBS)
