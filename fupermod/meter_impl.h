/* Private interface between fupermod/meter.c and the meter backends (meter_*.c). Not installed. */
#ifndef FUPERMOD_METER_IMPL_H
#define FUPERMOD_METER_IMPL_H

#include "fupermod/error.h"
#include "fupermod/meter.h"

typedef struct fupermod_meter_ops {
  const char *name;
  /* Cumulative joules since an arbitrary origin (monotone; wrap-around handled inside). */
  int (*read)(fupermod_meter *m, double *joules);
  /* Optional: one run of d units ended. */
  int (*note_run)(fupermod_meter *m, long d);
  void (*destroy)(fupermod_meter *m);
} fupermod_meter_ops;

struct fupermod_meter {
  const fupermod_meter_ops *ops;
  void *impl;
  char *domain;      /* NULL: measures this process only */
  char *description; /* for output files */
  int estimate;
  int external; /* energies come afterwards from a power series */
  int attribution;
  int started;
  double start_j, start_t;
};

/* Backend constructors: fill ops, impl, domain, description (and estimate). */
int fupermod_meter_rapl_create(fupermod_meter *m, const char *subopts);
int fupermod_meter_nvml_create(fupermod_meter *m, const char *subopts);
int fupermod_meter_command_create(fupermod_meter *m, const char *subopts);
int fupermod_meter_emulated_create(fupermod_meter *m, const char *subopts);
int fupermod_meter_model_create(fupermod_meter *m, const char *subopts);
int fupermod_meter_external_create(fupermod_meter *m, const char *subopts);

/* Sub-option helpers: 1 found, 0 absent, < 0 error (message names the key). */
int fupermod_meter_opt_double(const char *subopts, const char *key, double *out);
int fupermod_meter_opt_long(const char *subopts, const char *key, long *out);
/* Reject keys starting with prefix that are not in the NULL-terminated list known. */
int fupermod_meter_opt_check(const char *subopts, const char *prefix, const char *const *known);
/* printf into a fresh string (NULL when out of memory). */
char *fupermod_meter_strdupf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
