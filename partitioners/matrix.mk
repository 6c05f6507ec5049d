# Matrix partitioning (docs/matrix.md): layouts, the tiling check and the pieces the column-based
# layouts share (layout.c), KL, BR and 1.5D (layout_kl.c, layout_br.c, layout_15d.c), layout
# files (layout_io.c), fitting a layout's sizes to time models (layout_fit.c), and the
# square-corner layout with pieces and its fit (layout_sc.c).
libfupermod_la_SOURCES += partitioners/matrix.h partitioners/layout_impl.h partitioners/layout.c \
  partitioners/layout_kl.c partitioners/layout_br.c partitioners/layout_15d.c partitioners/layout_io.c \
  partitioners/layout_fit.c partitioners/layout_sc.c
