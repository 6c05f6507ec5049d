/* fupermod's clock (fupermod/clock.h). */
#include <time.h>
#include "fupermod/clock.h"
#include "fupermod/error.h"

typedef double (*clock_fn)(void);
typedef int (*mode_fn)(void);

static clock_fn injected;
static mode_fn injected_mode;
static int read_once; /* fupermod_time was read: the clock is fixed */

double fupermod_time(void) {
  clock_fn f;
  struct timespec ts;
  __atomic_store_n(&read_once, 1, __ATOMIC_RELEASE);
  if ((f = __atomic_load_n(&injected, __ATOMIC_ACQUIRE))) return f();
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int fupermod_time_simulated(void) {
  mode_fn m;
#ifdef FUPERMOD_SMPI
  /* smpicc's smpi_helpers.h makes clock_gettime above SimGrid's simulated clock, and every device
   * of this build is emulated and computes nothing (fupermod/smpi/exec_emu.c; docs/simulate.md) */
  return 2;
#endif
  if (!__atomic_load_n(&injected, __ATOMIC_ACQUIRE)) return 0;
  m = __atomic_load_n(&injected_mode, __ATOMIC_ACQUIRE);
  return m && m() ? 2 : 1;
}

int fupermod_clock_inject(double (*now)(void), int (*nopayload)(void)) {
  clock_fn none = NULL;
  if (!now) return fupermod_error(FUPERMOD_ERR_USAGE, "clock: no clock to inject");
  if (__atomic_load_n(&read_once, __ATOMIC_ACQUIRE) && __atomic_load_n(&injected, __ATOMIC_ACQUIRE) != now)
    return fupermod_error(FUPERMOD_ERR_USAGE, "clock: fupermod_time was already read; an injected clock must come first");
  if (!__atomic_compare_exchange_n(&injected, &none, now, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE) && none != now)
    return fupermod_error(FUPERMOD_ERR_USAGE, "clock: another clock was injected first");
  /* only the clock that holds: a refused injection must not change what it says */
  if (none == NULL) __atomic_store_n(&injected_mode, nopayload, __ATOMIC_RELEASE);
  return FUPERMOD_SUCCESS;
}
