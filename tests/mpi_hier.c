/* Hierarchical partitioning on emulated nodes: six processes on one machine grouped by group= into
 * nodes of 1, 2 and 3 devices. Grouping, INPA with nested IDPA over emulated device speeds
 * (converges within eps1 / eps2, tiles the matrix, beats the homogeneous split), agreed errors,
 * and HiPOPTA with PARALEPH between the nodes against the flat optimum. */
#include <math.h>
#include <string.h>
#include "tests/tap.h"
#include "tests/oracle_time.h"
#include "partitioners/hier.h"
#include "fupermod/mpi_thread.h"

static int rank, size;

/* Emulated device: speed (flop/s) of a bm x d slice, x = bm d elements, ramps up as
 * S x / (x + x0) and drops by `drop` above `cliff` elements (a memory limit). */
typedef struct {
  double S, x0, cliff, drop;
} dev_speed;

typedef struct {
  long b;
  dev_speed sp[6]; /* by rank */
  int fail_rank;   /* a rank whose measurement fails (-1: none) */
  int fail_after;  /* ... after this many measurements */
  int calls;
} emu;

static double emu_time(const dev_speed *s, long b, long bm, long d) {
  double x = (double)bm * (double)d, v = s->S * x / (x + s->x0);
  if (s->cliff > 0 && x > s->cliff) v *= s->drop;
  return 2.0 * (double)bm * (double)b * (double)d / v;
}

static int emu_measure(long bm, long d, MPI_Comm comm_sync, fupermod_point *pt, void *ctx) {
  emu *e = ctx;
  (void)comm_sync;
  if (rank == e->fail_rank && ++e->calls > e->fail_after)
    return fupermod_error(FUPERMOD_ERR_SYSTEM, "emulated device %d broke", rank);
  pt->d = d;
  pt->t = emu_time(&e->sp[rank], e->b, bm, d);
  pt->reps = 1;
  return FUPERMOD_SUCCESS;
}

static int all_ok(int mine) {
  int all;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return all;
}

static const char *CONF = "localhost 0 none gpu group=n0\n"
                          "localhost 1 none cpu group=n1\n"
                          "localhost 2 none cpu group=n1\n"
                          "localhost 3 none cpu group=n2\n"
                          "localhost 4 none cpu group=n2\n"
                          "localhost 5 none cpu group=n2\n";

static void grouping(fupermod_hier_comm *hc) {
  fupermod_conf conf;
  fupermod_hier_comm h2;
  int rc = fupermod_conf_parse(CONF, strlen(CONF), "emulated", &conf), good;
  if (rc == FUPERMOD_SUCCESS) rc = fupermod_hier_comm_create(&conf, MPI_COMM_WORLD, hc);
  fupermod_conf_free(&conf);
  good = rc == FUPERMOD_SUCCESS && hc->nodes == 3 && hc->node_size[0] == 1 && hc->node_size[1] == 2 &&
         hc->node_size[2] == 3 && hc->node == (rank == 0 ? 0 : rank < 3 ? 1 : 2) &&
         hc->node_rank == (rank == 0 ? 0 : rank < 3 ? rank - 1 : rank - 3) &&
         (hc->comm_leaders != MPI_COMM_NULL) == (rank == 0 || rank == 1 || rank == 3) && hc->node_first[3] == 6;
  ok(all_ok(good), "group=: 3 emulated nodes of 1, 2, 3 devices on one machine, leaders 0, 1, 3");

  /* interleaved groups: nodes numbered by their lowest rank, devices by rank */
  {
    char key[32];
    snprintf(key, sizeof key, "group:%c", "abcabc"[rank]);
    rc = fupermod_hier_comm_from_key(key, MPI_COMM_WORLD, &h2);
    good = rc == FUPERMOD_SUCCESS && h2.nodes == 3 && h2.node == rank % 3 && h2.node_rank == rank / 3 &&
           h2.node_of[4] == 1;
    if (rc == FUPERMOD_SUCCESS) {
      int lr = -1;
      if (h2.comm_leaders != MPI_COMM_NULL) MPI_Comm_rank(h2.comm_leaders, &lr);
      good = good && (rank < 3 ? lr == rank : lr == -1);
    }
    fupermod_hier_comm_free(&h2);
    ok(all_ok(good), "interleaved groups: node = first appearance, device order = rank order");
  }
  rc = fupermod_hier_comm_create(NULL, MPI_COMM_WORLD, &h2);
  good = rc == FUPERMOD_SUCCESS && h2.nodes == 1 && h2.node_size[0] == size;
  fupermod_hier_comm_free(&h2);
  ok(all_ok(good), "no configuration: one node per host (%d devices)", size);
}

/* Largest node time of the homogeneous baseline: equal areas, equal columns inside each node. */
static double homogeneous_time(const fupermod_hier_comm *hc, const emu *e, long N) {
  long M = N / e->b;
  double ones[8], worst = 0.0;
  fupermod_layout *l = NULL;
  for (int k = 0; k < hc->nodes; k++) ones[k] = 1.0;
  if (fupermod_layout_br(ones, hc->nodes, 0, (int)M, (int)M, &l) != FUPERMOD_SUCCESS) return NAN;
  for (int r = 0; r < size; r++) {
    int k = hc->node_of[r], p = hc->node_size[k], j = 0;
    long bm = (long)l->rects[k].height * e->b, bn = (long)l->rects[k].width * e->b, d;
    for (int s = 0; s < r; s++) j += hc->node_of[s] == k;
    d = bn / p + (j < bn % p ? 1 : 0);
    double t = emu_time(&e->sp[r], e->b, bm, d);
    if (t > worst) worst = t;
  }
  fupermod_layout_free(l);
  return worst;
}

static void inpa_case(const fupermod_hier_comm *hc, const char *name, emu *e, long N, double eps1, double eps2) {
  const fupermod_partitioner *gpa = fupermod_partitioner_find("geometric");
  fupermod_inpa_opts o = {N, e->b, eps1, eps2, 40, 40, gpa->continuous, gpa->continuous, "piecewise", "piecewise", "br"};
  fupermod_inpa_result res;
  int rc = fupermod_inpa(hc, &o, emu_measure, e, &res), good, tiles = 0, sums = 0, times = 0;
  double hom = homogeneous_time(hc, e, N), worst = 0.0, nimb = 0.0;
  long W = (N / e->b) * (N / e->b), areas = 0;
  if (rc != FUPERMOD_SUCCESS) {
    diag("%s: rank %d: %s", name, rank, fupermod_error_message());
    ok(all_ok(0), "%s: INPA ran", name);
    return;
  }
  good = res.converged && res.imbalance <= eps1 && res.node_imbalance <= eps2;
  MPI_Allreduce(&res.node_imbalance, &nimb, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  ok(all_ok(good), "%s: converged in %d node measurements: inter-node imbalance %.4f <= eps1 %.2f, worst "
     "inter-device %.4f <= eps2 %.2f",
     name, res.inpa_iterations, res.imbalance, eps1, nimb, eps2);
  /* the layout tiles the matrix, node areas are its rectangles, slices fill each rectangle */
  tiles = fupermod_layout_check(res.layout) == FUPERMOD_SUCCESS && res.layout->M == N / e->b;
  for (int k = 0; k < hc->nodes; k++) {
    areas += res.nodes->parts[k].d;
    tiles = tiles && res.nodes->parts[k].d == fupermod_layout_area(res.layout, k);
    if (res.nodes->parts[k].t > worst) worst = res.nodes->parts[k].t;
  }
  {
    long s = 0;
    const fupermod_rect *r = &res.layout->rects[hc->node];
    for (int i = 0; i < res.devices->size; i++) s += res.devices->parts[i].d;
    sums = s == res.bn && res.bm == (long)r->height * e->b && res.bn == (long)r->width * e->b;
  }
  ok(all_ok(tiles && areas == W && sums), "%s: node rectangles tile the %ld x %ld blocks, node areas sum to W = %ld, "
     "column slices sum to each node's width",
     name, N / e->b, N / e->b, W);
  /* measured times are the devices' own, and the node's time is its slowest device */
  {
    double mine = res.devices->parts[hc->node_rank].t, expect = 0.0, tmax = 0.0;
    long d = res.devices->parts[hc->node_rank].d;
    if (d > 0) expect = emu_time(&e->sp[rank], e->b, res.bm, d);
    for (int i = 0; i < res.devices->size; i++)
      if (res.devices->parts[i].t > tmax) tmax = res.devices->parts[i].t;
    times = mine == expect && tmax == res.nodes->parts[hc->node].t;
  }
  ok(all_ok(times), "%s: device times are the measured ones and each node's time is its slowest device's", name);
  ok(all_ok(worst < hom), "%s: INPA's parallel time %.4g s beats the homogeneous distribution's %.4g s (%.2fx)", name,
     worst, hom, hom / worst);
  fupermod_inpa_result_free(&res);
}

static void inpa_tests(const fupermod_hier_comm *hc) {
  emu e;
  memset(&e, 0, sizeof e);
  e.fail_rank = -1;
  e.b = 16;
  /* node 0: one GPU-like device (fast, slow to ramp up); node 1: 2 CPUs; node 2: 3 CPUs */
  e.sp[0] = (dev_speed){9e9, 4e5, 0, 1};
  e.sp[1] = (dev_speed){1e9, 2e3, 0, 1};
  e.sp[2] = (dev_speed){2e9, 2e3, 0, 1};
  e.sp[3] = (dev_speed){1e9, 2e3, 0, 1};
  e.sp[4] = (dev_speed){1.2e9, 2e3, 0, 1};
  e.sp[5] = (dev_speed){3e9, 5e3, 0, 1};
  inpa_case(hc, "smooth speeds, N=512 b=16", &e, 512, 0.05, 0.02);
  /* a device whose speed halves beyond its memory, as in Clarke's figure 2.3 */
  e.sp[5].cliff = 6e4;
  e.sp[5].drop = 0.5;
  e.b = 32;
  inpa_case(hc, "memory cliff on one CPU, N=2048 b=32", &e, 2048, 0.05, 0.03);
  e.sp[5].cliff = 0;
  e.b = 8;
  inpa_case(hc, "tight tolerances, N=1024 b=8", &e, 1024, 0.01, 0.01);
  /* 8 x 8 blocks cannot balance to 0.1 %: INPA must notice that it repeats itself and stop */
  {
    const fupermod_partitioner *gpa = fupermod_partitioner_find("geometric");
    fupermod_inpa_opts o = {256, 32, 0.001, 0.001, 40, 40, gpa->continuous, gpa->continuous, "piecewise", "piecewise", "br"};
    fupermod_inpa_result res;
    int rc, good;
    e.b = 32;
    rc = fupermod_inpa(hc, &o, emu_measure, &e, &res);
    good = rc == FUPERMOD_SUCCESS && !res.converged && res.stalled && res.inpa_iterations < 10 &&
           fupermod_layout_check(res.layout) == FUPERMOD_SUCCESS;
    ok(all_ok(good), "coarse 8 x 8 blocks, eps 0.1 %%: stops as stalled after %d node measurements, not converged, "
       "layout still exact (imbalance %.3f)",
       rc == FUPERMOD_SUCCESS ? res.inpa_iterations : -1, rc == FUPERMOD_SUCCESS ? res.imbalance : NAN);
    if (rc == FUPERMOD_SUCCESS) fupermod_inpa_result_free(&res);
  }

  /* errors are agreed: a broken device on one rank, and a block narrower than a node */
  {
    const fupermod_partitioner *gpa = fupermod_partitioner_find("geometric");
    fupermod_inpa_opts o = {256, 16, 0.05, 0.02, 20, 20, gpa->continuous, gpa->continuous, "piecewise", "piecewise", "br"};
    fupermod_inpa_result res;
    int rc, codes[2];
    e.b = 16;
    e.fail_rank = 4;
    e.fail_after = 3;
    e.calls = 0;
    rc = fupermod_inpa(hc, &o, emu_measure, &e, &res);
    codes[0] = rc;
    MPI_Allreduce(&rc, &codes[1], 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    ok(all_ok(rc == FUPERMOD_ERR_SYSTEM && codes[1] == FUPERMOD_ERR_SYSTEM),
       "a device failing on rank 4 mid-run: every rank returns its status, nobody hangs (rank 0: %s)",
       fupermod_error_message());
    e.fail_rank = -1;
    o.b = 2;
    o.N = 64;
    rc = fupermod_inpa(hc, &o, emu_measure, &e, &res);
    ok(all_ok(rc == FUPERMOD_ERR_USAGE), "b = 2 for a node of 3 devices: usage error on every rank (%s)",
       fupermod_error_message());
  }
}

/* HiPOPTA with PARALEPH (all six ranks) between replicated nodes, hpopta inside. */
static void hipopta_paraleph(void) {
  fupermod_hier_paraleph_ctx pctx;
  fupermod_hier_algo para, hp;
  const fupermod_partitioner *dp = fupermod_partitioner_find("dp");
  long bad = 0, feasible = 0;
  fupermod_hier_algo_paraleph(&pctx, MPI_COMM_WORLD, 1, &para);
  fupermod_hier_algo_named("hpopta", &hp);
  ot_state = 12345; /* the same instances on every rank */
  for (int it = 0; it < 40; it++) {
    int q = (int)ot_int(1, 5), c = (int)ot_int(1, 3), dev[5];
    fupermod_points fn[3];
    const fupermod_points *f[15];
    long smax = 0, D;
    for (int j = 0; j < c; j++) {
      ot_random_fn(&fn[j], ot_int(1, 10), 0.3, it % 2 ? 5 : 0, 0, 1);
      smax += fn[j].pts[fn[j].count - 1].d;
    }
    for (int k = 0; k < q; k++) {
      dev[k] = c;
      for (int j = 0; j < c; j++) f[k * c + j] = &fn[j];
    }
    D = ot_int(0, q * smax + 1);
    fupermod_hier_problem hpb = {D, q, dev, f, FUPERMOD_OBJ_TIME};
    fupermod_problem flat = {D, q * c, f, 0.0, 0, FUPERMOD_OBJ_TIME};
    fupermod_dist *fd = fupermod_dist_alloc(D, q * c);
    fupermod_hier_result res;
    int rf = dp->discrete(&flat, fd), rh = fupermod_hipopta(&hpb, &hp, &para, &res);
    if (rf == FUPERMOD_ERR_INFEASIBLE) bad += rh != FUPERMOD_ERR_INFEASIBLE;
    else if (rf != FUPERMOD_SUCCESS || rh != FUPERMOD_SUCCESS || res.time != fupermod_dist_time(fd) || !res.identical)
      bad++;
    else feasible++;
    if (rh == FUPERMOD_SUCCESS) fupermod_hier_result_free(&res);
    fupermod_dist_free(fd);
    for (int j = 0; j < c; j++) free(fn[j].pts);
  }
  ok(all_ok(bad == 0), "HiPOPTA, hpopta inside and PARALEPH on %d ranks between replicated nodes: time = flat dp (40 "
     "instances, %ld feasible, %ld bad)",
     size, feasible, bad);
}

int main(int argc, char **argv) {
  int provided, status;
  fupermod_hier_comm hc;
  if (fupermod_mpi_init_thread(&argc, &argv, MPI_THREAD_FUNNELED, "mpi_hier", &provided) != FUPERMOD_SUCCESS) {
    printf("Bail out! %s\n", fupermod_error_message());
    MPI_Finalize();
    return 1;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  tap_quiet(rank != 0);
  if (size != 6) {
    ok(0, "this test needs 6 processes, got %d", size);
  } else {
    grouping(&hc);
    if (hc.nodes == 3) inpa_tests(&hc);
    fupermod_hier_comm_free(&hc);
    hipopta_paraleph();
  }
  status = done_testing();
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return status;
}
