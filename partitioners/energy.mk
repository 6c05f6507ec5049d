# Exact energy and Pareto partitioners (eopta, heopta, aleph, hepopta, htpopta) and the Pareto DP.
libfupermod_core_la_SOURCES += \
  partitioners/energy_common.h partitioners/energy_common.c partitioners/dp_pareto.c \
  partitioners/eopta.c partitioners/heopta.c partitioners/aleph.c partitioners/hepopta.c \
  partitioners/htpopta.c
