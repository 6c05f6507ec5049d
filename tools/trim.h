/* Header-only, so that files built alone (the campaign parser's fuzzer) can use it too. */
#ifndef FUPERMOD_TOOLS_TRIM_H
#define FUPERMOD_TOOLS_TRIM_H
#include <ctype.h>
#include <string.h>

/* s without leading and trailing white space (cut in place) */
static inline char *tool_trim(char *s) {
  char *e;
  while (isspace((unsigned char)*s)) s++;
  e = s + strlen(s);
  while (e > s && isspace((unsigned char)e[-1])) *--e = '\0';
  return s;
}
#endif
