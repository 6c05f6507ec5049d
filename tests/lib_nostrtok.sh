#!/bin/bash
# The library keeps no hidden parser state: no strtok (nor strtok_r) anywhere in it; the text
# formats share fupermod/lines.c.
. "$top_srcdir/tests/tap.sh"
lib="$top_builddir/.libs/libfupermod.so"
[ -f "$lib" ] || lib="$top_builddir/.libs/libfupermod.a"
nm "$lib" >"$TMPD/syms" 2>/dev/null
ok $? "nm reads $(basename "$lib")"
ok $(grep -Eq ' U strtok(_r)?(@|$)' "$TMPD/syms" && echo 1 || echo 0) "the library calls no strtok or strtok_r"
ok $(grep -Eq ' [Tt] fupermod_lines_next$' "$TMPD/syms" && echo 0 || echo 1) "the shared line reader is in the library"
done_testing
