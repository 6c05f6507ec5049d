/* Shared pieces of the `fupermod` command. */
#ifndef FUPERMOD_TOOLS_H
#define FUPERMOD_TOOLS_H

#include <getopt.h>
#include <stdio.h>
#include "fupermod/fupermod.h"
#include "partitioners/matrix.h"

int cmd_config(int argc, char **argv);
int cmd_model(int argc, char **argv);
int cmd_partition(int argc, char **argv);
int cmd_build(int argc, char **argv);
int cmd_doctor(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_campaign(int argc, char **argv);
int cmd_sweep(int argc, char **argv);

/* In the front command (tools/front.c): become the full command (fupermod-mpi) on the original
 * arguments. Returns only when that fails, with the exit status. */
int tool_exec_full(void);
/* Print "fupermod SUB: message" to stderr and return the exit status of status. Before MPI
 * starts (tool_mpi_started 0), a rank other than 0 of an mpirun job first waits 5 s for the
 * launcher to end the job on rank 0's message, and speaks ("rank N: ...") only if it did not. */
int tool_fail(const char *sub, int status);
/* 1 once tool_mpi_init succeeded: from then on each rank reports its own failures. */
extern int tool_mpi_started;
/* f at every size from 1 to its largest: the measured point at a measured size, elsewhere m's
 * time and energy (NULL: fupermod_points_interpolate, as fupermod run predicts). For the exact
 * algorithms to choose any share of one unit on the model that judges (--grid unit). */
int tool_unit_points(const fupermod_points *f, const fupermod_model *m, fupermod_points *g);
/* Print a usage error and return 2 (rank 0 alone before MPI starts, as tool_fail). */
int tool_usage(const char *sub, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* After getopt_long returned '?' (with opterr 0): the usage error naming the option, a missing
 * value, or the closest long option of opts. */
int tool_bad_option(const char *sub, char **argv, const char *optstring, const struct option *opts);
/* JSON number: %.17g, null when not finite. */
void json_number(FILE *fp, double x);
void json_string(FILE *fp, const char *s);
/* Load point files named on the command line (tools/common.c). */
int tool_load_files(int nfiles, char **files, fupermod_points **out, int *count);
/* Load point files named on the command line, or from --conf CONF --data DIR (tools/load.c). */
int tool_load_points(int nfiles, char **files, const char *conf, const char *data,
                     fupermod_points **out, int *count);
/* The BR layout of dist's shares on M x N blocks, its sizes fitted to time(i, area) when time is
 * not NULL (fupermod_layout_fit; *tmax its predicted time, may be NULL); dist's shares become the
 * layout's areas (tools/load.c: the full command only). */
int tool_dist_layout(fupermod_dist *dist, int M, int N, fupermod_area_time time, void *ctx, fupermod_layout **out,
                     double *tmax);
/* Path of the point file of configuration line i in DIR. */
void tool_points_path(char *buf, size_t size, const char *dir, const fupermod_process_conf *pc);
/* Split the comma-separated value of option opt (e.g. "--sizes") and call each(item, ctx) on every
 * item in order. An empty item, or one of size characters or more, is a FUPERMOD_ERR_USAGE naming
 * opt; so is a non-zero return of each, which has recorded its own message. */
int tool_list(const char *opt, const char *value, size_t size, int (*each)(const char *item, void *ctx), void *ctx);
/* --smooth W: each of the n functions replaced by its smoothed copy, as fupermod run partitions
 * them (fupermod_points_smooth, 95 % intervals; tools/cmd_partition.c). W = 0: unchanged. */
int tool_smooth_points(fupermod_points *pts, int n, long w);
/* The gnuplot style of curve i of a plot: its own colour, point type and dash type, so that curves
 * that coincide (processes sharing a core have one function) stay distinguishable. Returns buf. */
const char *tool_plot_style(char *buf, size_t size, int i);
/* 1 when a and b have the same sizes and times: curves that lie on each other, which a plot's key
 * says (processes sharing a core are measured together and share one function). */
int tool_points_equal(const fupermod_points *a, const fupermod_points *b);
/* Run gnuplot on a script file; returns 0 on success, -1 when gnuplot is missing or fails. */
int tool_gnuplot(const char *script);
#include "tools/trim.h"

#endif
