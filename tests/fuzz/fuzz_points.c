/* libFuzzer target: the point-file parser must accept or reject any input without a crash,
 * and what it accepts must satisfy the format's invariants. */
#include <stdlib.h>
#include "fupermod/fupermod.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
  fupermod_points p;
  if (fupermod_points_parse((const char *)data, size, "fuzz", &p) != FUPERMOD_SUCCESS) return 0;
  for (int i = 0; i < p.count; i++) {
    if (p.pts[i].d <= 0 || !(p.pts[i].t > 0) || p.pts[i].reps < 1 || p.pts[i].ci < 0) abort();
    if (i > 0 && p.pts[i].d <= p.pts[i - 1].d) abort();
  }
  fupermod_points_free(&p);
  return 0;
}
