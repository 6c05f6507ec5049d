/* The one line reader of every text format (points, configurations, distributions, layouts).
 * Internal to the library: not installed, and hidden from the shared library.
 *
 * Lines end at '\n' (CRLF too: '\r' is a blank); the last line may lack its '\n'. '#' starts a
 * comment anywhere on a line. A line with no field once its comment is removed is skipped, but
 * still counted, so that messages name the line as an editor numbers it. Lines have no length
 * limit. */
#ifndef FUPERMOD_LINES_H
#define FUPERMOD_LINES_H

#include <float.h>
#include <stddef.h>
#include <string.h>

typedef struct fupermod_lines {
  const char *text;
  size_t len, pos;
  const char *name; /* for messages */
  int line;         /* number of the line last returned, from 1 */
  char *buf;        /* that line without its comment and '\n', NUL-terminated */
  size_t cap;
} fupermod_lines;

void fupermod_lines_init(fupermod_lines *r, const char *text, size_t len, const char *name);
/* The next line with a field into *line (r->buf; valid until the next call), NULL at the end.
 * Errors (a NUL byte, out of memory) name the file and line; *line is then NULL. */
int fupermod_lines_next(fupermod_lines *r, char **line);
void fupermod_lines_free(fupermod_lines *r);
/* For a reader that takes the usual line itself: where the next line starts in the text (NULL at
 * the end), and, once it took the line and everything up to next (just past the '\n', or the
 * end), the count of that line, which it returns. Otherwise fupermod_lines_next reads it. */
static inline const char *fupermod_lines_rest(const fupermod_lines *r) {
  return r->pos < r->len ? r->text + r->pos : NULL;
}
static inline int fupermod_lines_took(fupermod_lines *r, const char *next) {
  r->pos = (size_t)(next - r->text);
  return ++r->line;
}

/* Split s in place into blank-separated fields (blanks: space, \t, \r, \v, \f). Returns the
 * number of fields, or max + 1 when there are more than max (field[] then holds the first max). */
int fupermod_lines_fields(char *s, char **field, int max);

/* strtod's value of the plain decimal [s, end) ([+-]digits[.digits][(e|E)[+-]digits]) with at
 * most 19 significant digits and a power of ten within 10^-27..10^27, without strtod's
 * multi-precision path (which 17-digit times take on every number). The significand is exact in
 * x87 extended precision and one multiplication by 10^e brings the value within 2 units of its
 * 64-bit significand; rounding that to 53 bits is the correctly rounded double unless it lies
 * within those units of halfway between two doubles, which is left to strtod. 0: *out set; -1:
 * not such a decimal, or that case (ask strtod). */
int fupermod_lines_decimal(const char *s, const char *end, double *out);
/* The decimal at s, read up to the first character that cannot continue it: its end, *out set;
 * NULL where fupermod_lines_decimal would refuse what was read. Reads nothing at or past limit. */
const char *fupermod_lines_number(const char *s, const char *limit, double *out);
/* 1 to 18 digits at s, as strtol reads them: their end, *out set; NULL otherwise. */
const char *fupermod_lines_integer(const char *s, const char *limit, long *out);
/* m 10^e as strtod rounds it, for m < 2^64 and -27 <= e <= 27: 0 and *out set; -1 outside that
 * range or where one multiplication cannot tell the rounding (see fupermod_lines_decimal). Inline:
 * each reader waits on it once per value, and out of line its latency was 1/6 of a file's parse. */
static inline int fupermod_lines_compose(unsigned long long m, int e, double *out) {
#if LDBL_MANT_DIG == 64 && (defined(__x86_64__) || defined(__i386__))
  static const long double p10[28] = {1e0L,  1e1L,  1e2L,  1e3L,  1e4L,  1e5L,  1e6L,  1e7L,  1e8L,  1e9L,
                                      1e10L, 1e11L, 1e12L, 1e13L, 1e14L, 1e15L, 1e16L, 1e17L, 1e18L, 1e19L,
                                      1e20L, 1e21L, 1e22L, 1e23L, 1e24L, 1e25L, 1e26L, 1e27L};
  /* rounded once each (the compiler rounds these literals correctly) */
  static const long double n10[28] = {1e0L,   1e-1L,  1e-2L,  1e-3L,  1e-4L,  1e-5L,  1e-6L,
                                      1e-7L,  1e-8L,  1e-9L,  1e-10L, 1e-11L, 1e-12L, 1e-13L,
                                      1e-14L, 1e-15L, 1e-16L, 1e-17L, 1e-18L, 1e-19L, 1e-20L,
                                      1e-21L, 1e-22L, 1e-23L, 1e-24L, 1e-25L, 1e-26L, 1e-27L};
  unsigned long long low;
  long double v;
  int off;
  if (m == 0) {
    *out = 0.0;
    return 0;
  }
  if (e < -27 || e > 27) return -1;
  /* m and 10^e (e >= 0) are exact: one rounding, within half a unit of the 64-bit significand.
   * 10^e (e < 0) is rounded too: within 2 units. The rounding to 53 bits is then the correct one
   * unless the low 11 bits are within 3 units of the halfway point 0x400 (left to strtod). */
  v = e >= 0 ? (long double)m * p10[e] : (long double)m * n10[-e];
  memcpy(&low, &v, sizeof low); /* the 64-bit significand, explicit leading bit included */
  off = (int)(low & 0x7FF) - 0x400;
  if (off >= -3 && off <= 3) return -1;
  *out = (double)v;
  return 0;
#else
  (void)m;
  (void)e;
  (void)out;
  return -1;
#endif
}

/* Eight bytes at once, where the first byte loaded is the least significant (FUPERMOD_LINES_SWAR):
 * how many of x's first bytes are ASCII digits (0 to 8), and the value of k of them (1 to 8), the
 * first digit the most significant. A byte's top bit below marks a non-digit: below '0' (the
 * subtraction borrows) or above '9' (+0x46 passes 0x7F, or carries out past 0xB9, where the
 * subtraction has set it); a borrow or carry only reaches the bytes after the first non-digit. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define FUPERMOD_LINES_SWAR 1
#endif
static const unsigned long long fupermod_lines_pow10[17] = {
    1ULL,          10ULL,          100ULL,          1000ULL,          10000ULL,          100000ULL,
    1000000ULL,    10000000ULL,    100000000ULL,    1000000000ULL,    10000000000ULL,    100000000000ULL,
    1000000000000ULL, 10000000000000ULL, 100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL};
static inline int fupermod_lines_digits8(unsigned long long x) {
  unsigned long long no = ((x - 0x3030303030303030ULL) | (x + 0x4646464646464646ULL)) & 0x8080808080808080ULL;
  return no ? __builtin_ctzll(no) >> 3 : 8;
}
static inline unsigned long long fupermod_lines_value(unsigned long long x, int k) {
  unsigned long long y = (x - 0x3030303030303030ULL) << (64 - 8 * k); /* zeros before the k digits */
  y = y * 10 + (y >> 8);
  return (((y & 0x000000FF000000FFULL) * (100 + (1000000ULL << 32))) +
          (((y >> 16) & 0x000000FF000000FFULL) * (1 + (10000ULL << 32)))) >> 32;
}

#endif
