/* The registry of partitioners by name. Each algorithm file defines its descriptor; weak
 * references keep the registry linkable while an algorithm is absent from a build. */
#include <string.h>
#include "partitioners/partitioners.h"

#define P(x) extern const fupermod_partitioner fupermod_partitioner_##x __attribute__((weak));
P(even) P(cpm) P(geometric) P(numerical)
P(popta) P(eopta) P(aleph)
P(hpopta) P(heopta) P(hepopta) P(htpopta)
P(balanced) P(dp) P(paraleph)
#undef P

static const fupermod_partitioner *const *all(void) {
  static const fupermod_partitioner *list[32];
  static int built = 0;
  if (!built) {
    const fupermod_partitioner *cand[] = {
      &fupermod_partitioner_even, &fupermod_partitioner_cpm, &fupermod_partitioner_geometric,
      &fupermod_partitioner_numerical, &fupermod_partitioner_popta, &fupermod_partitioner_eopta,
      &fupermod_partitioner_aleph, &fupermod_partitioner_hpopta, &fupermod_partitioner_heopta,
      &fupermod_partitioner_hepopta, &fupermod_partitioner_htpopta,
      &fupermod_partitioner_balanced, &fupermod_partitioner_dp, &fupermod_partitioner_paraleph};
    int n = 0;
    for (size_t i = 0; i < sizeof cand / sizeof cand[0]; i++)
      if (cand[i]) list[n++] = cand[i];
    list[n] = NULL;
    built = 1;
  }
  return list;
}

const fupermod_partitioner *const *fupermod_partitioners(void) { return all(); }

const fupermod_partitioner *fupermod_partitioner_find(const char *name) {
  const fupermod_partitioner *const *l = all();
  if (!name) return NULL;
  for (int i = 0; l[i]; i++)
    if (strcmp(l[i]->name, name) == 0) return l[i];
  return NULL;
}
