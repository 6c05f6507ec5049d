/* Outlying repetitions in the benchmark, under mpirun -np 2 (one node): rank 0's emulated device
 * injects spikes (spikes=FRACTION:FACTOR), rank 1's is clean. The spikes are rejected from the
 * mean, the half-width, the energy and the stopping rule, and counted; --keep-outliers averages
 * them; both processes run every repetition together; the field reads and writes in point files. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <mpi.h>
#include "fupermod/fupermod.h"
#include "tests/tap.h"

#define T0 0.05 /* s per run of d=100, clean */
#define E0 0.25 /* J per run, clean */
/* a clean run may wake late on a loaded host: one-sided, well below what a spike adds */
#define LATE 0.006

static char path[256];

/* Benchmark d=100 on a fresh kernel (its spike pattern starts at run 0). */
static int bench(const char *spikes, int rank, const fupermod_precision *prec, MPI_Comm intra, fupermod_point *pt) {
  char sub[512];
  fupermod_kernel *k = NULL;
  int rc;
  snprintf(sub, sizeof sub, "points=%s,noise=0.04,seed=%d%s%s", path, 7 + rank, spikes ? ",spikes=" : "",
           spikes ? spikes : "");
  if ((rc = fupermod_kernel_load("emulated", sub, &k)) != FUPERMOD_SUCCESS) return rc;
  *pt = (fupermod_point)FUPERMOD_POINT_INIT;
  rc = fupermod_benchmark(k, 100, prec, intra, pt);
  fupermod_kernel_unload(k);
  return rc;
}

/* 1 on every rank when cond holds on every rank; a failing rank says why on stderr. */
static int all_ranks(int cond, int rank, const char *what, const fupermod_point *pt) {
  int all = 0;
  if (!cond)
    fprintf(stderr, "rank %d, %s: t=%.6g reps=%d rejected=%d ci=%.3g e=%.6g e_ci=%.3g\n", rank, what, pt->t, pt->reps,
            pt->rejected, pt->ci, pt->e, pt->e_ci);
  MPI_Allreduce(&cond, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return all;
}

/* Every process of the node ran the same repetitions: reps + rejected agree. */
static int same_runs(const fupermod_point *pt) {
  int mine = pt->reps + pt->rejected, lo = 0, hi = 0;
  MPI_Allreduce(&mine, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&mine, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return lo == hi;
}

static int near(double x, double want, double rel, double late) { return x >= want * (1 - rel) && x <= want * (1 + rel) + late; }

int main(int argc, char **argv) {
  int rank, size;
  MPI_Comm intra;
  fupermod_point pt;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  tap_quiet(rank != 0);
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &intra);
  snprintf(path, sizeof path, "/tmp/fupermod-outliers-%d-%d.points", (int)getppid(), rank);
  {
    FILE *fp = fopen(path, "w");
    if (!fp) MPI_Abort(MPI_COMM_WORLD, 1);
    fprintf(fp, "100 %g 1 0 %g 0\n", T0, E0);
    fclose(fp);
  }
  {
    /* 20 runs, every 5th a spike 4 times as long (and as costly) on rank 0: 4 rejected */
    fupermod_precision prec = {20, 20, 0.95, 0.5, 0.0, 0.0, 1, 0};
    int rc = bench(rank == 0 ? "0.2:4" : NULL, rank, &prec, intra, &pt), good;
    good = rc == 0 && (rank == 0 ? pt.rejected == 4 && pt.reps == 16 : pt.rejected == 0 && pt.reps == 20) &&
           near(pt.t, T0, 0.04, LATE) && near(pt.e, E0, 0.04, 0.0) && pt.ci < 0.1 * T0;
    ok(all_ranks(good, rank, "spikes", &pt),
       "spikes on rank 0: the 4 of 20 rejected, the time and energy are the clean ones'; none on clean rank 1");
    ok(same_runs(&pt), "both processes ran the same 20 repetitions");
  }
  {
    fupermod_precision prec = {20, 20, 0.95, 0.5, 0.0, 0.0, 1, 1};
    int rc = bench(rank == 0 ? "0.2:4" : NULL, rank, &prec, intra, &pt), good;
    /* the mean with the spikes: (16 x 1 + 4 x 4) / 20 = 1.6 clean runs */
    good = rc == 0 && pt.rejected == 0 && pt.reps == 20 &&
           (rank == 0 ? near(pt.t, 1.6 * T0, 0.08, LATE) && near(pt.e, 1.6 * E0, 0.08, 0.0)
                      : near(pt.t, T0, 0.04, LATE));
    ok(all_ranks(good, rank, "keep_outliers", &pt), "keep_outliers: every repetition averaged, spikes included");
  }
  {
    /* the stopping rule sees the kept runs: 6 clean ones are precise to 10 %; with the spike
     * averaged in, the half-width stays wide and the repetition limit (30) ends the point */
    fupermod_precision prec = {6, 30, 0.95, 0.1, 0.0, 0.0, 1, 0};
    int rc = bench(rank == 0 ? "0.2:4" : NULL, rank, &prec, intra, &pt), good;
    good = rc == 0 && (rank == 0 ? pt.reps == 6 && pt.rejected == 1 : pt.reps == 7 && pt.rejected == 0) &&
           !fupermod_point_imprecise(&pt);
    ok(all_ranks(good, rank, "stopping rule", &pt) && same_runs(&pt),
       "stopping rule on the kept repetitions: 7 runs, rank 0 keeps 6 (reps_min) and rejects 1");
    prec.keep_outliers = 1;
    rc = bench(rank == 0 ? "0.2:4" : NULL, rank, &prec, intra, &pt);
    good = rc == 0 && pt.reps == 30 && pt.rejected == 0;
    ok(all_ranks(good, rank, "stopping rule, kept", &pt), "with the spikes averaged the same point needs all 30 runs");
  }
  {
    /* spikes in the majority (12 of 20) are the sample: the 8 clean runs are the outliers */
    fupermod_precision prec = {20, 20, 0.95, 0.5, 0.0, 0.0, 1, 0};
    int rc = bench(rank == 0 ? "0.6:4" : NULL, rank, &prec, intra, &pt), good;
    good = rc == 0 && (rank == 0 ? pt.rejected == 8 && pt.reps == 12 && near(pt.t, 4 * T0, 0.04, LATE)
                                 : pt.rejected == 0 && pt.reps == 20);
    ok(all_ranks(good, rank, "majority", &pt), "a majority of slow runs is never rejected: the minority is (8 of 20)");
  }
  {
    fupermod_precision prec = FUPERMOD_PRECISION_DEFAULT;
    prec.keep_outliers = 2;
    ok(fupermod_precision_check(&prec) == FUPERMOD_ERR_USAGE && strstr(fupermod_error_message(), "keep_outliers"),
       "keep_outliers other than 0 or 1 is a usage error naming it");
  }
  if (rank == 0) {
    /* the point file field: written when > 0, read back; absent in old files: 0 */
    fupermod_point p = FUPERMOD_POINT_INIT;
    fupermod_points got = {0, NULL, 0};
    char line[512];
    const char *text = "100 0.05 16 0.001 rejected=4\n200 0.1 3 0.002\n";
    p.d = 100;
    p.t = 0.05;
    p.reps = 16;
    p.rejected = 4;
    ok(fupermod_point_format(&p, line, sizeof line) == 0 && strstr(line, " rejected=4"), "written: %s", line);
    p.rejected = 0;
    fupermod_point_format(&p, line, sizeof line);
    ok(!strstr(line, "rejected"), "nothing rejected: no field (%s)", line);
    ok(fupermod_points_parse(text, strlen(text), "t.points", &got) == 0 && got.count == 2 && got.pts[0].rejected == 4 &&
           got.pts[0].reps == 16 && got.pts[1].rejected == 0,
       "read back: rejected=4, and 0 on a line without it");
    fupermod_points_free(&got);
    text = "100 0.05 16 0.001\n200 0.1 3 0.002 rejected=-1\n";
    ok(fupermod_points_parse(text, strlen(text), "t.points", &got) == FUPERMOD_ERR_INPUT &&
           strstr(fupermod_error_message(), "t.points:2") && strstr(fupermod_error_message(), "rejected"),
       "rejected=-1 refused naming the file, line and field (%s)", fupermod_error_message());
  }
  {
    /* the kernel's sub-option is checked */
    fupermod_kernel *k = NULL;
    char sub[512];
    snprintf(sub, sizeof sub, "points=%s,spikes=0.2", path);
    ok(fupermod_kernel_load("emulated", sub, &k) == FUPERMOD_ERR_USAGE && strstr(fupermod_error_message(), "spikes"),
       "emulated: spikes without a factor refused, naming it");
    snprintf(sub, sizeof sub, "points=%s,spikes=1.5:4", path);
    ok(fupermod_kernel_load("emulated", sub, &k) == FUPERMOD_ERR_USAGE, "emulated: a fraction above 1 refused");
  }
  unlink(path);
  MPI_Comm_free(&intra);
  MPI_Finalize();
  return done_testing();
}
