/* Declared sub-options (fupermod/option.h) and the check of a configuration line against what
 * its kernels, executor and meter declare (fupermod_kernel_check_subopts): every kind of value,
 * range and choice; defaults; unknown, repeated and misplaced keys; a kernel older than API 3. */
#include <string.h>
#include "fupermod/fupermod.h"
#include "tests/tap.h"

static const fupermod_option opts[] = {
    {"n", FUPERMOD_OPT_LONG, 2, 100, "10", "a size", NULL},
    {"x", FUPERMOD_OPT_DOUBLE, 0, 1, NULL, "a fraction", NULL},
    {"any", FUPERMOD_OPT_LONG, 1, 0, NULL, "any integer", NULL},
    {"mode", FUPERMOD_OPT_STRING, 1, 0, "in", "a choice", "in|out"},
    {"path", FUPERMOD_OPT_STRING, 1, 0, NULL, "any text", NULL},
    FUPERMOD_OPTION_END};

static int has(const char *s) { return strstr(fupermod_error_message(), s) != NULL; }

static int dummy_create(const char *s, void **c) { (void)s; *c = NULL; return FUPERMOD_SUCCESS; }

int main(void) {
  long l = -1;
  double x = -1;
  char buf[16];
  const fupermod_option *o = fupermod_option_find(opts, "mode");
  ok(o && o->type == FUPERMOD_OPT_STRING && !fupermod_option_find(opts, "nope") && !fupermod_option_find(NULL, "n"),
     "find: by name, NULL for an unknown name or table");
  /* values against their declarations */
  ok(fupermod_option_check(&opts[0], "2") == 0 && fupermod_option_check(&opts[0], "100") == 0, "an integer at both ends of its range");
  ok(fupermod_option_check(&opts[0], "101") == FUPERMOD_ERR_USAGE && has("n=101 must be an integer in [2, 100]"),
     "above the range: %s", fupermod_error_message());
  ok(fupermod_option_check(&opts[0], "1") == FUPERMOD_ERR_USAGE, "below the range");
  ok(fupermod_option_check(&opts[0], "5x") == FUPERMOD_ERR_USAGE && fupermod_option_check(&opts[0], "") == FUPERMOD_ERR_USAGE &&
         fupermod_option_check(&opts[0], "5.0") == FUPERMOD_ERR_USAGE, "not an integer: 5x, empty, 5.0");
  ok(fupermod_option_check(&opts[1], "0.5") == 0 && fupermod_option_check(&opts[1], "1.5") == FUPERMOD_ERR_USAGE &&
         fupermod_option_check(&opts[1], "nan") == FUPERMOD_ERR_USAGE, "a number: in range, out of it, nan");
  ok(fupermod_option_check(&opts[2], "-99999") == 0, "min > max: any integer");
  ok(fupermod_option_check(&opts[3], "out") == 0 && fupermod_option_check(&opts[3], "up") == FUPERMOD_ERR_USAGE &&
         has("mode=up must be one of in|out") && fupermod_option_check(&opts[3], "i") == FUPERMOD_ERR_USAGE,
     "a choice: one of them, not another nor a prefix (%s)", fupermod_error_message());
  ok(fupermod_option_check(&opts[4], "/a b") == 0 && fupermod_option_check(&opts[4], "") == FUPERMOD_ERR_USAGE,
     "text: anything but empty");
  /* reading values */
  ok(fupermod_option_long(opts, "x=0.2,n=42", "n", &l) == 1 && l == 42, "a given integer (1)");
  ok(fupermod_option_long(opts, "x=0.2", "n", &l) == 0 && l == 10, "absent: the default (0)");
  l = 7;
  ok(fupermod_option_long(opts, "", "any", &l) == 0 && l == 7, "absent without a default: untouched");
  ok(fupermod_option_long(opts, "n=1000", "n", &l) == FUPERMOD_ERR_USAGE && l == 7, "a bad value: an error, untouched");
  ok(fupermod_option_long(opts, "", "undeclared", &l) == FUPERMOD_ERR_USAGE && has("not declared"),
     "an undeclared name is the caller's error");
  ok(fupermod_option_double(opts, "x=0.25", "x", &x) == 1 && x == 0.25, "a given number");
  ok(fupermod_option_string(opts, "", "mode", buf, sizeof buf) == 0 && strcmp(buf, "in") == 0 &&
         fupermod_option_string(opts, "mode=out", "mode", buf, sizeof buf) == 1 && strcmp(buf, "out") == 0,
     "a string: its default, then the given one");
  {
    char line[256];
    fupermod_option_describe(&opts[0], line, sizeof line);
    ok(strstr(line, "n") == line && strstr(line, "[2, 100]") && strstr(line, "default 10") && strstr(line, "a size"),
       "describe: name, range, default, help ('%s')", line);
  }
  /* a line against its kernel, executor and meter */
  {
    static const fupermod_kernel_ops v3 = {3, "v3", "test", dummy_create, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, opts};
    static const fupermod_kernel_ops v3b = {3, "v3b", "test", dummy_create, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    static const fupermod_kernel_ops v2 = {2, "v2", "test", dummy_create, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    fupermod_kernel k3 = {&v3, NULL, NULL, NULL}, k3b = {&v3b, NULL, NULL, NULL}, k2 = {&v2, NULL, NULL, NULL};
    const fupermod_kernel *one[] = {&k3}, *two[] = {&k3b, &k3}, *old[] = {&k2}, *none[] = {&k3b};
    ok(fupermod_kernel_check_subopts(one, 1, "kernel=v3,n=5,threads=2,meter=model,meter_power=3,group=a") == 0,
       "kernel, executor, meter and core keys together pass");
    ok(fupermod_kernel_check_subopts(one, 1, "") == 0 && fupermod_kernel_check_subopts(one, 1, NULL) == 0, "an empty line passes");
    ok(fupermod_kernel_check_subopts(one, 1, "kernel=v3,nn=5") == FUPERMOD_ERR_INPUT &&
           has("unknown sub-option 'nn' (did you mean 'n'?)"), "a misspelt key: %s", fupermod_error_message());
    ok(fupermod_kernel_check_subopts(one, 1, "zzzzzz=1") == FUPERMOD_ERR_INPUT && has("unknown sub-option 'zzzzzz'; known here:"),
       "an unknown key with nothing close: the known ones listed");
    ok(fupermod_kernel_check_subopts(one, 1, "n=5,n=6") == FUPERMOD_ERR_INPUT && has("n is given twice"), "a key given twice");
    ok(fupermod_kernel_check_subopts(one, 1, "n=500") == FUPERMOD_ERR_INPUT && has("n=500 must be"), "a kernel key out of range");
    ok(fupermod_kernel_check_subopts(one, 1, "threads=0") == FUPERMOD_ERR_INPUT && has("threads=0"), "an executor key out of range");
    ok(fupermod_kernel_check_subopts(one, 1, "n") == FUPERMOD_ERR_INPUT && has("not key=value"), "a key without a value");
    ok(fupermod_kernel_check_subopts(one, 1, "meter_power=3") == FUPERMOD_ERR_INPUT && has("add meter=model"),
       "a meter's key without its meter: %s", fupermod_error_message());
    ok(fupermod_kernel_check_subopts(one, 1, "meter=rapl,meter_power=3") == FUPERMOD_ERR_INPUT &&
           has("add meter=model in place of meter=rapl"), "another meter's key: %s", fupermod_error_message());
    ok(fupermod_kernel_check_subopts(none, 1, "n=5") == FUPERMOD_ERR_INPUT, "a key of another kernel is unknown to this one");
    ok(fupermod_kernel_check_subopts(two, 2, "n=5") == 0, "a line serving two kernels takes either's keys");
    ok(fupermod_kernel_check_subopts(old, 1, "anything=1,n=x") == 0, "a kernel older than API 3: keys nobody declares pass");
    ok(fupermod_kernel_check_subopts(old, 1, "threads=x") == FUPERMOD_ERR_INPUT, "but declared keys are still checked");
    ok(fupermod_kernel_check_subopts(NULL, 0, "n=5") == FUPERMOD_ERR_INPUT && has("no kernel on this line"),
       "no kernel: its keys are unknown");
  }
  return done_testing();
}
