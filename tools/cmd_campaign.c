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
#include "tools/campaign.h"
#include "tools/tools.h"

static const char *SUB = "campaign";

static void help(void) {
  printf("usage: fupermod campaign run [--retry-failed] [--timeout S] [--dry-run] [-q] FILE\n"
         "       fupermod campaign summary [-o DIR] [--baseline NAME] FILE|RESULTS.csv\n"
         "       fupermod campaign script --oar|--slurm [-o SCRIPT] FILE\n\n"
         "FILE is a campaign file (docs/campaigns.md): apps, sizes, partitioners, configs, repetitions and\n"
         "a command template. run executes the cross product, one command per experiment, and appends a\n"
         "row per experiment to the output CSV as soon as it is measured; a rerun skips the experiments\n"
         "already there, so a killed campaign resumes where it stopped.\n"
         "  --retry-failed   run again the experiments recorded as failed, timeout or noresult\n"
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

/* The row as one CSV line; -1 when it does not fit (it must never be written in part). */
static int row_line(char *buf, size_t size, camp_row *r) {
  size_t n = 0;
  for (int k = 0; k < NCOLS; k++) {
    n += (size_t)snprintf(buf + n, size - n, "%s%s", k ? "," : "", r->f[k] ? r->f[k] : "");
    if (n + 2 > size) return -1;
  }
  strcpy(buf + n, "\n");
  return 0;
}

/* Drop the rows of the experiments to retry: keep them in OUTPUT.retried, rewrite OUTPUT without. */
static int drop_rows(const char *output, camp_row *rows, int nrows, const char *drop) {
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
      rc = row_line(line, sizeof line, &rows[i]) ? fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: row too long", output,
                                                                    rows[i].line)
                                                  : append_line(fd, path, line);
  close(fd);
  if (rc != FUPERMOD_SUCCESS) return rc;
  if ((rc = fupermod_atomic_open(&af, output)) != FUPERMOD_SUCCESS) return rc;
  fputs(camp_header(), af.fp);
  for (int i = 0; i < nrows; i++)
    if (!drop[i]) {
      if (row_line(line, sizeof line, &rows[i])) {
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

static int campaign_run(int argc, char **argv) {
  static const struct option opts[] = {{"retry-failed", no_argument, NULL, 'r'}, {"timeout", required_argument, NULL, 't'},
                                       {"dry-run", no_argument, NULL, 'n'}, {"help", no_argument, NULL, 'h'},
                                       {NULL, 0, NULL, 0}};
  campaign c;
  camp_exp *ex = NULL;
  camp_row *rows = NULL, **index = NULL;
  char *done = NULL, *drop = NULL;
  long *np = NULL;
  double timeout = -1, t_start;
  int opt, retry = 0, dry = 0, quiet = 0, rc, nex = 0, nrows = 0, status = 0, lockfd = -1, outfd = -1, ntodo = 0;
  int nok = 0, nfail = 0, k = 0, old_fail = 0;
  size_t good = 0;
  struct stat st;
  char path[4096];
  optind = 0; /* a full reset of glibc's getopt: the parse may run more than once per process */
  while ((opt = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
    switch (opt) {
    case 'r': retry = 1; break;
    case 'n': dry = 1; break;
    case 'q': quiet = 1; break;
    case 't':
      if (fupermod_parse_double(optarg, &timeout) || timeout < 0)
        return tool_usage(SUB, "--timeout '%s' must be seconds >= 0 (0: none)", optarg);
      break;
    case 'h': help(); return 0;
    default: return tool_usage(SUB, "unknown option");
    }
  }
  if (optind != argc - 1) return tool_usage(SUB, optind < argc ? "give one campaign file" : "no campaign file given");
  if ((rc = camp_load(argv[optind], &c)) != FUPERMOD_SUCCESS) {
    camp_free(&c);
    return tool_fail(SUB, rc);
  }
  if (timeout < 0) timeout = c.timeout;
  if ((rc = camp_experiments(&c, &ex, &nex)) != FUPERMOD_SUCCESS) goto fail;
  if (!dry) {
    /* one runner per output file: two would run the same experiments */
    char *slash;
    snprintf(path, sizeof path, "%s", c.output);
    if ((slash = strrchr(path, '/')) && slash != path) {
      *slash = '\0';
      if ((rc = fupermod_mkdir_p(path)) != FUPERMOD_SUCCESS) goto fail;
    }
    snprintf(path, sizeof path, "%s.lock", c.output);
    if ((lockfd = open(path, O_RDWR | O_CREAT, 0644)) < 0) {
      rc = fupermod_error(FUPERMOD_ERR_SYSTEM, "%s: %s", path, strerror(errno));
      goto fail;
    }
    /* a run that a batch system just stopped may still be ending its experiment (up to 5 s of
     * SIGTERM grace) after the scheduler has released the job: wait for it a little */
    for (int i = 0; flock(lockfd, LOCK_EX | LOCK_NB) != 0; i++) {
      struct timespec tick = {0, 100000000};
      if (i == 150) {
        rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s: another 'fupermod campaign run' is writing it (lock %s)", c.output,
                            path);
        goto fail;
      }
      if (i == 0) fprintf(stderr, "fupermod campaign: %s is locked by another run; waiting up to 15 s for it to end\n", path);
      nanosleep(&tick, NULL);
    }
  }
  if ((rc = camp_rows_load(c.output, &rows, &nrows, &good)) != FUPERMOD_SUCCESS) goto fail;
  if (!dry && stat(c.output, &st) == 0 && (size_t)st.st_size > good) {
    /* a row torn by a crash in the middle of its write: that experiment runs again */
    fprintf(stderr, "fupermod campaign: %s: dropping a torn last line (%ld bytes)\n", c.output,
            (long)((size_t)st.st_size - good));
    if (truncate(c.output, (off_t)good) != 0) {
      rc = fupermod_error(FUPERMOD_ERR_SYSTEM, "%s: truncate: %s", c.output, strerror(errno));
      goto fail;
    }
  }
  index = malloc((size_t)(nrows + 1) * sizeof *index);
  done = calloc((size_t)nex + 1, 1);
  drop = calloc((size_t)nrows + 1, 1);
  np = calloc((size_t)c.configs.count, sizeof *np);
  if (!index || !done || !drop || !np) {
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
    goto fail;
  }
  for (int i = 0; i < nrows; i++) index[i] = &rows[i];
  qsort(index, (size_t)nrows, sizeof *index, cmp_row_id);
  for (int i = 1; i < nrows; i++)
    if (strcmp(index[i - 1]->f[COL_ID], index[i]->f[COL_ID]) == 0) {
      rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: experiment %s is already on line %d; remove one of them",
                          c.output, index[i - 1]->line > index[i]->line ? index[i - 1]->line : index[i]->line,
                          index[i]->f[COL_ID],
                          index[i - 1]->line > index[i]->line ? index[i]->line : index[i - 1]->line);
      goto fail;
    }
  {
    int in_campaign = 0, ndrop = 0;
    for (int i = 0; i < nex; i++) {
      camp_row *r = find_row(index, nrows, ex[i].id);
      if (!r) continue;
      in_campaign++;
      if (strcmp(r->f[COL_STATUS], "ok") == 0 || !retry) {
        done[i] = 1;
        old_fail += strcmp(r->f[COL_STATUS], "ok") != 0;
      } else {
        drop[r - rows] = 1;
        ndrop++;
      }
    }
    if (in_campaign < nrows && !quiet)
      fprintf(stderr, "fupermod campaign: %s: %d rows are of experiments no longer in %s; they stay\n", c.output,
              nrows - in_campaign, c.path);
    if (ndrop && !dry && (rc = drop_rows(c.output, rows, nrows, drop)) != FUPERMOD_SUCCESS) goto fail;
    if (ndrop && !dry && (stat(c.output, &st) != 0 || (good = (size_t)st.st_size) == 0)) good = 0;
  }
  for (int i = 0; i < nex; i++) ntodo += !done[i];
  /* processes per configuration: given, or the configuration's line count */
  for (int f = 0; f < c.configs.count; f++) {
    int needed = camp_uses(c.command, "np") || camp_uses(c.result, "np"), used = 0;
    for (int i = 0; i < nex; i++) used |= !done[i] && ex[i].conf == f;
    if (c.np_count) np[f] = c.np[c.np_count == 1 ? 0 : f];
    else if (used && (rc = conf_processes(c.configs.items[f], &np[f])) != FUPERMOD_SUCCESS) {
      if (needed && !dry) {
        fupermod_error_prefix(rc, "%s:%d: np = auto counts the processes of ", c.path, camp_key_line(&c, "configs"));
        goto fail;
      }
      np[f] = 0;
      rc = FUPERMOD_SUCCESS;
    }
  }
  if (dry) {
    for (int i = 0; i < nex; i++) {
      char dir[4096], *cmd = NULL;
      snprintf(dir, sizeof dir, "%s/%s", c.rundir, ex[i].id);
      if ((rc = camp_expand(&c, "command", &ex[i], np[ex[i].conf], dir, &cmd)) != FUPERMOD_SUCCESS) goto fail;
      printf("%s\t%s\t%s\n", ex[i].id, done[i] ? "done" : "todo", cmd);
      free(cmd);
    }
    fprintf(stderr, "fupermod campaign: %s: %d experiments, %d done, %d to run\n", c.path, nex, nex - ntodo, ntodo);
    goto out;
  }
  if ((outfd = open(c.output, O_WRONLY | O_CREAT | O_APPEND, 0644)) < 0) {
    rc = fupermod_error(FUPERMOD_ERR_SYSTEM, "%s: %s", c.output, strerror(errno));
    goto fail;
  }
  if (good == 0 && (rc = append_line(outfd, c.output, camp_header())) != FUPERMOD_SUCCESS) goto fail;
  if (!quiet)
    fprintf(stderr, "fupermod campaign: %s: %d experiments, %d done, %d to run; results in %s\n", c.path, nex,
            nex - ntodo, ntodo, c.output);
  {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
  }
  t_start = now();
  for (int i = 0; i < nex && !stop_signal; i++) {
    char dir[4096], log[4200], line[8192], elapsed[32], left[32], wall[32], codes[16], finished[32], nps[32], reps[16];
    char *cmd = NULL, *result = NULL, *msg = NULL;
    const char *stname;
    camp_result res;
    camp_row r;
    int code = 0, how;
    double w = 0;
    time_t tnow;
    if (done[i]) continue;
    k++;
    snprintf(dir, sizeof dir, "%s/%s", c.rundir, ex[i].id);
    snprintf(log, sizeof log, "%s/log", dir);
    if ((rc = fupermod_mkdir_p(dir)) != FUPERMOD_SUCCESS ||
        (rc = camp_expand(&c, "command", &ex[i], np[ex[i].conf], dir, &cmd)) != FUPERMOD_SUCCESS ||
        (rc = camp_expand(&c, "result", &ex[i], np[ex[i].conf], dir, &result)) != FUPERMOD_SUCCESS) {
      free(cmd);
      goto fail;
    }
    if (unlink(result) != 0 && errno != ENOENT) { /* a stale result must not pass for this run's */
      rc = fupermod_error(FUPERMOD_ERR_SYSTEM, "%s: cannot remove the old result: %s", result, strerror(errno));
      free(cmd);
      free(result);
      goto fail;
    }
    if (!quiet) {
      double el = now() - t_start;
      hms(elapsed, sizeof elapsed, el);
      if (k > 1) hms(left, sizeof left, el / (k - 1) * (ntodo - k + 1));
      fprintf(stderr, "fupermod campaign: [%d/%d] %s (elapsed %s%s%s)\n", k, ntodo, ex[i].id, elapsed,
              k > 1 ? ", about " : "", k > 1 ? left : "");
    }
    how = run_command(cmd, log, ex[i].id, timeout, &code, &w);
    free(cmd);
    if (how < 0) {
      free(result);
      rc = how;
      goto fail;
    }
    if (how == RUN_STOPPED) { /* not recorded: it runs again on restart */
      free(result);
      break;
    }
    memset(&res, 0, sizeof res);
    if (how == RUN_TIMEOUT) stname = "timeout";
    else if (how == RUN_SIGNALED || code != 0) stname = "failed";
    else if (camp_result_read(result, &c, &ex[i], &res) != FUPERMOD_SUCCESS) {
      stname = "noresult";
      msg = strdup(fupermod_error_message());
      memset(&res, 0, sizeof res);
    } else stname = "ok";
    free(result);
    if (msg) { /* say in the log why the result was refused */
      FILE *lf = fopen(log, "a");
      if (lf) {
        fprintf(lf, "# fupermod campaign: no result: %s\n", msg);
        fclose(lf);
      }
    }
    snprintf(wall, sizeof wall, "%.3f", w);
    snprintf(codes, sizeof codes, "%d", code);
    snprintf(nps, sizeof nps, np[ex[i].conf] > 0 ? "%ld" : "", np[ex[i].conf]);
    snprintf(reps, sizeof reps, "%d", ex[i].rep);
    tnow = time(NULL);
    strftime(finished, sizeof finished, "%Y-%m-%dT%H:%M:%SZ", gmtime(&tnow));
    r = (camp_row){{ex[i].id, c.apps.items[ex[i].app], c.sizes.items[ex[i].size], c.partitioners.items[ex[i].part],
                    c.configs.items[ex[i].conf], nps, reps, (char *)stname, codes, wall, res.time, res.energy,
                    res.even_time, res.even_energy, finished, res.extra},
                   0};
    if (row_line(line, sizeof line, &r))
      rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s: the row of %s is too long", c.output, ex[i].id);
    else rc = append_line(outfd, c.output, line);
    if (rc != FUPERMOD_SUCCESS) {
      free(msg);
      goto fail;
    }
    if (strcmp(stname, "ok") == 0) nok++;
    else nfail++;
    if (!quiet || strcmp(stname, "ok") != 0) {
      if (strcmp(stname, "ok") == 0)
        fprintf(stderr, "fupermod campaign: [%d/%d] %s: ok in %.1f s, time %s s\n", k, ntodo, ex[i].id, w, res.time);
      else if (msg)
        fprintf(stderr, "fupermod campaign: [%d/%d] %s: noresult: %s\n", k, ntodo, ex[i].id, msg);
      else
        fprintf(stderr, "fupermod campaign: [%d/%d] %s: %s (exit %d) after %.1f s; see %s\n", k, ntodo, ex[i].id,
                stname, code, w, log);
    }
    free(msg);
  }
  if (stop_signal) {
    fprintf(stderr, "fupermod campaign: interrupted (signal %d); %d experiments recorded in %s; run the same command "
                    "to go on\n", (int)stop_signal, nok + nfail, c.output);
    status = 128 + (int)stop_signal;
    goto out;
  }
  if (nfail + old_fail) {
    fprintf(stderr, "fupermod campaign: %d of %d experiments did not succeed (see %s and their logs in %s); "
                    "--retry-failed runs them again\n", nfail + old_fail, nex, c.output, c.rundir);
    status = 1;
  } else if (!quiet) {
    fprintf(stderr, "fupermod campaign: all %d experiments done; results in %s\n", nex, c.output);
  }
  goto out;
fail:
  status = tool_fail(SUB, rc);
out:
  if (outfd >= 0) close(outfd);
  if (lockfd >= 0) close(lockfd);
  free(np);
  free(drop);
  free(done);
  free(index);
  camp_rows_free(rows, nrows);
  camp_experiments_free(ex, nex);
  camp_free(&c);
  return status;
}

/* ------------------------------------------------------------------ summary */

typedef struct {
  double min, mean, max;
  int n;
} stat3;

static void stat_add(stat3 *s, double x) {
  if (!isfinite(x)) return;
  if (!s->n || x < s->min) s->min = x;
  if (!s->n || x > s->max) s->max = x;
  s->mean += (x - s->mean) / ++s->n;
}

static double stat_mean(const stat3 *s) { return s->n ? s->mean : NAN; }

typedef struct {
  int ok, failed;
  stat3 time, energy, speedup, saving;
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

static int cmp_long(const void *a, const void *b) {
  long x = *(const long *)a, y = *(const long *)b;
  return (x > y) - (x < y);
}

static int campaign_summary(int argc, char **argv) {
  static const struct option opts[] = {{"baseline", required_argument, NULL, 'b'}, {"help", no_argument, NULL, 'h'},
                                       {NULL, 0, NULL, 0}};
  const char *baseline = "even", *outdir = NULL, *csv;
  campaign c;
  camp_row *rows = NULL;
  char **apps = NULL, **confs = NULL, **parts = NULL, dirbuf[4096], path[4200];
  long *sizes = NULL;
  cell *cells = NULL;
  stat3 *refs = NULL; /* per app, size, config: even_time, then even_energy, of the results */
  int opt, rc, nrows = 0, na = 0, nc = 0, np = 0, ns = 0, status = 0, nok = 0, have_campaign = 0;
  size_t good = 0;
  fupermod_atomic_file af;
  memset(&c, 0, sizeof c);
  optind = 0; /* a full reset of glibc's getopt: the parse may run more than once per process */
  while ((opt = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
    switch (opt) {
    case 'o': outdir = optarg; break;
    case 'b': baseline = optarg; break;
    case 'h': help(); return 0;
    default: return tool_usage(SUB, "unknown option");
    }
  }
  if (optind != argc - 1) return tool_usage(SUB, "give one campaign file or result CSV");
  csv = argv[optind];
  if (strlen(csv) < 4 || strcmp(csv + strlen(csv) - 4, ".csv") != 0) {
    if ((rc = camp_load(csv, &c)) != FUPERMOD_SUCCESS) goto fail;
    have_campaign = 1;
    csv = c.output;
  } else if (access(csv, R_OK) != 0) {
    rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s: %s", csv, strerror(errno));
    goto fail;
  }
  if (!outdir) {
    size_t l = strlen(csv);
    snprintf(dirbuf, sizeof dirbuf, "%.*s-summary", (int)(l > 4 && strcmp(csv + l - 4, ".csv") == 0 ? l - 4 : l), csv);
    outdir = dirbuf;
  }
  if ((rc = camp_rows_load(csv, &rows, &nrows, &good)) != FUPERMOD_SUCCESS) goto fail;
  if (nrows == 0) {
    rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s: no results yet", csv);
    goto fail;
  }
  /* the dimensions, in the order the runner wrote them (sizes ascending) */
  if (have_campaign)
    for (int i = 0; i < c.partitioners.count; i++) intern(&parts, &np, c.partitioners.items[i]);
  if (!(sizes = malloc((size_t)nrows * sizeof *sizes))) {
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
    goto fail;
  }
  for (int i = 0; i < nrows; i++) {
    long s;
    int known = 0;
    if (fupermod_parse_long(rows[i].f[COL_SIZE], &s) || s < 1) {
      rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: size '%s' must be a positive integer", csv, rows[i].line,
                          rows[i].f[COL_SIZE]);
      goto fail;
    }
    for (int k = COL_APP; k <= COL_CONFIG; k++) { /* they go into file names and the gnuplot script */
      static const char names[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.+-";
      const char *v = rows[i].f[k], *extra = k == COL_CONFIG ? "/@%=:" : "";
      size_t n = 0;
      while (v[n] && (strchr(names, v[n]) || strchr(extra, v[n]))) n++;
      if (k != COL_SIZE && (!*v || v[n])) {
        rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: %s '%s' is empty or has a character outside A-Z a-z 0-9 _ . + -%s",
                            csv, rows[i].line, k == COL_APP ? "app" : k == COL_PART ? "partitioner" : "config", v,
                            k == COL_CONFIG ? " / @ % = :" : "");
        goto fail;
      }
    }
    for (int j = 0; j < ns; j++) known |= sizes[j] == s;
    if (!known) sizes[ns++] = s;
    if (intern(&apps, &na, rows[i].f[COL_APP]) < 0 || intern(&confs, &nc, rows[i].f[COL_CONFIG]) < 0 ||
        intern(&parts, &np, rows[i].f[COL_PART]) < 0) {
      rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
      goto fail;
    }
  }
  qsort(sizes, (size_t)ns, sizeof *sizes, cmp_long);
#define CELL(a, s, f, p) cells[(((size_t)(a) * ns + (s)) * nc + (f)) * np + (p)]
  cells = calloc((size_t)na * ns * nc * np, sizeof *cells);
  refs = calloc((size_t)na * ns * nc * 2, sizeof *refs);
  if (!cells || !refs) {
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
    goto fail;
  }
  for (int pass = 0; pass < 2; pass++) /* pass 0: time and energy; pass 1: against the baseline */
    for (int i = 0; i < nrows; i++) {
      camp_row *r = &rows[i];
      int a = intern(&apps, &na, r->f[COL_APP]), f = intern(&confs, &nc, r->f[COL_CONFIG]);
      int p = intern(&parts, &np, r->f[COL_PART]), s = 0, b = -1;
      long sz = 0;
      double t = field_number(r->f[COL_TIME]), e = field_number(r->f[COL_ENERGY]);
      double et = field_number(r->f[COL_EVEN_TIME]), ee = field_number(r->f[COL_EVEN_ENERGY]);
      cell *x;
      fupermod_parse_long(r->f[COL_SIZE], &sz);
      while (sizes[s] != sz) s++;
      x = &CELL(a, s, f, p);
      if (strcmp(r->f[COL_STATUS], "ok") != 0 || !isfinite(t)) {
        if (pass == 0) x->failed++;
        continue;
      }
      if (pass == 0) {
        x->ok++;
        nok++;
        stat_add(&x->time, t);
        stat_add(&x->energy, e);
        stat_add(&refs[(((size_t)a * ns + s) * nc + f) * 2], et);
        stat_add(&refs[(((size_t)a * ns + s) * nc + f) * 2 + 1], ee);
        continue;
      }
      /* the row's own even run, else the campaign's runs of the baseline partitioner */
      for (int q = 0; q < np; q++)
        if (strcmp(parts[q], baseline) == 0) b = q;
      if (!isfinite(et) && b >= 0) et = stat_mean(&CELL(a, s, f, b).time);
      if (!isfinite(ee) && b >= 0) ee = stat_mean(&CELL(a, s, f, b).energy);
      stat_add(&x->speedup, et / t);
      if (isfinite(e) && ee > 0) stat_add(&x->saving, 1.0 - e / ee);
    }
  printf("fupermod campaign summary: %s: %d results, %d ok; speedup = %s time / time, energy saving = 1 - energy / "
         "%s energy\n", csv, nrows, nok, baseline, baseline);
  for (int a = 0; a < na; a++)
    for (int f = 0; f < nc; f++)
      for (int s = 0; s < ns; s++) {
        int any = 0;
        for (int p = 0; p < np; p++) any |= CELL(a, s, f, p).ok + CELL(a, s, f, p).failed > 0;
        if (!any) continue;
        printf("\n%s, size %ld%s%s\n", apps[a], sizes[s], nc > 1 ? ", config " : "", nc > 1 ? confs[f] : "");
        printf("  %-16s %4s %4s %11s %11s | %-23s | %s\n", "", "", "", "mean", "mean", "speedup", "energy saving");
        printf("  %-16s %4s %4s %11s %11s | %7s %7s %7s | %6s %7s %7s\n", "partitioner", "ok", "fail", "time (s)",
               "energy (J)", "min", "mean", "max", "min", "mean", "max");
        for (int p = 0; p < np; p++) {
          cell *x = &CELL(a, s, f, p);
          if (!x->ok && !x->failed) continue;
          printf("  %-16s %4d %4d ", parts[p], x->ok, x->failed);
          print_val(stat_mean(&x->time), "%*.4g", 11, 0);
          printf(" ");
          print_val(stat_mean(&x->energy), "%*.4g", 11, 0);
          printf(" | ");
          print_val(x->speedup.n ? x->speedup.min : NAN, "%*.3f", 7, 0);
          printf(" ");
          print_val(stat_mean(&x->speedup), "%*.3f", 7, 0);
          printf(" ");
          print_val(x->speedup.n ? x->speedup.max : NAN, "%*.3f", 7, 0);
          printf(" | ");
          print_val(x->saving.n ? x->saving.min : NAN, "%*.1f%%", 5, 1);
          printf(" ");
          print_val(stat_mean(&x->saving), "%*.1f%%", 6, 1);
          printf(" ");
          print_val(x->saving.n ? x->saving.max : NAN, "%*.1f%%", 6, 1);
          printf("\n");
        }
        {
          /* the even runs each result brought along (fupermod run measures them itself) */
          stat3 *rt = &refs[(((size_t)a * ns + s) * nc + f) * 2];
          char label[64];
          snprintf(label, sizeof label, "%s (ref)", baseline);
          if (rt->n) {
            printf("  %-16s %4d %4s ", label, rt->n, "");
            print_val(stat_mean(rt), "%*.4g", 11, 0);
            printf(" ");
            print_val(stat_mean(rt + 1), "%*.4g", 11, 0);
            printf(" |\n");
          }
        }
      }
  /* files: the table as CSV, one data file per app and configuration, one gnuplot script */
  if ((rc = fupermod_mkdir_p(outdir)) != FUPERMOD_SUCCESS) goto fail;
  snprintf(path, sizeof path, "%s/summary.csv", outdir);
  if ((rc = fupermod_atomic_open(&af, path)) != FUPERMOD_SUCCESS) goto fail;
  fprintf(af.fp, "app,size,config,partitioner,ok,failed,time_min,time_mean,time_max,energy_min,energy_mean,energy_max,"
                 "speedup_min,speedup_mean,speedup_max,saving_min,saving_mean,saving_max\n");
  for (int a = 0; a < na; a++)
    for (int f = 0; f < nc; f++)
      for (int s = 0; s < ns; s++)
        for (int p = 0; p < np; p++) {
          cell *x = &CELL(a, s, f, p);
          stat3 *st[] = {&x->time, &x->energy, &x->speedup, &x->saving};
          if (!x->ok && !x->failed) continue;
          fprintf(af.fp, "%s,%ld,%s,%s,%d,%d", apps[a], sizes[s], confs[f], parts[p], x->ok, x->failed);
          for (int m = 0; m < 4; m++) {
            fputc(',', af.fp);
            if (st[m]->n) put_num(af.fp, st[m]->min, "%.9g");
            fputc(',', af.fp);
            put_num(af.fp, stat_mean(st[m]), "%.9g");
            fputc(',', af.fp);
            if (st[m]->n) put_num(af.fp, st[m]->max, "%.9g");
          }
          fputc('\n', af.fp);
        }
  if ((rc = fupermod_atomic_commit(&af)) != FUPERMOD_SUCCESS) goto fail;
  {
    fupermod_atomic_file gp;
    char gpath[4200], **pngs = NULL;
    int npng = 0;
    snprintf(gpath, sizeof gpath, "%s/summary.gp", outdir);
    if ((rc = fupermod_atomic_open(&gp, gpath)) != FUPERMOD_SUCCESS) goto fail;
    for (int a = 0; a < na; a++)
      for (int f = 0; f < nc; f++) {
        char tag[512], dat[4700];
        snprintf(tag, sizeof tag, "%s%s%s", apps[a], nc > 1 ? "-" : "", nc > 1 ? base_name(confs[f]) : "");
        snprintf(dat, sizeof dat, "%s/%s.dat", outdir, tag);
        if ((rc = fupermod_atomic_open(&af, dat)) != FUPERMOD_SUCCESS) {
          fupermod_atomic_abort(&gp);
          goto fail;
        }
        for (int p = 0; p < np; p++) {
          fprintf(af.fp, "# %s: size speedup_mean min max saving_mean min max\n", parts[p]);
          for (int s = 0; s < ns; s++) {
            cell *x = &CELL(a, s, f, p);
            fprintf(af.fp, "%ld %.9g %.9g %.9g %.9g %.9g %.9g\n", sizes[s], stat_mean(&x->speedup),
                    x->speedup.n ? x->speedup.min : NAN, x->speedup.n ? x->speedup.max : NAN,
                    100 * stat_mean(&x->saving), x->saving.n ? 100 * x->saving.min : NAN,
                    x->saving.n ? 100 * x->saving.max : NAN);
          }
          fprintf(af.fp, "\n\n");
        }
        if ((rc = fupermod_atomic_commit(&af)) != FUPERMOD_SUCCESS) {
          fupermod_atomic_abort(&gp);
          goto fail;
        }
        for (int m = 0; m < 2; m++) {
          /* gnuplot stops at a plot without a single defined point, so such lines are left out */
          int first = 1;
          char png[4800];
          for (int p = 0; p < np; p++) {
            int defined = 0;
            for (int s = 0; s < ns; s++) defined |= (m ? CELL(a, s, f, p).saving.n : CELL(a, s, f, p).speedup.n) > 0;
            if (!defined) continue;
            if (first) {
              snprintf(png, sizeof png, "%s/%s-%s.png", outdir, m ? "energy-saving" : "speedup", tag);
              fprintf(gp.fp, "set terminal pngcairo size 900,600 noenhanced\nset output '%s.tmp'\n", png);
              fprintf(gp.fp, "set title '%s%s%s: %s against the %s distribution (mean, min-max over repetitions)'\n",
                      apps[a], nc > 1 ? ", " : "", nc > 1 ? confs[f] : "", m ? "energy saving" : "speedup", baseline);
              fprintf(gp.fp, "set xlabel 'problem size'\nset ylabel '%s'\nset key left top\nset grid\n"
                             "set offsets graph 0.05, graph 0.05, graph 0.1, graph 0.1\n",
                      m ? "energy saving (%)" : "speedup");
              fprintf(gp.fp, "%s\nplot ",
                      ns > 1 && sizes[ns - 1] / sizes[0] >= 8 ? "set logscale x 2" : "unset logscale x");
              if (!(pngs = realloc(pngs, (size_t)(npng + 1) * sizeof *pngs)) || !(pngs[npng++] = strdup(png))) {
                fupermod_atomic_abort(&gp);
                rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
                goto fail;
              }
            }
            fprintf(gp.fp, "%s'%s' index %d using 1:%d:%d:%d with yerrorlines lw 2 pt 7 title '%s'", first ? "" : ", ",
                    dat, p, m ? 5 : 2, m ? 6 : 3, m ? 7 : 4, parts[p]);
            first = 0;
          }
          if (!first) fprintf(gp.fp, ", %d with lines dt 2 lc rgb 'gray' notitle\nset output\n", m ? 0 : 1);
        }
      }
    if ((rc = fupermod_atomic_commit(&gp)) != FUPERMOD_SUCCESS) goto fail;
    /* gnuplot writes NAME.png.tmp; each is renamed into place once gnuplot has finished */
    if (npng == 0) {
      fprintf(stderr, "fupermod campaign: no speedup to plot (no %s runs and no even_time in the results)\n", baseline);
    } else if (tool_gnuplot(gpath) != 0) {
      fprintf(stderr, "fupermod campaign: gnuplot not available or failed; the plot script is %s\n", gpath);
    } else {
      for (int i = 0; i < npng; i++) {
        char tmp[4900];
        snprintf(tmp, sizeof tmp, "%s.tmp", pngs[i]);
        if (rename(tmp, pngs[i]) != 0)
          fprintf(stderr, "fupermod campaign: %s: %s\n", tmp, strerror(errno));
      }
      fprintf(stderr, "fupermod campaign: tables in %s/summary.csv, %d plots in %s\n", outdir, npng, outdir);
    }
    for (int i = 0; i < npng; i++) free(pngs[i]);
    free(pngs);
  }
#undef CELL
  goto out;
fail:
  status = tool_fail(SUB, rc);
out:
  free(cells);
  free(refs);
  free(sizes);
  free(apps);
  free(confs);
  free(parts);
  camp_rows_free(rows, nrows);
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
    default: return tool_usage(SUB, "unknown option");
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
