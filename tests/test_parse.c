/* fupermod_parse_double takes plain decimals without strtod (fupermod/util.c): it must give
 * strtod's double, bit for bit, and accept and refuse exactly what the strtod-only rule did. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "fupermod/error.h"
#include "fupermod/point.h"
#include "fupermod/util.h"
#include "tests/tap.h"

/* the rule before the fast path: strtod, whole string, finite, no overflow */
static int reference(const char *s, double *out) {
  char *end;
  double v;
  if (!*s) return -1;
  errno = 0;
  v = strtod(s, &end);
  if (errno == ERANGE && fabs(v) > 1.0) return -1;
  if (*end || !isfinite(v)) return -1;
  *out = v;
  return 0;
}

static uint64_t state = 88172645463325252ull;
static uint64_t rnd(void) {
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return state;
}

static int same(const char *s, char *why, size_t size) {
  double a = -1, b = -1;
  int ra = fupermod_parse_double(s, &a), rb = reference(s, &b);
  if (ra != rb) {
    snprintf(why, size, "'%s': %s, strtod %s", s, ra ? "refused" : "accepted", rb ? "refuses" : "accepts");
    return 0;
  }
  if (ra == 0 && memcmp(&a, &b, sizeof a) != 0) {
    snprintf(why, size, "'%s': %.17g, strtod %.17g", s, a, b);
    return 0;
  }
  return 1;
}

int main(void) {
  char buf[96], why[256] = "";
  int bad = 0;
  long n = 0;
  /* random plain decimals: 1 to 22 digits, a point anywhere or none, exponents around the limits */
  for (long i = 0; i < 2000000; i++) {
    int nd = 1 + (int)(rnd() % 22), pt = (int)(rnd() % (nd + 2)) - 1, k = 0;
    if (rnd() % 4 == 0) buf[k++] = rnd() % 2 ? '-' : '+';
    for (int j = 0; j < nd; j++) {
      if (j == pt) buf[k++] = '.';
      buf[k++] = (char)('0' + (j == 0 && rnd() % 3 ? 1 + rnd() % 9 : rnd() % 10));
    }
    if (pt == nd) buf[k++] = '.';
    if (rnd() % 3 == 0) k += snprintf(buf + k, sizeof buf - k, "%c%d", rnd() % 2 ? 'e' : 'E', (int)(rnd() % 81) - 40);
    buf[k] = '\0';
    n++;
    if (!same(buf, why, sizeof why) && bad++ < 5) diag("%s", why);
  }
  /* what point files hold: doubles printed with %.17g, %.9g, %g */
  for (long i = 0; i < 1000000; i++) {
    double x;
    uint64_t u = rnd();
    const char *fmt[] = {"%.17g", "%.9g", "%g", "%.15g"};
    memcpy(&x, &u, sizeof x);
    if (!isfinite(x)) continue;
    if (rnd() % 2) x = ldexp(fabs(x) - floor(fabs(x)) + 1, (int)(rnd() % 60) - 40);
    snprintf(buf, sizeof buf, fmt[rnd() % 4], x);
    n++;
    if (!same(buf, why, sizeof why) && bad++ < 5) diag("%s", why);
  }
  ok(bad == 0, "%ld random decimals: the same double as strtod, bit for bit, and the same refusals (%d differ)", n, bad);

  /* exactly halfway between two doubles: ties to even, where one rounding to 64 bits and then to
   * 53 would be wrong half the time */
  bad = 0;
  n = 0;
  for (int e = 53; e <= 63; e++)
    for (int j = 0; j < 2000; j++) {
      uint64_t base = (1ull << e) + ((rnd() << 11) & ((1ull << e) - 1)), half = 1ull << (e - 53);
      uint64_t v = (base & ~((half << 1) - 1)) + half; /* a double's bits, then half an ulp */
      if (v >= 10000000000000000000ull) continue;
      snprintf(buf, sizeof buf, "%llu", (unsigned long long)v);
      n++;
      if (!same(buf, why, sizeof why) && bad++ < 5) diag("%s", why);
      snprintf(buf, sizeof buf, "%llue-3", (unsigned long long)v);
      if (!same(buf, why, sizeof why) && bad++ < 5) diag("%s", why);
    }
  ok(bad == 0 && n > 10000, "%ld halfway integers (and their thousandths): strtod's ties (%d differ)", n, bad);

  /* near halfway, below 1 (a power of ten rounded, then the product: within 2 units of the
   * 64-bit significand): the midpoint of two doubles, moved by -8..8 units of 64 bits, printed
   * with 19 digits; each must still round as strtod rounds it */
  bad = 0;
  n = 0;
  for (int j = 0; j < 100000; j++) {
    double x = ldexp((double)(rnd() >> 11) / 9007199254740992.0 + 1.0, (int)(rnd() % 80) - 60);
    long double mid = ((long double)x + (long double)nextafter(x, 2 * x)) / 2;
    int k = (int)(rnd() % 17) - 8;
    int ex;
    frexpl(mid, &ex);
    mid += ldexpl((long double)k, ex - 64);
    snprintf(buf, sizeof buf, rnd() % 2 ? "%.19Lg" : "%.18Lg", mid);
    n++;
    if (!same(buf, why, sizeof why) && bad++ < 5) diag("%s", why);
  }
  ok(bad == 0, "%ld decimals within a few units of 64 bits of halfway, 1e-18 to 1e6: strtod's doubles (%d differ)", n,
     bad);

  /* a digit run broken by any other byte (control, punctuation, letters, bytes >= 0x80): where
   * eight bytes are tested at once, the first non-digit must end the run whatever it is */
  bad = 0;
  n = 0;
  for (int j = 0; j < 200000; j++) {
    int k = 0, nd = 1 + (int)(rnd() % 12), at = (int)(rnd() % (nd + 1));
    for (int i = 0; i < nd; i++) {
      if (i == at) buf[k++] = (char)(1 + rnd() % 255);
      buf[k++] = (char)('0' + rnd() % 10);
      if (i == 2 && rnd() % 2) buf[k++] = '.';
    }
    buf[k] = '\0';
    n++;
    if (!same(buf, why, sizeof why) && bad++ < 5) diag("%s", why);
  }
  ok(bad == 0, "%ld digit runs broken by an arbitrary byte: the same doubles and refusals as strtod (%d differ)", n, bad);

  {
    const char *cases[] = {"0", "-0", "+0", "0.0", "-0.0e5", "1.", ".5", "-.5", "1e5", "1E-5", "1e+5", "007",
                           "9007199254740993", "9007199254740995", "18446744073709551615", "0.1", "1e27", "1e-27",
                           "1e28", "123456789012345678e-27", "1e308", "1e309", "1e-400", "", ".", "-", "+", "e5",
                           "1e", "1e+", "1.2.3", "1..2", " 1", "1 ", "nan", "inf", "-inf", "0x1p3", "1e99999999999",
                           "12345678901234567890123", "0.00000000000000000000000000000012345", "1,5", "١"};
    bad = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
      if (!same(cases[i], why, sizeof why) && bad++ < 5) diag("%s", why);
    ok(bad == 0, "%zu edge cases (signs, zeros, points, exponents, overflow, words, hex): as strtod (%d differ)",
       sizeof cases / sizeof cases[0], bad);
  }
  /* whole point files: lines of 2 to 6 numbers (the fast path) mixed with comments, blank lines
   * and key=value fields (the general reader), each field as strtod and strtol read it; one file
   * without energy (2-4 fields), one with (5-6) */
  for (int part = 0; part < 2; part++) {
    static char text[1 << 20];
    static double want[1000][5];
    int nf[1000], k = 0, badp = 0, rc;
    const char *sep[] = {" ", "  ", "\t", " \t "};
    fupermod_points pts;
    for (int i = 0; i < 1000; i++) {
      int n = part == 0 ? 2 + (int)(rnd() % 3) : 5 + (int)(rnd() % 2);
      char tok[6][40];
      nf[i] = n;
      snprintf(tok[0], sizeof tok[0], "%d", 1 + 3 * i);
      for (int j = 1; j < n; j++) {
        double x = ldexp((double)(rnd() % 1000000 + 1), (int)(rnd() % 40) - 30);
        if (j == 2) snprintf(tok[j], sizeof tok[j], "%d", 1 + (int)(rnd() % 50));
        else snprintf(tok[j], sizeof tok[j], rnd() % 2 ? "%.17g" : "%g", x);
        want[i][j - 1] = strtod(tok[j], NULL);
      }
      for (int j = 0; j < n; j++) k += snprintf(text + k, sizeof text - k, "%s%s", j ? sep[rnd() % 4] : "", tok[j]);
      if (rnd() % 5 == 0) k += snprintf(text + k, sizeof text - k, "%s", rnd() % 2 ? " # a comment" : " rejected=1");
      k += snprintf(text + k, sizeof text - k, "%s", rnd() % 4 ? "\n" : "\r\n");
      if (rnd() % 10 == 0) k += snprintf(text + k, sizeof text - k, "# only a comment\n\n");
    }
    rc = fupermod_points_parse(text, (size_t)k, "gen", &pts);
    for (int i = 0; rc == FUPERMOD_SUCCESS && i < pts.count && i < 1000; i++) {
      const fupermod_point *q = &pts.pts[i];
      int n = nf[i];
      int good = q->d == 1 + 3 * i && q->t == want[i][0] && q->reps == (n >= 3 ? (int)want[i][1] : 1) &&
                 q->ci == (n >= 4 ? want[i][2] : 0.0) && q->e == (n >= 5 ? want[i][3] : -1.0) &&
                 q->e_ci == (n >= 6 ? want[i][4] : n == 5 ? 0.0 : -1.0);
      if (!good && badp++ < 3) diag("line for d=%d (%d fields) read differently", 1 + 3 * i, n);
    }
    ok(rc == FUPERMOD_SUCCESS && pts.count == 1000 && badp == 0,
       "1000 generated point lines %s energy (blanks, CRLF, comments, key=value): every field as strtod reads it "
       "(%s, %d differ)", part ? "with" : "without", rc ? fupermod_error_message() : "parsed", badp);
    if (rc == FUPERMOD_SUCCESS) fupermod_points_free(&pts);
  }
  /* integer fields far longer than a long: refused, with the line named, never overflowed */
  {
    const char *t = "1 1e-9 214747777777777777777777783647 0\n";
    fupermod_points pts;
    int rc = fupermod_points_parse(t, strlen(t), "long", &pts);
    ok(rc == FUPERMOD_ERR_INPUT && strstr(fupermod_error_message(), "long:1"), "a 30-digit reps is refused: %s",
       fupermod_error_message());
    t = "123456789012345678901234567890 1\n";
    rc = fupermod_points_parse(t, strlen(t), "long", &pts);
    ok(rc == FUPERMOD_ERR_INPUT && strstr(fupermod_error_message(), "long:1"), "a 30-digit d is refused: %s",
       fupermod_error_message());
  }
  /* a bad value on a line the quick readers see (the 256 bytes after it are there): refused with
   * the line named, as the general reader does */
  {
    static char text[4096];
    const char *bad[] = {"0 1.5", "3 0.0", "4 1.5x", "5 -1.5", "6 1.5 0"};
    const char *want[] = {":3: d must be positive", ":3: t must be > 0", ":3: t '1.5x'", ":3: t must be > 0", ":3: reps '0'"};
    for (int b = 0; b < 5; b++) {
      fupermod_points pts;
      int k = snprintf(text, sizeof text, "1 1.25\n2 2.5\n%s\n", bad[b]);
      for (int i = 10; i < 60; i++) k += snprintf(text + k, sizeof text - k, "%d %d.125\n", i, i);
      ok(fupermod_points_parse(text, (size_t)k, "bad", &pts) == FUPERMOD_ERR_INPUT &&
             strstr(fupermod_error_message(), want[b]),
         "'%s' early in a long file: %s", bad[b], fupermod_error_message());
    }
  }
  /* the plain lines of a point file ("d t", fixed-point decimals, no sign, no exponent), which a
   * reader takes eight bytes at a time: every time as strtod reads it, among them decimals within
   * a few units of 64 bits of halfway between two doubles, and every form at the file's end */
  {
    static char text[1 << 23];
    static double want[100000];
    int k = 0, badp = 0, rc, nl = 100000;
    fupermod_points pts;
    for (int i = 0; i < nl; i++) {
      char tok[64];
      double x = ldexp((double)(rnd() >> 11) / 9007199254740992.0 + 1.0, (int)(rnd() % 40) - 20);
      if (rnd() % 2) {
        long double mid = ((long double)x + (long double)nextafter(x, 2 * x)) / 2;
        int ex;
        frexpl(mid, &ex);
        mid += ldexpl((long double)((int)(rnd() % 17) - 8), ex - 64);
        /* 19 significant digits, as a fixed-point number */
        snprintf(tok, sizeof tok, "%.*Lf", mid >= 1 ? 18 - (int)floorl(log10l(mid)) : 18 + (int)ceill(-log10l(mid)), mid);
      } else {
        snprintf(tok, sizeof tok, "%.*f", 7 + (int)(rnd() % 13), x); /* never 0 */
      }
      want[i] = strtod(tok, NULL);
      k += snprintf(text + k, sizeof text - k, "%d%s%s%s", i + 1, rnd() % 8 ? " " : " \t ", tok,
                    rnd() % 16 ? "\n" : "\r\n");
    }
    rc = fupermod_points_parse(text, (size_t)k, "plain", &pts);
    if (rc != FUPERMOD_SUCCESS) diag("%s", fupermod_error_message());
    for (int i = 0; rc == FUPERMOD_SUCCESS && i < pts.count; i++)
      if ((pts.pts[i].d != i + 1 || pts.pts[i].t != want[i]) && badp++ < 3)
        diag("line %d: t %.17g, strtod %.17g", i + 1, pts.pts[i].t, want[i]);
    ok(rc == FUPERMOD_SUCCESS && pts.count == nl && badp == 0,
       "%d plain point lines, half of them within a few units of halfway: every t as strtod reads it (%d differ)", nl,
       badp);
    if (rc == FUPERMOD_SUCCESS) fupermod_points_free(&pts);
  }
  return done_testing();
}
