# The stand-in CUDA (tests/fake_cuda, docs/kernels.md "GPU code without a GPU: the stand-in"): the
# CUDA runtime, cuBLAS and cuFFT computing on the host, built with the sonames the GPU modules
# link (libcudart.so.13, libcublas.so.13, libcufft.so.12) into tests/fake_cuda/.libs, which
# tests/standin.sh puts first on LD_LIBRARY_PATH. Built and run wherever the CUDA headers are.
STANDIN_MAPS = tests/fake_cuda/cudart.map tests/fake_cuda/cublas.map tests/fake_cuda/cufft.map
EXTRA_DIST += $(STANDIN_MAPS) tests/fake_cuda/standin.h tests/standin.sh tests/standin_check.h
# Device descriptions for the simulated GPU ($FAKE_CUDA_SIM, docs/kernels.md "A simulated GPU").
STANDIN_DEVICES = tests/fake_cuda/devices/h100.conf tests/fake_cuda/devices/h200.conf \
  tests/fake_cuda/devices/h100.measured
EXTRA_DIST += $(STANDIN_DEVICES)
STANDIN_LDFLAGS = -shared -rpath /nowhere $(AM_LDFLAGS)
# The test programs build everywhere (the sanitizer run takes every tests/test_*.c) and skip,
# saying why, without the CUDA headers.
check_PROGRAMS += tests/test_cuda_standin tests/test_cuda_sim tests/test_cuda_calib tests/test_cuda_kernels \
  tests/test_cuda_heldout
TESTS += tests/test_cuda_standin tests/test_cuda_sim tests/test_cuda_calib tests/test_cuda_kernels tests/test_cuda_heldout
if HAVE_CUDA
check_LTLIBRARIES += tests/fake_cuda/libcudart.la tests/fake_cuda/libcublas.la tests/fake_cuda/libcufft.la
STANDIN_LIBS = tests/fake_cuda/libcufft.la tests/fake_cuda/libcublas.la tests/fake_cuda/libcudart.la
TESTS += tests/standin_ooc.sh tests/standin_kernels.sh tests/standin_summa_hybrid.sh
TESTS += tests/standin_gpunode.sh
else
STANDIN_LIBS =
endif
EXTRA_DIST += tests/standin_ooc.sh tests/standin_kernels.sh tests/standin_summa_hybrid.sh tests/standin_gpunode.sh
tests_fake_cuda_libcudart_la_SOURCES = tests/fake_cuda/cudart.c tests/fake_cuda/standin.h
tests_fake_cuda_libcudart_la_CPPFLAGS = $(AM_CPPFLAGS) $(CUDA_CFLAGS) \
  -DSTANDIN_DEVICES='"$(abs_top_srcdir)/tests/fake_cuda/devices"'
tests_fake_cuda_libcudart_la_LDFLAGS = $(STANDIN_LDFLAGS) -version-info 13:0:0 \
  -Wl,--version-script=$(srcdir)/tests/fake_cuda/cudart.map
tests_fake_cuda_libcudart_la_LIBADD = -lm -lpthread
EXTRA_tests_fake_cuda_libcudart_la_DEPENDENCIES = tests/fake_cuda/cudart.map
tests_fake_cuda_libcublas_la_SOURCES = tests/fake_cuda/cublas.c tests/fake_cuda/standin.h kernels/cpu/blas.h
tests_fake_cuda_libcublas_la_CPPFLAGS = $(AM_CPPFLAGS) $(CUDA_CFLAGS) $(OPENBLAS_CFLAGS)
tests_fake_cuda_libcublas_la_LDFLAGS = $(STANDIN_LDFLAGS) -version-info 13:0:0 \
  -Wl,--version-script=$(srcdir)/tests/fake_cuda/cublas.map
tests_fake_cuda_libcublas_la_LIBADD = tests/fake_cuda/libcudart.la $(OPENBLAS_LIBS) -ldl -lpthread
EXTRA_tests_fake_cuda_libcublas_la_DEPENDENCIES = tests/fake_cuda/cublas.map
tests_fake_cuda_libcufft_la_SOURCES = tests/fake_cuda/cufft.c tests/fake_cuda/standin.h
tests_fake_cuda_libcufft_la_CPPFLAGS = $(AM_CPPFLAGS) $(CUDA_CFLAGS) $(FFTW3_CFLAGS)
tests_fake_cuda_libcufft_la_LDFLAGS = $(STANDIN_LDFLAGS) -version-info 12:0:0 \
  -Wl,--version-script=$(srcdir)/tests/fake_cuda/cufft.map
tests_fake_cuda_libcufft_la_LIBADD = tests/fake_cuda/libcudart.la $(FFTW3_LIBS) -lm -lpthread
EXTRA_tests_fake_cuda_libcufft_la_DEPENDENCIES = tests/fake_cuda/cufft.map
# The stand-in's own semantics; linked with the stand-in itself, never with a real CUDA.
tests_test_cuda_standin_SOURCES = tests/test_cuda_standin.c tests/tap.h tests/standin_check.h
tests_test_cuda_standin_CPPFLAGS = $(AM_CPPFLAGS) $(CUDA_CFLAGS)
tests_test_cuda_standin_LDADD = $(STANDIN_LIBS) $(TEST_LDADD) -ldl -lpthread
# The simulated GPU's virtual clock ($FAKE_CUDA_SIM=h100), no-payload, adversarial and strict modes.
tests_test_cuda_sim_SOURCES = tests/test_cuda_sim.c tests/tap.h tests/standin_check.h
tests_test_cuda_sim_CPPFLAGS = $(AM_CPPFLAGS) $(CUDA_CFLAGS)
tests_test_cuda_sim_LDADD = $(STANDIN_LIBS) $(TEST_LDADD) -ldl -lpthread
# The simulated H100 against the H100's measured figures, through fupermod's CUDA executor.
tests_test_cuda_calib_SOURCES = tests/test_cuda_calib.c tests/tap.h tests/standin_check.h
tests_test_cuda_calib_CPPFLAGS = $(AM_CPPFLAGS) $(CUDA_CFLAGS)
tests_test_cuda_calib_LDADD = $(STANDIN_LIBS) $(TEST_LDADD) -ldl -lpthread
# The simulated H100 refitted on its calibration rows and judged on its held-out rows
# (tests/fake_cuda/devices/h100.measured), the out-of-card rows with the plan of libfupermod_ooc.
tests_test_cuda_heldout_SOURCES = tests/test_cuda_heldout.c tests/tap.h tests/standin_check.h tests/fake_cuda/standin.h
tests_test_cuda_heldout_CPPFLAGS = $(AM_CPPFLAGS) $(CUDA_CFLAGS) \
  -DSTANDIN_DEVICES='"$(abs_top_srcdir)/tests/fake_cuda/devices"'
tests_test_cuda_heldout_LDADD = $(STANDIN_LIBS) libfupermod_ooc.la $(TEST_LDADD) -ldl -lpthread
# Today's GPU kernels and out-of-card executor on two stand-in devices with small memories.
tests_test_cuda_kernels_SOURCES = tests/test_cuda_kernels.c tests/tap.h tests/standin_check.h
tests_test_cuda_kernels_CPPFLAGS = $(AM_CPPFLAGS) $(CUDA_CFLAGS)
tests_test_cuda_kernels_LDADD = $(STANDIN_LIBS) libfupermod_ooc.la $(TEST_LDADD) -ldl -lpthread
# SUMMA on one simulated H100 through the CUDA executor, against its bound.
check_PROGRAMS += tests/mpi_sim_gpu_np1
TESTS += tests/mpi_sim_gpu_np1
tests_mpi_sim_gpu_np1_SOURCES = tests/mpi_sim_gpu.c tests/tap.h tests/standin_check.h
tests_mpi_sim_gpu_np1_CPPFLAGS = $(AM_CPPFLAGS) $(CUDA_CFLAGS)
tests_mpi_sim_gpu_np1_LDADD = $(STANDIN_LIBS) libfupermod_apps.la $(TEST_LDADD) $(OPENBLAS_LIBS) -ldl -lpthread
# The CUDA executor's device memory in one budget (plans, work area, buffers) on a small stand-in GPU.
check_PROGRAMS += tests/test_cuda_memory
TESTS += tests/test_cuda_memory
tests_test_cuda_memory_SOURCES = tests/test_cuda_memory.c tests/tap.h tests/standin_check.h
tests_test_cuda_memory_CPPFLAGS = $(AM_CPPFLAGS) $(CUDA_CFLAGS)
tests_test_cuda_memory_LDADD = $(STANDIN_LIBS) $(TEST_LDADD) -ldl -lpthread -lm
# The CUDA executor's FFTs: the 2D-FFT's column phase in few cuFFT launches; 64-bit cuFFT sizes.
check_PROGRAMS += tests/test_cuda_fft
TESTS += tests/test_cuda_fft
tests_test_cuda_fft_SOURCES = tests/test_cuda_fft.c tests/tap.h tests/standin_check.h
tests_test_cuda_fft_CPPFLAGS = $(AM_CPPFLAGS) $(CUDA_CFLAGS)
tests_test_cuda_fft_LDADD = $(STANDIN_LIBS) $(TEST_LDADD) -ldl -lpthread -lm
