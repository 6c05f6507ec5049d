/* PARALEPH benchmark: the paper's grid (IEEE Access 2018, Tables 4-11): p in 2..576,
 * n/p in 8..128, m = 1024 points, DGEMM- and FFT-shaped time and dynamic-energy functions.
 * For each cell it prints PARALEPH's time (max over ranks), wavefront communication time, memory
 * per rank, cell evaluations per second per core, and the sequential POPTA/EOPTA time measured
 * in the same run (skipped once it exceeds --seq-limit at a smaller p, as the paper's "F").
 *
 *   mpirun --bind-to none -np Q bench/paraleph [--threads T] [--obj max|sum|both]
 *          [--app dgemm|fft|both] [--p 2,4,...] [--g 8,16,...] [--m 1024] [--reps R]
 *          [--seq-limit S] [--seq none|popta] [--band B]
 *          [--kernel auto|plain|scalar|avx2|avx512|bounded|bounded-avx512|full-avx512]
 *
 * Functions (synthetic, deterministic; x = 1..m units of dx = 512*512 elements):
 *   DGEMM: n = sqrt(x dx), time = 2 n^3 / s(x), s rises from 20 to 50 GFLOP/s with the size
 *          and drops by up to 60 % at random sizes (measured OpenBLAS at 24 threads looks so);
 *   FFT:   a 512 x (512 x) 2D FFT, time = 5 N log2 N / s(x), N = 512*512*x; s depends on the
 *          largest prime factor of x (smooth sizes fast, prime sizes up to 70 % slower) and
 *          falls slowly with the size (memory bound);
 *   energy: dynamic power 60..140 W (varying +-35 % by size) times the time. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include <omp.h>
#include "partitioners/paraleph.h"
#include "apps/driver.h"
#include "bench/machine.h"

static int rank, size;

static uint64_t rs = 20181;
static double urand(void) {
  rs = rs * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(rs >> 11) / 9007199254740992.0;
}

static int largest_prime(long x) {
  int lp = 1;
  for (long q = 2; q * q <= x; q++)
    while (x % q == 0) {
      lp = (int)q;
      x /= q;
    }
  if (x > 1) lp = (int)x;
  return lp;
}

static void make_function(const char *app, int m, fupermod_points *f) {
  const double dx = 512.0 * 512.0;
  f->count = m;
  f->has_energy = 1;
  f->pts = calloc((size_t)m, sizeof *f->pts);
  rs = strcmp(app, "fft") ? 20181 : 1812;
  for (int j = 0; j < m; j++) {
    double x = j + 1, t, s;
    if (!strcmp(app, "dgemm")) {
      double n = sqrt(x * dx);
      s = 20e9 + 30e9 * (1 - exp(-x / 60.0));
      if (urand() < 0.25) s *= 1 - 0.6 * urand(); /* drops at some sizes */
      else s *= 1 + 0.05 * (urand() - 0.5);
      t = 2 * n * n * n / s;
    } else {
      double N = dx * x;
      int lp = largest_prime(j + 1);
      s = 8e9 * (1 - 0.3 * log2(x) / 10.0);
      if (lp > 7) s *= 0.3 + 0.7 / (1 + log2((double)lp) / 3.0);
      s *= 1 + 0.1 * (urand() - 0.5);
      t = 5 * N * log2(N) / s;
    }
    double watts = (60 + 80 * x / m) * (1 + 0.7 * (urand() - 0.5));
    fupermod_point pt = FUPERMOD_POINT_INIT;
    pt.d = j + 1;
    pt.t = t;
    pt.e = watts * t;
    f->pts[j] = pt;
  }
}

static int parse_list(const char *s, int *out, int max) {
  int n = 0;
  while (*s && n < max) {
    out[n++] = (int)strtol(s, (char **)&s, 10);
    if (*s == ',') s++;
  }
  return n;
}

static long peak_rss_kb(void) {
  FILE *fp = fopen("/proc/self/status", "r");
  char line[256];
  long kb = 0;
  if (!fp) return 0;
  while (fgets(line, sizeof line, fp))
    if (!strncmp(line, "VmHWM:", 6)) kb = strtol(line + 6, NULL, 10);
  fclose(fp);
  return kb;
}

static void loadavg(char *buf, size_t n) {
  FILE *fp = fopen("/proc/loadavg", "r");
  snprintf(buf, n, "?");
  if (fp) {
    if (fgets(buf, (int)n, fp)) buf[strcspn(buf, "\n")] = 0;
    fclose(fp);
  }
}

int main(int argc, char **argv) {
  int provided, threads = 1, m = 1024, reps = 1, kernel = FUPERMOD_PARALEPH_AUTO, band = 0;
  int plist[32] = {2, 4, 16, 36, 64, 100, 144, 196, 256, 324, 400, 484, 576}, np = 13;
  int glist[16] = {8, 16, 32, 64, 128}, ng = 5;
  const char *objs = "both", *apps = "both", *seq = "popta";
  double seq_limit = 20.0;
  int status = driver_mpi_start(&argc, &argv, MPI_THREAD_FUNNELED, "bench/paraleph", &provided, &rank, &size);
  if (status != 0) return status;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : "";
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      if (rank == 0)
        printf("usage: mpirun --bind-to none -np Q bench/paraleph [--threads T] [--obj max|sum|both]\n"
               "       [--app dgemm|fft|both] [--p 2,4,...] [--g 8,16,...] [--m 1024] [--reps R]\n"
               "       [--seq-limit S] [--seq none|popta] [--band B]\n"
               "       [--kernel auto|plain|scalar|avx2|avx512|bounded|bounded-avx512|full-avx512]\n"
               "PARALEPH on the paper's grid (p processors, g = n/p, m points) against sequential POPTA/EOPTA.\n");
      MPI_Finalize();
      return 0;
    }
    if (!strcmp(a, "--threads")) threads = atoi(v), i++;
    else if (!strcmp(a, "--m")) m = atoi(v), i++;
    else if (!strcmp(a, "--reps")) reps = atoi(v), i++;
    else if (!strcmp(a, "--band")) band = atoi(v), i++;
    else if (!strcmp(a, "--obj")) objs = v, i++;
    else if (!strcmp(a, "--app")) apps = v, i++;
    else if (!strcmp(a, "--p")) np = parse_list(v, plist, 32), i++;
    else if (!strcmp(a, "--g")) ng = parse_list(v, glist, 16), i++;
    else if (!strcmp(a, "--seq-limit")) seq_limit = atof(v), i++;
    else if (!strcmp(a, "--seq")) seq = v, i++;
    else if (!strcmp(a, "--kernel")) {
      const char *k[] = {"auto", "plain", "scalar", "avx2", "avx512", "bounded", "bounded-avx512", "full-avx512"};
      for (int j = 0; j < 8; j++)
        if (!strcmp(v, k[j])) kernel = j;
      i++;
    } else {
      if (rank == 0) fprintf(stderr, "bench/paraleph: unknown option %s (see the header of bench/paraleph.c)\n", a);
      MPI_Finalize();
      return 2;
    }
  }
  if (reps < 1) reps = 1;
  char cpu[256], load[128];
  machine(cpu, sizeof cpu);
  loadavg(load, sizeof load);
  if (rank == 0) {
    printf("# PARALEPH benchmark: %s, %d online cores; %d ranks x %d threads (MPI thread level %d), m = %d,\n"
           "# band %d (0 = default), kernel %d (0 = auto); load average at start: %s\n",
           cpu, omp_get_num_procs(), size, threads, provided, m, band, kernel, load);
    printf("# time = PARALEPH wall time (max over ranks, min of %d reps); table = the wavefront alone; comm = time\n"
           "# in MPI calls incl. waiting for the left neighbour (max over ranks); mem = bytes allocated per rank\n"
           "# (busiest), rss = peak resident set; Geval = inner-loop candidate evaluations; eval%% = of a full scan\n"
           "# (min(v, m) per cell); Gev/s/c = evaluations per second per core (ranks x threads cores); eff/c = full\n"
           "# scan evaluations per second per core that the pruning stands for; seq = sequential POPTA (max) or\n"
           "# EOPTA (sum) on rank 0, same problem, same run (skip: a smaller p took > --seq-limit; F: it failed,\n"
           "# reason below); speedup = seq / time; match = same objective value\n",
           reps);
  }
  const char *applist[2] = {"dgemm", "fft"};
  for (int ai = 0; ai < 2; ai++) {
    if (strcmp(apps, "both") && strcmp(apps, applist[ai])) continue;
    fupermod_points fn;
    make_function(applist[ai], m, &fn);
    for (int oi = 0; oi < 2; oi++) {
      int obj = oi ? FUPERMOD_OBJ_ENERGY : FUPERMOD_OBJ_TIME;
      if (strcmp(objs, "both") && strcmp(objs, oi ? "sum" : "max")) continue;
      const char *sname = oi ? "eopta" : "popta";
      const fupermod_partitioner *salg = strcmp(seq, "none") ? fupermod_partitioner_find(sname) : NULL;
      if (rank == 0) {
        printf("\n## %s, -F %s (%s)\n", applist[ai], oi ? "sum" : "max", oi ? "EOPT" : "POPT");
        printf("%5s %5s %7s %8s %8s %8s %7s %7s %7s %6s %7s %7s %9s %8s %5s\n", "p", "n/p", "D", "time_s", "table_s",
               "comm_s", "mem_MB", "rss_MB", "Geval", "eval%", "Gev/s/c", "eff/c", "seq_s", "speedup", "match");
      }
      int seq_dead[16] = {0}; /* per n/p: a smaller p already exceeded the limit */
      char seq_fail[512] = "";
      for (int pi = 0; pi < np; pi++)
        for (int gi = 0; gi < ng; gi++) {
          int p = plist[pi];
          long D = (long)p * glist[gi];
          const fupermod_points **f = malloc((size_t)p * sizeof *f);
          for (int i = 0; i < p; i++) f[i] = &fn;
          fupermod_problem prob = {D, p, f, 0.0, 0, obj};
          fupermod_paraleph_stats best = {0}, st;
          double bestv = NAN;
          int rc = 0;
          for (int r = 0; r < reps; r++) {
            fupermod_paraleph_opts o = {.threads = threads, .kernel = kernel, .band = band, .table = NULL};
            fupermod_dist *d = NULL;
            MPI_Barrier(MPI_COMM_WORLD);
            rc = fupermod_paraleph_opt(MPI_COMM_WORLD, 0, rank == 0 ? &prob : NULL, obj, &o, &d, &st);
            if (rc) break;
            if (r == 0 || st.time < best.time) best = st;
            bestv = st.objective;
            fupermod_dist_free(d);
          }
          long rss = peak_rss_kb(), rssmax = 0;
          MPI_Reduce(&rss, &rssmax, 1, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
          /* sequential reference on rank 0 while the others wait */
          double seqt = NAN;
          int match = -1;
          if (rank == 0 && salg && rc == 0 && !seq_dead[gi]) {
            fupermod_dist *d = fupermod_dist_alloc(D, p);
            double t0 = MPI_Wtime();
            int src = salg->discrete(&prob, d);
            seqt = MPI_Wtime() - t0;
            if (src == 0) {
              double v = obj == FUPERMOD_OBJ_TIME ? fupermod_dist_time(d) : fupermod_dist_energy(d);
              match = fabs(v - bestv) <= 1e-9 * fabs(bestv);
            } else {
              match = -2;
              if (!seq_fail[0]) snprintf(seq_fail, sizeof seq_fail, "%s p=%d n/p=%d: %s", sname, p, glist[gi],
                                         fupermod_error_message());
            }
            if (seqt > seq_limit) seq_dead[gi] = 1;
            fupermod_dist_free(d);
          }
          MPI_Bcast(seq_dead, 16, MPI_INT, 0, MPI_COMM_WORLD);
          if (rank == 0) {
            if (rc) {
              printf("%5d %5d %7ld  error: %s\n", p, glist[gi], D, fupermod_error_message());
            } else {
              double cores = (double)best.nprocs * best.threads;
              double full = 0; /* evaluations without pruning: sum over cells of min(v, m) */
              for (int h = 1; h <= p; h++) {
                long top = D < (long)h * m ? D : (long)h * m;
                full += top <= m ? (double)top * (top + 1) / 2 : (double)m * (m + 1) / 2 + (double)(top - m) * m;
              }
              printf("%5d %5d %7ld %8.4f %8.4f %8.4f %7.1f %7.1f %7.3f %6.2f %7.2f %7.1f ", p, glist[gi], D, best.time,
                     best.table_time, best.comm_time, best.mem_rank / 1e6, rssmax / 1e3, best.evals / 1e9,
                     100 * best.evals / full, best.evals / best.table_time / cores / 1e9,
                     full / best.table_time / cores / 1e9);
              if (isnan(seqt)) printf("%9s %8s %5s\n", salg ? "skip" : "-", "-", "-");
              else if (match == -2) printf("%9s %8s %5s\n", "F", "-", "-");
              else printf("%9.4f %8.1f %5s\n", seqt, seqt / best.time, match == 1 ? "yes" : "NO");
            }
            fflush(stdout);
          }
          free(f);
        }
      if (rank == 0 && seq_fail[0]) printf("# first sequential failure: %s\n", seq_fail);
    }
    free(fn.pts);
  }
  loadavg(load, sizeof load);
  if (rank == 0) printf("# load average at end: %s\n", load);
  MPI_Finalize();
  return 0;
}
