/* Benchmark of the emulated kernel under mpirun: every process measures its own emulated
 * device, co-located processes synchronised; the measured times reproduce the emulated ones
 * within the confidence interval. */
#define _GNU_SOURCE /* sched_*affinity */
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <mpi.h>
#include "fupermod/fupermod.h"
#include "tests/tap.h"
#include "fupermod/mpi_thread.h"

/* wake-up latency of a sleeping emulated device on an oversubscribed host (4 processes on
 * 2 cores), allowed on top of the interval: the interval measures dispersion, not this bias.
 * A loaded host wakes sleepers later still: late() measures by how much, under the same
 * conditions. */
#define TIMER_SLACK 1e-3

/* A kernel that counts its runs and sleeps 4 ms (rank 0) or 20 ms (the others). */
typedef struct counting {
  int runs;
  long ns;
  long run_ns; /* the runs' own wall time, sleep and late wake-up included */
  long max_ns; /* the longest run */
} counting;
static int cnt_create(const char *s, void **ctx) { return FUPERMOD_SUCCESS; }
static double cnt_complexity(long d, void *ctx) { return (double)d; }
static int cnt_init(long d, void *ctx) { return FUPERMOD_SUCCESS; }
static int cnt_exec(void *ctx) {
  counting *c = ctx;
  struct timespec ts = {0, c->ns};
  double t0 = fupermod_time();
  __atomic_add_fetch(&c->runs, 1, __ATOMIC_RELAXED);
  nanosleep(&ts, NULL);
  long ns = (long)((fupermod_time() - t0) * 1e9), max = __atomic_load_n(&c->max_ns, __ATOMIC_RELAXED);
  __atomic_add_fetch(&c->run_ns, ns, __ATOMIC_RELAXED);
  while (ns > max && !__atomic_compare_exchange_n(&c->max_ns, &max, ns, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
  return FUPERMOD_SUCCESS;
}
static int cnt_fini(void *ctx) { return FUPERMOD_SUCCESS; }
static void cnt_destroy(void *ctx) {}
static const fupermod_kernel_ops cnt_ops = {FUPERMOD_KERNEL_API, "counting", "counts its runs", cnt_create,
                                            cnt_complexity, cnt_init, cnt_exec, cnt_fini, cnt_destroy, NULL, NULL, NULL, NULL};

/* How late a run sleeping `secs` wakes now, benchmarked as the emulated kernel is (same
 * synchronisation, same load): three times the mean lateness of the counting kernel's runs as it timed
 * them itself (about 0.1 ms on an idle host, several ms with other work on the cores). */
static double late(double secs, const fupermod_precision *prec, MPI_Comm intra) {
  counting c = {0, (long)(secs * 1e9), 0, 0};
  fupermod_kernel ck = {&cnt_ops, &c, NULL, NULL};
  fupermod_precision p = *prec;
  fupermod_point pt;
  double l;
  p.reps_max = p.reps_min;
  if (fupermod_benchmark(&ck, 1, &p, intra, &pt) != FUPERMOD_SUCCESS || c.runs == 0) return 0.0;
  l = 1e-9 * (double)c.run_ns / c.runs - secs;
  return l > 0 ? 3.0 * l : 0.0; /* the load varies between this and the measurement */
}

/* Bindings that overlap (fupermod_share_comm), last: a process keeps the binding its line gave
 * it (fupermod_bind_applied), which a later benchmark here would then see. */
static void overlap_groups(int rank, int size) {
  if (size >= 4 && sysconf(_SC_NPROCESSORS_ONLN) >= 2) {
    /* bindings that overlap without being equal: rank 1 on cores 0-1 beside rank 2 on core 1 and
     * rank 3 on core 0 time-share those two cores, three processes on two; rank 0, unbound, is
     * moved by the kernel and stays out */
    static const char *const binds[4] = {"none", "core:0-1", "core:1", "core:0"};
    cpu_set_t saved;
    MPI_Comm share = MPI_COMM_NULL;
    int good, all, gsize = 0, first = -1;
    sched_getaffinity(0, sizeof saved, &saved);
    good = fupermod_bind_apply(binds[rank]) == FUPERMOD_SUCCESS && fupermod_share_comm(MPI_COMM_WORLD, &share) == FUPERMOD_SUCCESS;
    if (share != MPI_COMM_NULL) {
      MPI_Comm_size(share, &gsize);
      MPI_Allreduce(&rank, &first, 1, MPI_INT, MPI_MIN, share);
      MPI_Comm_free(&share);
    }
    good = good && gsize == (rank == 0 ? 0 : 3) && (rank == 0 || first == 1);
    if (!good) fprintf(stderr, "rank %d (%s): a group of %d led by %d\n", rank, binds[rank], gsize, first);
    sched_setaffinity(0, sizeof saved, &saved);
    MPI_Allreduce(&good, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    ok(all, "share_comm groups the three processes whose bindings overlap on two cores (core:0-1, core:1, core:0), "
            "not the unbound one");
    /* three lines bound to both cores: on a two-core node their masks are the whole node's, and
     * they still time-share it */
    good = (rank == 0 || fupermod_bind_apply("core:0-1") == FUPERMOD_SUCCESS) &&
           fupermod_share_comm(MPI_COMM_WORLD, &share) == FUPERMOD_SUCCESS;
    gsize = 0;
    if (share != MPI_COMM_NULL) {
      MPI_Comm_size(share, &gsize);
      MPI_Comm_free(&share);
    }
    good = good && gsize == (rank == 0 ? 0 : 3);
    if (!good) fprintf(stderr, "rank %d (core:0-1): a group of %d\n", rank, gsize);
    sched_setaffinity(0, sizeof saved, &saved);
    MPI_Allreduce(&good, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    ok(all, "share_comm groups three processes bound by their lines to cores 0-1 (the whole of a two-core node), "
            "not the unbound one");
  } else {
    skip("the overlapping core-sharing group needs 4 processes and 2 CPUs");
  }
}

int main(int argc, char **argv) {
  int rank, size, fails = 0, allfails = 0, count = 0;
  char path[256], sub[512];
  fupermod_kernel *k = NULL;
  MPI_Comm intra;
  if (fupermod_mpi_init_thread(&argc, &argv, MPI_THREAD_FUNNELED, "mpi_benchmark", NULL) != FUPERMOD_SUCCESS) {
    printf("Bail out! %s\n", fupermod_error_message());
    MPI_Finalize();
    return 1;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  tap_quiet(rank != 0);
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &intra);
  /* device r: 2 ms per 100 units times (r+1), energy 5 W */
  snprintf(path, sizeof path, "/tmp/fupermod-mpibench-%d-%d.points", (int)getppid(), rank);
  {
    FILE *fp = fopen(path, "w");
    for (int d = 100; d <= 1000; d += 100) {
      double t = 0.006 * (rank + 1) * d / 100.0;
      fprintf(fp, "%d %.9g 1 0 %.9g 0\n", d, t, 5 * t);
    }
    fclose(fp);
  }
  snprintf(sub, sizeof sub, "points=%s,noise=0.05,seed=%d", path, 17 + rank);
  if (fupermod_kernel_load("emulated", sub, &k) != 0) {
    fprintf(stderr, "rank %d: %s\n", rank, fupermod_error_message());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  {
    fupermod_precision prec = {.reps_min = 5, .reps_max = 60, .cl = 0.95, .eps = 0.02, .time_max = 20.0};
    long sizes[] = {150, 400, 1000};
    for (int s = 0; s < 3; s++) {
      fupermod_point pt;
      double want = 0.006 * (rank + 1) * sizes[s] / 100.0, slack = TIMER_SLACK + late(want, &prec, intra);
      int rc = fupermod_benchmark(k, sizes[s], &prec, intra, &pt);
      /* lateness only lengthens a run: the slack is one-sided */
      int good = rc == 0 && pt.reps >= 5 && pt.t - want >= -pt.ci - TIMER_SLACK && pt.t - want <= pt.ci + slack &&
                 (pt.ci <= 0.02 * pt.t || pt.reps == 60) && pt.e - 5 * want >= -pt.e_ci - 5 * TIMER_SLACK &&
                 pt.e - 5 * want <= pt.e_ci + 5 * slack;
      if (!good) {
        fails++;
        fprintf(stderr, "rank %d d=%ld: rc=%d t=%g want %g ci=%g slack %g reps=%d e=%g e_ci=%g\n", rank, sizes[s], rc,
                pt.t, want, pt.ci, slack, pt.reps, pt.e, pt.e_ci);
      }
      count++;
    }
  }
  MPI_Allreduce(&fails, &allfails, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  ok(allfails == 0, "%d processes x 3 sizes: emulated time and energy within the confidence interval", size);
  {
    /* a run far slower than the minimum speed is abandoned, and the others keep going */
    fupermod_precision prec = {.reps_min = 3, .reps_max = 10, .cl = 0.95, .eps = 0.02, .speed_min = rank == 1 ? 1e6 : 0.0};
    fupermod_point pt;
    fupermod_precision lp = prec;
    double t0 = 0.006 * (rank + 1) * 10, slack;
    int rc, good, all;
    lp.speed_min = 0.0;
    slack = late(t0, &lp, intra);
    rc = fupermod_benchmark(k, 1000, &prec, intra, &pt);
    good = rc == 0 && fupermod_point_abandoned(&pt) == (rank == 1) && (rank == 1 ? pt.reps == 1 : pt.reps >= 3) &&
           pt.t - t0 > -0.2 * t0 && pt.t - t0 < 0.2 * t0 + slack;
    MPI_Allreduce(&good, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    ok(all, "a too-slow run is abandoned on its process only (flagged, the time of its one complete run)");
  }
  if (size >= 4 && sysconf(_SC_NPROCESSORS_ONLN) >= 2) {
    /* ranks 2 and 3 bound to the same core time-share it: a repetition lasts, for both, as long as
     * the core was busy with either; their emulated devices sleep, so that is rank 3's time;
     * unbound ranks 0 and 1 keep their own */
    cpu_set_t saved;
    fupermod_precision prec = {.reps_min = 5, .reps_max = 60, .cl = 0.95, .eps = 0.02, .time_max = 20.0};
    fupermod_point pt;
    int rc, good, all, bound = 1;
    double want = 0.006 * ((rank >= 2 ? 3 : rank) + 1) * 4, slack;
    sched_getaffinity(0, sizeof saved, &saved);
    if (rank >= 2) bound = fupermod_bind_apply("core:1") == FUPERMOD_SUCCESS;
    slack = TIMER_SLACK + late(want, &prec, intra);
    rc = fupermod_benchmark(k, 400, &prec, intra, &pt);
    good = bound && rc == 0 && pt.t - want >= -pt.ci - TIMER_SLACK && pt.t - want <= pt.ci + slack;
    if (!good)
      fprintf(stderr, "rank %d sharing: bound=%d rc=%d t=%g want %g ci=%g slack %g\n", rank, bound, rc, pt.t, want,
              pt.ci, slack);
    sched_setaffinity(0, sizeof saved, &saved);
    MPI_Allreduce(&good, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    ok(all, "two processes bound to one core measure their core's busy time (the union of their runs); unbound "
            "ones their own");
  } else {
    skip("the core-sharing group needs 4 processes and 2 CPUs");
  }
  if (size >= 4 && sysconf(_SC_NPROCESSORS_ONLN) >= 2) {
    /* the group and its busy time: ranks 2 and 3 on core 1 computed [0,1) [2,3) and [0.5,1.5),
     * so their core was busy 2.5 s; ranks 0 and 1 (unbound) only their own 2 s and 1 s */
    cpu_set_t saved;
    MPI_Comm share = MPI_COMM_NULL;
    fupermod_trace tr = FUPERMOD_TRACE_INIT;
    double busy = -1, want = rank >= 2 ? 2.5 : rank == 0 ? 2.0 : 1.0;
    int good, all, gsize = 0, bound = 1;
    sched_getaffinity(0, sizeof saved, &saved);
    if (rank >= 2) bound = fupermod_bind_apply("core:1") == FUPERMOD_SUCCESS;
    if (rank == 0 || rank == 2) {
      fupermod_trace_add(&tr, 0.0, 1.0);
      fupermod_trace_add(&tr, 2.0, 3.0);
    } else {
      fupermod_trace_add(&tr, 0.5, 1.5);
    }
    good = bound && fupermod_share_comm(MPI_COMM_WORLD, &share) == FUPERMOD_SUCCESS;
    if (share != MPI_COMM_NULL) MPI_Comm_size(share, &gsize);
    good = good && gsize == (rank >= 2 ? 2 : 0) && fupermod_share_busy(share, &tr, &busy) == FUPERMOD_SUCCESS &&
           busy == want;
    if (!good) fprintf(stderr, "rank %d share: bound=%d group of %d busy=%g want %g\n", rank, bound, gsize, busy, want);
    if (share != MPI_COMM_NULL) MPI_Comm_free(&share);
    fupermod_trace_free(&tr);
    sched_setaffinity(0, sizeof saved, &saved);
    MPI_Allreduce(&good, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    ok(all, "share_comm groups exactly the two processes bound to core 1; share_busy is their union");
  } else {
    skip("the core-sharing group needs 4 processes and 2 CPUs");
  }
  for (int idle = 0; idle <= 1; idle++) {
    /* Filling: the fast process keeps running the kernel, untimed, while the others finish, so it
     * runs more often than it is timed, and its timed mean is still its own 4 ms; idle_wait: every
     * process runs exactly the timed repetitions. "Its own": its runs as the kernel timed them,
     * which a loaded host makes longer than the 4 ms slept: with idle_wait the mean of all (all
     * are timed), when filling no more than the longest (a mean over waits would be 20 ms). */
    counting c = {0, rank == 0 ? 4000000L : 20000000L, 0, 0};
    fupermod_kernel ck = {&cnt_ops, &c, NULL, NULL};
    fupermod_precision prec = {.reps_min = 6, .reps_max = 6, .cl = 0.95, .eps = 0.5, .idle_wait = idle};
    fupermod_point pt;
    double want = rank == 0 ? 0.004 : 0.020, own;
    int rc = fupermod_benchmark(&ck, 1, &prec, intra, &pt), good, all, nsame;
    MPI_Comm_size(intra, &nsame);
    own = c.runs > 0 ? 1e-9 * (double)c.run_ns / c.runs : 0.0;
    good = rc == 0 && pt.reps + pt.rejected == 6 && own >= want && pt.t >= 0.8 * want &&
           (idle ? fabs(pt.t - own) <= 0.2 * want : pt.t <= 1e-9 * (double)c.max_ns);
    if (idle) good = good && c.runs == 6;
    else if (rank == 0 && nsame > 1) good = good && c.runs >= 12; /* ~4 fills per 16 ms wait */
    /* at most one overshoot per wait, two where a loaded host woke another process a run late */
    else good = good && c.runs >= 6 && c.runs <= 18;
    if (!good)
      fprintf(stderr, "rank %d idle_wait=%d: rc=%d reps=%d t=%g want %g, its runs %g (longest %g), runs=%d\n", rank,
              idle, rc, pt.reps, pt.t, want, own, 1e-9 * (double)c.max_ns, c.runs);
    MPI_Allreduce(&good, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    ok(all, idle ? "idle_wait: every process runs the kernel exactly as often as it is timed"
                 : "a process that finishes first keeps loading the machine (untimed runs) while the others finish; "
                   "its timed mean is unchanged");
  }
  {
    fupermod_precision bad = FUPERMOD_PRECISION_DEFAULT;
    bad.idle_wait = 2;
    ok(fupermod_precision_check(&bad) == FUPERMOD_ERR_USAGE && strstr(fupermod_error_message(), "idle_wait"),
       "idle_wait other than 0 or 1 is a usage error naming it");
  }
  {
    int rc = fupermod_benchmark(k, 0, &(fupermod_precision)FUPERMOD_PRECISION_DEFAULT, intra, NULL), all;
    int good = rc == FUPERMOD_ERR_USAGE;
    MPI_Allreduce(&good, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    ok(all, "bad arguments rejected without communication");
  }
  fupermod_kernel_unload(k);
  unlink(path);
  MPI_Comm_free(&intra);
  overlap_groups(rank, size);
  MPI_Finalize();
  return done_testing();
}
