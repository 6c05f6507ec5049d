/* Process configuration: parsing, errors with file and line, matching, sub-options, binding. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "config.h"
#include "fupermod/fupermod.h"
#include "tests/tap.h"

static void bad(const char *text, const char *want, const char *what) {
  fupermod_conf c;
  int rc = fupermod_conf_parse(text, strlen(text), "x.conf", &c);
  int good = rc == FUPERMOD_ERR_INPUT && strstr(fupermod_error_message(), want);
  ok(good, "%s", what);
  if (!good) diag("rc=%d '%s'", rc, fupermod_error_message());
  if (rc == 0) fupermod_conf_free(&c);
}

/* The CUDA device count, asked through fupermod's probe module, which links the runtime by its
 * soname (libcudart.so.13): with a stand-in runtime of that soname (tests/fake_cudart.c) loaded
 * first, what it reports, and 0 where it fails or reports nonsense. The probe is loaded once per
 * process, so the stand-in is asked in a child, and this host's own runtime in the parent: 0
 * where no runtime loads or no NVIDIA device node exists. Without CUDA at build time there is no
 * probe: 0 devices whatever the runtime says. */
static int fake_counts(void) {
  const char *top = getenv("top_builddir");
  char lib[1024];
  int bad = 0, n;
  void *fake;
  snprintf(lib, sizeof lib, "%s/tests/.libs/libcudart.so.13", top ? top : ".");
  if (!(fake = dlopen(lib, RTLD_NOW | RTLD_LOCAL))) {
    printf("# stand-in CUDA runtime not loaded: %s\n", dlerror());
    return 1;
  }
  static const struct {
    const char *env;
    int want;
  } cases[] = {{"3", 3}, {"0", 0}, {"error", 0}, {"-2", 0}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    setenv("FAKE_CUDA_DEVICES", cases[i].env, 1);
    n = fupermod_cuda_device_count();
#ifdef FUPERMOD_HAVE_CUDA
    int want = cases[i].want;
#else
    int want = 0;
#endif
    printf("# FAKE_CUDA_DEVICES=%s: %d devices (want %d)\n", cases[i].env, n, want);
    bad |= n != want;
  }
  setenv("FAKE_CUDA_DEVICES", "1", 1);
  char pci[64] = "";
#ifdef FUPERMOD_HAVE_CUDA
  /* the PCI id comes through the same runtime */
  bad |= fupermod_cuda_pci_bus_id(0, pci, sizeof pci) != FUPERMOD_SUCCESS || strcmp(pci, "0000:0A:00.0") != 0;
  bad |= fupermod_cuda_runtime_version() != 13000;
  printf("# PCI id '%s', runtime %d\n", pci, fupermod_cuda_runtime_version());
#endif
  fflush(stdout);
  return bad;
}

static void cuda_count(void) {
  static const char *const names[] = {"libcudart.so.13", "libcudart.so", "libcudart.so.12"};
  void *h = NULL;
  glob_t g;
  int nodes, status = -1;
  pid_t pid;
  fflush(stdout);
  if ((pid = fork()) == 0) _exit(fake_counts());
  if (pid > 0) waitpid(pid, &status, 0);
  ok(pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
     "a stand-in runtime's 3 devices, and 0 where it has none, fails or says -2, through the probe%s",
#ifdef FUPERMOD_HAVE_CUDA
     ""
#else
     " (built without CUDA: always 0)"
#endif
  );
  for (size_t i = 0; i < sizeof names / sizeof names[0] && !h; i++) h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
  if (h) dlclose(h);
  nodes = glob("/dev/nvidia[0-9]*", 0, NULL, &g) == 0 ? (int)g.gl_pathc : 0;
  if (nodes) globfree(&g);
  if (!h || nodes == 0)
    ok(fupermod_cuda_device_count() == 0, "this host (%s): 0 devices (%d)",
       h ? "a CUDA runtime, no NVIDIA device node" : "no CUDA runtime", fupermod_cuda_device_count());
  else
    skip("a CUDA runtime and NVIDIA devices: their visible count is not known here");
}

/* Hosts of a launch map: counted, and numbered from 0 in the order they first appear. */
static void host_index(void) {
  fupermod_launch_entry map[5];
  static const char *const names[5] = {"b", "a", "b", "c", "a"};
  static const int want[5] = {0, 1, 0, 2, 1};
  int host[5], good;
  memset(map, 0, sizeof map);
  for (int i = 0; i < 5; i++) snprintf(map[i].host, sizeof map[i].host, "%s", names[i]);
  good = fupermod_launch_host_index(map, 5, host) == 3 && fupermod_launch_hosts(map, 5) == 3;
  for (int i = 0; i < 5; i++) good = good && host[i] == want[i];
  ok(good, "a launch map's hosts: 3, numbered 0 1 0 2 1 in the order of first appearance");
}

int main(void) {
  fupermod_conf c;
  char buf[64];
  const char *text = "# a comment\nnode1 0 core:0 cpu kernel=dgemm,b=64\r\nnode1 1 core:1-3 gpu device=0\n"
                     "localhost 0 none cpu\nnode2 0 socket:0 cpu  # two spaces\n";
  int rc = fupermod_conf_parse(text, strlen(text), "x.conf", &c);
  ok(rc == 0 && c.count == 4, "four processes parsed");
  ok(rc == 0 && strcmp(c.procs[1].bind, "core:1-3") == 0 && strcmp(c.procs[1].device_type, "gpu") == 0 &&
         strcmp(c.procs[2].subopts, "") == 0 && c.procs[3].line == 5,
     "fields and line numbers kept");
  ok(fupermod_conf_find(&c, "node1", 1) == 1 && fupermod_conf_find(&c, "node2", 0) == 3 &&
         fupermod_conf_find(&c, "other", 0) == 2 && fupermod_conf_find(&c, "other", 1) == -1,
     "exact host first, then localhost, else not found");
  ok(fupermod_subopt_get(c.procs[0].subopts, "b", buf, sizeof buf) == 1 && strcmp(buf, "64") == 0 &&
         fupermod_subopt_get(c.procs[0].subopts, "kernel", buf, sizeof buf) == 1 && strcmp(buf, "dgemm") == 0 &&
         fupermod_subopt_get(c.procs[0].subopts, "ker", buf, sizeof buf) == 0,
     "sub-options by exact key");
  {
    char path[] = "/tmp/fupermod-conf-XXXXXX";
    fupermod_conf back;
    int fd = mkstemp(path);
    ok(fd >= 0 && fupermod_conf_save(path, &c, "saved") == 0 && fupermod_conf_load(path, &back) == 0 &&
           back.count == 4 && strcmp(back.procs[0].subopts, "kernel=dgemm,b=64") == 0,
       "save and load round trip");
    fupermod_conf_free(&back);
    remove(path);
  }
  fupermod_conf_free(&c);
  bad("", "no process lines", "empty configuration");
  bad("h 0 none\n", "x.conf:1: expected 'hostname rank_intra bind device_type", "too few fields");
  bad("h 0 none cpu kernel=dgemm, b=64\n", "x.conf:1: more than 5 fields (hostname rank_intra bind device_type "
      "[subopts]): a space follows the comma of the sub-options; the sub-options are one word",
      "a space after a sub-option's comma is named, with the fix");
  bad("h 0 none cpu a=1 b=2 c=3\n", "x.conf:1: more than 5 fields", "more than 5 fields");
  bad("h x none cpu\n", "x.conf:1: rank_intra 'x'", "bad rank_intra");
  bad("h 0 core: cpu\n", "x.conf:1: bind 'core:'", "empty core list");
  bad("h 0 banana cpu\n", "x.conf:1: bind 'banana'", "unknown binding");
  bad("h 0 none tpu\n", "x.conf:1: device_type 'tpu'", "unknown device");
  bad("h 0 none cpu nokey\n", "x.conf:1: subopts 'nokey'", "sub-options without key=value");
  bad("h 0 none cpu\nh 0 none cpu\n", "x.conf:2: host h rank_intra 0 already on line 1", "duplicate process");
  ok(fupermod_bind_apply("none") == 0, "binding 'none' does nothing");
  ok(fupermod_bind_apply("pu:0") == 0 && fupermod_bind_apply("core:0") == 0, "binding to the first core works");
  ok(fupermod_bind_apply("core:100000") == FUPERMOD_ERR_INPUT && strstr(fupermod_error_message(), "does not exist"),
     "binding to a missing core is an error");
  fupermod_bind_apply("pu:0-1023");
  ok(fupermod_bind_suggest(0, 1, buf, sizeof buf) == 0 && strncmp(buf, "core:0", 6) == 0, "one process gets a block from core 0 (%s)", buf);
  ok(fupermod_bind_suggest(0, 64, buf, sizeof buf) == 0 && strcmp(buf, "core:0") == 0 &&
         fupermod_bind_suggest(63, 64, buf, sizeof buf) == 0 && strncmp(buf, "core:", 5) == 0,
     "more processes than cores share cores");
  cuda_count();
  host_index();
  return done_testing();
}
