# Hybrid SUMMA (apps/summa_hybrid.c): node rectangles cut into per-device column slices, each
# device computing through its executor in the one SUMMA; driver fupermod-summa-hybrid.
libfupermod_apps_la_SOURCES += apps/summa_hybrid.c apps/summa_hybrid.h
bin_PROGRAMS += apps/fupermod-summa-hybrid
apps_fupermod_summa_hybrid_SOURCES = apps/summa_hybrid_main.c
apps_fupermod_summa_hybrid_LDADD = libfupermod_driver.la libfupermod_apps.la libfupermod.la $(OPENBLAS_LIBS) $(LIBS)
