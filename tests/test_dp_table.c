/* fupermod_dp_table: one dp table read at every workload gives dp's status, distribution and
 * value at each (time and energy), on random instances with holes, ties, granules and workloads
 * beyond the capacity or off the granule; the optimum is brute force's on the small ones. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "tests/tap.h"
#include "tests/oracle_time.h"
#include "partitioners/partitioners.h"

/* the table at every D of 0..Dmax against dp per D: returns the number of mismatches */
static int compare(ot_inst *in, long Dmax, int objective, long *feasible, long *brute_checked) {
  const fupermod_partitioner *dp = fupermod_partitioner_find("dp");
  fupermod_problem prob = in->prob;
  fupermod_dp_table *tb = NULL;
  fupermod_dist *a = fupermod_dist_alloc(0, prob.p), *b = fupermod_dist_alloc(0, prob.p);
  int bad = 0, rc;
  prob.D = Dmax;
  prob.objective = objective;
  if ((rc = fupermod_dp_table_build(&prob, &tb)) != FUPERMOD_SUCCESS) {
    diag("build: %s", fupermod_error_message());
    bad = 1;
  }
  for (long D = 0; !bad && D <= Dmax; D++) {
    int ra, rb;
    char ma[1024], mb[1024];
    prob.D = D;
    a->D = b->D = D;
    ra = fupermod_dp_table_solve(tb, D, a);
    snprintf(ma, sizeof ma, "%s", fupermod_error_message());
    rb = dp->discrete(&prob, b);
    snprintf(mb, sizeof mb, "%s", fupermod_error_message());
    if (ra != rb || (ra != FUPERMOD_SUCCESS && strcmp(ma, mb) != 0)) {
      diag("D=%ld: table %d (%s), dp %d (%s)", D, ra, ma, rb, mb);
      bad++;
      continue;
    }
    if (ra != FUPERMOD_SUCCESS) continue;
    (*feasible)++;
    for (int i = 0; i < prob.p; i++)
      if (a->parts[i].d != b->parts[i].d || a->parts[i].t != b->parts[i].t ||
          (a->parts[i].e != b->parts[i].e && !(isnan(a->parts[i].e) && isnan(b->parts[i].e)))) {
        diag("D=%ld: processor %d gets %ld from the table, %ld from dp", D, i, a->parts[i].d, b->parts[i].d);
        bad++;
        break;
      }
    if (prob.p <= 4) {
      ot_brute br;
      double v = objective == FUPERMOD_OBJ_TIME ? fupermod_dist_time(a) : fupermod_dist_energy(a);
      ot_bruteforce(&prob, &br);
      (*brute_checked)++;
      if (!br.feasible || fabs(v - (objective == FUPERMOD_OBJ_TIME ? br.tmin : br.emin)) > 1e-9 * fmax(1.0, fabs(v))) {
        diag("D=%ld: table %.17g, brute force %.17g", D, v, objective == FUPERMOD_OBJ_TIME ? br.tmin : br.emin);
        bad++;
      }
    }
  }
  fupermod_dp_table_free(tb);
  fupermod_dist_free(a);
  fupermod_dist_free(b);
  return bad;
}

int main(void) {
  long feasible = 0, brute = 0, n = 0;
  int bad = 0;
  for (int it = 0; it < 600; it++) {
    ot_inst in;
    long g = it % 3 == 0 ? 3 : 1, Dmax;
    ot_random(&in, it < 400 ? 4 : 12, it < 400 ? 6 : 30, 0, g);
    Dmax = ot_sum_max(&in.prob) + 2 * g + 1; /* past the capacity, off the granule */
    if (it % 5 == 0) Dmax /= 2;              /* a table short of the capacity */
    bad += compare(&in, Dmax, it % 2 ? FUPERMOD_OBJ_ENERGY : FUPERMOD_OBJ_TIME, &feasible, &brute);
    n++;
    ot_free(&in);
  }
  ok(bad == 0, "table = dp at every D of %ld instances (%ld feasible workloads, %ld against brute force)", n,
     feasible, brute);
  ok(feasible > 10000 && brute > 3000, "the instances are not trivial (%ld feasible, %ld brute force)", feasible, brute);

  /* bad use: D beyond the table, a Pareto objective, no energy for energy */
  {
    ot_inst in;
    fupermod_dp_table *tb = NULL;
    fupermod_dist *d;
    long dd[2] = {2, 4};
    double tt[2] = {1, 2};
    memset(&in, 0, sizeof in);
    ot_set_fn(&in.fn[0], 2, dd, tt, NULL);
    in.f[0] = in.f[1] = &in.fn[0];
    in.prob.p = 2;
    in.prob.f = in.f;
    in.prob.D = 6;
    d = fupermod_dist_alloc(0, 2);
    ok(fupermod_dp_table_build(&in.prob, &tb) == FUPERMOD_SUCCESS, "a table of 2 processors up to D=6");
    ok(fupermod_dp_table_solve(tb, 7, d) == FUPERMOD_ERR_USAGE && strstr(fupermod_error_message(), "0..6"),
       "D beyond the table: usage error naming its range (%s)", fupermod_error_message());
    ok(fupermod_dp_table_solve(tb, 5, d) == FUPERMOD_ERR_INFEASIBLE && strstr(fupermod_error_message(), "multiple of 2"),
       "D off the granule: infeasible, as dp says (%s)", fupermod_error_message());
    ok(fupermod_dp_table_solve(tb, 6, d) == FUPERMOD_SUCCESS && d->parts[0].d + d->parts[1].d == 6 &&
           fupermod_dist_time(d) == 2,
       "D=6: 2 + 4 (or 4 + 2) in time 2");
    fupermod_dp_table_free(tb);
    in.prob.objective = FUPERMOD_OBJ_PARETO;
    ok(fupermod_dp_table_build(&in.prob, &tb) == FUPERMOD_ERR_USAGE && !tb, "a Pareto objective is refused");
    in.prob.objective = FUPERMOD_OBJ_ENERGY;
    ok(fupermod_dp_table_build(&in.prob, &tb) == FUPERMOD_ERR_INPUT && !tb, "energy without energies is refused (%s)",
       fupermod_error_message());
    in.prob.objective = FUPERMOD_OBJ_TIME;
    in.prob.D = 1L << 40;
    in.fn[0].pts[1].d = 1L << 39;
    ok(fupermod_dp_table_build(&in.prob, &tb) == FUPERMOD_ERR_NOMEM && !tb &&
           strstr(fupermod_error_message(), "too large"),
       "a table over dp's limit is refused (%s)", fupermod_error_message());
    in.prob.D = -1;
    ok(fupermod_dp_table_build(&in.prob, &tb) == FUPERMOD_ERR_USAGE && !tb, "D < 0 is refused");
    fupermod_dist_free(d);
    ot_free(&in);
  }
  return done_testing();
}
