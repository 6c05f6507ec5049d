/* Internal to PARALEPH: the cell kernels (partitioners/paraleph_kernel.c) and the per-function
 * data they scan. Not installed. */
#ifndef FUPERMOD_PARALEPH_KERNEL_H
#define FUPERMOD_PARALEPH_KERNEL_H

#include <stdint.h>

#define PL_OP_MAX 0 /* min-max (time) */
#define PL_OP_SUM 1 /* min-sum (energy) */
#define PL_PAD 16   /* candidate lists are padded to a multiple of this */

struct pl_list;

/* Best option for cell (v, h): value to *best, pointer to *ptr (-1 = idle, else the index j of
 * the chosen size). g is column h-1: row w is g[w & gm] (a ring buffer whose first 16 slots are
 * repeated after its end, or a whole column with gm = ~0), rows v - X .. v are valid.
 * idle is the idle option's value (+inf when
 * idling is not allowed). The result is the lexicographic minimum of (value, j) with idle as
 * j = -1 over all options, i.e. exactly what the plain loop with "strict <, idle first" returns,
 * so every kernel gives the same bits. Returns the number of candidates evaluated. */
typedef long (*pl_kernel_fn)(const struct pl_list *c, const double *g, long gm, int32_t v, int h,
                             double idle, double *best, int32_t *ptr);

/* One function, prepared for one objective. */
typedef struct pl_list {
  int m;          /* sizes <= D */
  int32_t *xs;    /* sizes, increasing (plain kernel) */
  double *vs;     /* their t or e */
  /* sorted-key form (gather kernels): scan order, padded with off = INT32_MAX, +inf */
  int n, npad;
  int32_t *off;   /* size of candidate k */
  double *val;    /* t or e */
  double *key;    /* lower-bound key: t (max) or e - rho*x (sum) */
  double *idx;    /* index j */
  double rho;     /* sum: rho <= e(y)/y for every size of every function */
  double slack;   /* relative margin covering the rounding of the bounds */
  /* dense form (window and full kernels): sizes 1..X, holes +inf */
  int dense;      /* 1 if the dense form is built (X not much larger than m) */
  int X;
  double *rev;    /* rev[k] = f(X + 1 - k), k = 1..X; +inf for k <= 0 and k > X (padded) */
  int32_t *jofx;  /* jofx[x] = j of size x, -1 in holes, x = 0..X */
  const double *sm_own; /* max: sm_own[y] = min t(x), x >= y, y = 1..X (nondecreasing), [0] = 0 */
  const double *sm_all; /* the same over every function, y = 1..Xall */
  int Xall;
  /* Lagrangian form (sum, identical functions): nseg slopes lam[s] with
   * phi[s] = min(0, min_x e(x) - lam[s] x); per slope the sizes sorted by e(x) - lam[s] x */
  int nseg;
  double *lam, *phi;
  int32_t *segofy; /* segofy[y], y = 0..X: the slope to use when v/h = y */
  int32_t *soff;   /* nseg x npad */
  double *sval, *skey;
  double *sidx;
  pl_kernel_fn fn; /* kernel chosen for this function */
} pl_list;

enum { PL_KERNEL_AUTO = 0, PL_KERNEL_PLAIN = 1, PL_KERNEL_SCALAR = 2, PL_KERNEL_AVX2 = 3,
       PL_KERNEL_AVX512 = 4, PL_KERNEL_BOUNDED = 5, PL_KERNEL_BOUNDED_AVX512 = 6, PL_KERNEL_FULL512 = 7 };

/* Kernel for op and kind (AUTO: bounded, with AVX-512 where the CPU has it); NULL if the CPU lacks
 * it. *chosen receives the kind actually used. For the bounded kinds the caller then picks per
 * function: fupermod_paraleph_kernel_for(c, op, kind). */
pl_kernel_fn fupermod_paraleph_kernel(int op, int kind, int *chosen);
pl_kernel_fn fupermod_paraleph_kernel_for(const pl_list *c, int op, int kind);
const char *fupermod_paraleph_kernel_name(int kind);

#endif
