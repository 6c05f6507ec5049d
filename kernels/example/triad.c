/* triad: a complete fupermod kernel, the example of docs/kernels.md.
 * One unit is a block of B elements of the STREAM triad a = b + s c (B = sub-option block, default
 * 1024), so d units touch 3 d B doubles and do 2 d B flops.
 * Build:  mpicc -O2 -shared -fPIC $(pkg-config --cflags fupermod) triad.c \
 *             -o fupermod_kernel_triad.so $(pkg-config --libs fupermod) */
#include <stdlib.h>
#include <fupermod/fupermod.h>

typedef struct {
  long block;       /* elements per unit */
  long len;         /* elements of the current size, 0 before initialize */
  double *a, *b, *c;
} triad;

/* The sub-options, declared: configuration lines are checked against them, and `fupermod kernel
 * show triad` lists them. Name, type, range, default, help. */
static const fupermod_option options[] = {
    {"block", FUPERMOD_OPT_LONG, 1, 1 << 24, "1024", "elements per unit", NULL},
    FUPERMOD_OPTION_END};

/* Parse the sub-options once; a bad value is FUPERMOD_ERR_USAGE, its message naming the option. */
static int create(const char *subopts, void **ctx) {
  long block = 1024;
  triad *k;
  int rc = fupermod_option_long(options, subopts, "block", &block);
  if (rc < 0) return rc;
  if (!(k = calloc(1, sizeof *k))) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  k->block = block;
  *ctx = k;
  return FUPERMOD_SUCCESS;
}

/* Useful work of d units; must be linear in d. */
static double complexity(long d, void *ctx) { return 2.0 * (double)d * (double)((triad *)ctx)->block; }

static int finalize(void *ctx) {
  triad *k = ctx;
  free(k->a), free(k->b), free(k->c);
  k->a = k->b = k->c = NULL;
  k->len = 0;
  return FUPERMOD_SUCCESS;
}

/* Allocate and fill everything the application would hold for d units; not timed. */
static int initialize(long d, void *ctx) {
  triad *k = ctx;
  double bytes = 24.0 * (double)d * (double)k->block;
  if (d <= 0) return fupermod_error(FUPERMOD_ERR_USAGE, "triad kernel: d must be > 0, got %ld", d);
  if (bytes > 16e9)
    return fupermod_error(FUPERMOD_ERR_INPUT, "triad kernel: d=%ld needs %.0f bytes, more than 16e9", d, bytes);
  finalize(k);
  k->len = d * k->block;
  k->a = malloc((size_t)k->len * sizeof(double));
  k->b = malloc((size_t)k->len * sizeof(double));
  k->c = malloc((size_t)k->len * sizeof(double));
  if (!k->a || !k->b || !k->c) {
    finalize(k);
    return fupermod_error(FUPERMOD_ERR_NOMEM, "triad kernel: cannot allocate %.0f bytes", bytes);
  }
  for (long i = 0; i < k->len; i++) {
    k->a[i] = 0.0;
    k->b[i] = (double)(i % 7); /* small integers: every result is exact */
    k->c[i] = (double)(i % 5);
  }
  return FUPERMOD_SUCCESS;
}

/* One timed run over the d units; called many times between initialize and finalize. */
static int execute(void *ctx) {
  triad *k = ctx;
  const double s = 3.0;
  if (!k->len) return fupermod_error(FUPERMOD_ERR_USAGE, "triad kernel: execute before initialize");
  for (long i = 0; i < k->len; i++) k->a[i] = k->b[i] + s * k->c[i];
  return FUPERMOD_SUCCESS;
}

static void destroy(void *ctx) {
  if (!ctx) return;
  finalize(ctx);
  free(ctx);
}

/* Optional self-check on a small size: 0 when the kernel computes the right numbers. */
static int verify(void *ctx) {
  triad k = {((triad *)ctx)->block, 0, NULL, NULL, NULL};
  int rc = initialize(3, &k);
  if (rc != FUPERMOD_SUCCESS) return rc;
  execute(&k);
  for (long i = 0; i < k.len && rc == FUPERMOD_SUCCESS; i++)
    if (k.a[i] != (double)(i % 7) + 3.0 * (double)(i % 5))
      rc = fupermod_error(FUPERMOD_ERR_NUMERIC, "triad kernel: wrong value at element %ld", i);
  finalize(&k);
  return rc;
}

/* The one symbol fupermod looks for. */
const fupermod_kernel_ops fupermod_kernel_plugin = {
  FUPERMOD_KERNEL_API, "triad", "STREAM triad a = b + s c over d blocks of elements",
  create, complexity, initialize, execute, finalize, destroy, verify, NULL, NULL, options};
