/* 2D-FFT benchmark: our heterogeneous row-distributed 2D FFT (apps/fft2d) against FFTW-MPI on the
 * same processes and the same M x N complex signal, in one run, reps interleaved so that machine
 * drift hits every variant alike.
 *
 *   mpirun --bind-to none -np P bench/fft2d [--n N] [--m M] [--reps R] [--bind CORES]
 *          [--threads T] [--planner measure|estimate] [--model-reps R] [--balance K]
 *
 * Defaults: N = M = 2048, 25 reps (the host slows a vCPU for tens of ms to seconds at times, which
 * hits the model variant, whose lone process does half the work: its best was still hit in 3
 * of 8 runs with 7 reps and 2 of 12 with 15), FFTW_MEASURE for all three variants
 * (planning is not timed; FFTW_ESTIMATE plans of FFTW-MPI are 2-3x slower here and would
 * flatter us).
 *
 * Variants (forward transform, natural-order output, in place):
 *   fftw-mpi    fftw_mpi_plan_dft_2d, FFTW-MPI's own (even) block distribution: the reference
 *   ours-even   fupermod_fft2d with the even distribution (fupermod_dist_alloc)
 *   ours-model  fupermod_fft2d with the distribution from functional models: every process
 *               benchmarks the computation of d rows (row FFTs and column FFTs in place, planned
 *               like the variant; the transposes replaced by copies) together with the others
 *               (fupermod_benchmark, all processes in step) at d = M/2p, M/p, 2M/p; piecewise
 *               models + the geometric partitioner; then K (default 3, 0: none) steps of load
 *               balancing on the application's own busy times (see balance())
 * --bind CORES (e.g. 0,1,1,1): rank r binds itself to logical core CORES[r] with hwloc
 * (fupermod_bind_apply "core:X"); give mpirun --bind-to none so that Open MPI does not bind.
 * GFLOP/s = 5 M N log2(M N) / t (for N x N: 5 N^2 log2 N^2), t = the best time of the slowest
 * process; ratios are reference time / our time (> 1: ours is faster). */
#define _GNU_SOURCE /* sched_getaffinity, to print where the processes really run */
#include <fftw3-mpi.h>
#include <getopt.h>
#include <sched.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "apps/driver.h"
#include "apps/fft2d.h"
#include "partitioners/partitioners.h"

static int rank, size;

static void die(const char *what) {
  if (rank == 0) fprintf(stderr, "bench/fft2d: %s: %s\n", what, fupermod_error_message());
  MPI_Abort(MPI_COMM_WORLD, 1); /* a benchmark program, not library code */
}

static void fill(double *a, long first, long d, long N) {
  for (long i = 0; i < d; i++)
    for (long j = 0; j < N; j++) {
      double g = (double)((first + i) * N + j);
      a[2 * (i * N + j)] = cos(1e-3 * g);
      a[2 * (i * N + j) + 1] = sin(3e-3 * g);
    }
}

/* The kernel measured for the models: the computation of one process holding d rows, as in
 * fupermod_fft2d_execute with the shared strategy (what AUTO takes on one node): d row FFTs, the
 * copy of the rows into PANEL-wide column panels (blocks of ROWS rows; each panel's slice of the
 * d rows is contiguous, as where the app writes into the other processes' panels), c = d N / M
 * column FFTs within panels of M rows, and the copy back, all planned with the variant's own flags
 * (ESTIMATE plans of the same sizes are up to 5x slower and slow the processes unequally).
 * Communication is replaced by local copies (Clarke sec. 1.7); the copies are the app's own access
 * pattern, not memcpy of whole blocks, which ran 1.5-2x faster than the strided panel copies. */
#define PANEL 4 /* as in apps/fft2d.c */
#define ROWS 32
typedef struct rows_ctx {
  long M, N, d, c;
  unsigned flags;
  int threads;
  fftw_complex *a, *u;
  fftw_plan row, col, tail;
} rows_ctx;

static int rows_create(const char *s, void **ctx) { return FUPERMOD_SUCCESS; }
static double rows_complexity(long d, void *ctx) { return (double)d; }
static int rows_init(long d, void *c) {
  rows_ctx *r = c;
  int n = (int)r->N, m = (int)r->M, w[2];
  size_t nu;
  r->d = d;
  r->c = (long)((double)d * (double)r->N / (double)r->M + 0.5);
  if (r->c < 1) r->c = 1;
  nu = (size_t)r->c * (size_t)r->M;
  if (nu < (size_t)d * (size_t)r->N) nu = (size_t)d * (size_t)r->N;
  r->a = fftw_alloc_complex((size_t)d * (size_t)r->N);
  r->u = fftw_alloc_complex(nu);
  if (!r->a || !r->u) return fupermod_error(FUPERMOD_ERR_NOMEM, "fft kernel: out of memory");
  fftw_plan_with_nthreads(r->threads);
  r->row = fftw_plan_many_dft(1, &n, (int)d, r->a, NULL, 1, n, r->a, NULL, 1, n, FFTW_FORWARD, r->flags);
  w[0] = r->c >= PANEL ? PANEL : 0;
  w[1] = (int)(r->c % PANEL);
  r->col = w[0] ? fftw_plan_many_dft(1, &m, w[0], r->u, NULL, w[0], 1, r->u, NULL, w[0], 1, FFTW_FORWARD, r->flags) : NULL;
  r->tail = w[1] ? fftw_plan_many_dft(1, &m, w[1], r->u, NULL, w[1], 1, r->u, NULL, w[1], 1, FFTW_FORWARD, r->flags) : NULL;
  if (!r->row || (w[0] && !r->col) || (w[1] && !r->tail))
    return fupermod_error(FUPERMOD_ERR_SYSTEM, "fft kernel: FFTW cannot plan");
  /* after planning: MEASURE overwrites the arrays */
  fill((double *)r->a, 0, d, r->N);
  memset(r->u, 0, nu * sizeof(fftw_complex));
  return FUPERMOD_SUCCESS;
}
/* rows <-> panels: column group g of the d rows is the contiguous d x PANEL slice at g d PANEL */
static void rows_copy(rows_ctx *r, int to_panels) {
  long d = r->d, N = r->N;
  for (long i0 = 0; i0 < d; i0 += ROWS) {
    long i1 = d - i0 < ROWS ? d : i0 + ROWS;
    for (long j = 0; j < N; j += PANEL) {
      long w = N - j < PANEL ? N - j : PANEL;
      fftw_complex *row = r->a + (size_t)i0 * (size_t)N + j, *t = r->u + (size_t)j * (size_t)d + (size_t)i0 * (size_t)w;
      if (w == PANEL) /* constant size, inlined, as in the app */
        for (long i = i0; i < i1; i++, row += N, t += PANEL)
          if (to_panels) memcpy(t, row, PANEL * sizeof(fftw_complex));
          else memcpy(row, t, PANEL * sizeof(fftw_complex));
      else
        for (long i = i0; i < i1; i++, row += N, t += w)
          if (to_panels) memcpy(t, row, (size_t)w * sizeof(fftw_complex));
          else memcpy(row, t, (size_t)w * sizeof(fftw_complex));
    }
  }
}
static int rows_exec(void *c) {
  rows_ctx *r = c;
  fftw_execute(r->row);
  rows_copy(r, 1);
  for (long j = 0; j < r->c; j += PANEL) {
    fftw_complex *at = r->u + (size_t)j * (size_t)r->M;
    fftw_execute_dft(r->c - j >= PANEL ? r->col : r->tail, at, at);
  }
  rows_copy(r, 0);
  return FUPERMOD_SUCCESS;
}
static int rows_fini(void *c) {
  rows_ctx *r = c;
  fftw_plan *pl[3] = {&r->row, &r->col, &r->tail};
  for (int i = 0; i < 3; i++)
    if (*pl[i]) fftw_destroy_plan(*pl[i]), *pl[i] = NULL;
  fftw_free(r->a);
  fftw_free(r->u);
  r->a = r->u = NULL;
  return FUPERMOD_SUCCESS;
}
static void rows_destroy(void *c) {}

static const fupermod_kernel_ops rows_ops = {FUPERMOD_KERNEL_API, "bench-fft2d-local", "the local computation of d rows", rows_create,
                                             rows_complexity, rows_init, rows_exec, rows_fini, rows_destroy,
                                             NULL, NULL, NULL, NULL};

/* Model-based distribution: identical on every rank (computed from the gathered points). */
static fupermod_dist *model_dist(long M, long N, int threads, unsigned flags, int reps, double *secs) {
  rows_ctx ctx = {M, N, 0, 0, flags, threads, NULL, NULL, NULL, NULL, NULL};
  fupermod_kernel k = {&rows_ops, &ctx, NULL, NULL};
  fupermod_precision prec = {reps, 4 * reps, 0.95, 0.05, 3.0, 0.0, 0, 0};
  long sizes[3] = {M / (2 * size), M / size, (2 * M) / size};
  fupermod_point mine[3], *all = malloc(3 * (size_t)size * sizeof *all);
  fupermod_model **models = calloc((size_t)size, sizeof *models);
  fupermod_dist *dist = fupermod_dist_alloc(M, size);
  double t0 = fupermod_time();
  for (int s = 0; s < 3; s++) {
    if (sizes[s] < 1) sizes[s] = 1;
    if (sizes[s] > M) sizes[s] = M;
    if (fupermod_benchmark(&k, sizes[s], &prec, MPI_COMM_WORLD, &mine[s]) != FUPERMOD_SUCCESS) die("benchmark");
  }
  MPI_Allgather(mine, 3 * (int)sizeof(fupermod_point), MPI_BYTE, all, 3 * (int)sizeof(fupermod_point), MPI_BYTE,
                MPI_COMM_WORLD);
  for (int i = 0; i < size; i++) {
    fupermod_points pts = {0, NULL, 0};
    for (int s = 0; s < 3; s++) fupermod_points_insert(&pts, &all[3 * i + s]);
    if (fupermod_model_create("piecewise", &pts, M, &models[i]) != FUPERMOD_SUCCESS) die("model");
    fupermod_points_free(&pts);
  }
  if (fupermod_partitioner_find("geometric")->continuous(size, models, dist) != FUPERMOD_SUCCESS) die("partition");
  if (rank == 0) {
    printf("# models (rows: seconds at d = %ld, %ld, %ld):\n", sizes[0], sizes[1], sizes[2]);
    for (int i = 0; i < size; i++)
      printf("#   rank %d: %.5f %.5f %.5f  -> %ld rows (predicted %.5f s)\n", i, all[3 * i].t, all[3 * i + 1].t,
             all[3 * i + 2].t, dist->parts[i].d, dist->parts[i].t);
  }
  for (int i = 0; i < size; i++) fupermod_model_free(models[i]);
  free(models);
  free(all);
  *secs = fupermod_time() - t0;
  return dist;
}

/* Balancing on the application itself, steps times: run the 2D FFT on the current distribution
 * (a warm-up and BAL_REPS timed runs) and take each process's busy time (fupermod_fft2d_busy_trace:
 * its computation and its own copies, not the waits at the fences; for processes sharing a core
 * the union of theirs, fupermod_share_busy), the best over the runs, as the timed comparison
 * does. Each process's speed is then its best over the steps (rows / busy seconds), and the
 * geometric partitioner re-partitions on constant (cpm) models of these speeds.
 * Why: the kernel's models put the best distribution within 10-15 % (measured in step, the three
 * sharers of core 1 slow the lone process 30 % in the benchmark but hardly at all in the
 * application), and 10 % fewer rows for it cost 10-15 % of the time. Why the best constant
 * speeds: near the balance the time is linear in d, and the best of one step's runs can still be
 * 25-40 % slow when the host stalls one vCPU for a while (a stall only adds time); piecewise
 * partial models through such points (fupermod_dynamic_step) swung the lone process between 865
 * and 1091 rows in runs minutes apart, and speeds averaged over the steps between 930 and 1077. */
#define BAL_REPS 7
static void balance(long M, long N, int threads, unsigned flags, int steps, fupermod_dist *dist, double *secs) {
  fupermod_trace tr = FUPERMOD_TRACE_INIT;
  fupermod_model **models = calloc((size_t)size, sizeof *models);
  double *spr = calloc((size_t)size, sizeof *spr), *got = calloc(2 * (size_t)size, sizeof *got);
  double t0 = fupermod_time();
  MPI_Comm share;
  if (!models || !spr || !got) die("balance: out of memory");
  for (int i = 0; i < size; i++)
    if (steps > 0 && dist->parts[i].d == 0) {
      if (rank == 0) printf("# balance: skipped (process %d has no rows to measure)\n", i);
      steps = 0;
    }
  if (fupermod_share_comm(MPI_COMM_WORLD, &share) != FUPERMOD_SUCCESS) die("share");
  for (int step = 1; step <= steps; step++) {
    fupermod_fft2d *plan;
    long first, d;
    double *a, best = INFINITY, mine[2], tmin = INFINITY, tmax = 0.0;
    if (fupermod_fft2d_plan(MPI_COMM_WORLD, M, N, dist, NULL, threads, flags, &plan) != FUPERMOD_SUCCESS)
      die("balance: plan");
    a = fupermod_fft2d_local(plan);
    d = fupermod_fft2d_local_rows(plan, &first);
    for (int r = -1; r < BAL_REPS; r++) {
      double busy;
      fill(a, first, d, N);
      MPI_Barrier(MPI_COMM_WORLD);
      if (fupermod_fft2d_execute(plan, FUPERMOD_FFT2D_FORWARD, NULL) != FUPERMOD_SUCCESS) die("balance: execute");
      fupermod_trace_clear(&tr);
      if (fupermod_fft2d_busy_trace(plan, &tr) != FUPERMOD_SUCCESS || fupermod_share_busy(share, &tr, &busy) != FUPERMOD_SUCCESS)
        die("balance: busy time");
      if (r >= 0 && busy < best) best = busy;
    }
    fupermod_fft2d_destroy(plan);
    mine[0] = (double)d;
    mine[1] = best;
    MPI_Allgather(mine, 2, MPI_DOUBLE, got, 2, MPI_DOUBLE, MPI_COMM_WORLD);
    for (int i = 0; i < size; i++) {
      fupermod_points pts = {0, NULL, 0};
      fupermod_point pt = FUPERMOD_POINT_INIT;
      if (!(got[2 * i + 1] > 0.0)) {
        if (rank == 0) fprintf(stderr, "bench/fft2d: balance: process %d measured no busy time\n", i);
        MPI_Abort(MPI_COMM_WORLD, 1);
      }
      tmin = fmin(tmin, got[2 * i + 1]);
      tmax = fmax(tmax, got[2 * i + 1]);
      if (step == 1 || got[2 * i + 1] / got[2 * i] < spr[i]) spr[i] = got[2 * i + 1] / got[2 * i]; /* s per row */
      pt.d = (long)got[2 * i];
      pt.t = got[2 * i] * spr[i]; /* the best speed, at this size */
      fupermod_model_free(models[i]);
      models[i] = NULL;
      if (fupermod_points_insert(&pts, &pt) != FUPERMOD_SUCCESS || fupermod_model_create("cpm", &pts, M, &models[i]) != FUPERMOD_SUCCESS)
        die("balance: model");
      fupermod_points_free(&pts);
    }
    if (fupermod_partitioner_find("geometric")->continuous(size, models, dist) != FUPERMOD_SUCCESS) die("balance: partition");
    if (rank == 0) {
      printf("# balance step %d: imbalance %.1f %%; measured (rows: best busy ms)", step, 100.0 * (tmax - tmin) / tmin);
      for (int i = 0; i < size; i++) printf(" %.0f: %.2f", got[2 * i], 1e3 * got[2 * i + 1]);
      printf("; next rows");
      for (int i = 0; i < size; i++) printf(" %ld", dist->parts[i].d);
      printf("\n");
    }
  }
  for (int i = 0; i < size; i++) fupermod_model_free(models[i]);
  free(models);
  free(spr);
  free(got);
  fupermod_trace_free(&tr);
  if (share != MPI_COMM_NULL) MPI_Comm_free(&share);
  *secs = fupermod_time() - t0;
}

typedef struct variant {
  const char *name;
  fupermod_fft2d *plan;  /* ours */
  fftw_plan fp;          /* FFTW-MPI */
  double *data;
  long first, d;
  double *t;
  double *ph; /* ours: this rank's phase times, 4 per rep */
} variant;

static int cmpd(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

typedef struct options {
  long N, M;
  int reps, threads, model_reps, steps;
  unsigned flags;
  const char *bind, *planner;
} options;

/* -1: run; otherwise the exit status (2: a bad option, said by rank 0). */
static int parse_options(int argc, char **argv, options *o) {
  static const struct option opts[] = {{"n", required_argument, NULL, 'n'},        {"m", required_argument, NULL, 'm'},
                                       {"reps", required_argument, NULL, 'r'},     {"bind", required_argument, NULL, 'b'},
                                       {"threads", required_argument, NULL, 't'},  {"planner", required_argument, NULL, 'p'},
                                       {"model-reps", required_argument, NULL, 'R'}, {"balance", required_argument, NULL, 'B'},
                                       {"help", no_argument, NULL, 'h'},     {NULL, 0, NULL, 0}};
  int c;
  while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
    long v = 0;
    if (c == 'h') {
      if (rank == 0)
        printf("usage: mpirun --bind-to none -np P bench/fft2d [--n N] [--m M] [--reps R] [--bind CORES]\n"
               "       [--threads T] [--planner measure|estimate] [--model-reps R] [--balance K]\n"
               "Our 2D-FFT (even and model distributions) against FFTW-MPI in one run; defaults N = M = 2048,\n"
               "25 reps, FFTW_MEASURE; --bind 0,1,1,1 binds rank r to core r-th of the list (the header of\n"
               "bench/fft2d.c says more).\n");
      return 0;
    }
    if (c != 'b' && c != 'p' && (fupermod_parse_long(optarg, &v) || v < (c == 'B' ? 0 : 1))) {
      if (rank == 0) fprintf(stderr, "bench/fft2d: bad option value '%s'\n", optarg ? optarg : "");
      return 2;
    }
    switch (c) {
    case 'n': o->N = v; break;
    case 'm': o->M = v; break;
    case 'r': o->reps = (int)v; break;
    case 't': o->threads = (int)v; break;
    case 'R': o->model_reps = (int)v; break;
    case 'B': o->steps = (int)v; break;
    case 'b': o->bind = optarg; break;
    case 'p':
      o->planner = optarg;
      if (strcmp(optarg, "measure") && strcmp(optarg, "estimate")) {
        if (rank == 0) fprintf(stderr, "bench/fft2d: --planner must be measure or estimate\n");
        return 2;
      }
      o->flags = !strcmp(optarg, "measure") ? FFTW_MEASURE : FFTW_ESTIMATE;
      break;
    default:
      if (rank == 0) fprintf(stderr, "bench/fft2d: unknown option (see the comment at the top of bench/fft2d.c)\n");
      return 2;
    }
  }
  if (o->M < 0) o->M = o->N;
  return -1;
}

/* --bind: this rank binds itself to the rank-th comma-separated core. -1: bound; 2: the list
 * names too few cores (said by rank 0). */
static int bind_rank(const char *bind) {
  char mybind[64];
  const char *s = bind;
  for (int i = 0; i < rank && s; i++) s = strchr(s, ',') ? strchr(s, ',') + 1 : NULL;
  if (!s || !*s) {
    if (rank == 0) fprintf(stderr, "bench/fft2d: --bind %s names fewer than %d cores\n", bind, size);
    return 2;
  }
  snprintf(mybind, sizeof mybind, "core:%.*s", (int)strcspn(s, ","), s);
  if (fupermod_bind_apply(mybind) != FUPERMOD_SUCCESS) die("--bind");
  return -1;
}

/* The parameters, where every process may run as the kernel sees it after binding, and the
 * environment that matters when processes share cores. */
static void print_header(const options *o) {
  cpu_set_t set;
  char mine[64] = "", *all = malloc((size_t)size * sizeof mine);
  int n = 0;
  CPU_ZERO(&set);
  sched_getaffinity(0, sizeof set, &set);
  for (int c = 0; c < CPU_SETSIZE && n < (int)sizeof mine - 8; c++)
    if (CPU_ISSET(c, &set)) n += snprintf(mine + n, sizeof mine - (size_t)n, "%s%d", n ? "," : "", c);
  MPI_Gather(mine, (int)sizeof mine, MPI_CHAR, all, (int)sizeof mine, MPI_CHAR, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("# bench/fft2d: M=%ld N=%ld p=%d threads=%d planner=%s reps=%d bind=%s\n# cpus allowed per rank:", o->M,
           o->N, size, o->threads, o->planner, o->reps, o->bind ? o->bind : "none (as mpirun placed the processes)");
    for (int i = 0; i < size; i++) printf(" [%s]", all + (size_t)i * sizeof mine);
    printf("\n");
  }
  free(all);
  if (rank == 0) {
    const char *y = getenv("OMPI_MCA_mpi_yield_when_idle");
    printf("# OMPI_MCA_mpi_yield_when_idle=%s (set it to 1 when processes share cores)\n", y ? y : "(unset)");
    printf("# GFLOP/s = 5 M N log2(M N) / t, t = best over reps of the slowest process\n");
  }
}

/* FFTW-MPI (natural order in and out: the same contract as ours) and ours on both distributions. */
static void plan_variants(const options *o, const fupermod_dist *even, const fupermod_dist *model, variant *v) {
  ptrdiff_t ln0, l0s, alloc;
  fftw_plan_with_nthreads(o->threads);
  alloc = fftw_mpi_local_size_2d(o->M, o->N, MPI_COMM_WORLD, &ln0, &l0s);
  v[0].data = (double *)fftw_alloc_complex((size_t)(alloc > 0 ? alloc : 1));
  v[0].first = l0s;
  v[0].d = ln0;
  v[0].fp = fftw_mpi_plan_dft_2d(o->M, o->N, (fftw_complex *)v[0].data, (fftw_complex *)v[0].data, MPI_COMM_WORLD,
                                 FFTW_FORWARD, o->flags);
  if (!v[0].fp) die("fftw_mpi_plan_dft_2d");
  if (fupermod_fft2d_plan(MPI_COMM_WORLD, o->M, o->N, even, NULL, o->threads, o->flags, &v[1].plan) != FUPERMOD_SUCCESS)
    die("plan even");
  if (fupermod_fft2d_plan(MPI_COMM_WORLD, o->M, o->N, model, NULL, o->threads, o->flags, &v[2].plan) !=
      FUPERMOD_SUCCESS)
    die("plan model");
  for (int k = 1; k < 3; k++) {
    v[k].data = fupermod_fft2d_local(v[k].plan);
    v[k].d = fupermod_fft2d_local_rows(v[k].plan, &v[k].first);
  }
  for (int k = 0; k < 3; k++)
    v[k].t = calloc((size_t)o->reps, sizeof(double)), v[k].ph = calloc(4 * (size_t)o->reps, sizeof(double));
}

/* One untimed warm-up each, then interleaved timed reps. */
static void time_variants(const options *o, variant *v) {
  for (int r = -1; r < o->reps; r++)
    for (int k = 0; k < 3; k++) {
      double t0, t;
      fill(v[k].data, v[k].first, v[k].d, o->N);
      MPI_Barrier(MPI_COMM_WORLD);
      t0 = fupermod_time();
      if (k == 0) fftw_execute(v[0].fp);
      else if (fupermod_fft2d_execute(v[k].plan, FUPERMOD_FFT2D_FORWARD, NULL) != FUPERMOD_SUCCESS) die("execute");
      t = fupermod_time() - t0;
      MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      if (r >= 0) v[k].t[r] = t;
      if (r >= 0 && k > 0) {
        double *q = v[k].ph + 4 * r;
        fupermod_fft2d_phase_times(v[k].plan, q, q + 1, q + 2, q + 3);
      }
    }
}

/* Where our time goes: each rank's median phase times (they show a process that the model
 * mispredicted, and how much the redistribution costs). */
static void print_phases(int reps, const variant *v) {
  for (int k = 1; k < 3; k++) {
    double med[4], *all = malloc(4 * (size_t)size * sizeof *all), *col = malloc((size_t)reps * sizeof *col);
    for (int j = 0; j < 4; j++) {
      for (int r = 0; r < reps; r++) col[r] = v[k].ph[4 * r + j];
      qsort(col, (size_t)reps, sizeof *col, cmpd);
      med[j] = col[reps / 2];
    }
    MPI_Gather(med, 4, MPI_DOUBLE, all, 4, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank == 0) {
      printf("# %s phases, median ms (row FFTs / redistribute / column FFTs / redistribute back):", v[k].name);
      for (int i = 0; i < size; i++)
        printf(" [%d] %.1f %.1f %.1f %.1f", i, 1e3 * all[4 * i], 1e3 * all[4 * i + 1], 1e3 * all[4 * i + 2],
               1e3 * all[4 * i + 3]);
      printf("\n");
    }
    free(all);
    free(col);
  }
}

/* The results must agree: compare one coefficient, at (M/3, N/5), of each variant. */
static void print_agreement(long M, long N, const variant *v) {
  double probe[3][2] = {{0}};
  for (int k = 0; k < 3; k++) {
    long row = M / 3, col = N / 5;
    double loc[2] = {0, 0};
    if (row >= v[k].first && row < v[k].first + v[k].d) {
      loc[0] = v[k].data[2 * ((row - v[k].first) * N + col)];
      loc[1] = v[k].data[2 * ((row - v[k].first) * N + col) + 1];
    }
    MPI_Allreduce(loc, probe[k], 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  double diff = fmax(hypot(probe[1][0] - probe[0][0], probe[1][1] - probe[0][1]),
                     hypot(probe[2][0] - probe[0][0], probe[2][1] - probe[0][1]));
  if (rank == 0)
    printf("# results agree: |ours - fftw-mpi| at (M/3, N/5) = %.2e (|X| = %.2e)\n", diff,
           hypot(probe[0][0], probe[0][1]));
}

/* The rows of every variant, the set-up costs, and the table of best and median times (sorts the
 * times). */
static void print_summary(const options *o, variant *v, const fupermod_dist *even, const fupermod_dist *model,
                          double model_secs, double balance_secs) {
  long *fftw_rows = calloc((size_t)size, sizeof(long));
  MPI_Gather(&v[0].d, 1, MPI_LONG, fftw_rows, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    double best[3], med[3], flops = fupermod_fft2d_flops(o->M, o->N);
    printf("# rows: fftw-mpi");
    for (int i = 0; i < size; i++) printf(" %ld", fftw_rows[i]);
    for (int k = 1; k < 3; k++) {
      printf("; %s", v[k].name);
      for (int i = 0; i < size; i++) printf(" %ld", (k == 1 ? even : model)->parts[i].d);
    }
    printf("\n# model building took %.2f s, balancing %.2f s (not in the times); strategies: ours-even %s, ours-model %s\n",
           model_secs, balance_secs,
           fupermod_fft2d_strategy_name(fupermod_fft2d_strategy(v[1].plan)),
           fupermod_fft2d_strategy_name(fupermod_fft2d_strategy(v[2].plan)));
    printf("%-11s %10s %10s %9s %14s %14s\n", "variant", "best_s", "median_s", "GFLOP/s", "fftw-mpi/this",
           "ours-even/this");
    for (int k = 0; k < 3; k++) {
      qsort(v[k].t, (size_t)o->reps, sizeof(double), cmpd);
      best[k] = v[k].t[0];
      med[k] = v[k].t[o->reps / 2];
    }
    for (int k = 0; k < 3; k++)
      printf("%-11s %10.5f %10.5f %9.3f %14.3f %14.3f\n", v[k].name, best[k], med[k], flops / best[k] * 1e-9,
             best[0] / best[k], best[1] / best[k]);
    printf("ratio_even_vs_fftw_mpi %.3f\nratio_model_vs_fftw_mpi %.3f\nratio_model_vs_even %.3f\n", best[0] / best[1],
           best[0] / best[2], best[1] / best[2]);
  }
  free(fftw_rows);
}

static void free_variants(variant *v) {
  fftw_destroy_plan(v[0].fp);
  fftw_free(v[0].data);
  for (int k = 1; k < 3; k++) fupermod_fft2d_destroy(v[k].plan);
  for (int k = 0; k < 3; k++) free(v[k].t), free(v[k].ph);
}

int main(int argc, char **argv) {
  options o = {2048, -1, 25, 1, 3, 3, FFTW_MEASURE, NULL, "measure"};
  variant v[3] = {{.name = "fftw-mpi"}, {.name = "ours-even"}, {.name = "ours-model"}};
  fupermod_dist *even, *model;
  double model_secs = 0.0, balance_secs = 0.0;
  int status = driver_mpi_start(&argc, &argv, MPI_THREAD_FUNNELED, "bench/fft2d", NULL, &rank, &size);
  if (status != 0) return status;
  if ((status = parse_options(argc, argv, &o)) < 0 && o.bind) status = bind_rank(o.bind);
  if (status >= 0) {
    MPI_Finalize();
    return status;
  }
  fftw_init_threads();
  fftw_mpi_init();
  print_header(&o);
  /* models first, then balancing on the application (neither is in the times) */
  even = fupermod_dist_alloc(o.M, size);
  model = model_dist(o.M, o.N, o.threads, o.flags, o.model_reps, &model_secs);
  balance(o.M, o.N, o.threads, o.flags, o.steps, model, &balance_secs);
  plan_variants(&o, even, model, v);
  time_variants(&o, v);
  print_phases(o.reps, v);
  print_agreement(o.M, o.N, v);
  print_summary(&o, v, even, model, model_secs, balance_secs);
  free_variants(v);
  fupermod_dist_free(even);
  fupermod_dist_free(model);
  fftw_mpi_cleanup();
  MPI_Finalize();
  return 0;
}
