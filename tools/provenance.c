/* Provenance of results (tools/provenance.h). */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <fftw3.h>
#include <mpi.h>
#include "config.h"
#include "fupermod/fupermod.h"
#include "tools/provenance.h"
#include "tools/trim.h"
#include "tools/git_commit.h"

extern char *openblas_get_config(void);

const char *fupermod_provenance_mpi(char *buf, size_t size) {
  char ver[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  /* MPI 3 allows this call before MPI_Init: a campaign's runner never starts MPI itself */
  if (MPI_Get_library_version(ver, &len) != MPI_SUCCESS) snprintf(ver, sizeof ver, "unknown");
  ver[strcspn(ver, ",\n")] = '\0';
  snprintf(buf, size, "%s", ver);
  return buf;
}

const char *fupermod_provenance_blas(void) { return openblas_get_config(); }

/* Values land in one-line key=value records: no newline, no trailing blanks. */
static void one_line(char *s) {
  size_t n;
  for (char *q = s; *q; q++)
    if (*q == '\n' || *q == '\r' || *q == '\t') *q = ' ';
  n = strlen(s);
  while (n && s[n - 1] == ' ') s[--n] = '\0';
}

static void cpu_model(char *buf, size_t size) {
  FILE *fp = fopen("/proc/cpuinfo", "r");
  char line[512];
  snprintf(buf, size, "unknown");
  while (fp && fgets(line, sizeof line, fp)) {
    char *colon = strchr(line, ':');
    /* x86 says "model name", ARM and POWER "Model" or "cpu" */
    if (colon && (strncmp(line, "model name", 10) == 0 || strncmp(line, "Model\t", 6) == 0 ||
                  strncmp(line, "cpu\t", 4) == 0)) {
      snprintf(buf, size, "%s", tool_trim(colon + 1));
      break;
    }
  }
  if (fp) fclose(fp);
}

/* The NVIDIA driver's list of GPUs, without running nvidia-smi. */
static void gpu_models(char *buf, size_t size) {
  DIR *d = opendir("/proc/driver/nvidia/gpus");
  struct dirent *e;
  size_t n = 0;
  buf[0] = '\0';
  while (d && (e = readdir(d))) {
    char path[600], line[512];
    FILE *fp;
    if (e->d_name[0] == '.') continue;
    snprintf(path, sizeof path, "/proc/driver/nvidia/gpus/%s/information", e->d_name);
    if (!(fp = fopen(path, "r"))) continue;
    while (fgets(line, sizeof line, fp))
      if (strncmp(line, "Model:", 6) == 0 && n + 4 < size)
        n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? " + " : "", tool_trim(line + 6));
    fclose(fp);
  }
  if (d) closedir(d);
  if (!buf[0]) snprintf(buf, size, "none");
}

/* through fupermod's CUDA probe: the runtime the executor would compute with */
static void cuda_version(char *buf, size_t size) {
  int v = fupermod_cuda_runtime_version();
  if (v > 0) snprintf(buf, size, "%d.%d", v / 1000, v % 1000 / 10);
  else snprintf(buf, size, "none");
}

void fupermod_provenance_collect(fupermod_provenance *p) {
  time_t t = time(NULL);
  memset(p, 0, sizeof *p);
  strftime(p->date, sizeof p->date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
  snprintf(p->version, sizeof p->version, "%s", PACKAGE_VERSION);
  snprintf(p->commit, sizeof p->commit, "%s", FUPERMOD_GIT_COMMIT[0] ? FUPERMOD_GIT_COMMIT : "unknown");
  if (gethostname(p->host, sizeof p->host - 1) != 0) snprintf(p->host, sizeof p->host, "unknown");
  cpu_model(p->cpu, sizeof p->cpu);
  gpu_models(p->gpu, sizeof p->gpu);
  fupermod_provenance_mpi(p->mpi, sizeof p->mpi);
  snprintf(p->blas, sizeof p->blas, "%s", fupermod_provenance_blas());
  snprintf(p->fftw, sizeof p->fftw, "%s", fftw_version);
  cuda_version(p->cuda, sizeof p->cuda);
  {
    char *fields[] = {p->host, p->cpu, p->gpu, p->mpi, p->blas, p->fftw, p->cuda};
    for (size_t i = 0; i < sizeof fields / sizeof *fields; i++) one_line(fields[i]);
  }
}

void fupermod_provenance_write(FILE *fp, const fupermod_provenance *p, const char *prefix) {
  fprintf(fp, "%sdate=%s\n%sfupermod=%s\n%scommit=%s\n%shost=%s\n%scpu=%s\n%sgpu=%s\n%smpi=%s\n%sblas=%s\n"
              "%sfftw=%s\n%scuda=%s\n",
          prefix, p->date, prefix, p->version, prefix, p->commit, prefix, p->host, prefix, p->cpu, prefix, p->gpu,
          prefix, p->mpi, prefix, p->blas, prefix, p->fftw, prefix, p->cuda);
}
