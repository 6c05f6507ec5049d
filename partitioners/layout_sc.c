/* Square-corner layout (docs/matrix.md; Becker & Lastovetsky 2006, DeFlumere & Lastovetsky 2014):
 * with one processor much faster than the others, a square per slow processor on the diagonal and
 * the rest for the fast one moves less data in SUMMA than columns do. The fast process's region is
 * not a rectangle, so the layout has pieces. */
#include <math.h>
#include <stdlib.h>
#include "partitioners/layout_impl.h"

/* The fast process and the sides of the squares (0: no square) of fupermod_layout_sc. */
static int sc_sides(const double *areas, int p, int M, int N, int *fast, int *side) {
  double total;
  int rc, f = 0;
  if ((rc = fupermod_lay_check_areas("sc", areas, p, M, N, &total)) != FUPERMOD_SUCCESS) return rc;
  for (int i = 1; i < p; i++)
    if (areas[i] > areas[f]) f = i;
  for (int i = 0; i < p; i++) {
    double s = sqrt(areas[i] / total * ((double)M * N));
    side[i] = i == f || !(areas[i] > 0.0) ? 0 : s < 1.5 ? 1 : (int)floor(s + 0.5);
  }
  *fast = f;
  return FUPERMOD_SUCCESS;
}

/* The layout of given sides: squares on the diagonal from the bottom-right corner, in rank order;
 * the fast process's pieces top to bottom, left to right. */
static int sc_build(int p, int M, int N, int fast, const int *side, fupermod_layout **out) {
  long sum = 0, sq = 0;
  int rc, m = 0, lim = M < N ? M : N, *owner = NULL;
  fupermod_rect *pc = NULL;
  fupermod_layout *l = NULL;
  for (int i = 0; i < p; i++) sum += side[i], sq += (long)side[i] * side[i];
  if (sum > lim)
    return fupermod_error(FUPERMOD_ERR_INFEASIBLE,
                          "sc layout: the squares' sides sum to %ld blocks, more than min(M, N) = %d: they do not fit "
                          "on the diagonal of the %d x %d matrix", sum, lim, M, N);
  if (sq >= (long)M * N)
    return fupermod_error(FUPERMOD_ERR_INFEASIBLE,
                          "sc layout: the squares cover the whole %d x %d matrix, leaving nothing to the fast process %d",
                          M, N, fast);
  if ((rc = fupermod_layout_alloc(p, M, N, &l)) != FUPERMOD_SUCCESS) return rc;
  pc = malloc(((size_t)3 * p + 1) * sizeof *pc);
  owner = malloc(((size_t)3 * p + 1) * sizeof *owner);
  if (!pc || !owner) {
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "sc layout: out of memory for %d processes", p);
    goto done;
  }
  if (M - sum > 0) pc[m] = (fupermod_rect){0, 0, (int)(M - sum), N}, owner[m++] = fast;
  /* the last square in rank order is the top one */
  for (int i = p - 1, below = (int)sum; i >= 0; i--) {
    int s = side[i], r0, c0;
    if (s == 0) continue;
    below -= s;
    r0 = M - below - s;
    c0 = N - below - s;
    if (c0 > 0) pc[m] = (fupermod_rect){r0, 0, s, c0}, owner[m++] = fast;
    pc[m] = (fupermod_rect){r0, c0, s, s}, owner[m++] = i;
    if (below > 0) pc[m] = (fupermod_rect){r0, c0 + s, s, below}, owner[m++] = fast;
  }
  rc = fupermod_layout_set_pieces(l, m, pc, owner);
done:
  free(pc);
  free(owner);
  if (rc == FUPERMOD_SUCCESS) *out = l;
  else fupermod_layout_free(l);
  return rc;
}

int fupermod_layout_sc(const double *areas, int p, int M, int N, fupermod_layout **out) {
  int rc, fast, *side;
  if (!out) return fupermod_error(FUPERMOD_ERR_USAGE, "sc layout: out is NULL");
  *out = NULL;
  if (p < 1 || p > FUPERMOD_LAYOUT_P_MAX)
    return fupermod_error(FUPERMOD_ERR_USAGE, "sc layout: number of processes p = %d (must be 1..%d)", p,
                          FUPERMOD_LAYOUT_P_MAX);
  if (!(side = malloc((size_t)p * sizeof *side))) return fupermod_error(FUPERMOD_ERR_NOMEM, "sc layout: out of memory");
  if ((rc = sc_sides(areas, p, M, N, &fast, side)) == FUPERMOD_SUCCESS) rc = sc_build(p, M, N, fast, side, out);
  free(side);
  return rc;
}

static double safe_time(fupermod_area_time time, void *ctx, int i, long area) {
  double t = time(i, area, ctx);
  return isnan(t) ? INFINITY : t;
}

int fupermod_layout_sc_fit(const double *areas, int p, int M, int N, fupermod_area_time time, void *ctx,
                           fupermod_layout **out, double *tmax) {
  int rc, fast, lim = M < N ? M : N, *side = NULL;
  long sum = 0, sq = 0, MN = (long)M * N;
  double *t = NULL, tf, best;
  if (!out) return fupermod_error(FUPERMOD_ERR_USAGE, "sc fit: out is NULL");
  *out = NULL;
  if (!time) return fupermod_error(FUPERMOD_ERR_USAGE, "sc fit: the time function is NULL");
  if (p < 1 || p > FUPERMOD_LAYOUT_P_MAX)
    return fupermod_error(FUPERMOD_ERR_USAGE, "sc fit: number of processes p = %d (must be 1..%d)", p,
                          FUPERMOD_LAYOUT_P_MAX);
  side = malloc((size_t)p * sizeof *side);
  t = malloc((size_t)p * sizeof *t);
  if (!side || !t) {
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "sc fit: out of memory");
    goto done;
  }
  if ((rc = sc_sides(areas, p, M, N, &fast, side)) != FUPERMOD_SUCCESS) goto done;
  for (int i = 0; i < p; i++) sum += side[i], sq += (long)side[i] * side[i];
  if (sum > lim || sq >= MN) { /* the start itself does not fit: sc_build says why */
    rc = sc_build(p, M, N, fast, side, out);
    goto done;
  }
  /* t[i]: the time of each square, tf the fast process's; the prediction is their maximum */
  for (int i = 0; i < p; i++) t[i] = side[i] > 0 ? safe_time(time, ctx, i, (long)side[i] * side[i]) : 0.0;
  tf = safe_time(time, ctx, fast, MN - sq);
  best = tf;
  for (int i = 0; i < p; i++)
    if (t[i] > best) best = t[i];
  for (int moved = 1; moved;) {
    moved = 0;
    for (int i = 0; i < p; i++) {
      if (side[i] == 0) continue;
      for (int d = 1; d >= -1; d -= 2) {
        int s = side[i] + d;
        long sq2 = sq - (long)side[i] * side[i] + (long)s * s;
        double ti, tf2, v;
        if (s < 1 || s > lim || sum + d > lim || sq2 >= MN) continue;
        ti = safe_time(time, ctx, i, (long)s * s);
        tf2 = safe_time(time, ctx, fast, MN - sq2);
        v = ti > tf2 ? ti : tf2;
        for (int j = 0; j < p && v < best; j++)
          if (j != i && t[j] > v) v = t[j];
        if (!(v < best)) continue;
        side[i] = s, sum += d, sq = sq2, t[i] = ti, tf = tf2, best = v;
        moved = 1;
        break;
      }
    }
  }
  rc = sc_build(p, M, N, fast, side, out);
  if (rc == FUPERMOD_SUCCESS && tmax) *tmax = best;
done:
  free(side);
  free(t);
  return rc;
}
