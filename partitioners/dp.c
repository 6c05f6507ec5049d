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

int fupermod_dtime_dp(const fupermod_dtime *dt, int objective, double tlo, double thi, long *d,
                      double *value) {
  const int p = dt->p, energy = objective == FUPERMOD_OBJ_ENERGY;
  const long D = dt->D;
  const double *c = energy ? dt->e : dt->t;
  long *top = malloc((size_t)(p + 1) * sizeof *top);
  row_t *row = malloc((size_t)p * sizeof *row);
  long *px = malloc((size_t)(dt->off[p] + 1) * sizeof *px);
  double *pc = malloc((size_t)(dt->off[p] + 1) * sizeof *pc);
  int *poff = malloc((size_t)(p + 1) * sizeof *poff);
  double *tab = NULL, zero = 0.0;
  row_t root = {0, 0, 0};
  size_t cells = 0;
  long pre = 0;
  int rc = FUPERMOD_SUCCESS, n = 0;
#if defined(__x86_64__)
  relax_fn *const relax = fupermod_cpu_avx2() ? relax_avx2 : relax_plain;
#else
  relax_fn *const relax = relax_plain;
#endif

  if (!top || !row || !px || !pc || !poff) {
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "dp: out of memory");
    goto done;
  }
  /* Usable points, packed contiguously per processor (sizes ascending). */
  for (int i = 0; i < p; i++) {
    poff[i] = n;
    top[i] = 0;
    for (int k = dt->off[i]; k < dt->off[i + 1]; k++)
      if (dt->x[k] <= D && dt->t[k] >= tlo && dt->t[k] <= thi) {
        px[n] = dt->x[k];
        pc[n++] = c[k];
        top[i] = dt->x[k];
      }
  }
  poff[p] = n;
  /* Row i only needs workloads that processors 0..i can hold and i+1..p-1 can complete to D
   * (sums of the largest usable sizes, capped at D). */
  top[p] = 0;
  for (int i = p - 1; i >= 0; i--) {
    long mx = poff[i + 1] > poff[i] ? px[poff[i + 1] - 1] : 0;
    top[i] = top[i + 1] + mx > D ? D : top[i + 1] + mx;
  }
  for (int i = 0; i < p; i++) {
    long mx = poff[i + 1] > poff[i] ? px[poff[i + 1] - 1] : 0;
    pre = pre + mx > D ? D : pre + mx;
    row[i].lo = D - top[i + 1] > 0 ? D - top[i + 1] : 0;
    row[i].hi = pre;
    if (row[i].hi < row[i].lo) {
      *value = INFINITY; /* D is out of reach */
      goto done;
    }
    row[i].base = cells;
    cells += (size_t)(row[i].hi - row[i].lo + 1);
  }
  if ((rc = fupermod_dtime_table_check("dp", 1, (long)cells)) != FUPERMOD_SUCCESS) goto done;
  tab = malloc(cells * sizeof *tab);
  if (!tab) {
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "dp: out of memory for a table of %zu cells", cells);
    goto done;
  }

  for (int i = 0; i < p; i++) {
    const row_t *pr = i ? &row[i - 1] : &root;
    const double *prev = i ? tab + pr->base - pr->lo : &zero; /* prev[v] valid for v in [pr->lo, pr->hi] */
    double *cur = tab + row[i].base - row[i].lo;
    const long lo = row[i].lo, hi = row[i].hi;
    const long nblk = (hi - lo) / BLOCK + 1;
    const long *xs = px + poff[i];
    const double *cs = pc + poff[i];
    const int m = poff[i + 1] - poff[i];
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

  *value = at(tab, &row[p - 1], D);
  if (isfinite(*value) && d) {
    long v = D;
    for (int i = p - 1; i >= 0; i--) {
      const row_t *pr = i ? &row[i - 1] : &root;
      const double *pt = i ? tab : &zero;
      const double target = at(tab, &row[i], v);
      long pick = -1;
      if (at(pt, pr, v) == target) pick = 0;
      for (int k = poff[i]; pick < 0 && k < poff[i + 1] && px[k] <= v; k++) {
        double q = at(pt, pr, v - px[k]), s = energy ? pc[k] + q : (q > pc[k] ? q : pc[k]);
        if (s == target) pick = px[k];
      }
      if (pick < 0) { /* cannot happen: the table was built from the same operations */
        rc = fupermod_error(FUPERMOD_ERR_NUMERIC, "dp: traceback failed at processor %d, workload %ld", i,
                            v * dt->g);
        goto done;
      }
      d[i] = pick;
      v -= pick;
    }
  }

done:
  free(tab);
  free(top);
  free(row);
  free(px);
  free(pc);
  free(poff);
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

static int dp_discrete(const fupermod_problem *prob, fupermod_dist *out) {
  fupermod_dtime dt;
  long *d = NULL;
  double value;
  int rc;
  if (prob && prob->objective != FUPERMOD_OBJ_TIME && prob->objective != FUPERMOD_OBJ_ENERGY)
    return fupermod_error(FUPERMOD_ERR_USAGE,
                          "dp: objective %d is not time (%d) or energy (%d); Pareto objectives use its pareto entry",
                          prob->objective, FUPERMOD_OBJ_TIME, FUPERMOD_OBJ_ENERGY);
  if ((rc = fupermod_dtime_init(prob, &fupermod_partitioner_dp, out, &dt)) != FUPERMOD_SUCCESS) return rc;
  if (prob->objective == FUPERMOD_OBJ_ENERGY)
    for (int i = 0; i < prob->p; i++) {
      const fupermod_points *f = prob->f[i];
      int okf = f->has_energy;
      for (int k = 0; okf && k < f->count; k++) okf = f->pts[k].e >= 0 && isfinite(f->pts[k].e);
      if (!okf) {
        fupermod_dtime_free(&dt);
        return fupermod_error(FUPERMOD_ERR_INPUT,
                              "dp: the energy objective needs a finite energy >= 0 at every point, but the "
                              "function of processor %d has none or a bad one", i);
      }
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
