/* fupermod-summa: heterogeneous SUMMA C = A B (+ C) on a layout from the matrix partitioners
 * (docs/matrix.md). Run under mpirun, one process per abstract processor. */
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apps/driver.h"
#include "apps/record.h"
#include "apps/summa.h"
#include "partitioners/partitioners.h"

static void help(void) {
  printf("usage: mpirun -np P fupermod-summa [options] [POINTS...]\n\n"
         "  -n N        matrix order in elements (default 1024)\n"
         "  -b B        block size: the layout's unit and the pivot width (default 128)\n"
         "  -l ALG      layout: even | kl | br | sc | 15d (default even; see -a, -d and POINTS;\n"
         "              sc: square-corner, a square per slow process, the rest to the fastest)\n"
         "  -a LIST     relative areas or speeds for kl/br/sc, one per process: 1,2,2.5\n"
         "  -d FILE     distribution file whose d_i are the areas for kl/br/sc\n"
         "  -L FILE     use this layout file (overrides -l)\n"
         "  -p PART     1D partitioner for 15d (default geometric); POINTS are the point files of\n"
         "              the 1D models (time of d blocks of area), one per process in rank order\n"
         "  -m TYPE     model type for 15d (default: the partitioner's)\n"
         "  -o FILE     write the layout used\n"
         "  -v MODE     verification: none | exact | random | auto (exact for n <= 512, default)\n"
         "  -r R        timed repetitions (default 3)\n"
         "  -c          accumulate: C += A B (default C = A B)\n"
         "  -s SEED     seed of the matrices (default 1)\n"
         "  -R DIR      append the run to DIR/models/runs.csv: the median run and each process's mean\n"
         "              updates and whole time of its own (docs/formats.md, \"Application runs\")\n\n"
         "exit status: 0 ok, 1 failed run or verification, 2 usage\n");
}

static int usage(int rank, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int usage(int rank, const char *fmt, ...) {
  if (rank == 0) {
    va_list ap;
    fprintf(stderr, "fupermod-summa: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, " (-h for help)\n");
  }
  return 2;
}

/* Every comma-separated token counts, empty ones included: "1,,2" is an error, not two areas. */
static int parse_areas(const char *s, int p, double *a) {
  char tok[64];
  int n = 0;
  for (const char *t = s;; n++) {
    const char *end = strchr(t, ',');
    size_t len = end ? (size_t)(end - t) : strlen(t);
    if (len == 0) return fupermod_error(FUPERMOD_ERR_USAGE, "-a: empty area in '%s'", s);
    if (len >= sizeof tok) return fupermod_error(FUPERMOD_ERR_USAGE, "-a: area '%.*s' is too long", (int)len, t);
    memcpy(tok, t, len);
    tok[len] = '\0';
    if (n == p) return fupermod_error(FUPERMOD_ERR_USAGE, "-a: more than %d areas in '%s'", p, s);
    if (fupermod_parse_double(tok, &a[n]) || !(a[n] >= 0) || !isfinite(a[n]))
      return fupermod_error(FUPERMOD_ERR_USAGE, "-a: '%s' is not a non-negative number", tok);
    if (!end) break;
    t = end + 1;
  }
  if (n + 1 != p) return fupermod_error(FUPERMOD_ERR_USAGE, "-a: %d areas given for %d processes", n + 1, p);
  return FUPERMOD_SUCCESS;
}

/* The layout, computed on rank 0. */
static int make_layout(int p, int K, const char *alg, const char *area_list, const char *dist_file,
                       const char *layout_file, const char *part_name, const char *model_type, int nfiles,
                       char **files, fupermod_layout **out) {
  double *areas = NULL;
  int rc = FUPERMOD_SUCCESS;
  *out = NULL;
  if (layout_file) return fupermod_layout_load(layout_file, out);
  if (strcmp(alg, "15d") == 0) {
    const fupermod_partitioner *part = fupermod_partitioner_find(part_name);
    fupermod_model **models;
    if (!part || part->kind != FUPERMOD_PART_CONTINUOUS)
      return fupermod_error(FUPERMOD_ERR_USAGE, "-p: '%s' is not a continuous 1D partitioner", part_name);
    if (nfiles != p)
      return fupermod_error(FUPERMOD_ERR_USAGE, "15d: %d point files given for %d processes", nfiles, p);
    if (!(models = calloc((size_t)p, sizeof *models))) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
    for (int i = 0; i < p && rc == FUPERMOD_SUCCESS; i++) {
      fupermod_points pts;
      if ((rc = fupermod_points_load(files[i], &pts)) != FUPERMOD_SUCCESS) break;
      rc = fupermod_model_create(model_type ? model_type : part->model_type, &pts, (long)K * K, &models[i]);
      fupermod_points_free(&pts);
      if (rc != FUPERMOD_SUCCESS) fupermod_error_prefix(rc, "%s", files[i]);
    }
    if (rc == FUPERMOD_SUCCESS) rc = fupermod_layout_15d(part->continuous, p, models, K, K, NULL, out);
    for (int i = 0; i < p; i++) fupermod_model_free(models[i]);
    free(models);
    return rc;
  }
  if (nfiles > 0) return fupermod_error(FUPERMOD_ERR_USAGE, "point files are only for -l 15d");
  if (!(areas = malloc((size_t)p * sizeof *areas))) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  if (area_list && dist_file) {
    rc = fupermod_error(FUPERMOD_ERR_USAGE, "give -a or -d, not both");
  } else if (area_list) {
    rc = parse_areas(area_list, p, areas);
  } else if (dist_file) {
    fupermod_dist *d = NULL;
    if ((rc = fupermod_dist_load(dist_file, &d)) == FUPERMOD_SUCCESS) {
      if (d->size != p) rc = fupermod_error(FUPERMOD_ERR_USAGE, "%s: %d parts for %d processes", dist_file, d->size, p);
      else
        for (int i = 0; i < p; i++) areas[i] = (double)d->parts[i].d;
      fupermod_dist_free(d);
    }
  } else {
    for (int i = 0; i < p; i++) areas[i] = 1.0;
  }
  if (rc == FUPERMOD_SUCCESS) rc = fupermod_layout_by_name(alg, areas, p, K, K, out);
  free(areas);
  return rc;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* reps timed runs: times[r] the slowest rank's; own: this rank's mean updates (its local GEMMs)
 * and whole time. Collective. */
static int timed_runs(const fupermod_layout *l, int n, int b, const double *A, const double *B, double *C, const double *C0,
                      long loc, int accumulate, long reps, double *times, double *own) {
  fupermod_trace updates = FUPERMOD_TRACE_INIT;
  int rc = FUPERMOD_SUCCESS;
  for (long r = 0; r < reps && rc == FUPERMOD_SUCCESS; r++) {
    double t0, t;
    if (accumulate) memcpy(C, C0, (loc ? loc : 1) * sizeof *C);
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    fupermod_trace_clear(&updates);
    if ((rc = fupermod_summa_dgemm_timed(MPI_COMM_WORLD, l, n, b, A, B, C, accumulate, &updates)) != FUPERMOD_SUCCESS) break;
    t = MPI_Wtime() - t0;
    own[0] += fupermod_trace_total(&updates) / (double)reps;
    own[1] += t / (double)reps;
    MPI_Allreduce(&t, &times[r], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  }
  fupermod_trace_free(&updates);
  return rc;
}

/* -R DIR: the median run and this rank's area and phases, appended to DIR/models/runs.csv
 * (apps/record.h). Collective; the same status on every rank. */
static int record_run(const char *dir, long n, const fupermod_layout *l, int rank, const double *times, long reps,
                      const double *own) {
  static const char *const names[2] = {"updates", "own"};
  double *sorted = malloc((size_t)reps * sizeof *sorted);
  int rc;
  if (sorted) {
    memcpy(sorted, times, (size_t)reps * sizeof *times);
    qsort(sorted, (size_t)reps, sizeof *sorted, cmp_double);
  }
  rc = sorted ? fupermod_app_record(MPI_COMM_WORLD, dir, "summa", n, fupermod_layout_area(l, rank), sorted[reps / 2], 2, names, own)
              : fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  free(sorted);
  return rc;
}

int main(int argc, char **argv) {
  const char *alg = "even", *area_list = NULL, *dist_file = NULL, *layout_file = NULL, *part_name = "geometric",
             *model_type = NULL, *out_file = NULL, *verify = "auto", *record = NULL;
  long n = 1024, b = 128, reps = 3, seed = 1;
  int accumulate = 0, rank, size, c, rc, status = 0, K;
  fupermod_layout *l = NULL;
  double *A = NULL, *B = NULL, *C = NULL, *C0 = NULL, *times = NULL, own[2] = {0, 0};
  long loc = 0;
  if ((status = driver_mpi_start(&argc, &argv, MPI_THREAD_SERIALIZED, "fupermod-summa", NULL, &rank, &size)) != 0)
    return status;
  opterr = 0;
  while ((c = getopt(argc, argv, "n:b:l:a:d:L:p:m:o:v:r:cs:R:h")) != -1) {
    switch (c) {
      case 'n': if (fupermod_parse_long(optarg, &n) || n < 1 || n > 1000000) status = usage(rank, "-n: '%s' is not an order in 1..1000000", optarg); break;
      case 'b': if (fupermod_parse_long(optarg, &b) || b < 1 || b > 1000000) status = usage(rank, "-b: '%s' is not a block size in 1..1000000", optarg); break;
      case 'l': alg = optarg; break;
      case 'a': area_list = optarg; break;
      case 'd': dist_file = optarg; break;
      case 'L': layout_file = optarg; break;
      case 'p': part_name = optarg; break;
      case 'm': model_type = optarg; break;
      case 'o': out_file = optarg; break;
      case 'v': verify = optarg; break;
      case 'r': if (fupermod_parse_long(optarg, &reps) || reps < 1 || reps > 100000) status = usage(rank, "-r: '%s' is not a repetition count >= 1", optarg); break;
      case 'c': accumulate = 1; break;
      case 'R': record = optarg; break;
      case 's': if (fupermod_parse_long(optarg, &seed)) status = usage(rank, "-s: '%s' is not an integer", optarg); break;
      case 'h': if (rank == 0) help(); MPI_Finalize(); return 0;
      default: status = usage(rank, "unknown option or missing argument near '%s'", argv[optind - 1]); break;
    }
    if (status) break;
  }
  if (!status && strcmp(alg, "even") && strcmp(alg, "kl") && strcmp(alg, "br") && strcmp(alg, "sc") && strcmp(alg, "15d"))
    status = usage(rank, "-l: unknown layout '%s' (even, kl, br, sc, 15d)", alg);
  if (!status && strcmp(verify, "none") && strcmp(verify, "exact") && strcmp(verify, "random") && strcmp(verify, "auto"))
    status = usage(rank, "-v: unknown verification '%s' (none, exact, random, auto)", verify);
  if (!status && strcmp(verify, "exact") == 0 && n > 4096)
    status = usage(rank, "-v exact needs n <= 4096 (use -v random)");
  if (status) {
    MPI_Finalize();
    return status;
  }
  if (strcmp(verify, "auto") == 0) verify = n <= 512 ? "exact" : "random";
  K = (int)((n + b - 1) / b);
  rc = FUPERMOD_SUCCESS;
  if (rank == 0) {
    rc = make_layout(size, K, alg, area_list, dist_file, layout_file, part_name, model_type, argc - optind,
                     argv + optind, &l);
    if (rc == FUPERMOD_SUCCESS && out_file) rc = fupermod_layout_save(out_file, l, "written by fupermod-summa");
  }
  if ((rc = fupermod_layout_bcast(MPI_COMM_WORLD, 0, rc, &l)) != FUPERMOD_SUCCESS) goto fail;
  if ((rc = fupermod_summa_local(l, rank, (int)n, (int)b, &loc)) != FUPERMOD_SUCCESS) goto fail;
  {
    int kind = strcmp(verify, "exact") == 0 ? FUPERMOD_SUMMA_INTEGER : FUPERMOD_SUMMA_UNIFORM, bad;
    A = malloc((loc ? loc : 1) * sizeof *A);
    B = malloc((loc ? loc : 1) * sizeof *B);
    C = malloc((loc ? loc : 1) * sizeof *C);
    C0 = malloc((loc ? loc : 1) * sizeof *C0);
    times = malloc((size_t)reps * sizeof *times);
    bad = !A || !B || !C || !C0 || !times;
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (bad) {
      rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory for the local matrices (%ld elements)", loc);
      goto fail;
    }
    fupermod_summa_fill(l, rank, (int)n, (int)b, (uint64_t)seed * 3 + 0, kind, A);
    fupermod_summa_fill(l, rank, (int)n, (int)b, (uint64_t)seed * 3 + 1, kind, B);
    fupermod_summa_fill(l, rank, (int)n, (int)b, (uint64_t)seed * 3 + 2, kind, C0);
    memcpy(C, C0, (loc ? loc : 1) * sizeof *C);
    /* untimed first run: warms up and is the one verified */
    if ((rc = fupermod_summa_dgemm(MPI_COMM_WORLD, l, (int)n, (int)b, A, B, C, accumulate)) != FUPERMOD_SUCCESS)
      goto fail;
    if (strcmp(verify, "exact") == 0) {
      long mism = 0;
      double md = 0.0;
      if ((rc = fupermod_summa_check_exact(MPI_COMM_WORLD, l, (int)n, (int)b, A, B, accumulate ? C0 : NULL, C, &mism,
                                           &md)) != FUPERMOD_SUCCESS)
        goto fail;
      if (rank == 0) printf("verification: exact against a serial GEMM: %ld mismatches (max |diff| %g): %s\n", mism, md,
                            mism == 0 ? "PASS" : "FAIL");
      if (mism != 0) status = 1;
    } else if (strcmp(verify, "random") == 0) {
      double ratio = 0.0;
      if ((rc = fupermod_summa_check_random(MPI_COMM_WORLD, l, (int)n, (int)b, A, B, accumulate ? C0 : NULL, C,
                                            (uint64_t)seed + 99, &ratio)) != FUPERMOD_SUCCESS)
        goto fail;
      if (rank == 0) printf("verification: randomised C x vs A (B x): error / bound = %.3g: %s\n", ratio,
                            ratio <= 1.0 ? "PASS" : "FAIL");
      if (!(ratio <= 1.0)) status = 1;
    }
    if ((rc = timed_runs(l, (int)n, (int)b, A, B, C, C0, loc, accumulate, reps, times, own)) != FUPERMOD_SUCCESS) goto fail;
    if (record && (rc = record_run(record, n, l, rank, times, reps, own)) != FUPERMOD_SUCCESS) goto fail;
    if (rank == 0) {
      double flops = 2.0 * (double)n * n * n;
      qsort(times, (size_t)reps, sizeof *times, cmp_double);
      printf("summa: n = %ld, b = %ld, p = %d, layout %s (%d columns, H = %.4f), %s\n", n, b, size,
             layout_file ? layout_file : alg, l->ncols, fupermod_layout_volume(l), accumulate ? "C += A B" : "C = A B");
      printf("time: best %.4f s, median %.4f s over %ld runs; GFLOP/s: best %.2f, median %.2f\n", times[0],
             times[reps / 2], reps, flops / times[0] / 1e9, flops / times[reps / 2] / 1e9);
      for (int i = 0; i < size; i++) {
        const fupermod_rect *r = &l->rects[i];
        if (fupermod_layout_area(l, i) == 0)
          printf("  rank %d: no data\n", i);
        else if (fupermod_layout_npieces(l, i) == 1)
          printf("  rank %d: blocks rows %d..%d, columns %d..%d (%.1f%% of the area)\n", i, r->row,
                 r->row + r->height - 1, r->col, r->col + r->width - 1,
                 100.0 * (double)fupermod_layout_area(l, i) / ((double)K * K));
        else {
          printf("  rank %d: %d pieces (%.1f%% of the area):", i, fupermod_layout_npieces(l, i),
                 100.0 * (double)fupermod_layout_area(l, i) / ((double)K * K));
          for (int j = 0; j < l->npieces; j++)
            if (l->owner[j] == i)
              printf(" rows %d..%d x columns %d..%d;", l->pieces[j].row, l->pieces[j].row + l->pieces[j].height - 1,
                     l->pieces[j].col, l->pieces[j].col + l->pieces[j].width - 1);
          printf("\n");
        }
      }
    }
  }
  free(A);
  free(B);
  free(C);
  free(C0);
  free(times);
  fupermod_layout_free(l);
  MPI_Finalize();
  return status;
fail:
  if (rank == 0) fprintf(stderr, "fupermod-summa: %s\n", fupermod_error_message());
  free(A);
  free(B);
  free(C);
  free(C0);
  free(times);
  fupermod_layout_free(l);
  MPI_Finalize();
  return fupermod_exit_status(rc);
}
