/* PARALEPH with SUMMA's communication cost (partitioners/paraleph.h): the table without the idle
 * option, then the number of busy processors c* that minimises computation plus communication. */
#include <math.h>
#include <stdlib.h>
#include "partitioners/paraleph_impl.h"

double fupermod_summa_comm_time(const fupermod_summa_comm *cm, int c) {
  double s = sqrt((double)c);
  return (log2((double)c) + 2.0 * (s - 1.0)) * cm->alpha * cm->N / cm->b +
         4.0 * (1.0 - 1.0 / s) * cm->beta * cm->N * cm->N / s;
}

int fupermod_paraleph_summa(MPI_Comm comm, int root, const fupermod_problem *prob,
                            const fupermod_summa_comm *cm, int threads, fupermod_dist **out,
                            double *comm_time, fupermod_paraleph_stats *stats) {
  pl_ctx ctx;
  pl_problem P;
  pl_run R;
  double t0 = fupermod_paraleph_now(), cmv[4] = {0};
  int rc;
  if (out) *out = NULL;
  if ((rc = fupermod_paraleph_ctx_open(comm, root, &ctx))) return rc;
  /* the model parameters are read on root like the problem */
  if (ctx.rank == ctx.root) {
    if (!out) rc = fupermod_error(FUPERMOD_ERR_USAGE, "paraleph summa: no output given");
    else if (!cm || !(cm->alpha >= 0) || !(cm->beta >= 0) || !(cm->N > 0) || !(cm->b > 0) ||
             !isfinite(cm->alpha + cm->beta + cm->N + cm->b))
      rc = fupermod_error(FUPERMOD_ERR_USAGE, "paraleph summa: need alpha, beta >= 0 and N, b > 0");
    else {
      cmv[0] = cm->alpha;
      cmv[1] = cm->beta;
      cmv[2] = cm->N;
      cmv[3] = cm->b;
    }
  } else if (!out)
    rc = fupermod_error(FUPERMOD_ERR_USAGE, "paraleph summa: no output given");
  rc = fupermod_paraleph_agree(&ctx, rc);
  if (rc) {
    fupermod_paraleph_ctx_close(&ctx);
    return rc;
  }
  fupermod_paraleph_bcast(&ctx, cmv, 4, MPI_DOUBLE, ctx.root);
  fupermod_summa_comm model = {cmv[0], cmv[1], cmv[2], cmv[3]};
  if ((rc = fupermod_paraleph_problem_bcast(&ctx, prob, FUPERMOD_OBJ_TIME, &P))) {
    fupermod_paraleph_ctx_close(&ctx);
    return rc;
  }
  rc = fupermod_paraleph_run_table(&ctx, &P, PL_OP_MAX, 0, threads, FUPERMOD_PARALEPH_AUTO, 0, 0, &R);
  long *d = NULL;
  double *row = NULL, best = INFINITY, bestc = 0;
  int cstar = 0;
  if (rc == 0) {
    /* dpt(D, c) for every c, on every rank */
    d = malloc((size_t)P.p * sizeof *d);
    row = calloc((size_t)P.p, sizeof *row);
    rc = fupermod_paraleph_agree(&ctx, d && row ? 0 : fupermod_error(FUPERMOD_ERR_NOMEM, "paraleph: out of memory"));
  }
  if (rc == 0) {
    for (int c = 0; c < R.lay.nb; c++) row[R.lay.h0 - 1 + c] = pl_run_val(&R, (size_t)c, P.D);
    if (ctx.size > 1) {
      double c0 = fupermod_paraleph_now();
      MPI_Allreduce(MPI_IN_PLACE, row, P.p, MPI_DOUBLE, MPI_SUM, ctx.comm);
      ctx.comm_time += fupermod_paraleph_now() - c0;
    }
    for (int c = 1; c <= P.p; c++) {
      double cc = fupermod_summa_comm_time(&model, c), tot = row[c - 1] + cc;
      if (tot < best) {
        best = tot;
        bestc = cc;
        cstar = c;
      }
    }
    if (!isfinite(best))
      rc = fupermod_error(FUPERMOD_ERR_INFEASIBLE, "paraleph summa: no distribution of D=%ld units "
                          "over 1..%d busy processors", P.D, P.p);
  }
  if (rc == 0) {
    fupermod_paraleph_traceback(&ctx, &R, cstar, d);
    rc = fupermod_paraleph_agree(&ctx, fupermod_paraleph_make_dist(&P, d, out));
    if (rc && *out) {
      fupermod_dist_free(*out);
      *out = NULL;
    }
    if (rc == 0 && comm_time) *comm_time = bestc;
  }
  if (R.P) {
    fupermod_paraleph_finish_stats(&ctx, &R, t0, best, stats);
    fupermod_paraleph_run_free(&R);
  }
  free(d);
  free(row);
  fupermod_paraleph_problem_free(&P);
  fupermod_paraleph_ctx_close(&ctx);
  return rc;
}
