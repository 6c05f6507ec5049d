/* Point files from a configuration's data directory, and distributions laid out as matrix blocks
 * (tools/tools.h). Apart from common.c because they need the configuration reader and the layouts,
 * which the `fupermod` front command does not link. */
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

int tool_dist_layout(fupermod_dist *dist, int M, int N, fupermod_area_time time, void *ctx, fupermod_layout **out,
                     double *tmax) {
  int p = dist->size, rc;
  double *areas = malloc((size_t)p * sizeof *areas);
  fupermod_layout *l = NULL, *fit = NULL;
  *out = NULL;
  if (!areas) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  for (int i = 0; i < p; i++) areas[i] = (double)dist->parts[i].d;
  rc = fupermod_layout_br(areas, p, 0, M, N, &l);
  free(areas);
  if (rc == FUPERMOD_SUCCESS && time) {
    rc = fupermod_layout_fit(l, time, ctx, &fit, tmax);
    fupermod_layout_free(l);
    l = fit;
  }
  if (rc != FUPERMOD_SUCCESS) return rc;
  for (int i = 0; i < p; i++) dist->parts[i].d = fupermod_layout_area(l, i);
  *out = l;
  return FUPERMOD_SUCCESS;
}
