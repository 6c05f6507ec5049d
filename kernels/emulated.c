/* Emulated kernel: the time (and energy) of d units come from a point file, so every tool runs
 * on any machine. Sub-options: points=FILE (required), noise=REL (relative s.d., default 0),
 * seed=N, mode=sleep|spin (sleep lets oversubscribed processes emulate independent devices),
 * spikes=PROB:FACTOR (each run, with probability PROB from the seeded generator, takes FACTOR times
 * as long and as much energy: outlying repetitions, docs/kernels.md). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "fupermod/fupermod.h"

typedef struct {
  fupermod_points pts;
  double noise;
  int spin;
  unsigned long long rng;
  double spike_prob, spike_factor;
  long d;
  double last_e;
} emu;

/* xorshift64*: uniform in [0, 1), reproducible from the seed, no global state */
static double uniform(emu *k) {
  k->rng ^= k->rng >> 12, k->rng ^= k->rng << 25, k->rng ^= k->rng >> 27;
  return ((k->rng * 2685821657736338717ULL) >> 11) * (1.0 / 9007199254740992.0);
}

static double gauss(emu *k) {
  /* Box-Muller */
  double u1 = uniform(k), u2 = uniform(k);
  if (u1 < 1e-300) u1 = 1e-300;
  return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

static const fupermod_option options[] = {
    {"points", FUPERMOD_OPT_STRING, 1, 0, NULL, "the point file whose times (and energies) are emulated (required)", NULL},
    {"noise", FUPERMOD_OPT_DOUBLE, 0, 1, "0", "relative standard deviation of the times", NULL},
    {"seed", FUPERMOD_OPT_LONG, 1, 0, NULL, "the noise's random seed (default: from the process id)", NULL},
    {"mode", FUPERMOD_OPT_STRING, 1, 0, "sleep", "sleep (oversubscribed processes emulate independent devices) or spin", "sleep|spin"},
    {"spikes", FUPERMOD_OPT_STRING, 1, 0, NULL, "PROB:FACTOR: a run takes FACTOR times longer with probability PROB", NULL},
    FUPERMOD_OPTION_END};

static int create(const char *subopts, void **ctx) {
  char buf[4096];
  emu *k = calloc(1, sizeof *k);
  int rc;
  if (!k) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  if ((rc = fupermod_subopt_get(subopts, "points", buf, sizeof buf)) != 1) {
    free(k);
    return rc < 0 ? rc : fupermod_error(FUPERMOD_ERR_USAGE, "emulated kernel needs the sub-option points=FILE");
  }
  if ((rc = fupermod_points_load(buf, &k->pts)) != FUPERMOD_SUCCESS) {
    free(k);
    return rc;
  }
  if (fupermod_subopt_get(subopts, "noise", buf, sizeof buf) == 1 &&
      (fupermod_parse_double(buf, &k->noise) != 0 || k->noise < 0 || k->noise > 1)) {
    fupermod_points_free(&k->pts);
    free(k);
    return fupermod_error(FUPERMOD_ERR_USAGE, "emulated kernel: noise '%s' must be in [0,1]", buf);
  }
  k->rng = 0x9E3779B97F4A7C15ULL ^ (unsigned long long)getpid();
  if (fupermod_subopt_get(subopts, "seed", buf, sizeof buf) == 1) {
    long s;
    if (fupermod_parse_long(buf, &s) != 0) {
      fupermod_points_free(&k->pts);
      free(k);
      return fupermod_error(FUPERMOD_ERR_USAGE, "emulated kernel: seed '%s' is not an integer", buf);
    }
    k->rng = 0x9E3779B97F4A7C15ULL ^ (unsigned long long)s;
  }
  if (!k->rng) k->rng = 1;
  if (fupermod_subopt_get(subopts, "mode", buf, sizeof buf) == 1) {
    if (strcmp(buf, "spin") == 0) k->spin = 1;
    else if (strcmp(buf, "sleep") != 0) {
      fupermod_points_free(&k->pts);
      free(k);
      return fupermod_error(FUPERMOD_ERR_USAGE, "emulated kernel: mode '%s' must be sleep or spin", buf);
    }
  }
  if (fupermod_subopt_get(subopts, "spikes", buf, sizeof buf) == 1) {
    char *colon = strchr(buf, ':');
    if (colon) *colon = '\0';
    if (!colon || fupermod_parse_double(buf, &k->spike_prob) != 0 || !(k->spike_prob >= 0 && k->spike_prob <= 1) ||
        fupermod_parse_double(colon + 1, &k->spike_factor) != 0 || !(k->spike_factor >= 1 && k->spike_factor <= 1e6)) {
      if (colon) *colon = ':';
      fupermod_points_free(&k->pts);
      free(k);
      return fupermod_error(FUPERMOD_ERR_USAGE,
                            "emulated kernel: spikes '%s' must be PROB:FACTOR, PROB in [0,1], FACTOR in [1,1e6]",
                            buf);
    }
  }
  *ctx = k;
  return FUPERMOD_SUCCESS;
}

static double complexity(long d, void *ctx) { return (double)d; }

static int initialize(long d, void *ctx) {
  ((emu *)ctx)->d = d;
  return FUPERMOD_SUCCESS;
}

static int execute(void *ctx) {
  emu *k = ctx;
  double f = 1.0, t, end;
  struct timespec ts;
  if (k->noise > 0) {
    f = 1.0 + k->noise * gauss(k);
    if (f < 0.1) f = 0.1;
  }
  if (k->spike_prob > 0 && uniform(k) < k->spike_prob) f *= k->spike_factor;
  t = fupermod_points_linear(&k->pts, k->d, 0) * f;
  k->last_e = k->pts.has_energy ? fupermod_points_linear(&k->pts, k->d, 1) * f : -1.0;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  end = (double)ts.tv_sec + 1e-9 * ts.tv_nsec + t;
  if (k->spin) {
    do clock_gettime(CLOCK_MONOTONIC, &ts);
    while ((double)ts.tv_sec + 1e-9 * ts.tv_nsec < end);
  } else {
    ts.tv_sec = (time_t)end;
    ts.tv_nsec = (long)((end - (double)ts.tv_sec) * 1e9);
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) != 0) {
    }
  }
  return FUPERMOD_SUCCESS;
}

static int finalize(void *ctx) { return FUPERMOD_SUCCESS; }

static void destroy(void *ctx) {
  emu *k = ctx;
  if (!k) return;
  fupermod_points_free(&k->pts);
  free(k);
}

static int energy(void *ctx, double *joules) {
  emu *k = ctx;
  if (k->last_e < 0) return FUPERMOD_ERR_USAGE;
  *joules = k->last_e;
  return FUPERMOD_SUCCESS;
}

const fupermod_kernel_ops fupermod_kernel_plugin = {
  FUPERMOD_KERNEL_API, "emulated", "time and energy of d units read from a point file",
  create, complexity, initialize, execute, finalize, destroy, NULL, energy, NULL, options};
