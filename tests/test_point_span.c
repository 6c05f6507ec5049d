/* The runs' span and host in point files (t_start, t_end, host, samples), and the external meter. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fupermod/fupermod.h"
#include "tests/tap.h"

static int parse(const char *text, fupermod_points *p) {
  return fupermod_points_parse_all(text, strlen(text), "s.points", p);
}

/* malformed lines and the message each must give */
static const char *const bad_lines[][3] = {
    {"10 1 t_start=5\n", "s.points:1: give both t_start and t_end", "t_start alone"},
    {"10 1 t_start=5 t_end=4\n", "s.points:1: t_end 4 is before t_start 5", "reversed span"},
    {"10 1 t_start=x t_end=4\n", "s.points:1: t_start 'x'", "non-number t_start"},
    {"10 1 t_start=1 t_end=-4\n", "s.points:1: t_end '-4'", "negative t_end"},
    {"10 1 samples=-1\n", "s.points:1: samples '-1'", "negative samples"},
    {"10 1 host=\n", "s.points:1: host '' must have 1 to 63", "empty host"},
    {"10 1 watts=3\n", "s.points:1: unknown field 'watts'", "unknown key"},
    {"10 1 host=a 3 0.1\n", "s.points:1: 'host=a' must come after the other fields", "a key before numbers"},
};

int main(void) {
  fupermod_points p, q;
  fupermod_meter *m = NULL;
  char line[512];
  double w = -1, probe = -1;
  int rc;

  rc = parse("10 0.5 3 0.01 t_start=1700000000.125 t_end=1700000002.5 host=node-1\n"
             "20 1.0 2 0.02 abandoned t_start=1700000003 t_end=1700000004 host=node-1\n",
             &p);
  ok(rc == 0 && p.count == 2 && p.pts[0].t_start == 1700000000.125 && p.pts[0].t_end == 1700000002.5 &&
         p.pts[0].host && strcmp(p.pts[0].host, "node-1") == 0 && p.pts[0].samples == -1 && !p.has_energy,
     "a point without energy carries its span and host");
  ok(rc == 0 && fupermod_point_abandoned(&p.pts[1]) && fupermod_point_has_span(&p.pts[1]),
     "the key=value fields follow a status");
  if (rc == 0) {
    fupermod_point_format(&p.pts[0], line, sizeof line);
    ok(strcmp(line, "10 0.5 3 0.01 t_start=1700000000.125 t_end=1700000002.5 host=node-1") == 0,
       "written back as read: %s", line);
    p.pts[0].e = 4.5;
    p.pts[0].e_ci = 0.5;
    p.pts[0].samples = 7;
    fupermod_point_format(&p.pts[0], line, sizeof line);
    ok(strcmp(line, "10 0.5 3 0.01 4.5 0.5 t_start=1700000000.125 t_end=1700000002.5 samples=7 host=node-1") == 0,
       "with an imported energy, the samples too: %s", line);
    fupermod_points_free(&p);
    rc = parse(line, &q);
    ok(rc == 0 && q.has_energy && q.pts[0].e == 4.5 && q.pts[0].samples == 7 && q.pts[0].t_end == 1700000002.5,
       "and read again");
    if (rc == 0) fupermod_points_free(&q);
  }
  rc = parse("10 0.5 3 0.01 t_start=1731234567.1234567 t_end=1731234568.7654321 host=a\n", &p);
  if (rc == 0) {
    fupermod_point_format(&p.pts[0], line, sizeof line);
    fupermod_points_free(&p);
    rc = parse(line, &q);
    ok(rc == 0 && q.pts[0].t_start == 1731234567.1234567 && q.pts[0].t_end == 1731234568.7654321,
       "UNIX times round-trip exactly");
    if (rc == 0) fupermod_points_free(&q);
  } else {
    ok(0, "UNIX times round-trip exactly");
  }
  /* files written before these fields */
  rc = parse("# fupermod points v1\n10 1.0\n20 2.0 3 0.1\n", &p);
  ok(rc == 0 && p.count == 2 && !fupermod_point_has_span(&p.pts[0]) && !p.pts[0].host, "v1 files read");
  if (rc == 0) fupermod_points_free(&p);
  rc = parse("10 1.0 3 0.1 2.5 0.1 imprecise\n20 2.0 3 0.1 5 0.2\n", &p);
  ok(rc == 0 && p.count == 2 && p.has_energy && !fupermod_point_has_span(&p.pts[1]), "v2 files without spans read");
  if (rc == 0) {
    fupermod_point_format(&p.pts[1], line, sizeof line);
    ok(strcmp(line, "20 2 3 0.10000000000000001 5 0.20000000000000001") == 0, "and are written as before: %s", line);
    fupermod_points_free(&p);
  }

  for (size_t i = 0; i < sizeof bad_lines / sizeof bad_lines[0]; i++) {
    rc = parse(bad_lines[i][0], &p);
    if (!ok(rc == FUPERMOD_ERR_INPUT && strstr(fupermod_error_message(), bad_lines[i][1]), "%s: error mentions '%s'",
            bad_lines[i][2], bad_lines[i][1]))
      diag("rc=%d message='%s'", rc, fupermod_error_message());
    if (rc == FUPERMOD_SUCCESS) fupermod_points_free(&p);
  }

  /* the external meter */
  rc = fupermod_meter_create("external", "meter_host=grisou-7", &m);
  ok(rc == 0 && fupermod_meter_is_external(m) && !fupermod_meter_is_estimate(m) &&
         strcmp(fupermod_meter_host(m), "grisou-7") == 0 && fupermod_meter_domain(m) == NULL,
     "meter=external with meter_host: external, per process, the host recorded");
  if (rc == 0) {
    rc = fupermod_meter_static_subopts(m, "meter=external", &w, &probe);
    ok(rc == 0 && w == 0 && probe == 0, "no idle probe by default");
    rc = fupermod_meter_static_subopts(m, "static_power=40", &w, &probe);
    ok(rc == FUPERMOD_ERR_USAGE && strstr(fupermod_error_message(), "static_power: the external meter takes the static power at import"),
       "static_power is refused: it is given at import");
    rc = fupermod_meter_probe(m, 0.1, MPI_COMM_NULL, &w);
    ok(rc == FUPERMOD_ERR_USAGE && strstr(fupermod_error_message(), "reads nothing at run time"), "a probe is refused");
    fupermod_meter_free(m);
  }
  rc = fupermod_meter_create("external", "", &m);
  ok(rc == 0 && fupermod_meter_host(m) && fupermod_meter_host(m)[0], "the host defaults to the machine's name (%s)",
     rc == 0 ? fupermod_meter_host(m) : "?");
  fupermod_meter_free(m);
  rc = fupermod_meter_create("external", "meter_host=a b", &m);
  ok(rc == FUPERMOD_ERR_USAGE && strstr(fupermod_error_message(), "meter_host='a b'"), "a host with a blank is refused");
  rc = fupermod_meter_create("model", "meter_power=5", &m);
  ok(rc == 0 && !fupermod_meter_is_external(m) && fupermod_meter_host(m) == NULL, "other meters record no host");
  fupermod_meter_free(m);
  return done_testing();
}
