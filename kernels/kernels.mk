# Kernels: dlopen-able plug-ins, installed in $(pkglibdir)/kernels.
KERNEL_LINK_FLAGS = -module -avoid-version -shared -rpath $(kernelsdir) $(AM_LDFLAGS)
kernels_LTLIBRARIES += kernels/fupermod_kernel_emulated.la
kernels_fupermod_kernel_emulated_la_SOURCES = kernels/emulated.c
kernels_fupermod_kernel_emulated_la_LDFLAGS = $(KERNEL_LINK_FLAGS)
kernels_fupermod_kernel_emulated_la_LIBADD = libfupermod.la
