/* Two-dimensional matrix partitioning (docs/matrix.md): an M x N matrix of b x b blocks is cut
 * into one rectangle per process, or into pieces, several of which a process may own.
 * Column-based layouts: Kalinov-Lastovetsky ("kl"), Beaumont et al. with the
 * communication-minimising dynamic program ("br"), and the 1.5D algorithm (areas from any 1D
 * partitioner over 1D models, shapes from the BR program). The square-corner layout ("sc") gives
 * each slow process a square on the diagonal and the fastest process the rest, in pieces. */
#ifndef FUPERMOD_MATRIX_H
#define FUPERMOD_MATRIX_H

#include <fupermod/fupermod.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* the public API; the libraries build with -fvisibility=hidden */

/* A rectangle of blocks: rows [row, row+height), columns [col, col+width). A process with no
 * data has height == 0 or width == 0 (the layouts here store it as {0, 0, 0, 0}). */
typedef struct fupermod_rect {
  int row, col, height, width;
} fupermod_rect;

/* npieces = 0: one rectangle per process, rects[i]. npieces > 0: the matrix is tiled by the pieces,
 * which are the truth; rects[i] is process i's piece when it owns exactly one and {0, 0, 0, 0}
 * when it owns none or several, column[i] = -1 and ncols = 0. */
typedef struct fupermod_layout {
  int p;                 /* processes */
  int M, N;              /* matrix size in blocks: M block rows, N block columns */
  int ncols;             /* processor columns (0: a general tiling, not column-based) */
  fupermod_rect *rects;  /* rects[i]: the rectangle of process i */
  int *column;           /* column[i]: processor column of process i, -1 when its rectangle is empty */
  int npieces;           /* 0: one rectangle per process (rects). > 0: a tiling by pieces */
  fupermod_rect *pieces; /* pieces[j], owned by process owner[j]; a process's pieces in increasing j */
  int *owner;
} fupermod_layout;

/* Allocate a layout of p empty rectangles (ncols = 0, no pieces); free with fupermod_layout_free. */
int fupermod_layout_alloc(int p, int M, int N, fupermod_layout **out);
void fupermod_layout_free(fupermod_layout *l);
int fupermod_layout_copy(const fupermod_layout *src, fupermod_layout **out);

/* Make l a tiling by n pieces: pieces[j] owned by owner[j] (copied; empty rectangles are dropped),
 * rects and column derived as for npieces > 0, ncols = 0. When no process is left with more than
 * one piece the result is the plain layout of those rectangles (npieces = 0): a piece layout
 * always has a process with several pieces. n = 0 drops the pieces (every rectangle empty). The
 * tiling is not checked here (fupermod_layout_check). */
int fupermod_layout_set_pieces(fupermod_layout *l, int n, const fupermod_rect *pieces, const int *owner);

/* Exact tiling: every non-empty rectangle (or every piece) lies inside the matrix, none overlap,
 * and their areas sum to M*N; pieces are not empty, their owners in 0..p-1, and rects, column and
 * ncols agree with them. FUPERMOD_ERR_INPUT naming the first offending process otherwise. */
int fupermod_layout_check(const fupermod_layout *l);

/* Communication volume on the unit square: H = sum over non-empty rectangles (or over the
 * pieces) of height/M + width/N (the sum of half-perimeters, spec 2.9). */
double fupermod_layout_volume(const fupermod_layout *l);

/* Area of process i in blocks (height * width; the sum over its pieces). */
long fupermod_layout_area(const fupermod_layout *l, int i);

/* Number of pieces of process i: 1 or 0 (an empty rectangle) in a plain layout. */
int fupermod_layout_npieces(const fupermod_layout *l, int i);

/* Kalinov-Lastovetsky: ncols processor columns; column j holds col_sizes[j] processes, taken in
 * rank order (col_sizes NULL: sizes as equal as possible, the first columns one larger). ncols
 * <= 0 picks round(sqrt(p)). Column widths are proportional to the column's total area, heights
 * within a column to the areas. areas: any non-negative scale, not all zero. */
int fupermod_layout_kl(const double *areas, int p, int ncols, const int *col_sizes, int M, int N,
                       fupermod_layout **out);

/* Beaumont et al.: processes with positive area sorted by increasing area (ties by rank), split
 * into columns of consecutive processes minimising H = ncols + sum_j r_j w_j, then integerised
 * (widths sum to N, heights in each column sum to M). ncols <= 0: the optimal number of
 * columns; otherwise exactly ncols columns (at most the number of positive areas). Columns never
 * exceed N and never hold more than M processes. Zero-area processes get empty rectangles. */
int fupermod_layout_br(const double *areas, int p, int ncols, int M, int N, fupermod_layout **out);

/* The BR program's optimal H (unit square, areas normalised to sum 1) with exactly c columns, for
 * c = 1..cmax: H[c-1] (INFINITY where c exceeds the number of positive areas). */
int fupermod_br_table(const double *areas, int p, int cmax, double *H);

/* 1.5D (FPM-BR): areas d_i in blocks (sum M*N) from partition over the 1D models (models of the
 * time of d blocks of area, e.g. benchmarked on near-square areas), then the BR layout of those
 * areas. dist (may be NULL) receives the 1D distribution: it must be allocated with D = M*N and
 * size p. */
int fupermod_layout_15d(fupermod_partition partition, int p, fupermod_model **models, int M, int N,
                        fupermod_dist *dist, fupermod_layout **out);

/* Time of process i on an area of `area` blocks: a model's prediction (fupermod_model_time). */
typedef double (*fupermod_area_time)(int i, long area, void *ctx);

/* Square-corner layout (Becker & Lastovetsky 2006; DeFlumere & Lastovetsky 2014): the process
 * with the largest area (lowest rank on ties) is the fast one; every other process with a positive
 * area gets a square of side max(1, round(sqrt(a_i))) blocks, a_i its area scaled so that the
 * areas sum to M*N. The squares lie on the main diagonal, in rank order from the bottom-right
 * corner up-left, each touching the previous one at a corner. The fast process owns the rest in
 * pieces: the band above the squares, and beside each square the parts left and right of it.
 * FUPERMOD_ERR_INFEASIBLE when the sides sum to more than min(M, N) or nothing is left for the
 * fast process; FUPERMOD_ERR_USAGE for bad areas. */
int fupermod_layout_sc(const double *areas, int p, int M, int N, fupermod_layout **out);

/* The square-corner layout fitted to time functions, locally: from fupermod_layout_sc's sides, a
 * coordinate descent moves one side by one block at a time (each side in 1..min(M, N), the sides
 * summing to at most min(M, N), the fast process keeping a positive area M*N - sum s_i^2) while the
 * predicted time max_i time(i, area_i) strictly falls. The result is a local minimum (no single
 * side +-1 predicts less), not the exact optimum. *tmax (may be NULL): its predicted time. */
int fupermod_layout_sc_fit(const double *areas, int p, int M, int N, fupermod_area_time time, void *ctx,
                           fupermod_layout **out, double *tmax);

/* Fit a column-based layout (KL, BR) to the processes' time models: keeps its processor columns,
 * their order and their members top to bottom, and chooses every column's width and every member's
 * height in whole blocks (at least one each) to minimise the predicted time max_i time(i, area_i).
 * Exact for that arrangement when N q M^2 <= 5e7 (q processes with data); beyond that every width
 * and height stays within k blocks of l's, k as large as that budget allows. Ties keep the sizes
 * nearest l's. *tmax (may be NULL): the predicted time of *out (INFINITY, with l unchanged, when
 * every choice predicts an infinite time). FUPERMOD_ERR_USAGE for a layout that is not
 * column-based (ncols = 0), a layout with pieces included. */
int fupermod_layout_fit(const fupermod_layout *l, fupermod_area_time time, void *ctx, fupermod_layout **out,
                        double *tmax);

/* Build a layout by algorithm name: "kl", "br", "even" (BR over equal areas) or "sc" (square-corner,
 * a layout with pieces). */
int fupermod_layout_by_name(const char *alg, const double *areas, int p, int M, int N,
                            fupermod_layout **out);

/* Layout file (docs/matrix.md), written atomically; comment may be NULL. A layout with pieces has
 * a line per piece; a file that gives a rank on several lines loads as one. Loading checks the
 * tiling. */
int fupermod_layout_save(const char *path, const fupermod_layout *l, const char *comment);
int fupermod_layout_load(const char *path, fupermod_layout **out);
int fupermod_layout_parse(const char *text, size_t len, const char *name, fupermod_layout **out);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
