/* Hierarchical partitioning (docs/hierarchical.md): processes grouped into nodes, work split
 * between nodes, then between the devices of each node.
 *
 *  - Grouping: the configuration entries with the same group key form a node. The key is the
 *    sub-option group=NAME when present (emulated nodes on one machine), else the hostname.
 *  - HiPOPTA (Khaleghzadeh thesis 3.6.4): each node's function is its optimal intra-node
 *    objective for every workload; the outer algorithm splits D between the nodes, the inner one
 *    splits each node's share between its devices. Both algorithms are arguments.
 *  - INPA with nested IDPA (Clarke thesis 5.2): dynamic partitioning of a square matrix of b x b
 *    blocks between nodes (CMA rectangles, node points in blocks), and of each node's rectangle
 *    into column slices between its devices (element columns), with separate tolerances. */
#ifndef FUPERMOD_HIER_H
#define FUPERMOD_HIER_H

#include <mpi.h>
#include <fupermod/fupermod.h>
#include "partitioners.h"
#include "matrix.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* the public API; the libraries build with -fvisibility=hidden */

/* ---------------------------------------------------------------- grouping */

/* Group key of a configuration entry into buf: sub-option group=NAME, else the hostname.
 * FUPERMOD_ERR_INPUT for an empty group name or a key longer than size - 1. */
int fupermod_hier_key(const fupermod_process_conf *pc, char *buf, size_t size);

/* node[i] (i < conf->count) = node of entry i, nodes numbered by first appearance; *nodes = count. */
int fupermod_hier_groups(const fupermod_conf *conf, int *node, int *nodes);

/* A process's place in the hierarchy of comm. Nodes are numbered by their lowest rank in comm, so
 * node 0 holds rank 0; inside a node, devices are ordered by rank in comm. */
typedef struct fupermod_hier_comm {
  int nodes;            /* q */
  int node;             /* this process's node */
  int node_rank;        /* this process's device index in its node: its rank in comm_node */
  int *node_of;         /* node of every rank of comm */
  int *node_size;       /* devices of every node */
  int *node_first;      /* offset of node k's first device in node-major order (nodes + 1 entries) */
  MPI_Comm comm;        /* the communicator given (not owned) */
  MPI_Comm comm_node;   /* the processes of this node */
  MPI_Comm comm_leaders; /* device 0 of every node, ordered by node; MPI_COMM_NULL elsewhere */
} fupermod_hier_comm;

/* Collective over comm. Locates every process in conf (fupermod_conf_locate) and groups by key
 * ("localhost" without group= stands for the real processor name). conf may be NULL: one node
 * per host (MPI_COMM_TYPE_SHARED). Every rank returns the same status. */
int fupermod_hier_comm_create(const fupermod_conf *conf, MPI_Comm comm, fupermod_hier_comm *hc);
/* The same from an explicit key per process (every rank passes its own key). */
int fupermod_hier_comm_from_key(const char *key, MPI_Comm comm, fupermod_hier_comm *hc);
void fupermod_hier_comm_free(fupermod_hier_comm *hc);

/* ---------------------------------------------------------------- HiPOPTA */

/* A discrete single-objective algorithm passed to HiPOPTA (the partitioner is an argument, the
 * core never names one). solve fills out (size prob->p, D = prob->D) or returns a status;
 * FUPERMOD_ERR_INFEASIBLE when no distribution exists. solve_all (optional) gives, in one go, the
 * optimum for every workload w = 0..prob->D: val[w] (INFINITY when infeasible) and a witness
 * d[w * p + i]. */
typedef struct fupermod_hier_algo {
  const char *name;
  int homogeneous; /* 1: needs identical functions for all processors */
  int (*solve)(const fupermod_problem *prob, fupermod_dist *out, void *ctx);
  int (*solve_all)(const fupermod_problem *prob, double *val, long *d, void *ctx);
  void *ctx;
} fupermod_hier_algo;

/* A registered discrete partitioner ("dp", "hpopta", "popta", "paraleph", "balanced", "eopta",
 * "heopta") as an algorithm; "dp" also gets the one-table solve_all. */
int fupermod_hier_algo_named(const char *name, fupermod_hier_algo *out);

/* PARALEPH on a communicator (fupermod_paraleph): collective, so every rank of comm must make the
 * same fupermod_hipopta call with the same arguments. ctx is caller storage kept alive while
 * the algorithm is in use. */
typedef struct fupermod_hier_paraleph_ctx {
  MPI_Comm comm;
  int root;
  int threads;
} fupermod_hier_paraleph_ctx;
void fupermod_hier_algo_paraleph(fupermod_hier_paraleph_ctx *ctx, MPI_Comm comm, int threads,
                                 fupermod_hier_algo *out);

/* A two-level discrete problem: q nodes, node k has devices[k] devices whose functions are
 * f[first_k .. first_k + devices[k] - 1] (node-major order). Objective TIME or ENERGY. */
typedef struct fupermod_hier_problem {
  long D;
  int q;
  const int *devices;
  const fupermod_points *const *f;
  int objective;
} fupermod_hier_problem;

typedef struct fupermod_hier_result {
  fupermod_dist *nodes;   /* q parts: node shares and their predicted time / energy */
  fupermod_dist *devices; /* sum of devices parts, node-major: the device shares */
  int q;                  /* nodes */
  fupermod_points *node_f; /* q node functions: point (w, T(w), E(w)) for every feasible w; when
                              identical, only node_f[0] is built and the others are empty */
  int identical;          /* 1: every node had the same device functions */
  double time, energy;    /* objective values of the whole distribution (energy NAN without data) */
} fupermod_hier_result;

void fupermod_hier_result_free(fupermod_hier_result *res);

/* The node function: for every w = 1..wmax, the inner optimum of w over the p functions f;
 * infeasible w are left out. Point energies are the chosen distribution's (when every function
 * has energy). out is overwritten. */
int fupermod_hier_node_function(int p, const fupermod_points *const *f, long wmax, int objective,
                                const fupermod_hier_algo *inner, fupermod_points *out);

/* HiPOPTA. inner NULL: "hpopta" (time) or "heopta" (energy); outer NULL: "popta"/"eopta" when
 * all nodes are identical, else "hpopta"/"heopta". A homogeneous outer algorithm on different
 * nodes is FUPERMOD_ERR_USAGE. FUPERMOD_ERR_INFEASIBLE when no distribution exists. */
int fupermod_hipopta(const fupermod_hier_problem *prob, const fupermod_hier_algo *inner,
                     const fupermod_hier_algo *outer, fupermod_hier_result *res);

/* ---------------------------------------------------------------- HiSCALE */

/* Two-level exact time partitioning and Lagrangian energy partitioning for very large machines
 * (tens of thousands of nodes; docs/hierarchical.md "HiSCALE"). Device functions are not held in
 * memory: a callback produces the function of one device when it is needed (several times, from
 * several threads at once, always the same values). */
typedef struct fupermod_hscale_fn {
  int count; /* points, sizes ascending and >= 1 */
  long *x;   /* sizes */
  double *t; /* times > 0 */
  double *e; /* dynamic energies >= 0 (energy objective only) */
} fupermod_hscale_fn;

/* Fill fn (arrays of max_points entries) with the function of device `device` of node `node`. */
typedef int (*fupermod_hscale_device)(int node, int device, fupermod_hscale_fn *fn, void *ctx);

typedef struct fupermod_hscale_problem {
  long D;
  int q;                         /* nodes */
  const int *devices;            /* devices of every node */
  int max_points;                /* the most points of one device function */
  fupermod_hscale_device device; /* thread-safe */
  void *ctx;
  double budget;                 /* energy: only points with t <= budget (INFINITY: all) */
} fupermod_hscale_problem;

typedef struct fupermod_hscale_result {
  int q, total;
  long *node_share;  /* q node shares */
  long *share;       /* total device shares, node-major */
  double time;       /* max device time of the distribution */
  double energy;     /* sum of device energies (NAN for the time objective without energies) */
  double bound;      /* energy: Lagrangian lower bound on the optimum; time: the optimum */
  double stage_s[3]; /* seconds: node functions, between nodes, inside nodes */
  long exact_checks; /* reductions that needed the exact subset-sum check */
  int repair;        /* energy: how the units left inside a hull edge were placed: 0 none left, 1 one
                        or two moves, 2 the exact repair, 3 from the minimum-makespan distribution */
} fupermod_hscale_result;

void fupermod_hscale_result_free(fupermod_hscale_result *res);

/* Exact minimum makespan over the two-level structure (equal to the flat optimum). Nodes enter by
 * decreasing largest share under the optimum (lower index on ties) and the shortest prefix that
 * takes D is used; devices likewise inside each node. comm MPI_COMM_NULL: one
 * process; otherwise collective: every rank computes the node functions of its block of nodes,
 * they are gathered, and every rank gets the whole result and the same status.
 * FUPERMOD_ERR_INFEASIBLE when no distribution exists. */
int fupermod_hscale_time(MPI_Comm comm, const fupermod_hscale_problem *prob, fupermod_hscale_result *res);

/* Node function of node k for the time objective: T[w] for w = 0..wmax, the least makespan of w
 * units on the node's devices (INFINITY when no split exists). */
int fupermod_hscale_node_time(const fupermod_hscale_problem *prob, int k, long wmax, double *T);

/* Energy with the Lagrangian (convex-hull) relaxation, two levels: node hulls are the Minkowski
 * sums of their devices' lower convex hulls (points with t <= budget), the multiplier is found
 * between nodes, then each node splits its share. The distribution is feasible (measured sizes,
 * sum D); res->bound is a lower bound on the exact minimum energy, so
 * bound <= optimum <= res->energy. FUPERMOD_ERR_INFEASIBLE when no distribution exists within
 * the budget. Same comm semantics as fupermod_hscale_time. */
int fupermod_hscale_energy(MPI_Comm comm, const fupermod_hscale_problem *prob, fupermod_hscale_result *res);

/* A device callback over fupermod_points (ctx: fupermod_hscale_points_ctx). */
typedef struct fupermod_hscale_points_ctx {
  const fupermod_points *const *f; /* node-major device functions */
  const int *first;                /* first device of every node (q + 1 entries) */
} fupermod_hscale_points_ctx;
int fupermod_hscale_points(int node, int device, fupermod_hscale_fn *fn, void *ctx);

/* ---------------------------------------------------------------- INPA / IDPA */

/* Time of this process's device on a column slice of its node's rectangle: C'(bm x d) +=
 * A_(b)(bm x b) B_(b)(b x d), d in element columns. Fill pt (pt->d = d, pt->t > 0). comm_sync
 * holds the node's devices that measure at the same time (MPI_COMM_NULL: none). */
typedef int (*fupermod_hier_measure)(long bm, long d, MPI_Comm comm_sync, fupermod_point *pt, void *ctx);

typedef struct fupermod_inpa_opts {
  long N;                  /* matrix order in elements, a multiple of b */
  long b;                  /* block size (elements) */
  double eps1, eps2;       /* inter-node and inter-device tolerances on (t_max - t_min)/t_min */
  int max_inpa, max_idpa;  /* caps on measurements: node points, and device points per IDPA */
  fupermod_partition outer; /* partitioner of node models (blocks), e.g. "geometric" */
  fupermod_partition inner; /* partitioner of device models (element columns) */
  const char *outer_model, *inner_model; /* model types, e.g. "piecewise" */
  const char *layout;      /* CMA: "br" (default) or "kl" */
} fupermod_inpa_opts;

typedef struct fupermod_inpa_result {
  int converged;          /* the last node measurement within eps1 and every final IDPA within eps2 */
  int stalled;            /* stopped early: the next shares gave the rectangles just measured */
  int inpa_iterations;    /* node measurements, the bootstrap at one block included */
  int idpa_measurements;  /* device measurements of this node, all IDPAs together */
  double imbalance;       /* inter-node imbalance of the last node measurement */
  double node_imbalance;  /* this node's inter-device imbalance of its final IDPA */
  fupermod_layout *layout; /* node rectangles in blocks (q rectangles, M = N = N/b) */
  fupermod_dist *nodes;   /* q parts: blocks of each node (its rectangle's area), measured time */
  fupermod_dist *devices; /* this node's devices: element columns of the slices, measured time */
  long bm, bn;            /* this node's rectangle in elements */
} fupermod_inpa_result;

void fupermod_inpa_result_free(fupermod_inpa_result *res);

/* Collective over hc->comm. Device models are kept per slice height bm, so that a node reshaped
 * back to an earlier height resumes from its earlier points; the node models get one point per
 * INPA iteration at the area actually computed. Every rank returns the same status; the result
 * is filled on every rank (devices: this node's). */
int fupermod_inpa(const fupermod_hier_comm *hc, const fupermod_inpa_opts *opts, fupermod_hier_measure measure,
                  void *ctx, fupermod_inpa_result *res);

/* One IDPA on this node (collective over hc->comm_node): partition bn element columns of height
 * bm between the node's devices until (t_max - t_min)/t_min <= eps2 or max measurements. models
 * (hc's node size entries, may be partial or empty models of model_type) are updated in place.
 * Starts from the even split when the models are empty (after a bootstrap point at one column),
 * else from the partition of the models. *t_node = the largest device time measured last.
 * *converged = 0 when the cap is reached, or when the partitioner proposes the distribution just
 * measured (column granularity: measuring it again cannot change anything). */
int fupermod_idpa(const fupermod_hier_comm *hc, long bm, long bn, double eps2, int max_measurements,
                  fupermod_partition inner, fupermod_model **models, fupermod_hier_measure measure, void *ctx,
                  fupermod_dist *devices, double *t_node, int *converged, int *measurements);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
