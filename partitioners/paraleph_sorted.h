/* PARALEPH's sorted-key vector kernels (max and sum, see paraleph_kernel.c), written once for
 * every vector width. paraleph_kernel.c includes this file once per instruction set, having
 * defined:
 *   SK_ATTR           the attribute that enables the instruction set
 *   SK_NAME(op)       the kernels' names (op: scan, max, sum)
 *   SK_VEC            a vector of doubles; SK_LANES candidates (two vectors) a step
 *   SK_CONSTS         declares inf (every lane +inf) and what SK_STEP needs from v and gm
 *   SK_STEP(sum)      folds candidates k .. k + SK_LANES - 1 into the lane minima (bv0, bi0), (bv1, bi1)
 *   SK_LANEMIN(a, b)  the least lane of a and b
 *   SK_FINAL          lex_final of the width
 * This file undefines them. No include guard: it is meant to be included again. */

/* sum: the min-sum kernel, else min-max; inlined into each, so that the test on it folds away */
SK_ATTR __attribute__((always_inline)) static inline long SK_NAME(scan)(const pl_list *c, const double *g, long gm,
                                                                        int32_t v, double idle, int sum, double *best,
                                                                        int32_t *ptr) {
  SK_CONSTS;
  SK_VEC bv0 = inf, bv1 = inf, bi0 = inf, bi1 = inf;
  const double rv = c->rho * (double)v, up = 1.0 + c->slack;
  double b = idle, thr = sum ? b * up - rv : b;
  int k;
  for (k = 0; k < c->npad; k += SK_LANES) {
    if (c->key[k] > thr) break;
    SK_STEP(sum);
    double lm = SK_LANEMIN(bv0, bv1);
    if (lm < b) {
      b = lm;
      thr = sum ? b * up - rv : b;
    }
  }
  SK_FINAL(bv0, bi0, bv1, bi1, idle, best, ptr);
  return k;
}

SK_ATTR static long SK_NAME(max)(const pl_list *c, const double *g, long gm, int32_t v, int h, double idle,
                                 double *best, int32_t *ptr) {
  return SK_NAME(scan)(c, g, gm, v, idle, 0, best, ptr);
}

SK_ATTR static long SK_NAME(sum)(const pl_list *c, const double *g, long gm, int32_t v, int h, double idle,
                                 double *best, int32_t *ptr) {
  return SK_NAME(scan)(c, g, gm, v, idle, 1, best, ptr);
}

#undef SK_ATTR
#undef SK_NAME
#undef SK_VEC
#undef SK_LANES
#undef SK_CONSTS
#undef SK_STEP
#undef SK_LANEMIN
#undef SK_FINAL
