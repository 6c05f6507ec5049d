#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fupermod/error.h"
#include "fupermod/lines.h"
#include "fupermod/util.h"

int fupermod_read_file(const char *path, char **text, size_t *len) {
  struct stat st;
  FILE *fp;
  size_t cap = 4096, n = 0;
  char *buf;
  if (!path) return fupermod_error(FUPERMOD_ERR_USAGE, "no file name given");
  if (stat(path, &st) != 0)
    return fupermod_error(FUPERMOD_ERR_INPUT, "%s: %s", path, strerror(errno));
  if (S_ISDIR(st.st_mode))
    return fupermod_error(FUPERMOD_ERR_INPUT, "%s: is a directory, not a file", path);
  fp = fopen(path, "rb");
  if (!fp) return fupermod_error(FUPERMOD_ERR_INPUT, "%s: %s", path, strerror(errno));
  buf = malloc(cap);
  if (!buf) {
    fclose(fp);
    return fupermod_error(FUPERMOD_ERR_NOMEM, "%s: out of memory", path);
  }
  for (;;) {
    size_t r;
    if (n + 1 >= cap) {
      char *nb = realloc(buf, cap * 2);
      if (!nb) {
        free(buf);
        fclose(fp);
        return fupermod_error(FUPERMOD_ERR_NOMEM, "%s: out of memory", path);
      }
      buf = nb;
      cap *= 2;
    }
    r = fread(buf + n, 1, cap - n - 1, fp);
    n += r;
    if (r == 0) break;
  }
  if (ferror(fp)) {
    free(buf);
    fclose(fp);
    return fupermod_error(FUPERMOD_ERR_INPUT, "%s: read error", path);
  }
  fclose(fp);
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
