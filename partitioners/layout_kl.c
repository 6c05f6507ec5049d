/* KL layout (docs/matrix.md): processes in columns of given sizes, widths and heights
 * proportional to the areas. */
#include <math.h>
#include <stdlib.h>
#include "partitioners/layout_impl.h"

int fupermod_layout_kl(const double *areas, int p, int ncols, const int *col_sizes, int M, int N,
                       fupermod_layout **out) {
  double total, *w = NULL, *h = NULL;
  int *start = NULL, *members = NULL, rc;
  fupermod_layout *l = NULL;
  if (!out) return fupermod_error(FUPERMOD_ERR_USAGE, "kl layout: out is NULL");
  *out = NULL;
  if ((rc = fupermod_lay_check_areas("kl", areas, p, M, N, &total)) != FUPERMOD_SUCCESS) return rc;
  if (ncols <= 0) {
    if (col_sizes) return fupermod_error(FUPERMOD_ERR_USAGE, "kl layout: col_sizes given without ncols");
    ncols = (int)floor(sqrt((double)p) + 0.5);
  }
  if (ncols > p)
    return fupermod_error(FUPERMOD_ERR_USAGE, "kl layout: ncols = %d exceeds the %d processes", ncols, p);
  if (col_sizes) {
    long s = 0;
    for (int j = 0; j < ncols; j++) {
      if (col_sizes[j] < 1)
        return fupermod_error(FUPERMOD_ERR_USAGE, "kl layout: col_sizes[%d] = %d (must be >= 1)", j, col_sizes[j]);
      s += col_sizes[j];
    }
    if (s != p)
      return fupermod_error(FUPERMOD_ERR_USAGE, "kl layout: col_sizes sum to %ld, not p = %d", s, p);
  }
  if ((rc = fupermod_layout_alloc(p, M, N, &l)) != FUPERMOD_SUCCESS) return rc;
  start = malloc((size_t)(ncols + 1) * sizeof *start);
  members = malloc((size_t)p * sizeof *members);
  w = malloc((size_t)ncols * sizeof *w);
  h = malloc((size_t)p * sizeof *h);
  if (!start || !members || !w || !h) {
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "kl layout: out of memory");
    goto done;
  }
  start[0] = 0;
  for (int j = 0; j < ncols; j++)
    start[j + 1] = start[j] + (col_sizes ? col_sizes[j] : p / ncols + (j < p % ncols));
  for (int i = 0; i < p; i++) members[i] = i;
  for (int j = 0; j < ncols; j++) {
    double s = 0.0;
    for (int k = start[j]; k < start[j + 1]; k++) s += areas[k];
    w[j] = s / total;
    for (int k = start[j]; k < start[j + 1]; k++) h[k] = s > 0.0 ? areas[k] / s : 0.0;
  }
  rc = fupermod_lay_place_columns(ncols, start, members, w, h, l);
done:
  free(start);
  free(members);
  free(w);
  free(h);
  if (rc == FUPERMOD_SUCCESS) *out = l;
  else fupermod_layout_free(l);
  return rc;
}
