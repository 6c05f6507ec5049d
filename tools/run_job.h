/* fupermod run's parts (tools/cmd_run.c orchestrates them): the types they share and their
 * functions, one file each: the functions (run_models.c), the links (run_links.c), the candidates
 * (run_partition.c), the predictions (run_predict.c), the calibration (run_calibrate.c) and the
 * runs (run_exec.c). Every function is collective over MPI_COMM_WORLD unless it says rank 0. */
#ifndef FUPERMOD_TOOLS_RUN_JOB_H
#define FUPERMOD_TOOLS_RUN_JOB_H

#include <stdint.h>
#include <mpi.h>
#include "apps/app_model.h"
#include "fupermod/comm.h"
#include "tools/build_common.h"
#include "tools/run_calib.h"
#include "tools/run_history.h"
#include "tools/run_report.h"

/* What one launch holds across its applications. */
typedef struct {
  fupermod_comm links; /* every pair's messages (rank 0; p = 0 for one process), measured with the first application */
  tool_launch launch;  /* this launch: its id, date and platform (rank 0's), for the history */
  int map_shown;       /* where the ranks run: printed once, with the first application */
  int links_done;      /* the links between the processes: measured once, with the first application */
  double link_share;   /* messages at once between hosts over one at a time (fupermod_comm_share_measure; 0: one host) */
} run_job;

/* An application's whole-run model (apps/app_model.h) with the buffers its calibration fills
 * (rank 0): the factors, the solo factors (fupermod_app_model) and which processes transform
 * directly. */
typedef struct {
  fupermod_app_model m;
  double *factors, *solo;
  int *direct;
} run_model;

/* What a process computes app a with: its threads, the kernel's options, and what determines its
 * models besides them (the host, the node's lines, the kernel's code). */
typedef struct {
  int threads;   /* the line's threads=, else the cores of its binding (1 when bound to none) */
  char sub[2048]; /* the kernel's sub-options: the app's own, then the line's */
  char host[MPI_MAX_PROCESSOR_NAME];
  char *node;    /* every line of this node, with its threads, in intra-node rank order */
  uint64_t code; /* the kernel plug-in's bytes, the executor module's and the library they compute with */
  const fupermod_exec *exec; /* the process's device */
} run_exec;

/* ---- the functions (tools/run_models.c) ---- */
/* FNV-1a of n bytes into h: the fingerprints that decide what is reused. */
uint64_t run_fnv(uint64_t h, const void *data, size_t n);
/* This process's run_exec for app a (collective over the node). */
int run_exec_setup(const tool_proc *tp, const app_t *a, run_exec *ex);
/* Build or reuse this process's function for app a in o->models (resumable). */
int run_build_function(const options *o, tool_proc *tp, const app_t *a, const run_exec *ex, fupermod_points *pts,
                       double *elapsed);
/* Every process's points on rank 0 (*all, size entries). */
int run_gather_points(const fupermod_points *mine, fupermod_points **all, int size);
/* Rank 0: what building the models cost. */
void run_report_model_cost(const app_t *a, const fupermod_points *all, int size);
/* Rank 0, with --smooth: every function smoothed; *raw the measured ones, scatter[i] about the fit. */
int run_smooth_all(const options *o, fupermod_points *all, int size, fupermod_points **raw, double *scatter);

/* ---- the links (tools/run_links.c) ---- */
/* Every pair's links and the GPU processes' device links, measured or reused (job->links on rank 0);
 * the launch's platform fingerprint into job->launch. */
int run_measure_links(const options *o, tool_proc *tp, run_job *job);

/* ---- the candidates (tools/run_partition.c) ---- */
/* Partition the functions f (rank 0's) by --algorithm, PARALEPH for energy, the Pareto pick,
 * HiPOPTA, fastest alone and even, into runs[*nruns] (even last). */
int run_partition_all(const options *o, const app_t *a, fupermod_points *f, int size, run_t *runs, int *nruns,
                      fupermod_front *front, int *chosen, const tool_proc *tp);
/* SUMMA: every distribution's BR layout (rank 0's), its shares rounded to it. */
int run_realise_layouts(const options *o, const app_t *a, run_t *runs, int nruns, const fupermod_points *f, int size);
/* The whole-run partition on model m, put second where it differs from every other run. */
int run_add_whole(const options *o, const fupermod_app_model *m, const app_t *a, fupermod_points *all, int size,
                  const int *leader, run_t *runs, int *nruns);
/* SUMMA: the square-corner layout of the first run's areas, where it exists, put before even. */
int run_add_square_corner(const tool_proc *tp, const app_t *a, fupermod_points *all, int size, run_t *runs, int *nruns);
/* Whether two distributions have the same shares. */
int run_same_dist(const fupermod_dist *x, const fupermod_dist *y);

/* ---- the predictions (tools/run_predict.c; rank 0) ---- */
/* Process f's function at x: time, energy and the time's half-width, interpolated. */
void run_value_at(const fupermod_points *f, double x, double *t, double *e, double *ci);
/* The run_t's computation from the functions, then its whole run by m (quiet: no message on failure). */
void run_predict(const fupermod_app_model *m, run_t *r, const fupermod_points *f, const app_t *a, const int *leader,
                 int quiet);
/* Its whole run alone, from the computation run_predict set. */
void run_predict_whole(const fupermod_app_model *m, run_t *r, const app_t *a, int quiet);
/* The two wrong models' whole runs (run_report.h), then the model's own again. */
void run_predict_wrong(const fupermod_app_model *m, run_t *r, const app_t *a);
/* fupermod_layout's area time on the functions (ctx: the fupermod_points of every process). */
double run_area_time(int i, long area, void *ctx);

/* ---- the calibration (tools/run_calibrate.c) ---- */
/* The application's own runs on the first and the last (even) run's distributions, pooled with the
 * history of earlier launches, fitted into rm (rank 0); *loo the leave-one-out check's error. */
int run_calibrate(const options *o, tool_proc *tp, const app_t *a, MPI_Comm share, run_t *runs, int nruns, double *loo,
                  run_model *rm, const tool_launch *launch);
/* Rank 0, after the rounds: each calibration distribution's rounds appended to the calibration
 * history as one more run (their mean), so that the next launch calibrates on them too. */
int run_record_rounds(const options *o, const app_t *a, const run_t *runs, int nruns, const int *group,
                      const tool_launch *launch);

/* ---- the runs (tools/run_exec.c) ---- */
void run_init(run_t *r, const char *label, fupermod_dist *dist);
void run_free(run_t *r); /* its distribution and layout too */
/* One round's run of app a on r's distribution, recorded into r. */
int run_once(const options *o, tool_proc *tp, const app_t *a, MPI_Comm share, run_t *r);
/* After the rounds: r's means and confidence half-widths on every process. */
void run_gather_reps(const options *o, run_t *r, int rank, int size);

#endif
