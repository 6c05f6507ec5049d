/* fupermod-summa-hybrid: INPA with nested IDPA on the real devices of a configuration, then the
 * hybrid SUMMA on the result, every process computing through the executor of its line (a cpu
 * line its cores with threads=, a gpu line the CUDA device device=N from its own core).
 *   mpirun --bind-to none -np P fupermod-summa-hybrid --conf CONF -n N -b B [options]
 * Nodes are the configuration's groups (group=NAME, else the host). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "apps/driver.h"
#include "apps/summa.h"
#include "apps/summa_hybrid.h"

static int rank, size;

typedef struct options {
  const char *conf;
  long n, b, max_inpa, max_idpa, reps;
  double eps1, eps2;
  int even, check;
} options;

static void usage(FILE *fp) {
  fprintf(fp, "usage: fupermod-summa-hybrid --conf CONF -n N -b B [--eps1 E] [--eps2 E] [--max-inpa K]\n"
              "                             [--max-idpa K] [--reps R] [--even] [--check]\n"
              "  N must be a multiple of B; --even skips INPA (equal node areas, equal slices);\n"
              "  --check verifies C exactly (integer data; O(N^3 / P) per process)\n");
}

/* -1: run; otherwise the exit status (0 after --help, 2 for a bad or missing option). */
static int parse_options(int argc, char **argv, options *o) {
  static const struct option opts[] = {{"conf", required_argument, NULL, 'c'}, {"eps1", required_argument, NULL, '1'},
                                       {"eps2", required_argument, NULL, '2'}, {"max-inpa", required_argument, NULL, 'I'},
                                       {"max-idpa", required_argument, NULL, 'J'}, {"reps", required_argument, NULL, 'r'},
                                       {"even", no_argument, NULL, 'e'}, {"check", no_argument, NULL, 'k'},
                                       {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
  int c;
  while ((c = getopt_long(argc, argv, "n:b:h", opts, NULL)) != -1) {
    int bad = 0;
    switch (c) {
    case 'c': o->conf = optarg; break;
    case 'n': bad = fupermod_parse_long(optarg, &o->n) || o->n < 1 || o->n > 1 << 20; break;
    case 'b': bad = fupermod_parse_long(optarg, &o->b) || o->b < 1 || o->b > 1 << 14; break;
    case '1': bad = fupermod_parse_double(optarg, &o->eps1) || o->eps1 < 0; break;
    case '2': bad = fupermod_parse_double(optarg, &o->eps2) || o->eps2 < 0; break;
    case 'I': bad = fupermod_parse_long(optarg, &o->max_inpa) || o->max_inpa < 1; break;
    case 'J': bad = fupermod_parse_long(optarg, &o->max_idpa) || o->max_idpa < 1; break;
    case 'r': bad = fupermod_parse_long(optarg, &o->reps) || o->reps < 1 || o->reps > 1000; break;
    case 'e': o->even = 1; break;
    case 'k': o->check = 1; break;
    case 'h':
      if (rank == 0) usage(stdout);
      return 0;
    default: bad = 1;
    }
    if (bad) {
      if (rank == 0) {
        fprintf(stderr, "fupermod-summa-hybrid: bad option%s%s\n", optarg ? " value " : "", optarg ? optarg : "");
        usage(stderr);
      }
      return 2;
    }
  }
  if (!o->conf || o->n < 1 || o->b < 1 || o->n % o->b != 0) {
    if (rank == 0) usage(stderr);
    return 2;
  }
  return -1;
}

/* The configuration's nodes and this process's line: its binding applied, its device opened. */
static int open_device(const char *confp, fupermod_conf *conf, fupermod_hier_comm *hc, fupermod_exec **ex) {
  int idx = -1, rc = fupermod_conf_load(confp, conf);
  MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (rc == FUPERMOD_SUCCESS && (rc = fupermod_conf_locate(conf, MPI_COMM_WORLD, &idx, NULL)) == FUPERMOD_SUCCESS &&
      (rc = fupermod_hier_comm_create(conf, MPI_COMM_WORLD, hc)) == FUPERMOD_SUCCESS) {
    char where[4200];
    fupermod_exec_opts eo;
    int r = FUPERMOD_SUCCESS;
    snprintf(where, sizeof where, "%s:%d", confp, conf->procs[idx].line);
    if (strcmp(conf->procs[idx].bind, "none") != 0) r = fupermod_bind_apply(conf->procs[idx].bind);
    /* the line's device, opened once (a gpu line without its GPU stops every rank here) */
    if (r == FUPERMOD_SUCCESS && (r = fupermod_exec_opts_conf(conf, idx, where, &eo)) == FUPERMOD_SUCCESS)
      r = fupermod_exec_open(&eo, ex);
    rc = fupermod_agree(r, MPI_COMM_WORLD);
  }
  return rc;
}

/* The homogeneous baseline: equal node areas, equal slices in each (one INPA round without
 * measurements is not possible, so build it). */
static int even_layout(const fupermod_hier_comm *hc, long n, long b, fupermod_hybrid_layout **hl) {
  double *ones = malloc((size_t)hc->nodes * sizeof *ones);
  long *cols = malloc((size_t)size * sizeof *cols);
  fupermod_layout *l = NULL;
  int rc;
  for (int k = 0; ones && k < hc->nodes; k++) ones[k] = 1.0;
  rc = ones && cols ? fupermod_layout_br(ones, hc->nodes, 0, (int)(n / b), (int)(n / b), &l) : FUPERMOD_ERR_NOMEM;
  for (int r = 0; rc == FUPERMOD_SUCCESS && r < size; r++) {
    int k = hc->node_of[r], j = 0, p = hc->node_size[k];
    long w = (long)l->rects[k].width * b;
    for (int s = 0; s < r; s++) j += hc->node_of[s] == k;
    cols[r] = l->rects[k].height ? w / p + (j < w % p ? 1 : 0) : 0;
  }
  if (rc == FUPERMOD_SUCCESS) rc = fupermod_hybrid_layout_make(hc, l, cols, (int)n, (int)b, hl);
  fupermod_layout_free(l);
  free(ones), free(cols);
  return rc;
}

/* The layout, even or by INPA with nested IDPA measuring the devices; rank 0 prints how it came. */
static int partition(const options *o, const fupermod_hier_comm *hc, fupermod_exec *ex, fupermod_inpa_result *res,
                     fupermod_hybrid_layout **hl) {
  const fupermod_partitioner *gpa = fupermod_partitioner_find("geometric");
  fupermod_inpa_opts io = {o->n, o->b, o->eps1, o->eps2, (int)o->max_inpa, (int)o->max_idpa, gpa->continuous,
                           gpa->continuous, "piecewise", "piecewise", "br"};
  fupermod_hybrid_measure_ctx mctx = {o->b, (int)o->reps, ex};
  double t0 = fupermod_time(), t;
  int rc;
  if (o->even) {
    rc = even_layout(hc, o->n, o->b, hl);
  } else {
    rc = fupermod_inpa(hc, &io, fupermod_hybrid_measure, &mctx, res);
    if (rc == FUPERMOD_SUCCESS) rc = fupermod_hybrid_layout_inpa(hc, res, (int)o->n, (int)o->b, hl);
  }
  t = fupermod_time() - t0;
  if (rank == 0 && rc == FUPERMOD_SUCCESS) {
    if (o->even) printf("partition: even (%d nodes)\n", hc->nodes);
    else
      printf("partition: INPA %s after %d node measurements (imbalance %.3f, eps1 %.3f, eps2 %.3f), %.3f s\n",
             res->converged ? "converged" : res->stalled ? "stalled" : "stopped at the cap", res->inpa_iterations,
             res->imbalance, o->eps1, o->eps2, t);
  }
  return rc;
}

/* Rank 0 prints every process's slice and its time in the updates. */
static void print_slices(const fupermod_hier_comm *hc, const fupermod_hybrid_layout *hl, double compute) {
  for (int r = 0; r < size; r++) {
    double cr = compute;
    if (r != 0) {
      if (rank == r) MPI_Send(&compute, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
      if (rank == 0) MPI_Recv(&cr, 1, MPI_DOUBLE, r, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    if (rank == 0)
      printf("rank %d node %d: rows %d..%d, columns %d..%d (%d), updates %.4f s\n", r, hc->node_of[r], hl->row0[r],
             hl->row0[r] + hl->rows[r], hl->col0[r], hl->col0[r] + hl->cols[r], hl->cols[r], cr);
  }
}

/* One timed hybrid SUMMA C = A B, its report and, with --check, the exact check (*status 1 on a
 * mismatch). */
static int multiply(const options *o, const fupermod_hier_comm *hc, const fupermod_hybrid_layout *hl,
                    fupermod_exec *ex, int *status) {
  size_t e = (size_t)hl->rows[rank] * (size_t)hl->cols[rank] + 1;
  int kind = o->check ? FUPERMOD_SUMMA_INTEGER : FUPERMOD_SUMMA_UNIFORM, ok, rc = FUPERMOD_SUCCESS;
  double *A = malloc(e * sizeof *A), *B = malloc(e * sizeof *B), *C = malloc(e * sizeof *C), t0, t, tmax = 0.0,
         compute = 0.0;
  ok = A && B && C;
  MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!ok) rc = FUPERMOD_ERR_NOMEM;
  else {
    fupermod_hybrid_fill(hl, rank, 1, kind, A);
    fupermod_hybrid_fill(hl, rank, 2, kind, B);
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = fupermod_time();
    rc = fupermod_hybrid_dgemm(MPI_COMM_WORLD, hl, ex, A, B, C, 0, &compute);
    t = fupermod_time() - t0;
    MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  }
  if (rc == FUPERMOD_SUCCESS) {
    print_slices(hc, hl, compute);
    if (rank == 0)
      printf("hybrid SUMMA n=%ld b=%ld on %d devices in %d nodes: %.4f s, %.2f GFLOP/s\n", o->n, o->b, size, hc->nodes,
             tmax, 2.0 * (double)o->n * (double)o->n * (double)o->n / tmax * 1e-9);
    if (o->check) {
      long bad = 0;
      double rel = 0;
      rc = fupermod_hybrid_check(MPI_COMM_WORLD, hl, FUPERMOD_SUMMA_INTEGER, 1, 2, 0, 0, C, 0.0, &bad, &rel);
      if (rank == 0) printf("check: %ld mismatches\n", bad);
      if (rc == FUPERMOD_SUCCESS && bad) *status = 1;
    }
  }
  free(A), free(B), free(C);
  return rc;
}

int main(int argc, char **argv) {
  options o = {NULL, 0, 0, 20, 20, 3, 0.05, 0.05, 0, 0};
  fupermod_conf conf = {0, NULL, NULL};
  fupermod_hier_comm hc;
  fupermod_exec *ex = NULL;
  fupermod_inpa_result res;
  fupermod_hybrid_layout *hl = NULL;
  int rc, status;
  if ((status = driver_mpi_start(&argc, &argv, MPI_THREAD_SERIALIZED, "fupermod-summa-hybrid", NULL, &rank, &size)))
    return status;
  memset(&res, 0, sizeof res);
  memset(&hc, 0, sizeof hc);
  if ((status = parse_options(argc, argv, &o)) >= 0) {
    MPI_Finalize();
    return status;
  }
  status = 0;
  rc = open_device(o.conf, &conf, &hc, &ex);
  if (rc == FUPERMOD_SUCCESS) rc = partition(&o, &hc, ex, &res, &hl);
  MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (rc == FUPERMOD_SUCCESS) rc = multiply(&o, &hc, hl, ex, &status);
  if (rc != FUPERMOD_SUCCESS) {
    if (rank == 0) fprintf(stderr, "fupermod-summa-hybrid: %s\n", fupermod_error_message());
    status = fupermod_exit_status(rc);
  }
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  fupermod_hybrid_layout_free(hl);
  fupermod_inpa_result_free(&res);
  fupermod_hier_comm_free(&hc);
  fupermod_exec_close(ex);
  if (conf.procs) fupermod_conf_free(&conf);
  MPI_Finalize();
  return status;
}
