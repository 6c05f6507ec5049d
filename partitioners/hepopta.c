/* HEPOPTA (Khaleghzadeh's thesis, ch. 5): the global Pareto front of (time, dynamic energy) on
 * heterogeneous processors, by a memoised search of the solution tree with two cuts:
 *  - eps = dynamic energy of a time-optimal distribution X_t. A point with e > eps can only be in
 *    distributions strictly dominated by X_t (more energy, time >= t_opt), so only points with
 *    e <= eps are examined (non-strict: X_t itself must stay reachable);
 *  - sigma_c = largest work the remaining processors take with every point at e <= eps; a node
 *    with more work is cut.
 * Both cuts are independent of the path, so each node (processor, work) is solved once and its
 * partial Pareto set stored (PMem). We assign processors from p-1 (root) down to 0, so that a
 * partial set holds processors 0..c and energies are added in the order that
 * fupermod_problem_evaluate uses: reported and recomputed energies agree bit for bit.
 * Ties: equal (time, energy) keep fewer active processors (thesis), then the first generated
 * (idle first, then points by increasing energy, then increasing size). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "partitioners/energy_common.h"

typedef struct {
  const fupermod_problem *prob;
  double eps;
  long W;
  long *sigma;           /* sigma[c]: work processors 0..c can take below eps */
  int **order;           /* per processor: indices of points with e <= eps by (e, d) */
  int *norder;
  fupermod_en_pset *mem; /* PMem, p x (D+1) */
  unsigned char *done;
  fupermod_en_ranks rk;
} hep;

static fupermod_en_pe zero_pe[1] = {{0.0, 0.0, 0, -1, 0, 0}};
static const fupermod_en_pset zero_set = {1, 1, zero_pe}; /* w = 0: everyone idle */
static const fupermod_en_pset empty_set = {0, 0, NULL};

typedef struct {
  double e;
  long d;
  int k;
} by_e;

static int by_energy(const void *a, const void *b) {
  const by_e *x = a, *y = b;
  if (x->e != y->e) return x->e < y->e ? -1 : 1;
  return (x->d > y->d) - (x->d < y->d);
}

static const fupermod_en_pset *kernel(hep *H, int c, long w, int *rc) {
  fupermod_en_pset *s;
  if (w == 0) return &zero_set;
  if (w > H->sigma[c]) return &empty_set; /* Cut */
  s = &H->mem[(size_t)c * (size_t)H->W + (size_t)w];
  if (H->done[(size_t)c * (size_t)H->W + (size_t)w]) return s; /* ReadParetoMem */
  if (c == 0) {
    const fupermod_points *f = H->prob->f[0];
    int k = fupermod_points_find(f, w);
    if (k >= 0 && f->pts[k].e <= H->eps) {
      if ((*rc = fupermod_en_push(s, f->pts[k].t, f->pts[k].e, 1, k, 0))) return &empty_set;
      s->v[0].g = H->rk.rank[0][k];
    }
  } else {
    const fupermod_en_pset *sub = kernel(H, c - 1, w, rc);
    /* solve the children first: the merge below uses one shared collector */
    for (int i = 0; !*rc && i < H->norder[c]; i++) {
      const fupermod_point *pt = &H->prob->f[c]->pts[H->order[c][i]];
      if (pt->d <= w) kernel(H, c - 1, w - pt->d, rc);
    }
    if (*rc) return &empty_set;
    fupermod_en_begin(&H->rk); /* MergePartialParetoes */
    fupermod_en_add_idle(&H->rk, sub);
    for (int i = 0; i < H->norder[c]; i++) {
      const int k = H->order[c][i];
      const fupermod_point *pt = &H->prob->f[c]->pts[k];
      if (pt->d <= w)
        fupermod_en_add_ext(&H->rk, kernel(H, c - 1, w - pt->d, rc), H->rk.rank[c][k], pt->e, 1, k);
    }
    if ((*rc = fupermod_en_end(&H->rk, s))) return &empty_set;
  }
  H->done[(size_t)c * (size_t)H->W + (size_t)w] = 1;
  return s;
}

int fupermod_en_hepopta(const fupermod_problem *prob, fupermod_front *out) {
  const int p = prob->p;
  hep H;
  long *d = malloc((size_t)p * sizeof *d);
  const fupermod_en_pset *root;
  double t_opt;
  int rc;
  memset(&H, 0, sizeof H);
  H.prob = prob;
  H.W = prob->D + 1;
  H.sigma = malloc((size_t)p * sizeof *H.sigma);
  H.order = calloc((size_t)p, sizeof *H.order);
  H.norder = calloc((size_t)p, sizeof *H.norder);
  H.mem = calloc((size_t)p * (size_t)H.W, sizeof *H.mem);
  H.done = calloc((size_t)p * (size_t)H.W, 1);
  if (!d || !H.sigma || !H.order || !H.norder || !H.mem || !H.done) {
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "hepopta: out of memory (memo of %d x %ld)", p, H.W);
    goto done;
  }
  /* eps from a time-optimal distribution (the thesis runs HPOPTA; any time optimum is valid) */
  if ((rc = fupermod_en_time_opt(prob, d))) goto done;
  if ((rc = fupermod_problem_evaluate(prob, d, &t_opt, &H.eps, NULL))) goto done;
  for (int c = 0; c < p; c++) {
    const fupermod_points *f = prob->f[c];
    long big = 0;
    by_e *tmp = malloc((size_t)f->count * sizeof *tmp);
    if (!tmp || !(H.order[c] = malloc((size_t)f->count * sizeof **H.order))) {
      free(tmp);
      rc = fupermod_error(FUPERMOD_ERR_NOMEM, "hepopta: out of memory");
      goto done;
    }
    for (int k = 0; k < f->count; k++)
      if (f->pts[k].e <= H.eps) {
        tmp[H.norder[c]++] = (by_e){f->pts[k].e, f->pts[k].d, k};
        big = f->pts[k].d; /* sorted by d: the last one is the largest */
      }
    qsort(tmp, (size_t)H.norder[c], sizeof *tmp, by_energy);
    for (int i = 0; i < H.norder[c]; i++) H.order[c][i] = tmp[i].k;
    free(tmp);
    H.sigma[c] = (c ? H.sigma[c - 1] : 0) + big;
  }
  if ((rc = fupermod_en_ranks_init(&H.rk, prob))) goto done;
  root = kernel(&H, p - 1, prob->D, &rc);
  if (rc) goto done;
  if (root->n == 0) { /* cannot happen: X_t survives both cuts */
    rc = fupermod_en_infeasible(prob, "hepopta");
    goto done;
  }
  for (int s = 0; s < root->n; s++) { /* BuildParetoSols: follow the witnesses down */
    long w = prob->D;
    int j = s;
    for (int c = p - 1; c >= 0; c--) {
      const fupermod_en_pe *pe;
      if (w == 0) {
        d[c] = 0;
        continue;
      }
      pe = &H.mem[(size_t)c * (size_t)H.W + (size_t)w].v[j];
      d[c] = pe->a < 0 ? 0 : prob->f[c]->pts[pe->a].d;
      w -= d[c];
      j = pe->b;
    }
    if ((rc = fupermod_en_front_append(out, prob, d, 0))) goto done;
  }
done:
  if (H.mem)
    for (size_t i = 0; i < (size_t)p * (size_t)H.W; i++) fupermod_en_free(&H.mem[i]);
  if (H.order)
    for (int c = 0; c < p; c++) free(H.order[c]);
  free(H.mem);
  free(H.done);
  free(H.order);
  free(H.norder);
  free(H.sigma);
  fupermod_en_ranks_free(&H.rk);
  free(d);
  if (rc) fupermod_front_free(out);
  return rc;
}

static int hepopta(const fupermod_problem *prob, fupermod_front *out);

const fupermod_partitioner fupermod_partitioner_hepopta = {
  "hepopta", "HEPOPTA: exact Pareto front of time and dynamic energy, heterogeneous processors",
  FUPERMOD_PART_PARETO, NULL, 0, 1, 0, NULL, NULL, hepopta};

static int hepopta(const fupermod_problem *prob, fupermod_front *out) {
  int rc = fupermod_en_front_init(out, "hepopta");
  if (rc) return rc;
  if ((rc = fupermod_en_check(prob, &fupermod_partitioner_hepopta))) return rc;
  return fupermod_en_hepopta(prob, out);
}
