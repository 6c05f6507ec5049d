/* Process configuration: one line per MPI process (docs/formats.md):
 *   hostname rank_intra bind device_type [subopts]
 * subopts are comma-separated key=value pairs for software components (kernel, meter, group...). */
#ifndef FUPERMOD_CONF_H
#define FUPERMOD_CONF_H

#include <stddef.h>
#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* the public API; the libraries build with -fvisibility=hidden */

typedef struct fupermod_process_conf {
  char *hostname;    /* host running the process; "localhost" matches any host */
  int rank_intra;    /* rank in the intra-node communicator */
  char *bind;        /* none | core:LIST | pu:LIST | socket:LIST | numa:LIST (LIST: 0,2-3) */
  char *device_type; /* cpu | gpu */
  char *subopts;     /* key=value,... ("" if none) */
  int line;          /* line in the file, for messages */
} fupermod_process_conf;

typedef struct fupermod_conf {
  int count;
  fupermod_process_conf *procs;
  char *source; /* file name, for messages */
} fupermod_conf;

int fupermod_conf_parse(const char *text, size_t len, const char *name, fupermod_conf *out);
int fupermod_conf_load(const char *path, fupermod_conf *out);
/* Write atomically; comment (may be NULL) goes first as '#' lines. */
int fupermod_conf_save(const char *path, const fupermod_conf *conf, const char *comment);
void fupermod_conf_free(fupermod_conf *conf);
/* Index of the entry for (hostname, rank_intra): exact host first, then "localhost"; -1 if none. */
int fupermod_conf_find(const fupermod_conf *conf, const char *hostname, int rank_intra);
/* Collective over comm: every process finds its entry; index in *index; the entry of world rank r
 * must exist for every rank, otherwise every rank returns the same error. Also gives comm_intra. */
int fupermod_conf_locate(const fupermod_conf *conf, MPI_Comm comm, int *index, MPI_Comm *comm_intra);
/* Value of key in a subopts string into buf; returns 1 found, 0 absent, <0 error. */
int fupermod_subopt_get(const char *subopts, const char *key, char *buf, size_t size);
/* Apply a binding string with hwloc to the calling process (and its threads). */
int fupermod_bind_apply(const char *bind);
/* Whether this process applied a binding (other than none) with fupermod_bind_apply and still
 * has it: a process bound to every CPU of its node is bound, not free to move
 * (fupermod_share_comm). */
int fupermod_bind_applied(void);
/* How many cores a binding gives its process (a pu: list: its PUs), on this host; 0 for none. */
int fupermod_bind_width(const char *bind, int *cores);
/* Suggest a binding for rank_intra of n processes on this host from the hwloc topology. */
int fupermod_bind_suggest(int rank_intra, int n, char *buf, size_t size);
/* The same on a node with ngpu GPUs driven by its first ngpu processes: each of those gets one core
 * of its own (core:K), the other processes share the remaining cores in contiguous blocks. */
int fupermod_bind_suggest_gpu(int rank_intra, int n, int ngpu, char *buf, size_t size);
/* Collective over comm: every rank returns the status of the lowest failing rank (and records
 * its message, prefixed with "rank R: " on the other ranks), or FUPERMOD_SUCCESS when none
 * failed. Lets MPI code fail together instead of leaving ranks in a later collective. */
int fupermod_agree(int rc, MPI_Comm comm);
/* Where one rank of a job runs: its host, intra-node rank, configuration line (0: none), the
 * binding that line asks for, and the CPUs it may run on (a list such as "0-3,8"). */
typedef struct fupermod_launch_entry {
  char host[MPI_MAX_PROCESSOR_NAME];
  int rank_intra;
  int line;
  char bind[64];
  char cpus[256];
} fupermod_launch_entry;

/* Collective over comm, after every rank applied its binding: the map of all ranks, on every
 * rank (*out, size entries of comm, free()). index is this rank's entry of conf (-1: none).
 * FUPERMOD_ERR_INPUT on every rank when two ranks of a host share CPUs although their lines give
 * different bindings (the host gave the job fewer CPUs than the configuration assumes). */
int fupermod_launch_map(const fupermod_conf *conf, int index, MPI_Comm comm, fupermod_launch_entry **out);
/* Number of distinct hosts in a map of size entries. */
int fupermod_launch_hosts(const fupermod_launch_entry *map, int size);
/* The same, and host[i] (may be NULL): entry i's host, numbered from 0 in the order of first
 * appearance. */
int fupermod_launch_host_index(const fupermod_launch_entry *map, int size, int *host);

/* What the CUDA runtime says, asked through fupermod's CUDA probe module (the runtime the executor
 * links; fupermod/exec.c loads both). Number of CUDA devices usable at run time (0 when fupermod
 * was built without CUDA, or CUDA is absent or has no device). */
int fupermod_cuda_device_count(void);
/* The PCI bus id of CUDA device `device` as this process numbers it ("0000:3B:00.0"), from the
 * CUDA runtime; FUPERMOD_ERR_NODEVICE without one. */
int fupermod_cuda_pci_bus_id(int device, char *buf, size_t size);
/* The CUDA runtime's version (1000 major + 10 minor, as cudaRuntimeGetVersion), 0 without one. */
int fupermod_cuda_runtime_version(void);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
