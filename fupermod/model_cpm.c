/* Constant performance model: one speed s for all sizes, t(x) = C(x)/s.
 * The speed is that of one reference point: the most recently updated one (a CPM balancer
 * uses only the latest measurement), or, for a model created from points, the point with
 * the largest d (the size closest to real workloads, least perturbed by timer overhead). */
#include "fupermod/model_common.h"

typedef struct cpm_impl {
  fupermod_fit_key key;
  long d_ref; /* reference point; 0: the point with the largest d */
  double s;   /* C(d_ref)/t(d_ref) */
  double epu; /* e(d_ref)/d_ref, NAN without energy */
} cpm_impl;

static int cpm_fit(fupermod_model *m) {
  cpm_impl *im = m->impl;
  const fupermod_point *p = NULL;
  double c;
  int i, rc;
  if (m->points.count == 0) return FUPERMOD_SUCCESS;
  for (i = 0; i < m->points.count; i++)
    if ((rc = fupermod_model_check_point(m, &m->points.pts[i], "point")) != FUPERMOD_SUCCESS) return rc;
  for (i = 0; im->d_ref > 0 && i < m->points.count; i++)
    if (m->points.pts[i].d == im->d_ref) p = &m->points.pts[i];
  if (!p) p = &m->points.pts[m->points.count - 1];
  c = fupermod_model_complexity(m, (double)p->d);
  if (!(c > 0.0) || !isfinite(c) || !isfinite(c / p->t))
    return fupermod_error(FUPERMOD_ERR_INPUT, "cpm model: complexity C(%ld) = %g gives no finite positive speed",
                          p->d, c);
  im->s = c / p->t;
  im->epu = fupermod_point_has_energy(p) ? p->e / (double)p->d : NAN;
  fupermod_fit_mark(m, &im->key);
  return FUPERMOD_SUCCESS;
}

/* Evaluation only reads: safe from several threads at once. */
static int cpm_ready(const fupermod_model *m) { return !fupermod_fit_stale(m, &((const cpm_impl *)m->impl)->key); }

static double cpm_t(const fupermod_model *m, double x) {
  if (!cpm_ready(m)) return NAN;
  return fupermod_model_complexity(m, x) / ((cpm_impl *)m->impl)->s;
}

static double cpm_e(const fupermod_model *m, double x) {
  if (!cpm_ready(m)) return NAN;
  return x * ((cpm_impl *)m->impl)->epu;
}

static int cpm_dtdx(const fupermod_model *m, double x, double *deriv) {
  if (!deriv) return fupermod_error(FUPERMOD_ERR_USAGE, "cpm model: deriv is NULL");
  if (m->points.count == 0) return fupermod_error(FUPERMOD_ERR_USAGE, "cpm model: no points, dt/dx undefined");
  if (!cpm_ready(m)) return fupermod_fit_stale_error(m);
  *deriv = fupermod_model_dcdx(m, x) / ((cpm_impl *)m->impl)->s;
  return FUPERMOD_SUCCESS;
}

static int cpm_update(fupermod_model *m, const fupermod_point *pt) {
  cpm_impl *im = m->impl;
  long old = im->d_ref;
  int rc;
  if (!pt) return cpm_fit(m); /* a refit for a new complexity or D */
  im->d_ref = pt->d;
  if ((rc = cpm_fit(m)) != FUPERMOD_SUCCESS) im->d_ref = old;
  return rc;
}

static void cpm_destroy(fupermod_model *m) {
  free(m->impl);
  m->impl = NULL;
}

static const fupermod_model_ops cpm_ops = {"cpm", cpm_t, cpm_e, cpm_dtdx, cpm_update, cpm_destroy};

int fupermod_model_cpm_create(fupermod_model *m) {
  cpm_impl *im;
  int rc;
  if (!m) return fupermod_error(FUPERMOD_ERR_USAGE, "cpm model: m is NULL");
  if (!(im = calloc(1, sizeof *im))) return fupermod_error(FUPERMOD_ERR_NOMEM, "cpm model: out of memory");
  m->ops = &cpm_ops;
  m->impl = im;
  if ((rc = cpm_fit(m)) != FUPERMOD_SUCCESS) {
    free(im);
    m->impl = NULL;
    return rc;
  }
  return FUPERMOD_SUCCESS;
}
