/* Internal to the matrix layouts (layout*.c): the limits and the shared pieces of the
 * column-based layouts (KL, BR). Not installed; the symbols are hidden from the shared library. */
#ifndef FUPERMOD_LAYOUT_IMPL_H
#define FUPERMOD_LAYOUT_IMPL_H

#include "partitioners/matrix.h"

#ifndef FUPERMOD_INTERNAL
#define FUPERMOD_INTERNAL __attribute__((visibility("hidden")))
#endif

#define FUPERMOD_LAYOUT_P_MAX 10000000

/* Validate areas (alg names the layout in messages) and return their sum in *total. */
FUPERMOD_INTERNAL int fupermod_lay_check_areas(const char *alg, const double *areas, int p, int M, int N,
                                               double *total);
/* Whether two non-empty rectangles of r[0..n) overlap: *x < *y their indices, or both -1. */
FUPERMOD_INTERNAL int fupermod_lay_overlap(const fupermod_rect *r, int n, int *x, int *y);
/* Lay out columns: column j holds members[start[j] .. start[j+1]) top to bottom, with real
 * width share w[j] (sum 1) and real height shares h[k] (sum 1 within the column). */
FUPERMOD_INTERNAL int fupermod_lay_place_columns(int c, const int *start, const int *members, const double *w,
                                                 const double *h, fupermod_layout *l);

#endif
