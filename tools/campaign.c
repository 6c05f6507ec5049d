/* Campaign files, experiment ids, templates and the CSV files of `fupermod campaign`. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include "fupermod/fupermod.h"
#include "tools/campaign.h"
#include "tools/sha256.h"
#include "tools/trim.h"

enum {
  K_NAME, K_APPS, K_SIZES, K_PARTITIONERS, K_CONFIGS, K_NP, K_REPETITIONS, K_COMMAND, K_RESULT, K_OUTPUT,
  K_RUNDIR, K_TIMEOUT, K_CLUSTER, K_NODES, K_CORES, K_WALLTIME, K_QUEUE, K_PROJECT, K_PROPERTIES,
  K_CONSTRAINT, K_CLUSTER_CONFIG, K_CONFIG_SUBOPTS, K_CLUSTER_MPIRUN, K_SETUP, NKEYS
};
static const char *const keys[NKEYS] = {
  "name", "apps", "sizes", "partitioners", "configs", "np", "repetitions", "command", "result", "output",
  "rundir", "timeout", "cluster", "nodes", "cores_per_node", "walltime", "queue", "project", "properties",
  "constraint", "cluster_config", "config_subopts", "cluster_mpirun", "setup"};

static const char *const placeholders[] = {"app", "size", "partitioner", "config", "np", "rep", "dir", "id", "models",
                                            NULL};

/* Values land in ids, file names and shell commands unquoted, so they keep to these characters. */
static int name_char(int ch) { return isalnum(ch) || ch == '_' || ch == '.' || ch == '+' || ch == '-'; }
static int path_char(int ch) { return name_char(ch) || ch == '/' || ch == '@' || ch == '%' || ch == '=' || ch == ':'; }

static int all_chars(const char *s, int (*ok)(int)) {
  for (; *s; s++)
    if (!ok((unsigned char)*s)) return 0;
  return 1;
}

int camp_key_line(const campaign *c, const char *name) {
  for (int k = 0; k < NKEYS; k++)
    if (strcmp(keys[k], name) == 0) return c->line_of[k];
  return 0;
}

/* Split "a, b, c"; empty items, duplicates and characters outside ok() are errors. */
static int parse_list(const campaign *c, int k, char *value, int (*ok)(int), camp_list *out) {
  int cap = 1, line = c->line_of[k];
  for (char *p = value; *p; p++) cap += *p == ',';
  out->items = calloc((size_t)cap, sizeof *out->items);
  out->count = 0;
  if (!out->items) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  for (char *tok = value;;) {
    char *comma = strchr(tok, ','), *item;
    if (comma) *comma = '\0';
    item = tool_trim(tok);
    if (!*item)
      return fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: %s: empty item in the list", c->path, line, keys[k]);
    if (strlen(item) > 255)
      return fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: %s: an item longer than 255 characters", c->path, line, keys[k]);
    if (!all_chars(item, ok))
      return fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: %s: '%s' has a character outside %s", c->path, line,
                            keys[k], item, ok == name_char ? "A-Z a-z 0-9 _ . + -" : "A-Z a-z 0-9 _ . + - / @ % = :");
    for (int i = 0; i < out->count; i++)
      if (strcmp(out->items[i], item) == 0)
        return fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: %s: '%s' is listed twice", c->path, line, keys[k], item);
    if (!(out->items[out->count++] = strdup(item))) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
    if (!comma) break;
    tok = comma + 1;
  }
  return FUPERMOD_SUCCESS;
}

static int parse_count(const campaign *c, int k, const char *v, long lo, long hi, long *out) {
  if (fupermod_parse_long(v, out) || *out < lo || *out > hi)
    return fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: %s: '%s' must be an integer in %ld..%ld", c->path,
                          c->line_of[k], keys[k], v, lo, hi);
  return FUPERMOD_SUCCESS;
}

/* H:MM[:SS] to HH:MM:SS; minutes and seconds below 60. */
static int parse_walltime(const campaign *c, const char *v, char **out) {
  long f[3] = {0, 0, 0};
  int n = 0;
  char buf[64];
  snprintf(buf, sizeof buf, "%s", v);
  /* every field counts: "1::30" has an empty one (strtok_r would skip it) */
  for (char *t = buf;; n++) {
    char *colon = strchr(t, ':');
    if (colon) *colon = '\0';
    if (n == 3 || !isdigit((unsigned char)t[0]) || fupermod_parse_long(t, &f[n]) || f[n] < 0) {
      n = 9;
      break;
    }
    if (!colon) {
      n++;
      break;
    }
    t = colon + 1;
  }
  if (strlen(v) >= sizeof buf || n < 2 || n > 3 || f[1] > 59 || f[2] > 59 || f[0] > 100000 ||
      f[0] + f[1] + f[2] == 0)
    return fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: walltime: '%s' must be H:MM:SS (or H:MM), not zero",
                          c->path, c->line_of[K_WALLTIME], v);
  snprintf(buf, sizeof buf, "%02ld:%02ld:%02ld", f[0], f[1], f[2]);
  return (*out = strdup(buf)) ? FUPERMOD_SUCCESS : fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
}

/* Scan a template: with vals, append the expansion to *out; without, only check the placeholders. */
static int expand(const char *path, int line, const char *key, const char *tmpl, const char *const *vals,
                  int *used, char **out) {
  size_t cap = strlen(tmpl) + 1, n = 0;
  char *buf = NULL;
  if (out) {
    for (int i = 0; vals && placeholders[i]; i++) cap += 8 * strlen(vals[i] ? vals[i] : "");
    if (!(buf = malloc(cap + 1))) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  }
#define PUT(ch)                                                                                              \
  do {                                                                                                       \
    if (buf) {                                                                                               \
      if (n + 2 > cap) {                                                                                     \
        char *nb = realloc(buf, cap * 2 + 2);                                                                \
        if (!nb) {                                                                                           \
          free(buf);                                                                                         \
          return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");                                        \
        }                                                                                                    \
        buf = nb;                                                                                            \
        cap = cap * 2 + 2;                                                                                   \
      }                                                                                                      \
      buf[n++] = (ch);                                                                                       \
    }                                                                                                        \
  } while (0)
  for (const char *p = tmpl; *p; p++) {
    const char *end;
    int k;
    if (*p == '$' && p[1] == '{') { /* shell ${VAR}: passed on as it is */
      PUT('$');
      PUT('{');
      p++;
      continue;
    }
    if ((*p == '{' && p[1] == '{') || (*p == '}' && p[1] == '}')) {
      PUT(*p);
      p++;
      continue;
    }
    if (*p != '{') {
      PUT(*p);
      continue;
    }
    end = strchr(p, '}');
    for (k = 0; end && placeholders[k]; k++)
      if (strlen(placeholders[k]) == (size_t)(end - p - 1) && strncmp(p + 1, placeholders[k], (size_t)(end - p - 1)) == 0)
        break;
    if (!end || !placeholders[k]) {
      int len = end ? (int)(end - p + 1) : (int)strlen(p);
      free(buf);
      if (!end || len > 40)
        return fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: %s: '{' without a closing '}' (write {{ for a literal brace)",
                              path, line, key);
      return fupermod_error(FUPERMOD_ERR_INPUT,
                            "%s:%d: %s: unknown placeholder '%.*s' (known: {app} {size} {partitioner} {config} "
                            "{np} {rep} {dir} {id} {models})",
                            path, line, key, len, p);
    }
    if (used) used[k] = 1;
    if (buf)
      for (const char *v = vals[k] ? vals[k] : ""; *v; v++) PUT(*v);
    p = end;
  }
#undef PUT
  if (buf) {
    buf[n] = '\0';
    *out = buf;
  }
  return FUPERMOD_SUCCESS;
}

int camp_uses(const char *tmpl, const char *name) {
  int used[16] = {0};
  if (expand("", 0, "", tmpl, NULL, used, NULL) != FUPERMOD_SUCCESS) return 0;
  for (int k = 0; placeholders[k]; k++)
    if (strcmp(placeholders[k], name) == 0) return used[k];
  return 0;
}

int camp_expand(const campaign *c, const char *key, const camp_exp *e, long np, const char *dir, char **out) {
  char nps[32];
  if (np > 0) snprintf(nps, sizeof nps, "%ld", np);
  else nps[0] = '\0';
  return camp_expand_np(c, key, e, nps, dir, out);
}

void camp_models_dir(const campaign *c, const camp_exp *e, char *buf, size_t size) {
  snprintf(buf, size, "%s/models/%s-%s-%s", c->rundir, c->apps.items[e->app], c->sizes.items[e->size], c->tags[e->conf]);
}

void camp_spec(const campaign *c, char *cmd, size_t ncmd, char *np, size_t nnp, char hash[65]) {
  char buf[20000];
  size_t n = 0;
  snprintf(cmd, ncmd, "%s", c->command);
  if (!c->np_count) snprintf(np, nnp, "auto");
  for (int i = 0; i < c->np_count; i++) n += (size_t)snprintf(np + n, n < nnp ? nnp - n : 0, "%s%ld", i ? ", " : "", c->np[i]);
  snprintf(buf, sizeof buf, "command=%s\nresult=%s\nnp=%s\n", c->command, c->result, np);
  fupermod_sha256_hex(buf, strlen(buf), hash);
}

int camp_expand_np(const campaign *c, const char *key, const camp_exp *e, const char *nps, const char *dir,
                   char **out) {
  char size[32], rep[32], models[4096];
  const char *vals[10];
  int k = strcmp(key, "command") == 0 ? K_COMMAND : K_RESULT;
  snprintf(size, sizeof size, "%s", c->sizes.items[e->size]);
  snprintf(rep, sizeof rep, "%d", e->rep);
  camp_models_dir(c, e, models, sizeof models);
  vals[0] = c->apps.items[e->app];
  vals[1] = size;
  vals[2] = c->partitioners.items[e->part];
  vals[3] = c->configs.items[e->conf];
  vals[4] = nps;
  vals[5] = rep;
  vals[6] = dir;
  vals[7] = e->id;
  vals[8] = models;
  vals[9] = NULL;
  return expand(c->path, c->line_of[k], key, k == K_COMMAND ? c->command : c->result, vals, NULL, out);
}

void camp_free(campaign *c) {
  camp_list *lists[] = {&c->apps, &c->sizes, &c->partitioners, &c->configs};
  for (int l = 0; l < 4; l++) {
    for (int i = 0; i < lists[l]->count; i++) free(lists[l]->items[i]);
    free(lists[l]->items);
  }
  for (int i = 0; c->tags && i < c->configs.count; i++) free(c->tags[i]);
  for (int i = 0; i < c->nsetup; i++) free(c->setup[i]);
  free(c->tags);
  free(c->setup);
  free(c->np);
  free(c->path);
  free(c->name);
  free(c->command);
  free(c->result);
  free(c->output);
  free(c->rundir);
  free(c->cluster);
  free(c->walltime);
  free(c->queue);
  free(c->project);
  free(c->properties);
  free(c->constraint);
  free(c->cluster_config);
  free(c->config_subopts);
  free(c->cluster_mpirun);
  memset(c, 0, sizeof *c);
}

static int set_string(char **dst, const char *v) {
  free(*dst);
  return (*dst = strdup(v)) ? FUPERMOD_SUCCESS : fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
}

/* Interpret one key's value (already trimmed, not empty). */
static int set_key(campaign *c, int k, char *v) {
  const char *path = c->path;
  int line = c->line_of[k], rc;
  long x;
  switch (k) {
  case K_NAME: case K_QUEUE: case K_PROJECT:
    if (!all_chars(v, name_char))
      return fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: %s: '%s' has a character outside A-Z a-z 0-9 _ . + -",
                            path, line, keys[k], v);
    return set_string(k == K_NAME ? &c->name : k == K_QUEUE ? &c->queue : &c->project, v);
  case K_OUTPUT: case K_RUNDIR: case K_CLUSTER_CONFIG:
    if (!all_chars(v, path_char))
      return fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: %s: '%s' has a character outside A-Z a-z 0-9 _ . + - / @ %% = :",
                            path, line, keys[k], v);
    return set_string(k == K_OUTPUT ? &c->output : k == K_RUNDIR ? &c->rundir : &c->cluster_config, v);
  case K_APPS: return parse_list(c, k, v, name_char, &c->apps);
  case K_PARTITIONERS: return parse_list(c, k, v, name_char, &c->partitioners);
  case K_CONFIGS: return parse_list(c, k, v, path_char, &c->configs);
  case K_SIZES:
    if ((rc = parse_list(c, k, v, name_char, &c->sizes)) != FUPERMOD_SUCCESS) return rc;
    for (int i = 0; i < c->sizes.count; i++) {
      char canon[32];
      if ((rc = parse_count(c, k, c->sizes.items[i], 1, 1000000000000L, &x)) != FUPERMOD_SUCCESS) return rc;
      snprintf(canon, sizeof canon, "%ld", x); /* 04096 and 4096 are one size, one id */
      for (int j = 0; j < i; j++)
        if (strcmp(c->sizes.items[j], canon) == 0)
          return fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: sizes: %ld is listed twice", path, line, x);
      if ((rc = set_string(&c->sizes.items[i], canon)) != FUPERMOD_SUCCESS) return rc;
    }
    return FUPERMOD_SUCCESS;
  case K_NP: {
    camp_list l = {NULL, 0};
    if (strcmp(v, "auto") == 0) return FUPERMOD_SUCCESS;
    rc = parse_list(c, k, v, name_char, &l);
    if (rc == FUPERMOD_SUCCESS && !(c->np = calloc((size_t)l.count + 1, sizeof *c->np)))
      rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
    for (int i = 0; rc == FUPERMOD_SUCCESS && i < l.count; i++)
      if (fupermod_parse_long(l.items[i], &c->np[i]) || c->np[i] < 1 || c->np[i] > 10000000)
        rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: np: '%s' must be 'auto' or positive integers", path, line,
                            l.items[i]);
    c->np_count = l.count;
    for (int i = 0; i < l.count; i++) free(l.items[i]);
    free(l.items);
    return rc;
  }
  case K_REPETITIONS:
    if ((rc = parse_count(c, k, v, 1, 1000000, &x)) != FUPERMOD_SUCCESS) return rc;
    c->reps = (int)x;
    return FUPERMOD_SUCCESS;
  case K_NODES: return parse_count(c, k, v, 1, 1000000, &c->nodes);
  case K_CORES: return parse_count(c, k, v, 1, 1000000, &c->cores_per_node);
  case K_TIMEOUT:
    if (fupermod_parse_double(v, &c->timeout) || c->timeout < 0)
      return fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: timeout: '%s' must be seconds >= 0 (0: none)", path, line, v);
    return FUPERMOD_SUCCESS;
  case K_COMMAND: case K_RESULT:
    if ((rc = expand(path, line, keys[k], v, NULL, NULL, NULL)) != FUPERMOD_SUCCESS) return rc;
    return set_string(k == K_COMMAND ? &c->command : &c->result, v);
  case K_CLUSTER:
    if (strcmp(v, "oar") && strcmp(v, "slurm"))
      return fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: cluster: '%s' must be oar or slurm", path, line, v);
    return set_string(&c->cluster, v);
  case K_WALLTIME:
    free(c->walltime);
    c->walltime = NULL;
    return parse_walltime(c, v, &c->walltime);
  case K_PROPERTIES: case K_CONSTRAINT: case K_CLUSTER_MPIRUN:
    /* written inside double quotes in the batch script */
    if (strpbrk(v, "\"\\`") || (k != K_CLUSTER_MPIRUN && strchr(v, '$')))
      return fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: %s: '%s' must not contain \" \\ ` %s", path, line, keys[k],
                            v, k != K_CLUSTER_MPIRUN ? "or $" : "");
    return set_string(k == K_PROPERTIES ? &c->properties : k == K_CONSTRAINT ? &c->constraint : &c->cluster_mpirun, v);
  case K_CONFIG_SUBOPTS:
    if (!all_chars(v, path_char) || !strchr(v, '='))
      return fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: config_subopts: '%s' must be key=value[,key=value...]", path,
                            line, v);
    return set_string(&c->config_subopts, v);
  case K_SETUP: {
    char **s = realloc(c->setup, (size_t)(c->nsetup + 1) * sizeof *s);
    if (!s) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
    c->setup = s;
    c->setup[c->nsetup] = NULL;
    if ((rc = set_string(&c->setup[c->nsetup], v)) == FUPERMOD_SUCCESS) c->nsetup++;
    return rc;
  }
  }
  return FUPERMOD_SUCCESS;
}

static char *stem(const char *path) {
  const char *b = strrchr(path, '/');
  char *s = strdup(b ? b + 1 : path), *dot;
  if (s && (dot = strrchr(s, '.')) && dot != s) *dot = '\0';
  return s;
}

static int load_body(const char *path, campaign *c);

/* On failure nothing is left allocated: the body returns early from many places. */
int camp_load(const char *path, campaign *c) {
  int rc = load_body(path, c);
  if (rc != FUPERMOD_SUCCESS) camp_free(c);
  return rc;
}

static int load_body(const char *path, campaign *c) {
  char *text = NULL, *p;
  size_t len;
  int rc, line = 1;
  memset(c, 0, sizeof *c);
  c->reps = 1;
  if ((rc = fupermod_read_file(path, &text, &len)) != FUPERMOD_SUCCESS) return rc;
  if (!(c->path = strdup(path))) {
    free(text);
    return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  }
  if (strlen(text) != len) {
    free(text);
    return fupermod_error(FUPERMOD_ERR_INPUT, "%s: binary data (a NUL byte); a campaign file is text", path);
  }
  fupermod_sha256_hex(text, len, c->sha);
  for (p = text; *p && rc == FUPERMOD_SUCCESS;) {
    /* one logical line: '#' starts a comment, a trailing backslash continues on the next line */
    char logical[8192], *eq, *key, *value;
    size_t n = 0;
    int first = line, more;
    do {
      char *nl = strchr(p, '\n'), *hash, *end;
      size_t l = nl ? (size_t)(nl - p) : strlen(p);
      char phys[8192];
      if (l >= sizeof phys || n + l + 2 >= sizeof logical) {
        free(text);
        return fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: line too long (8 KiB at most)", path, line);
      }
      memcpy(phys, p, l);
      phys[l] = '\0';
      int this_line = line;
      p = nl ? nl + 1 : p + l;
      line += nl != NULL;
      for (hash = phys; *hash; hash++) { /* '#' starts a comment; '\#' is a literal '#' */
        if (hash[0] == '\\' && hash[1] == '#') memmove(hash, hash + 1, strlen(hash));
        else if (*hash == '#') {
          *hash = '\0';
          break;
        }
      }
      end = phys + strlen(phys);
      while (end > phys && isspace((unsigned char)end[-1])) *--end = '\0';
      more = end > phys && end[-1] == '\\';
      if (more && !*p) {
        free(text);
        return fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: the last line ends with '\\' but no line follows", path,
                              this_line);
      }
      if (more) { /* the lines join with one space */
        *--end = '\0';
        while (end > phys && isspace((unsigned char)end[-1])) *--end = '\0';
        *end++ = ' ';
        *end = '\0';
      }
      {
        const char *from = n ? phys + strspn(phys, " \t") : phys;
        memcpy(logical + n, from, strlen(from) + 1);
        n += strlen(from);
      }
    } while (more);
    key = tool_trim(logical);
    if (!*key) continue;
    if (!(eq = strchr(key, '='))) {
      rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: expected 'key = value', got '%.60s'", path, first, key);
      break;
    }
    *eq = '\0';
    key = tool_trim(key);
    value = tool_trim(eq + 1);
    {
      int k;
      for (k = 0; k < NKEYS && strcmp(keys[k], key); k++) {}
      if (k == NKEYS) {
        const char *near = fupermod_closest_name(key, keys, NKEYS);
        rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: unknown key '%.60s'%s%s%s (see docs/campaigns.md)", path, first, key,
                            near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "");
        break;
      }
      if (c->line_of[k] && k != K_SETUP) {
        rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: %s is already set on line %d", path, first, key, c->line_of[k]);
        break;
      }
      if (!*value) {
        rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: %s has no value", path, first, key);
        break;
      }
      c->line_of[k] = first;
      rc = set_key(c, k, value);
    }
  }
  free(text);
  if (rc != FUPERMOD_SUCCESS) return rc;
  {
    static const int required[] = {K_APPS, K_SIZES, K_PARTITIONERS, K_CONFIGS, K_COMMAND};
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
      if (!c->line_of[required[i]])
        return fupermod_error(FUPERMOD_ERR_INPUT, "%s: no '%s = ...' line; a campaign needs apps, sizes, "
                              "partitioners, configs and command", path, keys[required[i]]);
  }
  if (c->np_count > 1 && c->np_count != c->configs.count)
    return fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: np lists %d values for %d configs (give one, one per config, "
                          "or auto)", path, c->line_of[K_NP], c->np_count, c->configs.count);
  if (!c->name) {
    if (!(c->name = stem(path))) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
    if (!*c->name || !all_chars(c->name, name_char))
      return fupermod_error(FUPERMOD_ERR_INPUT, "%s: the file name does not make a campaign name; add 'name = ...'",
                            path);
  }
  if (!c->result && (rc = set_string(&c->result, "{dir}/result.csv")) != FUPERMOD_SUCCESS) return rc;
  if (!c->output || !c->rundir) { /* NAME.csv, and the run directories beside it: NAME.runs */
    char buf[4096];
    size_t l;
    snprintf(buf, sizeof buf, "%s.csv", c->name);
    if (!c->output && (rc = set_string(&c->output, buf)) != FUPERMOD_SUCCESS) return rc;
    l = strlen(c->output);
    snprintf(buf, sizeof buf, "%.*s.runs", (int)(l > 4 && strcmp(c->output + l - 4, ".csv") == 0 ? l - 4 : l),
             c->output);
    if (!c->rundir && (rc = set_string(&c->rundir, buf)) != FUPERMOD_SUCCESS) return rc;
  }
  if (!(c->tags = calloc((size_t)c->configs.count, sizeof *c->tags)))
    return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  for (int i = 0; i < c->configs.count; i++) {
    if (!(c->tags[i] = stem(c->configs.items[i]))) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
    if (!*c->tags[i])
      return fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: configs: '%s' does not name a file", path,
                            c->line_of[K_CONFIGS], c->configs.items[i]);
    for (int j = 0; j < i; j++)
      if (strcmp(c->tags[i], c->tags[j]) == 0)
        return fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: configs '%s' and '%s' have the same name '%s'; experiment "
                              "ids use it, so rename one", path, c->line_of[K_CONFIGS], c->configs.items[j],
                              c->configs.items[i], c->tags[i]);
  }
  return FUPERMOD_SUCCESS;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

void camp_experiments_free(camp_exp *e, int n) {
  for (int i = 0; e && i < n; i++) free(e[i].id);
  free(e);
}

int camp_experiments(const campaign *c, camp_exp **out, int *count) {
  long total = (long)c->reps * c->apps.count * c->sizes.count * c->configs.count * c->partitioners.count;
  camp_exp *e;
  char **ids;
  int n = 0, rc = FUPERMOD_SUCCESS;
  *out = NULL;
  *count = 0;
  if (total > 10000000)
    return fupermod_error(FUPERMOD_ERR_INPUT, "%s: %ld experiments; that is more than anyone can run", c->path, total);
  if (!(e = calloc((size_t)total, sizeof *e)) || !(ids = malloc((size_t)total * sizeof *ids))) {
    free(e);
    return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  }
  /* partitioner innermost: the runs that are compared follow each other, under the same conditions */
  for (int r = 1; r <= c->reps; r++)
    for (int a = 0; a < c->apps.count; a++)
      for (int s = 0; s < c->sizes.count; s++)
        for (int f = 0; f < c->configs.count; f++)
          for (int p = 0; p < c->partitioners.count; p++) {
            char id[1200]; /* items have 255 characters at most */
            snprintf(id, sizeof id, "%s-%s-%s-%s-r%d", c->apps.items[a], c->sizes.items[s],
                     c->partitioners.items[p], c->tags[f], r);
            e[n] = (camp_exp){strdup(id), a, s, p, f, r};
            if (!e[n].id) rc = FUPERMOD_ERR_NOMEM;
            ids[n] = e[n].id;
            n++;
          }
  if (rc != FUPERMOD_SUCCESS) {
    free(ids);
    camp_experiments_free(e, n);
    return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  }
  /* names with '-' could make two experiments one id */
  qsort(ids, (size_t)n, sizeof *ids, cmp_str);
  for (int i = 1; i < n; i++)
    if (strcmp(ids[i - 1], ids[i]) == 0) {
      rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s: two experiments get the id '%s'; rename an app, partitioner or "
                          "config so that the '-'-joined names differ", c->path, ids[i]);
      break;
    }
  free(ids);
  if (rc != FUPERMOD_SUCCESS) {
    camp_experiments_free(e, n);
    return rc;
  }
  *out = e;
  *count = n;
  return FUPERMOD_SUCCESS;
}

static const char legacy_header[] =
  "id,app,size,partitioner,config,np,rep,status,exit_code,wall_s,time,energy,even_time,even_energy,finished,extra\n";

const char *camp_header(void) {
  return "id,app,size,partitioner,config,np,rep,status,exit_code,wall_s,time,energy,even_time,even_energy,"
         "finished,extra,energy_source,shares,prov,command\n";
}

void camp_rows_free(camp_row *rows, int n) {
  for (int i = 0; rows && i < n; i++) free(rows[i].f[0]);
  free(rows);
}

void camp_meta_free(camp_meta *m) {
  for (int i = 0; m && i < m->nnotes; i++) free(m->notes[i]);
  if (m) free(m->notes);
  if (m) memset(m, 0, sizeof *m);
}

const char *camp_meta_get(const camp_meta *m, const char *key) {
  size_t l = strlen(key);
  for (int i = 0; m && i < m->nnotes; i++)
    if (strncmp(m->notes[i], key, l) == 0 && m->notes[i][l] == ':') return tool_trim(m->notes[i] + l + 1);
  return NULL;
}

int camp_row_line(char *buf, size_t size, const camp_row *r) {
  size_t n = 0;
  for (int k = 0; k < NCOLS; k++) {
    const char *v = r->f[k] ? r->f[k] : "";
    if (n + 2 > size) return -1;
    if (k) buf[n++] = ',';
    if (k == COL_COMMAND) { /* the one field with commas and quotes: CSV-quoted */
      buf[n++] = '"';
      for (; *v && n + 4 < size; v++) {
        if (*v == '"') buf[n++] = '"';
        buf[n++] = *v == '\n' ? ' ' : *v;
      }
      if (*v || n + 3 > size) return -1;
      buf[n++] = '"';
    } else {
      n += (size_t)snprintf(buf + n, size - n, "%s", v);
      if (n + 2 > size) return -1;
    }
  }
  strcpy(buf + n, "\n");
  return 0;
}

/* Split a row in place: fields by commas, a field in double quotes ("" for a quote) may hold
 * commas. The number of fields. */
static int split_row(char *s, char **f, int max) {
  int k = 0;
  for (char *p = s;;) {
    char *end;
    if (*p == '"') {
      char *w = ++p;
      if (k < max) f[k] = w;
      for (; *p && !(*p == '"' && p[1] != '"'); p++) {
        if (*p == '"') p++;
        *w++ = *p;
      }
      end = *p == '"' ? p + 1 : p;
      *w = '\0';
    } else {
      if (k < max) f[k] = p;
      end = p + strcspn(p, ",");
    }
    k++;
    if (*end != ',') {
      *end = '\0';
      return k;
    }
    *end = '\0';
    p = end + 1;
  }
}

static int add_note(camp_meta *m, const char *line) {
  char **l = realloc(m->notes, (size_t)(m->nnotes + 1) * sizeof *l);
  if (!l) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  m->notes = l;
  line += *line == '#';
  line += *line == ' ';
  if (!(l[m->nnotes] = strdup(line))) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  m->nnotes++;
  return FUPERMOD_SUCCESS;
}

int camp_rows_load(const char *path, camp_row **rows, int *n, size_t *good, camp_meta *meta) {
  char *text, *p, *last_nl;
  size_t len;
  int rc = FUPERMOD_SUCCESS, line = 1, cap = 0, ncols = 0;
  struct stat st;
  camp_meta local;
  const char *header = camp_header();
  if (!meta) meta = &local;
  memset(meta, 0, sizeof *meta);
  *rows = NULL;
  *n = 0;
  *good = 0;
  if (stat(path, &st) != 0 && errno == ENOENT) return FUPERMOD_SUCCESS;
  if ((rc = fupermod_read_file(path, &text, &len)) != FUPERMOD_SUCCESS) return rc;
  if (strlen(text) != len) {
    free(text);
    return fupermod_error(FUPERMOD_ERR_INPUT, "%s: binary data (a NUL byte) in a campaign result file", path);
  }
  last_nl = strrchr(text, '\n');
  *good = last_nl ? (size_t)(last_nl - text + 1) : 0;
  text[*good] = '\0';
  for (p = text, line = 1; *p && rc == FUPERMOD_SUCCESS; line++) {
    char *nl = strchr(p, '\n'), *f;
    int k;
    *nl = '\0';
    if (!*p) {
      p = nl + 1;
      continue;
    }
    if (*p == '#') { /* provenance: the campaign's spec, each run's platform and software */
      rc = add_note(meta, p);
      p = nl + 1;
      continue;
    }
    if (!ncols) {
      if (strncmp(p, header, strlen(header) - 1) == 0 && !p[strlen(header) - 1]) ncols = NCOLS;
      else if (strncmp(p, legacy_header, strlen(legacy_header) - 1) == 0 && !p[strlen(legacy_header) - 1])
        ncols = NCOLS_LEGACY;
      else {
        rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: not a campaign result file (the header must be %.*s)", path,
                            line, (int)strlen(header) - 1, header);
        break;
      }
      meta->header = 1;
      meta->legacy = ncols == NCOLS_LEGACY;
      p = nl + 1;
      continue;
    }
    if (*n == cap) {
      camp_row *r = realloc(*rows, (size_t)(cap = cap ? 2 * cap : 64) * sizeof *r);
      if (!r) {
        rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
        break;
      }
      *rows = r;
    }
    if (!(f = strdup(p))) {
      rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
      break;
    }
    if (*f == '"') { /* the id is never quoted, and the row's memory hangs on its first field */
      free(f);
      rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: no id (a campaign result row has %d fields)", path, line, ncols);
      break;
    }
    memset(&(*rows)[*n], 0, sizeof **rows);
    (*rows)[*n].line = line;
    k = split_row(f, (*rows)[*n].f, NCOLS);
    for (int j = ncols; j < NCOLS; j++) (*rows)[*n].f[j] = f + strlen(f); /* a legacy row: "" */
    (*n)++;
    if (k != ncols || !*f)
      rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: %s (a campaign result row has %d fields)", path, line,
                          k != ncols ? "wrong number of fields" : "no id", ncols);
    p = nl + 1;
  }
  free(text);
  if (rc != FUPERMOD_SUCCESS) {
    camp_rows_free(*rows, *n);
    *rows = NULL;
    *n = 0;
  }
  if (rc != FUPERMOD_SUCCESS || meta == &local) camp_meta_free(meta);
  return rc;
}

/* ---- the result file an experiment's command writes ---- */

static int split_csv(char *line, char **f, int max) {
  int k = 0;
  for (char *tok = line;;) {
    char *comma = strchr(tok, ','), *v;
    size_t l;
    if (comma) *comma = '\0';
    v = tool_trim(tok);
    l = strlen(v);
    if (l >= 2 && v[0] == '"' && v[l - 1] == '"') {
      v[l - 1] = '\0';
      v++;
    }
    if (k < max) f[k] = v;
    k++;
    if (!comma) return k;
    tok = comma + 1;
  }
}

static int absent(const char *v) {
  return !v || !*v || strcmp(v, "-") == 0 || strcasecmp(v, "nan") == 0 || strcasecmp(v, "na") == 0;
}

/* A number field: time-like (> 0) or energy-like (>= 0); absent values give "". */
static int number_field(const char *path, int line, const char *col, const char *v, int positive, int required,
                        char *out, size_t size) {
  double x;
  out[0] = '\0';
  if (absent(v)) {
    if (required) return fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: no %s", path, line, col);
    return FUPERMOD_SUCCESS;
  }
  if (fupermod_parse_double(v, &x) || (positive ? x <= 0 : x < 0) || strlen(v) >= size)
    return fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: %s '%s' must be a number %s", path, line, col, v,
                          positive ? "> 0" : ">= 0");
  snprintf(out, size, "%s", v);
  return FUPERMOD_SUCCESS;
}

/* A value into a row field: no comma, quote or newline (they would split or break the row). */
static void safe_copy(char *dst, size_t size, const char *v) {
  snprintf(dst, size, "%s", v);
  for (char *q = dst; *q; q++)
    if (*q == ',' || *q == '"' || *q == '\n' || *q == '\r') *q = ' ';
}

/* The distribution of experiment e from report-APP.csv beside its result (what fupermod run
 * writes: a row per distribution and process, with its share): the shares in rank order, ';'-joined.
 * Nothing when there is no such file or row: the distribution is then unknown. */
static void report_shares(const char *result, const campaign *c, const camp_exp *e, char *out, size_t size) {
  char path[4200], *text = NULL, *p, *head[32], *f[32];
  const char *slash = strrchr(result, '/');
  int nh = 0, c_app = -1, c_n = -1, c_dist = -1, c_rank = -1, c_share = -1, next = 0;
  size_t len, n = 0;
  snprintf(path, sizeof path, "%.*sreport-%s.csv", slash ? (int)(slash - result + 1) : 0, result, c->apps.items[e->app]);
  out[0] = '\0';
  if (fupermod_read_file(path, &text, &len) != FUPERMOD_SUCCESS) {
    fupermod_error_clear();
    return;
  }
  for (p = text; *p;) {
    char *nl = strchr(p, '\n'), *s = p;
    int k;
    if (nl) *nl = '\0';
    p = nl ? nl + 1 : p + strlen(p);
    if (!nh) {
      if ((nh = split_csv(s, head, 32)) > 32) break;
      for (k = 0; k < nh; k++) {
        int *col = strcmp(head[k], "app") == 0 ? &c_app : strcmp(head[k], "n") == 0 ? &c_n
                   : strcmp(head[k], "distribution") == 0 ? &c_dist : strcmp(head[k], "rank") == 0 ? &c_rank
                   : strcmp(head[k], "share") == 0 ? &c_share : NULL;
        if (col) *col = k;
      }
      if (c_dist < 0 || c_rank < 0 || c_share < 0) break;
      continue;
    }
    if (split_csv(s, f, 32) != nh || strcmp(f[c_dist], c->partitioners.items[e->part]) != 0 ||
        (c_app >= 0 && strcmp(f[c_app], c->apps.items[e->app]) != 0) ||
        (c_n >= 0 && strcmp(f[c_n], c->sizes.items[e->size]) != 0))
      continue;
    if (atoi(f[c_rank]) != next++ || n + strlen(f[c_share]) + 2 > size) { /* not in rank order: not trusted */
      n = 0;
      break;
    }
    n += (size_t)snprintf(out + n, size - n, "%s%s", n ? ";" : "", f[c_share]);
  }
  out[n] = '\0';
  if (strpbrk(out, ",\"")) out[0] = '\0';
  free(text);
}

#define MAXF 64
int camp_result_read(const char *path, const campaign *c, const camp_exp *e, camp_result *r) {
  char *text, *head[MAXF], *rowsf[256][MAXF];
  int rowline[256], nrows = 0, nh = 0, line = 0, rc = FUPERMOD_SUCCESS, pick = -1, even = -1, matches = 0;
  int c_time = -1, c_energy = -1, c_et = -1, c_ee = -1, c_app = -1, c_size = -1, c_alg = -1, c_meter = -1, c_shares = -1;
  size_t len;
  memset(r, 0, sizeof *r);
  if ((rc = fupermod_read_file(path, &text, &len)) != FUPERMOD_SUCCESS) return rc;
  if (strlen(text) != len) {
    free(text);
    return fupermod_error(FUPERMOD_ERR_INPUT, "%s: binary data (a NUL byte)", path);
  }
  for (char *p = text; *p;) {
    char *nl = strchr(p, '\n'), *s;
    int k;
    if (nl) *nl = '\0';
    line++;
    s = p;
    p = nl ? nl + 1 : p + strlen(p);
    if (strchr(s, '\r')) *strchr(s, '\r') = '\0';
    if (!*tool_trim(s) || *tool_trim(s) == '#') continue;
    if (!nh) {
      if ((nh = split_csv(s, head, MAXF)) > MAXF) {
        rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: more than %d columns", path, line, MAXF);
        break;
      }
      continue;
    }
    if (nrows == 256) {
      rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: more than 256 rows", path, line);
      break;
    }
    if ((k = split_csv(s, rowsf[nrows], MAXF)) != nh) {
      rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: %d fields, the header has %d", path, line, k, nh);
      break;
    }
    rowline[nrows++] = line;
  }
  if (rc == FUPERMOD_SUCCESS && (!nh || !nrows))
    rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s: %s", path, nh ? "a header but no row" : "empty (no header, no row)");
  for (int k = 0; rc == FUPERMOD_SUCCESS && k < nh; k++) {
    int *col = strcmp(head[k], "time") == 0 ? &c_time : strcmp(head[k], "energy") == 0 ? &c_energy
               : strcmp(head[k], "even_time") == 0 ? &c_et : strcmp(head[k], "even_energy") == 0 ? &c_ee
               : strcmp(head[k], "app") == 0 ? &c_app : strcmp(head[k], "size") == 0 ? &c_size
               : (strcmp(head[k], "algorithm") == 0 || strcmp(head[k], "partitioner") == 0) ? &c_alg
               : (strcmp(head[k], "energy_meter") == 0 || strcmp(head[k], "meter") == 0) ? &c_meter
               : strcmp(head[k], "shares") == 0 ? &c_shares : NULL;
    if (col && *col >= 0) rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s: column '%s' appears twice", path, head[k]);
    else if (col) *col = k;
  }
  if (rc == FUPERMOD_SUCCESS && c_time < 0)
    rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s: no 'time' column in the header", path);
  if (rc == FUPERMOD_SUCCESS) {
    /* several rows (one per algorithm, say): this experiment's is the one that matches it */
    for (int i = 0; i < nrows; i++) {
      int same_app = c_app < 0 || strcmp(rowsf[i][c_app], c->apps.items[e->app]) == 0;
      int same_size = c_size < 0 || strcmp(rowsf[i][c_size], c->sizes.items[e->size]) == 0;
      if (same_app && same_size && c_alg >= 0 && strcmp(rowsf[i][c_alg], "even") == 0 && even < 0) even = i;
      int same_alg = c_alg < 0 || strcmp(rowsf[i][c_alg], c->partitioners.items[e->part]) == 0;
      if (nrows == 1 || (same_app && same_size && same_alg)) {
        matches++;
        pick = i;
      }
    }
    if (matches == 0)
      rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s: %d rows, none for app %s, size %s, algorithm %s", path, nrows,
                          c->apps.items[e->app], c->sizes.items[e->size], c->partitioners.items[e->part]);
    else if (matches > 1)
      rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s: %d rows match app %s, size %s, algorithm %s; which one is it?",
                          path, matches, c->apps.items[e->app], c->sizes.items[e->size], c->partitioners.items[e->part]);
  }
  if (rc == FUPERMOD_SUCCESS) {
    char **row = rowsf[pick];
    int ln = rowline[pick];
    if ((rc = number_field(path, ln, "time", row[c_time], 1, 1, r->time, sizeof r->time)) == FUPERMOD_SUCCESS &&
        (rc = number_field(path, ln, "energy", c_energy >= 0 ? row[c_energy] : NULL, 0, 0, r->energy,
                           sizeof r->energy)) == FUPERMOD_SUCCESS &&
        (rc = number_field(path, ln, "even_time", c_et >= 0 ? row[c_et] : NULL, 1, 0, r->even_time,
                           sizeof r->even_time)) == FUPERMOD_SUCCESS)
      rc = number_field(path, ln, "even_energy", c_ee >= 0 ? row[c_ee] : NULL, 0, 0, r->even_energy,
                        sizeof r->even_energy);
    if (rc == FUPERMOD_SUCCESS && !r->even_time[0] && even >= 0 && even != pick) {
      /* no even_time column: the even distribution's own row is the reference */
      if ((rc = number_field(path, rowline[even], "time", rowsf[even][c_time], 1, 1, r->even_time,
                             sizeof r->even_time)) == FUPERMOD_SUCCESS && !r->even_energy[0])
        rc = number_field(path, rowline[even], "energy", c_energy >= 0 ? rowsf[even][c_energy] : NULL, 0, 0,
                          r->even_energy, sizeof r->even_energy);
    }
    for (int k = 0, n = 0; rc == FUPERMOD_SUCCESS && k < nh; k++) {
      char item[512];
      if (k == c_time || k == c_energy || k == c_et || k == c_ee || k == c_app || k == c_size || k == c_alg ||
          k == c_meter || k == c_shares)
        continue;
      snprintf(item, sizeof item, "%s%s=%s", n++ ? ";" : "", head[k], row[k]);
      for (char *q = item + (n > 1); *q; q++)
        if (*q == ',' || *q == ';' || *q == '\n' || (*q == '=' && q != strchr(item + (n > 1), '='))) *q = '_';
      if (strlen(r->extra) + strlen(item) < sizeof r->extra) strcat(r->extra, item);
    }
    if (rc == FUPERMOD_SUCCESS && c_meter >= 0 && !absent(row[c_meter])) safe_copy(r->meter, sizeof r->meter, row[c_meter]);
    if (rc == FUPERMOD_SUCCESS && c_shares >= 0 && !absent(row[c_shares]))
      safe_copy(r->shares, sizeof r->shares, row[c_shares]);
  }
  free(text);
  if (rc == FUPERMOD_SUCCESS && !r->shares[0]) report_shares(path, c, e, r->shares, sizeof r->shares);
  return rc;
}
