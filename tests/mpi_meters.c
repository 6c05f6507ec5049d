/* A meter shared by co-located processes (one package counter of a recorded powercap tree) under
 * mpirun -np 2: busy attribution splits the group's energy by run time, solo attribution gives each
 * process exactly what it spent alone; conflicting attributions and a failing meter end every
 * process with an error (no hang); the static-power probe keeps every co-located process idle. */
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <mpi.h>
#include "fupermod/fupermod.h"
#include "fupermod/meter.h"
#include "tests/tap.h"
#include "fupermod/mpi_thread.h"

static char dir[256];

static void put(const char *rel, const char *text) {
  char path[512], tmp[520];
  FILE *fp;
  snprintf(path, sizeof path, "%s/%s", dir, rel);
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  fp = fopen(tmp, "w");
  if (!fp) {
    perror(tmp);
    MPI_Abort(MPI_COMM_WORLD, 99);
  }
  fputs(text, fp);
  fclose(fp);
  rename(tmp, path); /* readers see the old or the new value, never half of one */
}

static void nap(double s) {
  struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
  nanosleep(&ts, NULL);
}

/* Runs for `secs`, then spends `uj` microjoules of the shared package counter. */
typedef struct {
  double secs, uj;
} spender;

static int sp_create(const char *s, void **ctx) { return 0; }
static double sp_complexity(long d, void *ctx) { return (double)d; }
static int sp_initialize(long d, void *ctx) { return 0; }
static int sp_execute(void *ctx) {
  spender *sp = ctx;
  char lock[512], path[512], buf[64];
  int fd;
  double v = 0;
  FILE *fp;
  nap(sp->secs);
  snprintf(lock, sizeof lock, "%s/lock", dir);
  snprintf(path, sizeof path, "%s/pc/intel-rapl:0/energy_uj", dir);
  fd = open(lock, O_RDWR | O_CREAT, 0644);
  flock(fd, LOCK_EX);
  fp = fopen(path, "r");
  if (fp) {
    if (fscanf(fp, "%lf", &v) != 1) v = 0;
    fclose(fp);
  }
  snprintf(buf, sizeof buf, "%.0f\n", v + sp->uj);
  put("pc/intel-rapl:0/energy_uj", buf);
  flock(fd, LOCK_UN);
  close(fd);
  return 0;
}
static int sp_finalize(void *ctx) { return 0; }
static const fupermod_kernel_ops sp_ops = {FUPERMOD_KERNEL_API, "spender", "test", sp_create, sp_complexity,
                                           sp_initialize, sp_execute, sp_finalize, NULL, NULL, NULL, NULL, NULL};

static int all_true(int v) {
  int r;
  MPI_Allreduce(&v, &r, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return r;
}

int main(int argc, char **argv) {
  int rank, size, rc;
  spender sp;
  fupermod_kernel k = {&sp_ops, &sp, NULL, NULL};
  fupermod_meter *m = NULL;
  fupermod_point pt;
  /* every repetition averaged: a shared counter's shares add up to its energy repetition by
   * repetition, and so in the means only where both processes keep the same repetitions (an
   * outlier left out on one process alone, as a loaded host makes one, would skew the sum) */
  fupermod_precision prec = {3, 6, 0.95, 0.5, 20.0, 0.0, 0, 1};
  char sub[1024];
  double es[2];
  if (fupermod_mpi_init_thread(&argc, &argv, MPI_THREAD_FUNNELED, "mpi_meters", NULL) != FUPERMOD_SUCCESS) {
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
  if (rank == 0) {
    snprintf(dir, sizeof dir, "%s/fupermod-mpimeters.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(dir)) MPI_Abort(MPI_COMM_WORLD, 99);
    char p[512];
    snprintf(p, sizeof p, "%s/pc", dir);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/pc/intel-rapl:0", dir);
    mkdir(p, 0755);
    put("pc/intel-rapl:0/name", "package-0\n");
    put("pc/intel-rapl:0/energy_uj", "0\n");
    put("pc/intel-rapl:0/max_energy_range_uj", "262143328850\n");
  }
  MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
  /* rank 0: 0.05 s and 1 J per run; rank 1: 0.1 s and 5 J */
  sp.secs = rank ? 0.1 : 0.05;
  sp.uj = rank ? 5e6 : 1e6;

  snprintf(sub, sizeof sub, "rapl_root=%s/pc", dir);
  rc = fupermod_meter_create("rapl", sub, &m);
  if (rc) fprintf(stderr, "rank %d: %s\n", rank, fupermod_error_message());
  rc = fupermod_benchmark_meter(&k, m, 0.0, 10, &prec, MPI_COMM_WORLD, &pt);
  if (rc) fprintf(stderr, "rank %d: %s\n", rank, fupermod_error_message());
  MPI_Gather(&pt.e, 1, MPI_DOUBLE, es, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    ok(rc == 0 && fabs(es[0] + es[1] - 6.0) < 1e-6, "busy: the shares add up to the package's 6 J per run (%.6f + %.6f)",
       es[0], es[1]);
    ok(es[0] > 1.5 && es[0] < 2.5, "busy: split by run time, 0.05 s of 0.15 s -> about 2 J (%.4f J)", es[0]);
  }
  ok(all_true(rc == 0 && fabs(pt.t - sp.secs) < 0.05), "busy: times measured as usual");

  fupermod_meter_set_attribution(m, FUPERMOD_ATTRIB_SOLO);
  rc = fupermod_benchmark_meter(&k, m, 0.0, 10, &prec, MPI_COMM_WORLD, &pt);
  if (rc) fprintf(stderr, "rank %d: %s\n", rank, fupermod_error_message());
  MPI_Gather(&pt.e, 1, MPI_DOUBLE, es, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (rank == 0)
    ok(rc == 0 && fabs(es[0] - 1.0) < 1e-6 && fabs(es[1] - 5.0) < 1e-6,
       "solo: each process alone gets exactly its own energy (%.6f J, %.6f J)", es[0], es[1]);
  ok(all_true(rc == 0 && pt.reps >= 3 && fabs(pt.t - sp.secs) < 0.05), "solo: times still measured together");

  /* the two processes disagree on how to share the counter */
  fupermod_meter_set_attribution(m, rank ? FUPERMOD_ATTRIB_SOLO : FUPERMOD_ATTRIB_BUSY);
  rc = fupermod_benchmark_meter(&k, m, 0.0, 10, &prec, MPI_COMM_WORLD, &pt);
  ok(all_true(rc == FUPERMOD_ERR_USAGE && strstr(fupermod_error_message(), "attribute it differently")),
     "conflicting attributions: every process fails with the same usage error");
  fupermod_meter_free(m);
  m = NULL;

  /* rank 1's external meter breaks after creation; rank 0 estimates with a model meter */
  if (rank == 1) {
    put("wall", "5\n");
    snprintf(sub, sizeof sub, "meter_cmd=cat %s/wall", dir);
    rc = fupermod_meter_create("command", sub, &m);
    snprintf(sub, sizeof sub, "%s/wall", dir);
    unlink(sub);
  } else {
    rc = fupermod_meter_create("model", "meter_power=10", &m);
  }
  rc = rc ? rc : fupermod_benchmark_meter(&k, m, 0.0, 10, &prec, MPI_COMM_WORLD, &pt);
  {
    int good = rank ? rc == FUPERMOD_ERR_SYSTEM && strstr(fupermod_error_message(), "exit status")
                    : rc == FUPERMOD_ERR_MPI && strstr(fupermod_error_message(), "co-located process failed");
    if (!good) fprintf(stderr, "rank %d: rc %d: %s\n", rank, rc, fupermod_error_message());
    ok(all_true(good), "a meter failing on one process ends the benchmark everywhere, the cause on that process");
  }
  fupermod_meter_free(m);
  m = NULL;

  /* static-power probe: rank 1 measures while rank 0 (no meter) idles with it */
  {
    double w = -1, t0 = fupermod_time(), dt;
    if (rank == 1) {
      put("emu.points", "10 0.1 1 0 1 0\n");
      snprintf(sub, sizeof sub, "meter_points=%s/emu.points,meter_idle=4", dir);
      fupermod_meter_create("emulated", sub, &m);
    }
    rc = fupermod_meter_probe(m, rank ? 0.3 : 0.0, MPI_COMM_WORLD, &w);
    dt = fupermod_time() - t0;
    ok(all_true(rc == 0 && dt >= 0.29 && (rank ? fabs(w - 4) < 1e-2 : w == 0)),
       "probe: the co-located process idles for the whole probe, the meter finds 4 W");
    fupermod_meter_free(m);
  }

  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) diag("could not remove %s", dir);
  }
  rc = done_testing();
  MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return rc;
}
