#include <ctype.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fupermod/error.h"
#include "fupermod/model.h"

/* Model types by name: the built-in ones, then registered ones. Entries never move or leave, so a
 * list returned earlier stays valid; a slot is published (release) after it is filled. */
#define CAPACITY 64
static const char *names[CAPACITY + 1] = {"cpm", "piecewise", "akima", "tabulated"};
static fupermod_model_create_fn creates[CAPACITY] = {fupermod_model_cpm_create, fupermod_model_piecewise_create,
                                                      fupermod_model_akima_create, fupermod_model_tabulated_create};
static int count = 4;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

const char *const *fupermod_model_types(void) { return names; }

static fupermod_model_create_fn find(const char *type) {
  const char *n;
  for (int i = 0; (n = __atomic_load_n(&names[i], __ATOMIC_ACQUIRE)); i++)
    if (strcmp(n, type) == 0) return creates[i];
  return NULL;
}

int fupermod_model_register(const char *name, fupermod_model_create_fn create) {
  int rc = FUPERMOD_SUCCESS;
  char *copy;
  if (!name || !*name) return fupermod_error(FUPERMOD_ERR_USAGE, "model register: no name");
  if (!create) return fupermod_error(FUPERMOD_ERR_USAGE, "model register '%s': no constructor", name);
  for (const char *c = name; *c; c++)
    if (!isgraph((unsigned char)*c) || *c == ',' || *c == '=')
      return fupermod_error(FUPERMOD_ERR_USAGE, "model register: name '%s' has a space, ',' or '='", name);
  pthread_mutex_lock(&lock);
  if (find(name))
    rc = fupermod_error(FUPERMOD_ERR_USAGE, "model register: '%s' is already a model type", name);
  else if (count == CAPACITY)
    rc = fupermod_error(FUPERMOD_ERR_USAGE, "model register '%s': too many model types (%d)", name, CAPACITY);
  else if (!(copy = strdup(name)))
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  else {
    creates[count] = create;
    __atomic_store_n(&names[count++], copy, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&lock);
  return rc;
}

int fupermod_model_create(const char *type, const fupermod_points *pts, long D, fupermod_model **out) {
  fupermod_model *m;
  fupermod_model_create_fn create;
  int rc;
  *out = NULL;
  if (!type) return fupermod_error(FUPERMOD_ERR_USAGE, "no model type given");
  if (!(create = find(type))) {
    char known[512] = "";
    for (const char *const *n = names; *n; n++)
      snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", n == names ? "" : ", ", *n);
    return fupermod_error(FUPERMOD_ERR_USAGE, "unknown model type '%s' (%s)", type, known);
  }
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
  rc = create(m);
  if (rc == FUPERMOD_SUCCESS && (!m->ops || !m->ops->t)) {
    if (m->ops && m->ops->destroy) m->ops->destroy(m);
    rc = fupermod_error(FUPERMOD_ERR_USAGE, "model type '%s': its constructor set no time function", type);
  }
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
