#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "fupermod/error.h"
#include "fupermod/model.h"

static const char *const types[] = {"cpm", "piecewise", "akima", "tabulated", NULL};

const char *const *fupermod_model_types(void) { return types; }

int fupermod_model_create(const char *type, const fupermod_points *pts, long D, fupermod_model **out) {
  fupermod_model *m;
  int rc;
  *out = NULL;
  if (!type) return fupermod_error(FUPERMOD_ERR_USAGE, "no model type given");
  if (D < 0) return fupermod_error(FUPERMOD_ERR_USAGE, "model: D must be >= 0, got %ld", D);
  for (int i = 0; pts && i < pts->count; i++)
    if (fupermod_point_abandoned(&pts->pts[i]))
      return fupermod_error(FUPERMOD_ERR_INPUT, "model: d=%ld was abandoned, not measured (load points with "
                            "fupermod_points_load, which leaves such points out)", pts->pts[i].d);
  m = calloc(1, sizeof *m);
  if (!m) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  m->D = D;
  if (pts && (rc = fupermod_points_copy(&m->points, pts)) != FUPERMOD_SUCCESS) {
    free(m);
    return rc;
  }
  if (strcmp(type, "cpm") == 0) rc = fupermod_model_cpm_create(m);
  else if (strcmp(type, "piecewise") == 0) rc = fupermod_model_piecewise_create(m);
  else if (strcmp(type, "akima") == 0) rc = fupermod_model_akima_create(m);
  else if (strcmp(type, "tabulated") == 0) rc = fupermod_model_tabulated_create(m);
  else rc = fupermod_error(FUPERMOD_ERR_USAGE, "unknown model type '%s' (cpm, piecewise, akima, tabulated)", type);
  if (rc != FUPERMOD_SUCCESS) {
    fupermod_points_free(&m->points);
    free(m);
    return rc;
  }
  *out = m;
  return FUPERMOD_SUCCESS;
}

void fupermod_model_free(fupermod_model *m) {
  if (!m) return;
  if (m->ops && m->ops->destroy) m->ops->destroy(m);
  fupermod_points_free(&m->points);
  free(m);
}

double fupermod_model_complexity(const fupermod_model *m, double x) {
  return m->complexity ? m->complexity(x, m->complexity_ctx) : x;
}

double fupermod_model_time(const fupermod_model *m, double x) {
  if (!m || m->points.count == 0) return NAN;
  if (x <= 0) return 0.0;
  return m->ops->t(m, x);
}

double fupermod_model_speed(const fupermod_model *m, double x) {
  double t = fupermod_model_time(m, x);
  if (!(t > 0)) return NAN;
  return fupermod_model_complexity(m, x) / t;
}

double fupermod_model_energy(const fupermod_model *m, double x) {
  if (!m || m->points.count == 0 || !m->points.has_energy || !m->ops->e) return NAN;
  if (x <= 0) return 0.0;
  return m->ops->e(m, x);
}

int fupermod_model_update(fupermod_model *m, const fupermod_point *pt) {
  int rc;
  if (!m || !pt) return fupermod_error(FUPERMOD_ERR_USAGE, "model update: NULL argument");
  if (fupermod_point_abandoned(pt))
    return fupermod_error(FUPERMOD_ERR_INPUT, "model update: d=%ld was abandoned, not measured", pt->d);
  if ((rc = fupermod_points_insert(&m->points, pt)) != FUPERMOD_SUCCESS) return rc;
  return m->ops->update ? m->ops->update(m, pt) : FUPERMOD_SUCCESS;
}
