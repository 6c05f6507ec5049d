/* Process configurations (docs/formats.md): parse, save, look up, sub-options, binding. The
 * collective parts are in conf_mpi.c; the CUDA device count comes from fupermod/exec.c. */
#define _GNU_SOURCE /* sched_getaffinity, CPU_EQUAL */
#include <ctype.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <hwloc.h>
#include "fupermod/conf.h"
#include "fupermod/error.h"
#include "fupermod/lines.h"
#include "fupermod/util.h"

static int valid_bind(const char *b) {
  static const char *const kinds[] = {"core:", "pu:", "socket:", "numa:"};
  if (strcmp(b, "none") == 0) return 1;
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
    size_t n = strlen(kinds[k]);
    if (strncmp(b, kinds[k], n) == 0) {
      const char *s = b + n;
      if (!*s) return 0;
      for (; *s; s++)
        if (!isdigit((unsigned char)*s) && *s != ',' && *s != '-') return 0;
      return 1;
    }
  }
  return 0;
}

static void free_proc(fupermod_process_conf *p) {
  free(p->hostname);
  free(p->bind);
  free(p->device_type);
  free(p->subopts);
}

void fupermod_conf_free(fupermod_conf *conf) {
  if (!conf) return;
  for (int i = 0; i < conf->count; i++) free_proc(&conf->procs[i]);
  free(conf->procs);
  free(conf->source);
  conf->procs = NULL;
  conf->source = NULL;
  conf->count = 0;
}

int fupermod_conf_parse(const char *text, size_t len, const char *name, fupermod_conf *out) {
  int rc = FUPERMOD_SUCCESS, cap = 0;
  fupermod_lines rd;
  char *buf;
  memset(out, 0, sizeof *out);
  if (!name) name = "(configuration)";
  out->source = strdup(name);
  fupermod_lines_init(&rd, text, len, name);
  if (memchr(text, '\0', len)) {
    rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s: binary data (NUL byte) in a configuration file", name);
    goto fail;
  }
  while ((rc = fupermod_lines_next(&rd, &buf)) == FUPERMOD_SUCCESS && buf) {
    const int line = rd.line;
    char *tok[5];
    int nt = fupermod_lines_fields(buf, tok, 5);
    long r;
    fupermod_process_conf pc;
    if (nt > 5) {
      size_t n4 = strlen(tok[4]);
      rc = fupermod_error(FUPERMOD_ERR_INPUT,
                          "%s:%d: more than 5 fields (hostname rank_intra bind device_type [subopts])%s; the "
                          "sub-options are one word: key=value,key=value with no space",
                          name, line, n4 && tok[4][n4 - 1] == ',' ? ": a space follows the comma of the sub-options" : "");
      goto fail;
    }
    if (nt < 4) {
      rc = fupermod_error(FUPERMOD_ERR_INPUT,
                          "%s:%d: expected 'hostname rank_intra bind device_type [subopts]', got %d field%s; "
                          "for example 'localhost 0 core:0 cpu'",
                          name, line, nt, nt == 1 ? "" : "s");
      goto fail;
    }
    if (fupermod_parse_long(tok[1], &r) || r < 0 || r > 1000000) {
      rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: rank_intra '%s' must be an integer >= 0", name,
                          line, tok[1]);
      goto fail;
    }
    if (!valid_bind(tok[2])) {
      rc = fupermod_error(FUPERMOD_ERR_INPUT,
                          "%s:%d: bind '%s' is not none, core:LIST, pu:LIST, socket:LIST or numa:LIST",
                          name, line, tok[2]);
      goto fail;
    }
    if (strcmp(tok[3], "cpu") != 0 && strcmp(tok[3], "gpu") != 0) {
      rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: device_type '%s' must be cpu or gpu", name, line,
                          tok[3]);
      goto fail;
    }
    if (nt == 5 && !strchr(tok[4], '=')) {
      rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: subopts '%s' must be key=value[,key=value...]",
                          name, line, tok[4]);
      goto fail;
    }
    for (int i = 0; i < out->count; i++)
      if (out->procs[i].rank_intra == r && strcmp(out->procs[i].hostname, tok[0]) == 0) {
        rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: host %s rank_intra %ld already on line %d", name,
                            line, tok[0], r, out->procs[i].line);
        goto fail;
      }
    pc.hostname = strdup(tok[0]);
    pc.rank_intra = (int)r;
    pc.bind = strdup(tok[2]);
    pc.device_type = strdup(tok[3]);
    pc.subopts = strdup(nt == 5 ? tok[4] : "");
    pc.line = line;
    if (out->count == cap) {
      int nc = cap ? 2 * cap : 16;
      fupermod_process_conf *np = realloc(out->procs, (size_t)nc * sizeof *np);
      if (!np) {
        free_proc(&pc);
        rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
        goto fail;
      }
      out->procs = np;
      cap = nc;
    }
    out->procs[out->count++] = pc;
    if (!pc.hostname || !pc.bind || !pc.device_type || !pc.subopts) {
      rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
      goto fail;
    }
  }
  if (rc != FUPERMOD_SUCCESS) goto fail;
  if (out->count == 0) {
    rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s: no process lines (empty configuration)", name);
    goto fail;
  }
  fupermod_lines_free(&rd);
  return FUPERMOD_SUCCESS;
fail:
  fupermod_lines_free(&rd);
  fupermod_conf_free(out);
  return rc;
}

int fupermod_conf_load(const char *path, fupermod_conf *out) {
  char *text;
  size_t len;
  int rc = fupermod_read_file(path, &text, &len);
  memset(out, 0, sizeof *out);
  if (rc != FUPERMOD_SUCCESS) return rc;
  rc = fupermod_conf_parse(text, len, path, out);
  free(text);
  return rc;
}

int fupermod_conf_save(const char *path, const fupermod_conf *conf, const char *comment) {
  fupermod_atomic_file af;
  int rc = fupermod_atomic_open(&af, path);
  if (rc != FUPERMOD_SUCCESS) return rc;
  fprintf(af.fp, "# fupermod process configuration v1\n");
  if (comment) {
    const char *s = comment;
    while (*s) {
      const char *e = strchr(s, '\n');
      size_t n = e ? (size_t)(e - s) : strlen(s);
      fprintf(af.fp, "# %.*s\n", (int)n, s);
      s += n + (e ? 1 : 0);
    }
  }
  fprintf(af.fp, "# hostname rank_intra bind device_type [subopts]\n");
  for (int i = 0; i < conf->count; i++) {
    const fupermod_process_conf *p = &conf->procs[i];
    fprintf(af.fp, "%s %d %s %s%s%s\n", p->hostname, p->rank_intra, p->bind, p->device_type,
            p->subopts[0] ? " " : "", p->subopts);
  }
  return fupermod_atomic_commit(&af);
}

int fupermod_conf_find(const fupermod_conf *conf, const char *hostname, int rank_intra) {
  for (int i = 0; i < conf->count; i++)
    if (conf->procs[i].rank_intra == rank_intra && strcmp(conf->procs[i].hostname, hostname) == 0) return i;
  for (int i = 0; i < conf->count; i++)
    if (conf->procs[i].rank_intra == rank_intra && strcmp(conf->procs[i].hostname, "localhost") == 0)
      return i;
  return -1;
}

int fupermod_subopt_get(const char *subopts, const char *key, char *buf, size_t size) {
  size_t kn = strlen(key);
  const char *s = subopts;
  while (s && *s) {
    const char *end = strchr(s, ',');
    size_t n = end ? (size_t)(end - s) : strlen(s);
    if (n > kn && strncmp(s, key, kn) == 0 && s[kn] == '=') {
      size_t vn = n - kn - 1;
      if (vn >= size) return fupermod_error(FUPERMOD_ERR_INPUT, "sub-option %s: value too long", key);
      memcpy(buf, s + kn + 1, vn);
      buf[vn] = '\0';
      return 1;
    }
    s = end ? end + 1 : NULL;
  }
  return 0;
}

/* The CPUs a binding names into set, on topo; *type: the kind of object its list counts. */
static int bind_set(hwloc_topology_t topo, const char *bind, hwloc_bitmap_t set, hwloc_obj_type_t *type) {
  const char *list;
  int rc = FUPERMOD_SUCCESS;
  if (!valid_bind(bind)) return fupermod_error(FUPERMOD_ERR_INPUT, "bad binding '%s'", bind);
  if (strncmp(bind, "core:", 5) == 0) *type = HWLOC_OBJ_CORE, list = bind + 5;
  else if (strncmp(bind, "pu:", 3) == 0) *type = HWLOC_OBJ_PU, list = bind + 3;
  else if (strncmp(bind, "socket:", 7) == 0) *type = HWLOC_OBJ_PACKAGE, list = bind + 7;
  else *type = HWLOC_OBJ_NUMANODE, list = bind + 5;
  while (*list && rc == FUPERMOD_SUCCESS) {
    char *end;
    long a = strtol(list, &end, 10), b = a;
    if (*end == '-') b = strtol(end + 1, &end, 10);
    if (b < a) rc = fupermod_error(FUPERMOD_ERR_INPUT, "binding '%s': bad range", bind);
    for (long i = a; i <= b && rc == FUPERMOD_SUCCESS; i++) {
      hwloc_obj_t obj = hwloc_get_obj_by_type(topo, *type, (unsigned)i);
      if (!obj) {
        char host[256] = "this host";
        gethostname(host, sizeof host - 1);
        rc = fupermod_error(FUPERMOD_ERR_INPUT,
                            "binding '%s': %.*s %ld does not exist on %s, which gives this process %d (numbered "
                            "from 0)",
                            bind, (int)(strchr(bind, ':') - bind), bind, i, host, hwloc_get_nbobjs_by_type(topo, *type));
      }
      else
        hwloc_bitmap_or(set, set, obj->cpuset);
    }
    list = *end == ',' ? end + 1 : end;
  }
  return rc;
}

/* Runs fn(topo, set, type, out) on the binding's CPUs. */
static int with_bind_set(const char *bind, int (*fn)(hwloc_topology_t, hwloc_const_bitmap_t, hwloc_obj_type_t, int *),
                         int *out) {
  hwloc_topology_t topo;
  hwloc_bitmap_t set;
  hwloc_obj_type_t type;
  int rc;
  if (hwloc_topology_init(&topo) != 0 || hwloc_topology_load(topo) != 0)
    return fupermod_error(FUPERMOD_ERR_SYSTEM, "hwloc cannot load the topology");
  set = hwloc_bitmap_alloc();
  rc = bind_set(topo, bind, set, &type);
  if (rc == FUPERMOD_SUCCESS) rc = fn(topo, set, type, out);
  hwloc_bitmap_free(set);
  hwloc_topology_destroy(topo);
  return rc;
}

static int apply_set(hwloc_topology_t topo, hwloc_const_bitmap_t set, hwloc_obj_type_t type, int *out) {
  (void)type, (void)out;
  if (hwloc_set_cpubind(topo, set, HWLOC_CPUBIND_PROCESS) != 0) return fupermod_error(FUPERMOD_ERR_SYSTEM, "the system refused it");
  return FUPERMOD_SUCCESS;
}

static int count_set(hwloc_topology_t topo, hwloc_const_bitmap_t set, hwloc_obj_type_t type, int *out) {
  /* a list of PUs counts its PUs (hardware threads), any other binding the cores it covers */
  int n = hwloc_get_nbobjs_inside_cpuset_by_type(topo, set, type == HWLOC_OBJ_PU ? HWLOC_OBJ_PU : HWLOC_OBJ_CORE);
  /* no core objects (some virtual machines): its PUs */
  if (n <= 0) n = hwloc_get_nbobjs_inside_cpuset_by_type(topo, set, HWLOC_OBJ_PU);
  *out = n > 0 ? n : 1;
  return FUPERMOD_SUCCESS;
}

static int bind_applied; /* this process applied a binding of its configuration line */
static cpu_set_t bind_mask; /* its affinity right after: a process given another since is not bound by its line */

int fupermod_bind_apply(const char *bind) {
  int rc;
  if (!bind || strcmp(bind, "none") == 0) return FUPERMOD_SUCCESS;
#ifdef FUPERMOD_SMPI
  /* SimGrid runs every simulated rank in this one process: a binding would bind them all. Under
   * SMPI the processes run unbound (fupermod-simulate says so once; docs/simulate.md). */
  return FUPERMOD_SUCCESS;
#endif
  rc = with_bind_set(bind, apply_set, NULL);
  if (rc == FUPERMOD_SUCCESS && sched_getaffinity(0, sizeof bind_mask, &bind_mask) == 0)
    __atomic_store_n(&bind_applied, 1, __ATOMIC_RELEASE);
  return rc == FUPERMOD_ERR_SYSTEM ? fupermod_error_prefix(rc, "binding '%s'", bind) : rc;
}

int fupermod_bind_applied(void) {
  cpu_set_t now;
  if (!__atomic_load_n(&bind_applied, __ATOMIC_ACQUIRE) || sched_getaffinity(0, sizeof now, &now) != 0) return 0;
  return CPU_EQUAL(&now, &bind_mask);
}

int fupermod_bind_width(const char *bind, int *cores) {
  *cores = 0;
  if (!bind || strcmp(bind, "none") == 0) return FUPERMOD_SUCCESS;
  return with_bind_set(bind, count_set, cores);
}

int fupermod_bind_suggest(int rank_intra, int n, char *buf, size_t size) {
  return fupermod_bind_suggest_gpu(rank_intra, n, 0, buf, size);
}

/* A contiguous block [first, first + cores) shared by n processes: block k of rank k. */
static void block_of(int first, int cores, int rank, int n, char *buf, size_t size) {
  if (n <= cores) {
    int lo = first + rank * cores / n, hi = first + (rank + 1) * cores / n - 1;
    if (lo == hi) snprintf(buf, size, "core:%d", lo);
    else snprintf(buf, size, "core:%d-%d", lo, hi);
  } else {
    snprintf(buf, size, "core:%d", first + rank * cores / n); /* processes share cores */
  }
}

int fupermod_bind_suggest_gpu(int rank_intra, int n, int ngpu, char *buf, size_t size) {
  hwloc_topology_t topo;
  int cores;
  if (n < 1 || rank_intra < 0 || rank_intra >= n || ngpu < 0)
    return fupermod_error(FUPERMOD_ERR_USAGE, "bind suggestion: rank %d of %d, %d GPUs", rank_intra, n, ngpu);
  if (hwloc_topology_init(&topo) != 0 || hwloc_topology_load(topo) != 0)
    return fupermod_error(FUPERMOD_ERR_SYSTEM, "hwloc cannot load the topology");
  cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
  hwloc_topology_destroy(topo);
  if (ngpu > n) ngpu = n;
  if (cores < 1) snprintf(buf, size, "none");
  /* a GPU's process drives it from one core of its own; the CPU processes share the others */
  else if (ngpu > 0 && n > ngpu && cores > ngpu && rank_intra < ngpu)
    snprintf(buf, size, "core:%d", rank_intra);
  else if (ngpu > 0 && n > ngpu && cores > ngpu)
    block_of(ngpu, cores - ngpu, rank_intra - ngpu, n - ngpu, buf, size);
  else
    block_of(0, cores, rank_intra, n, buf, size);
  return FUPERMOD_SUCCESS;
}
