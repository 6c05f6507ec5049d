/* Setters for the fields a fit depends on: they refit at once, so that evaluation never writes
 * to a model (docs/models.md, "Threads"). */
#include "fupermod/error.h"
#include "fupermod/model.h"

/* The model types fit into fresh storage and keep the old fit on failure, so putting the old
 * fields back leaves the model exactly as it was. */
static int refit(fupermod_model *m) { return m->ops && m->ops->update ? m->ops->update(m, NULL) : FUPERMOD_SUCCESS; }

int fupermod_model_set_complexity(fupermod_model *m, fupermod_complexity_fn fn, void *ctx) {
  fupermod_complexity_fn old_fn;
  void *old_ctx;
  int rc;
  if (!m) return fupermod_error(FUPERMOD_ERR_USAGE, "model set complexity: m is NULL");
  old_fn = m->complexity;
  old_ctx = m->complexity_ctx;
  m->complexity = fn;
  m->complexity_ctx = ctx;
  if ((rc = refit(m)) != FUPERMOD_SUCCESS) {
    m->complexity = old_fn;
    m->complexity_ctx = old_ctx;
  }
  return rc;
}

int fupermod_model_set_D(fupermod_model *m, long D) {
  long old;
  int rc;
  if (!m) return fupermod_error(FUPERMOD_ERR_USAGE, "model set D: m is NULL");
  if (D < 0) return fupermod_error(FUPERMOD_ERR_USAGE, "model: D must be >= 0, got %ld", D);
  old = m->D;
  m->D = D;
  if ((rc = refit(m)) != FUPERMOD_SUCCESS) m->D = old;
  return rc;
}
