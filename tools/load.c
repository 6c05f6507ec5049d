/* Point files from a configuration's data directory (tools/tools.h). Apart from common.c because
 * it needs the configuration reader, which the `fupermod` front command does not link. */
#include <stdlib.h>
#include "tools/tools.h"

int tool_load_points(int nfiles, char **files, const char *conf, const char *data, fupermod_points **out,
                     int *count) {
  fupermod_conf c;
  fupermod_points *pts;
  int rc = FUPERMOD_SUCCESS;
  char path[4096];
  if (!conf && !data) return tool_load_files(nfiles, files, out, count);
  *out = NULL;
  *count = 0;
  if (!conf || !data) return fupermod_error(FUPERMOD_ERR_USAGE, "--conf and --data go together");
  if (nfiles > 0) return fupermod_error(FUPERMOD_ERR_USAGE, "give point files or --conf/--data, not both");
  if ((rc = fupermod_conf_load(conf, &c)) != FUPERMOD_SUCCESS) return rc;
  if (!(pts = calloc((size_t)c.count, sizeof *pts))) rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  for (int i = 0; pts && i < c.count; i++) {
    tool_points_path(path, sizeof path, data, &c.procs[i]);
    if ((rc = fupermod_points_load(path, &pts[i])) != FUPERMOD_SUCCESS) {
      for (int j = 0; j < i; j++) fupermod_points_free(&pts[j]);
      free(pts);
      pts = NULL;
    }
  }
  if (pts) {
    *out = pts;
    *count = c.count;
  }
  fupermod_conf_free(&c);
  return rc;
}
