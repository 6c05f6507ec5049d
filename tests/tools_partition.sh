#!/bin/bash
# The `fupermod partition` contract: output formats, exit statuses, messages.
. "$top_srcdir/tests/tap.sh"
E="$top_srcdir/configs/emulated"
# T7 of the FuPerMod digest: GPA gives (62,38), CPM (67,33); speeds as (d, t = d/s)
printf '10 0.1\n50 0.5\n100 5\n' >"$TMPD/A.points"
printf '10 0.2\n100 2\n' >"$TMPD/B.points"
"$FUPERMOD" partition -a geometric -D 100 --json "$TMPD/A.points" "$TMPD/B.points" >"$TMPD/gpa.json"
ok $? "geometric runs"
ok $(grep -q '"parts":\[{"d":62,.*{"d":38,' "$TMPD/gpa.json" && echo 0 || echo 1) "GPA gives (62,38)"
"$FUPERMOD" partition -a cpm -D 100 --json "$TMPD/A.points" "$TMPD/B.points" >"$TMPD/cpm.json"
ok $(grep -q '"parts":\[{"d":67,.*{"d":33,' "$TMPD/cpm.json" && echo 0 || echo 1) "CPM gives (67,33)"
ok $(grep -q '"energy"' "$TMPD/gpa.json" && echo 1 || echo 0) "no energy key when the files have no energy"
# JSON shape with energy, -p, -o
"$FUPERMOD" partition -a dp -D 600 -p 3 --json -o "$TMPD/dp.dist" "$E/medium.points" >"$TMPD/dp.json"
ok $? "dp with one file for 3 processors"
ok $(grep -Eq '^\{"algorithm":"dp","D":600,"time":[0-9.e-]+,"energy":[0-9.e-]+,"parts":\[(\{"d":[0-9]+,"t":[0-9.e-]+,"e":[0-9.e-]+\},?){3}\]\}$' "$TMPD/dp.json" && echo 0 || echo 1) "single-objective JSON shape"
# the file's shares, rank by rank, are the JSON's parts
want=$(sed 's/.*"parts":\[//' "$TMPD/dp.json" | grep -o '"d":[0-9]*' | cut -d: -f2 | tr '\n' ' ')
got=$(awk '!/^#/ && NF >= 3 { if ($1 != n++) print "rank?"; printf "%s ", $2 }' "$TMPD/dp.dist")
ok $([ "$(grep -v '^#' "$TMPD/dp.dist" | head -1)" = "600 3" ] && [ "$got" = "$want" ] &&
     awk -v w="$want" 'BEGIN { n = split(w, x, " "); for (i = 1; i <= n; i++) s += x[i]; exit !(n == 3 && s == 600) }' &&
     echo 0 || echo 1) "distribution file written with the shares of the JSON ($got)"
"$FUPERMOD" partition -a hepopta -D 300 --json "$E/fast.points" "$E/slow.points" >"$TMPD/front.json"
ok $(grep -Eq '^\{"algorithm":"hepopta","D":300,"front":\[\{"time":' "$TMPD/front.json" && echo 0 || echo 1) "Pareto JSON shape"
"$FUPERMOD" partition -a htpopta -D 300 --static-power 10 --json "$E/fast.points" "$E/slow.points" >"$TMPD/tfront.json"
ok $(grep -q '"dynamic_energy"' "$TMPD/tfront.json" && echo 0 || echo 1) "htpopta reports dynamic_energy"
# static power 0 is a valid platform: the fronts of total energy then agree with dp's (the oracle)
"$FUPERMOD" partition -a dp -F pareto-total --static-power 0 -D 1200 --json "$E"/*.points >"$TMPD/dp_t0.json"
"$FUPERMOD" partition -a htpopta --static-power 0 -D 1200 --json "$E"/*.points >"$TMPD/ht0.json"
ok $([ $? -eq 0 ] && [ -s "$TMPD/ht0.json" ] && sed 's/"algorithm":"dp"/"algorithm":"htpopta"/' "$TMPD/dp_t0.json" | cmp -s - "$TMPD/ht0.json" && echo 0 || echo 1) "htpopta with static power 0 equals dp's front of total energy"
$MPIEXEC --oversubscribe --bind-to none -np 2 "$FUPERMOD" partition -a paraleph -F pareto-total --static-power 0 -D 1200 --threads 1 --json "$E"/*.points >"$TMPD/pl_t0.json" 2>"$TMPD/err"
ok $([ $? -eq 0 ] && [ -s "$TMPD/pl_t0.json" ] && sed 's/"algorithm":"dp"/"algorithm":"paraleph"/' "$TMPD/dp_t0.json" | cmp -s - "$TMPD/pl_t0.json" && echo 0 || echo 1) "paraleph -F pareto-total with static power 0 equals dp"
# --layout: the units are the blocks of a 24 x 24 matrix; dp's 306 144 126 is no set of whole
# rectangles, so the distribution becomes the fitted layout's areas, each predicted
for i in 0 1 2; do
  awk -v s="$(echo "2.2 1.05 1" | cut -d' ' -f$((i + 1)))" 'BEGIN { for (k = 1; k <= 32; k++) printf "%d %.9g\n", 18 * k, 18 * k / s / 1000 }' >"$TMPD/b$i.points"
done
"$FUPERMOD" partition -a dp -D 576 --json "$TMPD"/b?.points >"$TMPD/b.json"
ok $(grep -q '"parts":\[{"d":306,.*{"d":144,.*{"d":126,' "$TMPD/b.json" && echo 0 || echo 1) "dp gives 306 144 126 blocks"
"$FUPERMOD" partition -a dp -D 576 --blocks 24 --layout "$TMPD/b.layout" --json -o "$TMPD/b.dist" "$TMPD"/b?.points >"$TMPD/bl.json"
ok $? "dp with --blocks 24 --layout"
areas=$(awk '!/^#/ && NF == 6 { printf "%d ", $4 * $5 }' "$TMPD/b.layout")
dist=$(awk '!/^#/ && NF == 4 { printf "%s ", $2 }' "$TMPD/b.dist")
json=$(sed 's/.*"parts":\[//' "$TMPD/bl.json" | grep -o '"d":[0-9]*' | cut -d: -f2 | tr '\n' ' ')
ok $([ "$areas" = "312 132 132 " ] && [ "$dist" = "$areas" ] && [ "$json" = "$areas" ] && echo 0 || echo 1) \
  "the layout's areas (312 132 132: $areas), written and printed as the distribution ($dist / $json)"
ok $(awk -v t="$(grep -o '"time":[0-9.e-]*' "$TMPD/bl.json" | cut -d: -f2)" \
     'BEGIN { w = 312 / 2.2 / 1000; exit !(t > w * (1 - 1e-6) && t < w * (1 + 1e-6)) }' && echo 0 || echo 1) \
  "its time is process 0's on 312 blocks, between measured sizes"
"$FUPERMOD" partition -a dp -D 576 --blocks 24x24 --layout "$TMPD/b2.layout" "$TMPD"/b?.points >/dev/null
ok $(cmp -s "$TMPD/b.layout" "$TMPD/b2.layout" && echo 0 || echo 1) "--blocks 24x24 is --blocks 24"
$MPIEXEC --oversubscribe --bind-to none -np 2 "$FUPERMOD" partition -a paraleph -D 576 --threads 1 --blocks 24 --layout "$TMPD/b3.layout" "$TMPD"/b?.points >/dev/null 2>"$TMPD/err"
ok $(cmp -s "$TMPD/b.layout" "$TMPD/b3.layout" && echo 0 || echo 1) "paraleph under mpirun writes the same layout"
expect_exit 2 "--layout without --blocks" -- "$FUPERMOD" partition -a dp -D 576 --layout "$TMPD/x.layout" "$TMPD"/b?.points
stderr_has "go together" "says what is missing"
expect_exit 2 "--blocks that do not make D" -- "$FUPERMOD" partition -a dp -D 570 --blocks 24 --layout "$TMPD/x.layout" "$TMPD"/b?.points
stderr_has "makes 576 blocks, not -D 570" "names both"
expect_exit 2 "--layout with an energy objective" -- "$FUPERMOD" partition -a dp -F sum -D 576 --blocks 24 --layout "$TMPD/x.layout" "$E/fast.points"
stderr_has "takes a time partitioner" "says why"
expect_exit 2 "--blocks not a size" -- "$FUPERMOD" partition -a dp -D 576 --blocks 24y3 --layout "$TMPD/x.layout" "$TMPD"/b?.points
stderr_has "--blocks '24y3'" "the value named"
# --smooth W: partition the smoothed functions, as fupermod run does; one lucky point (110 units
# measured twice as fast) wins on the raw points and not on the smoothed ones
awk 'BEGIN { for (d = 10; d <= 200; d += 10) printf "%d %.9g 5 %.9g\n", d, (d == 110 ? 0.5 : 1) * d / 1000, d / 1e5 }' >"$TMPD/s0.points"
awk 'BEGIN { for (d = 10; d <= 200; d += 10) printf "%d %.9g 5 %.9g\n", d, d / 1000, d / 1e5 }' >"$TMPD/s1.points"
"$FUPERMOD" partition -a dp -D 200 --json "$TMPD"/s?.points >"$TMPD/raw.json"
"$FUPERMOD" partition -a dp -D 200 --smooth 3 --json "$TMPD"/s?.points >"$TMPD/sm.json"
ok $(grep -q '"parts":\[{"d":110,' "$TMPD/raw.json" && grep -q '"parts":\[{"d":100,' "$TMPD/sm.json" && echo 0 || echo 1) \
  "--smooth 3 does not take the lucky point (raw: $(grep -o '"d":[0-9]*' "$TMPD/raw.json" | head -1), smoothed: $(grep -o '"d":[0-9]*' "$TMPD/sm.json" | head -1))"
$MPIEXEC --oversubscribe --bind-to none -np 2 "$FUPERMOD" partition -a paraleph -D 200 --threads 1 --smooth 3 --json "$TMPD"/s?.points 2>"$TMPD/err" |
  sed 's/"algorithm":"paraleph"/"algorithm":"dp"/' >"$TMPD/plsm.json"
ok $(cmp -s "$TMPD/sm.json" "$TMPD/plsm.json" && echo 0 || echo 1) "paraleph --smooth 3 under mpirun equals dp --smooth 3"
expect_exit 2 "--smooth not a number" -- "$FUPERMOD" partition -a dp -D 200 --smooth -1 "$TMPD"/s?.points
stderr_has "--smooth '-1'" "the value named"
# exit statuses and messages
expect_exit 3 "D beyond what the functions hold" -- "$FUPERMOD" partition -a dp -D 100000 "$E/fast.points" "$E/slow.points"
stderr_has "fupermod partition: " "one clear line"
expect_exit 3 "D not composable from measured sizes" -- "$FUPERMOD" partition -a hpopta -D 75 "$E/fast.points" "$E/slow.points"
expect_exit 2 "unknown algorithm" -- "$FUPERMOD" partition -a magic -D 10 "$E/fast.points"
stderr_has "unknown partitioner 'magic'" "algorithm named"
expect_exit 2 "missing -D" -- "$FUPERMOD" partition -a dp "$E/fast.points"
expect_exit 2 "negative D" -- "$FUPERMOD" partition -a dp -D -5 "$E/fast.points"
expect_exit 2 "-p with two files" -- "$FUPERMOD" partition -a dp -D 5 -p 2 "$E/fast.points" "$E/slow.points"
expect_exit 1 "missing file" -- "$FUPERMOD" partition -a dp -D 5 "$TMPD/none.points"
stderr_has "none.points" "file named"
expect_exit 1 "directory instead of a file" -- "$FUPERMOD" partition -a dp -D 5 "$TMPD"
stderr_has "is a directory" "said so"
printf '10 1\n10 2\n' >"$TMPD/dup.points"
expect_exit 1 "duplicate size" -- "$FUPERMOD" partition -a even -D 5 "$TMPD/dup.points"
stderr_has "dup.points:2: duplicate d=10" "file and line named"
printf '10 1\r\n20 nan\r\n' >"$TMPD/nan.points"
expect_exit 1 "NaN time in a CRLF file" -- "$FUPERMOD" partition -a cpm -D 5 "$TMPD/nan.points"
stderr_has "nan.points:2:" "line named"
expect_exit 1 "energy algorithm without energy" -- "$FUPERMOD" partition -a heopta -D 100 "$TMPD/A.points" "$TMPD/B.points"
stderr_has "energy" "energy named"
expect_exit 2 "htpopta without static power" -- "$FUPERMOD" partition -a htpopta -D 100 "$E/fast.points"
stderr_has "needs --static-power" "the missing option named"
expect_exit 2 "popta with different functions" -- "$FUPERMOD" partition -a popta -D 100 "$E/fast.points" "$E/slow.points"
expect_exit 0 "D = 0" -- "$FUPERMOD" partition -a dp -D 0 "$E/fast.points" "$E/slow.points"
"$FUPERMOD" partition -a geometric -D 3000 --conf "$top_srcdir/configs/emulated.conf" --data "$E/../emulated-data-none" >/dev/null 2>"$TMPD/err"
ok $([ $? -eq 1 ] && grep -q 'localhost.0.points' "$TMPD/err" && echo 0 || echo 1) "--conf/--data names the missing point file"
# the rest of the bad-input catalogue through the real tool: one clear line, and nothing written
printf '10 1\n\0\1\2\3' >"$TMPD/binary.points"
expect_exit 1 "binary file" -- "$FUPERMOD" partition -a dp -D 10 -o "$TMPD/never.dist" "$TMPD/binary.points"
stderr_has "binary.points: binary data" "binary data named"
printf '10 1\n20' >"$TMPD/trunc.points"
expect_exit 1 "truncated last line" -- "$FUPERMOD" partition -a dp -D 10 -o "$TMPD/never.dist" "$TMPD/trunc.points"
stderr_has "trunc.points:2: a point needs at least d and t" "truncated line named"
printf '99999999999999999999999 1\n' >"$TMPD/huge.points"
expect_exit 1 "huge size" -- "$FUPERMOD" partition -a dp -D 10 -o "$TMPD/never.dist" "$TMPD/huge.points"
stderr_has "huge.points:1: d" "huge size named"
printf '10 0\n' >"$TMPD/zero.points"
expect_exit 1 "zero time" -- "$FUPERMOD" partition -a cpm -D 10 -o "$TMPD/never.dist" "$TMPD/zero.points"
stderr_has "zero.points:1: t must be > 0" "zero time named"
: >"$TMPD/empty.points"
expect_exit 1 "empty file" -- "$FUPERMOD" partition -a dp -D 10 -o "$TMPD/never.dist" "$TMPD/empty.points"
stderr_has "empty.points: no data points" "empty file named"
expect_exit 2 "huge D" -- "$FUPERMOD" partition -a dp -D 99999999999999999999999 "$E/fast.points"
ok $([ -z "$(ls -A "$TMPD" | grep '^never')" ] && echo 0 || echo 1) "no output file, no temporary left behind after a failure"
# paraleph under mpirun gives the same JSON as the sequential exact dp, for max and sum
MPI="$MPIEXEC --oversubscribe --bind-to none"
for F in max sum; do
  "$FUPERMOD" partition -a dp -F $F -D 2400 --json "$E"/*.points | sed 's/"algorithm":"dp"/"algorithm":"paraleph"/' >"$TMPD/dp_$F.json"
  for np in 1 3; do
    $MPI -np $np "$FUPERMOD" partition -a paraleph -F $F -D 2400 --threads 1 --json "$E"/*.points >"$TMPD/pl.json" 2>"$TMPD/err"
    ok $([ $? -eq 0 ] && cmp -s "$TMPD/pl.json" "$TMPD/dp_$F.json" && echo 0 || echo 1) "paraleph -F $F on $np processes equals dp"
  done
done
expect_exit 3 "paraleph: infeasible D ends every process with status 3" -- $MPI -np 2 "$FUPERMOD" partition -a paraleph -D 100000 "$E/fast.points"
expect_exit 1 "paraleph: a missing file ends every process with status 1" -- $MPI -np 2 "$FUPERMOD" partition -a paraleph -D 10 "$TMPD/none.points"
stderr_has "none.points" "file named"
# -p with hundreds of thousands of processes: the notes print a few idle reasons and count the
# rest (each reason is a pass over the distribution: all of them took hours)
timeout 120 "$FUPERMOD" partition -a geometric -D 8 -p 380800 "$E/fast.points" >"$TMPD/many.out" 2>&1
rc=$?
n=$(grep -c ' idle: ' "$TMPD/many.out")
ok $([ $rc -eq 0 ] && [ "$n" -eq 16 ] && grep -q '^  \.\.\. and [0-9]* more processes idle$' "$TMPD/many.out" && echo 0 || echo 1) \
  "-p 380800, D = 8: done (status $rc), $n idle reasons printed and the rest counted"
done_testing
