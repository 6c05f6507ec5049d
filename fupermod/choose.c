/* The choice among candidate distributions (fupermod/choose.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "fupermod/benchmark.h"
#include "fupermod/choose.h"
#include "fupermod/error.h"

static const char *const names[] = {"least", "predict", "race"};

const char *fupermod_choose_name(fupermod_choose_policy p) {
  return (int)p >= 0 && (int)p < 3 ? names[p] : "?";
}

int fupermod_choose_parse(const char *name) {
  for (int i = 0; name && i < 3; i++)
    if (strcmp(name, names[i]) == 0) return i;
  return -1;
}

static int usable(const fupermod_candidate *c) { return isfinite(c->pred); }

/* the least finite prediction (the first on ties), -1 without any */
static int least(const fupermod_candidate *c, int n) {
  int b = -1;
  for (int k = 0; k < n; k++)
    if (usable(&c[k]) && (b < 0 || c[k].pred < c[b].pred)) b = k;
  return b;
}

/* the base unless another candidate is faster beyond both intervals (then the least of those) */
static int predict(const fupermod_candidate *c, int n, int base) {
  int b = base >= 0 && base < n && usable(&c[base]) ? base : least(c, n);
  double hi = c[b].pred - (isfinite(c[b].pred_ci) ? c[b].pred_ci : 0);
  int pick = b;
  for (int k = 0; k < n; k++) {
    double ci = isfinite(c[k].pred_ci) ? c[k].pred_ci : INFINITY;
    if (usable(&c[k]) && c[k].pred + ci < hi && c[k].pred < c[pick].pred) pick = k;
  }
  return pick;
}

typedef struct {
  int k, n, in;
  double sum, sq;
} racer;

static void stats_of(racer *r, double cl, double *mean, double *ci) {
  *mean = r->sum / r->n;
  double var = r->n > 1 ? (r->sq - r->n * *mean * *mean) / (r->n - 1) : 0;
  *ci = fupermod_student_ci(r->n, sqrt(var > 0 ? var : 0), cl);
}

static int race(fupermod_candidate *c, int n, const fupermod_choose_opts *o, int lead, fupermod_choose_stats *st) {
  racer *r = calloc((size_t)n, sizeof *r);
  int m = 0, rc = FUPERMOD_SUCCESS, left, best = lead;
  double lead_ci = isfinite(c[lead].pred_ci) ? c[lead].pred_ci : 0;
  if (!r) return fupermod_error(FUPERMOD_ERR_NOMEM, "choose: out of memory");
  for (int k = 0; k < n; k++) {
    double ci = isfinite(c[k].pred_ci) ? c[k].pred_ci : 0;
    int below = 0; /* distinct candidates predicted faster than k: it is among the top where below < top */
    for (int j = 0; j < n; j++)
      below += j != k && usable(&c[j]) && c[j].same_as < 0 && (c[j].pred < c[k].pred || (c[j].pred == c[k].pred && j < k));
    if (usable(&c[k]) && c[k].same_as < 0 && (below < o->top || c[k].pred - ci <= c[lead].pred + lead_ci))
      r[m++] = (racer){k, 0, 1, 0, 0};
  }
  st->top = m;
  left = m;
  for (int round = 0; round < o->rounds && left > 1 && rc == FUPERMOD_SUCCESS; round++) {
    st->rounds++;
    /* a rotating order: the machine's drift during a round falls on each candidate in turn */
    for (int j = 0; j < m && rc == FUPERMOD_SUCCESS; j++) {
      racer *x = &r[(j + round) % m];
      double t = NAN;
      if (!x->in) continue;
      rc = o->measure(x->k, o->ctx, &t);
      if (rc == FUPERMOD_SUCCESS && !(t >= 0 && isfinite(t)))
        rc = fupermod_error(FUPERMOD_ERR_INPUT, "choose: the run of candidate %s measured %g s", c[x->k].label, t);
      x->n++, x->sum += t, x->sq += t * t;
    }
    if (rc != FUPERMOD_SUCCESS || round < 1) continue;
    double lm = INFINITY, lc = 0, mean, ci;
    int L = -1;
    for (int j = 0; j < m; j++)
      if (r[j].in && (stats_of(&r[j], o->cl, &mean, &ci), mean < lm)) lm = mean, lc = ci, L = j;
    for (int j = 0; j < m; j++)
      if (r[j].in && j != L && (stats_of(&r[j], o->cl, &mean, &ci), mean - ci > lm + lc)) r[j].in = 0, left--;
  }
  double bm = INFINITY;
  for (int j = 0; j < m; j++) {
    fupermod_candidate *x = &c[r[j].k];
    x->raced = r[j].n;
    if (r[j].n > 0) stats_of(&r[j], o->cl, &x->race_mean, &x->race_ci);
    if (r[j].in && r[j].n > 0 && x->race_mean < bm) bm = x->race_mean, best = r[j].k;
  }
  st->decided = m > 0 && left == 1;
  free(r);
  return rc == FUPERMOD_SUCCESS ? best : rc; /* an index, or a (negative) status */
}

int fupermod_choose(fupermod_candidate *c, int n, const fupermod_choose_opts *o, int *chosen,
                    fupermod_choose_stats *stats) {
  fupermod_choose_stats st = {0, 0, 0, 0};
  int lead, pick;
  if (!c || n < 1 || !o || !chosen) return fupermod_error(FUPERMOD_ERR_USAGE, "choose: no candidates, options or output");
  if (o->policy == FUPERMOD_CHOOSE_RACE && (!o->measure || o->rounds < 1 || !(o->cl > 0 && o->cl < 1)))
    return fupermod_error(FUPERMOD_ERR_USAGE, "choose: a race needs a measure, rounds >= 1 and a confidence level in (0, 1)");
  for (int k = 0; k < n; k++) {
    st.refused += !usable(&c[k]);
    c[k].raced = 0;
    c[k].race_mean = c[k].race_ci = NAN;
  }
  if (stats) *stats = st;
  if ((lead = least(c, n)) < 0)
    return fupermod_error(FUPERMOD_ERR_INFEASIBLE, "choose: none of the %d candidates has a prediction", n);
  switch (o->policy) {
  case FUPERMOD_CHOOSE_LEAST: pick = lead; break;
  case FUPERMOD_CHOOSE_PREDICT: pick = predict(c, n, o->base); break;
  case FUPERMOD_CHOOSE_RACE:
    if ((pick = race(c, n, o, lead, &st)) < 0) return pick;
    break;
  default: return fupermod_error(FUPERMOD_ERR_USAGE, "choose: unknown policy %d", (int)o->policy);
  }
  *chosen = pick;
  if (stats) *stats = st;
  return FUPERMOD_SUCCESS;
}
