/* PARALEPH cell kernels: min over the candidate sizes x of F(f(x), g(v - x)), F = max or +.
 *
 * Every kernel returns the lexicographic minimum of (value, index j) over all options, idle
 * being j = -1. That minimum does not depend on the scan order or on how far a pruned scan went,
 * so each kernel writes exactly the bits of the plain loop in size order with "strict <, idle
 * first" (plain_*, the reference). Pruned kernels skip a candidate only when a bound proves it
 * strictly worse than the best value found so far; a candidate whose bound equals it can tie
 * and is evaluated.
 *
 * Sorted-key kernels (scalar_*, avx2_*, avx512_*; the vector ones written once, in
 * paraleph_sorted.h): candidates in increasing key order, stop at the first key that proves every
 * remaining candidate worse:
 *  - max: key = t(x), and max(t(x), g) >= t(x);
 *  - sum: every cell of column h-1 is a sum of energies e(y) >= rho*y, so g(w) >= rho*w and
 *    e(x) + g(v-x) >= rho*v + (e(x) - rho*x); the key is e(x) - rho*x. rho is rounded down and
 *    the test carries a relative margin (pl_list.slack) larger than the rounding of any sum of
 *    p energies.
 * Bounded kernels (window_max_*, lagrange_sum_*): see the comment before cap_near.
 *
 * The AVX2 and AVX-512 paths use target attributes and are chosen at run time (no special
 * compiler flags), so the library still runs on CPUs without them. */
#include <math.h>
#include <stddef.h>
#include <immintrin.h>
#include "partitioners/cpu.h"
#include "partitioners/paraleph_kernel.h"

/* ---- reference: every size in increasing order, strict <, idle first ---- */

static long plain_max(const pl_list *c, const double *g, long gm, int32_t v, int h, double idle,
                      double *best, int32_t *ptr) {
  double b = idle;
  int32_t j = -1;
  int k;
  for (k = 0; k < c->m && c->xs[k] <= v; k++) {
    double a = c->vs[k], w = g[(v - c->xs[k]) & gm];
    double x = a > w ? a : w;
    if (x < b) {
      b = x;
      j = k;
    }
  }
  *best = b;
  *ptr = j;
  return k;
}

static long plain_sum(const pl_list *c, const double *g, long gm, int32_t v, int h, double idle,
                      double *best, int32_t *ptr) {
  double b = idle;
  int32_t j = -1;
  int k;
  for (k = 0; k < c->m && c->xs[k] <= v; k++) {
    double x = c->vs[k] + g[(v - c->xs[k]) & gm];
    if (x < b) {
      b = x;
      j = k;
    }
  }
  *best = b;
  *ptr = j;
  return k;
}

/* ---- pruned scalar ---- */

static long scalar_max(const pl_list *c, const double *g, long gm, int32_t v, int h, double idle,
                       double *best, int32_t *ptr) {
  double b = idle, bj = -1.0;
  int k;
  for (k = 0; k < c->n; k++) {
    if (c->key[k] > b) break;
    int32_t x = c->off[k];
    if (x > v) continue;
    double a = c->val[k], w = g[(v - x) & gm];
    double y = a > w ? a : w;
    if (y < b || (y == b && c->idx[k] < bj)) {
      b = y;
      bj = c->idx[k];
    }
  }
  *best = b;
  *ptr = (int32_t)bj;
  return k;
}

static long scalar_sum(const pl_list *c, const double *g, long gm, int32_t v, int h, double idle,
                       double *best, int32_t *ptr) {
  double b = idle, bj = -1.0;
  const double rv = c->rho * (double)v, up = 1.0 + c->slack;
  double thr = b * up - rv;
  int k;
  for (k = 0; k < c->n; k++) {
    if (c->key[k] > thr) break;
    int32_t x = c->off[k];
    if (x > v) continue;
    double y = c->val[k] + g[(v - x) & gm];
    if (y < b || (y == b && c->idx[k] < bj)) {
      b = y;
      bj = c->idx[k];
      thr = b * up - rv;
    }
  }
  *best = b;
  *ptr = (int32_t)bj;
  return k;
}

/* ---- AVX-512: 16 candidates per step (two gathers), per-lane lexicographic minimum ---- */

#define AVX512_ATTR __attribute__((target("avx512f,avx512vl,avx512dq")))

AVX512_ATTR static inline void lex_update512(__m512d c, __m512d i, __m512d *bv, __m512d *bi) {
  __mmask8 u = _mm512_cmp_pd_mask(c, *bv, _CMP_LT_OQ) |
               (_mm512_cmp_pd_mask(c, *bv, _CMP_EQ_OQ) & _mm512_cmp_pd_mask(i, *bi, _CMP_LT_OQ));
  *bv = _mm512_mask_mov_pd(*bv, u, c);
  *bi = _mm512_mask_mov_pd(*bi, u, i);
}

/* Combine the lanes with the idle option (index -1 wins every tie). */
AVX512_ATTR static inline void lex_final512(__m512d bv0, __m512d bi0, __m512d bv1, __m512d bi1,
                                            double idle, double *best, int32_t *ptr) {
  lex_update512(bv1, bi1, &bv0, &bi0);
  double m = _mm512_reduce_min_pd(bv0);
  if (idle <= m) {
    *best = idle;
    *ptr = -1;
    return;
  }
  __mmask8 at = _mm512_cmp_pd_mask(bv0, _mm512_set1_pd(m), _CMP_EQ_OQ);
  *best = m;
  *ptr = (int32_t)_mm512_mask_reduce_min_pd(at, bi0);
}

/* Eight rows of g: lanes outside m read row 0 and become +inf. Eight scalar loads beat
 * vgatherdpd by 2.5-4x on AMD Zen 4/5 (measured), where gathers are microcoded. */
AVX512_ATTR static inline __m512d gather8(const double *g, __m256i w, __mmask8 m) {
  int32_t ix[8];
  _mm256_storeu_si256((__m256i *)ix, _mm256_maskz_mov_epi32(m, w));
  __m512d v = _mm512_set_pd(g[ix[7]], g[ix[6]], g[ix[5]], g[ix[4]], g[ix[3]], g[ix[2]], g[ix[1]], g[ix[0]]);
  return _mm512_mask_mov_pd(_mm512_set1_pd(INFINITY), m, v);
}

#define OP512(sum, a, b) ((sum) ? _mm512_add_pd(a, b) : _mm512_max_pd(a, b))

#define AVX512_STEP(sum)                                                                       \
  do {                                                                                         \
    __m256i w0 = _mm256_sub_epi32(vv, _mm256_load_si256((const __m256i *)(c->off + k)));      \
    __m256i w1 = _mm256_sub_epi32(vv, _mm256_load_si256((const __m256i *)(c->off + k + 8)));  \
    __mmask8 m0 = _mm256_cmpge_epi32_mask(w0, zero), m1 = _mm256_cmpge_epi32_mask(w1, zero);  \
    w0 = _mm256_and_si256(w0, gmv);                                                            \
    w1 = _mm256_and_si256(w1, gmv);                                                            \
    __m512d g0 = gather8(g, w0, m0), g1 = gather8(g, w1, m1);                                  \
    __m512d a0 = _mm512_load_pd(c->val + k), a1 = _mm512_load_pd(c->val + k + 8);              \
    __m512d c0 = OP512(sum, a0, g0), c1 = OP512(sum, a1, g1);                                  \
    lex_update512(c0, _mm512_load_pd(c->idx + k), &bv0, &bi0);                                 \
    lex_update512(c1, _mm512_load_pd(c->idx + k + 8), &bv1, &bi1);                             \
  } while (0)

#define SK_ATTR AVX512_ATTR
#define SK_NAME(op) avx512_##op
#define SK_VEC __m512d
#define SK_LANES 16
#define SK_CONSTS                                                                              \
  const __m512d inf = _mm512_set1_pd(INFINITY);                                                \
  const __m256i vv = _mm256_set1_epi32(v), zero = _mm256_setzero_si256(),                      \
                gmv = _mm256_set1_epi32((int32_t)(gm & 0x7fffffff))
#define SK_STEP AVX512_STEP
#define SK_LANEMIN(a, b) _mm512_reduce_min_pd(_mm512_min_pd(a, b))
#define SK_FINAL lex_final512
#include "partitioners/paraleph_sorted.h"

/* ---- AVX2: 8 candidates per step (two 4-wide gathers) ---- */

#define AVX2_ATTR __attribute__((target("avx2,fma")))

AVX2_ATTR static inline void lex_update256(__m256d c, __m256d i, __m256d *bv, __m256d *bi) {
  __m256d u = _mm256_or_pd(_mm256_cmp_pd(c, *bv, _CMP_LT_OQ),
                           _mm256_and_pd(_mm256_cmp_pd(c, *bv, _CMP_EQ_OQ),
                                         _mm256_cmp_pd(i, *bi, _CMP_LT_OQ)));
  *bv = _mm256_blendv_pd(*bv, c, u);
  *bi = _mm256_blendv_pd(*bi, i, u);
}

AVX2_ATTR static inline double hmin256(__m256d x) {
  __m128d lo = _mm256_castpd256_pd128(x), hi = _mm256_extractf128_pd(x, 1);
  lo = _mm_min_pd(lo, hi);
  lo = _mm_min_sd(lo, _mm_unpackhi_pd(lo, lo));
  return _mm_cvtsd_f64(lo);
}

AVX2_ATTR static inline void lex_final256(__m256d bv0, __m256d bi0, __m256d bv1, __m256d bi1,
                                          double idle, double *best, int32_t *ptr) {
  double v[4], i[4];
  lex_update256(bv1, bi1, &bv0, &bi0);
  _mm256_storeu_pd(v, bv0);
  _mm256_storeu_pd(i, bi0);
  double b = idle, bj = -1.0;
  for (int l = 0; l < 4; l++)
    if (v[l] < b || (v[l] == b && i[l] < bj)) {
      b = v[l];
      bj = i[l];
    }
  *best = b;
  *ptr = (int32_t)bj;
}

#define OP256(sum, a, b) ((sum) ? _mm256_add_pd(a, b) : _mm256_max_pd(a, b))

#define AVX2_STEP(sum)                                                                         \
  do {                                                                                         \
    __m128i w0 = _mm_sub_epi32(vv, _mm_load_si128((const __m128i *)(c->off + k)));            \
    __m128i w1 = _mm_sub_epi32(vv, _mm_load_si128((const __m128i *)(c->off + k + 4)));        \
    __m256d m0 = _mm256_castsi256_pd(_mm256_cvtepi32_epi64(_mm_cmpgt_epi32(w0, neg1)));       \
    __m256d m1 = _mm256_castsi256_pd(_mm256_cvtepi32_epi64(_mm_cmpgt_epi32(w1, neg1)));       \
    __m256d g0 = _mm256_mask_i32gather_pd(inf, g, _mm_and_si128(w0, gmv), m0, 8);              \
    __m256d g1 = _mm256_mask_i32gather_pd(inf, g, _mm_and_si128(w1, gmv), m1, 8);              \
    __m256d c0 = OP256(sum, _mm256_load_pd(c->val + k), g0);                                   \
    __m256d c1 = OP256(sum, _mm256_load_pd(c->val + k + 4), g1);                               \
    lex_update256(c0, _mm256_load_pd(c->idx + k), &bv0, &bi0);                                \
    lex_update256(c1, _mm256_load_pd(c->idx + k + 4), &bv1, &bi1);                             \
  } while (0)

#define SK_ATTR AVX2_ATTR
#define SK_NAME(op) avx2_##op
#define SK_VEC __m256d
#define SK_LANES 8
#define SK_CONSTS                                                                              \
  const __m256d inf = _mm256_set1_pd(INFINITY);                                                \
  const __m128i vv = _mm_set1_epi32(v), neg1 = _mm_set1_epi32(-1),                             \
                gmv = _mm_set1_epi32((int32_t)(gm & 0x7fffffff))
#define SK_STEP AVX2_STEP
#define SK_LANEMIN(a, b) hmin256(_mm256_min_pd(a, b))
#define SK_FINAL lex_final256
#include "partitioners/paraleph_sorted.h"

/* ---- bounded kernels ----
 *
 * max, window scan (dense sizes 1..X). Let cap(tau) = max{y : sm(y) <= tau}, sm the suffix
 * minimum of the times. A candidate x can reach or tie the best value b found so far only if
 *   t(x) <= b, hence x <= cap_own(b), and
 *   g(v-x) <= b, and since some processor of h-1 carries >= ceil((v-x)/(h-1)) units and needs
 *   >= sm_all(that) seconds, (v-x)/(h-1) <= cap_all(b), i.e. x >= v - (h-1) cap_all(b).
 * The kernel probes 16 sizes around the balanced size ceil(v/h) to get a good b at once, then
 * scans the window top-down in blocks of 16 contiguous sizes (the column is read forward, the
 * times through a reversed copy), tightening both limits whenever b drops.
 *
 * sum, Lagrangian scan (identical functions). For any slope lam, each of the h-1 processors
 * of g(w) contributes e(y) >= lam y + phi(lam) with phi = min(0, min_x e(x) - lam x) (idle: 0),
 * so e(x) + g(v-x) >= lam v + (h-1) phi + (e(x) - lam x). With lam a subgradient of the lower
 * convex hull of e at v/h this is the dual bound of the cell; the sizes are pre-sorted by the
 * reduced cost e(x) - lam x and the scan stops at the first one whose bound exceeds b (with
 * the relative margin pl_list.slack for rounding). */

/* max{y in 1..n : sm[y] <= tau} (0 if none) for nondecreasing sm, galloping from a hint y (the
 * balanced size): a few steps instead of a full binary search. */
static inline long cap_near(const double *sm, long n, double tau, long y) {
  if (n < 1 || !(sm[1] <= tau)) return 0;
  if (y < 1) y = 1;
  if (y > n) y = n;
  long lo, hi, step = 1;
  if (sm[y] <= tau) { /* gallop up: sm[lo] <= tau, sm[hi] > tau or hi = n + 1 */
    lo = y;
    for (;;) {
      hi = lo + step;
      if (hi > n) {
        hi = n + 1;
        break;
      }
      if (!(sm[hi] <= tau)) break;
      lo = hi;
      step <<= 1;
    }
  } else { /* gallop down */
    hi = y;
    for (;;) {
      lo = hi - step;
      if (lo <= 1) {
        lo = 1;
        break;
      }
      if (sm[lo] <= tau) break;
      hi = lo;
      step <<= 1;
    }
  }
  while (hi - lo > 1) {
    long mid = (lo + hi) >> 1;
    if (sm[mid] <= tau) lo = mid;
    else hi = mid;
  }
  return lo;
}

static inline long lmax(long a, long b) { return a > b ? a : b; }
static inline long lmin(long a, long b) { return a < b ? a : b; }

/* Scalar block: sizes x, x-1, ..., max(1, x-15). */
static inline void win_block_scalar(const pl_list *c, const double *g, long gm, long v, long x, double *b,
                                    long *bx) {
  const double *t = c->rev + (c->X + 1 - x);
  const double *w = g + ((v - x) & gm); /* 16 contiguous rows: the ring repeats its head */
  long n = x < 16 ? x : 16;
  for (long i = 0; i < n; i++) {
    double a = t[i], y = w[i], z = a > y ? a : y;
    long xi = x - i;
    if (z < *b || (z == *b && xi < *bx)) {
      *b = z;
      *bx = xi;
    }
  }
}

/* Lower bound of the whole cell: some processor of h carries >= ceil(v/h) units. */
static inline double cell_lb(const pl_list *c, long v, int h) {
  long y = (v + h - 1) / h;
  return y <= 0 ? 0.0 : y > c->Xall ? INFINITY : c->sm_all[y];
}

static long window_max_scalar(const pl_list *c, const double *g, long gm, int32_t v, int h, double idle,
                              double *best, int32_t *ptr) {
  double b = idle;
  long bx = 0, evals = 0; /* bx = 0 stands for idle: it precedes every size */
  const long top = lmin(v, c->X), hm1 = h - 1;
  const double lb = cell_lb(c, v, h);
  if (top >= 1 && idle > lb) {
    long x0 = lmin(top, (v + h - 1) / h + 8);
    win_block_scalar(c, g, gm, v, x0, &b, &bx);
    evals += lmin(x0, 16);
    const long yh = (v + h - 1) / h;
    long capo = cap_near(c->sm_own, c->X, b, yh);
    long capa = !hm1 ? 0 : c->sm_all == c->sm_own ? capo : cap_near(c->sm_all, c->Xall, b, yh);
    long hi = lmin(top, capo), lo = lmax(1, v - hm1 * capa);
    /* upwards: the first block that reaches lb holds the smallest optimal size */
    for (long x = lo; x <= hi; x += 16) {
      double bm = INFINITY;
      long bmx = 0, xt = lmin(x + 15, hi);
      win_block_scalar(c, g, gm, v, xt, &bm, &bmx);
      evals += lmin(xt, 16);
      if (bm < b || (bm == b && bmx < bx)) {
        if (bm < b) {
          b = bm;
          while (capo > 0 && !(c->sm_own[capo] <= b)) capo--;
          hi = lmin(top, capo);
        }
        bx = bmx;
      }
      if (bm <= lb) break;
    }
  }
  *best = b;
  *ptr = bx == 0 ? -1 : c->jofx[bx];
  return evals;
}

AVX512_ATTR static inline void win_block512_op(const pl_list *c, const double *g, long gm, long v, long x, int sum,
                                               __m512d *bv0, __m512d *bx0, __m512d *bv1, __m512d *bx1) {
  const __m512d inf = _mm512_set1_pd(INFINITY);
  const __m512d iota0 = _mm512_set_pd(7, 6, 5, 4, 3, 2, 1, 0), iota1 = _mm512_set_pd(15, 14, 13, 12, 11, 10, 9, 8);
  const double *t = c->rev + (c->X + 1 - x);
  const double *w = g + ((v - x) & gm);
  __m512d g0, g1;
  if (x >= 16) {
    g0 = _mm512_loadu_pd(w);
    g1 = _mm512_loadu_pd(w + 8);
  } else { /* sizes below 1: do not read the column there */
    __mmask16 m = (__mmask16)((1u << x) - 1);
    g0 = _mm512_mask_loadu_pd(inf, (__mmask8)m, w);
    g1 = _mm512_mask_loadu_pd(inf, (__mmask8)(m >> 8), w + 8);
  }
  __m512d t0 = _mm512_loadu_pd(t), t1 = _mm512_loadu_pd(t + 8);
  __m512d c0 = sum ? _mm512_add_pd(t0, g0) : _mm512_max_pd(t0, g0);
  __m512d c1 = sum ? _mm512_add_pd(t1, g1) : _mm512_max_pd(t1, g1);
  __m512d xs = _mm512_set1_pd((double)x);
  lex_update512(c0, _mm512_sub_pd(xs, iota0), bv0, bx0);
  lex_update512(c1, _mm512_sub_pd(xs, iota1), bv1, bx1);
}

#define win_block512(c, g, gm, v, x, a, b, d, e) win_block512_op(c, g, gm, v, x, 0, a, b, d, e)

/* Unpruned, vectorised: every size, 16 contiguous ones per step (the inner loop at full width). */
AVX512_ATTR static inline long window_full512(const pl_list *c, const double *g, long gm, int32_t v, double idle,
                                              int sum, double *best, int32_t *ptr) {
  const __m512d inf = _mm512_set1_pd(INFINITY);
  __m512d bv0 = inf, bv1 = inf, bx0 = inf, bx1 = inf;
  long evals = 0;
  for (long x = lmin(v, c->X); x >= 1; x -= 16, evals += 16)
    win_block512_op(c, g, gm, v, x, sum, &bv0, &bx0, &bv1, &bx1);
  lex_update512(bv1, bx1, &bv0, &bx0);
  double m = _mm512_reduce_min_pd(bv0);
  if (idle <= m) {
    *best = idle;
    *ptr = -1;
  } else {
    __mmask8 at = _mm512_cmp_pd_mask(bv0, _mm512_set1_pd(m), _CMP_EQ_OQ);
    *best = m;
    *ptr = c->jofx[(long)_mm512_mask_reduce_min_pd(at, bx0)];
  }
  return evals;
}

AVX512_ATTR static long full512_max(const pl_list *c, const double *g, long gm, int32_t v, int h, double idle,
                                    double *best, int32_t *ptr) {
  return window_full512(c, g, gm, v, idle, 0, best, ptr);
}

AVX512_ATTR static long full512_sum(const pl_list *c, const double *g, long gm, int32_t v, int h, double idle,
                                    double *best, int32_t *ptr) {
  return window_full512(c, g, gm, v, idle, 1, best, ptr);
}

AVX512_ATTR static long window_max_avx512(const pl_list *c, const double *g, long gm, int32_t v, int h, double idle,
                                          double *best, int32_t *ptr) {
  const __m512d inf = _mm512_set1_pd(INFINITY);
  __m512d bv0 = inf, bv1 = inf, bx0 = inf, bx1 = inf;
  double b = idle;
  long evals = 0;
  const long top = lmin(v, c->X), hm1 = h - 1;
  const double lb = cell_lb(c, v, h);
  if (top >= 1 && idle > lb) {
    long x0 = lmin(top, (v + h - 1) / h + 8);
    win_block512(c, g, gm, v, x0, &bv0, &bx0, &bv1, &bx1);
    evals += 16;
    double lm = _mm512_reduce_min_pd(_mm512_min_pd(bv0, bv1));
    if (lm < b) b = lm;
    const long yh = (v + h - 1) / h;
    long capo = cap_near(c->sm_own, c->X, b, yh);
    long capa = !hm1 ? 0 : c->sm_all == c->sm_own ? capo : cap_near(c->sm_all, c->Xall, b, yh);
    long hi = lmin(top, capo), lo = lmax(1, v - hm1 * capa);
    /* upwards: the first block that reaches lb holds the smallest optimal size */
    for (long x = lo; x <= hi; x += 16) {
      __m512d cv0 = inf, cv1 = inf, cx0 = inf, cx1 = inf;
      win_block512(c, g, gm, v, lmin(x + 15, hi), &cv0, &cx0, &cv1, &cx1);
      evals += 16;
      lex_update512(cv0, cx0, &bv0, &bx0);
      lex_update512(cv1, cx1, &bv1, &bx1);
      double bm = _mm512_reduce_min_pd(_mm512_min_pd(cv0, cv1));
      if (bm < b) {
        b = bm;
        while (capo > 0 && !(c->sm_own[capo] <= b)) capo--;
        hi = lmin(top, capo);
      }
      if (bm <= lb) break;
    }
  }
  /* lanes hold (value, size); idle is size 0 and wins ties */
  lex_update512(bv1, bx1, &bv0, &bx0);
  double m = _mm512_reduce_min_pd(bv0);
  if (idle <= m) {
    *best = idle;
    *ptr = -1;
  } else {
    __mmask8 at = _mm512_cmp_pd_mask(bv0, _mm512_set1_pd(m), _CMP_EQ_OQ);
    *best = m;
    *ptr = c->jofx[(long)_mm512_mask_reduce_min_pd(at, bx0)];
  }
  return evals;
}

static long lagrange_sum_scalar(const pl_list *c, const double *g, long gm, int32_t v, int h, double idle,
                                double *best, int32_t *ptr) {
  double b = idle, bj = -1.0;
  long y = v / h;
  const int s = c->segofy[y < c->X ? y : c->X];
  const double lam = c->lam[s], rest = (double)(h - 1) * c->phi[s];
  const double base = lam * (double)v + rest, scale = fabs(lam) * (double)v + fabs(rest);
  const int32_t *off = c->soff + (size_t)s * c->npad;
  const double *key = c->skey + (size_t)s * c->npad, *val = c->sval + (size_t)s * c->npad,
               *idx = c->sidx + (size_t)s * c->npad;
  double thr = b - base + c->slack * (b + scale);
  int k;
  for (k = 0; k < c->n; k++) {
    if (key[k] > thr) break;
    int32_t x = off[k];
    if (x > v) continue;
    double z = val[k] + g[(v - x) & gm];
    if (z < b || (z == b && idx[k] < bj)) {
      b = z;
      bj = idx[k];
      thr = b - base + c->slack * (b + scale);
    }
  }
  *best = b;
  *ptr = (int32_t)bj;
  return k;
}

AVX512_ATTR static long lagrange_sum_avx512(const pl_list *c, const double *g, long gm, int32_t v, int h,
                                            double idle, double *best, int32_t *ptr) {
  const __m512d inf = _mm512_set1_pd(INFINITY);
  const __m256i vv = _mm256_set1_epi32(v), zero = _mm256_setzero_si256(),
                gmv = _mm256_set1_epi32((int32_t)(gm & 0x7fffffff));
  __m512d bv = inf, bi = inf;
  double b = idle;
  long y = v / h;
  const int s = c->segofy[y < c->X ? y : c->X];
  const double lam = c->lam[s], rest = (double)(h - 1) * c->phi[s];
  const double base = lam * (double)v + rest, scale = fabs(lam) * (double)v + fabs(rest);
  const int32_t *off = c->soff + (size_t)s * c->npad;
  const double *key = c->skey + (size_t)s * c->npad, *val = c->sval + (size_t)s * c->npad,
               *idx = c->sidx + (size_t)s * c->npad;
  double thr = b - base + c->slack * (b + scale);
  int k;
  for (k = 0; k < c->npad; k += 8) {
    if (key[k] > thr) break;
    __m256i w = _mm256_sub_epi32(vv, _mm256_load_si256((const __m256i *)(off + k)));
    __mmask8 m = _mm256_cmpge_epi32_mask(w, zero);
    __m512d gg = gather8(g, _mm256_and_si256(w, gmv), m);
    __m512d z = _mm512_add_pd(_mm512_load_pd(val + k), gg);
    lex_update512(z, _mm512_load_pd(idx + k), &bv, &bi);
    double lm = _mm512_reduce_min_pd(z);
    if (lm < b) {
      b = lm;
      thr = b - base + c->slack * (b + scale);
    }
  }
  double mn = _mm512_reduce_min_pd(bv);
  if (idle <= mn) {
    *best = idle;
    *ptr = -1;
  } else {
    __mmask8 at = _mm512_cmp_pd_mask(bv, _mm512_set1_pd(mn), _CMP_EQ_OQ);
    *best = mn;
    *ptr = (int32_t)_mm512_mask_reduce_min_pd(at, bi);
  }
  return k;
}

/* ---- dispatch ---- */

const char *fupermod_paraleph_kernel_name(int kind) {
  switch (kind) {
  case PL_KERNEL_PLAIN: return "plain";
  case PL_KERNEL_SCALAR: return "scalar";
  case PL_KERNEL_AVX2: return "avx2";
  case PL_KERNEL_AVX512: return "avx512";
  case PL_KERNEL_BOUNDED: return "bounded";
  case PL_KERNEL_BOUNDED_AVX512: return "bounded-avx512";
  case PL_KERNEL_FULL512: return "full-avx512";
  default: return "auto";
  }
}

static int cpu_has(int kind) {
  if (kind == PL_KERNEL_AVX512 || kind == PL_KERNEL_BOUNDED_AVX512 || kind == PL_KERNEL_FULL512)
    return fupermod_cpu_avx512();
  if (kind == PL_KERNEL_AVX2) return fupermod_cpu_avx2();
  return 1;
}

pl_kernel_fn fupermod_paraleph_kernel(int op, int kind, int *chosen) {
  int sum = op == PL_OP_SUM;
  if (kind == PL_KERNEL_AUTO) kind = cpu_has(PL_KERNEL_BOUNDED_AVX512) ? PL_KERNEL_BOUNDED_AVX512 : PL_KERNEL_BOUNDED;
  if (chosen) *chosen = kind;
  if (!cpu_has(kind)) return NULL;
  switch (kind) {
  case PL_KERNEL_PLAIN: return sum ? plain_sum : plain_max;
  case PL_KERNEL_SCALAR: return sum ? scalar_sum : scalar_max;
  case PL_KERNEL_AVX2: return sum ? avx2_sum : avx2_max;
  case PL_KERNEL_AVX512: return sum ? avx512_sum : avx512_max;
  case PL_KERNEL_BOUNDED: return sum ? lagrange_sum_scalar : window_max_scalar;
  case PL_KERNEL_BOUNDED_AVX512: return sum ? lagrange_sum_avx512 : window_max_avx512;
  case PL_KERNEL_FULL512: return sum ? full512_sum : full512_max;
  default: return NULL;
  }
}

/* Bounded kinds need the dense form (max) or the slopes (sum); without them the sorted-key
 * kernel of the same instruction set takes over. */
pl_kernel_fn fupermod_paraleph_kernel_for(const pl_list *c, int op, int kind) {
  int sum = op == PL_OP_SUM, v512 = kind == PL_KERNEL_BOUNDED_AVX512;
  if (kind == PL_KERNEL_BOUNDED || kind == PL_KERNEL_BOUNDED_AVX512) {
    if (!sum && !c->dense) return v512 ? avx512_max : scalar_max;
    if (sum && c->nseg == 0) return v512 ? avx512_sum : scalar_sum;
  }
  if (kind == PL_KERNEL_FULL512 && !c->dense) return sum ? avx512_sum : avx512_max;
  return fupermod_paraleph_kernel(op, kind, NULL);
}
