/* External meter: the energy comes afterwards from a power series that a service outside the
 * process recorded (a wattmeter, Grid'5000 Kwollect). At run time it reads nothing; the benchmark
 * records when (UNIX time) and where (host) each point's runs were, and `fupermod energy import`
 * fills the energies from the series (docs/energy.md). Per node: no domain, no probe. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fupermod/conf.h"
#include "fupermod/meter_impl.h"
#include "fupermod/util.h"

typedef struct {
  char host[64];
} external;

static int external_read(fupermod_meter *m, double *joules) {
  (void)m;
  *joules = 0.0;
  return FUPERMOD_SUCCESS;
}

static void external_destroy(fupermod_meter *m) { free(m->impl); }

static const fupermod_meter_ops ops = {"external", external_read, NULL, external_destroy};

int fupermod_meter_external_create(fupermod_meter *m, const char *subopts) {
  static const char *const known[] = {"meter_host", NULL};
  external *p;
  int got, rc;
  m->ops = &ops;
  m->external = 1;
  if ((rc = fupermod_meter_opt_check(subopts, "meter_", known)) != FUPERMOD_SUCCESS) return rc;
  if (!(p = calloc(1, sizeof *p))) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  m->impl = p;
  /* the series names nodes as the wattmeter service does; meter_host= when that differs */
  got = fupermod_subopt_get(subopts, "meter_host", p->host, sizeof p->host);
  if (got < 0) return got;
  if (got == 0 && gethostname(p->host, sizeof p->host - 1) != 0)
    return fupermod_error(FUPERMOD_ERR_SYSTEM, "external meter: gethostname failed (give meter_host=NAME)");
  if (!p->host[0] || strpbrk(p->host, " \t=#"))
    return fupermod_error(FUPERMOD_ERR_USAGE, "meter_host='%s': a host name without blanks, '=' or '#'", p->host);
  m->description = fupermod_meter_strdupf("external (host %s; energies imported afterwards)", p->host);
  if (!m->description) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  return FUPERMOD_SUCCESS;
}

const char *fupermod_meter_host(const fupermod_meter *m) {
  return m && m->external && m->impl ? ((const external *)m->impl)->host : NULL;
}
