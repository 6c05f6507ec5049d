/* A stand-in for the CUDA runtime (libcudart.so.13) that computes on the host, for tests on
 * machines without a GPU (docs/kernels.md, "GPU code without a GPU: the stand-in").
 *
 * It is faithful where bugs hide:
 * - work queued on a stream runs only at that stream's synchronisation points (stream, event and
 *   device synchronisation, a blocking copy, cudaFree and cudaFreeHost, a second query of a busy
 *   stream or event), in stream order, with the legacy default stream's implicit ordering and
 *   cudaStreamWaitEvent; host buffers of asynchronous copies are read and written when the copy
 *   runs;
 * - device memory starts as NaN bytes (0xFF), and device pointers are known, so a copy of the
 *   wrong kind, or out of its allocation, is refused with cudaErrorInvalidValue;
 * - each device has $FAKE_CUDA_MEM bytes (default 1 GiB; suffixes k, M, G) and there are
 *   $FAKE_CUDA_DEVICES devices (default 2; "error": cudaGetDeviceCount fails).
 * Everything runs under one lock; work runs in the thread that synchronises. Host functions
 * (cudaLaunchHostFunc) must not call CUDA, as with CUDA.
 *
 * With $FAKE_CUDA_SIM naming a device description (tests/fake_cuda/devices), a virtual clock
 * times the queued work as that GPU would (docs/kernels.md, "A simulated GPU"): each operation is
 * timed when it is queued, from its stream, the events it waits for, and its engine (a copy
 * engine each way, one compute engine), which serves operations in the order they are queued. The
 * host's virtual time is the real time it spends between calls, plus its waits for the device.
 * $FAKE_CUDA_NOPAYLOAD skips the arithmetic and copying, $FAKE_CUDA_ORDER=adversarial runs the
 * work of independent streams latest first, $FAKE_CUDA_STRICT refuses asynchronous copies of
 * pageable memory. */
#define _GNU_SOURCE /* PTHREAD_MUTEX_RECURSIVE */
#include "config.h"
#include <dlfcn.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/mman.h>
#include <time.h>
#include "tests/fake_cuda/standin.h"

#define MAXDEV 16
#define ALIGN 256
#define POISON 0xFF

STANDIN_EXPORT const char fupermod_cudart_standin[] = "fupermod stand-in";

/* ---------------------------------------------------------------- state */

enum { OP_WORK, OP_WAIT, OP_RECORD };

typedef struct op {
  uint64_t seq;
  int kind;
  standin_fn run, drop;
  void *arg;
  uint64_t wstream, wseq; /* OP_WAIT: run that stream up to that op first */
  int skip;               /* no payload: drop without running */
  struct op *next;
} op;

enum { ST_USER, ST_LEGACY, ST_PER_THREAD };

struct CUstream_st {
  uint64_t id;
  int dev, kind, destroyed, query_seen;
  unsigned flags;
  double vt; /* virtual completion time of its last operation */
  op *head, *tail;
  struct CUstream_st *next;
};

struct CUevent_st {
  uint64_t id, rec_stream, rec_seq;
  int dev, recorded, complete, destroyed, pending, query_seen;
  unsigned flags;
  double time, vrec; /* host clock when the record ran; virtual time of the latest record */
  struct CUevent_st *next;
};

typedef struct block {
  char *base;
  size_t bytes, charged;
  int dev;       /* device memory: its device; host memory: -1 */
  int pinned;    /* host: 1 from cudaMallocHost, 2 registered */
  int freeing;   /* a cudaFreeAsync is queued */
  int mapped;    /* device memory without payload: an address range never touched (munmap) */
  struct block *next;
} block;

static pthread_mutex_t big;
static pthread_once_t big_once = PTHREAD_ONCE_INIT;
static int nest;
static uint64_t next_seq = 1, next_id = MAXDEV + 1;
static struct CUstream_st legacy[MAXDEV], *streams;
static struct CUevent_st *events;
static block *blocks;
static size_t used[MAXDEV];
static unsigned dev_flags[MAXDEV];
static unsigned char peer[MAXDEV][MAXDEV];
static __thread int current;
static __thread cudaError_t last_error;
static __thread struct CUstream_st *per_thread[MAXDEV];

static void big_init(void) {
  pthread_mutexattr_t a;
  pthread_mutexattr_init(&a);
  pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
  pthread_mutex_init(&big, &a);
  pthread_mutexattr_destroy(&a);
  for (int d = 0; d < MAXDEV; d++) {
    legacy[d].id = (uint64_t)d + 1;
    legacy[d].dev = d;
    legacy[d].kind = ST_LEGACY;
    legacy[d].next = d + 1 < MAXDEV ? &legacy[d + 1] : NULL;
  }
  streams = &legacy[0];
}

static void reap(void);
static void sim_enter(void);
static void sim_leave(void);

static void lock(void) {
  pthread_once(&big_once, big_init);
  pthread_mutex_lock(&big);
  if (++nest == 1) sim_enter();
}

static __thread double host_sleep; /* realtime: seconds the host must still wait, after the lock */

static void unlock(void) {
  int last = --nest == 0;
  if (last) {
    reap();
    sim_leave();
  }
  pthread_mutex_unlock(&big);
  if (last && host_sleep > 0) {
    struct timespec ts = {(time_t)host_sleep, (long)((host_sleep - (double)(time_t)host_sleep) * 1e9)};
    host_sleep = 0;
    while (nanosleep(&ts, &ts) != 0) {}
  }
}

static cudaError_t ret(cudaError_t e) {
  if (e != cudaSuccess && e != cudaErrorNotReady) last_error = e;
  return e;
}

STANDIN_EXPORT void fupermod_standin_note(const char *fmt, ...) {
  va_list ap;
  if (!getenv("FAKE_CUDA_VERBOSE")) return;
  fputs("cuda stand-in: ", stderr);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A size in bytes, with suffix k, M or G; 0 for none. */
static double parse_size(const char *v) {
  char *end;
  double c = strtod(v, &end);
  switch (*end) {
  case 'k': case 'K': c *= 1024.0; break;
  case 'm': case 'M': c *= 1048576.0; break;
  case 'g': case 'G': c *= 1073741824.0; break;
  default: break;
  }
  return c > 0 ? c : 0;
}

/* ---------------------------------------------------------------- the simulated device */

enum { ENG_H2D, ENG_D2H, ENG_COMPUTE, ENG_NONE };
#define MAXGEMM 64
/* Copies of one direction still to be met by copies of the other (duplex): enough for every
 * pipeline here; beyond it the oldest are forgotten, as if they had ended. */
#define MAXBUSY 256

/* The device description ($FAKE_CUDA_SIM) and the engines' clocks. */
static struct {
  int on; /* 1: a description is loaded; -1: $FAKE_CUDA_SIM names none that can be read */
  char name[128];
  double mem, bw[2][2]; /* bw[pinned][device to host], bytes/s */
  double hbm, latency, fft, init, reg, k_half, mn_half, row;
  double duplex, fft_launch, sector, row_eff; /* optional: 1, 0, 0, 1 time as descriptions without them */
  double row_eff_dense; /* optional: row_eff, as descriptions without it */
  double gemm[MAXGEMM][4]; /* m n k FLOP/s */
  int ngemm;
  double epoch, engine[MAXDEV][3], done[MAXDEV];
  struct {
    double a[MAXBUSY], b[MAXBUSY]; /* the data-moving intervals of a copy engine, in order */
    int n;
  } busy[MAXDEV][2];
  unsigned char touched[MAXDEV];
} sim;
static pthread_once_t sim_once = PTHREAD_ONCE_INIT;
static __thread double host_vt, host_mark; /* virtual host time, at real time host_mark */
static __thread int host_started;

#ifndef STANDIN_DEVICES
#define STANDIN_DEVICES "."
#endif

/* Read description file f into sim; 0 or -1 with why. */
static int sim_parse(FILE *f, char *why, size_t n) {
  static const char *const keys[] = {"h2d_pinned", "d2h_pinned", "h2d_pageable", "d2h_pageable", "hbm", "latency",
                                     "fft", "init", "register", "gemm_k_half", "gemm_mn_half", "pitched_row",
                                     "duplex", "fft_launch", "sector", "pitched_eff", "pitched_eff_contiguous"};
  double *vals[] = {&sim.bw[1][0], &sim.bw[1][1], &sim.bw[0][0], &sim.bw[0][1], &sim.hbm, &sim.latency,
                    &sim.fft, &sim.init, &sim.reg, &sim.k_half, &sim.mn_half, &sim.row,
                    &sim.duplex, &sim.fft_launch, &sim.sector, &sim.row_eff, &sim.row_eff_dense};
  /* latency, init, pitched_row, fft_launch and sector may be 0; the last five keys may be left out,
   * so that a description written before them times as it did */
  enum {
    ZERO_OK = (1 << 5) | (1 << 7) | (1 << 11) | (1 << 13) | (1 << 14),
    OPTIONAL = (1 << 12) | (1 << 13) | (1 << 14) | (1 << 15) | (1 << 16)
  };
  int seen[sizeof keys / sizeof keys[0]] = {0}, line = 0;
  char buf[512];
  sim.duplex = sim.row_eff = 1;
  sim.row_eff_dense = -1; /* pitched_eff's, unless given */
  while (fgets(buf, sizeof buf, f)) {
    char *k = buf, *v, *e;
    size_t i;
    line++;
    buf[strcspn(buf, "#\n")] = '\0';
    while (*k == ' ' || *k == '\t') k++;
    if (!*k) continue;
    if (!(v = strchr(k, '='))) return snprintf(why, n, "line %d: no '='", line), -1;
    for (e = v; e > k && (e[-1] == ' ' || e[-1] == '\t'); e--) *e = '\0';
    *e = '\0';
    for (v++; *v == ' ' || *v == '\t'; v++) {}
    for (e = v + strlen(v); e > v && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'); e--) *e = '\0';
    *e = '\0';
    if (strcmp(k, "name") == 0) snprintf(sim.name, sizeof sim.name, "%s", v);
    else if (strcmp(k, "memory") == 0) sim.mem = parse_size(v);
    else if (strcmp(k, "gemm") == 0) {
      double *g = sim.gemm[sim.ngemm];
      if (sim.ngemm == MAXGEMM || sscanf(v, "%lf %lf %lf %lf", &g[0], &g[1], &g[2], &g[3]) != 4 || !(g[0] >= 1) ||
          !(g[1] >= 1) || !(g[2] >= 1) || !(g[3] > 0))
        return snprintf(why, n, "line %d: gemm needs m n k FLOP/s", line), -1;
      sim.ngemm++;
    } else {
      for (i = 0; i < sizeof keys / sizeof keys[0] && strcmp(k, keys[i]) != 0; i++) {}
      if (i == sizeof keys / sizeof keys[0]) return snprintf(why, n, "line %d: unknown key '%.64s'", line, k), -1;
      *vals[i] = strtod(v, &e);
      if (e == v || *e || !(*vals[i] >= 0) || !isfinite(*vals[i]))
        return snprintf(why, n, "line %d: '%.64s' is not a number >= 0", line, v), -1;
      seen[i] = 1;
    }
  }
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
    if ((!seen[i] && !(OPTIONAL & (1 << i))) || (*vals[i] == 0 && !(ZERO_OK & (1 << i))))
      return snprintf(why, n, "no %s (> 0)", keys[i]), -1;
  /* below one half, the copy queued second would never move (copy_end) */
  if (sim.duplex < 0.5 || sim.duplex > 1) return snprintf(why, n, "duplex %g is not between 0.5 and 1", sim.duplex), -1;
  if (sim.row_eff_dense < 0) sim.row_eff_dense = sim.row_eff;
  if (sim.row_eff > 1 || sim.row_eff_dense > 1)
    return snprintf(why, n, "pitched_eff %g or pitched_eff_contiguous %g is above 1", sim.row_eff, sim.row_eff_dense), -1;
  if (!sim.ngemm) return snprintf(why, n, "no gemm line"), -1;
  return 0;
}

static int nopayload(void);
STANDIN_EXPORT double fupermod_standin_sim_time(void);
static int sim_on(void);

/* The loaded description's value of key (memory, or a key of sim_parse but gemm: h2d_pinned,
 * duplex, pitched_row, ...), as the simulator uses it (a key left out: its default), so that a test
 * can derive its bounds from the device it runs on; 0, or -1 without a description or for
 * another key. */
STANDIN_EXPORT int fupermod_standin_sim_param(const char *key, double *value) {
  static const char *const keys[] = {"memory", "h2d_pinned", "d2h_pinned", "h2d_pageable", "d2h_pageable", "hbm",
                                     "latency", "fft", "init", "register", "gemm_k_half", "gemm_mn_half",
                                     "pitched_row", "duplex", "fft_launch", "sector", "pitched_eff",
                                     "pitched_eff_contiguous"};
  const double *vals[] = {&sim.mem, &sim.bw[1][0], &sim.bw[1][1], &sim.bw[0][0], &sim.bw[0][1], &sim.hbm,
                          &sim.latency, &sim.fft, &sim.init, &sim.reg, &sim.k_half, &sim.mn_half, &sim.row,
                          &sim.duplex, &sim.fft_launch, &sim.sector, &sim.row_eff, &sim.row_eff_dense};
  if (!key || !value || !sim_on()) return -1; /* sim_on reads the description first */
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
    if (strcmp(key, keys[i]) == 0) return *value = *vals[i], 0;
  return -1;
}

/* The program's fupermod_time reads the virtual clock: the stand-in gives it to the library
 * (fupermod_clock_inject, fupermod/clock.h), which never looks a simulator up. A program that has
 * read its clock already keeps it. */
static void inject_clock(void) {
  int (*inject)(double (*)(void), int (*)(void));
  *(void **)&inject = dlsym(RTLD_DEFAULT, "fupermod_clock_inject");
  if (inject) inject(fupermod_standin_sim_time, nopayload);
}

/* $FAKE_CUDA_SIM: a path (with a '/'), or NAME for NAME.conf in $FAKE_CUDA_SIM_DIR or the
 * source tree's tests/fake_cuda/devices. A description that cannot be read leaves no device. */
static void sim_load(void) {
  const char *v = getenv("FAKE_CUDA_SIM"), *dir = getenv("FAKE_CUDA_SIM_DIR");
  char path[4096], why[256] = "";
  FILE *f;
  if (!v || !*v) return;
  if (strchr(v, '/')) snprintf(path, sizeof path, "%s", v);
  else snprintf(path, sizeof path, "%s/%s.conf", dir && *dir ? dir : STANDIN_DEVICES, v);
  if (!(f = fopen(path, "r"))) snprintf(why, sizeof why, "cannot open it");
  else {
    snprintf(sim.name, sizeof sim.name, "%s", v);
    sim_parse(f, why, sizeof why);
    fclose(f);
  }
  if (*why) {
    /* not only with $FAKE_CUDA_VERBOSE: a run that believes it is timed must not go unnoticed */
    fprintf(stderr, "cuda stand-in: FAKE_CUDA_SIM=%s: %s: %s; no device\n", v, path, why);
    sim.on = -1;
    return;
  }
  sim.epoch = now();
  sim.on = 1;
  inject_clock();
}

static int sim_state(void) {
  pthread_once(&sim_once, sim_load);
  return sim.on;
}

static int sim_on(void) { return sim_state() == 1; }

/* Preloaded, or loaded with the program, where $FAKE_CUDA_SIM is set from the start: the
 * description is read and the clock given before the program reads any time. */
__attribute__((constructor)) static void standin_start(void) {
  if (getenv("FAKE_CUDA_SIM")) sim_state();
}

static int env_on(const char *name) {
  const char *v = getenv(name);
  return v && *v && strcmp(v, "0") != 0;
}

static int nopayload(void) { return env_on("FAKE_CUDA_NOPAYLOAD"); }

/* This thread's virtual clock starts at the real time since the process's first CUDA call. */
static void host_start(void) {
  if (host_started) return;
  host_started = 1;
  host_mark = now();
  host_vt = host_mark - sim.epoch;
}

/* $FAKE_CUDA_REALTIME: the virtual clock is real time. The host sleeps (after the runtime's lock)
 * until what it waits for is done at the described device's pace, so that a simulated GPU and
 * real CPU processes share one clock. */
static int realtime(void) {
  static int r = -1;
  if (r < 0) r = env_on("FAKE_CUDA_REALTIME");
  return r;
}

/* Entering and leaving the runtime: the real time between calls is host time; the time spent
 * inside (running the payload) is not, except in real time. */
static void sim_enter(void) {
  double t;
  if (!sim_on()) return;
  host_start();
  t = now();
  if (realtime()) host_vt = fmax(host_vt, t - sim.epoch);
  else host_vt += t - host_mark;
  host_mark = t;
}

static void sim_leave(void) {
  if (!sim_on()) return;
  host_mark = now();
  if (realtime() && host_vt > host_mark - sim.epoch) host_sleep = host_vt - (host_mark - sim.epoch);
}

STANDIN_EXPORT double fupermod_standin_sim_time(void) {
  if (!sim_on()) return now();
  host_start();
  if (realtime()) return fmax(host_vt, now() - sim.epoch);
  return host_vt + (now() - host_mark);
}

/* The host waits for the device until virtual time t. */
static void sim_wait(double t) {
  if (sim_on() && t > host_vt) host_vt = t;
}

/* The first use of device d creates its context: the host waits. */
static void sim_touch(int d) {
  if (sim_on() && d >= 0 && d < MAXDEV && !sim.touched[d]) {
    sim.touched[d] = 1;
    host_vt += sim.init;
  }
}

/* The efficiency of a GEMM shape, relative to others: k/(k + k_half) * mn/(mn + mn_half). */
static double gemm_curve(double m, double n, double k) {
  return k / (k + sim.k_half) * (m * n) / (m * n + sim.mn_half);
}

/* The measured rates, each divided by its shape's efficiency, averaged with weights 1/d^2 (d: the
 * squared distance in log m, log n, log k; exact at a measured shape), times this shape's. */
static double gemm_rate(double m, double n, double k) {
  double sw = 0, sr = 0;
  for (int i = 0; i < sim.ngemm; i++) {
    double *g = sim.gemm[i], a = log(m / g[0]), b = log(n / g[1]), c = log(k / g[2]), d = a * a + b * b + c * c;
    if (d < 1e-12) return g[3];
    sw += 1 / (d * d);
    sr += g[3] / gemm_curve(g[0], g[1], g[2]) / (d * d);
  }
  return sr / sw * gemm_curve(m, n, k);
}

/* An FFT launch: c->m points per transform, c->n transforms, input element stride c->k (cufft.c
 * fills them; m = 0 means a caller that does not, timed by its flops alone). A launch costs
 * fft_launch beside the latency. A strided one (k > 1) reads its input and writes its output
 * at the stride, so each 16-byte element costs a whole memory sector: it is memory-bound at
 * 16 / min(16 k, sector) of the device memory bandwidth where that is slower than its flops, as
 * small transforms of large stride are. */
static double fft_seconds(const standin_cost *c) {
  double t = c->flops / sim.fft, eff, bytes;
  if (!(c->m > 0 && c->n > 0)) return t;
  if (c->k > 1 && sim.sector > 0) {
    eff = fmin(1.0, 16.0 / fmin(16.0 * c->k, sim.sector));
    bytes = 2.0 * 16.0 * c->m * c->n;
    t = fmax(t, bytes / (sim.hbm * eff));
  }
  return sim.fft_launch + t;
}

static double cost_seconds(const standin_cost *c) {
  if (!c) return 0;
  switch (c->kind) {
  case STANDIN_COST_GEMM: return c->m > 0 && c->n > 0 && c->k > 0 ? c->flops / gemm_rate(c->m, c->n, c->k) : 0;
  case STANDIN_COST_FFT: return fft_seconds(c);
  default: return c->bytes / sim.hbm;
  }
}

/* $FAKE_CUDA_DEVICES: a count (negative ones are reported as they are, as a broken runtime
 * could, and mean none), "error", or unset for 2. */
static int device_env(int *reported) {
  const char *v = getenv("FAKE_CUDA_DEVICES");
  long n;
  if (sim_state() < 0) {
    *reported = 0;
    return 0;
  }
  if (!v) n = 2;
  else if (strcmp(v, "error") == 0) {
    *reported = 4;
    return -1;
  } else
    n = strtol(v, NULL, 10);
  *reported = (int)n;
  return n < 0 ? 0 : n > MAXDEV ? MAXDEV : (int)n;
}

static int ndev(void) {
  int r, n = device_env(&r);
  return n < 0 ? 0 : n;
}

/* $FAKE_CUDA_MEM, else the simulated device's memory, else 1 GiB. */
static size_t capacity(void) {
  const char *v = getenv("FAKE_CUDA_MEM");
  if (!v || !*v) return sim_on() && sim.mem > 0 ? (size_t)sim.mem : (size_t)1 << 30;
  return (size_t)parse_size(v);
}

static cudaError_t check_device(int d) {
  int n = ndev();
  if (n == 0) return cudaErrorNoDevice;
  return d >= 0 && d < n ? cudaSuccess : cudaErrorInvalidDevice;
}

/* ---------------------------------------------------------------- memory registry */

static block *block_at(const void *p) {
  for (block *b = blocks; b; b = b->next)
    if ((const char *)p >= b->base && (const char *)p < b->base + (b->bytes ? b->bytes : 1)) return b;
  return NULL;
}

/* The device of [p, p + bytes): -1 host memory, -2 out of its device allocation. */
static int device_of(const void *p, size_t bytes) {
  block *b = block_at(p);
  if (!b || b->dev < 0) return -1;
  return (size_t)((const char *)p - b->base) + bytes <= b->bytes ? b->dev : -2;
}

static void unlink_block(block *b) {
  for (block **pp = &blocks; *pp; pp = &(*pp)->next)
    if (*pp == b) {
      *pp = b->next;
      return;
    }
}

static void free_block(block *b) {
  unlink_block(b);
  if (b->dev >= 0) used[b->dev] -= b->charged;
  if (b->mapped) munmap(b->base, b->bytes);
  else free(b->base);
  free(b);
}

/* ---------------------------------------------------------------- streams and their work */

static struct CUstream_st *stream_by_id(uint64_t id) {
  for (struct CUstream_st *s = streams; s; s = s->next)
    if (s->id == id) return s;
  return NULL;
}

/* The stream for handle h: the default ones of device dev, or a live user stream of any device;
 * NULL for a dead handle. */
static struct CUstream_st *resolve(cudaStream_t h, int dev) {
  if (h == NULL || h == cudaStreamLegacy) return &legacy[dev];
  if (h == cudaStreamPerThread) {
    if (!per_thread[dev]) {
      struct CUstream_st *s = calloc(1, sizeof *s);
      if (!s) return NULL;
      s->id = next_id++;
      s->dev = dev;
      s->kind = ST_PER_THREAD;
      s->next = streams;
      streams = s;
      per_thread[dev] = s;
    }
    return per_thread[dev];
  }
  for (struct CUstream_st *s = streams; s; s = s->next)
    if (s == h && s->kind == ST_USER && !s->destroyed) return s;
  return NULL;
}

/* When work queued now on s can start: after the host's call, s's earlier work, and the legacy
 * stream's implicit order (as implicit_order). */
static double sim_start(struct CUstream_st *s) {
  double t = host_vt > s->vt ? host_vt : s->vt;
  if (s->flags & cudaStreamNonBlocking) return t;
  if (s->kind != ST_LEGACY) return fmax(t, legacy[s->dev].vt);
  for (struct CUstream_st *u = streams; u; u = u->next)
    if (u != s && u->dev == s->dev && u->kind != ST_LEGACY && !(u->flags & cudaStreamNonBlocking)) t = fmax(t, u->vt);
  return t;
}

/* When a copy of cost seconds alone, starting at t on copy engine eng of device d, ends: while the
 * other direction moves data, the link carries 2 duplex times one direction's bandwidth in all.
 * The other direction's copies were timed when they were queued and keep their times, so this
 * one, queued later, moves at 2 duplex - 1 of its bandwidth beside them: the pair's total is as
 * described. Its own interval is kept for the copies of the other direction queued after it. */
static double copy_end(int d, int eng, double t, double cost) {
  const double rate = 2 * sim.duplex - 1, start = t;
  int o = !eng, keep = 0, i;
  if (sim.duplex >= 1) return t + cost;
  /* the other direction's intervals that end before t can meet no later copy of this one */
  for (i = 0; i < sim.busy[d][o].n; i++)
    if (sim.busy[d][o].b[i] > t) {
      sim.busy[d][o].a[keep] = sim.busy[d][o].a[i];
      sim.busy[d][o].b[keep++] = sim.busy[d][o].b[i];
    }
  sim.busy[d][o].n = keep;
  for (i = 0; i < keep && cost > 0; i++) {
    double a = fmax(sim.busy[d][o].a[i], t), b = sim.busy[d][o].b[i];
    if (a - t >= cost) break; /* done before the next of the other direction starts */
    cost -= a - t;
    t = a;
    if ((b - t) * rate >= cost) {
      t += cost / rate;
      cost = 0;
    } else {
      cost -= (b - t) * rate;
      t = b;
    }
  }
  t += cost;
  if (sim.busy[d][eng].n == MAXBUSY) {
    memmove(sim.busy[d][eng].a, sim.busy[d][eng].a + 1, (MAXBUSY - 1) * sizeof(double));
    memmove(sim.busy[d][eng].b, sim.busy[d][eng].b + 1, (MAXBUSY - 1) * sizeof(double));
    sim.busy[d][eng].n--;
  }
  sim.busy[d][eng].a[sim.busy[d][eng].n] = start;
  sim.busy[d][eng].b[sim.busy[d][eng].n++] = t;
  return t;
}

/* Time an operation queued now on s: on engine eng (ENG_NONE: none, and no latency) for cost
 * seconds. Its virtual completion time. */
static double sim_queue(struct CUstream_st *s, int eng, double cost) {
  double t;
  if (!sim_on()) return 0;
  sim_touch(s->dev);
  t = sim_start(s);
  if (eng != ENG_NONE) {
    double ready = t, begin = fmax(t, sim.engine[s->dev][eng]) + sim.latency;
    t = eng == ENG_COMPUTE ? begin + cost : copy_end(s->dev, eng, begin, cost);
    sim.engine[s->dev][eng] = t;
    if (env_on("FAKE_CUDA_TRACE"))
      fprintf(stderr, "cuda stand-in trace: device %d stream %p engine %s ready %.6f start %.6f end %.6f\n", s->dev,
              (void *)s, eng == ENG_H2D ? "h2d" : eng == ENG_D2H ? "d2h" : "compute", ready,
              begin - sim.latency, t);
  }
  s->vt = t;
  sim.done[s->dev] = fmax(sim.done[s->dev], t);
  return t;
}

static void drain(struct CUstream_st *s, uint64_t upto);

/* The legacy stream waits for earlier work of every blocking stream of its device, and those
 * wait for its earlier work. */
static void implicit_order(struct CUstream_st *s, uint64_t seq) {
  if (s->flags & cudaStreamNonBlocking) return;
  if (s->kind != ST_LEGACY) {
    drain(&legacy[s->dev], seq - 1);
    return;
  }
  for (struct CUstream_st *t = streams; t; t = t->next)
    if (t != s && t->dev == s->dev && t->kind != ST_LEGACY && !(t->flags & cudaStreamNonBlocking)) drain(t, seq - 1);
}

static void free_event(struct CUevent_st *e) {
  for (struct CUevent_st **pp = &events; *pp; pp = &(*pp)->next)
    if (*pp == e) {
      *pp = e->next;
      break;
    }
  free(e);
}

/* Run s's queued work with sequence numbers up to upto, in order, each after what it depends
 * on (always earlier work, so this ends). */
static void drain(struct CUstream_st *s, uint64_t upto) {
  op *o;
  while ((o = s->head) && o->seq <= upto) {
    s->head = o->next;
    if (!s->head) s->tail = NULL;
    implicit_order(s, o->seq);
    if (o->kind == OP_WAIT) {
      struct CUstream_st *t = stream_by_id(o->wstream);
      if (t) drain(t, o->wseq);
    } else if (o->kind == OP_RECORD) {
      struct CUevent_st *e = o->arg;
      if (e->rec_seq == o->seq) {
        e->complete = 1;
        e->time = now();
      }
      if (--e->pending == 0 && e->destroyed) free_event(e);
    } else if (o->run && !o->skip)
      o->run(o->arg);
    if (o->drop) o->drop(o->arg);
    free(o);
  }
}

static void sync_device(int d) {
  int again;
  if (env_on("FAKE_CUDA_ORDER") && strcmp(getenv("FAKE_CUDA_ORDER"), "adversarial") == 0) {
    /* another legal order: the latest queued first, each after what it depends on */
    for (;;) {
      struct CUstream_st *late = NULL;
      for (struct CUstream_st *s = streams; s; s = s->next)
        if (s->dev == d && s->head && (!late || s->head->seq > late->head->seq)) late = s;
      if (!late) break;
      drain(late, late->head->seq);
    }
    sim_wait(sim.done[d]);
    return;
  }
  do {
    again = 0;
    for (struct CUstream_st *s = streams; s; s = s->next)
      if (s->dev == d && s->head) {
        drain(s, UINT64_MAX);
        again = 1;
      }
  } while (again);
  sim_wait(sim.done[d]);
}

static void sync_all(void) {
  for (int d = 0; d < MAXDEV; d++) sync_device(d);
}

/* Destroyed streams go once their work is done, outside any drain. */
static void reap(void) {
  struct CUstream_st **pp = &streams;
  while (*pp) {
    struct CUstream_st *s = *pp;
    if (s->destroyed && !s->head) {
      *pp = s->next;
      free(s);
    } else
      pp = &s->next;
  }
}

/* At exit, with $FAKE_CUDA_VERBOSE: the streams and device memory the program never gave back, as
 * a leak checker would say (a program that opens a device more often than it closes it). */
__attribute__((destructor)) static void leaks(void) {
  int ns = 0, nb = 0;
  size_t bytes = 0;
  if (!getenv("FAKE_CUDA_VERBOSE")) return;
  lock();
  for (struct CUstream_st *s = streams; s; s = s->next) ns += s->kind == ST_USER && !s->destroyed;
  for (block *b = blocks; b; b = b->next)
    if (b->dev >= 0 && !b->freeing) nb++, bytes += b->bytes;
  unlock();
  if (ns || nb)
    fupermod_standin_note("at exit: %d stream%s never destroyed, %d device allocation%s (%zu bytes) never freed", ns,
                          ns == 1 ? "" : "s", nb, nb == 1 ? "" : "s", bytes);
}

static op *push(struct CUstream_st *s, int kind, standin_fn run, standin_fn drop, void *arg) {
  op *o = calloc(1, sizeof *o);
  if (!o) return NULL;
  o->seq = next_seq++;
  o->kind = kind;
  o->run = run;
  o->drop = drop;
  o->arg = arg;
  if (s->tail) s->tail->next = o;
  else s->head = o;
  s->tail = o;
  s->query_seen = 0;
  return o;
}

static cudaError_t push_work(struct CUstream_st *s, standin_fn run, void *arg) {
  if (!push(s, OP_WORK, run, free, arg)) {
    free(arg);
    return cudaErrorMemoryAllocation;
  }
  return cudaSuccess;
}

STANDIN_EXPORT cudaError_t fupermod_standin_enqueue_cost(cudaStream_t h, int dev, const standin_cost *c, standin_fn run,
                                                         standin_fn drop, void *arg) {
  struct CUstream_st *s;
  cudaError_t e = cudaSuccess;
  op *o;
  lock();
  if (dev < 0 || dev >= MAXDEV || !(s = resolve(h, dev)) || s->dev != dev) e = cudaErrorInvalidResourceHandle;
  else if (!(o = push(s, OP_WORK, run, drop, arg))) e = cudaErrorMemoryAllocation;
  else {
    o->skip = c && nopayload();
    sim_queue(s, ENG_COMPUTE, sim_on() ? cost_seconds(c) : 0);
  }
  unlock();
  if (e != cudaSuccess && drop) drop(arg);
  return e;
}

STANDIN_EXPORT cudaError_t fupermod_standin_enqueue(cudaStream_t h, int dev, standin_fn run, standin_fn drop,
                                                    void *arg) {
  return fupermod_standin_enqueue_cost(h, dev, NULL, run, drop, arg);
}

STANDIN_EXPORT int fupermod_standin_accessible(int dev, const void *p, size_t bytes) {
  int d;
  if (bytes == 0) return 1;
  lock();
  d = device_of(p, bytes);
  unlock();
  return d >= 0 && (d == dev || (dev >= 0 && dev < MAXDEV && peer[dev][d]));
}

STANDIN_EXPORT void fupermod_standin_sync_device(int dev) {
  lock();
  if (dev >= 0 && dev < MAXDEV) sync_device(dev);
  unlock();
}

STANDIN_EXPORT int fupermod_standin_current(void) { return check_device(current) == cudaSuccess ? current : -1; }

/* ---------------------------------------------------------------- devices */

cudaError_t cudaGetDeviceCount(int *count) {
  int reported, n = device_env(&reported);
  if (!count) return ret(cudaErrorInvalidValue);
  *count = reported;
  return ret(n <= 0 ? cudaErrorNoDevice : cudaSuccess);
}

cudaError_t cudaSetDevice(int d) {
  cudaError_t e = check_device(d);
  if (e == cudaSuccess) {
    current = d;
    lock();
    sim_touch(d); /* since CUDA 12 it initialises the device's primary context */
    unlock();
  }
  return ret(e);
}

cudaError_t cudaGetDevice(int *d) {
  cudaError_t e = check_device(current);
  if (!d) return ret(cudaErrorInvalidValue);
  if (e == cudaErrorNoDevice) return ret(e);
  *d = current;
  return cudaSuccess;
}

cudaError_t cudaSetDeviceFlags(unsigned flags) {
  cudaError_t e = check_device(current);
  if (e == cudaSuccess) dev_flags[current] = flags;
  return ret(e);
}

cudaError_t cudaGetDeviceFlags(unsigned *flags) {
  cudaError_t e = check_device(current);
  if (!flags) return ret(cudaErrorInvalidValue);
  if (e == cudaSuccess) *flags = dev_flags[current];
  return ret(e);
}

cudaError_t cudaDeviceSynchronize(void) {
  cudaError_t e = check_device(current);
  if (e != cudaSuccess) return ret(e);
  lock();
  sync_device(current);
  unlock();
  return cudaSuccess;
}

/* All of the current device's memory, streams and events go; work queued there runs first. */
cudaError_t cudaDeviceReset(void) {
  cudaError_t e = check_device(current);
  block *b, *n;
  if (e != cudaSuccess) return ret(e);
  lock();
  sync_device(current);
  for (b = blocks; b; b = n) {
    n = b->next;
    if (b->dev == current) free_block(b);
  }
  for (struct CUstream_st *s = streams; s; s = s->next)
    if (s->dev == current && s->kind == ST_USER) s->destroyed = 1;
  for (struct CUevent_st *ev = events; ev; ev = ev->next)
    if (ev->dev == current) ev->destroyed = 1;
  for (struct CUevent_st *ev = events, *nx; ev; ev = nx) {
    nx = ev->next;
    if (ev->destroyed && !ev->pending) free_event(ev);
  }
  memset(peer[current], 0, sizeof peer[current]);
  unlock();
  return cudaSuccess;
}

static int pci_bus(int d) { return 0x10 + 8 * d; }

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *p, int d) {
  cudaError_t e = check_device(d);
  if (!p) return ret(cudaErrorInvalidValue);
  if (e != cudaSuccess) return ret(e);
  memset(p, 0, sizeof *p);
  if (sim_on()) snprintf(p->name, sizeof p->name, "fupermod stand-in GPU %d, simulated %s", d, sim.name);
  else snprintf(p->name, sizeof p->name, "fupermod stand-in GPU %d", d);
  memcpy(p->uuid.bytes, "fupermod-standin", 16);
  p->uuid.bytes[15] = (char)('0' + d);
  p->totalGlobalMem = capacity();
  p->sharedMemPerBlock = 48 << 10;
  p->regsPerBlock = 65536;
  p->warpSize = 32;
  p->memPitch = (size_t)1 << 31;
  p->maxThreadsPerBlock = 1024;
  p->maxThreadsDim[0] = p->maxThreadsDim[1] = 1024;
  p->maxThreadsDim[2] = 64;
  p->maxGridSize[0] = 0x7fffffff;
  p->maxGridSize[1] = p->maxGridSize[2] = 65535;
  p->totalConstMem = 64 << 10;
  p->major = 9;
  p->minor = 0;
  p->textureAlignment = 512;
  p->texturePitchAlignment = 32;
  p->multiProcessorCount = 1;
  p->canMapHostMemory = 1;
  p->concurrentKernels = 1;
  p->pciBusID = pci_bus(d);
  p->asyncEngineCount = 2;
  p->unifiedAddressing = 1;
  return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int *v, enum cudaDeviceAttr attr, int d) {
  cudaError_t e = check_device(d);
  if (!v) return ret(cudaErrorInvalidValue);
  if (e != cudaSuccess) return ret(e);
  switch (attr) {
  case cudaDevAttrComputeCapabilityMajor: *v = 9; break;
  case cudaDevAttrMultiProcessorCount: *v = 1; break;
  case cudaDevAttrPciBusId: *v = pci_bus(d); break;
  case cudaDevAttrWarpSize: *v = 32; break;
  case cudaDevAttrMaxThreadsPerBlock: *v = 1024; break;
  case cudaDevAttrAsyncEngineCount: *v = 2; break;
  case cudaDevAttrUnifiedAddressing:
  case cudaDevAttrConcurrentKernels:
  case cudaDevAttrCanMapHostMemory: *v = 1; break;
  default: *v = 0; break; /* PCI domain and device, minor version, and what is not emulated */
  }
  return cudaSuccess;
}

cudaError_t cudaDeviceGetPCIBusId(char *id, int len, int d) {
  cudaError_t e = check_device(d);
  if (!id || len <= 0) return ret(cudaErrorInvalidValue);
  if (e != cudaSuccess) return ret(e);
  snprintf(id, (size_t)len, "0000:%02X:00.0", pci_bus(d));
  return cudaSuccess;
}

/* "domain:bus:device.function" or "bus:device.function", hexadecimal */
cudaError_t cudaDeviceGetByPCIBusId(int *d, const char *id) {
  unsigned dom = 0, bus = 0, dv = 0, fn = 0;
  int n = ndev();
  if (!d || !id || (sscanf(id, "%x:%x:%x.%x", &dom, &bus, &dv, &fn) != 4 && (dom = 0, sscanf(id, "%x:%x.%x", &bus, &dv, &fn) != 3)))
    return ret(cudaErrorInvalidValue);
  for (int k = 0; k < n; k++)
    if (dom == 0 && dv == 0 && fn == 0 && bus == (unsigned)pci_bus(k)) {
      *d = k;
      return cudaSuccess;
    }
  return ret(cudaErrorInvalidDevice);
}

cudaError_t cudaDeviceCanAccessPeer(int *can, int d, int p) {
  cudaError_t e = check_device(d);
  if (!can) return ret(cudaErrorInvalidValue);
  if (e == cudaSuccess) e = check_device(p);
  if (e != cudaSuccess) return ret(e);
  *can = d != p;
  return cudaSuccess;
}

static cudaError_t set_peer(int p, unsigned flags, int on) {
  cudaError_t e = check_device(current);
  if (e == cudaSuccess) e = check_device(p);
  if (e == cudaSuccess && (flags || p == current)) e = cudaErrorInvalidValue;
  lock();
  if (e == cudaSuccess && peer[current][p] == on) e = on ? cudaErrorPeerAccessAlreadyEnabled : cudaErrorPeerAccessNotEnabled;
  if (e == cudaSuccess) peer[current][p] = (unsigned char)on;
  unlock();
  return ret(e);
}

cudaError_t cudaDeviceEnablePeerAccess(int p, unsigned flags) { return set_peer(p, flags, 1); }
cudaError_t cudaDeviceDisablePeerAccess(int p) { return set_peer(p, 0, 0); }

cudaError_t cudaDeviceGetStreamPriorityRange(int *least, int *greatest) {
  if (least) *least = 0;
  if (greatest) *greatest = -5;
  return cudaSuccess;
}

cudaError_t cudaRuntimeGetVersion(int *v) {
  if (!v) return ret(cudaErrorInvalidValue);
  *v = CUDART_VERSION;
  return cudaSuccess;
}

cudaError_t cudaDriverGetVersion(int *v) { return cudaRuntimeGetVersion(v); }

/* ---------------------------------------------------------------- errors */

cudaError_t cudaGetLastError(void) {
  cudaError_t e = last_error;
  last_error = cudaSuccess;
  return e;
}

cudaError_t cudaPeekAtLastError(void) { return last_error; }

static const standin_code errors[] = {
  {cudaSuccess, "cudaSuccess", "no error"},
  {cudaErrorInvalidValue, "cudaErrorInvalidValue", "invalid argument"},
  {cudaErrorMemoryAllocation, "cudaErrorMemoryAllocation", "out of memory"},
  {cudaErrorInvalidPitchValue, "cudaErrorInvalidPitchValue", "invalid pitch argument"},
  {cudaErrorInvalidDevicePointer, "cudaErrorInvalidDevicePointer", "invalid device pointer"},
  {cudaErrorInvalidMemcpyDirection, "cudaErrorInvalidMemcpyDirection", "invalid copy direction for memcpy"},
  {cudaErrorNoDevice, "cudaErrorNoDevice", "no CUDA-capable device is detected"},
  {cudaErrorInvalidDevice, "cudaErrorInvalidDevice", "invalid device ordinal"},
  {cudaErrorInvalidResourceHandle, "cudaErrorInvalidResourceHandle", "invalid resource handle"},
  {cudaErrorNotReady, "cudaErrorNotReady", "device not ready"},
  {cudaErrorPeerAccessAlreadyEnabled, "cudaErrorPeerAccessAlreadyEnabled", "peer access is already enabled"},
  {cudaErrorPeerAccessNotEnabled, "cudaErrorPeerAccessNotEnabled", "peer access has not been enabled"},
  {cudaErrorHostMemoryAlreadyRegistered, "cudaErrorHostMemoryAlreadyRegistered",
   "part or all of the requested memory range is already mapped"},
  {cudaErrorHostMemoryNotRegistered, "cudaErrorHostMemoryNotRegistered", "pointer does not correspond to a registered memory region"},
  {cudaErrorNotSupported, "cudaErrorNotSupported", "operation not supported"},
  {cudaErrorUnknown, "cudaErrorUnknown", "unknown error"},
};

STANDIN_NAMES(errors, cudaError_t, cudaGetErrorName, "cudaErrorUnknown", cudaGetErrorString, "unrecognized error code")

/* ---------------------------------------------------------------- device and host memory */

static cudaError_t device_alloc(void **p, size_t size, int dev) {
  size_t charged = (size + ALIGN - 1) / ALIGN * ALIGN;
  block *b;
  void *m = NULL;
  *p = NULL;
  if (size == 0) return cudaSuccess;
  if (charged < size || used[dev] + charged > capacity() || used[dev] + charged < used[dev]) return cudaErrorMemoryAllocation;
  if (!(b = calloc(1, sizeof *b))) return cudaErrorMemoryAllocation;
  if (nopayload()) { /* never touched: reserved without commitment, so sizes above the host's memory work */
    m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) m = NULL;
    b->mapped = 1;
  } else if (posix_memalign(&m, ALIGN, size) != 0)
    m = NULL;
  if (!m) {
    free(b);
    return cudaErrorMemoryAllocation;
  }
  if (!b->mapped) memset(m, POISON, size);
  sim_touch(dev);
  b->base = m;
  b->bytes = size;
  b->charged = charged;
  b->dev = dev;
  b->next = blocks;
  blocks = b;
  used[dev] += charged;
  *p = m;
  return cudaSuccess;
}

cudaError_t cudaMalloc(void **p, size_t size) {
  cudaError_t e = check_device(current);
  if (!p) return ret(cudaErrorInvalidValue);
  if (e != cudaSuccess) return ret(e);
  lock();
  e = device_alloc(p, size, current);
  unlock();
  return ret(e);
}

cudaError_t cudaMallocPitch(void **p, size_t *pitch, size_t width, size_t height) {
  size_t pt = (width + 511) / 512 * 512;
  cudaError_t e;
  if (!pitch) return ret(cudaErrorInvalidValue);
  if ((e = cudaMalloc(p, pt * height)) == cudaSuccess) *pitch = pt;
  return e;
}

/* Free the allocation at p: device memory (host 0) after its device's work, as cudaFree
 * synchronises, or cudaMallocHost memory (host 1) after all work, which may still touch it. */
static cudaError_t release(void *p, int host) {
  cudaError_t e = cudaSuccess;
  block *b;
  if (!p) {
    if (!host && check_device(current) == cudaSuccess) { /* cudaFree(0): the usual way to create the context */
      lock();
      sim_touch(current);
      unlock();
    }
    return cudaSuccess;
  }
  lock();
  b = block_at(p);
  if (!b || b->base != p || (host ? b->pinned != 1 : b->dev < 0 || b->freeing)) e = cudaErrorInvalidValue;
  else {
    if (host) sync_all();
    else sync_device(b->dev);
    free_block(b);
  }
  unlock();
  if (e != cudaSuccess) fupermod_standin_note("%s(%p): not its allocation", host ? "cudaFreeHost" : "cudaFree", p);
  return ret(e);
}

cudaError_t cudaFree(void *p) { return release(p, 0); }

static void run_free(void *arg) {
  block *b = block_at(*(void **)arg);
  if (b) free_block(b);
}

cudaError_t cudaMallocAsync(void **p, size_t size, cudaStream_t h) {
  cudaError_t e = check_device(current);
  if (!p) return ret(cudaErrorInvalidValue);
  if (e != cudaSuccess) return ret(e);
  lock();
  e = resolve(h, current) ? device_alloc(p, size, current) : cudaErrorInvalidResourceHandle;
  unlock();
  return ret(e);
}

cudaError_t cudaFreeAsync(void *p, cudaStream_t h) {
  cudaError_t e = check_device(current);
  struct CUstream_st *s;
  void **arg;
  block *b;
  if (e != cudaSuccess) return ret(e);
  lock();
  b = block_at(p);
  if (!(s = resolve(h, current))) e = cudaErrorInvalidResourceHandle;
  else if (!b || b->base != p || b->dev < 0 || b->freeing) e = cudaErrorInvalidValue;
  else if (!(arg = malloc(sizeof *arg))) e = cudaErrorMemoryAllocation;
  else {
    *arg = p;
    b->freeing = 1;
    if ((e = push_work(s, run_free, arg)) == cudaSuccess) sim_queue(s, ENG_NONE, 0);
  }
  unlock();
  return ret(e);
}

cudaError_t cudaMemGetInfo(size_t *freeb, size_t *total) {
  cudaError_t e = check_device(current);
  size_t cap = capacity();
  if (!freeb || !total) return ret(cudaErrorInvalidValue);
  if (e != cudaSuccess) return ret(e);
  lock();
  *total = cap;
  *freeb = used[current] < cap ? cap - used[current] : 0;
  sim_touch(current); /* it needs the context */
  unlock();
  return cudaSuccess;
}

cudaError_t cudaHostAlloc(void **p, size_t size, unsigned flags) {
  cudaError_t e = check_device(current);
  block *b;
  void *m = NULL;
  if (!p || flags > 0xf) return ret(cudaErrorInvalidValue);
  *p = NULL;
  if (e != cudaSuccess) return ret(e);
  if (size == 0) return cudaSuccess;
  if (!(b = calloc(1, sizeof *b)) || posix_memalign(&m, 4096, size) != 0) {
    free(b);
    return ret(cudaErrorMemoryAllocation);
  }
  b->base = m;
  b->bytes = size;
  b->dev = -1;
  b->pinned = 1;
  lock();
  b->next = blocks;
  blocks = b;
  sim_touch(current);
  if (sim_on()) host_vt += (double)size / sim.reg; /* pinning */
  unlock();
  *p = m;
  return cudaSuccess;
}

cudaError_t cudaMallocHost(void **p, size_t size) { return cudaHostAlloc(p, size, cudaHostAllocDefault); }

cudaError_t cudaFreeHost(void *p) { return release(p, 1); }

cudaError_t cudaHostRegister(void *p, size_t size, unsigned flags) {
  cudaError_t e = cudaSuccess;
  block *b;
  if (!p || size == 0 || flags > 0xf) return ret(cudaErrorInvalidValue);
  lock();
  for (b = blocks; b && e == cudaSuccess; b = b->next)
    if ((char *)p < b->base + b->bytes && b->base < (char *)p + size)
      e = b->dev >= 0 ? cudaErrorInvalidValue : cudaErrorHostMemoryAlreadyRegistered;
  if (e == cudaSuccess) {
    if (!(b = calloc(1, sizeof *b))) e = cudaErrorMemoryAllocation;
    else {
      b->base = p;
      b->bytes = size;
      b->dev = -1;
      b->pinned = 2;
      b->next = blocks;
      blocks = b;
      if (sim_on()) {
        sim_touch(current);
        host_vt += (double)size / sim.reg;
      }
    }
  }
  unlock();
  return ret(e);
}

cudaError_t cudaHostUnregister(void *p) {
  cudaError_t e = cudaSuccess;
  block *b;
  lock();
  b = p ? block_at(p) : NULL;
  if (!b || b->base != p || b->pinned != 2) e = cudaErrorHostMemoryNotRegistered;
  else {
    unlink_block(b);
    free(b); /* the memory is the caller's */
  }
  unlock();
  return ret(e);
}

cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *a, const void *p) {
  block *b;
  if (!a) return ret(cudaErrorInvalidValue);
  memset(a, 0, sizeof *a);
  lock();
  b = p ? block_at(p) : NULL;
  if (!b) a->type = cudaMemoryTypeUnregistered, a->device = -2;
  else if (b->dev >= 0) a->type = cudaMemoryTypeDevice, a->device = b->dev, a->devicePointer = (void *)p;
  else a->type = cudaMemoryTypeHost, a->device = current, a->hostPointer = (void *)p;
  unlock();
  return cudaSuccess;
}

/* ---------------------------------------------------------------- copies and sets */

typedef struct {
  char *dst;
  const char *src;
  size_t dpitch, spitch, width, height;
  int value; /* a set when src is NULL */
} copy;

static void run_copy(void *arg) {
  copy *c = arg;
  for (size_t r = 0; r < c->height; r++) {
    if (c->src) memmove(c->dst + r * c->dpitch, c->src + r * c->spitch, c->width);
    else memset(c->dst + r * c->dpitch, c->value, c->width);
  }
}

/* The pointers against the kind: device pointers must be device memory, in range, host ones
 * must not be. */
static cudaError_t check_copy(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
                              enum cudaMemcpyKind kind) {
  int dd, sd;
  if (width > dpitch || width > spitch) return cudaErrorInvalidPitchValue;
  if (kind < cudaMemcpyHostToHost || kind > cudaMemcpyDefault) return cudaErrorInvalidMemcpyDirection;
  if (width == 0 || height == 0) return cudaSuccess;
  if (!dst || !src) return cudaErrorInvalidValue;
  dd = device_of(dst, dpitch * (height - 1) + width);
  sd = device_of(src, spitch * (height - 1) + width);
  if (dd == -2 || sd == -2) {
    fupermod_standin_note("copy of %zu x %zu bytes runs out of a device allocation", height, width);
    return cudaErrorInvalidValue;
  }
  if (kind == cudaMemcpyDefault) return cudaSuccess;
  if ((dd >= 0) != (kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice) ||
      (sd >= 0) != (kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice)) {
    fupermod_standin_note("copy kind %d from %s to %s memory", (int)kind, sd >= 0 ? "device" : "host",
                          dd >= 0 ? "device" : "host");
    return cudaErrorInvalidValue;
  }
  return cudaSuccess;
}

/* Whether host memory [p, p + bytes) is page-locked (cudaHostAlloc, cudaHostRegister). */
static int pinned(const void *p, size_t bytes) {
  block *b = block_at(p);
  return b && b->dev < 0 && b->pinned && (size_t)((const char *)p - b->base) + bytes <= b->bytes;
}

/* The engine and the simulated seconds of a copy of bytes between [dst, +dext) and [src, +sext)
 * (src NULL: a set), moved as rows separate rows (0: one piece), rows that are adjacent on both
 * sides where dense; *pageable when its host side is not page-locked. A 2D copy's rows move one by
 * one (pitched_row each); its bytes at pitched_eff of the bandwidth where the rows lie apart, at
 * pitched_eff_contiguous where they do not: the H100's one-at-a-time out-of-card GEMM moved the
 * contiguous 2D copies of its in-card rows faster than the rows with gaps of its capped rows
 * (h100.measured, h100.conf). */
static int copy_engine(void *dst, size_t dext, const void *src, size_t sext, size_t bytes, size_t rows, int dense,
                       double *cost, int *pageable) {
  int dd = device_of(dst, dext) >= 0, sd = !src || device_of(src, sext) >= 0, up = !sd && dd;
  *pageable = 0;
  *cost = 0;
  if (dd && sd) { /* device memory read and written */
    *cost = 2.0 * (double)bytes / sim.hbm;
    return ENG_COMPUTE;
  }
  if (!dd && !sd) return ENG_NONE; /* host to host: not modelled */
  *pageable = !pinned(up ? src : dst, up ? sext : dext);
  *cost = (double)bytes / (sim.bw[!*pageable][!up] * (rows ? dense ? sim.row_eff_dense : sim.row_eff : 1)) +
          (double)rows * sim.row;
  return up ? ENG_H2D : ENG_D2H;
}

/* Queue a 2D copy or set on stream h; a blocking one runs it and what it waits for now. */
static cudaError_t queue_copy(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
                              int value, enum cudaMemcpyKind kind, cudaStream_t h, int blocking) {
  cudaError_t e = check_device(current);
  struct CUstream_st *s;
  copy *c;
  op *o;
  size_t dext = dpitch * (height ? height - 1 : 0) + width, sext = spitch * (height ? height - 1 : 0) + width;
  double cost, end;
  int eng, pageable;
  if (e != cudaSuccess) return ret(e);
  if (src) e = check_copy(dst, dpitch, src, spitch, width, height, kind);
  else if (width > dpitch) e = cudaErrorInvalidPitchValue;
  if (e != cudaSuccess) return ret(e);
  lock();
  if (!src && width && height && device_of(dst, dext) < 0) e = cudaErrorInvalidValue;
  else if (!(s = resolve(h, current))) e = cudaErrorInvalidResourceHandle;
  else if (width && height) {
    /* a 2D copy moves row by row, even where its rows are contiguous: the H100's in-card
     * out-of-card GEMM rows (h100.measured), whose 2D copies have no gaps, are slower than a plain
     * copy of the same bytes */
    eng = copy_engine(dst, dext, src, sext, width * height, height > 1 ? height : 0,
                      width == dpitch && (!src || width == spitch), &cost, &pageable);
    if (pageable && !blocking && env_on("FAKE_CUDA_STRICT")) {
      fupermod_standin_note("asynchronous copy of %zu bytes with pageable host memory (FAKE_CUDA_STRICT)",
                            width * height);
      e = cudaErrorInvalidValue;
    } else if (!(c = malloc(sizeof *c)))
      e = cudaErrorMemoryAllocation;
    else {
      *c = (copy){dst, src, dpitch, spitch, width, height, value};
      if (!(o = push(s, OP_WORK, run_copy, free, c))) {
        free(c);
        e = cudaErrorMemoryAllocation;
      } else {
        o->skip = nopayload();
        end = sim_queue(s, eng, cost);
        if (blocking) drain(s, s->tail->seq);
        if (blocking || pageable) sim_wait(end); /* a pageable copy holds the host until it is done */
      }
    }
  }
  unlock();
  return ret(e);
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind) {
  return queue_copy(dst, n, src, n, n, 1, 0, kind, NULL, 1);
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind, cudaStream_t s) {
  return queue_copy(dst, n, src, n, n, 1, 0, kind, s, 0);
}

cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
                         enum cudaMemcpyKind kind) {
  return queue_copy(dst, dpitch, src, spitch, width, height, 0, kind, NULL, 1);
}

cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
                              enum cudaMemcpyKind kind, cudaStream_t s) {
  return queue_copy(dst, dpitch, src, spitch, width, height, 0, kind, s, 0);
}

/* Asynchronous to the host for device memory (CUDA's "API synchronization behavior"): queued on
 * the legacy stream. */
cudaError_t cudaMemset(void *p, int value, size_t n) { return queue_copy(p, n, NULL, n, n, 1, value, 0, NULL, 0); }

cudaError_t cudaMemsetAsync(void *p, int value, size_t n, cudaStream_t s) {
  return queue_copy(p, n, NULL, n, n, 1, value, 0, s, 0);
}

cudaError_t cudaMemset2D(void *p, size_t pitch, int value, size_t width, size_t height) {
  return queue_copy(p, pitch, NULL, pitch, width, height, value, 0, NULL, 0);
}

cudaError_t cudaMemset2DAsync(void *p, size_t pitch, int value, size_t width, size_t height, cudaStream_t s) {
  return queue_copy(p, pitch, NULL, pitch, width, height, value, 0, s, 0);
}

static cudaError_t peer_copy(void *dst, int dd, const void *src, int sd, size_t n, cudaStream_t s, int blocking) {
  cudaError_t e = check_device(dd);
  if (e == cudaSuccess) e = check_device(sd);
  if (e != cudaSuccess) return ret(e);
  lock();
  if (n && (device_of(dst, n) != dd || device_of(src, n) != sd)) e = cudaErrorInvalidValue;
  else if (blocking) {
    sync_device(dd);
    sync_device(sd);
  }
  unlock();
  if (e != cudaSuccess) return ret(e);
  return queue_copy(dst, n, src, n, n, 1, 0, cudaMemcpyDeviceToDevice, s, blocking);
}

cudaError_t cudaMemcpyPeer(void *dst, int dd, const void *src, int sd, size_t n) {
  return peer_copy(dst, dd, src, sd, n, NULL, 1);
}

cudaError_t cudaMemcpyPeerAsync(void *dst, int dd, const void *src, int sd, size_t n, cudaStream_t s) {
  return peer_copy(dst, dd, src, sd, n, s, 0);
}

/* ---------------------------------------------------------------- streams */

/* A new stream or event x: numbered, on the current device, first in its list. */
#define ADOPT(x, list, fl)                                                                                             \
  do {                                                                                                                 \
    lock();                                                                                                            \
    (x)->id = next_id++, (x)->dev = current, (x)->flags = (fl);                                                        \
    (x)->next = (list), (list) = (x);                                                                                  \
    unlock();                                                                                                          \
  } while (0)

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *out, unsigned flags) {
  cudaError_t e = check_device(current);
  struct CUstream_st *s;
  if (!out || flags > cudaStreamNonBlocking) return ret(cudaErrorInvalidValue);
  if (e != cudaSuccess) return ret(e);
  if (!(s = calloc(1, sizeof *s))) return ret(cudaErrorMemoryAllocation);
  lock();
  sim_touch(current);
  unlock();
  ADOPT(s, streams, flags);
  *out = s;
  return cudaSuccess;
}

cudaError_t cudaStreamCreate(cudaStream_t *out) { return cudaStreamCreateWithFlags(out, cudaStreamDefault); }

cudaError_t cudaStreamCreateWithPriority(cudaStream_t *out, unsigned flags, int priority) {
  (void)priority;
  return cudaStreamCreateWithFlags(out, flags);
}

/* Its queued work still runs (at a device synchronisation); the handle is dead at once. */
cudaError_t cudaStreamDestroy(cudaStream_t h) {
  cudaError_t e = cudaSuccess;
  struct CUstream_st *s;
  lock();
  if (h == NULL || h == cudaStreamLegacy || h == cudaStreamPerThread || !(s = resolve(h, current)))
    e = cudaErrorInvalidResourceHandle;
  else
    s->destroyed = 1;
  unlock();
  return ret(e);
}

/* The stream for h: a user stream of any device, or a default stream of the current one. */
static struct CUstream_st *any_stream(cudaStream_t h, cudaError_t *e) {
  struct CUstream_st *s = NULL;
  *e = cudaSuccess;
  if (h == NULL || h == cudaStreamLegacy || h == cudaStreamPerThread) *e = check_device(current);
  if (*e == cudaSuccess && !(s = resolve(h, current))) *e = cudaErrorInvalidResourceHandle;
  return s;
}

cudaError_t cudaStreamSynchronize(cudaStream_t h) {
  cudaError_t e;
  struct CUstream_st *s;
  lock();
  if ((s = any_stream(h, &e))) {
    drain(s, UINT64_MAX);
    sim_wait(s->vt);
  }
  unlock();
  return ret(e);
}

/* A query of pending work says busy once, then runs it (s up to upto): a polling loop ends, and
 * code that takes the first answer for done reads stale data. The host then knows the work done
 * at virtual time vt. */
static cudaError_t busy_once(int *seen, struct CUstream_st *s, uint64_t upto, double vt) {
  if (!*seen) {
    *seen = 1;
    return cudaErrorNotReady;
  }
  drain(s, upto);
  sim_wait(vt);
  return cudaSuccess;
}

cudaError_t cudaStreamQuery(cudaStream_t h) {
  cudaError_t e;
  struct CUstream_st *s;
  lock();
  if ((s = any_stream(h, &e)) && s->head) e = busy_once(&s->query_seen, s, UINT64_MAX, s->vt);
  unlock();
  return ret(e);
}

/* The flags or the device of the stream for h. */
static cudaError_t stream_info(cudaStream_t h, unsigned *flags, int *dev) {
  cudaError_t e;
  struct CUstream_st *s;
  if (!flags && !dev) return ret(cudaErrorInvalidValue);
  lock();
  if ((s = any_stream(h, &e))) {
    if (flags) *flags = s->flags;
    if (dev) *dev = s->dev;
  }
  unlock();
  return ret(e);
}

cudaError_t cudaStreamGetFlags(cudaStream_t h, unsigned *flags) { return stream_info(h, flags, NULL); }
cudaError_t cudaStreamGetDevice(cudaStream_t h, int *dev) { return stream_info(h, NULL, dev); }

static struct CUevent_st *event_of(cudaEvent_t h) {
  for (struct CUevent_st *e = events; e; e = e->next)
    if (e == h && !e->destroyed) return e;
  return NULL;
}

/* The stream for h and the live event ev (called with the lock held). */
static cudaError_t stream_event(cudaStream_t h, cudaEvent_t ev, struct CUstream_st **s, struct CUevent_st **x) {
  cudaError_t e;
  if ((*s = any_stream(h, &e)) && !(*x = event_of(ev))) e = cudaErrorInvalidResourceHandle;
  return e;
}

cudaError_t cudaStreamWaitEvent(cudaStream_t h, cudaEvent_t ev, unsigned flags) {
  struct CUstream_st *s = NULL;
  struct CUevent_st *x = NULL;
  cudaError_t e;
  op *o;
  lock();
  if ((e = stream_event(h, ev, &s, &x)) == cudaSuccess && x->recorded) s->vt = fmax(s->vt, x->vrec);
  if (e == cudaSuccess && x->recorded && !x->complete) {
    if (!(o = push(s, OP_WAIT, NULL, NULL, NULL))) e = cudaErrorMemoryAllocation;
    else {
      o->wstream = x->rec_stream;
      o->wseq = x->rec_seq;
    }
  }
  unlock();
  (void)flags;
  return ret(e);
}

typedef struct {
  cudaHostFn_t fn;
  void *data;
} host_call;

static void run_host(void *arg) {
  host_call *c = arg;
  c->fn(c->data);
}

cudaError_t cudaLaunchHostFunc(cudaStream_t h, cudaHostFn_t fn, void *data) {
  cudaError_t e;
  struct CUstream_st *s;
  host_call *c;
  if (!fn) return ret(cudaErrorInvalidValue);
  lock();
  if ((s = any_stream(h, &e))) {
    if (!(c = malloc(sizeof *c))) e = cudaErrorMemoryAllocation;
    else {
      c->fn = fn;
      c->data = data;
      if ((e = push_work(s, run_host, c)) == cudaSuccess) sim_queue(s, ENG_NONE, 0);
    }
  }
  unlock();
  return ret(e);
}

/* ---------------------------------------------------------------- events */

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *out, unsigned flags) {
  cudaError_t e = check_device(current);
  struct CUevent_st *x;
  if (!out || flags > (cudaEventBlockingSync | cudaEventDisableTiming | cudaEventInterprocess))
    return ret(cudaErrorInvalidValue);
  if (e != cudaSuccess) return ret(e);
  if (!(x = calloc(1, sizeof *x))) return ret(cudaErrorMemoryAllocation);
  lock();
  sim_touch(current);
  unlock();
  ADOPT(x, events, flags);
  *out = x;
  return cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t *out) { return cudaEventCreateWithFlags(out, cudaEventDefault); }

cudaError_t cudaEventDestroy(cudaEvent_t ev) {
  cudaError_t e = cudaSuccess;
  struct CUevent_st *x;
  lock();
  if (!(x = event_of(ev))) e = cudaErrorInvalidResourceHandle;
  else {
    x->destroyed = 1;
    if (!x->pending) free_event(x);
  }
  unlock();
  return ret(e);
}

cudaError_t cudaEventRecord(cudaEvent_t ev, cudaStream_t h) {
  struct CUstream_st *s = NULL;
  struct CUevent_st *x = NULL;
  cudaError_t e;
  op *o;
  lock();
  if ((e = stream_event(h, ev, &s, &x)) == cudaSuccess) {
    if (x->dev != s->dev) e = cudaErrorInvalidResourceHandle;
    else if (!(o = push(s, OP_RECORD, NULL, NULL, x))) e = cudaErrorMemoryAllocation;
    else {
      x->recorded = 1;
      x->complete = 0;
      x->query_seen = 0;
      x->rec_stream = s->id;
      x->rec_seq = o->seq;
      x->pending++;
      x->vrec = sim_queue(s, ENG_NONE, 0);
    }
  }
  unlock();
  return ret(e);
}

static void event_wait(struct CUevent_st *x) {
  struct CUstream_st *s;
  if (x->recorded && !x->complete && (s = stream_by_id(x->rec_stream))) drain(s, x->rec_seq);
}

cudaError_t cudaEventSynchronize(cudaEvent_t ev) {
  cudaError_t e = cudaSuccess;
  struct CUevent_st *x;
  lock();
  if (!(x = event_of(ev))) e = cudaErrorInvalidResourceHandle;
  else {
    event_wait(x);
    if (x->recorded) sim_wait(x->vrec);
  }
  unlock();
  return ret(e);
}

cudaError_t cudaEventQuery(cudaEvent_t ev) {
  cudaError_t e = cudaSuccess;
  struct CUevent_st *x;
  struct CUstream_st *s;
  lock();
  if (!(x = event_of(ev))) e = cudaErrorInvalidResourceHandle;
  else if (x->recorded && !x->complete && (s = stream_by_id(x->rec_stream)))
    e = busy_once(&x->query_seen, s, x->rec_seq, x->vrec);
  unlock();
  return ret(e);
}

/* The host clock when each record ran, or the virtual times of the records. */
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b) {
  cudaError_t e = cudaSuccess;
  struct CUevent_st *x, *y;
  if (!ms) return ret(cudaErrorInvalidValue);
  lock();
  x = event_of(a);
  y = event_of(b);
  if (!x || !y || !x->recorded || !y->recorded || x->dev != y->dev || ((x->flags | y->flags) & cudaEventDisableTiming))
    e = cudaErrorInvalidResourceHandle;
  else if (!x->complete || !y->complete)
    e = cudaErrorNotReady;
  else
    *ms = (float)(1e3 * (sim_on() ? y->vrec - x->vrec : y->time - x->time));
  unlock();
  return ret(e);
}
