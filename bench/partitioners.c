/* Cost of every registered partitioner against the exact DP, on realistic synthetic instances.
 *
 *   bench/partitioners [--quick] [--p 4,16,64] [--m 100,1000] [--family NAME,...] [--alg NAME,...]
 *                      [--no-faithful] [--budget S] [--d-mult C | --d-per-p F] [--threads T] [--min-time S]
 *                      [--dump DIR]
 *
 * Each case (algorithm, instance) runs in a forked child under alarm(budget): wall and CPU time
 * (least over repetitions until --min-time has been spent), peak memory (the rise of the child's
 * VmHWM over its RSS before the call, after a reset through /proc/self/clear_refs; without it,
 * ru_maxrss of the child minus its RSS at the start), and the objective. The references run the
 * same way in the same run: dp (time or energy objective), fupermod_dp_pareto (dynamic or total
 * energy front). Objectives are checked: exact algorithms must equal the reference (time exactly,
 * energies within 1e-9 relative, fronts point by point); the others (balanced, faithful popta,
 * faithful aleph, the continuous ones) may only be worse, never better. A disagreement prints
 * "MISMATCH" and the exit status is 1. An exact time algorithm that returns the very distribution
 * of dp (same tie choice) is noted "same parts as dp[time]". After a timeout an algorithm is skipped on the larger
 * cases of the same family (p and m both at least as large).
 *
 * Instances (deterministic; sizes in granules, every size 1..m measured unless capped; D = C*m
 * granules, C = 2 by default, or with --d-per-p F, D = F*p*m):
 *   hom-dgemm  one function for all: DGEMM-shaped speed (rising, then a plateau) with drops of up
 *              to 60 % at a quarter of the sizes (multithreaded OpenBLAS looks so);
 *   hom-fft    one function for all: FFT-shaped speed, falling slowly with the size, slow at
 *              multiples of 16 and 64 and at sizes with a prime factor > 13;
 *   het-dgemm  CPUs with DGEMM-shaped speed scaled 1x..8x (every third one with a 40 % dip past a
 *              memory limit), and every 4th of 8 processors GPU-like: speed rising strongly with
 *              the size, sizes beyond a memory cap (30-60 % of m) absent;
 *   het-fft    the same with FFT-shaped CPUs.
 * The exact families (--family exact, or by name; make_exact): ramp, ramp-fast4 (every 4th
 * processor 5x faster), ramp-outliers (two sizes of each at 1e6 s), step (15 floor(x/100) +
 * U(0,30]), random (U(1,1000)), linear (x/s_c), plateau (smooth, 1 % noise), missing (ramps with
 * 30 % of the sizes absent). bench/partitioners --family exact --alg hpopta --no-faithful
 * --p 32,128 --m 1000 --d-per-p 0.5 gives HPOPTA and the DP at n = 64000 for p = 128.
 * Energy = dynamic power x time; power grows like speed^1.4 across CPUs (fast ones are less
 * efficient, so fronts are not trivial), GPUs 150-210 W; it rises up to 30 % with the size, +-5 % noise.
 * Static power (htpopta): 10 W per processor.
 * Continuous algorithms get models of their type built from the same points (not timed) and are
 * judged by the makespan of their distribution on the measured functions (a size beyond a cap
 * has no measured time: "beyond cap").
 * --dump DIR writes each instance instead of running it: DIR/FAMILY-pP-mM-DN/NNN.points, one "d t"
 * file per processor in rank order (fupermod partition reads them; so does a plain "size time" reader). */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <omp.h>
#include "partitioners/partitioners.h"
#include "bench/machine.h"

/* ---- instances ---- */

static uint64_t rs;
static double urand(void) {
  rs = rs * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(rs >> 11) / 9007199254740992.0;
}

static int largest_prime(long x) {
  int lp = 1;
  for (long q = 2; q * q <= x; q++)
    while (x % q == 0) {
      lp = (int)q;
      x /= q;
    }
  if (x > 1) lp = (int)x;
  return lp;
}

enum { SHAPE_DGEMM, SHAPE_FFT, SHAPE_GPU };

/* One processor's function: speed scale c (1 = 10 granules/s on the plateau). */
static void make_function(fupermod_points *f, int shape, int m, double c, int dip, int drops, uint64_t seed) {
  int cap = m;
  double h = 0, xmem = m;
  rs = seed;
  if (shape == SHAPE_GPU) {
    cap = (int)((0.3 + 0.3 * urand()) * m);
    if (cap < 1) cap = 1;
    h = cap / 3.0;
  }
  if (dip) xmem = (0.5 + 0.3 * urand()) * m;
  f->count = cap;
  f->has_energy = 1;
  f->pts = calloc((size_t)cap, sizeof *f->pts);
  for (int j = 0; j < cap; j++) {
    double x = j + 1, s, watts;
    fupermod_point pt = FUPERMOD_POINT_INIT;
    if (shape == SHAPE_DGEMM) {
      s = 10.0 * c * (1 - exp(-x / (0.06 * m))) * (1 + 0.03 * (2 * urand() - 1));
      if (x > xmem) s *= 0.6;
      if (drops && urand() < 0.25) s *= 1 - 0.6 * urand();
      watts = 10.0 * pow(c, 1.4);
    } else if (shape == SHAPE_FFT) {
      int lp = largest_prime(j + 1);
      s = 10.0 * c * (1 - 0.3 * log2(x) / log2(m + 1.0)) * (1 - exp(-x / 3.0));
      if ((j + 1) % 64 == 0) s *= 0.5;
      else if ((j + 1) % 16 == 0) s *= 0.75;
      if (lp > 13) s *= 0.65 + 0.2 * urand();
      s *= 1 + 0.05 * (2 * urand() - 1);
      watts = 10.0 * pow(c, 1.4);
    } else {
      s = 10.0 * c * x / (x + h) * (1 + 0.02 * (2 * urand() - 1));
      watts = 90.0 + 60.0 * c / 8.0;
    }
    watts *= (1 + 0.3 * x / m) * (1 + 0.05 * (2 * urand() - 1));
    pt.d = j + 1;
    pt.t = x / s;
    pt.e = watts * pt.t;
    f->pts[j] = pt;
  }
}

/* The exact families (--family exact): stress cases for the exact algorithms, all heterogeneous.
 * Processor i gets scale c in [1, 8); the ramps' speed rises linearly over the first r sizes
 * (5-25 % of m) from a tenth of its plateau 10 c, with +-5 % noise, and 5 % of the sizes dip to
 * 30-70 %. Times are in seconds, energies 10 c^1.4 W (+-5 %) times the time. */
enum { EX_RAMP, EX_RAMP_FAST4, EX_RAMP_OUTLIERS, EX_STEP, EX_RANDOM, EX_LINEAR, EX_PLATEAU, EX_MISSING };

static void make_exact(fupermod_points *f, int kind, int i, int m, uint64_t seed) {
  double c, r, watts;
  int n = 0;
  rs = seed;
  c = 1.0 + 7.0 * urand();
  if (kind == EX_RAMP_FAST4 && i % 4 == 0) c *= 5.0;
  r = (0.05 + 0.2 * urand()) * m;
  watts = 10.0 * pow(c, 1.4);
  f->has_energy = 1;
  f->pts = calloc((size_t)m, sizeof *f->pts);
  for (int j = 0; j < m; j++) {
    double x = j + 1, t;
    fupermod_point pt = FUPERMOD_POINT_INIT;
    if (kind == EX_STEP) t = 15.0 * floor(x / 100.0) + 30.0 * (1.0 - urand()); /* U(0, 30], never 0 */
    else if (kind == EX_RANDOM) t = 1.0 + 999.0 * urand();
    else if (kind == EX_LINEAR) t = x / (10.0 * c);
    else if (kind == EX_PLATEAU) t = x / (10.0 * c * (1.0 - 0.9 * exp(-x / (0.02 * m))) * (1 + 0.01 * (2 * urand() - 1)));
    else {
      double sp = 10.0 * c * fmin(1.0, 0.1 + 0.9 * x / r) * (1 + 0.05 * (2 * urand() - 1));
      if (urand() < 0.05) sp *= 0.3 + 0.4 * urand();
      t = x / sp;
    }
    pt.d = j + 1;
    pt.t = t;
    pt.e = watts * (1 + 0.05 * (2 * urand() - 1)) * t;
    f->pts[n++] = pt;
  }
  if (kind == EX_RAMP_OUTLIERS) /* two sizes measured absurdly slow */
    for (int k = 0; k < 2; k++) {
      int j = (int)(urand() * m);
      f->pts[j].e *= 1e6 / f->pts[j].t;
      f->pts[j].t = 1e6;
    }
  if (kind == EX_MISSING) { /* 30 % of the sizes, chosen at random, never measured */
    int drop = (int)(0.3 * m);
    char *gone = calloc((size_t)m, 1);
    for (int k = 0; k < drop;) {
      int j = (int)(urand() * m);
      if (!gone[j]) gone[j] = 1, k++;
    }
    n = 0;
    for (int j = 0; j < m; j++)
      if (!gone[j]) f->pts[n++] = f->pts[j];
    free(gone);
  }
  f->count = n;
}

typedef struct {
  const char *family;
  int p, m, hom;
  long D;
  fupermod_points *fn; /* p functions (1 when hom) */
  const fupermod_points **f;
} instance;

static const char *families[] = {"hom-dgemm", "hom-fft",      "het-dgemm",     "het-fft", "ramp",   "ramp-fast4",
                                 "ramp-outliers", "step", "random", "linear", "plateau", "missing"};
#define NFAM 12
#define NREALISTIC 4 /* the default families; the others (from EX_RAMP on) are the exact families */

static void make_instance(instance *in, int fam, int p, int m, double dmult, double dpp) {
  const int hom = fam < 2, nf = hom ? 1 : p;
  const int exact = fam >= NREALISTIC;
  in->family = families[fam];
  in->p = p;
  in->m = m;
  in->hom = hom;
  in->D = (long)(dpp > 0 ? dpp * p * m : dmult * m);
  if (in->D < 1) in->D = 1;
  in->fn = calloc((size_t)nf, sizeof *in->fn);
  in->f = malloc((size_t)p * sizeof *in->f);
  for (int i = 0; i < nf; i++) {
    uint64_t seed = 1000003ULL * (uint64_t)(fam + 1) + 7919ULL * (uint64_t)i + (uint64_t)m;
    int shape = fam % 2 == 0 ? SHAPE_DGEMM : SHAPE_FFT;
    double c = 1.0;
    if (exact) {
      make_exact(&in->fn[i], fam - NREALISTIC, i, m, seed);
      continue;
    }
    if (!hom) {
      rs = seed ^ 0x9e3779b97f4a7c15ULL;
      c = 1.0 + 7.0 * urand();
      if (i % 8 == 3) shape = SHAPE_GPU, c = 8.0 + 8.0 * urand();
    }
    make_function(&in->fn[i], shape, m, c, !hom && shape == SHAPE_DGEMM && i % 3 == 1, hom && shape == SHAPE_DGEMM,
                  seed);
  }
  for (int i = 0; i < p; i++) in->f[i] = &in->fn[hom ? 0 : i];
}

static void free_instance(instance *in) {
  for (int i = 0; i < (in->hom ? 1 : in->p); i++) free(in->fn[i].pts);
  free(in->fn);
  free(in->f);
}

/* ---- cases ---- */

enum { OBJ_TIME, OBJ_ENERGY, OBJ_PARETO, OBJ_TOTAL, OBJ_CONT };
static const char *ref_name[] = {"dp[time]", "dp[energy]", "dp_pareto", "dp_pareto[total]"};

typedef struct {
  char label[32];
  const fupermod_partitioner *alg;
  int faithful;
  int obj;   /* OBJ_* */
  int exact; /* must equal the reference; else may only be worse */
} entry;

typedef struct {
  int rc;           /* status; 1000 + signal when killed, TIMEOUT when the alarm fired */
  char msg[240];
  double wall, cpu; /* least over the repetitions */
  int reps;
  long mem_kb;      /* peak rise; -1: unknown (the parent uses ru_maxrss - rss0_kb) */
  long rss0_kb;
  double t, e;      /* time and (dynamic) energy of the distribution; cont: makespan on the functions */
  double model_t;   /* cont: the models' predicted makespan */
  int beyond;       /* cont: parts beyond a processor's largest measured size */
  int nfront;       /* pareto: points that follow as (time, energy) pairs */
  uint64_t parts;   /* discrete: a hash of the distribution (to see the same tie choice as the reference) */
} result;

#define TIMEOUT 999

static int threads = 1;
static double min_time = 0.2;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static long status_kb(const char *key) {
  FILE *fp = fopen("/proc/self/status", "r");
  char line[256];
  long kb = -1;
  size_t n = strlen(key);
  if (!fp) return -1;
  while (fgets(line, sizeof line, fp))
    if (!strncmp(line, key, n)) kb = strtol(line + n, NULL, 10);
  fclose(fp);
  return kb;
}

/* Reset the peak RSS to the current RSS (Linux >= 4.0); 0 on success. */
static int reset_peak(void) {
  FILE *fp = fopen("/proc/self/clear_refs", "w");
  int ok;
  if (!fp) return -1;
  ok = fputs("5", fp) >= 0;
  return fclose(fp) == 0 && ok ? 0 : -1;
}

static int write_all(int fd, const void *buf, size_t n) {
  const char *p = buf;
  while (n > 0) {
    ssize_t k = write(fd, p, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return -1;
    p += k;
    n -= (size_t)k;
  }
  return 0;
}

/* The child: run the case, write result (+ front) to fd. */
static void child(const instance *in, const entry *en, int fd) {
  fupermod_problem prob = {in->D, in->p, in->f, 10.0 * in->p, en->faithful, FUPERMOD_OBJ_TIME};
  fupermod_model **models = NULL;
  fupermod_dist *dist = fupermod_dist_alloc(in->D, in->p);
  fupermod_front front = {0, NULL};
  result r;
  long rss0 = 0;
  int peak_ok;
  double spent = 0;
  long *d = malloc((size_t)in->p * sizeof *d);
  memset(&r, 0, sizeof r);
  r.wall = r.cpu = INFINITY;
  omp_set_num_threads(threads);
  if (en->obj == OBJ_ENERGY) prob.objective = FUPERMOD_OBJ_ENERGY;
  if (en->obj == OBJ_PARETO) prob.objective = FUPERMOD_OBJ_PARETO;
  if (en->obj == OBJ_TOTAL) prob.objective = FUPERMOD_OBJ_PARETO_TOTAL;
  if (en->obj == OBJ_CONT) {
    models = calloc((size_t)in->p, sizeof *models);
    for (int i = 0; i < in->p && r.rc == 0; i++)
      if ((r.rc = fupermod_model_create(en->alg->model_type, in->f[i], in->D, &models[i])))
        snprintf(r.msg, sizeof r.msg, "model: %s", fupermod_error_message());
  }
  peak_ok = reset_peak() == 0;
  rss0 = status_kb("VmRSS:");
  while (r.rc == 0 && (r.reps == 0 || (spent < min_time && r.reps < 50))) {
    double w0, c0, w, c;
    if (front.points) fupermod_front_free(&front);
    w0 = now();
    c0 = cpu_now();
    if (en->obj == OBJ_CONT) r.rc = en->alg->continuous(in->p, models, dist);
    else if (en->obj == OBJ_PARETO || en->obj == OBJ_TOTAL) r.rc = en->alg->pareto(&prob, &front);
    else r.rc = en->alg->discrete(&prob, dist);
    w = now() - w0;
    c = cpu_now() - c0;
    spent += w;
    if (w < r.wall) r.wall = w;
    if (c < r.cpu) r.cpu = c;
    r.reps++;
    if (r.rc) snprintf(r.msg, sizeof r.msg, "%s", fupermod_error_message());
  }
  r.mem_kb = peak_ok ? status_kb("VmHWM:") - rss0 : -1;
  r.rss0_kb = rss0;
  if (r.rc == 0) {
    if (en->obj == OBJ_PARETO || en->obj == OBJ_TOTAL) {
      r.nfront = front.count;
      if (front.count > 0) {
        r.t = front.points[0].time;
        r.e = front.points[front.count - 1].energy;
      }
    } else {
      int rc;
      r.parts = 1469598103934665603ULL;
      for (int i = 0; i < in->p; i++) {
        d[i] = dist->parts[i].d;
        r.parts = (r.parts ^ (uint64_t)d[i]) * 1099511628211ULL;
      }
      if (en->obj == OBJ_CONT) {
        r.model_t = fupermod_dist_time(dist);
        for (int i = 0; i < in->p; i++) r.beyond += d[i] > in->f[i]->pts[in->f[i]->count - 1].d;
      }
      rc = fupermod_problem_evaluate(&prob, d, &r.t, &r.e, NULL);
      if (rc && en->obj != OBJ_CONT) {
        r.rc = rc;
        snprintf(r.msg, sizeof r.msg, "invalid distribution: %s", fupermod_error_message());
      } else if (rc) {
        r.t = r.e = INFINITY;
      } else if (en->obj != OBJ_CONT && (fupermod_dist_time(dist) != r.t)) {
        r.rc = FUPERMOD_ERR_NUMERIC;
        snprintf(r.msg, sizeof r.msg, "reported time %.17g, recomputed %.17g", fupermod_dist_time(dist), r.t);
      }
    }
  }
  if (write_all(fd, &r, sizeof r)) _exit(3);
  for (int i = 0; i < r.nfront; i++) {
    double te[2] = {front.points[i].time, front.points[i].energy};
    if (write_all(fd, te, sizeof te)) _exit(3);
  }
  _exit(0);
}

/* Run a case in a child under alarm(budget). front (may be NULL) receives the Pareto points. */
static void run_case(const instance *in, const entry *en, double budget, result *r, double **front) {
  int fds[2], status = 0;
  pid_t pid;
  struct rusage ru;
  size_t got = 0;
  memset(r, 0, sizeof *r);
  if (front) *front = NULL;
  fflush(stdout);
  if (pipe(fds) || (pid = fork()) < 0) {
    r->rc = FUPERMOD_ERR_SYSTEM;
    snprintf(r->msg, sizeof r->msg, "pipe/fork: %s", strerror(errno));
    return;
  }
  if (pid == 0) {
    close(fds[0]);
    alarm((unsigned)ceil(budget));
    child(in, en, fds[1]);
  }
  close(fds[1]);
  {
    char *p = (char *)r;
    while (got < sizeof *r) {
      ssize_t k = read(fds[0], p + got, sizeof *r - got);
      if (k < 0 && errno == EINTR) continue;
      if (k <= 0) break;
      got += (size_t)k;
    }
    if (got == sizeof *r && r->nfront > 0) {
      size_t need = (size_t)r->nfront * 2 * sizeof(double), have = 0;
      double *buf = malloc(need);
      while (buf && have < need) {
        ssize_t k = read(fds[0], (char *)buf + have, need - have);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) break;
        have += (size_t)k;
      }
      if (have < need) got = 0;
      if (front) *front = buf;
      else free(buf);
    }
  }
  close(fds[0]);
  while (wait4(pid, &status, 0, &ru) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    memset(r, 0, sizeof *r);
    r->rc = sig == SIGALRM ? TIMEOUT : 1000 + sig;
    if (sig == SIGALRM) snprintf(r->msg, sizeof r->msg, "timeout > %gs", ceil(budget));
    else snprintf(r->msg, sizeof r->msg, "killed by signal %d (%s)", sig, strsignal(sig));
  } else if (got != sizeof *r) {
    memset(r, 0, sizeof *r);
    r->rc = FUPERMOD_ERR_SYSTEM;
    snprintf(r->msg, sizeof r->msg, "child exited (status %d) without a result", WEXITSTATUS(status));
  } else if (r->mem_kb < 0) {
    r->mem_kb = ru.ru_maxrss - r->rss0_kb; /* no clear_refs: the child's peak minus its start */
  }
}

/* ---- comparison ---- */

static int close_rel(double a, double b, double rel) {
  if (a == b) return 1;
  return fabs(a - b) <= rel * fmax(fabs(a), fabs(b));
}

/* Fronts a (tested) and b (exact) as (time, energy) pairs in increasing time. exact: the same
 * points. Otherwise no point of a may beat b (each is weakly dominated by a point of b). Counts the
 * points of b missing from a, the points of a off the front, and whether both ends agree. */
static int fronts_agree(const double *a, int na, const double *b, int nb, int exact, int *missing, int *off,
                        int *ends) {
  int on = 0;
  for (int i = 0; i < na; i++) {
    int dominated = 0, equal = 0;
    for (int j = 0; j < nb && b[2 * j] <= a[2 * i]; j++) {
      if (b[2 * j + 1] <= a[2 * i + 1] || close_rel(a[2 * i + 1], b[2 * j + 1], 1e-9)) dominated = 1;
      if (b[2 * j] == a[2 * i] && close_rel(a[2 * i + 1], b[2 * j + 1], 1e-9)) equal = 1;
    }
    if (!dominated) return 0;
    on += equal;
  }
  *missing = nb - on;
  *off = na - on;
  *ends = na > 0 && nb > 0 && a[0] == b[0] && close_rel(a[1], b[1], 1e-9) && a[2 * na - 2] == b[2 * nb - 2] &&
          close_rel(a[2 * na - 1], b[2 * nb - 1], 1e-9);
  return !exact || (na == nb && on == nb);
}

/* ---- driver ---- */

typedef struct {
  char label[32];
  int runs, timeouts, skipped, refused, mismatches, beyond, front_miss;
  double ratios[64];
  int nr;
  double worst_obj;
} tally;

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static int parse_list(const char *s, int *out, int max) {
  int n = 0;
  while (*s && n < max) {
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s) break;
    out[n++] = (int)v;
    s = end;
    if (*s == ',') s++;
  }
  return n;
}

static int in_list(const char *list, const char *name) {
  size_t n = strlen(name);
  const char *s = list;
  if (!list) return 1;
  while ((s = strstr(s, name))) {
    if ((s == list || s[-1] == ',') && (s[n] == 0 || s[n] == ',')) return 1;
    s += n;
  }
  return 0;
}

/* no --family: the realistic ones; "exact" names all the exact families */
static int family_selected(const char *famsel, int fam) {
  return famsel ? in_list(famsel, families[fam]) || (fam >= NREALISTIC && in_list(famsel, "exact")) : fam < NREALISTIC;
}

static void loadavg(char *buf, size_t n) {
  FILE *fp = fopen("/proc/loadavg", "r");
  snprintf(buf, n, "?");
  if (!fp) return;
  if (fgets(buf, (int)n, fp)) buf[strcspn(buf, "\n")] = 0;
  fclose(fp);
}

/* One "d t" point file per processor (17 digits: the times read back exactly). */
static int dump_instance(const char *dir, const instance *in) {
  char path[4096];
  int n = snprintf(path, sizeof path, "%s/%s-p%d-m%d-D%ld", dir, in->family, in->p, in->m, in->D);
  if (n < 0 || (size_t)n >= sizeof path - 16 || (mkdir(dir, 0777) && errno != EEXIST) ||
      (mkdir(path, 0777) && errno != EEXIST)) {
    fprintf(stderr, "bench/partitioners: --dump: cannot create %s: %s\n", path, strerror(errno));
    return -1;
  }
  for (int i = 0; i < in->p; i++) {
    const fupermod_points *f = in->f[i];
    FILE *fp;
    snprintf(path + n, sizeof path - (size_t)n, "/%03d.points", i);
    if (!(fp = fopen(path, "w"))) {
      fprintf(stderr, "bench/partitioners: --dump: cannot write %s: %s\n", path, strerror(errno));
      return -1;
    }
    for (int j = 0; j < f->count; j++) fprintf(fp, "%ld %.17g\n", f->pts[j].d, f->pts[j].t);
    if (fclose(fp)) {
      fprintf(stderr, "bench/partitioners: --dump: cannot write %s: %s\n", path, strerror(errno));
      return -1;
    }
  }
  path[n] = 0;
  printf("%s\n", path);
  return 0;
}

static void usage(void) {
  fprintf(stderr, "usage: bench/partitioners [--quick] [--p 4,16,64] [--m 100,1000] [--family hom-dgemm,...] "
                  "[--alg popta,...] [--no-faithful] [--budget S] [--d-mult C | --d-per-p F] [--threads T] [--min-time S] "
                  "[--dump DIR]\n"
                  "families: hom-dgemm hom-fft het-dgemm het-fft (the default), exact = ramp ramp-fast4 ramp-outliers "
                  "step random linear plateau missing\n");
}

typedef struct {
  int plist[16], np, mlist[16], nm, quick, no_faithful;
  double budget, dpp, dmult;
  const char *famsel, *algsel, *dump;
} options;

/* --quick: a small grid and a short budget, unless given explicitly. */
static void quick_grid(int argc, char **argv, options *o) {
  int expl_p = 0, expl_m = 0, expl_b = 0;
  for (int i = 1; i < argc; i++) {
    expl_p |= !strcmp(argv[i], "--p");
    expl_m |= !strcmp(argv[i], "--m");
    expl_b |= !strcmp(argv[i], "--budget");
  }
  if (!expl_p) o->plist[0] = 4, o->plist[1] = 16, o->np = 2;
  if (!expl_m) o->mlist[0] = 100, o->nm = 1;
  if (!expl_b) o->budget = 2.0;
  min_time = fmin(min_time, 0.05);
}

/* The options (--threads and --min-time set threads and min_time); -1 for a bad one. */
static int parse_options(int argc, char **argv, options *o) {
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--quick")) {
      o->quick = 1;
      continue;
    }
    if (!strcmp(a, "--no-faithful")) {
      o->no_faithful = 1;
      continue;
    }
    if (!v) return -1;
    if (!strcmp(a, "--p")) o->np = parse_list(v, o->plist, 16);
    else if (!strcmp(a, "--m")) o->nm = parse_list(v, o->mlist, 16);
    else if (!strcmp(a, "--family")) o->famsel = v;
    else if (!strcmp(a, "--alg")) o->algsel = v;
    else if (!strcmp(a, "--budget")) o->budget = atof(v);
    else if (!strcmp(a, "--d-per-p")) o->dpp = atof(v);
    else if (!strcmp(a, "--d-mult")) o->dmult = atof(v);
    else if (!strcmp(a, "--threads")) threads = atoi(v);
    else if (!strcmp(a, "--min-time")) min_time = atof(v);
    else if (!strcmp(a, "--dump")) o->dump = v;
    else return -1;
    i++;
  }
  if (o->quick) quick_grid(argc, argv, o);
  return o->np < 1 || o->nm < 1 || o->budget <= 0 || threads < 1 || o->dpp < 0 || o->dmult <= 0 ? -1 : 0;
}

/* The algorithms: every registered one but the references and paraleph (MPI; bench/paraleph). */
static int make_entries(const char *algsel, int no_faithful, entry *ents) {
  const fupermod_partitioner *const *all = fupermod_partitioners();
  int nent = 0;
  for (int i = 0; all[i] && nent < 60; i++) {
    const fupermod_partitioner *a = all[i];
    int obj;
    if (!strcmp(a->name, "dp") || !strcmp(a->name, "paraleph") || !in_list(algsel, a->name)) continue;
    if (a->kind == FUPERMOD_PART_CONTINUOUS) obj = OBJ_CONT;
    else if (a->kind == FUPERMOD_PART_PARETO) obj = a->needs_static_power ? OBJ_TOTAL : OBJ_PARETO;
    else obj = a->needs_energy ? OBJ_ENERGY : OBJ_TIME;
    for (int f = 0; f < 2; f++) {
      /* faithful modes that differ: popta (printed pruning), hpopta (the thesis search), aleph (printed set) */
      if (f && (no_faithful || (strcmp(a->name, "popta") && strcmp(a->name, "hpopta") && strcmp(a->name, "aleph"))))
        continue;
      entry *e = &ents[nent++];
      snprintf(e->label, sizeof e->label, "%s%s", a->name, f ? "/faithful" : "");
      e->alg = a;
      e->faithful = f;
      e->obj = obj;
      e->exact = obj != OBJ_CONT && strcmp(a->name, "balanced") && !(f && strcmp(a->name, "hpopta"));
    }
  }
  return nent;
}

static void init_tallies(const entry *ents, int nent, tally *tal) {
  memset(tal, 0, 64 * sizeof *tal);
  for (int i = 0; i < nent; i++) {
    memcpy(tal[i].label, ents[i].label, sizeof tal[i].label);
    tal[i].worst_obj = NAN;
  }
}

/* --dump: every selected instance written, none run. 0, or 1 when one cannot be written. */
static int dump_all(const options *o) {
  for (int fam = 0; fam < NFAM; fam++)
    for (int mi = 0; mi < o->nm && family_selected(o->famsel, fam); mi++)
      for (int pi = 0; pi < o->np; pi++) {
        instance in;
        int rc;
        make_instance(&in, fam, o->plist[pi], o->mlist[mi], o->dmult, o->dpp);
        rc = dump_instance(o->dump, &in);
        free_instance(&in);
        if (rc) return 1;
      }
  return 0;
}

static void print_header(const options *o) {
  char cpu[256], load0[128];
  machine(cpu, sizeof cpu);
  loadavg(load0, sizeof load0);
  printf("# bench/partitioners: %s, %d online cores, %d OpenMP thread(s) per case; load average at start: %s\n", cpu,
         (int)sysconf(_SC_NPROCESSORS_ONLN), threads, load0);
  printf("# %s grid: p in {", o->quick ? "quick" : "full");
  for (int i = 0; i < o->np; i++) printf("%s%d", i ? "," : "", o->plist[i]);
  printf("}, m in {");
  for (int i = 0; i < o->nm; i++) printf("%s%d", i ? "," : "", o->mlist[i]);
  if (o->dpp > 0) printf("}, D = %g * p * m granules", o->dpp);
  else printf("}, D = %g * m granules", o->dmult);
  printf("; budget %gs per case, %gs for the references (alarm in a forked child)\n", o->budget, 2 * o->budget);
  printf("# time_s = wall time of one call (least of the repetitions run within %gs), cpu_s = its CPU time;\n"
         "# mem_MB = peak RSS rise of the child during the calls (VmHWM after a clear_refs reset);\n"
         "# ref = the exact reference of the same objective, run in the same way on the same instance;\n"
         "# x_ref = cpu_s / ref cpu_s (wall times with --threads > 1; CPU time is less disturbed by other load);\n"
         "# obj = time (s) | energy (J) | front size and ends | makespan (s);\n"
         "# obj/ref = objective over the reference's (time: makespan; fronts: missing points)\n",
         min_time);
}

/* The exact references of one instance, one per objective, each run when first needed. */
typedef struct {
  result r[4];
  double *front[4];
  int have[4];
} refs;

/* The cases on which an entry timed out: it is skipped on the larger cases of the family. */
typedef struct {
  int p[16], m[16], n;
} dead_cases;

/* What a run's objective says against the reference's. */
typedef struct {
  char obj[64], note[300];
  double objr;          /* objective over the reference's; fronts: missing points */
  int ok, missing, off; /* ok: as the reference allows; fronts: its points missing, returned points off it */
} verdict;

/* Run the reference of objective ro and print its row. */
static void run_reference(const instance *in, int ro, double budget, const fupermod_partitioner *dp, refs *rf) {
  entry re = {"", dp, 0, ro, 1};
  const result *ref = &rf->r[ro];
  char obj[64] = "";
  run_case(in, &re, 2 * budget, &rf->r[ro], &rf->front[ro]);
  rf->have[ro] = 1;
  if (ref->rc == 0 && ro >= OBJ_PARETO)
    snprintf(obj, sizeof obj, "|F|=%d t=%.4g e=%.4g", ref->nfront, ref->t, ref->e);
  else if (ref->rc == 0)
    snprintf(obj, sizeof obj, ro == OBJ_ENERGY ? "%.6g J" : "%.6g s", ro == OBJ_ENERGY ? ref->e : ref->t);
  printf("%-18s %3d %5d %6ld %9.4g %9.4g %8.1f %-16s %9s %8s %-30s %8s %s\n", ref_name[ro], in->p, in->m, in->D,
         ref->rc ? NAN : ref->wall, ref->rc ? NAN : ref->cpu, ref->mem_kb / 1024.0, "(reference)", "", "", obj, "",
         ref->rc ? ref->msg : "");
}

/* A run without a result: a timeout (the entry is skipped on the larger cases from now on), a
 * refusal (its own table limit, or infeasible as the reference is) or an error. 1 for an error. */
static int report_failure(const instance *in, const entry *en, tally *ty, dead_cases *dc, const result *r,
                          const result *ref, int ro) {
  int refused = r->rc == FUPERMOD_ERR_NOMEM; /* an algorithm's own table limit */
  int agree = r->rc == FUPERMOD_ERR_INFEASIBLE && ref->rc == FUPERMOD_ERR_INFEASIBLE;
  if (r->rc == TIMEOUT) {
    ty->timeouts++;
    if (dc->n < 16) {
      dc->p[dc->n] = in->p;
      dc->m[dc->n] = in->m;
      dc->n++;
    }
    printf("%-18s %3d %5d %6ld %9s %9s %8s %-16s %9s %8s %-30s %8s %s\n", en->label, in->p, in->m, in->D, "-", "-",
           "-", ref_name[ro], "", "", "", "", r->msg);
    return 0;
  }
  if (refused || agree) ty->refused++;
  else ty->mismatches++;
  printf("%-18s %3d %5d %6ld %9s %9s %8s %-16s %9s %8s %-30s %8s %s%s: %s\n", en->label, in->p, in->m, in->D, "-",
         "-", "-", ref_name[ro], "", "", "", "", refused || agree ? "refused " : "MISMATCH: error ",
         fupermod_status_name(r->rc), r->msg);
  return !(refused || agree);
}

/* The objective of a run against the reference's: equal for exact algorithms, never better for
 * the others; fronts point by point (fronts_agree). */
static void compare(const entry *en, const result *r, const double *front, const result *ref, const double *reff,
                    verdict *v) {
  int ends = 1;
  switch (en->obj) {
  case OBJ_TIME:
  case OBJ_CONT:
    if (isfinite(r->t)) snprintf(v->obj, sizeof v->obj, "%.6g s", r->t);
    else snprintf(v->obj, sizeof v->obj, "beyond cap (model %.4g s)", r->model_t);
    if (ref->rc == 0) {
      v->objr = r->t / ref->t;
      if (r->t < ref->t || (en->exact && r->t != ref->t)) v->ok = 0;
    }
    if (en->obj == OBJ_CONT && isfinite(r->t)) snprintf(v->note, sizeof v->note, "model predicts %.4g s", r->model_t);
    if (en->obj == OBJ_CONT && r->beyond)
      snprintf(v->note, sizeof v->note, "%d part(s) beyond a memory cap", r->beyond);
    break;
  case OBJ_ENERGY:
    snprintf(v->obj, sizeof v->obj, "%.6g J", r->e);
    if (ref->rc == 0) {
      v->objr = r->e / ref->e;
      if (!close_rel(r->e, ref->e, 1e-9) && (en->exact || r->e < ref->e)) v->ok = 0;
    }
    break;
  default:
    snprintf(v->obj, sizeof v->obj, "|F|=%d t=%.4g e=%.4g", r->nfront, r->t, r->e);
    if (ref->rc == 0) {
      v->ok = fronts_agree(front, r->nfront, reff, ref->nfront, en->exact, &v->missing, &v->off, &ends);
      v->objr = v->missing;
      if (v->missing || v->off || !ends)
        snprintf(v->note, sizeof v->note, "%d of %d front points missing, %d returned off the front%s", v->missing,
                 ref->nfront, v->off, ends ? "" : ", ends differ");
    }
  }
}

/* A run with a result: judged against the reference, counted in the tally, its row printed. 1 on
 * a mismatch. */
static int judge(const instance *in, const entry *en, tally *ty, const result *r, const double *front,
                 const result *ref, const double *reff, int ro) {
  verdict v = {"", "", NAN, 1, 0, 0};
  double ratio = NAN;
  int bad = 0;
  if (ref->rc == 0) ratio = threads == 1 ? r->cpu / ref->cpu : r->wall / ref->wall;
  compare(en, r, front, ref, reff, &v);
  if (v.ok && en->exact && en->obj == OBJ_TIME && ref->rc == 0 && r->parts == ref->parts)
    snprintf(v.note, sizeof v.note, "same parts as %s", ref_name[ro]);
  if (ref->rc != 0) snprintf(v.note, sizeof v.note, "not checked: reference %s", ref->msg);
  else if (!v.ok) {
    char tmp[300];
    snprintf(tmp, sizeof tmp, "MISMATCH with %s (%s) %s", ref_name[ro],
             en->exact ? "must be equal" : "better than exact", v.note);
    snprintf(v.note, sizeof v.note, "%s", tmp);
    ty->mismatches++;
    bad = 1;
  } else if (!en->exact && en->obj != OBJ_PARETO && en->obj != OBJ_TOTAL && v.objr > 1 && isfinite(v.objr))
    snprintf(v.note + strlen(v.note), sizeof v.note - strlen(v.note), "%s%.1f%% above the optimum",
             v.note[0] ? "; " : "", 100 * (v.objr - 1));
  if (isfinite(ratio) && ty->nr < 64) ty->ratios[ty->nr++] = ratio;
  if (en->obj != OBJ_PARETO && en->obj != OBJ_TOTAL && !(v.objr <= ty->worst_obj) && isfinite(v.objr))
    ty->worst_obj = v.objr;
  if (en->obj == OBJ_CONT && !isfinite(r->t)) ty->beyond++;
  if (v.missing || v.off) ty->front_miss++;
  printf("%-18s %3d %5d %6ld %9.4g %9.4g %8.1f %-16s %9.4g %8.3g %-30s %8.4g %s\n", en->label, in->p, in->m, in->D,
         r->wall, r->cpu, r->mem_kb / 1024.0, ref_name[ro], ref->rc ? NAN : ref->wall, ratio, v.obj, v.objr, v.note);
  return bad;
}

/* One algorithm on one instance (the reference of its objective first, when not yet run). 1 on a
 * mismatch. */
static int run_entry(const instance *in, const entry *en, tally *ty, dead_cases *dc, refs *rf, double budget,
                     const fupermod_partitioner *dp) {
  int ro = en->obj == OBJ_CONT ? OBJ_TIME : en->obj, skipped = 0, bad;
  result r;
  double *front = NULL;
  if (en->alg->homogeneous && !in->hom) return 0;
  for (int j = 0; j < dc->n; j++)
    if (in->p >= dc->p[j] && in->m >= dc->m[j]) skipped = 1;
  if (!rf->have[ro]) run_reference(in, ro, budget, dp, rf);
  if (skipped) {
    printf("%-18s %3d %5d %6ld %9s %9s %8s %-16s %9s %8s %-30s %8s skipped: timed out on a smaller case\n", en->label,
           in->p, in->m, in->D, "-", "-", "-", ref_name[ro], "", "", "", "");
    ty->skipped++;
    return 0;
  }
  run_case(in, en, budget, &r, &front);
  ty->runs++;
  if (r.rc) bad = report_failure(in, en, ty, dc, &r, &rf->r[ro], ro);
  else bad = judge(in, en, ty, &r, front, &rf->r[ro], rf->front[ro], ro);
  free(front);
  return bad;
}

/* One family: every algorithm on each instance of the grid. 1 on a mismatch. */
static int run_family(int fam, const options *o, const entry *ents, int nent, tally *tal,
                      const fupermod_partitioner *dp) {
  dead_cases dead[64]; /* per entry */
  int bad = 0;
  memset(dead, 0, sizeof dead);
  printf("\n## %s\n", families[fam]);
  printf("%-18s %3s %5s %6s %9s %9s %8s %-16s %9s %8s %-30s %8s %s\n", "algorithm", "p", "m", "D", "time_s", "cpu_s",
         "mem_MB", "ref", "ref_s", "x_ref", "objective", "obj/ref", "note");
  for (int mi = 0; mi < o->nm; mi++)
    for (int pi = 0; pi < o->np; pi++) {
      instance in;
      refs rf;
      memset(&rf, 0, sizeof rf);
      make_instance(&in, fam, o->plist[pi], o->mlist[mi], o->dmult, o->dpp);
      for (int k = 0; k < nent; k++) bad |= run_entry(&in, &ents[k], &tal[k], &dead[k], &rf, o->budget, dp);
      for (int k = 0; k < 4; k++) free(rf.front[k]);
      free_instance(&in);
    }
  return bad;
}

static void print_summary(tally *tal, int nent) {
  printf("\n## summary: time against the exact reference (x_ref over the cases that ran)\n");
  printf("%-18s %5s %8s %8s %8s %10s %10s %10s %12s %s\n", "algorithm", "runs", "timeout", "skipped", "refused",
         "x_ref_min", "x_ref_med", "x_ref_max", "worst_obj/ref", "note");
  for (int k = 0; k < nent; k++) {
    tally *ty = &tal[k];
    double lo = NAN, med = NAN, hi = NAN;
    if (ty->runs + ty->skipped == 0) continue; /* not applicable to the families run */
    if (ty->nr > 0) {
      qsort(ty->ratios, (size_t)ty->nr, sizeof(double), cmp_double);
      lo = ty->ratios[0];
      hi = ty->ratios[ty->nr - 1];
      med = ty->nr % 2 ? ty->ratios[ty->nr / 2] : 0.5 * (ty->ratios[ty->nr / 2 - 1] + ty->ratios[ty->nr / 2]);
    }
    printf("%-18s %5d %8d %8d %8d %10.3g %10.3g %10.3g ", ty->label, ty->runs, ty->timeouts, ty->skipped,
           ty->refused, lo, med, hi);
    if (isnan(ty->worst_obj)) printf("%12s", "-"); /* fronts: see the note */
    else printf("%12.4g", ty->worst_obj);
    if (ty->beyond) printf(" %d case(s) beyond a memory cap;", ty->beyond);
    if (ty->front_miss) printf(" %d front(s) incomplete or with dominated points;", ty->front_miss);
    if (ty->mismatches) printf(" %d MISMATCH(ES)", ty->mismatches);
    printf("\n");
  }
}

int main(int argc, char **argv) {
  options o = {.plist = {4, 16, 64}, .np = 3, .mlist = {100, 1000}, .nm = 2, .budget = 10.0, .dmult = 2};
  entry ents[64];
  tally tal[64];
  char load1[128];
  const fupermod_partitioner *dp = fupermod_partitioner_find("dp");
  double t_start = now();
  int nent, bad = 0;
  if (parse_options(argc, argv, &o) != 0 || !dp) {
    usage();
    return 2;
  }
  nent = make_entries(o.algsel, o.no_faithful, ents);
  init_tallies(ents, nent, tal);
  if (o.dump) return dump_all(&o);
  print_header(&o);
  for (int fam = 0; fam < NFAM; fam++)
    if (family_selected(o.famsel, fam)) bad |= run_family(fam, &o, ents, nent, tal, dp);
  print_summary(tal, nent);
  loadavg(load1, sizeof load1);
  printf("# load average at end: %s; wall %.1fs\n", load1, now() - t_start);
  if (bad) printf("# MISMATCH: some algorithm disagreed with the exact reference (see above)\n");
  return bad ? 1 : 0;
}
