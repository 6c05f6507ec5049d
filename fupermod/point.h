/* Measurement points and point files (format v1, docs/formats.md). */
#ifndef FUPERMOD_POINT_H
#define FUPERMOD_POINT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* the public API; the libraries build with -fvisibility=hidden */

/* One measurement: d units took t seconds (mean of reps runs, Student-t half-width ci),
 * e joules of dynamic energy (half-width e_ci). e < 0 means "no energy measured". */
typedef struct fupermod_point {
  long d;
  double t;
  int reps;
  double ci;
  double e;
  double e_ci;
} fupermod_point;

/* A set of points sorted by increasing d, no duplicate d. */
typedef struct fupermod_points {
  int count;
  fupermod_point *pts;
  int has_energy; /* 1 when every point has e >= 0 */
} fupermod_points;

#define FUPERMOD_POINT_INIT {0, 0.0, 1, 0.0, -1.0, -1.0}

static inline int fupermod_point_has_energy(const fupermod_point *p) { return p->e >= 0.0; }

/* Parse point-file text; name is used in messages ("name:line: ..."). */
int fupermod_points_parse(const char *text, size_t len, const char *name, fupermod_points *out);
/* Load a point file; errors name the file and line. */
int fupermod_points_load(const char *path, fupermod_points *out);
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
int fupermod_points_copy(fupermod_points *dst, const fupermod_points *src);
void fupermod_points_free(fupermod_points *set);
/* Smoothed copy of in (same sizes, docs/models.md): each t (and e, when in has energy) is the
 * local linear least-squares fit over the 2w+1 measured sizes around it (fewer at the ends: the
 * window shifts inwards); ci (e_ci) becomes the half-width of the cl prediction interval for a new
 * run at that size, from the points' relative scatter about the fit pooled over the set. A fit
 * <= 0 keeps the measured value. *scatter (*escatter, NaN without energy) = that relative scatter
 * (may be NULL). Needs w >= 1, 0 < cl < 1 and at least 3 points; out is freed by the caller. */
int fupermod_points_smooth(const fupermod_points *in, int w, double cl, fupermod_points *out, double *scatter,
                           double *escatter);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
