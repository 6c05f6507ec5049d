/* Row-distributed Jacobi solver with dynamic load balancing (Clarke 2014, sec. 3.3; docs/apps.md).
 *
 * The system: a dense D x D diagonally dominant A (a_ij in [0, 1) from a hash of (i, j) for
 * j != i, a_ii = 2 sum_{j != i} a_ij + 1, so the Jacobi iteration matrix has norm <= 1/2) and
 * b = A x*, x*_i = 1 + (i mod 7) / 8. Rank r owns rows [R_r, R_r + d_r) of A and b (R_r:
 * fupermod_dist_offsets), row-major d_r x (D + 1) with the diagonal in column D, so its memory
 * grows with its rows; x is replicated.
 * One iteration: every rank updates its rows from the whole x (j ascending, so a row's result
 * does not depend on which rank computes it), then MPI_Allgatherv rebuilds x.
 *
 * Emulated processors (for the memory-cliff experiment, sec. 6.1): a process may be given a
 * speed and a "memory" so that the time of an iteration is
 *     t(d) = row_time * (d + penalty * max(0, d - mem_rows)),
 * reached by sleeping after the real computation until t(d) has passed since the iteration
 * started (the real computation must be faster than t(d) for the emulation to hold). Rows past
 * mem_rows are (1 + penalty) times slower, as pages that no longer fit are. */
#ifndef FUPERMOD_JACOBI_H
#define FUPERMOD_JACOBI_H

#include <mpi.h>
#include <fupermod/fupermod.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* the public API; the libraries build with -fvisibility=hidden */

typedef struct fupermod_jacobi_emu {
  double row_time; /* emulated seconds per local row per iteration; 0: no emulation */
  long mem_rows;   /* rows that fit in the emulated memory; <= 0: unlimited */
  double penalty;  /* extra cost of a row past mem_rows, in units of row_time (>= 0) */
} fupermod_jacobi_emu;

/* Emulated time of d rows (0 without emulation). */
double fupermod_jacobi_emu_time(const fupermod_jacobi_emu *emu, long d);

typedef struct fupermod_jacobi fupermod_jacobi;

/* Collective: build this rank's rows of the system for dist (D units = rows, size of comm
 * parts, the same on every rank) and x = 0. emu may be NULL (no emulation). */
int fupermod_jacobi_create(MPI_Comm comm, long D, const fupermod_dist *dist, const fupermod_jacobi_emu *emu,
                           fupermod_jacobi **out);
/* Collective: one iteration; *error = max_i |x_new_i - x_i| (the same on every rank),
 * *t_compute (may be NULL) = this rank's time of the local update including the emulation.
 * When dyn is not NULL, fupermod_balance_iterate(dyn, comm, start) is called as soon as the
 * local update is done, before the exchange of x, so that the balancer sees computation only. */
int fupermod_jacobi_iterate(fupermod_jacobi *j, fupermod_dynamic *dyn, double *error, double *t_compute);
/* Collective: move rows of A and b so that rank r owns dist->parts[r].d rows. */
int fupermod_jacobi_redistribute(fupermod_jacobi *j, const fupermod_dist *dist);
/* The current distribution (owned by j) and the replicated iterate x (D values). */
const fupermod_dist *fupermod_jacobi_dist(const fupermod_jacobi *j);
const double *fupermod_jacobi_x(const fupermod_jacobi *j);
/* x*_i, the exact solution. */
double fupermod_jacobi_exact(long i);
void fupermod_jacobi_destroy(fupermod_jacobi *j);

/* A whole solve with a balancer, recorded per iteration. */
typedef struct fupermod_jacobi_opts {
  const char *balancer; /* "none"; "cpm": cpm models + cpm partitioner (latest speed, Galindo et
                           al., sec. 2.3); "fpm": piecewise models + geometric partitioner;
                           "npa": Akima models + numerical partitioner */
  double tol;           /* stop when the error is <= tol (0: run max_iter iterations) */
  int max_iter;         /* >= 1 */
  double eps;           /* keep the distribution when the measured imbalance
                           (t_max - t_min) / t_min <= eps (0: always follow the balancer) */
  fupermod_jacobi_emu emu; /* this rank's emulation (row_time 0: none) */
} fupermod_jacobi_opts;

typedef struct fupermod_jacobi_trace {
  int size, iterations;
  long *d;       /* [k * size + i]: rows of process i in iteration k */
  double *t;     /* [k * size + i]: its computation time (s) */
  double *error; /* [k]: max |x_new - x| */
  double *wall;  /* [k]: wall time of the iteration with exchange and redistribution (s) */
} fupermod_jacobi_trace;

/* Collective: solve from x = 0 with the even distribution, rebalancing between iterations.
 * trace (may be NULL) is filled on every rank; x (may be NULL) receives the D values of the
 * last iterate. */
int fupermod_jacobi_solve(MPI_Comm comm, long D, const fupermod_jacobi_opts *opts, fupermod_jacobi_trace *trace,
                          double *x);
void fupermod_jacobi_trace_free(fupermod_jacobi_trace *trace);
/* Measured imbalance (t_max - t_min) / t_min of iteration k of a trace (processes with 0 rows
 * are left out). */
double fupermod_jacobi_imbalance(const fupermod_jacobi_trace *trace, int k);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
