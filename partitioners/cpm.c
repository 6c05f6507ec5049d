/* CPM partitioning (Clarke 2014, eq. 2.5): d_i proportional to constant speeds s_i.
 * Each model's speed is taken at x = D/p, the even share: CPM models are constant, and for
 * any other model this is the speed a one-point benchmark at the starting distribution sees. */
#include <math.h>
#include <stdlib.h>
#include "partitioners/continuous.h"
#include "partitioners/partitioners.h"

static int cpm_partition(int size, fupermod_model **models, fupermod_dist *dist) {
  double *x, sum = 0.0, a;
  int rc = fupermod_continuous_check("cpm", size, models, dist);
  if (rc != FUPERMOD_SUCCESS) return rc;
  if (!(x = calloc((size_t)size, sizeof *x))) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  a = (double)dist->D / size;
  if (dist->D > 0) {
    for (int i = 0; i < size && rc == FUPERMOD_SUCCESS; i++) {
      rc = fupermod_continuous_speed(models[i], i, a, &x[i]);
      sum += x[i];
    }
    if (rc == FUPERMOD_SUCCESS && !isfinite(sum))
      rc = fupermod_error(FUPERMOD_ERR_NUMERIC, "the sum of the speeds overflows");
    for (int i = 0; i < size && rc == FUPERMOD_SUCCESS; i++) x[i] = (double)dist->D * x[i] / sum;
  }
  if (rc == FUPERMOD_SUCCESS) rc = fupermod_continuous_finish(dist, models, x);
  free(x);
  return rc != FUPERMOD_SUCCESS ? fupermod_error_prefix(rc, "cpm") : rc;
}

const fupermod_partitioner fupermod_partitioner_cpm = {
    .name = "cpm",
    .description = "constant performance models: d_i proportional to the speed at D/p (eq. 2.5)",
    .kind = FUPERMOD_PART_CONTINUOUS,
    .model_type = "piecewise", /* from full point files: the speeds at D/p */
    .continuous = cpm_partition,
};
