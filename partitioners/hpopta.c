/* hpopta: HPOPTA (Khaleghzadeh's thesis, ch. 3, Alg. 1-2 and 13-20) for heterogeneous processors:
 * minimise max_i t_i(x_i), idle processors allowed.
 *
 * A depth-first branch and bound over the solution tree (level c assigns processor c; children
 * are idle, then the points of c by (time, size)), with the time threshold tau (only points with
 * t < tau are examined), the size thresholds sigma (cut a node (c, w) when w > sigma_c), the
 * bottleneck backtrack and the memo Mem[c][w] = <t, resume index, x> for levels 1..p-2. The code
 * follows the rebuild of the spec (Appendix Z), including its guards, which the thesis lacks:
 * sizes outside a function are never accepted (the thesis' GetTime returns -1 for them, which
 * passes "< tau"), an infeasible load-equal start gives tau = +inf, a processor without a point
 * below tau contributes 0 to sigma, and a remainder of 0 rebuilds as idle processors.
 *
 * Faithful mode (prob->faithful) is exactly that search: it returns the first optimum in DFS
 * order (e.g. (9,9,7,6) for n = 31 in the thesis' example). The search is exact (checked against
 * dp on many random instances), but its cost has no useful bound: the O(m^3 p^3) claim assumes
 * every size 1..m is measured, and on smooth functions at p = 64, m = 1000 it visits ~10^8 nodes.
 * Default mode answers with the pruned decision search of hpopta_prune.c (exact, dp's tie rule).
 * With trace->node_limit > 0 (a test hook) it first runs the thesis search under that budget of
 * kernel calls, and answers with the pruned search past it. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "partitioners/hpopta.h"
#include "partitioners/hpopta_prune.h"
#include "partitioners/time_common.h"

static int hpopta_discrete(const fupermod_problem *prob, fupermod_dist *out);

const fupermod_partitioner fupermod_partitioner_hpopta = {
  .name = "hpopta",
  .description = "HPOPTA: optimal time on heterogeneous processors (pruned exact search, dp's tie rule; faithful = the thesis' branch and bound)",
  .kind = FUPERMOD_PART_DISCRETE,
  .model_type = NULL,
  .homogeneous = 0,
  .needs_energy = 0,
  .needs_static_power = 0,
  .continuous = NULL,
  .discrete = hpopta_discrete,
  .pareto = NULL,
};

#define NE_IDX INT_MIN
#define FI_IDX (INT_MIN + 1)

typedef struct {
  double t; /* best time of the subtree (< 0: NE) */
  int last; /* resume index, NE_IDX or FI_IDX (-1 is the idle child) */
  long x;   /* size given to the level by that best */
} cell_t;

typedef struct {
  const fupermod_dtime *dt;
  int p;
  long n;
  int *ord;     /* per processor, its points (global indices) by (time, size) */
  cell_t *mem;  /* (c - 1) * (n + 1) + w, c in 1..p-2 */
  long *sig, *X, *Xo;
  int have_xo;
  double tau;
  int bk;       /* bottleneck level of the last solution, -1 = none */
  int err;      /* a status, or ABORTED */
  long nodes, limit; /* kernel calls so far, and the budget (0: none) */
  fupermod_hpopta_trace *trace;
} hp_t;

enum { R_NOT, R_SOL, R_SOLRES, R_RES, R_NEW };
#define ABORTED 1 /* the budget ran out (not a library status) */

/* Time of x on processor i: 0 for idle, -1 outside its function. */
static double gt(const hp_t *s, int i, long x) {
  const fupermod_dtime *dt = s->dt;
  int lo = dt->off[i], hi = dt->off[i + 1] - 1;
  if (x == 0) return 0.0;
  while (lo <= hi) {
    int mid = lo + (hi - lo) / 2;
    if (dt->x[mid] == x) return dt->t[mid];
    if (dt->x[mid] < x) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1.0;
}

static inline int npts(const hp_t *s, int c) { return s->dt->off[c + 1] - s->dt->off[c]; }
static inline long xa(const hp_t *s, int c, int j) { return j < 0 ? 0 : s->dt->x[s->ord[s->dt->off[c] + j]]; }
static inline double ta(const hp_t *s, int c, int j) { return j < 0 ? 0.0 : s->dt->t[s->ord[s->dt->off[c] + j]]; }
static inline cell_t *M(hp_t *s, int c, long w) { return &s->mem[(size_t)(c - 1) * (size_t)(s->n + 1) + (size_t)w]; }

static void record(hp_t *s, const long *x) {
  fupermod_hpopta_trace *tr = s->trace;
  fupermod_hpopta_step *st, *grown;
  if (!tr || s->err) return;
  grown = realloc(tr->steps, (size_t)(tr->count + 1) * sizeof *grown);
  if (!grown) {
    s->err = FUPERMOD_ERR_NOMEM;
    return;
  }
  tr->steps = grown;
  st = &tr->steps[tr->count];
  st->tau = s->tau;
  st->x = malloc((size_t)s->p * sizeof *st->x);
  st->sigma = malloc((size_t)s->p * sizeof *st->sigma);
  if (!st->x || !st->sigma) {
    free(st->x);
    free(st->sigma);
    s->err = FUPERMOD_ERR_NOMEM;
    return;
  }
  for (int i = 0; i < s->p; i++) {
    st->x[i] = x[i] * s->dt->g;
    st->sigma[i] = s->sig[i] > LONG_MAX / s->dt->g ? LONG_MAX : s->sig[i] * s->dt->g;
  }
  tr->count++;
}

/* SizeThresholds: sigma_c = sum over c..p-1 of the largest size with t < tau (0 if none). */
static void thr(hp_t *s) {
  long acc = 0;
  for (int i = s->p - 1; i >= 0; i--) {
    long mx = 0;
    for (int j = 0; j < npts(s, i) && ta(s, i, j) < s->tau; j++)
      if (xa(s, i, j) > mx) mx = xa(s, i, j);
    acc = acc > LONG_MAX - mx ? LONG_MAX : acc + mx;
    s->sig[i] = acc;
  }
}

static void rec(hp_t *s, int c, long w) {
  long r;
  s->X[c] = M(s, c, w)->x;
  r = w - s->X[c];
  for (int i = c + 1; i < s->p - 1; i++) {
    if (r == 0) s->X[i] = 0;
    else if (M(s, i, r)->t < 0) { /* never happens when the memo is consistent */
      s->err = FUPERMOD_ERR_NUMERIC;
      s->X[i] = 0;
    } else s->X[i] = M(s, i, r)->x;
    r -= s->X[i];
  }
  s->X[s->p - 1] = r;
}

static int readmem(hp_t *s, long w, int c, int *resume) {
  cell_t *m = M(s, c, w);
  if (m->last == FI_IDX) {
    if (m->t < 0 || m->t >= s->tau) return R_NOT;
    rec(s, c, w);
    return R_SOL;
  }
  if (m->t >= 0 && m->t < s->tau && m->last != NE_IDX && xa(s, c, m->last) != m->x) {
    rec(s, c, w);
    *resume = m->last;
    return R_SOLRES;
  }
  if (m->last != NE_IDX) {
    *resume = m->last;
    return R_RES;
  }
  return R_NEW;
}

static int active(const long *x, int p) {
  int a = 0;
  for (int i = 0; i < p; i++) a += x[i] != 0;
  return a;
}

/* ProcessSolution; frm = -1 saves every level. */
static void proc(hp_t *s, int frm) {
  const int p = s->p;
  long *X = s->X, sz = X[p - 1];
  double tm = gt(s, p - 1, X[p - 1]), t0;
  int b = p - 1;
  for (int i = p - 2; i >= 1; i--) {
    double ti = gt(s, i, X[i]);
    if (ti >= tm) {
      tm = ti;
      b = i;
    }
    sz += X[i];
    if (sz && (frm == -1 || i < frm)) {
      cell_t *m = M(s, i, sz);
      if (m->t < 0 || m->t > tm) {
        m->t = tm;
        m->x = X[i];
      }
    }
  }
  t0 = gt(s, 0, X[0]);
  if (t0 >= tm) {
    tm = t0;
    b = 0;
  }
  s->bk = b;
  if (tm < s->tau) {
    s->tau = tm;
    memcpy(s->Xo, X, (size_t)p * sizeof *X);
    s->have_xo = 1;
    thr(s);
    record(s, X);
  } else if (tm == s->tau && s->have_xo && active(X, p) < active(s->Xo, p)) {
    memcpy(s->Xo, X, (size_t)p * sizeof *X);
  }
}

static int back(hp_t *s, long w, int c, int j, double tc, int frommem) {
  if (s->bk >= 0 && s->bk < c) {
    if (frommem) return 1;
    if (c >= 1 && c <= s->p - 2) M(s, c, w)->last = tc == s->tau ? FI_IDX : j;
    return 1;
  }
  if (s->bk == c) {
    s->bk = -1;
    if (c >= 1 && c <= s->p - 2) M(s, c, w)->last = FI_IDX;
    return 1;
  }
  s->bk = -1;
  return 0;
}

static void kernel(hp_t *s, long w, int c) {
  const int p = s->p;
  int j = -1;
  if (s->err) return;
  if (s->limit && ++s->nodes > s->limit) {
    s->err = ABORTED;
    return;
  }
  if (s->trace) s->trace->nodes++;
  if (w > s->sig[c]) {
    if (s->trace && s->trace->first_cut_level < 0) {
      s->trace->first_cut_level = c;
      s->trace->first_cut_w = w * s->dt->g;
    }
    return;
  }
  if (c == p - 1) {
    double t = gt(s, c, w);
    if (t >= 0 && t < s->tau) {
      s->X[c] = w;
      proc(s, -1);
    }
    return;
  }
  if (c >= 1 && c <= p - 2) {
    int r = 0;
    switch (readmem(s, w, c, &r)) {
    case R_NOT: return;
    case R_SOL: proc(s, c); return;
    case R_SOLRES:
      j = r;
      proc(s, c);
      if (back(s, w, c, j, gt(s, c, s->X[c]), 1)) return;
      break;
    case R_RES: j = r; break;
    default: break;
    }
  }
  while (ta(s, c, j) < s->tau) {
    long x = xa(s, c, j);
    s->X[c] = x;
    if (x == w) {
      for (int i = c + 1; i < p; i++) s->X[i] = 0;
      proc(s, -1);
    } else if (x < w) {
      kernel(s, w - x, c + 1);
    }
    if (s->err) return;
    if (back(s, w, c, j, ta(s, c, j), 0)) return;
    if (j + 1 == npts(s, c)) break;
    j++;
  }
  if (c >= 1 && c <= p - 2) M(s, c, w)->last = FI_IDX;
}

/* The search of the thesis on dt; Xo/tau hold the result (tau = +inf: nothing found). */
static int search(hp_t *s) {
  const int p = s->p;
  const long n = s->n;
  int feasible = 1;
  double t = 0.0;
  for (int i = 0; i < p; i++) {
    double ti;
    s->X[i] = n / p + (i < n % p ? 1 : 0);
    ti = gt(s, i, s->X[i]);
    if (ti < 0) feasible = 0;
    else if (ti > t) t = ti;
  }
  s->tau = feasible ? t : INFINITY;
  s->have_xo = feasible;
  if (feasible) memcpy(s->Xo, s->X, (size_t)p * sizeof *s->X);
  thr(s);
  record(s, s->X);
  memset(s->X, 0, (size_t)p * sizeof *s->X);
  s->bk = -1;
  if (p == 1) {
    double t0 = gt(s, 0, n);
    s->X[0] = n;
    if (t0 >= 0) {
      s->Xo[0] = n;
      s->tau = t0;
      s->have_xo = 1;
    }
    return s->err;
  }
  for (size_t i = 0; i < (size_t)(p > 2 ? p - 2 : 0) * (size_t)(n + 1); i++) {
    s->mem[i].t = -1.0;
    s->mem[i].last = NE_IDX;
    s->mem[i].x = 0;
  }
  kernel(s, n, 0);
  return s->err;
}

int fupermod_hpopta_traced(const fupermod_problem *prob, fupermod_dist *out, fupermod_hpopta_trace *trace) {
  fupermod_dtime dt;
  hp_t s;
  int rc;
  if (trace) {
    trace->count = 0;
    trace->steps = NULL;
    trace->first_cut_level = -1;
    trace->first_cut_w = -1;
    trace->nodes = 0;
    trace->fell_back = 0;
  }
  memset(&s, 0, sizeof s);
  /* the thesis search needs the points in granules; the pruned search reads them in place */
  if (!prob->faithful) s.limit = trace && trace->node_limit > 0 ? trace->node_limit : 0;
  rc = prob->faithful || s.limit > 0 ? fupermod_dtime_init_times(prob, &fupermod_partitioner_hpopta, out, &dt)
                                     : fupermod_dtime_check(prob, &fupermod_partitioner_hpopta, out, &dt);
  if (rc != FUPERMOD_SUCCESS) return rc;
  s.dt = &dt;
  s.p = dt.p;
  s.n = dt.D;
  s.trace = trace;
  if ((rc = fupermod_dtime_table_check("hpopta", dt.p, dt.D + 1)) != FUPERMOD_SUCCESS) goto done;
  s.Xo = malloc((size_t)dt.p * sizeof *s.Xo);
  if (!s.Xo) {
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "hpopta: out of memory");
    goto done;
  }
  if (prob->faithful || s.limit > 0) { /* the thesis search */
    s.ord = malloc((size_t)(dt.off[dt.p] + 1) * sizeof *s.ord);
    s.mem = malloc(((size_t)(dt.p > 2 ? dt.p - 2 : 0) * (size_t)(dt.D + 1) + 1) * sizeof *s.mem);
    s.sig = malloc((size_t)dt.p * sizeof *s.sig);
    s.X = malloc((size_t)dt.p * sizeof *s.X);
    if (!s.ord || !s.mem || !s.sig || !s.X) {
      rc = fupermod_error(FUPERMOD_ERR_NOMEM, "hpopta: out of memory");
      goto done;
    }
    for (int i = 0; i < dt.p && rc == FUPERMOD_SUCCESS; i++) {
      int o = dt.off[i];
      rc = fupermod_dtime_order(dt.x + o, dt.t + o, dt.off[i + 1] - o, s.ord + o);
      for (int k = o; k < dt.off[i + 1]; k++) s.ord[k] += o;
    }
    if (rc != FUPERMOD_SUCCESS) goto done;
    rc = search(&s);
    if (rc == ABORTED && trace) trace->fell_back = 1;
  } else {
    rc = ABORTED; /* default mode: no thesis search */
  }
  if (rc == ABORTED) { /* the pruned search answers */
    double value;
    if ((rc = fupermod_hpopta_prune(prob, &dt, s.Xo, &value)) != FUPERMOD_SUCCESS) goto done;
    s.have_xo = isfinite(value);
    s.tau = value;
  } else if (rc != FUPERMOD_SUCCESS) {
    rc = rc == FUPERMOD_ERR_NOMEM ? fupermod_error(rc, "hpopta: out of memory")
                                  : fupermod_error(rc, "hpopta: inconsistent memo (internal error)");
    goto done;
  }
  if (!s.have_xo) rc = fupermod_dtime_infeasible(prob);
  else rc = fupermod_dtime_finish(prob, &dt, s.Xo, FUPERMOD_OBJ_TIME, s.tau, out);
done:
  free(s.ord);
  free(s.mem);
  free(s.sig);
  free(s.X);
  free(s.Xo);
  fupermod_dtime_free(&dt);
  return rc;
}

void fupermod_hpopta_trace_free(fupermod_hpopta_trace *trace) {
  if (!trace) return;
  for (int i = 0; i < trace->count; i++) {
    free(trace->steps[i].x);
    free(trace->steps[i].sigma);
  }
  free(trace->steps);
  trace->steps = NULL;
  trace->count = 0;
}

static int hpopta_discrete(const fupermod_problem *prob, fupermod_dist *out) {
  return fupermod_hpopta_traced(prob, out, NULL);
}
