# Hybrid SUMMA (apps/summa_hybrid.c): node rectangles cut into per-device column slices, CPU
# devices on OpenBLAS, GPU devices through the out-of-card GEMM; driver fupermod-summa-hybrid.
libfupermod_apps_la_SOURCES += apps/summa_hybrid.c apps/summa_hybrid.h
libfupermod_apps_la_LIBADD += libfupermod_ooc.la
bin_PROGRAMS += apps/fupermod-summa-hybrid
apps_fupermod_summa_hybrid_SOURCES = apps/summa_hybrid_main.c
apps_fupermod_summa_hybrid_LDADD = libfupermod_apps.la libfupermod_ooc.la libfupermod.la $(OPENBLAS_LIBS) $(LIBS)
