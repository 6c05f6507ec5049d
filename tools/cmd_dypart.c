/* fupermod dypart: dynamic partitioning (DPA) of D units under MPI. Every process benchmarks its
 * kernel at its current share, partial models grow by one point per measurement, and a continuous
 * partitioner re-partitions until the measured times agree within eps (docs/dynamic.md). */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "partitioners/partitioners.h"
#include "tools/build_common.h"
#include "tools/mpi_init.h"

static const char *SUB = "dypart";

static void help(void) {
  printf("usage: mpirun -np N fupermod dypart --conf CONF -D UNITS [-a ALGO] [-m MODEL] [--eps EPS]\n"
         "                                    [-I MAX_MEASUREMENTS] [-o FILE] [-k KERNEL] [PRECISION]\n\n"
         "Each process finds its line in CONF as in 'fupermod build' (binding, kernel, meter) and is\n"
         "measured at its share of UNITS, starting from the even distribution; the shares are recomputed\n"
         "from the partial models after every measurement until (t_max - t_min)/t_min <= EPS.\n"
         "  -D UNITS          units to distribute (>= number of processes)\n"
         "  -a ALGO           continuous partitioner (default geometric; see 'fupermod partition --help')\n"
         "  -m MODEL          partial model type (default: the partitioner's)\n"
         "  --eps EPS         balance accuracy (default 0.02)\n"
         "  -I N              at most N measurements (default 20); without convergence the best\n"
         "                    distribution measured is written and the run says so\n"
         "  -o FILE           write the distribution (docs/formats.md), measured times and energies\n"
         "  --allow-fewer     a job of fewer processes than the configuration's lines uses the first\n"
         "                    lines (without it, such a job is refused)\n"
         "  -q                no progress lines\n"
         "PRECISION:  -r REPS_MIN (3)  -R REPS_MAX (100)  -i CONFIDENCE (0.95)  -e REL_ERROR (0.025)\n"
         "            -T SECONDS_PER_POINT (60)  -z MIN_SPEED (0)\n"
         "exit status: 0 done (converged or not), 1 bad input or run-time error, 2 usage\n");
}

static void print_dist(FILE *fp, const char *tag, const fupermod_dist *d) {
  fprintf(fp, "%s d =", tag);
  for (int i = 0; i < d->size; i++) fprintf(fp, "%s%ld", i ? "," : " (", d->parts[i].d);
  fprintf(fp, ") t =");
  for (int i = 0; i < d->size; i++) fprintf(fp, "%s%.4g", i ? "," : " (", d->parts[i].t);
  fprintf(fp, ")");
}

int cmd_dypart(int argc, char **argv) {
  static const struct option opts[] = {{"conf", required_argument, NULL, 'C'}, {"eps", required_argument, NULL, 'E'},
                                       {"help", no_argument, NULL, 'h'}, {"allow-fewer", no_argument, NULL, 'f'},
                                       {NULL, 0, NULL, 0}};
  const char *confpath = NULL, *kname = NULL, *algname = "geometric", *model_type = NULL, *out = NULL;
  long D = -1, maxit = 20;
  double eps = 0.02, best_imb = INFINITY;
  int c, rc = FUPERMOD_SUCCESS, quiet = 0, rank, size, status, converged = 0, st;
  fupermod_precision prec = FUPERMOD_PRECISION_DEFAULT;
  const fupermod_partitioner *alg;
  fupermod_dynamic dyn;
  fupermod_dist *best = NULL;
  tool_proc pr;
  memset(&dyn, 0, sizeof dyn);
  memset(&pr, 0, sizeof pr);
  pr.intra = MPI_COMM_NULL;
  optind = 0; /* a full reset of glibc's getopt: the parse may run more than once per process */
  while ((c = getopt_long(argc, argv, "D:a:m:I:o:k:" TOOL_PRECISION_OPTS "qh", opts, NULL)) != -1) {
    long v;
    double x;
    switch (c) {
    case 'C': confpath = optarg; break;
    case 'a': algname = optarg; break;
    case 'm': model_type = optarg; break;
    case 'o': out = optarg; break;
    case 'k': kname = optarg; break;
    case 'D': case 'I':
      if (fupermod_parse_long(optarg, &v) || v < 1 || v > 1000000000L)
        return tool_usage(SUB, "-%c '%s' must be a positive integer", c, optarg);
      if (c == 'D') D = v;
      else maxit = v;
      break;
    case 'E':
      if (fupermod_parse_double(optarg, &x)) return tool_usage(SUB, "-%c '%s' must be a number", c, optarg);
      if (!(x >= 0)) return tool_usage(SUB, "--eps '%s' must be >= 0", optarg);
      eps = x;
      break;
    case 'q': quiet = 1; break;
    case 'f': tool_allow_fewer = 1; break;
    case 'h': help(); return 0;
    default:
      if (tool_precision_opt(SUB, c, optarg, &prec, &st)) {
        if (st) return st;
        break;
      }
      return tool_bad_option(SUB, argv, "D:a:m:I:o:k:" TOOL_PRECISION_OPTS "qh", opts);
    }
  }
  if (optind < argc) return tool_usage(SUB, "unexpected argument '%s'", argv[optind]);
  if (!confpath) return tool_usage(SUB, "no process configuration given (--conf CONF)");
  if (D < 0) return tool_usage(SUB, "no problem size given (-D UNITS)");
  if (!(alg = fupermod_partitioner_find(algname))) return tool_usage(SUB, "%s", fupermod_error_message());
  if (alg->kind != FUPERMOD_PART_CONTINUOUS || !alg->continuous)
    return tool_usage(SUB, "'%s' is not a continuous (model-based) partitioner; DPA needs one such as geometric, "
                           "numerical or cpm", algname);
  if (!model_type) model_type = alg->model_type ? alg->model_type : "piecewise";
  if (fupermod_precision_check(&prec) != FUPERMOD_SUCCESS) return tool_fail(SUB, FUPERMOD_ERR_USAGE);
  if ((rc = tool_mpi_init(SUB, &argc, &argv, TOOL_MPI_LEVEL)) != 0) return rc;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if ((rc = tool_proc_setup(SUB, confpath, kname, quiet, &pr)) != FUPERMOD_SUCCESS) goto done;
  rc = fupermod_dynamic_init(&dyn, size, model_type, D, alg->continuous);
  if (rc == FUPERMOD_SUCCESS && !(best = fupermod_dist_alloc(D, size))) rc = FUPERMOD_ERR_NOMEM;
  if ((rc = tool_agree(SUB, rc, MPI_COMM_WORLD)) != FUPERMOD_SUCCESS) goto done;
  dyn.meter = pr.meter;
  dyn.static_power = pr.static_power;
  {
    double start = fupermod_time();
    for (long k = 0; k < maxit && !converged; k++) {
      rc = fupermod_partition_iterate(&dyn, MPI_COMM_WORLD, pr.intra, &prec, pr.kernel, eps, &converged);
      if ((rc = tool_agree(SUB, rc, MPI_COMM_WORLD)) != FUPERMOD_SUCCESS) goto done;
      if (dyn.imbalance < best_imb) {
        best_imb = dyn.imbalance;
        fupermod_dist_copy(best, dyn.measured);
      }
      if (rank == 0 && !quiet) {
        fprintf(stderr, "fupermod dypart: measurement %ld of at most %ld:", k + 1, maxit);
        print_dist(stderr, "", dyn.measured);
        fprintf(stderr, " imbalance %.4g%s (%.1f s)\n", dyn.imbalance, converged ? " <= eps" : "", fupermod_time() - start);
      }
    }
  }
  {
    const fupermod_dist *res = converged ? dyn.dist : best;
    char comment[1024];
    snprintf(comment, sizeof comment,
             "fupermod dypart -a %s -m %s --eps %g: %s after %d measurements (imbalance %.4g); t and e measured%s", algname,
             model_type, eps, converged ? "converged" : "NOT converged, the best distribution measured", dyn.iterations,
             converged ? dyn.imbalance : best_imb,
             pr.meter && fupermod_meter_is_estimate(pr.meter) ? ", e an ESTIMATE (model meter)" : "");
    if (rank == 0) {
      if (out) rc = fupermod_dist_save(out, res, comment);
      printf("# %s\n# D %ld, %d processes\n# %6s %12s %14s %14s\n", comment, D, size, "rank", "d", "t (s)", "e (J)");
      for (int i = 0; i < size; i++) printf("  %6d %12ld %14.6g %14.6g\n", i, res->parts[i].d, res->parts[i].t, res->parts[i].e);
      if (!converged)
        fprintf(stderr, "fupermod dypart: not converged within %ld measurements (best imbalance %.4g > eps %g)\n", maxit,
                best_imb, eps);
    }
    rc = tool_agree(SUB, rc, MPI_COMM_WORLD);
  }
done:
  status = fupermod_exit_status(rc);
  fupermod_dynamic_free(&dyn);
  fupermod_dist_free(best);
  tool_proc_free(&pr);
  tool_exec_close();
  MPI_Finalize();
  return status;
}
