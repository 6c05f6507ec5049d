# Exact discrete time partitioners (dp also serves energy and, through dp_pareto.c, Pareto fronts).
libfupermod_core_la_SOURCES += partitioners/time_common.c partitioners/time_common.h \
  partitioners/cpu.h partitioners/dp.c partitioners/popta.c partitioners/hpopta.c partitioners/hpopta.h \
  partitioners/hpopta_prune.c partitioners/hpopta_prune.h \
  partitioners/balanced.c partitioners/whole.c partitioners/whole.h
# whole.h is public: installed as <fupermod/partitioners/whole.h>, like partitioners.h
nobase_fupermodinclude_HEADERS += partitioners/whole.h
