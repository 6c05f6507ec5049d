/* HiSCALE (docs/hierarchical.md) against flat dp on random two-level instances: the time optimum
 * exactly, the fewest active nodes against every subset of nodes, node functions against dp, and
 * for energy the bracket bound <= flat optimum <= energy. Run under mpirun (mpi_hier_scale_np2),
 * the collective solves must give every rank the serial result. */
#include <math.h>
#include <string.h>
#include "tests/tap.h"
#include "tests/oracle_time.h"
#include "partitioners/hier.h"

#define QMAX 4
#define PMAX 3

typedef struct {
  int q, devices[QMAX], first[QMAX + 1], total;
  fupermod_points fn[OT_MAXP];
  const fupermod_points *f[OT_MAXP];
  long D;
  double budget;
  fupermod_hscale_points_ctx ctx;
  fupermod_hscale_problem prob;
} sinst;

static void sfree(sinst *h) {
  for (int i = 0; i < OT_MAXP; i++) free(h->fn[i].pts);
  memset(h, 0, sizeof *h);
}

/* sizes are multiples of g (g > 1: the same structure at a scale where the repair of the last
 * energy units cannot cover every case and falls back to the minimum-makespan distribution) */
static void srandom_inst(sinst *h, long maxsize, long g) {
  double hole = ot_unit() < 0.3 ? 0.0 : 0.5 * ot_unit();
  long ties = ot_unit() < 0.5 ? ot_int(1, 6) : 0;
  int real_e = ot_unit() < 0.5, mp = 0;
  long smax = 0;
  memset(h, 0, sizeof *h);
  h->q = (int)ot_int(1, QMAX);
  for (int k = 0; k < h->q; k++) {
    h->devices[k] = (int)ot_int(1, PMAX);
    h->first[k + 1] = h->first[k] + h->devices[k];
    for (int j = 0; j < h->devices[k]; j++, h->total++) {
      fupermod_points *f = &h->fn[h->total];
      ot_random_fn(f, ot_unit() < 0.1 ? 1 : ot_int(1, maxsize), hole, ties, real_e, g);
      h->f[h->total] = f;
      smax += f->pts[f->count - 1].d;
      if (f->count > mp) mp = f->count;
    }
  }
  h->D = ot_unit() < 0.1 ? ot_int(0, 3) * g : ot_int(0, smax / g + 2) * g;
  if (g > 1 && ot_unit() < 0.05) h->D += ot_int(1, g - 1); /* no distribution */
  h->budget = ot_unit() < 0.5 ? INFINITY : (ties ? (double)ot_int(1, ties) : 1.0 + 99.0 * ot_unit());
  h->ctx.f = h->f;
  h->ctx.first = h->first;
  h->prob = (fupermod_hscale_problem){h->D, h->q, h->devices, mp, fupermod_hscale_points, &h->ctx, h->budget};
}

/* flat dp on the devices of the nodes in mask, points with t <= budget */
static int flat(const sinst *h, unsigned mask, int objective, double budget, double *value) {
  fupermod_points fn[OT_MAXP];
  const fupermod_points *f[OT_MAXP];
  int p = 0, rc;
  for (int k = 0; k < h->q; k++)
    if (mask >> k & 1U)
      for (int i = h->first[k]; i < h->first[k + 1]; i++) {
        fn[p] = h->fn[i];
        fn[p].pts = malloc((size_t)h->fn[i].count * sizeof *fn[p].pts);
        fn[p].count = 0;
        for (int j = 0; j < h->fn[i].count; j++)
          if (h->fn[i].pts[j].t <= budget) fn[p].pts[fn[p].count++] = h->fn[i].pts[j];
        if (fn[p].count == 0) { /* a device that can take nothing: a size beyond any D */
          fn[p].pts[0] = h->fn[i].pts[0];
          fn[p].pts[0].d = 1000000;
          fn[p].count = 1;
        }
        f[p] = &fn[p];
        p++;
      }
  if (p == 0) rc = h->D == 0 ? FUPERMOD_SUCCESS : FUPERMOD_ERR_INFEASIBLE, *value = 0.0;
  else {
    fupermod_problem pr = {h->D, p, f, 0.0, 0, objective};
    fupermod_dist *d = fupermod_dist_alloc(h->D, p);
    rc = fupermod_partitioner_find("dp")->discrete(&pr, d);
    if (rc == FUPERMOD_SUCCESS) *value = objective == FUPERMOD_OBJ_TIME ? fupermod_dist_time(d) : fupermod_dist_energy(d);
    fupermod_dist_free(d);
  }
  for (int i = 0; i < p; i++) free(fn[i].pts);
  return rc;
}

/* shares are measured sizes (t <= budget), sum to D, node shares are their devices' sums; the
 * reported time and energy are the distribution's */
static int valid(const sinst *h, const fupermod_hscale_result *r, double budget, char *why, size_t n) {
  long sum = 0;
  double tmax = 0.0, esum = 0.0;
  for (int k = 0; k < h->q; k++) {
    long s = 0;
    for (int i = h->first[k]; i < h->first[k + 1]; i++) {
      const fupermod_points *f = h->f[i];
      int j = 0;
      s += r->share[i];
      if (r->share[i] == 0) continue;
      while (j < f->count && f->pts[j].d != r->share[i]) j++;
      if (j == f->count || !(f->pts[j].t <= budget)) {
        snprintf(why, n, "device %d got %ld, not a size within the budget", i, r->share[i]);
        return 0;
      }
      tmax = f->pts[j].t > tmax ? f->pts[j].t : tmax;
      esum += f->pts[j].e;
    }
    if (s != r->node_share[k]) {
      snprintf(why, n, "node %d: devices sum to %ld, share %ld", k, s, r->node_share[k]);
      return 0;
    }
    sum += s;
  }
  if (sum != h->D) snprintf(why, n, "shares sum to %ld, D = %ld", sum, h->D);
  else if (tmax != r->time) snprintf(why, n, "time %.17g, the distribution's %.17g", r->time, tmax);
  else if (!(fabs(esum - r->energy) <= 1e-12 * esum)) snprintf(why, n, "energy %.17g, the distribution's %.17g", r->energy, esum);
  return sum == h->D && tmax == r->time && fabs(esum - r->energy) <= 1e-12 * esum;
}

static int active_nodes(const sinst *h, const fupermod_hscale_result *r) {
  int c = 0;
  for (int k = 0; k < h->q; k++) c += r->node_share[k] > 0;
  return c;
}

static void report(const char *what, long *bad, const sinst *h, const char *why) {
  char inst[4096];
  fupermod_problem pr = {h->D, h->total, h->f, 0.0, 0, 0};
  if ((*bad)++ >= 3) return;
  ot_print(&pr, inst, sizeof inst);
  diag("%s: %s; q=%d devices=%d,%d,%d,%d budget=%g on %s", what, why, h->q, h->devices[0], h->devices[1],
       h->devices[2], h->devices[3], h->budget, inst);
}

/* every node function value against dp over the node's devices */
static void node_functions(int n) {
  long bad = 0, points = 0;
  for (int it = 0; it < n; it++) {
    sinst h;
    double T[512];
    long wmax;
    srandom_inst(&h, 12, 1);
    wmax = 0;
    for (int i = h.first[0]; i < h.first[1]; i++) wmax += h.fn[i].pts[h.fn[i].count - 1].d;
    if (fupermod_hscale_node_time(&h.prob, 0, wmax + 1, T) != FUPERMOD_SUCCESS) {
      report("node function", &bad, &h, fupermod_error_message());
      sfree(&h);
      continue;
    }
    for (long w = 0; w <= wmax + 1; w++) {
      double v = INFINITY;
      char why[128];
      h.D = w;
      if (flat(&h, 1U, FUPERMOD_OBJ_TIME, INFINITY, &v) != FUPERMOD_SUCCESS) v = INFINITY;
      points++;
      if (v != T[w]) {
        snprintf(why, sizeof why, "w=%ld: %.17g, dp %.17g", w, T[w], v);
        report("node function", &bad, &h, why);
        break;
      }
    }
    sfree(&h);
  }
  ok(bad == 0, "node functions: %ld values of %d nodes equal dp's (%ld wrong)", points, n, bad);
}

static void time_vs_flat(MPI_Comm comm, int n, long maxsize) {
  long bad = 0, feasible = 0, infeasible = 0, exact = 0, minimal = 0;
  for (int it = 0; it < n; it++) {
    sinst h;
    fupermod_hscale_result r;
    double opt = NAN;
    char why[256] = "";
    int rcf, rc;
    srandom_inst(&h, maxsize, 1);
    rcf = flat(&h, (1U << h.q) - 1, FUPERMOD_OBJ_TIME, INFINITY, &opt);
    rc = fupermod_hscale_time(comm, &h.prob, &r);
    if (rcf == FUPERMOD_ERR_INFEASIBLE) {
      infeasible++;
      if (rc != FUPERMOD_ERR_INFEASIBLE) snprintf(why, sizeof why, "flat infeasible, hiscale rc=%d", rc);
    } else if (rc != FUPERMOD_SUCCESS)
      snprintf(why, sizeof why, "rc=%d: %s", rc, fupermod_error_message());
    else {
      feasible++;
      exact += r.exact_checks;
      if (valid(&h, &r, INFINITY, why, sizeof why) && r.time != opt)
        snprintf(why, sizeof why, "time %.17g, flat optimum %.17g", r.time, opt);
      if (!why[0] && h.D > 0) {
        /* nodes enter by their largest share under the optimum; the shortest prefix that reaches
         * it is used, so every node outside it is idle */
        long M[QMAX];
        int order[QMAX], c = 0, fewest = h.q, active = active_nodes(&h, &r);
        unsigned mask = 0;
        for (int k = 0; k < h.q; k++) {
          sinst one = h;
          M[k] = 0;
          order[k] = k;
          for (long w = 1; w <= h.D; w++) {
            double v;
            one.D = w;
            if (flat(&one, 1U << k, FUPERMOD_OBJ_TIME, INFINITY, &v) == FUPERMOD_SUCCESS && v <= opt) M[k] = w;
          }
        }
        for (int a = 1; a < h.q; a++)
          for (int b = a; b > 0 && M[order[b]] > M[order[b - 1]]; b--) {
            int t = order[b];
            order[b] = order[b - 1];
            order[b - 1] = t;
          }
        for (c = 0; c < h.q; c++) {
          double v;
          mask |= 1U << order[c];
          if (flat(&h, mask, FUPERMOD_OBJ_TIME, INFINITY, &v) == FUPERMOD_SUCCESS && v == opt) break;
        }
        for (int k = 0; k < h.q && !why[0]; k++)
          if (!(mask >> k & 1U) && r.node_share[k] > 0)
            snprintf(why, sizeof why, "node %d is active outside the shortest prefix (%d nodes)", k, c + 1);
        for (unsigned m = 1; m < 1U << h.q; m++) {
          double v;
          if (__builtin_popcount(m) < fewest && flat(&h, m, FUPERMOD_OBJ_TIME, INFINITY, &v) == FUPERMOD_SUCCESS &&
              v == opt)
            fewest = __builtin_popcount(m);
        }
        minimal += active == fewest;
      }
      fupermod_hscale_result_free(&r);
    }
    if (why[0]) report("time", &bad, &h, why);
    sfree(&h);
  }
  ok(bad == 0 && feasible > n / 3 && (infeasible > 0 || n < 1000),
     "time: %d instances, %ld feasible at the flat optimum, nodes entering by capacity (%ld with the fewest "
     "active nodes), %ld infeasible, %ld exact checks (%ld wrong)",
     n, feasible, minimal, infeasible, exact, bad);
}

/* Every feasible instance gets a distribution (the last units placed by one or two moves, the
 * exact repair or from the minimum-makespan distribution), within bound <= flat optimum <= energy;
 * every infeasible one is reported infeasible. With g = 1 (sizes <= 10, <= 12 devices) the repair
 * covers every repair, so a repaired distribution is optimal. */
static void energy_vs_flat(MPI_Comm comm, int n, long g) {
  long bad = 0, solved = 0, optimal = 0, unplaced = 0, infeasible = 0, repair[4] = {0}, repaired_opt = 0;
  for (int it = 0; it < n; it++) {
    sinst h;
    fupermod_hscale_result r;
    double opt = NAN;
    char why[256] = "";
    int rcf, rc;
    srandom_inst(&h, 10, g);
    rcf = flat(&h, (1U << h.q) - 1, FUPERMOD_OBJ_ENERGY, h.budget, &opt);
    rc = fupermod_hscale_energy(comm, &h.prob, &r);
    if (rc == FUPERMOD_SUCCESS) {
      solved++;
      if (rcf != FUPERMOD_SUCCESS) snprintf(why, sizeof why, "solved, but flat rc=%d", rcf);
      else if (r.repair < 0 || r.repair > 3) snprintf(why, sizeof why, "repair %d", r.repair);
      else if (valid(&h, &r, h.budget, why, sizeof why)) {
        const double tol = 1e-9 * (fabs(opt) + 1.0);
        if (!(r.bound <= opt + tol) || !(r.energy >= opt - tol))
          snprintf(why, sizeof why, "bound %.17g, flat optimum %.17g, energy %.17g", r.bound, opt, r.energy);
        optimal += fabs(r.energy - opt) <= tol;
        repaired_opt += r.repair > 0 && fabs(r.energy - opt) <= tol;
        repair[r.repair]++;
      }
      fupermod_hscale_result_free(&r);
    } else if (rcf == FUPERMOD_SUCCESS) {
      unplaced++;
      snprintf(why, sizeof why, "flat optimum %.17g, but rc=%d: %s", opt, rc, fupermod_error_message());
    } else if (rc == FUPERMOD_ERR_INFEASIBLE) {
      infeasible++;
      if (rcf != FUPERMOD_ERR_INFEASIBLE) snprintf(why, sizeof why, "hiscale infeasible, flat rc=%d", rcf);
    } else
      snprintf(why, sizeof why, "rc=%d: %s", rc, fupermod_error_message());
    if (why[0]) report("energy", &bad, &h, why);
    sfree(&h);
  }
  ok(bad == 0 && unplaced == 0 && solved > n / 2 && infeasible > 0 &&
         (g > 1 || repaired_opt == repair[1] + repair[2] + repair[3]),
     "energy, sizes x%ld: %d instances, %ld solved with bound <= flat optimum <= energy (%ld at the optimum), %ld "
     "infeasible, %ld feasible without a distribution; last units placed by one or two moves in %ld, the exact "
     "repair in %ld, from the minimum-makespan distribution in %ld, %ld of these at the optimum (%ld wrong)",
     g, n, solved, optimal, infeasible, unplaced, repair[1], repair[2], repair[3], repaired_opt, bad);
}

/* Single-size devices of 7, 5, 3 and 3 (times g) units, energy per unit rising in that order: the
 * relaxation takes 7 and 5 and leaves 1 (times g) of D = 13 (times g). Every move is an odd
 * multiple of g, so no one or two moves place it; three do (7 + 3 + 3, the only distribution).
 * With g = 1 the exact repair covers every repair; with g = 100 it does not, and the
 * minimum-makespan distribution decides. D = 9 has no distribution; nor has D = 13 under a time
 * budget that the second 3 exceeds, with a device of 9 added to keep the capacity above D. */
static void last_units_case(MPI_Comm comm, long g) {
  static const long size[5] = {7, 3, 9, 5, 3};
  static const int node[5] = {0, 0, 0, 1, 1};
  static const double slope[5] = {1.0, 3.0, 6.0, 2.0, 4.0}, time[5] = {1.0, 2.0, 1.0, 1.0, 9.0};
  const char *what[3] = {"D = 13", "D = 9", "D = 13 within the budget"};
  int good = 1, repair = -1;
  char why[256] = "";
  for (int c = 0; c < 3 && good; c++) {
    sinst h;
    fupermod_hscale_result r;
    double opt = NAN;
    int rcf, rc;
    memset(&h, 0, sizeof h);
    h.q = 2;
    for (int i = 0; i < 5; i++) {
      const long d = size[i] * g;
      const double e = slope[i] * (double)d;
      if (i == 2 && c != 2) continue; /* the device of 9: only in the budget case */
      ot_set_fn(&h.fn[h.total], 1, &d, &time[i], &e);
      h.f[h.total] = &h.fn[h.total];
      h.total++;
      h.devices[node[i]]++;
    }
    h.first[1] = h.devices[0];
    h.first[2] = h.total;
    h.D = (c == 1 ? 9 : 13) * g;
    h.budget = c == 2 ? 5.0 : INFINITY;
    h.ctx.f = h.f;
    h.ctx.first = h.first;
    h.prob = (fupermod_hscale_problem){h.D, h.q, h.devices, 1, fupermod_hscale_points, &h.ctx, h.budget};
    rcf = flat(&h, 3U, FUPERMOD_OBJ_ENERGY, h.budget, &opt);
    rc = fupermod_hscale_energy(comm, &h.prob, &r);
    if (c == 0) {
      if (rc != FUPERMOD_SUCCESS || rcf != FUPERMOD_SUCCESS)
        snprintf(why, sizeof why, "%s: rc=%d (%s), flat rc=%d", what[c], rc, fupermod_error_message(), rcf);
      else if (valid(&h, &r, h.budget, why, sizeof why) && (r.energy != opt || r.repair != (g == 1 ? 2 : 3)))
        snprintf(why, sizeof why, "%s: energy %g (flat optimum %g), repair %d", what[c], r.energy, opt, r.repair);
      repair = rc == FUPERMOD_SUCCESS ? r.repair : -1;
      if (rc == FUPERMOD_SUCCESS) fupermod_hscale_result_free(&r);
    } else if (rc != FUPERMOD_ERR_INFEASIBLE || rcf != FUPERMOD_ERR_INFEASIBLE) {
      snprintf(why, sizeof why, "%s: rc=%d (%s), flat rc=%d", what[c], rc, fupermod_error_message(), rcf);
      if (rc == FUPERMOD_SUCCESS) fupermod_hscale_result_free(&r);
    }
    good = !why[0];
    sfree(&h);
  }
  ok(good, "energy, sizes x%ld: 13 = 7 + 3 + 3 placed at the optimum (repair %d), 9 and 13 within the budget "
     "infeasible%s%s", g, repair, why[0] ? ": " : "", why);
}

static int fail_fn(int node, int device, fupermod_hscale_fn *fn, void *ctx) {
  (void)node, (void)device, (void)ctx;
  fn->count = 2;
  fn->x[0] = 3;
  fn->x[1] = 2; /* not ascending */
  fn->t[0] = fn->t[1] = 1.0;
  return FUPERMOD_SUCCESS;
}

static void errors(MPI_Comm comm) {
  int devices[2] = {1, 1}, rc;
  fupermod_hscale_result r;
  fupermod_hscale_problem bad = {5, 2, devices, 4, fail_fn, NULL, INFINITY};
  rc = fupermod_hscale_time(comm, &bad, &r);
  ok(rc == FUPERMOD_ERR_INPUT && strstr(fupermod_error_message(), "ascending"),
     "errors: a device function with descending sizes is an input error (%s)", fupermod_error_message());
  bad.q = 0;
  rc = fupermod_hscale_energy(comm, &bad, &r);
  ok(rc == FUPERMOD_ERR_USAGE, "errors: no nodes is a usage error (%s)", fupermod_error_message());
}

int main(int argc, char **argv) {
  MPI_Comm comm = MPI_COMM_NULL;
  int size = 1, rank = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (size > 1) comm = MPI_COMM_WORLD;
  tap_quiet(rank != 0);
  if (comm == MPI_COMM_NULL) node_functions(400);
  time_vs_flat(comm, comm == MPI_COMM_NULL ? 2000 : 300, 10);
  time_vs_flat(comm, comm == MPI_COMM_NULL ? 200 : 30, 60);
  energy_vs_flat(comm, comm == MPI_COMM_NULL ? 2000 : 300, 1);
  energy_vs_flat(comm, comm == MPI_COMM_NULL ? 600 : 100, 100);
  last_units_case(comm, 1);
  last_units_case(comm, 100);
  errors(comm);
  if (!tap_silent) printf("1..%d\n", tap_n);
  MPI_Finalize();
  return tap_failed ? 1 : 0;
}
