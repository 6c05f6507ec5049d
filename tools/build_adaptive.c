/* Adaptive building: a partitioner needs each function accurately only near the shares the optimum
 * gives. Start from a few log-spaced grid sizes, partition functions interpolated over the whole
 * grid with the caller's partitioner, measure the shares and their grid neighbours, and repeat
 * until the distribution stays put (docs/models.md, "Adaptive building"). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "partitioners/hier.h"
#include "partitioners/paraleph.h"
#include "partitioners/partitioners.h"
#include "tools/build_common.h"

#define NCAND 4 /* time, energy, hierarchical, the Pareto choice */

/* Every process's points (abandoned ones too, flagged) on rank 0; all[size] allocated there. */
static int gather_all(const fupermod_points *mine, fupermod_points **all, int size) {
  int rank, n = mine->count * TOOL_POINT_ROW, *counts = NULL, *displs = NULL, total = 0, rc = FUPERMOD_SUCCESS;
  double *buf = malloc((size_t)(n ? n : 1) * sizeof *buf), *recv = NULL;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (int i = 0; buf && i < mine->count; i++) tool_point_pack(&mine->pts[i], buf + TOOL_POINT_ROW * i);
  if (rank == 0) {
    counts = malloc((size_t)size * sizeof *counts);
    displs = malloc((size_t)size * sizeof *displs);
  }
  MPI_Gather(&n, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank == 0 && counts && displs) {
    for (int r = 0; r < size; r++) displs[r] = total, total += counts[r];
    recv = malloc((size_t)(total ? total : 1) * sizeof *recv);
  }
  MPI_Gatherv(buf, n, MPI_DOUBLE, recv, counts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    if (!buf || !recv || !(*all = calloc((size_t)size, sizeof **all))) rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
    for (int r = 0; rc == FUPERMOD_SUCCESS && r < size; r++)
      for (int i = 0; i < counts[r] / TOOL_POINT_ROW && rc == FUPERMOD_SUCCESS; i++) {
        fupermod_point p = tool_point_unpack(recv + displs[r] + TOOL_POINT_ROW * i);
        rc = fupermod_points_insert(&(*all)[r], &p);
      }
  }
  free(buf);
  free(recv);
  free(counts);
  free(displs);
  return rc;
}

static void free_all(fupermod_points *all, int size) {
  for (int i = 0; all && i < size; i++) fupermod_points_free(&all[i]);
  free(all);
}

/* The measurements of f, without abandoned points (has_energy as the point files define it). */
static int usable(const fupermod_points *f, fupermod_points *out) {
  int rc = FUPERMOD_SUCCESS;
  memset(out, 0, sizeof *out);
  out->has_energy = 1;
  for (int i = 0; i < f->count && rc == FUPERMOD_SUCCESS; i++)
    if (!fupermod_point_abandoned(&f->pts[i])) {
      rc = fupermod_points_insert(out, &f->pts[i]);
      if (f->pts[i].e < 0) out->has_energy = 0;
    }
  if (out->count == 0) out->has_energy = 0;
  return rc;
}

/* f at x (f sorted, at least one point): time (energy) interpolated linearly; outside the measured
 * range at the speed of the nearest end. *alt: the same interpolating the speed instead, the other
 * plausible curve through the points (their difference is how uncertain x is); *rel: the points'
 * relative half-width, interpolated. */
static void interp(const fupermod_points *f, double x, int energy, double *v, double *alt, double *rel) {
  const fupermod_point *lo = &f->pts[0], *hi = &f->pts[f->count - 1];
  int k = 0;
  double ya, yb, w;
  if (x <= (double)lo->d || x >= (double)hi->d) {
    const fupermod_point *p = x <= (double)lo->d ? lo : hi;
    double y = energy ? p->e : p->t, c = energy ? p->e_ci : p->ci;
    *v = *alt = y * x / (double)p->d;
    *rel = y > 0 ? c / y : 0.0;
    return;
  }
  while (k + 1 < f->count && (double)f->pts[k + 1].d < x) k++;
  lo = &f->pts[k];
  hi = &f->pts[k + 1];
  ya = energy ? lo->e : lo->t;
  yb = energy ? hi->e : hi->t;
  w = (x - (double)lo->d) / (double)(hi->d - lo->d);
  *v = ya + w * (yb - ya);
  *alt = x * (ya / (double)lo->d + w * (yb / (double)hi->d - ya / (double)lo->d));
  *rel = (1 - w) * (ya > 0 ? (energy ? lo->e_ci : lo->ci) / ya : 0) + w * (yb > 0 ? (energy ? hi->e_ci : hi->ci) / yb : 0);
}

/* f's function over the whole grid: measured values at measured sizes, interpolated between; a
 * half-width of the point's, plus, between measured sizes, the interpolants' disagreement. */
static int grid_function(const tool_adaptive *ad, const fupermod_points *f, fupermod_points *out) {
  memset(out, 0, sizeof *out);
  if (f->count == 0) return fupermod_error(FUPERMOD_ERR_INPUT, "adaptive build: a process has no measured point");
  if (!(out->pts = calloc((size_t)ad->ngrid, sizeof *out->pts))) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  out->count = ad->ngrid;
  out->has_energy = f->has_energy;
  for (int k = 0; k < ad->ngrid; k++) {
    fupermod_point *p = &out->pts[k];
    int at = fupermod_points_find(f, ad->grid[k]);
    double v, alt, rel;
    if (at >= 0) {
      *p = f->pts[at];
      if (!f->has_energy) p->e = p->e_ci = -1.0;
      continue;
    }
    *p = (fupermod_point)FUPERMOD_POINT_INIT;
    p->d = ad->grid[k];
    interp(f, (double)p->d, 0, &v, &alt, &rel);
    p->t = v;
    p->ci = rel * v + fabs(v - alt);
    if (f->has_energy) {
      interp(f, (double)p->d, 1, &v, &alt, &rel);
      p->e = v;
      p->e_ci = rel * v + fabs(v - alt);
    }
  }
  return FUPERMOD_SUCCESS;
}

/* Rank 0's distribution from a partitioner run on rank 0 only, on every rank's status. */
static int discrete_on_root(const fupermod_problem *prob, const char *name, fupermod_dist **out) {
  int rank, rc = FUPERMOD_SUCCESS;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    const fupermod_partitioner *alg = fupermod_partitioner_find(name);
    if (!alg || alg->kind != FUPERMOD_PART_DISCRETE)
      rc = fupermod_error(FUPERMOD_ERR_USAGE, "adaptive build: '%s' is not a discrete partitioner", name);
    else if (!(*out = fupermod_dist_alloc(prob->D, prob->p))) rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
    else if ((rc = fupermod_problem_check(prob, alg)) == FUPERMOD_SUCCESS) rc = alg->discrete(prob, *out);
  }
  MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return rc;
}

int tool_hier_partition(const fupermod_conf *conf, const int *line, long D, int p, const fupermod_points *const *f,
                        fupermod_dist **out) {
  int rc, nodes = 0, n = 0, *node = malloc((size_t)conf->count * sizeof *node), *devices = NULL, *order = NULL;
  const fupermod_points **fnm = NULL;
  fupermod_hier_problem hp;
  fupermod_hier_algo inner;
  fupermod_hier_result res;
  *out = NULL;
  if (!node) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  if ((rc = fupermod_hier_groups(conf, node, &nodes)) != FUPERMOD_SUCCESS || nodes < 2) {
    free(node);
    return rc;
  }
  devices = calloc((size_t)nodes, sizeof *devices);
  order = malloc((size_t)p * sizeof *order);
  fnm = malloc((size_t)p * sizeof *fnm);
  memset(&res, 0, sizeof res);
  if (!devices || !order || !fnm) rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  /* node-major order, as HiPOPTA takes the devices */
  for (int q = 0; rc == FUPERMOD_SUCCESS && q < nodes; q++)
    for (int r = 0; r < p; r++)
      if (node[line[r]] == q) {
        devices[q]++;
        order[n] = r;
        fnm[n++] = f[r];
      }
  hp.D = D;
  hp.q = nodes;
  hp.devices = devices;
  hp.f = fnm;
  hp.objective = FUPERMOD_OBJ_TIME;
  if (rc == FUPERMOD_SUCCESS && (rc = fupermod_hier_algo_named("dp", &inner)) == FUPERMOD_SUCCESS &&
      (rc = fupermod_hipopta(&hp, &inner, NULL, &res)) == FUPERMOD_SUCCESS) {
    if (!(*out = fupermod_dist_alloc(D, p))) rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
    for (int j = 0; *out && j < p; j++) (*out)->parts[order[j]].d = res.devices->parts[j].d;
  }
  fupermod_hier_result_free(&res);
  free(node);
  free(devices);
  free(order);
  free(fnm);
  return rc;
}

/* tool_hier_partition on rank 0, its status on every rank. */
static int hier_on_root(const fupermod_problem *prob, const tool_proc *tp, const int *line, fupermod_dist **out) {
  int rank, rc = FUPERMOD_SUCCESS;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) rc = tool_hier_partition(&tp->conf, line, prob->D, prob->p, prob->f, out);
  MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return rc;
}

/* The candidate distributions (rank 0) of the grid functions F (rank 0): cand[0] time with the
 * caller's algorithm, cand[1] energy (PARALEPH, when every function has energy), cand[2]
 * hierarchical, cand[3] the Pareto choice (with energy). Collective. */
static int candidates(const tool_adaptive *ad, const tool_proc *tp, const fupermod_points *F, int size, const int *line,
                      fupermod_dist **cand) {
  int rank, rc = FUPERMOD_SUCCESS, energy = 1;
  const fupermod_points **fp = NULL;
  fupermod_problem prob = {ad->D, size, NULL, 0.0, 0, FUPERMOD_OBJ_TIME};
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    if (!(fp = malloc((size_t)size * sizeof *fp))) rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
    for (int i = 0; fp && i < size; i++) {
      fp[i] = &F[i];
      if (!F[i].has_energy) energy = 0;
    }
    prob.f = fp;
  }
  MPI_Bcast(&energy, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if ((rc = tool_agree(ad->sub, rc, MPI_COMM_WORLD)) != FUPERMOD_SUCCESS) return rc;
  if (ad->objectives & TOOL_ADAPT_TIME) {
    if (strcmp(ad->algorithm, "paraleph") == 0)
      rc = fupermod_paraleph(MPI_COMM_WORLD, 0, rank == 0 ? &prob : NULL, FUPERMOD_OBJ_TIME, 0, &cand[0], NULL);
    else rc = discrete_on_root(&prob, ad->algorithm, &cand[0]);
  }
  if (rc == FUPERMOD_SUCCESS && energy && (ad->objectives & TOOL_ADAPT_ENERGY))
    rc = fupermod_paraleph(MPI_COMM_WORLD, 0, rank == 0 ? &prob : NULL, FUPERMOD_OBJ_ENERGY, 0, &cand[1], NULL);
  if (rc == FUPERMOD_SUCCESS && (ad->objectives & TOOL_ADAPT_HIER)) rc = hier_on_root(&prob, tp, line, &cand[2]);
  if (rc == FUPERMOD_SUCCESS && energy && (ad->objectives & TOOL_ADAPT_PARETO) && rank == 0) {
    fupermod_front front = {0, NULL};
    int chosen = -1;
    if ((rc = tool_pareto_pick(&prob, ad->tradeoff, &front, &chosen)) == FUPERMOD_SUCCESS && chosen >= 0) {
      if (!(cand[3] = fupermod_dist_alloc(ad->D, size))) rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
      else fupermod_dist_copy(cand[3], front.points[chosen].dist);
    }
    fupermod_front_free(&front);
  }
  free(fp);
  return tool_agree(ad->sub, rc, MPI_COMM_WORLD);
}

static int grid_index(const tool_adaptive *ad, long d) {
  int lo = 0, hi = ad->ngrid - 1;
  while (lo <= hi) {
    int mid = (lo + hi) / 2;
    if (ad->grid[mid] == d) return mid;
    if (ad->grid[mid] < d) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/* The predicted optimum of a candidate and its half-width: the makespan (time) from every
 * process's interval, so that a near tie widens it; or the summed energy. *T: the makespan of
 * the predicted times themselves (the largest at the shares), what the gap probe's reach needs:
 * the interval's middle lies above it by half the interpolants' disagreement, which the first
 * rounds' few sizes make wide. */
static void predicted(const fupermod_dist *c, const fupermod_points *F, const tool_adaptive *ad, int energy, double *v,
                      double *hw, double *T) {
  double lo = 0, hi = 0, sum = 0, sumc = 0;
  *T = 0;
  for (int i = 0; i < c->size; i++) {
    int k = c->parts[i].d > 0 ? grid_index(ad, c->parts[i].d) : -1;
    const fupermod_point *p = k >= 0 ? &F[i].pts[k] : NULL;
    if (!p) continue;
    if (p->t > *T) *T = p->t;
    if (p->t - p->ci > lo) lo = p->t - p->ci;
    if (p->t + p->ci > hi) hi = p->t + p->ci;
    if (energy) {
      sum += p->e;
      sumc += p->e_ci;
    }
  }
  *v = energy ? sum : (lo + hi) / 2;
  *hw = energy ? sumc : (hi - lo) / 2;
}

/* Process i's requests for candidate c: its share and, with ring 1, the grid sizes on either
 * side, that it has not measured (abandoned sizes count as measured). Returns how many were added to req. */
static int share_requests(const tool_adaptive *ad, const fupermod_dist *c, const fupermod_points *all, int i, int ring,
                          char *req) {
  int k = c->parts[i].d > 0 ? grid_index(ad, c->parts[i].d) : -1, n = 0;
  for (int j = k - ring; k >= 0 && j <= k + ring; j++)
    if (j >= 0 && j < ad->ngrid && fupermod_points_find(&all[i], ad->grid[j]) < 0 && !req[j]) {
      req[j] = 1;
      n++;
    }
  return n;
}

/* Process i's request where the interpolation is least certain: the middle of the widest gap
 * between its measured sizes, relative to its share (D/p when idle), whose lower end could still
 * be done within the makespan T at the best speed the process has shown; only gaps wider than
 * half the share and of 3 grid steps or more. Without it, a fast region between two slow measured
 * sizes would never be seen. A gap counts up to the largest size that could be done within T at
 * GAP_SPEEDUP times that best speed: no unseen region is taken to be faster than that, and the
 * sizes beyond cost the most to probe. */
#define GAP_SPEEDUP 1.5
static int gap_request(const tool_adaptive *ad, const fupermod_dist *c, const fupermod_points *all,
                       const fupermod_points *F, int i, double T, char *req) {
  double ref = c->parts[i].d > 0 ? (double)c->parts[i].d : (double)ad->D / c->size, best = 0.5, smax = 0;
  int pick = -1, prev = -1;
  for (int k = 0; k < ad->ngrid; k++)
    if (fupermod_points_find(&all[i], ad->grid[k]) >= 0 && F[i].pts[k].t > 0 && ad->grid[k] / F[i].pts[k].t > smax)
      smax = ad->grid[k] / F[i].pts[k].t;
  for (int k = 0; k < ad->ngrid; k++) {
    if (fupermod_points_find(&all[i], ad->grid[k]) < 0) continue;
    if (prev >= 0 && k - prev >= 3 && smax > 0 && ad->grid[prev] / smax <= T) {
      int end = prev + 1; /* the gap's end: the measured size, or the first size out of reach */
      while (end < k && ad->grid[end] / (GAP_SPEEDUP * smax) <= T) end++;
      if (end - prev >= 3) {
        double w = (double)(ad->grid[end] - ad->grid[prev]) / ref;
        if (w > best) best = w, pick = (prev + end) / 2;
      }
    }
    prev = k;
  }
  if (pick < 0 || req[pick]) return 0;
  req[pick] = 1;
  return 1;
}

/* Per-device grids: a grid of D/K steps cannot give a device much slower than the others its
 * share (a core beside a GPU takes a few % of the work, under one step): it stays idle. When a
 * process could do fewer than REFINE_BELOW steps within the makespan T, at the speed of its
 * smallest measured size, the grid's step becomes the largest divisor of it that gives that
 * process REFINE_STEPS steps, with at most REFINE_MAX grid sizes (the partitioners' cost grows
 * with their square). Measured sizes stay on the finer grid; only a uniform grid g, 2g, ..., D is
 * refined, once, and only for a process that the time distribution c leaves idle or at the
 * grid's smallest size (a process's smallest measured size is often its slowest, which would
 * make near-equal processes look slow). Returns the new step on rank 0, or 0. */
#define REFINE_BELOW 2
#define REFINE_STEPS 8
#define REFINE_MAX 1024
static long refine_step(const tool_adaptive *ad, const fupermod_points *all, const fupermod_dist *c, double T,
                        double *xmin) {
  long g = ad->grid[0], step = 0;
  int size = c->size;
  *xmin = INFINITY;
  if (!ad->refine || !(T > 0) || g < 2 || ad->grid[ad->ngrid - 1] != ad->D) return 0;
  for (int k = 0; k < ad->ngrid; k++)
    if (ad->grid[k] != g * (k + 1)) return 0;
  for (int i = 0; i < size; i++) {
    const fupermod_point *p = NULL;
    double x;
    for (int j = 0; j < all[i].count && !p; j++)
      if (!fupermod_point_abandoned(&all[i].pts[j]) && all[i].pts[j].t > 0) p = &all[i].pts[j];
    /* only where the grid decides: the process idle, or at its smallest size */
    if (c->parts[i].d > g || !p || !((x = (double)p->d / p->t * T) < REFINE_BELOW * (double)g)) continue;
    if (x < *xmin) *xmin = x;
    for (long r = 2; r <= g; r++) {
      if (g % r) continue;
      if ((double)ad->D / (double)(g / r) > REFINE_MAX) break;
      if (step == 0 || g / r < step) step = g / r;
      if ((double)(g / r) * REFINE_STEPS <= x) break;
    }
  }
  return step;
}

/* Measure this process's sizes (n may differ between processes): the node's processes in step,
 * over the node's communicator as the fixed grid does. A process without a size at a step runs
 * the smallest grid size, kept only if it lacks it, so that the others are measured under the
 * node's load (and the benchmark keeps it busy until they finish). */
static int measure(tool_adaptive *ad, tool_proc *tp, fupermod_kernel *k, const fupermod_precision *prec,
                   const char *path, fupermod_points *have, const long *sizes, int n) {
  int steps = 0, rc = FUPERMOD_SUCCESS;
  MPI_Allreduce(&n, &steps, 1, MPI_INT, MPI_MAX, tp->intra);
  for (int j = 0; j < steps; j++) {
    fupermod_point pt = FUPERMOD_POINT_INIT;
    long d = j < n ? sizes[j] : ad->grid[0];
    double t0 = fupermod_time();
    if (ad->watch_d) __atomic_store_n(ad->watch_d, d, __ATOMIC_RELEASE);
    rc = fupermod_benchmark_meter(k, tp->meter, tp->static_power, d, prec, tp->intra, &pt);
    ad->spent += fupermod_time() - t0;
    if (rc == FUPERMOD_SUCCESS && fupermod_points_find(have, d) < 0) {
      if (pt.reps == 0) pt.reps = 1;
      if (!tp->meter && !ad->kernel_energy) pt.e = pt.e_ci = -1.0;
      if ((rc = fupermod_points_append(path, &pt)) == FUPERMOD_SUCCESS) rc = fupermod_points_insert(have, &pt);
    }
    /* in step within the node only (other nodes may have more or fewer sizes); the failing
     * process's message comes from the agreement over all processes below */
    {
      int bad = rc != FUPERMOD_SUCCESS, any = 0;
      MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, tp->intra);
      if (any) break;
    }
  }
  return tool_agree(ad->sub, rc, MPI_COMM_WORLD);
}

/* Send every process its sizes: req[i * ngrid + k] marks grid size k for process i; processes that
 * time-share cores (same leader) get the union, so that they are measured together as one. */
static int scatter_sizes(const tool_adaptive *ad, const char *req, const int *leader, int size, long **mine, int *n) {
  int rank, *counts = NULL, *displs = NULL, total = 0;
  long *flat = NULL;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    counts = calloc((size_t)size, sizeof *counts);
    displs = calloc((size_t)size, sizeof *displs);
    flat = malloc((size_t)size * (size_t)ad->ngrid * sizeof *flat + 1);
    if (!counts || !displs || !flat) {
      free(counts);
      free(displs);
      free(flat);
      return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
    }
    for (int i = 0; i < size; i++) {
      displs[i] = total;
      for (int k = 0; k < ad->ngrid; k++) {
        int want = 0;
        for (int j = 0; j < size && !want; j++)
          if (leader[j] == leader[i] && req[(size_t)j * ad->ngrid + k]) want = 1;
        if (want) flat[total + counts[i]++] = ad->grid[k];
      }
      total += counts[i];
    }
  }
  MPI_Scatter(counts, 1, MPI_INT, n, 1, MPI_INT, 0, MPI_COMM_WORLD);
  *mine = malloc((size_t)(*n ? *n : 1) * sizeof **mine);
  MPI_Scatterv(flat, counts, displs, MPI_LONG, *mine, *n, MPI_LONG, 0, MPI_COMM_WORLD);
  free(counts);
  free(displs);
  free(flat);
  return FUPERMOD_SUCCESS;
}

/* Fraction of the units that moved between two candidates (0 when both are absent). */
static double moved(const fupermod_dist *a, const fupermod_dist *b) {
  double s = 0;
  if (!a && !b) return 0;
  if (!a || !b) return 1;
  for (int i = 0; i < a->size; i++) s += labs(a->parts[i].d - b->parts[i].d);
  return a->D > 0 ? s / (2.0 * (double)a->D) : 0;
}

/* Rank 0's functions as the caller partitions them: measured points, smoothed when asked. */
static int prepare(const tool_adaptive *ad, const fupermod_points *all, int size, fupermod_points *F) {
  int rc = FUPERMOD_SUCCESS;
  for (int i = 0; i < size && rc == FUPERMOD_SUCCESS; i++) {
    fupermod_points u, s;
    if ((rc = usable(&all[i], &u)) != FUPERMOD_SUCCESS) break;
    if (ad->smooth > 0 && u.count >= 3) {
      rc = fupermod_points_smooth(&u, ad->smooth, ad->cl, &s, NULL, NULL);
      fupermod_points_free(&u);
      if (rc != FUPERMOD_SUCCESS) break;
      u = s;
    }
    rc = grid_function(ad, &u, &F[i]);
    fupermod_points_free(&u);
  }
  return rc;
}

/* One adaptive build: what its rounds share. */
typedef struct {
  tool_adaptive *ad;
  tool_proc *tp;
  fupermod_kernel *k;
  const fupermod_precision *prec;
  const char *path;
  fupermod_points *have;
  int rank, size;
  int *leader, *line;         /* per process: the lowest rank of those sharing its cores; its configuration line */
  fupermod_dist *prev[NCAND]; /* the last round's candidates */
  long *fine;                 /* the refined grid (ad->grid once refined) */
  int refined;
  int reused;                 /* the most sizes a process had measured before this run */
} adaptive_job;

/* One round after the first. */
typedef struct {
  fupermod_points *all, *F;   /* rank 0: every process's points; the functions partitioned */
  fupermod_dist *cand[NCAND]; /* rank 0: the candidates (candidates) */
  char *req;                  /* rank 0: req[i * ngrid + k], measure grid size k on process i */
  long step;                  /* > 0: the grid's new step; the round then measures nothing */
  double xmin;                /* with step: the units the slow process could do within the makespan */
} adaptive_round;

/* Collective: every process's leader and configuration line; a group sharing cores starts from
 * the same points. */
static int setup_job(adaptive_job *j, MPI_Comm *share) {
  const char *sub = j->ad->sub;
  int rc = FUPERMOD_SUCCESS, mine_leader = j->rank;
  j->leader = malloc((size_t)j->size * sizeof *j->leader);
  j->line = malloc((size_t)j->size * sizeof *j->line);
  if (!j->leader || !j->line) rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  if ((rc = tool_agree(sub, rc, MPI_COMM_WORLD)) != FUPERMOD_SUCCESS) return rc;
  rc = tool_agree(sub, fupermod_share_comm(MPI_COMM_WORLD, share), MPI_COMM_WORLD);
  if (rc == FUPERMOD_SUCCESS) rc = tool_agree(sub, tool_share_sync(*share, j->have, j->path), MPI_COMM_WORLD);
  if (rc != FUPERMOD_SUCCESS) return rc;
  if (*share != MPI_COMM_NULL) MPI_Allreduce(&j->rank, &mine_leader, 1, MPI_INT, MPI_MIN, *share);
  MPI_Allgather(&mine_leader, 1, MPI_INT, j->leader, 1, MPI_INT, MPI_COMM_WORLD);
  MPI_Allgather(&j->tp->index, 1, MPI_INT, j->line, 1, MPI_INT, MPI_COMM_WORLD);
  return FUPERMOD_SUCCESS;
}

/* The grid index of the j-th of the first round's ad->init log-spaced sizes. */
static int first_index(const tool_adaptive *ad, int j) {
  int idx = (int)lround(exp(log((double)ad->ngrid) * j / (ad->init - 1))) - 1;
  return idx < 0 ? 0 : idx >= ad->ngrid ? ad->ngrid - 1 : idx;
}

/* Collective. The first round: the same log-spaced sizes everywhere, those this process lacks. */
static int first_round(adaptive_job *j) {
  tool_adaptive *ad = j->ad;
  long *first = malloc((size_t)ad->init * sizeof *first);
  int m = 0, rc = FUPERMOD_SUCCESS;
  if (!first) rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  for (int i = 0; first && i < ad->init; i++) {
    long d = ad->grid[first_index(ad, i)];
    if ((m == 0 || first[m - 1] != d) && fupermod_points_find(j->have, d) < 0) first[m++] = d;
  }
  /* the node measures in step: a size any of them lacks is measured by all */
  if ((rc = tool_agree(ad->sub, rc, MPI_COMM_WORLD)) == FUPERMOD_SUCCESS) {
    char *need = calloc((size_t)ad->ngrid, 1);
    int nn = 0;
    for (int i = 0; need && i < m; i++) need[grid_index(ad, first[i])] = 1;
    if (need) MPI_Allreduce(MPI_IN_PLACE, need, ad->ngrid, MPI_CHAR, MPI_MAX, j->tp->intra);
    for (int i = 0; i < ad->init && need; i++) {
      int idx = first_index(ad, i);
      if (need[idx] && (nn == 0 || first[nn - 1] != ad->grid[idx])) first[nn++] = ad->grid[idx];
    }
    free(need);
    rc = measure(ad, j->tp, j->k, j->prec, j->path, j->have, first, nn);
  }
  free(first);
  return rc;
}

/* Rank 0: what the round measures next (r->req), whether the grid is refined (r->step), and
 * whether the build stops (*stop, ad->converged). */
static int plan_round(adaptive_job *j, adaptive_round *r, int round, int *stop) {
  tool_adaptive *ad = j->ad;
  double change = 0, v = 0, hw = 0, T = 0;
  int nreq = 0, ngap = 0, unmeasured = 0, main = 0, most = 0, size = j->size, rc = FUPERMOD_SUCCESS;
  if (!(r->req = calloc((size_t)size * (size_t)ad->ngrid, 1))) rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  while (main + 1 < NCAND && !r->cand[main]) main++;
  for (int c = 0; c < NCAND; c++) {
    double m = moved(r->cand[c], j->prev[c]);
    if (m > change) change = m;
  }
  if (r->cand[main]) predicted(r->cand[main], r->F, ad, main == 1, &v, &hw, &T);
  if (!j->refined && r->cand[0]) {
    double v0, hw0, T0 = T; /* the time distribution's makespan */
    if (main != 0) predicted(r->cand[0], r->F, ad, 0, &v0, &hw0, &T0);
    r->step = refine_step(ad, r->all, r->cand[0], T0, &r->xmin);
  }
  for (int i = 0; r->req && i < size; i++) {
    if (r->all[i].count > most) most = r->all[i].count;
    for (int c = 0; c < NCAND; c++)
      if (r->cand[c] && r->cand[c]->parts[i].d > 0 && fupermod_points_find(&r->all[i], r->cand[c]->parts[i].d) < 0)
        unmeasured = 1;
  }
  /* the neighbours only once the distribution holds: those of passing shares are wasted */
  for (int c = 0; r->req && c < NCAND; c++)
    for (int i = 0; r->cand[c] && i < size; i++)
      nreq += share_requests(ad, r->cand[c], r->all, i, round > 1 && change == 0, r->req + (size_t)i * ad->ngrid);
  for (int i = 0; r->req && r->cand[0] && i < size; i++)
    ngap += gap_request(ad, r->cand[0], r->all, r->F, i, T, r->req + (size_t)i * ad->ngrid);
  /* stable, its shares measured, no wide gap left, and either tight or nothing next to the
   * shares left to measure (a wider interval is the measurements' own: more sizes leave it) */
  /* a refining round neither stops nor measures: the next one partitions on the finer grid */
  if (r->step == 0 && round > 1 && change == 0 && !unmeasured && ngap == 0 && (nreq == 0 || hw <= ad->tol * fabs(v)))
    *stop = ad->converged = 1;
  else if (r->step == 0 && round > ad->max_rounds) *stop = 1;
  if (!ad->quiet) {
    char moved[64], old[64] = "";
    if (round > 1) snprintf(moved, sizeof moved, "distribution changed by %.1f %%", 100 * change);
    else snprintf(moved, sizeof moved, "first distribution");
    if (j->reused > 0) snprintf(old, sizeof old, " (%d reused from the models on disk)", j->reused < most ? j->reused : most);
    fprintf(stderr, "fupermod %s: %s: adaptive round %d: %d sizes measured%s, %s, predicted %s = %.4g %s ± %.1f %%%s\n",
            ad->sub, j->k->ops->name, round, most, old, moved, main == 1 ? "E" : "T", v, main == 1 ? "J" : "s",
            v != 0 ? 100 * hw / fabs(v) : 0.0, *stop ? (ad->converged ? ": done" : ": round cap reached") : "");
  }
  if (!ad->quiet && r->step > 0)
    fprintf(stderr, "fupermod %s: %s: adaptive round %d: a process could do %.1f units within the makespan, under %d grid "
            "steps of %ld: grid refined to steps of %ld (%ld sizes)\n", ad->sub, j->k->ops->name, round, r->xmin, REFINE_BELOW,
            ad->grid[0], r->step, ad->D / r->step);
  ad->rounds = round;
  return rc;
}

/* Every rank on the finer grid of step (the smallest size is the one idle processes run). */
static int refine_grid(adaptive_job *j, long step) {
  tool_adaptive *ad = j->ad;
  long *g2 = malloc((size_t)(ad->D / step) * sizeof *g2);
  int rc = FUPERMOD_SUCCESS;
  if (!g2) rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  for (long k = 0; g2 && k < ad->D / step; k++) g2[k] = step * (k + 1);
  if (g2) {
    free(j->fine);
    ad->grid = j->fine = g2;
    ad->ngrid = (int)(ad->D / step);
  }
  j->refined = 1;
  return rc;
}

/* Collective. A round after the first: partition, then measure what rank 0 asks for. */
static int run_round(adaptive_job *j, int round, int *stop) {
  tool_adaptive *ad = j->ad;
  adaptive_round r;
  long *sizes = NULL;
  int rc, n = 0;
  memset(&r, 0, sizeof r);
  if ((rc = gather_all(j->have, &r.all, j->size)) == FUPERMOD_SUCCESS && j->rank == 0) {
    if (!(r.F = calloc((size_t)j->size, sizeof *r.F))) rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
    else rc = prepare(ad, r.all, j->size, r.F);
  }
  if ((rc = tool_agree(ad->sub, rc, MPI_COMM_WORLD)) == FUPERMOD_SUCCESS)
    rc = candidates(ad, j->tp, r.F, j->size, j->line, r.cand);
  if (rc == FUPERMOD_SUCCESS && j->rank == 0) rc = plan_round(j, &r, round, stop);
  MPI_Bcast(&r.step, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  if (r.step > 0 && !*stop) {
    int grc = refine_grid(j, r.step);
    if (grc != FUPERMOD_SUCCESS) rc = grc;
  }
  MPI_Bcast(stop, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Bcast(&ad->rounds, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Bcast(&ad->converged, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if ((rc = tool_agree(ad->sub, rc, MPI_COMM_WORLD)) == FUPERMOD_SUCCESS && !*stop && r.step == 0) {
    rc = scatter_sizes(ad, r.req, j->leader, j->size, &sizes, &n);
    if ((rc = tool_agree(ad->sub, rc, MPI_COMM_WORLD)) == FUPERMOD_SUCCESS)
      rc = measure(ad, j->tp, j->k, j->prec, j->path, j->have, sizes, n);
  }
  free(sizes);
  for (int c = 0; c < NCAND; c++) {
    fupermod_dist_free(j->prev[c]);
    j->prev[c] = r.cand[c];
  }
  if (r.F) free_all(r.F, j->size);
  free(r.req);
  if (*stop && rc == FUPERMOD_SUCCESS && j->rank == 0) ad->all = r.all;
  else free_all(r.all, j->size);
  return rc;
}

int tool_adaptive_build(tool_adaptive *ad, tool_proc *tp, fupermod_kernel *k, const fupermod_precision *prec,
                        const char *path, fupermod_points *have) {
  adaptive_job j = {.ad = ad, .tp = tp, .k = k, .prec = prec, .path = path, .have = have};
  const long *caller_grid = ad->grid;
  int caller_ngrid = ad->ngrid, rc, stop = 0;
  MPI_Comm share = MPI_COMM_NULL;
  MPI_Comm_rank(MPI_COMM_WORLD, &j.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &j.size);
  ad->rounds = ad->converged = 0;
  ad->spent = 0;
  ad->all = NULL;
  ad->size = j.size;
  if (ad->ngrid < 1 || ad->init < 2)
    return fupermod_error(FUPERMOD_ERR_USAGE, "adaptive build: needs a grid and at least 2 first sizes");
  j.reused = have ? have->count : 0;
  MPI_Allreduce(MPI_IN_PLACE, &j.reused, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if ((rc = setup_job(&j, &share)) == FUPERMOD_SUCCESS && (rc = first_round(&j)) == FUPERMOD_SUCCESS)
    for (int round = 1; !stop && rc == FUPERMOD_SUCCESS; round++) rc = run_round(&j, round, &stop);
  ad->grid = caller_grid;
  ad->ngrid = caller_ngrid;
  free(j.fine);
  for (int c = 0; c < NCAND; c++) fupermod_dist_free(j.prev[c]);
  if (share != MPI_COMM_NULL) MPI_Comm_free(&share);
  free(j.leader);
  free(j.line);
  return rc;
}

void tool_adaptive_free(tool_adaptive *ad) {
  free_all(ad->all, ad->size);
  ad->all = NULL;
}

void tool_adaptive_cost(const fupermod_points *f, const long *grid, int ngrid, double *spent, double *full) {
  fupermod_points reps = {0, NULL, 0};
  *spent = *full = 0;
  /* rejected repetitions ran too (at about the mean: an estimate) */
  for (int i = 0; i < f->count; i++) *spent += f->pts[i].t * (f->pts[i].reps + f->pts[i].rejected);
  if (f->count == 0) return;
  /* interpolate t x reps as one quantity: the repetitions a size needs follow its time */
  if (fupermod_points_copy(&reps, f) != FUPERMOD_SUCCESS) return;
  for (int i = 0; i < reps.count; i++) {
    reps.pts[i].t *= reps.pts[i].reps + reps.pts[i].rejected;
    reps.pts[i].ci = 0;
  }
  for (int k = 0; k < ngrid; k++) {
    double v, alt, rel;
    interp(&reps, (double)grid[k], 0, &v, &alt, &rel);
    *full += v;
  }
  fupermod_points_free(&reps);
}

void tool_adaptive_report(FILE *fp, const fupermod_points *all, int size, const long *grid, int ngrid) {
  double s = 0, fl = 0;
  fprintf(fp, "# model cost: sizes measured per process and their benchmark seconds (sum of time x repetitions),\n"
              "# against the full grid of %d sizes (estimated from the functions)\n# %6s %8s %12s %12s\n",
          ngrid, "rank", "sizes", "cost (s)", "full (s)");
  for (int i = 0; i < size; i++) {
    double a, b;
    tool_adaptive_cost(&all[i], grid, ngrid, &a, &b);
    s += a;
    fl += b;
    fprintf(fp, "  %6d %8d %12.4g %12.4g\n", i, all[i].count, a, b);
  }
  fprintf(fp, "# model cost: %.4g s of benchmark time, %.4g s estimated for the full grid (%.1f %%)\n", s, fl,
          fl > 0 ? 100 * s / fl : 0.0);
}
