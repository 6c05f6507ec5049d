/* The whole-run model's calibration over several distributions (docs/models.md, "Calibration of
 * the whole-run model"): the factors pooled over every calibration run where a process worked,
 * the messages' factor fitted on all the distributions at once, bootstrap intervals over the runs,
 * and a leave-one-out check (fitted without a distribution, predicting it). Pure: the predictions
 * come from the caller's cost model through tool_cal_predict. */
#ifndef FUPERMOD_TOOLS_RUN_CALIB_H
#define FUPERMOD_TOOLS_RUN_CALIB_H

#include "tools/run_history.h"

/* Set s's distribution's whole run by the cost model with the factors f (3p, run_model's factors' layout;
 * an entry 0: factor 1), its messages priced by the links (with = 1) or free (with = 0). */
typedef double (*tool_cal_predict)(int s, const double *f, int with, void *ctx);

typedef struct {
  double *f;       /* 3p: per entry the median over the kept runs of every set where it is > 0 (0: none) */
  double msgs;     /* the messages' time over the links' (0: no set has messages to fit) */
  double *whole;   /* per set: the median whole run of its kept runs (NaN: no runs) */
  int rejected;    /* runs rejected as outlying (a whole run beyond 5 MADs and 20 % of its set's median) */
} tool_cal_fit;

/* Fit on the sets s with bit s of use set (nsets <= 32; each set its distribution's runs, of p
 * processes). The messages' factor m minimises the squared relative errors of the sets' median
 * whole runs, pred(m) = without + m (with - without), within [0.2, 10]. out's arrays are
 * allocated here; tool_cal_fit_free frees them. */
int tool_cal_fit_sets(const tool_cal_runs *sets, int nsets, unsigned use, tool_cal_predict pred, void *ctx,
                      tool_cal_fit *out);
void tool_cal_fit_free(tool_cal_fit *f);

/* Percentile intervals at level cl of every factor and of the messages' factor: B fits of the runs
 * resampled with replacement within each set (a fixed seed: every launch's interval is
 * reproducible from its runs). lo, hi: 3p each. */
int tool_cal_bootstrap(const tool_cal_runs *sets, int nsets, tool_cal_predict pred, void *ctx, int B, double cl,
                       double *lo, double *hi, double *msgs_lo, double *msgs_hi);

/* For each set s (nsets >= 2): fitted on the other sets alone, s's predicted whole run pred_s[s]
 * and its measured median meas_s[s]. */
int tool_cal_leave_one_out(const tool_cal_runs *sets, int nsets, tool_cal_predict pred, void *ctx, double *pred_s,
                           double *meas_s);

/* Robust pooling of one set's runs: a run whose whole time lies farther from the median than
 * 5 x 1.4826 x MAD (and 20 % of it) is rejected (a spike of the host is not learned); out[j] the
 * median of factor j over the others, *whole their median whole run. Returns the runs rejected. */
int tool_cal_pool(const tool_cal_runs *r, double *out, double *whole);

#endif
