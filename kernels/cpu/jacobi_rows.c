/* jacobi-rows: one Jacobi sweep over a block of d rows of an N-column system A x = b (the jacobi
 * application of the Clarke thesis, rows distributed in blocks). The process holds its d x N rows
 * of A, its d entries of b, the whole x (N) and its d new entries. A sweep computes
 *   x'_i = (b_i - sum_{j != g} a_ij x_j) / a_ig   with g = i mod N, the row's diagonal column,
 * and the max-norm change, then copies x' back into x (a local copy standing in for the allgather).
 * One unit is one row; complexity = 2 N d (one multiply-add per matrix element).
 * Sub-options: n=N (number of columns, default 4096). */
#include "kernels/cpu/common.h"

#define NAME "jacobi-rows"

typedef struct {
  long n;
  long d;
  double *A, *b, *x, *xn;
  double change; /* max |x' - x| of the last sweep, as the application's stopping test uses */
} jac_ctx;

/* The sweep of the application: diag(row i) is column (off + i) mod n. The diagonal term is added
 * back instead of skipped so that the dot product stays a branch-free (vectorisable) loop. */
static double sweep(long d, long n, long off, const double *A, const double *b, double *x, double *xn) {
  double change = 0.0;
  for (long i = 0; i < d; i++) {
    const double *a = A + i * n;
    long g = (off + i) % n;
    double s = 0.0;
    for (long j = 0; j < n; j++) s += a[j] * x[j];
    xn[i] = (b[i] - s + a[g] * x[g]) / a[g];
  }
  for (long i = 0; i < d; i++) {
    long g = (off + i) % n;
    double c = fabs(xn[i] - x[g]);
    if (c > change) change = c;
    x[g] = xn[i];
  }
  return change;
}

static const fupermod_option options[] = {
    {"n", FUPERMOD_OPT_LONG, 1, 1 << 30, "4096", "columns of the system", NULL},
    FUPERMOD_OPTION_END};

static int create(const char *subopts, void **ctx) {
  jac_ctx *k;
  long n = 4096;
  int rc;
  if ((rc = kern_opt_long(NAME, options, subopts, "n", &n)) != FUPERMOD_SUCCESS) return rc;
  if (!(k = calloc(1, sizeof *k))) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  k->n = n;
  *ctx = k;
  return FUPERMOD_SUCCESS;
}

static double complexity(long d, void *ctx) { return d > 0 ? 2.0 * (double)((jac_ctx *)ctx)->n * (double)d : 0.0; }

static int finalize(void *ctx) {
  jac_ctx *k = ctx;
  free(k->A), free(k->b), free(k->x), free(k->xn);
  k->A = k->b = k->x = k->xn = NULL;
  k->d = 0;
  return FUPERMOD_SUCCESS;
}

/* Rows of a strictly diagonally dominant matrix (off-diagonal in [0,1), diagonal N), so that
 * repeated sweeps converge as they would in the application. */
static int setup(jac_ctx *k, long d) {
  size_t n = (size_t)k->n;
  double bytes = 8.0 * ((double)d * (double)k->n + 2.0 * (double)d + (double)k->n);
  int rc;
  if ((rc = kern_check_d(NAME, d)) != FUPERMOD_SUCCESS) return rc;
  finalize(k);
  if ((rc = kern_mem_check(NAME, d, bytes, kern_mem_limit(), "(3/4 of the physical memory)")) != FUPERMOD_SUCCESS)
    return rc;
  k->A = malloc((size_t)d * n * sizeof(double));
  k->b = malloc((size_t)d * sizeof(double));
  k->x = calloc(n, sizeof(double));
  k->xn = calloc((size_t)d, sizeof(double));
  if (!k->A || !k->b || !k->x || !k->xn) {
    finalize(k);
    return fupermod_error(FUPERMOD_ERR_NOMEM, NAME " kernel: cannot allocate %.0f bytes for d=%ld", bytes, d);
  }
  k->d = d;
  return FUPERMOD_SUCCESS;
}

static int initialize(long d, void *ctx) {
  jac_ctx *k = ctx;
  int rc = setup(k, d);
  if (rc != FUPERMOD_SUCCESS) return rc;
  kern_fill(k->A, (size_t)d * (size_t)k->n, 31);
  for (long i = 0; i < d; i++) {
    for (long j = 0; j < k->n; j++) k->A[i * k->n + j] += 0.5;
    k->A[i * k->n + i % k->n] = (double)k->n;
  }
  kern_fill(k->b, (size_t)d, 32);
  return FUPERMOD_SUCCESS;
}

static int execute(void *ctx) {
  jac_ctx *k = ctx;
  if (!k->d) return fupermod_error(FUPERMOD_ERR_USAGE, NAME " kernel: execute before initialize");
  k->change = sweep(k->d, k->n, 0, k->A, k->b, k->x, k->xn);
  return FUPERMOD_SUCCESS;
}

static void destroy(void *ctx) {
  if (!ctx) return;
  finalize(ctx);
  free(ctx);
}

static int fail(const char *what, double err) {
  return fupermod_error(FUPERMOD_ERR_NUMERIC, NAME " kernel: verify failed: %s (error %g)", what, err);
}

static int verify(void *ctx) {
  /* Hand-checked: A = [4 -1 0; -1 4 -1; 0 -1 4], b = (2 4 10), x_0 = 0, solution (1 2 3).
   * Sweep 1 gives b_i/4 = (0.5 1 2.5); sweep 2 gives ((2+1)/4, (4+0.5+2.5)/4, (10+1)/4). */
  double A[9] = {4, -1, 0, -1, 4, -1, 0, -1, 4}, b[3] = {2, 4, 10}, x[3] = {0, 0, 0}, xn[3];
  static const double s1[3] = {0.5, 1.0, 2.5}, s2[3] = {0.75, 1.75, 2.75}, sol[3] = {1, 2, 3};
  double err, change;
  jac_ctx k = {0, 0, NULL, NULL, NULL, NULL, 0.0};
  int rc;
  (void)ctx;
  sweep(3, 3, 0, A, b, x, xn);
  if ((err = kern_rel_err(x, s1, 3)) != 0.0) return fail("first sweep of the 3x3 system", err);
  change = sweep(3, 3, 0, A, b, x, xn);
  if ((err = kern_rel_err(x, s2, 3)) != 0.0) return fail("second sweep of the 3x3 system", err);
  if (change != 0.75) return fail("max-norm change of the second sweep", fabs(change - 0.75));
  for (int it = 0; it < 80; it++) sweep(3, 3, 0, A, b, x, xn);
  if (!((err = kern_rel_err(x, sol, 3)) <= 1e-14)) return fail("convergence to (1 2 3)", err);
  /* Row blocks with an offset and with d > N (rows wrap around the diagonal), against an explicit
   * sum over j != g: two sweeps of the kernel's own data layout. */
  static const long cases[][2] = {{1, 1}, {5, 7}, {9, 4}, {3, 64}};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    long d = cases[c][0], n = cases[c][1];
    double *xr;
    k.n = n;
    if ((rc = initialize(d, &k)) != FUPERMOD_SUCCESS) return rc;
    if (!(xr = calloc((size_t)n, sizeof *xr))) {
      finalize(&k);
      return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
    }
    for (int r = 0; r < 2; r++) {
      double *xnew = malloc((size_t)d * sizeof *xnew);
      if (!xnew) {
        free(xr);
        finalize(&k);
        return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
      }
      for (long i = 0; i < d; i++) {
        long g = i % n;
        double s = k.b[i];
        for (long j = 0; j < n; j++)
          if (j != g) s -= k.A[i * n + j] * xr[j];
        xnew[i] = s / k.A[i * n + g];
      }
      for (long i = 0; i < d; i++) xr[i % n] = xnew[i];
      free(xnew);
      execute(&k);
    }
    err = kern_rel_err(k.x, xr, (size_t)n);
    free(xr);
    finalize(&k);
    if (!(err <= 1e-13)) {
      char what[96];
      snprintf(what, sizeof what, "two sweeps of d=%ld rows, N=%ld against the naive sweep", d, n);
      return fail(what, err);
    }
  }
  return FUPERMOD_SUCCESS;
}

const fupermod_kernel_ops fupermod_kernel_plugin = {
  FUPERMOD_KERNEL_API, NAME, "one Jacobi sweep over a block of d rows of an N-column system",
  create, complexity, initialize, execute, finalize, destroy, verify, NULL, NULL, options};
