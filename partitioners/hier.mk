# Hierarchical partitioning (docs/hierarchical.md): the hierarchy (hier_comm.c), HiPOPTA
# (hipopta.c), HiSCALE for time (hier_scale.c) and energy (hier_scale_energy.c), IDPA (idpa.c)
# and INPA with nested IDPA (inpa.c).
libfupermod_la_SOURCES += partitioners/hier.h partitioners/hier_comm.c partitioners/hipopta.c \
  partitioners/hier_scale_impl.h partitioners/hier_scale.c partitioners/hier_scale_energy.c \
  partitioners/idpa.c partitioners/inpa.c
EXTRA_DIST += docs/hierarchical.md
