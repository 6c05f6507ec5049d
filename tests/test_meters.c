/* Energy meters on recorded counters: powercap trees written here and replayed through the sysfs
 * root override (sub-zones, wrap-around, missing and malformed files), a fake external meter
 * script, a fake NVML library, the emulated and model meters, static power, and the energy the
 * benchmark derives from each. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <mpi.h>
#include "fupermod/fupermod.h"
#include "fupermod/meter.h"
#include "tests/tap.h"

static char dir[256];

static void put(const char *rel, const char *text) {
  char path[512];
  FILE *fp;
  snprintf(path, sizeof path, "%s/%s", dir, rel);
  fp = fopen(path, "w");
  if (!fp) {
    perror(path);
    exit(99);
  }
  fputs(text, fp);
  fclose(fp);
}

static void putf(const char *rel, double v) {
  char buf[64];
  snprintf(buf, sizeof buf, "%.0f\n", v);
  put(rel, buf);
}

static void mk(const char *rel) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, rel);
  if (mkdir(path, 0755) != 0 && errno != EEXIST) {
    perror(path);
    exit(99);
  }
}

static void nap(double s) {
  struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
  nanosleep(&ts, NULL);
}

static int has(const char *msg, const char *what) { return strstr(msg, what) != NULL; }

#define PKG_MAX 262143328850.0
#define DRAM_MAX 65712999613.0

/* A recorded tree as /sys/class/powercap shows it: flat zone entries, sub-zones included. */
static void rapl_tree(const char *root) {
  char z[512];
  mk(root);
  const char *zones[][4] = {{"intel-rapl:0", "package-0", "1000000", "262143328850"},
                            {"intel-rapl:0:0", "core", "500000", "262143328850"},
                            {"intel-rapl:0:1", "dram", "2000000", "65712999613"},
                            {"intel-rapl:1", "package-1", "262143000000", "262143328850"},
                            {"intel-rapl-mmio:0", "package-0", "7000000", "262143328850"}};
  for (size_t i = 0; i < sizeof zones / sizeof zones[0]; i++) {
    snprintf(z, sizeof z, "%s/%s", root, zones[i][0]);
    mk(z);
    snprintf(z, sizeof z, "%s/%s/name", root, zones[i][0]);
    put(z, zones[i][1]);
    snprintf(z, sizeof z, "%s/%s/energy_uj", root, zones[i][0]);
    put(z, zones[i][2]);
    snprintf(z, sizeof z, "%s/%s/max_energy_range_uj", root, zones[i][0]);
    put(z, zones[i][3]);
  }
  snprintf(z, sizeof z, "%s/README", root);
  put(z, "not a zone\n");
}

static fupermod_meter *make(const char *name, const char *fmt, const char *arg, int *rc) {
  char sub[1024];
  fupermod_meter *m = NULL;
  snprintf(sub, sizeof sub, fmt, arg);
  *rc = fupermod_meter_create(name, sub, &m);
  return m;
}

static void test_rapl(void) {
  char root[512], sub[1024];
  fupermod_meter *m;
  int rc;
  double j = -1, s = -1, j0, j1, j2, j3;
  snprintf(root, sizeof root, "%s/powercap", dir);
  rapl_tree("powercap");
  m = make("rapl", "rapl_root=%s", root, &rc);
  ok(rc == 0 && m, "rapl meter on a recorded powercap tree");
  if (!m) {
    diag("%s", fupermod_error_message());
    return;
  }
  ok(has(fupermod_meter_domain(m), "intel-rapl:0,intel-rapl:0:1,intel-rapl:1") &&
         !has(fupermod_meter_domain(m), "intel-rapl:0:0") && !has(fupermod_meter_domain(m), "mmio"),
     "default zones: packages and DRAM, not the core sub-zone nor the mmio duplicate (%s)", fupermod_meter_domain(m));
  ok(!fupermod_meter_is_estimate(m) && strcmp(fupermod_meter_name(m), "rapl") == 0, "rapl measures (not an estimate)");
  fupermod_meter_start(m);
  putf("powercap/intel-rapl:0/energy_uj", 1000000 + 5000000);         /* +5 J */
  putf("powercap/intel-rapl:0:0/energy_uj", 500000 + 3000000);        /* inside the package */
  putf("powercap/intel-rapl:0:1/energy_uj", 2000000 + 1500000);       /* +1.5 J */
  putf("powercap/intel-rapl:1/energy_uj", 1000000);                   /* wrapped */
  putf("powercap/intel-rapl-mmio:0/energy_uj", 7000000 + 100000000.0); /* a duplicate */
  rc = fupermod_meter_stop(m, &j, &s);
  /* package 1: 262143000000 -> max 262143328850 -> wraps to 0 -> 1000000 = 1.32885 J */
  ok(rc == 0 && fabs(j - (5 + 1.5 + 1.32885)) < 1e-9 && s >= 0,
     "energy over the interval sums packages and DRAM, package 1 across its wrap-around (%.9f J)", j);
  /* cumulative readings keep accumulating across a second wrap */
  fupermod_meter_read(m, &j0, NULL);
  putf("powercap/intel-rapl:1/energy_uj", PKG_MAX - 2000000);
  fupermod_meter_read(m, &j1, NULL);
  putf("powercap/intel-rapl:1/energy_uj", 3000000);
  fupermod_meter_read(m, &j2, NULL);
  fupermod_meter_read(m, &j3, NULL);
  ok(fabs((j1 - j0) - (PKG_MAX - 3000000) * 1e-6) < 1e-6 && fabs((j2 - j1) - 5.0) < 1e-9 && j3 == j2,
     "repeated reads: a long climb, a second wrap (5 J), no change (%.6f, %.6f)", j1 - j0, j2 - j1);
  fupermod_meter_free(m);

  snprintf(sub, sizeof sub, "rapl_root=%s,rapl_domains=package", root);
  rc = fupermod_meter_create("rapl", sub, &m);
  if (ok(rc == 0, "rapl_domains=package")) {
    fupermod_meter_start(m);
    putf("powercap/intel-rapl:0/energy_uj", 6000000 + 2000000);
    putf("powercap/intel-rapl:0:1/energy_uj", 9000000);
    fupermod_meter_stop(m, &j, NULL);
    ok(fabs(j - 2.0) < 1e-9, "only the packages count (%.9f J)", j);
    fupermod_meter_free(m);
  }
  snprintf(sub, sizeof sub, "rapl_root=%s,rapl_package=0", root);
  rc = fupermod_meter_create("rapl", sub, &m);
  if (ok(rc == 0 && has(fupermod_meter_domain(m), ":intel-rapl:0,intel-rapl:0:1") &&
             !has(fupermod_meter_domain(m), "intel-rapl:1"),
         "rapl_package=0 keeps package 0 and its DRAM (%s)", m ? fupermod_meter_domain(m) : fupermod_error_message()))
    fupermod_meter_free(m);

  /* the environment variable replaces /sys/class/powercap */
  setenv("FUPERMOD_POWERCAP_ROOT", root, 1);
  rc = fupermod_meter_create("rapl", "", &m);
  ok(rc == 0 && has(fupermod_meter_domain(m), root), "FUPERMOD_POWERCAP_ROOT overrides the sysfs root");
  fupermod_meter_free(m);
  unsetenv("FUPERMOD_POWERCAP_ROOT");

  /* errors */
  m = make("rapl", "rapl_root=%s/nowhere", dir, &rc);
  ok(rc == FUPERMOD_ERR_NODEVICE && !m && has(fupermod_error_message(), "nowhere"),
     "no powercap tree: no device, the root is named (%s)", fupermod_error_message());
  mk("empty");
  m = make("rapl", "rapl_root=%s/empty", dir, &rc);
  ok(rc == FUPERMOD_ERR_NODEVICE && has(fupermod_error_message(), "no RAPL zone"), "a tree without zones: %s",
     fupermod_error_message());
  snprintf(sub, sizeof sub, "rapl_root=%s,rapl_package=4", root);
  ok(fupermod_meter_create("rapl", sub, &m) == FUPERMOD_ERR_NODEVICE && has(fupermod_error_message(), "package 4"),
     "a package that is not there: %s", fupermod_error_message());
  snprintf(sub, sizeof sub, "rapl_root=%s,rapl_domains=package+gpu", root);
  ok(fupermod_meter_create("rapl", sub, &m) == FUPERMOD_ERR_USAGE && has(fupermod_error_message(), "'gpu'"),
     "an unknown domain: %s", fupermod_error_message());
  snprintf(sub, sizeof sub, "rapl_root=%s,rapl_zone=0", root);
  ok(fupermod_meter_create("rapl", sub, &m) == FUPERMOD_ERR_USAGE && has(fupermod_error_message(), "rapl_zone"),
     "a misspelt sub-option is named: %s", fupermod_error_message());

  mk("bad");
  mk("bad/intel-rapl:0");
  put("bad/intel-rapl:0/name", "package-0\n");
  put("bad/intel-rapl:0/energy_uj", "123\n");
  m = make("rapl", "rapl_root=%s/bad", dir, &rc);
  ok(rc < 0 && has(fupermod_error_message(), "intel-rapl:0/max_energy_range_uj"),
     "a zone without max_energy_range_uj: %s", fupermod_error_message());
  put("bad/intel-rapl:0/max_energy_range_uj", "1000000\n");
  put("bad/intel-rapl:0/energy_uj", "12a\n");
  m = make("rapl", "rapl_root=%s/bad", dir, &rc);
  ok(rc == FUPERMOD_ERR_INPUT && has(fupermod_error_message(), "energy_uj: '12a'"), "a malformed counter: %s",
     fupermod_error_message());
  put("bad/intel-rapl:0/energy_uj", "999000\n");
  m = make("rapl", "rapl_root=%s/bad", dir, &rc);
  if (ok(rc == 0, "a valid small tree")) {
    char path[512];
    put("bad/intel-rapl:0/energy_uj", "2000000\n");
    ok(fupermod_meter_read(m, &j, NULL) == FUPERMOD_ERR_INPUT && has(fupermod_error_message(), "above max_energy_range_uj"),
       "a counter above its range: %s", fupermod_error_message());
    snprintf(path, sizeof path, "%s/bad/intel-rapl:0/energy_uj", dir);
    unlink(path);
    ok(fupermod_meter_start(m) < 0 && has(fupermod_error_message(), "intel-rapl:0/energy_uj") &&
           has(fupermod_error_message(), "rapl meter"),
       "a counter that disappears: %s", fupermod_error_message());
    fupermod_meter_free(m);
  }
}

static void test_command(void) {
  char script[512], counter[512], cmd[1200];
  fupermod_meter *m = NULL;
  int rc;
  double j = 0, s = 0, t0;
  snprintf(script, sizeof script, "%s/wattsup.sh", dir);
  snprintf(counter, sizeof counter, "%s/joules", dir);
  /* a WattsUp-like reader: chatter first, the cumulative joules on the last line */
  put("wattsup.sh", "#!/bin/sh\necho 'meter: reading'\ncat \"$1\"\n");
  put("joules", "100.25\n");
  snprintf(cmd, sizeof cmd, "meter_cmd=sh %s %s", script, counter);
  rc = fupermod_meter_create("command", cmd, &m);
  ok(rc == 0 && m && has(fupermod_meter_domain(m), "wattsup.sh"), "command meter with a fake external meter");
  if (!m) {
    diag("%s", fupermod_error_message());
    return;
  }
  fupermod_meter_start(m);
  put("joules", "142.75\n");
  rc = fupermod_meter_stop(m, &j, &s);
  s = rc == 0 ? s : -1;
  ok(rc == 0 && fabs(j - 42.5) < 1e-12 && s > 0, "energy = difference of the readings at start and stop (%g J over %g s)",
     j, s);
  fupermod_meter_start(m);
  put("joules", "10\n");
  ok(fupermod_meter_stop(m, &j, &s) == FUPERMOD_ERR_INPUT && has(fupermod_error_message(), "backwards"),
     "a cumulative reading that goes down: %s", fupermod_error_message());
  fupermod_meter_free(m);

  ok(fupermod_meter_create("command", "meter_cmd=echo oops >&2; exit 3", &m) == FUPERMOD_ERR_SYSTEM &&
         has(fupermod_error_message(), "exit status 3") && has(fupermod_error_message(), "oops"),
     "a failing command, with its status and stderr: %s", fupermod_error_message());
  ok(fupermod_meter_create("command", "meter_cmd=echo hello", &m) == FUPERMOD_ERR_INPUT &&
         has(fupermod_error_message(), "'hello'"),
     "output that is not joules: %s", fupermod_error_message());
  ok(fupermod_meter_create("command", "meter_cmd=true", &m) == FUPERMOD_ERR_INPUT &&
         has(fupermod_error_message(), "printed nothing"),
     "no output: %s", fupermod_error_message());
  ok(fupermod_meter_create("command", "meter_cmd=/nonexistent/meter", &m) == FUPERMOD_ERR_SYSTEM &&
         has(fupermod_error_message(), "exit status 127"),
     "a missing command: %s", fupermod_error_message());
  t0 = fupermod_time();
  rc = fupermod_meter_create("command", "meter_cmd=sleep 20; echo 1,meter_timeout=0.3", &m);
  ok(rc == FUPERMOD_ERR_SYSTEM && has(fupermod_error_message(), "did not finish within 0.3 s") &&
         fupermod_time() - t0 < 5,
     "a stuck meter is killed after meter_timeout (%.2f s): %s", fupermod_time() - t0, fupermod_error_message());
  ok(fupermod_meter_create("command", "", &m) == FUPERMOD_ERR_USAGE && has(fupermod_error_message(), "meter_cmd"),
     "no command: %s", fupermod_error_message());
  ok(fupermod_meter_create("command", "meter_cmd=true,meter_power=3", &m) == FUPERMOD_ERR_USAGE &&
         has(fupermod_error_message(), "meter_power"),
     "a key of another meter: %s", fupermod_error_message());
}

static void test_emulated_model(void) {
  char pts[512], sub[1024];
  fupermod_meter *m = NULL;
  double j, s, w = -1, watts, probe;
  int rc;
  snprintf(pts, sizeof pts, "%s/emu.points", dir);
  put("emu.points", "10 0.01 1 0 2 0\n100 0.1 1 0 20 0\n");
  snprintf(sub, sizeof sub, "meter_points=%s,meter_idle=3", pts);
  rc = fupermod_meter_create("emulated", sub, &m);
  if (!ok(rc == 0, "emulated meter from a point file with energies")) {
    diag("%s", fupermod_error_message());
    return;
  }
  fupermod_meter_start(m);
  nap(0.05);
  fupermod_meter_note_run(m, 50);
  fupermod_meter_stop(m, &j, &s);
  ok(fabs(j - 3 * s - 10.0) < 1e-4, "idle power x interval + e(50) = 10 J interpolated (%.6f J in %.4f s)", j, s);
  rc = fupermod_meter_probe(m, 0.2, MPI_COMM_NULL, &w);
  ok(rc == 0 && fabs(w - 3.0) < 1e-3, "an idle probe finds the static power (%.5f W)", w);
  ok(fupermod_meter_static_subopts(m, "", &watts, &probe) == 0 && watts == 0 && probe == 1.0,
     "a measuring meter is probed for 1 s by default");
  ok(fupermod_meter_static_subopts(m, "static_power=12.5", &watts, &probe) == 0 && watts == 12.5 && probe == 0,
     "static_power=W is taken as given");
  ok(fupermod_meter_static_subopts(m, "static_probe=0.5", &watts, &probe) == 0 && watts == 0 && probe == 0.5,
     "static_probe=S sets the probe length");
  ok(fupermod_meter_static_subopts(m, "static_power=1,static_probe=2", &watts, &probe) == FUPERMOD_ERR_USAGE,
     "static_power and static_probe together are refused: %s", fupermod_error_message());
  ok(fupermod_meter_static_subopts(m, "static_power=-4", &watts, &probe) == FUPERMOD_ERR_USAGE &&
         has(fupermod_error_message(), "static_power"),
     "a negative static power: %s", fupermod_error_message());
  ok(fupermod_meter_static_subopts(NULL, "static_power=4", &watts, &probe) == FUPERMOD_ERR_USAGE,
     "static power without a meter: %s", fupermod_error_message());
  fupermod_meter_free(m);
  put("noenergy.points", "10 0.01\n100 0.1\n");
  snprintf(sub, sizeof sub, "points=%s/noenergy.points", dir);
  ok(fupermod_meter_create("emulated", sub, &m) == FUPERMOD_ERR_INPUT && has(fupermod_error_message(), "noenergy.points"),
     "points without energy: %s", fupermod_error_message());

  rc = fupermod_meter_create("model", "meter_power=50", &m);
  if (ok(rc == 0 && fupermod_meter_is_estimate(m) && has(fupermod_meter_describe(m), "ESTIMATE") &&
             !fupermod_meter_domain(m),
         "model meter: an estimate, per process (%s)", m ? fupermod_meter_describe(m) : fupermod_error_message())) {
    fupermod_meter_start(m);
    nap(0.05);
    fupermod_meter_stop(m, &j, &s);
    /* j is read between two clock reads, s from their middle: allow 100 us of preemption between them */
    ok(fabs(j - 50 * s) < 50 * 1e-4, "power x time (%.4f J over %.4f s)", j, s);
    ok(fupermod_meter_probe(m, 0.1, MPI_COMM_NULL, &w) == FUPERMOD_ERR_USAGE && has(fupermod_error_message(), "estimates"),
       "an estimate cannot be probed: %s", fupermod_error_message());
    ok(fupermod_meter_static_subopts(m, "", &watts, &probe) == 0 && watts == 0 && probe == 0,
       "the model meter's static power defaults to 0 W, no probe");
    fupermod_meter_free(m);
  }
  ok(fupermod_meter_create("model", "", &m) == FUPERMOD_ERR_USAGE && has(fupermod_error_message(), "meter_power"),
     "model meter without a power: %s", fupermod_error_message());
}

static void test_nvml(void) {
  char lib[512], sub[1024], energy[512];
  const char *top = getenv("top_builddir");
  fupermod_meter *m = NULL;
  int rc;
  double j = 0;
  rc = fupermod_meter_create("nvml", "", &m);
  if (rc == 0) {
    skip("a real NVML is present here: the absent-library path is not exercised");
    fupermod_meter_free(m);
  } else {
    ok(rc == FUPERMOD_ERR_NODEVICE && has(fupermod_error_message(), "libnvidia-ml.so.1"),
       "no NVML here: no device, clear message (%s)", fupermod_error_message());
  }
  snprintf(lib, sizeof lib, "%s/tests/.libs/fake_nvml.so", top ? top : ".");
  snprintf(energy, sizeof energy, "%s/nvml_mj", dir);
  setenv("FAKE_NVML_ENERGY", energy, 1);
  put("nvml_mj", "123456789\n");
  /* a real GPU's PCI bus id is unknown to the fake NVML: there, name its GPU by NVML index */
  snprintf(sub, sizeof sub, "nvml_lib=%s,%s", lib, fupermod_cuda_device_count() > 0 ? "nvml_device=0" : "device=0");
  rc = fupermod_meter_create("nvml", sub, &m);
  if (ok(rc == 0 && strcmp(fupermod_meter_domain(m), "nvml:0") == 0, "nvml meter loads a (fake) NVML at run time (%s)",
         rc == 0 ? fupermod_meter_describe(m) : fupermod_error_message())) {
    fupermod_meter_start(m);
    put("nvml_mj", "123458289\n");
    rc = fupermod_meter_stop(m, &j, NULL);
    ok(rc == 0 && fabs(j - 1.5) < 1e-9, "millijoule counter difference (%.6f J)", j);
    put("nvml_mj", "garbage\n");
    ok(fupermod_meter_read(m, &j, NULL) == FUPERMOD_ERR_SYSTEM && has(fupermod_error_message(), "Unknown Error"),
       "a failing counter read is reported: %s", fupermod_error_message());
    fupermod_meter_free(m);
  } else {
    diag("%s", fupermod_error_message());
  }
  snprintf(sub, sizeof sub, "nvml_lib=%s,device=0,nvml_device=1", lib);
  ok(fupermod_meter_create("nvml", sub, &m) == FUPERMOD_ERR_NODEVICE && has(fupermod_error_message(), "Not Supported"),
     "a GPU without an energy counter: %s", fupermod_error_message());
  snprintf(sub, sizeof sub, "nvml_lib=%s,nvml_device=7", lib);
  ok(fupermod_meter_create("nvml", sub, &m) == FUPERMOD_ERR_NODEVICE && has(fupermod_error_message(), "GPU 7"),
     "a GPU that is not there: %s", fupermod_error_message());
  ok(fupermod_meter_create("nvml", "nvml_lib=/nonexistent/libnvidia-ml.so.1", &m) == FUPERMOD_ERR_NODEVICE,
     "an NVML library that cannot be loaded: %s", fupermod_error_message());
}

/* A kernel that spends `add` microjoules on package 0 of a recorded tree, wrapping it. */
typedef struct {
  char path[512];
  double add, max;
} counter_kernel;

static int ck_create(const char *s, void **ctx) { return 0; }
static double ck_complexity(long d, void *ctx) { return (double)d; }
static int ck_initialize(long d, void *ctx) { return 0; }
static int ck_execute(void *ctx) {
  counter_kernel *c = ctx;
  FILE *fp = fopen(c->path, "r");
  double v = 0;
  int got = fp && fscanf(fp, "%lf", &v) == 1;
  if (fp) fclose(fp);
  if (!got) return fupermod_error(FUPERMOD_ERR_SYSTEM, "counter kernel: %s", c->path);
  v += c->add;
  if (v > c->max) v -= c->max; /* the counter wraps */
  if (!(fp = fopen(c->path, "w"))) return fupermod_error(FUPERMOD_ERR_SYSTEM, "counter kernel: %s", c->path);
  fprintf(fp, "%.0f\n", v);
  fclose(fp);
  nap(0.01);
  return 0;
}
static int ck_finalize(void *ctx) { return 0; }
static const fupermod_kernel_ops ck_ops = {FUPERMOD_KERNEL_API, "counter", "test", ck_create, ck_complexity,
                                           ck_initialize, ck_execute, ck_finalize, NULL, NULL, NULL, NULL, NULL};

static void test_benchmark(void) {
  char pts[512], sub[1024];
  fupermod_kernel *k = NULL;
  fupermod_meter *m = NULL;
  fupermod_point pt;
  fupermod_precision prec = {3, 10, 0.95, 0.05, 10.0, 0.0, 0};
  int rc;
  snprintf(pts, sizeof pts, "%.400s/kern.points", dir);
  put("kern.points", "10 0.005 1 0 5 0\n100 0.05 1 0 50 0\n");
  snprintf(sub, sizeof sub, "points=%s", pts);
  if (fupermod_kernel_load("emulated", sub, &k) != 0) {
    ok(0, "emulated kernel: %s", fupermod_error_message());
    return;
  }
  rc = fupermod_benchmark(k, 50, &prec, MPI_COMM_NULL, &pt);
  ok(rc == 0 && fabs(pt.e - 25) < 1e-9, "no meter: the kernel's own energy op (%g J)", pt.e);
  snprintf(sub, sizeof sub, "meter_points=%s,meter_idle=20", pts);
  fupermod_meter_create("emulated", sub, &m);
  rc = fupermod_benchmark_meter(k, m, 20.0, 50, &prec, MPI_COMM_NULL, &pt);
  ok(rc == 0 && pt.reps >= 3 && fabs(pt.e - 25) < 1e-3 && pt.e_ci < 1e-3,
     "meter with static power subtracted: dynamic energy e(50) = 25 J (%.6f +- %.2g J, %d reps)", pt.e, pt.e_ci, pt.reps);
  rc = fupermod_benchmark_meter(k, m, 0.0, 50, &prec, MPI_COMM_NULL, &pt);
  ok(rc == 0 && pt.e >= 25 + 20 * pt.t - 1e-3 && pt.e <= 25 + 20 * (pt.t + 0.05),
     "without static power the idle share stays in (%.4f J for %.4f s)", pt.e, pt.t);
  ok(fupermod_benchmark_meter(k, m, -1.0, 50, &prec, MPI_COMM_NULL, &pt) == FUPERMOD_ERR_USAGE,
     "negative static power refused: %s", fupermod_error_message());
  fupermod_meter_free(m);
  fupermod_meter_create("model", "meter_power=100", &m);
  rc = fupermod_benchmark_meter(k, m, 0.0, 50, &prec, MPI_COMM_NULL, &pt);
  ok(rc == 0 && pt.e >= 100 * pt.t - 1e-6 && pt.e <= 100 * (pt.t + 0.01), "model meter: 100 W x time (%.4f J, t %.4f s)",
     pt.e, pt.t);
  fupermod_meter_free(m);
  fupermod_kernel_unload(k);

  /* a kernel that spends 2.5 J of package 0 per run, the counter wrapping during the runs */
  {
    counter_kernel ck;
    fupermod_kernel kk = {&ck_ops, &ck, NULL, NULL};
    char root[512];
    snprintf(root, sizeof root, "%s/bench", dir);
    rapl_tree("bench");
    putf("bench/intel-rapl:0/energy_uj", PKG_MAX - 4e6);
    snprintf(ck.path, sizeof ck.path, "%.400s/intel-rapl:0/energy_uj", root);
    ck.add = 2.5e6;
    ck.max = PKG_MAX;
    snprintf(sub, sizeof sub, "rapl_root=%s,rapl_package=0", root);
    rc = fupermod_meter_create("rapl", sub, &m);
    pt.e = -1;
    if (rc == 0) rc = fupermod_benchmark_meter(&kk, m, 0.0, 10, &prec, MPI_COMM_NULL, &pt);
    ok(rc == 0 && fabs(pt.e - 2.5) < 1e-9 && pt.e_ci < 1e-9 && pt.reps >= 3,
       "rapl meter in a benchmark: 2.5 J per run through a wrap-around (%.9f J, %d reps)", pt.e, pt.reps);
    if (rc) diag("%s", fupermod_error_message());
    /* a meter that breaks during the benchmark fails it with the file named */
    unlink(ck.path);
    ck.path[0] = '\0';
    snprintf(ck.path, sizeof ck.path, "%s/elsewhere", dir);
    put("elsewhere", "0\n");
    rc = fupermod_benchmark_meter(&kk, m, 0.0, 10, &prec, MPI_COMM_NULL, &pt);
    ok(rc < 0 && has(fupermod_error_message(), "intel-rapl:0/energy_uj") && has(fupermod_error_message(), "d=10"),
       "a meter failing mid-benchmark: %s", fupermod_error_message());
    fupermod_meter_free(m);
  }
}

int main(int argc, char **argv) {
  fupermod_meter *m = (fupermod_meter *)1;
  char cmd[300];
  MPI_Init(&argc, &argv);
  snprintf(dir, sizeof dir, "%s/fupermod-meters.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    return 99;
  }
  ok(fupermod_meter_create("wattsup", "", &m) == FUPERMOD_ERR_USAGE && !m &&
         has(fupermod_error_message(), "rapl, nvml, command, emulated, model"),
     "an unknown meter lists the known ones: %s", fupermod_error_message());
  ok(fupermod_meter_create_subopts("kernel=emulated,points=x", &m) == 0 && m == NULL,
     "a configuration line without meter= has no meter");
  ok(fupermod_meter_create_subopts("meter=model,meter_power=7", &m) == 0 && m &&
         strcmp(fupermod_meter_name(m), "model") == 0,
     "meter=NAME on a configuration line selects the meter");
  fupermod_meter_free(m);
  ok(fupermod_meter_create("model", "meter_power=7,attribution=shared", &m) == FUPERMOD_ERR_USAGE &&
         has(fupermod_error_message(), "busy or solo"),
     "a bad attribution: %s", fupermod_error_message());
  test_rapl();
  test_command();
  test_emulated_model();
  test_nvml();
  test_benchmark();
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) diag("could not remove %s", dir);
  MPI_Finalize();
  return done_testing();
}
