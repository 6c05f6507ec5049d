/* hpopta's default mode (internal, not installed): the exact min-max partition by a decision
 * procedure on the makespan (hpopta_prune.c). */
#ifndef FUPERMOD_HPOPTA_PRUNE_H
#define FUPERMOD_HPOPTA_PRUNE_H

#include "partitioners/time_common.h"

/* Least makespan of prob (INFINITY when D cannot be composed) and, when feasible, the witness
 * d[0..p-1] in granules chosen by dp's tie rule (the same distribution as fupermod_dtime_dp).
 * dt holds p, g and D (fupermod_dtime_check); the points are read from prob in place. */
int fupermod_hpopta_prune(const fupermod_problem *prob, const fupermod_dtime *dt, long *d, double *value);

#endif
