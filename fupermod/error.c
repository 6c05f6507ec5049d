#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "fupermod/error.h"

/* One message per thread: OpenMP partitioners may fail in worker threads. */
static _Thread_local char message[1024];

int fupermod_error(int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(message, sizeof message, fmt, ap);
  va_end(ap);
  return code;
}

int fupermod_error_prefix(int code, const char *fmt, ...) {
  char old[sizeof message];
  int n;
  va_list ap;
  memcpy(old, message, sizeof old);
  va_start(ap, fmt);
  n = vsnprintf(message, sizeof message, fmt, ap);
  va_end(ap);
  if (n >= 0 && (size_t)n + 2 < sizeof message) {
    message[n] = ':';
    message[n + 1] = ' ';
    memcpy(message + n + 2, old, sizeof message - (size_t)n - 2);
    message[sizeof message - 1] = '\0';
  }
  return code;
}

const char *fupermod_error_message(void) { return message; }

void fupermod_error_clear(void) { message[0] = '\0'; }

int fupermod_exit_status(int status) {
  switch (status) {
  case FUPERMOD_SUCCESS: return 0;
  case FUPERMOD_ERR_USAGE: return 2;
  case FUPERMOD_ERR_INFEASIBLE: return 3;
  default: return 1;
  }
}

const char *fupermod_status_name(int status) {
  switch (status) {
  case FUPERMOD_SUCCESS: return "success";
  case FUPERMOD_ERR_INPUT: return "bad input";
  case FUPERMOD_ERR_USAGE: return "usage";
  case FUPERMOD_ERR_INFEASIBLE: return "infeasible";
  case FUPERMOD_ERR_NOMEM: return "out of memory";
  case FUPERMOD_ERR_SYSTEM: return "system error";
  case FUPERMOD_ERR_NODEVICE: return "no device";
  case FUPERMOD_ERR_NUMERIC: return "numerical failure";
  case FUPERMOD_ERR_MPI: return "MPI error";
  default: return "unknown error";
  }
}
