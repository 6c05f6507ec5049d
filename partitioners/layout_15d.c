/* 1.5D layout (docs/matrix.md): areas from a partitioner, then the BR layout. */
#include <stdlib.h>
#include "partitioners/layout_impl.h"

int fupermod_layout_15d(fupermod_partition partition, int p, fupermod_model **models, int M, int N,
                        fupermod_dist *dist, fupermod_layout **out) {
  fupermod_dist *d = dist;
  double *areas = NULL;
  int rc;
  long D;
  if (!out) return fupermod_error(FUPERMOD_ERR_USAGE, "1.5d layout: out is NULL");
  *out = NULL;
  if (!partition) return fupermod_error(FUPERMOD_ERR_USAGE, "1.5d layout: partition is NULL");
  if (!models) return fupermod_error(FUPERMOD_ERR_USAGE, "1.5d layout: models is NULL");
  if (p < 1 || p > FUPERMOD_LAYOUT_P_MAX)
    return fupermod_error(FUPERMOD_ERR_USAGE, "1.5d layout: number of processes p = %d (must be 1..%d)", p,
                          FUPERMOD_LAYOUT_P_MAX);
  if (M < 1 || N < 1)
    return fupermod_error(FUPERMOD_ERR_USAGE, "1.5d layout: matrix of M = %d by N = %d blocks (both must be >= 1)",
                          M, N);
  D = (long)M * N;
  if (d) {
    if (d->D != D || d->size != p || !d->parts)
      return fupermod_error(FUPERMOD_ERR_USAGE,
                            "1.5d layout: dist has D = %ld, size = %d (must be D = M*N = %ld, size = p = %d)", d->D,
                            d->size, D, p);
  } else if (!(d = fupermod_dist_alloc(D, p))) {
    return fupermod_error(FUPERMOD_ERR_NOMEM, "1.5d layout: out of memory");
  }
  if ((rc = partition(p, models, d)) != FUPERMOD_SUCCESS) {
    fupermod_error_prefix(rc, "1.5d layout");
    goto done;
  }
  if (!(areas = malloc((size_t)p * sizeof *areas))) {
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "1.5d layout: out of memory");
    goto done;
  }
  {
    long sum = 0;
    for (int i = 0; i < p; i++) {
      if (d->parts[i].d < 0) {
        rc = fupermod_error(FUPERMOD_ERR_NUMERIC, "1.5d layout: the partitioner gave process %d a negative area %ld",
                            i, d->parts[i].d);
        goto done;
      }
      sum += d->parts[i].d;
      areas[i] = (double)d->parts[i].d;
    }
    if (sum != D) {
      rc = fupermod_error(FUPERMOD_ERR_NUMERIC, "1.5d layout: the partitioner's areas sum to %ld, not M*N = %ld", sum,
                          D);
      goto done;
    }
  }
  rc = fupermod_layout_br(areas, p, 0, M, N, out);
done:
  free(areas);
  if (d != dist) fupermod_dist_free(d);
  return rc;
}
