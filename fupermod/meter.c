/* Energy meters: creation by name, intervals, the static-power probe (docs/energy.md). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* vasprintf */
#endif
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "fupermod/benchmark.h"
#include "fupermod/conf.h"
#include "fupermod/meter_impl.h"
#include "fupermod/mpi_thread.h"
#include "fupermod/option.h"
#include "fupermod/util.h"

static const char *const names[] = {"rapl", "nvml", "command", "emulated", "model", "external", NULL};

const char *const *fupermod_meter_names(void) { return names; }

/* What each meter reads from a line (docs/energy.md); the backends parse them. */
#define ANY 1, 0
static const fupermod_option common_opts[] = {
    {"meter", FUPERMOD_OPT_STRING, ANY, NULL, "the energy meter", "rapl|nvml|command|emulated|model|external"},
    {"attribution", FUPERMOD_OPT_STRING, ANY, "busy", "how a shared meter's energy is split between processes", "busy|solo"},
    {"static_power", FUPERMOD_OPT_DOUBLE, 0, 1e9, NULL, "the static power (W) taken out of measured energies", NULL},
    {"static_probe", FUPERMOD_OPT_DOUBLE, 1e-9, 3600, "1", "seconds of idle probe that measure the static power", NULL},
    FUPERMOD_OPTION_END};
static const fupermod_option rapl_opts[] = {
    {"rapl_root", FUPERMOD_OPT_STRING, ANY, "/sys/class/powercap", "the powercap tree ($FUPERMOD_POWERCAP_ROOT)", NULL},
    {"rapl_domains", FUPERMOD_OPT_STRING, ANY, "package", "zones to add up: package dram core uncore psys, joined by +", NULL},
    {"rapl_package", FUPERMOD_OPT_LONG, 0, 1023, NULL, "the package (socket) to read", NULL},
    FUPERMOD_OPTION_END};
static const fupermod_option nvml_opts[] = {
    {"nvml_device", FUPERMOD_OPT_LONG, 0, 1023, NULL, "NVML's index of the GPU (default: the line's device=)", NULL},
    {"nvml_pci", FUPERMOD_OPT_STRING, ANY, NULL, "the GPU's PCI bus id", NULL},
    {"nvml_lib", FUPERMOD_OPT_STRING, ANY, "libnvidia-ml.so.1", "the NVML library", NULL},
    FUPERMOD_OPTION_END};
static const fupermod_option command_opts[] = {
    {"meter_cmd", FUPERMOD_OPT_STRING, ANY, NULL, "a command whose last line is the cumulative energy (J)", NULL},
    {"meter_timeout", FUPERMOD_OPT_DOUBLE, 1e-3, 86400, "10", "seconds before a stuck command is killed", NULL},
    FUPERMOD_OPTION_END};
static const fupermod_option emulated_opts[] = {
    {"meter_points", FUPERMOD_OPT_STRING, ANY, NULL, "a point file of energies (default: the line's points=)", NULL},
    {"meter_idle", FUPERMOD_OPT_DOUBLE, 0, 1e9, "0", "idle power (W)", NULL},
    {"meter_node", FUPERMOD_OPT_STRING, ANY, NULL, "a name shared by the processes of one node meter", NULL},
    {"meter_extra", FUPERMOD_OPT_DOUBLE, 0, 1e3, "0", "extra energy of a run overlapping another (fraction)", NULL},
    {"meter_noise", FUPERMOD_OPT_DOUBLE, 0, 1, "0", "relative noise of the energies", NULL},
    {"points", FUPERMOD_OPT_STRING, ANY, NULL, "the emulated kernel's point file", NULL},
    FUPERMOD_OPTION_END};
static const fupermod_option model_opts[] = {
    {"meter_power", FUPERMOD_OPT_DOUBLE, 0, 1e9, NULL, "the dynamic power (W) the estimate assumes", NULL},
    FUPERMOD_OPTION_END};
static const fupermod_option external_opts[] = {
    {"meter_host", FUPERMOD_OPT_STRING, ANY, NULL, "the node's name in the power series (default: the host name)", NULL},
    FUPERMOD_OPTION_END};
#undef ANY

const fupermod_option *fupermod_meter_options(const char *name) {
  static const fupermod_option *const tables[] = {rapl_opts, nvml_opts, command_opts, emulated_opts, model_opts, external_opts};
  if (!name) return common_opts;
  for (int i = 0; names[i]; i++)
    if (strcmp(names[i], name) == 0) return tables[i];
  return NULL;
}

char *fupermod_meter_strdupf(const char *fmt, ...) {
  va_list ap;
  char *s = NULL;
  int n;
  va_start(ap, fmt);
  n = vasprintf(&s, fmt, ap);
  va_end(ap);
  return n < 0 ? NULL : s;
}

int fupermod_meter_opt_double(const char *subopts, const char *key, double *out) {
  char buf[256];
  int got = fupermod_subopt_get(subopts, key, buf, sizeof buf);
  if (got != 1) return got;
  if (fupermod_parse_double(buf, out))
    return fupermod_error(FUPERMOD_ERR_USAGE, "sub-option %s='%s' is not a number", key, buf);
  return 1;
}

int fupermod_meter_opt_long(const char *subopts, const char *key, long *out) {
  char buf[64];
  int got = fupermod_subopt_get(subopts, key, buf, sizeof buf);
  if (got != 1) return got;
  if (fupermod_parse_long(buf, out))
    return fupermod_error(FUPERMOD_ERR_USAGE, "sub-option %s='%s' is not an integer", key, buf);
  return 1;
}

int fupermod_meter_opt_check(const char *subopts, const char *prefix, const char *const *known) {
  const char *s = subopts;
  size_t pn = strlen(prefix);
  while (s && *s) {
    const char *end = strchr(s, ','), *eq;
    size_t n = end ? (size_t)(end - s) : strlen(s), kn;
    eq = memchr(s, '=', n);
    kn = eq ? (size_t)(eq - s) : n;
    if (kn >= pn && strncmp(s, prefix, pn) == 0) {
      int ok = 0;
      for (const char *const *k = known; *k; k++)
        if (strlen(*k) == kn && strncmp(*k, s, kn) == 0) ok = 1;
      if (!ok) {
        char list[256] = "";
        for (const char *const *k = known; *k; k++)
          snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", k == known ? "" : ", ", *k);
        return fupermod_error(FUPERMOD_ERR_USAGE, "sub-option '%.*s' does not apply to this meter (known: %s)",
                              (int)kn, s, *list ? list : "none");
      }
    }
    s = end ? end + 1 : NULL;
  }
  return FUPERMOD_SUCCESS;
}

int fupermod_meter_create(const char *name, const char *subopts, fupermod_meter **out) {
  fupermod_meter *m;
  int rc;
  char buf[32];
  if (!out) return fupermod_error(FUPERMOD_ERR_USAGE, "meter: NULL output");
  *out = NULL;
  if (!name) return fupermod_error(FUPERMOD_ERR_USAGE, "meter: no name given");
  if (!subopts) subopts = "";
  m = calloc(1, sizeof *m);
  if (!m) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  m->attribution = FUPERMOD_ATTRIB_BUSY;
  rc = fupermod_subopt_get(subopts, "attribution", buf, sizeof buf);
  if (rc == 1) {
    if (strcmp(buf, "busy") == 0) m->attribution = FUPERMOD_ATTRIB_BUSY;
    else if (strcmp(buf, "solo") == 0) m->attribution = FUPERMOD_ATTRIB_SOLO;
    else rc = fupermod_error(FUPERMOD_ERR_USAGE, "sub-option attribution='%s' must be busy or solo", buf);
  }
#ifdef FUPERMOD_SMPI
  /* SMPI: a hardware meter would read this machine, not the simulated host (docs/simulate.md) */
  if (rc >= 0 && (strcmp(name, "rapl") == 0 || strcmp(name, "nvml") == 0 || strcmp(name, "command") == 0))
    rc = fupermod_error(FUPERMOD_ERR_USAGE, "meter=%s measures the real machine, not a simulated host: the SMPI build "
                        "estimates energy with meter=model or meter=emulated (docs/simulate.md)", name);
#endif
  if (rc >= 0) {
    if (strcmp(name, "rapl") == 0) rc = fupermod_meter_rapl_create(m, subopts);
    else if (strcmp(name, "nvml") == 0) rc = fupermod_meter_nvml_create(m, subopts);
    else if (strcmp(name, "command") == 0) rc = fupermod_meter_command_create(m, subopts);
    else if (strcmp(name, "emulated") == 0) rc = fupermod_meter_emulated_create(m, subopts);
    else if (strcmp(name, "model") == 0) rc = fupermod_meter_model_create(m, subopts);
    else if (strcmp(name, "external") == 0) rc = fupermod_meter_external_create(m, subopts);
    else rc = fupermod_error(FUPERMOD_ERR_USAGE, "unknown meter '%s' (rapl, nvml, command, emulated, model, external)",
                             name);
  }
  if (rc < 0) {
    fupermod_meter_free(m);
    return rc;
  }
  if (!m->description) m->description = fupermod_meter_strdupf("%s", m->ops->name);
  if (!m->description) {
    fupermod_meter_free(m);
    return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  }
  *out = m;
  return FUPERMOD_SUCCESS;
}

int fupermod_meter_create_subopts(const char *subopts, fupermod_meter **out) {
  char name[64];
  int got;
  if (!out) return fupermod_error(FUPERMOD_ERR_USAGE, "meter: NULL output");
  *out = NULL;
  got = fupermod_subopt_get(subopts ? subopts : "", "meter", name, sizeof name);
  if (got < 0) return got;
  if (got == 0) return FUPERMOD_SUCCESS;
  return fupermod_meter_create(name, subopts, out);
}

void fupermod_meter_free(fupermod_meter *m) {
  if (!m) return;
  if (m->ops && m->ops->destroy) m->ops->destroy(m);
  free(m->domain);
  free(m->description);
  free(m);
}

const char *fupermod_meter_name(const fupermod_meter *m) { return m && m->ops ? m->ops->name : "none"; }
int fupermod_meter_is_estimate(const fupermod_meter *m) { return m ? m->estimate : 0; }
int fupermod_meter_is_external(const fupermod_meter *m) { return m ? m->external : 0; }
const char *fupermod_meter_domain(const fupermod_meter *m) { return m ? m->domain : NULL; }
int fupermod_meter_attribution(const fupermod_meter *m) { return m ? m->attribution : FUPERMOD_ATTRIB_BUSY; }
const char *fupermod_meter_describe(const fupermod_meter *m) { return m ? m->description : "none"; }

int fupermod_meter_set_attribution(fupermod_meter *m, int attribution) {
  if (!m) return fupermod_error(FUPERMOD_ERR_USAGE, "meter: NULL meter");
  if (attribution != FUPERMOD_ATTRIB_BUSY && attribution != FUPERMOD_ATTRIB_SOLO)
    return fupermod_error(FUPERMOD_ERR_USAGE, "meter: attribution %d is neither busy nor solo", attribution);
  m->attribution = attribution;
  return FUPERMOD_SUCCESS;
}

int fupermod_meter_read(fupermod_meter *m, double *joules, double *when) {
  double t0, t1, j;
  int rc;
  if (!m || !joules) return fupermod_error(FUPERMOD_ERR_USAGE, "meter read: NULL argument");
  t0 = fupermod_time();
  rc = m->ops->read(m, &j);
  t1 = fupermod_time();
  if (rc != FUPERMOD_SUCCESS) return fupermod_error_prefix(rc, "%s meter", m->ops->name);
  *joules = j;
  /* the middle of a slow read (an external command) is the best guess of its instant */
  if (when) *when = 0.5 * (t0 + t1);
  return FUPERMOD_SUCCESS;
}

int fupermod_meter_start(fupermod_meter *m) {
  int rc;
  if (!m) return fupermod_error(FUPERMOD_ERR_USAGE, "meter start: NULL meter");
  if ((rc = fupermod_meter_read(m, &m->start_j, &m->start_t)) != FUPERMOD_SUCCESS) return rc;
  m->started = 1;
  return FUPERMOD_SUCCESS;
}

int fupermod_meter_stop(fupermod_meter *m, double *joules, double *seconds) {
  double j, t;
  int rc;
  if (!m || !joules) return fupermod_error(FUPERMOD_ERR_USAGE, "meter stop: NULL argument");
  if (!m->started) return fupermod_error(FUPERMOD_ERR_USAGE, "%s meter: stop without start", m->ops->name);
  if ((rc = fupermod_meter_read(m, &j, &t)) != FUPERMOD_SUCCESS) return rc;
  m->started = 0;
  if (j < m->start_j)
    return fupermod_error(FUPERMOD_ERR_INPUT, "%s meter: the counter went backwards (%.6f J, then %.6f J)",
                          m->ops->name, m->start_j, j);
  *joules = j - m->start_j;
  if (seconds) *seconds = t - m->start_t;
  return FUPERMOD_SUCCESS;
}

int fupermod_meter_note_run(fupermod_meter *m, long d) {
  if (!m) return fupermod_error(FUPERMOD_ERR_USAGE, "meter: NULL meter");
  return m->ops->note_run ? m->ops->note_run(m, d) : FUPERMOD_SUCCESS;
}

/* Wait for a non-blocking collective without spinning: idle processes must stay idle. */
static int idle_wait(MPI_Request *req) { return fupermod_mpi_wait_idle(req, 200000); }

static void sleep_for(double seconds) {
  struct timespec ts, now;
  double end;
  clock_gettime(CLOCK_MONOTONIC, &now);
  end = (double)now.tv_sec + 1e-9 * now.tv_nsec + seconds;
  ts.tv_sec = (time_t)end;
  ts.tv_nsec = (long)((end - (double)ts.tv_sec) * 1e9);
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) != 0) {
  }
}

int fupermod_meter_probe(fupermod_meter *m, double seconds, MPI_Comm comm_sync, double *watts) {
  int rc = FUPERMOD_SUCCESS, bad, anybad = 0;
  double len = seconds, j = 0.0, dt = 0.0;
  MPI_Request req;
  if (!watts) return fupermod_error(FUPERMOD_ERR_USAGE, "meter probe: NULL watts");
  *watts = 0.0;
  if (!(seconds >= 0) || !isfinite(seconds) || seconds > 3600)
    rc = fupermod_error(FUPERMOD_ERR_USAGE, "static-power probe of %g s: must be between 0 and 3600 s", seconds);
  else if (m && seconds > 0 && m->external)
    rc = fupermod_error(FUPERMOD_ERR_USAGE,
                        "the external meter reads nothing at run time: give the static power to fupermod energy import");
  else if (m && seconds > 0 && m->estimate)
    rc = fupermod_error(FUPERMOD_ERR_USAGE,
                        "the %s meter estimates energy; an idle probe would measure nothing (give static_power)",
                        m->ops->name);
  if (rc != FUPERMOD_SUCCESS) len = 0.0;
  if (comm_sync != MPI_COMM_NULL) {
    /* everyone idles for the longest probe asked for, so that no co-located process computes
     * while another measures idle power; a bad request still joins the collectives */
    double l = len;
    bad = rc != FUPERMOD_SUCCESS;
    if (MPI_Iallreduce(&l, &len, 1, MPI_DOUBLE, MPI_MAX, comm_sync, &req) != MPI_SUCCESS || idle_wait(&req))
      return fupermod_error(FUPERMOD_ERR_MPI, "meter probe: MPI_Iallreduce failed");
    if (MPI_Iallreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, comm_sync, &req) != MPI_SUCCESS || idle_wait(&req))
      return fupermod_error(FUPERMOD_ERR_MPI, "meter probe: MPI_Iallreduce failed");
    if (rc != FUPERMOD_SUCCESS) return rc;
    if (anybad) return fupermod_error(FUPERMOD_ERR_USAGE, "meter probe: a co-located process asked for a bad probe");
  } else if (rc != FUPERMOD_SUCCESS) {
    return rc;
  }
  if (len <= 0) return FUPERMOD_SUCCESS;
  if (m && seconds > 0) rc = fupermod_meter_start(m);
  sleep_for(len);
  if (rc == FUPERMOD_SUCCESS && m && seconds > 0) rc = fupermod_meter_stop(m, &j, &dt);
  if (comm_sync != MPI_COMM_NULL) {
    bad = rc != FUPERMOD_SUCCESS;
    if (MPI_Iallreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, comm_sync, &req) != MPI_SUCCESS || idle_wait(&req))
      return fupermod_error(FUPERMOD_ERR_MPI, "meter probe: MPI_Iallreduce failed");
    if (rc == FUPERMOD_SUCCESS && anybad)
      return fupermod_error(FUPERMOD_ERR_MPI, "meter probe: a co-located process failed to read its meter");
  }
  if (rc != FUPERMOD_SUCCESS) return fupermod_error_prefix(rc, "static-power probe");
  if (m && seconds > 0) {
    if (!(dt > 0)) return fupermod_error(FUPERMOD_ERR_SYSTEM, "static-power probe: empty interval");
    *watts = j / dt;
  }
  return FUPERMOD_SUCCESS;
}

int fupermod_meter_static_subopts(const fupermod_meter *m, const char *subopts, double *watts,
                                  double *probe_seconds) {
  double w = 0.0, s = 0.0;
  int gw, gs;
  if (!watts || !probe_seconds) return fupermod_error(FUPERMOD_ERR_USAGE, "static power: NULL output");
  *watts = *probe_seconds = 0.0;
  if (!subopts) subopts = "";
  if ((gw = fupermod_meter_opt_double(subopts, "static_power", &w)) < 0) return gw;
  if ((gs = fupermod_meter_opt_double(subopts, "static_probe", &s)) < 0) return gs;
  if (gw && gs) return fupermod_error(FUPERMOD_ERR_USAGE, "give static_power or static_probe, not both");
  if (gw && !(w >= 0)) return fupermod_error(FUPERMOD_ERR_USAGE, "static_power=%g: must be >= 0 (W)", w);
  if (gs && !(s > 0 && s <= 3600))
    return fupermod_error(FUPERMOD_ERR_USAGE, "static_probe=%g: must be in (0, 3600] seconds", s);
  if ((gw || gs) && !m) return fupermod_error(FUPERMOD_ERR_USAGE, "static_power/static_probe given without meter=NAME");
  if ((gw || gs) && m->external)
    return fupermod_error(FUPERMOD_ERR_USAGE, "%s: the external meter takes the static power at import "
                          "(fupermod energy import --static)", gw ? "static_power" : "static_probe");
  if (gs && m->estimate)
    return fupermod_error(FUPERMOD_ERR_USAGE, "static_probe: the %s meter estimates energy and cannot be probed",
                          m->ops->name);
  if (gw) *watts = w;
  else if (gs) *probe_seconds = s;
  else if (m && !m->estimate && !m->external) *probe_seconds = 1.0; /* measured totals need their idle share removed */
  return FUPERMOD_SUCCESS;
}
