/* DPA under mpirun -np 2 (spec T8): two devices with exactly the T7 speed functions, device A
 * {(10,100),(50,100),(100,20)} units/s and device B {(10,50),(100,50)}, piecewise-linear in speed,
 * D = 100, GPA on partial piecewise models, eps = 0.02: (50,50) -> (67,33) -> (62,38), stop after 3
 * measurements. First with exact times fed to fupermod_dynamic_step (the oracle trace), then with
 * emulated devices benchmarked by fupermod_partition_iterate (times scaled x3 so that wake-up
 * latency, a few ms, cannot move the 0.96% imbalance of (62,38) past eps). Then an idle process
 * (a share of 0) and errors that every process must see. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <mpi.h>
#include "fupermod/fupermod.h"
#include "partitioners/partitioners.h"
#include "tests/tap.h"
#include "fupermod/mpi_thread.h"

/* T7 true speed (units/s) of device dev at x units: piecewise linear, flat outside. */
static double speed(int dev, double x) {
  if (dev == 1) return 50.0;
  if (x <= 50) return 100.0;
  if (x >= 100) return 20.0;
  return 100.0 - 80.0 * (x - 50) / 50.0;
}

static int all_true(int v) {
  int r;
  MPI_Allreduce(&v, &r, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return r;
}

static int same(const long *trace, int n, const long (*want)[2], int m) {
  if (n != m) return 0;
  for (int i = 0; i < n; i++)
    if (trace[2 * i] != want[i][0] || trace[2 * i + 1] != want[i][1]) return 0;
  return 1;
}

static void show(const char *what, const long *trace, const double *imb, int n) {
  char buf[512] = "";
  for (int i = 0; i < n; i++)
    snprintf(buf + strlen(buf), sizeof buf - strlen(buf), " (%ld,%ld) %.4f", trace[2 * i], trace[2 * i + 1], imb[i]);
  diag("%s:%s", what, buf);
}

int main(int argc, char **argv) {
  static const long want[3][2] = {{50, 50}, {67, 33}, {62, 38}};
  int rank, size, rc, conv = 0, n = 0;
  long trace[40] = {0};
  double imb[20] = {0};
  const fupermod_partitioner *gpa;
  fupermod_dynamic dyn;
  char path[256], sub[512];
  if (fupermod_mpi_init_thread(&argc, &argv, MPI_THREAD_FUNNELED, "mpi_dpa", NULL) != FUPERMOD_SUCCESS) {
    printf("Bail out! %s\n", fupermod_error_message());
    MPI_Finalize();
    return 1;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  tap_quiet(rank != 0);
  if (size != 2) {
    if (rank == 0) fprintf(stderr, "run with 2 processes\n");
    MPI_Finalize();
    return 99;
  }
  gpa = fupermod_partitioner_find("geometric");
  if (!gpa || !gpa->continuous) {
    ok(0, "the geometric partitioner is registered");
    MPI_Finalize();
    return 1;
  }

  /* 1. the oracle trace: exact measurements */
  rc = fupermod_dynamic_init(&dyn, 2, "piecewise", 100, gpa->continuous);
  while (rc == 0 && !conv && n < 10) {
    fupermod_point pt = FUPERMOD_POINT_INIT;
    pt.d = dyn.dist->parts[rank].d;
    pt.t = (double)pt.d / speed(rank, (double)pt.d);
    rc = fupermod_dynamic_step(&dyn, MPI_COMM_WORLD, &pt, 0.02, &conv);
    trace[2 * n] = dyn.measured->parts[0].d;
    trace[2 * n + 1] = dyn.measured->parts[1].d;
    imb[n++] = dyn.imbalance;
  }
  show("exact", trace, imb, n);
  ok(rc == 0 && conv && same(trace, n, want, 3), "exact times: measured (50,50), (67,33), (62,38), then converged");
  ok(n == 3 && fabs(imb[0] - 1.0) < 1e-12 && fabs(imb[1] - 0.39443) < 1e-4 && fabs(imb[2] - 0.009649) < 1e-5,
     "imbalances 1, 0.394, 0.0096 as in the spec");
  ok(dyn.iterations == 3 && dyn.dist->parts[0].d == 62 && dyn.dist->parts[1].d == 38 &&
         fabs(dyn.dist->parts[0].t - 62 / 80.8) < 1e-12,
     "the converged distribution is (62,38) with its measured times");
  ok(dyn.models[0]->points.count == 3 && dyn.models[1]->points.count == 3,
     "every measurement added one point per device to its partial model");
  fupermod_dynamic_free(&dyn);

  /* 2. the same with emulated devices, benchmarked */
  snprintf(path, sizeof path, "/tmp/fupermod-dpa-%d-%d.points", (int)getppid(), rank);
  {
    FILE *fp = fopen(path, "w");
    /* every integer size, so that the emulated time is exact wherever DPA measures */
    for (int d = 1; d <= 100; d++) fprintf(fp, "%d %.12g\n", d, 3.0 * d / speed(rank, d));
    fclose(fp);
  }
  {
    fupermod_kernel *k = NULL;
    fupermod_precision prec = {1, 1, 0.95, 0.025, 60.0, 0.0, 0};
    MPI_Comm intra;
    snprintf(sub, sizeof sub, "points=%s", path);
    rc = fupermod_kernel_load("emulated", sub, &k);
    if (rc) fprintf(stderr, "rank %d: %s\n", rank, fupermod_error_message());
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &intra);
    if (rc == 0) rc = fupermod_dynamic_init(&dyn, 2, "piecewise", 100, gpa->continuous);
    conv = 0;
    n = 0;
    while (rc == 0 && !conv && n < 8) {
      rc = fupermod_partition_iterate(&dyn, MPI_COMM_WORLD, intra, &prec, k, 0.02, &conv);
      trace[2 * n] = dyn.measured->parts[0].d;
      trace[2 * n + 1] = dyn.measured->parts[1].d;
      imb[n++] = dyn.imbalance;
    }
    if (rc) fprintf(stderr, "rank %d: %s\n", rank, fupermod_error_message());
    show("emulated", trace, imb, n);
    {
      /* sleeping devices on a loaded 2-core host wake a little late: the exact trace is asserted
       * above with exact times; here each step may be one unit off and a 4th measurement allowed */
      int near = n >= 3 && n <= 4;
      for (int i = 0; near && i < 3; i++)
        near = labs(trace[2 * i] - want[i][0]) <= 1 && trace[2 * i] + trace[2 * i + 1] == 100;
      near = near && labs(dyn.dist->parts[0].d - 62) <= 1;
      ok(all_true(rc == 0 && conv && near),
         "emulated devices: partition_iterate follows (50,50), (67,33), (62,38) (one unit of slack) and stops");
    }
    ok(all_true(rc == 0 && fabs(dyn.dist->parts[rank].t - 3.0 * dyn.dist->parts[rank].d / speed(rank, dyn.dist->parts[rank].d)) <
                               0.05),
       "the measured times at (62,38) are the emulated ones (3 x d / s(d))");
    fupermod_dynamic_free(&dyn);

    /* the whole loop in one call, with an iteration cap too small to converge */
    rc = fupermod_dynamic_init(&dyn, 2, "piecewise", 100, gpa->continuous);
    if (rc == 0) rc = fupermod_partition_dynamic(&dyn, MPI_COMM_WORLD, intra, &prec, k, 0.02, 1, &conv);
    ok(all_true(rc == 0 && !conv && dyn.iterations == 1 && labs(dyn.dist->parts[0].d - 67) <= 1),
       "partition_dynamic stops at the iteration cap, not converged, with the next distribution (67,33) +- 1");
    fupermod_dynamic_free(&dyn);

    /* errors reach every process */
    rc = fupermod_dynamic_init(&dyn, 2, "piecewise", 100, gpa->continuous);
    rc = fupermod_partition_iterate(&dyn, MPI_COMM_WORLD, intra, &prec, k, rank ? -1.0 : 0.02, &conv);
    ok(all_true(rank ? rc == FUPERMOD_ERR_USAGE && strstr(fupermod_error_message(), "eps")
                     : rc == FUPERMOD_ERR_MPI && strstr(fupermod_error_message(), "process 1 failed")),
       "a bad eps on one process: that process names it, the other fails too (no hang)");
    ok(all_true(dyn.iterations == 0), "nothing was measured");
    fupermod_dynamic_free(&dyn);
    fupermod_kernel_unload(k);
    unlink(path);

    /* a device too slow to deserve any unit idles in the next measurement */
    {
      FILE *fp = fopen(path, "w");
      if (rank == 0) fprintf(fp, "1 0.0001\n2 0.0002\n");
      else fprintf(fp, "1 0.5\n2 1.0\n");
      fclose(fp);
    }
    k = NULL;
    rc = fupermod_kernel_load("emulated", sub, &k);
    if (rc == 0) rc = fupermod_dynamic_init(&dyn, 2, "piecewise", 2, gpa->continuous);
    conv = 0;
    n = 0;
    while (rc == 0 && !conv && n < 4) {
      rc = fupermod_partition_iterate(&dyn, MPI_COMM_WORLD, intra, &prec, k, 0.02, &conv);
      trace[2 * n] = dyn.measured->parts[0].d;
      trace[2 * n + 1] = dyn.measured->parts[1].d;
      imb[n++] = dyn.imbalance;
    }
    show("idle", trace, imb, n);
    {
      /* GPA's rounding of (2 - x, x) with x tiny hinges on the measured sub-millisecond time, so
       * the idle step may come one measurement later on a loaded host */
      int good = rc == 0 && conv && n >= 2 && n <= 3 && trace[0] == 1 && trace[1] == 1 && trace[2 * (n - 1)] == 2 &&
                 trace[2 * (n - 1) + 1] == 0 && dyn.dist->parts[1].t == 0.0;
      ok(all_true(good), "a process given 0 units idles (no benchmark, time 0) and the others converge: (1,1) -> (2,0)");
    }
    ok(all_true(rc == 0 && dyn.models[1]->points.count == 1), "the idle process's model keeps its earlier point");
    fupermod_dynamic_free(&dyn);
    fupermod_kernel_unload(k);
    unlink(path);
    MPI_Comm_free(&intra);
  }

  ok(fupermod_dynamic_init(&dyn, 3, "piecewise", 2, gpa->continuous) == FUPERMOD_ERR_USAGE &&
         strstr(fupermod_error_message(), "first point"),
     "D below the number of processes is refused: %s", fupermod_error_message());
  ok(fupermod_dynamic_init(&dyn, 2, "nosuchmodel", 100, gpa->continuous) == FUPERMOD_ERR_USAGE,
     "an unknown model type is refused: %s", fupermod_error_message());
  ok(fupermod_dynamic_init(&dyn, 2, "piecewise", 100, NULL) == FUPERMOD_ERR_USAGE, "no partitioner is refused");

  rc = done_testing();
  MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return rc;
}
