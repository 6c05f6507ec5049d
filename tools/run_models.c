/* fupermod run (tools/cmd_run.c): the kernels' functions: built (or reused) on every process,
 * gathered, smoothed (tools/run_job.h). */
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

/* Bump when a kernel's measured work changes (2: in-place fft-rows, exact-area dgemm; 3: processes
 * sharing cores record the union of their runs; 4: early finishers keep loading the machine;
 * 5: outlying repetitions rejected; 6: processes whose bindings overlap time-share their cores). */
#define RUN_MODELS_REV 6

uint64_t run_fnv(uint64_t h, const void *data, size_t n) {
  const unsigned char *s = data;
  for (size_t i = 0; i < n; i++) h = (h ^ s[i]) * 1099511628211ULL;
  return h;
}

/* The fingerprint of everything that determines a model: reuse only when it matches. */
static uint64_t fingerprint(const fupermod_process_conf *pc, const run_exec *ex, const app_t *a,
                            const fupermod_precision *p) {
  char buf[8192];
  uint64_t h = 1469598103934665603ULL;
  snprintf(buf, sizeof buf, "rev%d|%s %d %s %s %s|threads=%d|%s|%s|n=%ld|b=%ld|g=%ld|K=%d|%d|%d|%g|%g|%g|%d|",
           RUN_MODELS_REV, pc->hostname, pc->rank_intra, pc->bind, pc->device_type, pc->subopts, ex->threads, a->kernel,
           ex->sub, a->n, a->b, a->g, a->K, p->reps_min, p->reps_max, p->cl, p->eps, p->time_max, p->keep_outliers);
  h = run_fnv(h, buf, strlen(buf));
  h = run_fnv(h, ex->host, strlen(ex->host) + 1);
  h = run_fnv(h, ex->node, strlen(ex->node) + 1);
  {
    /* the device: its kind and PCI bus id (not its free memory, which varies) */
    int kind = fupermod_exec_kind(ex->exec);
    const char *pci = fupermod_exec_pci_bus_id(ex->exec);
    h = run_fnv(run_fnv(h, &kind, sizeof kind), pci, strlen(pci) + 1);
  }
  return run_fnv(h, &ex->code, sizeof ex->code);
}

static long *app_grid(const app_t *a) {
  long *grid = malloc((size_t)a->K * sizeof *grid);
  for (int i = 0; grid && i < a->K; i++) grid[i] = a->g * (i + 1);
  return grid;
}

/* The adaptive build on app a's grid g, 2g, ..., D, measuring the shares of what this job
 * partitions: time with --algorithm (PARALEPH where that is not a discrete time partitioner of
 * heterogeneous functions: the adaptive build needs exact shares on measured sizes; the others'
 * shares are then interpolated), energy (PARALEPH) when the functions have energy, and HiPOPTA's
 * over several nodes. */
static int build_adaptive(const options *o, tool_proc *tp, const app_t *a, fupermod_kernel *k, const char *path,
                          fupermod_points *pts) {
  tool_adaptive ad;
  int rc;
  memset(&ad, 0, sizeof ad);
  ad.grid = app_grid(a);
  ad.ngrid = a->K;
  ad.D = a->D;
  {
    const fupermod_partitioner *alg = fupermod_partitioner_find(o->algorithm);
    ad.algorithm = alg && alg->kind == FUPERMOD_PART_DISCRETE && !alg->homogeneous && !alg->needs_energy ? o->algorithm : "paraleph";
  }
  ad.objectives = TOOL_ADAPT_TIME | TOOL_ADAPT_ENERGY | TOOL_ADAPT_HIER | TOOL_ADAPT_PARETO;
  ad.tradeoff = o->tradeoff;
  ad.init = 4;
  ad.max_rounds = 10;
  ad.tol = 0.05;
  ad.smooth = o->smooth;
  ad.cl = o->prec.cl;
  ad.quiet = o->quiet;
  ad.refine = 1;
  ad.sub = SUB;
  rc = ad.grid ? tool_adaptive_build(&ad, tp, k, &o->prec, path, pts) : fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  tool_adaptive_free(&ad);
  free((long *)ad.grid);
  return rc;
}

/* What building the models cost (rank 0): sizes measured per process, their benchmark seconds,
 * and the full grid's, estimated from the functions. */
void run_report_model_cost(const app_t *a, const fupermod_points *all, int size) {
  long *grid = app_grid(a);
  if (!grid) return;
  printf("   %s models:\n", a->name);
  tool_adaptive_report(stdout, all, size, grid, a->K);
  free(grid);
}

/* The bytes of the plug-in NAME, into the hash h. */
static int hash_plugin(const char *name, uint64_t *h) {
  char *path = NULL, *text = NULL;
  size_t len = 0;
  int rc = fupermod_kernel_find(name, &path);
  if (rc == FUPERMOD_SUCCESS) rc = fupermod_read_file(path, &text, &len);
  if (rc == FUPERMOD_SUCCESS) *h = run_fnv(*h, text, len);
  free(text);
  free(path);
  return rc;
}

/* The kernel's code: the plug-in file's bytes, on a GPU the executor module's, and the library
 * the CPU computes with. */
static int kernel_code(const app_t *a, const fupermod_exec *exec, uint64_t *code) {
  const char *lib = tool_app_fft(a) ? fftw_version : openblas_get_config();
  uint64_t h = 1469598103934665603ULL;
  int rc = hash_plugin(a->kernel, &h);
  if (rc == FUPERMOD_SUCCESS && fupermod_exec_kind(exec) == FUPERMOD_EXEC_CUDA) rc = hash_plugin("fupermod_exec_cuda", &h);
  *code = run_fnv(h, lib, strlen(lib));
  return rc;
}

/* This process's run_exec for app a (collective over the node: the node's lines). */
int run_exec_setup(const tool_proc *tp, const app_t *a, run_exec *ex) {
  const fupermod_process_conf *pc = &tp->conf.procs[tp->index];
  char mine[2048];
  int rc, n = 0, len = 0;
  char *all = NULL;
  memset(ex, 0, sizeof *ex);
  ex->exec = tp->exec;
  ex->threads = fupermod_exec_threads(tp->exec);
  if (a->ops) snprintf(ex->sub, sizeof ex->sub, "%s", a->pb->kernel_subopts);
  else if (a->b) snprintf(ex->sub, sizeof ex->sub, "b=%ld,threads=%d", a->b, ex->threads);
  else snprintf(ex->sub, sizeof ex->sub, "n=%ld,threads=%d,place=in", a->n, ex->threads);
  /* then the line's other sub-options (those the app sets agree with it: check_lines) */
  for (const char *s = pc->subopts; *s;) {
    size_t k = strcspn(s, ",");
    if (!((k > 2 && strncmp(s, "b=", 2) == 0) || (k > 2 && strncmp(s, "n=", 2) == 0) ||
          (k > 8 && strncmp(s, "threads=", 8) == 0) || (k > 6 && strncmp(s, "place=", 6) == 0)))
      snprintf(ex->sub + strlen(ex->sub), sizeof ex->sub - strlen(ex->sub), "%s%.*s", ex->sub[0] ? "," : "", (int)k, s);
    s += k + (s[k] == ',');
  }
  MPI_Get_processor_name(ex->host, &len);
  rc = kernel_code(a, tp->exec, &ex->code);
  snprintf(mine, sizeof mine, "%s %d %s %s %s, threads %d", pc->hostname, pc->rank_intra, pc->bind, pc->device_type,
           pc->subopts, ex->threads);
  MPI_Comm_size(tp->intra, &n);
  all = malloc((size_t)n * sizeof mine);
  ex->node = malloc((size_t)n * sizeof mine);
  /* every process of the node takes part, even when it failed above */
  MPI_Allgather(mine, sizeof mine, MPI_CHAR, all ? all : mine, all ? (int)sizeof mine : 0, MPI_CHAR, tp->intra);
  if (!all || !ex->node) rc = fupermod_error(FUPERMOD_ERR_NOMEM, "run: out of memory");
  else {
    ex->node[0] = '\0';
    for (int r = 0; r < n; r++) {
      strcat(ex->node, all + (size_t)r * sizeof mine);
      if (r + 1 < n) strcat(ex->node, "\n");
    }
  }
  free(all);
  return rc;
}

/* Build or reuse this process's function for app a: every size is measured with the node's
 * processes in step; each point is appended at once so an interrupted run resumes. */
int run_build_function(const options *o, tool_proc *tp, const app_t *a, const run_exec *ex, fupermod_points *pts,
                          double *elapsed) {
  const fupermod_process_conf *pc = &tp->conf.procs[tp->index];
  char dir[4096], path[4200], head[256];
  const char *sub = ex->sub;
  uint64_t fp = fingerprint(pc, ex, a, &o->prec);
  fupermod_kernel *k = NULL;
  int rc = FUPERMOD_SUCCESS, rank, reuse = 0, lockfd = -1;
  double t0 = fupermod_time();
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  snprintf(dir, sizeof dir, "%s/%s", o->models, a->name);
  snprintf(path, sizeof path, "%s/%s.%d.points", dir, pc->hostname, pc->rank_intra);
  snprintf(head, sizeof head, "# fupermod run model: app %s kernel %s fingerprint %016llx", a->name, a->kernel,
           (unsigned long long)fp);
  pts->count = 0;
  pts->pts = NULL;
  if ((rc = tool_agree(SUB, fupermod_mkdir_p(dir), MPI_COMM_WORLD)) != FUPERMOD_SUCCESS) goto done;
  /* another job's models are read once it let go of them (tool_dir_lock) */
  if ((rc = tool_dir_lock(SUB, dir, o->lock_wait, &lockfd)) != FUPERMOD_SUCCESS) goto done;
  if (!o->rebuild && access(path, F_OK) == 0) {
    char *text = NULL;
    size_t len;
    if (fupermod_read_file(path, &text, &len) == FUPERMOD_SUCCESS && strstr(text, head) &&
        fupermod_points_parse(text, len, path, pts) == FUPERMOD_SUCCESS)
      reuse = 1; /* same fingerprint: keep what was measured, measure what is missing */
    free(text);
  }
  if (rc == FUPERMOD_SUCCESS && !reuse) {
    fupermod_atomic_file af;
    fupermod_points_free(pts);
    if ((rc = fupermod_atomic_open(&af, path)) == FUPERMOD_SUCCESS) {
      fprintf(af.fp, FUPERMOD_POINTS_HEADER "\n%s\n# energy: %s\n", head, tp->label[0] ? tp->label : "none");
      /* for fupermod model list/show/plot: the kernel (its complexity) and the configuration line */
      fprintf(af.fp, "# kernel: %s %s\n# line: %s %d %s %s %s\n", a->kernel, sub, pc->hostname, pc->rank_intra, pc->bind,
              pc->device_type, pc->subopts);
      /* what else the fingerprint covers, for a reader */
      fprintf(af.fp, "# measured on host %s, executor %s, beside the node's lines:\n# | ", ex->host,
              fupermod_exec_describe(tp->exec));
      for (const char *c = ex->node; *c; c++)
        if (*c == '\n') fputs("\n# | ", af.fp);
        else fputc(*c, af.fp);
      fputc('\n', af.fp);
      rc = fupermod_atomic_commit(&af);
    }
  }
  if (rc == FUPERMOD_SUCCESS) rc = fupermod_kernel_load(a->kernel, sub, &k);
  /* measured on the process's device, as the application computes */
  if (rc == FUPERMOD_SUCCESS) rc = fupermod_kernel_use_exec(k, tp->exec);
  if ((rc = tool_agree(SUB, rc, MPI_COMM_WORLD)) != FUPERMOD_SUCCESS) goto done;
  if (!o->full_grid && (rc = build_adaptive(o, tp, a, k, path, pts)) != FUPERMOD_SUCCESS) goto done;
  for (int i = 1; o->full_grid && i <= a->K; i++) {
    long d = a->g * i;
    int need = fupermod_points_find(pts, d) < 0, node_need = 0, any = 0;
    fupermod_point pt = FUPERMOD_POINT_INIT;
    MPI_Allreduce(&need, &node_need, 1, MPI_INT, MPI_MAX, tp->intra);
    MPI_Allreduce(&node_need, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (node_need) {
      rc = fupermod_benchmark_meter(k, tp->meter, tp->static_power, d, &o->prec, tp->intra, &pt);
      if (rc == FUPERMOD_SUCCESS && need) {
        if (pt.reps == 0) pt.reps = 1;
        if (!tp->meter) pt.e = pt.e_ci = -1.0;
        if ((rc = fupermod_points_append(path, &pt)) == FUPERMOD_SUCCESS) rc = fupermod_points_insert(pts, &pt);
      }
    }
    if ((rc = tool_agree(SUB, rc, MPI_COMM_WORLD)) != FUPERMOD_SUCCESS) goto done;
    if (rank == 0 && !o->quiet && any)
      fprintf(stderr, "fupermod run: %s model: size %d of %d (d=%ld), %.1f s\n", a->name, i, a->K, d,
              fupermod_time() - t0);
  }
  if (rank == 0 && !o->quiet && reuse)
    fprintf(stderr, "fupermod run: %s models reused from %s/%s\n", a->name, o->models, a->name);
done:
  tool_dir_unlock(&lockfd);
  fupermod_kernel_unload(k);
  *elapsed = fupermod_time() - t0;
  return rc;
}

/* Gather every process's points on rank 0 (pts_all[size]). */
int run_gather_points(const fupermod_points *mine, fupermod_points **all, int size) {
  int rank, n = mine->count, *counts = NULL, *displs = NULL, total = 0;
  double *buf = NULL, *recv = NULL;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  buf = malloc((size_t)(n ? n : 1) * 7 * sizeof *buf);
  for (int i = 0; i < n; i++) {
    const fupermod_point *p = &mine->pts[i];
    double row[7] = {(double)p->d, p->t, p->reps, p->ci, p->e, p->e_ci, p->rejected};
    memcpy(buf + 7 * i, row, sizeof row);
  }
  if (rank == 0) {
    counts = malloc((size_t)size * sizeof *counts);
    displs = malloc((size_t)size * sizeof *displs);
  }
  n *= 7;
  MPI_Gather(&n, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    for (int r = 0; r < size; r++) displs[r] = total, total += counts[r];
    recv = malloc((size_t)(total ? total : 1) * sizeof *recv);
  }
  MPI_Gatherv(buf, n, MPI_DOUBLE, recv, counts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    *all = calloc((size_t)size, sizeof **all);
    for (int r = 0; r < size; r++) {
      fupermod_points *f = &(*all)[r];
      f->count = counts[r] / 7;
      f->pts = malloc((size_t)(f->count ? f->count : 1) * sizeof *f->pts);
      f->has_energy = f->count > 0;
      for (int i = 0; i < f->count; i++) {
        const double *row = recv + displs[r] + 7 * i;
        fupermod_point p = {.d = (long)row[0], .t = row[1], .ci = row[3], .e = row[4], .e_ci = row[5], .reps = (int)row[2],
                            .samples = -1, .rejected = (int)row[6]};
        f->pts[i] = p;
        if (p.e < 0) f->has_energy = 0;
      }
    }
  }
  free(buf);
  free(recv);
  free(counts);
  free(displs);
  return FUPERMOD_SUCCESS;
}

/* On rank 0: replace every process's points by its smoothed function (fupermod_points_smooth);
 * raw keeps the measured ones for the plots, scatter[i] the relative scatter about the fit. */
int run_smooth_all(const options *o, fupermod_points *all, int size, fupermod_points **raw, double *scatter) {
  int rank, rc = FUPERMOD_SUCCESS;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0 && o->smooth > 0) {
    if (!scatter || !(*raw = calloc((size_t)size, sizeof **raw)))
      rc = fupermod_error(FUPERMOD_ERR_NOMEM, "run: out of memory");
    for (int i = 0; i < size && rc == FUPERMOD_SUCCESS; i++) {
      fupermod_points sm;
      if ((rc = fupermod_points_smooth(&all[i], o->smooth, o->prec.cl, &sm, &scatter[i], NULL)) != FUPERMOD_SUCCESS) break;
      (*raw)[i] = all[i];
      all[i] = sm;
    }
  }
  return tool_agree(SUB, rc, MPI_COMM_WORLD);
}
