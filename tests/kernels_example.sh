#!/bin/bash
# The kernel of docs/kernels.md, built outside the build system exactly as the page tells a user
# (build-tree form), then checked and measured with the page's check program and `fupermod build`.
. "$top_srcdir/tests/tap.sh"
EX="$top_srcdir/kernels/example"
MPI="$MPIEXEC --oversubscribe --bind-to none"
if ! command -v mpicc >/dev/null 2>&1; then
  echo "1..0 # SKIP mpicc not on PATH"
  exit 0
fi
DOC="$top_srcdir/docs/kernels.md"
# the page shows the whole source, and the commands run below
awk '/<!-- triad.c end -->/ { p = 0 } p && !/^```/ { print } /<!-- triad.c begin -->/ { p = 1 }' "$DOC" >"$TMPD/listing.c"
diff "$TMPD/listing.c" "$EX/triad.c" >"$TMPD/diff" 2>&1
ok $? "docs/kernels.md lists kernels/example/triad.c verbatim"
sed 's/^/# /' "$TMPD/diff"
grep -qF 'mpicc -O2 -Wall -Wextra -shared -fPIC -I"$SRC" triad.c -o fupermod_kernel_triad.so \' "$DOC" &&
  grep -qF '  -L"$BUILD/.libs" -Wl,-rpath,"$BUILD/.libs" -lfupermod' "$DOC"
ok $? "docs/kernels.md shows the build-tree command used here"
# the commands of docs/kernels.md, "From a build tree", with SRC and BUILD filled in
SRC=$top_srcdir BUILD=$top_builddir
cd "$TMPD" || exit 1
cp "$EX/triad.c" .
mpicc -O2 -Wall -Wextra -shared -fPIC -I"$SRC" triad.c -o fupermod_kernel_triad.so \
  -L"$BUILD/.libs" -Wl,-rpath,"$BUILD/.libs" -lfupermod 2>cc.err
ok $? "the example kernel builds with the documented command"
ok "$([ -s cc.err ] && echo 1 || echo 0)" "and without a warning under -Wall -Wextra"
sed 's/^/# /' cc.err
mpicc -O2 -Wall -Wextra -I"$SRC" "$SRC/kernels/example/check.c" -o check \
  -L"$BUILD/.libs" -Wl,-rpath,"$BUILD/.libs" -lfupermod 2>cc2.err
ok $? "the check program builds with the documented command"
ok "$([ -s cc2.err ] && echo 1 || echo 0)" "and without a warning"
sed 's/^/# /' cc2.err

# by path, as `./check ./fupermod_kernel_triad.so ...` in the page
./check ./fupermod_kernel_triad.so block=2048 1 50 >out 2>err
ok $? "check loads it by path, verifies and measures it"
sed 's/^/# /' out err
ok "$(grep -qx 'verify: pass' out && echo 0 || echo 1)" "its self-check passes"
ok "$(awk '!/^verify/ { n++; if (!($2 > 0) || $3 < 3) bad++ } END { exit !(n == 2 && !bad) }' out && echo 0 || echo 1)" \
  "two points with t > 0 and at least 3 repetitions"
# by name through FUPERMOD_KERNEL_PATH, with a bad sub-option
FUPERMOD_KERNEL_PATH="$TMPD" ./check triad block=0 1 >out 2>err
ok "$([ $? -eq 2 ] && grep -q 'block=0' err && echo 0 || echo 1)" "a bad sub-option is refused with exit 2, naming block=0"
sed 's/^/# /' err

# fupermod build under mpirun, the kernel named in the process configuration
cat >k.conf <<CONF
localhost 0 none cpu kernel=triad,block=4096
CONF
FUPERMOD_KERNEL_PATH="$TMPD" $MPI -np 1 "$FUPERMOD" build --conf k.conf --data data --sizes 1,10,100 -r 3 -R 10 -q \
  >out 2>err
ok $? "fupermod build measures it"
sed 's/^/# /' err
P=data/localhost.0.points
ok "$(grep -v '^#' "$P" 2>/dev/null | awk '{ d = d $1 " " } END { exit d != "1 10 100 " }' && echo 0 || echo 1)" \
  "one point per size, in order"
# 100 times the work takes longer than one unit's (a loose bound, robust to load)
ok "$(grep -v '^#' "$P" 2>/dev/null | awk '$1 == 1 { a = $2 } $1 == 100 { b = $2 } END { exit !(a > 0 && b > a) }' &&
  echo 0 || echo 1)" "t(100) > t(1) > 0"
done_testing
