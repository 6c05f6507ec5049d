# Exact discrete time partitioners (dp also serves energy and, through dp_pareto.c, Pareto fronts).
libfupermod_core_la_SOURCES += partitioners/time_common.c partitioners/time_common.h \
  partitioners/cpu.h partitioners/dp.c partitioners/popta.c partitioners/hpopta.c partitioners/hpopta.h \
  partitioners/hpopta_prune.c partitioners/hpopta_prune.h \
  partitioners/balanced.c
