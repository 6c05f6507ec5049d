/* fupermod run's report (tools/run_report.c): the terminal tables, the CSV files and the plots of
 * an application's runs on its distributions. The types are fupermod run's (tools/cmd_run.c). */
#ifndef FUPERMOD_TOOLS_RUN_REPORT_H
#define FUPERMOD_TOOLS_RUN_REPORT_H

#include "tools/build_common.h"
#include "apps/app.h"

typedef struct {
  const char *name;   /* "dgemm" or "fft" */
  const char *kernel; /* kernel plug-in measured for it */
  long n;             /* matrix order or signal side */
  long b;             /* SUMMA block (dgemm) */
  long D;             /* units to distribute: blocks of C, or signal rows */
  long g;             /* granule: the measured sizes are g, 2g, ..., D */
  int K;              /* number of measured sizes */
  double iters;       /* kernel runs per application run (nb GEMM updates, 2 FFT phases) */
  const fupermod_app_ops *ops;  /* an application plug-in (fupermod run --app); NULL: SUMMA or the 2D-FFT */
  const fupermod_app_problem *pb; /* the plug-in's problem */
} app_t;

/* SUMMA DGEMM, the 2D-FFT, or neither (an application plug-in, apps/app.h) */
static inline int tool_app_dgemm(const app_t *a) { return !a->ops && a->b > 0; }
static inline int tool_app_fft(const app_t *a) { return !a->ops && a->b == 0; }

/* A distribution the application is run on, with predictions and measurements (rank order). */
typedef struct {
  const char *label;
  fupermod_dist *dist;
  double pred_time, pred_energy;  /* predicted application compute time (s) and dynamic energy (J) */
  double meas_time, meas_energy;  /* measured on the application (mean of reps) */
  double *meas_proc, *meas_proc_e; /* per process: measured compute time (see record_rep) and dynamic energy */
  double *meas_wall;               /* per process: how long its cores computed (a group: the union of its phases) */
  double *meas_sq;                 /* per process: sum of the squared compute times of the reps */
  double *meas_ci;                 /* per process: the measured compute time's confidence half-width */
  double *meas_cpu;                /* per process: CPU seconds its cores gave the computation (mean) */
  double *pred_ci;                 /* per process: predicted compute time's confidence half-width */
  double tsum, esum;               /* sums over the timed runs so far (every round); esum: computation */
  double esum_run, meas_energy_run; /* the whole run's dynamic energy, waits included: sum, mean */
  fupermod_layout *layout;          /* DGEMM, rank 0: the blocks of C SUMMA runs on */
  double pred_run, pred_run_ci;     /* the whole run predicted by the application's cost model (apps/model.h) */
  double *pred_comp, *pred_comm;    /* per process: its computation and its messages in that prediction */
  int calibrated;                   /* the whole-run model was calibrated on it: in sample */
  double pred_wrong[2];             /* the same by two wrong models (TOOL_MODEL_UNCALIBRATED, _NO_MESSAGES) */
  double tsq, meas_run_ci;          /* the whole runs' sum of squares; the mean's confidence half-width */
  double *meas_rows, *meas_cols;    /* 2D-FFT, per process: its row and column phases (wall, mean) */
  double *meas_copy;                /* 2D-FFT, per process: its own copies (its busy time outside the phases) */
  int shared;                       /* 2D-FFT: its runs exchanged through one node's shared memory */
} run_t;

typedef struct {
  const char *conf, *out, *algorithm;
  const char *models; /* the models, links and history: --models, else OUT/models */
  int apps_dgemm, apps_fft, reps, quiet, rebuild;
  const char *app_plugins; /* --app: application plug-ins, comma-separated (NULL: none) */
  int full_grid; /* measure every grid size instead of building adaptively */
  long dgemm_n, dgemm_b, fft_n, K;
  long app_n; /* the plug-ins' size (--size; default 4096) */
  int smooth; /* half-width of the smoothing window in measured sizes; 0: the raw points */
  double tradeoff;
  fupermod_precision prec;
  double lock_wait; /* seconds to wait for a models directory another job writes */
  int choose;       /* fupermod_choose_policy */
  int race_rounds;  /* the race's budget in rounds */
  int race_top;     /* the least predictions that race whatever their intervals */
  double static_power; /* --static-power: htpopta's */
  const char *provenance; /* one line: fupermod's version and commit, the host, its CPU, the date (rank 0) */
  int simulated; /* fupermod_time_simulated() of any process: 2 when a simulated GPU computes nothing */
} options;

/* What the report is about, on rank 0 after the runs. */
typedef struct {
  const options *o;
  const app_t *a;
  const run_t *runs;               /* runs[0]: the chosen distribution; runs[nruns - 1]: the even one */
  int nruns;
  const fupermod_points *f;        /* the functions partitioned (smoothed with --smooth) */
  const fupermod_points *measured; /* the measured points */
  const double *scatter;           /* --smooth: per process, the points' relative scatter about the fit */
  int size;
  const fupermod_front *front;     /* the Pareto front, and its point chosen (-1: none) */
  int chosen;
  const tool_proc *tp;
  const char **hosts;              /* per process: host.intra-node rank */
  const int *leader, *threads;     /* per process: the leader of its group sharing cores, its threads */
  int best;                        /* the run chosen (by o->choose) */
  const char *choice;              /* how it was chosen: lines for the report */
  int links;                       /* 1: messages priced by measured links; 0: one process */
} run_report;

/* The whole-run predictions scored strictly: each distinct distribution once (runs with the same
 * shares and prediction pooled), |pred - meas| / meas <= 10 %, out of sample apart from the
 * calibration's distribution (runs[0]'s), and the regret of the choice (runs[best]). */
typedef struct {
  int out_k, out_n, in_k, in_n, distinct;
  double median, worst;          /* out of sample: relative errors (NaN: none) */
  double chosen_meas, best_meas; /* the chosen distribution's measured run, the least measured */
  double regret;                 /* chosen_meas / best_meas - 1 */
} run_accounting;
/* Which prediction is scored: the model's, or one of two wrong models, scored alike so that the
 * report shows what the score can tell apart (docs/models.md, "Scored strictly"). */
enum { TOOL_MODEL_REAL = -1, TOOL_MODEL_UNCALIBRATED = 0, TOOL_MODEL_NO_MESSAGES = 1 };
int tool_run_accounting(const run_t *runs, int nruns, int best, int model, run_accounting *acc);
/* Runs on one distribution: the same shares and the same prediction (so the same layout);
 * tools/run_history.c. */
int tool_same_run(const run_t *x, const run_t *y);

/* Print the tables; write OUT/report-APP.csv, summary-APP.csv, the plot data and the gnuplot
 * script, and run it. */
void tool_run_report(const run_report *r);

#endif
