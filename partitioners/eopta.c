/* EOPTA (Lastovetsky & Reddy, TPDS 2017, known only through its summary in the ALEPH and
 * PARALEPH papers): minimum dynamic energy on p identical processors. The pseudocode is not
 * available, so there is no faithful mode; this is an exact algorithm with EOPTA's structure: a
 * distribution is a multiset of at most p sizes, built from the largest size down ("r copies of
 * x plus a left part using smaller sizes"). Bottom-up over sizes in increasing order:
 *   G_j(v, k) = min( G_{j-1}(v, k), G_j(v - x_j, k - 1) + e_j )
 * = least energy of v units as at most k sizes among x_0..x_j (one per processor).
 * Ties: least energy, then fewest active processors, then the multiset found first. The sizes
 * are given in increasing order to processors 0, 1, ..., and the idle ones are last; the energy is
 * then summed in the same order as the table, so the reported value is the table's.
 * Cost O(m * D * min(p, D/x_0)) time and bytes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "partitioners/energy_common.h"

static int eopta(const fupermod_problem *prob, fupermod_dist *out);

const fupermod_partitioner fupermod_partitioner_eopta = {
  "eopta", "EOPTA: minimum dynamic energy on identical processors (exact)", FUPERMOD_PART_DISCRETE, NULL, 1, 1,
  0, NULL, eopta, NULL};

#define TABLE_LIMIT ((size_t)1 << 30)

static int eopta(const fupermod_problem *prob, fupermod_dist *out) {
  const fupermod_points *f;
  long D, W, *d = NULL;
  int p, m = 0, K, rc;
  double *G = NULL;
  int *cnt = NULL;
  unsigned char *take = NULL;
  size_t layer;
  if ((rc = fupermod_en_check(prob, &fupermod_partitioner_eopta))) return rc;
  if (!out || !out->parts || out->size != prob->p)
    return fupermod_error(FUPERMOD_ERR_USAGE, "eopta: out must be a distribution of p=%d parts", prob->p);
  f = prob->f[0];
  p = prob->p;
  D = prob->D;
  W = D + 1;
  while (m < f->count && f->pts[m].d <= D) m++;
  K = (int)(D / f->pts[0].d < p ? D / f->pts[0].d : p) + 1; /* at most D/x_0 processors can be busy */
  layer = (size_t)W * (size_t)K;
  if (m > 0 && layer > TABLE_LIMIT / (size_t)m)
    return fupermod_error(FUPERMOD_ERR_NOMEM, "eopta: table of %d x %ld x %d cells is too large; use 'dp'", m, W, K);
  d = calloc((size_t)p, sizeof *d);
  G = malloc(layer * sizeof *G);
  cnt = malloc(layer * sizeof *cnt);
  take = calloc(layer * (size_t)(m ? m : 1), 1);
  if (!d || !G || !cnt || !take) {
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "eopta: out of memory (table of %d x %ld x %d)", m, W, K);
    goto done;
  }
#define AT(v, k) ((size_t)(v) * (size_t)K + (size_t)(k))
  for (long v = 0; v < W; v++)
    for (int k = 0; k < K; k++) G[AT(v, k)] = v ? INFINITY : 0.0, cnt[AT(v, k)] = 0;
  for (int j = 0; j < m; j++) {
    const long x = f->pts[j].d;
    const double e = f->pts[j].e;
    unsigned char *tk = take + (size_t)j * layer;
    for (long v = x; v < W; v++) /* increasing v: G(v - x, .) already includes x_j (unbounded) */
      for (int k = 1; k < K; k++) {
        double c = G[AT(v - x, k - 1)] + e;
        int cc = cnt[AT(v - x, k - 1)] + 1;
        if (c < G[AT(v, k)] || (c == G[AT(v, k)] && cc < cnt[AT(v, k)]))
          G[AT(v, k)] = c, cnt[AT(v, k)] = cc, tk[AT(v, k)] = 1;
      }
  }
  if (!isfinite(G[AT(D, K - 1)])) {
    rc = fupermod_en_infeasible(prob, "eopta");
    goto done;
  }
  {
    long v = D;
    int k = K - 1, j = m - 1, q = 0;
    while (v > 0) { /* sizes come out in decreasing order */
      if (take[(size_t)j * layer + AT(v, k)])
        d[q++] = f->pts[j].d, v -= f->pts[j].d, k--;
      else
        j--;
    }
    for (int a = 0, b = q - 1; a < b; a++, b--) {
      long tmp = d[a];
      d[a] = d[b];
      d[b] = tmp;
    }
  }
#undef AT
  rc = fupermod_problem_evaluate(prob, d, NULL, NULL, out);
done:
  free(d);
  free(G);
  free(cnt);
  free(take);
  return rc;
}
