#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "fupermod/error.h"
#include "fupermod/lines.h"
#include "fupermod/util.h"

int fupermod_read_file(const char *path, char **text, size_t *len) {
  struct stat st;
  size_t cap, n = 0;
  char *buf;
  int fd;
  if (!path) return fupermod_error(FUPERMOD_ERR_USAGE, "no file name given");
  /* open, fstat, one read of the whole size and one that finds the end: a partition reads tens of
   * files, and each system call costs on a VM */
  if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) return fupermod_error(FUPERMOD_ERR_INPUT, "%s: %s", path, strerror(errno));
  if (fstat(fd, &st) != 0) {
    int err = errno;
    close(fd);
    return fupermod_error(FUPERMOD_ERR_INPUT, "%s: %s", path, strerror(err));
  }
  if (S_ISDIR(st.st_mode)) {
    close(fd);
    return fupermod_error(FUPERMOD_ERR_INPUT, "%s: is a directory, not a file", path);
  }
  /* room for the size, the end-finding read of 1 byte and the '\0' (with one byte less, that
   * read would first double the buffer); a pipe or a special file says 0: grown as it comes */
  cap = S_ISREG(st.st_mode) && st.st_size > 0 ? (size_t)st.st_size + 2 : 4096;
  if (!(buf = malloc(cap))) {
    close(fd);
    return fupermod_error(FUPERMOD_ERR_NOMEM, "%s: out of memory", path);
  }
  for (;;) {
    ssize_t r;
    if (n + 1 >= cap) {
      char *nb = realloc(buf, cap * 2);
      if (!nb) {
        free(buf);
        close(fd);
        return fupermod_error(FUPERMOD_ERR_NOMEM, "%s: out of memory", path);
      }
      buf = nb;
      cap *= 2;
    }
    r = read(fd, buf + n, cap - n - 1);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      int err = errno;
      free(buf);
      close(fd);
      return fupermod_error(FUPERMOD_ERR_INPUT, "%s: read error: %s", path, strerror(err));
    }
    if (r == 0) break;
    n += (size_t)r;
  }
  close(fd);
  buf[n] = '\0';
  *text = buf;
  if (len) *len = n;
  return FUPERMOD_SUCCESS;
}

int fupermod_atomic_open(fupermod_atomic_file *af, const char *path) {
  size_t n = strlen(path);
  int fd;
  af->fp = NULL;
  af->path = strdup(path);
  af->tmp = malloc(n + 16);
  if (!af->path || !af->tmp) {
    free(af->path);
    free(af->tmp);
    return fupermod_error(FUPERMOD_ERR_NOMEM, "%s: out of memory", path);
  }
  snprintf(af->tmp, n + 16, "%s.tmpXXXXXX", path);
  fd = mkstemp(af->tmp);
  if (fd < 0) {
    int rc = fupermod_error(FUPERMOD_ERR_SYSTEM, "%s: cannot create temporary file: %s", path,
                            strerror(errno));
    free(af->path);
    free(af->tmp);
    return rc;
  }
  fchmod(fd, 0644);
  af->fp = fdopen(fd, "w");
  if (!af->fp) {
    close(fd);
    unlink(af->tmp);
    free(af->path);
    free(af->tmp);
    return fupermod_error(FUPERMOD_ERR_SYSTEM, "%s: %s", path, strerror(errno));
  }
  return FUPERMOD_SUCCESS;
}

int fupermod_atomic_commit(fupermod_atomic_file *af) {
  int rc = FUPERMOD_SUCCESS;
  if (fflush(af->fp) != 0 || fsync(fileno(af->fp)) != 0 || ferror(af->fp))
    rc = fupermod_error(FUPERMOD_ERR_SYSTEM, "%s: write failed: %s", af->path, strerror(errno));
  if (fclose(af->fp) != 0 && rc == FUPERMOD_SUCCESS)
    rc = fupermod_error(FUPERMOD_ERR_SYSTEM, "%s: write failed: %s", af->path, strerror(errno));
  af->fp = NULL;
  if (rc == FUPERMOD_SUCCESS && rename(af->tmp, af->path) != 0)
    rc = fupermod_error(FUPERMOD_ERR_SYSTEM, "%s: cannot rename temporary file: %s", af->path,
                        strerror(errno));
  if (rc != FUPERMOD_SUCCESS) unlink(af->tmp);
  free(af->path);
  free(af->tmp);
  af->path = af->tmp = NULL;
  return rc;
}

void fupermod_atomic_abort(fupermod_atomic_file *af) {
  if (af->fp) fclose(af->fp);
  if (af->tmp) unlink(af->tmp);
  free(af->path);
  free(af->tmp);
  af->fp = NULL;
  af->path = af->tmp = NULL;
}

int fupermod_parse_long(const char *s, long *out) {
  char *end;
  long v;
  if (!s || !*s) return -1;
  errno = 0;
  v = strtol(s, &end, 10);
  if (errno || *end) return -1;
  *out = v;
  return 0;
}

int fupermod_parse_bytes(const char *s, double *out) {
  char *end;
  double v = strtod(s, &end), f = 1.0;
  if (end == s) return -1;
  if (*end == 'K' || *end == 'k') f = 1024.0, end++;
  else if (*end == 'M' || *end == 'm') f = 1024.0 * 1024.0, end++;
  else if (*end == 'G' || *end == 'g') f = 1024.0 * 1024.0 * 1024.0, end++;
  if (*end || !(v >= 0) || v * f > 1e18) return -1;
  *out = v * f;
  return 0;
}

int fupermod_parse_double(const char *s, double *out) {
  char *end;
  double v;
  if (!s || !*s) return -1;
  if (fupermod_lines_decimal(s, s + strlen(s), out) == 0) return 0;
  errno = 0;
  v = strtod(s, &end);
  if (errno == ERANGE && fabs(v) > 1.0) return -1;
  if (*end || !isfinite(v)) return -1;
  *out = v;
  return 0;
}

int fupermod_mkdir_p(const char *path) {
  char buf[4096];
  size_t n = strlen(path);
  if (n == 0 || n >= sizeof buf) return fupermod_error(FUPERMOD_ERR_USAGE, "bad directory name");
  memcpy(buf, path, n + 1);
  for (char *p = buf + 1; *p; p++) {
    if (*p != '/') continue;
    *p = '\0';
    if (mkdir(buf, 0755) != 0 && errno != EEXIST)
      return fupermod_error(FUPERMOD_ERR_SYSTEM, "%s: %s", buf, strerror(errno));
    *p = '/';
  }
  if (mkdir(buf, 0755) != 0 && errno != EEXIST)
    return fupermod_error(FUPERMOD_ERR_SYSTEM, "%s: %s", buf, strerror(errno));
  return FUPERMOD_SUCCESS;
}

/* Damerau-free Levenshtein distance, capped: names are short option words. */
static size_t edit_distance(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b), row[64];
  if (la >= 64 || lb >= 64) return (size_t)-1;
  for (size_t j = 0; j <= lb; j++) row[j] = j;
  for (size_t i = 1; i <= la; i++) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= lb; j++) {
      size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);
      if (up + 1 < best) best = up + 1;
      if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
      diag = up;
      row[j] = best;
    }
  }
  return row[lb];
}

const char *fupermod_closest_name(const char *word, const char *const *names, size_t n) {
  const char *best = NULL;
  size_t bestd = (size_t)-1;
  if (!word || !names) return NULL;
  for (size_t i = 0; i < n; i++) {
    size_t d;
    if (!names[i]) continue;
    d = edit_distance(word, names[i]);
    if (d < bestd) bestd = d, best = names[i];
  }
  /* a suggestion only where it is plausibly a typo: a third of the word's letters, at least 2 */
  size_t len = strlen(word), limit = len / 3 > 2 ? len / 3 : 2;
  return bestd <= limit && bestd < len ? best : NULL;
}

void fupermod_test_hold(const char *point) {
  const char *env = getenv("FUPERMOD_TEST_HOLD");
  size_t n = strlen(point);
  if (!env || strncmp(env, point, n) != 0 || env[n] != ':' || !env[n + 1]) return;
  const char *dir = env + n + 1;
  char held[4096], release[4096], host[256] = "";
  gethostname(host, sizeof host - 1); /* processes of several nodes may share one process id */
  if (snprintf(held, sizeof held, "%s/held.%s.%ld", dir, host, (long)getpid()) >= (int)sizeof held ||
      snprintf(release, sizeof release, "%s/release", dir) >= (int)sizeof release)
    return;
  int fd = open(held, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return; /* no marker, no hold: the test sees the process never arrived */
  close(fd);
  /* bounded, so that a test that forgets to release cannot hang a job for ever */
  const struct timespec nap = {0, 10000000};
  for (int i = 0; i < 60000 && access(release, F_OK) != 0; i++) nanosleep(&nap, NULL);
}
