/* Jacobi with dynamic load balancing (apps/jacobi) on p = 2 or 3 processes (mpi_jacobi_npP):
 * the solution does not depend on balancing or redistribution (bit for bit), it converges to the
 * exact solution, and on emulated processors with a memory cliff (Clarke 2014, sec. 6.1) the CPM
 * balancer oscillates while the FPM balancer (piecewise models + GPA) converges to the optimum.
 * Emulated times dominate the real computation, so the assertions hold on a loaded machine. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "apps/jacobi.h"
#include "tests/tap.h"
#include "fupermod/mpi_thread.h"

static int rank, size;

static int all_ok(int cond) {
  int in = cond ? 1 : 0, out = 0;
  MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  return out;
}

/* The memory-cliff platform: a fast process with little memory, a slower one with little
 * memory (p = 3), and a slow one with plenty. */
static fupermod_jacobi_emu platform(int i, long *D) {
  fupermod_jacobi_emu e = {0.0, 0, 9.0};
  if (size == 2) {
    *D = 1000;
    e.row_time = i == 0 ? 100e-6 : 200e-6;
    e.mem_rows = i == 0 ? 400 : 0;
  } else {
    *D = 1200;
    e.row_time = i == 0 ? 50e-6 : i == 1 ? 60e-6 : 100e-6;
    e.mem_rows = i == 2 ? 0 : 300;
  }
  return e;
}

/* The continuous optimum of the emulated times: the common time T with sum_i d_i(T) = D. */
static void optimum(long D, double *x) {
  double lo = 0.0, hi = 10.0;
  for (int it = 0; it < 200; it++) {
    double T = 0.5 * (lo + hi), sum = 0.0;
    for (int i = 0; i < size; i++) {
      long dummy;
      fupermod_jacobi_emu e = platform(i, &dummy);
      double d = T / e.row_time;
      if (e.mem_rows > 0 && d > (double)e.mem_rows) d = (double)e.mem_rows + (d - (double)e.mem_rows) / (1.0 + e.penalty);
      x[i] = d;
      sum += d;
    }
    if (sum > (double)D) hi = T;
    else lo = T;
  }
}

/* Sum over iterations of the emulated time of the slowest process: what the distribution costs. */
static double emulated_cost(const fupermod_jacobi_trace *tr, int from) {
  double sum = 0.0;
  for (int k = from; k < tr->iterations; k++) {
    double m = 0.0;
    for (int i = 0; i < size; i++) {
      long D;
      fupermod_jacobi_emu e = platform(i, &D);
      m = fmax(m, fupermod_jacobi_emu_time(&e, tr->d[(size_t)k * size + i]));
    }
    sum += m;
  }
  return sum;
}

static long max_change(const fupermod_jacobi_trace *tr, int k) {
  long m = 0;
  for (int i = 0; i < size; i++) {
    long c = labs(tr->d[(size_t)k * size + i] - tr->d[(size_t)(k - 1) * size + i]);
    if (c > m) m = c;
  }
  return m;
}

static void print_trace(const char *name, const fupermod_jacobi_trace *tr) {
  for (int k = 0; k < tr->iterations; k++) {
    char line[256];
    int n = snprintf(line, sizeof line, "%s %2d:", name, k);
    for (int i = 0; i < size && n < (int)sizeof line; i++)
      n += snprintf(line + n, sizeof line - (size_t)n, " %ld", tr->d[(size_t)k * size + i]);
    for (int i = 0; i < size && n < (int)sizeof line; i++)
      n += snprintf(line + n, sizeof line - (size_t)n, " %.1fms", tr->t[(size_t)k * size + i] * 1e3);
    diag("%s  imbalance %.3f", line, fupermod_jacobi_imbalance(tr, k));
  }
}

static void memory_cliff(void) {
  const int K = 12;
  long D;
  fupermod_jacobi_opts o = {"none", 0.0, K, 0.0, platform(rank, &D)};
  fupermod_jacobi_trace none, cpm, fpm;
  double *xn, *xc, *xf, opt[8];
  int rn, rc, rf;
  xn = malloc((size_t)D * sizeof *xn);
  xc = malloc((size_t)D * sizeof *xc);
  xf = malloc((size_t)D * sizeof *xf);
  /* the unbalanced reference needs no emulation: its cost follows from its distribution */
  o.emu.row_time = 0.0;
  rn = fupermod_jacobi_solve(MPI_COMM_WORLD, D, &o, &none, xn);
  o.emu = platform(rank, &D);
  o.balancer = "cpm";
  rc = fupermod_jacobi_solve(MPI_COMM_WORLD, D, &o, &cpm, xc);
  o.balancer = "fpm";
  rf = fupermod_jacobi_solve(MPI_COMM_WORLD, D, &o, &fpm, xf);
  if (!ok(all_ok(rn == 0 && rc == 0 && rf == 0), "memory cliff, D = %ld: none, cpm and fpm runs succeed", D)) {
    diag("%s", fupermod_error_message());
    free(xn), free(xc), free(xf);
    return;
  }
  print_trace("cpm", &cpm);
  print_trace("fpm", &fpm);
  ok(all_ok(!memcmp(xn, xc, (size_t)D * sizeof *xn) && !memcmp(xn, xf, (size_t)D * sizeof *xn)),
     "the iterate after %d iterations is bit for bit the same with and without balancing", K);
  ok(all_ok(cpm.iterations == K && fpm.iterations == K && none.iterations == K), "all runs made %d iterations", K);

  /* CPM: from the third iteration on, large imbalance and large moves nearly every time. */
  {
    int big_imb = 0, big_move = 0, n = 0;
    for (int k = 2; k < K; k++, n++) {
      big_imb += fupermod_jacobi_imbalance(&cpm, k) > 0.5;
      big_move += max_change(&cpm, k) > D / 10;
    }
    ok(all_ok(4 * big_imb >= 3 * n), "cpm oscillates: imbalance > 0.5 in %d of %d iterations", big_imb, n);
    ok(all_ok(4 * big_move >= 3 * n), "cpm oscillates: > D/10 rows move in %d of %d iterations", big_move, n);
  }
  /* FPM: the last 4 iterations are balanced, steady and at the optimum of the emulation. */
  {
    int balanced = 0, steady = 1, near = 1;
    optimum(D, opt);
    for (int k = K - 4; k < K; k++) {
      balanced += fupermod_jacobi_imbalance(&fpm, k) <= 0.2;
      steady = steady && max_change(&fpm, k) <= D / 50;
    }
    for (int i = 0; i < size; i++)
      near = near && fabs((double)fpm.d[(size_t)(K - 1) * size + i] - opt[i]) <= 0.03 * (double)D + 2.0;
    ok(all_ok(balanced >= 3), "fpm converges: imbalance <= 0.2 in %d of the last 4 iterations", balanced);
    ok(all_ok(steady), "fpm converges: at most D/50 rows move in the last 4 iterations");
    ok(all_ok(near), "fpm converges to the optimum of the emulated platform (within 3%% of D)");
    for (int i = 0; i < size; i++)
      diag("process %d: optimum %.1f rows, fpm's last %ld", i, opt[i], fpm.d[(size_t)(K - 1) * size + i]);
  }
  {
    double cn = emulated_cost(&none, 2), cc = emulated_cost(&cpm, 2), cf = emulated_cost(&fpm, 2);
    diag("emulated cost of iterations 2..%d: none %.3f s, cpm %.3f s, fpm %.3f s", K - 1, cn, cc, cf);
    ok(all_ok(cf < cn && cf < cc), "fpm's distributions cost less than the even one and cpm's");
  }
  fupermod_jacobi_trace_free(&none);
  fupermod_jacobi_trace_free(&cpm);
  fupermod_jacobi_trace_free(&fpm);
  free(xn), free(xc), free(xf);
}

/* Real speeds, no emulation: the converged solution is the same with every balancer. */
static void converged(void) {
  const long D = 300;
  const char *names[] = {"none", "cpm", "fpm", "npa"};
  double *x[4];
  int its[4], rc[4];
  for (int b = 0; b < 4; b++) {
    fupermod_jacobi_opts o = {names[b], 1e-13, 200, 0.0, {0.0, 0, 0.0}};
    fupermod_jacobi_trace tr;
    x[b] = malloc((size_t)D * sizeof(double));
    rc[b] = fupermod_jacobi_solve(MPI_COMM_WORLD, D, &o, &tr, x[b]);
    its[b] = rc[b] == 0 ? tr.iterations : -1;
    if (rc[b] == 0) fupermod_jacobi_trace_free(&tr);
    else diag("%s: %s", names[b], fupermod_error_message());
  }
  double err = 0.0;
  for (long i = 0; i < D; i++) err = fmax(err, fabs(x[0][i] - fupermod_jacobi_exact(i)));
  ok(all_ok(rc[0] == 0 && its[0] < 200 && err < 1e-11), "without balancing it converges (%d iterations) to x* "
                                                        "(max error %.1e)", its[0], err);
  for (int b = 1; b < 4; b++)
    ok(all_ok(rc[b] == 0 && its[b] == its[0] && !memcmp(x[0], x[b], (size_t)D * sizeof(double))),
       "balancer %s: same iterations and bit-identical solution", names[b]);
  for (int b = 0; b < 4; b++) free(x[b]);
}

/* Explicit redistributions, with processes owning no rows. */
static void redistribute(void) {
  const long D = 97;
  fupermod_dist *even = fupermod_dist_alloc(D, size), *a = fupermod_dist_alloc(D, size),
                *b = fupermod_dist_alloc(D, size);
  fupermod_jacobi *j1 = NULL, *j2 = NULL;
  double err1, err2;
  int rc = 0;
  for (int i = 0; i < size; i++) {
    a->parts[i].d = 0;
    b->parts[i].d = i == 0 ? D : 0;
  }
  a->parts[size - 1].d = D - (size > 2 ? 10 : 0);
  if (size > 2) a->parts[1].d = 10;
  rc |= fupermod_jacobi_create(MPI_COMM_WORLD, D, even, NULL, &j1);
  rc |= fupermod_jacobi_create(MPI_COMM_WORLD, D, a, NULL, &j2);
  for (int k = 0; k < 9 && rc == 0; k++) {
    rc |= fupermod_jacobi_iterate(j1, NULL, &err1, NULL);
    if (k == 3) rc |= fupermod_jacobi_redistribute(j2, b);
    if (k == 6) rc |= fupermod_jacobi_redistribute(j2, even);
    rc |= fupermod_jacobi_iterate(j2, NULL, &err2, NULL);
  }
  ok(all_ok(rc == 0 && err1 == err2 && !memcmp(fupermod_jacobi_x(j1), fupermod_jacobi_x(j2), (size_t)D * sizeof(double))),
     "redistributions through zero-row and single-owner distributions leave the iterates unchanged");

  b->parts[0].d += 1;
  rc = fupermod_jacobi_redistribute(j2, b);
  ok(all_ok(rc == FUPERMOD_ERR_USAGE && strstr(fupermod_error_message(), "sums to")),
     "redistributing to a distribution with the wrong sum is a usage error on every rank");
  fupermod_jacobi_destroy(j1);
  fupermod_jacobi_destroy(j2);
  fupermod_dist_free(even);
  fupermod_dist_free(a);
  fupermod_dist_free(b);
}

static void errors(void) {
  fupermod_jacobi_opts o = {"fastest", 0.0, 3, 0.0, {0.0, 0, 0.0}};
  fupermod_jacobi_trace tr;
  int rc = fupermod_jacobi_solve(MPI_COMM_WORLD, 50, &o, &tr, NULL);
  ok(all_ok(rc == FUPERMOD_ERR_USAGE && strstr(fupermod_error_message(), "balancer 'fastest'")),
     "an unknown balancer is a usage error naming it");
  o.balancer = "none";
  o.max_iter = 0;
  rc = fupermod_jacobi_solve(MPI_COMM_WORLD, 50, &o, &tr, NULL);
  ok(all_ok(rc == FUPERMOD_ERR_USAGE && strstr(fupermod_error_message(), "max_iter")), "max_iter = 0 is a usage error");
  o.max_iter = 3;
  o.emu.row_time = rank == 0 ? -1.0 : 0.0;
  rc = fupermod_jacobi_solve(MPI_COMM_WORLD, 50, &o, &tr, NULL);
  ok(all_ok(rc != FUPERMOD_SUCCESS), "a negative row time on one rank fails on every rank");
  o.emu.row_time = 0.0;
  rc = fupermod_jacobi_solve(MPI_COMM_WORLD, 0, &o, &tr, NULL);
  ok(all_ok(rc == FUPERMOD_ERR_USAGE && strstr(fupermod_error_message(), "D must be")), "D = 0 is a usage error");
}

int main(int argc, char **argv) {
  if (fupermod_mpi_init_thread(&argc, &argv, MPI_THREAD_FUNNELED, "mpi_jacobi", NULL) != FUPERMOD_SUCCESS) {
    printf("Bail out! %s\n", fupermod_error_message());
    MPI_Finalize();
    return 1;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  tap_quiet(rank != 0);
  if (size < 2 || size > 3) {
    diag("mpi_jacobi needs 2 or 3 processes");
    MPI_Finalize();
    return 99;
  }
  converged();
  redistribute();
  errors();
  memory_cliff();
  int st = done_testing();
  MPI_Finalize();
  return st;
}
