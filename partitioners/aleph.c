/* ALEPH (Reddy & Lastovetsky, IEEE TC 2018): Pareto front of (time, dynamic energy) on p identical
 * processors. Both modes enumerate a distribution as "r copies of its largest size x plus a left
 * part on p - r processors using sizes <= x", as ALSOO does.
 *  - default (exact): the left part is itself a Pareto set, memoised by (work, processors, number
 *    of usable sizes): P(v,k,j) = ND( P(v,k,j-1) U  U_r  r*x_{j-1} (+) P(v - r x_{j-1}, k - r, j-1) ).
 *    Exact since max and + are monotone. Ties: equal vectors keep fewer active processors, then
 *    the first generated (fewer copies of the largest size first).
 *  - faithful (prob->faithful): the printed candidate set. For each objective (TIME, then
 *    ENERGY): the balanced distribution and, for every x >= ceil(n/p) and r in 1..p-1, r copies of
 *    x plus the single-objective optimum of the left part over sizes <= x (ALSOO, exact for one
 *    objective, first strict improvement in its scan order), every candidate offered to
 *    UPDATEPARETO (keep the first of equal vectors). This can miss Pareto points whose left part
 *    is a compromise (digest 7.3); the printed traps 1-8 (rLevel, memo keys and sentinels, shared
 *    memo, n_l = 0, balanced candidate, both objectives) are fixed, trap 9 is kept on purpose.
 * Distributions give sizes in increasing order to processors 0, 1, ... (idle ones last), which is
 * also the order the exact tables sum energies in. The user preference U of the paper
 * (SELECTTRADEOFFS) is left to the caller: the whole front is returned. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "partitioners/energy_common.h"

#define TABLE_LIMIT ((size_t)1 << 30) /* bytes */

static int aleph(const fupermod_problem *prob, fupermod_front *out);

const fupermod_partitioner fupermod_partitioner_aleph = {
  "aleph", "ALEPH: Pareto front of time and dynamic energy on identical processors (exact; faithful: printed)",
  FUPERMOD_PART_PARETO, NULL, 1, 1, 0, NULL, NULL, aleph};

static fupermod_en_pe zero_pe[1] = {{0.0, 0.0, 0, 0, 0, 0}};
static const fupermod_en_pset zero_set = {1, 1, zero_pe};
static const fupermod_en_pset empty_set = {0, 0, NULL};

/* ---------- exact mode ---------- */

typedef struct {
  const fupermod_points *f;
  int m, K;
  long W;
  fupermod_en_pset **memo;
  fupermod_en_ranks rk;
} alx;

static size_t alx_id(const alx *A, long v, int k, int j) {
  return ((size_t)v * (size_t)A->K + (size_t)k) * (size_t)(A->m + 1) + (size_t)j;
}

static const fupermod_en_pset *pareto(alx *A, long v, int k, int j, int *rc) {
  fupermod_en_pset *s;
  const fupermod_en_pset *sub;
  long x;
  double ex;
  if (v == 0) return &zero_set;
  if (k == 0 || j == 0) return &empty_set;
  x = A->f->pts[j - 1].d;
  ex = A->f->pts[j - 1].e;
  if (v > (long)k * x) return &empty_set; /* k sizes <= x cannot hold v */
  if (A->memo[alx_id(A, v, k, j)]) return A->memo[alx_id(A, v, k, j)];
  if (!(s = calloc(1, sizeof *s))) {
    *rc = fupermod_error(FUPERMOD_ERR_NOMEM, "aleph: out of memory");
    return &empty_set;
  }
  A->memo[alx_id(A, v, k, j)] = s;
  /* solve the sub-problems first: the merge below uses one shared collector */
  sub = pareto(A, v, k, j - 1, rc); /* x_{j-1} not used */
  for (int r = 1; !*rc && r <= k && r * x <= v; r++) pareto(A, v - r * x, k - r, j - 1, rc);
  if (*rc) return &empty_set;
  fupermod_en_begin(&A->rk);
  fupermod_en_add_idle(&A->rk, sub);
  for (int r = 1; r <= k && r * x <= v; r++) /* exactly r copies of x_{j-1} */
    fupermod_en_add_ext(&A->rk, pareto(A, v - r * x, k - r, j - 1, rc), A->rk.rank[0][j - 1], ex, r, r);
  if ((*rc = fupermod_en_end(&A->rk, s))) return &empty_set;
  return s;
}

static int aleph_exact(const fupermod_problem *prob, fupermod_front *out) {
  alx A;
  const fupermod_en_pset *root;
  size_t cells;
  long *d = NULL;
  int rc = FUPERMOD_SUCCESS, p = prob->p;
  A.f = prob->f[0];
  A.W = prob->D + 1;
  A.m = 0;
  while (A.m < A.f->count && A.f->pts[A.m].d <= prob->D) A.m++;
  A.K = (int)(prob->D / A.f->pts[0].d < p ? prob->D / A.f->pts[0].d : p) + 1;
  cells = (size_t)A.W * (size_t)A.K;
  if (cells > TABLE_LIMIT / sizeof(void *) / (size_t)(A.m + 1))
    return fupermod_error(FUPERMOD_ERR_NOMEM, "aleph: memo of %ld x %d x %d cells is too large; use hepopta",
                          A.W, A.K, A.m + 1);
  cells *= (size_t)(A.m + 1);
  if ((rc = fupermod_en_ranks_init(&A.rk, prob))) return rc;
  A.memo = calloc(cells, sizeof *A.memo);
  d = calloc((size_t)p, sizeof *d);
  if (!A.memo || !d) {
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "aleph: out of memory (memo of %zu cells)", cells);
    goto done;
  }
  root = pareto(&A, prob->D, A.K - 1, A.m, &rc);
  if (rc) goto done;
  if (root->n == 0) {
    rc = fupermod_en_infeasible(prob, "aleph");
    goto done;
  }
  for (int s = 0; s < root->n; s++) {
    long v = prob->D;
    int k = A.K - 1, j = A.m, i = s, q = 0;
    while (v > 0) { /* sizes come out in decreasing order */
      const fupermod_en_pe *pe = &A.memo[alx_id(&A, v, k, j)]->v[i];
      const int r = pe->a > 0 ? pe->a : 0; /* copies of x_{j-1} (a < 0: none) */
      for (int c = 0; c < r; c++) d[q++] = A.f->pts[j - 1].d;
      v -= r * A.f->pts[j - 1].d;
      k -= r;
      j--;
      i = pe->b;
    }
    for (int a = 0, b = q - 1; a < b; a++, b--) { /* increasing sizes, idle processors last */
      long tmp = d[a];
      d[a] = d[b];
      d[b] = tmp;
    }
    for (int a = q; a < p; a++) d[a] = 0;
    if ((rc = fupermod_en_front_append(out, prob, d, 0))) goto done;
  }
done:
  if (A.memo)
    for (size_t i = 0; i < cells; i++)
      if (A.memo[i]) {
        fupermod_en_free(A.memo[i]);
        free(A.memo[i]);
      }
  free(A.memo);
  fupermod_en_ranks_free(&A.rk);
  free(d);
  return rc;
}

/* ---------- faithful mode ---------- */

enum { OBJ_TIME = 0, OBJ_ENERGY = 1 };
#define NOT_DONE INT_MIN
#define CH_INF (-2) /* no distribution */
#define CH_BAL (-1) /* the balanced distribution */

typedef struct {
  double val;
  int j, r; /* choice: r copies of point j, or CH_BAL / CH_INF */
} als_cell;

typedef struct {
  const fupermod_points *f;
  int m, p;
  long W;
  als_cell *memo[2];
  long *cand;
  /* UPDATEPARETO's set */
  int n, cap;
  double *t, *e;
  long *dist;
} als;

static als_cell *als_at(als *A, int obj, long v, int k, int j) {
  return &A->memo[obj][((size_t)v * (size_t)(A->p + 1) + (size_t)k) * (size_t)A->m + (size_t)j];
}

/* index of size x among the usable sizes <= point jmax, or -1 */
static int usable(const als *A, long x, int jmax) {
  int k = fupermod_points_find(A->f, x);
  return k <= jmax ? k : -1;
}

/* Balanced split of v over k processors using sizes <= point jmax: 1 and its value, or 0. */
static int balanced(const als *A, int obj, long v, int k, int jmax, double *val) {
  long q = v / k, rem = v % k;
  int hi = rem ? usable(A, q + 1, jmax) : INT_MAX, lo = q ? usable(A, q, jmax) : INT_MAX;
  double t = 0.0, e = 0.0;
  if (hi < 0 || lo < 0) return 0;
  for (long i = 0; i < k; i++) {
    int c = i < rem ? hi : lo;
    if (c == INT_MAX) continue;
    if (A->f->pts[c].t > t) t = A->f->pts[c].t;
    e += A->f->pts[c].e;
  }
  *val = obj == OBJ_TIME ? t : e;
  return 1;
}

/* ALSOO: the best value of v units on k processors with sizes <= point jmax (INFINITY: none). */
static double alsoo(als *A, int obj, long v, int k, int jmax) {
  als_cell *c;
  double best = INFINITY, val;
  int bj = CH_INF, br = 0;
  if (v == 0) return 0.0;
  if (k == 1) {
    int i = usable(A, v, jmax);
    return i < 0 ? INFINITY : obj == OBJ_TIME ? A->f->pts[i].t : A->f->pts[i].e;
  }
  c = als_at(A, obj, v, k, jmax);
  if (c->j != NOT_DONE) return c->val;
  if (balanced(A, obj, v, k, jmax, &val)) best = val, bj = CH_BAL;
  for (int j = 0; j <= jmax && A->f->pts[j].d <= v; j++) {
    const long x = A->f->pts[j].d;
    double fr = obj == OBJ_TIME ? A->f->pts[j].t : 0.0;
    if (x * k < v) continue; /* x must be the largest size: x >= ceil(v/k) */
    for (int r = 1; r < k; r++) {
      long nl = v - r * x;
      double sub, ft;
      if (nl < 0) break;
      if (obj == OBJ_ENERGY) fr += A->f->pts[j].e;
      if (nl == 0) {
        if (fr < best) best = fr, bj = j, br = r;
        break;
      }
      sub = alsoo(A, obj, nl, k - r, j);
      if (!isfinite(sub)) continue;
      ft = obj == OBJ_TIME ? (sub > fr ? sub : fr) : sub + fr;
      if (ft < best) best = ft, bj = j, br = r;
    }
  }
  c = als_at(A, obj, v, k, jmax); /* (the recursion does not move the table) */
  c->val = best;
  c->j = bj;
  c->r = br;
  return best;
}

/* Write the distribution behind alsoo(obj, v, k, jmax) into d[0..k-1]. */
static void als_build(als *A, int obj, long v, int k, int jmax, long *d) {
  if (v == 0) return;
  if (k == 1) {
    d[0] = v;
    return;
  }
  als_cell *c = als_at(A, obj, v, k, jmax);
  if (c->j == CH_BAL) {
    for (int i = 0; i < k; i++) d[i] = v / k + (i < v % k ? 1 : 0);
    return;
  }
  for (int i = 0; i < c->r; i++) d[i] = A->f->pts[c->j].d;
  als_build(A, obj, v - c->r * A->f->pts[c->j].d, k - c->r, c->j, d + c->r);
}

/* UPDATEPARETO: reject d if a stored vector is <= in both objectives (this keeps the first of
 * equal vectors), else drop the stored vectors it dominates and add it. */
static int update_pareto(als *A, const fupermod_problem *prob, const long *d) {
  double t, e;
  int k = 0;
  if (fupermod_problem_evaluate(prob, d, &t, &e, NULL))
    return fupermod_error_prefix(FUPERMOD_ERR_INFEASIBLE, "aleph: internal error: invalid candidate");
  for (int i = 0; i < A->n; i++)
    if (A->t[i] <= t && A->e[i] <= e) return FUPERMOD_SUCCESS;
  for (int i = 0; i < A->n; i++)
    if (!(t <= A->t[i] && e <= A->e[i])) {
      A->t[k] = A->t[i];
      A->e[k] = A->e[i];
      memmove(A->dist + (size_t)k * A->p, A->dist + (size_t)i * A->p, (size_t)A->p * sizeof *A->dist);
      k++;
    }
  A->n = k;
  if (A->n == A->cap) {
    int cap = A->cap ? 2 * A->cap : 8;
    double *nt = realloc(A->t, (size_t)cap * sizeof *nt), *ne;
    long *nd;
    if (nt) A->t = nt;
    ne = realloc(A->e, (size_t)cap * sizeof *ne);
    if (ne) A->e = ne;
    nd = realloc(A->dist, (size_t)cap * (size_t)A->p * sizeof *nd);
    if (nd) A->dist = nd;
    if (!nt || !ne || !nd) return fupermod_error(FUPERMOD_ERR_NOMEM, "aleph: out of memory");
    A->cap = cap;
  }
  A->t[A->n] = t;
  A->e[A->n] = e;
  memcpy(A->dist + (size_t)A->n * A->p, d, (size_t)A->p * sizeof *d);
  A->n++;
  return FUPERMOD_SUCCESS;
}

static int aleph_faithful(const fupermod_problem *prob, fupermod_front *out) {
  als A;
  const long D = prob->D;
  const int p = prob->p;
  size_t cells;
  int rc = FUPERMOD_SUCCESS;
  memset(&A, 0, sizeof A);
  A.f = prob->f[0];
  A.p = p;
  A.W = D + 1;
  while (A.m < A.f->count && A.f->pts[A.m].d <= D) A.m++;
  cells = (size_t)A.W * (size_t)(p + 1);
  if (cells > TABLE_LIMIT / 2 / sizeof(als_cell) / (size_t)(A.m ? A.m : 1))
    return fupermod_error(FUPERMOD_ERR_NOMEM, "aleph: faithful memo of %ld x %d x %d cells is too large", A.W,
                          p + 1, A.m);
  cells *= (size_t)(A.m ? A.m : 1);
  A.memo[0] = malloc(cells * sizeof(als_cell));
  A.memo[1] = malloc(cells * sizeof(als_cell));
  A.cand = malloc((size_t)p * sizeof *A.cand);
  if (!A.memo[0] || !A.memo[1] || !A.cand) {
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "aleph: out of memory (faithful memo of %zu cells)", cells);
    goto done;
  }
  for (size_t i = 0; i < cells; i++) A.memo[0][i].j = A.memo[1][i].j = NOT_DONE; /* not 0 (trap 3) */
  for (int obj = OBJ_TIME; obj <= OBJ_ENERGY; obj++) { /* two runs, two memos, one front (trap 6) */
    double val;
    if (balanced(&A, obj, D, p, A.m - 1, &val)) { /* trap 7: offer the balanced start */
      for (int i = 0; i < p; i++) A.cand[i] = D / p + (i < D % p ? 1 : 0);
      if ((rc = update_pareto(&A, prob, A.cand))) goto done;
    }
    for (int j = 0; j < A.m; j++) {
      const long x = A.f->pts[j].d;
      if (x * p < D) continue;
      for (int r = 1; r < p; r++) {
        long nl = D - r * x;
        if (nl < 0) break;
        memset(A.cand, 0, (size_t)p * sizeof *A.cand);
        for (int i = 0; i < r; i++) A.cand[i] = x;
        if (nl > 0) {
          if (!isfinite(alsoo(&A, obj, nl, p - r, j))) continue;
          als_build(&A, obj, nl, p - r, j, A.cand + r);
        }
        if ((rc = update_pareto(&A, prob, A.cand))) goto done; /* trap 4: n_l = 0 is a candidate */
        if (nl == 0) break;
      }
    }
  }
  if (A.n == 0) {
    rc = fupermod_en_infeasible(prob, "aleph");
    goto done;
  }
  for (int done_n = 0; done_n < A.n; done_n++) { /* by increasing time */
    int b = -1;
    for (int i = 0; i < A.n; i++)
      if (A.t[i] >= 0 && (b < 0 || A.t[i] < A.t[b])) b = i;
    if ((rc = fupermod_en_front_append(out, prob, A.dist + (size_t)b * p, 0))) goto done;
    A.t[b] = -1.0;
  }
done:
  free(A.memo[0]);
  free(A.memo[1]);
  free(A.cand);
  free(A.t);
  free(A.e);
  free(A.dist);
  return rc;
}

static int aleph(const fupermod_problem *prob, fupermod_front *out) {
  int rc = fupermod_en_front_init(out, "aleph");
  if (rc) return rc;
  if ((rc = fupermod_en_check(prob, &fupermod_partitioner_aleph))) return rc;
  rc = prob->faithful ? aleph_faithful(prob, out) : aleph_exact(prob, out);
  if (rc) fupermod_front_free(out);
  return rc;
}
