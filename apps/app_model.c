/* An application's whole-run model as one object (apps/app_model.h). */
#include <stdlib.h>
#include <string.h>
#include "apps/app_model.h"

int fupermod_app_model_init(fupermod_app_model *m, const fupermod_app_ops *ops, const fupermod_app_problem *pb, long n,
                            long b, int p, const int *group) {
  if (!m || p < 1 || (ops && !pb) || (!ops && n < 1))
    return fupermod_error(FUPERMOD_ERR_USAGE, "application model: %d processes, n = %ld%s", p, n, ops && !pb ? ", no problem" : "");
  memset(m, 0, sizeof *m);
  m->ops = ops, m->pb = pb, m->n = n, m->b = b, m->p = p, m->group = group;
  if (!(m->scratch = calloc(3 * (size_t)p, sizeof *m->scratch)))
    return fupermod_error(FUPERMOD_ERR_NOMEM, "application model: out of memory");
  return FUPERMOD_SUCCESS;
}

void fupermod_app_model_free(fupermod_app_model *m) {
  if (!m) return;
  free(m->scratch);
  m->scratch = NULL;
}

/* Whether process i works while every other process of its core group idles (working: a mask of
 * the working processes, or NULL with d) although one of them worked in the calibration runs. */
static int alone_now(const fupermod_app_model *m, int i, uint64_t working, const fupermod_dist *d) {
  int mates = 0;
  if (!m->group || !m->cal_dist) return 0;
  for (int j = 0; j < m->p; j++) {
    if (j == i || m->group[j] != m->group[i]) continue;
    if (d ? d->parts[j].d > 0 : j < 64 && (working >> j & 1)) return 0;
    mates += m->cal_dist->parts[j].d > 0;
  }
  return mates > 0;
}

/* the factors f (3 p) as the cost models read them */
static fupermod_app_cal view(const fupermod_app_model *m, const double *f) {
  int fft = !m->ops && m->b == 0;
  return (fupermod_app_cal){f, fft && f ? f + m->p : NULL, fft && f ? f + 2 * m->p : NULL, m->direct, m->shared, m->msgs,
                            m->group, m->host, m->link_share};
}

fupermod_app_cal fupermod_app_model_cal(const fupermod_app_model *m, const fupermod_dist *d) {
  int p = m->p;
  if (!m->solo || !m->factors || !d || d->size != p) return view(m, m->factors);
  for (int i = 0; i < p; i++)
    for (int k = 0; k < 3; k++)
      m->scratch[k * p + i] = (d->parts[i].d > 0 && alone_now(m, i, 0, d) ? m->solo : m->factors)[k * p + i];
  return view(m, m->scratch);
}

int fupermod_app_model_predict(const fupermod_app_model *m, const fupermod_dist *d, const fupermod_layout *l,
                               fupermod_app_time t, void *ctx, fupermod_app_pred *out) {
  fupermod_app_cal cl = fupermod_app_model_cal(m, d);
  const fupermod_comm *cm = m->cm && m->cm->p == d->size ? m->cm : NULL;
  if (m->ops) return m->ops->predict(m->pb, d, t, ctx, cm, &cl, out);
  if (m->b > 0) {
    if (!l) return fupermod_error(FUPERMOD_ERR_USAGE, "application model: SUMMA's prediction needs its layout");
    return fupermod_summa_predict(l, (int)m->n, (int)m->b, t, ctx, cm, &cl, out);
  }
  return fupermod_fft2d_predict(m->n, m->n, d, t, ctx, cm, &cl, out);
}

double fupermod_app_model_share_cost(const fupermod_app_model *m, int i, long d, uint64_t working, double tcomp,
                                     double iters) {
  /* only i's factors are read: the solo ones where it computes alone on cores it shared */
  fupermod_app_cal cl = view(m, m->solo && m->factors && alone_now(m, i, working, NULL) ? m->solo : m->factors);
  const fupermod_comm *cm = m->cm && m->cm->p == m->p ? m->cm : NULL;
  if (m->ops) return fupermod_app_cal_comp(&cl, i) * tcomp * iters;
  return m->b > 0 ? fupermod_summa_share_cost((int)m->n, (int)m->b, i, d, working, tcomp, cm, &cl)
                  : fupermod_fft2d_share_cost(m->n, m->n, i, d, working, tcomp, cm, &cl);
}
