/* Tabulated model (for the discrete partitioners): the points exactly. t(0) = e(0) = 0, a
 * measured size gives its measured t and e, and an unmeasured size is "infinitely slow":
 * t = e = INFINITY. It is therefore not positive-finite everywhere, and the continuous
 * partitioners must never be given it. No derivative. */
#include <limits.h>

#include "fupermod/model_common.h"

/* Index of the point with d == x, or -1 (x integral and in range, or not measured). */
static int tab_find(const fupermod_model *m, double x) {
  int lo = 0, hi = m->points.count - 1;
  long d;
  if (!(x >= 1.0) || x > (double)LONG_MAX || x != floor(x)) return -1;
  d = (long)x;
  while (lo <= hi) {
    int mid = lo + (hi - lo) / 2;
    long dm = m->points.pts[mid].d;
    if (dm == d) return mid;
    if (dm < d) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

static double tab_t(const fupermod_model *m, double x) {
  int i;
  if (isnan(x)) return NAN;
  if (x == 0.0) return 0.0;
  i = tab_find(m, x);
  return i < 0 ? INFINITY : m->points.pts[i].t;
}

static double tab_e(const fupermod_model *m, double x) {
  int i;
  if (isnan(x)) return NAN;
  if (x == 0.0) return 0.0;
  if ((i = tab_find(m, x)) < 0) return INFINITY;
  return fupermod_point_has_energy(&m->points.pts[i]) ? m->points.pts[i].e : NAN;
}

static int tab_dtdx(const fupermod_model *m, double x, double *deriv) {
  return fupermod_error(FUPERMOD_ERR_USAGE, "tabulated model: dt/dx is not defined (discrete model)");
}

static int tab_update(fupermod_model *m, const fupermod_point *pt) {
  (void)pt; /* NULL: a refit for a new complexity or D, which the table does not use */
  return fupermod_model_check_points(m);
}

static void tab_destroy(fupermod_model *m) { m->impl = NULL; }

static const fupermod_model_ops tab_ops = {"tabulated", tab_t, tab_e, tab_dtdx, tab_update, tab_destroy};

int fupermod_model_tabulated_create(fupermod_model *m) {
  if (!m) return fupermod_error(FUPERMOD_ERR_USAGE, "tabulated model: m is NULL");
  m->ops = &tab_ops;
  m->impl = NULL; /* reads m->points directly */
  return fupermod_model_check_points(m);
}
