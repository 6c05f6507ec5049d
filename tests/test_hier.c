/* HiPOPTA against the flat exact optimum (dp over every device) on thousands of random two-level
 * instances, node functions against dp and brute force, and grouping by configuration. */
#include <math.h>
#include <string.h>
#include "tests/tap.h"
#include "tests/oracle_time.h"
#include "partitioners/hier.h"

#define QMAX 4
#define PMAX 3

typedef struct {
  int q, devices[QMAX * 2];
  int total, replicated;
  fupermod_points fn[OT_MAXP];
  const fupermod_points *f[OT_MAXP];
  long D;
} hinst;

static void hfree(hinst *h) {
  for (int i = 0; i < OT_MAXP; i++) free(h->fn[i].pts);
  memset(h, 0, sizeof *h);
}

/* Replicated: every node a value copy (not an alias) of node 0, so that detection is exercised. */
static void hrandom(hinst *h, int qmax, int pmax, long maxsize, int replicated) {
  double hole = ot_unit() < 0.3 ? 0.0 : 0.5 * ot_unit();
  long ties = ot_unit() < 0.5 ? ot_int(1, 6) : 0;
  int real_e = ot_unit() < 0.3;
  long smax = 0;
  memset(h, 0, sizeof *h);
  h->q = (int)ot_int(1, qmax);
  h->replicated = replicated;
  for (int k = 0; k < h->q; k++) {
    h->devices[k] = replicated && k > 0 ? h->devices[0] : (int)ot_int(1, pmax);
    for (int j = 0; j < h->devices[k]; j++) {
      fupermod_points *f = &h->fn[h->total];
      if (replicated && k > 0) {
        const fupermod_points *g = &h->fn[j];
        ot_set_fn(f, g->count, (long[256]){0}, (double[256]){0}, (double[256]){0});
        memcpy(f->pts, g->pts, (size_t)g->count * sizeof *g->pts);
      } else
        ot_random_fn(f, ot_unit() < 0.1 ? 1 : ot_int(1, maxsize), hole, ties, real_e, 1);
      h->f[h->total] = f;
      smax += f->pts[f->count - 1].d;
      h->total++;
    }
  }
  h->D = ot_unit() < 0.1 ? ot_int(0, 3) : ot_int(0, smax + 2);
}

static int flat(const hinst *h, int objective, double *value) {
  fupermod_problem pr = {h->D, h->total, h->f, 0.0, 0, objective};
  fupermod_dist *d = fupermod_dist_alloc(h->D, h->total);
  const fupermod_partitioner *dp = fupermod_partitioner_find("dp");
  int rc = dp->discrete(&pr, d);
  if (rc == FUPERMOD_SUCCESS) *value = objective == FUPERMOD_OBJ_TIME ? fupermod_dist_time(d) : fupermod_dist_energy(d);
  fupermod_dist_free(d);
  return rc;
}

typedef struct {
  long runs, feasible, infeasible, bad;
} tally;

/* The result must be a feasible distribution of the flat problem, node shares must be the sums of
 * their devices', and the objective the flat optimum. */
static void check(const char *what, tally *ty, const hinst *h, int objective, const fupermod_hier_algo *in,
                  const fupermod_hier_algo *out) {
  fupermod_hier_problem hp = {h->D, h->q, h->devices, h->f, objective};
  fupermod_hier_result res;
  double opt = NAN, t, e;
  int rc_flat = flat(h, objective, &opt), rc;
  char why[256] = "";
  long d[OT_MAXP];
  ty->runs++;
  rc = fupermod_hipopta(&hp, in, out, &res);
  if (rc_flat == FUPERMOD_ERR_INFEASIBLE) {
    ty->infeasible++;
    if (rc != FUPERMOD_ERR_INFEASIBLE) snprintf(why, sizeof why, "flat infeasible, hipopta rc=%d", rc);
  } else if (rc != FUPERMOD_SUCCESS) {
    snprintf(why, sizeof why, "rc=%d: %s", rc, fupermod_error_message());
  } else {
    fupermod_problem pr = {h->D, h->total, h->f, 0.0, 0, objective};
    int first = 0;
    ty->feasible++;
    for (int i = 0; i < h->total; i++) d[i] = res.devices->parts[i].d;
    if (fupermod_problem_evaluate(&pr, d, &t, &e, NULL) != FUPERMOD_SUCCESS)
      snprintf(why, sizeof why, "infeasible device distribution: %s", fupermod_error_message());
    else if (t != res.time)
      snprintf(why, sizeof why, "reported time %.17g, recomputed %.17g", res.time, t);
    else if (objective == FUPERMOD_OBJ_TIME && res.time != opt)
      snprintf(why, sizeof why, "time %.17g, flat optimum %.17g", res.time, opt);
    else if (objective == FUPERMOD_OBJ_ENERGY && !(fabs(res.energy - opt) <= 1e-9 * fabs(opt)))
      snprintf(why, sizeof why, "energy %.17g, flat optimum %.17g", res.energy, opt);
    long sum = 0;
    for (int k = 0; k < h->q && !why[0]; k++) {
      long s = 0;
      for (int j = 0; j < h->devices[k]; j++) s += d[first + j];
      first += h->devices[k];
      sum += res.nodes->parts[k].d;
      if (s != res.nodes->parts[k].d) snprintf(why, sizeof why, "node %d: devices sum to %ld, share %ld", k, s, res.nodes->parts[k].d);
    }
    if (!why[0] && sum != h->D) snprintf(why, sizeof why, "node shares sum to %ld, D=%ld", sum, h->D);
    if (!why[0] && h->replicated && !res.identical) snprintf(why, sizeof why, "replicated nodes not detected");
    fupermod_hier_result_free(&res);
  }
  if (why[0] && ty->bad++ < 3) {
    char inst[4096];
    fupermod_problem pr = {h->D, h->total, h->f, 0.0, 0, objective};
    ot_print(&pr, inst, sizeof inst);
    diag("%s: %s; q=%d devices=%d,%d,%d,%d on %s", what, why, h->q, h->devices[0], h->devices[1], h->devices[2],
         h->devices[3], inst);
  }
}

static void grouping(void) {
  const char *text = "# emulated nodes on one machine\n"
                     "hostA 0 none cpu group=n1\n"
                     "hostA 1 none cpu group=n1\n"
                     "hostA 2 none gpu group=n2,kernel=dgemm-cuda\n"
                     "hostB 0 none cpu\n"
                     "hostB 1 none cpu\n"
                     "hostA 3 none cpu\n"
                     "hostC 0 none cpu group=hostB\n";
  fupermod_conf conf;
  int node[16], nodes = 0, rc;
  char key[64];
  rc = fupermod_conf_parse(text, strlen(text), "groups", &conf);
  ok(rc == FUPERMOD_SUCCESS && conf.count == 7, "grouping: configuration parsed (%d lines)", conf.count);
  if (rc != FUPERMOD_SUCCESS) return;
  rc = fupermod_hier_groups(&conf, node, &nodes);
  ok(rc == FUPERMOD_SUCCESS && nodes == 5 && node[0] == 0 && node[1] == 0 && node[2] == 1 && node[3] == 2 &&
         node[4] == 2 && node[5] == 3 && node[6] == 4,
     "grouping: group= overrides the host, same host without group is one node, a group named like a host is not "
     "that host (nodes %d: %d %d %d %d %d %d %d)",
     nodes, node[0], node[1], node[2], node[3], node[4], node[5], node[6]);
  rc = fupermod_hier_key(&conf.procs[2], key, sizeof key);
  ok(rc == FUPERMOD_SUCCESS && strcmp(key, "group:n2") == 0, "grouping: key of a group= line is '%s'", key);
  rc = fupermod_hier_key(&conf.procs[3], key, sizeof key);
  ok(rc == FUPERMOD_SUCCESS && strcmp(key, "host:hostB") == 0, "grouping: key of a plain line is '%s'", key);
  fupermod_conf_free(&conf);
  text = "h 0 none cpu group=\n";
  if (fupermod_conf_parse(text, strlen(text), "empty", &conf) == FUPERMOD_SUCCESS) {
    rc = fupermod_hier_groups(&conf, node, &nodes);
    ok(rc == FUPERMOD_ERR_INPUT && strstr(fupermod_error_message(), "empty group"),
       "grouping: an empty group= is an input error (%s)", fupermod_error_message());
    fupermod_conf_free(&conf);
  } else
    ok(0, "grouping: empty-group configuration did not parse: %s", fupermod_error_message());
}

/* Every point of a node function is the exact optimum of its workload (brute force), and the
 * per-workload path (hpopta) agrees with the one-table path (dp). */
static void node_functions(int n) {
  fupermod_hier_algo hp, dp;
  long bad = 0, points = 0;
  fupermod_hier_algo_named("hpopta", &hp);
  fupermod_hier_algo_named("dp", &dp);
  for (int it = 0; it < n; it++) {
    ot_inst in;
    fupermod_points a, b;
    long wmax;
    int ra, rb;
    ot_random(&in, 4, 8, ot_unit() < 0.3, 1);
    in.prob.objective = FUPERMOD_OBJ_TIME;
    wmax = ot_sum_max(&in.prob) + 1;
    ra = fupermod_hier_node_function(in.prob.p, in.prob.f, wmax, FUPERMOD_OBJ_TIME, &hp, &a);
    rb = fupermod_hier_node_function(in.prob.p, in.prob.f, wmax, FUPERMOD_OBJ_TIME, &dp, &b);
    if (ra || rb || a.count != b.count) {
      if (bad++ < 3) diag("node function: rc %d/%d, counts %d/%d", ra, rb, a.count, b.count);
    } else {
      long k = 0;
      for (long w = 1; w <= wmax; w++) {
        ot_brute br;
        in.prob.D = w;
        ot_bruteforce(&in.prob, &br);
        if (!br.feasible) continue;
        points++;
        if (k >= a.count || a.pts[k].d != w || a.pts[k].t != br.tmin || b.pts[k].d != w || b.pts[k].t != br.tmin) {
          if (bad++ < 3) diag("node function: w=%ld brute %.17g, hpopta %.17g, dp %.17g", w, br.tmin,
                              k < a.count ? a.pts[k].t : NAN, k < b.count ? b.pts[k].t : NAN);
          break;
        }
        if (a.pts[k].e < 0 || b.pts[k].e < 0) bad++;
        k++;
      }
      if (k != a.count) bad++;
    }
    if (!ra) fupermod_points_free(&a);
    if (!rb) fupermod_points_free(&b);
    ot_free(&in);
  }
  ok(bad == 0, "node functions: %d random nodes, %ld workloads: hpopta path = dp table = brute force (%ld bad)", n,
     points, bad);
}

int main(void) {
  fupermod_hier_algo dp, hp, popta, eopta, heopta, para;
  tally ty;
  hinst h;
  const int N = 1500;
  fupermod_hier_algo_named("dp", &dp);
  fupermod_hier_algo_named("hpopta", &hp);
  fupermod_hier_algo_named("popta", &popta);
  fupermod_hier_algo_named("eopta", &eopta);
  fupermod_hier_algo_named("heopta", &heopta);
  fupermod_hier_algo_named("paraleph", &para);

  grouping();
  node_functions(300);

  /* the acceptance case: replicated nodes, HiPOPTA (hpopta inside, popta between) = flat optimum */
  memset(&ty, 0, sizeof ty);
  for (int it = 0; it < N; it++) {
    hrandom(&h, QMAX, PMAX, 8, 1);
    check("replicated hpopta/popta", &ty, &h, FUPERMOD_OBJ_TIME, &hp, &popta);
    hfree(&h);
  }
  ok(ty.bad == 0 && ty.feasible > N / 2 && ty.infeasible > 0,
     "replicated nodes, hpopta inside + popta between: time = flat dp on %ld instances (%ld feasible, %ld "
     "infeasible, %ld bad)",
     ty.runs, ty.feasible, ty.infeasible, ty.bad);

  memset(&ty, 0, sizeof ty);
  for (int it = 0; it < N; it++) {
    hrandom(&h, QMAX, PMAX, 8, 1);
    check("replicated defaults", &ty, &h, FUPERMOD_OBJ_TIME, NULL, NULL);
    check("replicated dp/paraleph", &ty, &h, FUPERMOD_OBJ_TIME, &dp, &para);
    hfree(&h);
  }
  ok(ty.bad == 0, "replicated nodes, default algorithms and dp inside + paraleph between: time = flat dp (%ld runs, %ld bad)",
     ty.runs, ty.bad);

  /* different nodes: the construction is exact for min-max in general */
  memset(&ty, 0, sizeof ty);
  for (int it = 0; it < N; it++) {
    hrandom(&h, QMAX, PMAX, 8, 0);
    check("heterogeneous hpopta/hpopta", &ty, &h, FUPERMOD_OBJ_TIME, &hp, &hp);
    check("heterogeneous dp/dp", &ty, &h, FUPERMOD_OBJ_TIME, &dp, &dp);
    check("heterogeneous defaults", &ty, &h, FUPERMOD_OBJ_TIME, NULL, NULL);
    hfree(&h);
  }
  ok(ty.bad == 0 && ty.feasible > N, "different nodes, hpopta or dp at both levels: time = flat dp (%ld runs, %ld bad)",
     ty.runs, ty.bad);

  /* dynamic energy (min-sum is separable, so the two levels are exact too) */
  memset(&ty, 0, sizeof ty);
  for (int it = 0; it < N; it++) {
    int rep = it % 2;
    hrandom(&h, QMAX, PMAX, 8, rep);
    check("energy heopta", &ty, &h, FUPERMOD_OBJ_ENERGY, &heopta, rep ? &eopta : &heopta);
    check("energy dp", &ty, &h, FUPERMOD_OBJ_ENERGY, &dp, &dp);
    hfree(&h);
  }
  ok(ty.bad == 0, "energy objective, heopta inside + eopta/heopta between and dp/dp: energy = flat dp (%ld runs, %ld bad)",
     ty.runs, ty.bad);

  /* bigger replicated clusters through the one-table path */
  memset(&ty, 0, sizeof ty);
  for (int it = 0; it < 60; it++) {
    hrandom(&h, 8, 2, 30, 1);
    check("large replicated dp/popta", &ty, &h, FUPERMOD_OBJ_TIME, &dp, &popta);
    hfree(&h);
  }
  ok(ty.bad == 0, "up to 8 replicated nodes of 2 devices, sizes to 30: dp inside + popta between = flat dp (%ld runs, %ld bad)",
     ty.runs, ty.bad);

  /* identical-node detection and the homogeneous outer algorithm */
  {
    long d0[] = {1, 2, 3}, d1[] = {2, 4};
    double t0[] = {1, 3, 4}, t1[] = {1, 5};
    fupermod_points a, b, c;
    const fupermod_points *f[4];
    int dev[2] = {2, 2};
    fupermod_hier_problem hp2 = {7, 2, dev, f, FUPERMOD_OBJ_TIME};
    fupermod_hier_result res;
    int rc;
    ot_set_fn(&a, 3, d0, t0, NULL);
    ot_set_fn(&b, 2, d1, t1, NULL);
    ot_set_fn(&c, 2, d1, t1, NULL);
    f[0] = &a, f[1] = &b, f[2] = &a, f[3] = &c;
    rc = fupermod_hipopta(&hp2, &hp, NULL, &res);
    ok(rc == FUPERMOD_SUCCESS && res.identical == 1 && res.time == 3.0,
       "two identical nodes (value-equal functions): detected, one node function, time %g (expect 3)", res.time);
    if (rc == FUPERMOD_SUCCESS) {
      ok(res.node_f[0].count == 7 && res.node_f[0].pts[0].d == 1 && res.node_f[0].pts[6].d == 7 &&
             res.node_f[0].pts[3].t == 3.0 && res.node_f[0].pts[6].t == 5.0,
         "node function: every workload 1..min(D, capacity), T(4) = 3, T(7) = 5 (%d points)", res.node_f[0].count);
      fupermod_hier_result_free(&res);
    }
    f[3] = &a;
    dev[0] = 2;
    rc = fupermod_hipopta(&hp2, &hp, &popta, &res);
    ok(rc == FUPERMOD_ERR_USAGE && strstr(fupermod_error_message(), "identical nodes"),
       "popta between different nodes is refused: %s", fupermod_error_message());
    hp2.D = 100;
    f[3] = &c;
    rc = fupermod_hipopta(&hp2, NULL, NULL, &res);
    ok(rc == FUPERMOD_ERR_INFEASIBLE, "D above the cluster's capacity: infeasible (rc %d)", rc);
    free(a.pts), free(b.pts), free(c.pts);
  }
  return done_testing();
}
