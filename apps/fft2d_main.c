/* fupermod-fft2d: run the heterogeneous 2D FFT on a given row distribution and report times. */
#include <fftw3.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "apps/driver.h"
#include "apps/fft2d.h"
#include "apps/record.h"

static int rank = 0, size = 1;

static void help(void) {
  printf("usage: mpirun -np P fupermod-fft2d [-M ROWS] [-N COLS] [--dist FILE] [options]\n\n"
         "Forward 2D FFT of a complex ROWS x COLS signal distributed by rows (docs/apps.md).\n"
         "  -M ROWS            rows (default 1024)\n"
         "  -N COLS            columns (default ROWS)\n"
         "  --dist FILE        row distribution file (D = ROWS, P parts; default: even)\n"
         "  -t, --threads T    FFTW threads per process (default 1)\n"
         "  -r, --reps R       timed transforms (default 5)\n"
         "  --planner NAME     estimate | measure | patient (default estimate)\n"
         "  --conf CONF        process configuration: apply this process's binding\n"
         "  --check            also run the backward transform and report the round-trip error\n"
         "  --record DIR       append the run to DIR/models/runs.csv: the median transform and each\n"
         "                     process's mean phases (docs/formats.md, \"Application runs\")\n"
         "Prints the best and median time of the slowest process per transform and GFLOP/s by the\n"
         "convention 5 M N log2(M N) / t (5 N^2 log2 N^2 for N x N).\n");
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static int run(int argc, char **argv) {
  static const struct option opts[] = {{"dist", required_argument, NULL, 'd'}, {"threads", required_argument, NULL, 't'},
                                       {"reps", required_argument, NULL, 'r'}, {"planner", required_argument, NULL, 'p'},
                                       {"conf", required_argument, NULL, 'c'}, {"check", no_argument, NULL, 'k'},
                                       {"record", required_argument, NULL, 'R'},
                                       {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
  long M = 1024, N = -1, v;
  int threads = 1, reps = 5, check = 0, o, rc = FUPERMOD_SUCCESS;
  unsigned flags = FFTW_ESTIMATE;
  const char *distfile = NULL, *conffile = NULL, *planner = "estimate", *record = NULL;
  fupermod_dist *rows = NULL;
  fupermod_fft2d *plan = NULL;

  opterr = 0;
  while ((o = getopt_long(argc, argv, "M:N:t:r:h", opts, NULL)) != -1) {
    switch (o) {
    case 'M':
    case 'N':
      if (fupermod_parse_long(optarg, &v) || v < 1)
        return fupermod_error(FUPERMOD_ERR_USAGE, "-%c: '%s' is not a positive integer", o, optarg);
      if (o == 'M') M = v;
      else N = v;
      break;
    case 't':
    case 'r':
      if (fupermod_parse_long(optarg, &v) || v < 1 || v > 1 << 20)
        return fupermod_error(FUPERMOD_ERR_USAGE, "--%s: '%s' is not a positive integer", o == 't' ? "threads" : "reps",
                              optarg);
      if (o == 't') threads = (int)v;
      else reps = (int)v;
      break;
    case 'p':
      planner = optarg;
      if (!strcmp(optarg, "estimate")) flags = FFTW_ESTIMATE;
      else if (!strcmp(optarg, "measure")) flags = FFTW_MEASURE;
      else if (!strcmp(optarg, "patient")) flags = FFTW_PATIENT;
      else return fupermod_error(FUPERMOD_ERR_USAGE, "--planner: '%s' is not estimate, measure or patient", optarg);
      break;
    case 'd': distfile = optarg; break;
    case 'c': conffile = optarg; break;
    case 'k': check = 1; break;
    case 'R': record = optarg; break;
    case 'h':
      if (rank == 0) help();
      return 1; /* handled: exit 0 */
    default:
      return fupermod_error(FUPERMOD_ERR_USAGE, "unknown option or missing argument '%s' (see --help)",
                            argv[optind - 1]);
    }
  }
  if (optind < argc) return fupermod_error(FUPERMOD_ERR_USAGE, "unexpected argument '%s'", argv[optind]);
  if (N < 0) N = M;

  if (conffile && (rc = driver_conf_bind(conffile, NULL)) != FUPERMOD_SUCCESS) return rc;
  if (distfile) {
    rc = fupermod_dist_load(distfile, &rows);
    if (rc == FUPERMOD_SUCCESS && (rows->size != size || rows->D != M))
      rc = fupermod_error(FUPERMOD_ERR_USAGE, "--dist %s: distribution of D = %ld over %d parts, expected D = %ld (-M) "
                                              "over %d processes", distfile, rows->D, rows->size, M, size);
  } else if (!(rows = fupermod_dist_alloc(M, size))) {
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  }
  if ((rc = driver_agree(rc)) != FUPERMOD_SUCCESS) goto out;
  rc = fupermod_fft2d_plan(MPI_COMM_WORLD, M, N, rows, NULL, threads, flags, &plan);
  if ((rc = driver_agree(rc)) != FUPERMOD_SUCCESS) goto out;

  {
    long first, d = fupermod_fft2d_local_rows(plan, &first);
    double *x = fupermod_fft2d_local(plan), *t = malloc((size_t)reps * sizeof *t), ph[4], phmax[4], phsum[4] = {0}, err = 0.0;
    if (!t) {
      rc = driver_agree(fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory"));
      goto out;
    }
    for (long k = 0; k < d * N; k++) {
      x[2 * k] = cos(0.001 * (double)(first * N + k));
      x[2 * k + 1] = sin(0.003 * (double)(first * N + k));
    }
    if (rank == 0) {
      printf("# fupermod-fft2d: M=%ld N=%ld p=%d threads=%d planner=%s reps=%d\n# rows:", M, N, size, threads,
             planner, reps);
      for (int i = 0; i < size; i++) printf(" %ld", rows->parts[i].d);
      printf("\n# rep  time_s  rows_s  transpose_s  cols_s  transpose_back_s  (slowest process per phase)\n");
    }
    for (int r = 0; r < reps && rc == FUPERMOD_SUCCESS; r++) {
      double t0, t1;
      MPI_Barrier(MPI_COMM_WORLD);
      t0 = fupermod_time();
      rc = fupermod_fft2d_execute(plan, FUPERMOD_FFT2D_FORWARD, NULL);
      t1 = fupermod_time() - t0;
      MPI_Allreduce(&t1, &t[r], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      fupermod_fft2d_phase_times(plan, &ph[0], &ph[1], &ph[2], &ph[3]);
      for (int k = 0; k < 4; k++) phsum[k] += ph[k] / reps;
      MPI_Reduce(ph, phmax, 4, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
      if (rank == 0 && rc == FUPERMOD_SUCCESS)
        printf("%5d  %.6f  %.6f  %.6f  %.6f  %.6f\n", r, t[r], phmax[0], phmax[1], phmax[2], phmax[3]);
      /* keep the values bounded: undo the transform (untimed) */
      if (rc == FUPERMOD_SUCCESS) rc = fupermod_fft2d_execute(plan, FUPERMOD_FFT2D_BACKWARD, NULL);
      for (long k = 0; rc == FUPERMOD_SUCCESS && k < 2 * d * N; k++) x[k] /= (double)M * (double)N;
    }
    if (rc == FUPERMOD_SUCCESS && check) {
      rc = fupermod_fft2d_execute(plan, FUPERMOD_FFT2D_FORWARD, NULL);
      if (rc == FUPERMOD_SUCCESS) rc = fupermod_fft2d_execute(plan, FUPERMOD_FFT2D_BACKWARD, NULL);
      for (long k = 0; k < d * N; k++) {
        double re = x[2 * k] / ((double)M * N), im = x[2 * k + 1] / ((double)M * N);
        err = fmax(err, hypot(re - cos(0.001 * (double)(first * N + k)), im - sin(0.003 * (double)(first * N + k))));
      }
      MPI_Allreduce(MPI_IN_PLACE, &err, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    }
    if (rc == FUPERMOD_SUCCESS && record) {
      static const char *const names[4] = {"rows", "transpose", "cols", "transpose_back"};
      double *sorted = malloc((size_t)reps * sizeof *sorted);
      if (sorted) {
        memcpy(sorted, t, (size_t)reps * sizeof *t);
        qsort(sorted, (size_t)reps, sizeof *sorted, cmp);
      }
      rc = driver_agree(sorted ? fupermod_app_record(MPI_COMM_WORLD, record, "fft2d", M, d, sorted[reps / 2], 4, names, phsum)
                               : fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory"));
      free(sorted);
    }
    if (rc == FUPERMOD_SUCCESS && rank == 0) {
      double best;
      qsort(t, (size_t)reps, sizeof *t, cmp);
      best = t[0];
      printf("time_best_s %.6f time_median_s %.6f gflops %.3f\n", best, t[reps / 2],
             fupermod_fft2d_flops(M, N) / best * 1e-9);
      if (check) printf("round_trip_max_error %.3e\n", err);
    }
    free(t);
  }
out:
  fupermod_fft2d_destroy(plan);
  fupermod_dist_free(rows);
  return rc;
}

int main(int argc, char **argv) {
  int rc = driver_mpi_start(&argc, &argv, MPI_THREAD_FUNNELED, "fupermod-fft2d", NULL, &rank, &size);
  return rc != 0 ? rc : driver_end(run(argc, argv));
}
