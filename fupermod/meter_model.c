/* Model meter: energy = meter_power watts x time. It measures nothing, so everything it produces
 * is labelled an estimate (fupermod_meter_is_estimate) in the tools' outputs. Per process. */
#include <stdlib.h>
#include "fupermod/benchmark.h"
#include "fupermod/meter_impl.h"

typedef struct {
  double power;
  double t0;
} model;

static int model_read(fupermod_meter *m, double *joules) {
  model *p = m->impl;
  *joules = p->power * (fupermod_time() - p->t0);
  return FUPERMOD_SUCCESS;
}

static void model_destroy(fupermod_meter *m) { free(m->impl); }

static const fupermod_meter_ops ops = {"model", model_read, NULL, model_destroy};

int fupermod_meter_model_create(fupermod_meter *m, const char *subopts) {
  static const char *const known[] = {"meter_power", NULL};
  double power = 0.0;
  model *p;
  int got, rc;
  m->ops = &ops;
  m->estimate = 1;
  if ((rc = fupermod_meter_opt_check(subopts, "meter_", known)) != FUPERMOD_SUCCESS) return rc;
  if ((got = fupermod_meter_opt_double(subopts, "meter_power", &power)) < 0) return got;
  if (!got) return fupermod_error(FUPERMOD_ERR_USAGE, "the model meter needs meter_power=WATTS");
  if (!(power >= 0 && power < 1e9)) return fupermod_error(FUPERMOD_ERR_USAGE, "meter_power=%g: must be >= 0 (W)", power);
  if (!(p = calloc(1, sizeof *p))) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  p->power = power;
  p->t0 = fupermod_time();
  m->impl = p;
  m->description = fupermod_meter_strdupf("model (ESTIMATE: %g W x time)", power);
  if (!m->description) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  return FUPERMOD_SUCCESS;
}
