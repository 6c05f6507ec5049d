/* Emulated meter, for tests and machines without meters: a counter that grows by meter_idle
 * watts all the time and by e(d) joules at the end of every run of d units, e(d) from a point
 * file with energies (linear between points, constant energy per unit outside them, as the
 * emulated kernel does). Measures this process only. */
#include <stdlib.h>
#include "fupermod/benchmark.h"
#include "fupermod/conf.h"
#include "fupermod/meter_impl.h"
#include "fupermod/point.h"

typedef struct {
  fupermod_points pts;
  double idle;  /* W */
  double t0;    /* creation */
  double dyn;   /* J of the runs so far */
} emulated;

static double energy_of(const fupermod_points *p, long d) {
  const fupermod_point *a = p->pts, *b = p->pts + p->count - 1;
  int lo = 0, hi = p->count - 1;
  if (d <= a->d) return a->e * (double)d / (double)a->d;
  if (d >= b->d) return b->e * (double)d / (double)b->d;
  while (hi - lo > 1) {
    int mid = (lo + hi) / 2;
    if (p->pts[mid].d <= d) lo = mid;
    else hi = mid;
  }
  a = &p->pts[lo];
  b = &p->pts[hi];
  return a->e + (b->e - a->e) * (double)(d - a->d) / (double)(b->d - a->d);
}

static int emulated_read(fupermod_meter *m, double *joules) {
  emulated *e = m->impl;
  *joules = e->idle * (fupermod_time() - e->t0) + e->dyn;
  return FUPERMOD_SUCCESS;
}

static int emulated_note_run(fupermod_meter *m, long d) {
  emulated *e = m->impl;
  if (d < 1) return fupermod_error(FUPERMOD_ERR_USAGE, "emulated meter: a run of %ld units", d);
  e->dyn += energy_of(&e->pts, d);
  return FUPERMOD_SUCCESS;
}

static void emulated_destroy(fupermod_meter *m) {
  emulated *e = m->impl;
  if (!e) return;
  fupermod_points_free(&e->pts);
  free(e);
}

static const fupermod_meter_ops ops = {"emulated", emulated_read, emulated_note_run, emulated_destroy};

int fupermod_meter_emulated_create(fupermod_meter *m, const char *subopts) {
  static const char *const known[] = {"meter_points", "meter_idle", NULL};
  char file[4096];
  emulated *e;
  int got, rc;
  m->ops = &ops;
  if ((rc = fupermod_meter_opt_check(subopts, "meter_", known)) != FUPERMOD_SUCCESS) return rc;
  if ((got = fupermod_subopt_get(subopts, "meter_points", file, sizeof file)) < 0) return got;
  if (!got && (got = fupermod_subopt_get(subopts, "points", file, sizeof file)) < 0) return got;
  if (!got) return fupermod_error(FUPERMOD_ERR_USAGE, "the emulated meter needs meter_points=FILE (or points=FILE)");
  if (!(e = calloc(1, sizeof *e))) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  m->impl = e;
  if ((got = fupermod_meter_opt_double(subopts, "meter_idle", &e->idle)) < 0) return got;
  if (!(e->idle >= 0)) return fupermod_error(FUPERMOD_ERR_USAGE, "meter_idle=%g: must be >= 0 (W)", e->idle);
  if ((rc = fupermod_points_load(file, &e->pts)) != FUPERMOD_SUCCESS) return rc;
  if (!e->pts.has_energy)
    return fupermod_error(FUPERMOD_ERR_INPUT, "%s: the emulated meter needs energies (fields e e_ci) on every line", file);
  e->t0 = fupermod_time();
  m->description = fupermod_meter_strdupf("emulated (%s, idle %g W)", file, e->idle);
  if (!m->description) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  return FUPERMOD_SUCCESS;
}
