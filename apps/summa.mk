# Heterogeneous SUMMA (apps/summa.c) and its driver fupermod-summa; the messages on a layout with
# pieces (apps/summa_pieces.c), which apps/model.c prices.
libfupermod_apps_la_SOURCES += apps/summa.c apps/summa.h apps/summa_pieces.c apps/summa_pieces.h
bin_PROGRAMS += apps/fupermod-summa
apps_fupermod_summa_SOURCES = apps/summa_main.c
apps_fupermod_summa_LDADD = libfupermod_driver.la libfupermod_apps.la libfupermod.la $(SCALAPACK_LIBS) \
  $(OPENBLAS_LIBS) $(LIBS)
