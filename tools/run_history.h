/* What every fupermod run learns and keeps (docs/models.md, "History"): beside the models (MODELS:
 * fupermod run --models, by default OUT/models), in MODELS/history.csv, each application's
 * distinct distributions with their predicted and measured whole runs, launch by launch; in MODELS/calibration.csv, each calibration run's
 * factors. The next launch on the same platform calibrates on those runs and its own, robustly,
 * and runs fewer calibration runs of its own. */
#ifndef FUPERMOD_TOOLS_RUN_HISTORY_H
#define FUPERMOD_TOOLS_RUN_HISTORY_H

#include <stdint.h>
#include "tools/run_report.h"

/* One launch's identity: when, which fupermod, and on what (a fingerprint of every process's
 * configuration line and host). */
typedef struct {
  char launch[64];   /* the launch's id: its UTC time and rank 0's process id */
  char date[32];     /* ISO 8601, UTC */
  uint64_t platform;
} tool_launch;

void tool_launch_init(tool_launch *l, uint64_t platform);

/* Calibration runs: n runs of p processes, each its whole run and 3p factors (the layout of
 * run_model's factors (tools/run_job.h): computation, column phase, copies per byte). */
typedef struct {
  int n, p, cap;
  double *whole;
  double *f;
} tool_cal_runs;

void tool_cal_runs_free(tool_cal_runs *r);
int tool_cal_runs_add(tool_cal_runs *r, double whole, const double *f);

/* The calibration runs kept for (platform, app, size) on distribution d (the same shares), from
 * MODELS/calibration.csv, since the last launch that calibrated afresh (none: r->n = 0). A
 * malformed line is an error naming it. */
int tool_history_cal_load(const char *models, const tool_launch *l, const app_t *a, const fupermod_dist *d,
                          tool_cal_runs *r);
/* Append the launch's own calibration runs; fresh: the launch calibrated afresh
 * (the platform drifted), so that the runs kept before it stop counting. */
int tool_history_cal_append(const char *models, const tool_launch *l, const app_t *a, const fupermod_dist *d,
                            const tool_cal_runs *r, int fresh);

/* Runs of an application's own program kept in MODELS/runs.csv (apps/record.h, docs/formats.md
 * "Application runs"): n runs of p processes, each its whole time and per rank the phases asked
 * for (NAN where a line lacks one). */
typedef struct {
  int n, p, nnames;
  double *whole;  /* n */
  double *phases; /* n x p x nnames: run k, rank r, phase j at (k p + r) nnames + j */
} tool_app_runs;

/* The runs of app (as the program records it: "summa", "fft2d") of problem size `size` on p =
 * d->size processes where every rank r ran on hosts[r] with share d->parts[r].d: the same
 * distribution on the same hosts. Nothing where the file does not exist; a malformed line is an
 * error naming it. */
int tool_history_app_runs(const char *models, const char *app, long size, const fupermod_dist *d,
                          const char *const *hosts, int nnames, const char *const *names, tool_app_runs *out);
void tool_app_runs_free(tool_app_runs *r);

/* Append the launch's distinct distributions of app a (as the report counts them) to
 * MODELS/history.csv, and their per-process phases to MODELS/phases.csv. */
int tool_history_append(const char *models, const tool_launch *l, const app_t *a, const run_t *runs, int nruns, int best);

/* fupermod model history DIR: the prediction error and the regret, launch by launch. */
int tool_history_print(const char *dir);

/* The median of v[0..n-1] (n > 0), sorting v. */
double tool_median(double *v, int n);

#endif
