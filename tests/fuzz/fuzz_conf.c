/* libFuzzer target: the process-configuration parser. */
#include <stdlib.h>
#include <string.h>
#include "fupermod/fupermod.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
  fupermod_conf c;
  char buf[64];
  if (fupermod_conf_parse((const char *)data, size, "fuzz", &c) != FUPERMOD_SUCCESS) return 0;
  if (c.count < 1) abort();
  for (int i = 0; i < c.count; i++) {
    if (c.procs[i].rank_intra < 0 || !c.procs[i].hostname[0]) abort();
    fupermod_subopt_get(c.procs[i].subopts, "kernel", buf, sizeof buf);
    if (fupermod_conf_find(&c, c.procs[i].hostname, c.procs[i].rank_intra) < 0) abort();
  }
  fupermod_conf_free(&c);
  return 0;
}
