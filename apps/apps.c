#include "apps/apps.h"

int fupermod_dist_offsets(const fupermod_dist *dist, long *offsets) {
  if (!dist || !offsets) return fupermod_error(FUPERMOD_ERR_USAGE, "dist offsets: NULL argument");
  offsets[0] = 0;
  for (int i = 0; i < dist->size; i++) {
    if (dist->parts[i].d < 0)
      return fupermod_error(FUPERMOD_ERR_INPUT, "distribution part %d is negative (%ld)", i, dist->parts[i].d);
    offsets[i + 1] = offsets[i] + dist->parts[i].d;
  }
  return FUPERMOD_SUCCESS;
}
