/* fupermod hpartition: HiPOPTA, or INPA / IDPA on emulated devices, over the nodes of a process
 * configuration (docs/hierarchical.md). */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "fupermod/model.h"
#include "partitioners/hier.h"
#include "tools/tools.h"
#include "tools/mpi_init.h"

static const char *SUB = "hpartition";

static void help(void) {
  printf("usage: fupermod hpartition -D N --conf CONF --data DIR [-i INNER] [-o OUTER] [-F max|sum]\n"
         "                           [--json] [--out FILE]\n"
         "       mpirun fupermod hpartition -a inpa|idpa -n N -b B --conf CONF --data DIR [--eps1 E]\n"
         "                           [--eps2 E] [--max-inpa K] [--max-idpa K] [--json]\n\n"
         "Two-level exact partitioning (HiPOPTA): configuration lines with the same group= sub-option,\n"
         "or else the same host name, form a node; each line's point file in DIR (as written by\n"
         "fupermod build) is its device's function. Node functions come from the inner algorithm\n"
         "for every workload, the outer algorithm splits D between the nodes, the inner one each\n"
         "node's share between its devices.\n"
         "  -D N          units to distribute (>= 0)\n"
         "  -i INNER      inner algorithm (default hpopta; heopta with -F sum): dp, hpopta, paraleph, ...\n"
         "  -o OUTER      outer algorithm (default popta/eopta for identical nodes, else hpopta/heopta);\n"
         "                paraleph runs on every process of the job (mpirun -np K fupermod hpartition ...)\n"
         "  -F max|sum    objective: time (default) or dynamic energy\n"
         "  --json        print JSON on stdout\n"
         "  --out FILE    write the device distribution (configuration order)\n\n"
         "-a inpa: INPA with nested IDPA (dynamic) for the N x N matrix product in B x B blocks, on one\n"
         "process per device: processes group into nodes by group=, else by the host they run on. A\n"
         "device is emulated by its point file (d = area in blocks, as the dgemm kernel's): a slice of\n"
         "bm x d elements takes the piecewise model's time at bm d / B^2 blocks. -a idpa: one IDPA per\n"
         "node over all N columns (slices of N rows).\n"
         "  --eps1 E, --eps2 E          inter-node and inter-device tolerances (default 0.05)\n"
         "  --max-inpa K, --max-idpa K  caps on node and device measurements (default 20)\n\n"
         "exit status: 0 ok, 1 bad input, 2 usage, 3 no feasible distribution\n");
}

static void json_part(FILE *fp, const fupermod_part *p, int energy) {
  fprintf(fp, "{\"d\":%ld,\"t\":", p->d);
  json_number(fp, p->t);
  if (energy) {
    fputs(",\"e\":", fp);
    json_number(fp, p->e);
  }
  fputc('}', fp);
}

/* The emulated device: its time on a bm x d slice is its function at the slice's area in blocks. */
typedef struct {
  fupermod_model *m;
  long b;
} emu_device;

static int emu_measure(long bm, long d, MPI_Comm comm_sync, fupermod_point *pt, void *ctx) {
  const emu_device *e = ctx;
  (void)comm_sync;
  memset(pt, 0, sizeof *pt);
  pt->d = d;
  pt->t = fupermod_model_time(e->m, (double)bm * (double)d / ((double)e->b * (double)e->b));
  pt->reps = 1;
  if (!(pt->t > 0)) return fupermod_error(FUPERMOD_ERR_INPUT, "emulated device: no time at %ld x %ld elements", bm, d);
  return FUPERMOD_SUCCESS;
}

/* What rank 0 prints about one process. */
typedef struct {
  int line, node;
  long cols;
  double t;
  char host[64], key[192];
} dyn_row;

typedef struct {
  const char *algo, *conf, *data;
  long n, b, max_inpa, max_idpa;
  double eps1, eps2;
  int json;
} dyn_args;

static void print_dynamic(const dyn_args *a, const fupermod_hier_comm *hc, const dyn_row *rows, int size,
                          const fupermod_inpa_result *res, const double *t_node, const int *conv, const int *meas) {
  int inpa = strcmp(a->algo, "inpa") == 0;
  double tmax = 0;
  for (int k = 0; k < hc->nodes; k++) tmax = fmax(tmax, t_node[k]);
  if (a->json) {
    printf("{\"algorithm\":\"%s\",\"N\":%ld,\"b\":%ld,\"nodes_count\":%d", a->algo, a->n, a->b, hc->nodes);
    if (inpa)
      printf(",\"W\":%ld,\"converged\":%s,\"stalled\":%s,\"iterations\":%d,\"imbalance\":", (a->n / a->b) * (a->n / a->b),
             res->converged ? "true" : "false", res->stalled ? "true" : "false", res->inpa_iterations);
    if (inpa) json_number(stdout, res->imbalance);
    printf(",\"time\":");
    json_number(stdout, tmax);
    printf(",\"nodes\":[");
  } else if (inpa)
    printf("inpa: N=%ld b=%ld, %ld blocks over %d nodes, %d processes: %s after %d node measurements, "
           "imbalance %.4g, time %.6g s\n",
           a->n, a->b, (a->n / a->b) * (a->n / a->b), hc->nodes, size,
           res->converged ? "converged" : res->stalled ? "stalled" : "stopped at the cap", res->inpa_iterations,
           res->imbalance, tmax);
  else
    printf("idpa: N=%ld columns of %ld rows on each of %d nodes, %d processes, time %.6g s\n", a->n, a->n, hc->nodes,
           size, tmax);
  for (int k = 0; k < hc->nodes; k++) {
    int first = -1;
    long bm = a->n, bn = a->n;
    for (int r = 0; r < size && first < 0; r++)
      if (rows[r].node == k) first = r;
    if (inpa) {
      bm = (long)res->layout->rects[k].height * a->b;
      bn = (long)res->layout->rects[k].width * a->b;
    }
    if (a->json) {
      printf("%s{\"key\":", k ? "," : "");
      json_string(stdout, rows[first].key);
      printf(",\"host\":");
      json_string(stdout, rows[first].host);
      if (inpa) printf(",\"blocks\":%ld", res->nodes->parts[k].d);
      printf(",\"rows\":%ld,\"cols\":%ld,\"t\":", bm, bn);
      json_number(stdout, t_node[k]);
      if (!inpa) printf(",\"converged\":%s,\"measurements\":%d", conv[k] ? "true" : "false", meas[k]);
      printf(",\"devices\":[");
      for (int r = 0, j = 0; r < size; r++)
        if (rows[r].node == k) {
          printf("%s{\"rank\":%d,\"line\":%d,\"cols\":%ld,\"t\":", j++ ? "," : "", r, rows[r].line, rows[r].cols);
          json_number(stdout, rows[r].t);
          putchar('}');
        }
      printf("]}");
    } else {
      printf("node %d (%s on %s):", k, rows[first].key, rows[first].host);
      if (inpa) printf(" %ld blocks,", res->nodes->parts[k].d);
      printf(" %ld x %ld elements, t=%.6g s", bm, bn, t_node[k]);
      if (!inpa) printf(", %s after %d measurements", conv[k] ? "converged" : "not converged", meas[k]);
      putchar('\n');
      for (int r = 0; r < size; r++)
        if (rows[r].node == k)
          printf("  rank %-4d line %-4d cols=%-8ld t=%.6g s\n", r, rows[r].line, rows[r].cols, rows[r].t);
    }
  }
  if (a->json) printf("]}\n");
}

/* -a inpa | idpa: collective over the job, one process per device. */
static int run_dynamic(const dyn_args *a) {
  int rc, rank, size, idx = -1, status = 0, conv = 0, meas = 0;
  double t_node = 0;
  fupermod_conf conf = {0, NULL, NULL};
  fupermod_points *pts = NULL;
  int npts = 0;
  fupermod_hier_comm hc;
  fupermod_inpa_result res;
  emu_device dev = {NULL, a->b};
  fupermod_dist *devices = NULL;
  fupermod_model **models = NULL;
  dyn_row me, *rows = NULL;
  double *t_nodes = NULL;
  int *convs = NULL, *meass = NULL;
  const fupermod_partitioner *geo = fupermod_partitioner_find("geometric");

  memset(&hc, 0, sizeof hc);
  memset(&res, 0, sizeof res);
  memset(&me, 0, sizeof me);
  if ((rc = tool_mpi_init(SUB, NULL, NULL, TOOL_MPI_LEVEL)) != 0) return rc;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  rc = fupermod_conf_load(a->conf, &conf);
  if (rc == FUPERMOD_SUCCESS) rc = tool_load_points(0, NULL, a->conf, a->data, &pts, &npts);
  if ((rc = fupermod_agree(rc, MPI_COMM_WORLD)) == FUPERMOD_SUCCESS &&
      (rc = fupermod_conf_locate(&conf, MPI_COMM_WORLD, &idx, NULL)) == FUPERMOD_SUCCESS &&
      (rc = fupermod_hier_comm_create(&conf, MPI_COMM_WORLD, &hc)) == FUPERMOD_SUCCESS) {
    char host[MPI_MAX_PROCESSOR_NAME] = "";
    int len;
    rc = fupermod_model_create("piecewise", &pts[idx], 0, &dev.m);
    me.line = conf.procs[idx].line;
    me.node = hc.node;
    MPI_Get_processor_name(host, &len);
    snprintf(me.host, sizeof me.host, "%s", host);
    if (rc == FUPERMOD_SUCCESS) rc = fupermod_hier_key(&conf.procs[idx], me.key, sizeof me.key);
    rc = fupermod_agree(rc, MPI_COMM_WORLD);
  }
  if (rc == FUPERMOD_SUCCESS && strcmp(a->algo, "inpa") == 0) {
    fupermod_inpa_opts o = {a->n, a->b, a->eps1, a->eps2, (int)a->max_inpa, (int)a->max_idpa,
                            geo->continuous, geo->continuous, "piecewise", "piecewise", "br"};
    if ((rc = fupermod_inpa(&hc, &o, emu_measure, &dev, &res)) == FUPERMOD_SUCCESS) {
      me.cols = res.devices->parts[hc.node_rank].d;
      me.t = res.devices->parts[hc.node_rank].t;
      for (int i = 0; i < res.devices->size; i++) t_node = fmax(t_node, res.devices->parts[i].t);
      conv = res.converged;
    }
  } else if (rc == FUPERMOD_SUCCESS) {
    int p = hc.node_size[hc.node];
    if (!(devices = fupermod_dist_alloc(a->n, p)) || !(models = calloc((size_t)p, sizeof *models)))
      rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
    for (int i = 0; rc == FUPERMOD_SUCCESS && i < p; i++) rc = fupermod_model_create("piecewise", NULL, 0, &models[i]);
    if ((rc = fupermod_agree(rc, MPI_COMM_WORLD)) == FUPERMOD_SUCCESS)
      rc = fupermod_idpa(&hc, a->n, a->n, a->eps2, (int)a->max_idpa, geo->continuous, models, emu_measure, &dev,
                         devices, &t_node, &conv, &meas);
    rc = fupermod_agree(rc, MPI_COMM_WORLD);
    if (rc == FUPERMOD_SUCCESS) {
      me.cols = devices->parts[hc.node_rank].d;
      me.t = devices->parts[hc.node_rank].t;
    }
    for (int i = 0; models && i < p; i++) fupermod_model_free(models[i]);
  }
  if (rc == FUPERMOD_SUCCESS) {
    if (!(rows = malloc((size_t)size * sizeof *rows)) || !(t_nodes = malloc((size_t)hc.nodes * sizeof *t_nodes)) ||
        !(convs = malloc((size_t)hc.nodes * sizeof *convs)) || !(meass = malloc((size_t)hc.nodes * sizeof *meass)))
      rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
    rc = fupermod_agree(rc, MPI_COMM_WORLD);
  }
  if (rc == FUPERMOD_SUCCESS) {
    MPI_Gather(&me, (int)sizeof me, MPI_BYTE, rows, (int)sizeof me, MPI_BYTE, 0, MPI_COMM_WORLD);
    /* a node's values as its first device has them */
    for (int k = 0; k < hc.nodes; k++) {
      int r0 = 0, v[2] = {conv, meas}, w[2];
      double t;
      while (hc.node_of[r0] != k) r0++;
      t = t_node;
      MPI_Bcast(&t, 1, MPI_DOUBLE, r0, MPI_COMM_WORLD);
      memcpy(w, v, sizeof w);
      MPI_Bcast(w, 2, MPI_INT, r0, MPI_COMM_WORLD);
      t_nodes[k] = t;
      convs[k] = w[0];
      meass[k] = w[1];
    }
    if (rank == 0) print_dynamic(a, &hc, rows, size, &res, t_nodes, convs, meass);
  }
  if (rc != FUPERMOD_SUCCESS) status = rank == 0 ? tool_fail(SUB, rc) : fupermod_exit_status(rc);
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  fupermod_hier_comm_free(&hc); /* its communicators, before MPI ends */
  MPI_Finalize();
  free(rows);
  free(t_nodes);
  free(convs);
  free(meass);
  free(models);
  fupermod_dist_free(devices);
  fupermod_model_free(dev.m);
  fupermod_inpa_result_free(&res);
  for (int i = 0; pts && i < npts; i++) fupermod_points_free(&pts[i]);
  free(pts);
  if (conf.procs) fupermod_conf_free(&conf);
  return status;
}

enum { GO_ON = -1 }; /* the command goes on; any other value is its exit status */

/* HiPOPTA's options (-a hipopta, the default). */
typedef struct {
  const char *inner, *outer, *out, *conf, *data;
  long D;
  int objective, json;
} hip_args;

/* The configuration's lines grouped into nodes, and HiPOPTA's distribution of them. */
typedef struct {
  fupermod_conf conf;
  fupermod_points *pts;
  int n, q;                    /* lines, nodes */
  int *node, *devices, *order; /* per line its node; per node its lines; the lines in node-major order */
  const fupermod_points **f;   /* node-major order */
  int energy;                  /* every function has energy */
  fupermod_hier_result res;
  fupermod_dist *dist;         /* configuration order */
} hip_solution;

static void hip_solution_free(hip_solution *s) {
  fupermod_dist_free(s->dist);
  fupermod_hier_result_free(&s->res);
  for (int i = 0; s->pts && i < s->n; i++) fupermod_points_free(&s->pts[i]);
  free(s->pts);
  free(s->f);
  free(s->node);
  free(s->order);
  free(s->devices);
  if (s->conf.procs) fupermod_conf_free(&s->conf);
}

/* The options of -a inpa and idpa (dyn) and of HiPOPTA (h): GO_ON, or the exit status: 0 after
 * --help, a usage error's. */
static int parse_options(int argc, char **argv, dyn_args *dyn, hip_args *h) {
  static const struct option opts[] = {{"json", no_argument, NULL, 'j'},       {"out", required_argument, NULL, 'O'},
                                       {"conf", required_argument, NULL, 'c'}, {"data", required_argument, NULL, 'd'},
                                       {"algorithm", required_argument, NULL, 'a'},
                                       {"eps1", required_argument, NULL, '1'}, {"eps2", required_argument, NULL, '2'},
                                       {"max-inpa", required_argument, NULL, 'I'},
                                       {"max-idpa", required_argument, NULL, 'J'},
                                       {"help", no_argument, NULL, 'h'},      {NULL, 0, NULL, 0}};
  int c;
  optind = 0; /* a full reset of glibc's getopt: the parse may run more than once per process */
  while ((c = getopt_long(argc, argv, "D:i:o:F:a:n:b:h", opts, NULL)) != -1) {
    switch (c) {
    case 'a':
      if (strcmp(optarg, "hipopta") && strcmp(optarg, "inpa") && strcmp(optarg, "idpa"))
        return tool_usage(SUB, "-a '%s' must be hipopta, inpa or idpa", optarg);
      dyn->algo = optarg;
      break;
    case 'n':
      if (fupermod_parse_long(optarg, &dyn->n) || dyn->n < 1 || dyn->n > 1 << 20)
        return tool_usage(SUB, "-n '%s' must be an integer in [1, 1048576]", optarg);
      break;
    case 'b':
      if (fupermod_parse_long(optarg, &dyn->b) || dyn->b < 1 || dyn->b > 1 << 14)
        return tool_usage(SUB, "-b '%s' must be an integer in [1, 16384]", optarg);
      break;
    case '1':
      if (fupermod_parse_double(optarg, &dyn->eps1) || !(dyn->eps1 >= 0))
        return tool_usage(SUB, "--eps1 '%s' must be a number >= 0", optarg);
      break;
    case '2':
      if (fupermod_parse_double(optarg, &dyn->eps2) || !(dyn->eps2 >= 0))
        return tool_usage(SUB, "--eps2 '%s' must be a number >= 0", optarg);
      break;
    case 'I':
    case 'J': {
      long *cap = c == 'I' ? &dyn->max_inpa : &dyn->max_idpa;
      if (fupermod_parse_long(optarg, cap) || *cap < 1 || *cap > 100000)
        return tool_usage(SUB, "--max-%s '%s' must be an integer in [1, 100000]", c == 'I' ? "inpa" : "idpa", optarg);
      break;
    }
    case 'D':
      if (fupermod_parse_long(optarg, &h->D) || h->D < 0)
        return tool_usage(SUB, "-D '%s' must be an integer >= 0", optarg);
      break;
    case 'i': h->inner = optarg; break;
    case 'o': h->outer = optarg; break;
    case 'F':
      if (strcmp(optarg, "max") == 0) h->objective = FUPERMOD_OBJ_TIME;
      else if (strcmp(optarg, "sum") == 0) h->objective = FUPERMOD_OBJ_ENERGY;
      else return tool_usage(SUB, "-F '%s' must be max or sum", optarg);
      break;
    case 'j': h->json = 1; break;
    case 'O': h->out = optarg; break;
    case 'c': h->conf = optarg; break;
    case 'd': h->data = optarg; break;
    case 'h': help(); return 0;
    default: return tool_bad_option(SUB, argv, "D:i:o:F:a:n:b:h", opts);
    }
  }
  if (optind < argc) return tool_usage(SUB, "unexpected argument '%s'", argv[optind]);
  return GO_ON;
}

/* -a inpa | idpa: its own options only. */
static int dynamic_main(dyn_args *dyn, const hip_args *h) {
  if (!h->conf || !h->data) return tool_usage(SUB, "--conf and --data are required");
  if (dyn->n < 1 || dyn->b < 1 || dyn->n % dyn->b != 0)
    return tool_usage(SUB, "-a %s needs -n N and -b B, N a multiple of B", dyn->algo);
  if (h->D >= 0 || h->inner || h->outer || h->out || h->objective != FUPERMOD_OBJ_TIME)
    return tool_usage(SUB, "-D, -i, -o, -F and --out are HiPOPTA's; -a %s takes -n and -b", dyn->algo);
  dyn->conf = h->conf;
  dyn->data = h->data;
  dyn->json = h->json;
  return run_dynamic(dyn);
}

/* Every process reads the inputs: a collective outer algorithm needs the same call everywhere. */
static int solve(const hip_args *h, fupermod_hier_algo *pin, fupermod_hier_algo *pout, hip_solution *s) {
  int rc, n, k = 0;
  if ((rc = fupermod_conf_load(h->conf, &s->conf)) != FUPERMOD_SUCCESS ||
      (rc = tool_load_points(0, NULL, h->conf, h->data, &s->pts, &s->n)) != FUPERMOD_SUCCESS)
    return rc;
  n = s->n;
  if (!(s->node = malloc((size_t)n * sizeof *s->node)) || !(s->order = malloc((size_t)n * sizeof *s->order)) ||
      !(s->devices = calloc((size_t)n, sizeof *s->devices)) || !(s->f = malloc((size_t)n * sizeof *s->f)))
    return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  if ((rc = fupermod_hier_groups(&s->conf, s->node, &s->q)) != FUPERMOD_SUCCESS) return rc;
  /* node-major order of the configuration lines */
  for (int g = 0; g < s->q; g++)
    for (int i = 0; i < n; i++)
      if (s->node[i] == g) {
        s->order[k] = i;
        s->f[k++] = &s->pts[i];
        s->devices[g]++;
      }
  s->energy = 1;
  for (int i = 0; i < n; i++) s->energy = s->energy && s->pts[i].has_energy;
  fupermod_hier_problem hp = {h->D, s->q, s->devices, s->f, h->objective};
  if ((rc = fupermod_hipopta(&hp, pin, pout, &s->res)) != FUPERMOD_SUCCESS) return rc;
  if (!(s->dist = fupermod_dist_alloc(h->D, n))) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  for (k = 0; k < n; k++) s->dist->parts[s->order[k]] = s->res.devices->parts[k];
  return FUPERMOD_SUCCESS;
}

/* The key of node g: its first line's. */
static void node_key(const hip_solution *s, int g, char *key, size_t size) {
  key[0] = '\0';
  for (int i = 0; i < s->n; i++)
    if (s->node[i] == g && !key[0]) fupermod_hier_key(&s->conf.procs[i], key, size);
}

static void print_json(const hip_args *h, const hip_solution *s, const char *in_n, const char *out_n) {
  printf("{\"algorithm\":\"hipopta\",\"inner\":");
  json_string(stdout, in_n);
  printf(",\"outer\":");
  json_string(stdout, out_n);
  printf(",\"D\":%ld,\"identical\":%s,\"time\":", h->D, s->res.identical ? "true" : "false");
  json_number(stdout, s->res.time);
  if (s->energy) {
    printf(",\"energy\":");
    json_number(stdout, s->res.energy);
  }
  printf(",\"nodes\":[");
  for (int g = 0; g < s->q; g++) {
    char key[256];
    int first = 1;
    node_key(s, g, key, sizeof key);
    printf("%s{\"key\":", g ? "," : "");
    json_string(stdout, key);
    printf(",\"d\":%ld,\"t\":", s->res.nodes->parts[g].d);
    json_number(stdout, s->res.nodes->parts[g].t);
    printf(",\"lines\":[");
    for (int i = 0; i < s->n; i++)
      if (s->node[i] == g) {
        printf("%s%d", first ? "" : ",", s->conf.procs[i].line);
        first = 0;
      }
    printf("]}");
  }
  printf("],\"parts\":[");
  for (int i = 0; i < s->n; i++) {
    if (i) putchar(',');
    json_part(stdout, &s->dist->parts[i], s->energy);
  }
  printf("]}\n");
}

static void print_text(const hip_args *h, const hip_solution *s, const char *in_n, const char *out_n) {
  printf("hipopta (inner %s, outer %s): D=%ld over %d nodes, %d devices, time %.6g s", in_n, out_n, h->D, s->q, s->n,
         s->res.time);
  if (s->energy) printf(", energy %.6g J", s->res.energy);
  printf("%s\n", s->res.identical ? " (identical nodes)" : "");
  for (int g = 0; g < s->q; g++) {
    char key[256];
    node_key(s, g, key, sizeof key);
    printf("node %d (%s): d=%ld t=%.6g s\n", g, key, s->res.nodes->parts[g].d, s->res.nodes->parts[g].t);
    for (int i = 0; i < s->n; i++)
      if (s->node[i] == g)
        printf("  line %-4d %-16s %-4s d=%-10ld t=%.6g s\n", s->conf.procs[i].line, s->conf.procs[i].hostname,
               s->conf.procs[i].device_type, s->dist->parts[i].d, s->dist->parts[i].t);
  }
}

/* Rank 0: the distribution, printed and written (--out); the exit status. */
static int report(const hip_args *h, const hip_solution *s, const fupermod_hier_algo *pin,
                  const fupermod_hier_algo *pout) {
  int energy_obj = h->objective == FUPERMOD_OBJ_ENERGY, rc;
  const char *in_n = pin ? pin->name : energy_obj ? "heopta" : "hpopta";
  const char *out_n = pout ? pout->name
                           : s->res.identical ? (energy_obj ? "eopta" : "popta") : (energy_obj ? "heopta" : "hpopta");
  if (h->json) print_json(h, s, in_n, out_n);
  else print_text(h, s, in_n, out_n);
  if (h->out && (rc = fupermod_dist_save(h->out, s->dist, "hipopta")) != FUPERMOD_SUCCESS) return tool_fail(SUB, rc);
  return 0;
}

int cmd_hpartition(int argc, char **argv) {
  dyn_args dyn = {"hipopta", NULL, NULL, 0, 0, 20, 20, 0.05, 0.05, 0};
  hip_args h = {NULL, NULL, NULL, NULL, NULL, -1, FUPERMOD_OBJ_TIME, 0};
  int rc, status, mpi = 0, rank = 0;
  fupermod_hier_algo inner, outer, *pin = NULL, *pout = NULL;
  fupermod_hier_paraleph_ctx pctx;
  hip_solution s;

  if ((status = parse_options(argc, argv, &dyn, &h)) != GO_ON) return status;
  if (strcmp(dyn.algo, "hipopta") != 0) return dynamic_main(&dyn, &h);
  if (dyn.n || dyn.b) return tool_usage(SUB, "-n and -b are for -a inpa and -a idpa");
  if (h.D < 0) return tool_usage(SUB, "-D is required");
  if (!h.conf || !h.data) return tool_usage(SUB, "--conf and --data are required");
  if (h.inner && (rc = fupermod_hier_algo_named(h.inner, &inner)) != FUPERMOD_SUCCESS) return tool_fail(SUB, rc);
  if (h.outer && (rc = fupermod_hier_algo_named(h.outer, &outer)) != FUPERMOD_SUCCESS) return tool_fail(SUB, rc);
  /* paraleph needs MPI; as the outer algorithm it uses every process of the job */
  if ((h.inner && strcmp(h.inner, "paraleph") == 0) || (h.outer && strcmp(h.outer, "paraleph") == 0)) {
    if ((rc = tool_mpi_init(SUB, NULL, NULL, TOOL_MPI_LEVEL)) != 0) return rc;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    mpi = 1;
    if (h.outer && strcmp(h.outer, "paraleph") == 0) fupermod_hier_algo_paraleph(&pctx, MPI_COMM_WORLD, 0, &outer);
  }
  if (h.inner) pin = &inner;
  if (h.outer) pout = &outer;
  memset(&s, 0, sizeof s);
  if ((rc = solve(&h, pin, pout, &s)) != FUPERMOD_SUCCESS)
    status = rank == 0 ? tool_fail(SUB, rc) : fupermod_exit_status(rc);
  else status = rank == 0 ? report(&h, &s, pin, pout) : 0;
  if (mpi) {
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
  }
  hip_solution_free(&s);
  return status;
}
