/* Declared sub-options: what a kernel, a meter or the executor reads from a configuration line
 * ("key=value,..."), so that a misspelt or malformed one is refused with the file, the line and
 * the closest known name instead of being ignored (docs/kernels.md, "Sub-options"). */
#ifndef FUPERMOD_OPTION_H
#define FUPERMOD_OPTION_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* the public API; the libraries build with -fvisibility=hidden */

typedef enum {
  FUPERMOD_OPT_LONG = 1, /* an integer in [min, max] */
  FUPERMOD_OPT_DOUBLE,   /* a finite number in [min, max] */
  FUPERMOD_OPT_STRING    /* any text without a comma, or one of choices */
} fupermod_option_type;

typedef struct fupermod_option {
  const char *name;
  fupermod_option_type type;
  double min, max;     /* numbers: the range; min > max: any value */
  const char *def;     /* the default as written on a line; NULL: none (absent means unset) */
  const char *help;    /* one line */
  const char *choices; /* strings: "a|b|c", or NULL for any text */
} fupermod_option;

/* Ends a table. */
#define FUPERMOD_OPTION_END {NULL, (fupermod_option_type)0, 0, 0, NULL, NULL, NULL}

/* The entry of table (terminated by FUPERMOD_OPTION_END; NULL: none) named name, or NULL. */
const fupermod_option *fupermod_option_find(const fupermod_option *table, const char *name);
/* FUPERMOD_SUCCESS when value suits o; otherwise FUPERMOD_ERR_USAGE with a message such as
 * "sub-option threads=x must be an integer in [1, 4096]" (a kernel's create returns it as is). */
int fupermod_option_check(const fupermod_option *o, const char *value);
/* The value of name in subopts, checked against its entry of table, else the entry's default.
 * Returns 1 when given, 0 when the default (or nothing: *out untouched without a default) was
 * used, < 0 on a bad value or a name missing from table (a programming error). */
int fupermod_option_long(const fupermod_option *table, const char *subopts, const char *name, long *out);
int fupermod_option_double(const fupermod_option *table, const char *subopts, const char *name, double *out);
int fupermod_option_string(const fupermod_option *table, const char *subopts, const char *name, char *buf, size_t size);
/* One line describing o ("threads  integer in [1, 4096], default 1: the threads ...") into buf. */
void fupermod_option_describe(const fupermod_option *o, char *buf, size_t size);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
