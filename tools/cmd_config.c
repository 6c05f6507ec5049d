/* fupermod config: write a process configuration template for the running MPI job. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "tools/tools.h"
#include "tools/mpi_init.h"

static const char *SUB = "config";

typedef struct {
  char host[MPI_MAX_PROCESSOR_NAME];
  char bind[64];
  int rank_intra, gpu;
} proc_info;

static void help(void) {
  printf("usage: mpirun -np N fupermod config [-o FILE] [-s SUBOPTS]\n\n"
         "Writes one line per process of the job: host, intra-node rank (MPI_Comm_split_type), a binding\n"
         "from the hwloc topology (a block of cores per process), and the device: the first G processes\n"
         "of a node with G CUDA devices get 'gpu' with device=K and one core each to drive it, the others\n"
         "'cpu' and a block of the remaining cores each (their threads: those cores).\n"
         "  -o FILE      output file (default fupermod.conf; '-' for standard output)\n"
         "  -s SUBOPTS   sub-options added to every line, e.g. kernel=emulated,points=f.points\n");
}

int cmd_config(int argc, char **argv) {
  static const struct option opts[] = {{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
  const char *out = "fupermod.conf", *subopts = "";
  int c, rank, size, nintra, len, status = 0, rc = FUPERMOD_SUCCESS, ngpu = 0;
  proc_info me, *all = NULL;
  MPI_Comm intra;
  optind = 0; /* a full reset of glibc's getopt: the parse may run more than once per process */
  while ((c = getopt_long(argc, argv, "o:s:h", opts, NULL)) != -1) {
    switch (c) {
    case 'o': out = optarg; break;
    case 's': subopts = optarg; break;
    case 'h': help(); return 0;
    default: return tool_bad_option(SUB, argv, "o:s:h", opts);
    }
  }
  if (optind < argc) return tool_usage(SUB, "unexpected argument '%s'", argv[optind]);
  if (strchr(subopts, ' ') || strchr(subopts, '\t') || (subopts[0] && !strchr(subopts, '=')))
    return tool_usage(SUB, "-s '%s' must be key=value[,key=value...] without spaces", subopts);
  if ((rc = tool_mpi_init(SUB, &argc, &argv, TOOL_MPI_LEVEL)) != 0) return rc;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  memset(&me, 0, sizeof me);
  MPI_Get_processor_name(me.host, &len);
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &intra);
  MPI_Comm_rank(intra, &me.rank_intra);
  MPI_Comm_size(intra, &nintra);
  if (me.rank_intra == 0) ngpu = fupermod_cuda_device_count();
  MPI_Bcast(&ngpu, 1, MPI_INT, 0, intra);
  me.gpu = me.rank_intra < ngpu ? me.rank_intra : -1;
  if (fupermod_bind_suggest_gpu(me.rank_intra, nintra, ngpu, me.bind, sizeof me.bind) != FUPERMOD_SUCCESS)
    strcpy(me.bind, "none");
  if (rank == 0) all = malloc((size_t)size * sizeof *all);
  MPI_Gather(&me, (int)sizeof me, MPI_BYTE, all, (int)sizeof me, MPI_BYTE, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    fupermod_conf conf = {size, calloc((size_t)size, sizeof(fupermod_process_conf)), NULL};
    char comment[256];
    for (int r = 0; r < size; r++) {
      char sub[1024];
      if (all[r].gpu >= 0) snprintf(sub, sizeof sub, "device=%d%s%s", all[r].gpu, subopts[0] ? "," : "", subopts);
      else snprintf(sub, sizeof sub, "%s", subopts);
      conf.procs[r].hostname = all[r].host;
      conf.procs[r].rank_intra = all[r].rank_intra;
      conf.procs[r].bind = all[r].bind;
      conf.procs[r].device_type = all[r].gpu >= 0 ? "gpu" : "cpu";
      conf.procs[r].subopts = strdup(sub);
    }
    snprintf(comment, sizeof comment, "template for %d processes written by fupermod config; edit freely", size);
    if (strcmp(out, "-") == 0) {
      printf("# fupermod process configuration v1\n# %s\n# hostname rank_intra bind device_type [subopts]\n", comment);
      for (int r = 0; r < size; r++)
        printf("%s %d %s %s%s%s\n", conf.procs[r].hostname, conf.procs[r].rank_intra, conf.procs[r].bind,
               conf.procs[r].device_type, conf.procs[r].subopts[0] ? " " : "", conf.procs[r].subopts);
    } else {
      rc = fupermod_conf_save(out, &conf, comment);
    }
    for (int r = 0; r < size; r++) free(conf.procs[r].subopts);
    free(conf.procs);
    free(all);
    if (rc != FUPERMOD_SUCCESS) status = tool_fail(SUB, rc);
    else if (strcmp(out, "-") != 0) fprintf(stderr, "fupermod config: wrote %s (%d processes)\n", out, size);
  }
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Comm_free(&intra);
  MPI_Finalize();
  return status;
}
