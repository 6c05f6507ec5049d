/* Communication measured, not assumed: the one-way time of a message between every pair of the
 * processes of a job, over a range of message sizes, each to Student-t confidence (ping-pong, half
 * the round trip). Pairs that share no process are measured at the same time, in the rounds of a
 * round-robin tournament. The result is a model an application's cost model queries:
 * fupermod_comm_time(c, i, j, bytes). docs/models.md ("Communication"), file format in
 * docs/formats.md. */
#ifndef FUPERMOD_COMM_H
#define FUPERMOD_COMM_H

#include <mpi.h>
#include "benchmark.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* the public API; the libraries build with -fvisibility=hidden */

typedef struct fupermod_comm_point {
  double bytes; /* message size */
  double t;     /* one-way time, s (mean) */
  double ci;    /* half-width of its confidence interval, s */
  int reps;
} fupermod_comm_point;

/* The link between processes i < j (taken the same both ways). */
typedef struct fupermod_comm_link {
  int n;                    /* measured sizes (0: not measured) */
  fupermod_comm_point *pts; /* by increasing bytes */
  double alpha, beta;       /* Hockney fit t = alpha + beta bytes, least relative squares */
} fupermod_comm_link;

typedef struct fupermod_comm {
  int p;
  fupermod_comm_link *links; /* p x p, the pair (i, j) at links[i * p + j] with i < j */
} fupermod_comm;

int fupermod_comm_init(fupermod_comm *c, int p);
void fupermod_comm_free(fupermod_comm *c);
/* The link of i and j in either order; NULL when i == j or out of range. */
fupermod_comm_link *fupermod_comm_link_of(const fupermod_comm *c, int i, int j);
/* Fit alpha and beta to a link's points (every link measured is fitted by measure and load). */
void fupermod_comm_fit(fupermod_comm_link *l);
/* One-way time of a message of `bytes` from i to j: interpolated linearly between the measured
 * sizes, the smallest one's time below them, beta per byte beyond the largest. 0 when i == j; -1
 * when the link was not measured. */
double fupermod_comm_time(const fupermod_comm *c, int i, int j, double bytes);

/* The same, with *ci its confidence half-width (the measured points' relative half-widths,
 * interpolated the same way; ci may be NULL). */
double fupermod_comm_time_ci(const fupermod_comm *c, int i, int j, double bytes, double *ci);

/* Called by rank 0 after each round (for progress and to save what is measured so far); a
 * non-zero return stops the measurement with that status. */
typedef int (*fupermod_comm_round_fn)(const fupermod_comm *sofar, int round, int rounds, void *ctx);
/* Collective over comm: measure every link of c (c->p = the size of comm) that has no points yet,
 * at the given message sizes (bytes, increasing), each size until prec is met (reps_min,
 * reps_max, cl, eps, time_max; the rest is not used). Links already measured are kept (a resumed
 * measurement). The result is on every rank. */
int fupermod_comm_measure(MPI_Comm comm, const long *sizes, int nsizes, const fupermod_precision *prec,
                          fupermod_comm *c, fupermod_comm_round_fn each, void *ctx);

/* Collective over comm: how the links between hosts carry several messages at once, as the
 * applications send them (a SUMMA step's pieces, a transpose's blocks) and a ping-pong of one pair
 * cannot show. host[r]: rank r's host, numbered from 0. For each pair of hosts, every process of
 * each sends `bytes` to a process of the other, all at once, both ways; the time until the last
 * arrives, over the sum of those messages' times one at a time (fupermod_comm_time of c, measured
 * before), is the pair's share (the median of reps tries, after a warm-up): 1 where the link
 * carries them one after the other, 1/F for F messages that do not slow one another. *share: the
 * median over the pairs (0 with one host, or on a rank whose c lacks the links). Host pairs with
 * no common host are measured at the same time (H - 1 rounds for H hosts, H + 1 messages). */
int fupermod_comm_share_measure(MPI_Comm comm, const int *host, const fupermod_comm *c, long bytes, int reps,
                                double *share);

/* Save and load (docs/formats.md, "Communication files"). names[i]: process i's name (its
 * configuration entry, HOST.RANK); sizes: the sizes measured, in the header so that a resumed
 * measurement knows what was asked. load fills names (malloc'ed, NULL-terminated) when asked. */
int fupermod_comm_save(const fupermod_comm *c, const char *path, const char *const *names, const long *sizes,
                       int nsizes);
int fupermod_comm_load(const char *path, fupermod_comm *c, char ***names, long **sizes, int *nsizes);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
