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
  char sha[65];    /* SHA-256 of the campaign file's bytes */
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
/* Same, with nps standing for {np} (a placeholder the dry run shows when np is unknown). */
int camp_expand_np(const campaign *c, const char *key, const camp_exp *e, const char *nps, const char *dir, char **out);
/* {models}: the model directory shared by experiment e's partitioners and repetitions. */
void camp_models_dir(const campaign *c, const camp_exp *e, char *buf, size_t size);
/* What gives an experiment id its meaning: the command and result templates and np. Results
 * measured under another spec are not mixed with new ones (docs/campaigns.md). */
void camp_spec(const campaign *c, char *cmd, size_t ncmd, char *np, size_t nnp, char hash[65]);
/* Does the template use placeholder NAME ("np", "dir", ...)? */
int camp_uses(const char *tmpl, const char *name);

/* The campaign's output CSV: one row per experiment, fixed columns. */
enum {
  COL_ID, COL_APP, COL_SIZE, COL_PART, COL_CONFIG, COL_NP, COL_REP, COL_STATUS, COL_EXIT, COL_WALL,
  COL_TIME, COL_ENERGY, COL_EVEN_TIME, COL_EVEN_ENERGY, COL_FINISHED, COL_EXTRA, COL_ENERGY_SOURCE, COL_SHARES,
  COL_PROV, COL_COMMAND, NCOLS
};
enum { NCOLS_LEGACY = COL_EXTRA + 1 }; /* the header before provenance: read, never appended to */
typedef struct {
  char *f[NCOLS];
  int line;
} camp_row;
/* The output's comment lines ('#', the provenance blocks), without "# ", in file order. */
typedef struct {
  char **notes;
  int nnotes;
  int legacy; /* the 16-column header: written before provenance */
  int header; /* the file has its header line */
} camp_meta;
/* Rows of the output CSV (a missing or empty file has none). A torn last line (no newline, from a
 * crash during the write) is not returned: *good is the length of the file without it. meta may be
 * NULL. */
int camp_rows_load(const char *path, camp_row **rows, int *n, size_t *good, camp_meta *meta);
void camp_meta_free(camp_meta *m);
/* The note "KEY: value" of meta ("spec", "command template"...), NULL when absent. */
const char *camp_meta_get(const camp_meta *m, const char *key);
/* A row as one CSV line with its newline (the command quoted); -1 when it does not fit. */
int camp_row_line(char *buf, size_t size, const camp_row *r);
void camp_rows_free(camp_row *rows, int n);
/* The CSV header line, with its newline. */
const char *camp_header(void);

/* What an experiment's result file says: numbers as written (validated), "" when absent. */
typedef struct {
  char time[48], energy[48], even_time[48], even_energy[48];
  char extra[1024]; /* the other columns, key=value;... */
  char meter[128];  /* energy_meter/meter column: "ESTIMATE" or the meter's name */
  char shares[1024]; /* the partitioner's distribution: each process's share, ';'-separated */
} camp_result;
int camp_result_read(const char *path, const campaign *c, const camp_exp *e, camp_result *r);

#endif
