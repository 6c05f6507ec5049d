/* Outlying repetitions in the benchmark, under mpirun -np 2 (one node): rank 0's emulated device
 * injects spikes (spikes=PROB:FACTOR), rank 1's is clean. The spikes are rejected from the
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
#include "fupermod/mpi_thread.h"

#define T0 0.05 /* s per run of d=100, clean */
#define E0 0.25 /* J per run, clean */
/* a clean run may wake late on a loaded host: one-sided, well below what a spike adds */
#define LATE 0.006

#define NOISE 0.1
static char path[256];

/* The emulated kernel's runs, replayed: its generator (xorshift64*), per run a Box-Muller noise
 * factor, then with spikes a uniform draw for the spike (kernels/emulated.c). Returns how many of
 * n runs are spikes; *clean, *all: the mean factor of the clean runs and of all (spikes x 4). */
static int replay(int seed, double prob, int n, double *clean, double *all) {
  unsigned long long rng = 0x9E3779B97F4A7C15ULL ^ (unsigned long long)seed;
  double u[3], sc = 0.0, sa = 0.0;
  int spikes = 0;
  for (int i = 0; i < n; i++) {
    double f;
    int spike;
    for (int j = 0; j < (prob > 0 ? 3 : 2); j++) {
      rng ^= rng >> 12, rng ^= rng << 25, rng ^= rng >> 27;
      u[j] = ((rng * 2685821657736338717ULL) >> 11) * (1.0 / 9007199254740992.0);
    }
    f = 1.0 + NOISE * sqrt(-2.0 * log(u[0] < 1e-300 ? 1e-300 : u[0])) * cos(2.0 * M_PI * u[1]);
    if (f < 0.1) f = 0.1;
    spike = prob > 0 && u[2] < prob;
    spikes += spike;
    sc += spike ? 0.0 : f;
    sa += spike ? 4 * f : f;
  }
  *clean = sc / (n - spikes);
  *all = sa / n;
  return spikes;
}

/* Benchmark d=100 on a fresh kernel (its spike pattern starts at run 0). */
static int bench(const char *spikes, int rank, const fupermod_precision *prec, MPI_Comm intra, fupermod_point *pt) {
  char sub[512];
  fupermod_kernel *k = NULL;
  int rc;
  snprintf(sub, sizeof sub, "points=%s,noise=%g,seed=%d%s%s", path, NOISE, 7 + rank, spikes ? ",spikes=" : "",
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
  if (fupermod_mpi_init_thread(&argc, &argv, MPI_THREAD_FUNNELED, "mpi_outliers", NULL) != FUPERMOD_SUCCESS) {
    printf("Bail out! %s\n", fupermod_error_message());
    MPI_Finalize();
    return 1;
  }
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
    /* 20 runs; on rank 0 each a spike 4 times as long (and as costly) with probability 0.2. The
     * energies carry no timing error: with the kernel's runs replayed, the kept mean must be
     * exactly that of the clean runs, so exactly the spikes were rejected */
    fupermod_precision keep = {20, 20, 0.95, 0.5, 0.0, 0.0, 1, 1}, prec = keep;
    double clean, all;
    int spikes = replay(7 + rank, rank == 0 ? 0.2 : 0.0, 20, &clean, &all), rc, good;
    prec.keep_outliers = 0;
    rc = bench(rank == 0 ? "0.2:4" : NULL, rank, &prec, intra, &pt);
    good = rc == 0 && (rank == 0 ? spikes >= 2 : spikes == 0) && pt.rejected == spikes && pt.reps == 20 - spikes &&
           fabs(pt.e - E0 * clean) < 1e-9 * E0 && near(pt.t, T0 * clean, 0.03, LATE) && pt.ci < 0.1 * T0;
    ok(all_ranks(good, rank, "spikes", &pt),
       "the spikes rejected (rank 0: %d of 20), energy exactly the clean runs' mean, their time; none on clean rank 1",
       spikes);
    ok(same_runs(&pt), "both processes ran the same 20 repetitions");
    rc = bench(rank == 0 ? "0.2:4" : NULL, rank, &keep, intra, &pt);
    good = rc == 0 && pt.rejected == 0 && pt.reps == 20 && fabs(pt.e - E0 * all) < 1e-9 * E0 &&
           near(pt.t, T0 * all, 0.03, LATE);
    ok(all_ranks(good, rank, "keep_outliers", &pt), "keep_outliers: every repetition averaged, spikes included");
  }
  {
    /* the stopping rule sees the kept runs: 6 clean ones are precise to 10 %; with the spikes
     * averaged in, the half-width stays wide and the repetition limit (30) ends the point */
    fupermod_precision prec = {6, 30, 0.95, 0.1, 0.0, 0.0, 1, 0};
    int rc = bench(rank == 0 ? "0.2:4" : NULL, rank, &prec, intra, &pt), good;
    good = rc == 0 && pt.reps >= 6 && pt.reps + pt.rejected < 30 && (rank == 0 ? pt.rejected >= 1 : pt.rejected == 0) &&
           !fupermod_point_imprecise(&pt);
    ok(all_ranks(good, rank, "stopping rule", &pt) && same_runs(&pt),
       "stopping rule on the kept repetitions: rank 0 rejects its spikes and stops before the limit");
    prec.keep_outliers = 1;
    rc = bench(rank == 0 ? "0.2:4" : NULL, rank, &prec, intra, &pt);
    good = rc == 0 && pt.reps == 30 && pt.rejected == 0;
    ok(all_ranks(good, rank, "stopping rule, kept", &pt), "with the spikes averaged the same point needs all 30 runs");
  }
  {
    /* spikes in the majority (probability 0.8) are the sample: the clean runs are the outliers */
    fupermod_precision prec = {20, 20, 0.95, 0.5, 0.0, 0.0, 1, 0};
    double clean, all, slow;
    int spikes = replay(7 + rank, rank == 0 ? 0.8 : 0.0, 20, &clean, &all), rc, good;
    slow = spikes ? (20 * all - (20 - spikes) * clean) / spikes : 0.0; /* the spikes' mean, x 4 */
    rc = bench(rank == 0 ? "0.8:4" : NULL, rank, &prec, intra, &pt);
    /* (rank 1 only keeps rank 0 company here: idle through rank 0's long runs, a late wake-up of
     * its own would be a real outlier) */
    good = rc == 0 && (rank != 0 || (spikes > 10 && spikes < 20 && pt.rejected == 20 - spikes &&
                                     fabs(pt.e - E0 * slow) < 1e-9 * E0));
    ok(all_ranks(good, rank, "majority", &pt),
       "a majority of slow runs is never rejected: the clean minority is (rank 0: %d of 20)", 20 - spikes);
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
    ok(fupermod_kernel_load("emulated", sub, &k) == FUPERMOD_ERR_USAGE, "emulated: a probability above 1 refused");
  }
  unlink(path);
  MPI_Comm_free(&intra);
  MPI_Finalize();
  return done_testing();
}
