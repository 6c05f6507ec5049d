/* fupermod build: every process benchmarks its kernel over the same sizes and appends each point
 * to its own file at once; a rerun resumes where an interrupted one stopped. */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <mpi.h>
#include "tools/tools.h"

static const char *SUB = "build";

static void help(void) {
  printf("usage: mpirun -np N fupermod build --conf CONF [--data DIR] [-k KERNEL] SIZES [PRECISION]\n\n"
         "Each process finds its line in CONF (host, intra-node rank), applies its binding, loads its\n"
         "kernel (-k, or the sub-option kernel=NAME of its line; the line's sub-options reach the kernel),\n"
         "and measures every size with the processes of its node running together. Points are appended\n"
         "to DIR/HOST.RANK_INTRA.points as soon as they are measured; sizes already there are skipped.\n"
         "SIZES:      -L LOW -U HIGH -s STEPS   (STEPS evenly spaced sizes from LOW to HIGH)\n"
         "            --sizes d1,d2,...         (explicit sizes)\n"
         "PRECISION:  -r REPS_MIN (3)  -R REPS_MAX (100)  -i CONFIDENCE (0.95)  -e REL_ERROR (0.025)\n"
         "            -T SECONDS_PER_POINT (60)  -z MIN_SPEED (0: never abandon a slow run)\n"
         "  --data DIR  output directory (default fupermod-data)\n"
         "  -q          no progress lines\n");
}

static int parse_sizes(const char *s, long **out, int *n) {
  int cap = 16;
  long *v = malloc((size_t)cap * sizeof *v);
  *n = 0;
  if (!v) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  while (*s) {
    char tok[32];
    const char *e = strchr(s, ',');
    size_t len = e ? (size_t)(e - s) : strlen(s);
    long d;
    if (len == 0 || len >= sizeof tok) break;
    memcpy(tok, s, len);
    tok[len] = '\0';
    if (fupermod_parse_long(tok, &d) || d <= 0) {
      free(v);
      return fupermod_error(FUPERMOD_ERR_USAGE, "--sizes: '%s' is not a positive integer", tok);
    }
    if (*n == cap) {
      long *nv = realloc(v, (size_t)(cap *= 2) * sizeof *v);
      if (!nv) {
        free(v);
        return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
      }
      v = nv;
    }
    v[(*n)++] = d;
    s += len + (e ? 1 : 0);
  }
  if (*n == 0) {
    free(v);
    return fupermod_error(FUPERMOD_ERR_USAGE, "--sizes: no sizes given");
  }
  *out = v;
  return FUPERMOD_SUCCESS;
}

/* Agree on an error over comm: returns the first failing rank's status (same on all ranks), the
 * message printed once by that rank. */
static int agree(int rc, MPI_Comm comm) {
  int rank, bad = rc != FUPERMOD_SUCCESS, who, pair[2], res[2];
  MPI_Comm_rank(comm, &rank);
  pair[0] = bad ? rank : 1 << 30;
  pair[1] = 0;
  MPI_Allreduce(pair, res, 1, MPI_INT, MPI_MIN, comm);
  who = res[0];
  if (who == 1 << 30) return FUPERMOD_SUCCESS;
  if (rank == who) fprintf(stderr, "fupermod build: rank %d: %s\n", rank, fupermod_error_message());
  MPI_Bcast(&rc, 1, MPI_INT, who, comm);
  return rc;
}

int cmd_build(int argc, char **argv) {
  static const struct option opts[] = {{"conf", required_argument, NULL, 'c'}, {"data", required_argument, NULL, 'd'},
                                       {"sizes", required_argument, NULL, 'S'}, {"help", no_argument, NULL, 'h'},
                                       {NULL, 0, NULL, 0}};
  const char *confpath = NULL, *data = "fupermod-data", *kname = NULL, *sizes_arg = NULL;
  long L = 0, U = 0, steps = 0, *sizes = NULL;
  int nsizes = 0, c, rc = FUPERMOD_SUCCESS, quiet = 0, rank, size, index = -1, status;
  fupermod_precision prec = FUPERMOD_PRECISION_DEFAULT;
  fupermod_conf conf = {0, NULL, NULL};
  fupermod_points have = {0, NULL, 0};
  fupermod_kernel *kernel = NULL;
  MPI_Comm intra = MPI_COMM_NULL;
  char path[4096], kbuf[256];
  double start;
  optind = 1;
  while ((c = getopt_long(argc, argv, "c:d:k:L:U:s:r:R:i:e:T:z:qh", opts, NULL)) != -1) {
    long v;
    double x;
    switch (c) {
    case 'c': confpath = optarg; break;
    case 'd': data = optarg; break;
    case 'k': kname = optarg; break;
    case 'S': sizes_arg = optarg; break;
    case 'L': case 'U': case 's': case 'r': case 'R':
      if (fupermod_parse_long(optarg, &v) || v < 1 || v > 1000000000L)
        return tool_usage(SUB, "-%c '%s' must be a positive integer", c, optarg);
      if (c == 'L') L = v;
      else if (c == 'U') U = v;
      else if (c == 's') steps = v;
      else if (c == 'r') prec.reps_min = (int)v;
      else prec.reps_max = (int)v;
      break;
    case 'i': case 'e': case 'T': case 'z':
      if (fupermod_parse_double(optarg, &x)) return tool_usage(SUB, "-%c '%s' must be a number", c, optarg);
      if (c == 'i') prec.cl = x;
      else if (c == 'e') prec.eps = x;
      else if (c == 'T') prec.time_max = x;
      else prec.speed_min = x;
      break;
    case 'q': quiet = 1; break;
    case 'h': help(); return 0;
    default: return tool_usage(SUB, "unknown option");
    }
  }
  if (optind < argc) return tool_usage(SUB, "unexpected argument '%s'", argv[optind]);
  if (!confpath) return tool_usage(SUB, "no process configuration given (--conf CONF)");
  if (sizes_arg && (L || U || steps)) return tool_usage(SUB, "give --sizes or -L/-U/-s, not both");
  if (sizes_arg) {
    if ((rc = parse_sizes(sizes_arg, &sizes, &nsizes)) != FUPERMOD_SUCCESS) return tool_fail(SUB, rc);
  } else {
    if (!L || !U || !steps) return tool_usage(SUB, "no sizes given (-L LOW -U HIGH -s STEPS, or --sizes)");
    if (U < L) return tool_usage(SUB, "-U %ld is below -L %ld", U, L);
    if (steps > 100000) return tool_usage(SUB, "-s %ld: at most 100000 steps", steps);
    sizes = malloc((size_t)steps * sizeof *sizes);
    for (long k = 0; k < steps; k++) {
      long d = steps == 1 ? L : L + (long)llround((double)(U - L) * (double)k / (double)(steps - 1));
      if (nsizes == 0 || d != sizes[nsizes - 1]) sizes[nsizes++] = d;
    }
  }
  if ((rc = fupermod_precision_check(&prec)) != FUPERMOD_SUCCESS) {
    free(sizes);
    return tool_fail(SUB, FUPERMOD_ERR_USAGE);
  }
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  rc = fupermod_conf_load(confpath, &conf);
  if ((rc = agree(rc, MPI_COMM_WORLD)) != FUPERMOD_SUCCESS) goto done;
  rc = agree(fupermod_conf_locate(&conf, MPI_COMM_WORLD, &index, &intra), MPI_COMM_WORLD);
  if (rc != FUPERMOD_SUCCESS) goto done;
  {
    const fupermod_process_conf *pc = &conf.procs[index];
    const char *kn = kname;
    rc = fupermod_bind_apply(pc->bind);
    if (rc == FUPERMOD_SUCCESS && !kn) {
      int got = fupermod_subopt_get(pc->subopts, "kernel", kbuf, sizeof kbuf);
      if (got == 1) kn = kbuf;
      else if (got == 0)
        rc = fupermod_error(FUPERMOD_ERR_USAGE, "%s:%d: no kernel (give -k KERNEL or the sub-option kernel=NAME)",
                            confpath, pc->line);
      else rc = got;
    }
    if (rc == FUPERMOD_SUCCESS) {
      rc = fupermod_kernel_load(kn, pc->subopts, &kernel);
      /* a kernel rejecting its sub-options is a fault of the configuration line */
      if (rc == FUPERMOD_ERR_USAGE) rc = fupermod_error_prefix(FUPERMOD_ERR_INPUT, "%s:%d", confpath, pc->line);
    }
    if (rc == FUPERMOD_SUCCESS) rc = fupermod_mkdir_p(data);
    tool_points_path(path, sizeof path, data, pc);
    if (rc == FUPERMOD_SUCCESS && access(path, F_OK) == 0) rc = fupermod_points_load(path, &have);
    if ((rc = agree(rc, MPI_COMM_WORLD)) != FUPERMOD_SUCCESS) goto done;
  }
  start = fupermod_time();
  for (int k = 0; k < nsizes; k++) {
    fupermod_point pt = FUPERMOD_POINT_INIT;
    int need = fupermod_points_find(&have, sizes[k]) < 0, node_need = 0, any = 0;
    MPI_Allreduce(&need, &node_need, 1, MPI_INT, MPI_MAX, intra);
    MPI_Allreduce(&node_need, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (node_need) {
      /* the whole node measures together so that contention is part of every point */
      rc = fupermod_benchmark(kernel, sizes[k], &prec, intra, &pt);
      if (rc == FUPERMOD_SUCCESS && need) {
        if (pt.reps == 0) { /* abandoned: keep the time at abandonment, a lower bound */
          pt.reps = 1;
          pt.ci = 0.0;
        }
        rc = fupermod_points_append(path, &pt);
        if (rc == FUPERMOD_SUCCESS) rc = fupermod_points_insert(&have, &pt);
      }
    }
    if ((rc = agree(rc, MPI_COMM_WORLD)) != FUPERMOD_SUCCESS) goto done;
    if (rank == 0 && !quiet && any) {
      double el = fupermod_time() - start;
      fprintf(stderr, "fupermod build: point %d of %d (d=%ld): elapsed %.1f s, about %.1f s left\n", k + 1, nsizes,
              sizes[k], el, el / (k + 1) * (nsizes - k - 1));
    }
  }
  /* summary: per process the number of points and the range of speeds */
  {
    double mine[3] = {(double)have.count, INFINITY, 0.0}, *all = NULL;
    for (int i = 0; i < have.count; i++) {
      double s = fupermod_kernel_complexity(kernel, have.pts[i].d) / have.pts[i].t;
      if (s < mine[1]) mine[1] = s;
      if (s > mine[2]) mine[2] = s;
    }
    if (rank == 0) all = malloc((size_t)size * 3 * sizeof *all);
    MPI_Gather(mine, 3, MPI_DOUBLE, all, 3, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank == 0) {
      printf("# %d processes, %d sizes, points in %s\n# %6s %8s %14s %14s\n", size, nsizes, data, "rank", "points",
             "min speed", "max speed");
      for (int r = 0; r < size; r++) printf("  %6d %8.0f %14.6g %14.6g\n", r, all[3 * r], all[3 * r + 1], all[3 * r + 2]);
      free(all);
    }
  }
done:
  status = fupermod_exit_status(rc);
  fupermod_kernel_unload(kernel);
  fupermod_points_free(&have);
  fupermod_conf_free(&conf);
  free(sizes);
  if (intra != MPI_COMM_NULL) MPI_Comm_free(&intra);
  MPI_Finalize();
  return status;
}
