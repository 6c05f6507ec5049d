/* Two-dimensional matrix partitioning (docs/matrix.md): an M x N matrix of b x b blocks is cut
 * into one rectangle per process. Column-based layouts: Kalinov-Lastovetsky ("kl"), Beaumont
 * et al. with the communication-minimising dynamic program ("br"), and the 1.5D algorithm
 * (areas from any 1D partitioner over 1D models, shapes from the BR program). */
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

typedef struct fupermod_layout {
  int p;                /* processes */
  int M, N;             /* matrix size in blocks: M block rows, N block columns */
  int ncols;            /* processor columns (0: a general tiling, not column-based) */
  fupermod_rect *rects; /* rects[i]: the rectangle of process i */
  int *column;          /* column[i]: processor column of process i, -1 when its rectangle is empty */
} fupermod_layout;

/* Allocate a layout of p empty rectangles (ncols = 0); free with fupermod_layout_free. */
int fupermod_layout_alloc(int p, int M, int N, fupermod_layout **out);
void fupermod_layout_free(fupermod_layout *l);
int fupermod_layout_copy(const fupermod_layout *src, fupermod_layout **out);

/* Exact tiling: every non-empty rectangle lies inside the matrix, none overlap, and their areas
 * sum to M*N. FUPERMOD_ERR_INPUT naming the first offending process otherwise. */
int fupermod_layout_check(const fupermod_layout *l);

/* Communication volume on the unit square: H = sum over non-empty rectangles of
 * height/M + width/N (the sum of half-perimeters, spec 2.9). */
double fupermod_layout_volume(const fupermod_layout *l);

/* Area of process i in blocks (height * width). */
long fupermod_layout_area(const fupermod_layout *l, int i);

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

/* Fit a column-based layout (KL, BR) to the processes' time models: keeps its processor columns,
 * their order and their members top to bottom, and chooses every column's width and every member's
 * height in whole blocks (at least one each) to minimise the predicted time max_i time(i, area_i).
 * Exact for that arrangement when N q M^2 <= 5e7 (q processes with data); beyond that every width
 * and height stays within k blocks of l's, k as large as that budget allows. Ties keep the sizes
 * nearest l's. *tmax (may be NULL): the predicted time of *out (INFINITY, with l unchanged, when
 * every choice predicts an infinite time). FUPERMOD_ERR_USAGE for a layout that is not
 * column-based (ncols = 0). */
int fupermod_layout_fit(const fupermod_layout *l, fupermod_area_time time, void *ctx, fupermod_layout **out,
                        double *tmax);

/* Build a layout by algorithm name: "kl", "br" or "even" (BR over equal areas). */
int fupermod_layout_by_name(const char *alg, const double *areas, int p, int M, int N,
                            fupermod_layout **out);

/* Layout file (docs/matrix.md), written atomically; comment may be NULL. Loading checks the
 * tiling. */
int fupermod_layout_save(const char *path, const fupermod_layout *l, const char *comment);
int fupermod_layout_load(const char *path, fupermod_layout **out);
int fupermod_layout_parse(const char *text, size_t len, const char *name, fupermod_layout **out);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
