/* HiPOPTA (docs/hierarchical.md): node functions from an inner algorithm, the outer algorithm
 * between nodes, the inner one inside each node. The algorithms are arguments: the registered
 * discrete partitioners and PARALEPH on a communicator. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "partitioners/hier.h"
#include "partitioners/paraleph.h"

/* ---------------------------------------------------------------- algorithms */

static int reg_solve(const fupermod_problem *prob, fupermod_dist *out, void *ctx) {
  const fupermod_partitioner *a = ctx;
  return a->discrete(prob, out);
}

/* The whole dp table at once: column p holds the optimum of every workload 0..D. */
static int dp_all(const fupermod_problem *prob, double *val, long *d, void *ctx) {
  fupermod_paraleph_table tab;
  const int p = prob->p;
  const size_t ld = (size_t)prob->D + 1;
  int rc = fupermod_paraleph_sequential(prob, prob->objective, 1, &tab);
  (void)ctx;
  if (rc != FUPERMOD_SUCCESS) return rc;
  for (long w = 0; w <= prob->D && rc == FUPERMOD_SUCCESS; w++) {
    long r = w;
    val[w] = tab.val[(size_t)(p - 1) * ld + (size_t)w];
    if (!isfinite(val[w])) {
      val[w] = INFINITY;
      continue;
    }
    for (int h = p; h >= 1; h--) {
      int k = tab.ptr[(size_t)(h - 1) * ld + (size_t)r];
      long x = k >= 0 ? prob->f[h - 1]->pts[k].d : 0;
      d[(size_t)w * (size_t)p + (size_t)(h - 1)] = x;
      r -= x;
    }
    if (r != 0) rc = fupermod_error(FUPERMOD_ERR_NUMERIC, "dp table: traceback of w=%ld left %ld units", w, r);
  }
  fupermod_paraleph_table_free(&tab);
  return rc;
}

int fupermod_hier_algo_named(const char *name, fupermod_hier_algo *out) {
  const fupermod_partitioner *a = fupermod_partitioner_find(name);
  if (!out) return fupermod_error(FUPERMOD_ERR_USAGE, "hier algorithm: NULL result");
  memset(out, 0, sizeof *out);
  if (!a) return fupermod_error(FUPERMOD_ERR_USAGE, "unknown partitioner '%s'", name ? name : "(null)");
  if (a->kind != FUPERMOD_PART_DISCRETE || !a->discrete)
    return fupermod_error(FUPERMOD_ERR_USAGE, "%s is not a discrete single-objective partitioner", a->name);
  out->name = a->name;
  out->homogeneous = a->homogeneous;
  out->solve = reg_solve;
  out->ctx = (void *)a;
  if (strcmp(a->name, "dp") == 0) out->solve_all = dp_all;
  return FUPERMOD_SUCCESS;
}

static int paraleph_solve(const fupermod_problem *prob, fupermod_dist *out, void *ctx) {
  const fupermod_hier_paraleph_ctx *c = ctx;
  fupermod_dist *d = NULL;
  int rc = fupermod_paraleph(c->comm, c->root, prob, prob->objective, c->threads, &d, NULL);
  if (rc != FUPERMOD_SUCCESS) return rc;
  rc = fupermod_dist_copy(out, d);
  fupermod_dist_free(d);
  return rc;
}

void fupermod_hier_algo_paraleph(fupermod_hier_paraleph_ctx *ctx, MPI_Comm comm, int threads,
                                 fupermod_hier_algo *out) {
  ctx->comm = comm;
  ctx->root = 0;
  ctx->threads = threads;
  memset(out, 0, sizeof *out);
  out->name = "paraleph";
  out->solve = paraleph_solve;
  out->ctx = ctx;
}

/* ---------------------------------------------------------------- HiPOPTA */

void fupermod_hier_result_free(fupermod_hier_result *res) {
  if (!res) return;
  if (res->node_f)
    for (int k = 0; k < res->q; k++) fupermod_points_free(&res->node_f[k]);
  free(res->node_f);
  fupermod_dist_free(res->nodes);
  fupermod_dist_free(res->devices);
  memset(res, 0, sizeof *res);
}

static int all_energy(int p, const fupermod_points *const *f) {
  for (int i = 0; i < p; i++)
    if (!f[i]->has_energy) return 0;
  return 1;
}

int fupermod_hier_node_function(int p, const fupermod_points *const *f, long wmax, int objective,
                                const fupermod_hier_algo *inner, fupermod_points *out) {
  fupermod_problem prob;
  fupermod_dist *dist = NULL;
  double *val = NULL;
  long *d = NULL, *x = NULL;
  int rc = FUPERMOD_SUCCESS, energy;
  if (!out) return fupermod_error(FUPERMOD_ERR_USAGE, "node function: NULL result");
  memset(out, 0, sizeof *out);
  if (p < 1 || !f || !inner || !inner->solve || wmax < 0)
    return fupermod_error(FUPERMOD_ERR_USAGE, "node function: bad arguments (p=%d, wmax=%ld)", p, wmax);
  if ((rc = fupermod_problem_check(&(fupermod_problem){0, p, f, 0, 0, objective}, NULL)) != FUPERMOD_SUCCESS)
    return rc;
  energy = all_energy(p, f);
  memset(&prob, 0, sizeof prob);
  prob.p = p;
  prob.f = f;
  prob.objective = objective;
  if (!(out->pts = calloc((size_t)wmax + 1, sizeof *out->pts)) || !(x = malloc((size_t)p * sizeof *x)))
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "node function: out of memory");
  if (rc == FUPERMOD_SUCCESS && inner->solve_all) {
    prob.D = wmax;
    if (!(val = malloc(((size_t)wmax + 1) * sizeof *val)) || !(d = malloc(((size_t)wmax + 1) * (size_t)p * sizeof *d)))
      rc = fupermod_error(FUPERMOD_ERR_NOMEM, "node function: out of memory");
    else rc = inner->solve_all(&prob, val, d, inner->ctx);
  }
  for (long w = 1; w <= wmax && rc == FUPERMOD_SUCCESS; w++) {
    double t, e;
    prob.D = w;
    if (val) {
      if (!isfinite(val[w])) continue;
      memcpy(x, d + (size_t)w * (size_t)p, (size_t)p * sizeof *x);
    } else {
      if (!(dist = fupermod_dist_alloc(w, p))) {
        rc = fupermod_error(FUPERMOD_ERR_NOMEM, "node function: out of memory");
        break;
      }
      rc = inner->solve(&prob, dist, inner->ctx);
      for (int i = 0; i < p; i++) x[i] = dist->parts[i].d;
      fupermod_dist_free(dist);
      dist = NULL;
      if (rc == FUPERMOD_ERR_INFEASIBLE) {
        rc = FUPERMOD_SUCCESS;
        continue;
      }
      if (rc != FUPERMOD_SUCCESS) {
        rc = fupermod_error_prefix(rc, "node function: %s at w=%ld", inner->name ? inner->name : "inner", w);
        break;
      }
    }
    /* the point is recomputed from the functions: the algorithm's witness must be feasible */
    if ((rc = fupermod_problem_evaluate(&prob, x, &t, &e, NULL)) != FUPERMOD_SUCCESS) {
      rc = fupermod_error_prefix(rc, "node function: %s at w=%ld", inner->name ? inner->name : "inner", w);
      break;
    }
    fupermod_point *pt = &out->pts[out->count++];
    pt->d = w;
    pt->t = t;
    pt->reps = 1;
    pt->ci = 0.0;
    pt->e = energy ? e : -1.0;
    pt->e_ci = energy ? 0.0 : -1.0;
  }
  free(val);
  free(d);
  free(x);
  out->has_energy = energy;
  if (rc != FUPERMOD_SUCCESS) fupermod_points_free(out);
  return rc;
}

static int same_points(const fupermod_points *a, const fupermod_points *b) {
  if (a == b) return 1;
  if (a->count != b->count || a->has_energy != b->has_energy) return 0;
  for (int k = 0; k < a->count; k++)
    if (a->pts[k].d != b->pts[k].d || a->pts[k].t != b->pts[k].t || (a->has_energy && a->pts[k].e != b->pts[k].e))
      return 0;
  return 1;
}

/* first[k]: node k's first device, q + 1 entries (malloc), once every node has a device and the
 * device functions pass fupermod_problem_check. */
static int node_first(const fupermod_hier_problem *prob, int **out) {
  const int q = prob->q;
  int *first = malloc(((size_t)q + 1) * sizeof *first), rc;
  if (!first) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  first[0] = 0;
  for (int k = 0; k < q; k++) {
    if (prob->devices[k] < 1) {
      free(first);
      return fupermod_error(FUPERMOD_ERR_USAGE, "hipopta: node %d has %d devices", k, prob->devices[k]);
    }
    first[k + 1] = first[k] + prob->devices[k];
  }
  if ((rc = fupermod_problem_check(&(fupermod_problem){0, first[q], prob->f, 0, 0, 0}, NULL)) != FUPERMOD_SUCCESS) {
    free(first);
    return rc;
  }
  *out = first;
  return FUPERMOD_SUCCESS;
}

/* 1 when every node has node 0's device functions. */
static int nodes_identical(const fupermod_hier_problem *prob, const int *first) {
  int identical = 1;
  for (int k = 1; k < prob->q && identical; k++) {
    if (prob->devices[k] != prob->devices[0]) identical = 0;
    for (int j = 0; j < prob->devices[0] && identical; j++) identical = same_points(prob->f[first[k] + j], prob->f[j]);
  }
  return identical;
}

/* The algorithms not given: hpopta (heopta) inside the nodes, and between them too, or popta
 * (eopta) between identical nodes, built into *din and *dout. */
static int choose_algos(int energy_obj, int identical, const fupermod_hier_algo **inner,
                        const fupermod_hier_algo **outer, fupermod_hier_algo *din, fupermod_hier_algo *dout) {
  int rc;
  if (!*inner) {
    if ((rc = fupermod_hier_algo_named(energy_obj ? "heopta" : "hpopta", din)) != FUPERMOD_SUCCESS) return rc;
    *inner = din;
  }
  if (!*outer) {
    const char *name = identical ? (energy_obj ? "eopta" : "popta") : (energy_obj ? "heopta" : "hpopta");
    if ((rc = fupermod_hier_algo_named(name, dout)) != FUPERMOD_SUCCESS) return rc;
    *outer = dout;
  }
  if (!(*inner)->solve || !(*outer)->solve)
    return fupermod_error(FUPERMOD_ERR_USAGE, "hipopta: algorithm without a solve function");
  if ((*outer)->homogeneous && !identical)
    return fupermod_error(FUPERMOD_ERR_USAGE, "hipopta: %s is for identical nodes, but the nodes differ",
                          (*outer)->name ? (*outer)->name : "the outer algorithm");
  return FUPERMOD_SUCCESS;
}

/* The node functions: one when the nodes are identical (the thesis's c + 1 functions). */
static int build_node_functions(const fupermod_hier_problem *prob, const int *first, const fupermod_hier_algo *inner,
                                fupermod_hier_result *res) {
  const int nf = res->identical ? 1 : prob->q;
  int rc = FUPERMOD_SUCCESS;
  for (int k = 0; k < nf && rc == FUPERMOD_SUCCESS; k++) {
    fupermod_points *nk = &res->node_f[k];
    long wmax = 0;
    for (int i = first[k]; i < first[k + 1]; i++) wmax += prob->f[i]->pts[prob->f[i]->count - 1].d;
    if (wmax > prob->D) wmax = prob->D;
    rc = fupermod_hier_node_function(prob->devices[k], prob->f + first[k], wmax, prob->objective, inner, nk);
    if (rc == FUPERMOD_SUCCESS && nk->count == 0 && prob->D > 0) {
      /* a node that can take nothing is idle; the outer problem still needs a function */
      nk->pts = realloc(nk->pts, sizeof *nk->pts);
      nk->count = 1;
      /* a size above D: never chosen */
      nk->has_energy = all_energy(prob->devices[k], prob->f + first[k]);
      nk->pts[0] = (fupermod_point){.d = prob->D + 1, .t = 1.0, .e = nk->has_energy ? 1.0 : -1.0,
                                    .e_ci = nk->has_energy ? 0.0 : -1.0, .reps = 1, .samples = -1};
    }
  }
  return rc;
}

/* The outer algorithm between the nodes: the node shares w, with their predicted time and energy
 * in res->nodes. of: room for q functions; total: the devices. */
static int solve_outer(const fupermod_hier_problem *prob, const fupermod_hier_algo *outer, int total,
                       const fupermod_points **of, long *w, fupermod_hier_result *res) {
  const int q = prob->q;
  fupermod_problem op = {prob->D, q, of, 0.0, 0, prob->objective};
  int rc;
  for (int k = 0; k < q; k++) of[k] = &res->node_f[res->identical ? 0 : k];
  if (prob->objective == FUPERMOD_OBJ_ENERGY && !all_energy(total, prob->f))
    return fupermod_error(FUPERMOD_ERR_INPUT, "hipopta: the energy objective needs energy in every function");
  if ((rc = outer->solve(&op, res->nodes, outer->ctx)) != FUPERMOD_SUCCESS) {
    if (rc != FUPERMOD_ERR_INFEASIBLE)
      rc = fupermod_error_prefix(rc, "hipopta: outer %s", outer->name ? outer->name : "algorithm");
    return rc;
  }
  for (int k = 0; k < q; k++) w[k] = res->nodes->parts[k].d;
  if ((rc = fupermod_problem_evaluate(&op, w, NULL, NULL, res->nodes)) != FUPERMOD_SUCCESS)
    return fupermod_error_prefix(rc, "hipopta: outer %s", outer->name ? outer->name : "algorithm");
  return FUPERMOD_SUCCESS;
}

/* Inside node k: the inner algorithm on its share w, as the thesis runs it per node, into its
 * device shares x. */
static int solve_node(const fupermod_hier_problem *prob, const fupermod_hier_algo *inner, int k, const int *first,
                      long w, long *x, const fupermod_hier_result *res) {
  const int p = prob->devices[k];
  fupermod_problem ip = {w, p, prob->f + first[k], 0.0, 0, prob->objective};
  fupermod_dist *dk = NULL;
  double t = 0.0, e = 0.0;
  int rc;
  if (w <= 0) {
    for (int i = 0; i < p; i++) x[i] = 0;
    return FUPERMOD_SUCCESS;
  }
  if (!(dk = fupermod_dist_alloc(w, p))) return fupermod_error(FUPERMOD_ERR_NOMEM, "hipopta: out of memory");
  rc = inner->solve(&ip, dk, inner->ctx);
  for (int i = 0; i < p; i++) x[i] = dk->parts[i].d;
  fupermod_dist_free(dk);
  if (rc == FUPERMOD_SUCCESS) rc = fupermod_problem_evaluate(&ip, x, &t, &e, NULL);
  if (rc != FUPERMOD_SUCCESS)
    return fupermod_error_prefix(rc, "hipopta: inner %s on node %d (w=%ld)", inner->name ? inner->name : "algorithm",
                                 k, w);
  /* both runs are exact, so the node's optimum must be the one its function promised */
  if (prob->objective != FUPERMOD_OBJ_ENERGY && t != res->nodes->parts[k].t)
    return fupermod_error(FUPERMOD_ERR_NUMERIC, "hipopta: node %d at w=%ld: inner time %.17g, node function %.17g", k,
                          w, t, res->nodes->parts[k].t);
  return FUPERMOD_SUCCESS;
}

/* The whole distribution x: its time and energy, the device parts, and each node's energy. */
static int evaluate_all(const fupermod_hier_problem *prob, const int *first, const long *x, fupermod_hier_result *res) {
  const int total = first[prob->q];
  fupermod_problem all = {prob->D, total, prob->f, 0.0, 0, prob->objective};
  int rc = fupermod_problem_evaluate(&all, x, &res->time, &res->energy, res->devices);
  if (rc == FUPERMOD_SUCCESS && !all_energy(total, prob->f)) res->energy = NAN;
  for (int k = 0; k < prob->q && rc == FUPERMOD_SUCCESS; k++) {
    double e = 0.0;
    for (int i = first[k]; i < first[k + 1]; i++) e += res->devices->parts[i].e;
    res->nodes->parts[k].e = e;
  }
  return rc;
}

int fupermod_hipopta(const fupermod_hier_problem *prob, const fupermod_hier_algo *inner,
                     const fupermod_hier_algo *outer, fupermod_hier_result *res) {
  fupermod_hier_algo din, dout;
  const fupermod_points **of = NULL;
  int *first = NULL, total, q, rc;
  long *w = NULL, *x = NULL;
  if (!res) return fupermod_error(FUPERMOD_ERR_USAGE, "hipopta: NULL result");
  memset(res, 0, sizeof *res);
  if (!prob || prob->q < 1 || !prob->devices || !prob->f || prob->D < 0)
    return fupermod_error(FUPERMOD_ERR_USAGE, "hipopta: bad problem (need q >= 1 nodes, devices, functions, D >= 0)");
  if (prob->objective != FUPERMOD_OBJ_TIME && prob->objective != FUPERMOD_OBJ_ENERGY)
    return fupermod_error(FUPERMOD_ERR_USAGE, "hipopta: objective must be time or energy");
  q = prob->q;
  if ((rc = node_first(prob, &first)) != FUPERMOD_SUCCESS) return rc;
  total = first[q];
  res->identical = nodes_identical(prob, first);
  if ((rc = choose_algos(prob->objective == FUPERMOD_OBJ_ENERGY, res->identical, &inner, &outer, &din, &dout)) !=
      FUPERMOD_SUCCESS)
    goto done;
  res->q = q;
  if (!(res->node_f = calloc((size_t)q, sizeof *res->node_f)) || !(of = malloc((size_t)q * sizeof *of)) ||
      !(w = malloc((size_t)q * sizeof *w)) || !(x = malloc((size_t)total * sizeof *x)) ||
      !(res->nodes = fupermod_dist_alloc(prob->D, q)) || !(res->devices = fupermod_dist_alloc(prob->D, total))) {
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "hipopta: out of memory");
    goto done;
  }
  if ((rc = build_node_functions(prob, first, inner, res)) != FUPERMOD_SUCCESS) goto done;
  if (prob->D == 0) {
    for (int k = 0; k < q; k++) res->nodes->parts[k] = (fupermod_part){0, 0.0, 0.0};
    for (int i = 0; i < total; i++) res->devices->parts[i] = (fupermod_part){0, 0.0, 0.0};
    res->time = 0.0;
    res->energy = 0.0;
    goto done;
  }
  if ((rc = solve_outer(prob, outer, total, of, w, res)) != FUPERMOD_SUCCESS) goto done;
  res->time = 0.0;
  res->energy = 0.0;
  for (int k = 0; k < q && rc == FUPERMOD_SUCCESS; k++) rc = solve_node(prob, inner, k, first, w[k], x + first[k], res);
  if (rc == FUPERMOD_SUCCESS) rc = evaluate_all(prob, first, x, res);
done:
  if (rc != FUPERMOD_SUCCESS) fupermod_hier_result_free(res);
  free(first);
  free(of);
  free(w);
  free(x);
  return rc;
}
