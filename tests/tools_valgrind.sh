#!/bin/bash
# valgrind memcheck on the serial tools: no invalid access, no definite leak, on success and on
# bad input (tests/valgrind.supp holds the dynamic loader's known false positives).
. "$top_srcdir/tests/tap.sh"
if ! command -v valgrind >/dev/null 2>&1; then
  echo "1..0 # SKIP valgrind not installed"
  exit 0
fi
E="$top_srcdir/configs/emulated"
vg() { # vg WANT DESCRIPTION ARGS...
  want=$1; desc=$2; shift 2
  # the full command, which runs the same partition code as the front: the front may be linked
  # statically, and memcheck cannot follow a static program's own malloc
  bin="$top_builddir/tools/fupermod-mpi"
  "$top_builddir/libtool" --mode=execute valgrind -q --suppressions="$top_srcdir/tests/valgrind.supp" \
    --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite "$bin" "$@" >/dev/null 2>"$TMPD/vg"
  got=$?
  ok $([ $got -eq "$want" ] && echo 0 || echo 1) "valgrind clean: $desc (exit $got)"
  [ $got -eq "$want" ] || sed 's/^/# /' "$TMPD/vg" | head -40
}
printf '10 1\n20 x\n' >"$TMPD/bad.points"
vg 0 "partition -a dp" partition -a dp -D 2400 "$E/fast.points" "$E/slow.points"
vg 0 "partition -a hepopta --json" partition -a hepopta -D 600 --json "$E/fast.points" "$E/slow.points"
vg 0 "partition -a numerical (Akima models, GSL solver)" partition -a numerical -D 3000 "$E/fast.points" "$E/accel.points"
vg 0 "partition -a geometric -o" partition -a geometric -D 3000 -o "$TMPD/g.dist" "$E/fast.points" "$E/accel.points"
vg 0 "model -m akima (full command)" model -m akima "$E/accel.points"
vg 1 "a malformed point file" partition -a dp -D 10 "$TMPD/bad.points"
vg 1 "a missing file" model "$TMPD/none.points"
vg 3 "an infeasible D" partition -a hpopta -D 75 "$E/fast.points" "$E/slow.points"
vg 2 "an unknown algorithm" partition -a magic -D 5 "$E/fast.points"
done_testing
