/* Abandoning slow sizes (fupermod_precision.speed_min) and flagging imprecise points: the timed
 * region holds nothing but the kernel, with or without a minimum speed; a too-slow run completes
 * in the calling thread and marks its size abandoned; the processes of a node stay in step. */
#define _GNU_SOURCE
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <mpi.h>
#include "fupermod/fupermod.h"
#include "tests/tap.h"

/* A kernel that records how its runs went: sleep_ns per run (or a short spin when 0), a pattern
 * of per-run multipliers, entries and exits, and whether every run was in the main thread. */
typedef struct probe {
  long sleep_ns;
  int pattern[4], npattern;
  int entered, exited, foreign;
  pthread_t main;
} probe;

static volatile double sink;

static int pr_create(const char *s, void **ctx) { return FUPERMOD_SUCCESS; }
static double pr_complexity(long d, void *ctx) { return (double)d; }
static int pr_init(long d, void *ctx) { return FUPERMOD_SUCCESS; }
static int pr_exec(void *ctx) {
  probe *p = ctx;
  int k = __atomic_fetch_add(&p->entered, 1, __ATOMIC_RELAXED);
  if (!pthread_equal(pthread_self(), p->main)) __atomic_store_n(&p->foreign, 1, __ATOMIC_RELAXED);
  if (p->sleep_ns > 0) {
    long ns = p->sleep_ns * (p->npattern ? p->pattern[k % p->npattern] : 1);
    struct timespec ts = {ns / 1000000000L, ns % 1000000000L};
    nanosleep(&ts, NULL); /* a cancellation point */
  } else {
    double x = 0.0; /* a tiny kernel: about a microsecond of arithmetic */
    for (int i = 0; i < 400; i++) x += (double)i * 1e-9;
    sink = x;
  }
  __atomic_fetch_add(&p->exited, 1, __ATOMIC_RELAXED);
  return FUPERMOD_SUCCESS;
}
static int pr_fini(void *ctx) { return FUPERMOD_SUCCESS; }
static void pr_destroy(void *ctx) {}
static const fupermod_kernel_ops pr_ops = {FUPERMOD_KERNEL_API, "probe", "records its runs", pr_create,
                                           pr_complexity, pr_init, pr_exec, pr_fini, pr_destroy, NULL, NULL, NULL, NULL};

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static int all_true(int x) {
  int all = 0;
  MPI_Allreduce(&x, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return all;
}

#define PAIRS 41

int main(int argc, char **argv) {
  int rank, size;
  if (fupermod_mpi_init_thread(&argc, &argv, MPI_THREAD_FUNNELED, "mpi_abandon", NULL) != FUPERMOD_SUCCESS) {
    fprintf(stderr, "%s\n", fupermod_error_message());
    return 1;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  tap_quiet(rank != 0);
  {
    /* Same-run reference: the tiny kernel alternately without and with a minimum speed that it
     * always exceeds. The medians must agree within noise; a distortion of 4x fails. Rank 0
     * measures, the others wait without spinning. */
    double off[PAIRS], on[PAIRS], ratio = 0.0;
    int good = 1;
    if (rank == 0) {
      probe p = {0, {1}, 0, 0, 0, 0, pthread_self()};
      fupermod_kernel k = {&pr_ops, &p, NULL, NULL};
      for (int i = 0; i < PAIRS && good; i++) {
        fupermod_precision prec = {5, 5, 0.95, 0.025, 0.0, 0.0, 0};
        fupermod_point a = FUPERMOD_POINT_INIT, b = FUPERMOD_POINT_INIT;
        good = fupermod_benchmark(&k, 1, &prec, MPI_COMM_NULL, &a) == FUPERMOD_SUCCESS;
        prec.speed_min = 1e-12;
        good = good && fupermod_benchmark(&k, 1, &prec, MPI_COMM_NULL, &b) == FUPERMOD_SUCCESS &&
               !fupermod_point_abandoned(&a) && !fupermod_point_abandoned(&b);
        off[i] = a.t;
        on[i] = b.t;
      }
      if (good) ratio = median(on, PAIRS) / median(off, PAIRS);
      diag("tiny kernel, median of %d: %.3g s without a minimum speed, %.3g s with -z 1e-12 (ratio %.2f)", PAIRS,
           median(off, PAIRS), median(on, PAIRS), ratio);
    }
    {
      MPI_Request req;
      int done = 0;
      struct timespec nap = {0, 1000000};
      MPI_Ibarrier(MPI_COMM_WORLD, &req);
      while (MPI_Test(&req, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && !done) nanosleep(&nap, NULL);
    }
    MPI_Bcast(&ratio, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    ok(ratio > 1 / 1.6 && ratio < 1.6,
       "a minimum speed leaves a tiny kernel's measured time alone: medians agree within 1.6x (ratio %.2f)", ratio);
  }
  {
    /* a run of 30 ms against a limit of 1 ms: it completes, in the calling thread, and ends the
     * size; the point is marked abandoned and holds that run's time */
    probe p = {30000000L, {1}, 0, 0, 0, 0, pthread_self()};
    fupermod_kernel k = {&pr_ops, &p, NULL, NULL};
    fupermod_precision prec = {3, 10, 0.95, 0.025, 0.0, 1000.0, 0};
    fupermod_point pt = FUPERMOD_POINT_INIT;
    int rc = fupermod_benchmark(&k, 1, &prec, MPI_COMM_NULL, &pt);
    ok(all_true(rc == 0 && fupermod_point_abandoned(&pt) && pt.reps == 1 && pt.t >= 0.03 && pt.e < 0),
       "a run slower than the minimum speed marks the size abandoned with that run's time (rc %d, flags %d, reps %d, "
       "t %.3g s)", rc, pt.flags, pt.reps, pt.t);
    ok(all_true(p.entered == 1 && p.exited == 1),
       "the slow run ran to completion, once, and no repetition followed (%d entered, %d finished)", p.entered,
       p.exited);
    ok(all_true(!p.foreign), "every timed run executes in the calling thread");
  }
  {
    /* the same kernel without a minimum speed: measured, not abandoned */
    probe p = {2000000L, {1}, 0, 0, 0, 0, pthread_self()};
    fupermod_kernel k = {&pr_ops, &p, NULL, NULL};
    fupermod_precision prec = {3, 10, 0.95, 0.5, 0.0, 0.0, 0};
    fupermod_point pt = FUPERMOD_POINT_INIT;
    int rc = fupermod_benchmark(&k, 1, &prec, MPI_COMM_NULL, &pt);
    ok(all_true(rc == 0 && pt.flags == 0 && pt.reps >= 3 && pt.ci <= pt.t),
       "a precise point carries no flag (flags %d, reps %d, ci %.2g of t %.2g)", pt.flags, pt.reps, pt.ci, pt.t);
  }
  {
    /* runs of 1, 10, 1 ms and a limit of 3 repetitions: the half-width (about 13 ms) exceeds the
     * mean (4 ms), so the point is flagged imprecise, and still usable */
    probe p = {1000000L, {1, 10, 1}, 3, 0, 0, 0, pthread_self()};
    fupermod_kernel k = {&pr_ops, &p, NULL, NULL};
    /* every run averaged: the 10x run is the spread that makes the point imprecise */
    fupermod_precision prec = {3, 3, 0.95, 0.01, 0.0, 0.0, 1, 1};
    fupermod_point pt = FUPERMOD_POINT_INIT;
    fupermod_points set = {0, NULL, 0};
    fupermod_model *m = NULL;
    int rc = fupermod_benchmark(&k, 1, &prec, MPI_COMM_NULL, &pt), usable;
    ok(all_true(rc == 0 && fupermod_point_imprecise(&pt) && !fupermod_point_abandoned(&pt) && pt.reps == 3 &&
                pt.ci > pt.t),
       "a half-width above the time at the repetition limit is flagged imprecise (flags %d, ci %.3g, t %.3g)", pt.flags,
       pt.ci, pt.t);
    usable = fupermod_points_insert(&set, &pt) == 0 && fupermod_model_create("cpm", &set, 0, &m) == 0 &&
             fabs(fupermod_model_time(m, 2.0) - 2 * pt.t) < 1e-12 * pt.t;
    ok(all_true(usable), "an imprecise point still makes a model");
    fupermod_model_free(m);
    fupermod_points_free(&set);
    prec.reps_min = prec.reps_max = 1;
    rc = fupermod_benchmark(&k, 1, &prec, MPI_COMM_NULL, &pt);
    ok(all_true(rc == 0 && fupermod_point_imprecise(&pt) && pt.reps == 1),
       "a single run has no half-width: flagged imprecise (flags %d)", pt.flags);
  }
  if (size >= 2) {
    /* the node in step: rank 1 (200 ms a run) is too slow and drops out after its first run;
     * rank 0 (2 ms) goes on to its repetitions; nobody hangs, and rank 1 runs its kernel no more */
    probe p = {rank == 1 ? 200000000L : 2000000L, {1}, 0, 0, 0, 0, pthread_self()};
    fupermod_kernel k = {&pr_ops, &p, NULL, NULL};
    fupermod_precision prec = {6, 6, 0.95, 0.5, 0.0, 20.0, 0}; /* limit 50 ms */
    fupermod_point pt = FUPERMOD_POINT_INIT;
    int rc = fupermod_benchmark(&k, 1, &prec, MPI_COMM_WORLD, &pt), good;
    good = rc == 0 && (rank == 1 ? fupermod_point_abandoned(&pt) && p.entered == 1 && p.exited == 1
                                 : !fupermod_point_abandoned(&pt) && pt.reps + pt.rejected == 6 && pt.t >= 0.002);
    if (!good)
      fprintf(stderr, "rank %d: rc %d flags %d reps %d t %g runs %d/%d\n", rank, rc, pt.flags, pt.reps, pt.t,
              p.entered, p.exited);
    ok(all_true(good), "in a node, only the slow process abandons; it waits idle while the others finish");
  } else {
    skip("the node case needs 2 processes");
  }
  MPI_Finalize();
  return done_testing();
}
