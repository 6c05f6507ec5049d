/* What the MPI tools that measure (fupermod build, fupermod dypart) share: error agreement, and
 * setting up a process from its configuration line (binding, kernel, energy meter). */
#ifndef FUPERMOD_TOOLS_BUILD_COMMON_H
#define FUPERMOD_TOOLS_BUILD_COMMON_H

#include <mpi.h>
#include "partitioners/partitioners.h"
#include "tools/tools.h"

/* Agree on an error over comm: every rank returns the first failing rank's status, whose
 * message that rank prints once as "fupermod SUB: rank R: message". */
int tool_agree(const char *sub, int rc, MPI_Comm comm);
/* --allow-fewer: a job of fewer processes than its configuration's lines uses the first ones;
 * otherwise tool_proc_setup refuses it (tool_fewer_error, printed by rank 0). */
extern int tool_allow_fewer;
/* Other kernels that read the same configuration lines (fupermod run's applications, up to 3,
 * NULL-terminated): a line's sub-options are checked against all of them. */
extern const char *tool_line_kernels[4];
int tool_fewer_error(const char *sub, const char *confpath, int lines, int procs, int rank);

/* The PRECISION options of the tools that measure: -r -R -i -e -T -z (TOOL_PRECISION_OPTS in a
 * getopt string). 1 when c is one of them, with *status 0, or a usage error's for a bad value. */
#define TOOL_PRECISION_OPTS "r:R:i:e:T:z:"
int tool_precision_opt(const char *sub, int c, const char *arg, fupermod_precision *prec, int *status);

typedef struct tool_proc {
  fupermod_conf conf;
  int index;              /* this process's configuration line */
  MPI_Comm intra;         /* the processes of this node */
  fupermod_kernel *kernel;
  fupermod_meter *meter;  /* NULL: no meter (the kernel's own energy op, if any) */
  double static_power;    /* W, given or probed */
  int probed;             /* static power from an idle probe */
  char label[512];        /* energy label of output files; "" without a meter */
  fupermod_launch_entry *map; /* where every rank runs (host, intra-node rank, line, CPUs) */
  int nmap;
  fupermod_exec *exec;    /* the process's executor, from its line (tool_proc_exec); NULL: none yet */
} tool_proc;

/* Rank r's configuration entry (its line, found by fupermod_launch_map): point files, tables and
 * comm files name a process HOST.RANK by it. */
const fupermod_process_conf *tool_rank_conf(const tool_proc *p, int r);
/* Collective over MPI_COMM_WORLD: load CONF, find this process's line, bind, check where the ranks
 * landed (fupermod_launch_map; rank 0 prints the map unless quiet), load the kernel
 * (kname, or the line's kernel=), create the line's meter and find its static power (a probe
 * keeps each node idle). Errors are agreed (tool_agree). */
int tool_proc_setup(const char *sub, const char *confpath, const char *kname, int quiet, tool_proc *p);
/* A point as TOOL_POINT_ROW doubles, for MPI messages (the host and sample count stay behind). */
#define TOOL_POINT_ROW 8
void tool_point_pack(const fupermod_point *p, double *row);
fupermod_point tool_point_unpack(const double *row);
/* Collective over share (fupermod_share_comm; MPI_COMM_NULL: nothing to do). Processes that
 * time-share cores record the same points, their cores' time: before a build, each member takes,
 * for every size another member has and it lacks (a build interrupted between their appends),
 * that member's point, appended to path, so that their point sets are the same. */
int tool_share_sync(MPI_Comm share, fupermod_points *have, const char *path);
/* Collective: p->exec = this process's executor, opened from its line (fupermod/exec.h) the first
 * time and shared by every later tool_proc of the process; a line whose device cannot be opened
 * (a gpu line on a host without a usable GPU) stops every rank, naming the line and the host.
 * tool_proc_setup does it itself for a gpu line whose kernel computes through an executor, and
 * binds the kernel to it. */
int tool_proc_exec(const char *sub, const char *confpath, tool_proc *p);
/* Close the process's executor: after the last tool_proc_free, before MPI_Finalize. */
void tool_exec_close(void);
void tool_proc_free(tool_proc *p);

/* The lock of a directory of point files (DIR/.fupermod-lock): a job holds it while it reads,
 * measures and writes the files there, so that two jobs never measure the same size twice, write
 * a header twice or lose each other's points. One lock per directory, taken by rank 0 for the
 * whole job, so that two multi-process jobs cannot each hold a part the other waits for. */
#define TOOL_DIR_LOCK ".fupermod-lock"
/* Collective over MPI_COMM_WORLD: rank 0 takes DIR's lock, waiting up to wait seconds for the job
 * that holds it (saying which on stderr), and writes who holds it into the lock file; the other
 * ranks wait without spinning. *fd: the lock on rank 0 (-1 elsewhere). Errors are agreed.
 * From then on SIGINT and SIGTERM end the process with 128 + the signal, emptying a lock still
 * held; rank 0 first prints "fupermod SUB: interrupted by signal N; ..." naming DIR. */
int tool_dir_lock(const char *sub, const char *dir, double wait, int *fd);
/* fupermod comm's measurement of every link (tools/cmd_comm.c), for fupermod comm and fupermod run */
struct fupermod_comm;
int tool_comm_links(const char *sub, const tool_proc *pr, const char *path, const long *sizes, int nsizes,
                    const fupermod_precision *prec, int rebuild, int quiet, struct fupermod_comm *cm, char ***names);
void tool_dir_unlock(int *fd);

/* Combinations of sizes of fupermod build --additivity: one size for every process, or one per
 * process in rank order ("d" or "d0:d1:..."). */
typedef struct tool_combo {
  long *d;
  int n;
} tool_combo;
typedef struct tool_combos {
  tool_combo *c;
  int n;
} tool_combos;
/* Parse a comma-separated list of combinations (FUPERMOD_ERR_USAGE naming a bad item). */
int tool_combos_parse(const char *spec, tool_combos *out);
void tool_combos_free(tool_combos *c);
/* The additivity check (tools/build_additivity.c), collective over MPI_COMM_WORLD: at each
 * combination, each process of a node runs alone (the others idle), then all together, each
 * phase repeated to prec; a meter of the whole node, read by every process of it, measures them.
 * Writes DIR/additivity.csv (per node and combination: the sum of the alone energies, the
 * energy together, the error (together - sum) / sum, their half-widths, additive within them) and
 * DIR/additivity-alone.csv, and prints a table with the min/average/max error. */
int tool_additivity(const char *sub, const char *confpath, tool_proc *tp, const tool_combos *combos,
                    const fupermod_precision *prec, const char *dir, int quiet);

/* Adaptive building (tools/build_adaptive.c): measure only where the distribution is decided. */
enum { TOOL_ADAPT_TIME = 1, TOOL_ADAPT_ENERGY = 2, TOOL_ADAPT_HIER = 4, TOOL_ADAPT_PARETO = 8 };

/* The Pareto choice of fupermod run (no MPI): HEPOPTA's front of prob, ordered by time, and the
 * point of least energy whose time is within tradeoff of the fastest (*chosen, -1: empty front). */
int tool_pareto_pick(const fupermod_problem *prob, double tradeoff, fupermod_front *front, int *chosen);

typedef struct tool_adaptive {
  const long *grid;      /* the full grid: candidate sizes, increasing */
  int ngrid;
  long D;                /* units the caller distributes */
  const char *algorithm; /* the caller's exact discrete time partitioner (paraleph: collective) */
  int objectives;        /* TOOL_ADAPT_*: the distributions whose shares are measured */
  double tradeoff;       /* TOOL_ADAPT_PARETO: the Pareto choice's (tool_pareto_pick) */
  int init;              /* first-round sizes, log-spaced over the grid (>= 2) */
  int max_rounds;        /* rounds after the first */
  double tol;            /* relative half-width of the predicted optimum that ends a stable build */
  int smooth;            /* partition on fupermod_points_smooth(W = smooth) functions, as the caller */
  double cl;             /* their prediction level */
  int kernel_energy;     /* keep energy from the kernel's own op when there is no meter */
  int quiet;
  const char *sub;       /* tool name in messages */
  long *watch_d;         /* if not NULL: the size in progress, for a watchdog (__atomic) */
  int refine;            /* a uniform grid g, 2g, ..., D may get a finer step for a slow device */
  /* results */
  int rounds;            /* rounds run after the first */
  int converged;         /* 0: the round cap ended it */
  double spent;          /* this process's benchmark seconds in this call */
  fupermod_points *all;  /* rank 0: every process's points at the end (tool_adaptive_free) */
  int size;
} tool_adaptive;

/* Collective over MPI_COMM_WORLD. Starting from the points in have (read from path by the
 * caller), measure ad->init log-spaced grid sizes, then repeat: partition interpolated functions
 * over the grid, measure each process's share and its grid neighbours that are missing, until the
 * distribution is unchanged from the round before with its shares measured and the predicted
 * optimum within ad->tol (or nothing near the shares is left to measure), or ad->max_rounds.
 * The processes of a node measure together (those sharing cores the same sizes); each point is
 * appended to path at once, so a rerun measures only what is missing. */
int tool_adaptive_build(tool_adaptive *ad, tool_proc *tp, fupermod_kernel *k, const fupermod_precision *prec,
                        const char *path, fupermod_points *have);
void tool_adaptive_free(tool_adaptive *ad);
/* Benchmark seconds a point set cost (sum of t x (reps + rejected) over its points) and an estimate of what the
 * full grid costs (the same over the grid, time and repetitions interpolated from f). */
void tool_adaptive_cost(const fupermod_points *f, const long *grid, int ngrid, double *spent, double *full);
/* HiPOPTA (exact two-level, "dp" inside) over conf's nodes or group= keys, on the calling process:
 * process r runs configuration line line[r] and has function f[r]; *out in rank order, NULL
 * when the processes form one group. */
int tool_hier_partition(const fupermod_conf *conf, const int *line, long D, int p, const fupermod_points *const *f,
                        fupermod_dist **out);
/* Per process: sizes measured, their cost, and the full grid's estimated cost (rank order). */
void tool_adaptive_report(FILE *fp, const fupermod_points *all, int size, const long *grid, int ngrid);

#endif
