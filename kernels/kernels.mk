# Kernels: dlopen-able plug-ins, installed in $(pkglibdir)/kernels.
KERNEL_LINK_FLAGS = -module -avoid-version -shared -rpath $(kernelsdir) $(AM_LDFLAGS)
kernels_LTLIBRARIES += kernels/fupermod_kernel_emulated.la
kernels_fupermod_kernel_emulated_la_SOURCES = kernels/emulated.c
kernels_fupermod_kernel_emulated_la_LDFLAGS = $(KERNEL_LINK_FLAGS)
kernels_fupermod_kernel_emulated_la_LIBADD = libfupermod.la

# Computational kernels. cblas.h and fftw3.h never share a file (toolchain-pitfalls P1/P2).
# Linking OpenBLAS is not enough against GSL's reference CBLAS (P3): see kernels/cpu/blas.h.
# -z nodelete: unloading a kernel must not unload what holds process-wide state that outlives it
# (fftw_init_threads leaves hooks into libfftw3_omp inside libfftw3; OpenBLAS's thread pool; CUDA).
KERNEL_NODELETE_FLAGS = $(KERNEL_LINK_FLAGS) -Wl,-z,nodelete
kernels_LTLIBRARIES += kernels/fupermod_kernel_dgemm.la kernels/fupermod_kernel_dgemm-rows.la \
  kernels/fupermod_kernel_fft-rows.la kernels/fupermod_kernel_jacobi-rows.la
kernels_fupermod_kernel_dgemm_la_SOURCES = kernels/cpu/dgemm.c kernels/cpu/common.h kernels/cpu/blas.h
kernels_fupermod_kernel_dgemm_la_CPPFLAGS = $(AM_CPPFLAGS) $(OPENBLAS_CFLAGS)
kernels_fupermod_kernel_dgemm_la_LDFLAGS = $(KERNEL_NODELETE_FLAGS)
kernels_fupermod_kernel_dgemm_la_LIBADD = libfupermod.la $(OPENBLAS_LIBS) $(LIBS)
kernels_fupermod_kernel_dgemm_rows_la_SOURCES = kernels/cpu/dgemm_rows.c kernels/cpu/common.h kernels/cpu/blas.h
kernels_fupermod_kernel_dgemm_rows_la_CPPFLAGS = $(AM_CPPFLAGS) $(OPENBLAS_CFLAGS)
kernels_fupermod_kernel_dgemm_rows_la_LDFLAGS = $(KERNEL_NODELETE_FLAGS)
kernels_fupermod_kernel_dgemm_rows_la_LIBADD = libfupermod.la $(OPENBLAS_LIBS) $(LIBS)
kernels_fupermod_kernel_fft_rows_la_SOURCES = kernels/cpu/fft_rows.c kernels/cpu/common.h
kernels_fupermod_kernel_fft_rows_la_CPPFLAGS = $(AM_CPPFLAGS) $(FFTW3_CFLAGS)
kernels_fupermod_kernel_fft_rows_la_LDFLAGS = $(KERNEL_NODELETE_FLAGS)
kernels_fupermod_kernel_fft_rows_la_LIBADD = libfupermod.la $(FFTW3_OMP_LIBS) $(FFTW3_LIBS) $(LIBS)
kernels_fupermod_kernel_jacobi_rows_la_SOURCES = kernels/cpu/jacobi_rows.c kernels/cpu/common.h
kernels_fupermod_kernel_jacobi_rows_la_LDFLAGS = $(KERNEL_LINK_FLAGS)
kernels_fupermod_kernel_jacobi_rows_la_LIBADD = libfupermod.la $(LIBS)

# GPU kernels: dgemm and fft-rows built with KERN_CUDA, computing through a CUDA executor they open
# (fupermod/exec.h), whose module (fupermod/exec.mk) holds all the CUDA code. They build wherever
# the toolkit is found and report "no CUDA device" at run time without a GPU.
if HAVE_CUDA
kernels_LTLIBRARIES += kernels/fupermod_kernel_dgemm-cuda.la kernels/fupermod_kernel_fft-rows-cuda.la
endif
kernels_fupermod_kernel_dgemm_cuda_la_SOURCES = $(kernels_fupermod_kernel_dgemm_la_SOURCES)
kernels_fupermod_kernel_dgemm_cuda_la_CPPFLAGS = $(kernels_fupermod_kernel_dgemm_la_CPPFLAGS) -DKERN_CUDA
kernels_fupermod_kernel_dgemm_cuda_la_LDFLAGS = $(KERNEL_NODELETE_FLAGS)
kernels_fupermod_kernel_dgemm_cuda_la_LIBADD = $(kernels_fupermod_kernel_dgemm_la_LIBADD)
kernels_fupermod_kernel_fft_rows_cuda_la_SOURCES = $(kernels_fupermod_kernel_fft_rows_la_SOURCES)
kernels_fupermod_kernel_fft_rows_cuda_la_CPPFLAGS = $(kernels_fupermod_kernel_fft_rows_la_CPPFLAGS) -DKERN_CUDA
kernels_fupermod_kernel_fft_rows_cuda_la_LDFLAGS = $(KERNEL_NODELETE_FLAGS)
kernels_fupermod_kernel_fft_rows_cuda_la_LIBADD = $(kernels_fupermod_kernel_fft_rows_la_LIBADD)

# The kernel that docs/kernels.md walks through and the program that checks a kernel: installed
# beside the docs, so that an installation alone builds them; tests/kernels_example.sh and
# tests/install.sh build them as a user would.
examplesdir = $(docdir)/examples
dist_examples_DATA = kernels/example/triad.c kernels/example/check.c
include kernels/ooc.mk
