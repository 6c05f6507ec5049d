# Matrix partitioning: column-based 2D layouts (KL, BR, 1.5D), tiling check, layout files.
libfupermod_la_SOURCES += partitioners/matrix.c partitioners/matrix.h
