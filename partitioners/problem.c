#include <math.h>
#include <stdlib.h>
#include "partitioners/partitioners.h"

void fupermod_front_free(fupermod_front *front) {
  if (!front) return;
  for (int i = 0; i < front->count; i++) fupermod_dist_free(front->points[i].dist);
  free(front->points);
  front->points = NULL;
  front->count = 0;
}

int fupermod_problem_check(const fupermod_problem *prob, const fupermod_partitioner *alg) {
  if (!prob) return fupermod_error(FUPERMOD_ERR_USAGE, "no problem given");
  if (prob->p < 1) return fupermod_error(FUPERMOD_ERR_USAGE, "p must be >= 1, got %d", prob->p);
  if (prob->D < 0) return fupermod_error(FUPERMOD_ERR_USAGE, "D must be >= 0, got %ld", prob->D);
  if (!prob->f) return fupermod_error(FUPERMOD_ERR_USAGE, "no functions given");
  for (int i = 0; i < prob->p; i++) {
    const fupermod_points *f = prob->f[i];
    if (!f || f->count < 1)
      return fupermod_error(FUPERMOD_ERR_INPUT, "function of processor %d is empty", i);
    /* one test a point on the way (every partition runs it over every point) */
    for (long k = 0, prev = 0; k < f->count; prev = f->pts[k++].d) {
      const fupermod_point *pt = &f->pts[k];
      int good = pt->d > prev && pt->t > 0 && pt->t < INFINITY;
      if (good && !fupermod_point_abandoned(pt)) continue;
      if (!good)
        return fupermod_error(FUPERMOD_ERR_INPUT,
                              "function of processor %d: point %ld (d=%ld, t=%g) is not a positive, "
                              "strictly increasing size with a positive time", i, k, pt->d, pt->t);
      return fupermod_error(FUPERMOD_ERR_INPUT, "function of processor %d: d=%ld was abandoned, not measured", i,
                            pt->d);
    }
    if (alg && alg->needs_energy && !f->has_energy)
      return fupermod_error(FUPERMOD_ERR_INPUT, "%s needs energy, but the function of processor %d has none",
                            alg->name, i);
    if (alg && alg->homogeneous && f != prob->f[0]) {
      const fupermod_points *g = prob->f[0];
      int same = f->count == g->count;
      for (int k = 0; same && k < f->count; k++)
        same = f->pts[k].d == g->pts[k].d && f->pts[k].t == g->pts[k].t &&
               (!alg->needs_energy || f->pts[k].e == g->pts[k].e);
      if (!same)
        return fupermod_error(FUPERMOD_ERR_USAGE,
                              "%s is for identical processors, but the functions of processors 0 and %d differ",
                              alg->name, i);
    }
  }
  if (alg && alg->needs_static_power && !(prob->static_power >= 0 && isfinite(prob->static_power)))
    return fupermod_error(FUPERMOD_ERR_USAGE, "%s needs a static power >= 0 (W)", alg->name);
  return FUPERMOD_SUCCESS;
}

int fupermod_problem_evaluate(const fupermod_problem *prob, const long *d, double *time, double *energy,
                              fupermod_dist *dist) {
  double T = 0.0, E = 0.0;
  long sum = 0;
  for (int i = 0; i < prob->p; i++) {
    double t = 0.0, e = 0.0;
    if (d[i] < 0) return fupermod_error(FUPERMOD_ERR_INFEASIBLE, "processor %d gets %ld < 0 units", i, d[i]);
    if (d[i] > 0) {
      int k = fupermod_points_find(prob->f[i], d[i]);
      if (k < 0)
        return fupermod_error(FUPERMOD_ERR_INFEASIBLE, "processor %d gets %ld units, a size not in its function",
                              i, d[i]);
      t = prob->f[i]->pts[k].t;
      e = prob->f[i]->has_energy ? prob->f[i]->pts[k].e : NAN;
    }
    if (t > T) T = t;
    E += e;
    sum += d[i];
    if (dist) {
      dist->parts[i].d = d[i];
      dist->parts[i].t = t;
      dist->parts[i].e = e;
    }
  }
  if (sum != prob->D)
    return fupermod_error(FUPERMOD_ERR_INFEASIBLE, "parts sum to %ld, not D=%ld", sum, prob->D);
  if (dist) dist->D = prob->D;
  if (time) *time = T;
  if (energy) *energy = E;
  return FUPERMOD_SUCCESS;
}
