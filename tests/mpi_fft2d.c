/* The heterogeneous 2D FFT (apps/fft2d) on p processes (built as mpi_fft2d_npP, P = 1..4):
 * identities that hold for any size and distribution (round trip, linearity, impulse response,
 * shift theorem, Parseval) and agreement with a serial FFTW transform on small sizes, for even,
 * uneven, zero-row and single-owner distributions, M != N, explicit column distributions, two
 * FFTW threads, row blocks large enough for streaming copies, and errors on bad input. Every
 * check is agreed over all ranks. */
#include <fftw3.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "apps/fft2d.h"
#include "tests/tap.h"
#include "tests/exec_env.h"
#include "fupermod/mpi_thread.h"

static int rank, size;
static fupermod_exec *ex; /* $FUPERMOD_TEST_EXEC (tests/standin_fft2d.sh): this rank's executor */

/* Deterministic value in [-1, 1) for (seed, i, j): the same on every rank. */
static double rnd(uint64_t seed, long i, long j) {
  uint64_t z = seed * 0x9E3779B97F4A7C15ull + (uint64_t)i * 0xBF58476D1CE4E5B9ull + (uint64_t)j * 0x94D049BB133111EBull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return (double)(z >> 11) / 4503599627370496.0 - 1.0;
}

static void fill(double *a, long first, long d, long N, uint64_t seed) {
  for (long i = 0; i < d; i++)
    for (long j = 0; j < N; j++) {
      a[2 * (i * N + j)] = rnd(seed, first + i, j);
      a[2 * (i * N + j) + 1] = rnd(seed + 1000, first + i, j);
    }
}

static double gmax(double x) {
  double y = x;
  MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return y;
}

static double gsum(double x) {
  double y = x;
  MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return y;
}

/* A distribution of M rows over size ranks of a named kind. */
static fupermod_dist *make_dist(const char *kind, long M) {
  fupermod_dist *d = fupermod_dist_alloc(M, size);
  double *w = calloc((size_t)size, sizeof *w);
  long *out = calloc((size_t)size, sizeof *out);
  for (int i = 0; i < size; i++) {
    if (!strcmp(kind, "uneven")) w[i] = (double)((i + 1) * (i + 1));
    else if (!strcmp(kind, "zero-first")) w[i] = i == 0 && size > 1 ? 0.0 : 1.0 + i;
    else if (!strcmp(kind, "zero-alternate")) w[i] = i % 2 == 0 && size > 1 ? 0.0 : 1.0;
    else if (!strcmp(kind, "last-only")) w[i] = i == size - 1 ? 1.0 : 0.0;
    else w[i] = 1.0; /* even */
  }
  double sum = 0.0;
  for (int i = 0; i < size; i++) sum += w[i];
  for (int i = 0; i < size; i++) w[i] = (double)M * w[i] / sum;
  fupermod_dist_round(w, size, M, out);
  for (int i = 0; i < size; i++) d->parts[i].d = out[i];
  free(w);
  free(out);
  return d;
}

typedef struct cfg {
  long M, N;
  const char *kind;
  int threads;
  int explicit_cols; /* 1: columns in a distribution unrelated to rows (reversed uneven) */
  int strategy;      /* FUPERMOD_FFT2D_TRANSPOSE / _STRIDED / _SHARED, or AUTO / TIMED (then FFTW_MEASURE) */
} cfg;


static void run_case(const cfg *c) {
  fupermod_dist *rows = make_dist(c->kind, c->M), *cols = NULL;
  fupermod_fft2d *plan = NULL;
  long first, d, M = c->M, N = c->N;
  double MN = (double)M * (double)N;
  char name[160];
  int rc;
  if (c->explicit_cols) {
    cols = fupermod_dist_alloc(N, size);
    for (int i = 0; i < size; i++) cols->parts[i].d = 0;
    /* everything to rank 0 except one column each to the others where possible */
    long left = N;
    for (int i = size - 1; i > 0; i--)
      if (left > 1) cols->parts[i].d = 1, left--;
    cols->parts[0].d = left;
  }
  snprintf(name, sizeof name, "%ldx%ld %s rows%s, %s, %d thread%s, p=%d", M, N, c->kind,
           c->explicit_cols ? ", explicit columns" : "", fupermod_fft2d_strategy_name(c->strategy), c->threads,
           c->threads > 1 ? "s" : "", size);
  {
    unsigned flags = c->strategy >= FUPERMOD_FFT2D_TIMED || c->strategy == FUPERMOD_FFT2D_AUTO ? FFTW_MEASURE : FFTW_ESTIMATE;
    rc = ex ? fupermod_fft2d_plan_exec(MPI_COMM_WORLD, M, N, rows, cols, ex, flags, c->strategy, &plan)
            : fupermod_fft2d_plan_strategy(MPI_COMM_WORLD, M, N, rows, cols, c->threads, flags, c->strategy, &plan);
  }
  if (!ok(rc == FUPERMOD_SUCCESS, "plan %s", name)) {
    diag("%s", fupermod_error_message());
    fupermod_dist_free(rows);
    fupermod_dist_free(cols);
    return;
  }
  d = fupermod_fft2d_local_rows(plan, &first);
  {
    int st = fupermod_fft2d_strategy(plan), lo = st, hi = st;
    MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    /* AUTO on one node (every test runs on one machine) is shared; TIMED is any of the three */
    int want = c->strategy == FUPERMOD_FFT2D_AUTO ? st == FUPERMOD_FFT2D_SHARED
               : c->strategy == FUPERMOD_FFT2D_TIMED ? st >= FUPERMOD_FFT2D_TRANSPOSE && st <= FUPERMOD_FFT2D_SHARED
                                                     : st == c->strategy;
    ok(lo == hi && want,
       "%s: every rank uses the same strategy (%s)", name, fupermod_fft2d_strategy_name(st));
  }
  {
    long r0;
    int good = d == rows->parts[rank].d;
    r0 = 0;
    for (int i = 0; i < rank; i++) r0 += rows->parts[i].d;
    good = good && first == r0;
    ok(gmax(good ? 0.0 : 1.0) == 0.0, "%s: local rows are the documented block", name);
  }
  size_t n = (size_t)(d > 0 ? d : 1) * (size_t)N * 2;
  double *x = fupermod_fft2d_local(plan), *y = malloc(n * sizeof *y), *z = malloc(n * sizeof *z),
         *x0 = malloc(n * sizeof *x0);
  double err, scale;

  /* Against a serial FFTW transform of the whole signal (small sizes only). */
  if (MN <= 70000) {
    fftw_complex *full = fftw_alloc_complex((size_t)(M * N));
    fftw_plan sp = fftw_plan_dft_2d((int)M, (int)N, full, full, FFTW_FORWARD, FFTW_ESTIMATE);
    fill((double *)full, 0, M, N, 7);
    fftw_execute(sp);
    fill(x, first, d, N, 7);
    rc = fupermod_fft2d_execute(plan, FUPERMOD_FFT2D_FORWARD, NULL);
    err = 0.0;
    scale = 0.0;
    for (long i = 0; i < d; i++)
      for (long j = 0; j < N; j++) {
        double *ref = full[(first + i) * N + j];
        err = fmax(err, hypot(x[2 * (i * N + j)] - ref[0], x[2 * (i * N + j) + 1] - ref[1]));
      }
    for (long k = 0; k < M * N; k++) scale = fmax(scale, hypot(full[k][0], full[k][1]));
    err = gmax(err) / scale;
    ok(rc == 0 && err < 1e-12, "%s: forward equals serial FFTW (rel. err %.2e)", name, err);
    fftw_destroy_plan(sp);
    fftw_free(full);
  }

  /* Round trip: backward(forward(x)) = M N x. */
  fill(x, first, d, N, 11);
  if (d > 0) memcpy(x0, x, (size_t)d * N * 2 * sizeof(double));
  rc = fupermod_fft2d_execute(plan, FUPERMOD_FFT2D_FORWARD, NULL);
  if (rc == 0) rc = fupermod_fft2d_execute(plan, FUPERMOD_FFT2D_BACKWARD, NULL);
  err = 0.0;
  for (long k = 0; k < d * N * 2; k++) err = fmax(err, fabs(x[k] / MN - x0[k]));
  err = gmax(err);
  ok(rc == 0 && err < 1e-13 * log2(MN + 2), "%s: round trip (max err %.2e)", name, err);

  /* Parseval: sum |X|^2 = M N sum |x|^2 (x0 still holds the signal). */
  {
    double sx = 0.0, sX = 0.0;
    memcpy(x, x0, d > 0 ? (size_t)d * N * 2 * sizeof(double) : 0);
    for (long k = 0; k < d * N * 2; k++) sx += x[k] * x[k];
    rc = fupermod_fft2d_execute(plan, FUPERMOD_FFT2D_FORWARD, NULL);
    for (long k = 0; k < d * N * 2; k++) sX += x[k] * x[k];
    sx = gsum(sx);
    sX = gsum(sX);
    ok(rc == 0 && fabs(sX - MN * sx) <= 1e-12 * MN * sx, "%s: Parseval", name);
  }

  /* Linearity with complex coefficients: F(a u + b v) = a F(u) + b F(v). User buffers. */
  {
    const double ar = 0.75, ai = -1.25, br = -0.5, bi = 2.0;
    double *u = y, *v = z, *w = x0;
    fill(u, first, d, N, 21);
    fill(v, first, d, N, 22);
    for (long k = 0; k < d * N; k++) {
      double ur = u[2 * k], ui = u[2 * k + 1], vr = v[2 * k], vi = v[2 * k + 1];
      w[2 * k] = ar * ur - ai * ui + br * vr - bi * vi;
      w[2 * k + 1] = ar * ui + ai * ur + br * vi + bi * vr;
    }
    rc = fupermod_fft2d_execute(plan, FUPERMOD_FFT2D_FORWARD, u);
    if (rc == 0) rc = fupermod_fft2d_execute(plan, FUPERMOD_FFT2D_FORWARD, v);
    if (rc == 0) rc = fupermod_fft2d_execute(plan, FUPERMOD_FFT2D_FORWARD, w);
    err = 0.0;
    scale = 0.0;
    for (long k = 0; k < d * N; k++) {
      double ur = u[2 * k], ui = u[2 * k + 1], vr = v[2 * k], vi = v[2 * k + 1];
      double re = ar * ur - ai * ui + br * vr - bi * vi, im = ar * ui + ai * ur + br * vi + bi * vr;
      err = fmax(err, hypot(w[2 * k] - re, w[2 * k + 1] - im));
      scale = fmax(scale, hypot(re, im));
    }
    err = gmax(err) / fmax(gmax(scale), 1e-300);
    ok(rc == 0 && err < 1e-12, "%s: linearity (rel. err %.2e)", name, err);
  }

  /* Impulse at (m0, n0): X[k1][k2] = exp(-2 pi i (k1 m0 / M + k2 n0 / N)). */
  {
    long m0 = M / 3, n0 = (2 * N) / 5;
    memset(x, 0, d > 0 ? (size_t)d * N * 2 * sizeof(double) : 0);
    if (m0 >= first && m0 < first + d) x[2 * ((m0 - first) * N + n0)] = 1.0;
    rc = fupermod_fft2d_execute(plan, FUPERMOD_FFT2D_FORWARD, NULL);
    err = 0.0;
    for (long i = 0; i < d; i++)
      for (long j = 0; j < N; j++) {
        /* reduce the phase exactly in integers before going to floating point */
        double ph = -2.0 * M_PI * ((double)(((first + i) * m0) % M) / M + (double)((j * n0) % N) / N);
        err = fmax(err, hypot(x[2 * (i * N + j)] - cos(ph), x[2 * (i * N + j) + 1] - sin(ph)));
      }
    err = gmax(err);
    ok(rc == 0 && err < 1e-12, "%s: impulse response (max err %.2e)", name, err);
  }

  /* Shift theorem: y = x shifted by (s1, s2) cyclically => Y = X exp(-2 pi i (k1 s1/M + k2 s2/N)). */
  {
    long s1 = (M + 1) / 2, s2 = N / 3 + 1;
    /* X of x, kept in z; Y of the shifted signal in x */
    fill(z, first, d, N, 31);
    for (long i = 0; i < d; i++)
      for (long j = 0; j < N; j++) {
        long si = ((first + i - s1) % M + M) % M, sj = ((j - s2) % N + N) % N;
        x[2 * (i * N + j)] = rnd(31, si, sj);
        x[2 * (i * N + j) + 1] = rnd(1031, si, sj);
      }
    rc = fupermod_fft2d_execute(plan, FUPERMOD_FFT2D_FORWARD, z);
    if (rc == 0) rc = fupermod_fft2d_execute(plan, FUPERMOD_FFT2D_FORWARD, NULL);
    err = 0.0;
    scale = 0.0;
    for (long i = 0; i < d; i++)
      for (long j = 0; j < N; j++) {
        double ph = -2.0 * M_PI * ((double)(((first + i) * s1) % M) / M + (double)((j * s2) % N) / N);
        double c = cos(ph), s = sin(ph), Xr = z[2 * (i * N + j)], Xi = z[2 * (i * N + j) + 1];
        double re = Xr * c - Xi * s, im = Xr * s + Xi * c;
        err = fmax(err, hypot(x[2 * (i * N + j)] - re, x[2 * (i * N + j) + 1] - im));
        scale = fmax(scale, hypot(re, im));
      }
    err = gmax(err) / fmax(gmax(scale), 1e-300);
    ok(rc == 0 && err < 1e-12, "%s: shift theorem (rel. err %.2e)", name, err);
  }

  /* The compute trace is the last execute's row and column phases, in order, as phase_times says,
   * with no more CPU than their wall time. */
  {
    fupermod_trace tr = FUPERMOD_TRACE_INIT;
    double ph[4], t0 = fupermod_time(), t1;
    int good;
    rc = fupermod_fft2d_execute(plan, FUPERMOD_FFT2D_FORWARD, NULL);
    t1 = fupermod_time();
    fupermod_fft2d_phase_times(plan, &ph[0], &ph[1], &ph[2], &ph[3]);
    good = rc == 0 && fupermod_fft2d_compute_trace(plan, &tr) == 0 && tr.n == 2 && t0 <= tr.iv[0] &&
           tr.iv[1] <= tr.iv[2] && tr.iv[3] <= t1 && fabs(tr.iv[1] - tr.iv[0] - ph[0]) < 1e-12 &&
           fabs(tr.iv[3] - tr.iv[2] - ph[2]) < 1e-12 && fabs(tr.iv[2] - tr.iv[1] - ph[1]) < 1e-12 &&
           tr.cpu >= 0 && tr.cpu <= fupermod_trace_total(&tr) + 1e-3;
    ok(gmax(good ? 0.0 : 1.0) == 0.0, "%s: compute trace = the row and column phases of the last execute", name);
    /* The busy trace: the row phase with this process's copies (ends within the redistribution
     * phase, before the column phase), the column phase itself, and the copies back (within the
     * last phase), in order, inside the execute. */
    {
      fupermod_trace b = FUPERMOD_TRACE_INIT;
      double *c = tr.iv, *v;
      good = good && fupermod_fft2d_busy_trace(plan, &b) == 0 && b.n == 3;
      v = b.iv;
      good = good && v[0] == c[0] && v[1] >= c[1] && v[1] <= c[2] && v[2] == c[2] && v[3] == c[3] && v[4] >= c[3] &&
             v[4] <= v[5] && v[5] <= t1 && fupermod_trace_total(&b) <= t1 - t0;
      fupermod_trace_free(&b);
      ok(gmax(good ? 0.0 : 1.0) == 0.0, "%s: busy trace = rows and copies, columns, copies back, in order", name);
    }
    fupermod_trace_free(&tr);
  }

  free(y);
  free(z);
  free(x0);
  fupermod_fft2d_destroy(plan);
  fupermod_dist_free(rows);
  fupermod_dist_free(cols);
}

static void errors(void) {
  fupermod_dist *rows = fupermod_dist_alloc(8, size);
  fupermod_fft2d *plan = (fupermod_fft2d *)1;
  int rc;

  rows->parts[0].d += 1; /* sums to 9 */
  rc = fupermod_fft2d_plan(MPI_COMM_WORLD, 8, 8, rows, NULL, 1, FFTW_ESTIMATE, &plan);
  ok(gmax(rc == FUPERMOD_ERR_USAGE && plan == NULL && strstr(fupermod_error_message(), "row distribution sums to 9")
              ? 0.0 : 1.0) == 0.0,
     "a row distribution with the wrong sum is a usage error naming it on every rank");
  rows->parts[0].d -= 1;

  rc = fupermod_fft2d_plan(MPI_COMM_WORLD, 0, 8, rows, NULL, 1, FFTW_ESTIMATE, &plan);
  ok(gmax(rc == FUPERMOD_ERR_USAGE && strstr(fupermod_error_message(), "M and N") ? 0.0 : 1.0) == 0.0,
     "M = 0 is a usage error naming M and N");

  rc = fupermod_fft2d_plan(MPI_COMM_WORLD, 8, 8, rows, NULL, 0, FFTW_ESTIMATE, &plan);
  ok(gmax(rc == FUPERMOD_ERR_USAGE && strstr(fupermod_error_message(), "threads") ? 0.0 : 1.0) == 0.0,
     "threads = 0 is a usage error naming threads");

  /* Only one rank is invalid: everyone must fail (no rank left waiting in a collective). */
  rc = fupermod_fft2d_plan(MPI_COMM_WORLD, 8, 8, rows, NULL, rank == size - 1 ? -1 : 1, FFTW_ESTIMATE, &plan);
  ok(gmax(rc != FUPERMOD_SUCCESS && plan == NULL ? 0.0 : 1.0) == 0.0,
     "an error on one rank is returned on every rank");

  if (size > 1) {
    /* Ranks disagree on the distribution (each one is valid by itself). */
    fupermod_dist *other = fupermod_dist_alloc(8, size);
    if (rank == 1) {
      other->parts[0].d = 8;
      for (int i = 1; i < size; i++) other->parts[i].d = 0;
    }
    rc = fupermod_fft2d_plan(MPI_COMM_WORLD, 8, 8, other, NULL, 1, FFTW_ESTIMATE, &plan);
    ok(gmax(rc == FUPERMOD_ERR_USAGE && plan == NULL ? 0.0 : 1.0) == 0.0,
       "ranks passing different distributions all get a usage error");
    fupermod_dist_free(other);
  } else {
    skip("needs p > 1: ranks passing different distributions");
  }

  {
    fupermod_trace tr = FUPERMOD_TRACE_INIT;
    ok(fupermod_fft2d_busy_trace(NULL, &tr) == FUPERMOD_ERR_USAGE && tr.n == 0 &&
           fupermod_fft2d_compute_trace(NULL, &tr) == FUPERMOD_ERR_USAGE,
       "busy and compute traces of a NULL plan are usage errors that add nothing");
  }

  rc = fupermod_fft2d_plan_strategy(MPI_COMM_WORLD, 8, 8, rows, NULL, 1, FFTW_ESTIMATE, 5, &plan);
  ok(gmax(rc == FUPERMOD_ERR_USAGE && strstr(fupermod_error_message(), "strategy") ? 0.0 : 1.0) == 0.0,
     "an unknown strategy is a usage error naming the strategy");

  rc = fupermod_fft2d_plan(MPI_COMM_WORLD, 8, 8, rows, NULL, 1, FFTW_ESTIMATE, &plan);
  if (rc == FUPERMOD_SUCCESS) {
    int r2 = fupermod_fft2d_execute(plan, 0, NULL);
    ok(gmax(r2 == FUPERMOD_ERR_USAGE && strstr(fupermod_error_message(), "direction") ? 0.0 : 1.0) == 0.0,
       "direction 0 is a usage error naming the direction");
    r2 = fupermod_fft2d_execute(plan, rank == 0 ? 7 : FUPERMOD_FFT2D_FORWARD, NULL);
    ok(gmax(r2 != FUPERMOD_SUCCESS ? 0.0 : 1.0) == 0.0, "a bad direction on one rank fails execute everywhere");
    fupermod_fft2d_destroy(plan);
  } else {
    ok(0, "plan 8x8 even");
    ok(0, "plan 8x8 even");
  }
  ok(fabs(fupermod_fft2d_flops(1024, 1024) - 5.0 * 1024 * 1024 * 20) < 1e-3 &&
         fabs(fupermod_fft2d_flops(4, 8) - 5.0 * 32 * 5) < 1e-9,
     "flop convention 5 M N log2(M N)");
  fupermod_dist_free(rows);
}

int main(int argc, char **argv) {
  if (fupermod_mpi_init_thread(&argc, &argv, MPI_THREAD_FUNNELED, "mpi_fft2d", NULL) != FUPERMOD_SUCCESS) {
    printf("Bail out! %s\n", fupermod_error_message());
    MPI_Finalize();
    return 1;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  tap_quiet(rank != 0);
  diag("heterogeneous 2D FFT on %d process%s", size, size > 1 ? "es" : "");
  if (getenv("FUPERMOD_TEST_EXEC")) {
    int erc = test_exec_open(getenv("FUPERMOD_TEST_EXEC"), rank, &ex);
    char d[300];
    ok(gmax(erc == FUPERMOD_SUCCESS ? 0.0 : 1.0) == 0.0, "every rank opens its executor (%s)", getenv("FUPERMOD_TEST_EXEC"));
    for (int r = 0; r < size; r++) {
      snprintf(d, sizeof d, "%s", ex ? fupermod_exec_describe(ex) : fupermod_error_message());
      MPI_Bcast(d, sizeof d, MPI_CHAR, r, MPI_COMM_WORLD);
      diag("rank %d: %s", r, d);
    }
  }
  const cfg cases[] = {
      {16, 16, "even", 1, 0, 0},        {12, 20, "uneven", 1, 0, 0},          {20, 12, "zero-first", 1, 0, 0},
      {9, 7, "zero-alternate", 1, 0, 0}, {6, 10, "last-only", 1, 0, 0},        {1, 8, "even", 1, 0, 0},
      {8, 1, "uneven", 1, 0, 0},         {3, 5, "even", 1, 0, 0},              {30, 18, "uneven", 1, 1, 0},
      {64, 48, "uneven", 2, 0, 0},       {128, 96, "zero-alternate", 1, 0, 0}, {200, 256, "uneven", 1, 0, 0},
      /* row blocks of 4 MiB and more: the block copies use streaming stores (with 2 threads, and
       * odd sizes where some ranks stream and others not) */
      {1024, 1024, "even", 2, 0, 0},     {1023, 1025, "uneven", 1, 0, 0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    for (int st = FUPERMOD_FFT2D_TRANSPOSE; st <= FUPERMOD_FFT2D_SHARED; st++) {
      cfg c = cases[i];
      c.strategy = st;
      run_case(&c);
    }
  {
    /* TIMED times every strategy (shared too, on one node); every rank must pick the same. AUTO
     * with a measuring planner takes shared on one node without timing. */
    cfg c = {96, 80, "uneven", 1, 0, FUPERMOD_FFT2D_TIMED};
    run_case(&c);
    c.strategy = FUPERMOD_FFT2D_AUTO;
    run_case(&c);
  }
  {
    /* AUTO with FFTW_ESTIMATE times nothing: shared when every process is on one node (as here,
     * under one mpirun on one machine), so that no strided column FFT gets an ESTIMATE plan. */
    fupermod_dist *rows = make_dist("uneven", 40);
    fupermod_fft2d *plan = NULL;
    int rc = fupermod_fft2d_plan(MPI_COMM_WORLD, 40, 36, rows, NULL, 1, FFTW_ESTIMATE, &plan);
    ok(rc == FUPERMOD_SUCCESS && fupermod_fft2d_strategy(plan) == FUPERMOD_FFT2D_SHARED,
       "AUTO with FFTW_ESTIMATE on one node picks shared (got %s), p=%d",
       plan ? fupermod_fft2d_strategy_name(fupermod_fft2d_strategy(plan)) : "no plan", size);
    fupermod_fft2d_destroy(plan);
    fupermod_dist_free(rows);
  }
  errors();
  int st = done_testing();
  fupermod_exec_close(ex);
  MPI_Finalize();
  return st;
}
