/* fupermod run (tools/cmd_run.c): the predictions: each distribution's computation from the
 * functions, and its whole run by the application's model (tools/run_job.h). */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cblas.h>
#include <fftw3.h>
#include <gsl/gsl_sort_double.h>
#include <gsl/gsl_statistics_double.h>
#include <mpi.h>
#include "apps/fft2d.h"
#include "apps/model.h"
#include "fupermod/comm.h"
#include "apps/summa.h"
#include "partitioners/whole.h"
#include "partitioners/hier.h"
#include "partitioners/paraleph.h"
#include "partitioners/partitioners.h"
#include "tools/build_common.h"
#include "tools/mpi_init.h"
#include "tools/run_report.h"
#include "tools/run_history.h"
#include "tools/run_calib.h"
#include "tools/provenance.h"
#include "apps/app_model.h"
#include "tools/run_job.h"

/* Process i's function at size x (x > 0): the measured point at a measured size, otherwise
 * speed and energy per unit interpolated between its neighbours (fupermod_points_interpolate,
 * as fupermod sweep evaluates), with the relative confidence half-width interpolated too. */
void run_value_at(const fupermod_points *f, double x, double *t, double *e, double *ci) {
  int lo;
  double rel;
  if (f->count == 0) {
    *t = *e = *ci = INFINITY;
    return;
  }
  lo = fupermod_points_interpolate(f, x, t, e);
  if (lo >= 0 && (double)f->pts[lo].d == x) rel = f->pts[lo].ci / f->pts[lo].t;
  else if (lo < 0) rel = f->pts[0].ci / f->pts[0].t;
  else if (lo == f->count - 1) rel = f->pts[lo].ci / f->pts[lo].t;
  else {
    const fupermod_point *l = &f->pts[lo], *h = &f->pts[lo + 1];
    double w = (x - (double)l->d) / (double)(h->d - l->d);
    rel = (1 - w) * l->ci / l->t + w * h->ci / h->t;
  }
  *ci = rel * *t;
}

typedef struct {
  const run_t *r;
  const app_t *a;
} run_time_ctx;

/* Process i's time of one kernel run on units (fupermod_app_time): run_predict()'s at its share (a
 * group's, for processes time-sharing cores) in proportion. */
static double run_time_of(int i, double units, double *ci, void *ctx) {
  const run_time_ctx *c = ctx;
  long d = c->r->dist->parts[i].d;
  double s = d > 0 ? units / (double)d : 0.0;
  if (ci) *ci = c->r->pred_ci[i] / c->a->iters * s;
  return c->r->dist->parts[i].t * s;
}

/* The whole run on r's distribution, by the application's model m (quiet: a failed prediction is
 * no news, as for the descent's trial distributions). */
void run_predict_whole(const fupermod_app_model *m, run_t *r, const app_t *a, int quiet) {
  run_time_ctx c = {r, a};
  fupermod_app_pred pr = {0, 0, r->pred_comp, r->pred_comm};
  int rc = fupermod_app_model_predict(m, r->dist, r->layout, run_time_of, &c, &pr);
  r->pred_run = rc == FUPERMOD_SUCCESS ? pr.time : NAN;
  r->pred_run_ci = rc == FUPERMOD_SUCCESS ? pr.ci : NAN;
  if (rc != FUPERMOD_SUCCESS && !quiet)
    fprintf(stderr, "fupermod run: %s: no whole-run prediction for %s: %s\n", a->name, r->label, fupermod_error_message());
}

/* r's whole run by the two wrong models the report scores beside the model (run_report.h): the
 * functions and links alone (the calibration's factors 1; the structure kept: core groups, shared
 * memory, direct transforms), and the calibrated model without messages (rank 0). */
void run_predict_wrong(const fupermod_app_model *m, run_t *r, const app_t *a) {
  fupermod_app_model uncal = *m, nomsg = *m;
  uncal.factors = uncal.solo = NULL;
  uncal.msgs = 0;
  nomsg.cm = NULL;
  run_predict_whole(&uncal, r, a, 1);
  r->pred_wrong[TOOL_MODEL_UNCALIBRATED] = r->pred_run;
  run_predict_whole(&nomsg, r, a, 1);
  r->pred_wrong[TOOL_MODEL_NO_MESSAGES] = r->pred_run;
  run_predict_whole(m, r, a, 0); /* the model's own, per process too */
}

/* Predictions of a distribution from the measured functions. Processes that time-share cores
 * (leader[i], the lowest rank of i's group) were measured together, each with the same size:
 * their point at x is how long their cores need for x from each of them. The group's
 * prediction, which every member shows, is therefore the members' mean at the group's mean
 * share, compared with how long the cores computed in the run (fupermod_share_busy). */
void run_predict(const fupermod_app_model *m, run_t *r, const fupermod_points *f, const app_t *a, const int *leader,
                    int quiet) {
  int p = r->dist->size;
  double T = 0, E = 0;
  for (int i = 0; i < p; i++) {
    long d = r->dist->parts[i].d;
    double t = 0, e = 0, ci = 0;
    if (d > 0) run_value_at(&f[i], (double)d, &t, &e, &ci);
    r->dist->parts[i].t = t;
    r->dist->parts[i].e = e;
    r->pred_ci[i] = ci * a->iters;
  }
  for (int g = 0; g < p; g++) {
    int members = 0;
    double sum = 0, t = 0, ci = 0;
    for (int i = 0; i < p; i++)
      if (leader[i] == g) {
        members++;
        sum += (double)r->dist->parts[i].d;
      }
    if (members < 2) continue;
    for (int i = 0; i < p && sum > 0; i++)
      if (leader[i] == g) {
        double ti, ei, cii;
        run_value_at(&f[i], sum / members, &ti, &ei, &cii);
        t += ti / members;
        ci += cii / members;
      }
    for (int i = 0; i < p; i++)
      if (leader[i] == g) {
        r->dist->parts[i].t = t;
        r->pred_ci[i] = ci * a->iters;
      }
  }
  for (int i = 0; i < p; i++) {
    if (r->dist->parts[i].t > T) T = r->dist->parts[i].t;
    E += r->dist->parts[i].e;
  }
  r->pred_time = T * a->iters;
  r->pred_energy = E * a->iters;
  run_predict_whole(m, r, a, quiet);
}

/* as run_predict() sees it (ctx: the functions) */
double run_area_time(int i, long area, void *ctx) {
  const fupermod_points *f = ctx;
  double t, e, ci;
  run_value_at(&f[i], (double)area, &t, &e, &ci);
  return t;
}
