/* PARALEPH with Pareto cells: the parallel exact bi-objective DP (a parallel HEPOPTA/ALEPH,
 * future work in the papers). Same wavefront as paraleph.c; a cell holds the non-dominated
 * (time, dynamic energy) pairs of v units on processors 1..h:
 *   PF(v, h) = ND( PF(v, h-1)  U  U_{x <= v} {(max(t_h(x), t), e_h(x) + e) : (t, e) in PF(v-x, h-1)} )
 * Exact because max and + are monotone, also under rounding (spec 2.5). Energies are added
 * processor by processor from 1 upwards, so they equal fupermod_problem_evaluate's sums bit for
 * bit. A point remembers (j, i): the size index processor h takes (-1 idle) and the index of the
 * point it extends in the source cell; ND keeps, among equal (t, e), the first in the order
 * (idle, then increasing j, then increasing i), so every (ranks, threads) run is identical.
 * The message between neighbours is one cell of variable length (MPI_Probe for its size). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>
#include "partitioners/paraleph_impl.h"

#define PF_TAG 7322

typedef struct pf_cell {
  int n;
  double *te;  /* n pairs (t, e), t increasing, e decreasing */
  int32_t *ji; /* n pairs (j, i) */
} pf_cell;

typedef struct pf_cand {
  double t, e;
  int32_t j, i;
} pf_cand;

typedef struct pf_buf {
  pf_cand *c;
  size_t n, cap;
} pf_buf;

static int cand_cmp(const void *a, const void *b) {
  const pf_cand *x = a, *y = b;
  if (x->t != y->t) return x->t < y->t ? -1 : 1;
  if (x->e != y->e) return x->e < y->e ? -1 : 1;
  if (x->j != y->j) return x->j < y->j ? -1 : 1;
  return (x->i > y->i) - (x->i < y->i);
}

static int push(pf_buf *b, double t, double e, int32_t j, int32_t i) {
  if (b->n == b->cap) {
    size_t cap = b->cap ? 2 * b->cap : 256;
    pf_cand *c = realloc(b->c, cap * sizeof *c);
    if (!c) return -1;
    b->c = c;
    b->cap = cap;
  }
  b->c[b->n++] = (pf_cand){t, e, j, i};
  return 0;
}

typedef struct pf_run {
  pl_ctx *ctx;
  const pl_problem *P;
  pl_layout lay;
  size_t ld;
  pf_cell *cells; /* nb columns of ld rows */
  pf_cell *left;  /* column h0 - 1 */
  int failed;     /* an allocation failed somewhere (agreed after the wavefront) */
  double cells_done, evals;
  long messages;
} pf_run;

/* Compute cell (v, h) into *out from column g. Returns candidate count, -1 on no memory. */
static long pf_cell_compute(const pf_run *R, int h, long v, const pf_cell *g, pf_cell *out, pf_buf *b) {
  const pl_problem *P = R->P;
  const int k = P->map[h - 1];
  b->n = 0;
  const pf_cell *s = &g[v];
  for (int i = 0; i < s->n; i++)
    if (push(b, s->te[2 * i], s->te[2 * i + 1], -1, i)) return -1;
  for (int j = 0; j < P->m[k] && P->d[k][j] <= v; j++) {
    const pf_cell *src = &g[v - P->d[k][j]];
    const double tj = P->t[k][j], ej = P->e[k][j];
    for (int i = 0; i < src->n; i++) {
      double t = src->te[2 * i];
      if (push(b, tj > t ? tj : t, ej + src->te[2 * i + 1], j, i)) return -1;
    }
  }
  long ncand = (long)b->n;
  out->n = 0;
  out->te = NULL;
  out->ji = NULL;
  if (b->n == 0) return 0;
  qsort(b->c, b->n, sizeof *b->c, cand_cmp);
  size_t keep = 0;
  double laste = INFINITY;
  for (size_t q = 0; q < b->n; q++)
    if (b->c[q].e < laste) {
      b->c[keep++] = b->c[q];
      laste = b->c[q].e;
    }
  out->te = malloc(2 * keep * sizeof *out->te);
  out->ji = malloc(2 * keep * sizeof *out->ji);
  if (!out->te || !out->ji) {
    free(out->te);
    free(out->ji);
    out->te = NULL;
    out->ji = NULL;
    return -1;
  }
  for (size_t q = 0; q < keep; q++) {
    out->te[2 * q] = b->c[q].t;
    out->te[2 * q + 1] = b->c[q].e;
    out->ji[2 * q] = b->c[q].j;
    out->ji[2 * q + 1] = b->c[q].i;
  }
  out->n = (int)keep;
  return ncand;
}

static void pf_wavefront(pf_run *R, int T) {
  const long D = R->P->D;
  const int h0 = R->lay.h0, nb = R->lay.nb, h1 = h0 + nb - 1, me = R->ctx->rank;
  const int lrank = me > 0 ? me - 1 : -1, rrank = me + 1 < R->lay.active ? me + 1 : -1;
  const MPI_Comm comm = R->ctx->comm;
  double commt = 0, ncells = 0, evals = 0;
  long msgs = 0;
  int failed = 0;
  if (nb == 0) return;
  /* row 0: everything idle; base column 0: only row 0 is feasible */
  for (int c = 0; c < nb; c++) {
    pf_cell *z = &R->cells[(size_t)c * R->ld];
    z->te = calloc(2, sizeof *z->te);
    z->ji = malloc(2 * sizeof *z->ji);
    if (!z->te || !z->ji) failed = 1;
    else {
      z->n = 1;
      z->ji[0] = -1;
      z->ji[1] = 0;
    }
  }
  R->left[0].te = calloc(2, sizeof *R->left[0].te);
  if (!R->left[0].te) failed = 1;
  else R->left[0].n = 1;
  const long Lbeg = h0 + 1, Lend = (long)h1 + D + 1;
  pl_sync sync;
  pl_sync_init(&sync, T);
#pragma omp parallel num_threads(T) reduction(+ : commt, ncells, evals, msgs) reduction(| : failed)
  {
    const int tid = omp_get_thread_num();
#pragma omp single
    sync.n = omp_get_num_threads();
    const int nt = sync.n;
    int sense = 0;
    pf_buf buf = {NULL, 0, 0};
    for (long L = Lbeg; L <= Lend; L++) {
      long lo = L - D > h0 ? L - D : h0, hi = L - 1 < h1 ? L - 1 : h1;
      if (tid == 0) {
        atomic_store_explicit(&sync.next[(L + 1) & 1], 0, memory_order_relaxed);
        double c0 = fupermod_paraleph_now();
        long w = L - 1 - h1;
        if (rrank >= 0 && w >= 1 && w <= D) {
          const pf_cell *s = &R->cells[(size_t)(nb - 1) * R->ld + w];
          MPI_Send(s->te, 2 * s->n, MPI_DOUBLE, rrank, PF_TAG, comm);
          msgs++;
        }
        w = L - h0;
        if (lrank >= 0 && w >= 1 && w <= D) {
          MPI_Status st;
          int cnt = 0;
          MPI_Probe(lrank, PF_TAG, comm, &st);
          MPI_Get_count(&st, MPI_DOUBLE, &cnt);
          pf_cell *c = &R->left[w];
          c->te = malloc((size_t)(cnt > 0 ? cnt : 1) * sizeof *c->te);
          if (!c->te) {
            /* cannot store it: receive into a stack slot (an error for MPI if larger) */
            double slot[2];
            failed = 1;
            MPI_Recv(slot, cnt < 2 ? cnt : 2, MPI_DOUBLE, lrank, PF_TAG, comm, MPI_STATUS_IGNORE);
          } else {
            MPI_Recv(c->te, cnt, MPI_DOUBLE, lrank, PF_TAG, comm, MPI_STATUS_IGNORE);
            c->n = cnt / 2;
          }
        }
        commt += fupermod_paraleph_now() - c0;
        if (lo == h0 && lo <= hi) {
          long r = pf_cell_compute(R, h0, L - h0, R->left, &R->cells[(size_t)(L - h0)], &buf);
          if (r < 0) failed = 1;
          else evals += r;
          ncells += 1;
        }
      }
      const long lo2 = lo == h0 ? lo + 1 : lo, n = hi - lo2 + 1;
      for (long k; n > 0 && (k = nt == 1 ? 0 : pl_sync_grab(&sync, L, 1, n)) < n;) {
        long e = nt == 1 ? n : k + 1;
        for (long h = lo2 + k; h < lo2 + e; h++) {
          size_t c = (size_t)(h - h0);
          long r = pf_cell_compute(R, (int)h, L - h, &R->cells[(c - 1) * R->ld],
                                   &R->cells[c * R->ld + (size_t)(L - h)], &buf);
          if (r < 0) failed = 1;
          else evals += r;
          ncells += 1;
        }
        if (nt == 1) break;
      }
      if (nt > 1) pl_sync_barrier(&sync, &sense);
    }
    free(buf.c);
  }
  R->ctx->comm_time += commt;
  R->cells_done = ncells;
  R->evals = evals;
  R->messages = msgs;
  R->failed = failed;
}

static void pf_free_cells(pf_cell *c, size_t n) {
  if (!c) return;
  for (size_t i = 0; i < n; i++) {
    free(c[i].te);
    free(c[i].ji);
  }
  free(c);
}

static int owner_of(int h, int active, int p) {
  int r = 0;
  while (r + 1 < active && fupermod_paraleph_first(r + 1, active, p) <= h) r++;
  return r;
}

/* The final front on every rank: its n points (t, e) in te, and d[q * p + h - 1] the size
 * processor h takes in point q; cur and buf carry the traceback from block to block. */
typedef struct pf_front {
  int n, owner;
  double *te;
  long *d, *cur, *buf;
} pf_front;

static void pf_front_free(pf_front *F) {
  free(F->te);
  free(F->d);
  free(F->cur);
  free(F->buf);
}

/* The final cell's size, broadcast by its owner, and room for the traceback of its points. */
static int pf_front_open(const pf_run *R, pf_front *F) {
  const pl_problem *P = R->P;
  const int active = R->lay.active, p = P->p;
  const pf_cell *fin = NULL;
  int nbmax = 0, rc;
  F->owner = owner_of(p, active, p);
  if (R->ctx->rank == F->owner) {
    fin = &R->cells[(size_t)(p - R->lay.h0) * R->ld + (size_t)P->D];
    F->n = fin->n;
  }
  fupermod_paraleph_bcast(R->ctx, &F->n, 1, MPI_INT, F->owner);
  if (F->n == 0)
    return fupermod_error(FUPERMOD_ERR_INFEASIBLE, "paraleph: no distribution of D=%ld units over %d "
                          "processors uses only measured sizes", P->D, p);
  for (int r = 0; r < active; r++) {
    int nb = fupermod_paraleph_first(r + 1, active, p) - fupermod_paraleph_first(r, active, p);
    if (nb > nbmax) nbmax = nb;
  }
  F->te = malloc(2 * (size_t)F->n * sizeof *F->te);
  F->d = malloc((size_t)F->n * p * sizeof *F->d);
  F->cur = malloc(2 * (size_t)F->n * sizeof *F->cur);
  F->buf = malloc((2 + (size_t)nbmax) * F->n * sizeof *F->buf);
  rc = fupermod_paraleph_agree(R->ctx, F->te && F->d && F->cur && F->buf ? 0 :
                               fupermod_error(FUPERMOD_ERR_NOMEM, "paraleph: out of memory"));
  if (rc == 0 && R->ctx->rank == F->owner) memcpy(F->te, fin->te, 2 * (size_t)F->n * sizeof *F->te);
  return rc;
}

/* The sizes of every front point: each block walks its processors back from where the block to
 * its right stopped (cur: v and the point's index) and broadcasts its sizes and where it stopped,
 * right to left. */
static void pf_traceback(const pf_run *R, pf_front *F) {
  const pl_problem *P = R->P;
  const int active = R->lay.active, p = P->p, nf = F->n;
  long *cur = F->cur, *buf = F->buf;
  fupermod_paraleph_bcast(R->ctx, F->te, 2 * nf, MPI_DOUBLE, F->owner);
  for (int q = 0; q < nf; q++) {
    cur[2 * q] = P->D;
    cur[2 * q + 1] = q;
  }
  for (int r = active - 1; r >= 0; r--) {
    int h0 = fupermod_paraleph_first(r, active, p), h1 = fupermod_paraleph_first(r + 1, active, p) - 1;
    int nb = h1 - h0 + 1;
    if (R->ctx->rank == r) {
      for (int q = 0; q < nf; q++) {
        long v = cur[2 * q], i = cur[2 * q + 1];
        for (int h = h1; h >= h0; h--) {
          const pf_cell *c = &R->cells[(size_t)(h - h0) * R->ld + (size_t)v];
          int32_t j = c->ji[2 * i];
          long x = j < 0 ? 0 : P->d[P->map[h - 1]][j];
          i = c->ji[2 * i + 1];
          buf[2 * nf + (size_t)q * nb + (h - h0)] = x;
          v -= x;
        }
        buf[2 * q] = v;
        buf[2 * q + 1] = i;
      }
    }
    fupermod_paraleph_bcast(R->ctx, buf, (2 + nb) * nf, MPI_LONG, r);
    for (int q = 0; q < nf; q++) {
      cur[2 * q] = buf[2 * q];
      cur[2 * q + 1] = buf[2 * q + 1];
      for (int h = h0; h <= h1; h++) F->d[(size_t)q * p + (h - 1)] = buf[2 * nf + (size_t)q * nb + (h - h0)];
    }
  }
}

/* The front: dynamic, or filtered for total energy (its points lie on the dynamic front). */
static int pf_output(const pl_problem *P, int objective, const pf_front *F, fupermod_front *out) {
  const int p = P->p;
  double lastE = INFINITY;
  int lrc = 0;
  out->points = calloc((size_t)F->n, sizeof *out->points);
  if (!out->points) lrc = fupermod_error(FUPERMOD_ERR_NOMEM, "paraleph: out of memory");
  for (int q = 0; lrc == 0 && q < F->n; q++) {
    double t = F->te[2 * q], e = F->te[2 * q + 1];
    double E = objective == FUPERMOD_OBJ_PARETO_TOTAL ? e + P->static_power * t : e;
    if (!(E < lastE)) continue;
    lastE = E;
    fupermod_front_point *fp = &out->points[out->count];
    fp->time = t;
    fp->energy = E;
    fp->dynamic_energy = e;
    lrc = fupermod_paraleph_make_dist(P, F->d + (size_t)q * p, &fp->dist);
    if (lrc == 0) out->count++;
  }
  return lrc;
}

/* Collective: the run's statistics, the largest times and memory and the summed work of the ranks. */
static void pf_stats(const pf_run *R, double t0, double table_time, int T, fupermod_paraleph_stats *stats) {
  pl_ctx *ctx = R->ctx;
  double mx[4] = {fupermod_paraleph_now() - t0, table_time, ctx->comm_time, 0};
  double sm[3] = {R->cells_done, R->evals, (double)R->messages};
  /* cells are heap blocks: count what they hold */
  size_t mem = R->lay.nb * R->ld * sizeof(pf_cell) + R->ld * sizeof(pf_cell);
  if (R->cells)
    for (size_t i = 0; i < (size_t)R->lay.nb * R->ld; i++) mem += (size_t)R->cells[i].n * 32;
  mx[3] = (double)mem;
  if (ctx->size > 1) {
    MPI_Allreduce(MPI_IN_PLACE, mx, 4, MPI_DOUBLE, MPI_MAX, ctx->comm);
    MPI_Allreduce(MPI_IN_PLACE, sm, 3, MPI_DOUBLE, MPI_SUM, ctx->comm);
  }
  if (stats) /* every field */
    *stats = (fupermod_paraleph_stats){.objective = 0, .time = mx[0], .table_time = mx[1], .comm_time = mx[2],
                                       .mem_rank = (size_t)mx[3], .cells = sm[0], .evals = sm[1],
                                       .messages = (long)sm[2], .nprocs = R->lay.active, .threads = T,
                                       .kernel = "pareto"};
}

int fupermod_paraleph_pareto(MPI_Comm comm, int root, const fupermod_problem *prob, int objective,
                             int threads, fupermod_front *out, fupermod_paraleph_stats *stats) {
  pl_ctx ctx;
  pl_problem P;
  pf_run R;
  pf_front F = {0, 0, NULL, NULL, NULL, NULL};
  double t0 = fupermod_paraleph_now(), tt;
  int rc, T = threads > 0 ? threads : omp_get_max_threads();
  if (T < 1) T = 1;
  if (out) {
    out->count = 0;
    out->points = NULL;
  }
  if ((rc = fupermod_paraleph_ctx_open(comm, root, &ctx))) return rc;
  if (objective != FUPERMOD_OBJ_PARETO && objective != FUPERMOD_OBJ_PARETO_TOTAL)
    rc = fupermod_error(FUPERMOD_ERR_USAGE, "paraleph: Pareto objective must be FUPERMOD_OBJ_PARETO or "
                        "FUPERMOD_OBJ_PARETO_TOTAL");
  else if (!out)
    rc = fupermod_error(FUPERMOD_ERR_USAGE, "paraleph: no output front given");
  if (rc || (rc = fupermod_paraleph_problem_bcast(&ctx, prob, objective, &P))) {
    fupermod_paraleph_ctx_close(&ctx);
    return rc;
  }
  memset(&R, 0, sizeof R);
  R.ctx = &ctx;
  R.P = &P;
  R.ld = (size_t)P.D + 1;
  fupermod_paraleph_layout(ctx.size, ctx.rank, P.p, &R.lay);
  if (R.lay.nb > 0) {
    R.cells = calloc((size_t)R.lay.nb * R.ld, sizeof *R.cells);
    R.left = calloc(R.ld, sizeof *R.left);
    if (!R.cells || !R.left) rc = fupermod_error(FUPERMOD_ERR_NOMEM, "paraleph: out of memory for Pareto cells");
  }
  rc = fupermod_paraleph_agree(&ctx, rc);
  tt = fupermod_paraleph_now();
  if (rc == 0) {
    pf_wavefront(&R, T);
    rc = fupermod_paraleph_agree(&ctx, R.failed ? fupermod_error(FUPERMOD_ERR_NOMEM,
                                 "paraleph: out of memory in a Pareto cell") : 0);
  }
  tt = fupermod_paraleph_now() - tt;
  /* the final front, on every rank */
  if (rc == 0) rc = pf_front_open(&R, &F);
  if (rc == 0) {
    pf_traceback(&R, &F);
    rc = fupermod_paraleph_agree(&ctx, pf_output(&P, objective, &F, out));
    if (rc) fupermod_front_free(out);
  }
  pf_stats(&R, t0, tt, T, stats);
  pf_front_free(&F);
  pf_free_cells(R.cells, (size_t)R.lay.nb * R.ld);
  pf_free_cells(R.left, R.ld);
  fupermod_paraleph_problem_free(&P);
  fupermod_paraleph_ctx_close(&ctx);
  return rc;
}
