/* Private helpers shared by the model types (model_cpm.c, model_piecewise.c, model_akima.c,
 * model_tabulated.c). Not installed. */
#ifndef FUPERMOD_MODEL_COMMON_H
#define FUPERMOD_MODEL_COMMON_H

#include <math.h>
#include <stdlib.h>

#include "fupermod/error.h"
#include "fupermod/model.h"

/* The complexity and D an approximation was fitted with. fupermod_model_set_complexity and
 * fupermod_model_set_D refit (ops->update with a NULL point); evaluation never writes to the
 * model, so a model whose fields were changed directly is stale: t and e give NAN and dt/dx
 * FUPERMOD_ERR_USAGE, instead of mixing two C's. */
typedef struct fupermod_fit_key {
  int valid;
  fupermod_complexity_fn fn;
  void *ctx;
  long D;
} fupermod_fit_key;

static inline int fupermod_fit_stale(const fupermod_model *m, const fupermod_fit_key *k) {
  return !k->valid || k->fn != m->complexity || k->ctx != m->complexity_ctx || k->D != m->D;
}

static inline int fupermod_fit_stale_error(const fupermod_model *m) {
  return fupermod_error(FUPERMOD_ERR_USAGE,
                        "%s model: complexity or D changed since the fit; set them with "
                        "fupermod_model_set_complexity / fupermod_model_set_D",
                        m->ops->name);
}

static inline void fupermod_fit_mark(const fupermod_model *m, fupermod_fit_key *k) {
  k->valid = 1;
  k->fn = m->complexity;
  k->ctx = m->complexity_ctx;
  k->D = m->D;
}

/* A point every model type accepts: d >= 1, finite t > 0. */
static inline int fupermod_model_check_point(const fupermod_model *m, const fupermod_point *p,
                                             const char *what) {
  if (p->d < 1)
    return fupermod_error(FUPERMOD_ERR_INPUT, "%s model: %s has d = %ld (must be >= 1)",
                          m->ops->name, what, p->d);
  if (!(p->t > 0.0) || !isfinite(p->t))
    return fupermod_error(FUPERMOD_ERR_INPUT, "%s model: %s (d = %ld) has t = %g (must be finite and > 0)",
                          m->ops->name, what, p->d, p->t);
  return FUPERMOD_SUCCESS;
}

static inline int fupermod_model_check_points(const fupermod_model *m) {
  int i, rc;
  for (i = 0; i < m->points.count; i++) {
    if ((rc = fupermod_model_check_point(m, &m->points.pts[i], "point")) != FUPERMOD_SUCCESS) return rc;
    if (i > 0 && m->points.pts[i].d <= m->points.pts[i - 1].d)
      return fupermod_error(FUPERMOD_ERR_INPUT, "%s model: points not sorted by increasing d (d = %ld after %ld)",
                            m->ops->name, m->points.pts[i].d, m->points.pts[i - 1].d);
  }
  return FUPERMOD_SUCCESS;
}

/* Speed points x_i = d_i, s_i = C(d_i)/t_i (x and s hold m->points.count entries). */
static inline int fupermod_model_speeds(const fupermod_model *m, double *x, double *s) {
  int i, rc;
  if ((rc = fupermod_model_check_points(m)) != FUPERMOD_SUCCESS) return rc;
  for (i = 0; i < m->points.count; i++) {
    const fupermod_point *p = &m->points.pts[i];
    double c = fupermod_model_complexity(m, (double)p->d);
    if (!(c > 0.0) || !isfinite(c))
      return fupermod_error(FUPERMOD_ERR_INPUT, "%s model: complexity C(%ld) = %g (must be finite and > 0)",
                            m->ops->name, p->d, c);
    x[i] = (double)p->d;
    s[i] = c / p->t;
    if (!(s[i] > 0.0) || !isfinite(s[i]))
      return fupermod_error(FUPERMOD_ERR_INPUT, "%s model: speed at d = %ld is %g (C = %g, t = %g)",
                            m->ops->name, p->d, s[i], c, p->t);
  }
  return FUPERMOD_SUCCESS;
}

/* dC/dx assuming C linear through the origin (spec 1.2), so C'(x) = C(x)/x. */
static inline double fupermod_model_dcdx(const fupermod_model *m, double x) {
  return x != 0.0 ? fupermod_model_complexity(m, x) / x : fupermod_model_complexity(m, 1.0);
}

/* j with x[j] <= v < x[j+1]; requires n >= 2 and x[0] <= v < x[n-1]. */
static inline int fupermod_model_segment(const double *x, int n, double v) {
  int lo = 0, hi = n - 1;
  while (hi - lo > 1) {
    int mid = lo + (hi - lo) / 2;
    if (x[mid] <= v) lo = mid;
    else hi = mid;
  }
  return lo;
}

/* Piecewise-linear y(v) through (x_i, y_i), constant outside [x_0, x_{n-1}]. */
static inline double fupermod_model_lerp(const double *x, const double *y, int n, double v) {
  int j;
  if (v <= x[0]) return y[0];
  if (v >= x[n - 1]) return y[n - 1];
  j = fupermod_model_segment(x, n, v);
  return y[j] + (y[j + 1] - y[j]) * ((v - x[j]) / (x[j + 1] - x[j]));
}

/* Energy per unit e_i/d_i, interpolated piecewise-linearly with constant extension. */
typedef struct fupermod_energy_table {
  int n; /* 0: the points carry no energy */
  double *x;
  double *epu;
} fupermod_energy_table;

static inline void fupermod_energy_table_free(fupermod_energy_table *et) {
  free(et->x);
  free(et->epu);
  et->x = et->epu = NULL;
  et->n = 0;
}

/* Build into a fresh table; on failure *et is untouched. */
static inline int fupermod_energy_table_fit(const fupermod_model *m, fupermod_energy_table *et) {
  fupermod_energy_table nt = {0, NULL, NULL};
  int i, n = m->points.count;
  if (m->points.has_energy && n > 0) {
    nt.x = malloc((size_t)n * sizeof *nt.x);
    nt.epu = malloc((size_t)n * sizeof *nt.epu);
    if (!nt.x || !nt.epu) {
      fupermod_energy_table_free(&nt);
      return fupermod_error(FUPERMOD_ERR_NOMEM, "%s model: out of memory for %d energy points",
                            m->ops->name, n);
    }
    for (i = 0; i < n; i++) {
      const fupermod_point *p = &m->points.pts[i];
      if (!(p->e >= 0.0) || !isfinite(p->e)) {
        fupermod_energy_table_free(&nt);
        return fupermod_error(FUPERMOD_ERR_INPUT, "%s model: energy at d = %ld is %g (must be finite, >= 0)",
                              m->ops->name, p->d, p->e);
      }
      nt.x[i] = (double)p->d;
      nt.epu[i] = p->e / (double)p->d;
    }
    nt.n = n;
  }
  fupermod_energy_table_free(et);
  *et = nt;
  return FUPERMOD_SUCCESS;
}

static inline double fupermod_energy_table_eval(const fupermod_energy_table *et, double x) {
  if (et->n == 0 || isnan(x)) return NAN;
  return x * fupermod_model_lerp(et->x, et->epu, et->n, x);
}

#endif
