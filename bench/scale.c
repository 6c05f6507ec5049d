/* Hierarchical partitioning at the scale of the largest machines (docs/performance.md "Scale").
 *
 *   bench/scale [--nodes N] [--gpus G] [--points M] [--seed S] [--share F] [--budget B]
 *               [--threads T] [--mpi] [--check] [--sweep DIR [--sweep-max P]]
 *
 * The emulated machine: N nodes (default 9,408), each one CPU and G GPU dies (default 8), so
 * N (G + 1) abstract processors. Three node types (GPU speeds 1, 0.7, 0.45 of the fastest; CPUs
 * 10-14 times slower), every device a few % off its type, noise of 0.3 % per point, about
 * M sizes per device (default 1,000) with 3 % of them missing. GPU time: a fixed overhead (slow
 * at small sizes), a plateau, 30 % slower past 80 % of the largest size; CPU time: linear. Power
 * rises with the size, so energy is time times power. The functions are computed from a hash of
 * (seed, node, device, size) whenever they are needed: nothing of size N x M is kept.
 * D = F (default 0.55) of the machine's total capacity, so that the shares are interior.
 *
 * Time: fupermod_hscale_time (exact). Energy: fupermod_hscale_energy (Lagrangian, with a lower
 * bound), devices limited to B (default 1.5) times the time optimum. Every stage prints its
 * seconds; the last line is
 *   scale: P processors in N nodes, hierarchical time T s, energy E s, peak RSS M MB
 * --mpi: the same collective on MPI_COMM_WORLD (each rank computes its block of nodes).
 * --check: 30 small instances (2-4 nodes of 1 CPU + 1-3 GPUs, 12-40 sizes) against flat dp:
 *   time equal, and bound <= flat energy optimum <= energy; exit status 1 on a mismatch.
 * --sweep DIR: P from 1,000 to 100,000 processors (at most --sweep-max), DIR/scale.csv and
 *   DIR/scale.png (gnuplot): wall and CPU seconds of both solves, the stages, the peak RSS. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "partitioners/hier.h"
#include "apps/driver.h"

typedef struct {
  uint64_t seed;
  int gpus;
  long sizes; /* largest size: about M / 0.97 */
} machine;

static uint64_t mix(uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static double unit(uint64_t a, uint64_t b, uint64_t c, uint64_t d) {
  return (double)(mix(mix(mix(mix(a) ^ b) ^ c) ^ d) >> 11) / 9007199254740992.0;
}

static const double gpu_speed[3] = {1.0, 0.7, 0.45}, cpu_ratio[3] = {10.0, 12.0, 14.0};
static const double gpu_power[3] = {300.0, 250.0, 200.0}, cpu_power[3] = {120.0, 100.0, 90.0};

static int node_type(const machine *mc, int node) { return (int)(unit(mc->seed, 1, (uint64_t)node, 0) * 3.0); }

static int device_fn(int node, int dev, fupermod_hscale_fn *fn, void *ctx) {
  const machine *mc = ctx;
  const int ty = node_type(mc, node);
  const double var = 1.0 + 0.06 * (unit(mc->seed, 2, (uint64_t)node, (uint64_t)dev) - 0.5);
  const long xm = mc->sizes;
  const int gpu = dev > 0;
  /* units per second at the plateau; sizes are work units (e.g. matrix blocks) */
  const double s = (gpu ? 1000.0 * gpu_speed[ty] : 1000.0 * gpu_speed[ty] / cpu_ratio[ty]) * var;
  const double pw = (gpu ? gpu_power[ty] : cpu_power[ty]) * (2.0 - var);
  const uint64_t base = mix(mc->seed ^ mix(((uint64_t)node << 8) ^ (uint64_t)dev));
  int n = 0;
  for (long x = 1; x <= xm; x++) {
    /* one hash per size: its low half decides a hole, its high half the noise */
    const uint64_t z = mix(base + (uint64_t)x);
    double t, p;
    if ((double)(z & 0xffffffffU) < 0.03 * 4294967296.0 && !(x == xm && n == 0)) continue; /* not measured */
    if (gpu) {
      const double over = x > 0.8 * xm ? 0.3 * (x - 0.8 * xm) / (0.2 * xm) : 0.0;
      t = (x + 40.0) / s * (1.0 + over);
      p = pw * (0.35 + 0.65 * x / (x + 150.0));
    } else {
      t = (x + 2.0) / s;
      p = pw * (0.5 + 0.5 * x / (x + 20.0));
    }
    t *= 1.0 + 0.006 * ((double)(z >> 32) / 4294967296.0 - 0.5);
    fn->x[n] = x;
    fn->t[n] = t;
    if (fn->e) fn->e[n] = p * t;
    n++;
  }
  fn->count = n;
  return FUPERMOD_SUCCESS;
}

/* CPU seconds of this process, all threads: on a loaded machine the wall times say little */
static double cpu_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double peak_mb(MPI_Comm comm) {
  struct rusage ru;
  double mb, all;
  getrusage(RUSAGE_SELF, &ru);
  mb = (double)ru.ru_maxrss / 1024.0;
  if (comm == MPI_COMM_NULL) return mb;
  MPI_Allreduce(&mb, &all, 1, MPI_DOUBLE, MPI_MAX, comm);
  return all;
}

typedef struct {
  double time_cpu, energy_cpu, time_s, energy_s, rss, tstar, energy, bound, etime;
  double tstage[3], estage[3];
  long D;
} outcome;

/* One machine of q nodes: both solves, stage times, the peak RSS. */
static int run(MPI_Comm comm, machine *mc, int q, double share, double budget_factor, outcome *o, int verbose) {
  int *devices = malloc((size_t)q * sizeof *devices), rc, rank = 0;
  fupermod_hscale_problem prob;
  fupermod_hscale_result rt, re;
  double t0;
  if (!devices) return fupermod_error(FUPERMOD_ERR_NOMEM, "scale: out of memory");
  if (comm != MPI_COMM_NULL) MPI_Comm_rank(comm, &rank);
  for (int k = 0; k < q; k++) devices[k] = mc->gpus + 1;
  memset(o, 0, sizeof *o);
  o->D = (long)(share * (double)q * (double)(mc->gpus + 1) * (double)mc->sizes);
  prob = (fupermod_hscale_problem){o->D, q, devices, (int)mc->sizes, device_fn, mc, INFINITY};
  t0 = MPI_Wtime();
  o->time_cpu = cpu_s();
  rc = fupermod_hscale_time(comm, &prob, &rt);
  o->time_s = MPI_Wtime() - t0;
  o->time_cpu = cpu_s() - o->time_cpu;
  if (rc != FUPERMOD_SUCCESS) {
    free(devices);
    return fupermod_error_prefix(rc, "scale: time");
  }
  o->tstar = rt.time;
  memcpy(o->tstage, rt.stage_s, sizeof o->tstage);
  o->rss = peak_mb(comm);
  if (verbose && rank == 0) {
    printf("time:   node functions %.3f s, between nodes %.3f s, inside nodes %.3f s; optimum T* = %.9g s, "
           "%ld exact checks, CPU %.2f s (rank 0), peak RSS %.0f MB\n",
           rt.stage_s[0], rt.stage_s[1], rt.stage_s[2], rt.time, rt.exact_checks, o->time_cpu, o->rss);
    fflush(stdout);
  }
  fupermod_hscale_result_free(&rt);
  prob.budget = budget_factor * o->tstar;
  t0 = MPI_Wtime();
  o->energy_cpu = cpu_s();
  rc = fupermod_hscale_energy(comm, &prob, &re);
  o->energy_s = MPI_Wtime() - t0;
  o->energy_cpu = cpu_s() - o->energy_cpu;
  free(devices);
  if (rc != FUPERMOD_SUCCESS) return fupermod_error_prefix(rc, "scale: energy");
  o->energy = re.energy;
  o->bound = re.bound;
  o->etime = re.time;
  memcpy(o->estage, re.stage_s, sizeof o->estage);
  o->rss = peak_mb(comm);
  if (verbose && rank == 0) {
    printf("energy: node hulls %.3f s, between nodes %.3f s, inside nodes %.3f s; E = %.9g J, lower bound %.9g J "
           "(gap %.2e), its time %.9g s (budget %.9g s), CPU %.2f s (rank 0), peak RSS %.0f MB\n",
           re.stage_s[0], re.stage_s[1], re.stage_s[2], re.energy, re.bound, (re.energy - re.bound) / re.bound,
           re.time, prob.budget, o->energy_cpu, o->rss);
    fflush(stdout);
  }
  fupermod_hscale_result_free(&re);
  return FUPERMOD_SUCCESS;
}

/* ---------------------------------------------------------------- --check */

static int check(machine *mc0, int instances) {
  int bad = 0;
  for (int it = 0; it < instances; it++) {
    machine mc = {mix(mc0->seed + (uint64_t)it), 1 + it % 3, 12 + 4 * (it % 8)};
    const int q = 2 + it % 3, p = mc.gpus + 1, total = q * p;
    fupermod_points *fn = calloc((size_t)total, sizeof *fn);
    const fupermod_points **f = calloc((size_t)total, sizeof *f);
    int *first = malloc(((size_t)q + 1) * sizeof *first), *devices = malloc((size_t)q * sizeof *devices);
    fupermod_hscale_fn buf = {0, malloc((size_t)mc.sizes * sizeof(long)), malloc((size_t)mc.sizes * sizeof(double)),
                              malloc((size_t)mc.sizes * sizeof(double))};
    fupermod_hscale_points_ctx ctx;
    fupermod_hscale_problem prob;
    fupermod_hscale_result rt, re;
    long cap = 0;
    double topt = NAN, eopt = NAN;
    int rc;
    first[0] = 0;
    for (int k = 0; k < q; k++) {
      devices[k] = p;
      first[k + 1] = first[k] + p;
      for (int j = 0; j < p; j++) {
        fupermod_points *g = &fn[first[k] + j];
        device_fn(k, j, &buf, &mc);
        g->pts = calloc((size_t)buf.count, sizeof *g->pts);
        g->count = buf.count;
        g->has_energy = 1;
        for (int a = 0; a < buf.count; a++) g->pts[a] = (fupermod_point){.d = buf.x[a], .t = buf.t[a], .reps = 1, .e = buf.e[a], .samples = -1};
        f[first[k] + j] = g;
        cap += buf.x[buf.count - 1];
      }
    }
    ctx = (fupermod_hscale_points_ctx){f, first};
    prob = (fupermod_hscale_problem){(long)(0.55 * (double)cap), q, devices, (int)mc.sizes, fupermod_hscale_points,
                                     &ctx, INFINITY};
    {
      fupermod_problem fp = {prob.D, total, f, 0.0, 0, FUPERMOD_OBJ_TIME};
      fupermod_dist *d = fupermod_dist_alloc(prob.D, total);
      if (fupermod_partitioner_find("dp")->discrete(&fp, d) == FUPERMOD_SUCCESS) topt = fupermod_dist_time(d);
      fupermod_dist_free(d);
    }
    rc = fupermod_hscale_time(MPI_COMM_NULL, &prob, &rt);
    if (rc != FUPERMOD_SUCCESS || rt.time != topt) {
      printf("check %d: MISMATCH time: hierarchical %.17g (rc %d), flat dp %.17g\n", it, rc ? NAN : rt.time, rc, topt);
      bad++;
    }
    if (rc == FUPERMOD_SUCCESS) {
      /* energy: flat dp over the points within the budget */
      fupermod_points *gf = calloc((size_t)total, sizeof *gf);
      const fupermod_points **gp = calloc((size_t)total, sizeof *gp);
      prob.budget = 1.5 * rt.time;
      for (int i = 0; i < total; i++) {
        gf[i].pts = calloc((size_t)fn[i].count, sizeof *gf[i].pts);
        gf[i].has_energy = 1;
        for (int a = 0; a < fn[i].count; a++)
          if (fn[i].pts[a].t <= prob.budget) gf[i].pts[gf[i].count++] = fn[i].pts[a];
        if (gf[i].count == 0) gf[i].pts[gf[i].count++] = (fupermod_point){.d = cap + 1, .t = 1.0, .reps = 1, .e = 1.0, .samples = -1};
        gp[i] = &gf[i];
      }
      {
        fupermod_problem fp = {prob.D, total, gp, 0.0, 0, FUPERMOD_OBJ_ENERGY};
        fupermod_dist *d = fupermod_dist_alloc(prob.D, total);
        if (fupermod_partitioner_find("dp")->discrete(&fp, d) == FUPERMOD_SUCCESS) eopt = fupermod_dist_energy(d);
        fupermod_dist_free(d);
      }
      rc = fupermod_hscale_energy(MPI_COMM_NULL, &prob, &re);
      if (rc != FUPERMOD_SUCCESS || !(re.bound <= eopt * (1 + 1e-12)) || !(re.energy >= eopt * (1 - 1e-12))) {
        printf("check %d: MISMATCH energy: bound %.17g <= flat dp %.17g <= hierarchical %.17g fails (rc %d: %s)\n", it,
               rc ? NAN : re.bound, eopt, rc ? NAN : re.energy, rc, rc ? fupermod_error_message() : "");
        bad++;
      } else
        printf("check %d: %d nodes x %d devices, %ld sizes, D = %ld: time %.9g = flat dp; energy bound %.9g <= flat "
               "dp %.9g <= %.9g (gap %.1e)\n",
               it, q, p, mc.sizes, prob.D, rt.time, re.bound, eopt, re.energy, (re.energy - eopt) / eopt);
      if (rc == FUPERMOD_SUCCESS) fupermod_hscale_result_free(&re);
      fupermod_hscale_result_free(&rt);
      for (int i = 0; i < total; i++) free(gf[i].pts);
      free(gf);
      free(gp);
    }
    for (int i = 0; i < total; i++) free(fn[i].pts);
    free(fn);
    free(f);
    free(first);
    free(devices);
    free(buf.x);
    free(buf.t);
    free(buf.e);
  }
  printf("check: %d instances, %d mismatches\n", instances, bad);
  return bad ? 1 : 0;
}

/* ---------------------------------------------------------------- --sweep */

static int sweep(MPI_Comm comm, machine *mc, const char *dir, double share, double budget, long pmax) {
  static const int P[] = {1000, 2000, 5000, 10000, 20000, 50000, 84672, 100000};
  char path[4096];
  FILE *csv = NULL, *gp;
  int rank = 0;
  if (comm != MPI_COMM_NULL) MPI_Comm_rank(comm, &rank);
  if (rank == 0) {
    snprintf(path, sizeof path, "mkdir -p '%s'", dir);
    if (system(path) != 0 || (snprintf(path, sizeof path, "%s/scale.csv", dir), !(csv = fopen(path, "w")))) {
      fprintf(stderr, "scale: cannot write %s/scale.csv\n", dir);
      return 1;
    }
    fprintf(csv, "processors,nodes,time_s,energy_s,t_nodefn,t_between,t_inside,e_hulls,e_between,e_inside,rss_mb,"
                 "time_cpu,energy_cpu\n");
  }
  for (size_t a = 0; a < sizeof P / sizeof *P && P[a] <= pmax; a++) {
    const int q = (P[a] + mc->gpus) / (mc->gpus + 1);
    outcome o;
    if (run(comm, mc, q, share, budget, &o, 0) != FUPERMOD_SUCCESS) {
      if (rank == 0) fprintf(stderr, "scale: %s\n", fupermod_error_message());
      if (csv) fclose(csv);
      return 1;
    }
    if (rank == 0) {
      printf("sweep: %d processors in %d nodes: time %.3f s (CPU %.2f s), energy %.3f s (CPU %.2f s), peak RSS %.0f "
             "MB\n",
             q * (mc->gpus + 1), q, o.time_s, o.time_cpu, o.energy_s, o.energy_cpu, o.rss);
      fprintf(csv, "%d,%d,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.1f,%.6f,%.6f\n", q * (mc->gpus + 1), q, o.time_s,
              o.energy_s, o.tstage[0], o.tstage[1], o.tstage[2], o.estage[0], o.estage[1], o.estage[2], o.rss,
              o.time_cpu, o.energy_cpu);
      fflush(csv);
      fflush(stdout);
    }
  }
  if (rank != 0) return 0;
  fclose(csv);
  snprintf(path, sizeof path, "%s/scale.gp", dir);
  if (!(gp = fopen(path, "w"))) return 1;
  fprintf(gp,
          "set terminal png size 900,600\nset output '%s/scale.png'\nset datafile separator ','\n"
          "set logscale xy\nset xrange [800:120000]\nset xlabel 'abstract processors'\nset ylabel 'seconds'\n"
          "set key top left\nset title 'HiSCALE partitioning time (%d GPUs + 1 CPU per node; CPU: all threads)'\n"
          "plot '%s/scale.csv' every ::1 using 1:3 with linespoints title 'time (exact), wall', \\\n"
          "     '' every ::1 using 1:12 with linespoints title 'time (exact), CPU', \\\n"
          "     '' every ::1 using 1:5 with linespoints title '  node functions, wall', \\\n"
          "     '' every ::1 using 1:6 with linespoints title '  between nodes, wall', \\\n"
          "     '' every ::1 using 1:4 with linespoints title 'energy (Lagrangian), wall', \\\n"
          "     '' every ::1 using 1:13 with linespoints title 'energy (Lagrangian), CPU'\n",
          dir, mc->gpus, dir);
  fclose(gp);
  snprintf(path, sizeof path, "gnuplot '%s/scale.gp'", dir);
  if (system(path) != 0) fprintf(stderr, "scale: gnuplot failed; the data is in %s/scale.csv\n", dir);
  else printf("sweep: %s/scale.png\n", dir);
  return 0;
}

static void usage(void) {
  fprintf(stderr, "usage: bench/scale [--nodes N] [--gpus G] [--points M] [--seed S] [--share F] [--budget B] "
                  "[--threads T] [--mpi] [--check] [--sweep DIR [--sweep-max P]]\n");
}

int main(int argc, char **argv) {
  machine mc = {1, 8, 0};
  long nodes = 9408, points = 1000, pmax = 100000;
  double share = 0.55, budget = 1.5;
  int do_check = 0, mpi = 0, rank = 0, status = 0;
  const char *sweep_dir = NULL;
  MPI_Comm comm = MPI_COMM_NULL;
  if ((status = driver_mpi_start(&argc, &argv, MPI_THREAD_FUNNELED, "bench/scale", NULL, NULL, NULL)) != 0)
    return status;
  for (int a = 1; a < argc; a++) {
    const char *v = a + 1 < argc ? argv[a + 1] : NULL;
    char *end = NULL;
    if (!strcmp(argv[a], "--help") || !strcmp(argv[a], "-h")) {
      usage();
      MPI_Finalize();
      return 0;
    } else if (!strcmp(argv[a], "--check")) do_check = 1;
    else if (!strcmp(argv[a], "--mpi")) mpi = 1;
    else if (v && !strcmp(argv[a], "--sweep")) sweep_dir = argv[++a];
    else if (v && (!strcmp(argv[a], "--nodes") || !strcmp(argv[a], "--gpus") || !strcmp(argv[a], "--points") ||
                   !strcmp(argv[a], "--seed") || !strcmp(argv[a], "--threads") ||
                   !strcmp(argv[a], "--sweep-max"))) {
      long x = strtol(v, &end, 10);
      if (*end || x < (strcmp(argv[a], "--gpus") && strcmp(argv[a], "--seed") ? 1 : 0) || x > 100000000) {
        fprintf(stderr, "scale: %s: bad value '%s'\n", argv[a], v);
        MPI_Finalize();
        return 2;
      }
      if (!strcmp(argv[a], "--nodes")) nodes = x;
      else if (!strcmp(argv[a], "--gpus")) mc.gpus = (int)x;
      else if (!strcmp(argv[a], "--points")) points = x;
      else if (!strcmp(argv[a], "--seed")) mc.seed = (uint64_t)x;
      else if (!strcmp(argv[a], "--sweep-max")) pmax = x;
#ifdef _OPENMP
      else omp_set_num_threads((int)x);
#endif
      a++;
    } else if (v && (!strcmp(argv[a], "--share") || !strcmp(argv[a], "--budget"))) {
      double x = strtod(v, &end);
      if (*end || !(x > 0) || (!strcmp(argv[a], "--share") && x > 1)) {
        fprintf(stderr, "scale: %s: bad value '%s'\n", argv[a], v);
        MPI_Finalize();
        return 2;
      }
      if (!strcmp(argv[a], "--share")) share = x;
      else budget = x;
      a++;
    } else {
      fprintf(stderr, "scale: unknown or incomplete option '%s'\n", argv[a]);
      usage();
      MPI_Finalize();
      return 2;
    }
  }
  {
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (mpi || size > 1) comm = MPI_COMM_WORLD;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  }
  mc.sizes = (long)ceil((double)points / 0.97);
  if (do_check) status = rank == 0 ? check(&mc, 30) : 0;
  else if (sweep_dir) status = sweep(comm, &mc, sweep_dir, share, budget, pmax);
  else {
    outcome o;
    if (run(comm, &mc, (int)nodes, share, budget, &o, 1) != FUPERMOD_SUCCESS) {
      if (rank == 0) fprintf(stderr, "%s\n", fupermod_error_message());
      status = 1;
    } else if (rank == 0)
      printf("scale: %ld processors in %ld nodes, hierarchical time %.2f s, energy %.2f s, peak RSS %.0f MB\n",
             nodes * (mc.gpus + 1), nodes, o.time_s, o.energy_s, o.rss);
  }
  MPI_Finalize();
  return status;
}
