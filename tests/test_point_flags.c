/* Point flags in point files: the status column, abandoned points left out of what models and
 * partitioners load, and refused by models and smoothing when given directly. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fupermod/fupermod.h"
#include "tests/tap.h"

static int parse(const char *text, int all, fupermod_points *p) {
  return all ? fupermod_points_parse_all(text, strlen(text), "f", p) : fupermod_points_parse(text, strlen(text), "f", p);
}

int main(void) {
  fupermod_points p = {0, NULL, 0}, q = {0, NULL, 0};
  char path[] = "/tmp/fupermod-flags-XXXXXX";
  int fd, rc;
  const char *mixed = "10 0.1 5 0.001\n20 0.2 1 0 abandoned\n30 0.3 3 0.4 imprecise\n40 0.4 5 0.002\n";

  rc = parse(mixed, 0, &p);
  ok(rc == 0 && p.count == 3 && p.pts[0].d == 10 && p.pts[1].d == 30 && p.pts[2].d == 40 &&
         fupermod_point_imprecise(&p.pts[1]) && p.pts[0].flags == 0 && p.pts[2].flags == 0,
     "load leaves the abandoned size out and keeps the imprecise point, flagged");
  fupermod_points_free(&p);
  rc = parse(mixed, 1, &p);
  ok(rc == 0 && p.count == 4 && p.pts[1].d == 20 && fupermod_point_abandoned(&p.pts[1]) && p.pts[1].reps == 1 &&
         fupermod_point_imprecise(&p.pts[2]),
     "load_all keeps every point with its status");

  fd = mkstemp(path);
  if (fd >= 0) close(fd);
  rc = fupermod_points_save(path, &p, NULL);
  rc = rc == 0 ? fupermod_points_load_all(path, &q) : rc;
  {
    int same = rc == 0 && q.count == p.count;
    for (int i = 0; same && i < p.count; i++)
      same = q.pts[i].d == p.pts[i].d && q.pts[i].t == p.pts[i].t && q.pts[i].flags == p.pts[i].flags;
    ok(same, "save and load_all round-trip the status of every point");
  }
  fupermod_points_free(&q);
  {
    fupermod_point a = FUPERMOD_POINT_INIT;
    char line[256];
    a.d = 50;
    a.t = 0.5;
    a.flags = FUPERMOD_POINT_ABANDONED;
    unlink(path);
    rc = fupermod_points_append(path, &a);
    a.d = 60;
    a.flags = FUPERMOD_POINT_IMPRECISE;
    rc = rc == 0 ? fupermod_points_append(path, &a) : rc;
    rc = rc == 0 ? fupermod_points_load(path, &q) : rc;
    ok(rc == 0 && q.count == 1 && q.pts[0].d == 60 && fupermod_point_imprecise(&q.pts[0]),
       "appended points carry their status");
    fupermod_points_free(&q);
    fupermod_point_format(&(fupermod_point){.d = 7, .t = 1.5, .ci = 0.1, .e = 3.0, .e_ci = 0.2, .reps = 2, .flags = FUPERMOD_POINT_IMPRECISE,
                                         .samples = -1}, line, sizeof line);
    ok(strcmp(line, "7 1.5 2 0.10000000000000001 3 0.20000000000000001 imprecise") == 0,
       "the status is the last field, after the energy (%s)", line);
  }
  unlink(path);

  rc = parse("5 0.1 1 0 abandoned\n6 0.2 1 0 abandoned\n", 0, &q);
  ok(rc == FUPERMOD_ERR_INPUT && strstr(fupermod_error_message(), "no measured points"),
     "a file of abandoned sizes only has nothing to model: %s", fupermod_error_message());
  rc = parse("5 0.1 1 0 abandoned\n6 0.2 1 0 abandoned\n", 1, &q);
  ok(rc == 0 && q.count == 2, "load_all reads it");
  fupermod_points_free(&q);
  rc = parse("5 0.1 1 0\n5 0.2 1 0 abandoned\n", 0, &q);
  ok(rc == FUPERMOD_ERR_INPUT && strstr(fupermod_error_message(), "duplicate d=5"),
     "a size both measured and abandoned is a duplicate");
  rc = parse("5 0.1 1 0\n6 0.2 1 0 slow\n", 0, &q);
  ok(rc == FUPERMOD_ERR_INPUT && strstr(fupermod_error_message(), "f:2: status 'slow'"),
     "an unknown status is an error naming the line: %s", fupermod_error_message());
  rc = parse("5 0.1 1 0 1 0 imprecise extra\n", 0, &q);
  ok(rc == FUPERMOD_ERR_INPUT, "nothing may follow the status");
  rc = parse("5 0.1 1 0 2 0.1\n6 0.2 1 0 abandoned\n7 0.3 1 0 3 0.1 imprecise\n", 0, &q);
  ok(rc == 0 && q.count == 2 && q.has_energy, "an abandoned point without energy does not break a file with energy");
  fupermod_points_free(&q);
  rc = parse("# fupermod points v1: d t reps ci [e e_ci]\n5 0.1 3 0.01\n6 0.2\n", 0, &q);
  ok(rc == 0 && q.count == 2 && q.pts[0].flags == 0 && q.pts[1].flags == 0, "files without a status column read as before");
  fupermod_points_free(&q);

  /* given an abandoned point directly, models and smoothing refuse it */
  {
    fupermod_model *m = NULL;
    fupermod_points sm = {0, NULL, 0};
    fupermod_point ab = {.d = 25, .t = 9.0, .e = -1.0, .e_ci = -1.0, .reps = 1, .flags = FUPERMOD_POINT_ABANDONED, .samples = -1};
    rc = fupermod_model_create("akima", &p, 0, &m);
    ok(rc == FUPERMOD_ERR_INPUT && !m && strstr(fupermod_error_message(), "d=20 was abandoned"),
       "a model refuses a set holding an abandoned point: %s", fupermod_error_message());
    rc = fupermod_points_smooth(&p, 1, 0.95, &sm, NULL, NULL);
    ok(rc == FUPERMOD_ERR_INPUT && strstr(fupermod_error_message(), "abandoned"), "smoothing refuses it too");
    rc = parse(mixed, 0, &q);
    rc = rc == 0 ? fupermod_model_create("akima", &q, 0, &m) : rc;
    ok(rc == 0 && fupermod_model_update(m, &ab) == FUPERMOD_ERR_INPUT && m->points.count == 3,
       "a model update refuses an abandoned point and keeps its points");
    fupermod_model_free(m);
    fupermod_points_free(&q);
  }
  fupermod_points_free(&p);
  return done_testing();
}
