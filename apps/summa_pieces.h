/* SUMMA's messages on a layout with pieces (docs/matrix.md, "SUMMA on pieces"): apps/summa.c sends
 * them, apps/model.c prices them; one enumeration, so the two cannot differ. Internal to
 * libfupermod_apps (hidden symbols, not installed). */
#ifndef FUPERMOD_SUMMA_PIECES_H
#define FUPERMOD_SUMMA_PIECES_H

#include "partitioners/matrix.h"

typedef struct {
  int lo, hi; /* elements [lo, hi) */
} fupermod_span;

/* The pieces in elements, and each rank's panels: the A panel holds the rows its pieces cover
 * (merged, in increasing order), the B panel the columns; a plain layout is its non-empty
 * rectangles, one piece each. */
typedef struct {
  int p, n, b, K, np;
  int *row0, *rows, *col0, *cols; /* piece j's element extent */
  int *owner;
  long *off;        /* piece j's offset in its owner's storage (its earlier pieces before it) */
  long *prow, *pcol; /* position of piece j's first row in its owner's A panel, first column in its B panel */
  int *rs, *cs;      /* rank r's rows: rsp[rs[r] .. rs[r+1]), columns: csp[cs[r] .. cs[r+1]) */
  fupermod_span *rsp, *csp;
  long *rpos, *cpos;     /* panel position of each span's first element */
  long *arows, *bcols;   /* rank r's panel rows (A) and columns (B) */
  long *local;           /* elements rank r stores */
  void *scratch;         /* np: the owners of a pivot */
} fupermod_summa_plan;

/* One intersection of a receiver's span with an owner piece: from == to is a local copy. */
typedef struct {
  int from, to, piece; /* piece: the owner piece it comes from */
  int lo, hi;          /* rows (A) or columns (B), elements */
  long at_from, at_to; /* panel positions of lo in the sender's and the receiver's panel */
} fupermod_summa_xfer;

int fupermod_summa_plan_make(const fupermod_layout *l, int n, int b, fupermod_summa_plan *pl);
void fupermod_summa_plan_free(fupermod_summa_plan *pl);

/* The transfers of pivot k (block column k of A: kind 0; block row k of B: kind 1): for every
 * receiver in rank order, its spans in increasing order, each cut by the owner pieces of the
 * pivot (which tile [0, n)) in increasing order. So between two ranks the transfers come in
 * increasing lo on both sides. me >= 0: only those from or to me. out NULL: count only. */
long fupermod_summa_plan_xfers(fupermod_summa_plan *pl, int k, int kind, int me, fupermod_summa_xfer *out);

#endif
