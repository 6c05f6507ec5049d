/* fupermod run (tools/cmd_run.c): the candidate distributions: the partitioners', the whole-run
 * partition's, the layouts SUMMA runs on (tools/run_job.h). */
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

static const char SUB[] = "run";

/* SUMMA computes whole rectangles of blocks: every distribution becomes the areas of its BR layout
 * (rounding can move a block row or column from one process to another), and a time-optimal one
 * gets the integer sizes its arrangement predicts fastest (fupermod_layout_fit), so that what is
 * predicted and reported is what runs. Collective; the layouts stay on rank 0. */
int run_realise_layouts(const options *o, const app_t *a, run_t *runs, int nruns, const fupermod_points *f,
                           int size) {
  int rank, rc = FUPERMOD_SUCCESS, nb = (int)(a->n / a->b);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (int k = 0; k < nruns && rank == 0 && rc == FUPERMOD_SUCCESS; k++) {
    int fit = strcmp(runs[k].label, o->algorithm) == 0 || strcmp(runs[k].label, "hipopta") == 0 ||
              strcmp(runs[k].label, "whole-run") == 0;
    rc = tool_dist_layout(runs[k].dist, nb, nb, fit ? run_area_time : NULL, (void *)f, &runs[k].layout, NULL);
  }
  MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
  for (int k = 0; k < nruns && rc == FUPERMOD_SUCCESS; k++)
    for (int i = 0; i < size; i++) MPI_Bcast(&runs[k].dist->parts[i].d, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  return rc;
}

/* HiPOPTA (exact two-level) over the configuration's nodes or groups, on rank 0; NULL when the
 * processes form one group. The result is in rank order. */
static fupermod_dist *hier_partition(const app_t *a, fupermod_points *f, int size, const tool_proc *tp, int *rc) {
  int rank, *index = NULL;
  const fupermod_points **fp = NULL;
  fupermod_dist *out = NULL;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  *rc = FUPERMOD_SUCCESS;
  if (rank == 0) {
    index = malloc((size_t)size * sizeof *index);
    fp = malloc((size_t)size * sizeof *fp);
    if (!index || !fp) *rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
    for (int r = 0; fp && r < size; r++) fp[r] = &f[r];
  }
  MPI_Gather(&tp->index, 1, MPI_INT, index, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank == 0 && *rc == FUPERMOD_SUCCESS) *rc = tool_hier_partition(&tp->conf, index, a->D, size, fp, &out);
  MPI_Bcast(rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
  {
    int have = out != NULL;
    MPI_Bcast(&have, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (*rc == FUPERMOD_SUCCESS && have) {
      if (rank != 0) out = fupermod_dist_alloc(a->D, size);
      for (int i = 0; i < size; i++) MPI_Bcast(&out->parts[i].d, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    }
  }
  free(index);
  free(fp);
  return out;
}

/* The reference where one process does all: the one its function predicts fastest for the whole
 * (rank 0 decides; every rank gets the distribution). */
static fupermod_dist *fastest_alone(const app_t *a, const fupermod_points *f, int size) {
  fupermod_dist *d = fupermod_dist_alloc(a->D, size);
  int rank, best = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    double tbest = INFINITY;
    for (int i = 0; i < size; i++) {
      double t, e, ci;
      run_value_at(&f[i], (double)a->D, &t, &e, &ci);
      if (t > 0 && t < tbest) tbest = t, best = i;
    }
  }
  MPI_Bcast(&best, 1, MPI_INT, 0, MPI_COMM_WORLD);
  for (int i = 0; i < size; i++) d->parts[i].d = i == best ? a->D : 0;
  return d;
}

typedef struct {
  const app_t *a;
  const fupermod_points *f;
  const fupermod_app_model *m;
  long unit; /* the partition's step: 1 (every share the application realises) or the granule */
} whole_ctx;

/* The application's cost of u steps (of w->unit) on process i when the processes of working work
 * (fupermod_whole_cost), on the functions as run_predict() evaluates them. */
static double whole_cost(int i, long u, uint64_t working, void *ctx) {
  const whole_ctx *w = ctx;
  long d = u * w->unit;
  double t, e, ci;
  run_value_at(&w->f[i], (double)d, &t, &e, &ci);
  if (!(t > 0) || !isfinite(t)) return INFINITY;
  /* a plug-in gives its whole run only: its computation here, the descent then on its prediction */
  return fupermod_app_model_share_cost(w->m, i, d, working, t, w->a->iters);
}

/* The whole-run prediction of distribution d as it would run (fupermod_app_predict_fn; rank 0):
 * SUMMA's on the layout realise_layouts gives it. */
typedef struct {
  const app_t *a;
  const fupermod_points *f;
  const int *leader;
  const fupermod_app_model *m;
} descend_ctx;

static double predict_dist(const fupermod_dist *d, void *ctx) {
  const descend_ctx *c = ctx;
  fupermod_dist *x = fupermod_dist_alloc(d->D, d->size);
  run_t r;
  double t = NAN;
  if (!x) return NAN;
  fupermod_dist_copy(x, d);
  run_init(&r, "whole-run", x);
  if (!c->a->b || tool_dist_layout(r.dist, (int)(c->a->n / c->a->b), (int)(c->a->n / c->a->b), run_area_time, (void *)c->f,
                                   &r.layout, NULL) == FUPERMOD_SUCCESS) {
    run_predict(c->m, &r, c->f, c->a, c->leader, 1);
    t = r.pred_run;
  }
  run_free(&r);
  return t;
}

/* The distribution of least whole-run cost over every set of working processes (partitioners/whole.h),
 * in steps of one unit or of the granule, exact on the per-process costs (an approximation of
 * the prediction, apps/model.h), then descended on the prediction itself to a local minimum
 * (fupermod_app_descend); rank 0 decides, every rank gets it. *mode: FUPERMOD_WHOLE_EXACT or _NESTED. */
static fupermod_dist *whole_partition(const fupermod_app_model *m, const app_t *a, const fupermod_points *f, int size,
                                      const int *leader, int *rc, int *mode) {
  int rank;
  long *d = calloc((size_t)size, sizeof *d);
  /* every share the application realises well (a block; 8 rows of the 2D-FFT, whose column phase
   * and transpose back ran 20-50 % slower on shares off multiples of 8 rows, which the functions
   * measured on the grid cannot show) while the search stays within its work bound */
  long step = tool_app_fft(a) && a->D % 8 == 0 ? 8 : 1;
  long unit = ldexp(1.0, size) * size * (double)(a->D / step) * (double)(a->D / step) <= 2e9 ? step : a->g;
  fupermod_dist *out = NULL;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  *rc = d ? FUPERMOD_SUCCESS : fupermod_error(FUPERMOD_ERR_NOMEM, "run: out of memory");
  if (rank == 0 && *rc == FUPERMOD_SUCCESS) {
    whole_ctx w = {a, f, m, unit};
    fupermod_whole_result res;
    *rc = fupermod_whole_partition(size, a->D / unit, whole_cost, &w, 0, d, &res);
    *mode = res.mode;
    if (*rc == FUPERMOD_SUCCESS && unit > 1)
      printf("   whole-run partition: shares in steps of %ld units (the grid's), as every unit would cost too much\n", unit);
    if (*rc == FUPERMOD_SUCCESS && size <= 32) {
      /* the per-process costs approximate the prediction; the prediction itself decides the shares */
      descend_ctx dc = {a, f, leader, m};
      fupermod_dist *x = fupermod_dist_alloc(a->D, size);
      double start = NAN, best = NAN;
      int moves = 0;
      for (int i = 0; x && i < size; i++) x->parts[i].d = d[i] * unit;
      if (x && isfinite(start = predict_dist(x, &dc)) &&
          fupermod_app_descend(x, unit, predict_dist, &dc, 1000, &best, &moves) == FUPERMOD_SUCCESS) {
        for (int i = 0; i < size; i++) d[i] = x->parts[i].d / unit;
        printf("   whole-run partition: exact on the per-process costs (an approximation), then %d move%s on the whole-run "
               "prediction itself: %.4g s to %.4g s, a local minimum (docs/models.md)\n", moves, moves == 1 ? "" : "s",
               start, best);
      }
      fupermod_dist_free(x);
    }
  }
  *rc = tool_agree(SUB, *rc, MPI_COMM_WORLD);
  if (*rc != FUPERMOD_SUCCESS) {
    free(d);
    return NULL;
  }
  MPI_Bcast(d, size, MPI_LONG, 0, MPI_COMM_WORLD);
  MPI_Bcast(mode, 1, MPI_INT, 0, MPI_COMM_WORLD);
  out = fupermod_dist_alloc(a->D, size);
  for (int i = 0; i < size; i++) out->parts[i].d = d[i] * unit;
  free(d);
  return out;
}

int run_same_dist(const fupermod_dist *x, const fupermod_dist *y) {
  for (int i = 0; x && y && i < x->size; i++)
    if (x->parts[i].d != y->parts[i].d) return 0;
  return x && y;
}

/* The processes' mean function at process 0's sizes: what a partitioner for identical processors
 * (POPTA, EOPTA, ALEPH) is given on processors that are not (docs/models.md, "Any partitioner"). */
static int mean_function(const fupermod_problem *prob, fupermod_points *mean) {
  const fupermod_points *f0 = prob->f[0];
  int rc = fupermod_points_copy(mean, f0);
  for (int k = 0; rc == FUPERMOD_SUCCESS && k < mean->count; k++) {
    fupermod_point *pt = &mean->pts[k];
    double st = 0, se = 0, sc = 0;
    for (int i = 0; i < prob->p; i++) {
      double t, e, ci;
      run_value_at(prob->f[i], (double)pt->d, &t, &e, &ci);
      st += t;
      se += e;
      sc += ci;
    }
    pt->t = st / prob->p;
    pt->ci = sc / prob->p;
    if (mean->has_energy) pt->e = se / prob->p;
  }
  return rc;
}

/* A continuous partitioner's distribution, on its model type fitted to each function. */
static int continuous_dist(const fupermod_partitioner *alg, const fupermod_problem *prob, fupermod_dist *dt) {
  fupermod_model **m = calloc((size_t)prob->p, sizeof *m);
  int rc = m ? FUPERMOD_SUCCESS : fupermod_error(FUPERMOD_ERR_NOMEM, "run: out of memory");
  for (int i = 0; rc == FUPERMOD_SUCCESS && i < prob->p; i++) rc = fupermod_model_create(alg->model_type, prob->f[i], prob->D, &m[i]);
  if (rc == FUPERMOD_SUCCESS) rc = alg->continuous(prob->p, m, dt);
  for (int i = 0; m && i < prob->p; i++) fupermod_model_free(m[i]);
  free(m);
  return rc;
}

/* A Pareto partitioner's fastest point (its front is ordered by increasing time). */
static int pareto_fastest(const fupermod_partitioner *alg, const fupermod_problem *prob, fupermod_dist *dt) {
  fupermod_front front = {0, NULL};
  int rc = alg->pareto(prob, &front);
  if (rc == FUPERMOD_SUCCESS && front.count == 0)
    rc = fupermod_error(FUPERMOD_ERR_INFEASIBLE, "%s: an empty Pareto front", alg->name);
  if (rc == FUPERMOD_SUCCESS) rc = fupermod_dist_copy(dt, front.points[0].dist);
  fupermod_front_free(&front);
  return rc;
}

/* --algorithm's time distribution on rank 0, from any partitioner of the registry: a discrete
 * one's own; a continuous one's on its model type fitted to each process's function (its shares
 * are whole units, which the applications and the predictions take as they are); a Pareto
 * one's fastest point; one for identical processors on the processes' mean function. */
static int algorithm_dist(const options *o, const app_t *a, const fupermod_problem *prob0,
                          const fupermod_partitioner *alg, fupermod_dist *dt) {
  fupermod_problem prob = *prob0;
  fupermod_points mean = {0, NULL, 0};
  const fupermod_points **same = NULL;
  int rc = FUPERMOD_SUCCESS;
  prob.static_power = o->static_power;
  for (int i = 0; alg->needs_energy && i < prob.p; i++)
    if (!prob.f[i]->has_energy)
      return fupermod_error(FUPERMOD_ERR_INPUT, "--algorithm %s: %s needs dynamic energy, and process %d's %s function has "
                            "none (a meter on its configuration line, docs/energy.md)", o->algorithm, alg->name, i, a->name);
  if (alg->homogeneous) {
    if ((rc = mean_function(&prob, &mean)) == FUPERMOD_SUCCESS && !(same = malloc((size_t)prob.p * sizeof *same)))
      rc = fupermod_error(FUPERMOD_ERR_NOMEM, "run: out of memory");
    for (int i = 0; same && i < prob.p; i++) same[i] = &mean;
    prob.f = same;
  }
  if (rc == FUPERMOD_SUCCESS) {
    if (alg->kind == FUPERMOD_PART_CONTINUOUS) rc = continuous_dist(alg, &prob, dt);
    else if ((rc = fupermod_problem_check(&prob, alg)) == FUPERMOD_SUCCESS)
      rc = alg->kind == FUPERMOD_PART_PARETO || !alg->discrete ? pareto_fastest(alg, &prob, dt) : alg->discrete(&prob, dt);
  }
  if (rc != FUPERMOD_SUCCESS)
    rc = fupermod_error_prefix(rc, "--algorithm %s%s", o->algorithm,
                               alg->homogeneous ? " (for identical processors, on the processes' mean function)" : "");
  free(same);
  fupermod_points_free(&mean);
  return rc;
}

/* Partition on rank 0 (except paraleph, which runs on every process); results on every rank. */
int run_partition_all(const options *o, const app_t *a, fupermod_points *f, int size, run_t *runs, int *nruns,
                         fupermod_front *front, int *chosen, const tool_proc *tp) {
  fupermod_dist *dh = NULL, *alone;
  int rank, rc = FUPERMOD_SUCCESS, has_energy = 1;
  const fupermod_points **fp = NULL;
  fupermod_dist *dt = NULL, *de = NULL, *dc = NULL, *even = fupermod_dist_alloc(a->D, size);
  const fupermod_partitioner *alg = fupermod_partitioner_find(o->algorithm);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    fp = malloc((size_t)size * sizeof *fp);
    for (int i = 0; i < size; i++) {
      fp[i] = &f[i];
      if (!f[i].has_energy) has_energy = 0;
    }
  }
  MPI_Bcast(&has_energy, 1, MPI_INT, 0, MPI_COMM_WORLD);
  {
    fupermod_problem prob = {a->D, size, fp, 0.0, 0, FUPERMOD_OBJ_TIME};
    if (strcmp(o->algorithm, "paraleph") == 0) {
      rc = fupermod_paraleph(MPI_COMM_WORLD, 0, rank == 0 ? &prob : NULL, FUPERMOD_OBJ_TIME, 0, &dt, NULL);
    } else {
      if (rank == 0) {
        dt = fupermod_dist_alloc(a->D, size);
        rc = dt ? algorithm_dist(o, a, &prob, alg, dt) : fupermod_error(FUPERMOD_ERR_NOMEM, "run: out of memory");
      }
      MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
      if (rc == FUPERMOD_SUCCESS) {
        if (rank != 0) dt = fupermod_dist_alloc(a->D, size);
        for (int i = 0; i < size; i++) MPI_Bcast(&dt->parts[i].d, 1, MPI_LONG, 0, MPI_COMM_WORLD);
      }
    }
    if (rc == FUPERMOD_SUCCESS && has_energy)
      rc = fupermod_paraleph(MPI_COMM_WORLD, 0, rank == 0 ? &prob : NULL, FUPERMOD_OBJ_ENERGY, 0, &de, NULL);
    if (rc == FUPERMOD_SUCCESS && has_energy) {
      int r2 = FUPERMOD_SUCCESS;
      *chosen = -1;
      if (rank == 0) r2 = tool_pareto_pick(&prob, o->tradeoff, front, chosen);
      MPI_Bcast(&r2, 1, MPI_INT, 0, MPI_COMM_WORLD);
      MPI_Bcast(chosen, 1, MPI_INT, 0, MPI_COMM_WORLD);
      rc = r2;
      if (rc == FUPERMOD_SUCCESS && *chosen >= 0) {
        dc = fupermod_dist_alloc(a->D, size);
        if (rank == 0) fupermod_dist_copy(dc, front->points[*chosen].dist);
        for (int i = 0; i < size; i++) MPI_Bcast(&dc->parts[i].d, 1, MPI_LONG, 0, MPI_COMM_WORLD);
      }
    }
  }
  free(fp);
  if (rc == FUPERMOD_SUCCESS) dh = hier_partition(a, f, size, tp, &rc);
  if (rc != FUPERMOD_SUCCESS) {
    if (rank == 0) fprintf(stderr, "fupermod run: %s: partitioning failed: %s\n", a->name, fupermod_error_message());
    fupermod_dist_free(dh);
    fupermod_dist_free(dt);
    fupermod_dist_free(de);
    fupermod_dist_free(dc);
    fupermod_dist_free(even);
    return rc;
  }
  alone = size > 1 ? fastest_alone(a, f, size) : NULL;
  *nruns = 0;
  run_init(&runs[(*nruns)++], o->algorithm, dt);
  if (dh) run_init(&runs[(*nruns)++], "hipopta", dh);
  if (de) run_init(&runs[(*nruns)++], "paraleph-energy", de);
  if (dc) run_init(&runs[(*nruns)++], "pareto-choice", dc);
  if (alone) run_init(&runs[(*nruns)++], "fastest-alone", alone);
  run_init(&runs[(*nruns)++], "even", even); /* last: the report compares with it */
  return FUPERMOD_SUCCESS;
}

/* The whole-run candidate (whole_partition, on the calibrated model), run where it differs from
 * every other distribution: put second, its layout realised. Collective. */
int run_add_whole(const options *o, const fupermod_app_model *m, const app_t *a, fupermod_points *all, int size,
                     const int *leader, run_t *runs, int *nruns) {
  int rc, mode = FUPERMOD_WHOLE_EXACT, rank;
  fupermod_dist *dw;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (size > 63) {
    /* the working sets are bit masks of 63 processes at most: the other candidates remain */
    if (rank == 0) printf("   whole-run partition: not run for %d processes (at most 63)\n", size);
    return FUPERMOD_SUCCESS;
  }
  if (!(dw = whole_partition(m, a, all, size, leader, &rc, &mode))) return rc;
  if (rank == 0 && mode == FUPERMOD_WHOLE_NESTED)
    printf("   whole-run partition: too many processes for every working set; searched the nested sets of the\n"
           "   fastest processes (a heuristic, docs/algorithms.md)\n");
  memmove(&runs[2], &runs[1], (size_t)(*nruns - 1) * sizeof *runs);
  (*nruns)++;
  run_init(&runs[1], "whole-run", dw);
  if (tool_app_dgemm(a) && (rc = run_realise_layouts(o, a, &runs[1], 1, all, size)) != FUPERMOD_SUCCESS) return rc;
  /* as realised: run only where it differs from every other */
  for (int k = 0; k < *nruns; k++)
    if (k != 1 && run_same_dist(runs[1].dist, runs[k].dist)) {
      run_free(&runs[1]);
      memmove(&runs[1], &runs[2], (size_t)(*nruns - 2) * sizeof *runs);
      (*nruns)--;
      break;
    }
  return FUPERMOD_SUCCESS;
}

/* The square-corner layout (partitioners/matrix.h) of the time-optimal distribution's areas, its
 * squares fitted to the functions: a candidate beside the column layouts where it exists (one
 * process fast enough that the others' squares fit on the diagonal) and every process computes on
 * its cores, put before even. Collective. */
int run_add_square_corner(const tool_proc *tp, const app_t *a, fupermod_points *all, int size, run_t *runs,
                             int *nruns) {
  int rank, rc = FUPERMOD_SUCCESS, nb = (int)(a->n / a->b), ok = 0, device;
  fupermod_layout *l = NULL;
  fupermod_dist *d = NULL;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  /* a GPU multiplies a process's pieces one update at a time, C moved each time: not a candidate */
  device = tp->exec && fupermod_exec_kind(tp->exec) != FUPERMOD_EXEC_CPU;
  MPI_Allreduce(MPI_IN_PLACE, &device, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (device) {
    if (rank == 0)
      printf("   square-corner layout: not a candidate with a GPU process (its pieces would move C at every update)\n");
    return FUPERMOD_SUCCESS;
  }
  if (rank == 0) {
    double *areas = malloc((size_t)size * sizeof *areas), tmax = 0;
    if (!areas) rc = fupermod_error(FUPERMOD_ERR_NOMEM, "run: out of memory");
    for (int i = 0; areas && i < size; i++) areas[i] = (double)runs[0].dist->parts[i].d;
    if (rc == FUPERMOD_SUCCESS) {
      rc = fupermod_layout_sc_fit(areas, size, nb, nb, run_area_time, (void *)all, &l, &tmax);
      if (rc == FUPERMOD_ERR_INFEASIBLE) {
        printf("   square-corner layout: none for the %s areas (%s)\n", runs[0].label, fupermod_error_message());
        rc = FUPERMOD_SUCCESS;
      } else if (rc == FUPERMOD_SUCCESS && !(d = fupermod_dist_alloc((long)nb * nb, size)))
        rc = fupermod_error(FUPERMOD_ERR_NOMEM, "run: out of memory");
      for (int i = 0; d && i < size; i++) d->parts[i].d = fupermod_layout_area(l, i);
      ok = d != NULL;
    }
    free(areas);
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if ((rc = tool_agree(SUB, rc, MPI_COMM_WORLD)) != FUPERMOD_SUCCESS || !ok) {
    fupermod_layout_free(l);
    fupermod_dist_free(d);
    return rc;
  }
  if (rank != 0 && !(d = fupermod_dist_alloc((long)nb * nb, size))) rc = fupermod_error(FUPERMOD_ERR_NOMEM, "run: out of memory");
  if ((rc = tool_agree(SUB, rc, MPI_COMM_WORLD)) != FUPERMOD_SUCCESS) {
    fupermod_layout_free(l);
    fupermod_dist_free(d);
    return rc;
  }
  for (int i = 0; i < size; i++) MPI_Bcast(&d->parts[i].d, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  memmove(&runs[*nruns], &runs[*nruns - 1], sizeof *runs);
  run_init(&runs[*nruns - 1], "square-corner", d);
  runs[*nruns - 1].layout = l;
  (*nruns)++;
  return FUPERMOD_SUCCESS;
}
