/* Small shared helpers: atomic file writes, file reading, strict number parsing. */
#ifndef FUPERMOD_UTIL_H
#define FUPERMOD_UTIL_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* the public API; the libraries build with -fvisibility=hidden */

/* Read a whole regular file (NUL-terminated); errors name the path. */
int fupermod_read_file(const char *path, char **text, size_t *len);
/* Atomic write: open a temporary beside path, write, then commit (fsync + rename) or abort. */
typedef struct fupermod_atomic_file {
  FILE *fp;
  char *path;
  char *tmp;
} fupermod_atomic_file;
int fupermod_atomic_open(fupermod_atomic_file *af, const char *path);
int fupermod_atomic_commit(fupermod_atomic_file *af);
void fupermod_atomic_abort(fupermod_atomic_file *af);
/* Strict parsers: the whole token must be a finite number. Return 0 on success. */
int fupermod_parse_long(const char *s, long *out);
int fupermod_parse_double(const char *s, double *out);
/* A byte count: a number >= 0 with an optional K, M or G (powers of 1024), at most 1e18. */
int fupermod_parse_bytes(const char *s, double *out);
/* Create a directory and its parents. */
int fupermod_mkdir_p(const char *path);
/* The one of names[0..n-1] closest to word (a typo: edit distance at most a third of its length,
 * at least 2), or NULL: for "did you mean" in error messages. */
const char *fupermod_closest_name(const char *word, const char *const *names, size_t n);
/* A test hook (docs/testing.md): where FUPERMOD_TEST_HOLD is POINT:DIR, a process that reaches
 * POINT creates DIR/held.HOST.PID and waits until DIR/release exists (at most 10 minutes), so that a
 * test injects a fault at a point the program reaches for certain instead of racing a
 * computation whose speed depends on the machine. Unset or another point: returns at once. */
void fupermod_test_hold(const char *point);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
