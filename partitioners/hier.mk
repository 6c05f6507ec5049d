# Hierarchical partitioning: grouping into nodes, HiPOPTA, INPA with nested IDPA (docs/hierarchical.md).
libfupermod_la_SOURCES += partitioners/hier.c partitioners/hier.h
EXTRA_DIST += docs/hierarchical.md
