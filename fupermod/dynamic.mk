# Dynamic partitioning and load balancing (fupermod/dynamic.h, docs/dynamic.md).
libfupermod_la_SOURCES += fupermod/dynamic.c
