/* Campaigns: the campaign file, experiment ids and templates, the result CSV (docs/campaigns.md). */
#ifndef FUPERMOD_TOOLS_CAMPAIGN_H
#define FUPERMOD_TOOLS_CAMPAIGN_H

#include <stddef.h>

typedef struct {
  char **items;
  int count;
} camp_list;

typedef struct {
  char *path;     /* the campaign file, for messages */
  char *name;     /* job name, file stems */
  camp_list apps, sizes, partitioners, configs;
  char **tags;    /* per config: its file name without the extension, for ids */
  long *np;       /* per config; 0: count the configuration's process lines */
  int np_count;   /* values given for np (1 or one per config; 0: auto) */
  int reps;
  char *command, *result, *output, *rundir;
  double timeout; /* seconds, 0: none */
  /* batch scripts */
  char *cluster;  /* "oar", "slurm" or NULL */
  long nodes, cores_per_node; /* 0 when absent */
  char *walltime; /* HH:MM:SS, NULL when absent */
  char *queue, *project, *properties, *constraint, *cluster_config, *config_subopts, *cluster_mpirun;
  char **setup;
  int nsetup;
  int line_of[32]; /* line of each key (index in the key table), 0 when absent */
} campaign;

/* One experiment of the cross product; indexes into the campaign's lists, rep from 1. */
typedef struct {
  char *id;
  int app, size, part, conf, rep;
} camp_exp;

int camp_load(const char *path, campaign *c);
void camp_free(campaign *c);
/* Line of key NAME in the campaign file, 0 when absent. */
int camp_key_line(const campaign *c, const char *name);
/* The cross product in run order: rep, app, size, config, partitioner (innermost). */
int camp_experiments(const campaign *c, camp_exp **out, int *n);
void camp_experiments_free(camp_exp *e, int n);
/* Expand template KEY ("command" or "result") for experiment e; np < 1 leaves {np} empty. */
int camp_expand(const campaign *c, const char *key, const camp_exp *e, long np, const char *dir, char **out);
/* Does the template use placeholder NAME ("np", "dir", ...)? */
int camp_uses(const char *tmpl, const char *name);

/* The campaign's output CSV: one row per experiment, fixed columns. */
enum {
  COL_ID, COL_APP, COL_SIZE, COL_PART, COL_CONFIG, COL_NP, COL_REP, COL_STATUS, COL_EXIT, COL_WALL,
  COL_TIME, COL_ENERGY, COL_EVEN_TIME, COL_EVEN_ENERGY, COL_FINISHED, COL_EXTRA, NCOLS
};
typedef struct {
  char *f[NCOLS];
  int line;
} camp_row;
/* Rows of the output CSV (a missing or empty file has none). A torn last line (no newline, from a
 * crash during the write) is not returned: *good is the length of the file without it. */
int camp_rows_load(const char *path, camp_row **rows, int *n, size_t *good);
void camp_rows_free(camp_row *rows, int n);
/* The CSV header line, with its newline. */
const char *camp_header(void);

/* What an experiment's result file says: numbers as written (validated), "" when absent. */
typedef struct {
  char time[48], energy[48], even_time[48], even_energy[48];
  char extra[1024]; /* the other columns, key=value;... */
} camp_result;
int camp_result_read(const char *path, const campaign *c, const camp_exp *e, camp_result *r);

#endif
