#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include "partitioners/time_common.h"

static long gcd(long a, long b) {
  while (b) {
    long r = a % b;
    a = b;
    b = r;
  }
  return a;
}

int fupermod_dtime_check(const fupermod_problem *prob, const fupermod_partitioner *alg, const fupermod_dist *out,
                         fupermod_dtime *dt) {
  int rc = fupermod_problem_check(prob, alg);
  long g = 0, most = 0;
  dt->off = NULL;
  dt->x = NULL;
  dt->t = dt->e = NULL;
  if (rc != FUPERMOD_SUCCESS) return rc;
  if (!out || !out->parts || out->size != prob->p)
    return fupermod_error(FUPERMOD_ERR_USAGE, "%s: the output distribution must have %d parts (one per processor)",
                          alg->name, prob->p);
  for (int i = 0; i < prob->p; i++) {
    const fupermod_points *f = prob->f[i];
    long top = f->pts[f->count - 1].d;
    for (int k = 0; k < f->count && g != 1; k++) g = gcd(f->pts[k].d, g); /* 1 stays 1 */
    most = most > LONG_MAX - top ? LONG_MAX : most + top; /* saturate: the sum may overflow */
  }
  if (prob->D > most)
    return fupermod_error(FUPERMOD_ERR_INFEASIBLE,
                          "%s: D=%ld exceeds the most the functions can hold (%ld, the sum of the largest sizes)",
                          alg->name, prob->D, most);
  if (prob->D % g != 0)
    return fupermod_error(FUPERMOD_ERR_INFEASIBLE,
                          "%s: no combination of measured sizes sums to D=%ld (every size is a multiple of %ld): "
                          "choose a D that is a multiple of %ld, measure sizes that make D, or use a continuous "
                          "partitioner (-a geometric or -a numerical), which gives any share",
                          alg->name, prob->D, g, g);
  dt->p = prob->p;
  dt->g = g;
  dt->D = prob->D / g;
  return FUPERMOD_SUCCESS;
}

static int init(const fupermod_problem *prob, const fupermod_partitioner *alg, const fupermod_dist *out,
                fupermod_dtime *dt, int energy) {
  int rc = fupermod_dtime_check(prob, alg, out, dt), n = 0;
  const long g = dt->g;
  if (rc != FUPERMOD_SUCCESS) return rc;
  for (int i = 0; i < prob->p; i++) n += prob->f[i]->count;
  dt->off = malloc((size_t)(prob->p + 1) * sizeof *dt->off);
  dt->x = malloc((size_t)n * sizeof *dt->x);
  dt->t = malloc((size_t)n * sizeof *dt->t);
  dt->e = energy ? malloc((size_t)n * sizeof *dt->e) : NULL;
  if (!dt->off || !dt->x || !dt->t || (energy && !dt->e)) {
    fupermod_dtime_free(dt);
    return fupermod_error(FUPERMOD_ERR_NOMEM, "%s: out of memory", alg->name);
  }
  n = 0;
  for (int i = 0; i < prob->p; i++) {
    const fupermod_points *f = prob->f[i];
    dt->off[i] = n;
    for (int k = 0; k < f->count; k++, n++) {
      dt->x[n] = f->pts[k].d / g;
      dt->t[n] = f->pts[k].t;
      if (energy) dt->e[n] = f->has_energy ? f->pts[k].e : NAN;
    }
  }
  dt->off[prob->p] = n;
  return FUPERMOD_SUCCESS;
}

int fupermod_dtime_init(const fupermod_problem *prob, const fupermod_partitioner *alg,
                        const fupermod_dist *out, fupermod_dtime *dt) {
  return init(prob, alg, out, dt, 1);
}

int fupermod_dtime_init_times(const fupermod_problem *prob, const fupermod_partitioner *alg,
                              const fupermod_dist *out, fupermod_dtime *dt) {
  return init(prob, alg, out, dt, 0);
}

void fupermod_dtime_free(fupermod_dtime *dt) {
  free(dt->off);
  free(dt->x);
  free(dt->t);
  free(dt->e);
  dt->off = NULL;
  dt->x = NULL;
  dt->t = dt->e = NULL;
}

int fupermod_dtime_finish(const fupermod_problem *prob, const fupermod_dtime *dt, const long *d, int objective,
                          double value, fupermod_dist *out) {
  long *u = malloc((size_t)dt->p * sizeof *u);
  double t, e;
  int rc;
  if (!u) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  for (int i = 0; i < dt->p; i++) u[i] = d[i] * dt->g;
  rc = fupermod_problem_evaluate(prob, u, &t, &e, out);
  free(u);
  if (rc != FUPERMOD_SUCCESS)
    return fupermod_error_prefix(rc, "internal error, the algorithm built a bad distribution");
  /* the algorithm's own value must be the distribution's (energy: up to the summation order) */
  if (objective == FUPERMOD_OBJ_TIME ? t != value
                                     : !(fabs(e - value) <= 1e-9 * fmax(1.0, fmax(fabs(e), fabs(value)))))
    return fupermod_error(FUPERMOD_ERR_NUMERIC,
                          "internal error: the algorithm's value %.17g is not its distribution's %.17g", value,
                          objective == FUPERMOD_OBJ_TIME ? t : e);
  return FUPERMOD_SUCCESS;
}

int fupermod_dtime_infeasible(const fupermod_problem *prob) {
  return fupermod_error(FUPERMOD_ERR_INFEASIBLE,
                        "no combination of measured sizes (or 0) over the %d processors sums to D=%ld: measure "
                        "more sizes (a finer grid, or sizes that make D), or use a continuous partitioner (-a "
                        "geometric or -a numerical), which gives any share",
                        prob->p, prob->D);
}

int fupermod_dtime_table_check(const char *who, long rows, long cols) {
  if (rows > 0 && cols > FUPERMOD_DTIME_MAX_CELLS / rows)
    return fupermod_error(FUPERMOD_ERR_NOMEM,
                          "%s: a table of %ld x %ld cells is too large (limit %ld); measure sizes on a coarser "
                          "granule or reduce D",
                          who, rows, cols, (long)FUPERMOD_DTIME_MAX_CELLS);
  return FUPERMOD_SUCCESS;
}

typedef struct {
  double t;
  long x;
  int k;
} order_key;

static int by_time_size(const void *a, const void *b) {
  const order_key *u = a, *v = b;
  if (u->t != v->t) return u->t < v->t ? -1 : 1;
  if (u->x != v->x) return u->x < v->x ? -1 : 1;
  return u->k - v->k;
}

int fupermod_dtime_order(const long *x, const double *t, int n, int *ord) {
  order_key *keys = malloc((size_t)(n > 0 ? n : 1) * sizeof *keys);
  if (!keys) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  for (int k = 0; k < n; k++) {
    keys[k].t = t[k];
    keys[k].x = x[k];
    keys[k].k = k;
  }
  qsort(keys, (size_t)n, sizeof *keys, by_time_size);
  for (int k = 0; k < n; k++) ord[k] = keys[k].k;
  free(keys);
  return FUPERMOD_SUCCESS;
}
