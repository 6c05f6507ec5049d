# Executors (fupermod/exec.h): the CPU device here, the CUDA one a module (kernels/kernels.mk).
# cblas.h and fftw3.h in separate files (toolchain pitfalls P1, P2).
libfupermod_la_SOURCES += fupermod/exec.c fupermod/exec_impl.h fupermod/exec_blas.c fupermod/exec_fft.c
libfupermod_la_CPPFLAGS = $(AM_CPPFLAGS) $(OPENBLAS_CFLAGS) $(FFTW3_CFLAGS)
libfupermod_la_LIBADD += $(FFTW3_OMP_LIBS) $(FFTW3_LIBS)
fupermodinclude_HEADERS += fupermod/exec.h
