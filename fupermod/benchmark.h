/* Benchmarking a kernel to statistical confidence (Student t). */
#ifndef FUPERMOD_BENCHMARK_H
#define FUPERMOD_BENCHMARK_H

#include <mpi.h>
#include "kernel.h"
#include "meter.h"
#include "point.h"
#include "clock.h" /* fupermod_time */

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* the public API; the libraries build with -fvisibility=hidden */

typedef struct fupermod_precision {
  int reps_min;     /* at least this many runs (>= 1) */
  int reps_max;     /* at most this many runs */
  double cl;        /* confidence level, e.g. 0.95 (two-sided quantile at (1+cl)/2) */
  double eps;       /* stop when ci/mean <= eps */
  double time_max;  /* stop after this many seconds of runs for the point (0: no cap) */
  double speed_min; /* a run slower than this (complexity units/s) ends the size, which is then
                       flagged abandoned (FUPERMOD_POINT_ABANDONED); 0 disables */
  int idle_wait;    /* 0 (default): a process whose run ended before the others' keeps running the
                       kernel, untimed, until they finish, so that every timed run overlaps the
                       others' load as in a balanced application run; 1: it waits idle */
  int keep_outliers; /* 0 (default): repetitions whose time is an outlier (fupermod_outliers_floor
                        with FUPERMOD_BENCH_OUTLIER_K and _FLOOR) are left out of the point's mean,
                        half-width and stopping rule, and counted (point->rejected); 1: every
                        repetition is averaged */
} fupermod_precision;

#define FUPERMOD_PRECISION_DEFAULT {3, 100, 0.95, 0.025, 60.0, 0.0, 0, 0}

/* The benchmark's outlier rule: a repetition is rejected when its time is farther from the
 * median of the point's repetitions than both K x 1.4826 x MAD and FLOOR x the median; at most a
 * minority, (n - 1) / 2 of n, are rejected. */
#define FUPERMOD_BENCH_OUTLIER_K 3.5
#define FUPERMOD_BENCH_OUTLIER_FLOOR 0.1

int fupermod_precision_check(const fupermod_precision *prec);

/* Student-t half-width of the confidence interval of the mean of n samples with sample
 * standard deviation sd: t_{(1+cl)/2, n-1} * sd / sqrt(n). n < 2: +inf. */
double fupermod_student_ci(int n, double sd, double cl);
/* The stop rule: 1 when a sample of n runs (mean, ci, elapsed) is precise enough. */
int fupermod_precision_done(const fupermod_precision *prec, int n, double mean, double ci,
                            double elapsed);

/* Measure d units of an initialised kernel (initialize is called here, finalize at the end).
 * Every process of comm_sync (e.g. a node) runs each repetition at the same time; all of them
 * repeat until every one is precise. A timed run is execute() alone between two clock reads, in
 * the calling thread, always to completion. A run slower than prec->speed_min ends this process's
 * repetitions: point->flags = FUPERMOD_POINT_ABANDONED, t = that run's time, reps 1, ci 0, no
 * energy; such a point is no measurement. Repetitions whose time is an outlier among the point's
 * (FUPERMOD_BENCH_OUTLIER_K, unless prec->keep_outliers) are rejected with their energy: t, ci,
 * e, e_ci and the precision come from the kept ones (point->reps of them), point->rejected counts
 * the others; reps_max and time_max count every run. Every process of comm_sync still runs every
 * repetition. A point whose half-width exceeds t when a limit ends it
 * (or that has one run) is flagged FUPERMOD_POINT_IMPRECISE. Energy comes from the kernel's
 * `energy` op when it has one. comm_sync may be MPI_COMM_NULL (no synchronisation). Processes of
 * comm_sync that time-share cores (fupermod_share_comm) all record, per repetition, the union of
 * their runs: how long their cores were busy with the group's work (docs/kernels.md). */
int fupermod_benchmark(fupermod_kernel *k, long d, const fupermod_precision *prec,
                       MPI_Comm comm_sync, fupermod_point *point);

/* When a benchmark of this process is inside a kernel run (timed, or untimed while it waits for
 * the others): the run's start (fupermod_time), else 0. Safe to call from any thread, so that a
 * watchdog can tell a kernel that never returns from a process waiting for its peers. */
double fupermod_benchmark_running(void);

/* fupermod_benchmark with energy from a meter (NULL: the kernel's own `energy` op, if any).
 * The energy of a run is the meter's over a window around it minus static_power (W, of what the
 * meter measures) times the window: dynamic energy, clamped at 0 in the point. Processes of
 * comm_sync whose meters share a domain (fupermod_meter_domain) form a group that reads the
 * meter once per repetition and splits it by the meter's attribution: busy (in proportion to run
 * time, all running together) or solo (each alone in turn, after the timing runs). Repetitions
 * continue until time and energy are both precise. Collective over comm_sync (MPI_COMM_NULL:
 * this process alone), like fupermod_benchmark. docs/energy.md. */
int fupermod_benchmark_meter(fupermod_kernel *k, fupermod_meter *meter, double static_power, long d,
                             const fupermod_precision *prec, MPI_Comm comm_sync, fupermod_point *point);



#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
