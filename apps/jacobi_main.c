/* fupermod-jacobi: the row-distributed Jacobi solver with dynamic load balancing; prints the
 * distribution and the per-process computation times of every iteration. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "apps/driver.h"
#include "apps/jacobi.h"

static int rank = 0, size = 1;

static void help(void) {
  printf("usage: mpirun -np P fupermod-jacobi [-D ROWS] [--balancer none|cpm|fpm|npa] [options]\n\n"
         "Solves a dense diagonally dominant ROWS x ROWS system by Jacobi iterations, rows distributed\n"
         "over the processes and rebalanced between iterations (docs/apps.md).\n"
         "  -D ROWS             size of the system (default 2000)\n"
         "  -b, --balancer B    none | cpm (latest speeds, Galindo-style) | fpm (piecewise models +\n"
         "                      geometric partitioner) | npa (Akima models + numerical) (default fpm)\n"
         "  -i, --iters K       at most K iterations (default 30)\n"
         "  --tol TOL           stop when max |x_new - x| <= TOL (default 0: run K iterations)\n"
         "  --eps E             keep the distribution while the measured imbalance <= E (default 0)\n"
         "  --conf CONF         process configuration: apply this process's binding\n"
         "Emulated processors (one value for all processes, or one per process, comma-separated):\n"
         "  --row-time S,...    seconds per row and iteration (default 0: no emulation, real speed)\n"
         "  --mem-rows R,...    rows that fit in the emulated memory (0: unlimited; a row is\n"
         "                      (ROWS + 1) * 8 bytes)\n"
         "  --penalty P         a row past the memory costs 1 + P rows (default 9)\n"
         "Output: one line per iteration: k, rows per process, computation times (ms) per process,\n"
         "imbalance (t_max - t_min) / t_min, wall time (ms) and max |x_new - x|.\n");
}

/* This rank's value of a comma-separated list of one value or one per process. */
static int pick(const char *opt, const char *list, double *out) {
  const char *s = list;
  char tok[64];
  int n = 1;
  for (const char *c = list; *c; c++) n += *c == ',';
  if (n != 1 && n != size)
    return fupermod_error(FUPERMOD_ERR_USAGE, "--%s: %d values for %d processes (give 1 or %d)", opt, n, size, size);
  if (n > 1)
    for (int i = 0; i < rank; i++) s = strchr(s, ',') + 1;
  size_t len = strcspn(s, ",");
  if (len == 0 || len >= sizeof tok) return fupermod_error(FUPERMOD_ERR_USAGE, "--%s: empty or too long value", opt);
  memcpy(tok, s, len);
  tok[len] = '\0';
  if (fupermod_parse_double(tok, out) || *out < 0)
    return fupermod_error(FUPERMOD_ERR_USAGE, "--%s: '%s' is not a number >= 0", opt, tok);
  return FUPERMOD_SUCCESS;
}

static int run(int argc, char **argv) {
  static const struct option opts[] = {
      {"balancer", required_argument, NULL, 'b'}, {"iters", required_argument, NULL, 'i'},
      {"tol", required_argument, NULL, 'T'},      {"eps", required_argument, NULL, 'e'},
      {"conf", required_argument, NULL, 'c'},     {"row-time", required_argument, NULL, 'r'},
      {"mem-rows", required_argument, NULL, 'm'}, {"penalty", required_argument, NULL, 'P'},
      {"help", no_argument, NULL, 'h'},           {NULL, 0, NULL, 0}};
  fupermod_jacobi_opts o = {"fpm", 0.0, 30, 0.0, {0.0, 0, 9.0}};
  const char *conffile = NULL, *row_time = "0", *mem_rows = "0";
  long D = 2000, v;
  double x;
  int c, rc;
  fupermod_jacobi_trace tr;
  double *sol = NULL;

  opterr = 0;
  while ((c = getopt_long(argc, argv, "D:b:i:h", opts, NULL)) != -1) {
    switch (c) {
    case 'D':
    case 'i':
      if (fupermod_parse_long(optarg, &v) || v < 1 || (c == 'i' && v > 1000000))
        return fupermod_error(FUPERMOD_ERR_USAGE, "%s: '%s' is not a positive integer", c == 'D' ? "-D" : "--iters",
                              optarg);
      if (c == 'D') D = v;
      else o.max_iter = (int)v;
      break;
    case 'T':
    case 'e':
    case 'P':
      if (fupermod_parse_double(optarg, &x) || x < 0)
        return fupermod_error(FUPERMOD_ERR_USAGE, "--%s: '%s' is not a number >= 0",
                              c == 'T' ? "tol" : c == 'e' ? "eps" : "penalty", optarg);
      if (c == 'T') o.tol = x;
      else if (c == 'e') o.eps = x;
      else o.emu.penalty = x;
      break;
    case 'b': o.balancer = optarg; break;
    case 'c': conffile = optarg; break;
    case 'r': row_time = optarg; break;
    case 'm': mem_rows = optarg; break;
    case 'h':
      if (rank == 0) help();
      return 1;
    default:
      return fupermod_error(FUPERMOD_ERR_USAGE, "unknown option or missing argument '%s' (see --help)",
                            argv[optind - 1]);
    }
  }
  if (optind < argc) return fupermod_error(FUPERMOD_ERR_USAGE, "unexpected argument '%s'", argv[optind]);
  if ((rc = pick("row-time", row_time, &o.emu.row_time)) != FUPERMOD_SUCCESS) return rc;
  if ((rc = pick("mem-rows", mem_rows, &x)) != FUPERMOD_SUCCESS) return rc;
  o.emu.mem_rows = (long)x;

  /* the Jacobi sweep runs on the CPU: a gpu line would silently measure its host core */
  if (conffile &&
      (rc = driver_conf_bind(conffile, "the Jacobi solver computes on CPU processes only")) != FUPERMOD_SUCCESS)
    return rc;

  {
    fupermod_jacobi_emu *e = rank == 0 ? malloc((size_t)size * sizeof *e) : NULL;
    MPI_Gather(&o.emu, (int)sizeof o.emu, MPI_BYTE, e, (int)sizeof o.emu, MPI_BYTE, 0, MPI_COMM_WORLD);
    if (rank == 0) {
      printf("# fupermod-jacobi: D=%ld p=%d balancer=%s iters<=%d tol=%g eps=%g\n", D, size, o.balancer, o.max_iter,
             o.tol, o.eps);
      for (int i = 0; i < size; i++)
        if (e[i].row_time > 0)
          printf("# emulated process %d: %.3g ms/row, memory %ld rows (%.1f MB), penalty %g\n", i, e[i].row_time * 1e3,
                 e[i].mem_rows, (double)e[i].mem_rows * (double)(D + 1) * 8.0 / 1048576.0, e[i].penalty);
      printf("# k  rows[0..p-1]  t_ms[0..p-1]  imbalance  wall_ms  error\n");
      free(e);
    }
  }
  sol = malloc((size_t)D * sizeof *sol);
  rc = sol ? FUPERMOD_SUCCESS : fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  if ((rc = driver_agree(rc)) != FUPERMOD_SUCCESS) return rc;
  rc = fupermod_jacobi_solve(MPI_COMM_WORLD, D, &o, &tr, sol);
  if ((rc = driver_agree(rc)) != FUPERMOD_SUCCESS) {
    free(sol);
    return rc;
  }
  if (rank == 0) {
    double total = 0.0, xerr = 0.0;
    for (int k = 0; k < tr.iterations; k++) {
      printf("%3d ", k);
      for (int i = 0; i < size; i++) printf(" %ld", tr.d[(size_t)k * size + i]);
      printf("  ");
      for (int i = 0; i < size; i++) printf(" %.2f", tr.t[(size_t)k * size + i] * 1e3);
      printf("  %.3f  %.2f  %.3e\n", fupermod_jacobi_imbalance(&tr, k), tr.wall[k] * 1e3, tr.error[k]);
      total += tr.wall[k];
    }
    for (long i = 0; i < D; i++) xerr = fmax(xerr, fabs(sol[i] - fupermod_jacobi_exact(i)));
    printf("iterations %d wall_s %.4f last_error %.3e max_abs_error_vs_exact %.3e\n", tr.iterations, total,
           tr.error[tr.iterations - 1], xerr);
  }
  fupermod_jacobi_trace_free(&tr);
  free(sol);
  return FUPERMOD_SUCCESS;
}

int main(int argc, char **argv) {
  int rc = driver_mpi_start(&argc, &argv, MPI_THREAD_FUNNELED, "fupermod-jacobi", NULL, &rank, &size);
  return rc != 0 ? rc : driver_end(run(argc, argv));
}
