/* Heterogeneous SUMMA under mpirun -np P (P = 1..7, 14): several layouts (even, BR and KL on
 * random areas with a zero-area process, one column of strips, one column per process, a
 * general tiling that is not column-based, 1.5D from models), b dividing n or not and b > n,
 * C = A B and C += A B; exact comparison with a serial GEMM on integer data, the randomised
 * check on larger n (and that it catches one wrong element), and bad input agreed by every rank.
 * Layouts with pieces: square-corner layouts and a hand-made one with a process owning scattered
 * pieces, exact and randomised.
 * With $FUPERMOD_TEST_EXEC (tests/standin_summa.sh), every product runs through the executors it
 * gives the ranks in turn: "cpu:THREADS" or "cuda:DEVICE[:LIMIT_BYTES]", comma-separated. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apps/summa.h"
#include "partitioners/partitioners.h"
#include "tests/tap.h"
#include "tests/exec_env.h"
#include "fupermod/mpi_thread.h"

static int rank, size;
static fupermod_exec *ex; /* this rank's executor, NULL: SUMMA's own OpenBLAS call */

static int summa(const fupermod_layout *l, int n, int b, const double *A, const double *B, double *C, int acc,
                 fupermod_trace *tr) {
  return fupermod_summa_dgemm_exec(MPI_COMM_WORLD, l, n, b, A, B, C, acc, ex, tr);
}


/* A condition true on every rank. */
static int all(int cond) {
  int v = cond ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return v;
}

static uint64_t rng = 0x51a4a5eedULL;
static double urand(void) {
  uint64_t z = (rng += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return (double)((z ^ (z >> 31)) >> 11) / 9007199254740992.0;
}

/* Not column-based: the top rows split into column strips among the first half of the
 * processes, the bottom rows among the rest. */
static fupermod_layout *general_tiling(int p, int K) {
  fupermod_layout *l = NULL;
  int top = p / 2, bottom = p - top, split = top > 0 ? K / 2 : 0;
  if (fupermod_layout_alloc(p, K, K, &l) != FUPERMOD_SUCCESS) return NULL;
  for (int i = 0; i < top; i++) {
    int c0 = (int)((long)K * i / top), c1 = (int)((long)K * (i + 1) / top);
    if (split > 0 && c1 > c0) l->rects[i] = (fupermod_rect){0, c0, split, c1 - c0};
  }
  for (int i = 0; i < bottom; i++) {
    int c0 = (int)((long)K * i / bottom), c1 = (int)((long)K * (i + 1) / bottom);
    if (c1 > c0) l->rects[top + i] = (fupermod_rect){split, c0, K - split, c1 - c0};
  }
  return l;
}

static fupermod_model *cpm_model(double speed) {
  fupermod_point pt = FUPERMOD_POINT_INIT;
  fupermod_points pts = {1, &pt, 0};
  fupermod_model *m = NULL;
  pt.d = 100;
  pt.t = 100.0 / speed;
  fupermod_model_create("cpm", &pts, 0, &m);
  return m;
}

enum { L_EVEN, L_BR, L_KL, L_ROWS, L_COLS, L_GENERAL, L_15D, L_COUNT };
static const char *lname[L_COUNT] = {"even", "br (random areas, one zero)", "kl (random areas, one zero)",
                                     "one column of strips", "one column per process", "general tiling",
                                     "1.5D (cpm models)"};

static fupermod_layout *make_layout(int kind, int K) {
  double *a = malloc((size_t)size * sizeof *a);
  fupermod_layout *l = NULL;
  int rc = FUPERMOD_SUCCESS;
  for (int i = 0; i < size; i++) a[i] = 0.2 + urand();
  if (size > 1) a[size / 2] = 0.0; /* a process with no data */
  switch (kind) {
    case L_EVEN: rc = fupermod_layout_by_name("even", a, size, K, K, &l); break;
    case L_BR: rc = fupermod_layout_br(a, size, 0, K, K, &l); break;
    case L_KL: rc = fupermod_layout_kl(a, size, 0, NULL, K, K, &l); break;
    case L_ROWS: a[size / 2] = 1.0; rc = fupermod_layout_kl(a, size, 1, NULL, K, K, &l); break;
    case L_COLS: a[size / 2] = 1.0; rc = fupermod_layout_kl(a, size, size, NULL, K, K, &l); break;
    case L_GENERAL: l = general_tiling(size, K); break;
    case L_15D: {
      fupermod_model **m = calloc((size_t)size, sizeof *m);
      for (int i = 0; i < size; i++) m[i] = cpm_model(1.0 + i % 3);
      rc = fupermod_layout_15d(fupermod_partitioner_find("cpm")->continuous, size, m, K, K, NULL, &l);
      for (int i = 0; i < size; i++) fupermod_model_free(m[i]);
      free(m);
      break;
    }
  }
  free(a);
  if (rc != FUPERMOD_SUCCESS || !l) {
    diag("layout %s, K = %d: %s", lname[kind], K, fupermod_error_message());
    fupermod_layout_free(l);
    return NULL;
  }
  return l;
}

typedef struct {
  double *A, *B, *C, *C0;
  size_t loc;
} mats;

static int alloc_fill(const fupermod_layout *l, int n, int b, int kind, uint64_t seed, mats *m) {
  long loc = 0;
  fupermod_summa_local(l, rank, n, b, &loc);
  m->loc = (size_t)loc;
  m->A = m->loc ? malloc(m->loc * sizeof(double)) : NULL;
  m->B = m->loc ? malloc(m->loc * sizeof(double)) : NULL;
  m->C = m->loc ? malloc(m->loc * sizeof(double)) : NULL;
  m->C0 = m->loc ? malloc(m->loc * sizeof(double)) : NULL;
  fupermod_summa_fill(l, rank, n, b, seed, kind, m->A);
  fupermod_summa_fill(l, rank, n, b, seed + 1, kind, m->B);
  fupermod_summa_fill(l, rank, n, b, seed + 2, kind, m->C0);
  if (m->loc) memcpy(m->C, m->C0, m->loc * sizeof(double));
  return FUPERMOD_SUCCESS;
}

static void free_mats(mats *m) {
  free(m->A);
  free(m->B);
  free(m->C);
  free(m->C0);
}

/* C = AB and C += AB on l with integer data (seed), both compared exactly with a serial GEMM; on
 * every rank, whether all agree. */
static int products_exact(const fupermod_layout *l, int n, int b, uint64_t seed) {
  int rc1, rc2, rc3 = 0, rc4 = 0, good;
  long mis1 = -1, mis2 = -1;
  double md1 = -1, md2 = -1;
  mats m;
  alloc_fill(l, n, b, FUPERMOD_SUMMA_INTEGER, seed, &m);
  rc1 = summa(l, n, b, m.A, m.B, m.C, 0, NULL);
  if (rc1 == FUPERMOD_SUCCESS) rc3 = fupermod_summa_check_exact(MPI_COMM_WORLD, l, n, b, m.A, m.B, NULL, m.C, &mis1, &md1);
  if (m.loc) memcpy(m.C, m.C0, m.loc * sizeof(double));
  rc2 = summa(l, n, b, m.A, m.B, m.C, 1, NULL);
  if (rc2 == FUPERMOD_SUCCESS) rc4 = fupermod_summa_check_exact(MPI_COMM_WORLD, l, n, b, m.A, m.B, m.C0, m.C, &mis2, &md2);
  good = all(rc1 == 0 && rc2 == 0 && rc3 == 0 && rc4 == 0 && mis1 == 0 && mis2 == 0 && md1 == 0 && md2 == 0);
  if (!good) diag("rc %d %d %d %d, mismatches %ld %ld: %s", rc1, rc2, rc3, rc4, mis1, mis2, fupermod_error_message());
  free_mats(&m);
  return good;
}

/* Exact runs over every layout and shape. */
static void test_exact(void) {
  struct {
    int n, b;
  } shapes[] = {{37, 5}, {64, 16}, {50, 64}, {97, 7}, {1, 1}};
  int nshapes = size > 7 ? 3 : 5;
  for (int s = 0; s < nshapes; s++) {
    int n = shapes[s].n, b = shapes[s].b, K = (n + b - 1) / b;
    for (int kind = 0; kind < L_COUNT; kind++) {
      fupermod_layout *l = make_layout(kind, K);
      if (!all(l != NULL)) {
        ok(0, "layout %s for n = %d, b = %d", lname[kind], n, b);
        fupermod_layout_free(l);
        continue;
      }
      ok(products_exact(l, n, b, 11 + (uint64_t)s),
         "p = %d, n = %d, b = %d%s, %s (%d columns): C = AB and C += AB equal the serial GEMM exactly", size, n, b,
         n % b ? " (not dividing n)" : "", lname[kind], l->ncols);
      fupermod_layout_free(l);
    }
  }
}

/* Randomised check on a larger matrix, and that it catches a wrong element. */
static void test_random(void) {
  int n = size > 7 ? 160 : 300, b = size > 7 ? 24 : 32, K = (n + b - 1) / b;
  int kinds[2] = {L_BR, L_KL};
  for (int t = 0; t < 2; t++) {
    fupermod_layout *l = make_layout(kinds[t], K);
    mats m;
    double r1 = NAN, r2 = NAN, r3 = NAN;
    int rc, owner = -1;
    if (!all(l != NULL)) {
      ok(0, "layout for the randomised check");
      fupermod_layout_free(l);
      continue;
    }
    alloc_fill(l, n, b, FUPERMOD_SUMMA_UNIFORM, 77, &m);
    rc = summa(l, n, b, m.A, m.B, m.C, 1, NULL);
    if (rc == 0) rc = fupermod_summa_check_random(MPI_COMM_WORLD, l, n, b, m.A, m.B, m.C0, m.C, 5, &r1);
    ok(all(rc == 0 && r1 <= 1.0), "p = %d, n = %d, b = %d, %s: randomised check passes for C += AB (error/bound %.2g)",
       size, n, b, lname[kinds[t]], r1);
    /* C = AB checked against the same product without C0; its GEMM trace: at least one interval
     * per pivot step on a process with data, none without, in order, inside the call */
    {
      fupermod_trace tr = FUPERMOD_TRACE_INIT;
      double t0 = fupermod_time(), t1;
      int good;
      rc = summa(l, n, b, m.A, m.B, m.C, 0, &tr);
      t1 = fupermod_time();
      good = fupermod_layout_area(l, rank) > 0 ? tr.n >= l->M : tr.n == 0;
      for (int i = 0; i < tr.n; i++)
        if (tr.iv[2 * i] < (i ? tr.iv[2 * i - 1] : t0) || tr.iv[2 * i + 1] < tr.iv[2 * i] || tr.iv[2 * i + 1] > t1) good = 0;
      good = good && tr.cpu >= 0 && tr.cpu <= fupermod_trace_total(&tr) + 1e-3;
      ok(all(rc == 0 && good), "SUMMA's compute trace: one or more GEMM intervals per step, in order, within the call");
      fupermod_trace_free(&tr);
    }
    if (rc == 0) rc = fupermod_summa_check_random(MPI_COMM_WORLD, l, n, b, m.A, m.B, NULL, m.C, 6, &r2);
    ok(all(rc == 0 && r2 <= 1.0), "randomised check passes for C = AB (error/bound %.2g)", r2);
    /* corrupt one element on the last process that owns data */
    for (int i = 0; i < size; i++)
      if (fupermod_layout_area(l, i) > 0) owner = i;
    if (rank == owner) m.C[m.loc / 2] += 1e-3;
    rc = fupermod_summa_check_random(MPI_COMM_WORLD, l, n, b, m.A, m.B, NULL, m.C, 6, &r3);
    ok(all(rc == 0 && r3 > 100.0), "one element off by 1e-3 on rank %d is caught (error/bound %.3g)", owner, r3);
    free_mats(&m);
    fupermod_layout_free(l);
  }
}

/* Bad input: every rank returns the same error, nobody hangs. */
static void test_bad_input(void) {
  int n = 40, b = 8, K = 5, rc, got;
  fupermod_layout *l = make_layout(L_EVEN, K), *other = NULL;
  mats m;
  int last_owner = -1;
  alloc_fill(l, n, b, FUPERMOD_SUMMA_INTEGER, 3, &m);
  for (int i = 0; i < size; i++)
    if (fupermod_layout_area(l, i) > 0) last_owner = i;
  rc = fupermod_summa_dgemm(MPI_COMM_WORLD, l, n, b, m.A, m.B, rank == last_owner ? NULL : m.C, 0);
  got = rc;
  MPI_Bcast(&got, 1, MPI_INT, 0, MPI_COMM_WORLD);
  ok(all(rc == FUPERMOD_ERR_USAGE && rc == got && strstr(fupermod_error_message(), "C is NULL")),
     "NULL C on rank %d: every rank returns the same usage error: %s", last_owner, fupermod_error_message());
  rc = fupermod_summa_dgemm(MPI_COMM_WORLD, l, 41, b, m.A, m.B, m.C, 0);
  ok(all(rc == FUPERMOD_ERR_USAGE && strstr(fupermod_error_message(), "6 x 6")),
     "n = 41 with a 5 x 5 layout of b = 8 is rejected everywhere: %s", fupermod_error_message());
  rc = fupermod_summa_dgemm(MPI_COMM_WORLD, l, n, 0, m.A, m.B, m.C, 0);
  ok(all(rc == FUPERMOD_ERR_USAGE && strstr(fupermod_error_message(), "b = 0")), "b = 0 is rejected: %s",
     fupermod_error_message());
  if (size > 1) {
    /* rank 0 holds a different (valid) layout */
    if (rank == 0) {
      double a[64];
      for (int i = 0; i < size; i++) a[i] = 1.0 + i;
      fupermod_layout_br(a, size, 0, K, K, &other);
    } else {
      fupermod_layout_copy(l, &other);
    }
    {
      mats m2;
      alloc_fill(other, n, b, FUPERMOD_SUMMA_INTEGER, 3, &m2);
      rc = fupermod_summa_dgemm(MPI_COMM_WORLD, other, n, b, m2.A, m2.B, m2.C, 0);
      ok(all(rc == FUPERMOD_ERR_MPI && strstr(fupermod_error_message(), "different layouts")),
         "different layouts on different ranks: every rank returns an error: %s", fupermod_error_message());
      free_mats(&m2);
    }
    fupermod_layout_free(other);
    other = NULL;
    /* a layout for another number of processes */
    fupermod_layout_alloc(size + 1, K, K, &other);
    other->rects[0] = (fupermod_rect){0, 0, K, K};
    rc = fupermod_summa_dgemm(MPI_COMM_WORLD, other, n, b, m.A, m.B, m.C, 0);
    ok(all(rc == FUPERMOD_ERR_USAGE && strstr(fupermod_error_message(), "communicator")),
       "a layout for %d processes on %d: %s", size + 1, size, fupermod_error_message());
    fupermod_layout_free(other);
  } else {
    skip("layout disagreement needs 2 processes");
    skip("layout size mismatch tested with 2 or more processes");
  }
  /* the layout broadcast carries the root's failure to every rank */
  {
    fupermod_layout *bl = NULL;
    int brc = FUPERMOD_SUCCESS;
    if (rank == 0) brc = fupermod_error(FUPERMOD_ERR_INPUT, "cannot read the test layout");
    rc = fupermod_layout_bcast(MPI_COMM_WORLD, 0, brc, &bl);
    ok(all(rc == FUPERMOD_ERR_INPUT && !bl && strstr(fupermod_error_message(), "cannot read the test layout")),
       "layout broadcast reports the root's error on every rank");
    if (rank == 0) fupermod_layout_copy(l, &bl);
    rc = fupermod_layout_bcast(MPI_COMM_WORLD, 0, FUPERMOD_SUCCESS, &bl);
    ok(all(rc == FUPERMOD_SUCCESS && bl && bl->p == l->p && memcmp(bl->rects, l->rects, (size_t)l->p * sizeof *l->rects) == 0),
       "layout broadcast copies the root's layout");
    fupermod_layout_free(bl);
  }
  free_mats(&m);
  fupermod_layout_free(l);
}

/* SUMMA on element extents: a random guillotine tiling of the n x n matrix at element
 * granularity (some processes empty), pivots cut at every edge; exact with integer data. */
static void guillotine(int n, int *r0, int *rs, int *c0, int *cs) {
  int m = 1;
  r0[0] = c0[0] = 0, rs[0] = cs[0] = n;
  for (int i = 1; i < size; i++) r0[i] = rs[i] = c0[i] = cs[i] = 0;
  for (int tries = 0; m < size && tries < 100; tries++) {
    int q = (int)(urand() * m), vertical = urand() < 0.5;
    int len = vertical ? cs[q] : rs[q], cut = 1 + (int)(urand() * (len - 1));
    if (len < 2) continue;
    r0[m] = r0[q], rs[m] = rs[q], c0[m] = c0[q], cs[m] = cs[q];
    if (vertical) cs[q] = cut, c0[m] += cut, cs[m] -= cut;
    else rs[q] = cut, r0[m] += cut, rs[m] -= cut;
    m++;
  }
  /* rank order shuffled: the owners' order is not the tiling's */
  for (int i = size - 1; i > 0; i--) {
    int j = (int)(urand() * (i + 1)), t;
    t = r0[i], r0[i] = r0[j], r0[j] = t;
    t = rs[i], rs[i] = rs[j], rs[j] = t;
    t = c0[i], c0[i] = c0[j], c0[j] = t;
    t = cs[i], cs[i] = cs[j], cs[j] = t;
  }
}

static void test_extents(void) {
  int *r0 = malloc((size_t)size * 4 * sizeof *r0), *rs = r0 + size, *c0 = rs + size, *cs = c0 + size, bad = 0, rc;
  for (int it = 0; it < 12; it++) {
    int n = 1 + (int)(urand() * 40), b = 1 + (int)(urand() * 9), acc = it % 2;
    size_t cnt;
    double *A, *B, *C;
    guillotine(n, r0, rs, c0, cs);
    cnt = (size_t)rs[rank] * (size_t)cs[rank] + 1;
    A = malloc(cnt * sizeof *A), B = malloc(cnt * sizeof *B), C = malloc(cnt * sizeof *C);
    for (int j = 0; j < cs[rank]; j++)
      for (int i = 0; i < rs[rank]; i++) {
        size_t at = (size_t)j * rs[rank] + i;
        A[at] = fupermod_summa_value(21, FUPERMOD_SUMMA_INTEGER, r0[rank] + i, c0[rank] + j);
        B[at] = fupermod_summa_value(22, FUPERMOD_SUMMA_INTEGER, r0[rank] + i, c0[rank] + j);
        C[at] = fupermod_summa_value(23, FUPERMOD_SUMMA_INTEGER, r0[rank] + i, c0[rank] + j);
      }
    rc = fupermod_summa_dgemm_extents(MPI_COMM_WORLD, r0, rs, c0, cs, n, b, A, B, C, acc, ex, NULL);
    for (int j = 0; rc == FUPERMOD_SUCCESS && j < cs[rank]; j++)
      for (int i = 0; i < rs[rank]; i++) {
        long gi = r0[rank] + i, gj = c0[rank] + j;
        double want = acc ? fupermod_summa_value(23, FUPERMOD_SUMMA_INTEGER, gi, gj) : 0.0;
        for (long k = 0; k < n; k++)
          want += fupermod_summa_value(21, FUPERMOD_SUMMA_INTEGER, gi, k) * fupermod_summa_value(22, FUPERMOD_SUMMA_INTEGER, k, gj);
        if (C[(size_t)j * rs[rank] + i] != want) bad++;
      }
    if (rc != FUPERMOD_SUCCESS) bad++;
    free(A), free(B), free(C);
  }
  ok(all(bad == 0), "12 random guillotine tilings at element granularity (n 1..40, b 1..9, empty processes, C = AB "
     "and C += AB): exact (%d wrong)", bad);
  /* errors, agreed: two extents overlapping, a hole, the ranks disagreeing (column strips n x 2) */
  {
    int n = 2 * size;
    double *X = calloc((size_t)(2 * n), sizeof *X);
    for (int i = 0; i < size; i++) r0[i] = 0, rs[i] = n, c0[i] = 2 * i, cs[i] = 2;
    if (size > 1) {
      c0[size - 1] = 1;
      rc = fupermod_summa_dgemm_extents(MPI_COMM_WORLD, r0, rs, c0, cs, n, 2, X, X, X, 0, ex, NULL);
      ok(all(rc == FUPERMOD_ERR_USAGE && strstr(fupermod_error_message(), "overlap")),
         "overlapping extents are refused on every rank: %s", fupermod_error_message());
      c0[size - 1] = 2 * (size - 1);
    } else
      skip("overlapping extents need 2 processes");
    rs[0] = n - 1;
    rc = fupermod_summa_dgemm_extents(MPI_COMM_WORLD, r0, rs, c0, cs, n, 2, X, X, X, 0, ex, NULL);
    ok(all(rc == FUPERMOD_ERR_USAGE && strstr(fupermod_error_message(), "cover")),
       "extents that leave a hole are refused on every rank: %s", fupermod_error_message());
    rs[0] = n;
    if (size > 1) {
      rc = fupermod_summa_dgemm_extents(MPI_COMM_WORLD, r0, rs, c0, cs, n, rank == 0 ? 1 : 2, X, X, X, 0, ex, NULL);
      ok(all(rc == FUPERMOD_ERR_USAGE && strstr(fupermod_error_message(), "different")),
         "ranks given different b: refused on every rank (%s)", fupermod_error_message());
    } else
      skip("ranks disagreeing need 2 processes");
    free(X);
  }
  free(r0);
}

/* ---- layouts with pieces ---- */

/* Square-corner: process dom much faster than the others (areas 0.5..1.5 against 20 p), one
 * process with no data when zero is set. NULL where the squares do not fit. */
static fupermod_layout *sc_layout(int K, int dom, int zero) {
  double *a = malloc((size_t)size * sizeof *a);
  fupermod_layout *l = NULL;
  for (int i = 0; i < size; i++) a[i] = 0.5 + urand();
  a[dom] = 20.0 * size;
  if (zero && size > 2) a[(dom + 1) % size] = 0.0;
  if (fupermod_layout_sc(a, size, K, K, &l) != FUPERMOD_SUCCESS) {
    diag("sc layout on %d x %d blocks: %s", K, K, fupermod_error_message());
    l = NULL;
  }
  free(a);
  return l;
}

/* Not square-corner: 6 x 6 blocks in seven pieces, process 0 owning three scattered ones (listed
 * out of spatial order), the other four pieces dealt to processes 1, 2, ... in turn (all to 0 on
 * one process; processes beyond 5 own nothing). */
static fupermod_layout *scattered_layout(int reversed) {
  fupermod_rect pc[7] = {{4, 2, 2, 2}, {0, 2, 2, 4}, {2, 4, 2, 2}, {2, 0, 2, 4}, {0, 0, 2, 2}, {4, 0, 2, 2}, {4, 4, 2, 2}};
  int own[7], other = 0;
  fupermod_layout *l = NULL;
  for (int j = 0; j < 7; j++) own[j] = j % 2 == 0 && j != 6 ? 0 : size > 1 ? 1 + other++ % (size - 1) : 0;
  if (reversed) /* the same tiling and owners, another piece order */
    for (int j = 0; j < 3; j++) {
      fupermod_rect t = pc[j];
      int o = own[j];
      pc[j] = pc[6 - j], own[j] = own[6 - j];
      pc[6 - j] = t, own[6 - j] = o;
    }
  if (fupermod_layout_alloc(size, 6, 6, &l) != FUPERMOD_SUCCESS || fupermod_layout_set_pieces(l, 7, pc, own) ||
      fupermod_layout_check(l)) {
    diag("scattered layout: %s", fupermod_error_message());
    fupermod_layout_free(l);
    return NULL;
  }
  return l;
}

/* C = AB and C += AB on l, compared exactly with a serial GEMM. */
static void exact_on(const fupermod_layout *l, int n, int b, const char *what) {
  if (!all(l != NULL)) {
    ok(0, "p = %d, n = %d, b = %d, %s: no layout", size, n, b, what);
    return;
  }
  ok(products_exact(l, n, b, 31 + (uint64_t)n),
     "p = %d, n = %d, b = %d%s, %s (%d pieces, rank 0 owns %d): C = AB and C += AB equal the serial GEMM exactly",
     size, n, b, n % b ? " (not dividing n)" : "", what, l->npieces, fupermod_layout_npieces(l, 0));
}

static void test_pieces(void) {
  /* the hand-made layout on every process count, b not dividing n and b = 1 */
  {
    fupermod_layout *l = scattered_layout(0);
    long loc = -1, want = 0;
    int rc, r0, rows, c0, cols;
    exact_on(l, 22, 4, "three scattered pieces of process 0");
    exact_on(l, 6, 1, "three scattered pieces of process 0");
    /* its storage, counted here from the pieces: 6 x 6 blocks of 4, the last row and column 2 wide */
    for (int j = 0; l && j < l->npieces; j++)
      if (l->owner[j] == rank) {
        const fupermod_rect *r = &l->pieces[j];
        int h = 4 * r->height - (r->row + r->height == 6 ? 2 : 0), w = 4 * r->width - (r->col + r->width == 6 ? 2 : 0);
        want += (long)h * w;
      }
    rc = l ? fupermod_summa_local(l, rank, 22, 4, &loc) : -1;
    ok(all(rc == FUPERMOD_SUCCESS && loc == want), "summa_local: every rank's storage is the sum over its pieces");
    rc = l ? fupermod_summa_extent(l, 0, 22, 4, &r0, &rows, &c0, &cols) : -1;
    ok(rc == FUPERMOD_ERR_USAGE && strstr(fupermod_error_message(), "fupermod_summa_local"),
       "summa_extent refuses a process with several pieces: %s", fupermod_error_message());
    fupermod_layout_free(l);
  }
  if (size < 2) {
    skip("square-corner layouts need 2 processes");
    return;
  }
  {
    /* shapes: b not dividing n, b dividing n, b = 1; K large enough for 13 squares at p = 14 */
    struct {
      int n, b;
    } sh[3] = {{size > 7 ? 97 : 37, 5}, {64, size > 7 ? 4 : size > 4 ? 8 : 16}, {size > 7 ? 30 : 13, 1}};
    for (int s = 0; s < 3; s++) {
      int K = (sh[s].n + sh[s].b - 1) / sh[s].b;
      for (int v = 0; v < 2; v++) {
        int dom = v == 0 ? 0 : size - 1, zero = s == 0 && v == 1;
        fupermod_layout *l = sc_layout(K, dom, zero);
        char what[96];
        snprintf(what, sizeof what, "square-corner, fast process %d%s", dom, zero ? ", one process without data" : "");
        exact_on(l, sh[s].n, sh[s].b, what);
        fupermod_layout_free(l);
      }
    }
  }
  /* randomised, uniform data, with the compute trace: one interval or more per piece and pivot
   * (a piece's update runs in column chunks with tests between them), in order */
  {
    int n = 200, b = 10, K = 20, rc, good;
    fupermod_layout *l = sc_layout(K, size / 2, 0);
    fupermod_trace tr = FUPERMOD_TRACE_INIT;
    double r1 = NAN, r2 = NAN;
    mats m;
    if (all(l != NULL)) {
      alloc_fill(l, n, b, FUPERMOD_SUMMA_UNIFORM, 91, &m);
      rc = summa(l, n, b, m.A, m.B, m.C, 1, &tr);
      good = tr.n >= K * fupermod_layout_npieces(l, rank);
      for (int i = 1; i < tr.n; i++) good = good && tr.iv[2 * i] >= tr.iv[2 * i - 1];
      if (rc == 0) rc = fupermod_summa_check_random(MPI_COMM_WORLD, l, n, b, m.A, m.B, m.C0, m.C, 7, &r1);
      ok(all(rc == 0 && r1 <= 1.0 && good),
         "p = %d, n = %d, b = %d, square-corner (%d pieces): randomised check of C += AB (error/bound %.2g), one GEMM "
         "interval or more per piece and pivot, in order", size, n, b, l->npieces, r1);
      if (rank == size / 2 && m.loc) m.C[m.loc - 1] += 1e-3; /* the fast process's last piece */
      rc = fupermod_summa_check_random(MPI_COMM_WORLD, l, n, b, m.A, m.B, m.C0, m.C, 7, &r2);
      ok(all(rc == 0 && r2 > 100.0), "the randomised check on pieces catches one element off by 1e-3 (%.3g)", r2);
      free_mats(&m);
    } else {
      ok(0, "square-corner layout for the randomised check");
      ok(0, "square-corner layout for the randomised check");
    }
    fupermod_trace_free(&tr);
    /* the broadcast carries the pieces */
    {
      fupermod_layout *bl = NULL;
      if (rank == 0 && l) fupermod_layout_copy(l, &bl);
      rc = fupermod_layout_bcast(MPI_COMM_WORLD, 0, l ? FUPERMOD_SUCCESS : FUPERMOD_ERR_INPUT, &bl);
      ok(all(rc == FUPERMOD_SUCCESS && bl && l && bl->npieces == l->npieces &&
             memcmp(bl->pieces, l->pieces, (size_t)l->npieces * sizeof *l->pieces) == 0 &&
             memcmp(bl->owner, l->owner, (size_t)l->npieces * sizeof *l->owner) == 0 &&
             memcmp(bl->rects, l->rects, (size_t)size * sizeof *l->rects) == 0 && fupermod_layout_check(bl) == 0),
         "layout broadcast copies the pieces");
      fupermod_layout_free(bl);
    }
    fupermod_layout_free(l);
  }
  /* rank 0 holds the same tiling with its pieces in another order: a different storage */
  if (size > 1) {
    fupermod_layout *l = scattered_layout(rank == 0);
    mats m;
    int rc;
    alloc_fill(l, 24, 4, FUPERMOD_SUMMA_INTEGER, 5, &m);
    rc = summa(l, 24, 4, m.A, m.B, m.C, 0, NULL);
    ok(all(rc == FUPERMOD_ERR_MPI && strstr(fupermod_error_message(), "different layouts")),
       "pieces in another order on one rank: every rank returns an error: %s", fupermod_error_message());
    free_mats(&m);
    fupermod_layout_free(l);
  }
}

int main(int argc, char **argv) {
  int status, level = MPI_THREAD_SERIALIZED, got = MPI_THREAD_SINGLE;
  /* SUMMA's two ways of progressing its messages: a helper thread (SERIALIZED) or tests between
   * chunks of its GEMM (FUNNELED). The odd process counts (mpi_summa_np1, np3, ...) take FUNNELED. */
  const char *np = strstr(argv[0], "_np");
  if (np && atoi(np + 3) % 2 == 1) level = MPI_THREAD_FUNNELED;
  if (fupermod_mpi_init_thread(&argc, &argv, level, "mpi_summa", &got) != FUPERMOD_SUCCESS) {
    printf("Bail out! %s\n", fupermod_error_message());
    MPI_Finalize();
    return 1;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  tap_quiet(rank != 0);
  if (getenv("FUPERMOD_TEST_EXEC")) {
    int erc = test_exec_open(getenv("FUPERMOD_TEST_EXEC"), rank, &ex);
    char d[300];
    ok(all(erc == FUPERMOD_SUCCESS), "every rank opens its executor (%s)", getenv("FUPERMOD_TEST_EXEC"));
    for (int r = 0; r < size; r++) {
      snprintf(d, sizeof d, "%s", ex ? fupermod_exec_describe(ex) : fupermod_error_message());
      MPI_Bcast(d, sizeof d, MPI_CHAR, r, MPI_COMM_WORLD);
      diag("rank %d: %s", r, d);
    }
  }
  ok(got >= level, "MPI gives %s (SUMMA progresses %s)", fupermod_mpi_thread_name(level),
     level == MPI_THREAD_SERIALIZED ? "from a helper thread" : "between GEMM chunks");
  test_exact();
  test_random();
  test_bad_input();
  test_extents();
  test_pieces();
  status = done_testing();
  fupermod_exec_close(ex);
  MPI_Allreduce(MPI_IN_PLACE, &status, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return status;
}
