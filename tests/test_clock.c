/* fupermod's clock (fupermod/clock.h): an injected clock is read by fupermod_time and said
 * simulated; a clock already read stays. Each case in its own process: the clock is per process. */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "fupermod/clock.h"
#include "fupermod/error.h"
#include "tests/tap.h"

static double fake = 100.0;
static int empty = 0;
static double fake_now(void) { return fake; }
static double other_now(void) { return -1.0; }
static int fake_nopayload(void) { return empty; }

/* status 0 where every check in the child held */
static int in_child(int (*body)(void)) {
  int st = 0;
  pid_t pid = fork();
  if (pid == 0) _exit(body());
  if (pid < 0 || waitpid(pid, &st, 0) != pid) return -1;
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int injected_first(void) {
  int bad = 0;
  bad |= fupermod_time_simulated() != 0;
  bad |= fupermod_clock_inject(fake_now, fake_nopayload) != FUPERMOD_SUCCESS;
  bad |= fupermod_time() != 100.0;
  fake = 101.5;
  bad |= fupermod_time() != 101.5;
  bad |= fupermod_time_simulated() != 1;
  empty = 1;
  bad |= fupermod_time_simulated() != 2;
  bad |= fupermod_clock_inject(fake_now, NULL) != FUPERMOD_SUCCESS; /* the same again: no change */
  bad |= fupermod_clock_inject(other_now, NULL) == FUPERMOD_SUCCESS;
  bad |= fupermod_time() != 101.5;
  bad |= fupermod_time_simulated() != 2; /* the refused injection left the mode as it was */
  return bad;
}

static int read_first(void) {
  int bad = 0;
  double t0 = fupermod_time(), t1;
  bad |= fupermod_clock_inject(fake_now, NULL) == FUPERMOD_SUCCESS;
  t1 = fupermod_time();
  bad |= !(t1 >= t0 && t1 < t0 + 60);
  bad |= fupermod_time_simulated() != 0;
  return bad;
}

int main(void) {
  ok(in_child(injected_first) == 0,
     "injected before any read: fupermod_time reads it, simulated 1 (2 while the device computes nothing); another clock is refused");
  ok(in_child(read_first) == 0, "a clock already read stays: the injection is refused, the real clock goes on, not simulated");
  ok(fupermod_clock_inject(NULL, NULL) != FUPERMOD_SUCCESS, "no clock to inject: an error");
  return done_testing();
}
