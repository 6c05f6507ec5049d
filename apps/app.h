/* Applications as plug-ins (docs/apps.md, "Your own application in fupermod run"): what
 * `fupermod run --app NAME` needs of an application to build its kernel's functions, partition
 * them, predict each distribution's whole run, choose one and run it, as it does SUMMA DGEMM and
 * the 2D-FFT. A plug-in is a shared object fupermod_app_NAME.so, found as kernels are
 * ($FUPERMOD_KERNEL_PATH, then the installed kernel directory), exporting
 *     const fupermod_app_ops fupermod_app_plugin = {FUPERMOD_APP_API, "NAME", ...};
 * Its computation is modelled by a kernel plug-in (the same work on d units, measured by
 * fupermod run), its messages by the links fupermod run measures, through the cost model it gives
 * (predict), which fupermod run calibrates on the application's own runs (fupermod_app_cal). */
#ifndef FUPERMOD_APPS_APP_H
#define FUPERMOD_APPS_APP_H

#include <mpi.h>
#include <fupermod/fupermod.h>
#include <fupermod/exec.h>
#include "model.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* the public API; the libraries build with -fvisibility=hidden */

#define FUPERMOD_APP_API 1

/* One problem of the application, from the size n the user gives (fupermod run --size) and the
 * number K of sizes at which the functions are measured. */
typedef struct fupermod_app_problem {
  long n;       /* the user's size */
  long D;       /* units distributed among the processes (d_i >= 0, summing to D) */
  long g;       /* the granule: the kernel is measured at g, 2g, ..., K g = D units */
  double iters; /* kernel runs, on a process's share, per application run */
  char kernel_subopts[256]; /* the kernel's sub-options for this problem (e.g. "n=4096") */
} fupermod_app_problem;

typedef struct fupermod_app_ops {
  int api_version;         /* FUPERMOD_APP_API */
  const char *name;        /* what --app names; letters, digits, '-' and '_' */
  const char *description; /* one line, for reports */
  const char *kernel;      /* the kernel whose functions model a process's computation */
  /* The problem of size n on a grid of K sizes: D, g (D = K g), iters and the kernel's
   * sub-options; FUPERMOD_ERR_USAGE with a message naming the constraint when n does not fit. */
  int (*problem)(long n, int K, fupermod_app_problem *pb);
  /* One run on dist (every process of comm calls it; comm's size is dist->size): set up what the
   * run needs, untimed, then run it once, from a barrier: *elapsed, this process's time of the
   * run (fupermod_time; the whole run is the slowest process's); *compute, the intervals in which
   * it computed its share (fupermod_trace_add_cpu), which its functions model. exec: the
   * process's device (fupermod/exec.h). A process with d = 0 takes part in the collective steps.
   * fupermod run calls it twice per round and times the second (the first meets fresh memory). */
  int (*run)(MPI_Comm comm, const fupermod_app_problem *pb, const fupermod_dist *dist, fupermod_exec *exec,
             fupermod_trace *compute, double *elapsed);
  /* The whole run on dist, as fupermod_jacobi_predict (apps/model.h) and the others: process i's
   * computation of one kernel run on u units is t(i, u, &ci, ctx), which the application's
   * calibration multiplies by fupermod_app_cal_comp(cal, i); its messages cost what the links cm
   * give (cm NULL: nothing), times fupermod_app_cal_msgs(cal). out->comp and out->comm, where not
   * NULL, get each process's computation and communication. */
  int (*predict)(const fupermod_app_problem *pb, const fupermod_dist *dist, fupermod_app_time t, void *ctx,
                 const fupermod_comm *cm, const fupermod_app_cal *cal, fupermod_app_pred *out);
} fupermod_app_ops;

/* A loaded application plug-in. */
typedef struct fupermod_app {
  const fupermod_app_ops *ops;
  void *handle;
  char *path;
} fupermod_app;

/* Load application NAME (fupermod_plugin_find("app", ...): fupermod_app_NAME.so where kernels
 * are found) or the plug-in at a path (containing '/' or ending in .so), and check its table:
 * FUPERMOD_ERR_INPUT naming the file and what is wrong. */
int fupermod_app_open(const char *name_or_path, fupermod_app **out);
void fupermod_app_close(fupermod_app *app);

/* The calibration's factor of process i's computation (1 where none) and of the messages. */
double fupermod_app_cal_comp(const fupermod_app_cal *cal, int i);
double fupermod_app_cal_msgs(const fupermod_app_cal *cal);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
