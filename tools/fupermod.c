/* The `fupermod` command: one entry point, one subcommand per file. */
#include <stdio.h>
#include <string.h>
#include "config.h"
#include "tools/tools.h"

int cmd_dypart(int argc, char **argv); /* tools/cmd_dypart.c */
int cmd_hpartition(int argc, char **argv); /* tools/cmd_hpart.c */
int cmd_energy(int argc, char **argv); /* tools/cmd_energy.c */
int cmd_kernel(int argc, char **argv); /* tools/cmd_kernel.c */
int cmd_comm(int argc, char **argv); /* tools/cmd_comm.c */

static const struct {
  const char *name;
  int (*run)(int, char **);
  const char *help;
} commands[] = {
  {"run", cmd_run, "the main job: models, partitions, SUMMA and 2D-FFT runs, report (MPI)"},
  {"campaign", cmd_campaign, "run a campaign of experiments (resumable), summarise it, write OAR/Slurm scripts"},
  {"config", cmd_config, "write a process configuration template for the running MPI job"},
  {"build", cmd_build, "benchmark a kernel on every process and write point files (MPI)"},
  {"model", cmd_model, "fit a model to point files, print it and plot it"},
  {"partition", cmd_partition, "partition D units with a named algorithm"},
  {"sweep", cmd_sweep, "partition a range of workloads with the optimum and alternatives; the gains"},
  {"hpartition", cmd_hpartition, "two-level (node, device) exact partitioning: HiPOPTA over configuration groups"},
  {"comm", cmd_comm, "measure the message time between every pair of processes, with a plot (MPI)"},
  {"dypart", cmd_dypart, "dynamic partitioning: measure, model and re-partition until balanced (MPI)"},
  {"energy", cmd_energy, "energy import: fill meter=external points' energies from a power series (Kwollect)"},
  {"kernel", cmd_kernel, "show a kernel plug-in and the sub-options its configuration lines may carry"},
  {"doctor", cmd_doctor, "check the environment a run depends on and say what to fix"},
};

static void usage(FILE *fp) {
  fprintf(fp, "usage: fupermod COMMAND [OPTIONS]   (fupermod COMMAND --help for its options)\n\ncommands:\n");
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    fprintf(fp, "  %-10s %s\n", commands[i].name, commands[i].help);
  fprintf(fp, "\nexit status: 0 success, 1 bad input or run-time error, 2 usage, 3 no feasible distribution\n");
}

int main(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
    usage(stdout);
    return 0;
  }
  if (strcmp(argv[1], "--version") == 0) {
    printf("fupermod %s\n", PACKAGE_VERSION);
    return 0;
  }
  opterr = 0; /* the subcommands name a bad option themselves (tool_bad_option) */
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    if (strcmp(argv[1], commands[i].name) == 0) return commands[i].run(argc - 1, argv + 1);
  {
    const char *names[sizeof commands / sizeof commands[0]], *near;
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) names[i] = commands[i].name;
    near = fupermod_closest_name(argv[1], names, sizeof commands / sizeof commands[0]);
    if (near) fprintf(stderr, "fupermod: unknown command '%s' (did you mean '%s'?); 'fupermod --help' lists them\n", argv[1], near);
    else fprintf(stderr, "fupermod: unknown command '%s'; 'fupermod --help' lists them\n", argv[1]);
  }
  return 2;
}
