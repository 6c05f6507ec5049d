/* What the MPI tools that measure (fupermod build, fupermod dypart) share: error agreement, and
 * setting up a process from its configuration line (binding, kernel, energy meter). */
#ifndef FUPERMOD_TOOLS_BUILD_COMMON_H
#define FUPERMOD_TOOLS_BUILD_COMMON_H

#include <mpi.h>
#include "tools/tools.h"

/* Agree on an error over comm: every rank returns the first failing rank's status, whose
 * message that rank prints once as "fupermod SUB: rank R: message". */
int tool_agree(const char *sub, int rc, MPI_Comm comm);

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
} tool_proc;

/* Collective over MPI_COMM_WORLD: load CONF, find this process's line, bind, check where the ranks
 * landed (fupermod_launch_map; rank 0 prints the map unless quiet), load the kernel
 * (kname, or the line's kernel=), create the line's meter and find its static power (a probe
 * keeps each node idle). Errors are agreed (tool_agree). */
int tool_proc_setup(const char *sub, const char *confpath, const char *kname, int quiet, tool_proc *p);
void tool_proc_free(tool_proc *p);

#endif
