#define _GNU_SOURCE /* sched_getaffinity */
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "fupermod/conf.h"
#include "fupermod/error.h"
#include "fupermod/share.h"

int fupermod_trace_add(fupermod_trace *tr, double t0, double t1) {
  if (!tr) return fupermod_error(FUPERMOD_ERR_USAGE, "trace: NULL trace");
  if (!(t1 >= t0)) return fupermod_error(FUPERMOD_ERR_USAGE, "trace: interval [%g, %g) ends before it starts", t0, t1);
  if (tr->n == tr->cap) {
    int cap = tr->cap ? 2 * tr->cap : 64;
    double *iv = realloc(tr->iv, (size_t)cap * 2 * sizeof *iv);
    if (!iv) return fupermod_error(FUPERMOD_ERR_NOMEM, "trace: no memory for %d intervals", cap);
    tr->iv = iv;
    tr->cap = cap;
  }
  tr->iv[2 * tr->n] = t0;
  tr->iv[2 * tr->n + 1] = t1;
  tr->n++;
  return FUPERMOD_SUCCESS;
}

int fupermod_trace_add_cpu(fupermod_trace *tr, double t0, double t1, double cpu) {
  int rc = fupermod_trace_add(tr, t0, t1);
  if (rc == FUPERMOD_SUCCESS) tr->cpu += cpu;
  return rc;
}

double fupermod_cpu_time(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void fupermod_trace_clear(fupermod_trace *tr) {
  if (!tr) return;
  tr->n = 0;
  tr->cpu = 0.0;
}

void fupermod_trace_free(fupermod_trace *tr) {
  if (!tr) return;
  free(tr->iv);
  tr->iv = NULL;
  tr->n = tr->cap = 0;
  tr->cpu = 0.0;
}

double fupermod_trace_total(const fupermod_trace *tr) {
  double s = 0.0;
  for (int i = 0; tr && i < tr->n; i++) s += tr->iv[2 * i + 1] - tr->iv[2 * i];
  return s;
}

static int by_start(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double fupermod_intervals_union(double *iv, int n) {
  double end = 0.0, sum = 0.0;
  if (!iv || n <= 0) return 0.0;
  qsort(iv, (size_t)n, 2 * sizeof *iv, by_start);
  for (int i = 0; i < n; i++) {
    double s = iv[2 * i], e = iv[2 * i + 1];
    if (i == 0 || s > end) {
      sum += e - s;
      end = e;
    } else if (e > end) {
      sum += e - end;
      end = e;
    }
  }
  return sum;
}

static int all_ok(MPI_Comm comm, int ok) {
  int all = 0;
  if (MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS) return 0;
  return all;
}

/* The bound processes (bound[r]: its binding applied, or a strict subset of the online CPUs; the
 * unbound, which the kernel moves, left out) whose bindings overlap process me's, directly or
 * through others: where they are more than the CPUs of their bindings' union, they time-share
 * those CPUs, whatever their masks: the lowest rank of them; -1 otherwise. (Three processes bound
 * by their lines to both cores of a two-core node share them, although their masks are the whole
 * node's; so do one on both cores beside one on each.) */
static int overlap_group(const cpu_set_t *all, const int *bound, int n, int me) {
  int *in = calloc((size_t)n, sizeof *in), grew = 1, members = 0, first = -1;
  cpu_set_t cpus;
  if (!in || !bound[me]) {
    free(in);
    return -1;
  }
  in[me] = 1;
  CPU_ZERO(&cpus);
  CPU_OR(&cpus, &cpus, &all[me]);
  while (grew) {
    grew = 0;
    for (int r = 0; r < n; r++) {
      cpu_set_t both;
      if (in[r] || !bound[r] || CPU_COUNT(&all[r]) == 0) continue;
      CPU_AND(&both, &cpus, &all[r]);
      if (CPU_COUNT(&both) > 0) {
        in[r] = grew = 1;
        CPU_OR(&cpus, &cpus, &all[r]);
      }
    }
  }
  for (int r = 0; r < n; r++)
    if (in[r]) {
      members++;
      if (first < 0) first = r;
    }
  free(in);
  return members >= 2 && members > CPU_COUNT(&cpus) ? first : -1;
}

int fupermod_share_comm(MPI_Comm comm, MPI_Comm *share) {
  cpu_set_t mine, *all = NULL;
  int mine_bound, *bound = NULL;
  MPI_Comm node = MPI_COMM_NULL;
  int n, me, color = MPI_UNDEFINED, members = 0, online = (int)sysconf(_SC_NPROCESSORS_ONLN), rc = FUPERMOD_SUCCESS;
  if (!share) return fupermod_error(FUPERMOD_ERR_USAGE, "share_comm: NULL result");
  *share = MPI_COMM_NULL;
  if (comm == MPI_COMM_NULL) return fupermod_error(FUPERMOD_ERR_USAGE, "share_comm: communicator is MPI_COMM_NULL");
  /* the same mask on two nodes names different cores */
  if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) != MPI_SUCCESS)
    return fupermod_error(FUPERMOD_ERR_MPI, "share_comm: MPI_Comm_split_type failed");
  MPI_Comm_size(node, &n);
  MPI_Comm_rank(node, &me);
  CPU_ZERO(&mine);
  if (sched_getaffinity(0, sizeof mine, &mine) != 0) CPU_ZERO(&mine);
  mine_bound = fupermod_bind_applied() || (CPU_COUNT(&mine) > 0 && CPU_COUNT(&mine) < online);
  all = malloc((size_t)n * sizeof *all);
  bound = malloc((size_t)n * sizeof *bound);
  if (!all_ok(node, all && bound))
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "share_comm: out of memory");
  else if (MPI_Allgather(&mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine, MPI_BYTE, node) != MPI_SUCCESS ||
           MPI_Allgather(&mine_bound, 1, MPI_INT, bound, 1, MPI_INT, node) != MPI_SUCCESS)
    rc = fupermod_error(FUPERMOD_ERR_MPI, "share_comm: MPI_Allgather of the bindings failed");
  if (rc == FUPERMOD_SUCCESS && CPU_COUNT(&mine) > 0 && CPU_COUNT(&mine) < online)
    for (int r = 0; r < n; r++)
      if (CPU_EQUAL(&all[r], &mine)) {
        if (color == MPI_UNDEFINED) color = r;
        members++;
      }
  if (rc == FUPERMOD_SUCCESS && CPU_COUNT(&mine) > 0) {
    int first = overlap_group(all, bound, n, me);
    if (first >= 0) color = first, members = 2;
  }
  free(all);
  free(bound);
  if (members < 2) color = MPI_UNDEFINED;
  if (MPI_Comm_split(node, color, me, share) != MPI_SUCCESS && rc == FUPERMOD_SUCCESS)
    rc = fupermod_error(FUPERMOD_ERR_MPI, "share_comm: MPI_Comm_split of the core-sharing group failed");
  MPI_Comm_free(&node);
  return rc;
}

int fupermod_share_busy(MPI_Comm share, const fupermod_trace *tr, double *busy) {
  int size = 1, total = 0, rc = FUPERMOD_SUCCESS, mine = tr ? 2 * tr->n : 0;
  int *cnt = NULL, *disp = NULL;
  double *iv = NULL, sum = 0.0;
  if (!busy) return fupermod_error(FUPERMOD_ERR_USAGE, "share_busy: NULL result");
  *busy = 0.0;
  if (share != MPI_COMM_NULL) MPI_Comm_size(share, &size);
  if (size == 1) {
    total = mine;
    iv = mine ? malloc((size_t)mine * sizeof *iv) : NULL;
    if (mine && !iv) return fupermod_error(FUPERMOD_ERR_NOMEM, "share_busy: out of memory");
    if (mine) memcpy(iv, tr->iv, (size_t)mine * sizeof *iv);
  } else {
    /* every step agrees first: a member that fails alone must not leave the others waiting */
    cnt = malloc((size_t)size * sizeof *cnt);
    disp = malloc((size_t)size * sizeof *disp);
    if (all_ok(share, cnt && disp) && MPI_Allgather(&mine, 1, MPI_INT, cnt, 1, MPI_INT, share) == MPI_SUCCESS) {
      for (int r = 0; r < size; r++) {
        disp[r] = total;
        total += cnt[r];
      }
      iv = total ? malloc((size_t)total * sizeof *iv) : NULL;
      if (!all_ok(share, !total || iv))
        rc = fupermod_error(FUPERMOD_ERR_NOMEM, "share_busy: out of memory for %d interval ends", total);
      else if (MPI_Allgatherv(tr ? tr->iv : NULL, mine, MPI_DOUBLE, iv, cnt, disp, MPI_DOUBLE, share) != MPI_SUCCESS)
        rc = fupermod_error(FUPERMOD_ERR_MPI, "share_busy: MPI_Allgatherv failed");
    } else {
      rc = fupermod_error(FUPERMOD_ERR_NOMEM, "share_busy: out of memory, or MPI_Allgather failed");
    }
    free(cnt);
    free(disp);
    if (rc != FUPERMOD_SUCCESS) {
      free(iv);
      return rc;
    }
  }
  sum = fupermod_intervals_union(iv, total / 2);
  free(iv);
  *busy = sum;
  return FUPERMOD_SUCCESS;
}
