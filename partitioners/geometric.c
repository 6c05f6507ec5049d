/* Geometric Partitioning Algorithm (GPA; Clarke 2014 sec. 4.1, after Lastovetsky & Reddy).
 * A line through the origin of the (x, speed) plane cuts every speed curve where x/s(x), the
 * time for linear complexity, is the same: find the slope whose cuts sum to D.
 * Decisions (docs/algorithms.md):
 *  - the region between the lines is split by bisecting the slope (not the angle or total);
 *  - a cut is the largest x in (0, D] with s(x) >= m*x (unique for coarsened piecewise models,
 *    where s(x)/x is non-increasing), found by bisection on x to about machine precision;
 *  - stop when D_L - D_U < 1, or when the slope can no longer be split in doubles;
 *  - answer x^U, floor, then the missing units to the largest fractional parts (ties: lower
 *    rank), which is fupermod_dist_round. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "partitioners/continuous.h"
#include "partitioners/partitioners.h"

/* Far beyond the ~60-1100 bisections doubles allow; guards against a logic error only. */
#define GPA_MAX_BISECTIONS 5000

/* Cuts of every model with the line of slope m; lo/hi are per-model hints (may be NULL). */
static int cuts(int size, fupermod_model **models, double m, double xmax, const double *lo,
                const double *hi, double *x, double *fail, double *total) {
  double sum = 0.0;
  for (int i = 0; i < size; i++) {
    int rc = fupermod_line_intersection(models[i], i, m, xmax, lo ? lo[i] : 0.0, hi ? hi[i] : 0.0,
                                        &x[i], &fail[i]);
    if (rc != FUPERMOD_SUCCESS) return rc;
    sum += x[i];
  }
  *total = sum;
  return FUPERMOD_SUCCESS;
}

int fupermod_geometric_solve(int size, fupermod_model **models, long D, double stop, double *x,
                             double *xL_out, fupermod_gpa_info *info) {
  fupermod_gpa_info st = {0, 0.0, 0.0, 0.0, 0.0};
  double a, smax = 0.0, smin = INFINITY, *buf, *fU, *xL, *fL, *xM, *fM;
  double mU, mL, DU, DL, xmax = (double)D;
  int rc = FUPERMOD_SUCCESS;
  if (size < 1 || D < 0 || !x)
    return fupermod_error(FUPERMOD_ERR_USAGE, "need size >= 1, D >= 0 and an output array");
  if ((rc = fupermod_continuous_check_models("geometric", size, models))) return rc;
  if (D == 0) {
    for (int i = 0; i < size; i++) {
      x[i] = 0.0;
      if (xL_out) xL_out[i] = 0.0;
    }
    if (info) *info = st;
    return FUPERMOD_SUCCESS;
  }
  a = (double)D / size;
  for (int i = 0; i < size; i++) {
    double s;
    if ((rc = fupermod_continuous_speed(models[i], i, a, &s))) return rc;
    if (s > smax) smax = s;
    if (s < smin) smin = s;
  }
  /* U through (D/p, max s_i(D/p)) gives D_U <= D, L through the minimum gives D_L >= D */
  mU = smax / a;
  mL = smin / a;
  if (mU == mL) { /* all speeds equal at D/p: the even share is balanced, no bisection */
    for (int i = 0; i < size; i++) {
      x[i] = a;
      if (xL_out) xL_out[i] = a;
    }
    st.D_U = st.D_L = xmax;
    st.m_U = st.m_L = mU;
    if (info) *info = st;
    return FUPERMOD_SUCCESS;
  }
  if (!(buf = malloc(5 * (size_t)size * sizeof *buf)))
    return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  fU = buf;
  xL = buf + size;
  fL = buf + 2 * (size_t)size;
  xM = buf + 3 * (size_t)size;
  fM = buf + 4 * (size_t)size;
  if ((rc = cuts(size, models, mU, xmax, NULL, NULL, x, fU, &DU)) ||
      (rc = cuts(size, models, mL, xmax, NULL, NULL, xL, fL, &DL)))
    goto done;
  while (DL - DU >= stop) {
    double mM = mU + 0.5 * (mL - mU), DM;
    if (!(mM < mU && mM > mL)) break; /* adjacent doubles: x(m) jumps here */
    if (st.bisections >= GPA_MAX_BISECTIONS) {
      rc = fupermod_error(FUPERMOD_ERR_NUMERIC, "no convergence after %d slope bisections",
                          st.bisections);
      goto done;
    }
    st.bisections++;
    /* x^U is left of every cut of a shallower line, the failures of L right of it */
    if ((rc = cuts(size, models, mM, xmax, x, fL, xM, fM, &DM))) goto done;
    if (DM > (double)D) { /* too much work: the lower line moves up */
      mL = mM;
      DL = DM;
      memcpy(xL, xM, (size_t)size * sizeof *xL);
      memcpy(fL, fM, (size_t)size * sizeof *fL);
    } else {
      mU = mM;
      DU = DM;
      memcpy(x, xM, (size_t)size * sizeof *x);
    }
  }
  st.D_U = DU;
  st.D_L = DL;
  st.m_U = mU;
  st.m_L = mL;
  if (xL_out) memcpy(xL_out, xL, (size_t)size * sizeof *xL);
  if (info) *info = st;
done:
  free(buf);
  return rc;
}

static int geometric_partition(int size, fupermod_model **models, fupermod_dist *dist) {
  double *x;
  int rc = fupermod_continuous_check("geometric", size, models, dist);
  if (rc != FUPERMOD_SUCCESS) return rc;
  if (!(x = malloc((size_t)size * sizeof *x)))
    return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  rc = fupermod_geometric_solve(size, models, dist->D, 1.0, x, NULL, NULL);
  if (rc == FUPERMOD_SUCCESS) rc = fupermod_continuous_finish(dist, models, x);
  free(x);
  return rc != FUPERMOD_SUCCESS ? fupermod_error_prefix(rc, "geometric") : rc;
}

const fupermod_partitioner fupermod_partitioner_geometric = {
    .name = "geometric",
    .description = "GPA: bisection of lines through the origin over piecewise-linear speed models",
    .kind = FUPERMOD_PART_CONTINUOUS,
    .model_type = "piecewise",
    .continuous = geometric_partition,
};
