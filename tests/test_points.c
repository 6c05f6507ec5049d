/* Point files: round trip, append, and every malformed case names the file and line. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "fupermod/fupermod.h"
#include "tests/tap.h"

static int parse(const char *text, fupermod_points *p) {
  return fupermod_points_parse(text, strlen(text), "f.points", p);
}

static void bad(const char *text, const char *want, const char *what) {
  fupermod_points p;
  int rc = parse(text, &p);
  int good = rc == FUPERMOD_ERR_INPUT && strstr(fupermod_error_message(), want) != NULL;
  ok(good, "%s: error mentions '%s'", what, want);
  if (!good) diag("rc=%d message='%s'", rc, fupermod_error_message());
  if (rc == FUPERMOD_SUCCESS) fupermod_points_free(&p);
}

int main(void) {
  fupermod_points p, q;
  char dir[] = "/tmp/fupermod-points-XXXXXX", path[256];
  int rc;

  rc = parse("# comment\n30 3.0\n10 1.0 5 0.01\n\n20 2.0 3 0.02 # trailing\n", &p);
  ok(rc == 0 && p.count == 3 && p.pts[0].d == 10 && p.pts[1].d == 20 && p.pts[2].d == 30,
     "lines in any order are sorted on load");
  ok(rc == 0 && p.pts[0].reps == 5 && p.pts[0].ci == 0.01 && p.pts[2].reps == 1 && !p.has_energy,
     "optional fields default (reps 1, ci 0, no energy)");
  fupermod_points_free(&p);
  rc = parse("1 0.5 2 0.1 7.5 0.25\r\n2 1e-3 1 0 0 0\r\n", &p);
  ok(rc == 0 && p.count == 2 && p.has_energy && p.pts[0].e == 7.5 && p.pts[0].e_ci == 0.25 && p.pts[1].e == 0, "CRLF and energy columns");
  fupermod_points_free(&p);

  /* fuzzer regression: a line of vertical tabs used to reach the parser with no token */
  rc = parse("\v\f\n10 1\n\v\n", &p);
  ok(rc == 0 && p.count == 1, "lines of vertical tabs and form feeds are blank");
  if (rc == 0) fupermod_points_free(&p);
  bad("", "no data points", "empty file");
  bad("# only a comment\n\n", "no data points", "comments only");
  bad("10 1\n10 2\n", "f.points:2: duplicate d=10 (also on line 1)", "duplicate d");
  bad("10 1\nabc 2\n", "f.points:2: d 'abc'", "non-number d");
  bad("10 1\n20 x\n", "f.points:2: t 'x'", "non-number t");
  bad("10 nan\n", "f.points:1: t 'nan'", "NaN time");
  bad("10 inf\n", "f.points:1: t 'inf'", "infinite time");
  bad("10 1e999\n", "f.points:1: t '1e999'", "overflowing time");
  bad("10 0\n", "f.points:1: t must be > 0", "zero time");
  bad("10 -1\n", "f.points:1: t must be > 0", "negative time");
  bad("0 1\n", "f.points:1: d must be positive", "zero d");
  bad("-5 1\n", "f.points:1: d must be positive", "negative d");
  bad("2.5 1\n", "f.points:1: d '2.5' is not an integer", "fractional d");
  bad("99999999999999999999999 1\n", "f.points:1: d", "huge d");
  bad("10\n", "f.points:1: a point needs at least d and t", "missing t");
  bad("10 1 0\n", "f.points:1: reps '0'", "zero reps");
  bad("10 1 1 -0.1\n", "f.points:1: ci '-0.1'", "negative ci");
  bad("10 1 1 0 -2\n", "f.points:1: e '-2'", "negative energy");
  bad("10 1 1 0 1 nan\n", "f.points:1: e_ci 'nan'", "NaN e_ci");
  bad("10 1 1 0 1 0 7\n", "f.points:1: too many fields", "seven fields");
  bad("10 1 1 0 5 0\n20 2\n", "f.points:2: point has no energy but line 1 has", "energy on some lines only");
  {
    fupermod_points b;
    const char bin[] = "10 1\n\0\x01\x02";
    rc = fupermod_points_parse(bin, sizeof bin - 1, "bin.points", &b);
    ok(rc == FUPERMOD_ERR_INPUT && strstr(fupermod_error_message(), "bin.points: binary data"), "binary data rejected");
  }

  /* round trip through the atomic writer, with %.17g exactness */
  if (!mkdtemp(dir)) return 1;
  snprintf(path, sizeof path, "%s/a.points", dir);
  rc = parse("1 0.1 3 0.001 2.5 0.01\n7 0.7000000000000001 4 0.002 3.14159265358979 0\n123456789 1e-9 1 0 0 0\n", &p);
  ok(rc == 0 && fupermod_points_save(path, &p, "a comment\nover two lines") == 0, "save");
  rc = fupermod_points_load(path, &q);
  {
    int same = rc == 0 && q.count == p.count && q.has_energy == p.has_energy;
    for (int i = 0; same && i < p.count; i++)
      same = p.pts[i].d == q.pts[i].d && p.pts[i].t == q.pts[i].t && p.pts[i].reps == q.pts[i].reps &&
             p.pts[i].ci == q.pts[i].ci && p.pts[i].e == q.pts[i].e && p.pts[i].e_ci == q.pts[i].e_ci;
    ok(same, "round trip is exact");
  }
  fupermod_points_free(&q);
  {
    char tmpl[300];
    /* whatever the temporary's name: the directory holds the saved file alone */
    snprintf(tmpl, sizeof tmpl, "test \"$(ls -A %s)\" = a.points", dir);
    ok(system(tmpl) == 0, "no temporary file left behind");
  }
  /* append: creates the file with a header, then one flushed line per point */
  snprintf(path, sizeof path, "%s/b.points", dir);
  for (int i = 0; i < p.count; i++) fupermod_points_append(path, &p.pts[i]);
  rc = fupermod_points_load(path, &q);
  ok(rc == 0 && q.count == 3 && q.pts[2].d == 123456789, "append builds a valid file");
  fupermod_points_free(&q);
  rc = fupermod_points_load(dir, &q);
  ok(rc == FUPERMOD_ERR_INPUT && strstr(fupermod_error_message(), "is a directory"), "a directory is not a point file");
  snprintf(path, sizeof path, "%s/missing.points", dir);
  rc = fupermod_points_load(path, &q);
  ok(rc == FUPERMOD_ERR_INPUT && strstr(fupermod_error_message(), "missing.points"), "missing file named");
  /* insert keeps order and replaces the same d */
  {
    fupermod_point a = {.d = 4, .t = 0.4, .e = 1.0, .reps = 1, .samples = -1},
                   b = {.d = 7, .t = 9.0, .e = 2.0, .reps = 2, .samples = -1};
    fupermod_points_insert(&p, &a);
    fupermod_points_insert(&p, &b);
    ok(p.count == 4 && p.pts[1].d == 4 && p.pts[2].t == 9.0 && fupermod_points_find(&p, 7) == 2 &&
           fupermod_points_find(&p, 5) == -1,
       "insert sorts and replaces");
  }
  fupermod_points_free(&p);
  snprintf(path, sizeof path, "rm -rf %s", dir);
  if (system(path) != 0) diag("cleanup failed");
  return done_testing();
}
