/* Process configuration: parsing, errors with file and line, matching, sub-options, binding. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* The CUDA device count: with a stand-in runtime (tests/fake_cudart.c) loaded first, what it
 * reports, and 0 where it fails or reports nonsense; on this host, 0 where no runtime loads or
 * no NVIDIA device node exists. */
static void cuda_count(void) {
  static const char *const names[] = {"libcudart.so", "libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0"};
  const char *top = getenv("top_builddir");
  char lib[1024];
  void *h = NULL, *fake;
  glob_t g;
  int nodes;
  snprintf(lib, sizeof lib, "%s/tests/.libs/libcudart.so", top ? top : ".");
  fake = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
  if (ok(fake != NULL, "stand-in CUDA runtime loaded (%s)", fake ? lib : dlerror())) {
    setenv("FAKE_CUDA_DEVICES", "3", 1);
    ok(fupermod_cuda_device_count() == 3, "a runtime with 3 devices: 3 (%d)", fupermod_cuda_device_count());
    setenv("FAKE_CUDA_DEVICES", "0", 1);
    ok(fupermod_cuda_device_count() == 0, "a runtime with no device: 0 (%d)", fupermod_cuda_device_count());
    setenv("FAKE_CUDA_DEVICES", "error", 1);
    ok(fupermod_cuda_device_count() == 0, "a runtime whose cudaGetDeviceCount fails: 0 (%d)",
       fupermod_cuda_device_count());
    setenv("FAKE_CUDA_DEVICES", "-2", 1);
    ok(fupermod_cuda_device_count() == 0, "a runtime that reports -2 devices: 0 (%d)", fupermod_cuda_device_count());
    unsetenv("FAKE_CUDA_DEVICES");
    dlclose(fake); /* after it, a real runtime could not be unloaded to make room for the stand-in */
  }
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
  return done_testing();
}
