/* jacobi: an application plug-in, the worked example of docs/apps.md ("Your own application in
 * fupermod run"). `fupermod run --app jacobi` builds the jacobi-rows kernel's functions, partitions
 * the rows of a dense D x D system among the processes, predicts each distribution's whole run
 * with the cost model below, chooses one and runs it: SWEEPS Jacobi sweeps of the solver of
 * libfupermod_apps (apps/jacobi.h), each its rows' update, then x gathered by every process
 * (MPI_Allgatherv) and the change agreed (MPI_Allreduce).
 * Build against an installation:
 *   mpicc -O2 -shared -fPIC $(pkg-config --cflags fupermod-apps) jacobi_app.c \
 *       -o fupermod_app_jacobi.so $(pkg-config --libs fupermod-apps)
 * and put it where $FUPERMOD_KERNEL_PATH (or the installed kernel directory) points. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <fupermod/apps/app.h>
#include <fupermod/apps/jacobi.h>

#define SWEEPS 10

/* The problem of size n: n rows of n columns, measured at K sizes of n / K rows. The kernel's
 * unit is a row of the same n columns, so that its functions time what a sweep computes. */
static int problem(long n, int K, fupermod_app_problem *pb) {
  if (n < K || n % K != 0)
    return fupermod_error(FUPERMOD_ERR_USAGE, "jacobi: the size %ld must be a multiple of the grid's %d sizes", n, K);
  pb->D = n;
  pb->g = n / K;
  pb->iters = SWEEPS;
  snprintf(pb->kernel_subopts, sizeof pb->kernel_subopts, "n=%ld", n);
  return FUPERMOD_SUCCESS;
}

/* One run: the system built for dist (untimed), then SWEEPS sweeps, timed; each sweep's update of
 * this process's rows goes into compute. */
static int run(MPI_Comm comm, const fupermod_app_problem *pb, const fupermod_dist *dist, fupermod_exec *exec,
               fupermod_trace *compute, double *elapsed) {
  fupermod_jacobi *j = NULL;
  double t0, err = 0;
  int rc = fupermod_jacobi_create(comm, pb->D, dist, NULL, &j);
  (void)exec; /* the solver computes on the process's cores */
  if (rc != FUPERMOD_SUCCESS) return rc;
  MPI_Barrier(comm);
  t0 = fupermod_time();
  for (int s = 0; s < SWEEPS && rc == FUPERMOD_SUCCESS; s++) {
    double start = fupermod_time(), cpu = fupermod_cpu_time(), tc = 0;
    rc = fupermod_jacobi_iterate(j, NULL, &err, &tc);
    /* the update comes first in a sweep: it spans [start, start + tc) */
    cpu = fupermod_cpu_time() - cpu;
    if (rc == FUPERMOD_SUCCESS)
      rc = fupermod_trace_add_cpu(compute, start, start + tc, cpu < tc ? cpu : tc);
  }
  *elapsed = fupermod_time() - t0;
  fupermod_jacobi_destroy(j);
  return rc;
}

/* The cost model: per sweep, the slowest update, then every process sends its 8 d_i bytes to
 * every other and receives theirs (the slowest process's messages end the gather), then the
 * agreement: ceil(log2 p) rounds of the slowest latency. A link costs what fupermod run measured,
 * times the calibration's messages factor; an update, the kernel's function times the process's
 * computation factor. Processes that time-share cores (cal->group[i], the lowest rank of i's
 * group) take turns on them for their messages too: their gather lasts the members' messages
 * added up, one between two members counted once. */
static int predict(const fupermod_app_problem *pb, const fupermod_dist *dist, fupermod_app_time t, void *ctx,
                   const fupermod_comm *cm, const fupermod_app_cal *cal, fupermod_app_pred *out) {
  int p = dist->size, rc = FUPERMOD_SUCCESS;
  double comp = 0, compci = 0, gather = 0, gatherci = 0, lat = 0, m = fupermod_app_cal_msgs(cal);
  double *x = calloc(2 * (size_t)p, sizeof *x), *xci = x ? x + p : NULL;
  if (!x) return fupermod_error(FUPERMOD_ERR_NOMEM, "jacobi: out of memory");
  for (int i = 0; i < p && rc == FUPERMOD_SUCCESS; i++) {
    long d = dist->parts[i].d;
    double ci = 0, f = fupermod_app_cal_comp(cal, i), ti = d > 0 ? f * t(i, (double)d, &ci, ctx) : 0;
    if (!(ti >= 0) || !isfinite(ti)) {
      rc = fupermod_error(FUPERMOD_ERR_INPUT, "jacobi: no time for process %d's %ld rows", i, d);
      break;
    }
    if (ti > comp) comp = ti, compci = f * ci;
    if (out->comm) out->comm[i] = 0;
    for (int j = 0; cm && j < p; j++) {
      double c1 = 0, c2 = 0, snd, rcv;
      int mates = cal && cal->group && cal->group[i] == cal->group[j];
      if (j == i) continue;
      snd = fupermod_comm_time_ci(cm, i, j, 8.0 * (double)d, &c1);
      rcv = fupermod_comm_time_ci(cm, j, i, 8.0 * (double)dist->parts[j].d, &c2);
      if (snd < 0 || rcv < 0) { /* never priced as free */
        rc = fupermod_error(FUPERMOD_ERR_INPUT, "jacobi: the link between processes %d and %d was not measured", i, j);
        break;
      }
      /* between mates, j's send is i's receive: their group counts it once */
      x[cal && cal->group ? cal->group[i] : i] += snd + (mates ? 0 : rcv);
      xci[cal && cal->group ? cal->group[i] : i] += c1 + (mates ? 0 : c2);
      if (fupermod_comm_time(cm, i, j, 8) > lat) lat = fupermod_comm_time(cm, i, j, 8);
      if (out->comm) out->comm[i] += pb->iters * m * (snd + rcv);
    }
    if (out->comp) out->comp[i] = pb->iters * ti;
  }
  for (int g = 0; g < p; g++)
    if (m * x[g] > gather) gather = m * x[g], gatherci = m * xci[g];
  free(x);
  if (rc != FUPERMOD_SUCCESS) return rc;
  out->time = pb->iters * (comp + gather + (p > 1 ? ceil(log2((double)p)) : 0) * lat);
  out->ci = pb->iters * (compci + gatherci);
  return FUPERMOD_SUCCESS;
}

const fupermod_app_ops fupermod_app_plugin = {
  FUPERMOD_APP_API, "jacobi",
  "Jacobi sweeps of a dense system, rows distributed, x gathered every sweep (an application plug-in)",
  "jacobi-rows", problem, run, predict};
