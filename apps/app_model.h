/* An application's whole-run model as one object (docs/models.md, "Whole-run predictions"): what
 * the application is (SUMMA DGEMM, the 2D-FFT or a plug-in, apps/app.h), the measured links, the
 * processes that time-share cores, and the calibration's state; from them, the prediction of a
 * distribution's whole run and the per-process cost the whole-run partitioner minimises, from the
 * same factors. fupermod run (tools/cmd_run.c) keeps one per application; a program of its own can
 * too. Its variants (the wrong models the report scores, the calibration's trial factors) are
 * copies with fields changed: nothing in it changes behind a caller's back. */
#ifndef FUPERMOD_APPS_APP_MODEL_H
#define FUPERMOD_APPS_APP_MODEL_H

#include <stdint.h>
#include "app.h"
#include "model.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

typedef struct fupermod_app_model {
  /* the application: a plug-in (ops, pb), else SUMMA (b > 0) or the 2D-FFT (b == 0) of order n */
  const fupermod_app_ops *ops;
  const fupermod_app_problem *pb;
  long n, b;
  int p;                   /* processes */
  const fupermod_comm *cm; /* the measured links (NULL, or of another p: messages cost nothing) */
  const int *group;        /* group[i]: the lowest rank time-sharing i's cores (NULL: none do) */
  const int *host;         /* host[i]: i's host, numbered from 0 (NULL: all on one) */
  double link_share;       /* messages at once between hosts over one at a time (0: 1) */
  /* the calibration (NULL factors: 1): per process, 3 p entries: the computation's factor, the
   * 2D-FFT's column phase's and its copies' seconds per byte (fupermod_app_cal) */
  const double *factors;
  /* the factors of a process computing alone on cores it shared in the calibration runs (the
   * median of those that had their cores alone there): its own held its mates' share */
  const double *solo;
  const fupermod_dist *cal_dist; /* the distribution those shared cores were calibrated on */
  const int *direct;             /* 2D-FFT: 1 where a process holding the whole signal transforms it in one call */
  int shared;                    /* 2D-FFT: the run exchanges through one node's shared memory */
  double msgs;                   /* the messages' factor (0: 1) */
  double *scratch;               /* 3 p, the model's own (fupermod_app_model_init) */
} fupermod_app_model;

/* An uncalibrated model of p processes for a plug-in (ops, pb) or SUMMA / the 2D-FFT (ops NULL;
 * n, b); group may be NULL. The links and the calibration are set by the caller. */
int fupermod_app_model_init(fupermod_app_model *m, const fupermod_app_ops *ops, const fupermod_app_problem *pb, long n,
                            long b, int p, const int *group);
void fupermod_app_model_free(fupermod_app_model *m);

/* The calibration's factors as the cost models read them (apps/model.h) for the processes that
 * work in d: the solo factors for a process whose core mates all idle in d although one worked in
 * the calibration runs, its own otherwise. Valid until the next call on m. */
fupermod_app_cal fupermod_app_model_cal(const fupermod_app_model *m, const fupermod_dist *d);

/* The whole run on distribution d (SUMMA: on layout l), process i's computation of one kernel run
 * on u units being t(i, u, &ci, ctx): the application's cost model with m's links and factors. */
int fupermod_app_model_predict(const fupermod_app_model *m, const fupermod_dist *d, const fupermod_layout *l,
                               fupermod_app_time t, void *ctx, fupermod_app_pred *out);

/* Process i's cost of a share of d units (> 0) when the processes of the bit mask working work,
 * tcomp its computation of one kernel run on d units, iters the kernel runs of a whole run: the
 * objective of partitioners/whole.h, from the same factors as the prediction (a plug-in gives
 * its whole run only: its computation). */
double fupermod_app_model_share_cost(const fupermod_app_model *m, int i, long d, uint64_t working, double tcomp,
                                     double iters);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
