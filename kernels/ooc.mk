# Out-of-card GPU GEMM (kernels/ooc/ooc.h): libfupermod_ooc holds the slice choice and the stream
# schedule (always built, CPU logic) and the CUDA executor, which reports "no CUDA device" when the
# build or the host has none; the dgemm-ooc kernel plug-in is built with CUDA only.
lib_LTLIBRARIES += libfupermod_ooc.la
libfupermod_ooc_la_SOURCES = kernels/ooc/ooc.h kernels/ooc/ooc_plan.c kernels/ooc/ooc_dgemm.c
libfupermod_ooc_la_CPPFLAGS = $(AM_CPPFLAGS) $(CUDA_CFLAGS)
libfupermod_ooc_la_LIBADD = libfupermod.la $(CUDA_LIBS) $(LIBS)
libfupermod_ooc_la_LDFLAGS = $(AM_LDFLAGS) -version-info 0:0:0
nobase_fupermodinclude_HEADERS += kernels/ooc/ooc.h
libfupermod_ooc_la_CFLAGS = $(LIB_CFLAGS)
if HAVE_CUDA
kernels_LTLIBRARIES += kernels/fupermod_kernel_dgemm-ooc.la
endif
kernels_fupermod_kernel_dgemm_ooc_la_SOURCES = kernels/ooc/dgemm_ooc.c kernels/cpu/common.h
kernels_fupermod_kernel_dgemm_ooc_la_CPPFLAGS = $(AM_CPPFLAGS) $(CUDA_CFLAGS)
kernels_fupermod_kernel_dgemm_ooc_la_LDFLAGS = $(KERNEL_NODELETE_FLAGS)
kernels_fupermod_kernel_dgemm_ooc_la_LIBADD = libfupermod_ooc.la libfupermod.la $(CUDA_LIBS) $(LIBS)

