/* The one line reader of every text format (points, configurations, distributions, layouts).
 * Internal to the library: not installed, and hidden from the shared library.
 *
 * Lines end at '\n' (CRLF too: '\r' is a blank); the last line may lack its '\n'. '#' starts a
 * comment anywhere on a line. A line with no field once its comment is removed is skipped, but
 * still counted, so that messages name the line as an editor numbers it. Lines have no length
 * limit. */
#ifndef FUPERMOD_LINES_H
#define FUPERMOD_LINES_H

#include <stddef.h>

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
/* The next line as it stands in the text, [*s, *e) without its '\n' and not yet counted: 0 at the
 * end. A reader that takes it itself calls fupermod_lines_skip, which counts it and returns its
 * number; otherwise fupermod_lines_next reads it as usual. */
int fupermod_lines_peek(const fupermod_lines *r, const char **s, const char **e);
int fupermod_lines_skip(fupermod_lines *r);

/* Split s in place into blank-separated fields (blanks: space, \t, \r, \v, \f). Returns the
 * number of fields, or max + 1 when there are more than max (field[] then holds the first max). */
int fupermod_lines_fields(char *s, char **field, int max);

/* strtod's value of the plain decimal [s, end) ([+-]digits[.digits][(e|E)[+-]digits]) with at
 * most 19 significant digits and a power of ten within 10^-27..10^27, without strtod's
 * multi-precision path (which 17-digit times take on every number). The significand and the power
 * are exact in x87 extended precision, so one multiplication or division rounds once, to 64 bits;
 * rounding that to 53 bits is the correctly rounded double unless it lies exactly halfway between
 * two doubles (low 11 bits 0x400), which is left to strtod. 0: *out set; -1: not such a decimal,
 * or that case (ask strtod). */
int fupermod_lines_decimal(const char *s, const char *end, double *out);

#endif
