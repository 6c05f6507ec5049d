/* The CPU executor's FFTs: FFTW guru plans (two batch loops: the signals, then the blocks), made
 * with the executor's threads and FFTW_ESTIMATE on first use of a layout, kept for the life of
 * the executor, and run with the executor's OpenMP thread count, which FFTW's OpenMP loops take
 * from the calling thread. fftw3.h only here (P2). */
#include <pthread.h>
#include <stdlib.h>
#include <fftw3.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "fupermod/exec_impl.h"

typedef struct cached {
  fupermod_exec_fft_layout l;
  int sign, align;
  fftw_plan plan;
  struct cached *next;
} cached;

/* FFTW's planner is process-wide state and not thread-safe */
static pthread_mutex_t planner = PTHREAD_MUTEX_INITIALIZER;
static int threads_ready;

static int same(const fupermod_exec_fft_layout *a, const fupermod_exec_fft_layout *b) {
  return a->n == b->n && a->howmany == b->howmany && a->stride == b->stride && a->dist == b->dist &&
         a->blocks == b->blocks && a->block_dist == b->block_dist;
}

int fupermod_exec_cpu_fft(fupermod_exec_cpu *c, const fupermod_exec_fft_layout *l, double *data, int sign) {
  fftw_complex *x = (fftw_complex *)data;
  int align = fftw_alignment_of(data);
  cached *p;
  for (p = c->plans; p && !(same(&p->l, l) && p->sign == sign && p->align == align); p = p->next) {}
  if (!p) {
    fftw_iodim dim = {(int)l->n, (int)l->stride, (int)l->stride};
    fftw_iodim loops[2] = {{(int)l->howmany, (int)l->dist, (int)l->dist}, {(int)l->blocks, (int)l->block_dist, (int)l->block_dist}};
    int saved;
    if (!(p = calloc(1, sizeof *p))) return fupermod_error(FUPERMOD_ERR_NOMEM, "executor FFT: out of memory");
    pthread_mutex_lock(&planner);
    if (!threads_ready) threads_ready = fftw_init_threads();
    saved = fftw_planner_nthreads();
    fftw_plan_with_nthreads(c->threads);
    /* ESTIMATE does not touch the data while planning */
    p->plan = fftw_plan_guru_dft(1, &dim, l->blocks > 1 ? 2 : 1, loops, x, x, sign, FFTW_ESTIMATE);
    fftw_plan_with_nthreads(saved);
    pthread_mutex_unlock(&planner);
    if (!p->plan) {
      free(p);
      return fupermod_error(FUPERMOD_ERR_SYSTEM, "executor FFT: FFTW cannot plan %ld x %ld transforms of %ld (stride %ld, "
                            "distance %ld)", l->blocks, l->howmany, l->n, l->stride, l->dist);
    }
    p->l = *l;
    p->sign = sign;
    p->align = align;
    p->next = c->plans;
    c->plans = p;
  }
#ifdef _OPENMP
  {
    int saved = omp_get_max_threads();
    omp_set_num_threads(c->threads);
    fftw_execute_dft(p->plan, x, x);
    omp_set_num_threads(saved);
  }
#else
  fftw_execute_dft(p->plan, x, x);
#endif
  return FUPERMOD_SUCCESS;
}

void fupermod_exec_cpu_fft_free(fupermod_exec_cpu *c) {
  cached *p = c->plans;
  while (p) {
    cached *next = p->next;
    pthread_mutex_lock(&planner);
    fftw_destroy_plan(p->plan);
    pthread_mutex_unlock(&planner);
    free(p);
    p = next;
  }
  c->plans = NULL;
}
