/* SUMMA against ScaLAPACK PDGEMM on the same processes and the same matrices, in one run.
 *
 *   homogeneous:   mpirun --bind-to none -np 2 bench/summa                 (one rank per core)
 *   heterogeneous: mpirun --bind-to none -np 4 bench/summa --config hetero (rank 0 alone on
 *                  core 0, ranks 1..p-1 share core 1)
 *
 * Options: -n N (default 3072), -b B SUMMA block (256), --nb NB PDGEMM block (128), -r R timed
 * repetitions per method, interleaved (3), --bench-time S per-rank speed measurement (0.5),
 * -p PART 1D partitioner for the model-based layout (cpm), --bind "B0;B1;..." bindings per rank
 * (fupermod_bind_apply syntax; overrides the config's), --no-verify, --funneled (MPI_THREAD_FUNNELED:
 * SUMMA then progresses its messages between column chunks of its GEMM, not from a helper thread).
 *
 * Each rank is pinned with hwloc (fupermod_bind_apply) after mpirun --bind-to none; the affinity
 * each rank really has is printed. Heterogeneous: every rank times the local SUMMA update
 * (side x b times b x side DGEMM) for --bench-time seconds, all ranks at once so that ranks
 * sharing a core see their share of it; the speeds become one-point CPM models, and the 1.5D
 * algorithm (partitioner + BR) gives the model-based layout. Methods:
 *   summa-model  SUMMA on the model-based layout (heterogeneous only)
 *   summa-even   SUMMA on the even layout (BR over equal areas)
 *   pdgemm       ScaLAPACK PDGEMM on a pr x pc grid (pr <= pc, pr * pc = p), block NB
 * Times are the slowest rank's; GFLOP/s = 2 n^3 / time. Ratios use the medians. */
#define _GNU_SOURCE
#include <getopt.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cblas.h>
#include <hwloc.h>

#include "apps/driver.h"
#include "apps/summa.h"
#include "partitioners/partitioners.h"

/* ScaLAPACK ships no C header */
extern void Cblacs_get(int ctxt, int what, int *val);
extern void Cblacs_gridinit(int *ctxt, const char *order, int nprow, int npcol);
extern void Cblacs_gridinfo(int ctxt, int *nprow, int *npcol, int *myrow, int *mycol);
extern void Cblacs_gridexit(int ctxt);
extern int numroc_(const int *n, const int *nb, const int *iproc, const int *isrcproc, const int *nprocs);
extern void descinit_(int *desc, const int *m, const int *n, const int *mb, const int *nb, const int *irsrc,
                      const int *icsrc, const int *ictxt, const int *lld, int *info);
extern void pdgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
                    const double *alpha, const double *a, const int *ia, const int *ja, const int *desca,
                    const double *b, const int *ib, const int *jb, const int *descb, const double *beta, double *c,
                    const int *ic, const int *jc, const int *descc);

static int rank, size;

static void die(const char *msg) {
  if (rank == 0) fprintf(stderr, "bench/summa: %s\n", msg);
  MPI_Finalize();
  exit(1);
}

/* Stop every rank when any rank failed (message from the lowest failing rank). */
static void check_all(int rc) {
  int bad = rc != FUPERMOD_SUCCESS, any;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (any) {
    if (bad) fprintf(stderr, "bench/summa rank %d: %s\n", rank, fupermod_error_message());
    MPI_Finalize();
    exit(1);
  }
}

static int count_cores(void) {
  hwloc_topology_t t;
  int n = 1;
  if (hwloc_topology_init(&t) == 0 && hwloc_topology_load(t) == 0) n = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE);
  hwloc_topology_destroy(t);
  return n > 0 ? n : 1;
}

static void affinity_string(char *buf, size_t len) {
  cpu_set_t set;
  size_t k = 0;
  buf[0] = '\0';
  if (sched_getaffinity(0, sizeof set, &set) != 0) {
    snprintf(buf, len, "?");
    return;
  }
  for (int c = 0; c < CPU_SETSIZE && k + 8 < len; c++)
    if (CPU_ISSET(c, &set)) k += (size_t)snprintf(buf + k, len - k, "%s%d", k ? "," : "", c);
}

typedef struct {
  const char *name;
  double *times;
  double checksum;
} method;

static double max_time(double t) {
  double m;
  MPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return m;
}

static double local_sum(const double *x, size_t n) {
  double s = 0.0;
  for (size_t i = 0; i < n; i++) s += x[i];
  return s;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* SUMMA data of one layout */
typedef struct {
  fupermod_layout *l;
  double *A, *B, *C;
  size_t loc;
} summa_data;

static void summa_setup(summa_data *s, int n, int b) {
  long loc = 0;
  check_all(fupermod_summa_local(s->l, rank, n, b, &loc));
  s->loc = (size_t)loc;
  s->A = malloc((s->loc ? s->loc : 1) * sizeof(double));
  s->B = malloc((s->loc ? s->loc : 1) * sizeof(double));
  s->C = malloc((s->loc ? s->loc : 1) * sizeof(double));
  check_all(!s->A || !s->B || !s->C ? fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory") : FUPERMOD_SUCCESS);
  fupermod_summa_fill(s->l, rank, n, b, 1, FUPERMOD_SUMMA_UNIFORM, s->A);
  fupermod_summa_fill(s->l, rank, n, b, 2, FUPERMOD_SUMMA_UNIFORM, s->B);
}

static double summa_run(summa_data *s, int n, int b) {
  double t0;
  MPI_Barrier(MPI_COMM_WORLD);
  t0 = MPI_Wtime();
  check_all(fupermod_summa_dgemm(MPI_COMM_WORLD, s->l, n, b, s->A, s->B, s->C, 0));
  return max_time(MPI_Wtime() - t0);
}

/* PDGEMM data */
typedef struct {
  int ctxt, pr, pc, myrow, mycol, mloc, nloc, desc[9];
  double *A, *B, *C;
} pd_data;

static void pd_setup(pd_data *d, int n, int nb) {
  int izero = 0, info, lld;
  d->pr = 1;
  for (int r = 1; r * r <= size; r++)
    if (size % r == 0) d->pr = r;
  d->pc = size / d->pr;
  Cblacs_get(-1, 0, &d->ctxt);
  Cblacs_gridinit(&d->ctxt, "Row", d->pr, d->pc);
  Cblacs_gridinfo(d->ctxt, &d->pr, &d->pc, &d->myrow, &d->mycol);
  d->mloc = numroc_(&n, &nb, &d->myrow, &izero, &d->pr);
  d->nloc = numroc_(&n, &nb, &d->mycol, &izero, &d->pc);
  lld = d->mloc > 1 ? d->mloc : 1;
  descinit_(d->desc, &n, &n, &nb, &nb, &izero, &izero, &d->ctxt, &lld, &info);
  if (info != 0) check_all(fupermod_error(FUPERMOD_ERR_USAGE, "descinit failed (info %d)", info));
  {
    size_t loc = (size_t)d->mloc * d->nloc;
    d->A = malloc((loc ? loc : 1) * sizeof(double));
    d->B = malloc((loc ? loc : 1) * sizeof(double));
    d->C = malloc((loc ? loc : 1) * sizeof(double));
    check_all(!d->A || !d->B || !d->C ? fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory") : FUPERMOD_SUCCESS);
    /* the same global matrices as SUMMA's, block-cyclically */
    for (int j = 0; j < d->nloc; j++) {
      long gj = ((long)(j / nb) * d->pc + d->mycol) * nb + j % nb;
      for (int i = 0; i < d->mloc; i++) {
        long gi = ((long)(i / nb) * d->pr + d->myrow) * nb + i % nb;
        d->A[(size_t)j * d->mloc + i] = fupermod_summa_value(1, FUPERMOD_SUMMA_UNIFORM, gi, gj);
        d->B[(size_t)j * d->mloc + i] = fupermod_summa_value(2, FUPERMOD_SUMMA_UNIFORM, gi, gj);
      }
    }
  }
}

static double pd_run(pd_data *d, int n) {
  const double one = 1.0, zero = 0.0;
  const int ione = 1;
  double t0;
  MPI_Barrier(MPI_COMM_WORLD);
  t0 = MPI_Wtime();
  pdgemm_("N", "N", &n, &n, &n, &one, d->A, &ione, &ione, d->desc, d->B, &ione, &ione, d->desc, &zero, d->C, &ione,
          &ione, d->desc);
  return max_time(MPI_Wtime() - t0);
}

/* Speed of the local SUMMA update, all ranks at once for `secs` seconds (flop/s). */
static double measure_speed(int side, int b, double secs) {
  double *a = malloc((size_t)side * b * sizeof *a), *bb = malloc((size_t)b * side * sizeof *bb),
         *c = calloc((size_t)side * side, sizeof *c), t0, t;
  long it = 0;
  check_all(!a || !bb || !c ? fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory") : FUPERMOD_SUCCESS);
  for (size_t i = 0; i < (size_t)side * b; i++) a[i] = bb[i] = 1.0 / (1.0 + (double)(i % 7));
  MPI_Barrier(MPI_COMM_WORLD);
  t0 = MPI_Wtime();
  do {
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, side, side, b, 1.0, a, side, bb, b, 1.0, c, side);
    it++;
    t = MPI_Wtime() - t0;
  } while (t < secs);
  free(a);
  free(bb);
  free(c);
  return 2.0 * side * side * b * (double)it / t;
}

typedef struct options {
  const char *config, *part_name, *bind_list;
  long n, b, nb, reps;
  double bench_time;
  int no_bind, verify, level;
} options;

/* --funneled, looked for before getopt: the level is fixed at MPI_Init. */
static int thread_level(int argc, char **argv) {
  int level = MPI_THREAD_SERIALIZED;
  for (int i = 1; i < argc; i++)
    if (strcmp(argv[i], "--funneled") == 0) level = MPI_THREAD_FUNNELED;
  return level;
}

/* A bad option stops every rank (die). 0 after --help, else -1. */
static int parse_options(int argc, char **argv, options *o) {
  static const struct option opts[] = {{"config", required_argument, NULL, 'c'}, {"nb", required_argument, NULL, 'N'},
                                       {"bench-time", required_argument, NULL, 't'}, {"bind", required_argument, NULL, 'B'},
                                       {"no-bind", no_argument, NULL, 'x'}, {"no-verify", no_argument, NULL, 'v'}, {"funneled", no_argument, NULL, 'f'},
                                       {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
  int c;
  while ((c = getopt_long(argc, argv, "n:b:r:p:h", opts, NULL)) != -1) {
    switch (c) {
      case 'c': o->config = optarg; break;
      case 'n': if (fupermod_parse_long(optarg, &o->n) || o->n < 1 || o->n > 100000) die("-n: need 1..100000"); break;
      case 'b': if (fupermod_parse_long(optarg, &o->b) || o->b < 1 || o->b > 100000) die("-b: need 1..100000"); break;
      case 'N':
        if (fupermod_parse_long(optarg, &o->nb) || o->nb < 1 || o->nb > 100000) die("--nb: need 1..100000");
        break;
      case 'r':
        if (fupermod_parse_long(optarg, &o->reps) || o->reps < 1 || o->reps > 1000) die("-r: need 1..1000");
        break;
      case 't':
        if (fupermod_parse_double(optarg, &o->bench_time) || !(o->bench_time > 0)) die("--bench-time: need > 0");
        break;
      case 'p': o->part_name = optarg; break;
      case 'B': o->bind_list = optarg; break;
      case 'x': o->no_bind = 1; break;
      case 'v': o->verify = 0; break;
      case 'f': break; /* applied before MPI_Init */
      case 'h':
        if (rank == 0)
          printf("mpirun --bind-to none -np P bench/summa [--config homo|hetero] [-n N] [-b B] [--nb NB] [-r R]\n"
                 "       [--bench-time S] [-p PART] [--bind 'B0;B1;...' | --no-bind] [--no-verify] [--funneled]\n");
        return 0;
      default: die("unknown option (--help)");
    }
  }
  return -1;
}

/* Pin this rank (--bind, else by the configuration) and print the run's parameters and where
 * every rank runs. */
static void bind_rank(const options *o, int hetero, int cores) {
  char bind[64], aff[256];
  if (o->bind_list) {
    const char *s = o->bind_list;
    for (int i = 0; i < rank && s; i++) s = strchr(s, ';') ? strchr(s, ';') + 1 : NULL;
    if (!s || !*s) die("--bind: fewer bindings than processes");
    snprintf(bind, sizeof bind, "%.*s", (int)(strchr(s, ';') ? strchr(s, ';') - s : (long)strlen(s)), s);
  } else if (o->no_bind) {
    snprintf(bind, sizeof bind, "none");
  } else if (hetero) {
    snprintf(bind, sizeof bind, "core:%d", rank == 0 ? 0 : 1);
  } else {
    snprintf(bind, sizeof bind, "core:%d", rank % cores);
  }
  check_all(fupermod_bind_apply(bind));
  affinity_string(aff, sizeof aff);
  {
    char *all = rank == 0 ? malloc((size_t)size * 320) : NULL, line[320];
    snprintf(line, sizeof line, "%s -> cpus %s", bind, aff);
    MPI_Gather(line, 320, MPI_CHAR, all, 320, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (rank == 0) {
      printf("# bench/summa: config %s, p = %d on %d cores, n = %ld, SUMMA b = %ld, PDGEMM nb = %ld, %ld interleaved "
             "repetitions\n",
             hetero ? "heterogeneous" : "homogeneous", size, cores, o->n, o->b, o->nb, o->reps);
      printf("# MPI thread level %s (SUMMA progresses its messages from a helper thread when SERIALIZED)\n",
             fupermod_mpi_thread_name(o->level));
      printf("# OMP_NUM_THREADS=%s OPENBLAS_NUM_THREADS=%s; binding with hwloc (fupermod_bind_apply):\n",
             getenv("OMP_NUM_THREADS") ? getenv("OMP_NUM_THREADS") : "unset",
             getenv("OPENBLAS_NUM_THREADS") ? getenv("OPENBLAS_NUM_THREADS") : "unset");
      for (int i = 0; i < size; i++) printf("#   rank %d: %s\n", i, all + (size_t)i * 320);
      free(all);
    }
  }
}

static void even_layout(int K, summa_data *even) {
  int rc = FUPERMOD_SUCCESS;
  if (rank == 0) rc = fupermod_layout_by_name("even", NULL, size, K, K, &even->l);
  check_all(fupermod_layout_bcast(MPI_COMM_WORLD, 0, rc, &even->l));
}

/* The model-based layout: every rank's measured speed of the local update as a one-point model,
 * the partitioner + BR on rank 0, which prints the speeds and areas. */
static void model_layout(const options *o, int K, const summa_data *even, summa_data *model) {
  long n = o->n, b = o->b;
  int side = (int)(n / 2 < 1024 ? n / 2 : 1024);
  double s = measure_speed(side > 0 ? side : 1, (int)(b < n ? b : n), o->bench_time),
         *speeds = malloc((size_t)size * sizeof *speeds);
  int rc = FUPERMOD_SUCCESS;
  MPI_Allgather(&s, 1, MPI_DOUBLE, speeds, 1, MPI_DOUBLE, MPI_COMM_WORLD);
  if (rank == 0) {
    const fupermod_partitioner *part = fupermod_partitioner_find(o->part_name);
    fupermod_model **models = calloc((size_t)size, sizeof *models);
    fupermod_dist *dist = fupermod_dist_alloc((long)K * K, size);
    double unit = 2.0 * (double)b * b * b; /* flops of one block of area per pivot */
    long d = (long)side * side / (b * b) > 0 ? (long)side * side / (b * b) : 1;
    if (!part || part->kind != FUPERMOD_PART_CONTINUOUS) {
      rc = fupermod_error(FUPERMOD_ERR_USAGE, "-p: '%s' is not a continuous partitioner", o->part_name);
    } else {
      for (int i = 0; i < size && rc == FUPERMOD_SUCCESS; i++) {
        fupermod_point pt = FUPERMOD_POINT_INIT;
        fupermod_points pts = {1, &pt, 0};
        pt.d = d;
        pt.t = (double)d * unit / speeds[i];
        rc = fupermod_model_create(part->model_type, &pts, (long)K * K, &models[i]);
      }
      if (rc == FUPERMOD_SUCCESS) rc = fupermod_layout_15d(part->continuous, size, models, K, K, dist, &model->l);
    }
    printf("# measured local update speed (%d x %d x %ld DGEMM, %.2f s, all ranks at once), model areas (%s + BR):\n",
           side, side, b, o->bench_time, o->part_name);
    for (int i = 0; i < size; i++)
      printf("#   rank %d: %6.2f GFLOP/s, area %5.1f%% (even %5.1f%%)\n", i, speeds[i] / 1e9,
             rc == FUPERMOD_SUCCESS ? 100.0 * (double)fupermod_layout_area(model->l, i) / ((double)K * K) : NAN,
             100.0 * (double)fupermod_layout_area(even->l, i) / ((double)K * K));
    for (int i = 0; i < size; i++) fupermod_model_free(models[i]);
    free(models);
    fupermod_dist_free(dist);
  }
  free(speeds);
  check_all(fupermod_layout_bcast(MPI_COMM_WORLD, 0, rc, &model->l));
}

/* Warm-up runs, verified: the randomised check, and the same sum of C everywhere. */
static void warm_up(const options *o, method *m, int nm, summa_data *even, summa_data *model, pd_data *pd) {
  int n = (int)o->n, b = (int)o->b;
  for (int k = 0; k < nm; k++) {
    double sum;
    if (!strcmp(m[k].name, "pdgemm")) {
      pd_run(pd, n);
      sum = local_sum(pd->C, (size_t)pd->mloc * pd->nloc);
    } else {
      summa_data *s = strcmp(m[k].name, "summa-even") ? model : even;
      summa_run(s, n, b);
      sum = local_sum(s->C, s->loc);
      if (o->verify) {
        double ratio = NAN;
        check_all(fupermod_summa_check_random(MPI_COMM_WORLD, s->l, n, b, s->A, s->B, NULL, s->C, 7, &ratio));
        if (rank == 0) printf("# %s: randomised check error/bound = %.3g: %s\n", m[k].name, ratio, ratio <= 1.0 ? "PASS" : "FAIL");
        if (!(ratio <= 1.0)) die("SUMMA verification failed");
      }
    }
    MPI_Allreduce(&sum, &m[k].checksum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  if (rank == 0) {
    double ref = m[nm - 1].checksum;
    for (int k = 0; k < nm - 1; k++)
      printf("# sum of C: %s %.12g, pdgemm %.12g (relative difference %.2g)\n", m[k].name, m[k].checksum, ref,
             fabs(m[k].checksum - ref) / (fabs(ref) + 1e-300));
  }
}

/* Rank 0: the table of best and median times (sorts them) and the ratios of the medians. */
static void print_summary(const options *o, method *m, int nm, int hetero) {
  double flops = 2.0 * (double)o->n * o->n * o->n, med[3], best[3];
  if (rank != 0) return;
  printf("%-12s %10s %10s %14s %14s\n", "method", "best s", "median s", "GFLOP/s best", "GFLOP/s median");
  for (int k = 0; k < nm; k++) {
    qsort(m[k].times, (size_t)o->reps, sizeof(double), cmp_double);
    med[k] = m[k].times[o->reps / 2];
    printf("%-12s %10.4f %10.4f %14.2f %14.2f\n", m[k].name, m[k].times[0], med[k], flops / m[k].times[0] / 1e9,
           flops / med[k] / 1e9);
  }
  for (int k = 0; k < nm; k++) best[k] = m[k].times[0];
  if (hetero) {
    printf("ratio summa-model / pdgemm     = %.3f (speed; medians; best times: %.3f)\n", med[2] / med[0],
           best[2] / best[0]);
    printf("ratio summa-model / summa-even = %.3f (best times: %.3f)\n", med[1] / med[0], best[1] / best[0]);
    printf("ratio summa-even / pdgemm      = %.3f (best times: %.3f)\n", med[2] / med[1], best[2] / best[1]);
  } else {
    printf("ratio summa-even / pdgemm = %.3f (speed; medians; best times: %.3f)\n", med[1] / med[0],
           best[1] / best[0]);
  }
}

int main(int argc, char **argv) {
  options o = {"homo", "cpm", NULL, 3072, 256, 128, 3, 0.5, 0, 1, thread_level(argc, argv)};
  int hetero, K, cores, nm = 0, status;
  summa_data even = {0}, model = {0};
  pd_data pd;
  method m[3];
  if ((status = driver_mpi_start(&argc, &argv, o.level, "bench/summa", NULL, &rank, &size)) != 0) return status;
  if (parse_options(argc, argv, &o) == 0) {
    MPI_Finalize();
    return 0;
  }
  if (strcmp(o.config, "homo") && strcmp(o.config, "hetero")) die("--config: homo or hetero");
  hetero = strcmp(o.config, "hetero") == 0;
  cores = count_cores();
  if (hetero && size < 2) die("--config hetero needs at least 2 processes");
  if (hetero && cores < 2 && !o.bind_list && !o.no_bind) die("--config hetero needs 2 cores (or --bind)");
  K = (int)((o.n + o.b - 1) / o.b);
  bind_rank(&o, hetero, cores);

  even_layout(K, &even);
  if (hetero) {
    model_layout(&o, K, &even, &model);
    summa_setup(&model, (int)o.n, (int)o.b);
    m[nm++] = (method){"summa-model", NULL, 0};
  }
  summa_setup(&even, (int)o.n, (int)o.b);
  m[nm++] = (method){"summa-even", NULL, 0};
  pd_setup(&pd, (int)o.n, (int)o.nb);
  m[nm++] = (method){"pdgemm", NULL, 0};
  if (rank == 0) {
    printf("# layouts: even H = %.4f (%d columns)", fupermod_layout_volume(even.l), even.l->ncols);
    if (hetero) printf(", model H = %.4f (%d columns)", fupermod_layout_volume(model.l), model.l->ncols);
    printf("; PDGEMM grid %d x %d\n", pd.pr, pd.pc);
  }
  for (int k = 0; k < nm; k++) m[k].times = malloc((size_t)o.reps * sizeof(double));

  warm_up(&o, m, nm, &even, &model, &pd);
  for (long r = 0; r < o.reps; r++)
    for (int k = 0; k < nm; k++)
      m[k].times[r] = !strcmp(m[k].name, "pdgemm") ? pd_run(&pd, (int)o.n)
                      : summa_run(!strcmp(m[k].name, "summa-even") ? &even : &model, (int)o.n, (int)o.b);
  print_summary(&o, m, nm, hetero);

  for (int k = 0; k < nm; k++) free(m[k].times);
  free(even.A), free(even.B), free(even.C), free(model.A), free(model.B), free(model.C);
  free(pd.A), free(pd.B), free(pd.C);
  fupermod_layout_free(even.l);
  fupermod_layout_free(model.l);
  Cblacs_gridexit(pd.ctxt);
  MPI_Finalize();
  return 0;
}
