/* Error reporting: functions return a status, the message is recorded per thread. */
#ifndef FUPERMOD_ERROR_H
#define FUPERMOD_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* the public API; the libraries build with -fvisibility=hidden */

enum fupermod_status {
  FUPERMOD_SUCCESS = 0,
  FUPERMOD_ERR_INPUT = -1,      /* malformed or invalid input (file and line in the message) */
  FUPERMOD_ERR_USAGE = -2,      /* invalid parameter or option */
  FUPERMOD_ERR_INFEASIBLE = -3, /* no feasible distribution exists */
  FUPERMOD_ERR_NOMEM = -4,      /* allocation failed */
  FUPERMOD_ERR_SYSTEM = -5,     /* I/O, dlopen, OS call failed */
  FUPERMOD_ERR_NODEVICE = -6,   /* requested device (e.g. CUDA) not present */
  FUPERMOD_ERR_NUMERIC = -7,    /* a numerical method failed to converge */
  FUPERMOD_ERR_MPI = -8         /* an MPI call failed or ranks disagree */
};

/* Record a printf-style message for this thread and return code (for `return fupermod_error(...)`). */
int fupermod_error(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prefix the recorded message with "context: " and return code. */
int fupermod_error_prefix(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The last recorded message of this thread ("" if none). */
const char *fupermod_error_message(void);
void fupermod_error_clear(void);
/* Exit status a tool uses for a status: 0 ok, 1 input/run-time, 2 usage, 3 infeasible. */
int fupermod_exit_status(int status);
const char *fupermod_status_name(int status);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
