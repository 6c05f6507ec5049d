/* fupermod kernel show NAME|PATH: what a kernel plug-in is and the sub-options it reads. */
#include <stdio.h>
#include <string.h>
#include "tools/tools.h"
#include "fupermod/exec.h"
#include "fupermod/kernel.h"
#include "fupermod/meter.h"
#include "fupermod/option.h"

static const char *SUB = "kernel";

static void help(void) {
  printf("usage: fupermod kernel show NAME|PATH\n\n"
         "Loads a kernel plug-in (by name from $FUPERMOD_KERNEL_PATH and the installed kernel directory,\n"
         "or by path) and lists its description and the sub-options it declares (name, type and range,\n"
         "default, help), then those every configuration line may carry: the executor's and the meters'.\n"
         "A configuration line with any other key is refused by the tools that measure.\n");
}

static void table(const char *title, const fupermod_option *t) {
  char line[512];
  printf("%s\n", title);
  if (!t || !t->name) printf("  (none)\n");
  for (const fupermod_option *o = t; o && o->name; o++) {
    fupermod_option_describe(o, line, sizeof line);
    printf("  %s\n", line);
  }
}

int cmd_kernel(int argc, char **argv) {
  fupermod_kernel *k = NULL;
  const char *const *meters = fupermod_meter_names();
  char title[128];
  int rc;
  if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
    help();
    return 0;
  }
  if (argc != 3 || strcmp(argv[1], "show") != 0)
    return tool_usage(SUB, argc < 2 ? "give an action: show NAME|PATH"
                      : strcmp(argv[1], "show") != 0 ? "unknown action (known: show)" : "show takes one kernel, NAME or PATH");
  if ((rc = fupermod_kernel_open(argv[2], &k)) != FUPERMOD_SUCCESS) return tool_fail(SUB, rc);
  printf("kernel %s: %s\n  file %s, API %d\n", k->ops->name ? k->ops->name : "?",
         k->ops->description ? k->ops->description : "", k->path, k->ops->api_version);
  if (k->ops->api_version < 3)
    printf("sub-options: not declared (a plug-in older than API 3): keys other than those below reach it unchecked\n");
  else table("sub-options:", fupermod_kernel_options(k));
  table("executor (any line):", fupermod_exec_options());
  table("meters (any line with meter=NAME):", fupermod_meter_options(NULL));
  for (int i = 0; meters[i]; i++) {
    snprintf(title, sizeof title, "meter %s:", meters[i]);
    table(title, fupermod_meter_options(meters[i]));
  }
  fupermod_kernel_unload(k);
  return 0;
}
