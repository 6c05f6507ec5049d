/* Whether a model can be trusted at a share (calibration), outlying repetitions, and what a
 * distribution's predictions say about its balance (docs/models.md, "Calibration"). */
#ifndef FUPERMOD_CALIB_H
#define FUPERMOD_CALIB_H

#include <stddef.h>
#include "dist.h"
#include "point.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* the public API; the libraries build with -fvisibility=hidden */

/* The calibration rule: at least FUPERMOD_CALIB_NEAR measured sizes within a factor
 * FUPERMOD_CALIB_FACTOR of the share (or the share itself measured), and a relative scatter about
 * the smoothed function (fupermod_points_smooth with w = FUPERMOD_CALIB_WINDOW) of at most FUPERMOD_CALIB_SCATTER,
 * outlying points left out. At a share, the scatter is that of the FUPERMOD_CALIB_LOCAL measured
 * sizes nearest it (all of them when there are fewer): a prediction rests on its neighbours, and
 * the check then costs the same on a model of a thousand sizes as on one of thirty. */
#define FUPERMOD_CALIB_NEAR 2
#define FUPERMOD_CALIB_FACTOR 2.0
#define FUPERMOD_CALIB_SCATTER 0.25
#define FUPERMOD_CALIB_WINDOW 3
#define FUPERMOD_CALIB_LOCAL 65
/* the median/MAD rule's k for outlying points (fupermod_points_outliers) */
#define FUPERMOD_CALIB_OUTLIER_K 3.5

typedef struct fupermod_calib {
  int calibrated; /* 1: the rule holds */
  int sizes;      /* measured sizes in the set */
  int near;       /* measured sizes in [share / FACTOR, share x FACTOR] (all of them for share <= 0) */
  int exact;      /* 1: the share itself was measured */
  int outliers;   /* outlying points (fupermod_points_outliers) among those of the scatter, left out */
  double scatter; /* relative RMS of the other points (the local ones at a share) about their smoothed
                     function; NAN below 3 */
  char why[160];  /* what fails ("only 1 measured size within a factor of 2 of 700"), "" when calibrated */
} fupermod_calib;

/* Check pts at share (share <= 0: the model as a whole, which needs only the scatter). Fewer than
 * 3 points cannot give a scatter: uncalibrated. FUPERMOD_ERR_USAGE for NULL arguments. */
int fupermod_calib_check(const fupermod_points *pts, long share, fupermod_calib *out);

/* Median/MAD rule: keep[i] = 0 for the values farther than k x 1.4826 x MAD from the median (the
 * MAD scaled to a normal sd), 1 otherwise; returns how many were rejected, or a negative status
 * (n < 0, NULL arrays, k <= 0, a value that is not finite). A MAD of 0 (half the values equal)
 * rejects nothing. Fewer than 3 values are all kept. */
int fupermod_outliers(const double *v, int n, double k, int *keep);
/* The same rule with a floor on the threshold: a value is rejected only when it is also farther
 * than floor x |median| from the median (floor >= 0; 0: fupermod_outliers), so that a tiny MAD
 * (quantised or nearly equal values) does not reject ordinary ones. Never more than a minority,
 * (n - 1) / 2, is rejected: the farthest ones (fupermod_outliers too). The benchmark uses it on
 * the times of a point's repetitions (docs/models.md, "Outlying repetitions"). */
int fupermod_outliers_floor(const double *v, int n, double k, double floor, int *keep);

/* Outlying points of a set (a size measured during a burst of load): the median/MAD rule of
 * fupermod_outliers with k on r_i = t_i s_i / d_i - 1, where s_i is the median speed of the
 * 2 FUPERMOD_CALIB_WINDOW sizes around i (shifted inwards at the ends), i left out. keep[] gets
 * pts->count flags; returns how many were rejected (0 below 3 points) or a negative status. */
int fupermod_points_outliers(const fupermod_points *pts, double k, int *keep);

/* Load-balance efficiency: mean over max of the predicted times parts[i].t, idle processes
 * included (at 0); 1 when every time is 0. NAN for an empty distribution. */
double fupermod_dist_efficiency(const fupermod_dist *dist);

/* Why process i has no units in dist, from its points: under an energy objective, that idling
 * saves energy; under time, "its time for its smallest measured size (d=50: 0.2 s) exceeds the
 * makespan (0.1 s)" or, when it would fit, that no distribution using it is faster. Written to buf;
 * FUPERMOD_ERR_USAGE when process i is not idle or an argument is bad. */
int fupermod_dist_idle_reason(const fupermod_dist *dist, int i, const fupermod_points *pts, int energy_objective,
                              char *buf, size_t size);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
