/* libFuzzer target: campaign files (parsed from a file, as the tool does), the cross product and
 * the expansion of the command template for every experiment. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "tools/campaign.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
  static char path[4096];
  campaign c;
  camp_exp *e = NULL;
  int n = 0;
  FILE *fp;
  if (!path[0]) {
    int fd;
    snprintf(path, sizeof path, "%s/fuzz-campaign-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if ((fd = mkstemp(path)) < 0) abort();
    close(fd);
  }
  if (!(fp = fopen(path, "wb"))) abort();
  fwrite(data, 1, size, fp);
  fclose(fp);
  if (camp_load(path, &c) != 0) return 0;
  if (camp_experiments(&c, &e, &n) == 0) {
    /* cap the work per input: the cross product of a fuzzed file can be huge */
    for (int i = 0; i < n && i < 64; i++) {
      char *cmd = NULL;
      if (camp_expand(&c, "command", &e[i], 4, "/tmp/x", &cmd) == 0) free(cmd);
    }
    camp_experiments_free(e, n);
  }
  camp_free(&c);
  return 0;
}
