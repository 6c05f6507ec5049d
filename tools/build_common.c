#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>
#include "tools/build_common.h"

int tool_allow_fewer;
const char *tool_line_kernels[4];

int tool_fewer_error(const char *sub, const char *confpath, int lines, int procs, int rank) {
  int rc = fupermod_error(FUPERMOD_ERR_USAGE, "%s has %d process lines but the job has %d process%s: start it with "
                          "mpirun -np %d (or give --allow-fewer to use its first %d)",
                          confpath, lines, procs, procs == 1 ? "" : "es", lines, procs);
  if (rank == 0) fprintf(stderr, "fupermod %s: %s\n", sub, fupermod_error_message());
  return rc;
}

int tool_agree(const char *sub, int rc, MPI_Comm comm) {
  int rank, who, mine;
  MPI_Comm_rank(comm, &rank);
  mine = rc != FUPERMOD_SUCCESS ? rank : 1 << 30;
  MPI_Allreduce(&mine, &who, 1, MPI_INT, MPI_MIN, comm);
  if (who == 1 << 30) return FUPERMOD_SUCCESS;
  if (rank == who && rank == 0) fprintf(stderr, "fupermod %s: %s\n", sub, fupermod_error_message());
  else if (rank == who) fprintf(stderr, "fupermod %s: rank %d: %s\n", sub, rank, fupermod_error_message());
  MPI_Bcast(&rc, 1, MPI_INT, who, comm);
  return rc;
}

int tool_precision_opt(const char *sub, int c, const char *arg, fupermod_precision *prec, int *status) {
  long v;
  double x;
  *status = 0;
  switch (c) {
  case 'r': case 'R':
    if (fupermod_parse_long(arg, &v) || v < 1 || v > 1000000000L)
      *status = tool_usage(sub, "-%c '%s' must be a positive integer", c, arg);
    else if (c == 'r') prec->reps_min = (int)v;
    else prec->reps_max = (int)v;
    return 1;
  case 'i': case 'e': case 'T': case 'z':
    if (fupermod_parse_double(arg, &x)) *status = tool_usage(sub, "-%c '%s' must be a number", c, arg);
    else if (c == 'i') prec->cl = x;
    else if (c == 'e') prec->eps = x;
    else if (c == 'T') prec->time_max = x;
    else prec->speed_min = x;
    return 1;
  default: return 0;
  }
}

static int setup_energy(const char *sub, const fupermod_process_conf *pc, const char *confpath, int quiet,
                        tool_proc *p) {
  double probe = 0.0, maxprobe = 0.0;
  int rc, rank;
  rc = fupermod_meter_create_subopts(pc->subopts, &p->meter);
  if (rc == FUPERMOD_SUCCESS) rc = fupermod_meter_static_subopts(p->meter, pc->subopts, &p->static_power, &probe);
  /* a meter the line cannot have is a fault of the configuration line */
  if (rc != FUPERMOD_SUCCESS) rc = fupermod_error_prefix(FUPERMOD_ERR_INPUT, "%s:%d", confpath, pc->line);
  if ((rc = tool_agree(sub, rc, MPI_COMM_WORLD)) != FUPERMOD_SUCCESS) return rc;
  MPI_Allreduce(&probe, &maxprobe, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (maxprobe > 0 && rank == 0 && !quiet)
    fprintf(stderr, "fupermod %s: measuring static power: the processes idle for up to %g s\n", sub, maxprobe);
  /* every process of a node takes part, so that none computes while another measures idle power */
  if (maxprobe > 0) rc = fupermod_meter_probe(probe > 0 ? p->meter : NULL, probe, p->intra, &p->static_power);
  if (rc != FUPERMOD_SUCCESS) rc = fupermod_error_prefix(rc, "%s:%d", confpath, pc->line);
  if ((rc = tool_agree(sub, rc, MPI_COMM_WORLD)) != FUPERMOD_SUCCESS) return rc;
  p->probed = probe > 0;
  if (p->meter) {
    if (fupermod_meter_is_external(p->meter))
      snprintf(p->label, sizeof p->label, "dynamic, meter %s: fupermod energy import fills it", fupermod_meter_describe(p->meter));
    else if (fupermod_meter_is_estimate(p->meter))
      snprintf(p->label, sizeof p->label, "ESTIMATE, not a measurement: %s", fupermod_meter_describe(p->meter));
    else
      snprintf(p->label, sizeof p->label, "dynamic, meter %s, static power %.6g W (%s), attribution %s",
               fupermod_meter_describe(p->meter), p->static_power, p->probed ? "idle probe" : "given",
               fupermod_meter_attribution(p->meter) == FUPERMOD_ATTRIB_SOLO ? "solo" : "busy");
  }
  return FUPERMOD_SUCCESS;
}

const fupermod_process_conf *tool_rank_conf(const tool_proc *p, int r) {
  int i = 0;
  while (i + 1 < p->conf.count && p->conf.procs[i].line != p->map[r].line) i++;
  return &p->conf.procs[i];
}

int tool_proc_setup(const char *sub, const char *confpath, const char *kname, int quiet, tool_proc *p) {
  const fupermod_process_conf *pc;
  const char *kn = kname;
  char kbuf[256];
  int rc, rank;
  memset(p, 0, sizeof *p);
  p->index = -1;
  p->intra = MPI_COMM_NULL;
  rc = fupermod_conf_load(confpath, &p->conf);
  if ((rc = tool_agree(sub, rc, MPI_COMM_WORLD)) != FUPERMOD_SUCCESS) return rc;
  rc = tool_agree(sub, fupermod_conf_locate(&p->conf, MPI_COMM_WORLD, &p->index, &p->intra), MPI_COMM_WORLD);
  if (rc != FUPERMOD_SUCCESS) return rc;
  MPI_Comm_size(MPI_COMM_WORLD, &p->nmap);
  if (p->nmap < p->conf.count && !tool_allow_fewer) /* same on every rank: no agreement needed */
    return MPI_Comm_rank(MPI_COMM_WORLD, &rank), tool_fewer_error(sub, confpath, p->conf.count, p->nmap, rank);
  pc = &p->conf.procs[p->index];
  if (!kn) {
    int got = fupermod_subopt_get(pc->subopts, "kernel", kbuf, sizeof kbuf);
    if (got == 1) kn = kbuf;
    else if (got == 0)
      rc = fupermod_error(FUPERMOD_ERR_USAGE, "%s:%d: no kernel (give -k KERNEL or the sub-option kernel=NAME)", confpath,
                          pc->line);
    else rc = got;
  }
  if (rc == FUPERMOD_SUCCESS) {
    /* the line checked against what its kernel, executor and meter declare, before anything
     * starts: a misspelt key must not measure with the defaults */
    fupermod_kernel *decl[4] = {NULL};
    int nd = 0;
    if ((rc = fupermod_kernel_open(kn, &decl[nd])) == FUPERMOD_SUCCESS) nd++;
    for (int i = 0; rc == FUPERMOD_SUCCESS && tool_line_kernels[i] && nd < 4; i++) /* the line serves them too */
      if ((rc = fupermod_kernel_open(tool_line_kernels[i], &decl[nd])) == FUPERMOD_SUCCESS) nd++;
    if (rc == FUPERMOD_SUCCESS) rc = fupermod_kernel_check_subopts((const fupermod_kernel *const *)decl, nd, pc->subopts);
    for (int i = 0; i < nd; i++) fupermod_kernel_unload(decl[i]);
    if (rc == FUPERMOD_ERR_INPUT && kn == kbuf) rc = fupermod_error_prefix(rc, "%s:%d", confpath, pc->line);
  }
  if ((rc = tool_agree(sub, rc, MPI_COMM_WORLD)) != FUPERMOD_SUCCESS) return rc;
  rc = fupermod_bind_apply(pc->bind);
  if (rc != FUPERMOD_SUCCESS) rc = fupermod_error_prefix(rc, "%s:%d", confpath, pc->line);
  if ((rc = tool_agree(sub, rc, MPI_COMM_WORLD)) != FUPERMOD_SUCCESS) return rc;
  rc = fupermod_launch_map(&p->conf, p->index, MPI_COMM_WORLD, &p->map);
  if ((rc = tool_agree(sub, rc, MPI_COMM_WORLD)) != FUPERMOD_SUCCESS) return rc;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (!quiet && rank == 0) {
    fprintf(stderr, "fupermod %s: %d processes on %d host%s\n", sub, p->nmap, fupermod_launch_hosts(p->map, p->nmap),
            fupermod_launch_hosts(p->map, p->nmap) == 1 ? "" : "s");
#ifdef FUPERMOD_SMPI
    fprintf(stderr, "fupermod %s: SIMULATED: times are SimGrid's simulated clock (SMPI, docs/simulate.md)\n", sub);
#else
    if (fupermod_time_simulated())
      fprintf(stderr, "fupermod %s: SIMULATED: times are read from a simulated GPU's clock (FAKE_CUDA_SIM=%s, docs/kernels.md)\n",
              sub, getenv("FAKE_CUDA_SIM") ? getenv("FAKE_CUDA_SIM") : "?");
#endif
    for (int r = 0; r < p->nmap; r++) {
      const fupermod_process_conf *pc = tool_rank_conf(p, r);
      fprintf(stderr, "fupermod %s: rank %d on %s (%s.%d in the files), intra-node rank %d, line %d, bind %s, cpus %s\n",
              sub, r, p->map[r].host, pc->hostname, pc->rank_intra, p->map[r].rank_intra, p->map[r].line, p->map[r].bind,
              p->map[r].cpus);
    }
  }
  rc = fupermod_kernel_load(kn, pc->subopts, &p->kernel);
  /* a kernel rejecting its sub-options is a fault of the configuration line */
  if (rc == FUPERMOD_ERR_USAGE) rc = fupermod_error_prefix(FUPERMOD_ERR_INPUT, "%s:%d", confpath, pc->line);
  if ((rc = tool_agree(sub, rc, MPI_COMM_WORLD)) != FUPERMOD_SUCCESS) return rc;
  {
    /* a gpu line whose kernel computes through an executor runs it on the line's GPU; a kernel
     * without use_exec drives its device itself (dgemm-cuda) or is an emulation */
    int gpu = strcmp(pc->device_type, "gpu") == 0 && p->kernel->ops->api_version >= 2 && p->kernel->ops->use_exec, any;
    MPI_Allreduce(&gpu, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (any && (rc = tool_proc_exec(sub, confpath, p)) != FUPERMOD_SUCCESS) return rc;
    if (gpu) rc = fupermod_kernel_use_exec(p->kernel, p->exec);
    if ((rc = tool_agree(sub, rc, MPI_COMM_WORLD)) != FUPERMOD_SUCCESS) return rc;
  }
  return setup_energy(sub, pc, confpath, quiet, p);
}

/* one per process however many tool_procs it sets up (fupermod run's applications): a device is
 * opened once, and its handles, plans and buffers serve them all */
static fupermod_exec *proc_exec;

int tool_proc_exec(const char *sub, const char *confpath, tool_proc *p) {
  const fupermod_process_conf *pc = &p->conf.procs[p->index];
  char where[4200], host[MPI_MAX_PROCESSOR_NAME] = "";
  fupermod_exec_opts o;
  int rc = FUPERMOD_SUCCESS, len;
  if (!proc_exec) {
    MPI_Get_processor_name(host, &len);
    snprintf(where, sizeof where, "%s:%d", confpath, pc->line);
    if ((rc = fupermod_exec_opts_conf(&p->conf, p->index, where, &o)) == FUPERMOD_SUCCESS && (rc = fupermod_exec_open(&o, &proc_exec)) != FUPERMOD_SUCCESS)
      rc = fupermod_error_prefix(rc, "%s: a %s line on %s", where, pc->device_type, host);
  }
  p->exec = proc_exec;
  return tool_agree(sub, rc, MPI_COMM_WORLD);
}

void tool_exec_close(void) {
  fupermod_exec_close(proc_exec);
  proc_exec = NULL;
}

void tool_proc_free(tool_proc *p) {
  fupermod_kernel_unload(p->kernel);
  p->exec = NULL; /* the process's, closed by tool_exec_close */
  fupermod_meter_free(p->meter);
  fupermod_conf_free(&p->conf);
  free(p->map);
  p->map = NULL;
  if (p->intra != MPI_COMM_NULL) MPI_Comm_free(&p->intra);
  p->kernel = NULL;
  p->meter = NULL;
  p->intra = MPI_COMM_NULL;
}

int tool_pareto_pick(const fupermod_problem *prob, double tradeoff, fupermod_front *front, int *chosen) {
  const fupermod_partitioner *pa = fupermod_partitioner_find("hepopta");
  int rc;
  *chosen = -1;
  if (!pa || !pa->pareto) return fupermod_error(FUPERMOD_ERR_USAGE, "the hepopta partitioner is not registered");
  if ((rc = pa->pareto(prob, front)) != FUPERMOD_SUCCESS || front->count == 0) return rc;
  /* the front is ordered by time: least energy within the tradeoff of the fastest */
  for (int k = 0; k < front->count; k++)
    if (front->points[k].time <= front->points[0].time * (1.0 + tradeoff)) *chosen = k;
  return FUPERMOD_SUCCESS;
}

/* Who holds a lock file: what its holder wrote into it, on one line. */
static int lock_holder(int fd, char *buf, size_t size) {
  ssize_t n = pread(fd, buf, size - 1, 0);
  buf[n > 0 ? n : 0] = '\0';
  buf[strcspn(buf, "\n")] = '\0';
  if (buf[0]) return 1;
  snprintf(buf, size, "a job that has not said who it is yet");
  return 0;
}

static int lock_take(const char *sub, const char *dir, double wait, int *fd) {
  char path[4200], who[512], host[256] = "";
  double t0 = fupermod_time(), said = -1;
  snprintf(path, sizeof path, "%s/" TOOL_DIR_LOCK, dir);
  if ((*fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644)) < 0)
    return fupermod_error(FUPERMOD_ERR_SYSTEM, "%s: cannot open the lock: %s", path, strerror(errno));
  while (flock(*fd, LOCK_EX | LOCK_NB) != 0) {
    double el = fupermod_time() - t0;
    struct timespec tick = {0, 100000000};
    if (errno != EWOULDBLOCK && errno != EINTR) {
      close(*fd);
      *fd = -1;
      return fupermod_error(FUPERMOD_ERR_SYSTEM, "%s: cannot lock: %s", path, strerror(errno));
    }
    int named = lock_holder(*fd, who, sizeof who);
    if (el >= wait) {
      close(*fd);
      *fd = -1;
      return fupermod_error(FUPERMOD_ERR_INPUT, "%s is being written by another job (%s): gave up after %.0f s "
                            "(--lock-wait)", dir, who, wait);
    }
    /* the holder writes its name just after taking the lock: give it a second to */
    if ((said < 0 && (named || el >= 1)) || (said >= 0 && el - said >= 60)) {
      fprintf(stderr, "fupermod %s: %s is being written by another job (%s); waiting for it (%.0f of at most %.0f s)\n",
              sub, dir, who, el, wait);
      said = el;
    }
    nanosleep(&tick, NULL);
  }
  gethostname(host, sizeof host - 1);
  {
    char line[600];
    time_t now = time(NULL);
    struct tm tm;
    int n;
    gmtime_r(&now, &tm);
    n = snprintf(line, sizeof line, "fupermod %s on %s, pid %ld, since %04d-%02d-%02d %02d:%02d:%02d UTC\n", sub, host,
                 (long)getpid(), tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
    if (ftruncate(*fd, 0) != 0 || pwrite(*fd, line, (size_t)n, 0) != n) { /* the lock holds without it */ }
  }
  return FUPERMOD_SUCCESS;
}

/* SIGINT or SIGTERM (Ctrl-C, or mpirun passing it on) after a job took a lock: the handler may
 * only call async-signal-safe functions, so it finds the lock and its line ready here. The points
 * need nothing: each is appended whole and synced (fupermod_points_append). */
static volatile sig_atomic_t stop_fd = -1;
static char stop_head[64], stop_tail[4200];

static void on_stop(int sig) {
  char num[4] = {(char)('0' + sig / 10 % 10), (char)('0' + sig % 10), 0, 0};
  const char *n = sig >= 10 ? num : num + 1;
  if (stop_fd >= 0 && ftruncate(stop_fd, 0) != 0) { /* the lock goes with the process anyway */ }
  if (stop_head[0] && write(STDERR_FILENO, stop_head, strlen(stop_head)) > 0 &&
      write(STDERR_FILENO, n, strlen(n)) > 0 && write(STDERR_FILENO, stop_tail, strlen(stop_tail)) > 0) { }
  _exit(128 + sig);
}

/* Rank 0 says what was kept; the others end quietly. A signal ignored when the job started (nohup,
 * the background of a script) stays ignored. */
static void catch_stop(const char *sub, const char *dir, int rank) {
  static const int sigs[] = {SIGINT, SIGTERM};
  struct sigaction sa, old;
  if (rank == 0) {
    snprintf(stop_head, sizeof stop_head, "fupermod %s: interrupted by signal ", sub);
    snprintf(stop_tail, sizeof stop_tail, "; the points measured so far stay in their files (%s), and a rerun "
             "measures only the rest\n", dir);
  }
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_stop;
  sigemptyset(&sa.sa_mask);
  for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
    if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN) sigaction(sigs[i], &sa, NULL);
}

int tool_dir_lock(const char *sub, const char *dir, double wait, int *fd) {
  int rank, rc = FUPERMOD_SUCCESS;
  MPI_Request req;
  *fd = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  catch_stop(sub, dir, rank);
  if (rank == 0 && (rc = lock_take(sub, dir, wait, fd)) == FUPERMOD_SUCCESS) stop_fd = *fd;
  /* the others wait without spinning: a job that waits must not slow the one that measures */
  MPI_Ibcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD, &req);
  fupermod_mpi_wait_idle(&req, 10000000);
  return tool_agree(sub, rc, MPI_COMM_WORLD);
}

void tool_dir_unlock(int *fd) {
  if (*fd < 0) return;
  stop_fd = -1;
  if (ftruncate(*fd, 0) != 0) { /* who held it no longer matters */ }
  close(*fd);
  *fd = -1;
}

void tool_point_pack(const fupermod_point *p, double *row) {
  const double r[TOOL_POINT_ROW] = {(double)p->d, p->t, p->reps, p->ci, p->e, p->e_ci, p->flags, p->rejected};
  memcpy(row, r, sizeof r);
}

fupermod_point tool_point_unpack(const double *v) {
  return (fupermod_point){.d = (long)v[0], .t = v[1], .reps = (int)v[2], .ci = v[3], .e = v[4], .e_ci = v[5],
                          .flags = (int)v[6], .samples = -1, .rejected = (int)v[7]};
}

static int by_long(const void *a, const void *b) { return (*(const long *)a > *(const long *)b) - (*(const long *)a < *(const long *)b); }

/* One size of tool_share_sync, collective over share: a member lacking d takes the point of the
 * lowest-ranked member that has it. */
static int share_adopt(MPI_Comm share, fupermod_points *have, long d, const char *path) {
  int me, at = fupermod_points_find(have, d), src = INT_MAX, mine, rc = FUPERMOD_SUCCESS;
  double row[TOOL_POINT_ROW] = {0};
  MPI_Comm_rank(share, &me);
  mine = at >= 0 ? me : INT_MAX;
  MPI_Allreduce(&mine, &src, 1, MPI_INT, MPI_MIN, share);
  if (src == INT_MAX) return FUPERMOD_SUCCESS; /* nobody has it: they measure it together */
  if (me == src) tool_point_pack(&have->pts[at], row);
  MPI_Bcast(row, TOOL_POINT_ROW, MPI_DOUBLE, src, share);
  if (at < 0) {
    fupermod_point p = tool_point_unpack(row);
    if ((rc = fupermod_points_append(path, &p)) == FUPERMOD_SUCCESS) rc = fupermod_points_insert(have, &p);
  }
  return rc;
}

static int share_ok(MPI_Comm share, int ok) {
  int all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, share);
  return all;
}

int tool_share_sync(MPI_Comm share, fupermod_points *have, const char *path) {
  int n, size, total = 0, *counts, *displs, rc = FUPERMOD_SUCCESS, m = 0;
  long *mine, *all;
  if (share == MPI_COMM_NULL) return FUPERMOD_SUCCESS;
  MPI_Comm_size(share, &size);
  n = have->count;
  counts = malloc((size_t)size * sizeof *counts);
  displs = malloc((size_t)size * sizeof *displs);
  mine = malloc((size_t)(n ? n : 1) * sizeof *mine);
  all = NULL;
  /* the members agree on each allocation before the collectives that need it */
  if (share_ok(share, counts && displs && mine)) {
    for (int i = 0; i < n; i++) mine[i] = have->pts[i].d;
    MPI_Allgather(&n, 1, MPI_INT, counts, 1, MPI_INT, share);
    for (int r = 0; r < size; r++) displs[r] = total, total += counts[r];
    all = malloc((size_t)(total ? total : 1) * sizeof *all);
  }
  if (share_ok(share, all != NULL)) {
    MPI_Allgatherv(mine, n, MPI_LONG, all, counts, displs, MPI_LONG, share);
    qsort(all, (size_t)total, sizeof *all, by_long);
    for (int i = 0; i < total; i++)
      if (m == 0 || all[i] != all[m - 1]) all[m++] = all[i];
    /* the same sizes in the same order on every member: each a collective step */
    for (int i = 0; i < m; i++) {
      int r = share_adopt(share, have, all[i], path);
      if (rc == FUPERMOD_SUCCESS) rc = r;
    }
  } else
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  free(counts), free(displs), free(mine), free(all);
  return rc;
}
