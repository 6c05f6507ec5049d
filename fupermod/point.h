/* Measurement points and point files (format v2, docs/formats.md). */
#ifndef FUPERMOD_POINT_H
#define FUPERMOD_POINT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* the public API; the libraries build with -fvisibility=hidden */

/* flags of a point */
/* A run was slower than the minimum speed (fupermod_precision.speed_min): the size was given up
 * after it. t is that run's time; the point is not a measurement, and models, smoothing and
 * partitioners refuse it. */
#define FUPERMOD_POINT_ABANDONED 1
/* The half-width still exceeded t when the repetition or time limit ended the point (or one run
 * gave no half-width at all). The point is kept and usable; its precision is poor. */
#define FUPERMOD_POINT_IMPRECISE 2

/* One measurement: d units took t seconds (mean of reps runs, Student-t half-width ci),
 * e joules of dynamic energy (half-width e_ci). e < 0 means "no energy measured". */
typedef struct fupermod_point {
  long d;
  double t;
  double ci;
  double e;
  double e_ci;
  /* When and where the runs were (the external meter, docs/energy.md): UNIX seconds from the
   * first run's start to the last run's end (0 0: not recorded), the host (NULL: none; a name
   * from fupermod_point_host, shared and never freed by the point), and how many power samples
   * fell in that span when the energy was imported (-1: none imported). */
  double t_start, t_end;
  const char *host;
  int reps;
  int flags; /* FUPERMOD_POINT_ABANDONED, FUPERMOD_POINT_IMPRECISE */
  int samples;
  int rejected; /* repetitions left out of t, ci, e and e_ci as outliers (docs/models.md); reps does
                   not count them */
} fupermod_point;

/* The longest host name a point records (docs/formats.md). */
#define FUPERMOD_POINT_HOST_MAX 63

/* The stored copy of a host name, for fupermod_point.host: one per distinct name, kept until the
 * process exits (a run names a handful of nodes), so points copy and compare it freely. NULL
 * when name is empty, longer than FUPERMOD_POINT_HOST_MAX, or out of memory (message recorded). */
const char *fupermod_point_host(const char *name);

/* A set of points sorted by increasing d, no duplicate d. */
typedef struct fupermod_points {
  int count;
  fupermod_point *pts;
  int has_energy; /* 1 when every point that is not abandoned has e >= 0 (and there is one) */
} fupermod_points;

/* The first line of a point file. */
#define FUPERMOD_POINTS_HEADER \
  "# fupermod points v2: d t reps ci [e e_ci] [status] [key=value...]  (units, s, count, s, J, J, abandoned|imprecise)"

#define FUPERMOD_POINT_INIT {.d = 0, .t = 0.0, .ci = 0.0, .e = -1.0, .e_ci = -1.0, .host = NULL, .reps = 1, .samples = -1}

static inline int fupermod_point_has_energy(const fupermod_point *p) { return p->e >= 0.0; }
static inline int fupermod_point_abandoned(const fupermod_point *p) {
  return (p->flags & FUPERMOD_POINT_ABANDONED) != 0;
}
/* 1 when the point records the span of its runs (t_start, t_end). */
static inline int fupermod_point_has_span(const fupermod_point *p) { return p->t_end > 0.0; }
static inline int fupermod_point_imprecise(const fupermod_point *p) {
  return (p->flags & FUPERMOD_POINT_IMPRECISE) != 0;
}

/* Parse point-file text into measurements: abandoned points are left out (an error when nothing
 * else is left). name is used in messages ("name:line: ..."). */
int fupermod_points_parse(const char *text, size_t len, const char *name, fupermod_points *out);
/* Load a point file as fupermod_points_parse does; errors name the file and line. */
int fupermod_points_load(const char *path, fupermod_points *out);
/* Parse or load every point, abandoned ones included (flagged): for tools that resume or report
 * a measurement, never for models. */
int fupermod_points_parse_all(const char *text, size_t len, const char *name, fupermod_points *out);
int fupermod_points_load_all(const char *path, fupermod_points *out);
/* Write a point file atomically (temporary file + rename); comment may be NULL. */
int fupermod_points_save(const char *path, const fupermod_points *pts, const char *comment);
/* Append one point to a file and flush it to disk (used while measuring). */
int fupermod_points_append(const char *path, const fupermod_point *pt);
/* Format one point as a data line (no newline) into buf. */
int fupermod_point_format(const fupermod_point *pt, char *buf, size_t size);
/* Insert or replace (same d) a point, keeping the set sorted. */
int fupermod_points_insert(fupermod_points *set, const fupermod_point *pt);
/* Index of d in the set, or -1. */
int fupermod_points_find(const fupermod_points *set, long d);
/* The number of points of a set (sorted by size) whose size is below x: the index of the first
 * at or above x, count if none. */
int fupermod_points_below(const fupermod_points *set, double x);
/* A run of d >= 1 units as the emulated kernel and meter take it from a set with at least one
 * point: its time (energy = 0) or energy (energy = 1) linear between the two measured sizes
 * around d, the point's own at a measured size, and beyond the ends the end's per unit. Unlike
 * fupermod_points_interpolate, which interpolates the speed and the energy per unit. */
double fupermod_points_linear(const fupermod_points *set, long d, int energy);
/* The function of a point set at any size x > 0, as fupermod run predicts and fupermod sweep
 * evaluates: the point at a measured size; between two measured sizes, speed (x/t) and energy
 * per unit interpolated linearly between them; beyond the ends, the end's speed and energy per
 * unit. *e is NaN without energies. Not the coarsened piecewise model: its concave hull makes a
 * share between slow sizes of a non-concave function look as fast as the sizes around them.
 * Returns the index of the point below x (-1 beyond the first), for neighbours' half-widths. */
int fupermod_points_interpolate(const fupermod_points *set, double x, double *t, double *e);
int fupermod_points_copy(fupermod_points *dst, const fupermod_points *src);
void fupermod_points_free(fupermod_points *set);
/* How far a smoothed point's fit reaches: a factor of the size either side at most, and the span
 * of its bandwidth over the distance to its 2w-th nearest size (fupermod_points_smooth). */
#define FUPERMOD_SMOOTH_REACH 4.0
#define FUPERMOD_SMOOTH_SPAN 2.0
/* Smoothed copy of in (same sizes, docs/models.md "Smoothing"): each t (and e, when in has
 * energy) is the local line in log t against log d at that size (its exponential, made a mean),
 * fitted with tricube weights in the distance in log size. The bandwidth is
 * FUPERMOD_SMOOTH_SPAN times the distance to the 2w-th nearest other size, at most a factor
 * FUPERMOD_SMOOTH_REACH either side, so the fit is carried by sizes around d and by d itself,
 * never extrapolated from far ones. Where fewer than 3 sizes fall within the bandwidth (a sparse
 * edge) the smoothed point is the measured one. ci (e_ci) becomes the half-width of the cl
 * prediction interval for a new run at that size, from the points' relative scatter about the
 * fits pooled over the set. A field with a value <= 0 is fitted in t (e) against log d instead,
 * and a fit <= 0 there keeps the measured value. *scatter (*escatter, NaN without energy) = that
 * relative scatter (may be NULL); NaN when no size has 2 others within its bandwidth: out is then
 * the measured points, their own half-widths included. Needs w >= 1, 0 < cl < 1, at least 3
 * points and sizes >= 1; out is freed by the caller. */
int fupermod_points_smooth(const fupermod_points *in, int w, double cl, fupermod_points *out, double *scatter,
                           double *escatter);
/* The relative scatter of the times about that fit alone (no copy, no intervals): what
 * fupermod_points_smooth gives in *scatter, on the same conditions. */
int fupermod_points_scatter(const fupermod_points *in, int w, double *scatter);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
