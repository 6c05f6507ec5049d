/* Choosing among candidate distributions by their predicted runs, knowing the predictions'
 * uncertainty (docs/models.md, "The choice"). FFTW measures its candidate plans when its estimate
 * cannot tell them apart; so does the race here. */
#ifndef FUPERMOD_CHOOSE_H
#define FUPERMOD_CHOOSE_H

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

/* A candidate: its predicted run and the prediction's half-width. */
typedef struct {
  const char *label;
  double pred, pred_ci; /* seconds; a NaN or infinite pred: no prediction, refused */
  int same_as;          /* index of an earlier candidate on the same distribution, or -1 */
  /* out, race: the runs measured while racing, their mean and Student-t half-width */
  int raced;
  double race_mean, race_ci;
} fupermod_candidate;

typedef enum {
  FUPERMOD_CHOOSE_LEAST,   /* the least prediction */
  FUPERMOD_CHOOSE_PREDICT, /* the base, unless another is faster beyond both intervals */
  FUPERMOD_CHOOSE_RACE     /* where the top predictions overlap, measure them in rounds */
} fupermod_choose_policy;

/* One run of candidate k, its time in *t (seconds). In an MPI program it is called on every
 * process with the same k, in the same order, and must give every process the same *t. */
typedef int (*fupermod_measure_fn)(int k, void *ctx, double *t);

typedef struct {
  fupermod_choose_policy policy;
  int base;       /* the partitioner's optimum (predict keeps it; -1: none) */
  int rounds;     /* race: at most this many rounds (each runs every candidate still in once) */
  int top;        /* race: the this many least predictions race even where their intervals part */
  double cl;      /* race: confidence level of the half-widths (e.g. 0.95) */
  fupermod_measure_fn measure;
  void *ctx;
} fupermod_choose_opts;

typedef struct {
  int refused;    /* candidates without a prediction */
  int top;        /* race: candidates raced */
  int rounds;     /* race: rounds run */
  int decided;    /* race: 1 when the winner led beyond both half-widths, 0 when the rounds ran out */
} fupermod_choose_stats;

/* The name of a policy ("least", "predict", "race"), and back (-1: unknown). */
const char *fupermod_choose_name(fupermod_choose_policy p);
int fupermod_choose_parse(const char *name);

/* Choose among c[0..n-1] by o->policy; *chosen is an index. A candidate without a finite
 * prediction is refused (counted in stats, never chosen); none left is FUPERMOD_ERR_INFEASIBLE.
 * Race: the o->top least predictions and every other whose interval overlaps the least one's (one
 * per distribution: same_as < 0) are each run once per round, in an order that rotates, for at most o->rounds rounds; after
 * each round from the second on, a candidate whose mean is slower than the leader's beyond both
 * half-widths leaves the race; it ends when one is left (decided) or the rounds run out (the
 * least mean then). Deterministic: every process given the same inputs and times chooses alike. */
int fupermod_choose(fupermod_candidate *c, int n, const fupermod_choose_opts *o, int *chosen,
                    fupermod_choose_stats *stats);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
