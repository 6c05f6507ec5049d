/* Distributions of D units over size processors, and the distribution file format. */
#ifndef FUPERMOD_DIST_H
#define FUPERMOD_DIST_H

#include "model.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* the public API; the libraries build with -fvisibility=hidden */

typedef struct fupermod_part {
  long d;   /* units given to the processor */
  double t; /* predicted time (s) */
  double e; /* predicted dynamic energy (J); NAN when unknown */
} fupermod_part;

typedef struct fupermod_dist {
  long D;
  int size;
  fupermod_part *parts;
} fupermod_dist;

/* FuPerMod's partitioner signature: fill dist->parts from models (dist->D, dist->size set). */
typedef int (*fupermod_partition)(int size, fupermod_model **models, fupermod_dist *dist);

/* Allocate an even distribution (d_i differ by at most 1, lower ranks get the extra units). */
fupermod_dist *fupermod_dist_alloc(long D, int size);
void fupermod_dist_free(fupermod_dist *dist);
int fupermod_dist_copy(fupermod_dist *dst, const fupermod_dist *src);
/* Integer rounding of real x[0..p-1] (x may sum to anything) to d with sum D, d >= 0:
 * floor(max(x,0)), then the missing units go one each to the largest fractional parts
 * (ties: lower rank), or surplus units are taken from the smallest fractional parts. */
int fupermod_dist_round(const double *x, int p, long D, long *d);
/* Fill parts[i].t and .e from the models at parts[i].d (0 units: t = e = 0). */
int fupermod_dist_predict(fupermod_dist *dist, fupermod_model **models);
/* Largest predicted time, and the sum of predicted energies. */
double fupermod_dist_time(const fupermod_dist *dist);
double fupermod_dist_energy(const fupermod_dist *dist);
/* Distribution file (docs/formats.md); writes are atomic. */
int fupermod_dist_save(const char *path, const fupermod_dist *dist, const char *comment);
int fupermod_dist_load(const char *path, fupermod_dist **out);
/* Parse distribution-file text; name is used in messages. */
int fupermod_dist_parse(const char *text, size_t len, const char *name, fupermod_dist **out);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
