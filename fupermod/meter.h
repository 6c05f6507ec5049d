/* Energy meters (docs/energy.md). A meter is a cumulative energy counter read at the start and
 * the end of a run; one backend per file, chosen by name:
 *   rapl      Linux powercap energy_uj counters (packages and DRAM), wrap-around handled
 *   nvml      NVIDIA GPU total-energy counter, NVML loaded at run time
 *   command   an external meter: a command that prints cumulative joules
 *   emulated  energies from a point file, for tests and machines without meters
 *   model     configured power x time: an ESTIMATE, never a measurement
 *   external  nothing at run time: the runs' UNIX times and host are recorded, and the energies
 *             are imported afterwards from a power series (fupermod energy import)
 * Dynamic energy = total energy - static power x time (fupermod_benchmark_meter). */
#ifndef FUPERMOD_METER_H
#define FUPERMOD_METER_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* the public API; the libraries build with -fvisibility=hidden */

typedef struct fupermod_meter fupermod_meter;

/* How the dynamic energy of a meter shared by co-located processes (the same domain, e.g. one
 * RAPL package counter for several processes of a socket) is split between them. */
enum fupermod_attribution {
  FUPERMOD_ATTRIB_BUSY = 0, /* all run together; the group's dynamic energy is split in
                               proportion to each process's run time */
  FUPERMOD_ATTRIB_SOLO = 1  /* additive hypothesis: after the timing runs, each process runs
                               alone in turn and gets the whole group's dynamic energy */
};

/* Create a meter by name with sub-options "key=value,..." (may be NULL or ""). Keys:
 *   rapl:     rapl_root=DIR (default $FUPERMOD_POWERCAP_ROOT, else /sys/class/powercap),
 *             rapl_domains=package+dram (any of package, dram, core, uncore, psys joined by '+'),
 *             rapl_package=N (only package N and its sub-zones)
 *   nvml:     nvml_device=N (default: the sub-option device=N, else 0), nvml_lib=PATH
 *   command:  meter_cmd=COMMAND (run by /bin/sh -c), meter_timeout=SECONDS (default 10)
 *   emulated: meter_points=FILE (default points=FILE), meter_idle=WATTS (default 0)
 *   model:    meter_power=WATTS (required)
 *   external: meter_host=NAME (the node's name in the power series; default: gethostname)
 *   all:      attribution=busy|solo (shared meters; default busy)
 * Errors: FUPERMOD_ERR_USAGE for an unknown name or bad key, FUPERMOD_ERR_NODEVICE when the
 * counters or library are absent, FUPERMOD_ERR_INPUT for unreadable counter contents. */
int fupermod_meter_create(const char *name, const char *subopts, fupermod_meter **out);
/* The meter a process-configuration line selects (meter=NAME); *out = NULL when none. */
int fupermod_meter_create_subopts(const char *subopts, fupermod_meter **out);
void fupermod_meter_free(fupermod_meter *m);
/* NULL-terminated list of meter names. */
const char *const *fupermod_meter_names(void);
struct fupermod_option;
/* The sub-options meter NAME reads from a configuration line (NULL: those every meter reads:
 * meter, attribution, static_power, static_probe); NULL for an unknown name. */
const struct fupermod_option *fupermod_meter_options(const char *name);

const char *fupermod_meter_name(const fupermod_meter *m);
/* 1 when the meter estimates rather than measures (the model meter). */
int fupermod_meter_is_estimate(const fupermod_meter *m);
/* 1 for the external meter: it reads nothing at run time, and points measured with it get their
 * runs' span (UNIX times) and host instead of energies. */
int fupermod_meter_is_external(const fupermod_meter *m);
/* The host an external meter records (NULL for the other meters). */
const char *fupermod_meter_host(const fupermod_meter *m);
/* What the meter measures, e.g. "rapl:/sys/class/powercap:intel-rapl:0,intel-rapl:0:2". Processes
 * whose meters have the same non-NULL domain share one counter; NULL: this process only. */
const char *fupermod_meter_domain(const fupermod_meter *m);
int fupermod_meter_attribution(const fupermod_meter *m);
int fupermod_meter_set_attribution(fupermod_meter *m, int attribution);
/* One-line description for output files, e.g. "rapl (package+dram, 2 zones)". */
const char *fupermod_meter_describe(const fupermod_meter *m);

/* Cumulative energy in joules since an arbitrary origin, and when it was read (fupermod_time).
 * Counter wrap-around is accounted for as long as the meter is read at least once per wrap. */
int fupermod_meter_read(fupermod_meter *m, double *joules, double *when);
/* Start an interval; stop returns the energy of the interval and its length in seconds. */
int fupermod_meter_start(fupermod_meter *m);
int fupermod_meter_stop(fupermod_meter *m, double *joules, double *seconds);
/* Tell the meter one run of d units has just ended (only the emulated meter uses it). */
int fupermod_meter_note_run(fupermod_meter *m, long d);

/* Static power by an idle probe, collective over comm_sync (MPI_COMM_NULL: alone): every process
 * of comm_sync idles for the longest `seconds` given while each one with a meter and
 * seconds > 0 measures; *watts = energy / interval (0 for the others). An estimating meter
 * cannot be probed (FUPERMOD_ERR_USAGE). */
int fupermod_meter_probe(fupermod_meter *m, double seconds, MPI_Comm comm_sync, double *watts);

/* Static-power settings of a configuration line: static_power=WATTS, or static_probe=SECONDS.
 * Default: a 1 s probe for measuring meters, 0 W for the model meter (and no meter).
 * *probe_seconds > 0 asks for a probe (then *watts = 0); otherwise *watts is the static power. */
int fupermod_meter_static_subopts(const fupermod_meter *m, const char *subopts, double *watts,
                                  double *probe_seconds);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
