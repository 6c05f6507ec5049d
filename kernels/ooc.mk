# Out-of-card GPU GEMM (kernels/ooc/ooc.h): libfupermod_ooc holds the thesis's slice choice and
# stream schedule, and contexts over a CUDA executor (fupermod/exec.h); it links no CUDA library.
# The dgemm-ooc kernel plug-in computes through the executor too, and is built with CUDA only.
lib_LTLIBRARIES += libfupermod_ooc.la
libfupermod_ooc_la_SOURCES = kernels/ooc/ooc.h kernels/ooc/ooc_plan.c kernels/ooc/ooc_load.c
libfupermod_ooc_la_LIBADD = libfupermod.la $(LIBS)
libfupermod_ooc_la_LDFLAGS = $(AM_LDFLAGS) -version-info 1:0:0
nobase_fupermodinclude_HEADERS += kernels/ooc/ooc.h
libfupermod_ooc_la_CFLAGS = $(LIB_CFLAGS)
if HAVE_CUDA
kernels_LTLIBRARIES += kernels/fupermod_kernel_dgemm-ooc.la
endif
kernels_fupermod_kernel_dgemm_ooc_la_SOURCES = kernels/ooc/dgemm_ooc.c kernels/cpu/common.h
kernels_fupermod_kernel_dgemm_ooc_la_LDFLAGS = $(KERNEL_NODELETE_FLAGS)
kernels_fupermod_kernel_dgemm_ooc_la_LIBADD = libfupermod.la $(LIBS)
