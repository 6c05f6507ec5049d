/* fupermod comm: the one-way message time between every pair of the job's processes, measured to
 * confidence over a range of message sizes, saved beside the models and plotted (fupermod/comm.h,
 * docs/models.md "Communication"). */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <mpi.h>
#include "fupermod/comm.h"
#include "tools/build_common.h"
#include "tools/mpi_init.h"

static const char *SUB = "comm";

static void help(void) {
  printf("usage: mpirun -np P fupermod comm --conf CONF [--out DIR] [--sizes LIST] [--rebuild] [PRECISION] [-q]\n\n"
         "Every process finds its line in CONF as in 'fupermod build' (binding, where it runs); then each pair\n"
         "of processes sends messages back and forth (ping-pong) at every size of LIST, until the mean\n"
         "one-way time (half the round trip) is known to the precision asked. Pairs that share no process\n"
         "are measured at the same time. Writes DIR/comm.txt (docs/formats.md), DIR/comm.png, and a table\n"
         "of each link's latency and bandwidth (the Hockney fit t = alpha + beta bytes).\n"
         "  --out DIR         where the files go (default fupermod-comm)\n"
         "  --sizes LIST      message sizes in bytes, increasing, with K, M or G for powers of 1024\n"
         "                    (default 8,4K,64K,1M,16M)\n"
         "  --rebuild         measure every link again (otherwise the links DIR/comm.txt holds for the\n"
         "                    same processes and sizes are kept: an interrupted measurement resumes)\n"
         "  --allow-fewer     a job of fewer processes than the configuration's lines uses the first lines\n"
         "  -q                no progress lines\n"
         "PRECISION:  -r REPS_MIN (5)  -R REPS_MAX (100)  -i CONFIDENCE (0.95)  -e REL_ERROR (0.05)\n"
         "            -T SECONDS_PER_SIZE (5)\n"
         "exit status: 0 done, 1 bad input or run-time error, 2 usage\n");
}

typedef struct {
  long v[64];
  int n;
} size_list;

static int add_size(const char *item, void *ctx) {
  size_list *l = ctx;
  double x;
  if (fupermod_parse_bytes(item, &x) || !(x >= 1) || x > 1073741824.0 || x != (double)(long)x)
    return fupermod_error(FUPERMOD_ERR_USAGE, "--sizes: '%s' is not a whole number of bytes from 1 to 1G", item);
  if (l->n == 64) return fupermod_error(FUPERMOD_ERR_USAGE, "--sizes: at most 64 sizes");
  if (l->n && (long)x <= l->v[l->n - 1])
    return fupermod_error(FUPERMOD_ERR_USAGE, "--sizes: '%s' is not above the size before it (sizes increase)", item);
  l->v[l->n++] = (long)x;
  return FUPERMOD_SUCCESS;
}

typedef struct {
  const char *sub, *path, *const *names;
  const long *sizes;
  int nsizes, quiet;
  double start;
} progress;

/* rank 0, after each round: what is measured so far is on disk */
static int each_round(const fupermod_comm *c, int round, int rounds, void *ctx) {
  progress *pr = ctx;
  int rc = fupermod_comm_save(c, pr->path, pr->names, pr->sizes, pr->nsizes);
  if (!pr->quiet)
    fprintf(stderr, "fupermod %s: %sround %d of %d done (elapsed %.1f s), saved in %s\n", pr->sub,
            strcmp(pr->sub, "comm") ? "links: " : "", round, rounds, MPI_Wtime() - pr->start, pr->path);
  return rc;
}

static void plot(const char *dir, const fupermod_comm *c, char **names) {
  char script[4200], png[4200], data[4200];
  FILE *fp;
  int first = 1;
  snprintf(script, sizeof script, "%s/comm.gp", dir);
  snprintf(png, sizeof png, "%s/comm.png", dir);
  snprintf(data, sizeof data, "%s/comm.txt", dir);
  if (!(fp = fopen(script, "w"))) return;
  fprintf(fp, "set terminal pngcairo size 900,600\nset output '%s'\nset logscale xy\nset key left top\n"
              "set xlabel 'message size (bytes)'\nset ylabel 'one-way time (s)'\n"
              "set title 'fupermod comm: measured points (95 %% intervals) and Hockney fits'\nplot ",
          png);
  for (int i = 0; i < c->p; i++)
    for (int j = i + 1; j < c->p; j++) {
      const fupermod_comm_link *l = fupermod_comm_link_of(c, i, j);
      if (!l || l->n < 1) continue;
      fprintf(fp, "%s'%s' using 3:($1 == %d && $2 == %d ? $4 : 1/0):6 with yerrorbars lc %d title '%s - %s', "
                  "%.10g + %.10g * x with lines lc %d notitle",
              first ? "" : ", ", data, i, j, i * c->p + j, names[i], names[j], l->alpha, l->beta, i * c->p + j);
      first = 0;
    }
  fprintf(fp, "\n");
  fclose(fp);
  if (!first && tool_gnuplot(script) == 0) printf("# plot: %s\n", png);
}

/* Collective: the links of the job's processes (names[i]: HOST.RANK of process i, malloc'ed and
 * NULL-terminated) measured at the sizes, those the file at path holds for the same processes and
 * sizes kept (unless rebuild), what is measured saved there after each round and at the end. */
int tool_comm_links(const char *sub, const tool_proc *pr, const char *path, const long *sizes, int nsizes,
                    const fupermod_precision *prec, int rebuild, int quiet, fupermod_comm *cm, char ***names_out) {
  int rc = FUPERMOD_SUCCESS, rank, size, reused = 0;
  char **names;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  /* each process named by its configuration entry, as its point files */
  if (!(names = calloc((size_t)size + 1, sizeof *names))) rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  *names_out = names;
  for (int i = 0; rc == FUPERMOD_SUCCESS && i < size; i++) {
    const fupermod_process_conf *pc = tool_rank_conf(pr, i);
    if ((names[i] = malloc(strlen(pc->hostname) + 16))) sprintf(names[i], "%s.%d", pc->hostname, pc->rank_intra);
    else rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  }
  if (rc == FUPERMOD_SUCCESS) rc = fupermod_comm_init(cm, size);
  if (rc == FUPERMOD_SUCCESS && rank == 0 && !rebuild && access(path, F_OK) == 0) {
    /* the links of the same processes at the same sizes are kept */
    fupermod_comm old;
    char **on = NULL;
    long *os = NULL;
    int ons = 0, same;
    if ((rc = fupermod_comm_load(path, &old, &on, &os, &ons)) != FUPERMOD_SUCCESS) {
      fupermod_error_prefix(rc, "%s holds no usable measurement (give --rebuild to replace it)", path);
    } else {
      same = old.p == size && ons == nsizes && memcmp(os, sizes, (size_t)ons * sizeof *os) == 0;
      for (int i = 0; same && i < size; i++) same = strcmp(on[i], names[i]) == 0;
      for (int i = 0; same && i < size; i++)
        for (int j = i + 1; j < size; j++) {
          fupermod_comm_link *a = fupermod_comm_link_of(&old, i, j), *b = fupermod_comm_link_of(cm, i, j);
          if (a->n != nsizes) continue; /* a link cut short is measured again */
          b->pts = a->pts, b->n = a->n, a->pts = NULL, a->n = 0;
          fupermod_comm_fit(b);
          reused++;
        }
      if (!same && !quiet)
        fprintf(stderr, "fupermod %s: %s is of other processes or sizes: measuring every link\n", sub, path);
      fupermod_comm_free(&old);
      for (int i = 0; on && on[i]; i++) free(on[i]);
      free(on);
      free(os);
    }
  }
  if ((rc = tool_agree(sub, rc, MPI_COMM_WORLD)) != FUPERMOD_SUCCESS) return rc;
  {
    int links = size * (size - 1) / 2;
    progress pg = {sub, path, (const char *const *)names, sizes, nsizes, quiet, MPI_Wtime()};
    if (rank == 0 && !quiet)
      fprintf(stderr, "fupermod %s: %d processes, %d links (%d reused from %s), %d message sizes from %ld to %ld bytes\n",
              sub, size, links, reused, path, nsizes, sizes[0], sizes[nsizes - 1]);
    rc = fupermod_comm_measure(MPI_COMM_WORLD, sizes, nsizes, prec, cm, rank == 0 ? each_round : NULL, &pg);
    if (rc == FUPERMOD_SUCCESS && rank == 0) rc = fupermod_comm_save(cm, path, (const char *const *)names, sizes, nsizes);
  }
  return tool_agree(sub, rc, MPI_COMM_WORLD);
}

int cmd_comm(int argc, char **argv) {
  static const struct option opts[] = {{"conf", required_argument, NULL, 'c'}, {"out", required_argument, NULL, 'o'},
                                       {"sizes", required_argument, NULL, 's'}, {"rebuild", no_argument, NULL, 'b'},
                                       {"allow-fewer", no_argument, NULL, 'F'}, {"help", no_argument, NULL, 'h'},
                                       {NULL, 0, NULL, 0}};
  const char *confpath = NULL, *dir = "fupermod-comm";
  size_list sizes = {{8, 4096, 65536, 1048576, 16777216}, 5}, given = {{0}, 0};
  fupermod_precision prec = {5, 100, 0.95, 0.05, 5.0, 0.0, 0, 0};
  int c, rc, status, rank, size, quiet = 0, rebuild = 0, lock = -1;
  tool_proc pr;
  fupermod_comm cm = {0, NULL};
  char path[4096], **names = NULL;
  memset(&pr, 0, sizeof pr);
  optind = 0;
  while ((c = getopt_long(argc, argv, TOOL_PRECISION_OPTS "qh", opts, NULL)) != -1) {
    switch (c) {
    case 'c': confpath = optarg; break;
    case 'o': dir = optarg; break;
    case 's':
      given.n = 0;
      if (tool_list("--sizes", optarg, 32, add_size, &given) != FUPERMOD_SUCCESS) return tool_usage(SUB, "%s", fupermod_error_message());
      sizes = given;
      break;
    case 'b': rebuild = 1; break;
    case 'F': tool_allow_fewer = 1; break;
    case 'q': quiet = 1; break;
    case 'h': help(); return 0;
    default: {
      int st;
      if (tool_precision_opt(SUB, c, optarg, &prec, &st)) {
        if (st) return st;
        break;
      }
      return tool_bad_option(SUB, argv, TOOL_PRECISION_OPTS "qh", opts);
    }
    }
  }
  if (optind < argc) return tool_usage(SUB, "unexpected argument '%s'", argv[optind]);
  if (!confpath) return tool_usage(SUB, "no process configuration given (--conf CONF)");
  if (fupermod_precision_check(&prec) != FUPERMOD_SUCCESS) return tool_usage(SUB, "%s", fupermod_error_message());
  if ((rc = tool_mpi_init(SUB, &argc, &argv, TOOL_MPI_LEVEL)) != 0) return rc;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  {
    /* the kernel is not run: lines without kernel= are taken as fupermod run's (dgemm, fft-rows),
     * so that their sub-options are checked as there */
    fupermod_conf conf;
    const char *kname = NULL;
    char kbuf[256];
    if (fupermod_conf_load(confpath, &conf) == FUPERMOD_SUCCESS) {
      for (int i = 0; i < conf.count; i++)
        if (fupermod_subopt_get(conf.procs[i].subopts, "kernel", kbuf, sizeof kbuf) != 1) kname = "dgemm";
      fupermod_conf_free(&conf);
    }
    if (kname) tool_line_kernels[0] = "fft-rows";
    if ((rc = tool_proc_setup(SUB, confpath, kname, quiet, &pr)) != FUPERMOD_SUCCESS) goto done;
  }
  rc = FUPERMOD_SUCCESS;
  if (rank == 0 && mkdir(dir, 0777) != 0 && errno != EEXIST)
    rc = fupermod_error(FUPERMOD_ERR_SYSTEM, "%s: cannot create the directory: %s", dir, strerror(errno));
  if ((rc = tool_agree(SUB, rc, MPI_COMM_WORLD)) != FUPERMOD_SUCCESS) goto done;
  if ((rc = tool_dir_lock(SUB, dir, 60.0, &lock)) != FUPERMOD_SUCCESS) goto done;
  snprintf(path, sizeof path, "%s/comm.txt", dir);
  if ((rc = tool_comm_links(SUB, &pr, path, sizes.v, sizes.n, &prec, rebuild, quiet, &cm, &names)) != FUPERMOD_SUCCESS)
    goto done;
  if (rank == 0) {
    printf("# fupermod comm: one-way time t = alpha + beta bytes per link (half a ping-pong); points in %s\n", path);
    printf("# %-28s %14s %16s %16s\n", "link", "latency (us)", "bandwidth (GB/s)", "t(largest) (s)");
    for (int i = 0; i < size; i++)
      for (int j = i + 1; j < size; j++) {
        const fupermod_comm_link *l = fupermod_comm_link_of(&cm, i, j);
        char link[512];
        snprintf(link, sizeof link, "%s - %s", names[i], names[j]);
        printf("  %-28s %14.3f %16.3f %16.6g\n", link, l->alpha * 1e6, l->beta > 0 ? 1e-9 / l->beta : 0.0,
               l->pts[l->n - 1].t);
      }
    plot(dir, &cm, names);
  }
done:
  status = fupermod_exit_status(rc);
  tool_dir_unlock(&lock);
  fupermod_comm_free(&cm);
  for (int i = 0; names && names[i]; i++) free(names[i]);
  free(names);
  tool_proc_free(&pr);
  tool_exec_close();
  MPI_Finalize();
  return status;
}
