/* Out-of-card GEMM: the slice choice (HCLOOC Partitioner) and the stream schedule (Stream
 * Engine), pure CPU logic shared by the CUDA executor and the tests. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "kernels/ooc/ooc.h"

static long cdiv(long a, long b) { return (a + b - 1) / b; }

/* Products stay below 2^62 or the answer is -1. */
static long mul(long a, long b) {
  if (a < 0 || b < 0) return -1;
  if (a != 0 && b > (1L << 62) / a) return -1;
  return a * b;
}

static long add(long a, long b) { return a < 0 || b < 0 || a > (1L << 62) - b ? -1 : a + b; }

long fupermod_ooc_elements(long M, long N, long K, long h, long v, int in_card) {
  long mh, nv;
  if (M < 1 || N < 1 || K < 1 || h < 1 || v < 1 || h > M || v > N) return -1;
  if (in_card) return add(add(mul(M, K), mul(K, N)), mul(M, N));
  mh = cdiv(M, h);
  nv = cdiv(N, v);
  return add(add(mul(2 * mh, K), mul(K, nv)), mul(2 * mh, nv));
}

static void fill(fupermod_ooc_plan *p, long M, long N, long K, long h, long v, int in_card) {
  p->M = M;
  p->N = N;
  p->K = K;
  p->h = h;
  p->v = v;
  p->mh = cdiv(M, h);
  p->nv = cdiv(N, v);
  p->in_card = in_card;
  p->elements = fupermod_ooc_elements(M, N, K, h, v, in_card);
}

static int check_args(long M, long N, long K, long mem, fupermod_ooc_plan *plan) {
  if (!plan) return fupermod_error(FUPERMOD_ERR_USAGE, "ooc plan: NULL result");
  memset(plan, 0, sizeof *plan);
  if (M < 1 || N < 1 || K < 1 || mem < 1)
    return fupermod_error(FUPERMOD_ERR_USAGE, "ooc plan: M=%ld N=%ld K=%ld mem=%ld (all must be >= 1)", M, N, K, mem);
  if (fupermod_ooc_elements(M, N, K, 1, 1, 1) < 0)
    return fupermod_error(FUPERMOD_ERR_USAGE, "ooc plan: M=%ld N=%ld K=%ld overflows", M, N, K);
  return FUPERMOD_SUCCESS;
}

int fupermod_ooc_plan_make(long M, long N, long K, long mem, fupermod_ooc_plan *plan) {
  int rc = check_args(M, N, K, mem, plan);
  const long hmin = M < 2 ? M : 2;
  if (rc) return rc;
  if (fupermod_ooc_elements(M, N, K, 1, 1, 1) <= mem) {
    fill(plan, M, N, K, 1, 1, 1);
    return FUPERMOD_SUCCESS;
  }
  /* memory only falls as v grows, so the first v that fits is the fewest; for it, the largest
   * slice height r that fits gives the fewest A slices h = ceil(M / r) */
  for (long v = 1; v <= N; v++) {
    long nv = cdiv(N, v), rest = mem - K * nv, r, h;
    if (v > 1 && nv == cdiv(N, v - 1)) continue; /* same widths as v - 1, which did not fit */
    if (rest < 0) continue;
    r = rest / (2 * K + 2 * nv);
    if (r < 1) continue;
    h = cdiv(M, r);
    if (h < hmin) h = hmin;
    fill(plan, M, N, K, h, v, 0);
    return FUPERMOD_SUCCESS;
  }
  return fupermod_error(FUPERMOD_ERR_INFEASIBLE,
                        "ooc plan: %ld elements of device memory cannot hold one row of A, one column of B and C "
                        "(M=%ld N=%ld K=%ld need at least %ld)",
                        mem, M, N, K, fupermod_ooc_elements(M, N, K, M, N, 0));
}

/* Eq. 6.2 with real M/h, rounded up; <= 0 when h cannot work. */
static long printed_v(long M, long N, long K, long mem, long h) {
  double den = (double)mem * (double)h - 2.0 * (double)M * (double)K;
  if (den <= 0) return -1;
  return (long)ceil((2.0 * (double)M * (double)N + (double)N * (double)K * (double)h) / den);
}

int fupermod_ooc_plan_printed(long M, long N, long K, long mem, fupermod_ooc_plan *plan) {
  int rc = check_args(M, N, K, mem, plan);
  long h = 2, v;
  if (rc) return rc;
  if (fupermod_ooc_elements(M, N, K, 1, 1, 1) <= mem) {
    fill(plan, M, N, K, 1, 1, 1);
    return FUPERMOD_SUCCESS;
  }
  v = printed_v(M, N, K, mem, h);
  for (long ht = 3; ht <= M && (v <= 0 || v > 1); ht++) {
    long vt = printed_v(M, N, K, mem, ht);
    if (vt > 0 && (v <= 0 || (vt < v && h * v >= ht * vt))) {
      h = ht;
      v = vt;
    }
  }
  if (v <= 0 || v > N || h > M)
    return fupermod_error(FUPERMOD_ERR_INFEASIBLE, "ooc plan (printed Alg. 9): no split for M=%ld N=%ld K=%ld mem=%ld",
                          M, N, K, mem);
  fill(plan, M, N, K, h, v, 0);
  return FUPERMOD_SUCCESS;
}

void fupermod_ooc_slice(long n, long parts, long k, long *start, long *len) {
  long q = n / parts, r = n % parts;
  *start = k * q + (k < r ? k : r);
  *len = q + (k < r ? 1 : 0);
}

/* ---- schedule ---- */

enum { EV_GEMM0 = 0, EV_GEMM1 = 1, EV_B = 2 };

static int push(fupermod_ooc_schedule *s, int *cap, int code, int stream, int buf, int event, long i, long j) {
  if (s->count == *cap) {
    int nc = *cap ? 2 * *cap : 64;
    fupermod_ooc_op *n = realloc(s->ops, (size_t)nc * sizeof *n);
    if (!n) return fupermod_error(FUPERMOD_ERR_NOMEM, "ooc schedule: out of memory");
    s->ops = n;
    *cap = nc;
  }
  s->ops[s->count++] = (fupermod_ooc_op){code, stream, buf, event, i, j};
  return FUPERMOD_SUCCESS;
}

void fupermod_ooc_schedule_free(fupermod_ooc_schedule *s) {
  if (!s) return;
  free(s->ops);
  memset(s, 0, sizeof *s);
}

int fupermod_ooc_schedule_make(const fupermod_ooc_plan *plan, int load_c, fupermod_ooc_schedule *s) {
  int rc = FUPERMOD_SUCCESS, cap = 0;
  long held[2] = {-1, -1}, seen_b[2] = {-1, -1}, blocks;
  if (!s) return fupermod_error(FUPERMOD_ERR_USAGE, "ooc schedule: NULL result");
  memset(s, 0, sizeof *s);
  if (!plan || plan->h < 1 || plan->v < 1 || plan->h > plan->M || plan->v > plan->N)
    return fupermod_error(FUPERMOD_ERR_USAGE, "ooc schedule: invalid plan");
  if (plan->h > (1L << 20) || plan->v > (1L << 20) || plan->h * plan->v > (1L << 24))
    return fupermod_error(FUPERMOD_ERR_USAGE, "ooc schedule: %ld x %ld blocks is too many", plan->h, plan->v);
  if (plan->in_card) {
    s->streams = 1;
    if ((rc = push(s, &cap, FUPERMOD_OOC_UPLOAD_A, 0, 0, -1, 0, 0)) || (rc = push(s, &cap, FUPERMOD_OOC_UPLOAD_B, 0, 0, -1, 0, 0)) ||
        (load_c && (rc = push(s, &cap, FUPERMOD_OOC_UPLOAD_C, 0, 0, -1, 0, 0))) ||
        (rc = push(s, &cap, FUPERMOD_OOC_GEMM, 0, 0, -1, 0, 0)) || (rc = push(s, &cap, FUPERMOD_OOC_DOWNLOAD_C, 0, 0, -1, 0, 0)))
      fupermod_ooc_schedule_free(s);
    return rc;
  }
  s->streams = 2;
  s->events = 3;
  blocks = plan->h * plan->v;
  for (long idx = 0; idx < blocks && rc == FUPERMOD_SUCCESS; idx++) {
    const long i = idx % plan->h, j = idx / plan->h;
    const int set = (int)(idx % 2), st = set;
    /* same stream as the buffers' last use, so stream order protects dA[set] and dC[set] */
    if (held[set] != i) {
      rc = push(s, &cap, FUPERMOD_OOC_UPLOAD_A, st, set, -1, i, j);
      held[set] = i;
    }
    if (rc == FUPERMOD_SUCCESS && load_c) rc = push(s, &cap, FUPERMOD_OOC_UPLOAD_C, st, set, -1, i, j);
    if (rc == FUPERMOD_SUCCESS && i == 0) {
      /* one dB: column j may replace column j-1 only after the other stream's last GEMM (this
       * stream's are before it in order), and the other stream must wait for the upload */
      if (idx > 0) rc = push(s, &cap, FUPERMOD_OOC_WAIT, st, -1, set ? EV_GEMM0 : EV_GEMM1, i, j);
      if (rc == FUPERMOD_SUCCESS) rc = push(s, &cap, FUPERMOD_OOC_UPLOAD_B, st, -1, -1, i, j);
      if (rc == FUPERMOD_SUCCESS) rc = push(s, &cap, FUPERMOD_OOC_RECORD, st, -1, EV_B, i, j);
      seen_b[st] = j;
    } else if (rc == FUPERMOD_SUCCESS && seen_b[st] != j) {
      rc = push(s, &cap, FUPERMOD_OOC_WAIT, st, -1, EV_B, i, j);
      seen_b[st] = j;
    }
    if (rc == FUPERMOD_SUCCESS) rc = push(s, &cap, FUPERMOD_OOC_GEMM, st, set, -1, i, j);
    if (rc == FUPERMOD_SUCCESS) rc = push(s, &cap, FUPERMOD_OOC_RECORD, st, -1, set ? EV_GEMM1 : EV_GEMM0, i, j);
    if (rc == FUPERMOD_SUCCESS) rc = push(s, &cap, FUPERMOD_OOC_DOWNLOAD_C, st, set, -1, i, j);
  }
  if (rc != FUPERMOD_SUCCESS) fupermod_ooc_schedule_free(s);
  return rc;
}
