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

/* Split s in place into blank-separated fields (blanks: space, \t, \r, \v, \f). Returns the
 * number of fields, or max + 1 when there are more than max (field[] then holds the first max). */
int fupermod_lines_fields(char *s, char **field, int max);

#endif
