#!/bin/bash
# No function over 150 lines outside tests/: a long function is split by what its parts do. A
# function opens on a line ending in ") {" outside any function (its signature may span lines) and
# closes at "}" in column 0, the project's style; the checker itself is checked on a long function.
. "$top_srcdir/tests/tap.sh"
measure() { # FILE...: "FILE:LINE: N lines" for each function over 150 lines
  awk '
    FNR == 1 { infn = 0 }
    !infn && /\) *\{ *$/ && !/^#/ { infn = 1; start = FNR; next }
    infn && /^}/ { n = FNR - start + 1; if (n > 150) printf "%s:%d: %d lines\n", FILENAME, start, n; infn = 0 }' "$@"
}
{ printf 'static int f(int a,\n               int b) {\n'; for i in $(seq 150); do echo "  a += $i;"; done; printf '  return a;\n}\n'; } >"$TMPD/long.c"
ok "$(measure "$TMPD/long.c" | grep -q 'long.c:2: 153 lines'; echo $?)" "the checker finds a 153-line function whose signature spans two lines"
files=$(cd "$top_srcdir" && find fupermod partitioners kernels apps tools bench -name '*.c' | sort)
n=$(echo "$files" | wc -l)
long=$(cd "$top_srcdir" && measure $files)
ok "$([ -z "$long" ]; echo $?)" "no function over 150 lines in the $n C files outside tests/"
[ -n "$long" ] && echo "$long" | sed 's/^/# /'
done_testing
