/* The line reader shared by the text formats (fupermod/lines.h), and the four readers built on
 * it: long lines, CRLF, a missing final newline, comments and blank lines, alike everywhere. */
#include <stdlib.h>
#include <string.h>
#include "fupermod/fupermod.h"
#include "fupermod/lines.h"
#include "partitioners/matrix.h"
#include "tests/tap.h"

/* Every line with a field of text as "LINE:field|field|...;" into out. */
static int read_all(const char *text, size_t len, char *out, size_t size) {
  fupermod_lines rd;
  char *line, *f[8];
  int rc;
  size_t k = 0;
  out[0] = '\0';
  fupermod_lines_init(&rd, text, len, "t");
  while ((rc = fupermod_lines_next(&rd, &line)) == FUPERMOD_SUCCESS && line) {
    int n = fupermod_lines_fields(line, f, 8);
    k += (size_t)snprintf(out + k, size - k, "%d:", rd.line);
    for (int i = 0; i < n && i < 8; i++) k += (size_t)snprintf(out + k, size - k, "%s%s", i ? "|" : "", f[i]);
    k += (size_t)snprintf(out + k, size - k, ";");
    if (k >= size) break;
  }
  fupermod_lines_free(&rd);
  return rc;
}

static void reads(const char *text, const char *want, const char *what) {
  char got[512];
  int rc = read_all(text, strlen(text), got, sizeof got);
  if (!ok(rc == 0 && strcmp(got, want) == 0, "%s", what)) diag("rc %d, got '%s', want '%s'", rc, got, want);
}

int main(void) {
  char got[512], *line, *f[3];
  fupermod_lines rd;
  int rc;

  reads("", "", "empty text: no line");
  reads("a b\nc\n", "1:a|b;2:c;", "two lines, numbered from 1");
  reads("# head\n\n   \t\na 1 # tail\n#\nb 2\n", "4:a|1;6:b|2;",
        "comments and blank lines are skipped but counted");
  reads("a 1\r\n\r\nb 2\r\n", "1:a|1;3:b|2;", "CRLF: no '\\r' in a field, a CRLF-only line is blank");
  reads("a 1\nb 2", "1:a|1;2:b|2;", "a last line without its newline is read");
  reads("a\n\n\n", "1:a;", "trailing empty lines add nothing");
  reads("\v\f \n x\vy\fz \n", "2:x|y|z;", "vertical tabs and form feeds are blanks");
  reads("ab#cd ef\n#x 1\n", "1:ab;", "'#' starts a comment inside a field too");

  { /* a line far longer than any buffer the readers used to have */
    size_t n = 100000;
    char *t = malloc(n + 64);
    memset(t, ' ', n);
    memcpy(t, "x", 1);
    strcpy(t + n - 10, "y # c\nz\n");
    rc = read_all(t, strlen(t), got, sizeof got);
    ok(rc == 0 && strcmp(got, "1:x|y;2:z;") == 0, "a 100000-byte line is read whole");
    free(t);
  }
  { /* the length given is the end, not a NUL */
    const char t[] = "a 1\nb 2\n";
    rc = read_all(t, 4, got, sizeof got);
    ok(rc == 0 && strcmp(got, "1:a|1;") == 0, "reading stops at the length given");
  }
  { /* a NUL byte is an error naming the line, never a silent cut */
    const char t[] = "a\nb\0c\n";
    rc = read_all(t, sizeof t - 1, got, sizeof got);
    ok(rc == FUPERMOD_ERR_INPUT && strstr(fupermod_error_message(), "t:2: binary data") != NULL,
       "a NUL byte is reported with its line");
  }
  fupermod_lines_init(&rd, "a\n", 2, "t");
  rc = fupermod_lines_next(&rd, &line);
  rc |= fupermod_lines_next(&rd, &line);
  ok(rc == 0 && line == NULL && fupermod_lines_next(&rd, &line) == 0 && line == NULL && rd.line == 1,
     "after the end the reader keeps returning no line");
  fupermod_lines_free(&rd);
  {
    char s[] = " a  b\tc d ";
    ok(fupermod_lines_fields(s, f, 3) == 4 && strcmp(f[0], "a") == 0 && strcmp(f[2], "c") == 0,
       "fields: more than max gives max + 1");
  }

  /* the four readers on the same shapes of text */
  {
    size_t n = 5000;
    char *t = malloc(2 * n + 64);
    fupermod_points p;
    fupermod_conf c;
    memset(t, ' ', n);
    strcpy(t + n, "10 1 # long\n20 2");
    rc = fupermod_points_parse(t, strlen(t), "p", &p);
    ok(rc == 0 && p.count == 2 && p.pts[1].d == 20, "points: a long line and no final newline");
    if (rc == 0) fupermod_points_free(&p);
    t[0] = '#';
    memset(t + 1, 'x', n - 1);
    strcpy(t + n, "\r\nlocalhost\f0 none cpu\r\n");
    rc = fupermod_conf_parse(t, strlen(t), "c", &c);
    ok(rc == 0 && c.count == 1 && c.procs[0].line == 2, "configuration: a long comment, CRLF, a form feed");
    if (rc == 0) fupermod_conf_free(&c);
    free(t);
  }
  {
    const char *t = "# fupermod distribution v1\r\n\r\n2\v2 # D size\r\n0 1\r\n1\f1";
    fupermod_dist *d = NULL;
    rc = fupermod_dist_parse(t, strlen(t), "d", &d);
    ok(rc == 0 && d && d->D == 2 && d->parts[1].d == 1, "distribution: CRLF, blanks, no final newline");
    fupermod_dist_free(d);
    {
      const char *u = "\n2 2\n0 x\n";
      rc = fupermod_dist_parse(u, strlen(u), "d", &d);
    }
    ok(rc != 0 && strstr(fupermod_error_message(), "d:3:") != NULL, "distribution: messages name the line");
  }
  {
    const char *t = "# layout\r\n1 1 1 0\r\n\r\n0\v0 0 1 1 -1 # all";
    fupermod_layout *l = NULL;
    rc = fupermod_layout_parse(t, strlen(t), "l", &l);
    ok(rc == 0 && l && l->p == 1, "layout: CRLF, blanks, no final newline");
    fupermod_layout_free(l);
    {
      const char *u = "1 1 1 0\n#\n0 0 0 1 x -1\n";
      rc = fupermod_layout_parse(u, strlen(u), "l", &l);
    }
    ok(rc != 0 && strstr(fupermod_error_message(), "l:3:") != NULL, "layout: messages name the line");
  }
  return done_testing();
}
