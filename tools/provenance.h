/* Provenance of results: where, when and with which software they were measured, so that a table
 * or a plot can be traced back to its platform and build (docs/campaigns.md, "Provenance"). */
#ifndef FUPERMOD_TOOLS_PROVENANCE_H
#define FUPERMOD_TOOLS_PROVENANCE_H

#include <stddef.h>
#include <stdio.h>

typedef struct {
  char date[32];     /* UTC, ISO 8601 */
  char version[64];  /* PACKAGE_VERSION */
  char commit[64];   /* git describe of the build's source tree, "unknown" outside a git checkout */
  char host[256];    /* this host's name */
  char cpu[256];     /* model name of /proc/cpuinfo, "unknown" */
  char gpu[512];     /* NVIDIA models of /proc/driver/nvidia, "none" */
  char mpi[256];     /* MPI_Get_library_version, first line */
  char blas[512];    /* openblas_get_config() */
  char fftw[64];     /* fftw_version */
  char cuda[64];     /* the CUDA runtime's version, "none" without one */
} fupermod_provenance;

/* Everything above, for this process on this host; never fails (what cannot be known says so). */
void fupermod_provenance_collect(fupermod_provenance *p);
/* The first line of the MPI library's version string into buf (valid before MPI_Init). */
const char *fupermod_provenance_mpi(char *buf, size_t size);
/* The BLAS the process computes with: OpenBLAS's configuration string. */
const char *fupermod_provenance_blas(void);
/* "key=value" per line, each line starting with prefix (e.g. "# provenance p1234: "). */
void fupermod_provenance_write(FILE *fp, const fupermod_provenance *p, const char *prefix);

#include "tools/sha256.h"

#endif
