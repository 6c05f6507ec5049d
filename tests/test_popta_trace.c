/* POPTA's sub-call trace (partitioners/popta.h) against the worked example of Manumachu &
 * Lastovetsky 2018, sec. IV-A, Figs. 6-13 (spec paraleph-aleph-popta.md 4.1).
 *
 * What the paper fixes: p = 4, n = 64, dx = 1; B is x = 16 and E the time of size 16; line L_1
 * holds one point, 19; its steps are r = 1: POPTAKernel(45, 3) with B = 15 and E = L_1, r = 2:
 * POPTAKernel(26, 2) with B = 13 and E = L_1, r = 3: the last processor gets 7; then line L_2
 * holds one point with steps r = 1, 2, 3, and so on up to the last line before E.
 * What it does not give: the speed function (only drawn in Fig. 6), so the values of L_2.., the
 * nested calls and the final distribution are those of the replica below, not the paper's.
 *
 * The replica: a rising speed segment s(x) = 50 x / (40 + x) (time grows slowly: small
 * multithreaded DGEMMs are dominated by overheads) with three favourable sizes, 19 (speed x1.31),
 * 17 (x1.20) and 21 (x1.11). It is the least the text needs: 19 must be the fastest size right of
 * 16 and 15 (alone on L_1, and the sub-calls under the cap L_1 find nothing), and 7 slower than 19
 * (otherwise r = 3 would end the search, "t_l <= t_r", before L_2). Because T(7) > T(19), line 21
 * hands n_l = 7 to POPTAKernel with one processor, which answers at line 2 (the leaf). */
#include <math.h>
#include <string.h>
#include "tests/tap.h"
#include "partitioners/popta.h"

#define M 32

static double T[M + 1];

/* Sizes g, 2g, .. M g with the replica's times (g = granule, to check the units). */
static void replica(fupermod_points *f, long g) {
  static fupermod_point pts[M];
  for (int x = 1; x <= M; x++) {
    double bump = x == 19 ? 0.763 : x == 17 ? 0.83 : x == 21 ? 0.9 : 1.0;
    fupermod_point pt = FUPERMOD_POINT_INIT;
    T[x] = (40.0 + x) / 50.0 * bump; /* = x / s(x) */
    pt.d = x * g;
    pt.t = T[x];
    pts[x - 1] = pt;
  }
  f->count = M;
  f->pts = pts;
  f->has_energy = 0;
}

typedef struct {
  int level;
  long nr;
  int r;
  long n;
  int q;
  long B;
  double E;
  int how;
} want_t;

static int same(const fupermod_popta_call *c, const want_t *w, long g) {
  return c->level == w->level && c->nr == w->nr * g && c->r == w->r && c->n == w->n * g && c->q == w->q &&
         c->B == w->B * g && c->E == w->E && c->how == w->how;
}

static void print_trace(const fupermod_popta_trace *tr) {
  for (int i = 0; i < tr->count; i++) {
    const fupermod_popta_call *c = &tr->calls[i];
    diag("%*s[%d] %ld x%d -> (%ld, %d, B=%ld, E=%.4f) how=%d", 2 * c->level, "", c->level, c->nr, c->r, c->n,
         c->q, c->B, c->E, c->how);
  }
}

static double run_value(const char *name, fupermod_problem *pr, int faithful) {
  fupermod_dist *d = fupermod_dist_alloc(pr->D, pr->p);
  double t = NAN;
  pr->faithful = faithful;
  if (fupermod_partitioner_find(name)->discrete(pr, d) == FUPERMOD_SUCCESS) t = fupermod_dist_time(d);
  fupermod_dist_free(d);
  pr->faithful = 0;
  return t;
}

static void paper_example(long g) {
  fupermod_points f;
  const fupermod_points *fs[4];
  fupermod_problem pr;
  fupermod_dist *d;
  fupermod_popta_trace tr;
  int rc, i, l1 = 0, l1ok = 1, lines = 0, lines_ok = 1;
  replica(&f, g);
  for (i = 0; i < 4; i++) fs[i] = &f;
  pr = (fupermod_problem){64 * g, 4, fs, 0.0, 0, FUPERMOD_OBJ_TIME};
  d = fupermod_dist_alloc(pr.D, pr.p);
  rc = fupermod_popta_traced(&pr, d, &tr);
  if (!ok(rc == FUPERMOD_SUCCESS && !tr.shortcut && !tr.fell_back && tr.count > 4,
          "g=%ld: traced run succeeds through the kernel (rc=%d, shortcut=%d, %d entries)", g, rc, tr.shortcut,
          tr.count)) {
    fupermod_dist_free(d);
    return;
  }
  {
    const want_t top = {0, 0, 0, 64, 4, 16, T[16], FUPERMOD_POPTA_CALL};
    ok(same(&tr.calls[0], &top, g), "g=%ld: driver calls POPTAKernel(64, 4) with B = 16 and E = t(16)", g);
  }
  /* Line L_1: the paper's three steps for P = 19. */
  {
    const want_t w[3] = {{1, 19, 1, 45, 3, 15, T[19], FUPERMOD_POPTA_CALL},
                         {1, 19, 2, 26, 2, 13, T[19], FUPERMOD_POPTA_CALL},
                         {1, 19, 3, 7, 1, 7, T[19], FUPERMOD_POPTA_CALL}};
    for (i = 1; i < tr.count && l1 < 3; i++) {
      if (tr.calls[i].level != 1) {
        l1ok = 0; /* nothing nested under the capped sub-calls of L_1 */
        continue;
      }
      if (!same(&tr.calls[i], &w[l1], g)) l1ok = 0;
      l1++;
    }
    ok(l1 == 3 && l1ok, "g=%ld: L_1 = {19}: sub-calls (45,3,B=15,E=L_1), (26,2,B=13,E=L_1), leaf 7 (q=1), in order", g);
    ok(i < tr.count && tr.calls[i].level == 1 && tr.calls[i].nr != 19,
       "g=%ld: after the leaf 7 the search goes on to the next line (no early stop on L_1)", g);
  }
  /* Every line before E: one point right of B, faster than E, slower than the previous line, with
   * the steps r = 1, 2, 3. */
  {
    double prev = 0.0;
    for (int j = 1; j < tr.count;) {
      const fupermod_popta_call *c = &tr.calls[j];
      long x = c->nr / g;
      int r = 0;
      if (c->level != 1) {
        j++;
        continue;
      }
      for (; j < tr.count && (tr.calls[j].level > 1 || tr.calls[j].nr == c->nr); j++)
        if (tr.calls[j].level == 1 && tr.calls[j].r != ++r) lines_ok = 0;
      if (!(x > 16 && T[x] < T[16] && T[x] > prev && r == 3)) lines_ok = 0;
      prev = T[x];
      lines++;
    }
    ok(lines == 3 && lines_ok,
       "g=%ld: lines L_1 (19), L_2 (17), L_q = L_3 (21): one point each, increasing time below E, steps r = 1..3", g);
  }
  /* The replica's whole trace (not in the paper beyond L_1). */
  {
    const want_t all[] = {
      {0, 0, 0, 64, 4, 16, T[16], FUPERMOD_POPTA_CALL},
      {1, 19, 1, 45, 3, 15, T[19], FUPERMOD_POPTA_CALL},
      {1, 19, 2, 26, 2, 13, T[19], FUPERMOD_POPTA_CALL},
      {1, 19, 3, 7, 1, 7, T[19], FUPERMOD_POPTA_CALL},
      {1, 17, 1, 47, 3, 15, T[17], FUPERMOD_POPTA_CALL},
      {2, 19, 1, 28, 2, 14, T[19], FUPERMOD_POPTA_CALL},
      {2, 19, 2, 9, 1, 9, T[19], FUPERMOD_POPTA_CALL},
      {1, 17, 2, 30, 2, 15, T[17], FUPERMOD_POPTA_CALL},
      {2, 19, 1, 11, 1, 11, T[19], FUPERMOD_POPTA_CALL},
      {1, 17, 3, 13, 1, 13, T[17], FUPERMOD_POPTA_CALL},
      {1, 21, 1, 43, 3, 14, T[21], FUPERMOD_POPTA_CALL},
      {2, 19, 1, 24, 2, 12, T[19], FUPERMOD_POPTA_CALL},
      {2, 19, 2, 5, 1, 5, T[5], FUPERMOD_POPTA_BALANCED},
      {1, 21, 2, 22, 2, 11, T[11], FUPERMOD_POPTA_CALL},
      {2, 19, 1, 3, 1, 3, T[3], FUPERMOD_POPTA_BALANCED},
      {1, 21, 3, 1, 1, 1, T[1], FUPERMOD_POPTA_BALANCED},
    };
    const int n = (int)(sizeof all / sizeof all[0]);
    int eq = tr.count == n;
    for (i = 0; eq && i < n; i++) eq = same(&tr.calls[i], &all[i], g);
    if (!ok(eq, "g=%ld: the replica's full trace (%d entries) as expected", g, n)) print_trace(&tr);
  }
  {
    double tdp = run_value("dp", &pr, 0), tex = run_value("popta", &pr, 0);
    ok(d->parts[0].d == 19 * g && d->parts[1].d == 19 * g && d->parts[2].d == 19 * g && d->parts[3].d == 7 * g &&
           fupermod_dist_time(d) == T[7] && tdp == T[7] && tex == T[7],
       "g=%ld: result (19,19,19,7) at t(7) (from L_1, r = 3), the optimum by dp and by default popta", g);
  }
  /* The hook must not change popta: the registry's faithful mode gives the same time. */
  ok(run_value("popta", &pr, 1) == fupermod_dist_time(d), "g=%ld: traced run = registry's faithful popta", g);
  fupermod_popta_trace_free(&tr);
  ok(tr.count == 0 && tr.calls == NULL, "trace_free empties the trace");
  fupermod_dist_free(d);
}

/* Spec 7.2: T = (15,8,16,13,2), n = 7, p = 3. The trace shows why the printed cap misses the
 * optimum 8 = {5,2,0}: the left part of 5 (n_l = 2 on 2) is searched under E = t(5) = 2, below
 * every time of the function, so only its balanced split (1,1), time 15, comes back. */
static void counterexample(void) {
  static fupermod_point pts[5];
  const double t[5] = {15, 8, 16, 13, 2};
  fupermod_points f = {5, pts, 0};
  const fupermod_points *fs[3] = {&f, &f, &f};
  fupermod_problem pr = {7, 3, fs, 0.0, 0, FUPERMOD_OBJ_TIME};
  fupermod_dist *d = fupermod_dist_alloc(7, 3);
  fupermod_popta_trace tr;
  int found = 0;
  for (int i = 0; i < 5; i++) {
    fupermod_point pt = FUPERMOD_POINT_INIT;
    pt.d = i + 1;
    pt.t = t[i];
    pts[i] = pt;
  }
  if (ok(fupermod_popta_traced(&pr, d, &tr) == FUPERMOD_SUCCESS, "7.2 counterexample: traced run succeeds")) {
    const want_t w = {1, 5, 1, 2, 2, 1, 2.0, FUPERMOD_POPTA_CALL};
    for (int i = 0; i < tr.count; i++) found += same(&tr.calls[i], &w, 1);
    ok(found == 1, "7.2: the left part of 5 is POPTAKernel(2, 2) under E = t_r = 2 (the unsafe cap)");
    ok(fupermod_dist_time(d) == 15 && run_value("dp", &pr, 0) == 8,
       "7.2: faithful gives 15, the optimum is 8");
    if (!found) print_trace(&tr);
  }
  fupermod_popta_trace_free(&tr);
  fupermod_dist_free(d);
}

/* Balanced optimal (n divisible by p, t(n/p) at most every time right of it): the driver's
 * shortcut answers and no kernel is traced. */
static void shortcut(void) {
  static fupermod_point pts[10];
  fupermod_points f = {10, pts, 0};
  const fupermod_points *fs[4] = {&f, &f, &f, &f};
  fupermod_problem pr = {20, 4, fs, 0.0, 0, FUPERMOD_OBJ_TIME};
  fupermod_dist *d = fupermod_dist_alloc(20, 4);
  fupermod_popta_trace tr;
  int rc;
  for (int i = 0; i < 10; i++) {
    fupermod_point pt = FUPERMOD_POINT_INIT;
    pt.d = i + 1;
    pt.t = 1.0 + i;
    pts[i] = pt;
  }
  rc = fupermod_popta_traced(&pr, d, &tr);
  ok(rc == FUPERMOD_SUCCESS && tr.shortcut == 1 && tr.count == 0 && d->parts[0].d == 5 && d->parts[3].d == 5,
     "shortcut: balanced (5,5,5,5) without a kernel call");
  fupermod_popta_trace_free(&tr);
  fupermod_dist_free(d);
}

/* Errors leave an empty trace; a NULL trace runs plain popta. */
static void errors(void) {
  static fupermod_point pts[2];
  fupermod_points a = {2, pts, 0}, b = {1, pts, 0};
  const fupermod_points *fs[2] = {&a, &b};
  fupermod_problem pr = {2, 2, fs, 0.0, 0, FUPERMOD_OBJ_TIME};
  fupermod_dist *d = fupermod_dist_alloc(2, 2);
  fupermod_popta_trace tr;
  int rc;
  for (int i = 0; i < 2; i++) {
    fupermod_point pt = FUPERMOD_POINT_INIT;
    pt.d = i + 1;
    pt.t = 1.0;
    pts[i] = pt;
  }
  memset(&tr, 0x5a, sizeof tr);
  rc = fupermod_popta_traced(&pr, d, &tr);
  ok(rc == FUPERMOD_ERR_USAGE && tr.count == 0 && tr.calls == NULL,
     "different functions: FUPERMOD_ERR_USAGE (%s), empty trace", fupermod_error_message());
  fs[1] = &a;
  rc = fupermod_popta_traced(&pr, d, NULL);
  ok(rc == FUPERMOD_SUCCESS && fupermod_dist_time(d) == 1.0, "NULL trace: plain popta");
  fupermod_dist_free(d);
}

int main(void) {
  paper_example(1);
  paper_example(3); /* sizes in units of a granule of 3: the trace reports units */
  counterexample();
  shortcut();
  errors();
  return done_testing();
}
