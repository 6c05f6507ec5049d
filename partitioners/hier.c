/* Hierarchical partitioning: grouping into nodes, HiPOPTA, and INPA with nested IDPA
 * (docs/hierarchical.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "partitioners/hier.h"
#include "partitioners/paraleph.h"

#define KEY_MAX 256

/* Every rank returns the first failure (lowest rank) with its status and message, so that the
 * cause reaches every rank through nested node and cluster agreements. */
static int agree(int rc, MPI_Comm comm, const char *what) {
  (void)what;
  return fupermod_agree(rc, comm);
}

/* ---------------------------------------------------------------- grouping */

int fupermod_hier_key(const fupermod_process_conf *pc, char *buf, size_t size) {
  char g[KEY_MAX];
  int rc;
  if (!pc || !buf || size < 1) return fupermod_error(FUPERMOD_ERR_USAGE, "hier key: NULL argument");
  rc = fupermod_subopt_get(pc->subopts ? pc->subopts : "", "group", g, sizeof g);
  if (rc < 0) return fupermod_error(FUPERMOD_ERR_INPUT, "configuration line %d: group name too long", pc->line);
  if (rc == 1 && !g[0]) return fupermod_error(FUPERMOD_ERR_INPUT, "configuration line %d: empty group=", pc->line);
  /* prefixes keep a group name from ever matching a host name */
  if ((size_t)snprintf(buf, size, "%s:%s", rc == 1 ? "group" : "host", rc == 1 ? g : pc->hostname) >= size)
    return fupermod_error(FUPERMOD_ERR_INPUT, "configuration line %d: group key too long", pc->line);
  return FUPERMOD_SUCCESS;
}

int fupermod_hier_groups(const fupermod_conf *conf, int *node, int *nodes) {
  char (*keys)[KEY_MAX];
  int n = 0, rc = FUPERMOD_SUCCESS;
  if (!conf || !node || !nodes) return fupermod_error(FUPERMOD_ERR_USAGE, "hier groups: NULL argument");
  if (conf->count < 1) return fupermod_error(FUPERMOD_ERR_INPUT, "hier groups: empty configuration");
  if (!(keys = malloc((size_t)conf->count * sizeof *keys))) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  for (int i = 0; i < conf->count && rc == FUPERMOD_SUCCESS; i++) {
    if ((rc = fupermod_hier_key(&conf->procs[i], keys[i], KEY_MAX)) != FUPERMOD_SUCCESS) break;
    node[i] = -1;
    for (int j = 0; j < i && node[i] < 0; j++)
      if (strcmp(keys[i], keys[j]) == 0) node[i] = node[j];
    if (node[i] < 0) node[i] = n++;
  }
  free(keys);
  if (rc == FUPERMOD_SUCCESS) *nodes = n;
  return rc;
}

void fupermod_hier_comm_free(fupermod_hier_comm *hc) {
  if (!hc) return;
  free(hc->node_of);
  free(hc->node_size);
  free(hc->node_first);
  if (hc->comm_node != MPI_COMM_NULL && hc->comm_node != 0) MPI_Comm_free(&hc->comm_node);
  if (hc->comm_leaders != MPI_COMM_NULL && hc->comm_leaders != 0) MPI_Comm_free(&hc->comm_leaders);
  memset(hc, 0, sizeof *hc);
  hc->comm = hc->comm_node = hc->comm_leaders = MPI_COMM_NULL;
}

int fupermod_hier_comm_from_key(const char *key, MPI_Comm comm, fupermod_hier_comm *hc) {
  char mine[KEY_MAX] = "", (*all)[KEY_MAX] = NULL;
  int rc = FUPERMOD_SUCCESS, size, rank, q = 0;
  if (!hc) return fupermod_error(FUPERMOD_ERR_USAGE, "hier comm: NULL result");
  memset(hc, 0, sizeof *hc);
  hc->comm = hc->comm_node = hc->comm_leaders = MPI_COMM_NULL;
  if (comm == MPI_COMM_NULL) return fupermod_error(FUPERMOD_ERR_USAGE, "hier comm: no communicator");
  MPI_Comm_size(comm, &size);
  MPI_Comm_rank(comm, &rank);
  if (!key || !key[0]) rc = fupermod_error(FUPERMOD_ERR_USAGE, "hier comm: empty group key");
  else if (strlen(key) >= KEY_MAX) rc = fupermod_error(FUPERMOD_ERR_USAGE, "hier comm: group key longer than %d", KEY_MAX - 1);
  else strcpy(mine, key);
  if (rc == FUPERMOD_SUCCESS &&
      (!(all = malloc((size_t)size * sizeof *all)) || !(hc->node_of = malloc((size_t)size * sizeof *hc->node_of)) ||
       !(hc->node_size = calloc((size_t)size, sizeof *hc->node_size)) ||
       !(hc->node_first = calloc((size_t)size + 1, sizeof *hc->node_first))))
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  if ((rc = agree(rc, comm, "hier comm")) != FUPERMOD_SUCCESS) goto fail;
  if (MPI_Allgather(mine, KEY_MAX, MPI_CHAR, all, KEY_MAX, MPI_CHAR, comm) != MPI_SUCCESS) {
    rc = fupermod_error(FUPERMOD_ERR_MPI, "hier comm: MPI_Allgather failed");
    goto fail;
  }
  for (int r = 0; r < size; r++) {
    hc->node_of[r] = -1;
    for (int s = 0; s < r && hc->node_of[r] < 0; s++)
      if (strcmp(all[r], all[s]) == 0) hc->node_of[r] = hc->node_of[s];
    if (hc->node_of[r] < 0) hc->node_of[r] = q++;
    hc->node_size[hc->node_of[r]]++;
  }
  hc->nodes = q;
  hc->node = hc->node_of[rank];
  for (int k = 0; k < q; k++) hc->node_first[k + 1] = hc->node_first[k] + hc->node_size[k];
  hc->comm = comm;
  rc = MPI_Comm_split(comm, hc->node, rank, &hc->comm_node) == MPI_SUCCESS ? FUPERMOD_SUCCESS : FUPERMOD_ERR_MPI;
  if (rc == FUPERMOD_SUCCESS) {
    MPI_Comm_rank(hc->comm_node, &hc->device);
    if (MPI_Comm_split(comm, hc->device == 0 ? 0 : MPI_UNDEFINED, hc->node, &hc->comm_leaders) != MPI_SUCCESS)
      rc = FUPERMOD_ERR_MPI;
  }
  if (rc != FUPERMOD_SUCCESS) {
    rc = fupermod_error(rc, "hier comm: MPI_Comm_split failed");
    goto fail;
  }
  free(all);
  return FUPERMOD_SUCCESS;
fail:
  free(all);
  fupermod_hier_comm_free(hc);
  return rc;
}

int fupermod_hier_comm_create(const fupermod_conf *conf, MPI_Comm comm, fupermod_hier_comm *hc) {
  char key[KEY_MAX], host[MPI_MAX_PROCESSOR_NAME] = "";
  int rc = FUPERMOD_SUCCESS, idx = -1, len;
  if (hc) memset(hc, 0, sizeof *hc);
  if (comm == MPI_COMM_NULL) return fupermod_error(FUPERMOD_ERR_USAGE, "hier comm: no communicator");
  MPI_Get_processor_name(host, &len);
  if (conf) {
    /* collective, and agreed by itself */
    if ((rc = fupermod_conf_locate(conf, comm, &idx, NULL)) != FUPERMOD_SUCCESS) return rc;
    const fupermod_process_conf *pc = &conf->procs[idx];
    char g[KEY_MAX];
    if ((rc = fupermod_hier_key(pc, key, sizeof key)) == FUPERMOD_SUCCESS &&
        fupermod_subopt_get(pc->subopts ? pc->subopts : "", "group", g, sizeof g) == 0 &&
        strcmp(pc->hostname, "localhost") == 0 && (size_t)snprintf(key, sizeof key, "host:%s", host) >= sizeof key)
      rc = fupermod_error(FUPERMOD_ERR_INPUT, "processor name too long");
  } else if ((size_t)snprintf(key, sizeof key, "host:%s", host) >= sizeof key)
    rc = fupermod_error(FUPERMOD_ERR_INPUT, "processor name too long");
  if ((rc = agree(rc, comm, "hier comm")) != FUPERMOD_SUCCESS) return rc;
  return fupermod_hier_comm_from_key(key, comm, hc);
}

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

int fupermod_hipopta(const fupermod_hier_problem *prob, const fupermod_hier_algo *inner,
                     const fupermod_hier_algo *outer, fupermod_hier_result *res) {
  fupermod_hier_algo din, dout;
  const fupermod_points **of = NULL;
  int *first = NULL, total = 0, q, rc = FUPERMOD_SUCCESS, energy_obj, nf;
  long *w = NULL, *x = NULL;
  if (!res) return fupermod_error(FUPERMOD_ERR_USAGE, "hipopta: NULL result");
  memset(res, 0, sizeof *res);
  if (!prob || prob->q < 1 || !prob->devices || !prob->f || prob->D < 0)
    return fupermod_error(FUPERMOD_ERR_USAGE, "hipopta: bad problem (need q >= 1 nodes, devices, functions, D >= 0)");
  if (prob->objective != FUPERMOD_OBJ_TIME && prob->objective != FUPERMOD_OBJ_ENERGY)
    return fupermod_error(FUPERMOD_ERR_USAGE, "hipopta: objective must be time or energy");
  q = prob->q;
  energy_obj = prob->objective == FUPERMOD_OBJ_ENERGY;
  if (!(first = malloc(((size_t)q + 1) * sizeof *first))) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  first[0] = 0;
  for (int k = 0; k < q; k++) {
    if (prob->devices[k] < 1) {
      free(first);
      return fupermod_error(FUPERMOD_ERR_USAGE, "hipopta: node %d has %d devices", k, prob->devices[k]);
    }
    first[k + 1] = first[k] + prob->devices[k];
  }
  total = first[q];
  if ((rc = fupermod_problem_check(&(fupermod_problem){0, total, prob->f, 0, 0, 0}, NULL)) != FUPERMOD_SUCCESS) {
    free(first);
    return rc;
  }
  res->identical = 1;
  for (int k = 1; k < q && res->identical; k++) {
    if (prob->devices[k] != prob->devices[0]) res->identical = 0;
    for (int j = 0; j < prob->devices[0] && res->identical; j++)
      res->identical = same_points(prob->f[first[k] + j], prob->f[j]);
  }
  if (!inner) {
    if ((rc = fupermod_hier_algo_named(energy_obj ? "heopta" : "hpopta", &din)) != FUPERMOD_SUCCESS) goto done;
    inner = &din;
  }
  if (!outer) {
    const char *name = res->identical ? (energy_obj ? "eopta" : "popta") : (energy_obj ? "heopta" : "hpopta");
    if ((rc = fupermod_hier_algo_named(name, &dout)) != FUPERMOD_SUCCESS) goto done;
    outer = &dout;
  }
  if (!inner->solve || !outer->solve) {
    rc = fupermod_error(FUPERMOD_ERR_USAGE, "hipopta: algorithm without a solve function");
    goto done;
  }
  if (outer->homogeneous && !res->identical) {
    rc = fupermod_error(FUPERMOD_ERR_USAGE, "hipopta: %s is for identical nodes, but the nodes differ",
                        outer->name ? outer->name : "the outer algorithm");
    goto done;
  }
  nf = res->identical ? 1 : q;
  res->q = q;
  if (!(res->node_f = calloc((size_t)q, sizeof *res->node_f)) || !(of = malloc((size_t)q * sizeof *of)) ||
      !(w = malloc((size_t)q * sizeof *w)) || !(x = malloc((size_t)total * sizeof *x)) ||
      !(res->nodes = fupermod_dist_alloc(prob->D, q)) || !(res->devices = fupermod_dist_alloc(prob->D, total))) {
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "hipopta: out of memory");
    goto done;
  }
  /* node functions: one when the nodes are identical (the thesis's c + 1 functions) */
  for (int k = 0; k < nf && rc == FUPERMOD_SUCCESS; k++) {
    long wmax = 0;
    for (int i = first[k]; i < first[k + 1]; i++) wmax += prob->f[i]->pts[prob->f[i]->count - 1].d;
    if (wmax > prob->D) wmax = prob->D;
    rc = fupermod_hier_node_function(prob->devices[k], prob->f + first[k], wmax, prob->objective, inner,
                                     &res->node_f[k]);
    if (rc == FUPERMOD_SUCCESS && res->node_f[k].count == 0 && prob->D > 0) {
      /* a node that can take nothing is idle; the outer problem still needs a function */
      res->node_f[k].pts = realloc(res->node_f[k].pts, sizeof *res->node_f[k].pts);
      res->node_f[k].count = 1;
      /* a size above D: never chosen */
      res->node_f[k].has_energy = all_energy(prob->devices[k], prob->f + first[k]);
      res->node_f[k].pts[0] =
          (fupermod_point){prob->D + 1, 1.0, 1, 0.0, res->node_f[k].has_energy ? 1.0 : -1.0, res->node_f[k].has_energy ? 0.0 : -1.0, 0};
    }
  }
  if (rc != FUPERMOD_SUCCESS) goto done;
  if (prob->D == 0) {
    for (int k = 0; k < q; k++) res->nodes->parts[k] = (fupermod_part){0, 0.0, 0.0};
    for (int i = 0; i < total; i++) res->devices->parts[i] = (fupermod_part){0, 0.0, 0.0};
    res->time = 0.0;
    res->energy = 0.0;
    goto done;
  }
  for (int k = 0; k < q; k++) of[k] = &res->node_f[res->identical ? 0 : k];
  {
    fupermod_problem op = {prob->D, q, of, 0.0, 0, prob->objective};
    if (energy_obj && !all_energy(total, prob->f)) {
      rc = fupermod_error(FUPERMOD_ERR_INPUT, "hipopta: the energy objective needs energy in every function");
      goto done;
    }
    if ((rc = outer->solve(&op, res->nodes, outer->ctx)) != FUPERMOD_SUCCESS) {
      if (rc != FUPERMOD_ERR_INFEASIBLE)
        rc = fupermod_error_prefix(rc, "hipopta: outer %s", outer->name ? outer->name : "algorithm");
      goto done;
    }
    for (int k = 0; k < q; k++) w[k] = res->nodes->parts[k].d;
    if ((rc = fupermod_problem_evaluate(&op, w, NULL, NULL, res->nodes)) != FUPERMOD_SUCCESS) {
      rc = fupermod_error_prefix(rc, "hipopta: outer %s", outer->name ? outer->name : "algorithm");
      goto done;
    }
  }
  /* inside each node: the inner algorithm on the node's share, as the thesis runs it per node */
  res->time = 0.0;
  res->energy = 0.0;
  for (int k = 0; k < q && rc == FUPERMOD_SUCCESS; k++) {
    const int p = prob->devices[k];
    fupermod_problem ip = {w[k], p, prob->f + first[k], 0.0, 0, prob->objective};
    fupermod_dist *dk = NULL;
    double t = 0.0, e = 0.0;
    if (w[k] > 0) {
      if (!(dk = fupermod_dist_alloc(w[k], p))) {
        rc = fupermod_error(FUPERMOD_ERR_NOMEM, "hipopta: out of memory");
        break;
      }
      rc = inner->solve(&ip, dk, inner->ctx);
      for (int i = 0; i < p; i++) x[first[k] + i] = dk->parts[i].d;
      fupermod_dist_free(dk);
      if (rc == FUPERMOD_SUCCESS) rc = fupermod_problem_evaluate(&ip, x + first[k], &t, &e, NULL);
      if (rc != FUPERMOD_SUCCESS) {
        rc = fupermod_error_prefix(rc, "hipopta: inner %s on node %d (w=%ld)", inner->name ? inner->name : "algorithm",
                                   k, w[k]);
        break;
      }
      /* both runs are exact, so the node's optimum must be the one its function promised */
      if (!energy_obj && t != res->nodes->parts[k].t) {
        rc = fupermod_error(FUPERMOD_ERR_NUMERIC, "hipopta: node %d at w=%ld: inner time %.17g, node function %.17g", k,
                            w[k], t, res->nodes->parts[k].t);
        break;
      }
    } else
      for (int i = 0; i < p; i++) x[first[k] + i] = 0;
  }
  if (rc == FUPERMOD_SUCCESS) {
    fupermod_problem all = {prob->D, total, prob->f, 0.0, 0, prob->objective};
    rc = fupermod_problem_evaluate(&all, x, &res->time, &res->energy, res->devices);
    if (rc == FUPERMOD_SUCCESS && !all_energy(total, prob->f)) res->energy = NAN;
    for (int k = 0; k < q && rc == FUPERMOD_SUCCESS; k++) {
      double e = 0.0;
      for (int i = first[k]; i < first[k + 1]; i++) e += res->devices->parts[i].e;
      res->nodes->parts[k].e = e;
    }
  }
done:
  if (rc != FUPERMOD_SUCCESS) fupermod_hier_result_free(res);
  free(first);
  free(of);
  free(w);
  free(x);
  return rc;
}

/* ---------------------------------------------------------------- IDPA / INPA */

/* Shares computed on rank 0 of comm and broadcast, so every rank uses the same bits. */
static int partition_root(MPI_Comm comm, fupermod_partition part, int p, fupermod_model **models, fupermod_dist *dist) {
  int rank, rc = FUPERMOD_SUCCESS;
  long *d = malloc((size_t)p * sizeof *d);
  MPI_Comm_rank(comm, &rank);
  if (!d) rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  else if (rank == 0) {
    if ((rc = part(p, models, dist)) == FUPERMOD_SUCCESS) {
      long sum = 0;
      for (int i = 0; i < p; i++) {
        d[i] = dist->parts[i].d;
        sum += d[i] < 0 ? dist->D + 1 : d[i];
      }
      if (sum != dist->D)
        rc = fupermod_error(FUPERMOD_ERR_NUMERIC, "partitioner returned shares summing to %ld for D = %ld", sum, dist->D);
    }
  }
  if ((rc = agree(rc, comm, "partition")) != FUPERMOD_SUCCESS) {
    free(d);
    return rc;
  }
  MPI_Bcast(d, p, MPI_LONG, 0, comm);
  for (int i = 0; i < p; i++) dist->parts[i].d = d[i];
  free(d);
  return FUPERMOD_SUCCESS;
}

/* Measure this process at d (0: idle), the measuring devices synchronised together. */
static int measure_at(MPI_Comm comm, long bm, long d, fupermod_hier_measure measure, void *ctx, fupermod_point *pt) {
  MPI_Comm active = MPI_COMM_NULL;
  int rc = FUPERMOD_SUCCESS;
  *pt = (fupermod_point)FUPERMOD_POINT_INIT;
  pt->d = d;
  pt->t = 0.0;
  if (MPI_Comm_split(comm, d > 0 ? 0 : MPI_UNDEFINED, 0, &active) != MPI_SUCCESS)
    rc = fupermod_error(FUPERMOD_ERR_MPI, "idpa: MPI_Comm_split failed");
  if (rc == FUPERMOD_SUCCESS && d > 0) {
    rc = measure(bm, d, active, pt, ctx);
    if (rc == FUPERMOD_SUCCESS && (pt->d != d || !(pt->t > 0) || !isfinite(pt->t)))
      rc = fupermod_error(FUPERMOD_ERR_NUMERIC, "idpa: measurement of bm=%ld, d=%ld returned d=%ld, t=%g", bm, d, pt->d,
                          pt->t);
    if (pt->reps < 1) pt->reps = 1;
  }
  if (active != MPI_COMM_NULL) MPI_Comm_free(&active);
  return agree(rc, comm, "idpa measurement");
}

int fupermod_idpa(const fupermod_hier_comm *hc, long bm, long bn, double eps2, int max_measurements,
                  fupermod_partition inner, fupermod_model **models, fupermod_hier_measure measure, void *ctx,
                  fupermod_dist *devices, double *t_node, int *converged, int *measurements) {
  fupermod_dynamic dyn;
  fupermod_point pt;
  int rc = FUPERMOD_SUCCESS, p, me, conv = 0, count = 0, fresh;
  if (!hc || hc->comm_node == MPI_COMM_NULL) return fupermod_error(FUPERMOD_ERR_USAGE, "idpa: no node communicator");
  p = hc->node_size[hc->node];
  me = hc->device;
  if (!models || !measure || !inner || !devices || !t_node || !converged)
    rc = fupermod_error(FUPERMOD_ERR_USAGE, "idpa: NULL argument");
  else if (bm < 1 || bn < p)
    rc = fupermod_error(FUPERMOD_ERR_USAGE, "idpa: slice height %ld and %ld columns for %d devices (need bm >= 1, bn >= devices)",
                        bm, bn, p);
  else if (!(eps2 >= 0) || max_measurements < 1)
    rc = fupermod_error(FUPERMOD_ERR_USAGE, "idpa: eps2 = %g, max measurements %d", eps2, max_measurements);
  else if (devices->size != p)
    rc = fupermod_error(FUPERMOD_ERR_USAGE, "idpa: result for %d devices, node has %d", devices->size, p);
  if ((rc = agree(rc, hc->comm_node, "idpa")) != FUPERMOD_SUCCESS) return rc;
  if ((rc = fupermod_dynamic_init(&dyn, p, models[0]->ops->name, bn, inner)) != FUPERMOD_SUCCESS)
    return agree(rc, hc->comm_node, "idpa");
  /* the caller's models (kept per slice height) replace the fresh ones */
  for (int i = 0; i < p; i++) {
    fupermod_model_free(dyn.models[i]);
    dyn.models[i] = models[i];
    models[i]->D = bn;
  }
  fresh = models[0]->points.count == 0;
  if (fresh) {
    /* bootstrap: one column each gives every model its first point (IDPA step 1), then even */
    for (int i = 0; i < p; i++) dyn.dist->parts[i].d = 1;
    if ((rc = measure_at(hc->comm_node, bm, 1, measure, ctx, &pt)) == FUPERMOD_SUCCESS)
      rc = fupermod_dynamic_step(&dyn, hc->comm_node, &pt, -1.0, &conv);
    count++;
    if (rc == FUPERMOD_SUCCESS) {
      fupermod_dist *even = fupermod_dist_alloc(bn, p);
      rc = even ? fupermod_dist_copy(dyn.dist, even) : FUPERMOD_ERR_NOMEM;
      fupermod_dist_free(even);
      rc = agree(rc, hc->comm_node, "idpa");
    }
  } else
    rc = partition_root(hc->comm_node, inner, p, dyn.models, dyn.dist);
  conv = 0;
  /* the bootstrap point does not count against the cap */
  for (int k = 0; rc == FUPERMOD_SUCCESS && k < max_measurements; k++) {
    if ((rc = measure_at(hc->comm_node, bm, dyn.dist->parts[me].d, measure, ctx, &pt)) != FUPERMOD_SUCCESS) break;
    rc = fupermod_dynamic_step(&dyn, hc->comm_node, &pt, eps2, &conv);
    count++;
    if (conv || rc != FUPERMOD_SUCCESS) break;
    /* the same shares again: measuring them again cannot change the models */
    int same = 1;
    for (int i = 0; i < p && same; i++) same = dyn.dist->parts[i].d == dyn.measured->parts[i].d;
    if (same) break;
  }
  if (rc == FUPERMOD_SUCCESS) {
    /* the last measured distribution: its largest time is the node's time */
    double t = 0.0;
    rc = fupermod_dist_copy(devices, dyn.measured);
    for (int i = 0; i < p; i++)
      if (dyn.measured->parts[i].t > t) t = dyn.measured->parts[i].t;
    *t_node = t;
    *converged = conv;
  }
  if (measurements) *measurements += count;
  for (int i = 0; i < p; i++) dyn.models[i] = NULL;
  fupermod_dynamic_free(&dyn);
  return rc;
}

typedef struct {
  long bm;
  fupermod_model **models;
} model_set;

typedef struct {
  int n, cap, p;
  model_set *sets;
} model_cache;

static void cache_free(model_cache *c) {
  for (int s = 0; s < c->n; s++) {
    for (int i = 0; i < c->p; i++) fupermod_model_free(c->sets[s].models[i]);
    free(c->sets[s].models);
  }
  free(c->sets);
  memset(c, 0, sizeof *c);
}

/* Device models depend on the slice height (Clarke 2.12 [TRAP] b): one set per height. */
static int cache_get(model_cache *c, long bm, const char *type, fupermod_model ***out) {
  int rc;
  for (int s = 0; s < c->n; s++)
    if (c->sets[s].bm == bm) {
      *out = c->sets[s].models;
      return FUPERMOD_SUCCESS;
    }
  if (c->n == c->cap) {
    int cap = c->cap ? 2 * c->cap : 8;
    model_set *ns = realloc(c->sets, (size_t)cap * sizeof *ns);
    if (!ns) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
    c->sets = ns;
    c->cap = cap;
  }
  model_set *s = &c->sets[c->n];
  s->bm = bm;
  if (!(s->models = calloc((size_t)c->p, sizeof *s->models))) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  for (int i = 0; i < c->p; i++)
    if ((rc = fupermod_model_create(type, NULL, 0, &s->models[i])) != FUPERMOD_SUCCESS) {
      for (int j = 0; j < i; j++) fupermod_model_free(s->models[j]);
      free(s->models);
      return rc;
    }
  c->n++;
  *out = s->models;
  return FUPERMOD_SUCCESS;
}

static int same_layout(const fupermod_layout *a, const fupermod_layout *b) {
  if (a->p != b->p) return 0;
  for (int i = 0; i < a->p; i++)
    if (memcmp(&a->rects[i], &b->rects[i], sizeof a->rects[i]) != 0) return 0;
  return 1;
}

void fupermod_inpa_result_free(fupermod_inpa_result *res) {
  if (!res) return;
  fupermod_layout_free(res->layout);
  fupermod_dist_free(res->nodes);
  fupermod_dist_free(res->devices);
  memset(res, 0, sizeof *res);
}

/* IDPA of this node on its rectangle of layout (nothing for an empty rectangle). */
static int node_round(const fupermod_hier_comm *hc, const fupermod_inpa_opts *o, model_cache *cache, long bm, long bn,
                      fupermod_hier_measure measure, void *ctx, fupermod_inpa_result *res, double *t_node, int *conv) {
  fupermod_model **models = NULL;
  int rc;
  fupermod_dist_free(res->devices);
  if (!(res->devices = fupermod_dist_alloc(bn, hc->node_size[hc->node])))
    return agree(fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory"), hc->comm_node, "inpa");
  if (bm == 0 || bn == 0) {
    for (int i = 0; i < res->devices->size; i++) res->devices->parts[i] = (fupermod_part){0, 0.0, 0.0};
    *t_node = 0.0;
    *conv = 1;
    return FUPERMOD_SUCCESS;
  }
  rc = cache_get(cache, bm, o->inner_model, &models);
  if ((rc = agree(rc, hc->comm_node, "inpa")) != FUPERMOD_SUCCESS) return rc;
  return fupermod_idpa(hc, bm, bn, o->eps2, o->max_idpa, o->inner, models, measure, ctx, res->devices, t_node, conv,
                       &res->idpa_measurements);
}

int fupermod_inpa(const fupermod_hier_comm *hc, const fupermod_inpa_opts *o, fupermod_hier_measure measure,
                  void *ctx, fupermod_inpa_result *res) {
  model_cache cache = {0, 0, 0, NULL};
  fupermod_dynamic dyn;
  int rc = FUPERMOD_SUCCESS, q, leader, done = 0, dyn_ok = 0, node_conv = 0;
  long M = 0, W = 0, *w = NULL;
  double t_node = 0.0, *areas = NULL, *buf = NULL;
  fupermod_model *probe = NULL;
  fupermod_layout *next = NULL;
  if (!res) return fupermod_error(FUPERMOD_ERR_USAGE, "inpa: NULL result");
  memset(res, 0, sizeof *res);
  if (!hc || hc->comm == MPI_COMM_NULL) return fupermod_error(FUPERMOD_ERR_USAGE, "inpa: no hierarchy communicator");
  q = hc->nodes;
  leader = hc->comm_leaders != MPI_COMM_NULL;
  if (!o || !measure || !o->outer || !o->inner || !o->outer_model || !o->inner_model)
    rc = fupermod_error(FUPERMOD_ERR_USAGE, "inpa: missing options, measure function or partitioners");
  else if (o->b < 1 || o->N < o->b || o->N % o->b != 0)
    rc = fupermod_error(FUPERMOD_ERR_USAGE, "inpa: N = %ld must be a positive multiple of b = %ld", o->N, o->b);
  else if (!(o->eps1 >= 0) || !(o->eps2 >= 0) || o->max_inpa < 1 || o->max_idpa < 1)
    rc = fupermod_error(FUPERMOD_ERR_USAGE, "inpa: need eps1, eps2 >= 0 and iteration caps >= 1");
  else {
    M = o->N / o->b;
    W = M * M;
    if (W < q) rc = fupermod_error(FUPERMOD_ERR_USAGE, "inpa: %ld blocks for %d nodes", W, q);
    for (int k = 0; k < q && rc == FUPERMOD_SUCCESS; k++)
      if (hc->node_size[k] > o->b)
        rc = fupermod_error(FUPERMOD_ERR_USAGE, "inpa: node %d has %d devices, more than the b = %ld columns of one block",
                            k, hc->node_size[k], o->b);
    if (rc == FUPERMOD_SUCCESS && (rc = fupermod_model_create(o->inner_model, NULL, 0, &probe)) == FUPERMOD_SUCCESS) {
      fupermod_model_free(probe);
      rc = fupermod_model_create(o->outer_model, NULL, 0, &probe);
      fupermod_model_free(probe);
    }
  }
  if (rc == FUPERMOD_SUCCESS && (!(w = malloc((size_t)q * sizeof *w)) || !(areas = malloc((size_t)q * sizeof *areas)) ||
                                 !(buf = malloc(3 * (size_t)q * sizeof *buf))))
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  if ((rc = agree(rc, hc->comm, "inpa")) != FUPERMOD_SUCCESS) goto out;
  cache.p = hc->node_size[hc->node];
  if (leader) {
    rc = fupermod_dynamic_init(&dyn, q, o->outer_model, W, o->outer);
    dyn_ok = rc == FUPERMOD_SUCCESS;
  }
  if ((rc = agree(rc, hc->comm, "inpa")) != FUPERMOD_SUCCESS) goto out;

  /* INPA steps 1-2: every node's time for one b x b block seeds its model ([TRAP] e: w = 1 block) */
  rc = node_round(hc, o, &cache, o->b, o->b, measure, ctx, res, &t_node, &node_conv);
  if ((rc = agree(rc, hc->comm, "inpa")) != FUPERMOD_SUCCESS) goto out;
  if (leader) {
    fupermod_point pt = FUPERMOD_POINT_INIT;
    int c;
    pt.d = 1;
    pt.t = t_node;
    for (int k = 0; k < q; k++) dyn.dist->parts[k].d = 1;
    if ((rc = fupermod_dynamic_step(&dyn, hc->comm_leaders, &pt, -1.0, &c)) == FUPERMOD_SUCCESS) {
      /* step 3: the even start */
      fupermod_dist *even = fupermod_dist_alloc(W, q);
      rc = even ? fupermod_dist_copy(dyn.dist, even) : fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
      fupermod_dist_free(even);
    }
  }
  res->inpa_iterations = 1;
  if ((rc = agree(rc, hc->comm, "inpa")) != FUPERMOD_SUCCESS) goto out;

  while (!done) {
    int conv = 0, all_conv = 0, mine_conv;
    long bm, bn;
    const fupermod_rect *r;
    /* steps 4-5: shapes of the current shares, then IDPA on every node */
    if (leader)
      for (int k = 0; k < q; k++) w[k] = dyn.dist->parts[k].d;
    MPI_Bcast(w, q, MPI_LONG, 0, hc->comm);
    for (int k = 0; k < q; k++) areas[k] = (double)w[k];
    rc = fupermod_layout_by_name(o->layout ? o->layout : "br", areas, q, (int)M, (int)M, &next);
    if ((rc = agree(rc, hc->comm, "inpa layout")) != FUPERMOD_SUCCESS) goto out;
    if (res->layout && same_layout(res->layout, next)) {
      /* the shares map to the rectangles just measured: the block granularity of the CMA
       * cannot get closer, and measuring them again would repeat the same times */
      fupermod_layout_free(next);
      next = NULL;
      res->stalled = 1;
      break;
    }
    fupermod_layout_free(res->layout);
    res->layout = next;
    next = NULL;
    r = &res->layout->rects[hc->node];
    bm = (long)r->height * o->b;
    bn = (long)r->width * o->b;
    if (bm == 0 || bn == 0) bm = bn = 0;
    rc = node_round(hc, o, &cache, bm, bn, measure, ctx, res, &t_node, &node_conv);
    if ((rc = agree(rc, hc->comm, "inpa")) != FUPERMOD_SUCCESS) goto out;
    res->bm = bm;
    res->bn = bn;
    /* step 6: node points at the areas actually computed (they tile the matrix, so sum to W) */
    if (leader) {
      fupermod_point pt = FUPERMOD_POINT_INIT;
      for (int k = 0; k < q; k++) dyn.dist->parts[k].d = fupermod_layout_area(res->layout, k);
      pt.d = dyn.dist->parts[hc->node].d;
      pt.t = pt.d > 0 ? t_node : 0.0;
      rc = fupermod_dynamic_step(&dyn, hc->comm_leaders, &pt, o->eps1, &conv);
      if (rc == FUPERMOD_SUCCESS)
        for (int k = 0; k < q; k++) {
          buf[3 * k] = (double)dyn.measured->parts[k].d;
          buf[3 * k + 1] = dyn.measured->parts[k].t;
          buf[3 * k + 2] = dyn.imbalance;
        }
    }
    res->inpa_iterations++;
    if ((rc = agree(rc, hc->comm, "inpa")) != FUPERMOD_SUCCESS) goto out;
    MPI_Bcast(&conv, 1, MPI_INT, 0, hc->comm);
    MPI_Bcast(buf, 3 * q, MPI_DOUBLE, 0, hc->comm);
    mine_conv = node_conv;
    MPI_Allreduce(&mine_conv, &all_conv, 1, MPI_INT, MPI_MIN, hc->comm);
    res->imbalance = buf[2];
    res->node_imbalance = 0.0;
    {
      double lo = INFINITY, hi = 0.0;
      for (int i = 0; i < res->devices->size; i++)
        if (res->devices->parts[i].d > 0) {
          if (res->devices->parts[i].t < lo) lo = res->devices->parts[i].t;
          if (res->devices->parts[i].t > hi) hi = res->devices->parts[i].t;
        }
      if (hi > 0) res->node_imbalance = (hi - lo) / lo;
    }
    res->converged = conv && all_conv;
    done = conv || res->inpa_iterations - 1 >= o->max_inpa;
  }
  if (!(res->nodes = fupermod_dist_alloc(W, q))) rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  else
    for (int k = 0; k < q; k++) res->nodes->parts[k] = (fupermod_part){(long)buf[3 * k], buf[3 * k + 1], NAN};
  rc = agree(rc, hc->comm, "inpa");
out:
  fupermod_layout_free(next);
  if (dyn_ok) fupermod_dynamic_free(&dyn);
  cache_free(&cache);
  free(w);
  free(areas);
  free(buf);
  if (rc != FUPERMOD_SUCCESS) fupermod_inpa_result_free(res);
  return rc;
}
