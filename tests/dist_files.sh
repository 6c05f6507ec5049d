#!/bin/bash
# The release tarball carries the project: every file git tracks is in what `make dist` ships
# (the build, the tests, the docs, the quickstart and the packaging all come from tracked files),
# except git's own .gitignore and the placeholder that keeps m4/ in git. A file added to git but
# to no _SOURCES, EXTRA_DIST or header list fails here, long before a `make distcheck`.
. "$top_srcdir/tests/tap.sh"
unset MAKEFLAGS MFLAGS MAKELEVEL
top=$(cd "$top_srcdir" && pwd -P)
gtop=$(git -C "$top" rev-parse --show-toplevel 2>/dev/null)
if [ -z "$gtop" ] || [ "$(cd "$gtop" && pwd -P)" != "$top" ]; then
  skip "the sources are not a git checkout (a release tarball): nothing to compare with"
  done_testing; exit
fi
make -s -C "$top_builddir" distdir distdir="$TMPD/d" top_distdir="$TMPD/d" >"$TMPD/distdir.log" 2>&1
ok $? "make distdir copies the distribution"
sed 's/^/# /' "$TMPD/distdir.log" | tail -10
git -C "$top" ls-files | grep -vxF -e .gitignore -e m4/.keep | sort >"$TMPD/tracked"
(cd "$TMPD/d" && find . \( -type f -o -type l \) | sed 's|^\./||' | sort) >"$TMPD/shipped"
comm -23 "$TMPD/tracked" "$TMPD/shipped" >"$TMPD/missing"
ok "$([ -s "$TMPD/tracked" ] && [ ! -s "$TMPD/missing" ]; echo $?)" \
  "make dist ships every tracked file ($(wc -l <"$TMPD/tracked") files; missing: $(wc -l <"$TMPD/missing"))"
sed 's/^/# not in the tarball: /' "$TMPD/missing" | head -40
done_testing
