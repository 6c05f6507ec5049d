/* SUMMA's messages on a layout with pieces (apps/summa_pieces.h). */
#include <stdlib.h>
#include <string.h>
#include "apps/summa_pieces.h"

typedef struct {
  int key, j;
} keyed;

static int by_key(const void *a, const void *b) {
  const keyed *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return (x->j > y->j) - (x->j < y->j);
}

void fupermod_summa_plan_free(fupermod_summa_plan *pl) {
  if (!pl) return;
  free(pl->row0), free(pl->rows), free(pl->col0), free(pl->cols), free(pl->owner), free(pl->off);
  free(pl->prow), free(pl->pcol), free(pl->rs), free(pl->cs), free(pl->rsp), free(pl->csp);
  free(pl->rpos), free(pl->cpos), free(pl->arows), free(pl->bcols), free(pl->local), free(pl->scratch);
  memset(pl, 0, sizeof *pl);
}

/* Each rank's merged intervals of [lo[j], lo[j] + len[j]) over its pieces (start[r] .. start[r+1]),
 * their panel positions, the panel size per rank and each piece's position in its owner's panel. */
static int spans_of(fupermod_summa_plan *pl, const int *lo, const int *len, int *start, fupermod_span **sp, long **pos,
                    long *size, long *ppos) {
  int np = pl->np, p = pl->p, m = 0;
  keyed *kk = malloc((size_t)(np ? np : 1) * sizeof *kk);
  int *order = malloc((size_t)(np ? np : 1) * sizeof *order), *at = calloc((size_t)p + 1, sizeof *at);
  *sp = malloc((size_t)(np ? np : 1) * sizeof **sp);
  *pos = malloc((size_t)(np ? np : 1) * sizeof **pos);
  if (!kk || !order || !at || !*sp || !*pos) {
    free(kk), free(order), free(at);
    return -1;
  }
  /* by first element, then (a stable counting sort) by owner */
  for (int j = 0; j < np; j++) kk[j] = (keyed){lo[j], j};
  qsort(kk, (size_t)np, sizeof *kk, by_key);
  for (int j = 0; j < np; j++) at[pl->owner[j] + 1]++;
  for (int r = 0; r < p; r++) at[r + 1] += at[r];
  for (int t = 0; t < np; t++) order[at[pl->owner[kk[t].j]]++] = kk[t].j;
  for (int r = 0, t = 0; r < p; r++) {
    long acc = 0;
    start[r] = m;
    for (; t < np && pl->owner[order[t]] == r; t++) {
      int j = order[t];
      if (m > start[r] && lo[j] <= (*sp)[m - 1].hi) { /* touching or overlapping: one span */
        if (lo[j] + len[j] > (*sp)[m - 1].hi) {
          acc += lo[j] + len[j] - (*sp)[m - 1].hi;
          (*sp)[m - 1].hi = lo[j] + len[j];
        }
      } else {
        (*sp)[m] = (fupermod_span){lo[j], lo[j] + len[j]};
        (*pos)[m++] = acc;
        acc += len[j];
      }
    }
    size[r] = acc;
  }
  start[p] = m;
  for (int j = 0; j < np; j++) {
    int r = pl->owner[j];
    for (int s = start[r]; s < start[r + 1]; s++)
      if ((*sp)[s].lo <= lo[j] && lo[j] < (*sp)[s].hi) ppos[j] = (*pos)[s] + lo[j] - (*sp)[s].lo;
  }
  free(kk), free(order), free(at);
  return 0;
}

int fupermod_summa_plan_make(const fupermod_layout *l, int n, int b, fupermod_summa_plan *pl) {
  int p = l->p, np = 0;
  memset(pl, 0, sizeof *pl);
  if (l->npieces > 0) np = l->npieces;
  else
    for (int i = 0; i < p; i++) np += l->rects[i].height > 0 && l->rects[i].width > 0;
  pl->p = p, pl->n = n, pl->b = b, pl->K = (int)(((long)n + b - 1) / b), pl->np = np;
  size_t q = (size_t)(np ? np : 1);
  pl->row0 = malloc(q * sizeof(int)), pl->rows = malloc(q * sizeof(int));
  pl->col0 = malloc(q * sizeof(int)), pl->cols = malloc(q * sizeof(int));
  pl->owner = malloc(q * sizeof(int)), pl->off = malloc(q * sizeof(long));
  pl->prow = malloc(q * sizeof(long)), pl->pcol = malloc(q * sizeof(long));
  pl->scratch = malloc(q * sizeof(keyed));
  pl->rs = malloc(((size_t)p + 1) * sizeof(int)), pl->cs = malloc(((size_t)p + 1) * sizeof(int));
  pl->arows = calloc((size_t)p, sizeof(long)), pl->bcols = calloc((size_t)p, sizeof(long));
  pl->local = calloc((size_t)p, sizeof(long));
  if (!pl->row0 || !pl->rows || !pl->col0 || !pl->cols || !pl->owner || !pl->off || !pl->prow || !pl->pcol ||
      !pl->scratch || !pl->rs || !pl->cs || !pl->arows || !pl->bcols || !pl->local)
    goto nomem;
  for (int i = 0, j = 0; j < np; i++) {
    const fupermod_rect *r = l->npieces > 0 ? &l->pieces[i] : &l->rects[i];
    long r1 = (long)(r->row + r->height) * b, c1 = (long)(r->col + r->width) * b;
    if (r->height == 0 || r->width == 0) continue;
    pl->owner[j] = l->npieces > 0 ? l->owner[i] : i;
    pl->row0[j] = r->row * b; /* row < M = ceil(n/b): fits */
    pl->col0[j] = r->col * b;
    pl->rows[j] = (int)((r1 < n ? r1 : n) - pl->row0[j]);
    pl->cols[j] = (int)((c1 < n ? c1 : n) - pl->col0[j]);
    pl->off[j] = pl->local[pl->owner[j]];
    pl->local[pl->owner[j]] += (long)pl->rows[j] * pl->cols[j];
    j++;
  }
  if (spans_of(pl, pl->row0, pl->rows, pl->rs, &pl->rsp, &pl->rpos, pl->arows, pl->prow) ||
      spans_of(pl, pl->col0, pl->cols, pl->cs, &pl->csp, &pl->cpos, pl->bcols, pl->pcol))
    goto nomem;
  return FUPERMOD_SUCCESS;
nomem:
  fupermod_summa_plan_free(pl);
  return fupermod_error(FUPERMOD_ERR_NOMEM, "summa: out of memory for the plan of %d pieces", np);
}

long fupermod_summa_plan_xfers(fupermod_summa_plan *pl, int k, int kind, int me, fupermod_summa_xfer *out) {
  const int *own0 = kind ? pl->row0 : pl->col0, *ownlen = kind ? pl->rows : pl->cols; /* the pivot's side */
  const int *lo = kind ? pl->col0 : pl->row0, *len = kind ? pl->cols : pl->rows;       /* what travels */
  const int *start = kind ? pl->cs : pl->rs;
  const fupermod_span *sp = kind ? pl->csp : pl->rsp;
  const long *pos = kind ? pl->cpos : pl->rpos, *ppos = kind ? pl->pcol : pl->prow;
  keyed *o = pl->scratch;
  int m = 0, kc0 = k * pl->b, mine = 0;
  long cnt = 0;
  /* the pieces holding the pivot, in increasing order along it: they tile [0, n) */
  for (int j = 0; j < pl->np; j++)
    if (own0[j] <= kc0 && kc0 < own0[j] + ownlen[j]) {
      o[m++] = (keyed){lo[j], j};
      mine |= pl->owner[j] == me;
    }
  qsort(o, (size_t)m, sizeof *o, by_key);
  for (int r = 0; r < pl->p; r++) {
    int t = 0;
    if (me >= 0 && r != me && !mine) continue;
    for (int s = start[r]; s < start[r + 1]; s++) {
      while (t < m && lo[o[t].j] + len[o[t].j] <= sp[s].lo) t++;
      for (int u = t; u < m && lo[o[u].j] < sp[s].hi; u++) {
        int j = o[u].j, a = lo[j] > sp[s].lo ? lo[j] : sp[s].lo;
        int z = lo[j] + len[j] < sp[s].hi ? lo[j] + len[j] : sp[s].hi;
        if (a >= z || (me >= 0 && pl->owner[j] != me && r != me)) continue;
        if (out) out[cnt] = (fupermod_summa_xfer){pl->owner[j], r, j, a, z, ppos[j] + a - lo[j], pos[s] + a - sp[s].lo};
        cnt++;
      }
    }
  }
  return cnt;
}
