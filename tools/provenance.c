/* Provenance of results (tools/provenance.h). */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
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

static void cuda_version(char *buf, size_t size) {
  static const char *const names[] = {"libcudart.so", "libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0"};
  snprintf(buf, size, "none");
  for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
    void *h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    int (*get)(int *) = h ? (int (*)(int *))dlsym(h, "cudaRuntimeGetVersion") : NULL;
    int v = 0;
    if (get && get(&v) == 0) snprintf(buf, size, "%d.%d", v / 1000, v % 1000 / 10);
    if (h) dlclose(h);
    if (get) break;
  }
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

/* ---- SHA-256 (FIPS 180-4): fingerprints that a reader can recompute with sha256sum ---- */

static const uint32_t K256[64] = {
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
  0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
  0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
  0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
  0xc67178f2};

#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void sha256_block(uint32_t h[8], const unsigned char *b) {
  uint32_t w[64], s[8];
  for (int i = 0; i < 16; i++)
    w[i] = (uint32_t)b[4 * i] << 24 | (uint32_t)b[4 * i + 1] << 16 | (uint32_t)b[4 * i + 2] << 8 | b[4 * i + 3];
  for (int i = 16; i < 64; i++)
    w[i] = w[i - 16] + (ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^ (w[i - 15] >> 3)) + w[i - 7] +
           (ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^ (w[i - 2] >> 10));
  memcpy(s, h, sizeof s);
  for (int i = 0; i < 64; i++) {
    uint32_t t1 = s[7] + (ROR(s[4], 6) ^ ROR(s[4], 11) ^ ROR(s[4], 25)) + ((s[4] & s[5]) ^ (~s[4] & s[6])) + K256[i] + w[i];
    uint32_t t2 = (ROR(s[0], 2) ^ ROR(s[0], 13) ^ ROR(s[0], 22)) + ((s[0] & s[1]) ^ (s[0] & s[2]) ^ (s[1] & s[2]));
    memmove(s + 1, s, 7 * sizeof *s);
    s[4] += t1;
    s[0] = t1 + t2;
  }
  for (int i = 0; i < 8; i++) h[i] += s[i];
}

void fupermod_sha256_hex(const void *data, size_t n, char out[65]) {
  uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  const unsigned char *p = data;
  unsigned char last[128];
  size_t full = n / 64 * 64, rest = n - full, len;
  uint64_t bits = (uint64_t)n * 8;
  for (size_t i = 0; i < full; i += 64) sha256_block(h, p + i);
  memset(last, 0, sizeof last);
  if (rest) memcpy(last, p + full, rest);
  last[rest] = 0x80;
  len = rest + 1 + 8 <= 64 ? 64 : 128;
  for (int i = 0; i < 8; i++) last[len - 1 - i] = (unsigned char)(bits >> (8 * i));
  for (size_t i = 0; i < len; i += 64) sha256_block(h, last + i);
  for (int i = 0; i < 8; i++) snprintf(out + 8 * i, 9, "%08x", h[i]);
}

int fupermod_sha256_file(const char *path, char out[65]) {
  char *text;
  size_t len;
  int rc = fupermod_read_file(path, &text, &len);
  if (rc != FUPERMOD_SUCCESS) return rc;
  fupermod_sha256_hex(text, len, out);
  free(text);
  return FUPERMOD_SUCCESS;
}
