/* libFuzzer target: the distribution-file parser; accepted files sum to D. */
#include <stdlib.h>
#include "fupermod/fupermod.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
  fupermod_dist *d;
  long sum = 0;
  if (fupermod_dist_parse((const char *)data, size, "fuzz", &d) != FUPERMOD_SUCCESS) return 0;
  for (int i = 0; i < d->size; i++) {
    if (d->parts[i].d < 0) abort();
    sum += d->parts[i].d;
  }
  if (sum != d->D) abort();
  fupermod_dist_free(d);
  return 0;
}
