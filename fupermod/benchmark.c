#include <errno.h>
#include <stdio.h>
#include <math.h>
#include <pthread.h>
#include <string.h>
#include <time.h>
#include <gsl/gsl_cdf.h>
#include "fupermod/benchmark.h"
#include "fupermod/error.h"

double fupermod_time(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

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

/* Wait for a non-blocking collective while giving the core away: co-located processes that
 * finished early must not spin, or they slow down (and bias) the ones still running. */
static int wait_politely(MPI_Request *req) {
  int done = 0;
  struct timespec nap = {0, 50000};
  for (;;) {
    if (MPI_Test(req, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) return -1;
    if (done) return 0;
    nanosleep(&nap, NULL);
  }
}

typedef struct {
  fupermod_kernel *k;
  int rc, finished;
  pthread_mutex_t mutex;
  pthread_cond_t cond;
} run_state;

static void *run_thread(void *arg) {
  run_state *st = arg;
  int rc = st->k->ops->execute(st->k->ctx);
  pthread_mutex_lock(&st->mutex);
  st->rc = rc;
  st->finished = 1;
  pthread_cond_signal(&st->cond);
  pthread_mutex_unlock(&st->mutex);
  return NULL;
}

/* One execute, abandoned (cancelled) after limit seconds; *abandoned set when it was. */
static int run_limited(fupermod_kernel *k, double limit, int *abandoned) {
  run_state st = {k, 0, 0, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER};
  pthread_t th;
  struct timespec deadline;
  double end;
  *abandoned = 0;
  if (pthread_create(&th, NULL, run_thread, &st) != 0)
    return fupermod_error(FUPERMOD_ERR_SYSTEM, "cannot start the kernel thread");
  clock_gettime(CLOCK_REALTIME, &deadline);
  end = (double)deadline.tv_sec + 1e-9 * deadline.tv_nsec + limit;
  deadline.tv_sec = (time_t)end;
  deadline.tv_nsec = (long)((end - (double)deadline.tv_sec) * 1e9);
  pthread_mutex_lock(&st.mutex);
  while (!st.finished)
    if (pthread_cond_timedwait(&st.cond, &st.mutex, &deadline) == ETIMEDOUT) break;
  if (!st.finished) *abandoned = 1;
  pthread_mutex_unlock(&st.mutex);
  /* kernels stop at their next cancellation point (sleeps, I/O); others finish the run */
  if (*abandoned) pthread_cancel(th);
  pthread_join(th, NULL);
  return *abandoned ? FUPERMOD_SUCCESS : st.rc;
}

int fupermod_benchmark(fupermod_kernel *k, long d, const fupermod_precision *prec, MPI_Comm comm_sync,
                       fupermod_point *point) {
  stats ts = {0, 0, 0}, es = {0, 0, 0};
  double elapsed = 0.0, complexity, limit = 0.0, abandoned_t = 0.0;
  int rc, abandoned = 0, local_rc = FUPERMOD_SUCCESS;
  char saved[1024] = "";
  if (!k || !prec || !point) return fupermod_error(FUPERMOD_ERR_USAGE, "benchmark: NULL argument");
  if (d <= 0) return fupermod_error(FUPERMOD_ERR_USAGE, "benchmark: d must be > 0, got %ld", d);
  if ((rc = fupermod_precision_check(prec)) != FUPERMOD_SUCCESS) return rc;
  complexity = fupermod_kernel_complexity(k, d);
  if (prec->speed_min > 0) limit = complexity / prec->speed_min;
  local_rc = k->ops->initialize(d, k->ctx);
  if (local_rc != FUPERMOD_SUCCESS) snprintf(saved, sizeof saved, "%s", fupermod_error_message());
  for (;;) {
    /* flags[0]: someone needs more runs; [1]: someone hit a hard limit; [2]: someone failed */
    int flags[3], all[3];
    double t0, t1, e = 0.0;
    int more = !abandoned && local_rc == FUPERMOD_SUCCESS &&
               !fupermod_precision_done(prec, ts.n, ts.mean, fupermod_student_ci(ts.n, stats_sd(&ts), prec->cl),
                                        elapsed);
    flags[0] = more;
    flags[1] = local_rc == FUPERMOD_SUCCESS && !abandoned &&
               (ts.n >= prec->reps_max || (prec->time_max > 0 && elapsed >= prec->time_max));
    flags[2] = local_rc != FUPERMOD_SUCCESS;
    MPI_Request req;
    if (MPI_Iallreduce(flags, all, 3, MPI_INT, MPI_MAX, comm_sync, &req) != MPI_SUCCESS || wait_politely(&req)) {
      local_rc = fupermod_error(FUPERMOD_ERR_MPI, "benchmark: MPI_Iallreduce failed");
      break;
    }
    if (all[2] || all[1] || !all[0]) break;
    /* co-located processes run each repetition together */
    if (MPI_Ibarrier(comm_sync, &req) != MPI_SUCCESS || wait_politely(&req)) {
      local_rc = fupermod_error(FUPERMOD_ERR_MPI, "benchmark: MPI_Ibarrier failed");
      break;
    }
    if (abandoned) continue; /* too slow here: only keep the others company */
    t0 = fupermod_time();
    if (limit > 0) {
      int ab = 0;
      local_rc = run_limited(k, limit, &ab);
      if (ab) {
        abandoned = 1;
        abandoned_t = fupermod_time() - t0;
      }
    } else {
      local_rc = k->ops->execute(k->ctx);
    }
    t1 = fupermod_time();
    if (local_rc != FUPERMOD_SUCCESS) {
      snprintf(saved, sizeof saved, "%s", fupermod_error_message());
      continue;
    }
    if (abandoned) continue;
    elapsed += t1 - t0;
    stats_add(&ts, t1 - t0);
    if (k->ops->energy && k->ops->energy(k->ctx, &e) == FUPERMOD_SUCCESS) stats_add(&es, e);
  }
  rc = k->ops->finalize(k->ctx);
  if (local_rc == FUPERMOD_SUCCESS && rc != FUPERMOD_SUCCESS) {
    local_rc = rc;
    snprintf(saved, sizeof saved, "%s", fupermod_error_message());
  }
  {
    int any = local_rc != FUPERMOD_SUCCESS, anyall = 0;
    MPI_Allreduce(&any, &anyall, 1, MPI_INT, MPI_MAX, comm_sync);
    if (local_rc != FUPERMOD_SUCCESS)
      return fupermod_error(local_rc, "benchmark of %s at d=%ld: %s", k->ops->name, d, saved);
    if (anyall)
      return fupermod_error(FUPERMOD_ERR_MPI, "benchmark of %s at d=%ld: a co-located process failed",
                            k->ops->name, d);
  }
  point->d = d;
  if (abandoned) {
    point->t = abandoned_t;
    point->reps = 0;
    point->ci = 0.0;
    point->e = -1.0;
    point->e_ci = -1.0;
    return FUPERMOD_SUCCESS;
  }
  point->t = ts.mean;
  point->reps = ts.n;
  point->ci = ts.n > 1 ? fupermod_student_ci(ts.n, stats_sd(&ts), prec->cl) : 0.0;
  if (es.n == ts.n && es.n > 0) {
    point->e = es.mean;
    point->e_ci = es.n > 1 ? fupermod_student_ci(es.n, stats_sd(&es), prec->cl) : 0.0;
  } else {
    point->e = -1.0;
    point->e_ci = -1.0;
  }
  return FUPERMOD_SUCCESS;
}
