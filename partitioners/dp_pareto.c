/* Exact Pareto front of (time, energy) by dynamic programming over processors.
 * PF(h, v), the non-dominated (time, dynamic energy) pairs of v units on processors 0..h:
 *   PF(h, v) = ND( PF(h-1, v)  U  U_k { (max(t_k, t), e + e_k) : (t, e) in PF(h-1, v - d_k) } )
 * This is exact because max and + are monotone (also under rounding): a dominated partial
 * solution never completes into a non-dominated one (paraleph-aleph-popta.md 2.5).
 * Energies are added processor by processor from 0 upwards, exactly as
 * fupermod_problem_evaluate does, so the reported objectives equal the recomputed ones bit for bit.
 * Total energy (PARETO_TOTAL) is not decomposable (static power times the max), but every point
 * of the total front lies on the dynamic front (heterogeneous digest 1.4), so it is a filter. */
#include <stdlib.h>
#include "partitioners/energy_common.h"

static const fupermod_partitioner desc_dyn = {
  "dp_pareto", "exact Pareto front of time and dynamic energy (DP)", FUPERMOD_PART_PARETO, NULL, 0, 1, 0,
  NULL, NULL, fupermod_dp_pareto};
static const fupermod_partitioner desc_tot = {
  "dp_pareto", "exact Pareto front of time and total energy (DP)", FUPERMOD_PART_PARETO, NULL, 0, 1, 1,
  NULL, NULL, fupermod_dp_pareto};

int fupermod_dp_pareto(const fupermod_problem *prob, fupermod_front *out) {
  int rc = fupermod_en_front_init(out, "dp_pareto"), total, p;
  long D, W;
  fupermod_en_pset *cell = NULL, tot = {0, 0, NULL}, *fin;
  fupermod_en_ranks rk;
  long *d = NULL;
  if (rc) return rc;
  if (!prob) return fupermod_error(FUPERMOD_ERR_USAGE, "dp_pareto: no problem given");
  if (prob->objective != FUPERMOD_OBJ_PARETO && prob->objective != FUPERMOD_OBJ_PARETO_TOTAL)
    return fupermod_error(FUPERMOD_ERR_USAGE,
                          "dp_pareto: objective must be FUPERMOD_OBJ_PARETO (%d) or FUPERMOD_OBJ_PARETO_TOTAL "
                          "(%d), got %d", FUPERMOD_OBJ_PARETO, FUPERMOD_OBJ_PARETO_TOTAL, prob->objective);
  total = prob->objective == FUPERMOD_OBJ_PARETO_TOTAL;
  if ((rc = fupermod_en_check(prob, total ? &desc_tot : &desc_dyn))) return rc;
  p = prob->p;
  D = prob->D;
  W = D + 1;
  if ((rc = fupermod_en_ranks_init(&rk, prob))) return rc;
  cell = calloc((size_t)p * (size_t)W, sizeof *cell);
  d = malloc((size_t)p * sizeof *d);
  if (!cell || !d) {
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "dp_pareto: out of memory (table of %d x %ld)", p, W);
    goto done;
  }
#define CELL(h, v) (&cell[(size_t)(h) * (size_t)W + (size_t)(v)])
  /* processor 0 alone */
  if ((rc = fupermod_en_push(CELL(0, 0), 0.0, 0.0, 0, -1, 0))) goto done;
  for (int k = 0; k < prob->f[0]->count && prob->f[0]->pts[k].d <= D; k++) {
    const fupermod_point *pt = &prob->f[0]->pts[k];
    if ((rc = fupermod_en_push(CELL(0, pt->d), pt->t, pt->e, 1, k, 0))) goto done;
    CELL(0, pt->d)->v[0].g = rk.rank[0][k];
  }
  for (int h = 1; h < p; h++) {
    const fupermod_points *f = prob->f[h];
    for (long v = h == p - 1 ? D : 0; v < W; v++) { /* the last processor only needs v = D */
      /* idle first, then sizes in increasing order: the generation order of the tie rule */
      fupermod_en_begin(&rk);
      fupermod_en_add_idle(&rk, CELL(h - 1, v));
      for (int k = 0; k < f->count && f->pts[k].d <= v; k++)
        fupermod_en_add_ext(&rk, CELL(h - 1, v - f->pts[k].d), rk.rank[h][k], f->pts[k].e, 1, k);
      if ((rc = fupermod_en_end(&rk, CELL(h, v)))) goto done;
    }
  }
  fin = CELL(p - 1, D);
  if (fin->n == 0) {
    rc = fupermod_en_infeasible(prob, "dp_pareto");
    goto done;
  }
  /* the selected entries of fin, as indices: all of them, or the total-energy filter */
  for (int i = 0; i < fin->n; i++) {
    double te = total ? fin->v[i].e + prob->static_power * fin->v[i].t : fin->v[i].e;
    if ((rc = fupermod_en_push(&tot, fin->v[i].t, te, fin->v[i].active, i, 0))) goto done;
  }
  fupermod_en_nd(&tot);
  for (int s = 0; s < tot.n; s++) {
    long v = D;
    int j = tot.v[s].a;
    for (int h = p - 1; h >= 0; h--) {
      const fupermod_en_pe *pe = &CELL(h, v)->v[j];
      d[h] = pe->a < 0 ? 0 : prob->f[h]->pts[pe->a].d;
      v -= d[h];
      j = pe->b;
    }
    if ((rc = fupermod_en_front_append(out, prob, d, total))) goto done;
  }
#undef CELL
done:
  if (cell)
    for (size_t i = 0; i < (size_t)p * (size_t)W; i++) fupermod_en_free(&cell[i]);
  free(cell);
  fupermod_en_free(&tot);
  fupermod_en_ranks_free(&rk);
  free(d);
  if (rc) fupermod_front_free(out);
  return rc;
}
