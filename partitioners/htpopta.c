/* HTPOPTA (Khaleghzadeh's thesis, ch. 5): the Pareto front of (time, total energy), where total
 * energy = dynamic energy + static_power * time. With static_power >= 0 every point of this front
 * is on the (time, dynamic energy) front (thesis, Propositions E.2.1-E.2.2; also because
 * e + P*t is monotone in both), so HTPOPTA filters HEPOPTA's front. As in Alg. 7: visit the
 * points by increasing total energy (ties: smaller time, then fewer active processors, following
 * the prose rather than the inverted line 12) and keep a point iff its time is strictly below
 * every kept one's. With static_power = 0 the two fronts coincide. */
#include <stdlib.h>
#include "partitioners/energy_common.h"

static int htpopta(const fupermod_problem *prob, fupermod_front *out);

const fupermod_partitioner fupermod_partitioner_htpopta = {
  "htpopta", "HTPOPTA: exact Pareto front of time and total energy (dynamic + static power x time)",
  FUPERMOD_PART_PARETO, NULL, 0, 1, 1, NULL, NULL, htpopta};

static int htpopta(const fupermod_problem *prob, fupermod_front *out) {
  fupermod_front dyn = {0, NULL};
  fupermod_en_pset sel = {0, 0, NULL};
  long *d = NULL;
  int rc = fupermod_en_front_init(out, "htpopta");
  if (rc) return rc;
  if ((rc = fupermod_en_check(prob, &fupermod_partitioner_htpopta))) return rc;
  if ((rc = fupermod_en_hepopta(prob, &dyn))) return rc;
  if (!(d = malloc((size_t)prob->p * sizeof *d))) {
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "htpopta: out of memory");
    goto done;
  }
  for (int i = 0; i < dyn.count; i++) {
    const fupermod_front_point *fp = &dyn.points[i];
    int active = 0;
    for (int k = 0; k < prob->p; k++) active += fp->dist->parts[k].d > 0;
    /* keyed (total energy, time): the sort and sweep of fupermod_en_nd is the thesis's map */
    if ((rc = fupermod_en_push(&sel, fp->dynamic_energy + prob->static_power * fp->time, fp->time, active, i, 0)))
      goto done;
  }
  fupermod_en_nd(&sel);
  for (int s = sel.n - 1; s >= 0; s--) { /* increasing time */
    const fupermod_dist *x = dyn.points[sel.v[s].a].dist;
    for (int k = 0; k < prob->p; k++) d[k] = x->parts[k].d;
    if ((rc = fupermod_en_front_append(out, prob, d, 1))) goto done;
  }
done:
  fupermod_front_free(&dyn);
  fupermod_en_free(&sel);
  free(d);
  if (rc) fupermod_front_free(out);
  return rc;
}
