/* Helpers shared by the exact energy and Pareto partitioners (see energy_common.h). */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "partitioners/energy_common.h"

int fupermod_en_push(fupermod_en_pset *s, double t, double e, int active, int a, int b) {
  if (s->n == s->cap) {
    int cap = s->cap ? 2 * s->cap : 4;
    fupermod_en_pe *v = realloc(s->v, (size_t)cap * sizeof *v);
    if (!v) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory (Pareto set of %d points)", cap);
    s->v = v;
    s->cap = cap;
  }
  s->v[s->n] = (fupermod_en_pe){t, e, active, a, b, s->n};
  s->n++;
  return FUPERMOD_SUCCESS;
}

static int pe_cmp(const void *pa, const void *pb) {
  const fupermod_en_pe *x = pa, *y = pb;
  if (x->t != y->t) return x->t < y->t ? -1 : 1;
  if (x->e != y->e) return x->e < y->e ? -1 : 1;
  if (x->active != y->active) return x->active < y->active ? -1 : 1;
  return (x->g > y->g) - (x->g < y->g);
}

void fupermod_en_nd(fupermod_en_pset *s) {
  int k = 0;
  if (s->n > 1) qsort(s->v, (size_t)s->n, sizeof *s->v, pe_cmp);
  /* after the sort a candidate survives iff its energy is below every earlier one's */
  for (int i = 0; i < s->n; i++)
    if (k == 0 || s->v[i].e < s->v[k - 1].e) s->v[k++] = s->v[i];
  s->n = k;
  for (int i = 0; i < k; i++) s->v[i].g = i;
}

void fupermod_en_free(fupermod_en_pset *s) {
  free(s->v);
  s->v = NULL;
  s->n = s->cap = 0;
}

static int dbl_cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static int int_cmp(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

int fupermod_en_ranks_init(fupermod_en_ranks *rk, const fupermod_problem *prob) {
  size_t n = 1, np = prob->p > 0 ? (size_t)prob->p : 1;
  int R = 0;
  memset(rk, 0, sizeof *rk);
  rk->p = prob->p;
  for (int i = 0; i < prob->p; i++) n += (size_t)prob->f[i]->count;
  rk->times = malloc(n * sizeof *rk->times);
  rk->rank = calloc(np, sizeof *rk->rank);
  if (!rk->times || !rk->rank) goto nomem;
  rk->times[0] = 0.0;
  n = 1;
  for (int i = 0; i < prob->p; i++)
    for (int k = 0; k < prob->f[i]->count; k++) rk->times[n++] = prob->f[i]->pts[k].t;
  qsort(rk->times, n, sizeof *rk->times, dbl_cmp);
  for (size_t i = 0; i < n; i++)
    if (R == 0 || rk->times[i] != rk->times[R - 1]) rk->times[R++] = rk->times[i];
  rk->R = R;
  for (int i = 0; i < prob->p; i++) {
    const fupermod_points *f = prob->f[i];
    if (!(rk->rank[i] = malloc((size_t)f->count * sizeof **rk->rank))) goto nomem;
    for (int k = 0; k < f->count; k++) {
      const double *at = bsearch(&f->pts[k].t, rk->times, (size_t)R, sizeof *rk->times, dbl_cmp);
      rk->rank[i][k] = (int)(at - rk->times);
    }
  }
  rk->stamp = calloc((size_t)R, sizeof *rk->stamp);
  rk->touched = malloc((size_t)R * sizeof *rk->touched);
  rk->best = malloc((size_t)R * sizeof *rk->best);
  if (!rk->stamp || !rk->touched || !rk->best) goto nomem;
  return FUPERMOD_SUCCESS;
nomem:
  fupermod_en_ranks_free(rk);
  return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory (time ranks)");
}

void fupermod_en_ranks_free(fupermod_en_ranks *rk) {
  if (rk->rank)
    for (int i = 0; i < rk->p; i++) free(rk->rank[i]);
  free(rk->rank);
  free(rk->times);
  free(rk->stamp);
  free(rk->touched);
  free(rk->best);
  memset(rk, 0, sizeof *rk);
}

void fupermod_en_begin(fupermod_en_ranks *rk) {
  rk->cur++;
  rk->nt = 0;
}

static inline void offer(fupermod_en_ranks *rk, int r, double e, int active, int a, int b) {
  fupermod_en_pe *q = &rk->best[r];
  if (rk->stamp[r] != rk->cur) {
    rk->stamp[r] = rk->cur;
    rk->touched[rk->nt++] = r;
    *q = (fupermod_en_pe){rk->times[r], e, active, a, b, r};
  } else if (e < q->e || (e == q->e && active < q->active)) {
    *q = (fupermod_en_pe){rk->times[r], e, active, a, b, r};
  }
}

void fupermod_en_add_idle(fupermod_en_ranks *rk, const fupermod_en_pset *sub) {
  for (int j = 0; j < sub->n; j++) offer(rk, sub->v[j].g, sub->v[j].e, sub->v[j].active, -1, j);
}

void fupermod_en_add_ext(fupermod_en_ranks *rk, const fupermod_en_pset *sub, int rx, double ex, int copies,
                         int pa) {
  int j0 = -1;
  /* sub: time strictly increasing, energy strictly decreasing; those at or below the point's
   * time all become that time, so only the last of them (least energy) can survive */
  while (j0 + 1 < sub->n && sub->v[j0 + 1].g <= rx) j0++;
  for (int j = j0 < 0 ? 0 : j0; j < sub->n; j++) {
    double e = sub->v[j].e;
    for (int c = 0; c < copies; c++) e += ex; /* one processor at a time, as evaluated */
    offer(rk, j == j0 ? rx : sub->v[j].g, e, sub->v[j].active + copies, pa, j);
  }
}

int fupermod_en_end(fupermod_en_ranks *rk, fupermod_en_pset *s) {
  int rc;
  if (rk->nt > 1) qsort(rk->touched, (size_t)rk->nt, sizeof *rk->touched, int_cmp);
  for (int i = 0; i < rk->nt; i++) {
    const fupermod_en_pe *q = &rk->best[rk->touched[i]];
    if (s->n == 0 || q->e < s->v[s->n - 1].e) {
      if ((rc = fupermod_en_push(s, q->t, q->e, q->active, q->a, q->b))) return rc;
      s->v[s->n - 1].g = q->g;
    }
  }
  return FUPERMOD_SUCCESS;
}

int fupermod_en_check(const fupermod_problem *prob, const fupermod_partitioner *alg) {
  long cap = 0;
  int rc = fupermod_problem_check(prob, alg);
  if (rc) return rc;
  for (int i = 0; i < prob->p; i++) {
    const fupermod_points *f = prob->f[i];
    for (int k = 0; alg->needs_energy && k < f->count; k++)
      if (!(f->pts[k].e >= 0) || !isfinite(f->pts[k].e))
        return fupermod_error(FUPERMOD_ERR_INPUT,
                              "%s: function of processor %d: point %d (d=%ld) has energy %g, need a finite "
                              "value >= 0", alg->name, i, k, f->pts[k].d, f->pts[k].e);
    long top = f->pts[f->count - 1].d;
    cap = cap > LONG_MAX - top ? LONG_MAX : cap + top; /* saturate */
  }
  if (alg->needs_static_power && !(prob->static_power >= 0 && isfinite(prob->static_power)))
    return fupermod_error(FUPERMOD_ERR_USAGE, "%s: static_power must be finite and >= 0 W, got %g", alg->name,
                          prob->static_power);
  if (prob->D > cap)
    return fupermod_error(FUPERMOD_ERR_INFEASIBLE,
                          "%s: D=%ld exceeds %ld, the sum of the largest measured sizes of the p=%d processors",
                          alg->name, prob->D, cap, prob->p);
  return FUPERMOD_SUCCESS;
}

int fupermod_en_infeasible(const fupermod_problem *prob, const char *who) {
  return fupermod_error(FUPERMOD_ERR_INFEASIBLE,
                        "%s: D=%ld is not a sum of measured sizes with at most one size per processor (p=%d)",
                        who, prob->D, prob->p);
}

int fupermod_en_front_init(fupermod_front *out, const char *who) {
  if (!out) return fupermod_error(FUPERMOD_ERR_USAGE, "%s: no output front given (out is NULL)", who);
  out->count = 0;
  out->points = NULL;
  return FUPERMOD_SUCCESS;
}

int fupermod_en_front_append(fupermod_front *out, const fupermod_problem *prob, const long *d, int total) {
  fupermod_front_point *pts = realloc(out->points, (size_t)(out->count + 1) * sizeof *pts);
  fupermod_front_point *fp;
  int rc;
  if (!pts) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory (front of %d points)", out->count + 1);
  out->points = pts;
  fp = &pts[out->count];
  if (!(fp->dist = fupermod_dist_alloc(prob->D, prob->p))) return FUPERMOD_ERR_NOMEM;
  rc = fupermod_problem_evaluate(prob, d, &fp->time, &fp->dynamic_energy, fp->dist);
  if (rc) {
    fupermod_dist_free(fp->dist);
    return fupermod_error_prefix(rc, "internal error: a witness distribution is invalid");
  }
  fp->energy = total ? fp->dynamic_energy + prob->static_power * fp->time : fp->dynamic_energy;
  out->count++;
  return FUPERMOD_SUCCESS;
}

int fupermod_en_time_opt(const fupermod_problem *prob, long *d) {
  const int p = prob->p;
  const long D = prob->D, W = D + 1;
  double *cur = malloc((size_t)W * sizeof *cur), *prev = malloc((size_t)W * sizeof *prev);
  int *ch = malloc((size_t)p * (size_t)W * sizeof *ch); /* point index given to processor h, -1 idle */
  int rc = FUPERMOD_SUCCESS;
  if (!cur || !prev || !ch) {
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory (time table of %d x %ld)", p, W);
    goto done;
  }
  for (long v = 0; v < W; v++) prev[v] = v ? INFINITY : 0.0; /* no processor yet */
  for (int h = 0; h < p; h++) {
    const fupermod_points *f = prob->f[h];
    for (long v = 0; v < W; v++) {
      double best = prev[v];
      int c = -1;
      for (int k = 0; k < f->count && f->pts[k].d <= v; k++) {
        double sub = prev[v - f->pts[k].d];
        double t = sub > f->pts[k].t ? sub : f->pts[k].t;
        if (t < best) best = t, c = k;
      }
      cur[v] = best;
      ch[(size_t)h * W + v] = c;
    }
    double *tmp = prev;
    prev = cur;
    cur = tmp;
  }
  if (!isfinite(prev[D])) {
    rc = fupermod_en_infeasible(prob, "time-optimal distribution");
    goto done;
  }
  for (long v = D, h = p - 1; h >= 0; h--) {
    int c = ch[(size_t)h * W + v];
    d[h] = c < 0 ? 0 : prob->f[h]->pts[c].d;
    v -= d[h];
  }
done:
  free(cur);
  free(prev);
  free(ch);
  return rc;
}
