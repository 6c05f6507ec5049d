# Continuous (FuPerMod-family) partitioners: even, cpm, geometric (GPA), numerical (NPA).
libfupermod_core_la_SOURCES += \
  partitioners/continuous.h partitioners/continuous.c \
  partitioners/even.c partitioners/cpm.c partitioners/geometric.c partitioners/numerical.c
