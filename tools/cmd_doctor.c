/* fupermod doctor: check what a run depends on and say what to fix. */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/statvfs.h>
#include <cblas.h>
#include <hwloc.h>
#include <mpi.h>
#include "config.h"
#include "tools/tools.h"
#include "fupermod/mpi_thread.h"
#include "tools/mpi_init.h"
#include "tools/provenance.h"

extern int openblas_get_num_threads(void);

static int fails = 0, warns = 0;

static void report(int level, const char *what, const char *fix) {
  static const char *tag[] = {"[ ok ]", "[warn]", "[FAIL]"};
  printf("%s %s\n", tag[level], what);
  if (fix && level) printf("       fix: %s\n", fix);
  if (level == 1) warns++;
  if (level == 2) fails++;
}

static int in_path(const char *prog) {
  const char *path = getenv("PATH");
  char buf[4096];
  while (path && *path) {
    const char *e = strchr(path, ':');
    size_t n = e ? (size_t)(e - path) : strlen(path);
    snprintf(buf, sizeof buf, "%.*s/%s", (int)n, path, prog);
    if (access(buf, X_OK) == 0) return 1;
    path = e ? e + 1 : NULL;
  }
  return 0;
}

static void check_mpi(int *argc, char ***argv) {
  char msg[512], ver[MPI_MAX_LIBRARY_VERSION_STRING];
  int provided = MPI_THREAD_SINGLE, rc;
  rc = fupermod_mpi_init_thread(argc, argv, TOOL_MPI_LEVEL, "fupermod", &provided);
  fupermod_provenance_mpi(ver, sizeof ver);
  snprintf(msg, sizeof msg, "MPI initialises (%s, thread level %s)", ver, fupermod_mpi_thread_name(provided));
  report(0, msg, NULL);
  snprintf(msg, sizeof msg, "MPI gives the thread level fupermod needs (%s)", fupermod_mpi_thread_name(TOOL_MPI_LEVEL));
  report(rc == FUPERMOD_SUCCESS ? 0 : 2, msg,
         "an MPI built with thread support (Open MPI from Debian has it)");
  report(in_path("mpirun") || in_path("mpiexec") ? 0 : 2, "mpirun on PATH", "apt-get install openmpi-bin");
  if (getuid() == 0 && !(getenv("OMPI_ALLOW_RUN_AS_ROOT") && getenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM")))
    report(1, "running as root without OMPI_ALLOW_RUN_AS_ROOT: mpirun will refuse to start",
           "export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 (or mpirun --allow-run-as-root)");
}

static void check_binding(void) {
  hwloc_topology_t topo;
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  char msg[512];
  int cores, pus, bound_pus;
  hwloc_topology_init(&topo);
  hwloc_topology_load(topo);
  cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
  pus = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
  snprintf(msg, sizeof msg, "topology: %d package(s), %d NUMA node(s), %d cores, %d hardware threads",
           hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE), hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE), cores,
           pus);
  report(0, msg, NULL);
  if (hwloc_get_cpubind(topo, set, HWLOC_CPUBIND_PROCESS) == 0) {
    bound_pus = hwloc_bitmap_weight(set);
    snprintf(msg, sizeof msg, "this process may run on %d of %d hardware threads", bound_pus, pus);
    report(bound_pus < pus && bound_pus == 1 ? 1 : 0, msg,
           "a process bound to one core sees one OpenMP/BLAS thread; Open MPI binds ranks to cores when np <= 2: "
           "use --bind-to none or the bind field of the process configuration");
  }
  hwloc_bitmap_free(set);
  hwloc_topology_destroy(topo);
}

static void check_blas(void) {
  Dl_info info;
  char msg[700];
  int n = 512;
  double *a = malloc(sizeof(double) * n * n * 3), t0, t;
  int from_openblas = dladdr((void *)cblas_dgemm, &info) && info.dli_fname && strstr(info.dli_fname, "openblas");
  snprintf(msg, sizeof msg, "cblas_dgemm binds to %s", from_openblas ? info.dli_fname : "a library other than OpenBLAS");
  report(from_openblas ? 0 : 2, msg, "link -lopenblas before -lgsl (not -lgslcblas); see docs");
  for (int i = 0; i < 3 * n * n; i++) a[i] = 1.0 / (1 + i % 7);
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, a, n, a + n * n, n, 0.0, a + 2 * n * n, n);
  t0 = fupermod_time();
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, a, n, a + n * n, n, 0.0, a + 2 * n * n, n);
  t = fupermod_time() - t0;
  snprintf(msg, sizeof msg, "DGEMM %dx%d: %.1f GFLOP/s with %d OpenBLAS thread(s) (%s)", n, n, 2.0 * n * n * n / t / 1e9,
           openblas_get_num_threads(), fupermod_provenance_blas());
  report(2.0 * n * n * n / t / 1e9 < 1.0 ? 1 : 0, msg, "below 1 GFLOP/s: a reference BLAS or an overloaded host");
  free(a);
}

static void check_files(void) {
  char msg[600];
  const char *wisdom = getenv("FUPERMOD_FFTW_WISDOM");
  if (access("/etc/fftw/wisdom", R_OK) == 0 || (wisdom && access(wisdom, R_OK) == 0))
    report(0, "FFTW wisdom available", NULL);
  else
    report(1, "no FFTW wisdom (/etc/fftw/wisdom or $FUPERMOD_FFTW_WISDOM): FFT kernels plan with FFTW_ESTIMATE",
           "fftw-wisdom -o /etc/fftw/wisdom for better FFT plans (optional)");
  {
    int n = fupermod_cuda_device_count();
    snprintf(msg, sizeof msg, "CUDA devices usable at run time: %d", n);
    report(0, msg, NULL);
  }
  {
    DIR *d = opendir("/sys/class/powercap");
    int rapl = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
      if (strncmp(e->d_name, "intel-rapl", 10) == 0) rapl = 1;
    if (d) closedir(d);
    void *nvml = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (nvml) dlclose(nvml);
    if (rapl || nvml)
      report(0, rapl ? "energy: RAPL powercap counters present" : "energy: NVML present", NULL);
    else
      report(1, "energy: no RAPL powercap counters and no NVML: only the model (estimate) and command meters work",
             "on bare metal, load intel_rapl / run with access to /sys/class/powercap; or use meter=command with a "
             "power meter");
  }
  {
    FILE *fp = fopen("/proc/meminfo", "r");
    char line[256];
    long avail = -1;
    while (fp && fgets(line, sizeof line, fp))
      if (sscanf(line, "MemAvailable: %ld kB", &avail) == 1) break;
    if (fp) fclose(fp);
    snprintf(msg, sizeof msg, "memory available: %.1f GiB", avail / 1048576.0);
    report(avail >= 0 && avail < 1048576 ? 1 : 0, msg, "less than 1 GiB free: large problem sizes will page");
  }
  {
    struct statvfs st;
    if (statvfs("/dev/shm", &st) == 0) {
      double gib = (double)st.f_bavail * st.f_frsize / 1073741824.0;
      snprintf(msg, sizeof msg, "/dev/shm: %.1f GiB free (Open MPI shared memory)", gib);
      report(gib < 0.25 ? 1 : 0, msg, "a small /dev/shm slows or breaks Open MPI's shared-memory transport");
    }
  }
  report(FUPERMOD_GNUPLOT[0] && access(FUPERMOD_GNUPLOT, X_OK) == 0 ? 0 : 1, "gnuplot for plots",
         "apt-get install gnuplot-nox (plots are skipped without it)");
  {
    const char *kp = getenv("FUPERMOD_KERNEL_PATH");
    fupermod_kernel *k = NULL;
    int rc = fupermod_kernel_load("emulated", "points=/nonexistent", &k);
    int found = rc != FUPERMOD_ERR_INPUT || !strstr(fupermod_error_message(), "not found");
    snprintf(msg, sizeof msg, "kernels found (FUPERMOD_KERNEL_PATH=%s)", kp ? kp : "unset");
    report(found ? 0 : 1, msg, "set FUPERMOD_KERNEL_PATH to the kernels directory (build: _build/kernels/.libs)");
    fupermod_kernel_unload(k);
  }
}

int cmd_doctor(int argc, char **argv) {
  if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
    printf("usage: fupermod doctor\n\nChecks MPI, binding, BLAS, FFTW, GPUs, energy meters, memory, gnuplot and\n"
           "the kernel path; prints what to fix. Exit status 1 when something a run needs is broken.\n");
    return 0;
  }
  if (argc > 1) return tool_usage("doctor", "unexpected argument '%s'", argv[1]);
  {
    fupermod_provenance p;
    fupermod_provenance_collect(&p);
    printf("fupermod %s (commit %s) doctor\n", p.version, p.commit);
  }
  check_mpi(&argc, &argv);
  check_binding();
  check_blas();
  check_files();
  MPI_Finalize();
  printf("%d problem(s), %d warning(s)\n", fails, warns);
  return fails ? 1 : 0;
}
