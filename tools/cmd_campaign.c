/* fupermod campaign: run the cross product of a campaign file and keep every result (a killed run
 * resumes), summarise it against the even distribution, write OAR and Slurm batch scripts. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <gsl/gsl_cdf.h>
#include "partitioners/partitioners.h"
#include "tools/campaign.h"
#include "tools/provenance.h"
#include "tools/tools.h"

static const char *SUB = "campaign";

static void help(void) {
  printf("usage: fupermod campaign run [--retry-failed] [--new] [--timeout S] [--dry-run] [-q] FILE\n"
         "       fupermod campaign summary [-o DIR] [--baseline NAME] FILE|RESULTS.csv\n"
         "       fupermod campaign script --oar|--slurm [-o SCRIPT] FILE\n\n"
         "FILE is a campaign file (docs/campaigns.md): apps, sizes, partitioners, configs, repetitions and\n"
         "a command template. run executes the cross product, one command per experiment, and appends a\n"
         "row per experiment to the output CSV as soon as it is measured; a rerun skips the experiments\n"
         "already there, so a killed campaign resumes where it stopped.\n"
         "  --retry-failed   run again the experiments recorded as failed, timeout or noresult\n"
         "  --new            start a fresh output, the old one kept aside as OUTPUT-STEM.oldN.csv (needed when\n"
         "                   the command, result or np changed: results of two specs are never mixed)\n"
         "  --timeout S      stop an experiment after S seconds (default: the file's timeout, else none)\n"
         "  --dry-run        list the experiments, done or to do, with their commands; run nothing\n"
         "  -q               no progress lines\n"
         "summary prints, per app, size and configuration, each partitioner's mean time and energy and\n"
         "its speedup and energy saving against the even distribution (min, mean, max over repetitions),\n"
         "and writes DIR/summary.csv and gnuplot plots (default DIR: the output CSV's name + -summary).\n"
         "script writes an OAR or Slurm batch script that generates the process configuration on the\n"
         "reserved nodes and runs the campaign (stdout, or SCRIPT); it submits nothing.\n\n"
         "exit status: 0 done, 1 bad input or an experiment failed, 2 usage\n");
}

/* ------------------------------------------------------------------ run */

static volatile sig_atomic_t stop_signal;
static void on_signal(int s) { stop_signal = s; }

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void hms(char *buf, size_t size, double s) {
  long t = (long)(s + 0.5);
  snprintf(buf, size, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
}

enum { RUN_EXITED, RUN_SIGNALED, RUN_TIMEOUT, RUN_STOPPED };

/* Run cmd under /bin/sh in its own process group, output to log; kill the group on timeout or when
 * we are told to stop. *code: exit status, or 128 + signal. */
static int run_command(const char *cmd, const char *log, const char *id, double timeout, int *code, double *wall) {
  double t0 = now(), killed_at = 0;
  int st = 0, how = RUN_EXITED, hard = 0;
  pid_t pid;
  sigset_t chld, old;
  /* SIGCHLD blocked, so that sigtimedwait below wakes up as soon as the command ends */
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  sigprocmask(SIG_BLOCK, &chld, &old);
  fflush(NULL);
  pid = fork();
  if (pid < 0) {
    sigprocmask(SIG_SETMASK, &old, NULL);
    return fupermod_error(FUPERMOD_ERR_SYSTEM, "fork: %s", strerror(errno));
  }
  if (pid == 0) {
    int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644), in = open("/dev/null", O_RDONLY);
    sigprocmask(SIG_SETMASK, &old, NULL);
    setpgid(0, 0);
#ifdef __linux__
    prctl(PR_SET_PDEATHSIG, SIGTERM); /* the runner killed with -9 takes its experiment with it */
#endif
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    if (in >= 0) dup2(in, 0);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
      dprintf(fd, "# fupermod campaign, experiment %s\n# %s\n", id, cmd);
    }
    setenv("FUPERMOD_CAMPAIGN_ID", id, 1);
    setenv("FUPERMOD_MPIRUN", "mpirun", 0);
    execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
    _exit(127);
  }
  setpgid(pid, pid);
  for (;;) {
    pid_t w = waitpid(pid, &st, WNOHANG);
    double t = now();
    struct timespec nap = {0, 100000000};
    if (w == pid) break;
    if (w < 0 && errno != EINTR) {
      sigprocmask(SIG_SETMASK, &old, NULL);
      return fupermod_error(FUPERMOD_ERR_SYSTEM, "waitpid: %s", strerror(errno));
    }
    if (!killed_at && (stop_signal || (timeout > 0 && t - t0 > timeout))) {
      how = stop_signal ? RUN_STOPPED : RUN_TIMEOUT;
      kill(-pid, SIGTERM);
      kill(pid, SIGTERM);
      killed_at = t;
    }
    if (killed_at && !hard && t - killed_at > 5) { /* it ignored SIGTERM */
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
      hard = 1;
    }
    sigtimedwait(&chld, NULL, &nap); /* returns early on SIGCHLD or a stop signal */
  }
  sigprocmask(SIG_SETMASK, &old, NULL);
  *wall = now() - t0;
  if (WIFEXITED(st)) *code = WEXITSTATUS(st);
  else *code = 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
  if (how == RUN_EXITED && WIFSIGNALED(st)) how = RUN_SIGNALED;
  /* a batch system stops the whole job at once (scancel, the walltime): the experiment may die of
   * that signal before we act on ours, or even before ours arrives (so a failure waits up to 1 s
   * for it); it was interrupted, not failed, and runs again on restart */
  for (int i = 0; i < 10 && !stop_signal && how != RUN_TIMEOUT && !(WIFEXITED(st) && WEXITSTATUS(st) == 0); i++) {
    struct timespec tick = {0, 100000000};
    nanosleep(&tick, NULL); /* a stop signal cuts it short */
  }
  if (stop_signal && how != RUN_TIMEOUT && !(WIFEXITED(st) && WEXITSTATUS(st) == 0)) how = RUN_STOPPED;
  return how;
}

static int cmp_row_id(const void *a, const void *b) {
  return strcmp((*(camp_row *const *)a)->f[COL_ID], (*(camp_row *const *)b)->f[COL_ID]);
}

static camp_row *find_row(camp_row **index, int n, const char *id) {
  camp_row key, *kp = &key, **hit;
  key.f[COL_ID] = (char *)id;
  hit = bsearch(&kp, index, (size_t)n, sizeof *index, cmp_row_id);
  return hit ? *hit : NULL;
}

/* One row, one write, then fsync: a kill leaves the row whole or absent. */
static int append_line(int fd, const char *path, const char *line) {
  size_t len = strlen(line);
  ssize_t w = write(fd, line, len);
  if (w != (ssize_t)len)
    return fupermod_error(FUPERMOD_ERR_SYSTEM, "%s: write failed: %s", path, w < 0 ? strerror(errno) : "short write");
  if (fsync(fd) != 0) return fupermod_error(FUPERMOD_ERR_SYSTEM, "%s: fsync: %s", path, strerror(errno));
  return FUPERMOD_SUCCESS;
}

/* Drop the rows of the experiments to retry: keep them in OUTPUT.retried, rewrite OUTPUT without. */
static int drop_rows(const char *output, const camp_meta *meta, camp_row *rows, int nrows, const char *drop) {
  char path[4096], line[8192];
  fupermod_atomic_file af;
  int fd, rc;
  struct stat st;
  snprintf(path, sizeof path, "%s.retried", output);
  if ((fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644)) < 0)
    return fupermod_error(FUPERMOD_ERR_SYSTEM, "%s: %s", path, strerror(errno));
  rc = fstat(fd, &st) == 0 && st.st_size == 0 ? append_line(fd, path, camp_header()) : FUPERMOD_SUCCESS;
  for (int i = 0; rc == FUPERMOD_SUCCESS && i < nrows; i++)
    if (drop[i])
      rc = camp_row_line(line, sizeof line, &rows[i]) ? fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: row too long", output,
                                                                    rows[i].line)
                                                  : append_line(fd, path, line);
  close(fd);
  if (rc != FUPERMOD_SUCCESS) return rc;
  if ((rc = fupermod_atomic_open(&af, output)) != FUPERMOD_SUCCESS) return rc;
  /* the provenance notes stay: the rows that remain refer to them */
  for (int i = 0; i < meta->nnotes; i++) fprintf(af.fp, "# %s\n", meta->notes[i]);
  fputs(camp_header(), af.fp);
  for (int i = 0; i < nrows; i++)
    if (!drop[i]) {
      if (camp_row_line(line, sizeof line, &rows[i])) {
        fupermod_atomic_abort(&af);
        return fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: row too long", output, rows[i].line);
      }
      fputs(line, af.fp);
    }
  return fupermod_atomic_commit(&af);
}

static int conf_processes(const char *path, long *np) {
  fupermod_conf conf;
  int rc = fupermod_conf_load(path, &conf);
  if (rc != FUPERMOD_SUCCESS) return rc;
  *np = conf.count;
  fupermod_conf_free(&conf);
  return FUPERMOD_SUCCESS;
}

enum { GO_ON = -1 }; /* the command goes on; any other value is its exit status */

/* One `campaign run`: the campaign, its experiments and the rows its output already holds. */
typedef struct {
  double timeout;
  int retry, dry, quiet, fresh;
  campaign c;
  camp_meta meta;          /* the output's notes: its spec, the provenance of each session */
  char prov[16];           /* this session's provenance id, once written */
  char spec[65];
  camp_exp *ex;
  int nex;
  camp_row *rows, **index; /* index: the rows sorted by experiment id */
  int nrows;
  size_t good;             /* the output's length without a torn last line */
  char *done;              /* per experiment: its row is there and stays, so it does not run */
  char *drop;              /* per row: its experiment runs again (--retry-failed) */
  long *np;                /* per configuration: processes (0: unknown) */
  int ntodo, old_fail;     /* old_fail: rows that stay without an ok */
  int lockfd, outfd;
} run_job;

/* How an experiment ended. */
typedef struct {
  const char *status; /* ok, failed, timeout or noresult */
  int code;           /* exit status, or 128 + signal */
  double wall;        /* s */
  char *msg;          /* noresult: why */
  camp_result res;
} run_outcome;

static void run_job_free(run_job *j) {
  if (j->outfd >= 0) close(j->outfd);
  if (j->lockfd >= 0) close(j->lockfd);
  free(j->np);
  free(j->drop);
  free(j->done);
  free(j->index);
  camp_rows_free(j->rows, j->nrows);
  camp_meta_free(&j->meta);
  camp_experiments_free(j->ex, j->nex);
  camp_free(&j->c);
}

/* GO_ON, or the exit status: 0 after --help, a usage error's. */
static int run_options(int argc, char **argv, run_job *j) {
  static const struct option opts[] = {{"retry-failed", no_argument, NULL, 'r'}, {"timeout", required_argument, NULL, 't'},
                                       {"dry-run", no_argument, NULL, 'n'}, {"help", no_argument, NULL, 'h'}, {"new", no_argument, NULL, 'N'},
                                       {NULL, 0, NULL, 0}};
  int opt;
  optind = 0; /* a full reset of glibc's getopt: the parse may run more than once per process */
  while ((opt = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
    switch (opt) {
    case 'r': j->retry = 1; break;
    case 'n': j->dry = 1; break;
    case 'N': j->fresh = 1; break;
    case 'q': j->quiet = 1; break;
    case 't':
      if (fupermod_parse_double(optarg, &j->timeout) || j->timeout < 0)
        return tool_usage(SUB, "--timeout '%s' must be seconds >= 0 (0: none)", optarg);
      break;
    case 'h': help(); return 0;
    default: return tool_bad_option(SUB, argv, "qh", opts);
    }
  }
  if (optind != argc - 1) return tool_usage(SUB, optind < argc ? "give one campaign file" : "no campaign file given");
  return GO_ON;
}

/* One runner per output file: two would run the same experiments. */
static int lock_output(run_job *j) {
  char path[4096], *slash;
  int rc;
  snprintf(path, sizeof path, "%s", j->c.output);
  if ((slash = strrchr(path, '/')) && slash != path) {
    *slash = '\0';
    if ((rc = fupermod_mkdir_p(path)) != FUPERMOD_SUCCESS) return rc;
  }
  snprintf(path, sizeof path, "%s.lock", j->c.output);
  /* close-on-exec: an experiment's leftover process (a daemon, a stray background job) would hold the
   * lock after the runner ended, and the next runner would wait for a run that is gone */
  if ((j->lockfd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644)) < 0)
    return fupermod_error(FUPERMOD_ERR_SYSTEM, "%s: %s", path, strerror(errno));
  /* a run that a batch system just stopped may still be ending its experiment (up to 5 s of
   * SIGTERM grace) after the scheduler has released the job: wait for it a little */
  for (int i = 0; flock(j->lockfd, LOCK_EX | LOCK_NB) != 0; i++) {
    struct timespec tick = {0, 100000000};
    if (i == 150)
      return fupermod_error(FUPERMOD_ERR_INPUT, "%s: another 'fupermod campaign run' is writing it (lock %s)",
                            j->c.output, path);
    if (i == 0)
      fprintf(stderr, "fupermod campaign: %s is locked by another run; waiting up to 15 s for it to end\n", path);
    nanosleep(&tick, NULL);
  }
  return FUPERMOD_SUCCESS;
}

/* The rows the output holds. */
static int load_rows(run_job *j) {
  struct stat st;
  int rc = camp_rows_load(j->c.output, &j->rows, &j->nrows, &j->good, &j->meta);
  if (rc != FUPERMOD_SUCCESS || j->dry || stat(j->c.output, &st) != 0 || (size_t)st.st_size <= j->good) return rc;
  /* a row torn by a crash in the middle of its write: that experiment runs again */
  fprintf(stderr, "fupermod campaign: %s: dropping a torn last line (%ld bytes)\n", j->c.output,
          (long)((size_t)st.st_size - j->good));
  if (truncate(j->c.output, (off_t)j->good) != 0)
    return fupermod_error(FUPERMOD_ERR_SYSTEM, "%s: truncate: %s", j->c.output, strerror(errno));
  return FUPERMOD_SUCCESS;
}

/* The rows by experiment id, each id once. */
static int index_rows(run_job *j) {
  camp_row **index;
  j->index = index = malloc((size_t)(j->nrows + 1) * sizeof *index);
  j->done = calloc((size_t)j->nex + 1, 1);
  j->drop = calloc((size_t)j->nrows + 1, 1);
  j->np = calloc((size_t)j->c.configs.count, sizeof *j->np);
  if (!index || !j->done || !j->drop || !j->np) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  for (int i = 0; i < j->nrows; i++) index[i] = &j->rows[i];
  qsort(index, (size_t)j->nrows, sizeof *index, cmp_row_id);
  for (int i = 1; i < j->nrows; i++)
    if (strcmp(index[i - 1]->f[COL_ID], index[i]->f[COL_ID]) == 0)
      return fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: experiment %s is already on line %d; remove one of them",
                            j->c.output, index[i - 1]->line > index[i]->line ? index[i - 1]->line : index[i]->line,
                            index[i]->f[COL_ID],
                            index[i - 1]->line > index[i]->line ? index[i]->line : index[i - 1]->line);
  return FUPERMOD_SUCCESS;
}

/* The experiments whose row stays; with --retry-failed the others' rows move to OUTPUT.retried. */
static int mark_done(run_job *j) {
  int in_campaign = 0, ndrop = 0, rc;
  struct stat st;
  for (int i = 0; i < j->nex; i++) {
    camp_row *r = find_row(j->index, j->nrows, j->ex[i].id);
    if (!r) continue;
    in_campaign++;
    if (strcmp(r->f[COL_STATUS], "ok") == 0 || !j->retry) {
      j->done[i] = 1;
      j->old_fail += strcmp(r->f[COL_STATUS], "ok") != 0;
    } else {
      j->drop[r - j->rows] = 1;
      ndrop++;
    }
  }
  if (in_campaign < j->nrows && !j->quiet)
    fprintf(stderr, "fupermod campaign: %s: %d rows are of experiments no longer in %s; they stay\n", j->c.output,
            j->nrows - in_campaign, j->c.path);
  if (ndrop && !j->dry && (rc = drop_rows(j->c.output, &j->meta, j->rows, j->nrows, j->drop)) != FUPERMOD_SUCCESS)
    return rc;
  if (ndrop && !j->dry && (stat(j->c.output, &st) != 0 || (j->good = (size_t)st.st_size) == 0)) j->good = 0;
  for (int i = 0; i < j->nex; i++) j->ntodo += !j->done[i];
  return FUPERMOD_SUCCESS;
}

/* Processes per configuration: given, or the configuration's line count. */
static int count_processes(run_job *j) {
  const campaign *c = &j->c;
  int rc;
  for (int f = 0; f < c->configs.count; f++) {
    int needed = camp_uses(c->command, "np") || camp_uses(c->result, "np"), used = 0;
    for (int i = 0; i < j->nex; i++) used |= !j->done[i] && j->ex[i].conf == f;
    if (c->np_count) j->np[f] = c->np[c->np_count == 1 ? 0 : f];
    else if ((used || j->dry) && (rc = conf_processes(c->configs.items[f], &j->np[f])) != FUPERMOD_SUCCESS) {
      if (needed && !j->dry) {
        fupermod_error_prefix(rc, "%s:%d: np = auto counts the processes of ", c->path, camp_key_line(c, "configs"));
        return rc;
      }
      j->np[f] = 0;
    }
  }
  return FUPERMOD_SUCCESS;
}

/* --dry-run: every experiment, done or to do, with its command. */
static int list_experiments(const run_job *j) {
  int rc;
  for (int i = 0; i < j->nex; i++) {
    char dir[4096], nps[4200], *cmd = NULL;
    long np = j->np[j->ex[i].conf];
    snprintf(dir, sizeof dir, "%s/%s", j->c.rundir, j->ex[i].id);
    /* np = auto of a configuration that cannot be read yet (a batch job writes it): say so */
    if (np > 0) snprintf(nps, sizeof nps, "%ld", np);
    else snprintf(nps, sizeof nps, "<np: the processes of %s, not readable now>", j->c.configs.items[j->ex[i].conf]);
    if ((rc = camp_expand_np(&j->c, "command", &j->ex[i], nps, dir, &cmd)) != FUPERMOD_SUCCESS) return rc;
    printf("%s\t%s\t%s\n", j->ex[i].id, j->done[i] ? "done" : "todo", cmd);
    free(cmd);
  }
  fprintf(stderr, "fupermod campaign: %s: %d experiments, %d done, %d to run\n", j->c.path, j->nex, j->nex - j->ntodo,
          j->ntodo);
  return FUPERMOD_SUCCESS;
}

/* A new output's first lines: what its rows were measured with (the spec that later runs must
 * share), then the header; one write, so that a kill leaves all or nothing. */
static int write_head(run_job *j) {
  char cmd[8192], np[1024], hash[65], buf[20000];
  camp_spec(&j->c, cmd, sizeof cmd, np, sizeof np, hash);
  snprintf(buf, sizeof buf,
           "# fupermod campaign results of %s (%s); '#' lines are provenance (docs/campaigns.md)\n"
           "# spec: %s\n# command template: %s\n# result template: %s\n# np: %s\n%s",
           j->c.name, j->c.path, hash, cmd, j->c.result, np, camp_header());
  return append_line(j->outfd, j->c.output, buf);
}

/* This session's provenance block, before its first row: the platform, the software and the inputs
 * (campaign file, process configurations) by hash; every row it writes names it. */
static int write_session(run_job *j) {
  fupermod_provenance pv;
  char *text = NULL, hash[65], conf[65], prefix[64];
  size_t len = 0;
  FILE *fp = open_memstream(&text, &len);
  int rc;
  if (!fp) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  fupermod_provenance_collect(&pv);
  fupermod_provenance_write(fp, &pv, "");
  fprintf(fp, "campaign=%s sha256=%s\n", j->c.path, j->c.sha);
  for (int f = 0; f < j->c.configs.count; f++) {
    fupermod_conf cf;
    fprintf(fp, "config=%s", j->c.configs.items[f]);
    if (fupermod_sha256_file(j->c.configs.items[f], conf) == FUPERMOD_SUCCESS &&
        fupermod_conf_load(j->c.configs.items[f], &cf) == FUPERMOD_SUCCESS) {
      fprintf(fp, " sha256=%s hosts=", conf);
      for (int i = 0; i < cf.count; i++) {
        int seen = 0;
        for (int k = 0; k < i; k++) seen |= strcmp(cf.procs[k].hostname, cf.procs[i].hostname) == 0;
        if (!seen) fprintf(fp, "%s%s", i ? "+" : "", cf.procs[i].hostname);
      }
      fupermod_conf_free(&cf);
    } else {
      fupermod_error_clear();
      fprintf(fp, " (not readable when the campaign ran)");
    }
    fputc('\n', fp);
  }
  fclose(fp);
  fupermod_sha256_hex(text, len, hash);
  snprintf(j->prov, sizeof j->prov, "p%.8s", hash);
  {
    /* each line "# provenance ID: key=value"; the date line is the block's first */
    size_t cap = len * 2 + 64 * 32, n = 0;
    char *out = malloc(cap);
    if (!out) {
      free(text);
      return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
    }
    snprintf(prefix, sizeof prefix, "# provenance %s: ", j->prov);
    for (char *l = text, *nl; *l; l = nl + 1) {
      nl = strchr(l, '\n');
      *nl = '\0';
      n += (size_t)snprintf(out + n, cap - n, "%s%s\n", prefix, l);
    }
    rc = append_line(j->outfd, j->c.output, out);
    free(out);
  }
  free(text);
  return rc;
}

/* Results of another spec (command, result or np) are not mixed with this one's: the output says
 * which spec it was measured with; what changed is named. */
static int check_spec(run_job *j) {
  char cmd[8192], np[1024];
  const char *old, *oc, *orr, *onp;
  camp_spec(&j->c, cmd, sizeof cmd, np, sizeof np, j->spec);
  if (!j->meta.header) return FUPERMOD_SUCCESS;
  if (j->meta.legacy)
    return fupermod_error(FUPERMOD_ERR_INPUT, "%s: written by an older fupermod campaign, without the spec and the "
                          "provenance of its results; run with --new to start a fresh %s (the old one is kept aside), "
                          "or set output = ... in %s to a new file", j->c.output, j->c.output, j->c.path);
  old = camp_meta_get(&j->meta, "spec");
  if (old && strcmp(old, j->spec) == 0) return FUPERMOD_SUCCESS;
  oc = camp_meta_get(&j->meta, "command template");
  orr = camp_meta_get(&j->meta, "result template");
  onp = camp_meta_get(&j->meta, "np");
  {
    char what[20000];
    size_t n = 0;
    if (!oc || strcmp(oc, cmd))
      n += (size_t)snprintf(what + n, sizeof what - n, "; the command template changed (it was '%s', it is now '%s')",
                            oc ? oc : "?", cmd);
    if (n < sizeof what && (!orr || strcmp(orr, j->c.result)))
      n += (size_t)snprintf(what + n, sizeof what - n, "; the result template changed (it was '%s', it is now '%s')",
                            orr ? orr : "?", j->c.result);
    if (n < sizeof what && (!onp || strcmp(onp, np)))
      n += (size_t)snprintf(what + n, sizeof what - n, "; np changed (it was %s, it is now %s)", onp ? onp : "?", np);
    if (!n) snprintf(what, sizeof what, "; its spec line was edited");
    return fupermod_error(FUPERMOD_ERR_INPUT, "%s: its %d results were measured with another spec of %s%s. They are not "
                          "mixed with new ones: run with --new to start a fresh %s (the old one is kept aside), or set "
                          "output = ... in %s to a new file", j->c.output, j->nrows, j->c.path, what, j->c.output,
                          j->c.path);
  }
}

/* --new: the old output, and the failures retried from it, move aside to OUTPUT-STEM.oldN.csv. */
static int set_aside(run_job *j) {
  const char *out = j->c.output;
  size_t l = strlen(out);
  int stem = (int)(l > 4 && strcmp(out + l - 4, ".csv") == 0 ? l - 4 : l);
  char path[4200], retried[4200], aside[4300];
  struct stat st;
  if (stat(out, &st) != 0) return FUPERMOD_SUCCESS;
  for (int k = 1;; k++) {
    snprintf(path, sizeof path, "%.*s.old%d.csv", stem, out, k);
    if (stat(path, &st) != 0) break;
  }
  if (rename(out, path) != 0) return fupermod_error(FUPERMOD_ERR_SYSTEM, "%s: cannot move it to %s: %s", out, path, strerror(errno));
  snprintf(retried, sizeof retried, "%s.retried", out);
  snprintf(aside, sizeof aside, "%s.retried", path);
  if (stat(retried, &st) == 0 && rename(retried, aside) != 0)
    return fupermod_error(FUPERMOD_ERR_SYSTEM, "%s: cannot move it to %s: %s", retried, aside, strerror(errno));
  fprintf(stderr, "fupermod campaign: --new: the old results are now %s; %s starts afresh\n", path, out);
  return FUPERMOD_SUCCESS;
}

/* A command of `fupermod run` with --algorithm {partitioner}: every partitioner must be one it
 * knows, which is the registry's (checked here, before hours of failed experiments). */
static int check_partitioners(const campaign *c) {
  const fupermod_partitioner *const *all = fupermod_partitioners();
  if (!strstr(c->command, "fupermod run") || !camp_uses(c->command, "partitioner")) return FUPERMOD_SUCCESS;
  for (int i = 0; i < c->partitioners.count; i++) {
    char known[4096];
    size_t n = 0;
    if (fupermod_partitioner_find(c->partitioners.items[i])) continue;
    for (int k = 0; all[k]; k++) n += (size_t)snprintf(known + n, n < sizeof known ? sizeof known - n : 0, "%s%s",
                                                       k ? ", " : "", all[k]->name);
    return fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: partitioners: '%s' is not a partitioner that fupermod run knows "
                          "(the registry has: %s)", c->path, camp_key_line(c, "partitioners"), c->partitioners.items[i],
                          known);
  }
  return FUPERMOD_SUCCESS;
}

/* The output, opened for appending, with its header when it is new. */
static int open_output(run_job *j) {
  int rc;
  if ((j->outfd = open(j->c.output, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644)) < 0)
    return fupermod_error(FUPERMOD_ERR_SYSTEM, "%s: %s", j->c.output, strerror(errno));
  if (!j->meta.header && (rc = write_head(j)) != FUPERMOD_SUCCESS) return rc;
  if (!j->quiet)
    fprintf(stderr, "fupermod campaign: %s: %d experiments, %d done, %d to run; results in %s\n", j->c.path, j->nex,
            j->nex - j->ntodo, j->ntodo, j->c.output);
  return FUPERMOD_SUCCESS;
}

static void catch_stop_signals(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGHUP, &sa, NULL);
}

/* Experiment i's status from how it ended; a result file that is refused makes it noresult,
 * with the reason in its log. */
static void judge(const run_job *j, int i, int how, const char *result, const char *log, run_outcome *o) {
  memset(&o->res, 0, sizeof o->res);
  if (how == RUN_TIMEOUT) o->status = "timeout";
  else if (how == RUN_SIGNALED || o->code != 0) o->status = "failed";
  else if (camp_result_read(result, &j->c, &j->ex[i], &o->res) != FUPERMOD_SUCCESS) {
    o->status = "noresult";
    o->msg = strdup(fupermod_error_message());
    memset(&o->res, 0, sizeof o->res);
  } else o->status = "ok";
  if (o->msg) {
    FILE *lf = fopen(log, "a");
    if (lf) {
      fprintf(lf, "# fupermod campaign: no result: %s\n", o->msg);
      fclose(lf);
    }
  }
}

/* Where experiment i's energy comes from: the meter its result names, else ESTIMATE when its log
 * or its configuration says that the model meter (power x time) gave it; "" when unknown. */
static void energy_source(const run_job *j, int i, const run_outcome *o, const char *log, char *out, size_t size) {
  char *text = NULL, val[64];
  size_t len;
  fupermod_conf cf;
  out[0] = '\0';
  if (!o->res.energy[0]) return;
  if (o->res.meter[0]) {
    snprintf(out, size, "%s", strstr(o->res.meter, "ESTIMATE") || strcmp(o->res.meter, "model") == 0 ? "ESTIMATE"
                                                                                                      : o->res.meter);
    return;
  }
  /* fupermod run labels the model meter's energies "ESTIMATE" in its output, -q or not */
  if (fupermod_read_file(log, &text, &len) == FUPERMOD_SUCCESS && strstr(text, "ESTIMATE")) snprintf(out, size, "ESTIMATE");
  free(text);
  if (!out[0] && fupermod_conf_load(j->c.configs.items[j->ex[i].conf], &cf) == FUPERMOD_SUCCESS) {
    for (int k = 0; k < cf.count; k++)
      if (fupermod_subopt_get(cf.procs[k].subopts, "meter", val, sizeof val) == 1 && strcmp(val, "model") == 0)
        snprintf(out, size, "ESTIMATE");
    fupermod_conf_free(&cf);
  }
  fupermod_error_clear();
}

/* Experiment i's row, appended to the output in one write: a kill leaves it whole or absent. */
static int append_row(const run_job *j, int i, run_outcome *o, const char *cmd, const char *log) {
  char line[16384], wall[32], codes[16], finished[32], nps[32], reps[16], source[128];
  const campaign *c = &j->c;
  const camp_exp *e = &j->ex[i];
  time_t tnow;
  camp_row r;
  snprintf(wall, sizeof wall, "%.3f", o->wall);
  snprintf(codes, sizeof codes, "%d", o->code);
  snprintf(nps, sizeof nps, j->np[e->conf] > 0 ? "%ld" : "", j->np[e->conf]);
  snprintf(reps, sizeof reps, "%d", e->rep);
  tnow = time(NULL);
  strftime(finished, sizeof finished, "%Y-%m-%dT%H:%M:%SZ", gmtime(&tnow));
  energy_source(j, i, o, log, source, sizeof source);
  r = (camp_row){{e->id, c->apps.items[e->app], c->sizes.items[e->size], c->partitioners.items[e->part],
                  c->configs.items[e->conf], nps, reps, (char *)o->status, codes, wall, o->res.time, o->res.energy,
                  o->res.even_time, o->res.even_energy, finished, o->res.extra, source, o->res.shares,
                  (char *)j->prov, (char *)cmd},
                 0};
  if (camp_row_line(line, sizeof line, &r))
    return fupermod_error(FUPERMOD_ERR_INPUT, "%s: the row of %s is too long", c->output, e->id);
  return append_line(j->outfd, c->output, line);
}

/* Progress before experiment i, the k-th to run; after it, its outcome (failures even with -q). */
static void print_start(const run_job *j, int i, int k, double t_start) {
  char elapsed[32], left[32];
  double el = now() - t_start;
  hms(elapsed, sizeof elapsed, el);
  if (k > 1) hms(left, sizeof left, el / (k - 1) * (j->ntodo - k + 1));
  fprintf(stderr, "fupermod campaign: [%d/%d] %s (elapsed %s%s%s)\n", k, j->ntodo, j->ex[i].id, elapsed,
          k > 1 ? ", about " : "", k > 1 ? left : "");
}

static void print_outcome(const run_job *j, int i, int k, const run_outcome *o, const char *log) {
  if (strcmp(o->status, "ok") == 0) {
    if (!j->quiet)
      fprintf(stderr, "fupermod campaign: [%d/%d] %s: ok in %.1f s, time %s s\n", k, j->ntodo, j->ex[i].id, o->wall,
              o->res.time);
  } else if (o->msg)
    fprintf(stderr, "fupermod campaign: [%d/%d] %s: noresult: %s\n", k, j->ntodo, j->ex[i].id, o->msg);
  else
    fprintf(stderr, "fupermod campaign: [%d/%d] %s: %s (exit %d) after %.1f s; see %s\n", k, j->ntodo, j->ex[i].id,
            o->status, o->code, o->wall, log);
}

/* Run experiment i, the k-th to run, and record its row. *ok: 1 ok, 0 not, -1 stopped by a signal
 * (not recorded: it runs again on restart). */
static int run_experiment(const run_job *j, int i, int k, double t_start, int *ok) {
  char dir[4096], log[4200], models[4096], *cmd = NULL, *result = NULL;
  const camp_exp *e = &j->ex[i];
  run_outcome o;
  int how, rc;
  memset(&o, 0, sizeof o);
  snprintf(dir, sizeof dir, "%s/%s", j->c.rundir, e->id);
  snprintf(log, sizeof log, "%s/log", dir);
  camp_models_dir(&j->c, e, models, sizeof models);
  if ((rc = fupermod_mkdir_p(dir)) != FUPERMOD_SUCCESS ||
      (camp_uses(j->c.command, "models") && (rc = fupermod_mkdir_p(models)) != FUPERMOD_SUCCESS) ||
      (rc = camp_expand(&j->c, "command", e, j->np[e->conf], dir, &cmd)) != FUPERMOD_SUCCESS ||
      (rc = camp_expand(&j->c, "result", e, j->np[e->conf], dir, &result)) != FUPERMOD_SUCCESS) {
    free(cmd);
    return rc;
  }
  if (unlink(result) != 0 && errno != ENOENT) { /* a stale result must not pass for this run's */
    rc = fupermod_error(FUPERMOD_ERR_SYSTEM, "%s: cannot remove the old result: %s", result, strerror(errno));
    free(cmd);
    free(result);
    return rc;
  }
  if (!j->quiet) print_start(j, i, k, t_start);
  how = run_command(cmd, log, e->id, j->timeout, &o.code, &o.wall);
  *ok = -1;
  if (how < 0 || how == RUN_STOPPED) {
    free(cmd);
    free(result);
    return how < 0 ? how : FUPERMOD_SUCCESS;
  }
  judge(j, i, how, result, log, &o);
  free(result);
  rc = append_row(j, i, &o, cmd, log);
  free(cmd);
  if (rc == FUPERMOD_SUCCESS) {
    *ok = strcmp(o.status, "ok") == 0;
    print_outcome(j, i, k, &o, log);
  }
  free(o.msg);
  return rc;
}

/* The experiments to run, until a stop signal; their count ok and not. */
static int run_all(run_job *j, int *nok, int *nfail) {
  double t_start = now();
  int k = 0, ok, rc;
  for (int i = 0; i < j->nex && !stop_signal; i++) {
    if (j->done[i]) continue;
    if (!j->prov[0] && (rc = write_session(j)) != FUPERMOD_SUCCESS) return rc;
    k++;
    if ((rc = run_experiment(j, i, k, t_start, &ok)) != FUPERMOD_SUCCESS) return rc;
    if (ok < 0) break;
    if (ok) (*nok)++;
    else (*nfail)++;
  }
  return FUPERMOD_SUCCESS;
}

/* The last word of a run, and its exit status. */
static int run_status(const run_job *j, int nok, int nfail) {
  if (stop_signal) {
    fprintf(stderr, "fupermod campaign: interrupted (signal %d); %d experiments recorded in %s; run the same command "
                    "to go on\n", (int)stop_signal, nok + nfail, j->c.output);
    return 128 + (int)stop_signal;
  }
  if (nfail + j->old_fail) {
    fprintf(stderr, "fupermod campaign: %d of %d experiments did not succeed (see %s and their logs in %s); "
                    "--retry-failed runs them again\n", nfail + j->old_fail, j->nex, j->c.output, j->c.rundir);
    return 1;
  }
  if (!j->quiet) fprintf(stderr, "fupermod campaign: all %d experiments done; results in %s\n", j->nex, j->c.output);
  return 0;
}

static int campaign_run(int argc, char **argv) {
  run_job j;
  int rc, status, nok = 0, nfail = 0;
  memset(&j, 0, sizeof j);
  j.timeout = -1;
  j.lockfd = j.outfd = -1;
  if ((status = run_options(argc, argv, &j)) != GO_ON) return status;
  status = 0;
  if ((rc = camp_load(argv[optind], &j.c)) != FUPERMOD_SUCCESS) goto fail;
  if (j.timeout < 0) j.timeout = j.c.timeout;
  if ((rc = camp_experiments(&j.c, &j.ex, &j.nex)) != FUPERMOD_SUCCESS || (rc = check_partitioners(&j.c)) != FUPERMOD_SUCCESS)
    goto fail;
  if (!j.dry && (rc = lock_output(&j)) != FUPERMOD_SUCCESS) goto fail;
  if (j.fresh && !j.dry && (rc = set_aside(&j)) != FUPERMOD_SUCCESS) goto fail;
  if ((rc = load_rows(&j)) != FUPERMOD_SUCCESS || (!j.fresh && (rc = check_spec(&j)) != FUPERMOD_SUCCESS) ||
      (rc = index_rows(&j)) != FUPERMOD_SUCCESS ||
      (rc = mark_done(&j)) != FUPERMOD_SUCCESS || (rc = count_processes(&j)) != FUPERMOD_SUCCESS)
    goto fail;
  if (j.dry) {
    if ((rc = list_experiments(&j)) != FUPERMOD_SUCCESS) goto fail;
    goto out;
  }
  if ((rc = open_output(&j)) != FUPERMOD_SUCCESS) goto fail;
  catch_stop_signals();
  if ((rc = run_all(&j, &nok, &nfail)) != FUPERMOD_SUCCESS) goto fail;
  status = run_status(&j, nok, nfail);
  goto out;
fail:
  status = tool_fail(SUB, rc);
out:
  run_job_free(&j);
  return status;
}

/* ------------------------------------------------------------------ summary */

typedef struct {
  double min, mean, max, m2; /* m2: the sum of squared deviations (Welford), for the variance */
  int n;
} stat3;

static void stat_add(stat3 *s, double x) {
  double d;
  if (!isfinite(x)) return;
  if (!s->n || x < s->min) s->min = x;
  if (!s->n || x > s->max) s->max = x;
  d = x - s->mean;
  s->mean += d / ++s->n;
  s->m2 += d * (x - s->mean);
}

static double stat_mean(const stat3 *s) { return s->n ? s->mean : NAN; }
static double stat_var(const stat3 *s) { return s->n > 1 ? s->m2 / (s->n - 1) : NAN; }

/* Half-width of the Student-t 95 % interval of the mean; NaN under 2 values. */
static double stat_ci95(const stat3 *s) {
  return s->n > 1 ? gsl_cdf_tdist_Pinv(0.975, s->n - 1) * sqrt(stat_var(s) / s->n) : NAN;
}

/* Welch's t-test of equal means: the two-sided p-value; NaN when either has fewer than 2 values.
 * Equal samples without spread give 1 (same), distinct ones 0. */
static double welch_p(const stat3 *a, const stat3 *b) {
  double va, vb, se2, t, df;
  if (a->n < 2 || b->n < 2) return NAN;
  va = stat_var(a) / a->n;
  vb = stat_var(b) / b->n;
  se2 = va + vb;
  if (se2 <= 0) return a->mean == b->mean ? 1.0 : 0.0;
  t = (a->mean - b->mean) / sqrt(se2);
  df = se2 * se2 / ((va * va) / (a->n - 1) + (vb * vb) / (b->n - 1));
  return 2 * gsl_cdf_tdist_Q(fabs(t), df);
}

typedef struct {
  int ok, failed;
  stat3 time, energy, speedup, saving;
  const char *shares; /* the distribution of its runs, NULL when unknown, "" when the runs differ */
  int same_as;        /* the earlier partitioner with the same distribution, -1 */
  int estimate;       /* energies of the model meter (power x time), not measured */
  const char *meter;  /* the energy's source when one is named, else NULL */
} cell;

/* Index of s in the list of distinct strings, added when new. */
static int intern(char ***list, int *n, const char *s) {
  char **l;
  for (int i = 0; i < *n; i++)
    if (strcmp((*list)[i], s) == 0) return i;
  if (!(l = realloc(*list, (size_t)(*n + 1) * sizeof *l))) return -1;
  *list = l;
  l[*n] = (char *)s;
  return (*n)++;
}

static double field_number(const char *s) {
  double x;
  return s && *s && fupermod_parse_double(s, &x) == 0 ? x : NAN;
}

static void put_num(FILE *fp, double x, const char *fmt) {
  if (isfinite(x)) fprintf(fp, fmt, x);
}

static void print_val(double x, const char *fmt, int width, int percent) {
  if (isfinite(x)) printf(fmt, width, percent ? 100 * x : x);
  else printf("%*s", width + percent, "-");
}

static const char *base_name(const char *path) {
  const char *s = strrchr(path, '/');
  return s ? s + 1 : path;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int cmp_long(const void *a, const void *b) {
  long x = *(const long *)a, y = *(const long *)b;
  return (x > y) - (x < y);
}

/* The summary's tables: a cell per app, size, configuration and partitioner. */
typedef struct {
  const char *baseline, *csv;
  camp_row *rows;
  int nrows, nok;
  char **apps, **confs, **parts; /* the dimensions' values, in the order the runner wrote them */
  int na, nc, np;
  long *sizes;                   /* ascending */
  int ns;
  cell *cells;
  stat3 *refs; /* per app, size, config: even_time, then even_energy, of the results */
  camp_meta meta;
  int estimate;  /* some energies are ESTIMATEs */
  int left_out;  /* rows of experiments no longer in the campaign */
} summary;

static void summary_free(summary *sm) {
  void *blocks[] = {sm->cells, sm->refs, sm->sizes, sm->apps, sm->confs, sm->parts};
  for (size_t i = 0; i < sizeof blocks / sizeof *blocks; i++) free(blocks[i]);
  camp_rows_free(sm->rows, sm->nrows);
  camp_meta_free(&sm->meta);
}

static cell *cell_at(const summary *sm, int a, int s, int f, int p) {
  return &sm->cells[(((size_t)a * sm->ns + s) * sm->nc + f) * sm->np + p];
}

static stat3 *ref_at(const summary *sm, int a, int s, int f) {
  return &sm->refs[(((size_t)a * sm->ns + s) * sm->nc + f) * 2];
}

/* GO_ON, or the exit status: 0 after --help, a usage error's. */
static int summary_options(int argc, char **argv, const char **baseline, const char **outdir) {
  static const struct option opts[] = {{"baseline", required_argument, NULL, 'b'}, {"help", no_argument, NULL, 'h'},
                                       {NULL, 0, NULL, 0}};
  int opt;
  optind = 0; /* a full reset of glibc's getopt: the parse may run more than once per process */
  while ((opt = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
    switch (opt) {
    case 'o': *outdir = optarg; break;
    case 'b': *baseline = optarg; break;
    case 'h': help(); return 0;
    default: return tool_bad_option(SUB, argv, "o:h", opts);
    }
  }
  if (optind != argc - 1) return tool_usage(SUB, "give one campaign file or result CSV");
  return GO_ON;
}

/* *csv: a result CSV, or a campaign file, loaded into c, whose output is read instead. */
static int summary_input(campaign *c, const char **csv, int *have_campaign) {
  int rc;
  if (strlen(*csv) < 4 || strcmp(*csv + strlen(*csv) - 4, ".csv") != 0) {
    if ((rc = camp_load(*csv, c)) != FUPERMOD_SUCCESS) return rc;
    *have_campaign = 1;
    *csv = c->output;
  } else if (access(*csv, R_OK) != 0) {
    return fupermod_error(FUPERMOD_ERR_INPUT, "%s: %s", *csv, strerror(errno));
  }
  return FUPERMOD_SUCCESS;
}

/* A row's app, partitioner and configuration go into file names and the gnuplot script. */
static int check_names(const char *csv, const camp_row *r) {
  static const char names[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.+-";
  for (int k = COL_APP; k <= COL_CONFIG; k++) {
    const char *v = r->f[k], *extra = k == COL_CONFIG ? "/@%=:" : "";
    size_t n = 0;
    while (v[n] && (strchr(names, v[n]) || strchr(extra, v[n]))) n++;
    if (k != COL_SIZE && (!*v || v[n]))
      return fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: %s '%s' is empty or has a character outside A-Z a-z 0-9 _ . + -%s",
                            csv, r->line, k == COL_APP ? "app" : k == COL_PART ? "partitioner" : "config", v,
                            k == COL_CONFIG ? " / @ % = :" : "");
  }
  return FUPERMOD_SUCCESS;
}

/* The dimensions, in the order the runner wrote them (sizes ascending); the campaign's
 * partitioners first, when there is one. */
static int collect_dims(summary *sm, const campaign *c, int have_campaign) {
  int rc;
  if (have_campaign)
    for (int i = 0; i < c->partitioners.count; i++) intern(&sm->parts, &sm->np, c->partitioners.items[i]);
  if (!(sm->sizes = malloc((size_t)sm->nrows * sizeof *sm->sizes)))
    return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  for (int i = 0; i < sm->nrows; i++) {
    const camp_row *r = &sm->rows[i];
    long s;
    int known = 0;
    if (fupermod_parse_long(r->f[COL_SIZE], &s) || s < 1)
      return fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: size '%s' must be a positive integer", sm->csv, r->line,
                            r->f[COL_SIZE]);
    if ((rc = check_names(sm->csv, r)) != FUPERMOD_SUCCESS) return rc;
    for (int j = 0; j < sm->ns; j++) known |= sm->sizes[j] == s;
    if (!known) sm->sizes[sm->ns++] = s;
    if (intern(&sm->apps, &sm->na, r->f[COL_APP]) < 0 || intern(&sm->confs, &sm->nc, r->f[COL_CONFIG]) < 0 ||
        intern(&sm->parts, &sm->np, r->f[COL_PART]) < 0)
      return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  }
  qsort(sm->sizes, (size_t)sm->ns, sizeof *sm->sizes, cmp_long);
  return FUPERMOD_SUCCESS;
}

/* Row r into its cell: pass 0, its time and energy and the even runs it brought along; pass 1,
 * its speedup and energy saving against the baseline. */
static void add_row(summary *sm, const camp_row *r, int pass) {
  int a = intern(&sm->apps, &sm->na, r->f[COL_APP]), f = intern(&sm->confs, &sm->nc, r->f[COL_CONFIG]);
  int p = intern(&sm->parts, &sm->np, r->f[COL_PART]), s = 0, b = -1;
  long sz = 0;
  double t = field_number(r->f[COL_TIME]), e = field_number(r->f[COL_ENERGY]);
  double et = field_number(r->f[COL_EVEN_TIME]), ee = field_number(r->f[COL_EVEN_ENERGY]);
  cell *x;
  fupermod_parse_long(r->f[COL_SIZE], &sz);
  while (sm->sizes[s] != sz) s++;
  x = cell_at(sm, a, s, f, p);
  if (strcmp(r->f[COL_STATUS], "ok") != 0 || !isfinite(t)) {
    if (pass == 0) x->failed++;
    return;
  }
  if (pass == 0) {
    const char *sh = r->f[COL_SHARES];
    x->ok++;
    sm->nok++;
    /* one distribution when every run gave the same shares */
    if (x->ok == 1) x->shares = *sh ? sh : NULL;
    else if (x->shares && strcmp(x->shares, sh) != 0) x->shares = "";
    if (*r->f[COL_ENERGY_SOURCE] && isfinite(e)) {
      if (strstr(r->f[COL_ENERGY_SOURCE], "ESTIMATE")) x->estimate = sm->estimate = 1;
      else x->meter = r->f[COL_ENERGY_SOURCE];
    }
    stat_add(&x->time, t);
    stat_add(&x->energy, e);
    stat_add(ref_at(sm, a, s, f), et);
    stat_add(ref_at(sm, a, s, f) + 1, ee);
    return;
  }
  /* the row's own even run, else the campaign's runs of the baseline partitioner */
  for (int q = 0; q < sm->np; q++)
    if (strcmp(sm->parts[q], sm->baseline) == 0) b = q;
  if (!isfinite(et) && b >= 0) et = stat_mean(&cell_at(sm, a, s, f, b)->time);
  if (!isfinite(ee) && b >= 0) ee = stat_mean(&cell_at(sm, a, s, f, b)->energy);
  stat_add(&x->speedup, et / t);
  if (isfinite(e) && ee > 0) stat_add(&x->saving, 1.0 - e / ee);
}

static int fill_cells(summary *sm) {
  sm->cells = calloc((size_t)sm->na * sm->ns * sm->nc * sm->np, sizeof *sm->cells);
  sm->refs = calloc((size_t)sm->na * sm->ns * sm->nc * 2, sizeof *sm->refs);
  if (!sm->cells || !sm->refs) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i < sm->nrows; i++) add_row(sm, &sm->rows[i], pass);
  /* partitioners that gave the same distribution ran the same experiment: one figure, not two */
  for (size_t k = 0; k < (size_t)sm->na * sm->ns * sm->nc; k++)
    for (int p = 0; p < sm->np; p++) {
      cell *x = &sm->cells[k * sm->np + p];
      x->same_as = -1;
      for (int q = 0; q < p && x->same_as < 0 && x->shares && *x->shares; q++)
        if (sm->cells[k * sm->np + q].same_as < 0 && sm->cells[k * sm->np + q].shares &&
            strcmp(sm->cells[k * sm->np + q].shares, x->shares) == 0)
          x->same_as = q;
    }
  return FUPERMOD_SUCCESS;
}

/* Rows of experiments that the campaign no longer has (a partitioner or size removed) stay in the
 * output but not in the tables. */
static int drop_foreign(summary *sm, const campaign *c) {
  camp_exp *ex;
  char **ids;
  int nex, rc, kept = 0;
  if ((rc = camp_experiments(c, &ex, &nex)) != FUPERMOD_SUCCESS) return rc;
  if (!(ids = malloc((size_t)(nex + 1) * sizeof *ids))) {
    camp_experiments_free(ex, nex);
    return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  }
  for (int i = 0; i < nex; i++) ids[i] = ex[i].id;
  qsort(ids, (size_t)nex, sizeof *ids, cmp_str);
  for (int i = 0; i < sm->nrows; i++) {
    char *id = sm->rows[i].f[COL_ID];
    if (bsearch(&id, ids, (size_t)nex, sizeof *ids, cmp_str)) sm->rows[kept++] = sm->rows[i];
    else free(sm->rows[i].f[0]);
  }
  sm->left_out = sm->nrows - kept;
  sm->nrows = kept;
  free(ids);
  camp_experiments_free(ex, nex);
  return FUPERMOD_SUCCESS;
}

/* The compact provenance of session id (its "provenance ID: key=value" notes), for a table's or a
 * plot's head; "" when the output has no such block. */
static void prov_text(const summary *sm, const char *id, char *buf, size_t size, int brief) {
  char key[64];
  size_t n = 0;
  snprintf(key, sizeof key, "provenance %s", id);
  buf[0] = '\0';
  for (int i = 0; i < sm->meta.nnotes && n + 1 < size; i++) {
    const char *v = sm->meta.notes[i];
    if (strncmp(v, key, strlen(key)) != 0 || v[strlen(key)] != ':') continue;
    v = tool_trim((char *)v + strlen(key) + 1);
    /* a plot's caption keeps what identifies the run: when, which build, where */
    if (brief && strncmp(v, "date=", 5) && strncmp(v, "fupermod=", 9) && strncmp(v, "commit=", 7) &&
        strncmp(v, "host=", 5) && strncmp(v, "cpu=", 4) && strncmp(v, "gpu=", 4))
      continue;
    n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? "; " : "", v);
  }
}

/* The sessions of the rows of app a, size s (-1: all), configuration f (-1: all), each once. */
static int table_sessions(const summary *sm, int a, int s, int f, const char **ids, int max) {
  int n = 0;
  for (int i = 0; i < sm->nrows; i++) {
    const camp_row *r = &sm->rows[i];
    const char *id = *r->f[COL_PROV] ? r->f[COL_PROV] : "none";
    long sz = 0;
    int seen = 0;
    fupermod_parse_long(r->f[COL_SIZE], &sz);
    if ((a >= 0 && strcmp(r->f[COL_APP], sm->apps[a])) || (s >= 0 && sz != sm->sizes[s]) ||
        (f >= 0 && strcmp(r->f[COL_CONFIG], sm->confs[f])))
      continue;
    for (int k = 0; k < n; k++) seen |= strcmp(ids[k], id) == 0;
    if (!seen && n < max) ids[n++] = id;
  }
  return n;
}

/* The provenance block of a table or a CSV: the spec, then each session, lines starting with lead. */
static void print_provenance(FILE *fp, const summary *sm, int a, int s, int f, const char *lead) {
  const char *ids[64], *spec = camp_meta_get(&sm->meta, "spec"), *cmd = camp_meta_get(&sm->meta, "command template");
  char text[8192];
  int n = table_sessions(sm, a, s, f, ids, 64);
  if (spec) fprintf(fp, "%sspec %.12s: command %s\n", lead, spec, cmd ? cmd : "?");
  for (int k = 0; k < n; k++) {
    prov_text(sm, ids[k], text, sizeof text, 0);
    fprintf(fp, "%s%s: %s\n", lead, ids[k], *text ? text : "no provenance (results of a fupermod before it)");
  }
}

/* The energy's label: ESTIMATE (the model meter: power x time), else the meter named, else J. */
static const char *energy_label(int estimate, const char *meter, char *buf, size_t size) {
  if (estimate) snprintf(buf, size, "ESTIMATE");
  else if (meter) snprintf(buf, size, "%s", meter);
  else buf[0] = '\0';
  return buf;
}

/* A distribution as percentages: "57/21/21". */
static void shares_text(const char *shares, char *buf, size_t size) {
  size_t n = 0;
  buf[0] = '\0';
  if (!shares) {
    snprintf(buf, size, "-");
    return;
  }
  if (!*shares) {
    snprintf(buf, size, "varies");
    return;
  }
  for (const char *p = shares; *p && n + 8 < size;) {
    char *end;
    double x = strtod(p, &end);
    n += (size_t)snprintf(buf + n, size - n, "%s%.0f", n ? "/" : "", 100 * x);
    p = *end == ';' ? end + 1 : end + strlen(end);
  }
}

/* A partitioner's line of a table: mean time (with its 95 % interval) and energy; speedup (min,
 * mean with its interval, max) and saving; its distribution. */
static void print_cell(const summary *sm, const char *part, const cell *x, int ewidth) {
  const double v[10] = {stat_mean(&x->time), stat_ci95(&x->time), stat_mean(&x->energy),
                        x->speedup.n ? x->speedup.min : NAN, stat_mean(&x->speedup), stat_ci95(&x->speedup),
                        x->speedup.n ? x->speedup.max : NAN, x->saving.n ? x->saving.min : NAN, stat_mean(&x->saving),
                        x->saving.n ? x->saving.max : NAN};
  static const char *const sep[10] = {"", " ±", " ", " | ", " ", " ±", " ", " | ", " ", " "};
  const int width[10] = {11, 9, ewidth, 7, 7, 6, 7, 5, 6, 6};
  char dist[256];
  printf("  %-16s %4d %4d ", part, x->ok, x->failed);
  for (int m = 0; m < 10; m++) {
    fputs(sep[m], stdout);
    if (m == 3 && x->same_as >= 0) { /* the same experiment twice: its figures are the other's */
      printf("same distribution as %s\n", sm->parts[x->same_as]);
      return;
    }
    if (m == 1 || m == 5) {
      if (isfinite(v[m])) printf(m == 1 ? "%-*.2g" : "%-*.3f", width[m], v[m]);
      else printf("%-*s", width[m], "-");
    } else
      print_val(v[m], m < 3 ? "%*.4g" : m < 7 ? "%*.3f" : "%*.1f%%", width[m], m >= 7);
  }
  shares_text(x->shares, dist, sizeof dist);
  printf(" | %s\n", dist);
}

/* Welch's t-test on the times of every two partitioners of the table, at 5 %: one line. */
static void print_verdicts(const summary *sm, int a, int s, int f) {
  int n = 0;
  printf("  time, Welch's t-test at 5 %%:");
  for (int p = 0; p < sm->np; p++)
    for (int q = p + 1; q < sm->np; q++) {
      const cell *x = cell_at(sm, a, s, f, p), *y = cell_at(sm, a, s, f, q);
      double pv;
      if (!x->ok || !y->ok) continue;
      n++;
      if (y->same_as == p) {
        printf("%s %s = %s (same distribution)", n > 1 ? ";" : "", sm->parts[q], sm->parts[p]);
        continue;
      }
      if (x->same_as >= 0 || y->same_as >= 0) {
        n--;
        continue;
      }
      pv = welch_p(&x->time, &y->time);
      if (!isfinite(pv))
        printf("%s %s ? %s (fewer than 2 runs)", n > 1 ? ";" : "", sm->parts[p], sm->parts[q]);
      else if (pv >= 0.05)
        printf("%s %s ~ %s (p = %.2g, no significant difference)", n > 1 ? ";" : "", sm->parts[p], sm->parts[q], pv);
      else
        printf("%s %s %s %s (p = %.2g)", n > 1 ? ";" : "", sm->parts[p],
               x->time.mean < y->time.mean ? "faster than" : "slower than", sm->parts[q], pv);
    }
  printf("%s\n", n ? "" : " nothing to compare");
}

/* The table of app a, size s, configuration f, when it has results. */
static void print_table(const summary *sm, int a, int s, int f) {
  /* the even runs each result brought along (fupermod run measures them itself) */
  const stat3 *rt = ref_at(sm, a, s, f);
  char label[64], elab[160], ebuf[128];
  int any = 0, estimate = 0;
  const char *meter = NULL;
  for (int p = 0; p < sm->np; p++) {
    const cell *x = cell_at(sm, a, s, f, p);
    any |= x->ok + x->failed > 0;
    estimate |= x->estimate;
    if (x->meter) meter = x->meter;
  }
  if (!any) return;
  printf("\n%s, size %ld%s%s\n", sm->apps[a], sm->sizes[s], sm->nc > 1 ? ", config " : "",
         sm->nc > 1 ? sm->confs[f] : "");
  print_provenance(stdout, sm, a, s, f, "  # ");
  energy_label(estimate, meter, ebuf, sizeof ebuf);
  snprintf(elab, sizeof elab, "energy (J%s%s)", *ebuf ? ", " : "", ebuf);
  int ew = strlen(elab) > 11 ? (int)strlen(elab) : 11;
  printf("  %-16s %4s %4s %-22s %*s | %-31s | %-20s | %s\n", "", "", "", "     time (s)", ew, "mean", "speedup",
         "energy saving", "distribution");
  printf("  %-16s %4s %4s %11s %-11s %*s | %7s %7s %-7s %7s | %6s %6s %6s | %s\n", "partitioner", "ok", "fail", "mean",
         " ±95% CI", ew, elab, "min", "mean", " ±95%", "max", "min", "mean", "max", "shares (%)");
  for (int p = 0; p < sm->np; p++) {
    const cell *x = cell_at(sm, a, s, f, p);
    if (x->ok || x->failed) print_cell(sm, sm->parts[p], x, ew);
  }
  snprintf(label, sizeof label, "%s (ref)", sm->baseline);
  if (rt->n) {
    printf("  %-16s %4d %4s ", label, rt->n, "");
    print_val(stat_mean(rt), "%*.4g", 11, 0);
    printf(" ±");
    if (isfinite(stat_ci95(rt))) printf("%-9.2g", stat_ci95(rt));
    else printf("%-9s", "-");
    printf(" ");
    print_val(stat_mean(rt + 1), "%*.4g", ew, 0);
    printf(" |\n");
  }
  print_verdicts(sm, a, s, f);
}

static void print_tables(const summary *sm, const campaign *c) {
  printf("fupermod campaign summary: %s: %d results, %d ok; speedup = %s time / time, energy saving = 1 - energy / "
         "%s energy; ±: Student-t 95 %% interval of the mean%s\n", sm->csv, sm->nrows, sm->nok, sm->baseline,
         sm->baseline, sm->estimate ? "; energy ESTIMATE: the model meter's power x time, not measured" : "");
  if (sm->left_out)
    printf("fupermod campaign summary: %d results of experiments no longer in %s left out (they stay in %s)\n",
           sm->left_out, c->path, sm->csv);
  for (int a = 0; a < sm->na; a++)
    for (int f = 0; f < sm->nc; f++)
      for (int s = 0; s < sm->ns; s++) print_table(sm, a, s, f);
}

/* The tables as CSV: DIR/summary.csv. */
static int write_csv(const summary *sm, const char *outdir) {
  char path[4200];
  fupermod_atomic_file af;
  int rc;
  snprintf(path, sizeof path, "%s/summary.csv", outdir);
  if ((rc = fupermod_atomic_open(&af, path)) != FUPERMOD_SUCCESS) return rc;
  /* the provenance first, as comment lines; the energy columns say when they are estimates */
  fprintf(af.fp, "# fupermod campaign summary of %s\n", sm->csv);
  print_provenance(af.fp, sm, -1, -1, -1, "# ");
  fprintf(af.fp, "app,size,config,partitioner,ok,failed,time_min,time_mean,time_max,%s_min,%s_mean,%s_max,"
                 "speedup_min,speedup_mean,speedup_max,saving_min,saving_mean,saving_max,time_ci95,speedup_ci95,"
                 "energy_source,shares,same_distribution_as,provenance\n",
          sm->estimate ? "energy_estimate_J" : "energy_J", sm->estimate ? "energy_estimate_J" : "energy_J",
          sm->estimate ? "energy_estimate_J" : "energy_J");
  for (int a = 0; a < sm->na; a++)
    for (int f = 0; f < sm->nc; f++)
      for (int s = 0; s < sm->ns; s++)
        for (int p = 0; p < sm->np; p++) {
          const cell *x = cell_at(sm, a, s, f, p);
          const stat3 *st[] = {&x->time, &x->energy, &x->speedup, &x->saving};
          if (!x->ok && !x->failed) continue;
          fprintf(af.fp, "%s,%ld,%s,%s,%d,%d", sm->apps[a], sm->sizes[s], sm->confs[f], sm->parts[p], x->ok, x->failed);
          for (int m = 0; m < 4; m++) {
            fputc(',', af.fp);
            if (st[m]->n) put_num(af.fp, st[m]->min, "%.9g");
            fputc(',', af.fp);
            put_num(af.fp, stat_mean(st[m]), "%.9g");
            fputc(',', af.fp);
            if (st[m]->n) put_num(af.fp, st[m]->max, "%.9g");
          }
          {
            const char *ids[64];
            char eb[128];
            int n = 0;
            fputc(',', af.fp);
            put_num(af.fp, stat_ci95(&x->time), "%.9g");
            fputc(',', af.fp);
            put_num(af.fp, stat_ci95(&x->speedup), "%.9g");
            fprintf(af.fp, ",%s,%s,%s,", energy_label(x->estimate, x->meter, eb, sizeof eb),
                    x->shares ? *x->shares ? x->shares : "varies" : "", x->same_as >= 0 ? sm->parts[x->same_as] : "");
            for (int i = 0; i < sm->nrows; i++) { /* the sessions of this cell's rows */
              const camp_row *r = &sm->rows[i];
              long sz = 0;
              int seen = 0;
              fupermod_parse_long(r->f[COL_SIZE], &sz);
              if (strcmp(r->f[COL_APP], sm->apps[a]) || sz != sm->sizes[s] || strcmp(r->f[COL_CONFIG], sm->confs[f]) ||
                  strcmp(r->f[COL_PART], sm->parts[p]) || !*r->f[COL_PROV])
                continue;
              for (int k = 0; k < n; k++) seen |= strcmp(ids[k], r->f[COL_PROV]) == 0;
              if (!seen && n < 64) {
                fprintf(af.fp, "%s%s", n ? ";" : "", r->f[COL_PROV]);
                ids[n++] = r->f[COL_PROV];
              }
            }
          }
          fputc('\n', af.fp);
        }
  return fupermod_atomic_commit(&af);
}

/* The plot data of app a, configuration f: per partitioner, speedup and saving over the sizes. */
static int write_dat(const summary *sm, int a, int f, const char *dat) {
  fupermod_atomic_file af;
  int rc;
  if ((rc = fupermod_atomic_open(&af, dat)) != FUPERMOD_SUCCESS) return rc;
  for (int p = 0; p < sm->np; p++) {
    fprintf(af.fp, "# %s: size speedup_mean min max saving_mean min max\n", sm->parts[p]);
    for (int s = 0; s < sm->ns; s++) {
      const cell *x = cell_at(sm, a, s, f, p);
      fprintf(af.fp, "%ld %.9g %.9g %.9g %.9g %.9g %.9g\n", sm->sizes[s], stat_mean(&x->speedup),
              x->speedup.n ? x->speedup.min : NAN, x->speedup.n ? x->speedup.max : NAN,
              100 * stat_mean(&x->saving), x->saving.n ? 100 * x->saving.min : NAN,
              x->saving.n ? 100 * x->saving.max : NAN);
    }
    fprintf(af.fp, "\n\n");
  }
  return fupermod_atomic_commit(&af);
}

/* The plot of measure m (0 speedup, 1 energy saving) of app a, configuration f, into the script
 * gp; its PNG joins pngs. gnuplot stops at a plot without a single defined point, so such lines
 * are left out, and a plot without any line. */
/* A value inside a gnuplot single-quoted string: '' for a quote. */
static void gp_quoted(FILE *gp, const char *v) {
  for (; *v; v++) fputs(*v == '\'' ? "''" : (char[]){*v, 0}, gp);
}

/* Partitioner p repeats another's distribution at every size of app a, configuration f: one line
 * of the plot, whose title names both. */
static int same_everywhere(const summary *sm, int a, int f, int p) {
  int q = -1;
  for (int s = 0; s < sm->ns; s++) {
    const cell *x = cell_at(sm, a, s, f, p);
    if (!x->ok) continue;
    if (x->same_as < 0 || (q >= 0 && x->same_as != q)) return -1;
    q = x->same_as;
  }
  return q;
}

static int plot_measure(const summary *sm, FILE *gp, int a, int f, int m, const char *outdir, const char *tag,
                        const char *dat, char ***pngs, int *npng) {
  int first = 1;
  char png[4800], **l;
  for (int p = 0; p < sm->np; p++) {
    int defined = 0;
    char title[1024];
    size_t tn = (size_t)snprintf(title, sizeof title, "%s", sm->parts[p]);
    for (int s = 0; s < sm->ns; s++)
      defined |= (m ? cell_at(sm, a, s, f, p)->saving.n : cell_at(sm, a, s, f, p)->speedup.n) > 0;
    if (!defined || same_everywhere(sm, a, f, p) >= 0) continue;
    for (int q = p + 1; q < sm->np && tn < sizeof title; q++)
      if (same_everywhere(sm, a, f, q) == p) tn += (size_t)snprintf(title + tn, sizeof title - tn, " = %s (same distribution)", sm->parts[q]);
    if (first) {
      snprintf(png, sizeof png, "%s/%s-%s.png", outdir, m ? "energy-saving" : "speedup", tag);
      fprintf(gp, "set terminal pngcairo size 900,600 noenhanced\nset output '%s.tmp'\n", png);
      fprintf(gp, "set title '%s%s%s: %s against the %s distribution (mean, min-max over repetitions)%s'\n",
              sm->apps[a], sm->nc > 1 ? ", " : "", sm->nc > 1 ? sm->confs[f] : "", m ? "energy saving" : "speedup",
              sm->baseline, m && sm->estimate ? "\\nenergy: ESTIMATE (model meter: power x time), not measured" : "");
      {
        /* the caption: the spec and the runs' provenance, so that a plot alone can be traced */
        const char *ids[64], *spec = camp_meta_get(&sm->meta, "spec");
        char text[2048];
        int n = table_sessions(sm, a, -1, f, ids, 64);
        fprintf(gp, "set bmargin %d\nunset label\nset label 1 '", 4 + n + 1);
        fprintf(gp, "spec %.12s", spec ? spec : "unknown");
        for (int k = 0; k < n; k++) {
          prov_text(sm, ids[k], text, sizeof text, 1);
          fprintf(gp, "\\n%s: ", ids[k]);
          gp_quoted(gp, *text ? text : "no provenance");
        }
        fprintf(gp, "' at screen 0.01, screen %.3f left font ',7'\n", 0.012 + 0.022 * n);
      }
      fprintf(gp, "set xlabel 'problem size'\nset ylabel '%s'\nset key left top\nset grid\n"
                  "set offsets graph 0.05, graph 0.05, graph 0.1, graph 0.1\n",
              m ? sm->estimate ? "energy saving (%), ESTIMATE" : "energy saving (%)" : "speedup");
      fprintf(gp, "%s\nplot ",
              sm->ns > 1 && sm->sizes[sm->ns - 1] / sm->sizes[0] >= 8 ? "set logscale x 2" : "unset logscale x");
      if (!(l = realloc(*pngs, (size_t)(*npng + 1) * sizeof *l)))
        return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
      *pngs = l;
      if (!(l[*npng] = strdup(png))) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
      (*npng)++;
    }
    fprintf(gp, "%s'%s' index %d using 1:%d:%d:%d with yerrorlines lw 2 pt 7 title '%s'", first ? "" : ", ", dat, p,
            m ? 5 : 2, m ? 6 : 3, m ? 7 : 4, title);
    first = 0;
  }
  if (!first) fprintf(gp, ", %d with lines dt 2 lc rgb 'gray' notitle\nset output\n", m ? 0 : 1);
  return FUPERMOD_SUCCESS;
}

/* One data file per app and configuration, and the gnuplot script gpath of their plots (pngs). */
static int write_plots(const summary *sm, const char *outdir, const char *gpath, char ***pngs, int *npng) {
  fupermod_atomic_file gp;
  int rc;
  if ((rc = fupermod_atomic_open(&gp, gpath)) != FUPERMOD_SUCCESS) return rc;
  for (int a = 0; a < sm->na; a++)
    for (int f = 0; f < sm->nc; f++) {
      char tag[512], dat[4700];
      char conf[256];
      /* the configuration's tag, as in the ids: its file name without the extension */
      snprintf(conf, sizeof conf, "%s", base_name(sm->confs[f]));
      if (strrchr(conf, '.') && strrchr(conf, '.') != conf) *strrchr(conf, '.') = '\0';
      snprintf(tag, sizeof tag, "%s%s%s", sm->apps[a], sm->nc > 1 ? "-" : "", sm->nc > 1 ? conf : "");
      snprintf(dat, sizeof dat, "%s/%s.dat", outdir, tag);
      for (int m = -1; m < 2 && rc == FUPERMOD_SUCCESS; m++)
        rc = m < 0 ? write_dat(sm, a, f, dat) : plot_measure(sm, gp.fp, a, f, m, outdir, tag, dat, pngs, npng);
      if (rc != FUPERMOD_SUCCESS) {
        fupermod_atomic_abort(&gp);
        return rc;
      }
    }
  return fupermod_atomic_commit(&gp);
}

/* gnuplot writes NAME.png.tmp; each is renamed into place once gnuplot has finished. */
static void render_plots(const summary *sm, const char *outdir, const char *gpath, char **pngs, int npng) {
  if (npng == 0) {
    fprintf(stderr, "fupermod campaign: no speedup to plot (no %s runs and no even_time in the results)\n",
            sm->baseline);
  } else if (tool_gnuplot(gpath) != 0) {
    fprintf(stderr, "fupermod campaign: gnuplot not available or failed; the plot script is %s\n", gpath);
  } else {
    for (int i = 0; i < npng; i++) {
      char tmp[4900];
      snprintf(tmp, sizeof tmp, "%s.tmp", pngs[i]);
      if (rename(tmp, pngs[i]) != 0) fprintf(stderr, "fupermod campaign: %s: %s\n", tmp, strerror(errno));
    }
    fprintf(stderr, "fupermod campaign: tables in %s/summary.csv, %d plots in %s\n", outdir, npng, outdir);
  }
}

static int campaign_summary(int argc, char **argv) {
  const char *outdir = NULL;
  campaign c;
  summary sm;
  char dirbuf[4096], gpath[4200], **pngs = NULL;
  int rc, status, have_campaign = 0, npng = 0;
  size_t good = 0;
  memset(&c, 0, sizeof c);
  memset(&sm, 0, sizeof sm);
  sm.baseline = "even";
  if ((status = summary_options(argc, argv, &sm.baseline, &outdir)) != GO_ON) return status;
  status = 0;
  sm.csv = argv[optind];
  if ((rc = summary_input(&c, &sm.csv, &have_campaign)) != FUPERMOD_SUCCESS) goto fail;
  if (!outdir) {
    size_t l = strlen(sm.csv);
    snprintf(dirbuf, sizeof dirbuf, "%.*s-summary", (int)(l > 4 && strcmp(sm.csv + l - 4, ".csv") == 0 ? l - 4 : l),
             sm.csv);
    outdir = dirbuf;
  }
  if ((rc = camp_rows_load(sm.csv, &sm.rows, &sm.nrows, &good, &sm.meta)) != FUPERMOD_SUCCESS ||
      (have_campaign && (rc = drop_foreign(&sm, &c)) != FUPERMOD_SUCCESS))
    goto fail;
  if (sm.nrows == 0) {
    rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s: no results yet", sm.csv);
    goto fail;
  }
  if ((rc = collect_dims(&sm, &c, have_campaign)) != FUPERMOD_SUCCESS || (rc = fill_cells(&sm)) != FUPERMOD_SUCCESS)
    goto fail;
  print_tables(&sm, &c);
  /* files: the table as CSV, one data file per app and configuration, one gnuplot script */
  if ((rc = fupermod_mkdir_p(outdir)) != FUPERMOD_SUCCESS || (rc = write_csv(&sm, outdir)) != FUPERMOD_SUCCESS)
    goto fail;
  snprintf(gpath, sizeof gpath, "%s/summary.gp", outdir);
  if ((rc = write_plots(&sm, outdir, gpath, &pngs, &npng)) != FUPERMOD_SUCCESS) goto fail;
  render_plots(&sm, outdir, gpath, pngs, npng);
  goto out;
fail:
  status = tool_fail(SUB, rc);
out:
  for (int i = 0; i < npng; i++) free(pngs[i]);
  free(pngs);
  summary_free(&sm);
  camp_free(&c);
  return status;
}

/* ------------------------------------------------------------------ batch scripts */

/* A shell word in single quotes. */
static void sq(FILE *fp, const char *s) {
  fputc('\'', fp);
  for (; *s; s++)
    if (*s == '\'') fputs("'\\''", fp);
    else fputc(*s, fp);
  fputc('\'', fp);
}

static int on_path(const char *prog) {
  const char *p = getenv("PATH");
  char buf[4096];
  while (p && *p) {
    size_t l = strcspn(p, ":");
    snprintf(buf, sizeof buf, "%.*s/%s", (int)l, p, prog);
    if (access(buf, X_OK) == 0) return 1;
    p += l + (p[l] == ':');
  }
  return 0;
}

static void write_script(FILE *fp, const campaign *c, int oar, const char *cwd, const char *file) {
  const char *jobid = oar ? "$OAR_JOB_ID" : "$SLURM_JOB_ID";
  fprintf(fp, "#!/bin/bash\n# %s batch script for the fupermod campaign '%s' (%s),\n", oar ? "OAR" : "Slurm", c->name, file);
  fprintf(fp, "# written by 'fupermod campaign script --%s'. Submit it from the frontend with: %s\n",
          oar ? "oar" : "slurm", oar ? "oarsub -S ./SCRIPT" : "sbatch SCRIPT");
  fprintf(fp, "# It builds an MPI hostfile of the reserved nodes, writes the process configuration there with\n"
              "# 'fupermod config', and runs the campaign, which resumes where an earlier job stopped.\n");
  if (oar) {
    fprintf(fp, "#OAR -n %s\n", c->name);
    fprintf(fp, "#OAR -l nodes=%ld", c->nodes);
    if (c->cores_per_node) fprintf(fp, "/core=%ld", c->cores_per_node);
    fprintf(fp, ",walltime=%s\n", c->walltime);
    if (c->queue) fprintf(fp, "#OAR -q %s\n", c->queue);
    if (c->properties) fprintf(fp, "#OAR -p \"%s\"\n", c->properties);
    if (c->project) fprintf(fp, "#OAR --project %s\n", c->project);
    fprintf(fp, "#OAR -O %s.%%jobid%%.out\n#OAR -E %s.%%jobid%%.err\n", c->name, c->name);
  } else {
    fprintf(fp, "#SBATCH --job-name=%s\n#SBATCH --nodes=%ld\n#SBATCH --ntasks-per-node=%ld\n#SBATCH --time=%s\n",
            c->name, c->nodes, c->cores_per_node, c->walltime);
    if (c->queue) fprintf(fp, "#SBATCH --partition=%s\n", c->queue);
    if (c->project) fprintf(fp, "#SBATCH --account=%s\n", c->project);
    if (c->constraint) fprintf(fp, "#SBATCH --constraint=\"%s\"\n", c->constraint);
    fprintf(fp, "#SBATCH --output=%s.%%j.out\n#SBATCH --error=%s.%%j.err\n", c->name, c->name);
  }
  fprintf(fp, "set -eu\n# relative paths in the campaign are relative to the directory it was prepared in\ncd ");
  sq(fp, cwd);
  fputc('\n', fp);
  for (int i = 0; i < c->nsetup; i++) fprintf(fp, "%s\n", c->setup[i]);
  fprintf(fp, "# the MPI hostfile: one line per reserved node with its process slots\n");
  fprintf(fp, "FUPERMOD_HOSTFILE=\"$PWD/%s.%s.hosts\"\n", c->name, jobid);
  if (oar)
    fprintf(fp, "sort \"$OAR_NODEFILE\" | uniq -c | awk '{ print $2 \" slots=\" $1 }' > \"$FUPERMOD_HOSTFILE\"\n");
  else
    fprintf(fp, "scontrol show hostnames \"$SLURM_JOB_NODELIST\" | awk -v n=\"${SLURM_NTASKS_PER_NODE%%%%(*}\" "
                "'{ print $1 \" slots=\" n }' > \"$FUPERMOD_HOSTFILE\"\n");
  fprintf(fp, "FUPERMOD_NP=$(awk '{ sub(\"slots=\", \"\", $2); n += $2 } END { print n }' \"$FUPERMOD_HOSTFILE\")\n");
  fprintf(fp, "FUPERMOD_MPIRUN=\"%s\"\n", c->cluster_mpirun ? c->cluster_mpirun
                                          : oar ? "mpirun --mca plm_rsh_agent oarsh --hostfile $FUPERMOD_HOSTFILE"
                                                : "mpirun --hostfile $FUPERMOD_HOSTFILE");
  fprintf(fp, "export FUPERMOD_HOSTFILE FUPERMOD_NP FUPERMOD_MPIRUN\n");
  fprintf(fp, "echo \"fupermod campaign %s: job %s, $FUPERMOD_NP processes on $(wc -l < \"$FUPERMOD_HOSTFILE\") "
              "nodes\"\n", c->name, jobid);
  if (c->cluster_config) {
    fprintf(fp, "# the process configuration of the reserved nodes (written again by every job: nodes change)\n");
    fprintf(fp, "$FUPERMOD_MPIRUN -np \"$FUPERMOD_NP\" fupermod config -o ");
    sq(fp, c->cluster_config);
    if (c->config_subopts) {
      fprintf(fp, " -s ");
      sq(fp, c->config_subopts);
    }
    fputc('\n', fp);
  } else {
    fprintf(fp, "# no cluster_config in the campaign: its configs are used as they are\n");
  }
  fprintf(fp, "# the campaign; FUPERMOD_MPIRUN is the launcher its command can use\nfupermod campaign run ");
  sq(fp, file);
  fputc('\n', fp);
}

static int campaign_script(int argc, char **argv) {
  static const struct option opts[] = {{"oar", no_argument, NULL, 'O'}, {"slurm", no_argument, NULL, 'S'},
                                       {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
  const char *out = NULL, *sched = NULL;
  char cwd[4096], *file = NULL;
  campaign c;
  int opt, rc, oar;
  optind = 0; /* a full reset of glibc's getopt: the parse may run more than once per process */
  while ((opt = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
    switch (opt) {
    case 'o': out = optarg; break;
    case 'O': case 'S':
      if (sched && strcmp(sched, opt == 'O' ? "oar" : "slurm"))
        return tool_usage(SUB, "--oar and --slurm exclude each other");
      sched = opt == 'O' ? "oar" : "slurm";
      break;
    case 'h': help(); return 0;
    default: return tool_bad_option(SUB, argv, "o:h", opts);
    }
  }
  if (optind != argc - 1) return tool_usage(SUB, "give one campaign file");
  if ((rc = camp_load(argv[optind], &c)) != FUPERMOD_SUCCESS) goto fail;
  if (!sched) sched = c.cluster;
  if (!sched) {
    camp_free(&c);
    return tool_usage(SUB, "say --oar or --slurm (or 'cluster = oar|slurm' in %s)", argv[optind]);
  }
  oar = strcmp(sched, "oar") == 0;
  if (!c.nodes || !c.walltime || (!oar && !c.cores_per_node)) {
    rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s: %s script needs %s (see docs/campaigns.md)", c.path,
                        oar ? "an OAR" : "a Slurm",
                        !c.nodes ? "nodes = N" : !c.walltime ? "walltime = H:MM:SS" : "cores_per_node = C");
    goto fail;
  }
  if (!getcwd(cwd, sizeof cwd) || !(file = realpath(argv[optind], NULL))) {
    rc = fupermod_error(FUPERMOD_ERR_SYSTEM, "%s: %s", argv[optind], strerror(errno));
    goto fail;
  }
  if (c.cluster_config) {
    int listed = 0;
    for (int i = 0; i < c.configs.count; i++) listed |= strcmp(c.configs.items[i], c.cluster_config) == 0;
    if (!listed)
      fprintf(stderr, "fupermod campaign: warning: %s:%d: cluster_config %s is not in configs, so the campaign does "
                      "not use the configuration the job writes\n", c.path, camp_key_line(&c, "cluster_config"),
              c.cluster_config);
  }
  if (!out || strcmp(out, "-") == 0) {
    write_script(stdout, &c, oar, cwd, file);
    if (fflush(stdout) != 0) rc = fupermod_error(FUPERMOD_ERR_SYSTEM, "standard output: %s", strerror(errno));
  } else {
    fupermod_atomic_file af;
    if ((rc = fupermod_atomic_open(&af, out)) != FUPERMOD_SUCCESS) goto fail;
    fchmod(fileno(af.fp), 0755);
    write_script(af.fp, &c, oar, cwd, file);
    if ((rc = fupermod_atomic_commit(&af)) != FUPERMOD_SUCCESS) goto fail;
    fprintf(stderr, "fupermod campaign: wrote %s; nothing was submitted%s. On the frontend: %s%s\n", out,
            on_path(oar ? "oarsub" : "sbatch") ? "" : oar ? " (no oarsub here)" : " (no sbatch here)",
            oar ? (strchr(out, '/') ? "oarsub -S " : "oarsub -S ./") : "sbatch ", out);
  }
  if (rc != FUPERMOD_SUCCESS) goto fail;
  free(file);
  camp_free(&c);
  return 0;
fail:
  free(file);
  camp_free(&c);
  return tool_fail(SUB, rc);
}

int cmd_campaign(int argc, char **argv) {
  if (argc < 2) return tool_usage(SUB, "give an action: run, summary or script");
  if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
    help();
    return 0;
  }
  if (strcmp(argv[1], "run") == 0) return campaign_run(argc - 1, argv + 1);
  if (strcmp(argv[1], "summary") == 0) return campaign_summary(argc - 1, argv + 1);
  if (strcmp(argv[1], "script") == 0) return campaign_script(argc - 1, argv + 1);
  return tool_usage(SUB, "unknown action '%s' (run, summary or script)", argv[1]);
}
