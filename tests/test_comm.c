/* The communication model (fupermod/comm.h) without MPI: the Hockney fit recovers alpha and beta
 * from exact points, times between and beyond the measured sizes, save and load, and bad files. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fupermod/comm.h"
#include "fupermod/error.h"
#include "tests/tap.h"

static unsigned long long rs = 7;
static double urand(void) {
  rs = rs * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(rs >> 11) / 9007199254740992.0;
}

static void set_link(fupermod_comm *c, int i, int j, const double *bytes, int n, double a, double b) {
  fupermod_comm_link *l = fupermod_comm_link_of(c, i, j);
  l->pts = calloc((size_t)n, sizeof *l->pts);
  l->n = n;
  for (int k = 0; k < n; k++) l->pts[k] = (fupermod_comm_point){bytes[k], a + b * bytes[k], 1e-9, 5};
  fupermod_comm_fit(l);
}

static char dir[] = "/tmp/fupermod-comm-XXXXXX", bad[64], good[64];

static int bad_file(const char *text, const char *want) {
  FILE *fp = fopen(bad, "w");
  fupermod_comm c;
  int rc;
  fputs(text, fp);
  fclose(fp);
  rc = fupermod_comm_load(bad, &c, NULL, NULL, NULL);
  if (rc == FUPERMOD_SUCCESS) fupermod_comm_free(&c);
  if (rc == FUPERMOD_SUCCESS || !strstr(fupermod_error_message(), want)) {
    diag("got %d: %s (wanted '%s')", rc, fupermod_error_message(), want);
    return 0;
  }
  return 1;
}

int main(void) {
  const double bytes[5] = {8, 4096, 65536, 1048576, 16777216};
  const char *names[3] = {"a.0", "a.1", "b.0"};
  const long sizes[5] = {8, 4096, 65536, 1048576, 16777216};
  fupermod_comm c, d;
  char **nm = NULL;
  long *sz = NULL;
  int ns = 0, worst = 0, ok_all = 1;
  if (!mkdtemp(dir)) return 1;
  snprintf(bad, sizeof bad, "%s/bad", dir);
  snprintf(good, sizeof good, "%s/comm.txt", dir);
  /* 200 random exact Hockney links: the fit gives alpha and beta back */
  for (int r = 0; r < 200; r++) {
    double a = 1e-7 * pow(10, 3 * urand()), b = 1e-11 * pow(10, 3 * urand());
    fupermod_comm_init(&c, 2);
    set_link(&c, 0, 1, bytes, 5, a, b);
    {
      const fupermod_comm_link *l = fupermod_comm_link_of(&c, 1, 0);
      if (!(fabs(l->alpha - a) <= 1e-6 * a && fabs(l->beta - b) <= 1e-6 * b)) {
        ok_all = 0;
        if (!worst++) diag("alpha %g beta %g fitted as %g %g", a, b, l->alpha, l->beta);
      }
    }
    fupermod_comm_free(&c);
  }
  ok(ok_all, "the fit recovers alpha and beta of 200 random exact links (latency 0.1-100 us, 0.1-100 GB/s)");

  fupermod_comm_init(&c, 3);
  set_link(&c, 0, 1, bytes, 5, 1e-6, 1e-10);
  set_link(&c, 0, 2, bytes, 5, 2e-5, 1e-9);
  ok(fupermod_comm_time(&c, 1, 1, 1e6) == 0.0, "a process to itself costs nothing");
  ok(fupermod_comm_time(&c, 1, 2, 1e6) == -1.0, "an unmeasured link answers -1");
  ok(fabs(fupermod_comm_time(&c, 1, 0, 1048576) - (1e-6 + 1e-10 * 1048576)) < 1e-15, "a measured size: its time");
  ok(fabs(fupermod_comm_time(&c, 0, 1, 500000) - (1e-6 + 1e-10 * 500000)) < 1e-12,
     "between measured sizes: linear interpolation (exact on a Hockney link)");
  ok(fabs(fupermod_comm_time(&c, 0, 2, 1e9) - (2e-5 + 1e-9 * 1e9)) < 1e-9, "beyond the largest: beta per byte");
  ok(fupermod_comm_time(&c, 0, 2, 1) == fupermod_comm_time(&c, 0, 2, 8), "below the smallest: the smallest's time");

  ok(fupermod_comm_save(&c, good, names, sizes, 5) == FUPERMOD_SUCCESS, "save");
  ok(fupermod_comm_load(good, &d, &nm, &sz, &ns) == FUPERMOD_SUCCESS, "load what was saved (%s)",
     fupermod_error_message());
  {
    int same = d.p == 3 && ns == 5 && nm && !strcmp(nm[0], "a.0") && !strcmp(nm[2], "b.0") && !nm[3];
    for (int k = 0; same && k < 5; k++) same = sz[k] == sizes[k];
    for (int i = 0; same && i < 3; i++)
      for (int j = i + 1; same && j < 3; j++) {
        const fupermod_comm_link *x = fupermod_comm_link_of(&c, i, j), *y = fupermod_comm_link_of(&d, i, j);
        same = x->n == y->n;
        for (int k = 0; same && k < x->n; k++)
          same = x->pts[k].bytes == y->pts[k].bytes && fabs(x->pts[k].t - y->pts[k].t) <= 1e-9 * x->pts[k].t &&
                 x->pts[k].reps == y->pts[k].reps;
      }
    ok(same, "names, sizes and every link's points come back (the unmeasured link unmeasured)");
  }
  for (int i = 0; nm && nm[i]; i++) free(nm[i]);
  free(nm);
  free(sz);
  fupermod_comm_free(&d);
  fupermod_comm_free(&c);

  ok(bad_file("hello\n", "bad:1: not a fupermod comm v1 file"), "another file is refused at line 1");
  ok(bad_file("# fupermod comm v1\nprocesses a b\nsizes 8\n0 1 8 1e-6\n", "bad:4: expected"),
     "a short data line is refused with its line");
  ok(bad_file("# fupermod comm v1\nprocesses a b\nsizes 8\n0 2 8 1e-6 3 0\n", "bad:4: bad link"),
     "a link outside the processes is refused");
  ok(bad_file("# fupermod comm v1\nprocesses a b\nsizes 8 16\n0 1 16 1e-6 3 0\n0 1 8 1e-6 3 0\n",
              "bad:5: link 0 1: sizes must increase"),
     "sizes out of order are refused");
  ok(bad_file("# fupermod comm v1\n0 1 8 1e-6 3 0\n", "bad:2: a data line before"),
     "data before the header is refused");
  ok(bad_file("# fupermod comm v1\nprocesses\n", "bad:2: 'processes' needs the names"), "missing names are refused");
  ok(bad_file("# fupermod comm v1\nprocesses a b\nsizes 8 8\n", "bad:3: size '8': sizes are increasing"),
     "sizes that do not increase are refused");
  remove(bad);
  remove(good);
  rmdir(dir);
  return done_testing();
}
