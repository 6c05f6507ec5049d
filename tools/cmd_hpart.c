/* fupermod hpartition: HiPOPTA over the nodes of a process configuration (docs/hierarchical.md). */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "partitioners/hier.h"
#include "tools/tools.h"
#include "tools/mpi_init.h"

static const char *SUB = "hpartition";

static void help(void) {
  printf("usage: fupermod hpartition -D N --conf CONF --data DIR [-i INNER] [-o OUTER] [-F max|sum]\n"
         "                           [--json] [--out FILE]\n\n"
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

int cmd_hpartition(int argc, char **argv) {
  static const struct option opts[] = {{"json", no_argument, NULL, 'j'},       {"out", required_argument, NULL, 'O'},
                                       {"conf", required_argument, NULL, 'c'}, {"data", required_argument, NULL, 'd'},
                                       {"help", no_argument, NULL, 'h'},      {NULL, 0, NULL, 0}};
  const char *inner_name = NULL, *outer_name = NULL, *out = NULL, *confp = NULL, *data = NULL;
  long D = -1;
  int c, rc, json = 0, objective = FUPERMOD_OBJ_TIME, n = 0, q = 0, status = 0, mpi = 0, rank = 0, energy = 1;
  fupermod_points *pts = NULL;
  const fupermod_points **f = NULL;
  fupermod_conf conf = {0, NULL, NULL};
  int *node = NULL, *devices = NULL, *order = NULL;
  fupermod_hier_algo inner, outer, *pin = NULL, *pout = NULL;
  fupermod_hier_paraleph_ctx pctx;
  fupermod_hier_result res;
  fupermod_dist *dist = NULL;

  memset(&res, 0, sizeof res);
  optind = 0; /* a full reset of glibc's getopt: the parse may run more than once per process */
  while ((c = getopt_long(argc, argv, "D:i:o:F:h", opts, NULL)) != -1) {
    switch (c) {
    case 'D':
      if (fupermod_parse_long(optarg, &D) || D < 0) return tool_usage(SUB, "-D '%s' must be an integer >= 0", optarg);
      break;
    case 'i': inner_name = optarg; break;
    case 'o': outer_name = optarg; break;
    case 'F':
      if (strcmp(optarg, "max") == 0) objective = FUPERMOD_OBJ_TIME;
      else if (strcmp(optarg, "sum") == 0) objective = FUPERMOD_OBJ_ENERGY;
      else return tool_usage(SUB, "-F '%s' must be max or sum", optarg);
      break;
    case 'j': json = 1; break;
    case 'O': out = optarg; break;
    case 'c': confp = optarg; break;
    case 'd': data = optarg; break;
    case 'h': help(); return 0;
    default: return tool_usage(SUB, "unknown option");
    }
  }
  if (optind < argc) return tool_usage(SUB, "unexpected argument '%s'", argv[optind]);
  if (D < 0) return tool_usage(SUB, "-D is required");
  if (!confp || !data) return tool_usage(SUB, "--conf and --data are required");
  if (inner_name && (rc = fupermod_hier_algo_named(inner_name, &inner)) != FUPERMOD_SUCCESS) return tool_fail(SUB, rc);
  if (outer_name && (rc = fupermod_hier_algo_named(outer_name, &outer)) != FUPERMOD_SUCCESS) return tool_fail(SUB, rc);
  /* paraleph needs MPI; as the outer algorithm it uses every process of the job */
  if ((inner_name && strcmp(inner_name, "paraleph") == 0) || (outer_name && strcmp(outer_name, "paraleph") == 0)) {
    if ((rc = tool_mpi_init(SUB, NULL, NULL, TOOL_MPI_LEVEL)) != 0) return rc;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    mpi = 1;
    if (outer_name && strcmp(outer_name, "paraleph") == 0) fupermod_hier_algo_paraleph(&pctx, MPI_COMM_WORLD, 0, &outer);
  }
  if (inner_name) pin = &inner;
  if (outer_name) pout = &outer;

  /* every process reads the inputs: a collective outer algorithm needs the same call everywhere */
  if ((rc = fupermod_conf_load(confp, &conf)) == FUPERMOD_SUCCESS &&
      (rc = tool_load_points(0, NULL, confp, data, &pts, &n)) == FUPERMOD_SUCCESS) {
    if (!(node = malloc((size_t)n * sizeof *node)) || !(order = malloc((size_t)n * sizeof *order)) ||
        !(devices = calloc((size_t)n, sizeof *devices)) || !(f = malloc((size_t)n * sizeof *f)))
      rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
    else if ((rc = fupermod_hier_groups(&conf, node, &q)) == FUPERMOD_SUCCESS) {
      /* node-major order of the configuration lines */
      int k = 0;
      for (int g = 0; g < q; g++)
        for (int i = 0; i < n; i++)
          if (node[i] == g) {
            order[k] = i;
            f[k++] = &pts[i];
            devices[g]++;
          }
      for (int i = 0; i < n; i++) energy = energy && pts[i].has_energy;
      fupermod_hier_problem hp = {D, q, devices, f, objective};
      rc = fupermod_hipopta(&hp, pin, pout, &res);
    }
  }
  if (rc != FUPERMOD_SUCCESS) {
    status = rank == 0 ? tool_fail(SUB, rc) : fupermod_exit_status(rc);
    goto done;
  }
  if (!(dist = fupermod_dist_alloc(D, n))) {
    status = rank == 0 ? tool_fail(SUB, fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory")) : 1;
    goto done;
  }
  for (int k = 0; k < n; k++) dist->parts[order[k]] = res.devices->parts[k];
  if (rank == 0) {
    const char *in_n = pin ? pin->name : objective == FUPERMOD_OBJ_ENERGY ? "heopta" : "hpopta";
    const char *out_n = pout ? pout->name
                             : res.identical ? (objective == FUPERMOD_OBJ_ENERGY ? "eopta" : "popta")
                                             : (objective == FUPERMOD_OBJ_ENERGY ? "heopta" : "hpopta");
    if (json) {
      printf("{\"algorithm\":\"hipopta\",\"inner\":");
      json_string(stdout, in_n);
      printf(",\"outer\":");
      json_string(stdout, out_n);
      printf(",\"D\":%ld,\"identical\":%s,\"time\":", D, res.identical ? "true" : "false");
      json_number(stdout, res.time);
      if (energy) {
        printf(",\"energy\":");
        json_number(stdout, res.energy);
      }
      printf(",\"nodes\":[");
      for (int g = 0; g < q; g++) {
        char key[256] = "";
        int first = 1;
        for (int i = 0; i < n; i++)
          if (node[i] == g && !key[0]) fupermod_hier_key(&conf.procs[i], key, sizeof key);
        printf("%s{\"key\":", g ? "," : "");
        json_string(stdout, key);
        printf(",\"d\":%ld,\"t\":", res.nodes->parts[g].d);
        json_number(stdout, res.nodes->parts[g].t);
        printf(",\"lines\":[");
        for (int i = 0; i < n; i++)
          if (node[i] == g) {
            printf("%s%d", first ? "" : ",", conf.procs[i].line);
            first = 0;
          }
        printf("]}");
      }
      printf("],\"parts\":[");
      for (int i = 0; i < n; i++) {
        if (i) putchar(',');
        json_part(stdout, &dist->parts[i], energy);
      }
      printf("]}\n");
    } else {
      printf("hipopta (inner %s, outer %s): D=%ld over %d nodes, %d devices, time %.6g s", in_n, out_n, D, q, n, res.time);
      if (energy) printf(", energy %.6g J", res.energy);
      printf("%s\n", res.identical ? " (identical nodes)" : "");
      for (int g = 0; g < q; g++) {
        char key[256] = "";
        for (int i = 0; i < n; i++)
          if (node[i] == g && !key[0]) fupermod_hier_key(&conf.procs[i], key, sizeof key);
        printf("node %d (%s): d=%ld t=%.6g s\n", g, key, res.nodes->parts[g].d, res.nodes->parts[g].t);
        for (int i = 0; i < n; i++)
          if (node[i] == g)
            printf("  line %-4d %-16s %-4s d=%-10ld t=%.6g s\n", conf.procs[i].line, conf.procs[i].hostname,
                   conf.procs[i].device_type, dist->parts[i].d, dist->parts[i].t);
      }
    }
    if (out && (rc = fupermod_dist_save(out, dist, "hipopta")) != FUPERMOD_SUCCESS) status = tool_fail(SUB, rc);
  }
done:
  if (mpi) {
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
  }
  fupermod_dist_free(dist);
  fupermod_hier_result_free(&res);
  for (int i = 0; pts && i < n; i++) fupermod_points_free(&pts[i]);
  free(pts);
  free(f);
  free(node);
  free(order);
  free(devices);
  if (conf.procs) fupermod_conf_free(&conf);
  return status;
}
