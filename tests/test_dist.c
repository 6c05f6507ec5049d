/* Distributions: rounding always sums to D, never negative, deterministic; file round trip. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fupermod/fupermod.h"
#include "tests/tap.h"

static unsigned long long rng = 88172645463325252ULL;
static double urand(void) {
  rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
  return (double)(rng >> 11) / 9007199254740992.0;
}

int main(void) {
  long d[64], d2[64];
  double x[64];
  int bad = 0, nondet = 0, far = 0;
  for (int trial = 0; trial < 20000; trial++) {
    int p = 1 + (int)(urand() * 40);
    long D = (long)(urand() * (trial % 3 == 0 ? 10 : 100000));
    double sum = 0;
    int mode = trial % 4;
    for (int i = 0; i < p; i++) {
      x[i] = urand();
      if (mode == 1 && urand() < 0.3) x[i] = 0; /* zeros */
      if (mode == 2) x[i] = floor(x[i] * 4) / 4; /* ties */
      sum += x[i];
    }
    for (int i = 0; i < p; i++) {
      if (sum > 0) x[i] = x[i] / sum * D * (mode == 3 ? 0.9 + 0.2 * urand() : 1.0); /* off-sum inputs */
      if (mode == 3 && urand() < 0.1) x[i] = -x[i];                                 /* negative */
    }
    long s = 0;
    if (fupermod_dist_round(x, p, D, d) != 0) { bad++; continue; }
    fupermod_dist_round(x, p, D, d2);
    for (int i = 0; i < p; i++) {
      s += d[i];
      if (d[i] < 0) bad++;
      if (d[i] != d2[i]) nondet++;
      /* when x sums to D, each part is within one unit of its real share */
      if (mode != 3 && sum > 0 && fabs((double)d[i] - x[i]) >= 1.0 + 1e-9) far++;
    }
    if (s != D) bad++;
  }
  ok(bad == 0, "20000 random roundings: sum exactly D and no negative part (%d bad)", bad);
  ok(nondet == 0, "rounding is deterministic");
  ok(far == 0, "each part within one unit of its share when x sums to D (%d far)", far);
  {
    double a[] = {10, 20, 30, 40}, b[] = {10.0 / 3, 10.0 / 3, 10.0 / 3}, c[] = {61.8026, 38.0952};
    fupermod_dist_round(a, 4, 100, d);
    ok(d[0] == 10 && d[1] == 20 && d[2] == 30 && d[3] == 40, "exact shares kept (T6)");
    fupermod_dist_round(b, 3, 10, d);
    ok(d[0] == 4 && d[1] == 3 && d[2] == 3, "ties go to the lower rank: (4,3,3) (T6)");
    fupermod_dist_round(c, 2, 100, d);
    ok(d[0] == 62 && d[1] == 38, "GPA's x^U (61.80, 38.10) rounds to (62,38) (T7)");
    double e[] = {2.6, 2.6, 2.6};
    fupermod_dist_round(e, 3, 7, d);
    ok(d[0] + d[1] + d[2] == 7 && d[2] == 2, "surplus taken from the highest rank among equal remainders");
  }
  ok(fupermod_dist_round(x, 0, 5, d) == FUPERMOD_ERR_USAGE, "p = 0 rejected");
  x[0] = NAN;
  ok(fupermod_dist_round(x, 1, 5, d) == FUPERMOD_ERR_NUMERIC, "NaN share rejected");
  {
    fupermod_dist *dist = fupermod_dist_alloc(10, 3), *back = NULL;
    char path[] = "/tmp/fupermod-dist-XXXXXX";
    int fd = mkstemp(path);
    ok(dist && dist->parts[0].d == 4 && dist->parts[1].d == 3 && dist->parts[2].d == 3, "even allocation");
    dist->parts[1].t = 0.125;
    dist->parts[1].e = 3.5;
    ok(fd >= 0 && fupermod_dist_save(path, dist, "test") == 0 && fupermod_dist_load(path, &back) == 0 &&
           back->D == 10 && back->size == 3 && back->parts[1].t == 0.125 && back->parts[1].e == 3.5 &&
           isnan(back->parts[0].e),
       "distribution file round trip");
    fupermod_dist_free(back);
    FILE *fp = fopen(path, "w");
    fprintf(fp, "10 2\n0 4\n1 5\n");
    fclose(fp);
    ok(fupermod_dist_load(path, &back) == FUPERMOD_ERR_INPUT && strstr(fupermod_error_message(), "not D=10"),
       "distribution whose parts do not sum to D rejected");
    fp = fopen(path, "w");
    fprintf(fp, "10 2\n0 4\n0 6\n");
    fclose(fp);
    ok(fupermod_dist_load(path, &back) == FUPERMOD_ERR_INPUT && strstr(fupermod_error_message(), ":3: rank 0 given twice"),
       "rank given twice rejected with its line");
    remove(path);
    fupermod_dist_free(dist);
  }
  return done_testing();
}
