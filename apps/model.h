/* Each application's cost model (docs/models.md, "Whole-run predictions"): how long a whole run
 * takes on a given distribution, from the processes' computation (the measured functions, through
 * a callback) and the measured communication model (fupermod/comm.h). Two uses: the prediction of
 * one distribution as it runs (fupermod_summa_predict, fupermod_fft2d_predict), and a per-process
 * cost of a share given which processes work, the objective the whole-run partitioner minimises
 * (fupermod_summa_share_cost, fupermod_fft2d_share_cost; partitioners/whole.h). */
#ifndef FUPERMOD_APPS_MODEL_H
#define FUPERMOD_APPS_MODEL_H

#include <stdint.h>
#include <fupermod/fupermod.h>
#include <fupermod/comm.h>
#include "../partitioners/matrix.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* the public API; the libraries build with -fvisibility=hidden */

/* Process i's time for one kernel run on `units` (SUMMA: blocks of C in one b-wide update; the
 * 2D-FFT: rows, or columns, of one phase), and *ci its confidence half-width (may be NULL).
 * units > 0. */
typedef double (*fupermod_app_time)(int i, double units, double *ci, void *ctx);

/* What the application's own run measured, per process, where the kernels' functions and the
 * links do not tell (a run on one distribution, before the others: tools/run_calibrate.c). Any array
 * may be NULL (factor 1, no copies). */
typedef struct fupermod_app_cal {
  const double *comp; /* the application's computation over the function's at the same units
                       * (SUMMA: its updates on its rectangle; the 2D-FFT: its row phase) */
  const double *cols; /* 2D-FFT: its column phase (panels) over the function at as many columns */
  const double *copy; /* 2D-FFT: seconds per byte of its own copies of its rows into the exchange
                       * and back (16 d N bytes each transpose) */
  const int *direct;  /* 2D-FFT: 1 where the process, holding the whole signal, transforms it in one
                       * call without copies (a GPU executor: fupermod_exec_fft2d) */
  int shared;         /* 2D-FFT: the run exchanges through one node's shared memory (copies, no
                       * messages) */
  double msgs;        /* the messages' time over the links' (the application's flows at once,
                       * where the links were measured a pair at a time); 0: 1 */
  const int *group;   /* group[i]: the lowest rank of the processes that time-share process i's
                       * cores (NULL: none do). Their messages take turns on those cores: a
                       * group's messages add up (one between two members counts once) */
  const int *host;    /* host[i]: process i's host, numbered from 0 (NULL: all on one). SUMMA's
                       * messages between hosts cross their links while the update computes,
                       * sharing each host's link, both directions; within a host the cores copy
                       * them */
  double link_share;  /* what messages at once between hosts cost over their times one at a time
                       * (fupermod_comm_share_measure; 0: 1, one after the other) */
} fupermod_app_cal;

/* A whole-run prediction. comp and comm (p entries each, caller's arrays, may be NULL): per
 * process, its computation and its communication: what it sends and what it receives, one after
 * the other (a link that carries both ways at once, or a sender that can post several messages
 * at once, makes the real cost lower), and its own copies. */
typedef struct fupermod_app_pred {
  double time; /* the whole run, s */
  double ci;   /* half-width of its interval: the critical path's computation and message intervals */
  double *comp, *comm;
} fupermod_app_pred;

/* SUMMA (apps/summa.h) on layout l (n, b as fupermod_summa_dgemm): per pivot, each process's
 * update on its rectangle and its messages of the next pivot (pieces of the pivot column of A
 * along rows, of the pivot row of B along columns, as the run posts them); a pivot step lasts as
 * long as its slowest process's update plus messages (MPI progresses inside the update only in
 * its calls between chunks, on the same core). On a layout with pieces a process's update is the
 * sum over its pieces of t at the piece's area, and its messages those SUMMA sends on pieces (one
 * per intersection of a receiver's rows, or columns, with a piece holding the pivot). cm NULL:
 * communication costs nothing; a link not measured is FUPERMOD_ERR_INPUT. */
int fupermod_summa_predict(const fupermod_layout *l, int n, int b, fupermod_app_time t, void *ctx,
                           const fupermod_comm *cm, const fupermod_app_cal *cal, fupermod_app_pred *out);

/* The 2D-FFT (apps/fft2d.h) of M x N on the row distribution rows (columns proportional, as
 * fupermod_fft2d_plan with cols NULL): the row phase, the transpose (process i sends j the
 * d_i x c_j block, 16 bytes an element), the column phase and the transpose back, each phase
 * ending when its slowest process ends; each transpose also costs every process its own copies
 * (cal->copy), and with cal->shared only those. A process holding the whole signal sends nothing. */
int fupermod_fft2d_predict(long M, long N, const fupermod_dist *rows, fupermod_app_time t, void *ctx,
                           const fupermod_comm *cm, const fupermod_app_cal *cal, fupermod_app_pred *out);

/* Jacobi (apps/jacobi.h), iters iterations on the row distribution rows of a D x D system: each
 * iteration, every process's update of its rows, then the exchange of x (MPI_Allgatherv: i's
 * 8 d_i bytes to every other process, theirs to it) and the agreement on the error (an
 * allreduce: ceil(log2 p) rounds of the slowest latency), each ending when its slowest process
 * ends. cal->comp as for SUMMA. */
int fupermod_jacobi_predict(long D, const fupermod_dist *rows, int iters, fupermod_app_time t, void *ctx,
                            const fupermod_comm *cm, const fupermod_app_cal *cal, fupermod_app_pred *out);

/* The objective's per-process cost of a share d (> 0) when the processes of the bit mask working
 * work (bit i set), for partitioners/whole.h. tcomp: process i's computation of one kernel run
 * on d units (as fupermod_app_time). Messages: i's links within the working set at their
 * slowest bandwidth (an upper bound where links differ) and their latencies summed.
 * SUMMA: nb = n/b updates, each with the pieces of A and B a square of d blocks receives.
 * 2D-FFT: two phases and two transposes of i's d rows against the N - d (N/M) columns it does
 * not keep, plus its copies. A process working alone sends nothing. cal as for the predictions. */
double fupermod_summa_share_cost(int n, int b, int i, long d, uint64_t working, double tcomp, const fupermod_comm *cm,
                                 const fupermod_app_cal *cal);
double fupermod_fft2d_share_cost(long M, long N, int i, long d, uint64_t working, double tcomp,
                                 const fupermod_comm *cm, const fupermod_app_cal *cal);

/* A whole-run prediction of distribution d (a NaN or infinity where there is none). */
typedef double (*fupermod_app_predict_fn)(const fupermod_dist *d, void *ctx);

/* The whole-run partition on the prediction itself: from d, the best move of a step of units
 * from one process to another (idling it, or waking an idle one) while the prediction falls by
 * more than rounding, the steps from large to `unit` (the last: a local minimum at one unit: no
 * single move of one unit between two processes lowers the prediction), at most max_moves moves.
 * *best: d's prediction after them, *moves: the moves made (may be NULL). The per-process costs
 * of fupermod_summa_share_cost and fupermod_fft2d_share_cost approximate the prediction (its
 * phases end each with its slowest process, a process's messages depend on the others' shares):
 * the exact partition over them is where this descent starts. */
int fupermod_app_descend(fupermod_dist *d, long unit, fupermod_app_predict_fn pred, void *ctx, int max_moves,
                         double *best, int *moves);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
