# Out-of-card GPU GEMM (kernels/ooc/ooc.h): libfupermod_ooc holds the slice choice, the stream
# schedule and the contexts, and links no CUDA library; the CUDA executor is the module
# fupermod_ooc_cuda.so in the kernel directory, loaded on the first context that has a device.
# Module and dgemm-ooc kernel plug-in are built with CUDA only.
lib_LTLIBRARIES += libfupermod_ooc.la
libfupermod_ooc_la_SOURCES = kernels/ooc/ooc.h kernels/ooc/ooc_plan.c kernels/ooc/ooc_load.c kernels/ooc/ooc_module.h
libfupermod_ooc_la_LIBADD = libfupermod.la $(LIBS)
libfupermod_ooc_la_LDFLAGS = $(AM_LDFLAGS) -version-info 0:0:0
nobase_fupermodinclude_HEADERS += kernels/ooc/ooc.h
libfupermod_ooc_la_CFLAGS = $(LIB_CFLAGS)
if HAVE_CUDA
kernels_LTLIBRARIES += kernels/fupermod_ooc_cuda.la kernels/fupermod_kernel_dgemm-ooc.la
endif
kernels_fupermod_ooc_cuda_la_SOURCES = kernels/ooc/ooc_dgemm.c kernels/ooc/ooc_module.h kernels/cuda/device.h
kernels_fupermod_ooc_cuda_la_CPPFLAGS = $(AM_CPPFLAGS) $(CUDA_CFLAGS)
kernels_fupermod_ooc_cuda_la_CFLAGS = $(LIB_CFLAGS)
kernels_fupermod_ooc_cuda_la_LDFLAGS = $(KERNEL_NODELETE_FLAGS)
kernels_fupermod_ooc_cuda_la_LIBADD = libfupermod_ooc.la libfupermod.la $(CUDA_LIBS) $(LIBS)
kernels_fupermod_kernel_dgemm_ooc_la_SOURCES = kernels/ooc/dgemm_ooc.c kernels/cpu/common.h kernels/cuda/device.h
kernels_fupermod_kernel_dgemm_ooc_la_CPPFLAGS = $(AM_CPPFLAGS) $(CUDA_CFLAGS)
kernels_fupermod_kernel_dgemm_ooc_la_LDFLAGS = $(KERNEL_NODELETE_FLAGS)
kernels_fupermod_kernel_dgemm_ooc_la_LIBADD = libfupermod_ooc.la libfupermod.la $(CUDA_LIBS) $(LIBS)
