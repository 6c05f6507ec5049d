/* Out-of-card GEMM: the slice choice (always fits, fewest B slices, then fewest blocks; the
 * thesis's 4 x 8 x 4 example), the stream schedule run on a host emulation of two CUDA streams
 * with a race detector (random legal interleavings, exact results), and, with a GPU, the CUDA
 * executor against a CPU GEMM with small forced memory limits. Without a device the GPU part is
 * skipped after checking that it reports "no CUDA device", and the executor module's loading is
 * checked with a stand-in device count (tests/fake_cudart.c); tests/standin_ooc.sh runs the GPU
 * part on the stand-in CUDA (tests/fake_cuda). */
#include "config.h"
#include <dlfcn.h>
#include <unistd.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include "tests/tap.h"
#include "tests/standin_check.h"
#include "kernels/ooc/ooc.h"

static uint64_t rng = 0x9E3779B97F4A7C15ULL;
static uint64_t next(void) {
  rng ^= rng >> 12;
  rng ^= rng << 25;
  rng ^= rng >> 27;
  return rng * 2685821657736338717ULL;
}
static long rint_(long lo, long hi) { return lo + (long)(next() % (uint64_t)(hi - lo + 1)); }
static long lmin(long a, long b) { return a < b ? a : b; }
static long lmax(long a, long b) { return a > b ? a : b; }

/* ---------------------------------------------------------------- plan */

static int fits(long M, long N, long K, long h, long v, long mem) {
  long e = fupermod_ooc_elements(M, N, K, h, v, 0);
  return e >= 0 && e <= mem;
}

/* Largest slice of the spread really used, so the check does not trust mh / nv. */
static long largest(long n, long parts) {
  long best = 0, s, l;
  for (long k = 0; k < parts; k++) {
    fupermod_ooc_slice(n, parts, k, &s, &l);
    if (l > best) best = l;
  }
  return best;
}

static void plan_tests(void) {
  fupermod_ooc_plan p, q;
  long bad = 0, runs = 0, infeasible = 0, incard = 0, split = 0, slices_bad = 0;
  int rc = fupermod_ooc_plan_make(4, 4, 8, 44, &p);
  ok(rc == FUPERMOD_SUCCESS && !p.in_card && p.h == 4 && p.v == 2 && p.elements == 36,
     "thesis example M=4 N=4 K=8, 44 elements: h=%ld v=%ld using %ld elements (expect 4, 2, 36)", p.h, p.v, p.elements);
  rc = fupermod_ooc_plan_printed(4, 4, 8, 44, &q);
  ok(rc == FUPERMOD_SUCCESS && q.h == 3 && q.v == 2 && q.elements == 56 && q.elements > 44,
     "Alg. 9 as printed picks h=%ld v=%ld, which needs %ld > 44 elements (the spec's trap)", q.h, q.v, q.elements);
  rc = fupermod_ooc_plan_make(4, 4, 8, 80, &p);
  ok(rc == FUPERMOD_SUCCESS && p.in_card && p.h == 1 && p.v == 1 && p.elements == 80, "80 elements: in card");
  rc = fupermod_ooc_plan_make(4, 4, 8, 25, &p);
  ok(rc == FUPERMOD_ERR_INFEASIBLE && fupermod_ooc_elements(4, 4, 8, 4, 4, 0) == 26,
     "25 elements cannot hold a row of A, a column of B and C twice (26): infeasible (%s)", fupermod_error_message());
  ok(fupermod_ooc_plan_make(0, 4, 8, 100, &p) == FUPERMOD_ERR_USAGE, "M = 0 refused");

  for (int it = 0; it < 4000; it++) {
    long M = rint_(1, it % 4 ? 30 : 3), N = rint_(1, 30), K = rint_(1, it % 7 ? 30 : 300);
    long lo = fupermod_ooc_elements(M, N, K, M, N, 0), hi = fupermod_ooc_elements(M, N, K, 1, 1, 1), mem;
    mem = rint_(lmax(1, lmin(lo, hi) - 3), lmax(lo, hi) + 3);
    runs++;
    rc = fupermod_ooc_plan_make(M, N, K, mem, &p);
    if (rc == FUPERMOD_ERR_INFEASIBLE) {
      infeasible++;
      if (fits(M, N, K, M, N, mem)) bad++; /* the smallest split fits, so it was feasible */
      continue;
    }
    if (rc != FUPERMOD_SUCCESS) {
      bad++;
      continue;
    }
    if (p.in_card) {
      incard++;
      if (hi > mem) bad++;
      continue;
    }
    split++;
    /* in card was possible but not taken */
    if (hi <= mem) bad++;
    /* it fits, with the slices the spread really makes */
    if (2 * largest(M, p.h) * K + K * largest(N, p.v) + 2 * largest(M, p.h) * largest(N, p.v) > mem ||
        p.elements > mem || p.mh != largest(M, p.h) || p.nv != largest(N, p.v))
      bad++;
    /* no fewer B slices fit with any A split at all, h = 1 included */
    for (long v = 1; v < p.v; v++)
      for (long h = 1; h <= M; h++)
        if (fits(M, N, K, h, v, mem)) bad++;
    /* with this v, no fewer A slices (h >= 2 unless M = 1) */
    for (long h = M < 2 ? 1 : 2; h < p.h; h++)
      if (fits(M, N, K, h, p.v, mem)) bad++;
    if (p.h < (M < 2 ? 1 : 2)) bad++;
  }
  ok(bad == 0 && split > 1000 && infeasible > 10 && incard > 10,
     "%ld random M, N, K, memory sizes: every split fits (integer slices), v is the fewest possible, then h; in card "
     "exactly when all fits (%ld split, %ld in card, %ld infeasible, %ld bad)",
     runs, split, incard, infeasible, bad);

  for (int it = 0; it < 2000; it++) {
    long n = rint_(1, 200), parts = rint_(1, n), next_start = 0, mx = 0, mn = n + 1;
    for (long k = 0; k < parts; k++) {
      long s, l;
      fupermod_ooc_slice(n, parts, k, &s, &l);
      if (s != next_start) slices_bad++;
      next_start = s + l;
      if (l > mx) mx = l;
      if (l < mn) mn = l;
    }
    if (next_start != n || mx - mn > 1 || mx != (n + parts - 1) / parts) slices_bad++;
  }
  ok(slices_bad == 0, "slices tile 0..n-1 in order, lengths differ by at most 1, the largest is ceil(n/parts)");
}

/* ---------------------------------------------------------------- host emulation of the streams */

enum { BA0, BA1, BB, BC0, BC1, NBUF };

typedef struct {
  long wstamp[2];   /* last write: per stream, its clock (0: none) */
  long rstamp[2];   /* reads since: per stream, latest clock */
} access_t;

typedef struct {
  const fupermod_ooc_plan *pl;
  long M, N, K, lda, ldb, ldc;
  const double *A, *B;
  double *C, alpha, beta;
  double *buf[NBUF];
  long ld[NBUF];
  int load_c;
  long races;
} emu_t;

/* A conflicting earlier access by the other stream must be ordered before this one. */
static void touch(emu_t *e, access_t *a, int s, const long vc[2], int write) {
  int o = 1 - s;
  if (a->wstamp[o] > vc[o]) e->races++;              /* after an unordered write */
  if (write && a->rstamp[o] > vc[o]) e->races++;     /* a write after an unordered read */
  if (write) {
    a->wstamp[s] = vc[s];
    a->wstamp[o] = a->wstamp[o] > vc[o] ? a->wstamp[o] : 0; /* keep what is still unordered */
    a->rstamp[0] = a->rstamp[1] = 0;
  } else if (vc[s] > a->rstamp[s])
    a->rstamp[s] = vc[s];
}

static void run_op(emu_t *e, const fupermod_ooc_op *op) {
  const fupermod_ooc_plan *pl = e->pl;
  long r0 = 0, mr = e->M, c0 = 0, nc = e->N;
  if (!pl->in_card) {
    fupermod_ooc_slice(e->M, pl->h, op->i, &r0, &mr);
    fupermod_ooc_slice(e->N, pl->v, op->j, &c0, &nc);
  }
  /* operations on B alone have no A/C buffer set (buf = -1) */
  double *dA = op->buf >= 0 ? e->buf[BA0 + op->buf] : NULL, *dC = op->buf >= 0 ? e->buf[BC0 + op->buf] : NULL;
  double *dB = e->buf[BB];
  const long la = e->ld[BA0], lc = e->ld[BC0];
  switch (op->code) {
  case FUPERMOD_OOC_UPLOAD_A:
    for (long p = 0; p < e->K; p++)
      for (long r = 0; r < mr; r++) dA[r + p * la] = e->A[r0 + r + p * e->lda];
    break;
  case FUPERMOD_OOC_UPLOAD_B:
    for (long c = 0; c < nc; c++)
      for (long p = 0; p < e->K; p++) dB[p + c * e->K] = e->B[p + (c0 + c) * e->ldb];
    break;
  case FUPERMOD_OOC_UPLOAD_C:
    for (long c = 0; c < nc; c++)
      for (long r = 0; r < mr; r++) dC[r + c * lc] = e->C[r0 + r + (c0 + c) * e->ldc];
    break;
  case FUPERMOD_OOC_GEMM:
    for (long c = 0; c < nc; c++)
      for (long r = 0; r < mr; r++) {
        double s = 0.0;
        for (long p = 0; p < e->K; p++) s += dA[r + p * la] * dB[p + c * e->K];
        /* beta = 0 without an upload must not read C (it may hold NaN) */
        dC[r + c * lc] = e->alpha * s + (e->load_c ? e->beta * dC[r + c * lc] : 0.0);
      }
    break;
  case FUPERMOD_OOC_DOWNLOAD_C:
    for (long c = 0; c < nc; c++)
      for (long r = 0; r < mr; r++) e->C[r0 + r + (c0 + c) * e->ldc] = dC[r + c * lc];
    break;
  }
}

/* Run the schedule with the two streams interleaved at random (seed) as far as their order and
 * the events allow; vector clocks flag any unordered conflicting buffer accesses. Returns -1 on
 * deadlock. */
static int emulate(emu_t *e, const fupermod_ooc_schedule *s, int shuffle) {
  int n = s->count, pos[2] = {0, 0}, *list[2], cnt[2] = {0, 0}, *target, done = 0;
  char *executed = calloc((size_t)n, 1);
  long vc[2][2] = {{0, 0}, {0, 0}}, (*rec)[2] = calloc((size_t)n, sizeof *rec);
  access_t acc[NBUF];
  memset(acc, 0, sizeof acc);
  list[0] = malloc((size_t)n * sizeof(int));
  list[1] = malloc((size_t)n * sizeof(int));
  target = malloc((size_t)n * sizeof(int));
  for (int k = 0; k < n; k++) {
    list[s->ops[k].stream][cnt[s->ops[k].stream]++] = k;
    target[k] = -1;
    if (s->ops[k].code == FUPERMOD_OOC_WAIT)
      for (int r = k - 1; r >= 0; r--)
        if (s->ops[r].code == FUPERMOD_OOC_RECORD && s->ops[r].event == s->ops[k].event) {
          target[k] = r;
          break;
        }
  }
  while (done < n) {
    int ready[2], nr = 0, st;
    for (int t = 0; t < 2; t++)
      if (pos[t] < cnt[t]) {
        int k = list[t][pos[t]];
        if (s->ops[k].code != FUPERMOD_OOC_WAIT || target[k] < 0 || executed[target[k]]) ready[nr++] = t;
      }
    if (nr == 0) break;
    st = shuffle ? ready[next() % (uint64_t)nr] : ready[0];
    int k = list[st][pos[st]++];
    const fupermod_ooc_op *op = &s->ops[k];
    vc[st][st]++;
    switch (op->code) {
    case FUPERMOD_OOC_RECORD:
      rec[k][0] = vc[st][0];
      rec[k][1] = vc[st][1];
      break;
    case FUPERMOD_OOC_WAIT:
      if (target[k] >= 0)
        for (int t = 0; t < 2; t++)
          if (rec[target[k]][t] > vc[st][t]) vc[st][t] = rec[target[k]][t];
      break;
    case FUPERMOD_OOC_UPLOAD_A:
      touch(e, &acc[BA0 + op->buf], st, vc[st], 1);
      break;
    case FUPERMOD_OOC_UPLOAD_B:
      touch(e, &acc[BB], st, vc[st], 1);
      break;
    case FUPERMOD_OOC_UPLOAD_C:
      touch(e, &acc[BC0 + op->buf], st, vc[st], 1);
      break;
    case FUPERMOD_OOC_GEMM:
      touch(e, &acc[BA0 + op->buf], st, vc[st], 0);
      touch(e, &acc[BB], st, vc[st], 0);
      touch(e, &acc[BC0 + op->buf], st, vc[st], 1);
      break;
    case FUPERMOD_OOC_DOWNLOAD_C:
      touch(e, &acc[BC0 + op->buf], st, vc[st], 0);
      break;
    }
    run_op(e, op);
    executed[k] = 1;
    done++;
  }
  free(executed), free(rec), free(list[0]), free(list[1]), free(target);
  return done == n ? 0 : -1;
}

static double ival(void) { return (double)rint_(-4, 4); }

/* One random GEMM through the emulated engine; exact with small integers. */
static int schedule_case(long M, long N, long K, long mem, int drop_waits, long *races, int *counts_ok,
                         fupermod_ooc_plan *pl_out) {
  fupermod_ooc_plan pl;
  fupermod_ooc_schedule s;
  emu_t e;
  long lda = M + rint_(0, 3), ldb = K + rint_(0, 3), ldc = M + rint_(0, 3), nbad = 0;
  double *A, *B, *C, *ref;
  int rc;
  if (fupermod_ooc_plan_make(M, N, K, mem, &pl) != FUPERMOD_SUCCESS) return -2;
  if (pl_out) *pl_out = pl;
  memset(&e, 0, sizeof e);
  e.alpha = (double)rint_(-2, 2);
  e.beta = next() % 3 == 0 ? 0.0 : (double)rint_(-2, 2);
  e.load_c = e.beta != 0.0;
  if ((rc = fupermod_ooc_schedule_make(&pl, e.load_c, &s)) != FUPERMOD_SUCCESS) return -3;
  {
    long na = 0, nb = 0, nc = 0, nd = 0, ng = 0;
    for (int k = 0; k < s.count; k++) {
      na += s.ops[k].code == FUPERMOD_OOC_UPLOAD_A;
      nb += s.ops[k].code == FUPERMOD_OOC_UPLOAD_B;
      nc += s.ops[k].code == FUPERMOD_OOC_UPLOAD_C;
      nd += s.ops[k].code == FUPERMOD_OOC_DOWNLOAD_C;
      ng += s.ops[k].code == FUPERMOD_OOC_GEMM;
    }
    /* B streamed once, C in (when needed) and out once per block, A at most once per block */
    *counts_ok = nb == pl.v && ng == pl.h * pl.v && nd == pl.h * pl.v && nc == (e.load_c ? pl.h * pl.v : 0) &&
                 na <= pl.h * pl.v && na >= pl.h;
  }
  if (drop_waits) {
    int w = 0;
    for (int k = 0; k < s.count; k++)
      if (s.ops[k].code != FUPERMOD_OOC_WAIT) s.ops[w++] = s.ops[k];
    s.count = w;
  }
  A = malloc((size_t)(lda * K) * sizeof *A);
  B = malloc((size_t)(ldb * N) * sizeof *B);
  C = malloc((size_t)(ldc * N) * sizeof *C);
  ref = malloc((size_t)(ldc * N) * sizeof *ref);
  for (long k = 0; k < lda * K; k++) A[k] = ival();
  for (long k = 0; k < ldb * N; k++) B[k] = ival();
  for (long k = 0; k < ldc * N; k++) C[k] = e.load_c ? ival() : NAN;
  for (long j = 0; j < N; j++)
    for (long i = 0; i < ldc; i++) {
      double acc = 0.0;
      if (i >= M) {
        ref[i + j * ldc] = C[i + j * ldc];
        continue;
      }
      for (long p = 0; p < K; p++) acc += A[i + p * lda] * B[p + j * ldb];
      ref[i + j * ldc] = e.alpha * acc + (e.load_c ? e.beta * C[i + j * ldc] : 0.0);
    }
  e.pl = &pl;
  e.M = M, e.N = N, e.K = K, e.lda = lda, e.ldb = ldb, e.ldc = ldc;
  e.A = A, e.B = B, e.C = C;
  e.ld[BA0] = e.ld[BA1] = pl.mh;
  e.ld[BC0] = e.ld[BC1] = pl.mh;
  /* zeroed: a broken schedule (the negative control) reads buffers before their upload */
  e.buf[BA0] = calloc((size_t)(pl.mh * K), sizeof(double));
  e.buf[BA1] = calloc((size_t)(pl.mh * K), sizeof(double));
  e.buf[BB] = calloc((size_t)(K * pl.nv), sizeof(double));
  e.buf[BC0] = calloc((size_t)(pl.mh * pl.nv), sizeof(double));
  e.buf[BC1] = calloc((size_t)(pl.mh * pl.nv), sizeof(double));
  rc = emulate(&e, &s, 1);
  for (long k = 0; k < ldc * N; k++)
    if (!(C[k] == ref[k]) && !(isnan(C[k]) && isnan(ref[k]))) nbad++;
  *races = e.races;
  for (int b = 0; b < NBUF; b++) free(e.buf[b]);
  free(A), free(B), free(C), free(ref);
  fupermod_ooc_schedule_free(&s);
  if (rc != 0) return -1;
  return nbad ? 1 : 0;
}

static void schedule_tests(void) {
  long runs = 0, wrong = 0, races_total = 0, deadlocks = 0, counts_bad = 0, split = 0, many = 0;
  long caught = 0, tried = 0;
  for (int it = 0; it < 1500; it++) {
    long M = rint_(1, 14), N = rint_(1, 14), K = rint_(1, 10), races = 0;
    long lo = fupermod_ooc_elements(M, N, K, M, N, 0), hi = fupermod_ooc_elements(M, N, K, 1, 1, 1);
    long mem = rint_(lmin(lo, hi), it % 10 ? lmax(lo, (lo + hi) / 2) : hi + 5);
    int counts_ok = 0;
    fupermod_ooc_plan pl;
    int r = schedule_case(M, N, K, mem, 0, &races, &counts_ok, &pl);
    runs++;
    if (r == -1) deadlocks++;
    else if (r != 0) wrong++;
    races_total += races;
    counts_bad += !counts_ok;
    split += !pl.in_card;
    many += pl.h * pl.v >= 6;
  }
  ok(wrong == 0 && deadlocks == 0 && races_total == 0 && counts_bad == 0 && split > 1000 && many > 300,
     "%ld random GEMMs through the two-stream schedule, streams interleaved at random: exact results, no race on any "
     "device buffer, no deadlock, B uploaded v times, C in/out once per block (%ld split, %ld with >= 6 blocks; wrong "
     "%ld, races %ld, deadlocks %ld, counts %ld)",
     runs, split, many, wrong, races_total, deadlocks, counts_bad);
  /* negative control: without the event waits the detector must see the dB hazard */
  for (int it = 0; it < 200; it++) {
    long M = rint_(2, 10), N = rint_(3, 10), K = rint_(1, 6), races = 0;
    long lo = fupermod_ooc_elements(M, N, K, M, N, 0);
    int counts_ok;
    fupermod_ooc_plan pl;
    /* the smallest memory: one column of B per slice, so several dB reloads */
    if (schedule_case(M, N, K, lo, 1, &races, &counts_ok, &pl) < -1) continue;
    tried++;
    caught += races > 0;
  }
  ok(tried > 100 && caught == tried, "the race detector flags every schedule with its event waits removed (%ld of %ld)",
     caught, tried);
}

/* ---------------------------------------------------------------- GPU */

static void gpu_tests(void) {
  fupermod_ooc *ctx = NULL;
  fupermod_ooc_opts o = {0, 0.0, 0, 0};
  int rc = fupermod_ooc_create(&o, &ctx);
  int devices = fupermod_cuda_device_count();
  if (devices == 0) {
    ok(rc == FUPERMOD_ERR_NODEVICE && ctx == NULL && strstr(fupermod_error_message(), "no CUDA device"),
       "without a device the executor reports it: %s", fupermod_error_message());
    ok(fupermod_ooc_dgemm(NULL, 2, 2, 2, 1.0, (double[4]){0}, 2, (double[4]){0}, 2, 0.0, (double[4]){0}, 2, NULL) ==
           FUPERMOD_ERR_USAGE,
       "a GEMM without a context is a usage error");
    skip("no CUDA device: out-of-card DGEMM against a CPU GEMM (random shapes, forced memory limits)");
    skip("no CUDA device: synchronous (one operation at a time) mode gives the same result");
    return;
  }
  ok(rc == FUPERMOD_SUCCESS, "CUDA context on device 0 (%d devices)", devices);
  if (rc != FUPERMOD_SUCCESS) return;
  fupermod_ooc_destroy(ctx);
  long bad = 0, runs = 0, split = 0;
  double worst = 0.0;
  for (int sync = 0; sync < 2; sync++) {
    for (int it = 0; it < 40; it++) {
      long M = rint_(1, 300), N = rint_(1, 300), K = rint_(1, 200);
      long lda = M + rint_(0, 5), ldb = K + rint_(0, 5), ldc = M + rint_(0, 5);
      long lo = fupermod_ooc_elements(M, N, K, M, N, 0), hi = fupermod_ooc_elements(M, N, K, 1, 1, 1);
      long mem = it % 8 == 0 ? hi + 10 : rint_(lmin(lo, hi), lmax(lo, lo + (hi - lo) / 4));
      double alpha = 1.0 + (double)rint_(-3, 3) / 4, beta = it % 3 ? 0.5 : 0.0, *A, *B, *C, *ref, err = 0, den = 1e-300;
      fupermod_ooc_stats st;
      fupermod_ooc_opts go = {0, 8.0 * (double)mem, sync, it % 2};
      A = malloc((size_t)(lda * K) * sizeof *A);
      B = malloc((size_t)(ldb * N) * sizeof *B);
      C = malloc((size_t)(ldc * N) * sizeof *C);
      ref = malloc((size_t)(ldc * N) * sizeof *ref);
      for (long k = 0; k < lda * K; k++) A[k] = (double)(next() >> 11) / 9007199254740992.0 - 0.5;
      for (long k = 0; k < ldb * N; k++) B[k] = (double)(next() >> 11) / 9007199254740992.0 - 0.5;
      for (long k = 0; k < ldc * N; k++) C[k] = (double)(next() >> 11) / 9007199254740992.0 - 0.5;
      memcpy(ref, C, (size_t)(ldc * N) * sizeof *ref);
      for (long j = 0; j < N; j++)
        for (long i = 0; i < M; i++) {
          double s = 0;
          for (long p = 0; p < K; p++) s += A[i + p * lda] * B[p + j * ldb];
          ref[i + j * ldc] = alpha * s + beta * ref[i + j * ldc];
        }
      rc = fupermod_ooc_create(&go, &ctx);
      if (rc == FUPERMOD_SUCCESS) rc = fupermod_ooc_dgemm(ctx, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, &st);
      runs++;
      if (rc != FUPERMOD_SUCCESS) {
        if (bad++ < 3) diag("M=%ld N=%ld K=%ld mem=%ld: %s", M, N, K, mem, fupermod_error_message());
      } else {
        split += !st.plan.in_card;
        for (long k = 0; k < ldc * N; k++) {
          double d = fabs(C[k] - ref[k]);
          if (!(d <= 1e300)) d = INFINITY;
          if (d > err) err = d;
          if (fabs(ref[k]) > den) den = fabs(ref[k]);
        }
        if (!(err / den <= 1e-12)) {
          if (bad++ < 3) diag("M=%ld N=%ld K=%ld split %ld x %ld: relative error %g", M, N, K, st.plan.h, st.plan.v, err / den);
        }
        if (err / den > worst) worst = err / den;
      }
      /* C is compared first: destroying the context frees device memory, which synchronises the
       * device and would hide a missing synchronisation in the GEMM */
      fupermod_ooc_destroy(ctx);
      free(A), free(B), free(C), free(ref);
    }
    ok(bad == 0 && split > 20, "%s: %ld random GEMMs with forced memory limits (%ld out of card) equal the CPU GEMM "
       "(worst relative error %.2g)",
       sync ? "synchronous" : "two streams", runs, split, worst);
    bad = runs = split = 0;
    worst = 0;
  }
}

/* The dgemm-ooc plug-in: options checked before any device is touched, then no device or a
 * self-check and a measurement on the GPU. */
static void kernel_tests(void) {
  fupermod_kernel *k = NULL;
  int rc;
#ifndef FUPERMOD_HAVE_CUDA
  skip("dgemm-ooc kernel not built (configure found no CUDA toolkit)");
  return;
#endif
  rc = fupermod_kernel_load("dgemm-ooc", "n=-3", &k);
  ok(rc == FUPERMOD_ERR_USAGE && strstr(fupermod_error_message(), "n=-3"), "dgemm-ooc: n=-3 refused before any device "
     "is touched (%s)", fupermod_error_message());
  rc = fupermod_kernel_load("dgemm-ooc", "n=256,mem=200000", &k);
  if (fupermod_cuda_device_count() == 0) {
    ok(rc == FUPERMOD_ERR_NODEVICE && !k && strstr(fupermod_error_message(), "no CUDA device"),
       "dgemm-ooc: reports no CUDA device (%s)", fupermod_error_message());
    skip("no CUDA device: dgemm-ooc self-check and measurement");
    return;
  }
  /* run first, report after: the message's arguments must see the result */
  if (rc == FUPERMOD_SUCCESS) rc = k->ops->verify(k->ctx);
  if (ok(rc == FUPERMOD_SUCCESS, "dgemm-ooc: self-check on the GPU (%s)", rc ? fupermod_error_message() : "ok")) {
    fupermod_precision prec = {3, 20, 0.95, 0.2, 2.0, 0.0, 0};
    fupermod_point pt = FUPERMOD_POINT_INIT;
    /* 512 rows of 256 with 200 kB of device memory: many slices */
    rc = fupermod_benchmark(k, 512, &prec, MPI_COMM_SELF, &pt);
    ok(rc == FUPERMOD_SUCCESS && pt.t > 0, "dgemm-ooc: benchmark of d=512, n=256 in 200 kB: t=%.3g s, %.3g GFLOP/s", pt.t,
       pt.t > 0 ? fupermod_kernel_complexity(k, 512) / pt.t * 1e-9 : 0.0);
  }
  if (rc == FUPERMOD_SUCCESS || k) fupermod_kernel_unload(k);
}

/* Whether a mapping of this process names `what`. */
static int mapped(const char *what) {
  char line[4096];
  int found = 0;
  FILE *fp = fopen("/proc/self/maps", "r");
  while (fp && !found && fgets(line, sizeof line, fp)) found = strstr(line, what) != NULL;
  if (fp) fclose(fp);
  return found;
}

/* Distinct files of this process's mappings whose path contains `what`. */
static int mapped_files(const char *what) {
  char line[4096], seen[8][1024];
  int n = 0;
  FILE *fp = fopen("/proc/self/maps", "r");
  while (fp && fgets(line, sizeof line, fp)) {
    char *path = strchr(line, '/');
    int dup = 0;
    if (!path || !strstr(path, what)) continue;
    path[strcspn(path, "\n")] = 0;
    for (int k = 0; k < n && k < 8; k++) dup |= strcmp(seen[k], path) == 0;
    if (!dup && n < 8) snprintf(seen[n++], sizeof seen[0], "%s", path);
  }
  if (fp) fclose(fp);
  return n;
}

/* The child of module_tests: a stand-in runtime of the CUDA runtime's soname (tests/fake_cudart.c)
 * loaded first reports one device through the probe, beside which the kernel path holds no
 * executor module. 0: the error names the module; 77: skipped; else failed. */
static int no_module_child(const char *top, const char *kpath) {
  char lib[1024], dir[] = "/tmp/fupermod-ooc-XXXXXX", probe[1200], link[1200];
  fupermod_ooc *ctx = NULL;
  fupermod_ooc_opts o = {0, 0.0, 0, 0};
  int rc, good;
  if (access(FUPERMOD_KERNEL_DIR "/fupermod_exec_cuda.so", F_OK) == 0) return 77;
  snprintf(lib, sizeof lib, "%s/tests/.libs/libcudart.so.13", top ? top : ".");
  snprintf(probe, sizeof probe, "%s/fupermod_cuda_probe.so", kpath ? kpath : ".");
  if (!dlopen(lib, RTLD_NOW | RTLD_LOCAL) || !mkdtemp(dir)) return 2;
  snprintf(link, sizeof link, "%s/fupermod_cuda_probe.so", dir);
  if (symlink(probe, link) != 0) return 3;
  setenv("FAKE_CUDA_DEVICES", "1", 1);
  setenv("FUPERMOD_KERNEL_PATH", dir, 1);
  rc = fupermod_ooc_create(&o, &ctx);
  good = fupermod_cuda_device_count() == 1 && rc != FUPERMOD_SUCCESS && !ctx &&
         strstr(fupermod_error_message(), "no CUDA executor") && strstr(fupermod_error_message(), "fupermod_exec_cuda");
  printf("# with a device and no executor module: %s\n", fupermod_error_message());
  fflush(stdout); /* the child leaves by _exit */
  unlink(link);
  rmdir(dir);
  return good ? 0 : 1;
}

/* The CUDA work is the executor module's (fupermod_exec_cuda.so), loaded on the first context with
 * a device; the device count is the probe module's (fupermod_cuda_probe.so), which links the same
 * CUDA runtime and nothing else. So without a device neither cuBLAS nor the executor module is
 * mapped; with one but no executor module, the error names it (in a child: the probe keeps the
 * runtime it loaded first, and the parent's is the host's); and one process never maps two CUDA
 * runtimes. */
static void module_tests(void) {
  const char *top = getenv("top_builddir"), *kpath = getenv("FUPERMOD_KERNEL_PATH");
  fupermod_ooc *ctx = NULL;
  fupermod_ooc_opts o = {0, 0.0, 0, 0};
  int rc, status = -1;
  pid_t pid;
#ifndef FUPERMOD_HAVE_CUDA
  skip("executor module not built (configure found no CUDA toolkit)");
  return;
#endif
  fflush(stdout);
  if ((pid = fork()) == 0) _exit(no_module_child(top, kpath));
  if (pid > 0) waitpid(pid, &status, 0);
  if (pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 77)
    skip("an installed executor module is in " FUPERMOD_KERNEL_DIR);
  else
    ok(pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
       "a device but no executor module beside the probe: the error names the module (child status %d)", status);
  if (fupermod_cuda_device_count() > 0) {
    skip("a CUDA device (or the stand-in CUDA) is present here: the no-device case is not");
    return;
  }
  rc = fupermod_ooc_create(&o, &ctx);
  ok(rc == FUPERMOD_ERR_NODEVICE && !mapped("libcublas") && !mapped("fupermod_exec_cuda.so"),
     "no device: the context is refused, and neither cuBLAS nor the executor module is mapped");
  rc = fupermod_ooc_create(&o, &ctx);
  ok(rc == FUPERMOD_ERR_NODEVICE && !ctx, "a second context: the same answer (%s)", fupermod_error_message());
  ok(mapped_files("libcudart") <= 1, "one CUDA runtime mapped at most, the probe's (%d)", mapped_files("libcudart"));
}

int main(void) {
  int init = 0;
  plan_tests();
  schedule_tests();
  module_tests(); /* first: its child must not inherit a loaded probe */
  gpu_tests();
  MPI_Initialized(&init);
  if (!init) MPI_Init(NULL, NULL);
  kernel_tests();
  standin_prove("cudart cublas");
  MPI_Finalize();
  return done_testing();
}
