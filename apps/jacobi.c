/* Row-distributed Jacobi with dynamic load balancing (apps/jacobi.h, docs/apps.md). */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "apps/apps.h"
#include "apps/jacobi.h"
#include "partitioners/partitioners.h"

struct fupermod_jacobi {
  MPI_Comm comm;
  int rank, size;
  long D;
  fupermod_dist *dist;
  long *off;        /* size + 1 row offsets */
  double *A, *b;    /* local rows: d x (D + 1) (a_ii at column D, 0 at column i) and d */
  double *x, *xnew; /* replicated iterate (D) and the local update (d) */
  int *cnt, *dsp;   /* Allgatherv counts and displacements (rows) */
  MPI_Datatype row; /* one row of A (D + 1 doubles) */
  fupermod_jacobi_emu emu;
};

/* Agree on a status over comm: the lowest failing rank's status and message everywhere. */
static int agree(MPI_Comm comm, int rc) { return fupermod_agree(rc, comm); }

/* Off-diagonal entry in [0, 1) from a hash of (i, j): any rank can generate any row. */
static double entry(long i, long j) {
  uint64_t z = (uint64_t)i * 0x9E3779B97F4A7C15ull ^ ((uint64_t)j + 0x632BE59BD9B4E019ull) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return (double)(z >> 11) / 9007199254740992.0;
}

double fupermod_jacobi_exact(long i) { return 1.0 + (double)(i % 7) / 8.0; }

double fupermod_jacobi_emu_time(const fupermod_jacobi_emu *e, long d) {
  if (!e || e->row_time <= 0.0 || d <= 0) return 0.0;
  double extra = e->mem_rows > 0 && d > e->mem_rows ? (double)(d - e->mem_rows) : 0.0;
  return e->row_time * ((double)d + e->penalty * extra);
}

static int check_emu(const fupermod_jacobi_emu *e) {
  if (!e) return FUPERMOD_SUCCESS;
  if (!(e->row_time >= 0.0) || !isfinite(e->row_time))
    return fupermod_error(FUPERMOD_ERR_USAGE, "jacobi: emulated row_time must be >= 0, got %g", e->row_time);
  if (!(e->penalty >= 0.0) || !isfinite(e->penalty))
    return fupermod_error(FUPERMOD_ERR_USAGE, "jacobi: emulated penalty must be >= 0, got %g", e->penalty);
  return FUPERMOD_SUCCESS;
}

static int check_dist(const fupermod_dist *dist, int size, long D) {
  long sum = 0;
  if (!dist) return fupermod_error(FUPERMOD_ERR_USAGE, "jacobi: distribution is NULL");
  if (dist->size != size || dist->D != D)
    return fupermod_error(FUPERMOD_ERR_USAGE, "jacobi: distribution of D = %ld over %d parts, expected D = %ld over %d",
                          dist->D, dist->size, D, size);
  for (int i = 0; i < size; i++) {
    if (dist->parts[i].d < 0)
      return fupermod_error(FUPERMOD_ERR_USAGE, "jacobi: distribution part %d is negative (%ld)", i, dist->parts[i].d);
    sum += dist->parts[i].d;
  }
  if (sum != D) return fupermod_error(FUPERMOD_ERR_USAGE, "jacobi: distribution sums to %ld, expected %ld", sum, D);
  return FUPERMOD_SUCCESS;
}

/* Rows [first, first + d) of A and b. The diagonal is kept apart (column D) so that the
 * off-diagonal sum is one branch-free loop. */
static void generate(long D, long first, long d, double *A, double *b) {
  for (long i = 0; i < d; i++) {
    long g = first + i;
    double *a = A + i * (D + 1), sum = 0.0, bi = 0.0;
    for (long j = 0; j < D; j++) {
      a[j] = j == g ? 0.0 : entry(g, j);
      sum += a[j];
    }
    a[D] = 2.0 * sum + 1.0;
    for (long j = 0; j < D; j++) bi += a[j] * fupermod_jacobi_exact(j);
    b[i] = bi + a[D] * fupermod_jacobi_exact(g);
  }
}

/* Offsets, Allgatherv counts and the local buffers for dist (A and b are not touched). */
static int layout(fupermod_jacobi *j, const fupermod_dist *dist) {
  int rc;
  if ((rc = fupermod_dist_copy(j->dist, dist)) != FUPERMOD_SUCCESS) return rc;
  if ((rc = fupermod_dist_offsets(dist, j->off)) != FUPERMOD_SUCCESS) return rc;
  for (int i = 0; i < j->size; i++) {
    j->cnt[i] = (int)dist->parts[i].d;
    j->dsp[i] = (int)j->off[i];
  }
  return FUPERMOD_SUCCESS;
}

int fupermod_jacobi_create(MPI_Comm comm, long D, const fupermod_dist *dist, const fupermod_jacobi_emu *emu,
                           fupermod_jacobi **out) {
  fupermod_jacobi *j = NULL;
  int rc = FUPERMOD_SUCCESS, size, rank;
  if (!out) return fupermod_error(FUPERMOD_ERR_USAGE, "jacobi: out is NULL");
  *out = NULL;
  if (comm == MPI_COMM_NULL) return fupermod_error(FUPERMOD_ERR_USAGE, "jacobi: comm is MPI_COMM_NULL");
  MPI_Comm_size(comm, &size);
  MPI_Comm_rank(comm, &rank);
  if (D < 1 || D > (1L << 30))
    rc = fupermod_error(FUPERMOD_ERR_USAGE, "jacobi: D must be in [1, 2^30], got %ld", D);
  else if ((rc = check_dist(dist, size, D)) == FUPERMOD_SUCCESS)
    rc = check_emu(emu);
  if ((rc = agree(comm, rc)) != FUPERMOD_SUCCESS) return rc;

  if (!(j = calloc(1, sizeof *j))) rc = fupermod_error(FUPERMOD_ERR_NOMEM, "jacobi: out of memory");
  if (j) {
    j->comm = MPI_COMM_NULL;
    j->row = MPI_DATATYPE_NULL;
    j->size = size;
    j->rank = rank;
    j->D = D;
    if (emu) j->emu = *emu;
    j->dist = fupermod_dist_alloc(D, size);
    j->off = calloc((size_t)size + 1, sizeof *j->off);
    j->cnt = calloc((size_t)size, sizeof *j->cnt);
    j->dsp = calloc((size_t)size, sizeof *j->dsp);
    j->x = calloc((size_t)D, sizeof *j->x);
    if (!j->dist || !j->off || !j->cnt || !j->dsp || !j->x)
      rc = fupermod_error(FUPERMOD_ERR_NOMEM, "jacobi: out of memory");
    else if ((rc = layout(j, dist)) == FUPERMOD_SUCCESS) {
      long d = dist->parts[rank].d;
      j->A = malloc((size_t)(d > 0 ? d : 1) * (size_t)(D + 1) * sizeof(double));
      j->b = malloc((size_t)(d > 0 ? d : 1) * sizeof(double));
      j->xnew = malloc((size_t)(d > 0 ? d : 1) * sizeof(double));
      if (!j->A || !j->b || !j->xnew)
        rc = fupermod_error(FUPERMOD_ERR_NOMEM, "jacobi: cannot allocate %ld rows of %ld", d, D);
      else
        generate(D, j->off[rank], d, j->A, j->b);
    }
    if (rc == FUPERMOD_SUCCESS && (MPI_Comm_dup(comm, &j->comm) != MPI_SUCCESS ||
                                   MPI_Type_contiguous((int)D + 1, MPI_DOUBLE, &j->row) != MPI_SUCCESS ||
                                   MPI_Type_commit(&j->row) != MPI_SUCCESS))
      rc = fupermod_error(FUPERMOD_ERR_MPI, "jacobi: cannot duplicate the communicator or create the row type");
    if (j->comm != MPI_COMM_NULL) MPI_Comm_set_errhandler(j->comm, MPI_ERRORS_RETURN);
  }
  if ((rc = agree(comm, rc)) != FUPERMOD_SUCCESS) {
    fupermod_jacobi_destroy(j);
    return rc;
  }
  *out = j;
  return FUPERMOD_SUCCESS;
}

/* Sleep until the absolute monotonic time `until` (fupermod_time's clock). */
static void sleep_until(double until) {
  struct timespec ts;
  ts.tv_sec = (time_t)until;
  ts.tv_nsec = (long)((until - (double)ts.tv_sec) * 1e9);
  if (ts.tv_nsec >= 1000000000L) ts.tv_sec++, ts.tv_nsec -= 1000000000L;
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
  }
}

int fupermod_jacobi_iterate(fupermod_jacobi *j, fupermod_dynamic *dyn, double *error, double *t_compute) {
  long d, first, D;
  double start, err = 0.0, all = 0.0;
  int rc = FUPERMOD_SUCCESS;
  if (!j || !error) return fupermod_error(FUPERMOD_ERR_USAGE, "jacobi: NULL argument");
  d = j->dist->parts[j->rank].d;
  first = j->off[j->rank];
  D = j->D;
  start = fupermod_time();
  for (long i = 0; i < d; i++) {
    const double *a = j->A + i * (D + 1);
    double s = 0.0;
    long g = first + i;
    for (long k = 0; k < D; k++) s += a[k] * j->x[k];
    j->xnew[i] = (j->b[i] - s) / a[D];
    err = fmax(err, fabs(j->xnew[i] - j->x[g]));
  }
  if (j->emu.row_time > 0.0) sleep_until(start + fupermod_jacobi_emu_time(&j->emu, d));
  if (t_compute) *t_compute = fupermod_time() - start;
  /* The balancer times the computation from start; the exchange below would add the wait for
   * the slowest process to everyone's time. */
  if (dyn) rc = fupermod_balance_iterate(dyn, j->comm, start);
  if (rc != FUPERMOD_SUCCESS) return rc;
  if (MPI_Allgatherv(j->xnew, (int)d, MPI_DOUBLE, j->x, j->cnt, j->dsp, MPI_DOUBLE, j->comm) != MPI_SUCCESS ||
      MPI_Allreduce(&err, &all, 1, MPI_DOUBLE, MPI_MAX, j->comm) != MPI_SUCCESS)
    return fupermod_error(FUPERMOD_ERR_MPI, "jacobi: exchange of x failed");
  *error = all;
  return FUPERMOD_SUCCESS;
}

int fupermod_jacobi_redistribute(fupermod_jacobi *j, const fupermod_dist *dist) {
  int rc, p, same = 1;
  long *noff = NULL, dnew;
  int *sc = NULL, *sd = NULL, *rcnt = NULL, *rd = NULL;
  double *A = NULL, *b = NULL, *xn = NULL;
  if (!j) return fupermod_error(FUPERMOD_ERR_USAGE, "jacobi: NULL argument");
  p = j->size;
  rc = check_dist(dist, p, j->D);
  if ((rc = agree(j->comm, rc)) != FUPERMOD_SUCCESS) return rc;
  for (int i = 0; i < p; i++) same = same && dist->parts[i].d == j->dist->parts[i].d;
  if (same) return FUPERMOD_SUCCESS; /* every rank sees the same two distributions */

  dnew = dist->parts[j->rank].d;
  noff = calloc((size_t)p + 1, sizeof *noff);
  sc = calloc((size_t)p, sizeof *sc);
  sd = calloc((size_t)p, sizeof *sd);
  rcnt = calloc((size_t)p, sizeof *rcnt);
  rd = calloc((size_t)p, sizeof *rd);
  A = malloc((size_t)(dnew > 0 ? dnew : 1) * (size_t)(j->D + 1) * sizeof *A);
  b = malloc((size_t)(dnew > 0 ? dnew : 1) * sizeof *b);
  xn = malloc((size_t)(dnew > 0 ? dnew : 1) * sizeof *xn);
  if (!noff || !sc || !sd || !rcnt || !rd || !A || !b || !xn)
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "jacobi: cannot allocate %ld rows for the redistribution", dnew);
  else
    rc = fupermod_dist_offsets(dist, noff);
  if ((rc = agree(j->comm, rc)) == FUPERMOD_SUCCESS) {
    /* Rows of the overlap of my old range with s's new range go to s, and vice versa. */
    long o0 = j->off[j->rank], o1 = j->off[j->rank + 1], n0 = noff[j->rank], n1 = noff[j->rank + 1];
    for (int s = 0; s < p; s++) {
      long lo = o0 > noff[s] ? o0 : noff[s], hi = o1 < noff[s + 1] ? o1 : noff[s + 1];
      sc[s] = hi > lo ? (int)(hi - lo) : 0;
      sd[s] = hi > lo ? (int)(lo - o0) : 0;
      lo = n0 > j->off[s] ? n0 : j->off[s];
      hi = n1 < j->off[s + 1] ? n1 : j->off[s + 1];
      rcnt[s] = hi > lo ? (int)(hi - lo) : 0;
      rd[s] = hi > lo ? (int)(lo - n0) : 0;
    }
    if (MPI_Alltoallv(j->A, sc, sd, j->row, A, rcnt, rd, j->row, j->comm) != MPI_SUCCESS ||
        MPI_Alltoallv(j->b, sc, sd, MPI_DOUBLE, b, rcnt, rd, MPI_DOUBLE, j->comm) != MPI_SUCCESS)
      rc = fupermod_error(FUPERMOD_ERR_MPI, "jacobi: MPI_Alltoallv of the rows failed");
    if (rc == FUPERMOD_SUCCESS) {
      free(j->A);
      free(j->b);
      free(j->xnew);
      j->A = A;
      j->b = b;
      j->xnew = xn;
      A = b = xn = NULL;
      rc = layout(j, dist);
    }
  }
  free(noff);
  free(sc);
  free(sd);
  free(rcnt);
  free(rd);
  free(A);
  free(b);
  free(xn);
  return rc;
}

const fupermod_dist *fupermod_jacobi_dist(const fupermod_jacobi *j) { return j ? j->dist : NULL; }
const double *fupermod_jacobi_x(const fupermod_jacobi *j) { return j ? j->x : NULL; }

void fupermod_jacobi_destroy(fupermod_jacobi *j) {
  if (!j) return;
  if (j->row != MPI_DATATYPE_NULL) MPI_Type_free(&j->row);
  if (j->comm != MPI_COMM_NULL) MPI_Comm_free(&j->comm);
  fupermod_dist_free(j->dist);
  free(j->off);
  free(j->cnt);
  free(j->dsp);
  free(j->x);
  free(j->xnew);
  free(j->A);
  free(j->b);
  free(j);
}

void fupermod_jacobi_trace_free(fupermod_jacobi_trace *t) {
  if (!t) return;
  free(t->d);
  free(t->t);
  free(t->error);
  free(t->wall);
  memset(t, 0, sizeof *t);
}

double fupermod_jacobi_imbalance(const fupermod_jacobi_trace *tr, int k) {
  double tmin = INFINITY, tmax = 0.0;
  if (!tr || k < 0 || k >= tr->iterations) return NAN;
  for (int i = 0; i < tr->size; i++) {
    if (tr->d[(size_t)k * tr->size + i] <= 0) continue;
    tmin = fmin(tmin, tr->t[(size_t)k * tr->size + i]);
    tmax = fmax(tmax, tr->t[(size_t)k * tr->size + i]);
  }
  return tmin > 0.0 && isfinite(tmin) ? (tmax - tmin) / tmin : 0.0;
}

/* Model type and partitioner of a balancer name; 0 for "none". */
static int balancer_parts(const char *name, const char **model, fupermod_partition *part) {
  static const struct {
    const char *name, *model, *partitioner;
  } table[] = {{"cpm", "cpm", "cpm"}, {"fpm", "piecewise", "geometric"}, {"npa", "akima", "numerical"}};
  if (!name || !strcmp(name, "none")) return 0;
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
    if (!strcmp(name, table[i].name)) {
      const fupermod_partitioner *alg = fupermod_partitioner_find(table[i].partitioner);
      if (!alg || !alg->continuous)
        return fupermod_error(FUPERMOD_ERR_USAGE, "jacobi: partitioner '%s' of balancer '%s' is not available",
                              table[i].partitioner, name);
      *model = table[i].model;
      *part = alg->continuous;
      return 1;
    }
  return fupermod_error(FUPERMOD_ERR_USAGE, "jacobi: balancer '%s' is not none, cpm, fpm or npa", name);
}

int fupermod_jacobi_solve(MPI_Comm comm, long D, const fupermod_jacobi_opts *o, fupermod_jacobi_trace *trace,
                          double *x) {
  fupermod_jacobi *j = NULL;
  fupermod_dynamic dyn;
  fupermod_dist *even = NULL;
  fupermod_jacobi_trace tr = {0, 0, NULL, NULL, NULL, NULL};
  const char *model = NULL;
  fupermod_partition part = NULL;
  int rc = FUPERMOD_SUCCESS, size = 1, balance = 0, have_dyn = 0;
  memset(&dyn, 0, sizeof dyn);
  if (trace) memset(trace, 0, sizeof *trace);
  if (comm == MPI_COMM_NULL) return fupermod_error(FUPERMOD_ERR_USAGE, "jacobi: comm is MPI_COMM_NULL");
  MPI_Comm_size(comm, &size);
  if (!o) rc = fupermod_error(FUPERMOD_ERR_USAGE, "jacobi: options are NULL");
  else if (o->max_iter < 1) rc = fupermod_error(FUPERMOD_ERR_USAGE, "jacobi: max_iter must be >= 1, got %d", o->max_iter);
  else if (!(o->tol >= 0.0)) rc = fupermod_error(FUPERMOD_ERR_USAGE, "jacobi: tol must be >= 0, got %g", o->tol);
  else if (!(o->eps >= 0.0)) rc = fupermod_error(FUPERMOD_ERR_USAGE, "jacobi: eps must be >= 0, got %g", o->eps);
  else if ((balance = balancer_parts(o->balancer, &model, &part)) < 0) rc = balance;
  if ((rc = agree(comm, rc)) != FUPERMOD_SUCCESS) return rc;

  if (!(even = fupermod_dist_alloc(D > 0 ? D : 1, size))) rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  if ((rc = agree(comm, rc)) == FUPERMOD_SUCCESS) rc = fupermod_jacobi_create(comm, D, even, &o->emu, &j);
  if (rc == FUPERMOD_SUCCESS && balance) {
    rc = fupermod_dynamic_init(&dyn, size, model, D, part);
    have_dyn = rc == FUPERMOD_SUCCESS;
    rc = agree(comm, rc);
  }
  if (rc == FUPERMOD_SUCCESS) {
    tr.size = size;
    tr.d = calloc((size_t)o->max_iter * size, sizeof *tr.d);
    tr.t = calloc((size_t)o->max_iter * size, sizeof *tr.t);
    tr.error = calloc((size_t)o->max_iter, sizeof *tr.error);
    tr.wall = calloc((size_t)o->max_iter, sizeof *tr.wall);
    if (!tr.d || !tr.t || !tr.error || !tr.wall) rc = fupermod_error(FUPERMOD_ERR_NOMEM, "jacobi: out of memory");
    rc = agree(comm, rc);
  }
  for (int k = 0; rc == FUPERMOD_SUCCESS && k < o->max_iter; k++) {
    double w0 = fupermod_time(), err, tc;
    /* Move the rows to the balancer's distribution unless the last iteration was balanced. */
    if (balance && k > 0 && !(o->eps > 0.0 && fupermod_jacobi_imbalance(&tr, k - 1) <= o->eps))
      rc = fupermod_jacobi_redistribute(j, dyn.dist);
    if (rc != FUPERMOD_SUCCESS) break;
    for (int i = 0; i < size; i++) tr.d[(size_t)k * size + i] = j->dist->parts[i].d;
    /* The balancer models the distribution the iteration really ran with. */
    if (balance) rc = fupermod_dist_copy(dyn.dist, j->dist);
    if (rc == FUPERMOD_SUCCESS) rc = fupermod_jacobi_iterate(j, balance ? &dyn : NULL, &err, &tc);
    if (rc != FUPERMOD_SUCCESS) break;
    if (MPI_Allgather(&tc, 1, MPI_DOUBLE, tr.t + (size_t)k * size, 1, MPI_DOUBLE, j->comm) != MPI_SUCCESS) {
      rc = fupermod_error(FUPERMOD_ERR_MPI, "jacobi: gathering the times failed");
      break;
    }
    tr.error[k] = err;
    tr.wall[k] = fupermod_time() - w0;
    tr.iterations = k + 1;
    if (o->tol > 0.0 && err <= o->tol) break;
  }
  if (rc == FUPERMOD_SUCCESS && x) memcpy(x, j->x, (size_t)D * sizeof *x);
  if (rc == FUPERMOD_SUCCESS && trace) *trace = tr;
  else fupermod_jacobi_trace_free(&tr);
  if (have_dyn) fupermod_dynamic_free(&dyn);
  fupermod_jacobi_destroy(j);
  fupermod_dist_free(even);
  return rc;
}
