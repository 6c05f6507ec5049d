#!/bin/bash
# Per-device grids (docs/models.md, "Adaptive building"): a device 9 times slower than the other
# has an optimal share of 10 % of D, under one step of an 8-size grid. Without --refine the
# adaptive build leaves it idle; with it the grid's step shrinks, the slow device's share and the
# fast one's complement are measured, and their distribution beats the fast device alone on the
# exact functions. The gain (10 % of a 6.4 ms makespan) is many times a sleeping kernel's jitter
# on a loaded machine, so the measured points rank the candidates as the exact functions do.
. "$top_srcdir/tests/tap.sh"
MPI="$MPIEXEC --oversubscribe --bind-to none"
D=3200
awk 'BEGIN { for (d = 1; d <= 3200; d++) printf "%d %.9g 1 0\n", d, d * 2e-6 }' >"$TMPD/fast.points"
awk 'BEGIN { for (d = 1; d <= 3200; d++) printf "%d %.9g 1 0\n", d, d * 1.8e-5 }' >"$TMPD/slow.points"
cat >"$TMPD/p.conf" <<CONF
localhost 0 none cpu kernel=emulated,points=$TMPD/fast.points
localhost 1 none cpu kernel=emulated,points=$TMPD/slow.points
CONF
GRID="-L 400 -U $D -s 8 -r 2 -R 2 --adaptive -a dp"
# makespan DIST: the distribution's makespan on the exact functions (d x 2e-6, d x 1.8e-5)
makespan() { awk '!/^#/ && NR > 4 && NF >= 2 { t = $2 * ($1 == 0 ? 2e-6 : 1.8e-5); if (t > m) m = t } END { print m + 0 }' "$1"; }
share() { awk -v r=$2 '!/^#/ && NR > 4 && NF >= 2 && $1 == r { print $2 }' "$1"; }

for mode in coarse refine; do
  extra=""
  [ $mode = refine ] && extra="--refine"
  $MPI -np 2 "$FUPERMOD" build --conf "$TMPD/p.conf" --data "$TMPD/$mode" $GRID $extra >"$TMPD/$mode.out" 2>"$TMPD/$mode.err"
  ok $? "adaptive build, $mode grid"
  "$FUPERMOD" partition -a dp -D $D "$TMPD/$mode/localhost.0.points" "$TMPD/$mode/localhost.1.points" -o "$TMPD/$mode.dist" >/dev/null 2>&1
  ok $? "$mode: partition of the measured points"
done
ok $([ "$(share "$TMPD/coarse.dist" 1)" = 0 ] && ! grep -q refined "$TMPD/coarse.err" && echo 0 || echo 1) \
  "without --refine the slow device is idle (share $(share "$TMPD/coarse.dist" 1)): its share is under one grid step"
step=$(sed -n 's/.*grid refined to steps of \([0-9]*\) .*/\1/p' "$TMPD/refine.err")
x=$(sed -n 's/.* could do \([0-9.]*\) units within the makespan.*/\1/p' "$TMPD/refine.err")
# the rule: the largest divisor of 400 (at most 1024 sizes) with 8 steps within what it could do
want=$(awk -v x="$x" 'BEGIN { s = 0; for (r = 2; r <= 400; r++) if (400 % r == 0) { if (3200 / (400 / r) > 1024) break
        s = 400 / r; if (8 * s <= x) break }; print s }')
ok $([ -n "$step" ] && [ "$step" = "$want" ] && [ "$step" -ge 25 ] && [ "$step" -le 50 ] && echo 0 || echo 1) \
  "with --refine the grid's step becomes $step: the largest divisor of 400 giving the slow device 8 steps of the $x units it could do (want $want)"
s1=$(share "$TMPD/refine.dist" 1)
small=$(grep -v '^#' "$TMPD/refine/localhost.1.points" | awk '$1 < 400 { n++ } END { print n + 0 }')
ok $([ -n "$s1" ] && [ "$s1" -gt 0 ] && [ "$s1" -lt 400 ] && [ "$small" -ge 2 ] && echo 0 || echo 1) \
  "the slow device gets a share under the old step ($s1 units), measured among $small sizes under 400"
tc=$(makespan "$TMPD/coarse.dist")
tr=$(makespan "$TMPD/refine.dist")
ok $(awk -v c="$tc" -v r="$tr" 'BEGIN { exit !(r < c && r <= 0.95 * 6.4e-3) }' && echo 0 || echo 1) \
  "its distribution is faster on the exact functions: $tr s against $tc s (optimum 5.76 ms, the fast device alone 6.4 ms)"
n=$(grep -vc '^#' "$TMPD/refine/localhost.0.points")
ok $([ "$n" -le 16 ] && echo 0 || echo 1) "the fast device measured $n sizes, not the 80 of the finer grid"
expect_exit 2 "--refine without --adaptive" -- "$FUPERMOD" build --conf "$TMPD/p.conf" -L 100 -U 200 -s 2 --refine
done_testing
