# Performance models (docs/models.md): one file per type, private helpers in model_common.h.
libfupermod_core_la_SOURCES += fupermod/model_common.h fupermod/model_cpm.c fupermod/model_piecewise.c \
  fupermod/model_akima.c fupermod/model_tabulated.c fupermod/model_set.c
# calibration, outlying repetitions, balance (fupermod/calib.h, installed)
libfupermod_core_la_SOURCES += fupermod/calib.c
fupermodinclude_HEADERS += fupermod/calib.h
