/* Matrix layouts: spec 6.6 T1 (KL 2 x 7 => H = 9), T2, T9 (BR program values and columns), the
 * BR program against brute force over every set partition (consecutive-in-sorted-order claim),
 * exact tiling and area accuracy on thousands of random instances (primes, zero areas, M and N
 * not multiples of anything), the 1.5D path through real 1D partitioners, layout files and
 * bad input; fitting a layout's sizes to time models against brute force; layouts with pieces
 * and the square-corner layout with its local fit. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fupermod/fupermod.h"
#include "partitioners/matrix.h"
#include "partitioners/partitioners.h"
#include "tests/tap.h"

static uint64_t rng_state = 0x2dcafe1405ULL;
static uint64_t rnd64(void) {
  uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
static double urand(double a, double b) { return a + (b - a) * (double)(rnd64() >> 11) / 9007199254740992.0; }
static int irand(int a, int b) { return a + (int)(rnd64() % (uint64_t)(b - a + 1)); }

/* Processes per column, left to right (columns ordered by their first block column). */
static int column_sizes(const fupermod_layout *l, int *sizes, int *starts) {
  int n = 0;
  for (int j = 0; j < l->ncols; j++) sizes[j] = 0, starts[j] = -1;
  for (int i = 0; i < l->p; i++)
    if (l->column[i] >= 0) {
      sizes[l->column[i]]++;
      starts[l->column[i]] = l->rects[i].col;
    }
  /* sort columns by start (insertion sort; few columns) */
  for (int a = 1; a < l->ncols; a++)
    for (int b = a; b > 0 && starts[b - 1] > starts[b]; b--) {
      int t = starts[b];
      starts[b] = starts[b - 1], starts[b - 1] = t;
      t = sizes[b];
      sizes[b] = sizes[b - 1], sizes[b - 1] = t;
    }
  for (int j = 0; j < l->ncols; j++) n += sizes[j];
  return n;
}

/* Brute force: minimum over every set partition of the processes into columns of
 * c + sum_j r_j w_j (areas normalised to 1), by restricted growth strings. */
static double brute_force_H(const double *a, int q, int cmax_fixed) {
  int lab[12] = {0}, mx[12] = {0};
  double best = INFINITY, tot = 0.0;
  for (int i = 0; i < q; i++) tot += a[i];
  for (;;) {
    int c = 0;
    double w[12] = {0};
    int r[12] = {0};
    for (int i = 0; i < q; i++) {
      w[lab[i]] += a[i] / tot;
      r[lab[i]]++;
      if (lab[i] + 1 > c) c = lab[i] + 1;
    }
    if (cmax_fixed <= 0 || c == cmax_fixed) {
      double H = c;
      for (int j = 0; j < c; j++) H += r[j] * w[j];
      if (H < best) best = H;
    }
    /* next restricted growth string */
    int i = q - 1;
    while (i > 0 && lab[i] == mx[i - 1] + 1) i--;
    if (i == 0) break;
    lab[i]++;
    for (int k = i + 1; k < q; k++) lab[k] = 0;
    for (int k = i; k < q; k++) mx[k] = (lab[k] > mx[k - 1]) ? lab[k] : mx[k - 1];
  }
  return best;
}

static int is_prime(int n) {
  if (n < 2) return 0;
  for (int d = 2; d * d <= n; d++)
    if (n % d == 0) return 0;
  return 1;
}

static void test_t1_kl(void) {
  double areas[14];
  int sizes[2] = {7, 7}, ok_all = 1;
  for (int trial = 0; trial < 50; trial++) {
    fupermod_layout *l = NULL;
    for (int i = 0; i < 14; i++) areas[i] = trial == 0 ? 1.0 : urand(0.2, 5.0);
    if (fupermod_layout_kl(areas, 14, 2, sizes, 840, 840, &l) != FUPERMOD_SUCCESS ||
        fupermod_layout_check(l) != FUPERMOD_SUCCESS || fabs(fupermod_layout_volume(l) - 9.0) > 1e-12 ||
        l->ncols != 2) {
      diag("trial %d: %s H = %g", trial, fupermod_error_message(), l ? fupermod_layout_volume(l) : NAN);
      ok_all = 0;
    }
    fupermod_layout_free(l);
  }
  ok(ok_all, "T1: KL with 14 processors in 2 columns of 7 tiles 840x840 with H = 9 for any speeds (50 vectors)");
  {
    /* T2 with the spec's FPM-BR value, and BR never worse than the KL 2 x 7 arrangement */
    double H[14];
    int never_worse = 1;
    ok(fabs((9.0 - 7.457) / 9.0 - 0.171) < 5e-4, "T2: (9 - 7.457)/9 = 17.1%%");
    for (int trial = 0; trial < 200; trial++) {
      for (int i = 0; i < 14; i++) areas[i] = urand(0.05, 3.0);
      if (fupermod_br_table(areas, 14, 14, H) != FUPERMOD_SUCCESS) never_worse = 0;
      double best = INFINITY;
      for (int c = 0; c < 14; c++)
        if (H[c] < best) best = H[c];
      if (!(best <= 9.0 + 1e-12) || !(H[1] <= 9.0 + 1e-12)) never_worse = 0;
    }
    ok(never_worse, "BR optimum <= 9 (the sorted 2 x 7 split) for 200 random 14-area vectors");
  }
}

static void test_t9_br(void) {
  double eq[16], H[16];
  const double want[5] = {15.0, 9.0, 3.0 + 66.0 / 14.0, 4.0 + 50.0 / 14.0, 5.0 + 40.0 / 14.0};
  int good = 1;
  fupermod_layout *l = NULL;
  for (int i = 0; i < 16; i++) eq[i] = 1.0;
  ok(fupermod_br_table(eq, 14, 16, H) == FUPERMOD_SUCCESS, "br_table on 14 equal areas");
  for (int c = 0; c < 5; c++)
    if (fabs(H[c] - want[c]) > 1e-12) {
      diag("c = %d: H = %.15g, want %.15g", c + 1, H[c], want[c]);
      good = 0;
    }
  ok(good, "T9: best H by column count c = 1..5 is 15, 9, 7.7143, 7.5714, 7.8571");
  ok(isinf(H[14]) && isinf(H[15]), "T9: more columns than processes is infeasible (H = inf)");
  {
    double best = INFINITY;
    int bc = 0;
    for (int c = 0; c < 14; c++)
      if (H[c] < best) best = H[c], bc = c + 1;
    ok(bc == 4 && fabs(best - (4.0 + 50.0 / 14.0)) < 1e-12, "T9: optimum 4 + 50/14 = %.4f with 4 columns", best);
  }
  if (fupermod_layout_br(eq, 14, 0, 840, 840, &l) == FUPERMOD_SUCCESS) {
    int sizes[16], starts[16];
    column_sizes(l, sizes, starts);
    ok(fupermod_layout_check(l) == FUPERMOD_SUCCESS, "BR 14 equal areas on 840x840 tiles exactly");
    ok(l->ncols == 4 && sizes[0] == 3 && sizes[1] == 3 && sizes[2] == 4 && sizes[3] == 4,
       "T9: BR layout has columns of 3, 3, 4, 4 processes (got %d columns: %d %d %d %d)", l->ncols, sizes[0],
       sizes[1], sizes[2], sizes[3]);
    ok(fabs(fupermod_layout_volume(l) - (4.0 + 50.0 / 14.0)) < 1e-12,
       "T9: integer layout H = %.15g = 4 + 50/14 (840 is divisible by 3, 4 and 14)", fupermod_layout_volume(l));
    {
      int areas_equal = 1;
      for (int i = 0; i < 14; i++) areas_equal &= fupermod_layout_area(l, i) == 840L * 840 / 14;
      ok(areas_equal, "T9: every process gets exactly 840*840/14 blocks");
    }
    fupermod_layout_free(l);
  } else {
    ok(0, "BR 14 equal areas: %s", fupermod_error_message());
  }
  /* areas (0.1, 0.2, 0.3, 0.4), given out of order */
  {
    double a[4] = {0.3, 0.1, 0.4, 0.2};
    ok(fupermod_br_table(a, 4, 4, H) == FUPERMOD_SUCCESS && fabs(fmin(fmin(H[0], H[1]), fmin(H[2], H[3])) - 4.0) < 1e-12,
       "T9: areas (0.1, 0.2, 0.3, 0.4) give H = 4.0");
    if (fupermod_layout_br(a, 4, 0, 21, 10, &l) == FUPERMOD_SUCCESS) {
      /* ranks 1 (0.1) and 3 (0.2) share a column of width 3; ranks 0 (0.3) and 2 (0.4) width 7;
       * 21 rows make every height an integer */
      ok(l->ncols == 2 && l->column[1] == l->column[3] && l->column[0] == l->column[2] &&
             l->column[1] != l->column[0] && l->rects[1].width == 3 && l->rects[0].width == 7 &&
             l->rects[1].col == 0 && fabs(fupermod_layout_volume(l) - 4.0) < 1e-12,
         "T9: columns {0.1, 0.2} (width 3 of 10) and {0.3, 0.4} (width 7), H = %g", fupermod_layout_volume(l));
      ok(fupermod_layout_area(l, 1) == 21 && fupermod_layout_area(l, 3) == 42 && fupermod_layout_area(l, 0) == 63 &&
             fupermod_layout_area(l, 2) == 84,
         "T9: on 21 x 10 blocks the areas are 21, 42, 63, 84 exactly");
      fupermod_layout_free(l);
    } else {
      ok(0, "BR (0.1..0.4): %s", fupermod_error_message());
    }
  }
  /* square grids */
  {
    int sq[3] = {4, 9, 16};
    for (int t = 0; t < 3; t++) {
      int p = sq[t], r = (int)lround(sqrt(p)), sizes[16], starts[16], same = 1;
      if (fupermod_layout_br(eq, p, 0, 240, 240, &l) != FUPERMOD_SUCCESS) {
        ok(0, "BR %d equal: %s", p, fupermod_error_message());
        continue;
      }
      column_sizes(l, sizes, starts);
      for (int j = 0; j < l->ncols; j++) same &= sizes[j] == r;
      ok(l->ncols == r && same && fabs(fupermod_layout_volume(l) - 2.0 * r) < 1e-12 &&
             fupermod_layout_check(l) == FUPERMOD_SUCCESS,
         "T9: %d equal areas give a %d x %d grid with H = %d", p, r, r, 2 * r);
      fupermod_layout_free(l);
    }
  }
}

/* The DP against every set partition, for random small instances. */
static void test_br_brute_force(void) {
  int good_opt = 1, good_fixed = 1, n = 0;
  for (int trial = 0; trial < 300; trial++) {
    int q = irand(1, 8);
    double a[12], H[12];
    for (int i = 0; i < q; i++) a[i] = trial % 3 == 0 ? (double)irand(1, 4) : urand(0.01, 1.0);
    if (fupermod_br_table(a, q, q, H) != FUPERMOD_SUCCESS) {
      good_opt = 0;
      continue;
    }
    double best = INFINITY;
    for (int c = 0; c < q; c++) best = fmin(best, H[c]);
    if (fabs(best - brute_force_H(a, q, 0)) > 1e-12) {
      diag("q = %d: DP %.15g, brute force %.15g", q, best, brute_force_H(a, q, 0));
      good_opt = 0;
    }
    if (q <= 6)
      for (int c = 1; c <= q; c++)
        if (fabs(H[c - 1] - brute_force_H(a, q, c)) > 1e-12) good_fixed = 0;
    /* the layout's integer H approaches the real optimum on a fine matrix */
    {
      fupermod_layout *l = NULL;
      if (fupermod_layout_br(a, q, 0, 100000, 100000, &l) != FUPERMOD_SUCCESS ||
          fabs(fupermod_layout_volume(l) - best) > 1e-3 * q)
        good_opt = 0;
      fupermod_layout_free(l);
    }
    n++;
  }
  ok(good_opt, "BR program optimal over all set partitions into columns (%d random instances, q <= 8)", n);
  ok(good_fixed, "BR table optimal for every fixed column count (q <= 6)");
}

/* Tiling and area accuracy on random instances. */
static void test_random_tiling(void) {
  int n = 0, bad_tiling = 0, bad_zero = 0, bad_area = 0, primes = 0, with_zero = 0, bad_cols = 0;
  for (int trial = 0; trial < 4000; trial++) {
    int p = trial % 10 == 0 ? irand(60, 150) : irand(1, 40), M = irand(1, 300), N = irand(1, 300);
    int alg = trial % 3, ncols = 0, zero = 0;
    double *a = malloc((size_t)p * sizeof *a), tot = 0.0;
    fupermod_layout *l = NULL;
    int rc;
    for (int i = 0; i < p; i++) {
      a[i] = rnd64() % 7 == 0 ? 0.0 : (trial % 2 ? urand(0.001, 1.0) : (double)irand(1, 5));
      tot += a[i];
    }
    if (tot == 0.0) a[irand(0, p - 1)] = 1.0, tot = 1.0;
    for (int i = 0; i < p; i++) zero |= a[i] == 0.0;
    if (alg == 0) {
      ncols = irand(0, p < 12 ? p : 12);
      rc = fupermod_layout_kl(a, p, ncols, NULL, M, N, &l);
    } else if (alg == 1) {
      int q = 0;
      for (int i = 0; i < p; i++) q += a[i] > 0.0;
      ncols = trial % 5 == 1 ? irand(1, q < N ? q : N) : 0;
      rc = fupermod_layout_br(a, p, ncols, M, N, &l);
    } else {
      rc = fupermod_layout_by_name("even", a, p, M, N, &l);
    }
    n++;
    primes += is_prime(p);
    with_zero += zero && alg != 2;
    if (rc != FUPERMOD_SUCCESS || fupermod_layout_check(l) != FUPERMOD_SUCCESS) {
      if (bad_tiling++ < 3) diag("alg %d p %d M %d N %d: %s", alg, p, M, N, fupermod_error_message());
      free(a);
      fupermod_layout_free(l);
      continue;
    }
    if (alg == 1 && ncols > 0 && l->ncols > ncols) bad_cols++;
    if (l->ncols > N) bad_cols++;
    for (int i = 0; i < p; i++) {
      double ideal = (alg == 2 ? 1.0 / p : a[i] / tot) * (double)M * N;
      long got = fupermod_layout_area(l, i);
      if (alg != 2 && a[i] == 0.0 && got != 0) bad_zero++;
      /* |W h - wN hM| < W + hM <= N + M: one block of rounding in each dimension */
      if (fabs((double)got - ideal) > (double)M + N + 1e-9) {
        if (bad_area++ < 3) diag("alg %d p %d M %d N %d: process %d has %ld blocks, ideal %.2f", alg, p, M, N, i, got, ideal);
      }
    }
    free(a);
    fupermod_layout_free(l);
  }
  ok(bad_tiling == 0, "exact tiling on %d random instances (%d with prime p, %d with zero areas)", n, primes,
     with_zero);
  ok(bad_zero == 0, "zero-area processes always get an empty rectangle");
  ok(bad_area == 0, "every area within M + N blocks of its share (one block of rounding per dimension)");
  ok(bad_cols == 0, "never more columns than requested, nor than N");
}

/* More processes than blocks, one block, a single process. */
static void test_degenerate(void) {
  double a[50];
  fupermod_layout *l = NULL;
  for (int i = 0; i < 50; i++) a[i] = 1.0 + i % 3;
  {
    int rc = fupermod_layout_br(a, 50, 0, 3, 4, &l);
    ok(rc == FUPERMOD_SUCCESS && fupermod_layout_check(l) == FUPERMOD_SUCCESS && l->ncols <= 4,
       "50 processes on 3 x 4 blocks: exact tiling, %d columns", l ? l->ncols : -1);
  }
  fupermod_layout_free(l);
  ok(fupermod_layout_br(a, 7, 0, 1, 1, &l) == FUPERMOD_SUCCESS && fupermod_layout_check(l) == FUPERMOD_SUCCESS,
     "7 processes on one block");
  {
    int owners = 0;
    for (int i = 0; l && i < 7; i++) owners += fupermod_layout_area(l, i) == 1;
    ok(owners == 1, "exactly one process owns the single block");
  }
  fupermod_layout_free(l);
  ok(fupermod_layout_kl(a, 1, 0, NULL, 5, 9, &l) == FUPERMOD_SUCCESS && l->rects[0].height == 5 &&
         l->rects[0].width == 9,
     "one process owns the whole 5 x 9 matrix");
  fupermod_layout_free(l);
}

/* Thousands of processes (the O(p^2) program and the tiling check's sweep stay fast). */
static void test_large(void) {
  int p = 3000;
  double *a = malloc((size_t)p * sizeof *a);
  fupermod_layout *l = NULL;
  for (int i = 0; i < p; i++) a[i] = urand(0.5, 2.0);
  int rc = fupermod_layout_br(a, p, 0, 4000, 4000, &l);
  ok(rc == FUPERMOD_SUCCESS && fupermod_layout_check(l) == FUPERMOD_SUCCESS && l->ncols > 30 && l->ncols < 80,
     "BR with 3000 processes on 4000 x 4000 blocks: exact tiling, %d columns, H = %.2f", l ? l->ncols : -1,
     l ? fupermod_layout_volume(l) : NAN);
  fupermod_layout_free(l);
  free(a);
}

static fupermod_model *cpm_model(long d, double t) {
  fupermod_point pt = FUPERMOD_POINT_INIT;
  fupermod_points pts = {1, &pt, 0};
  fupermod_model *m = NULL;
  pt.d = d;
  pt.t = t;
  if (fupermod_model_create("cpm", &pts, 0, &m) != FUPERMOD_SUCCESS) diag("model: %s", fupermod_error_message());
  return m;
}

static void test_15d(void) {
  const double speed[4] = {1, 2, 3, 4};
  const char *parts[3] = {"cpm", "geometric", "numerical"};
  fupermod_model *m[4];
  for (int i = 0; i < 4; i++) m[i] = cpm_model(10, 10.0 / speed[i]);
  for (int k = 0; k < 3; k++) {
    const fupermod_partitioner *alg = fupermod_partitioner_find(parts[k]);
    fupermod_dist *dist = fupermod_dist_alloc(210, 4);
    fupermod_layout *l = NULL, *ref = NULL;
    double areas[4];
    if (!alg || !alg->continuous) {
      skip("partitioner not built");
      fupermod_dist_free(dist);
      continue;
    }
    int rc = fupermod_layout_15d(alg->continuous, 4, m, 21, 10, dist, &l);
    ok(rc == FUPERMOD_SUCCESS && dist->parts[0].d == 21 && dist->parts[1].d == 42 && dist->parts[2].d == 63 &&
           dist->parts[3].d == 84,
       "1.5D with %s over single-point models, speeds 1:2:3:4, 21 x 10 blocks: areas 21, 42, 63, 84", parts[k]);
    for (int i = 0; i < 4; i++) areas[i] = (double)dist->parts[i].d;
    if (rc == FUPERMOD_SUCCESS && fupermod_layout_br(areas, 4, 0, 21, 10, &ref) == FUPERMOD_SUCCESS) {
      int same = l->ncols == ref->ncols;
      for (int i = 0; i < 4; i++)
        same &= memcmp(&l->rects[i], &ref->rects[i], sizeof l->rects[i]) == 0 &&
                fupermod_layout_area(l, i) == dist->parts[i].d;
      ok(same && fabs(fupermod_layout_volume(l) - 4.0) < 1e-12,
         "1.5D (%s): shapes are the BR layout of those areas, H = 4", parts[k]);
    } else {
      ok(0, "1.5D (%s): %s", parts[k], fupermod_error_message());
    }
    fupermod_layout_free(l);
    fupermod_layout_free(ref);
    fupermod_dist_free(dist);
  }
  {
    fupermod_layout *l = NULL;
    fupermod_dist *bad = fupermod_dist_alloc(99, 4);
    ok(fupermod_layout_15d(fupermod_partitioner_find("cpm")->continuous, 4, m, 21, 10, bad, &l) == FUPERMOD_ERR_USAGE &&
           strstr(fupermod_error_message(), "dist") && !l,
       "1.5D rejects a dist whose D is not M*N: %s", fupermod_error_message());
    ok(fupermod_layout_15d(NULL, 4, m, 10, 10, NULL, &l) == FUPERMOD_ERR_USAGE && strstr(fupermod_error_message(), "partition"),
       "1.5D rejects a NULL partitioner");
    fupermod_dist_free(bad);
  }
  for (int i = 0; i < 4; i++) fupermod_model_free(m[i]);
}

static int write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  fputs(text, f);
  return fclose(f);
}

static void test_files(void) {
  char dir[] = "/tmp/test_matrix.XXXXXX", path[256];
  double a[7] = {3, 0, 1, 2, 5, 1, 4};
  fupermod_layout *l = NULL, *back = NULL;
  if (!mkdtemp(dir)) {
    skip("mkdtemp failed");
    return;
  }
  snprintf(path, sizeof path, "%s/l.layout", dir);
  fupermod_layout_br(a, 7, 0, 37, 23, &l);
  ok(fupermod_layout_save(path, l, "test") == FUPERMOD_SUCCESS, "layout saved");
  ok(fupermod_layout_load(path, &back) == FUPERMOD_SUCCESS && back->p == 7 && back->M == 37 && back->N == 23 &&
         back->ncols == l->ncols && memcmp(back->rects, l->rects, 7 * sizeof *l->rects) == 0 &&
         memcmp(back->column, l->column, 7 * sizeof *l->column) == 0,
     "layout file reads back identically");
  fupermod_layout_free(back);
  back = NULL;
  {
    struct {
      const char *text, *needle, *what;
    } bad[] = {
        {"2 2 2 0\n0 0 0 2 1 -1\n1 0 0 2 1 -1\n", "overlap", "overlapping rectangles"},
        {"2 2 2 0\n0 0 0 2 1 -1\n", "1 of 2 ranks", "a missing rank"},
        {"2 2 2 1\n0 0 0 2 1 -1\n0 0 1 2 1 -1\n", ":1: ncols = 1", "a rank on several lines with ncols > 0"},
        {"2 2 2 0\n0 0 0 2 1 -1\n0 0 1 2 1 0\n", ":3: column 0", "a piece with a column"},
        {"2 4 4 0\n0 0 0 2 4 -1\n0 2 0 2 1 -1\n1 2 0 2 3 -1\n", ":4: rank 1's piece overlaps rank 0's of line 3",
         "overlapping pieces"},
        {"2 4 4 0\n0 0 0 2 4 -1\n0 2 0 2 1 -1\n1 2 2 2 3 -1\n", ":4: rank 1's piece (row 2, col 2, 2 x 3) lies outside",
         "a piece outside the matrix"},
        {"2 4 4 0\n0 0 0 2 4 -1\n0 2 0 2 1 -1\n1 2 2 2 2 -1\n", "pieces cover 14 blocks", "pieces with a gap"},
        {"2 2 2\n", ":1: expected the header", "a short header"},
        {"1 2 2 0\n0 0 0 2 x -1\n", ":2: field 5", "a non-integer field"},
        {"1 2 2 0\n0 0 0 2 3 -1\n", "outside", "a rectangle outside the matrix"},
        {"2 2 2 0\n0 0 0 1 2 -1\n1 0 0 0 0 -1\n", "cover 2 blocks", "a gap"},
        {"2 2 2 2\n0 0 0 2 1 0\n1 0 1 2 1 0\n", "different column extents", "a column with two extents"},
        {"# only a comment\n", "empty layout", "an empty file"},
        {"0 2 2 0\n", "p = 0", "p = 0"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
      snprintf(path, sizeof path, "%s/bad%zu.layout", dir, k);
      write_text(path, bad[k].text);
      int rc = fupermod_layout_load(path, &back);
      ok(rc == FUPERMOD_ERR_INPUT && !back && strstr(fupermod_error_message(), path) &&
             strstr(fupermod_error_message(), bad[k].needle),
         "layout file with %s is rejected: %s", bad[k].what, fupermod_error_message());
      fupermod_layout_free(back);
      back = NULL;
      unlink(path);
    }
  }
  ok(fupermod_layout_load("/nonexistent/x.layout", &back) != FUPERMOD_SUCCESS && !back &&
         strstr(fupermod_error_message(), "/nonexistent/x.layout"),
     "missing layout file: %s", fupermod_error_message());
  snprintf(path, sizeof path, "%s/l.layout", dir);
  unlink(path);
  rmdir(dir);
  fupermod_layout_free(l);
}

static void test_bad_input(void) {
  double a[4] = {1, 2, 3, 4}, z[3] = {0, 0, 0}, neg[3] = {1, -1, 2}, nan3[3] = {1, NAN, 2};
  int sizes[3] = {1, 2, 2}; /* sizes + 1 = {2, 2}: two columns that do not sum to p = 3 */
  fupermod_layout *l = NULL;
#define BAD(call, needle, what)                                                                          \
  do {                                                                                                   \
    int rc_ = (call);                                                                                    \
    ok(rc_ == FUPERMOD_ERR_USAGE && !l && strstr(fupermod_error_message(), needle), "%s: %s", what,        \
       fupermod_error_message());                                                                        \
    fupermod_layout_free(l);                                                                             \
    l = NULL;                                                                                            \
  } while (0)
  BAD(fupermod_layout_br(NULL, 4, 0, 4, 4, &l), "areas", "NULL areas");
  BAD(fupermod_layout_br(neg, 3, 0, 4, 4, &l), "areas[1]", "negative area");
  BAD(fupermod_layout_br(nan3, 3, 0, 4, 4, &l), "areas[1]", "NaN area");
  BAD(fupermod_layout_br(z, 3, 0, 4, 4, &l), "sum", "all areas zero");
  BAD(fupermod_layout_br(a, 0, 0, 4, 4, &l), "p = 0", "p = 0");
  BAD(fupermod_layout_br(a, 4, 0, 0, 4, &l), "M = 0", "M = 0");
  BAD(fupermod_layout_br(a, 4, 5, 8, 8, &l), "ncols = 5", "more columns than processes");
  BAD(fupermod_layout_br(a, 4, 3, 8, 2, &l), "N = 2", "more columns than block columns");
  BAD(fupermod_layout_kl(a, 3, 2, sizes + 1, 4, 4, &l), "col_sizes", "KL column sizes not summing to p");
  BAD(fupermod_layout_kl(a, 3, 4, NULL, 4, 4, &l), "ncols = 4", "KL with more columns than processes");
  BAD(fupermod_layout_by_name("zz", a, 4, 4, 4, &l), "zz", "unknown algorithm");
  {
    double H[2];
    ok(fupermod_br_table(a, 4, 0, H) == FUPERMOD_ERR_USAGE && strstr(fupermod_error_message(), "cmax"),
       "br_table with cmax = 0: %s", fupermod_error_message());
  }
  {
    fupermod_layout *t = NULL;
    fupermod_layout_alloc(2, 2, 2, &t);
    t->rects[0] = (fupermod_rect){0, 0, 2, 1};
    t->rects[1] = (fupermod_rect){0, 1, 2, 1};
    t->column[0] = t->column[1] = -1;
    ok(fupermod_layout_check(t) == FUPERMOD_SUCCESS, "hand-made 2-process general tiling passes the check");
    t->rects[1].row = 1;
    t->rects[1].height = 1;
    ok(fupermod_layout_check(t) == FUPERMOD_ERR_INPUT, "a gap is caught: %s", fupermod_error_message());
    t->rects[1] = (fupermod_rect){0, 0, 1, 2};
    t->rects[0] = (fupermod_rect){0, 1, 2, 1};
    ok(fupermod_layout_check(t) == FUPERMOD_ERR_INPUT && strstr(fupermod_error_message(), "overlap"),
       "an overlap with an equal total area is caught: %s", fupermod_error_message());
    fupermod_layout_free(t);
  }
#undef BAD
}

/* Layout fitting: an area-indexed time table per process. */
typedef struct {
  double t[8][64]; /* t[i][area], area 1..M*N */
} fit_tables;

static double table_time(int i, long area, void *ctx) { return ((const fit_tables *)ctx)->t[i][area]; }

/* Next composition of a total into m parts >= 1 (last part absorbs the rest); 0 after the last. */
static int next_composition(int *h, int m) {
  for (int y = m - 2; y >= 0; y--) {
    if (h[m - 1] > 1) {
      h[y]++;
      h[m - 1]--;
      return 1;
    }
    h[m - 1] += h[y] - 1;
    h[y] = 1;
  }
  return 0;
}

/* Brute force over every column width and member height (each >= 1) of the arrangement: cols
 * lists the members column by column, cnt[j] of them in column j. */
static double fit_brute(int M, int N, const fit_tables *ft, int c, const int *cols, const int *cnt) {
  double best = INFINITY;
  int w[8];
  if (N < c) return INFINITY;
  for (int x = 0; x < c; x++) w[x] = 1;
  w[c - 1] = N - (c - 1);
  do {
    double worst = 0.0;
    for (int j = 0, off = 0; j < c; off += cnt[j], j++) {
      int h[8], m = cnt[j];
      double colbest = INFINITY;
      for (int y = 0; y < m; y++) h[y] = 1;
      h[m - 1] = M - (m - 1);
      if (h[m - 1] >= 1) do {
          double v = 0.0;
          for (int y = 0; y < m; y++) v = fmax(v, ft->t[cols[off + y]][w[j] * h[y]]);
          colbest = fmin(colbest, v);
        } while (next_composition(h, m));
      worst = fmax(worst, colbest);
    }
    best = fmin(best, worst);
  } while (next_composition(w, c));
  return best;
}

/* Members of each column in position order (left to right, top to bottom); returns the columns. */
static int fit_columns(const fupermod_layout *l, int *cols, int *cnt) {
  int c = 0, n = 0;
  for (int col = 0; col < l->N; col++) {
    int m = 0;
    for (int row = 0; row < l->M; row++)
      for (int i = 0; i < l->p; i++)
        if (l->rects[i].height > 0 && l->rects[i].col == col && l->rects[i].row == row) cols[n++] = i, m++;
    if (m) cnt[c++] = m;
  }
  return c;
}

static double half_time(int i, long area, void *ctx) {
  (void)ctx;
  return i == 0 ? (double)area / 2.0 : (double)area;
}

static double speed_time(int i, long area, void *ctx) { return (double)area / ((const double *)ctx)[i]; }

static void test_fit(void) {
  int n = 0, good_opt = 1, good_shape = 1, good_time = 1;
  for (int trial = 0; trial < 600; trial++) {
    fit_tables ft;
    double a[8], tmax = -1, worst = 0.0, brute;
    int p = irand(1, 5), M = irand(2, 6), N = irand(2, 6), kind = trial % 3, q = 0;
    int cols0[8], cnt0[8], cols1[8], cnt1[8], c0, c1;
    fupermod_layout *l = NULL, *f = NULL;
    for (int i = 0; i < p; i++) a[i] = (i > 0 && irand(0, 5) == 0) ? 0.0 : urand(0.1, 1.0);
    for (int i = 0; i < p; i++) {
      double s = urand(0.5, 3.0), acc = 0.0;
      for (int x = 1; x <= M * N; x++) {
        if (kind == 0) acc += urand(0.0, 1.0) / s; /* increasing */
        else if (kind == 1) acc = urand(0.0, 10.0); /* anything */
        else acc = (double)irand(1, 3) * x;         /* many ties */
        ft.t[i][x] = acc;
      }
    }
    if (fupermod_layout_br(a, p, 0, M, N, &l) != FUPERMOD_SUCCESS) continue;
    if (fupermod_layout_fit(l, table_time, &ft, &f, &tmax) != FUPERMOD_SUCCESS) {
      good_opt = 0;
      fupermod_layout_free(l);
      continue;
    }
    n++;
    c0 = fit_columns(l, cols0, cnt0);
    c1 = fit_columns(f, cols1, cnt1);
    for (int j = 0; j < c0; j++) q += cnt0[j];
    if (fupermod_layout_check(f) != FUPERMOD_SUCCESS || c0 != c1 || memcmp(cnt0, cnt1, (size_t)c0 * sizeof *cnt0) ||
        memcmp(cols0, cols1, (size_t)q * sizeof *cols0))
      good_shape = 0;
    for (int i = 0; i < p; i++)
      if (fupermod_layout_area(f, i) > 0) worst = fmax(worst, ft.t[i][fupermod_layout_area(f, i)]);
      else if (fupermod_layout_area(l, i) > 0) good_shape = 0;
    if (worst != tmax) good_time = 0;
    brute = fit_brute(M, N, &ft, c0, cols0, cnt0);
    if (fabs(tmax - brute) > 1e-12 * fmax(1.0, tmax)) {
      if (good_opt) diag("fit: M %d N %d p %d kind %d: fit %.15g, brute force %.15g", M, N, p, kind, tmax, brute);
      good_opt = 0;
    }
    fupermod_layout_free(l);
    fupermod_layout_free(f);
  }
  ok(good_opt, "layout fit: the least predicted time over every width and height, as brute force finds (%d instances)", n);
  ok(good_shape, "layout fit: a tiling with the same columns, members in the same order, none emptied");
  ok(good_time, "layout fit: the reported time is the worst process's on the fitted areas");

  /* 306 144 126 blocks of 24 x 24 with process 0 twice as fast: BR's rounding gives process 0 a
   * whole block column more than its share */
  {
    double a[3] = {306, 144, 126}, tmax = 0.0;
    fupermod_layout *l = NULL, *f = NULL;
    int r = fupermod_layout_br(a, 3, 0, 24, 24, &l);
    ok(r == FUPERMOD_SUCCESS && fupermod_layout_area(l, 0) == 312 && fupermod_layout_area(l, 2) == 121,
       "BR realises 306 144 126 as %ld %ld %ld", l ? fupermod_layout_area(l, 0) : -1L,
       l ? fupermod_layout_area(l, 1) : -1L, l ? fupermod_layout_area(l, 2) : -1L);
    ok(l && fupermod_layout_fit(l, half_time, NULL, &f, &tmax) == FUPERMOD_SUCCESS && tmax == 144.0 &&
           fupermod_layout_area(f, 0) == 288 && fupermod_layout_area(f, 1) == 144 && fupermod_layout_area(f, 2) == 144,
       "fit: 288 144 144, predicted 144, where BR's sizes predict 156");
    fupermod_layout_free(l);
    fupermod_layout_free(f);
  }
  /* beyond the exact budget: a window around the given sizes, never worse than them */
  {
    double sp[4] = {1.0, 2.7, 0.6, 1.9}, a[4] = {1.3, 2.1, 0.9, 1.5}, tmax = 0.0, t0 = 0.0, sum = 0.0;
    fupermod_layout *l = NULL, *f = NULL;
    int M = 500, N = 500, r;
    if (fupermod_layout_br(a, 4, 0, M, N, &l) == FUPERMOD_SUCCESS)
      for (int i = 0; i < 4; i++) t0 = fmax(t0, fupermod_layout_area(l, i) / sp[i]);
    for (int i = 0; i < 4; i++) sum += sp[i];
    r = l ? fupermod_layout_fit(l, speed_time, sp, &f, &tmax) : -1;
    ok(r == FUPERMOD_SUCCESS && fupermod_layout_check(f) == FUPERMOD_SUCCESS && tmax < t0 && tmax <= 1.01 * M * N / sum,
       "fit on 500 x 500 blocks (windowed): predicted %.1f, given sizes %.1f, continuous optimum %.1f", tmax, t0,
       M * N / sum);
    fupermod_layout_free(l);
    fupermod_layout_free(f);
  }
  /* bad input */
  {
    fupermod_layout *l = NULL, *f = (fupermod_layout *)1;
    double a[2] = {1, 1};
    ok(fupermod_layout_alloc(2, 4, 4, &l) == FUPERMOD_SUCCESS &&
           fupermod_layout_fit(l, half_time, NULL, &f, NULL) == FUPERMOD_ERR_USAGE && f == NULL &&
           strstr(fupermod_error_message(), "column-based"),
       "fit refuses a layout that is not column-based: %s", fupermod_error_message());
    fupermod_layout_free(l);
    l = NULL;
    ok(fupermod_layout_br(a, 2, 0, 4, 4, &l) == FUPERMOD_SUCCESS &&
           fupermod_layout_fit(l, NULL, NULL, &f, NULL) == FUPERMOD_ERR_USAGE,
       "fit refuses a NULL time function");
    fupermod_layout_free(l);
  }
}

/* ---- layouts with pieces and the square-corner layout ---- */

/* Process i's pieces in order (a plain layout: its rectangle); returns how many. */
static int pieces_of(const fupermod_layout *l, int i, fupermod_rect *out, int cap) {
  int c = 0;
  if (l->npieces <= 0) {
    if (l->rects[i].height > 0 && l->rects[i].width > 0 && cap > 0) out[c++] = l->rects[i];
    return c;
  }
  for (int j = 0; j < l->npieces; j++)
    if (l->owner[j] == i) {
      if (c < cap) out[c] = l->pieces[j];
      c++;
    }
  return c;
}

/* Owner of every block, painted from the pieces (-1: none, -2: painted twice); 0 when a piece
 * leaves the matrix. */
static int paint(const fupermod_layout *l, int *grid) {
  int n = l->npieces > 0 ? l->npieces : l->p;
  for (int k = 0; k < l->M * l->N; k++) grid[k] = -1;
  for (int j = 0; j < n; j++) {
    const fupermod_rect *r = l->npieces > 0 ? &l->pieces[j] : &l->rects[j];
    int who = l->npieces > 0 ? l->owner[j] : j;
    for (int y = r->row; y < r->row + r->height; y++)
      for (int x = r->col; x < r->col + r->width; x++) {
        if (y < 0 || x < 0 || y >= l->M || x >= l->N) return 0;
        grid[y * l->N + x] = grid[y * l->N + x] == -1 ? who : -2;
      }
  }
  return 1;
}

/* The sides fupermod_layout_sc should give, computed here; returns the fast process. */
static int expected_sides(const double *a, int p, int M, int N, int *side) {
  int f = 0;
  double tot = 0;
  for (int i = 0; i < p; i++) tot += a[i];
  for (int i = 1; i < p; i++)
    if (a[i] > a[f]) f = i;
  for (int i = 0; i < p; i++) {
    long s = lround(sqrt(a[i] * M * N / tot));
    side[i] = i == f || a[i] <= 0 ? 0 : s < 1 ? 1 : (int)s;
  }
  return f;
}

static int sc_feasible(const int *side, int p, int M, int N) {
  long sum = 0, sq = 0;
  for (int i = 0; i < p; i++) sum += side[i], sq += (long)side[i] * side[i];
  return sum <= (M < N ? M : N) && sq < (long)M * N;
}

static void random_areas(double *a, int p) {
  int kind = irand(0, 2), dom = irand(0, p - 1);
  for (int i = 0; i < p; i++) a[i] = urand(0.05, 1.0);
  if (kind == 0) a[dom] = urand(3.0, 30.0) * p;         /* one much faster */
  if (irand(0, 9) == 0) a[(dom + 1) % p] = a[dom];       /* a tie for the fastest */
  if (kind == 2) a[(dom + irand(1, p - 1)) % p] = 0.0; /* a process with no data */
}

static void test_sc(void) {
  int feasible = 0, infeasible = 0, good = 1, good_inf = 1, good_area = 1, pieces_layouts = 0, *grid = malloc(40 * 40 * sizeof *grid);
  for (int trial = 0; trial < 3000; trial++) {
    double a[6];
    int p = irand(2, 6), M = irand(1, 40), N = irand(1, 40), side[6], f, rc;
    fupermod_layout *l = NULL;
    random_areas(a, p);
    f = expected_sides(a, p, M, N, side);
    rc = fupermod_layout_sc(a, p, M, N, &l);
    if (!sc_feasible(side, p, M, N)) {
      infeasible++;
      if (rc != FUPERMOD_ERR_INFEASIBLE || l ||
          !(strstr(fupermod_error_message(), "min(M, N)") || strstr(fupermod_error_message(), "nothing"))) {
        if (good_inf) diag("trial %d: M %d N %d p %d: rc %d: %s", trial, M, N, p, rc, fupermod_error_message());
        good_inf = 0;
      }
      fupermod_layout_free(l);
      continue;
    }
    feasible++;
    if (rc != FUPERMOD_SUCCESS || fupermod_layout_check(l) != FUPERMOD_SUCCESS || !paint(l, grid)) {
      if (good) diag("trial %d: M %d N %d p %d: rc %d: %s", trial, M, N, p, rc, fupermod_error_message());
      good = 0;
      fupermod_layout_free(l);
      continue;
    }
    pieces_layouts += l->npieces > 0;
    {
      long rest = (long)M * N, cells[6] = {0};
      int below = 0;
      for (int k = 0; k < M * N; k++)
        if (grid[k] < 0) good = 0; /* a hole or a block painted twice */
        else cells[grid[k]]++;
      for (int i = 0; i < p; i++) {
        fupermod_rect r[16];
        int c = pieces_of(l, i, r, 16);
        if (cells[i] != fupermod_layout_area(l, i)) good_area = 0;
        if (c != fupermod_layout_npieces(l, i)) good = 0;
        if (i == f || side[i] == 0) continue;
        /* one square of the expected side on the diagonal, the first in rank order at the
         * bottom-right corner */
        if (c != 1 || r[0].height != side[i] || r[0].width != side[i] || r[0].row != M - below - side[i] ||
            r[0].col != N - below - side[i]) {
          if (good) diag("trial %d: process %d: %d pieces, want one %d x %d square", trial, i, c, side[i], side[i]);
          good = 0;
        }
        below += side[i];
        rest -= (long)side[i] * side[i];
      }
      for (int i = 0; i < p; i++)
        if (i != f && side[i] == 0 && fupermod_layout_npieces(l, i) != 0) good = 0; /* zero areas own nothing */
      /* the fast process: the rest, in at most 2 pieces a square and the band above */
      if (fupermod_layout_area(l, f) != rest || fupermod_layout_npieces(l, f) > 2 * (p - 1) + 1) good = 0;
    }
    fupermod_layout_free(l);
  }
  ok(good && feasible > 1000 && pieces_layouts > 500,
     "sc: %d random layouts (p 2..6, M, N 1..40) tile the matrix; each slow process owns one square of side "
     "round(sqrt(scaled area)) on the diagonal, the fast one the rest (%d with pieces)", feasible, pieces_layouts);
  ok(good_inf && infeasible > 100, "sc: the %d infeasible instances return FUPERMOD_ERR_INFEASIBLE", infeasible);
  ok(good_area, "sc: each process's area is the number of blocks it owns");
  free(grid);

  /* a hand case: 10 x 10, areas 64, 9, 4 (scaled as given): squares 3 at rows 7..9 and 2 at rows 5..6 */
  {
    double a[3] = {87, 9, 4};
    fupermod_layout *l = NULL, *c = NULL;
    fupermod_rect want[6] = {{0, 0, 5, 10}, {5, 0, 2, 5}, {5, 5, 2, 2}, {5, 7, 2, 3}, {7, 0, 3, 7}, {7, 7, 3, 3}};
    int wown[6] = {0, 0, 2, 0, 0, 1};
    int rc = fupermod_layout_sc(a, 3, 10, 10, &l);
    ok(rc == FUPERMOD_SUCCESS && l->npieces == 6 && memcmp(l->pieces, want, sizeof want) == 0 &&
           memcmp(l->owner, wown, sizeof wown) == 0 && l->ncols == 0 && l->column[0] == -1 &&
           memcmp(&l->rects[1], &want[5], sizeof want[5]) == 0 && l->rects[0].height == 0,
       "sc on 10 x 10 with areas 87, 9, 4: the band above, then left, square, right of each square; rects[i] the "
       "single piece, empty for the fast process");
    /* H by hand: band 5/10 + 10/10, then 2/10 + 5/10, 2/10 + 2/10, 2/10 + 3/10, 3/10 + 7/10, 3/10 + 3/10 */
    ok(l && fabs(fupermod_layout_volume(l) - 4.7) < 1e-12 && fupermod_layout_area(l, 0) == 87 &&
           fupermod_layout_area(l, 1) == 9 && fupermod_layout_area(l, 2) == 4 && fupermod_layout_npieces(l, 0) == 4,
       "sc 10 x 10: H = 4.7 and areas 87, 9, 4 as counted by hand (H %.4g)", l ? fupermod_layout_volume(l) : NAN);
    ok(l && fupermod_layout_copy(l, &c) == FUPERMOD_SUCCESS && c->npieces == 6 &&
           memcmp(c->pieces, l->pieces, sizeof want) == 0 && memcmp(c->owner, l->owner, sizeof wown) == 0 &&
           c->pieces != l->pieces,
       "a layout with pieces copies its pieces");
    fupermod_layout_free(c);
    c = (fupermod_layout *)1;
    ok(l && fupermod_layout_fit(l, half_time, NULL, &c, NULL) == FUPERMOD_ERR_USAGE && c == NULL &&
           strstr(fupermod_error_message(), "pieces"),
       "fit refuses a layout with pieces: %s", fupermod_error_message());
    c = NULL;
    ok(fupermod_layout_by_name("sc", a, 3, 10, 10, &c) == FUPERMOD_SUCCESS && c && c->npieces == 6 &&
           memcmp(c->pieces, want, sizeof want) == 0,
       "layout by name: sc");
    fupermod_layout_free(c);
    /* a hand-made inconsistency: rects must follow the pieces */
    if (l) {
      l->rects[0] = (fupermod_rect){0, 0, 5, 10};
      ok(fupermod_layout_check(l) == FUPERMOD_ERR_INPUT && strstr(fupermod_error_message(), "process 0"),
         "check: rects that do not follow the pieces: %s", fupermod_error_message());
      l->rects[0] = (fupermod_rect){0, 0, 0, 0};
      l->pieces[2].width = 3;
      ok(fupermod_layout_check(l) == FUPERMOD_ERR_INPUT, "check: pieces that overlap or leave a gap: %s",
         fupermod_error_message());
      l->pieces[2].width = 2;
      l->owner[2] = 3;
      ok(fupermod_layout_check(l) == FUPERMOD_ERR_INPUT && strstr(fupermod_error_message(), "owner 3"),
         "check: an owner out of range: %s", fupermod_error_message());
    }
    fupermod_layout_free(l);
  }
  /* set_pieces: with no process owning several, the plain layout of those rectangles */
  {
    fupermod_layout *l = NULL;
    fupermod_rect pc[3] = {{0, 0, 2, 1}, {0, 1, 0, 0}, {0, 1, 2, 1}};
    int own[3] = {1, 0, 0};
    fupermod_layout_alloc(2, 2, 2, &l);
    ok(fupermod_layout_set_pieces(l, 3, pc, own) == FUPERMOD_SUCCESS && l->npieces == 0 && !l->pieces &&
           memcmp(&l->rects[1], &pc[0], sizeof pc[0]) == 0 && memcmp(&l->rects[0], &pc[2], sizeof pc[2]) == 0 &&
           fupermod_layout_check(l) == FUPERMOD_SUCCESS,
       "set_pieces: one piece each (an empty one dropped) is a plain layout");
    own[2] = 1;
    ok(fupermod_layout_set_pieces(l, 3, pc, own) == FUPERMOD_SUCCESS && l->npieces == 2 &&
           fupermod_layout_npieces(l, 1) == 2 && fupermod_layout_npieces(l, 0) == 0 && l->rects[1].height == 0 &&
           fupermod_layout_area(l, 1) == 4 && fabs(fupermod_layout_volume(l) - 3.0) < 1e-12 &&
           fupermod_layout_check(l) == FUPERMOD_SUCCESS,
       "set_pieces: two pieces of one process: area 4, H = 3 (2/2 + 1/2 each)");
    own[2] = 2;
    ok(fupermod_layout_set_pieces(l, 3, pc, own) == FUPERMOD_ERR_USAGE && strstr(fupermod_error_message(), "owner 2"),
       "set_pieces: an owner out of range: %s", fupermod_error_message());
    fupermod_layout_free(l);
  }
  /* bad input */
  {
    double neg[3] = {3, -1, 1}, a[3] = {3, 1, 1};
    fupermod_layout *l = NULL;
    ok(fupermod_layout_sc(neg, 3, 8, 8, &l) == FUPERMOD_ERR_USAGE && !l && strstr(fupermod_error_message(), "areas[1]"),
       "sc: a negative area: %s", fupermod_error_message());
    ok(fupermod_layout_sc(a, 3, 0, 8, &l) == FUPERMOD_ERR_USAGE && !l, "sc: M = 0: %s", fupermod_error_message());
    ok(fupermod_layout_sc_fit(a, 3, 8, 8, NULL, NULL, &l, NULL) == FUPERMOD_ERR_USAGE && !l, "sc fit: no time function");
  }
}

/* Monotone time tables for the square-corner fit. */
static double sc_table[6][1601];
static double sc_time(int i, long area, void *ctx) {
  (void)ctx;
  return sc_table[i][area];
}

/* The predicted time of layout l under sc_table. */
static double sc_predict(const fupermod_layout *l) {
  double t = 0;
  for (int i = 0; i < l->p; i++)
    if (fupermod_layout_area(l, i) > 0) t = fmax(t, sc_table[i][fupermod_layout_area(l, i)]);
  return t;
}

static void test_sc_fit(void) {
  int n = 0, moved = 0, good_start = 1, good_local = 1, good_time = 1, good_shape = 1;
  for (int trial = 0; trial < 1500; trial++) {
    double a[6], t0, tmax = -1;
    int p = irand(2, 6), M = irand(1, 40), N = irand(1, 40), side[6], f, lim = M < N ? M : N, rc, s[6];
    long sum = 0, sq = 0;
    fupermod_layout *l = NULL, *g = NULL;
    random_areas(a, p);
    for (int i = 0; i < p; i++) {
      double acc = 0, sp = urand(0.2, 5.0);
      sc_table[i][0] = 0;
      for (int x = 1; x <= M * N; x++) sc_table[i][x] = acc += trial % 3 == 0 ? urand(0, 2) / sp : 1.0 / sp; /* increasing */
    }
    f = expected_sides(a, p, M, N, side);
    if (fupermod_layout_sc(a, p, M, N, &l) != FUPERMOD_SUCCESS) continue;
    t0 = sc_predict(l);
    rc = fupermod_layout_sc_fit(a, p, M, N, sc_time, NULL, &g, &tmax);
    if (rc != FUPERMOD_SUCCESS || fupermod_layout_check(g) != FUPERMOD_SUCCESS) {
      good_shape = 0;
      fupermod_layout_free(l);
      continue;
    }
    n++;
    if (!(tmax <= t0)) good_start = 0;
    if (tmax < t0) moved++;
    if (tmax != sc_predict(g)) good_time = 0;
    for (int i = 0; i < p; i++) {
      fupermod_rect r[2];
      s[i] = 0;
      if (i == f || side[i] == 0) {
        if (i != f && fupermod_layout_npieces(g, i) != 0) good_shape = 0;
        continue;
      }
      if (pieces_of(g, i, r, 2) != 1 || r[0].height != r[0].width) good_shape = 0;
      s[i] = r[0].width;
      sum += s[i], sq += (long)s[i] * s[i];
    }
    /* a local minimum: no single side +-1 that stays feasible predicts strictly less */
    for (int i = 0; i < p && good_shape; i++) {
      if (s[i] == 0) continue;
      for (int d = -1; d <= 1; d += 2) {
        long sq2 = sq - (long)s[i] * s[i] + (long)(s[i] + d) * (s[i] + d);
        double t;
        if (s[i] + d < 1 || sum + d > lim || sq2 >= (long)M * N) continue;
        t = sc_table[f][(long)M * N - sq2];
        for (int j = 0; j < p; j++)
          if (s[j] > 0) t = fmax(t, sc_table[j][j == i ? sq2 - sq + (long)s[i] * s[i] : (long)s[j] * s[j]]);
        if (t < tmax) {
          if (good_local) diag("trial %d: side of %d %+d predicts %g < %g", trial, i, d, t, tmax);
          good_local = 0;
        }
      }
    }
    fupermod_layout_free(l);
    fupermod_layout_free(g);
  }
  ok(good_shape && n > 500, "sc fit: %d fitted layouts tile the matrix, one square per slow process", n);
  ok(good_start && moved > 100, "sc fit: never predicts more than the start (%d predict less)", moved);
  ok(good_local, "sc fit: a local minimum: no single side +-1 predicts strictly less");
  ok(good_time, "sc fit: the reported time is the worst process's on the fitted areas");
}

static void test_pieces_file(void) {
  char dir[] = "/tmp/test_matrix.XXXXXX", path[256];
  double a[5] = {50, 0, 3, 2, 4};
  fupermod_layout *l = NULL, *back = NULL;
  int rc;
  if (!mkdtemp(dir)) {
    skip("mkdtemp failed");
    return;
  }
  snprintf(path, sizeof path, "%s/sc.layout", dir);
  rc = fupermod_layout_sc(a, 5, 23, 19, &l);
  ok(rc == FUPERMOD_SUCCESS && l->npieces > 0 && fupermod_layout_save(path, l, "square corner") == FUPERMOD_SUCCESS,
     "a layout with pieces (%d) is saved", l ? l->npieces : -1);
  rc = fupermod_layout_load(path, &back);
  ok(rc == FUPERMOD_SUCCESS && back->p == 5 && back->M == 23 && back->N == 19 && back->ncols == 0 &&
         back->npieces == l->npieces && memcmp(back->pieces, l->pieces, (size_t)l->npieces * sizeof *l->pieces) == 0 &&
         memcmp(back->owner, l->owner, (size_t)l->npieces * sizeof *l->owner) == 0 &&
         memcmp(back->rects, l->rects, 5 * sizeof *l->rects) == 0 && memcmp(back->column, l->column, 5 * sizeof *l->column) == 0,
     "the layout with pieces reads back identically: %s", rc ? fupermod_error_message() : "same pieces, owners, rects");
  fupermod_layout_free(back);
  back = NULL;
  /* a rank on two lines, another on none: pieces */
  write_text(path, "# two pieces\n2 2 2 0\n0 0 0 2 1 -1\n0 0 1 2 1 -1\n");
  ok(fupermod_layout_load(path, &back) == FUPERMOD_SUCCESS && back->npieces == 2 && fupermod_layout_npieces(back, 0) == 2 &&
         fupermod_layout_area(back, 1) == 0,
     "a file with rank 0 on two lines loads as a layout with pieces");
  fupermod_layout_free(back);
  unlink(path);
  rmdir(dir);
  fupermod_layout_free(l);
}

int main(void) {
  test_t1_kl();
  test_t9_br();
  test_br_brute_force();
  test_random_tiling();
  test_degenerate();
  test_large();
  test_15d();
  test_files();
  test_bad_input();
  test_fit();
  test_sc();
  test_sc_fit();
  test_pieces_file();
  return done_testing();
}
