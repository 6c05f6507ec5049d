/* Emulated meter, for tests and machines without meters: a counter that grows by meter_idle
 * watts all the time and by e(d) joules at the end of every run of d units, e(d) from a point
 * file with energies (linear between points, constant energy per unit outside them, as the
 * emulated kernel does). Measures this process only, unless meter_node=NAME: then the processes
 * of a node that give the same NAME share one counter (a file), as a node's wattmeter does, and a
 * run that overlapped another process's run costs (1 + meter_extra) e(d): energy that does not
 * add up, for the additivity check. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>
#include "fupermod/benchmark.h"
#include "fupermod/conf.h"
#include "fupermod/meter_impl.h"
#include "fupermod/point.h"

/* The shared counter of a node meter: its creation time (the idle baseline's origin), the run
 * energy so far, and each process's last run, by slot. Kept in a file under a flock. */
#define NODE_SLOTS 256
typedef struct {
  double t0, dyn;
  struct {
    long pid;
    double start, end, e;
    int paid; /* its extra for overlapping another run was counted */
  } last[NODE_SLOTS];
} node_state;

typedef struct {
  fupermod_points pts;
  double idle;  /* W */
  double t0;    /* creation */
  double dyn;   /* J of the runs so far */
  int node;     /* -1: this process's own counter; else the shared file */
  double extra; /* a run that overlapped another's costs 1 + extra times its energy */
  double noise; /* relative sd of a run's energy */
  uint64_t rng;
} emulated;

/* A run's energy times 1 + noise z, z uniform with sd 1 (splitmix64). */
static double noisy(emulated *e, double j) {
  uint64_t z;
  if (e->noise == 0) return j;
  z = (e->rng += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  return j * (1.0 + e->noise * sqrt(3.0) * (2.0 * (double)(z >> 11) / 9007199254740992.0 - 1.0));
}

static int node_io(int fd, node_state *st, int write_back) {
  ssize_t n = write_back ? pwrite(fd, st, sizeof *st, 0) : pread(fd, st, sizeof *st, 0);
  return n == (ssize_t)sizeof *st ? FUPERMOD_SUCCESS
                                  : fupermod_error(FUPERMOD_ERR_SYSTEM, "emulated node meter: %s of its counter failed",
                                                   write_back ? "the write" : "the read");
}

static int emulated_read(fupermod_meter *m, double *joules) {
  emulated *e = m->impl;
  node_state st;
  int rc;
  if (e->node < 0) {
    *joules = e->idle * (fupermod_time() - e->t0) + e->dyn;
    return FUPERMOD_SUCCESS;
  }
  flock(e->node, LOCK_SH);
  rc = node_io(e->node, &st, 0);
  flock(e->node, LOCK_UN);
  if (rc == FUPERMOD_SUCCESS) *joules = e->idle * (fupermod_time() - st.t0) + st.dyn;
  return rc;
}

static int emulated_note_run(fupermod_meter *m, long d) {
  emulated *e = m->impl;
  node_state st;
  double now = fupermod_time(), t, j;
  int rc, slot = -1, oldest = 0, overlap = 0;
  long me = (long)getpid();
  if (d < 1) return fupermod_error(FUPERMOD_ERR_USAGE, "emulated meter: a run of %ld units", d);
  j = noisy(e, fupermod_points_linear(&e->pts, d, 1));
  if (e->node < 0) {
    e->dyn += j;
    return FUPERMOD_SUCCESS;
  }
  t = fupermod_points_linear(&e->pts, d, 0);
  flock(e->node, LOCK_EX);
  if ((rc = node_io(e->node, &st, 0)) == FUPERMOD_SUCCESS) {
    for (int i = 0; i < NODE_SLOTS; i++) {
      if (st.last[i].pid == me || (slot < 0 && st.last[i].pid == 0)) slot = i;
      /* another's run overlapped a tenth of this one at least (wake-up jitter is not overlap):
       * both pay the extra, the one that ended first only now that the overlap is known */
      else if (st.last[i].pid != 0 && st.last[i].end > now - 0.9 * t && st.last[i].start < now - 0.1 * t) {
        overlap = 1;
        if (!st.last[i].paid) st.dyn += e->extra * st.last[i].e;
        st.last[i].paid = 1;
      }
      if (st.last[i].end < st.last[oldest].end) oldest = i;
    }
    if (slot < 0) slot = oldest; /* the processes of earlier jobs */
  }
  if (rc == FUPERMOD_SUCCESS) {
    st.last[slot].pid = me;
    st.last[slot].start = now - t;
    st.last[slot].end = now;
    st.last[slot].e = j;
    st.last[slot].paid = overlap;
    st.dyn += overlap ? (1.0 + e->extra) * j : j;
    rc = node_io(e->node, &st, 1);
  }
  flock(e->node, LOCK_UN);
  return rc;
}

static void emulated_destroy(fupermod_meter *m) {
  emulated *e = m->impl;
  if (!e) return;
  if (e->node >= 0) close(e->node);
  fupermod_points_free(&e->pts);
  free(e);
}

/* The node counter NAME: a file in /dev/shm (or NAME itself when it is a path), created by the
 * first process of the node that opens it. */
static int node_open(emulated *e, const char *name, char *path, size_t size) {
  node_state st;
  struct stat sb;
  if (strchr(name, '/')) snprintf(path, size, "%s", name);
  else snprintf(path, size, "/dev/shm/fupermod-meter-%s", name);
  if ((e->node = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644)) < 0)
    return fupermod_error(FUPERMOD_ERR_SYSTEM, "emulated node meter %s: %s", path, strerror(errno));
  flock(e->node, LOCK_EX);
  if (fstat(e->node, &sb) == 0 && sb.st_size < (off_t)sizeof st) {
    memset(&st, 0, sizeof st);
    st.t0 = fupermod_time();
    if (node_io(e->node, &st, 1) != FUPERMOD_SUCCESS) {
      flock(e->node, LOCK_UN);
      return fupermod_error_prefix(FUPERMOD_ERR_SYSTEM, "%s", path);
    }
  }
  flock(e->node, LOCK_UN);
  return FUPERMOD_SUCCESS;
}

static const fupermod_meter_ops ops = {"emulated", emulated_read, emulated_note_run, emulated_destroy};

int fupermod_meter_emulated_create(fupermod_meter *m, const char *subopts) {
  static const char *const known[] = {"meter_points", "meter_idle", "meter_node", "meter_extra", "meter_noise", NULL};
  char file[4096], node[512], path[600];
  emulated *e;
  int got, rc;
  m->ops = &ops;
  if ((rc = fupermod_meter_opt_check(subopts, "meter_", known)) != FUPERMOD_SUCCESS) return rc;
  if ((got = fupermod_subopt_get(subopts, "meter_points", file, sizeof file)) < 0) return got;
  if (!got && (got = fupermod_subopt_get(subopts, "points", file, sizeof file)) < 0) return got;
  if (!got) return fupermod_error(FUPERMOD_ERR_USAGE, "the emulated meter needs meter_points=FILE (or points=FILE)");
  if (!(e = calloc(1, sizeof *e))) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  m->impl = e;
  e->node = -1;
  if ((got = fupermod_meter_opt_double(subopts, "meter_idle", &e->idle)) < 0) return got;
  if (!(e->idle >= 0)) return fupermod_error(FUPERMOD_ERR_USAGE, "meter_idle=%g: must be >= 0 (W)", e->idle);
  if ((got = fupermod_meter_opt_double(subopts, "meter_extra", &e->extra)) < 0) return got;
  if (!(e->extra > -1 && e->extra < 1e6))
    return fupermod_error(FUPERMOD_ERR_USAGE, "meter_extra=%g: must be above -1 (a factor 1 + meter_extra)", e->extra);
  if ((got = fupermod_meter_opt_double(subopts, "meter_noise", &e->noise)) < 0) return got;
  if (!(e->noise >= 0 && e->noise < 0.5))
    return fupermod_error(FUPERMOD_ERR_USAGE, "meter_noise=%g: must be in [0, 0.5) (relative sd of a run's energy)", e->noise);
  e->rng = (uint64_t)getpid() * 0x2545F4914F6CDD1DULL;
  if ((got = fupermod_subopt_get(subopts, "meter_node", node, sizeof node)) < 0) return got;
  if (!got && e->extra != 0)
    return fupermod_error(FUPERMOD_ERR_USAGE, "meter_extra applies to a node meter (meter_node=NAME)");
  if ((rc = fupermod_points_load(file, &e->pts)) != FUPERMOD_SUCCESS) return rc;
  if (!e->pts.has_energy)
    return fupermod_error(FUPERMOD_ERR_INPUT, "%s: the emulated meter needs energies (fields e e_ci) on every line", file);
  e->t0 = fupermod_time();
  if (got) {
    if ((rc = node_open(e, node, path, sizeof path)) != FUPERMOD_SUCCESS) return rc;
    m->domain = fupermod_meter_strdupf("emulated-node:%s", path);
    m->description = fupermod_meter_strdupf("emulated node meter (%s, %s, idle %g W, extra %g)", path, file, e->idle,
                                            e->extra);
  } else
    m->description = fupermod_meter_strdupf("emulated (%s, idle %g W)", file, e->idle);
  if (!m->description || (got && !m->domain)) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  return FUPERMOD_SUCCESS;
}
