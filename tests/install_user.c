/* A user's program built against an installed fupermod (tests/install.sh): it includes every
 * installed header (headers.h, written by the test), links every installed library, and checks
 * PARALEPH, HiPOPTA and a partitioner of its own against brute force. Run it under mpirun. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "headers.h"

#define P 4
#define M 4 /* sizes per processor */
static fupermod_point pts[P][M];
static fupermod_points f[P];

/* Best max_i t_i over every assignment (idle or a measured size) summing to D. */
static double brute(int p, long D) {
  int choice[P] = {0};
  double best = INFINITY;
  for (;;) {
    long sum = 0;
    double t = 0;
    for (int i = 0; i < p; i++)
      if (choice[i]) {
        sum += pts[i][choice[i] - 1].d;
        t = fmax(t, pts[i][choice[i] - 1].t);
      }
    if (sum == D && t < best) best = t;
    int i = 0;
    while (i < p && ++choice[i] > M) choice[i++] = 0;
    if (i == p) return best;
  }
}

/* The user's own partitioner: everything to the first processor that measured D. */
static int mine(const fupermod_problem *prob, fupermod_dist *out) {
  for (int i = 0; i < prob->p; i++) out->parts[i].d = 0;
  for (int i = 0; i < prob->p; i++) {
    int k = fupermod_points_find(prob->f[i], prob->D);
    if (k >= 0) {
      out->parts[i].d = prob->D;
      return FUPERMOD_SUCCESS;
    }
  }
  return fupermod_error(FUPERMOD_ERR_INFEASIBLE, "mine: nobody measured D");
}

static int failures;
static void check(int cond, const char *what) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (!cond) failures++;
  if (rank == 0) printf("%s: %s\n", cond ? "pass" : "FAIL", what);
}

int main(int argc, char **argv) {
  const fupermod_points *fs[P];
  fupermod_dist *dist = NULL;
  int provided, rc;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  for (int i = 0; i < P; i++) {
    for (int k = 0; k < M; k++) {
      fupermod_point pt = FUPERMOD_POINT_INIT;
      pt.d = 2 * k + 1 + i % 2;
      pt.t = pt.d * (1.0 + 0.37 * i) + 0.1 * ((k * 7 + i * 3) % 5);
      pts[i][k] = pt;
    }
    f[i].count = M;
    f[i].pts = pts[i];
    f[i].has_energy = 0;
    fs[i] = &f[i];
  }

  {
    fupermod_problem prob = {12, P, fs, 0, 0, FUPERMOD_OBJ_TIME};
    rc = fupermod_paraleph(MPI_COMM_WORLD, 0, &prob, FUPERMOD_OBJ_TIME, 1, &dist, NULL);
    check(rc == FUPERMOD_SUCCESS && fabs(fupermod_dist_time(dist) - brute(P, 12)) < 1e-12,
          "PARALEPH finds the brute-force optimum");
    fupermod_dist_free(dist);
  }
  {
    int devices[2] = {2, 2};
    fupermod_hier_problem hp = {12, 2, devices, fs, FUPERMOD_OBJ_TIME};
    fupermod_hier_result res;
    memset(&res, 0, sizeof res);
    rc = fupermod_hipopta(&hp, NULL, NULL, &res);
    check(rc == FUPERMOD_SUCCESS && fabs(res.time - brute(P, 12)) < 1e-12, "HiPOPTA finds the brute-force optimum");
    fupermod_hier_result_free(&res);
  }
  {
    fupermod_partitioner alg;
    const fupermod_partitioner *a;
    fupermod_problem prob = {5, P, fs, 0, 0, FUPERMOD_OBJ_TIME};
    long d[P];
    double t = 0, e = 0;
    memset(&alg, 0, sizeof alg);
    alg.name = "mine";
    alg.kind = FUPERMOD_PART_DISCRETE;
    alg.discrete = mine;
    rc = fupermod_partitioner_register(&alg);
    a = fupermod_partitioner_find("mine");
    dist = fupermod_dist_alloc(5, P);
    rc = rc == FUPERMOD_SUCCESS && a ? fupermod_problem_check(&prob, a) : -1;
    rc = rc == FUPERMOD_SUCCESS ? a->discrete(&prob, dist) : rc;
    for (int i = 0; i < P; i++) d[i] = rc == FUPERMOD_SUCCESS ? dist->parts[i].d : -1;
    check(rc == FUPERMOD_SUCCESS && fupermod_problem_evaluate(&prob, d, &t, &e, NULL) == FUPERMOD_SUCCESS &&
              t == pts[0][2].t,
          "a partitioner registered here is found by name and runs");
    {
      long off[P + 1];
      check(fupermod_dist_offsets(dist, off) == FUPERMOD_SUCCESS && off[P] == 5,
            "libfupermod_apps: fupermod_dist_offsets");
    }
    fupermod_dist_free(dist);
  }
  {
    fupermod_ooc_plan plan;
    check(fupermod_ooc_plan_make(100, 100, 100, 3 * 100 * 100, &plan) == FUPERMOD_SUCCESS && plan.in_card == 1,
          "libfupermod_ooc: fupermod_ooc_plan_make");
  }
  MPI_Allreduce(MPI_IN_PLACE, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  return failures ? 1 : 0;
}
