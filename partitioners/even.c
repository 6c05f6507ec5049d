/* Even (load-equal) partitioning: D/p each, the remainder one unit each to the lower ranks.
 * The models only predict the times. */
#include "partitioners/continuous.h"
#include "partitioners/partitioners.h"

static int even_partition(int size, fupermod_model **models, fupermod_dist *dist) {
  int rc = fupermod_continuous_check("even", size, models, dist);
  if (rc != FUPERMOD_SUCCESS) return rc;
  /* integer arithmetic: no rounding question at all */
  for (int i = 0; i < size; i++)
    dist->parts[i].d = dist->D / size + (i < dist->D % size ? 1 : 0);
  return fupermod_dist_predict(dist, models);
}

const fupermod_partitioner fupermod_partitioner_even = {
    .name = "even",
    .description = "load-equal: D/p units each, the remainder to the lower ranks",
    .kind = FUPERMOD_PART_CONTINUOUS,
    .model_type = "cpm",
    .continuous = even_partition,
};
