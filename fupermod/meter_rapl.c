/* RAPL meter: Linux powercap counters ROOT/intel-rapl:N[:M]/energy_uj (microjoules), which wrap
 * to 0 after max_energy_range_uj. Zones are chosen by their `name` file (package-N, dram, core,
 * uncore, psys); the default package+dram covers a socket without counting sub-zones twice.
 * intel-rapl-mmio zones repeat the package counter and are never read. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fupermod/conf.h"
#include "fupermod/meter_impl.h"

enum { DOM_PACKAGE = 1, DOM_DRAM = 2, DOM_CORE = 4, DOM_UNCORE = 8, DOM_PSYS = 16 };

static const struct {
  const char *name;
  int bit;
} domains[] = {{"package", DOM_PACKAGE}, {"dram", DOM_DRAM}, {"core", DOM_CORE}, {"uncore", DOM_UNCORE}, {"psys", DOM_PSYS}};

typedef struct {
  char *energy; /* path of energy_uj */
  double max_uj;
  double last_uj;
  double acc_uj; /* energy since creation */
} zone;

typedef struct {
  int n;
  zone *z;
} rapl;

/* Read one unsigned decimal counter; errors name the file. */
static int read_counter(const char *path, double *out) {
  char buf[64];
  char *end;
  ssize_t n;
  unsigned long long v;
  int fd = open(path, O_RDONLY);
  if (fd < 0) {
    if (errno == EACCES)
      return fupermod_error(FUPERMOD_ERR_SYSTEM, "%s: permission denied (energy_uj is readable by root only since Linux 5.10)",
                            path);
    return fupermod_error(errno == ENOENT ? FUPERMOD_ERR_NODEVICE : FUPERMOD_ERR_SYSTEM, "%s: %s", path,
                          strerror(errno));
  }
  n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n < 0) return fupermod_error(FUPERMOD_ERR_SYSTEM, "%s: %s", path, strerror(errno));
  buf[n] = '\0';
  while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' ' || buf[n - 1] == '\r')) buf[--n] = '\0';
  errno = 0;
  v = strtoull(buf, &end, 10);
  if (n == 0 || *end || buf[0] == '-' || errno)
    return fupermod_error(FUPERMOD_ERR_INPUT, "%s: '%s' is not a counter value", path, buf);
  *out = (double)v;
  return FUPERMOD_SUCCESS;
}

static int read_name(const char *path, char *buf, size_t size) {
  FILE *fp = fopen(path, "r");
  size_t n;
  if (!fp) return fupermod_error(FUPERMOD_ERR_NODEVICE, "%s: %s", path, strerror(errno));
  n = fread(buf, 1, size - 1, fp);
  fclose(fp);
  buf[n] = '\0';
  while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' ')) buf[--n] = '\0';
  return FUPERMOD_SUCCESS;
}

/* "intel-rapl:N" or "intel-rapl:N:M"; package index in *pkg. */
static int zone_entry(const char *s, long *pkg) {
  const char *p = s + 11;
  char *end;
  if (strncmp(s, "intel-rapl:", 11) != 0 || *p < '0' || *p > '9') return 0;
  *pkg = strtol(p, &end, 10);
  if (*end == '\0') return 1;
  if (*end != ':' || end[1] < '0' || end[1] > '9') return 0;
  strtol(end + 1, &end, 10);
  return *end == '\0';
}

static int classify(const char *name) {
  if (strncmp(name, "package-", 8) == 0) return DOM_PACKAGE;
  for (size_t i = 1; i < sizeof domains / sizeof domains[0]; i++)
    if (strcmp(name, domains[i].name) == 0) return domains[i].bit;
  return 0;
}

static int parse_domains(const char *s, int *mask) {
  *mask = 0;
  while (*s) {
    const char *e = strchr(s, '+');
    size_t n = e ? (size_t)(e - s) : strlen(s);
    int bit = 0;
    for (size_t i = 0; i < sizeof domains / sizeof domains[0]; i++)
      if (strlen(domains[i].name) == n && strncmp(domains[i].name, s, n) == 0) bit = domains[i].bit;
    if (!bit)
      return fupermod_error(FUPERMOD_ERR_USAGE, "rapl_domains: '%.*s' is not one of package, dram, core, uncore, psys",
                            (int)n, s);
    *mask |= bit;
    s += n + (e ? 1 : 0);
  }
  if (!*mask) return fupermod_error(FUPERMOD_ERR_USAGE, "rapl_domains: empty list");
  return FUPERMOD_SUCCESS;
}

static int rapl_read(fupermod_meter *m, double *joules) {
  rapl *r = m->impl;
  double sum = 0.0;
  for (int i = 0; i < r->n; i++) {
    zone *z = &r->z[i];
    double cur;
    int rc = read_counter(z->energy, &cur);
    if (rc != FUPERMOD_SUCCESS) return rc;
    if (cur > z->max_uj)
      return fupermod_error(FUPERMOD_ERR_INPUT, "%s: %.0f is above max_energy_range_uj %.0f", z->energy, cur, z->max_uj);
    /* one wrap between two reads at most: the counter restarts from 0 after max_energy_range_uj */
    z->acc_uj += cur >= z->last_uj ? cur - z->last_uj : cur + (z->max_uj - z->last_uj);
    z->last_uj = cur;
    sum += z->acc_uj;
  }
  *joules = sum * 1e-6;
  return FUPERMOD_SUCCESS;
}

static void rapl_destroy(fupermod_meter *m) {
  rapl *r = m->impl;
  if (!r) return;
  for (int i = 0; i < r->n; i++) free(r->z[i].energy);
  free(r->z);
  free(r);
}

static const fupermod_meter_ops ops = {"rapl", rapl_read, NULL, rapl_destroy};

int fupermod_meter_rapl_create(fupermod_meter *m, const char *subopts) {
  static const char *const known[] = {"rapl_root", "rapl_domains", "rapl_package", NULL};
  char root[2048], dbuf[128] = "package+dram", path[4096], name[64];
  struct dirent **ents = NULL;
  long want_pkg = -1;
  int mask, rc, n, got;
  rapl *r;
  char *zones = NULL;
  m->ops = &ops;
  if ((rc = fupermod_meter_opt_check(subopts, "rapl_", known)) != FUPERMOD_SUCCESS) return rc;
  got = fupermod_subopt_get(subopts, "rapl_root", root, sizeof root);
  if (got < 0) return got;
  if (!got) {
    const char *env = getenv("FUPERMOD_POWERCAP_ROOT");
    snprintf(root, sizeof root, "%s", env && *env ? env : "/sys/class/powercap");
  }
  if ((got = fupermod_subopt_get(subopts, "rapl_domains", dbuf, sizeof dbuf)) < 0) return got;
  if ((rc = parse_domains(dbuf, &mask)) != FUPERMOD_SUCCESS) return rc;
  if ((got = fupermod_meter_opt_long(subopts, "rapl_package", &want_pkg)) < 0) return got;
  if (got && want_pkg < 0) return fupermod_error(FUPERMOD_ERR_USAGE, "rapl_package=%ld: must be >= 0", want_pkg);
  r = calloc(1, sizeof *r);
  if (!r) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  m->impl = r;
  n = scandir(root, &ents, NULL, alphasort);
  if (n < 0)
    return fupermod_error(FUPERMOD_ERR_NODEVICE, "%s: %s (no powercap RAPL interface here; see docs/energy.md)", root,
                          strerror(errno));
  rc = FUPERMOD_SUCCESS;
  for (int i = 0; i < n && rc == FUPERMOD_SUCCESS; i++) {
    long pkg;
    int bit;
    zone *nz;
    if (!zone_entry(ents[i]->d_name, &pkg) || (want_pkg >= 0 && pkg != want_pkg)) continue;
    snprintf(path, sizeof path, "%s/%s/name", root, ents[i]->d_name);
    if ((rc = read_name(path, name, sizeof name)) != FUPERMOD_SUCCESS) break;
    if (!((bit = classify(name)) & mask)) continue;
    if (!(nz = realloc(r->z, (size_t)(r->n + 1) * sizeof *nz))) {
      rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
      break;
    }
    r->z = nz;
    memset(&r->z[r->n], 0, sizeof *nz);
    snprintf(path, sizeof path, "%s/%s/max_energy_range_uj", root, ents[i]->d_name);
    if ((rc = read_counter(path, &r->z[r->n].max_uj)) != FUPERMOD_SUCCESS) break;
    if (!(r->z[r->n].max_uj > 0)) {
      rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s: the range must be > 0", path);
      break;
    }
    snprintf(path, sizeof path, "%s/%s/energy_uj", root, ents[i]->d_name);
    if (!(r->z[r->n].energy = strdup(path))) {
      rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
      break;
    }
    r->n++;
    if ((rc = read_counter(path, &r->z[r->n - 1].last_uj)) != FUPERMOD_SUCCESS) break;
    {
      size_t cur = zones ? strlen(zones) : 0, add = strlen(ents[i]->d_name) + 2;
      char *nzs = realloc(zones, cur + add);
      if (!nzs) {
        rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
        break;
      }
      zones = nzs;
      snprintf(zones + cur, add, "%s%s", cur ? "," : "", ents[i]->d_name);
    }
  }
  for (int i = 0; i < n; i++) free(ents[i]);
  free(ents);
  if (rc == FUPERMOD_SUCCESS && r->n == 0) {
    if (want_pkg >= 0)
      rc = fupermod_error(FUPERMOD_ERR_NODEVICE, "%s: no RAPL zone of domains %s in package %ld", root, dbuf, want_pkg);
    else rc = fupermod_error(FUPERMOD_ERR_NODEVICE, "%s: no RAPL zone of domains %s", root, dbuf);
  }
  if (rc == FUPERMOD_SUCCESS) {
    m->domain = fupermod_meter_strdupf("rapl:%s:%s", root, zones);
    m->description = fupermod_meter_strdupf("rapl (%s: %s)", dbuf, zones);
    if (!m->domain || !m->description) rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  }
  free(zones);
  return rc;
}
