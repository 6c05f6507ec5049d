#include <math.h>
#include <stdio.h>
#include <string.h>
#include "fupermod/conf.h"
#include "fupermod/error.h"
#include "fupermod/option.h"
#include "fupermod/util.h"

const fupermod_option *fupermod_option_find(const fupermod_option *table, const char *name) {
  for (const fupermod_option *o = table; o && o->name; o++)
    if (strcmp(o->name, name) == 0) return o;
  return NULL;
}

static int in_choices(const char *choices, const char *v) {
  size_t n = strlen(v);
  for (const char *s = choices; s && *s;) {
    const char *bar = strchr(s, '|');
    size_t k = bar ? (size_t)(bar - s) : strlen(s);
    if (k == n && strncmp(s, v, n) == 0) return 1;
    s = bar ? bar + 1 : NULL;
  }
  return 0;
}

static void range_text(const fupermod_option *o, char *buf, size_t size) {
  if (o->min > o->max) snprintf(buf, size, "%s", o->type == FUPERMOD_OPT_LONG ? "an integer" : "a number");
  else snprintf(buf, size, "%s in [%.15g, %.15g]", o->type == FUPERMOD_OPT_LONG ? "an integer" : "a number", o->min, o->max);
}

int fupermod_option_check(const fupermod_option *o, const char *value) {
  char what[128];
  long l;
  double x;
  int bad = 0;
  if (!o || !value) return fupermod_error(FUPERMOD_ERR_USAGE, "option check: NULL argument");
  switch (o->type) {
  case FUPERMOD_OPT_LONG:
    bad = fupermod_parse_long(value, &l) != 0 || (o->min <= o->max && ((double)l < o->min || (double)l > o->max));
    break;
  case FUPERMOD_OPT_DOUBLE:
    bad = fupermod_parse_double(value, &x) != 0 || (o->min <= o->max && (x < o->min || x > o->max));
    break;
  case FUPERMOD_OPT_STRING:
    if (o->choices && !in_choices(o->choices, value))
      return fupermod_error(FUPERMOD_ERR_USAGE, "sub-option %s=%s must be one of %s", o->name, value, o->choices);
    if (!*value) return fupermod_error(FUPERMOD_ERR_USAGE, "sub-option %s= has no value", o->name);
    return FUPERMOD_SUCCESS;
  default:
    return fupermod_error(FUPERMOD_ERR_USAGE, "sub-option %s: unknown type %d in its declaration", o->name, (int)o->type);
  }
  if (!bad) return FUPERMOD_SUCCESS;
  range_text(o, what, sizeof what);
  return fupermod_error(FUPERMOD_ERR_USAGE, "sub-option %s=%s must be %s", o->name, value, what);
}

/* The text of name in subopts (1), else its default (0, or 0 with *text NULL). */
static int value_of(const fupermod_option *table, const char *subopts, const char *name, char *buf, size_t size,
                    const fupermod_option **o, const char **text) {
  int got;
  *text = NULL;
  if (!(*o = fupermod_option_find(table, name)))
    return fupermod_error(FUPERMOD_ERR_USAGE, "sub-option %s is not declared", name);
  if ((got = fupermod_subopt_get(subopts ? subopts : "", name, buf, size)) < 0) return got;
  if (got == 1) {
    int rc = fupermod_option_check(*o, buf);
    if (rc != FUPERMOD_SUCCESS) return rc;
    *text = buf;
    return 1;
  }
  *text = (*o)->def;
  return 0;
}

int fupermod_option_long(const fupermod_option *table, const char *subopts, const char *name, long *out) {
  char buf[64];
  const fupermod_option *o;
  const char *text;
  int got = value_of(table, subopts, name, buf, sizeof buf, &o, &text);
  if (got < 0) return got;
  if (o->type != FUPERMOD_OPT_LONG) return fupermod_error(FUPERMOD_ERR_USAGE, "sub-option %s is not an integer", name);
  if (text && fupermod_parse_long(text, out) != 0)
    return fupermod_error(FUPERMOD_ERR_USAGE, "sub-option %s: default '%s' is not an integer", name, text);
  return got;
}

int fupermod_option_double(const fupermod_option *table, const char *subopts, const char *name, double *out) {
  char buf[64];
  const fupermod_option *o;
  const char *text;
  int got = value_of(table, subopts, name, buf, sizeof buf, &o, &text);
  if (got < 0) return got;
  if (o->type == FUPERMOD_OPT_STRING) return fupermod_error(FUPERMOD_ERR_USAGE, "sub-option %s is not a number", name);
  if (text && fupermod_parse_double(text, out) != 0)
    return fupermod_error(FUPERMOD_ERR_USAGE, "sub-option %s: default '%s' is not a number", name, text);
  return got;
}

int fupermod_option_string(const fupermod_option *table, const char *subopts, const char *name, char *buf, size_t size) {
  const fupermod_option *o;
  const char *text;
  int got;
  if (!buf || size == 0) return fupermod_error(FUPERMOD_ERR_USAGE, "sub-option %s: no buffer", name);
  if ((got = value_of(table, subopts, name, buf, size, &o, &text)) < 0) return got;
  if (got == 0 && text) {
    if (strlen(text) >= size) return fupermod_error(FUPERMOD_ERR_USAGE, "sub-option %s: default too long", name);
    memmove(buf, text, strlen(text) + 1);
  }
  return got;
}

void fupermod_option_describe(const fupermod_option *o, char *buf, size_t size) {
  char what[160];
  if (o->type == FUPERMOD_OPT_STRING)
    snprintf(what, sizeof what, "%s%s", o->choices ? "one of " : "text", o->choices ? o->choices : "");
  else range_text(o, what, sizeof what);
  snprintf(buf, size, "%-14s %s%s%s: %s", o->name, what, o->def ? ", default " : "", o->def ? o->def : "",
           o->help ? o->help : "");
}
