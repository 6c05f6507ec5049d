/* popta: POPTA (Lastovetsky & Reddy, as summarised in Manumachu & Lastovetsky 2018, Alg. 1-2) for
 * p identical processors: minimise the largest time, idle processors allowed.
 *
 * Both modes scan the "right" points x > floor(n/p) in order of increasing time (ties: smaller
 * size first), give x to r = 1..p-1 processors and solve the left part n - r*x on p - r processors.
 *
 * Default (exact): a point is only worth trying while its time is below the best time found so
 * far (any better distribution other than the balanced one holds some x > floor(n/p) faster than
 * it), and left parts are solved exactly. The memo keeps, per (n, p), either the exact optimum or
 * a lower bound (the cap under which a bounded search found nothing), so bounded searches stay
 * sound.
 *
 * Faithful (prob->faithful): the printed kernel with the reconstructed GetBE; only the
 * typographical slips are fixed (one time table, memo keyed by (n_l, p - r), +inf sentinels,
 * "Go To 44" leaves both loops). Its pruning E_l = min(E_l, t_r) and the strict break t_r >= E are
 * kept, so it can miss the optimum (spec 7.2: T = (15,8,16,13,2), n = 7, p = 3 gives 15, not 8).
 * Should it find no distribution at all where one exists (possible with holes in the sizes), the
 * exact search answers instead. fupermod_popta_traced (partitioners/popta.h, a test hook) records
 * the faithful kernel's sub-calls. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "partitioners/popta.h"
#include "partitioners/time_common.h"

static int popta_discrete(const fupermod_problem *prob, fupermod_dist *out);

const fupermod_partitioner fupermod_partitioner_popta = {
  .name = "popta",
  .description = "POPTA: optimal time on identical processors (exact by default; faithful = as printed)",
  .kind = FUPERMOD_PART_DISCRETE,
  .model_type = NULL,
  .homogeneous = 1,
  .needs_energy = 0,
  .needs_static_power = 0,
  .continuous = NULL,
  .discrete = popta_discrete,
  .pareto = NULL,
};

typedef struct {
  long n;        /* workload (granules) */
  int p;
  int m;         /* usable points (size <= n) */
  const long *x; /* sizes ascending */
  const double *t;
  int *idx;      /* idx[v]: point of size v, or -1 (v in 0..n) */
  int *ord;      /* points by (time, size) */
  double *sufmin; /* sufmin[k]: least time among points k..m-1 */
} func_t;

static inline double T(const func_t *f, long v) {
  if (v == 0) return 0.0;
  if (v < 0 || v > f->n || f->idx[v] < 0) return INFINITY;
  return f->t[f->idx[v]];
}

/* Time of the balanced split of n over q: floor(n/q) each, one more on the first n mod q. */
static double balanced_time(const func_t *f, long n, int q) {
  long lo = n / q;
  double a = n % q ? T(f, lo + 1) : 0.0, b = lo > 0 ? T(f, lo) : 0.0;
  return a > b ? a : b;
}

static void balanced_dist(long n, int q, long *d) {
  for (int i = 0; i < q; i++) d[i] = n / q + (i < n % q ? 1 : 0);
}

/* Least time among points larger than B (the first point of the sorted array X^[B]). */
static double first_time(const func_t *f, long B) {
  int lo = 0, hi = f->m;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (f->x[mid] > B) hi = mid;
    else lo = mid + 1;
  }
  return lo < f->m ? f->sufmin[lo] : INFINITY;
}

/* ---- exact mode ---- */

enum { M_NONE = 0, M_EXACT = 1, M_BOUND = 2 };

typedef struct {
  double v;  /* exact optimum, or a lower bound */
  long x;    /* exact: r copies of x + optimum of (n - r x, q - r); r = 0: balanced */
  int r;
  int state;
} xmemo_t;

typedef struct {
  const func_t *f;
  xmemo_t *memo; /* (q - 1) * (n + 1) + n' */
} exact_t;

/* Optimum of (n, q) if it is below cap, otherwise some value >= cap. */
static double solve(exact_t *s, long n, int q, double cap) {
  const func_t *f = s->f;
  xmemo_t *e;
  double best, bound;
  long B = n / q, bx = 0;
  int br = 0;
  if (n == 0) return 0.0;
  if (q == 1) return T(f, n);
  e = &s->memo[(size_t)(q - 1) * (size_t)(f->n + 1) + (size_t)n];
  if (e->state == M_EXACT || (e->state == M_BOUND && e->v >= cap)) return e->v;
  best = balanced_time(f, n, q);
  bound = best < cap ? best : cap;
  for (int j = 0; j < f->m; j++) {
    const int k = f->ord[j];
    const long x = f->x[k];
    const double tr = f->t[k];
    if (tr >= bound) break; /* a better split needs a right point faster than the bound */
    if (x <= B) continue;
    for (int r = 1; r < q; r++) {
      long nl = n - r * x;
      double cand;
      if (nl < 0) break;
      if (nl == 0) cand = tr;
      else {
        double tl = solve(s, nl, q - r, bound);
        cand = tl > tr ? tl : tr;
      }
      if (cand < best) {
        best = cand;
        bx = x;
        br = r;
        bound = best < cap ? best : cap;
      }
    }
  }
  if (best < cap || cap == INFINITY) {
    e->state = M_EXACT;
    e->v = best;
    e->x = bx;
    e->r = br;
  } else {
    e->state = M_BOUND;
    e->v = cap;
  }
  return best;
}

static void rebuild(const exact_t *s, long n, int q, long *d) {
  while (q > 0) {
    const xmemo_t *e;
    if (n == 0) {
      memset(d, 0, (size_t)q * sizeof *d);
      return;
    }
    if (q == 1) {
      d[0] = n;
      return;
    }
    e = &s->memo[(size_t)(q - 1) * (size_t)(s->f->n + 1) + (size_t)n];
    if (e->r == 0) {
      balanced_dist(n, q, d);
      return;
    }
    for (int i = 0; i < e->r; i++) d[i] = e->x;
    d += e->r;
    n -= e->r * e->x;
    q -= e->r;
  }
}

static int popta_exact(const func_t *f, long *d, double *t) {
  exact_t s;
  int rc = fupermod_dtime_table_check("popta", f->p, f->n + 1);
  if (rc != FUPERMOD_SUCCESS) return rc;
  s.f = f;
  s.memo = calloc((size_t)f->p * (size_t)(f->n + 1), sizeof *s.memo);
  if (!s.memo) return fupermod_error(FUPERMOD_ERR_NOMEM, "popta: out of memory for the memo");
  *t = solve(&s, f->n, f->p, INFINITY);
  if (isfinite(*t)) rebuild(&s, f->n, f->p, d);
  free(s.memo);
  return FUPERMOD_SUCCESS;
}

/* ---- faithful mode ---- */

typedef struct {
  int L;      /* resume position in the time-sorted points */
  double t;   /* best time found */
  long *d;    /* its distribution (q entries), NULL before the first write */
} fmemo_t;

typedef struct {
  const func_t *f;
  fmemo_t **memo; /* (q - 1) * (n + 1) + n', allocated on first use */
  int nomem;
  fupermod_popta_trace *trace; /* NULL unless traced */
  long g;                      /* granule, to report sizes in units */
} faithful_t;

static void trace_add(faithful_t *s, int level, long nr, int r, long n, int q, double E, int how) {
  fupermod_popta_trace *tr = s->trace;
  if (!tr) return;
  if ((tr->count & (tr->count - 1)) == 0) { /* grow at powers of two */
    fupermod_popta_call *c = realloc(tr->calls, (size_t)(tr->count ? 2 * tr->count : 1) * sizeof *c);
    if (!c) {
      s->nomem = 1;
      return;
    }
    tr->calls = c;
  }
  tr->calls[tr->count++] = (fupermod_popta_call){level, nr * s->g, r, n * s->g, q, n / q * s->g, E, how};
}

static fmemo_t *fmemo(faithful_t *s, long n, int q, int create) {
  fmemo_t **slot = &s->memo[(size_t)(q - 1) * (size_t)(s->f->n + 1) + (size_t)n];
  if (!*slot && create) {
    *slot = calloc(1, sizeof **slot);
    if (!*slot) s->nomem = 1;
    else (*slot)->t = INFINITY;
  }
  return *slot;
}

/* GetBE: B = floor(n/q) and E = time of the balanced split; returns 0 when ceil(n/q) exceeds the
 * largest size (the "B > |X|" signal). */
static int get_be(const func_t *f, long n, int q, long *B, double *E) {
  long hi = (n + q - 1) / q;
  if (f->m == 0 || hi > f->x[f->m - 1]) return 0;
  *B = n / q;
  *E = balanced_time(f, n, q);
  return 1;
}

/* POPTAKernel(n, q, E): best distribution into d (q entries) and its time into *t; depth 0 is
 * the driver's call. */
static void kernel(faithful_t *s, long n, int q, double E, long *d, double *t, int depth) {
  const func_t *f = s->f;
  fmemo_t *me;
  long B = n / q, *xl;
  double topt;
  int L, stop = 0;
  if (q == 1) {
    d[0] = n;
    *t = T(f, n);
    return;
  }
  me = fmemo(s, n, q, 1);
  xl = malloc((size_t)q * sizeof *xl);
  if (!me || !xl || (!me->d && !(me->d = malloc((size_t)q * sizeof *me->d)))) {
    s->nomem = 1;
    free(xl);
    *t = INFINITY;
    return;
  }
  balanced_dist(n, q, d); /* lines 3-5 */
  topt = balanced_time(f, n, q);
  if (me->t < topt) { /* resuming: start from what the earlier call found */
    memcpy(d, me->d, (size_t)q * sizeof *d);
    topt = me->t;
  }
  for (L = me->L; L < f->m && !stop; L++) {
    const int k = f->ord[L];
    const long nr = f->x[k];
    const double tr = f->t[k];
    if (nr <= B) continue; /* not in X^[B] */
    if (tr >= E) break;    /* line 9, strict as printed */
    for (int r = 1; r < q; r++) {
      long nl = n - r * nr, Bl;
      double El, tl;
      if (nl < 0) break;
      if (nl == 0) { /* lines 13-17 */
        trace_add(s, depth + 1, nr, r, 0, q - r, 0.0, FUPERMOD_POPTA_ALL_RIGHT);
        if (tr < topt) {
          for (int i = 0; i < q; i++) d[i] = i < r ? nr : 0;
          topt = tr;
        }
        continue;
      }
      if (!get_be(f, nl, q - r, &Bl, &El)) { /* line 20 */
        trace_add(s, depth + 1, nr, r, nl, q - r, INFINITY, FUPERMOD_POPTA_INFEASIBLE);
        continue;
      }
      if (nl % (q - r) != 0 || El > first_time(f, Bl)) {
        fmemo_t *ml = fmemo(s, nl, q - r, 0);
        double tm = ml && ml->d ? ml->t : INFINITY;
        if (tr < El) El = tr; /* line 22: the unsafe cap */
        if (tm <= El && (tm > tr ? tm : tr) < topt) {
          trace_add(s, depth + 1, nr, r, nl, q - r, El, FUPERMOD_POPTA_MEMO);
          tl = tm;
          memcpy(xl, ml->d, (size_t)(q - r) * sizeof *xl);
        } else {
          trace_add(s, depth + 1, nr, r, nl, q - r, El, FUPERMOD_POPTA_CALL);
          kernel(s, nl, q - r, El, xl, &tl, depth + 1);
        }
      } else { /* lines 33-37: the balanced left part is optimal */
        trace_add(s, depth + 1, nr, r, nl, q - r, El, FUPERMOD_POPTA_BALANCED);
        tl = El;
        balanced_dist(nl, q - r, xl);
      }
      if ((tl > tr ? tl : tr) < topt) { /* lines 39-43 */
        for (int i = 0; i < r; i++) d[i] = nr;
        memcpy(d + r, xl, (size_t)(q - r) * sizeof *d);
        topt = tl > tr ? tl : tr;
        if (tl <= tr) {
          stop = 1;
          break;
        }
      }
    }
    if (stop) break;
  }
  me->L = L; /* line 47 */
  me->t = topt;
  memcpy(me->d, d, (size_t)q * sizeof *d);
  *t = topt;
  free(xl);
}

static int popta_faithful(const func_t *f, long *d, double *t, fupermod_popta_trace *trace, long g) {
  faithful_t s;
  long B;
  double E;
  int rc = fupermod_dtime_table_check("popta", f->p, f->n + 1);
  if (rc != FUPERMOD_SUCCESS) return rc;
  *t = INFINITY;
  if (!get_be(f, f->n, f->p, &B, &E)) return FUPERMOD_SUCCESS;
  if (f->n % f->p == 0 && E <= first_time(f, B)) { /* the driver's shortcut */
    balanced_dist(f->n, f->p, d);
    *t = E;
    if (trace) trace->shortcut = 1;
    return FUPERMOD_SUCCESS;
  }
  s.f = f;
  s.nomem = 0;
  s.trace = trace;
  s.g = g;
  trace_add(&s, 0, 0, 0, f->n, f->p, E, FUPERMOD_POPTA_CALL);
  s.memo = calloc((size_t)f->p * (size_t)(f->n + 1), sizeof *s.memo);
  if (!s.memo) return fupermod_error(FUPERMOD_ERR_NOMEM, "popta: out of memory for the memo");
  kernel(&s, f->n, f->p, E, d, t, 0);
  for (size_t i = 0; i < (size_t)f->p * (size_t)(f->n + 1); i++)
    if (s.memo[i]) {
      free(s.memo[i]->d);
      free(s.memo[i]);
    }
  free(s.memo);
  if (s.nomem) return fupermod_error(FUPERMOD_ERR_NOMEM, "popta: out of memory");
  return FUPERMOD_SUCCESS;
}

/* trace != NULL: faithful mode, traced. */
static int popta_run(const fupermod_problem *prob, fupermod_dist *out, fupermod_popta_trace *trace) {
  fupermod_dtime dt;
  func_t f;
  long *d = NULL;
  double t = INFINITY;
  int rc = fupermod_dtime_init(prob, &fupermod_partitioner_popta, out, &dt);
  if (rc != FUPERMOD_SUCCESS) return rc;
  memset(&f, 0, sizeof f);
  f.n = dt.D;
  f.p = dt.p;
  f.x = dt.x; /* processor 0's points come first */
  f.t = dt.t;
  while (f.m < dt.off[1] && dt.x[f.m] <= dt.D) f.m++;
  if ((rc = fupermod_dtime_table_check("popta", f.p, f.n + 1)) != FUPERMOD_SUCCESS) goto done;
  f.idx = malloc((size_t)(f.n + 1) * sizeof *f.idx);
  f.ord = malloc((size_t)(f.m + 1) * sizeof *f.ord);
  f.sufmin = malloc((size_t)(f.m + 1) * sizeof *f.sufmin);
  d = calloc((size_t)dt.p, sizeof *d);
  if (!f.idx || !f.ord || !f.sufmin || !d) {
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "popta: out of memory");
    goto done;
  }
  for (long v = 0; v <= f.n; v++) f.idx[v] = -1;
  for (int k = 0; k < f.m; k++) f.idx[f.x[k]] = k;
  for (int k = f.m - 1; k >= 0; k--)
    f.sufmin[k] = k + 1 < f.m && f.sufmin[k + 1] < f.t[k] ? f.sufmin[k + 1] : f.t[k];
  if ((rc = fupermod_dtime_order(f.x, f.t, f.m, f.ord)) != FUPERMOD_SUCCESS) goto done;

  if (f.n == 0) t = 0.0;
  else if (prob->faithful || trace) rc = popta_faithful(&f, d, &t, trace, dt.g);
  if (rc == FUPERMOD_SUCCESS && !isfinite(t)) {
    if (trace && f.n > 0) trace->fell_back = 1;
    rc = popta_exact(&f, d, &t);
  }
  if (rc == FUPERMOD_SUCCESS)
    rc = isfinite(t) ? fupermod_dtime_finish(prob, &dt, d, FUPERMOD_OBJ_TIME, t, out)
                     : fupermod_dtime_infeasible(prob);

done:
  free(f.idx);
  free(f.ord);
  free(f.sufmin);
  free(d);
  fupermod_dtime_free(&dt);
  return rc;
}

static int popta_discrete(const fupermod_problem *prob, fupermod_dist *out) { return popta_run(prob, out, NULL); }

int fupermod_popta_traced(const fupermod_problem *prob, fupermod_dist *out, fupermod_popta_trace *trace) {
  int rc;
  if (!trace) return popta_run(prob, out, NULL);
  memset(trace, 0, sizeof *trace);
  rc = popta_run(prob, out, trace);
  if (rc != FUPERMOD_SUCCESS) fupermod_popta_trace_free(trace);
  return rc;
}

void fupermod_popta_trace_free(fupermod_popta_trace *trace) {
  if (!trace) return;
  free(trace->calls);
  trace->calls = NULL;
  trace->count = 0;
}
