/* HEOPTA (Khaleghzadeh et al.; heopta-energy.md 2.2): minimum dynamic energy on heterogeneous
 * processors by branch and bound over the solution tree (level i = processor i, node = work left),
 * with memoisation of (i, w). Cuts, all independent of the path (trap T5):
 *  - energy threshold eps (best total so far, first the load-equal distribution's if feasible,
 *    else +inf): points with e >= eps are never examined (each function is scanned by energy);
 *  - size threshold sigma_i: the most work processors i.. can take with every point below eps.
 * A memo entry may have been computed under a larger eps; what it missed contains a point with
 * e >= the current eps, so reusing it never loses a strictly better solution.
 * Ties: the first strictly better solution in DFS order wins (children: idle, then points by
 * increasing energy, then increasing size); the load-equal start wins ties with it.
 * Cost: O(p * D * m) node expansions at most; memory O(p * D). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "partitioners/energy_common.h"

typedef struct {
  const fupermod_problem *prob;
  int p;
  long W;
  double eps;
  int have_best;
  long *best, *cur, *sigma;
  int **order, *norder; /* per processor: point indices by (energy, size) */
  double *mval;         /* memo: best suffix energy of (i, w) */
  int *mx;              /* memo: point index given to processor i (-1 idle) */
  unsigned char *mst;   /* memo state: 0 not expanded, 1 no solution, 2 solution */
} heo;

static void size_thresholds(heo *H) {
  long acc = 0;
  for (int i = H->p - 1; i >= 0; i--) {
    const fupermod_points *f = H->prob->f[i];
    long big = 0;
    for (int k = 0; k < f->count; k++) /* energy is not monotone in size: scan all */
      if (f->pts[k].e < H->eps) big = f->pts[k].d;
    acc += big;
    H->sigma[i] = acc;
  }
}

/* A solution: cur[0..i-1] then the memoised suffix of (i, w). */
static void found(heo *H, double total, int i, long w) {
  if (!(total < H->eps)) return;
  memcpy(H->best, H->cur, (size_t)i * sizeof *H->best);
  for (int c = i; c < H->p; c++) {
    int k = w ? H->mx[(size_t)c * (size_t)H->W + (size_t)w] : -1;
    H->best[c] = k < 0 ? 0 : H->prob->f[c]->pts[k].d;
    w -= H->best[c];
  }
  H->eps = total;
  H->have_best = 1;
  size_thresholds(H);
}

static int search(heo *H, int i, long w, double acc, double *val) {
  size_t id = (size_t)i * (size_t)H->W + (size_t)w;
  double r, bestv = 0.0;
  int have = 0, bestx = -1;
  if (w == 0) {
    found(H, acc, i, 0);
    *val = 0.0;
    return 1;
  }
  if (i == H->p || w > H->sigma[i]) return 0; /* no processor left, or Cut */
  if (H->mst[id]) {                             /* ReadMemory */
    if (H->mst[id] == 1) return 0;
    found(H, acc + H->mval[id], i, w);
    *val = H->mval[id];
    return 1;
  }
  if (0.0 < H->eps) { /* the idle child, energy 0 */
    H->cur[i] = 0;
    if (search(H, i + 1, w, acc, &r)) have = 1, bestv = r, bestx = -1;
  }
  for (int j = 0; j < H->norder[i]; j++) {
    const fupermod_point *pt = &H->prob->f[i]->pts[H->order[i][j]];
    if (!(pt->e < H->eps)) break; /* eps only falls: re-read it every time */
    if (pt->d > w) continue;
    H->cur[i] = pt->d;
    if (search(H, i + 1, w - pt->d, acc + pt->e, &r) && (!have || pt->e + r < bestv))
      have = 1, bestv = pt->e + r, bestx = H->order[i][j];
  }
  H->mst[id] = have ? 2 : 1; /* Save */
  H->mval[id] = bestv;
  H->mx[id] = bestx;
  *val = bestv;
  return have;
}

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

static int heopta(const fupermod_problem *prob, fupermod_dist *out);

const fupermod_partitioner fupermod_partitioner_heopta = {
  "heopta", "HEOPTA: minimum dynamic energy on heterogeneous processors (exact branch and bound)",
  FUPERMOD_PART_DISCRETE, NULL, 0, 1, 0, NULL, heopta, NULL};

static int heopta(const fupermod_problem *prob, fupermod_dist *out) {
  heo H;
  size_t cells;
  double r;
  int rc;
  if ((rc = fupermod_en_check(prob, &fupermod_partitioner_heopta))) return rc;
  if (!out || !out->parts || out->size != prob->p)
    return fupermod_error(FUPERMOD_ERR_USAGE, "heopta: out must be a distribution of p=%d parts", prob->p);
  memset(&H, 0, sizeof H);
  H.prob = prob;
  H.p = prob->p;
  H.W = prob->D + 1;
  cells = (size_t)H.p * (size_t)H.W;
  H.best = malloc((size_t)H.p * sizeof *H.best);
  H.cur = malloc((size_t)H.p * sizeof *H.cur);
  H.sigma = malloc((size_t)H.p * sizeof *H.sigma);
  H.order = calloc((size_t)H.p, sizeof *H.order);
  H.norder = calloc((size_t)H.p, sizeof *H.norder);
  H.mval = malloc(cells * sizeof *H.mval);
  H.mx = malloc(cells * sizeof *H.mx);
  H.mst = calloc(cells, 1);
  if (!H.best || !H.cur || !H.sigma || !H.order || !H.norder || !H.mval || !H.mx || !H.mst) {
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "heopta: out of memory (memo of %d x %ld)", H.p, H.W);
    goto done;
  }
  for (int i = 0; i < H.p; i++) {
    const fupermod_points *f = prob->f[i];
    by_e *tmp = malloc((size_t)f->count * sizeof *tmp);
    if (!tmp || !(H.order[i] = malloc((size_t)f->count * sizeof **H.order))) {
      free(tmp);
      rc = fupermod_error(FUPERMOD_ERR_NOMEM, "heopta: out of memory");
      goto done;
    }
    for (int k = 0; k < f->count; k++) tmp[k] = (by_e){f->pts[k].e, f->pts[k].d, k};
    qsort(tmp, (size_t)f->count, sizeof *tmp, by_energy);
    for (int k = 0; k < f->count; k++) H.order[i][k] = tmp[k].k;
    H.norder[i] = f->count;
    free(tmp);
  }
  /* eps from the load-equal distribution when every part is measured, else +inf (trap T1) */
  for (int i = 0; i < H.p; i++) H.best[i] = prob->D / H.p + (i < prob->D % H.p ? 1 : 0);
  H.eps = INFINITY;
  if (fupermod_problem_evaluate(prob, H.best, NULL, &H.eps, NULL) == FUPERMOD_SUCCESS)
    H.have_best = 1;
  else
    H.eps = INFINITY;
  fupermod_error_clear();
  size_thresholds(&H);
  search(&H, 0, prob->D, 0.0, &r);
  if (!H.have_best) {
    rc = fupermod_en_infeasible(prob, "heopta");
    goto done;
  }
  rc = fupermod_problem_evaluate(prob, H.best, NULL, NULL, out);
done:
  if (H.order)
    for (int i = 0; i < H.p; i++) free(H.order[i]);
  free(H.order);
  free(H.norder);
  free(H.best);
  free(H.cur);
  free(H.sigma);
  free(H.mval);
  free(H.mx);
  free(H.mst);
  return rc;
}
