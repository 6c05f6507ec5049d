/* Command meter: an external meter (a WattsUp-like wall-plug device) behind a user command that
 * prints the cumulative energy in joules as its last output line. It runs with /bin/sh -c in its
 * own process group and is killed after meter_timeout seconds, so a stuck meter cannot hang a
 * benchmark. A node meter: processes running the same command share it. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* pipe2 */
#endif
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "fupermod/benchmark.h"
#include "fupermod/conf.h"
#include "fupermod/meter_impl.h"
#include "fupermod/util.h"

extern char **environ;

typedef struct {
  char *cmd;
  double timeout;
  double last;
  int has_last;
} command;

/* Run the command; its stdout (up to size-1 bytes) in out, stderr (truncated) in err. */
static int run(const command *c, char *out, size_t size, char *err, size_t esize) {
  int po[2], pe[2], status = 0, rc = FUPERMOD_SUCCESS, timed_out = 0;
  size_t no = 0, ne = 0;
  pid_t pid;
  posix_spawn_file_actions_t fa;
  posix_spawnattr_t at;
  char *argv[] = {"sh", "-c", c->cmd, NULL};
  double deadline;
  struct pollfd fds[2];
  if (pipe2(po, O_CLOEXEC) != 0) return fupermod_error(FUPERMOD_ERR_SYSTEM, "pipe: %s", strerror(errno));
  if (pipe2(pe, O_CLOEXEC) != 0) {
    close(po[0]);
    close(po[1]);
    return fupermod_error(FUPERMOD_ERR_SYSTEM, "pipe: %s", strerror(errno));
  }
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, po[1], 1);
  posix_spawn_file_actions_adddup2(&fa, pe[1], 2);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawnattr_init(&at);
  posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&at, 0);
  errno = posix_spawn(&pid, "/bin/sh", &fa, &at, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&at);
  close(po[1]);
  close(pe[1]);
  if (errno != 0) {
    close(po[0]);
    close(pe[0]);
    return fupermod_error(FUPERMOD_ERR_SYSTEM, "cannot start /bin/sh: %s", strerror(errno));
  }
  deadline = fupermod_time() + c->timeout;
  fds[0].fd = po[0];
  fds[1].fd = pe[0];
  fds[0].events = fds[1].events = POLLIN;
  while (fds[0].fd >= 0 || fds[1].fd >= 0) {
    double left = deadline - fupermod_time();
    int pr;
    if (left <= 0) {
      timed_out = 1;
      break;
    }
    pr = poll(fds, 2, (int)(left * 1000) + 1);
    if (pr < 0 && errno == EINTR) continue;
    if (pr < 0) {
      rc = fupermod_error(FUPERMOD_ERR_SYSTEM, "poll: %s", strerror(errno));
      break;
    }
    for (int i = 0; i < 2; i++) {
      char tmp[512];
      ssize_t r;
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      r = read(fds[i].fd, tmp, sizeof tmp);
      if (r <= 0) {
        close(fds[i].fd);
        fds[i].fd = -1;
        continue;
      }
      if (i == 0) {
        size_t k = (size_t)r < size - 1 - no ? (size_t)r : size - 1 - no;
        memcpy(out + no, tmp, k);
        no += k;
      } else {
        size_t k = (size_t)r < esize - 1 - ne ? (size_t)r : esize - 1 - ne;
        memcpy(err + ne, tmp, k);
        ne += k;
      }
    }
  }
  out[no] = '\0';
  err[ne] = '\0';
  if (fds[0].fd >= 0) close(fds[0].fd);
  if (fds[1].fd >= 0) close(fds[1].fd);
  if (timed_out) kill(-pid, SIGKILL); /* the whole group: sh and whatever it started */
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (rc != FUPERMOD_SUCCESS) return rc;
  if (timed_out)
    return fupermod_error(FUPERMOD_ERR_SYSTEM, "meter command '%s' did not finish within %g s (meter_timeout)", c->cmd,
                          c->timeout);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    char *nl;
    while ((nl = strchr(err, '\n')) && nl[1] == '\0') *nl = '\0';
    if (WIFEXITED(status))
      return fupermod_error(FUPERMOD_ERR_SYSTEM, "meter command '%s' failed with exit status %d%s%s", c->cmd,
                            WEXITSTATUS(status), *err ? ": " : "", err);
    return fupermod_error(FUPERMOD_ERR_SYSTEM, "meter command '%s' was killed by signal %d", c->cmd, WTERMSIG(status));
  }
  return FUPERMOD_SUCCESS;
}

static int command_read(fupermod_meter *m, double *joules) {
  command *c = m->impl;
  char out[4096], err[512], *line, *end;
  double v;
  int rc = run(c, out, sizeof out, err, sizeof err);
  if (rc != FUPERMOD_SUCCESS) return rc;
  /* the last non-empty line, surrounding blanks ignored */
  end = out + strlen(out);
  while (end > out && (end[-1] == '\n' || end[-1] == '\r' || end[-1] == ' ' || end[-1] == '\t')) *--end = '\0';
  line = strrchr(out, '\n');
  line = line ? line + 1 : out;
  while (*line == ' ' || *line == '\t') line++;
  if (!*line) return fupermod_error(FUPERMOD_ERR_INPUT, "meter command '%s' printed nothing (expected joules)", c->cmd);
  if (fupermod_parse_double(line, &v) || v < 0)
    return fupermod_error(FUPERMOD_ERR_INPUT, "meter command '%s' printed '%.80s', not a cumulative energy in joules",
                          c->cmd, line);
  if (c->has_last && v < c->last)
    return fupermod_error(FUPERMOD_ERR_INPUT, "meter command '%s': the cumulative energy went backwards (%g J, then %g J)",
                          c->cmd, c->last, v);
  c->last = v;
  c->has_last = 1;
  *joules = v;
  return FUPERMOD_SUCCESS;
}

static void command_destroy(fupermod_meter *m) {
  command *c = m->impl;
  if (!c) return;
  free(c->cmd);
  free(c);
}

static const fupermod_meter_ops ops = {"command", command_read, NULL, command_destroy};

int fupermod_meter_command_create(fupermod_meter *m, const char *subopts) {
  static const char *const known[] = {"meter_cmd", "meter_timeout", NULL};
  char cmd[2048];
  command *c;
  int got, rc;
  double timeout = 10.0, j;
  m->ops = &ops;
  if ((rc = fupermod_meter_opt_check(subopts, "meter_", known)) != FUPERMOD_SUCCESS) return rc;
  if ((got = fupermod_subopt_get(subopts, "meter_cmd", cmd, sizeof cmd)) < 0) return got;
  if (!got || !*cmd) return fupermod_error(FUPERMOD_ERR_USAGE, "the command meter needs meter_cmd=COMMAND");
  if ((got = fupermod_meter_opt_double(subopts, "meter_timeout", &timeout)) < 0) return got;
  if (!(timeout > 0 && timeout <= 3600))
    return fupermod_error(FUPERMOD_ERR_USAGE, "meter_timeout=%g: must be in (0, 3600] seconds", timeout);
  if (!(c = calloc(1, sizeof *c)) || !(c->cmd = strdup(cmd))) {
    free(c);
    return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  }
  c->timeout = timeout;
  m->impl = c;
  m->domain = fupermod_meter_strdupf("command:%s", cmd);
  m->description = fupermod_meter_strdupf("command (%s)", cmd);
  if (!m->domain || !m->description) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  /* one reading now: a broken meter is reported before any benchmark starts */
  return command_read(m, &j);
}
