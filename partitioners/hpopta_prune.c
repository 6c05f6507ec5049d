/* hpopta's default mode: the exact min-max partition by a decision procedure on the makespan.
 *
 * Under a bound T, processor c may take 0 or a size of S_c(T) = {x : t_c(x) <= T}; T is feasible
 * when D lies in the sumset S_0(T) + ... + S_{p-1}(T). The sumset is a bitset per processor, kept
 * only over the workloads that can still reach D (at least D minus what the later processors can
 * hold under T, at most D); each run of consecutive usable sizes costs one shifted OR and log(run)
 * doubling steps. Where the functions are tight (ramps, steps) the windows are narrow; where they
 * are loose (random times) the sets S_c(T) are small near the optimum.
 *
 * The optimum is a point time, the least feasible one: the search starts at the capacity bound
 * (the least T whose largest usable sizes sum to D, a bisection), gallops up the times (on their
 * bit patterns, then by rank with quickselect: no sort) and bisects. The witness follows dp's tie
 * rule: walking down from the last processor, each takes the first option (idle, then increasing
 * size) that keeps the optimum F_i(rem) of what remains; when the option taken is the bottleneck
 * itself, the processors before it may do better: one test just below, then a search if so. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "partitioners/hpopta_prune.h"

typedef uint64_t word;

typedef struct {
  const fupermod_points *const *f; /* the points themselves, read in place (no copy) */
  long g;        /* granule: sizes are d / g */
  int *np;       /* per processor: its points of size <= D */
  int p;
  int *roff;     /* records of processor c: roff[c] .. roff[c+1]-1, by increasing size and time */
  long *rx;      /* a record: a size <= D faster than every larger size of its processor */
  double *rt;
  double *cand;  /* candidate makespans */
  long *A;       /* per processor: its largest size with t <= T (0: none) */
  long *lo, *hi; /* window of row c: the workloads that can still reach the load */
  long *base;    /* row c's bit 0 is workload base[c] (a multiple of 64) */
  size_t *woff;  /* row c's words start at bits + woff[c]; a zero word on each side */
  long *nw;      /* row c's word count */
  word *bits, *tmp;
  size_t cap, tcap; /* words allocated */
  double tbig; /* the largest time of a size <= D */
} pr_t;

static const word ROW0[3] = {0, 1, 0}; /* row -1: workload 0 only */

/* Size (granules) and time of point k of processor c. */
static inline long X(const pr_t *s, int c, int k) {
  const long d = s->f[c]->pts[k].d;
  return s->g == 1 ? d : d / s->g;
}
static inline double TM(const pr_t *s, int c, int k) { return s->f[c]->pts[k].t; }

/* Largest size of processor c with t <= T (0 when none): the last record with rt <= T. */
static long usable(const pr_t *s, int c, double T) {
  int lo = s->roff[c], hi = s->roff[c + 1];
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (s->rt[mid] <= T) lo = mid + 1;
    else hi = mid;
  }
  return lo > s->roff[c] ? s->rx[lo - 1] : 0;
}

/* dest (dw words, workload dbase) |= src (sw words, workload sbase) shifted up by x. */
static void or_shift(word *restrict dest, long dbase, long dw, const word *restrict src, long sbase, long sw, long x) {
  long delta = dbase - x - sbase, fd = delta >= 0 ? delta / 64 : -((-delta + 63) / 64);
  int r = (int)(delta - 64 * fd);
  long j0 = -1 - fd > 0 ? -1 - fd : 0, j1 = sw - 1 - fd < dw - 1 ? sw - 1 - fd : dw - 1;
  if (r == 0) {
    for (long j = j0 < -fd ? -fd : j0; j <= j1; j++) dest[j] |= src[j + fd];
  } else {
    for (long j = j0; j <= j1; j++) dest[j] |= (src[j + fd] >> r) | (src[j + fd + 1] << (64 - r));
  }
}

/* z |= z shifted up by k bits, in place (high words first: each reads only lower ones). */
static void smear_step(word *z, long nw, long k) {
  long w = k / 64;
  int r = (int)(k % 64);
  for (long j = nw - 1; j >= w; j--) {
    word v = z[j - w] << r;
    if (r && j - w - 1 >= 0) v |= z[j - w - 1] >> (64 - r);
    z[j] |= v;
  }
}

static int bit(const pr_t *s, int c, long w) {
  const word *row;
  long b;
  if (c < 0) return w == 0;
  b = w - s->base[c];
  if (b < 0 || b >= 64 * s->nw[c]) return 0;
  row = s->bits + s->woff[c];
  return (int)(row[b / 64] >> (b % 64) & 1);
}

/* Is load v reachable by processors 0..top with every time <= T? Fills rows 0..top.
 * 1 yes, 0 no, -1 out of memory. */
static int feasible(pr_t *s, double T, int top, long v) {
  long total = 0, pre = 0, suf;
  size_t words = 1;
  for (int c = 0; c <= top; c++) {
    s->A[c] = usable(s, c, T);
    if (s->A[c] > v) s->A[c] = v;
    total += s->A[c];
  }
  if (total < v) return 0;
  suf = total;
  for (int c = 0; c <= top; c++) {
    pre += s->A[c];
    suf -= s->A[c];
    s->lo[c] = v - suf > 0 ? v - suf : 0;
    s->hi[c] = pre < v ? pre : v;
    s->base[c] = s->lo[c] / 64 * 64;
    s->nw[c] = s->hi[c] / 64 - s->lo[c] / 64 + 1;
    s->woff[c] = words;
    words += (size_t)s->nw[c] + 1;
  }
  if (words > s->cap) {
    word *grown = realloc(s->bits, words * sizeof *grown);
    if (!grown) return -1;
    s->bits = grown;
    s->cap = words;
  }
  s->bits[0] = 0;
  for (int c = 0; c <= top; c++) {
    const word *src = c ? s->bits + s->woff[c - 1] : ROW0 + 1;
    const long sbase = c ? s->base[c - 1] : 0, sw = c ? s->nw[c - 1] : 1;
    const long slo = c ? s->lo[c - 1] : 0, shi = c ? s->hi[c - 1] : 0;
    const long xa = s->lo[c] - shi > 1 ? s->lo[c] - shi : 1, xb = s->hi[c] - slo < s->A[c] ? s->hi[c] - slo : s->A[c];
    word *row = s->bits + s->woff[c], any = 0;
    int k = 0, end = s->np[c];
    memset(row, 0, (size_t)(s->nw[c] + 1) * sizeof *row);
    or_shift(row, s->base[c], s->nw[c], src, sbase, sw, 0); /* idle */
    { /* first point with x >= xa */
      int l = k, h = end;
      while (l < h) {
        int mid = l + (h - l) / 2;
        if (X(s, c, mid) < xa) l = mid + 1;
        else h = mid;
      }
      k = l;
    }
    while (k < end && X(s, c, k) <= xb) {
      long a, b;
      if (!(TM(s, c, k) <= T)) {
        k++;
        continue;
      }
      a = b = X(s, c, k++);
      while (k < end && X(s, c, k) == b + 1 && b + 1 <= xb && TM(s, c, k) <= T) b = X(s, c, k++);
      if (b - a < 3) {
        for (long x = a; x <= b; x++) or_shift(row, s->base[c], s->nw[c], src, sbase, sw, x);
      } else { /* the OR of the shifts by a..b: shift by a, then double the run; tmp starts ext
                * words below the row, where bits that the run carries into the row come from */
        long len = b - a + 1, span = 1, ext = (len + 62) / 64, tw = s->nw[c] + ext;
        if ((size_t)tw > s->tcap) {
          word *grown = realloc(s->tmp, (size_t)tw * sizeof *grown);
          if (!grown) return -1;
          s->tmp = grown;
          s->tcap = (size_t)tw;
        }
        memset(s->tmp, 0, (size_t)tw * sizeof *s->tmp);
        or_shift(s->tmp, s->base[c] - 64 * ext, tw, src, sbase, sw, a);
        for (; 2 * span <= len; span *= 2) smear_step(s->tmp, tw, span);
        if (span < len) smear_step(s->tmp, tw, len - span);
        for (long j = 0; j < s->nw[c]; j++) row[j] |= s->tmp[j + ext];
      }
    }
    for (long j = 0; j < s->nw[c]; j++) any |= row[j];
    if (!any) return 0; /* nothing can reach v any more */
  }
  return bit(s, top, v);
}

/* Place the k-th smallest of a[l..r] at a[k] (smaller ones before it, larger after). */
static void select_k(double *a, long l, long r, long k) {
  while (l < r) {
    double piv = a[l + (r - l) / 2];
    long i = l, j = r;
    while (i <= j) {
      while (a[i] < piv) i++;
      while (a[j] > piv) j--;
      if (i <= j) {
        double t = a[i];
        a[i++] = a[j];
        a[j--] = t;
      }
    }
    if (k <= j) r = j;
    else if (k >= i) l = i;
    else return;
  }
}

static uint64_t key(double t) {
  uint64_t u;
  memcpy(&u, &t, sizeof u);
  return u; /* times are >= 0: the bits order them */
}

static double unkey(uint64_t u) {
  double t;
  memcpy(&t, &u, sizeof t);
  return t;
}

static long capacity(const pr_t *s, int top, long v, double T) {
  long total = 0;
  for (int c = 0; c <= top && total < v; c++) total += usable(s, c, T);
  return total;
}

/* The least T <= tmax at which processors 0..top reach v (a point time of theirs), with rows
 * 0..top filled for it. 1 found, 0 none, -1 out of memory. */
static int least(pr_t *s, int top, long v, double tmax, double *T) {
  uint64_t klo = 0, khi = key(tmax < s->tbig ? tmax : s->tbig), kl, ku, step;
  long nc = 0, lo, hi, k;
  double last = -1;
  int rc;
  if (capacity(s, top, v, unkey(khi)) < v) return 0;
  /* the capacity bound: the least T whose largest usable sizes hold v (a point time) */
  while (klo < khi) {
    uint64_t mid = klo + (khi - klo) / 2;
    if (capacity(s, top, v, unkey(mid)) >= v) khi = mid;
    else klo = mid + 1;
  }
  khi = key(tmax < s->tbig ? tmax : s->tbig);
  if ((rc = feasible(s, unkey(klo), top, v)) != 0) {
    *T = unkey(klo);
    return rc;
  }
  /* gallop up in key space (steps of about 2^-12 of the range, doubling) to a feasible bound */
  step = (khi - klo) >> 12 ? (khi - klo) >> 12 : 1;
  for (kl = klo;; step *= 2) {
    ku = khi - kl > step ? kl + step : khi;
    if ((rc = feasible(s, last = unkey(ku), top, v)) < 0) return -1;
    if (rc) break;
    if (ku == khi) return 0;
    kl = ku;
  }
  /* the point times in (kl, ku]: gallop up their ranks, then bisect; rank hi (when found) is feasible */
  for (int c = 0; c <= top; c++)
    for (int q = 0; q < s->np[c] && X(s, c, q) <= v; q++)
      if (TM(s, c, q) > unkey(kl) && TM(s, c, q) <= unkey(ku)) s->cand[nc++] = TM(s, c, q);
  lo = 0;
  hi = nc; /* nc: ku itself */
  for (k = 0, step = 1; k < hi; step *= 2) {
    select_k(s->cand, lo, nc - 1, k);
    if ((rc = feasible(s, last = s->cand[k], top, v)) < 0) return -1;
    if (rc) hi = k;
    else {
      lo = k + 1;
      k = lo + (long)step - 1 < nc - 1 ? lo + (long)step - 1 : nc - 1;
      if (lo > nc - 1) break;
    }
  }
  if (hi == nc) return -2; /* ku feasible but no point time in (kl, ku] is: impossible */
  while (lo < hi) {
    long mid = lo + (hi - lo) / 2;
    select_k(s->cand, lo, hi, mid);
    if ((rc = feasible(s, last = s->cand[mid], top, v)) < 0) return -1;
    if (rc) hi = mid;
    else lo = mid + 1;
  }
  *T = s->cand[hi];
  /* rows for *T (the last test may have been another value) */
  if (last != *T && feasible(s, *T, top, v) < 0) return -1;
  return 1;
}

/* Time of size x on processor c (x > 0 and measured). */
static double time_of(const pr_t *s, int c, long x) {
  int l = 0, h = s->np[c] - 1;
  while (l < h) {
    int mid = l + (h - l) / 2;
    if (X(s, c, mid) < x) l = mid + 1;
    else h = mid;
  }
  return TM(s, c, l);
}

int fupermod_hpopta_prune(const fupermod_problem *prob, const fupermod_dtime *dt, long *d, double *value) {
  pr_t s;
  const int p = dt->p;
  int rc = FUPERMOD_SUCCESS, found;
  double T = 0;
  long rem = dt->D;
  size_t npts = 0;
  memset(&s, 0, sizeof s);
  s.f = prob->f;
  s.g = dt->g;
  s.p = p;
  *value = INFINITY;
  for (int i = 0; i < p; i++) d[i] = 0;
  if (dt->D == 0) {
    *value = 0;
    return FUPERMOD_SUCCESS;
  }
  for (int c = 0; c < p; c++) npts += prob->f[c]->count;
  s.np = malloc((size_t)p * sizeof *s.np);
  s.roff = malloc((size_t)(p + 1) * sizeof *s.roff);
  s.rx = malloc((size_t)npts * sizeof *s.rx);
  s.rt = malloc((size_t)npts * sizeof *s.rt);
  s.cand = malloc((size_t)npts * sizeof *s.cand);
  s.A = malloc((size_t)p * sizeof *s.A);
  s.lo = malloc((size_t)p * sizeof *s.lo);
  s.hi = malloc((size_t)p * sizeof *s.hi);
  s.base = malloc((size_t)p * sizeof *s.base);
  s.nw = malloc((size_t)p * sizeof *s.nw);
  s.woff = malloc((size_t)p * sizeof *s.woff);
  if (!s.np || !s.roff || !s.rx || !s.rt || !s.cand || !s.A || !s.lo || !s.hi || !s.base || !s.nw || !s.woff) goto nomem;
  s.roff[0] = 0;
  for (int c = 0; c < p; c++) { /* records from the largest size down, then reversed */
    int r = s.roff[c], top = prob->f[c]->count - 1;
    double m = INFINITY;
    while (top >= 0 && X(&s, c, top) > dt->D) top--;
    s.np[c] = top + 1;
    for (int q = top; q >= 0; q--) {
      const double t = TM(&s, c, q);
      if (t > s.tbig) s.tbig = t;
      if (t < m) {
        m = t;
        s.rx[r] = X(&s, c, q);
        s.rt[r++] = m;
      }
    }
    s.roff[c + 1] = r;
    for (int a = s.roff[c], b = r - 1; a < b; a++, b--) {
      long tx = s.rx[a];
      double tt = s.rt[a];
      s.rx[a] = s.rx[b];
      s.rt[a] = s.rt[b];
      s.rx[b] = tx;
      s.rt[b] = tt;
    }
  }
  found = least(&s, p - 1, dt->D, INFINITY, &T);
  if (found == -1) goto nomem;
  if (found < 0) goto internal;
  if (found) {
    double tau = T;
    *value = T;
    /* the witness, dp's tie rule: rows 0..i-1 hold the sumsets under tau for what remains */
    for (int i = p - 1; i >= 0 && rem > 0; i--) {
      long x = -1;
      if (bit(&s, i - 1, rem)) x = 0;
      else
        for (int q = 0; q < s.np[i] && X(&s, i, q) <= rem; q++)
          if (TM(&s, i, q) <= tau && bit(&s, i - 1, rem - X(&s, i, q))) {
            x = X(&s, i, q);
            break;
          }
      if (x < 0) goto internal; /* never: the rows say rem is reachable */
      d[i] = x;
      rem -= x;
      if (x > 0 && rem > 0 && time_of(&s, i, x) == tau) { /* the bottleneck: the rest may do better */
        double t2, below = nextafter(tau, 0.0);
        found = feasible(&s, below, i - 1, rem);
        if (found > 0) { /* they do: their optimum, below tau */
          found = least(&s, i - 1, rem, below, &t2);
          tau = t2;
        } else if (found == 0) { /* they do not (ties): the rows again for tau */
          found = feasible(&s, tau, i - 1, rem);
        }
        if (found == -1) goto nomem;
        if (found != 1) goto internal;
      }
    }
    if (rem != 0) goto internal;
  }
  goto done;
internal:
  rc = fupermod_error(FUPERMOD_ERR_NUMERIC, "hpopta: inconsistent sumsets (internal error)");
  goto done;
nomem:
  rc = fupermod_error(FUPERMOD_ERR_NOMEM, "hpopta: out of memory");
done:
  free(s.np);
  free(s.roff);
  free(s.rx);
  free(s.rt);
  free(s.cand);
  free(s.A);
  free(s.lo);
  free(s.hi);
  free(s.base);
  free(s.nw);
  free(s.woff);
  free(s.bits);
  free(s.tmp);
  return rc;
}
