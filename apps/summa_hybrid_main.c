/* fupermod-summa-hybrid: INPA with nested IDPA on the real devices of a configuration, then the
 * hybrid SUMMA on the result, every process computing through the executor of its line (a cpu
 * line its cores with threads=, a gpu line the CUDA device device=N from its own core).
 *   mpirun --bind-to none -np P fupermod-summa-hybrid --conf CONF -n N -b B [options]
 * Nodes are the configuration's groups (group=NAME, else the host). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "apps/summa.h"
#include "apps/summa_hybrid.h"
#include "fupermod/mpi_thread.h"

static void usage(FILE *fp) {
  fprintf(fp, "usage: fupermod-summa-hybrid --conf CONF -n N -b B [--eps1 E] [--eps2 E] [--max-inpa K]\n"
              "                             [--max-idpa K] [--reps R] [--even] [--check]\n"
              "  N must be a multiple of B; --even skips INPA (equal node areas, equal slices);\n"
              "  --check verifies C exactly (integer data; O(N^3 / P) per process)\n");
}

int main(int argc, char **argv) {
  static const struct option opts[] = {{"conf", required_argument, NULL, 'c'}, {"eps1", required_argument, NULL, '1'},
                                       {"eps2", required_argument, NULL, '2'}, {"max-inpa", required_argument, NULL, 'I'},
                                       {"max-idpa", required_argument, NULL, 'J'}, {"reps", required_argument, NULL, 'r'},
                                       {"even", no_argument, NULL, 'e'}, {"check", no_argument, NULL, 'k'},
                                       {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
  const char *confp = NULL;
  long n = 0, b = 0, max_inpa = 20, max_idpa = 20, reps = 3;
  double eps1 = 0.05, eps2 = 0.05, t0, t, tmax, compute = 0.0;
  int even = 0, check = 0, c, rank, size, provided, rc, idx = -1, status = 0;
  fupermod_conf conf = {0, NULL, NULL};
  fupermod_hier_comm hc;
  fupermod_exec *ex = NULL;
  fupermod_hybrid_measure_ctx mctx;
  fupermod_inpa_result res;
  fupermod_hybrid_layout *hl = NULL;
  double *A = NULL, *B = NULL, *C = NULL;

  { /* OpenMP, OpenBLAS or FFTW threads compute while the main thread calls MPI */
    int trc = fupermod_mpi_init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, "fupermod-summa-hybrid", &provided);
    if (trc != FUPERMOD_SUCCESS) {
      fprintf(stderr, "fupermod-summa-hybrid: %s\n", fupermod_error_message());
      MPI_Finalize();
      return fupermod_exit_status(trc);
    }
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  memset(&res, 0, sizeof res);
  memset(&hc, 0, sizeof hc);
  while ((c = getopt_long(argc, argv, "n:b:h", opts, NULL)) != -1) {
    int bad = 0;
    switch (c) {
    case 'c': confp = optarg; break;
    case 'n': bad = fupermod_parse_long(optarg, &n) || n < 1 || n > 1 << 20; break;
    case 'b': bad = fupermod_parse_long(optarg, &b) || b < 1 || b > 1 << 14; break;
    case '1': bad = fupermod_parse_double(optarg, &eps1) || eps1 < 0; break;
    case '2': bad = fupermod_parse_double(optarg, &eps2) || eps2 < 0; break;
    case 'I': bad = fupermod_parse_long(optarg, &max_inpa) || max_inpa < 1; break;
    case 'J': bad = fupermod_parse_long(optarg, &max_idpa) || max_idpa < 1; break;
    case 'r': bad = fupermod_parse_long(optarg, &reps) || reps < 1 || reps > 1000; break;
    case 'e': even = 1; break;
    case 'k': check = 1; break;
    case 'h':
      if (rank == 0) usage(stdout);
      MPI_Finalize();
      return 0;
    default: bad = 1;
    }
    if (bad) {
      if (rank == 0) {
        fprintf(stderr, "fupermod-summa-hybrid: bad option%s%s\n", optarg ? " value " : "", optarg ? optarg : "");
        usage(stderr);
      }
      MPI_Finalize();
      return 2;
    }
  }
  if (!confp || n < 1 || b < 1 || n % b != 0) {
    if (rank == 0) usage(stderr);
    MPI_Finalize();
    return 2;
  }
  rc = fupermod_conf_load(confp, &conf);
  MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (rc == FUPERMOD_SUCCESS && (rc = fupermod_conf_locate(&conf, MPI_COMM_WORLD, &idx, NULL)) == FUPERMOD_SUCCESS &&
      (rc = fupermod_hier_comm_create(&conf, MPI_COMM_WORLD, &hc)) == FUPERMOD_SUCCESS) {
    char where[4200];
    fupermod_exec_opts eo;
    int r = FUPERMOD_SUCCESS;
    snprintf(where, sizeof where, "%s:%d", confp, conf.procs[idx].line);
    if (strcmp(conf.procs[idx].bind, "none") != 0) r = fupermod_bind_apply(conf.procs[idx].bind);
    /* the line's device, opened once (a gpu line without its GPU stops every rank here) */
    if (r == FUPERMOD_SUCCESS && (r = fupermod_exec_opts_line(&conf.procs[idx], where, &eo)) == FUPERMOD_SUCCESS)
      r = fupermod_exec_open(&eo, &ex);
    rc = fupermod_agree(r, MPI_COMM_WORLD);
  }
  if (rc == FUPERMOD_SUCCESS) {
    const fupermod_partitioner *gpa = fupermod_partitioner_find("geometric");
    fupermod_inpa_opts o = {n, b, eps1, eps2, (int)max_inpa, (int)max_idpa, gpa->continuous, gpa->continuous,
                            "piecewise", "piecewise", "br"};
    mctx = (fupermod_hybrid_measure_ctx){b, (int)reps, ex};
    t0 = fupermod_time();
    if (even) {
      /* the homogeneous baseline: one INPA round without measurements is not possible, so build it */
      double *ones = malloc((size_t)hc.nodes * sizeof *ones);
      long *cols = malloc((size_t)size * sizeof *cols);
      fupermod_layout *l = NULL;
      for (int k = 0; ones && k < hc.nodes; k++) ones[k] = 1.0;
      rc = ones && cols ? fupermod_layout_br(ones, hc.nodes, 0, (int)(n / b), (int)(n / b), &l) : FUPERMOD_ERR_NOMEM;
      for (int r = 0; rc == FUPERMOD_SUCCESS && r < size; r++) {
        int k = hc.node_of[r], j = 0, p = hc.node_size[k];
        long w = (long)l->rects[k].width * b;
        for (int s = 0; s < r; s++) j += hc.node_of[s] == k;
        cols[r] = l->rects[k].height ? w / p + (j < w % p ? 1 : 0) : 0;
      }
      if (rc == FUPERMOD_SUCCESS) rc = fupermod_hybrid_layout_make(&hc, l, cols, (int)n, (int)b, &hl);
      fupermod_layout_free(l);
      free(ones), free(cols);
    } else {
      rc = fupermod_inpa(&hc, &o, fupermod_hybrid_measure, &mctx, &res);
      if (rc == FUPERMOD_SUCCESS) rc = fupermod_hybrid_layout_inpa(&hc, &res, (int)n, (int)b, &hl);
    }
    t = fupermod_time() - t0;
    if (rank == 0 && rc == FUPERMOD_SUCCESS) {
      if (even) printf("partition: even (%d nodes)\n", hc.nodes);
      else
        printf("partition: INPA %s after %d node measurements (imbalance %.3f, eps1 %.3f, eps2 %.3f), %.3f s\n",
               res.converged ? "converged" : res.stalled ? "stalled" : "stopped at the cap", res.inpa_iterations,
               res.imbalance, eps1, eps2, t);
    }
  }
  MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (rc == FUPERMOD_SUCCESS) {
    size_t e = (size_t)hl->rows[rank] * (size_t)hl->cols[rank] + 1;
    int kind = check ? FUPERMOD_SUMMA_INTEGER : FUPERMOD_SUMMA_UNIFORM, ok = 1;
    A = malloc(e * sizeof *A), B = malloc(e * sizeof *B), C = malloc(e * sizeof *C);
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
      for (int r = 0; r < size; r++) {
        double cr = compute;
        if (r != 0) {
          if (rank == r) MPI_Send(&compute, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
          if (rank == 0) MPI_Recv(&cr, 1, MPI_DOUBLE, r, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        if (rank == 0)
          printf("rank %d node %d: rows %d..%d, columns %d..%d (%d), updates %.4f s\n", r, hc.node_of[r], hl->row0[r],
                 hl->row0[r] + hl->rows[r], hl->col0[r], hl->col0[r] + hl->cols[r], hl->cols[r], cr);
      }
      if (rank == 0)
        printf("hybrid SUMMA n=%ld b=%ld on %d devices in %d nodes: %.4f s, %.2f GFLOP/s\n", n, b, size, hc.nodes, tmax,
               2.0 * (double)n * (double)n * (double)n / tmax * 1e-9);
      if (check) {
        long bad = 0;
        double rel = 0;
        rc = fupermod_hybrid_check(MPI_COMM_WORLD, hl, FUPERMOD_SUMMA_INTEGER, 1, 2, 0, 0, C, 0.0, &bad, &rel);
        if (rank == 0) printf("check: %ld mismatches\n", bad);
        if (rc == FUPERMOD_SUCCESS && bad) status = 1;
      }
    }
  }
  if (rc != FUPERMOD_SUCCESS) {
    if (rank == 0) fprintf(stderr, "fupermod-summa-hybrid: %s\n", fupermod_error_message());
    status = fupermod_exit_status(rc);
  }
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  free(A), free(B), free(C);
  fupermod_hybrid_layout_free(hl);
  fupermod_inpa_result_free(&res);
  fupermod_hier_comm_free(&hc);
  fupermod_exec_close(ex);
  if (conf.procs) fupermod_conf_free(&conf);
  MPI_Finalize();
  return status;
}
