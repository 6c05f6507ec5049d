/* fupermod's clock: every time the library measures (benchmarks, applications, meters, dynamic
 * balancing) is read from fupermod_time. By default it is CLOCK_MONOTONIC; a simulator of a device
 * (the stand-in CUDA with $FAKE_CUDA_SIM, docs/kernels.md "A simulated GPU") injects its virtual
 * clock instead, so that the library never looks a simulator up. */
#ifndef FUPERMOD_CLOCK_H
#define FUPERMOD_CLOCK_H

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

/* Monotonic wall clock in seconds. */
double fupermod_time(void);

/* 0: fupermod_time is the real clock; 1: it reads an injected (simulated) clock: its times are
 * SIMULATED; 2: the same, and the simulated device computes nothing (the injector's nopayload
 * says so at the time of the call): its results are not to be checked. */
int fupermod_time_simulated(void);

/* Make now (seconds, monotonic) fupermod_time's clock for the rest of the process; nopayload (may
 * be NULL) tells fupermod_time_simulated whether the simulated device computes nothing. Only
 * before fupermod_time was first read: an interval must not straddle two clocks, so a clock
 * already read stays (FUPERMOD_ERR_USAGE, with a message). Thread-safe. */
int fupermod_clock_inject(double (*now)(void), int (*nopayload)(void));

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
