/* Process configuration: parsing, errors with file and line, matching, sub-options, binding. */
#include <stdio.h>
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
  ok(fupermod_cuda_device_count() >= 0, "CUDA device count degrades to 0 without a device (%d)", fupermod_cuda_device_count());
  return done_testing();
}
