# Continuous (FuPerMod-family) partitioners: even, cpm, geometric (GPA), numerical (NPA).
libfupermod_la_SOURCES += \
  partitioners/continuous.h partitioners/continuous.c \
  partitioners/even.c partitioners/cpm.c partitioners/geometric.c partitioners/numerical.c
