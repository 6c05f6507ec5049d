#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <pthread.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <gsl/gsl_cdf.h>
#include "fupermod/benchmark.h"
#include "fupermod/calib.h"
#include "fupermod/mpi_thread.h"
#include "fupermod/error.h"
#include "fupermod/meter.h"
#include "fupermod/share.h"

int fupermod_precision_check(const fupermod_precision *p) {
  if (p->reps_min < 1) return fupermod_error(FUPERMOD_ERR_USAGE, "reps_min must be >= 1, got %d", p->reps_min);
  if (p->reps_max < p->reps_min)
    return fupermod_error(FUPERMOD_ERR_USAGE, "reps_max (%d) must be >= reps_min (%d)", p->reps_max, p->reps_min);
  if (!(p->cl > 0 && p->cl < 1)) return fupermod_error(FUPERMOD_ERR_USAGE, "confidence level must be in (0,1), got %g", p->cl);
  if (!(p->eps > 0) || !isfinite(p->eps)) return fupermod_error(FUPERMOD_ERR_USAGE, "relative error must be > 0, got %g", p->eps);
  if (!(p->time_max >= 0) || !isfinite(p->time_max))
    return fupermod_error(FUPERMOD_ERR_USAGE, "time per point must be >= 0, got %g", p->time_max);
  if (!(p->speed_min >= 0) || !isfinite(p->speed_min))
    return fupermod_error(FUPERMOD_ERR_USAGE, "minimum speed must be >= 0, got %g", p->speed_min);
  if (p->idle_wait != 0 && p->idle_wait != 1)
    return fupermod_error(FUPERMOD_ERR_USAGE, "idle_wait must be 0 or 1, got %d", p->idle_wait);
  if (p->keep_outliers != 0 && p->keep_outliers != 1)
    return fupermod_error(FUPERMOD_ERR_USAGE, "keep_outliers must be 0 or 1, got %d", p->keep_outliers);
  return FUPERMOD_SUCCESS;
}

double fupermod_student_ci(int n, double sd, double cl) {
  if (n < 2) return INFINITY;
  return gsl_cdf_tdist_Pinv((1.0 + cl) / 2.0, (double)(n - 1)) * sd / sqrt((double)n);
}

int fupermod_precision_done(const fupermod_precision *p, int n, double mean, double ci, double elapsed) {
  if (n < p->reps_min) return 0;
  if (n >= p->reps_max) return 1;
  if (p->time_max > 0 && elapsed >= p->time_max) return 1;
  return n >= 2 && ci <= p->eps * mean;
}

/* Running mean and variance (Welford). */
typedef struct {
  int n;
  double mean, m2;
} stats;

static void stats_add(stats *s, double x) {
  double delta = x - s->mean;
  s->n++;
  s->mean += delta / s->n;
  s->m2 += delta * (x - s->mean);
}

static double stats_sd(const stats *s) { return s->n > 1 ? sqrt(s->m2 / (s->n - 1)) : 0.0; }

/* Every repetition of a point (time, and energy or NAN), and the statistics of those the outlier
 * rule keeps: the mean, the half-width and the stopping rule use only these. */
typedef struct {
  int n, cap, rejected;
  double *t, *e;
  int *keep;
  stats ts, es; /* kept repetitions (es: those with an energy) */
} rep_set;

static int reps_add(rep_set *r, double t, double e) {
  if (r->n == r->cap) {
    int nc = r->cap ? 2 * r->cap : 64;
    double *nt = realloc(r->t, (size_t)nc * sizeof *nt), *ne;
    int *nk;
    if (nt) r->t = nt;
    ne = nt ? realloc(r->e, (size_t)nc * sizeof *ne) : NULL;
    if (ne) r->e = ne;
    nk = ne ? realloc(r->keep, (size_t)nc * sizeof *nk) : NULL;
    if (!nk) return fupermod_error(FUPERMOD_ERR_NOMEM, "benchmark: out of memory for %d repetitions", nc);
    r->keep = nk;
    r->cap = nc;
  }
  r->t[r->n] = t;
  r->e[r->n] = e;
  r->keep[r->n] = 1;
  r->n++;
  return FUPERMOD_SUCCESS;
}

/* Apply the median/MAD rule to the times and recompute the kept statistics. With many repetitions
 * it is re-applied only every n/256 of them (the stopping rule then sees slightly stale statistics)
 * unless final, so that a long series costs O(n log^2 n), not O(n^2 log n). */
static int reps_judge(rep_set *r, const fupermod_precision *prec, int final) {
  int rej = 0;
  if (!final && r->n > 512 && r->n % (r->n / 256)) return FUPERMOD_SUCCESS;
  for (int i = 0; i < r->n; i++) r->keep[i] = 1;
  if (!prec->keep_outliers &&
      (rej = fupermod_outliers_floor(r->t, r->n, FUPERMOD_BENCH_OUTLIER_K, FUPERMOD_BENCH_OUTLIER_FLOOR, r->keep)) < 0)
    return rej;
  r->rejected = rej;
  memset(&r->ts, 0, sizeof r->ts);
  memset(&r->es, 0, sizeof r->es);
  for (int i = 0; i < r->n; i++)
    if (r->keep[i]) {
      stats_add(&r->ts, r->t[i]);
      if (!isnan(r->e[i])) stats_add(&r->es, r->e[i]);
    }
  return FUPERMOD_SUCCESS;
}

static void reps_free(rep_set *r) {
  free(r->t);
  free(r->e);
  free(r->keep);
}

/* Wait for a non-blocking collective while giving the core away: co-located processes that
 * finished early must not spin, or they slow down (and bias) the ones still running. */
static int wait_politely(MPI_Request *req) { return fupermod_mpi_wait_idle(req, 50000); }

/* Start of the kernel run in progress in this process, in ns of fupermod_time (0: none), for a
 * watchdog on another thread (fupermod_benchmark_running). */
static long long running_ns;

static void running(double since) { __atomic_store_n(&running_ns, (long long)(since * 1e9), __ATOMIC_RELEASE); }

double fupermod_benchmark_running(void) { return (double)__atomic_load_n(&running_ns, __ATOMIC_ACQUIRE) * 1e-9; }

/* Wait for the others' runs while loading the machine as they do: run the kernel, untimed, until
 * req completes. Without this, a process that finishes early is measured while everyone loads the
 * memory system, and the slower ones partly while it idles, which flatters them (docs/kernels.md).
 * The kernel runs in a thread so that this one keeps the collective progressing (else every
 * round of it would wait for a whole run); the overshoot is the one run in progress. */
typedef struct {
  fupermod_kernel *k;
  int stop, rc; /* stop: __atomic */
  char saved[1024];
} fill_state;

static void *fill_thread(void *arg) {
  fill_state *st = arg;
  while (!__atomic_load_n(&st->stop, __ATOMIC_ACQUIRE)) {
    running(fupermod_time());
    st->rc = st->k->ops->execute(st->k->ctx);
    running(0);
    if (st->rc != FUPERMOD_SUCCESS) {
      snprintf(st->saved, sizeof st->saved, "%s", fupermod_error_message());
      break;
    }
  }
  return NULL;
}

static int wait_filling(MPI_Request *req, fupermod_kernel *k, int *local_rc, char *saved, size_t n) {
  fill_state st = {k, 0, FUPERMOD_SUCCESS, ""};
  pthread_t th;
  int w;
#ifdef FUPERMOD_SMPI
  /* no thread but the simulated rank's own may call SimGrid (the kernel's sleep): wait unloaded */
  return wait_politely(req);
#endif
  if (pthread_create(&th, NULL, fill_thread, &st) != 0) return wait_politely(req);
  w = wait_politely(req);
  __atomic_store_n(&st.stop, 1, __ATOMIC_RELEASE);
  pthread_join(th, NULL);
  if (st.rc != FUPERMOD_SUCCESS) {
    *local_rc = st.rc;
    snprintf(saved, n, "%s", st.saved);
  }
  return w;
}

/* Energy modes of a benchmark (docs/energy.md); EN_EXTERNAL: no energy now, the runs' span is
 * recorded for an import from a power series. */
enum { EN_KERNEL, EN_PROCESS, EN_BUSY, EN_SOLO, EN_EXTERNAL };

/* UNIX time minus fupermod_time (CLOCK_MONOTONIC), to date runs for a power series. */
static double unix_offset(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec - fupermod_time();
}

static unsigned long long domain_hash(const char *s) {
  unsigned long long h = 1469598103934665603ULL;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ULL;
  return h ? h : 1;
}

/* Collective over sync: the processes whose meters share a domain form *group (MPI_COMM_NULL
 * when this process measures alone). Every process sees the same table, so a conflict is
 * reported by all of them. */
static int meter_group(fupermod_meter *meter, MPI_Comm sync, MPI_Comm *group) {
  const char *dom = meter ? fupermod_meter_domain(meter) : NULL;
  unsigned long long mine[2] = {dom ? domain_hash(dom) : 0,
                                meter ? (unsigned long long)fupermod_meter_attribution(meter) : 0};
  unsigned long long *all;
  int size, rank, color = MPI_UNDEFINED, peers = 0, rc = FUPERMOD_SUCCESS;
  MPI_Request req;
  *group = MPI_COMM_NULL;
  MPI_Comm_size(sync, &size);
  MPI_Comm_rank(sync, &rank);
  if (size == 1) return FUPERMOD_SUCCESS;
  if (!(all = malloc((size_t)size * 2 * sizeof *all))) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  if (MPI_Iallgather(mine, 2, MPI_UNSIGNED_LONG_LONG, all, 2, MPI_UNSIGNED_LONG_LONG, sync, &req) != MPI_SUCCESS ||
      wait_politely(&req)) {
    free(all);
    return fupermod_error(FUPERMOD_ERR_MPI, "benchmark: MPI_Iallgather failed");
  }
  for (int i = 0; i < size && rc == FUPERMOD_SUCCESS; i++)
    for (int j = i + 1; j < size; j++)
      if (all[2 * i] && all[2 * i] == all[2 * j] && all[2 * i + 1] != all[2 * j + 1]) {
        rc = fupermod_error(FUPERMOD_ERR_USAGE,
                            "co-located processes %d and %d share an energy meter but attribute it differently", i, j);
        break;
      }
  if (mine[0]) {
    for (int i = 0; i < size; i++)
      if (all[2 * i] == mine[0]) {
        if (color == MPI_UNDEFINED) color = i;
        peers++;
      }
    if (peers < 2) color = MPI_UNDEFINED;
  }
  {
    /* everyone sees the same table: without shared meters nobody needs a group */
    int shared = 0;
    for (int i = 0; i < size && !shared; i++)
      for (int j = i + 1; j < size; j++)
        if (all[2 * i] && all[2 * i] == all[2 * j]) shared = 1;
    free(all);
    if (!shared) return rc;
  }
  if (MPI_Comm_split(sync, color, rank, group) != MPI_SUCCESS)
    return fupermod_error(FUPERMOD_ERR_MPI, "benchmark: MPI_Comm_split failed");
  if (rc != FUPERMOD_SUCCESS && *group != MPI_COMM_NULL) MPI_Comm_free(group);
  return rc;
}

/* One timed run: nothing but the kernel between the clock reads, in this thread, to completion
 * (docs/kernels.md, "Abandoning slow sizes"). *abandoned: slower than limit (0: no limit). */
static int timed_run(fupermod_kernel *k, double limit, double *t0, double *t1, int *abandoned) {
  int rc;
  *t0 = fupermod_time();
  running(*t0);
  rc = k->ops->execute(k->ctx);
  *t1 = fupermod_time();
  running(0);
  *abandoned = rc == FUPERMOD_SUCCESS && limit > 0 && *t1 - *t0 > limit;
  return rc;
}

static double rel_ci(const stats *s, const fupermod_precision *prec) {
  return s->n > 1 ? fupermod_student_ci(s->n, stats_sd(s), prec->cl) : INFINITY;
}

/* One benchmark in progress, shared by its phases below. */
typedef struct {
  fupermod_kernel *k;
  fupermod_meter *meter;
  double static_power;
  long d;
  const fupermod_precision *prec;
  MPI_Comm sync, group, share; /* group: the processes sharing this one's meter; share: its cores */
  int mode, grank, inited, share_size;
  double *share_iv;
  double limit, elapsed;
  int abandoned;
  double abandoned_t;
  int local_rc;
  char saved[1024]; /* local_rc's message, for the final report */
  double span_lo, span_hi; /* the timed runs' span, fupermod_time */
  rep_set rs;
  stats es; /* the solo energy runs (EN_SOLO) */
} bench;

/* One repetition of the timed loop in this process. */
typedef struct {
  double t0, t1, e;
  int ran, ab;
} bench_rep;

static void save_error(bench *b) { snprintf(b->saved, sizeof b->saved, "%s", fupermod_error_message()); }

/* The groups, the energy mode, the run time limit and the kernel's initialisation. A failure to
 * form the groups is returned; a later one is kept in b->local_rc, for the others to learn in the
 * first round. */
static int bench_open(bench *b) {
  double complexity;
  int rc;
  if ((rc = meter_group(b->meter, b->sync, &b->group)) != FUPERMOD_SUCCESS) return rc;
  if ((rc = fupermod_share_comm(b->sync, &b->share)) != FUPERMOD_SUCCESS) {
    if (b->group != MPI_COMM_NULL) MPI_Comm_free(&b->group);
    return rc;
  }
  if (b->share != MPI_COMM_NULL) {
    MPI_Comm_size(b->share, &b->share_size);
    if (!(b->share_iv = malloc((size_t)b->share_size * 2 * sizeof *b->share_iv)))
      b->local_rc = fupermod_error(FUPERMOD_ERR_NOMEM, "benchmark: out of memory");
  }
  if (!b->meter) b->mode = EN_KERNEL;
  else if (fupermod_meter_is_external(b->meter)) b->mode = EN_EXTERNAL;
  else if (b->group == MPI_COMM_NULL) b->mode = EN_PROCESS;
  else b->mode = fupermod_meter_attribution(b->meter) == FUPERMOD_ATTRIB_SOLO ? EN_SOLO : EN_BUSY;
  if (b->group != MPI_COMM_NULL) MPI_Comm_rank(b->group, &b->grank);
  complexity = fupermod_kernel_complexity(b->k, b->d);
  if (b->prec->speed_min > 0) b->limit = complexity / b->prec->speed_min;
  if (b->local_rc == FUPERMOD_SUCCESS) {
    b->local_rc = b->k->ops->initialize(b->d, b->k->ctx);
    b->inited = 1;
  }
  if (b->local_rc != FUPERMOD_SUCCESS) save_error(b);
  return FUPERMOD_SUCCESS;
}

/* Whether anyone needs another repetition and nobody stops them all. Returns 0 to stop, also when
 * the collective failed (in b->local_rc). */
static int bench_agree(bench *b) {
  const fupermod_precision *prec = b->prec;
  const rep_set *rs = &b->rs;
  /* flags[0]: someone needs more runs; [1]: someone hit a hard limit; [2]: someone failed */
  int flags[3], all[3], fill;
  MPI_Request req;
  /* every series must be precise: the time, and the energy measured with it (spec: all series) */
  int energy_here = b->mode == EN_PROCESS || b->mode == EN_BUSY || (b->mode == EN_KERNEL && rs->es.n > 0);
  /* precision from the kept repetitions; the limits count every run */
  int more =
      !b->abandoned && b->local_rc == FUPERMOD_SUCCESS &&
      (!fupermod_precision_done(prec, rs->ts.n, rs->ts.mean, rel_ci(&rs->ts, prec), b->elapsed) ||
       (energy_here && !fupermod_precision_done(prec, rs->es.n, rs->es.mean, rel_ci(&rs->es, prec), b->elapsed)));
  flags[0] = more;
  flags[1] = b->local_rc == FUPERMOD_SUCCESS && !b->abandoned &&
             (rs->n >= prec->reps_max || (prec->time_max > 0 && b->elapsed >= prec->time_max));
  flags[2] = b->local_rc != FUPERMOD_SUCCESS;
  /* fill between timed runs, but not where a meter shared by several processes could count the
   * filling (its window opens while members may still be finishing a fill); a process's own
   * meter is stopped by now. Nor with the external meter: the node's power over the runs' span
   * must be the runs' own. An abandoned process waits idle: its runs are the slow ones. */
  fill = !prec->idle_wait && (b->mode == EN_KERNEL || b->mode == EN_PROCESS) && rs->n > 0 && !b->abandoned &&
         b->local_rc == FUPERMOD_SUCCESS;
  if (MPI_Iallreduce(flags, all, 3, MPI_INT, MPI_MAX, b->sync, &req) != MPI_SUCCESS ||
      (fill ? wait_filling(&req, b->k, &b->local_rc, b->saved, sizeof b->saved) : wait_politely(&req))) {
    b->local_rc = fupermod_error(FUPERMOD_ERR_MPI, "benchmark: MPI_Iallreduce failed");
    return 0;
  }
  return !(all[2] || all[1] || !all[0]);
}

/* Co-located processes start each repetition together, a shared meter's window open before
 * anyone of its group starts. Returns 0 when the barrier failed. */
static int bench_start(bench *b) {
  MPI_Request req;
  if (b->mode == EN_BUSY && b->grank == 0 && b->local_rc == FUPERMOD_SUCCESS)
    b->local_rc = fupermod_meter_start(b->meter);
  if (MPI_Ibarrier(b->sync, &req) != MPI_SUCCESS || wait_politely(&req)) {
    b->local_rc = fupermod_error(FUPERMOD_ERR_MPI, "benchmark: MPI_Ibarrier failed");
    return 0;
  }
  return 1;
}

/* This process's timed run, inside its own meter's window (EN_PROCESS). */
static void bench_run(bench *b, bench_rep *r) {
  double j = 0.0, win = 0.0;
  if (b->abandoned || b->local_rc != FUPERMOD_SUCCESS) return;
  if (b->mode == EN_PROCESS) b->local_rc = fupermod_meter_start(b->meter);
  if (b->local_rc == FUPERMOD_SUCCESS &&
      (b->local_rc = timed_run(b->k, b->limit, &r->t0, &r->t1, &r->ab)) == FUPERMOD_SUCCESS && r->ab) {
    b->abandoned = 1;
    b->abandoned_t = r->t1 - r->t0;
  }
  r->ran = b->local_rc == FUPERMOD_SUCCESS && !r->ab;
  if (r->ran || r->ab) {
    if (r->t0 < b->span_lo) b->span_lo = r->t0;
    if (r->t1 > b->span_hi) b->span_hi = r->t1;
  }
  if (r->ran && b->meter) b->local_rc = fupermod_meter_note_run(b->meter, b->d);
  /* an abandoned run's window is closed too, and its energy dropped */
  if ((r->ran || r->ab) && b->local_rc == FUPERMOD_SUCCESS && b->mode == EN_PROCESS) {
    b->local_rc = fupermod_meter_stop(b->meter, &j, &win);
    r->e = j - b->static_power * win;
  }
  if (b->local_rc != FUPERMOD_SUCCESS) {
    r->ran = 0;
    save_error(b);
  }
}

/* EN_BUSY: the group's dynamic energy, split in proportion to each member's run time. Returns 0
 * when a collective failed. */
static int busy_energy(bench *b, bench_rep *r) {
  double mine = r->ran ? r->t1 - r->t0 : r->ab ? b->abandoned_t : 0.0, sum = 0.0, got[2] = {0.0, 0.0};
  double j = 0.0, win = 0.0;
  MPI_Request req;
  if (MPI_Iallreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, b->group, &req) != MPI_SUCCESS || wait_politely(&req)) {
    b->local_rc = fupermod_error(FUPERMOD_ERR_MPI, "benchmark: MPI_Iallreduce failed");
    return 0;
  }
  if (b->grank == 0 && b->local_rc == FUPERMOD_SUCCESS) {
    if ((b->local_rc = fupermod_meter_stop(b->meter, &j, &win)) == FUPERMOD_SUCCESS) {
      got[0] = j - b->static_power * win;
      got[1] = 1.0;
    } else {
      save_error(b);
    }
  }
  if (MPI_Ibcast(got, 2, MPI_DOUBLE, 0, b->group, &req) != MPI_SUCCESS || wait_politely(&req)) {
    b->local_rc = fupermod_error(FUPERMOD_ERR_MPI, "benchmark: MPI_Ibcast failed");
    return 0;
  }
  if (r->ran && got[1] > 0 && sum > 0) r->e = got[0] * (r->t1 - r->t0) / sum;
  else if (r->ran && b->local_rc == FUPERMOD_SUCCESS) {
    b->local_rc = fupermod_error(FUPERMOD_ERR_MPI, "the process reading the shared meter failed");
    save_error(b);
    r->ran = 0;
  }
  return 1;
}

/* Processes time-sharing cores: the repetition lasts as long as the cores were busy with any of
 * them (the union of their runs), whenever each got to start. Returns 0 when the collective
 * failed. */
static int shared_span(bench *b, bench_rep *r) {
  double mine[2] = {r->t0, r->ran || r->ab ? r->t1 : r->t0}; /* an abandoned run kept the core busy too */
  MPI_Request req;
  if (MPI_Iallgather(mine, 2, MPI_DOUBLE, b->share_iv, 2, MPI_DOUBLE, b->share, &req) != MPI_SUCCESS ||
      wait_politely(&req)) {
    b->local_rc = fupermod_error(FUPERMOD_ERR_MPI, "benchmark: MPI_Iallgather failed");
    return 0;
  }
  if (r->ran) r->t1 = r->t0 + fupermod_intervals_union(b->share_iv, b->share_size);
  return 1;
}

/* Keep a repetition that ran. Its energy goes with its time: they are rejected together. */
static void bench_keep(bench *b, bench_rep *r) {
  const fupermod_kernel *k = b->k;
  b->elapsed += r->t1 - r->t0;
  if (b->mode == EN_KERNEL && !(k->ops->energy && k->ops->energy(k->ctx, &r->e) == FUPERMOD_SUCCESS)) r->e = NAN;
  else if (b->mode != EN_KERNEL && b->mode != EN_PROCESS && b->mode != EN_BUSY) r->e = NAN;
  if ((b->local_rc = reps_add(&b->rs, r->t1 - r->t0, r->e)) != FUPERMOD_SUCCESS ||
      (b->local_rc = reps_judge(&b->rs, b->prec, 0)) != FUPERMOD_SUCCESS)
    save_error(b);
}

/* The timed repetitions, every process of sync in each, until all have their precision or one
 * stops them. */
static void bench_timed(bench *b) {
  for (;;) {
    bench_rep r = {0.0, 0.0, 0.0, 0, 0};
    if (!bench_agree(b) || !bench_start(b)) break;
    bench_run(b, &r);
    if (b->mode == EN_BUSY && !busy_energy(b, &r)) break;
    if (b->share != MPI_COMM_NULL && !shared_span(b, &r)) break;
    if (r.ran) bench_keep(b, &r);
  }
}

/* EN_SOLO: this member's turn, one run alone inside the meter's window. */
static void solo_run(bench *b, double *elapsed_e) {
  double t0, t1, j = 0.0, win = 0.0;
  int ab = 0;
  if ((b->local_rc = fupermod_meter_start(b->meter)) == FUPERMOD_SUCCESS &&
      (b->local_rc = timed_run(b->k, b->limit, &t0, &t1, &ab)) == FUPERMOD_SUCCESS) {
    if (ab) {
      b->abandoned = 1;
      b->abandoned_t = t1 - t0;
      b->local_rc = fupermod_meter_stop(b->meter, &j, &win); /* close the window, drop the energy */
    } else if ((b->local_rc = fupermod_meter_note_run(b->meter, b->d)) == FUPERMOD_SUCCESS &&
               (b->local_rc = fupermod_meter_stop(b->meter, &j, &win)) == FUPERMOD_SUCCESS) {
      *elapsed_e += t1 - t0;
      stats_add(&b->es, j - b->static_power * win);
    }
  }
  if (b->local_rc != FUPERMOD_SUCCESS) save_error(b);
}

/* EN_SOLO, the additive hypothesis: each member runs alone in turn while the others idle, and the
 * whole group's dynamic energy is its own. */
static void bench_solo(bench *b) {
  int gsize;
  double elapsed_e = 0.0;
  MPI_Request req;
  MPI_Comm_size(b->group, &gsize);
  for (;;) {
    int flags[2], all[2];
    flags[0] = !b->abandoned && b->local_rc == FUPERMOD_SUCCESS &&
               !fupermod_precision_done(b->prec, b->es.n, b->es.mean, rel_ci(&b->es, b->prec), elapsed_e);
    flags[1] = b->local_rc != FUPERMOD_SUCCESS;
    if (MPI_Iallreduce(flags, all, 2, MPI_INT, MPI_MAX, b->group, &req) != MPI_SUCCESS || wait_politely(&req)) {
      b->local_rc = fupermod_error(FUPERMOD_ERR_MPI, "benchmark: MPI_Iallreduce failed");
      return;
    }
    if (all[1] || !all[0]) return;
    for (int turn = 0; turn < gsize; turn++) {
      if (MPI_Ibarrier(b->group, &req) != MPI_SUCCESS || wait_politely(&req)) {
        b->local_rc = fupermod_error(FUPERMOD_ERR_MPI, "benchmark: MPI_Ibarrier failed");
        return;
      }
      if (turn == b->grank && flags[0]) solo_run(b, &elapsed_e);
    }
  }
}

/* Finalise the kernel and free what the benchmark held; then every process learns whether any
 * failed. */
static int bench_close(bench *b) {
  int rc = b->inited ? b->k->ops->finalize(b->k->ctx) : FUPERMOD_SUCCESS, any, anyall = 0;
  MPI_Request req;
  if (b->local_rc == FUPERMOD_SUCCESS && rc != FUPERMOD_SUCCESS) {
    b->local_rc = rc;
    save_error(b);
  }
  if (b->group != MPI_COMM_NULL) MPI_Comm_free(&b->group);
  if (b->share != MPI_COMM_NULL) MPI_Comm_free(&b->share);
  free(b->share_iv);
  reps_free(&b->rs);
  any = b->local_rc != FUPERMOD_SUCCESS;
  if (MPI_Iallreduce(&any, &anyall, 1, MPI_INT, MPI_MAX, b->sync, &req) != MPI_SUCCESS || wait_politely(&req))
    return fupermod_error(FUPERMOD_ERR_MPI, "benchmark of %s at d=%ld: MPI_Iallreduce failed", b->k->ops->name, b->d);
  if (b->local_rc != FUPERMOD_SUCCESS)
    return fupermod_error(b->local_rc, "benchmark of %s at d=%ld: %s", b->k->ops->name, b->d, b->saved);
  if (anyall)
    return fupermod_error(FUPERMOD_ERR_MPI, "benchmark of %s at d=%ld: a co-located process failed", b->k->ops->name,
                          b->d);
  return FUPERMOD_SUCCESS;
}

/* The point: the abandoned run, or the means and half-widths of the kept repetitions. */
static int bench_point(const bench *b, fupermod_point *point) {
  const rep_set *rs = &b->rs;
  const stats *es = b->mode == EN_SOLO ? &b->es : &rs->es;
  point->d = b->d;
  if (b->mode == EN_EXTERNAL && b->span_hi > 0) {
    double off = unix_offset();
    point->t_start = b->span_lo + off;
    point->t_end = b->span_hi + off;
    if (!(point->host = fupermod_point_host(fupermod_meter_host(b->meter)))) return FUPERMOD_ERR_NOMEM;
  }
  if (b->abandoned) {
    point->t = b->abandoned_t;
    point->reps = 1;
    point->rejected = 0;
    point->ci = 0.0;
    point->e = -1.0;
    point->e_ci = -1.0;
    point->flags = FUPERMOD_POINT_ABANDONED;
    return FUPERMOD_SUCCESS;
  }
  point->t = rs->ts.mean;
  point->reps = rs->ts.n;
  point->rejected = rs->rejected;
  point->ci = rs->ts.n > 1 ? fupermod_student_ci(rs->ts.n, stats_sd(&rs->ts), b->prec->cl) : 0.0;
  /* the limits ended it before the half-width came below t (one run: no half-width at all) */
  point->flags = rs->ts.n < 2 || point->ci > point->t ? FUPERMOD_POINT_IMPRECISE : 0;
  if (es->n > 0 && (b->mode != EN_KERNEL || es->n == rs->ts.n)) {
    /* a dynamic energy below the static baseline is noise around 0; e < 0 would mean "none" */
    point->e = es->mean > 0 ? es->mean : 0.0;
    point->e_ci = es->n > 1 ? fupermod_student_ci(es->n, stats_sd(es), b->prec->cl) : 0.0;
  } else {
    point->e = -1.0;
    point->e_ci = -1.0;
  }
  return FUPERMOD_SUCCESS;
}

int fupermod_benchmark_meter(fupermod_kernel *k, fupermod_meter *meter, double static_power, long d,
                             const fupermod_precision *prec, MPI_Comm comm_sync, fupermod_point *point) {
  bench b;
  int rc;
  if (!k || !prec || !point) return fupermod_error(FUPERMOD_ERR_USAGE, "benchmark: NULL argument");
  if (d <= 0) return fupermod_error(FUPERMOD_ERR_USAGE, "benchmark: d must be > 0, got %ld", d);
  if (!(static_power >= 0) || !isfinite(static_power))
    return fupermod_error(FUPERMOD_ERR_USAGE, "benchmark: static power must be >= 0 W, got %g", static_power);
  if ((rc = fupermod_precision_check(prec)) != FUPERMOD_SUCCESS) return rc;
  memset(&b, 0, sizeof b);
  b.k = k;
  b.meter = meter;
  b.static_power = static_power;
  b.d = d;
  b.prec = prec;
  b.sync = comm_sync == MPI_COMM_NULL ? MPI_COMM_SELF : comm_sync;
  b.group = b.share = MPI_COMM_NULL;
  b.local_rc = FUPERMOD_SUCCESS;
  b.span_lo = INFINITY;
  if ((rc = bench_open(&b)) != FUPERMOD_SUCCESS) return rc;
  bench_timed(&b);
  if (b.local_rc == FUPERMOD_SUCCESS && (b.local_rc = reps_judge(&b.rs, prec, 1)) != FUPERMOD_SUCCESS) save_error(&b);
  if (b.mode == EN_SOLO) bench_solo(&b);
  if ((rc = bench_close(&b)) != FUPERMOD_SUCCESS) return rc;
  return bench_point(&b, point);
}

int fupermod_benchmark(fupermod_kernel *k, long d, const fupermod_precision *prec, MPI_Comm comm_sync,
                       fupermod_point *point) {
  return fupermod_benchmark_meter(k, NULL, 0.0, d, prec, comm_sync, point);
}
