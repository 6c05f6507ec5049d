/* The whole-run model's calibration over several distributions (tools/run_calib.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include "fupermod/error.h"
#include "tools/run_calib.h"

/* keep[k]: run k within 5 x 1.4826 MADs (and 20 %) of r's median whole run; *whole: the kept
 * runs' median (NaN: no runs). Returns the runs rejected, -1 out of memory. */
static int keep_runs(const tool_cal_runs *r, int *keep, double *whole) {
  int n = r->n, m = 0, rejected = 0;
  double *w = malloc((size_t)(n > 0 ? n : 1) * sizeof *w), *dev = malloc((size_t)(n > 0 ? n : 1) * sizeof *dev), med, mad;
  *whole = NAN;
  if (!w || !dev || n <= 0) {
    free(w), free(dev);
    return n <= 0 ? 0 : -1;
  }
  memcpy(w, r->whole, (size_t)n * sizeof *w);
  med = tool_median(w, n);
  for (int k = 0; k < n; k++) dev[k] = fabs(r->whole[k] - med);
  mad = tool_median(dev, n);
  for (int k = 0; k < n; k++) {
    keep[k] = fabs(r->whole[k] - med) <= fmax(5 * 1.4826 * mad, 0.2 * med);
    rejected += !keep[k];
    if (keep[k]) w[m++] = r->whole[k];
  }
  *whole = tool_median(w, m);
  free(w), free(dev);
  return rejected;
}

int tool_cal_pool(const tool_cal_runs *r, double *out, double *whole) {
  int n = r->n, p = r->p, rejected;
  int *keep = calloc((size_t)(n > 0 ? n : 1), sizeof *keep);
  double *w = malloc((size_t)(n > 0 ? n : 1) * sizeof *w);
  if (!keep || !w || n == 0 || (rejected = keep_runs(r, keep, whole)) < 0) {
    free(keep), free(w);
    *whole = NAN;
    return 0;
  }
  for (int j = 0; j < 3 * p; j++) {
    int m = 0;
    for (int k = 0; k < n; k++)
      if (keep[k]) w[m++] = r->f[(size_t)k * 3 * p + j];
    out[j] = tool_median(w, m);
  }
  free(keep), free(w);
  return rejected;
}

void tool_cal_fit_free(tool_cal_fit *f) {
  free(f->f);
  free(f->whole);
  memset(f, 0, sizeof *f);
}

/* The whole run predicted with f and the messages' factor m (0: the links' own). */
static double predict_with(int s, const double *f, double m, tool_cal_predict pred, void *ctx) {
  double w1 = pred(s, f, 1, ctx), w0;
  if (!(m > 0)) return w1;
  w0 = pred(s, f, 0, ctx);
  return w0 + m * (w1 - w0);
}

int tool_cal_fit_sets(const tool_cal_runs *sets, int nsets, unsigned use, tool_cal_predict pred, void *ctx,
                      tool_cal_fit *out) {
  int p = sets[0].p, total = 0, rc = FUPERMOD_SUCCESS;
  int **keep = calloc((size_t)nsets, sizeof *keep);
  double *v, num = 0, den = 0;
  memset(out, 0, sizeof *out);
  for (int s = 0; s < nsets; s++) total += sets[s].n;
  out->f = calloc(3 * (size_t)p, sizeof *out->f);
  out->whole = malloc((size_t)nsets * sizeof *out->whole);
  v = malloc((size_t)(total > 0 ? total : 1) * sizeof *v);
  for (int s = 0; keep && s < nsets; s++)
    if (!(keep[s] = calloc((size_t)(sets[s].n > 0 ? sets[s].n : 1), sizeof **keep))) rc = FUPERMOD_ERR_NOMEM;
  if (!keep || !out->f || !out->whole || !v || rc != FUPERMOD_SUCCESS) {
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "run: out of memory");
    goto done;
  }
  for (int s = 0; s < nsets; s++) {
    int rej = keep_runs(&sets[s], keep[s], &out->whole[s]);
    if (rej < 0) {
      rc = fupermod_error(FUPERMOD_ERR_NOMEM, "run: out of memory");
      goto done;
    }
    if (use >> s & 1u) out->rejected += rej;
  }
  /* a process idle in a distribution has no factor there (0): only where it worked counts */
  for (int j = 0; j < 3 * p; j++) {
    int m = 0;
    for (int s = 0; s < nsets; s++)
      for (int k = 0; (use >> s & 1u) && k < sets[s].n; k++)
        if (keep[s][k] && sets[s].f[(size_t)k * 3 * p + j] > 0) v[m++] = sets[s].f[(size_t)k * 3 * p + j];
    out->f[j] = m > 0 ? tool_median(v, m) : 0.0;
  }
  /* least squares on relative errors, so that a short distribution weighs as a long one */
  for (int s = 0; s < nsets; s++) {
    double M = out->whole[s], w1, w0, d, r;
    if (!(use >> s & 1u) || !(M > 0)) continue;
    w1 = pred(s, out->f, 1, ctx);
    w0 = pred(s, out->f, 0, ctx);
    if (!isfinite(w1) || !isfinite(w0) || !(w1 > w0)) continue;
    d = (w1 - w0) / M, r = (M - w0) / M;
    num += d * r, den += d * d;
  }
  out->msgs = den > 0 ? fmax(fmin(num / den, 10.0), 0.2) : 0.0;
done:
  for (int s = 0; keep && s < nsets; s++) free(keep[s]);
  free(keep), free(v);
  if (rc != FUPERMOD_SUCCESS) tool_cal_fit_free(out);
  return rc;
}

int tool_cal_bootstrap(const tool_cal_runs *sets, int nsets, tool_cal_predict pred, void *ctx, int B, double cl,
                       double *lo, double *hi, double *msgs_lo, double *msgs_hi) {
  int p = sets[0].p, rc = FUPERMOD_SUCCESS;
  tool_cal_runs *rs = calloc((size_t)nsets, sizeof *rs);
  double *fs = malloc((size_t)B * 3 * (size_t)p * sizeof *fs), *ms = malloc((size_t)B * sizeof *ms),
         *col = malloc((size_t)B * sizeof *col);
  gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
  if (!rs || !fs || !ms || !col || !g) {
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "run: out of memory");
    goto done;
  }
  gsl_rng_set(g, 20261207);
  for (int b = 0; b < B && rc == FUPERMOD_SUCCESS; b++) {
    tool_cal_fit fit;
    for (int s = 0; s < nsets && rc == FUPERMOD_SUCCESS; s++) {
      rs[s].n = 0;
      rs[s].p = p;
      for (int k = 0; k < sets[s].n && rc == FUPERMOD_SUCCESS; k++) {
        unsigned long u = gsl_rng_uniform_int(g, (unsigned long)sets[s].n);
        rc = tool_cal_runs_add(&rs[s], sets[s].whole[u], sets[s].f + u * 3 * (size_t)p);
      }
    }
    if (rc == FUPERMOD_SUCCESS && (rc = tool_cal_fit_sets(rs, nsets, ~0u, pred, ctx, &fit)) == FUPERMOD_SUCCESS) {
      memcpy(fs + (size_t)b * 3 * p, fit.f, 3 * (size_t)p * sizeof *fs);
      ms[b] = fit.msgs;
      tool_cal_fit_free(&fit);
    }
  }
  for (int j = 0; rc == FUPERMOD_SUCCESS && j <= 3 * p; j++) {
    double *l = j < 3 * p ? &lo[j] : msgs_lo, *h = j < 3 * p ? &hi[j] : msgs_hi;
    for (int b = 0; b < B; b++) col[b] = j < 3 * p ? fs[(size_t)b * 3 * p + j] : ms[b];
    gsl_sort(col, 1, (size_t)B);
    *l = gsl_stats_quantile_from_sorted_data(col, 1, (size_t)B, (1 - cl) / 2);
    *h = gsl_stats_quantile_from_sorted_data(col, 1, (size_t)B, (1 + cl) / 2);
  }
done:
  for (int s = 0; rs && s < nsets; s++) tool_cal_runs_free(&rs[s]);
  free(rs), free(fs), free(ms), free(col);
  if (g) gsl_rng_free(g);
  return rc;
}

int tool_cal_leave_one_out(const tool_cal_runs *sets, int nsets, tool_cal_predict pred, void *ctx, double *pred_s,
                           double *meas_s) {
  int rc = FUPERMOD_SUCCESS;
  for (int s = 0; s < nsets && rc == FUPERMOD_SUCCESS; s++) {
    tool_cal_fit fit;
    unsigned others = (nsets >= 32 ? ~0u : (1u << nsets) - 1u) & ~(1u << s);
    if ((rc = tool_cal_fit_sets(sets, nsets, others, pred, ctx, &fit)) != FUPERMOD_SUCCESS) break;
    meas_s[s] = fit.whole[s];
    pred_s[s] = predict_with(s, fit.f, fit.msgs, pred, ctx);
    tool_cal_fit_free(&fit);
  }
  return rc;
}
