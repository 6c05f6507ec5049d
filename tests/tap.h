/* Minimal TAP producer for C tests. Under MPI only rank 0 should print (tap_quiet on others). */
#ifndef FUPERMOD_TAP_H
#define FUPERMOD_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static int tap_n = 0, tap_failed = 0, tap_silent = 0;

static inline void tap_quiet(int quiet) { tap_silent = quiet; }

/* Record one test point; returns cond so callers can branch on it. */
static inline int ok(int cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline int ok(int cond, const char *fmt, ...) {
  va_list ap;
  tap_n++;
  if (!cond) tap_failed++;
  if (tap_silent) return cond;
  printf("%sok %d - ", cond ? "" : "not ", tap_n);
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  printf("\n");
  fflush(stdout);
  return cond;
}

static inline void diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline void diag(const char *fmt, ...) {
  va_list ap;
  if (tap_silent) return;
  printf("# ");
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  printf("\n");
  fflush(stdout);
}

static inline void skip(const char *why) {
  tap_n++;
  if (!tap_silent) printf("ok %d # SKIP %s\n", tap_n, why);
}

/* Print the plan and return the process exit status. */
static inline int done_testing(void) {
  if (!tap_silent) {
    printf("1..%d\n", tap_n);
    fflush(stdout);
  }
  return tap_failed ? 1 : 0;
}

#endif
