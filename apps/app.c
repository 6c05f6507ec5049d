/* Application plug-ins (apps/app.h): loading one and checking its table. */
#include <dlfcn.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "apps/app.h"

static int check_table(const fupermod_app_ops *ops, const char *path) {
  if (ops->api_version != FUPERMOD_APP_API)
    return fupermod_error(FUPERMOD_ERR_INPUT, "application %s: API version %d, expected %d (apps/app.h)", path,
                          ops->api_version, FUPERMOD_APP_API);
  if (!ops->name || !*ops->name || strspn(ops->name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_") !=
                                        strlen(ops->name))
    return fupermod_error(FUPERMOD_ERR_INPUT, "application %s: its name must be letters, digits, '-' and '_'", path);
  if (!ops->kernel || !*ops->kernel)
    return fupermod_error(FUPERMOD_ERR_INPUT, "application %s (%s): no kernel to model its computation", path, ops->name);
  if (!ops->problem || !ops->run || !ops->predict)
    return fupermod_error(FUPERMOD_ERR_INPUT, "application %s (%s): incomplete operations table (problem, run and predict "
                          "are all needed)", path, ops->name);
  return FUPERMOD_SUCCESS;
}

int fupermod_app_open(const char *name_or_path, fupermod_app **out) {
  fupermod_app *a;
  char *path = NULL;
  int rc = FUPERMOD_SUCCESS;
  if (!out) return fupermod_error(FUPERMOD_ERR_USAGE, "app open: NULL result");
  *out = NULL;
  if (!name_or_path || !*name_or_path) return fupermod_error(FUPERMOD_ERR_USAGE, "app open: no application given");
  if ((rc = fupermod_plugin_find("app", name_or_path, &path)) != FUPERMOD_SUCCESS) return rc;
  if (!(a = calloc(1, sizeof *a))) {
    free(path);
    return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  }
  a->path = path;
  if (!(a->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL)))
    rc = fupermod_error(FUPERMOD_ERR_INPUT, "application %s: cannot load: %s", path, dlerror());
  else if (!(a->ops = (const fupermod_app_ops *)dlsym(a->handle, "fupermod_app_plugin")))
    rc = fupermod_error(FUPERMOD_ERR_INPUT, "application %s: no symbol fupermod_app_plugin (not a fupermod application)",
                        path);
  else
    rc = check_table(a->ops, path);
  if (rc != FUPERMOD_SUCCESS) {
    fupermod_app_close(a);
    return rc;
  }
  *out = a;
  return FUPERMOD_SUCCESS;
}

void fupermod_app_close(fupermod_app *app) {
  if (!app) return;
  if (app->handle) dlclose(app->handle);
  free(app->path);
  free(app);
}

double fupermod_app_cal_comp(const fupermod_app_cal *cal, int i) {
  double f = cal && cal->comp && i >= 0 ? cal->comp[i] : 1.0;
  return f > 0 && isfinite(f) ? f : 1.0;
}

double fupermod_app_cal_msgs(const fupermod_app_cal *cal) {
  return cal && cal->msgs > 0 && isfinite(cal->msgs) ? cal->msgs : 1.0;
}
