# Executors (fupermod/exec.h): the CPU device in libfupermod; the CUDA one is the module
# fupermod_exec_cuda.so in the kernel directory, which libfupermod loads on the first GPU executor:
# the only code that calls CUDA, cuBLAS and cuFFT, plain C over their host APIs (no nvcc behind
# libtool, P11), built wherever the toolkit is found.
# cblas.h and fftw3.h in separate files (toolchain pitfalls P1, P2).
libfupermod_la_SOURCES += fupermod/exec.c fupermod/exec_impl.h fupermod/exec_blas.c fupermod/exec_fft.c
libfupermod_la_CPPFLAGS = $(AM_CPPFLAGS) $(OPENBLAS_CFLAGS) $(FFTW3_CFLAGS)
libfupermod_la_LIBADD += $(FFTW3_OMP_LIBS) $(FFTW3_LIBS)
fupermodinclude_HEADERS += fupermod/exec.h
if HAVE_CUDA
kernels_LTLIBRARIES += kernels/fupermod_exec_cuda.la kernels/fupermod_cuda_probe.la
endif
# The probe links the CUDA runtime alone (device counts and PCI ids without mapping cuBLAS).
kernels_fupermod_cuda_probe_la_SOURCES = fupermod/cuda/probe.c fupermod/exec_impl.h
kernels_fupermod_cuda_probe_la_CPPFLAGS = $(AM_CPPFLAGS) $(CUDA_CFLAGS)
kernels_fupermod_cuda_probe_la_CFLAGS = $(LIB_CFLAGS)
kernels_fupermod_cuda_probe_la_LDFLAGS = $(KERNEL_NODELETE_FLAGS)
kernels_fupermod_cuda_probe_la_LIBADD = $(CUDART_LIBS)
kernels_fupermod_exec_cuda_la_SOURCES = fupermod/cuda/exec_cuda.c fupermod/cuda/device.h fupermod/exec_impl.h
kernels_fupermod_exec_cuda_la_CPPFLAGS = $(AM_CPPFLAGS) $(CUDA_CFLAGS)
kernels_fupermod_exec_cuda_la_CFLAGS = $(LIB_CFLAGS)
kernels_fupermod_exec_cuda_la_LDFLAGS = $(KERNEL_NODELETE_FLAGS)
kernels_fupermod_exec_cuda_la_LIBADD = libfupermod.la $(CUDA_LIBS) $(LIBS)
