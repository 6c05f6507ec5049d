/* dp: the exact dynamic programme over processors and workloads (the PARALEPH recurrence run
 * sequentially, idle processors allowed), for time (min-max) or dynamic energy (min-sum).
 *
 *   F_i(v) = min( F_{i-1}(v), min_{x in sizes_i, x <= v} op(c_i(x), F_{i-1}(v - x)) ),  F_{-1}(0) = 0
 *
 * op = max for time, + for energy. Only the optimal values are stored (one row per processor,
 * restricted to the workloads that can still lead to D); the witness is recovered by recomputing
 * each choice, which is exact because the same floating-point operation gives the same result.
 *
 * Tie rule: the last processor takes the first option, in the order idle, then increasing size,
 * that reaches the optimum; then each earlier processor takes the first option (same order) that
 * is optimal for what remains on the processors before it. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "partitioners/cpu.h"
#include "partitioners/time_common.h"

/* Rows are processed in blocks of workloads so that the block of the new row stays in cache while
 * every size streams through it. */
#define BLOCK 2048

typedef struct {
  long lo, hi;   /* workloads held by the row */
  size_t base;   /* offset of workload lo in the table */
} row_t;

/* cur[v] = min(cur[v], op(c, src[v])) for v in [v0, v1]; compiled twice, for AVX2 where the CPU
 * has it (partitioners/cpu.h: no target_clones, whose resolver links libgcc's CPU model). */
typedef void relax_fn(double *restrict cur, const double *restrict src, long v0, long v1, double c, int energy);

__attribute__((always_inline)) static inline void relax_body(double *restrict cur, const double *restrict src, long v0,
                                                             long v1, double c, int energy) {
  if (energy) {
#pragma omp simd
    for (long v = v0; v <= v1; v++) {
      double s = c + src[v];
      cur[v] = s < cur[v] ? s : cur[v];
    }
  } else {
#pragma omp simd
    for (long v = v0; v <= v1; v++) {
      double s = src[v] > c ? src[v] : c;
      cur[v] = s < cur[v] ? s : cur[v];
    }
  }
}

static void relax_plain(double *restrict cur, const double *restrict src, long v0, long v1, double c, int energy) {
  relax_body(cur, src, v0, v1, c, energy);
}

#if defined(__x86_64__)
__attribute__((target("avx2"))) static void relax_avx2(double *restrict cur, const double *restrict src, long v0,
                                                       long v1, double c, int energy) {
  relax_body(cur, src, v0, v1, c, energy);
}
#endif

static inline double at(const double *tab, const row_t *r, long v) {
  return v < r->lo || v > r->hi ? INFINITY : tab[r->base + (size_t)(v - r->lo)];
}

/* The values of the recurrence: row i holds F_i(v) for v in [row[i].lo, row[i].hi]. */
struct fupermod_dtime_table {
  int p, energy;
  long g;
  long *px;   /* usable sizes, packed per processor (poff) */
  double *pc; /* their costs */
  int *poff;
  row_t *row;
  double *tab;
};

void fupermod_dtime_dp_table_free(fupermod_dtime_table *T) {
  if (!T) return;
  free(T->px);
  free(T->pc);
  free(T->poff);
  free(T->row);
  free(T->tab);
  free(T);
}

/* Fill the table up to dt->D. every = 0: row i only holds the workloads that processors 0..i can
 * hold and i+1..p-1 can still complete to D; every = 1: every workload 0..D processors 0..i can
 * hold. Where a row is empty (D out of reach), *T has no table (tab NULL). */
static int table_build(const fupermod_dtime *dt, int objective, double tlo, double thi, int every,
                       fupermod_dtime_table **out) {
  const int p = dt->p, energy = objective == FUPERMOD_OBJ_ENERGY;
  const long D = dt->D;
  const double *c = energy ? dt->e : dt->t;
  fupermod_dtime_table *T = calloc(1, sizeof *T);
  long *top = malloc((size_t)(p + 1) * sizeof *top);
  const row_t root = {0, 0, 0};
  const double zero = 0.0;
  size_t cells = 0;
  long pre = 0;
  int rc = FUPERMOD_SUCCESS, n = 0;
#if defined(__x86_64__)
  relax_fn *const relax = fupermod_cpu_avx2() ? relax_avx2 : relax_plain;
#else
  relax_fn *const relax = relax_plain;
#endif

  *out = NULL;
  if (T) {
    T->p = p;
    T->energy = energy;
    T->g = dt->g;
    T->row = malloc((size_t)p * sizeof *T->row);
    T->px = malloc((size_t)(dt->off[p] + 1) * sizeof *T->px);
    T->pc = malloc((size_t)(dt->off[p] + 1) * sizeof *T->pc);
    T->poff = malloc((size_t)(p + 1) * sizeof *T->poff);
  }
  if (!T || !top || !T->row || !T->px || !T->pc || !T->poff) {
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "dp: out of memory");
    goto done;
  }
  /* Usable points, packed contiguously per processor (sizes ascending). */
  for (int i = 0; i < p; i++) {
    T->poff[i] = n;
    for (int k = dt->off[i]; k < dt->off[i + 1]; k++)
      if (dt->x[k] <= D && dt->t[k] >= tlo && dt->t[k] <= thi) {
        T->px[n] = dt->x[k];
        T->pc[n++] = c[k];
      }
  }
  T->poff[p] = n;
  /* top[i]: what processors i..p-1 can hold at most (sums of the largest usable sizes, capped) */
  top[p] = 0;
  for (int i = p - 1; i >= 0; i--) {
    long mx = T->poff[i + 1] > T->poff[i] ? T->px[T->poff[i + 1] - 1] : 0;
    top[i] = top[i + 1] + mx > D ? D : top[i + 1] + mx;
  }
  for (int i = 0; i < p; i++) {
    long mx = T->poff[i + 1] > T->poff[i] ? T->px[T->poff[i + 1] - 1] : 0;
    pre = pre + mx > D ? D : pre + mx;
    T->row[i].lo = every || D - top[i + 1] < 0 ? 0 : D - top[i + 1];
    T->row[i].hi = pre;
    if (T->row[i].hi < T->row[i].lo) goto done; /* D is out of reach: no table */
    T->row[i].base = cells;
    cells += (size_t)(T->row[i].hi - T->row[i].lo + 1);
  }
  if ((rc = fupermod_dtime_table_check("dp", 1, (long)cells)) != FUPERMOD_SUCCESS) goto done;
  if (!(T->tab = malloc(cells * sizeof *T->tab))) {
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "dp: out of memory for a table of %zu cells", cells);
    goto done;
  }

  for (int i = 0; i < p; i++) {
    const row_t *pr = i ? &T->row[i - 1] : &root;
    const double *prev = i ? T->tab + pr->base - pr->lo : &zero; /* prev[v] valid for v in [pr->lo, pr->hi] */
    double *cur = T->tab + T->row[i].base - T->row[i].lo;
    const long lo = T->row[i].lo, hi = T->row[i].hi;
    const long nblk = (hi - lo) / BLOCK + 1;
    const long *xs = T->px + T->poff[i];
    const double *cs = T->pc + T->poff[i];
    const int m = T->poff[i + 1] - T->poff[i];
#pragma omp parallel for schedule(static) if ((hi - lo) * (long)m > 4000000L)
    for (long b = 0; b < nblk; b++) {
      const long b0 = lo + b * BLOCK, b1 = b0 + BLOCK - 1 < hi ? b0 + BLOCK - 1 : hi;
      for (long v = b0; v <= b1; v++) cur[v] = v < pr->lo || v > pr->hi ? INFINITY : prev[v];
      for (int k = 0; k < m; k++) {
        const long x = xs[k];
        const double ck = cs[k];
        const long v0 = b0 > x + pr->lo ? b0 : x + pr->lo, v1 = b1 < x + pr->hi ? b1 : x + pr->hi;
        const double *src = prev - x;
        relax(cur, src, v0, v1, ck, energy);
      }
    }
  }

done:
  free(top);
  if (rc != FUPERMOD_SUCCESS) fupermod_dtime_dp_table_free(T);
  else *out = T;
  return rc;
}

int fupermod_dtime_dp_pick(const fupermod_dtime_table *T, long D, long *d, double *value) {
  const row_t root = {0, 0, 0};
  const double zero = 0.0;
  long v = D;
  *value = T->tab ? at(T->tab, &T->row[T->p - 1], D) : INFINITY;
  if (!isfinite(*value) || !d) return FUPERMOD_SUCCESS;
  for (int i = T->p - 1; i >= 0; i--) {
    const row_t *pr = i ? &T->row[i - 1] : &root;
    const double *pt = i ? T->tab : &zero;
    const double target = at(T->tab, &T->row[i], v);
    long pick = -1;
    if (at(pt, pr, v) == target) pick = 0;
    for (int k = T->poff[i]; pick < 0 && k < T->poff[i + 1] && T->px[k] <= v; k++) {
      double q = at(pt, pr, v - T->px[k]), s = T->energy ? T->pc[k] + q : (q > T->pc[k] ? q : T->pc[k]);
      if (s == target) pick = T->px[k];
    }
    if (pick < 0) /* cannot happen: the table was built from the same operations */
      return fupermod_error(FUPERMOD_ERR_NUMERIC, "dp: traceback failed at processor %d, workload %ld", i, v * T->g);
    d[i] = pick;
    v -= pick;
  }
  return FUPERMOD_SUCCESS;
}

int fupermod_dtime_dp_table(const fupermod_dtime *dt, int objective, fupermod_dtime_table **out) {
  return table_build(dt, objective, -INFINITY, INFINITY, 1, out);
}

int fupermod_dtime_dp(const fupermod_dtime *dt, int objective, double tlo, double thi, long *d,
                      double *value) {
  fupermod_dtime_table *T;
  int rc = table_build(dt, objective, tlo, thi, 0, &T);
  if (rc == FUPERMOD_SUCCESS) rc = fupermod_dtime_dp_pick(T, dt->D, d, value);
  fupermod_dtime_dp_table_free(T);
  return rc;
}

static int dp_discrete(const fupermod_problem *prob, fupermod_dist *out);
static int dp_pareto(const fupermod_problem *prob, fupermod_front *out);

const fupermod_partitioner fupermod_partitioner_dp = {
  .name = "dp",
  .description = "exact dynamic programming over processors and workloads (time, energy, or a Pareto front)",
  .kind = FUPERMOD_PART_DISCRETE,
  .model_type = NULL,
  .homogeneous = 0,
  .needs_energy = 0,
  .needs_static_power = 0,
  .continuous = NULL,
  .discrete = dp_discrete,
  .pareto = dp_pareto,
};

/* The energy objective needs a finite energy >= 0 at every point. */
static int energy_check(const fupermod_problem *prob) {
  for (int i = 0; i < prob->p; i++) {
    const fupermod_points *f = prob->f[i];
    int okf = f->has_energy;
    for (int k = 0; okf && k < f->count; k++) okf = f->pts[k].e >= 0 && isfinite(f->pts[k].e);
    if (!okf)
      return fupermod_error(FUPERMOD_ERR_INPUT,
                            "dp: the energy objective needs a finite energy >= 0 at every point, but the "
                            "function of processor %d has none or a bad one", i);
  }
  return FUPERMOD_SUCCESS;
}

static int objective_check(const fupermod_problem *prob) {
  if (prob && prob->objective != FUPERMOD_OBJ_TIME && prob->objective != FUPERMOD_OBJ_ENERGY)
    return fupermod_error(FUPERMOD_ERR_USAGE,
                          "dp: objective %d is not time (%d) or energy (%d); Pareto objectives use its pareto entry",
                          prob->objective, FUPERMOD_OBJ_TIME, FUPERMOD_OBJ_ENERGY);
  return FUPERMOD_SUCCESS;
}

static int dp_discrete(const fupermod_problem *prob, fupermod_dist *out) {
  fupermod_dtime dt;
  long *d = NULL;
  double value;
  int rc;
  if ((rc = objective_check(prob)) != FUPERMOD_SUCCESS) return rc;
  if ((rc = fupermod_dtime_init(prob, &fupermod_partitioner_dp, out, &dt)) != FUPERMOD_SUCCESS) return rc;
  if (prob->objective == FUPERMOD_OBJ_ENERGY && (rc = energy_check(prob)) != FUPERMOD_SUCCESS) {
    fupermod_dtime_free(&dt);
    return rc;
  }
  d = calloc((size_t)prob->p, sizeof *d);
  if (!d) rc = fupermod_error(FUPERMOD_ERR_NOMEM, "dp: out of memory");
  else if ((rc = fupermod_dtime_dp(&dt, prob->objective, -INFINITY, INFINITY, d, &value)) == FUPERMOD_SUCCESS) {
    if (!isfinite(value)) rc = fupermod_dtime_infeasible(prob);
    else rc = fupermod_dtime_finish(prob, &dt, d, prob->objective, value, out);
  }
  free(d);
  fupermod_dtime_free(&dt);
  return rc;
}

static int dp_pareto(const fupermod_problem *prob, fupermod_front *out) { return fupermod_dp_pareto(prob, out); }

/* One table for every workload up to the largest (partitioners/partitioners.h). */
struct fupermod_dp_table {
  fupermod_problem prob; /* D: the largest workload asked for */
  const fupermod_points **f;
  fupermod_dtime_table *T;
};

void fupermod_dp_table_free(fupermod_dp_table *table) {
  if (!table) return;
  fupermod_dtime_dp_table_free(table->T);
  free(table->f);
  free(table);
}

int fupermod_dp_table_build(const fupermod_problem *prob, fupermod_dp_table **out) {
  fupermod_problem zero;
  fupermod_dtime dt = {0};
  fupermod_dist *probe = NULL;
  fupermod_dp_table *tb = NULL;
  long most = 0;
  int rc;
  if (!out) return fupermod_error(FUPERMOD_ERR_USAGE, "dp table: no output given");
  *out = NULL;
  if ((rc = objective_check(prob)) != FUPERMOD_SUCCESS) return rc;
  if (!prob) return fupermod_error(FUPERMOD_ERR_USAGE, "no problem given");
  /* dp's checks on a workload every function admits; the granule comes with them */
  zero = *prob;
  zero.D = 0;
  if (prob->p >= 1 && !(probe = fupermod_dist_alloc(0, prob->p)))
    return fupermod_error(FUPERMOD_ERR_NOMEM, "dp table: out of memory");
  rc = fupermod_dtime_init(&zero, &fupermod_partitioner_dp, probe, &dt);
  fupermod_dist_free(probe);
  if (rc == FUPERMOD_SUCCESS && prob->D < 0)
    rc = fupermod_error(FUPERMOD_ERR_USAGE, "D must be >= 0, got %ld", prob->D);
  if (rc == FUPERMOD_SUCCESS && prob->objective == FUPERMOD_OBJ_ENERGY) rc = energy_check(prob);
  if (rc == FUPERMOD_SUCCESS && (!(tb = calloc(1, sizeof *tb)) || !(tb->f = malloc((size_t)prob->p * sizeof *tb->f))))
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "dp table: out of memory");
  if (rc == FUPERMOD_SUCCESS) {
    /* beyond what the functions hold, and between granules, no workload is composed */
    for (int i = 0; i < prob->p; i++) {
      const fupermod_points *f = prob->f[i];
      long x = f->pts[f->count - 1].d / dt.g;
      most = most > LONG_MAX - x ? LONG_MAX : most + x; /* saturate: the sum may overflow */
    }
    dt.D = prob->D / dt.g < most ? prob->D / dt.g : most;
    for (int i = 0; i < prob->p; i++) tb->f[i] = prob->f[i];
    tb->prob = *prob;
    tb->prob.f = tb->f;
    rc = fupermod_dtime_dp_table(&dt, prob->objective, &tb->T);
  }
  fupermod_dtime_free(&dt);
  if (rc != FUPERMOD_SUCCESS) fupermod_dp_table_free(tb);
  else *out = tb;
  return rc;
}

int fupermod_dp_table_solve(const fupermod_dp_table *table, long D, fupermod_dist *out) {
  fupermod_problem prob;
  fupermod_dtime dt;
  long *d;
  double value;
  int rc;
  if (!table) return fupermod_error(FUPERMOD_ERR_USAGE, "dp table: no table given");
  if (D < 0 || D > table->prob.D)
    return fupermod_error(FUPERMOD_ERR_USAGE, "dp table: D=%ld is outside the table's 0..%ld", D, table->prob.D);
  prob = table->prob;
  prob.D = D;
  /* dp's own checks and rejections for this D, with its messages */
  if ((rc = fupermod_dtime_check(&prob, &fupermod_partitioner_dp, out, &dt)) != FUPERMOD_SUCCESS) return rc;
  if (!(d = malloc((size_t)prob.p * sizeof *d))) return fupermod_error(FUPERMOD_ERR_NOMEM, "dp: out of memory");
  if ((rc = fupermod_dtime_dp_pick(table->T, dt.D, d, &value)) == FUPERMOD_SUCCESS) {
    if (!isfinite(value)) rc = fupermod_dtime_infeasible(&prob);
    else rc = fupermod_dtime_finish(&prob, &dt, d, prob.objective, value, out);
  }
  free(d);
  return rc;
}
