#!/bin/bash
# fupermod build --adaptive: the stopping rule and the round cap; resume after a kill or after
# losing points; energy and hierarchical distributions; usage errors.
ADAPTIVE_HELPERS_ONLY=1 . "$top_srcdir/tests/tools_build_adaptive_opt.sh"
platform 3 6 "$TMPD/p3"
platform 5 4 "$TMPD/p5"

# the stopping rule: the last rounds leave the distribution unchanged and say so
dir="$TMPD/p3"
# (measured points never change, so the rounds settle once the sizes they pick are measured; a
# generous cap leaves room for a host whose late wake-ups make near ties flip for a while)
$MPI -np 6 "$FUPERMOD" build --conf "$dir/p.conf" --data "$TMPD/stop" $GRID --adaptive -a dp --max-rounds 25 >"$TMPD/out" 2>"$TMPD/err"
last=$(grep 'adaptive round' "$TMPD/err" | tail -n 1)
ok $(echo "$last" | grep -q 'changed by 0.0 %.*: done' && grep -q '^# adaptive: .*the distribution stable' "$TMPD/out" && echo 0 || echo 1) \
  "stops when the distribution is unchanged: $last"
grep -q 'model cost: .* s of benchmark time, .* s estimated for the full grid' "$TMPD/out"
ok $? "the build reports its cost against the full grid's"
n=$(grep -c 'adaptive round' "$TMPD/err")
$MPI -np 6 "$FUPERMOD" build --conf "$dir/p.conf" --data "$TMPD/cap" $GRID --adaptive -a dp --max-rounds 1 >"$TMPD/out" 2>"$TMPD/err"
ok $([ "$(grep -c 'adaptive round' "$TMPD/err")" -eq 2 ] && grep -q 'round cap reached' "$TMPD/err" && grep -q 'stopped by the round cap' "$TMPD/out" && echo 0 || echo 1) \
  "--max-rounds 1: the first partition round and one more, then the cap ends it (uncapped: $n rounds)"
# a rerun of a finished build measures nothing
sum() { cat "$1"/*.points | md5sum; }
before=$(sum "$TMPD/stop")
$MPI -np 6 "$FUPERMOD" build --conf "$dir/p.conf" --data "$TMPD/stop" $GRID --adaptive -a dp -q >/dev/null 2>&1
ok $([ $? -eq 0 ] && [ "$before" = "$(sum "$TMPD/stop")" ] && echo 0 || echo 1) "a rerun of a finished build measures nothing"
# lose the last two points of every process: the rerun keeps the others and measures what is missing
for f in "$TMPD"/stop/*.points; do head -n -2 "$f" >"$f.kept"; cp "$f.kept" "$f"; done
$MPI -np 6 "$FUPERMOD" build --conf "$dir/p.conf" --data "$TMPD/stop" $GRID --adaptive -a dp -q >/dev/null 2>&1
rc=$?
bad=0
for f in "$TMPD"/stop/*.points; do
  n=$(wc -l <"$f.kept")
  head -n $n "$f" | cmp -s - "$f.kept" || bad=$((bad + 1))
  [ -z "$(grep -v '^#' "$f" | awk '{ print $1 }' | sort | uniq -d)" ] || bad=$((bad + 1))
done
ok $([ $rc -eq 0 ] && [ $bad -eq 0 ] && echo 0 || echo 1) "after losing points: the kept ones untouched, no size measured twice"
# kill in the middle (after the first round's points), rerun: no size twice, the build finishes
$MPI -np 6 "$FUPERMOD" build --conf "$dir/p.conf" --data "$TMPD/cut" $GRID --adaptive -a dp -q >/dev/null 2>&1 &
pid=$!
for i in $(seq 600); do
  [ "$(grep -vc '^#' "$TMPD/cut/localhost.0.points" 2>/dev/null)" -ge 5 ] 2>/dev/null && break
  sleep 0.1
done
kill -TERM $pid 2>/dev/null
wait $pid 2>/dev/null
n0=$(grep -vc '^#' "$TMPD/cut/localhost.0.points" 2>/dev/null || echo 0)
cp "$TMPD/cut/localhost.0.points" "$TMPD/cut0.kept"
$MPI -np 6 "$FUPERMOD" build --conf "$dir/p.conf" --data "$TMPD/cut" $GRID --adaptive -a dp --max-rounds 25 >"$TMPD/out" 2>"$TMPD/err"
rc=$?
dups=$(for f in "$TMPD"/cut/*.points; do grep -v '^#' "$f" | awk '{ print $1 }' | sort | uniq -d; done)
head -n $(wc -l <"$TMPD/cut0.kept") "$TMPD/cut/localhost.0.points" | cmp -s - "$TMPD/cut0.kept"
kept=$?
ok $([ $rc -eq 0 ] && [ -z "$dups" ] && [ $kept -eq 0 ] && grep -q ': done' "$TMPD/err" && echo 0 || echo 1) \
  "killed after $n0 points of process 0: the rerun keeps them, measures no size twice and finishes"
[ $rc -eq 0 ] && [ -z "$dups" ] && [ $kept -eq 0 ] || echo "# exit $rc, sizes twice: $dups, kept: $kept"
grep -q ': done' "$TMPD/err" || tail -n 3 "$TMPD/err" | sed 's/^/# /'

# the gap probe's reach: process 0 runs 2 units/ms up to 30 units and 1 beyond, the others 1;
# D = 180 gives shares of 60 (T = 0.06 s), so at most 1.5 x 2 x 60 = 180 units could be worth
# probing: the gap 100..320 is probed inside that (without the bound its middle, 210, was)
mkdir -p "$TMPD/gap"
: >"$TMPD/gap/p.conf"
for r in 0 1 2; do
  awk -v r=$r 'BEGIN { for (d = 10; d <= 320; d += 10) { s = (r == 0 && d <= 30) ? 2 : 1; printf "%d %.9g 1 0\n", d, d / s / 1000 } }' >"$TMPD/gap/dev$r.points"
  echo "localhost $r none cpu kernel=emulated,points=$TMPD/gap/dev$r.points" >>"$TMPD/gap/p.conf"
done
$MPI -np 3 "$FUPERMOD" build --conf "$TMPD/gap/p.conf" --data "$TMPD/gap/ad" $GRID --adaptive --units 180 -a dp -q >/dev/null 2>&1
sizes=$(grep -v '^#' "$TMPD/gap/ad/localhost.0.points" 2>/dev/null | awk '{ printf "%s ", $1 }')
ok $(echo "$sizes" | awk '{ for (i = 1; i <= NF; i++) { if ($i > 180 && $i < 320) far++; if ($i > 100 && $i <= 180) probe++ } } END { exit !(NF > 0 && !far && probe) }' && echo 0 || echo 1) \
  "gap probes stay within reach at 1.5 x the best speed (process 0 measured: $sizes)"

# energy: the energy distribution's shares are measured too
mkdir -p "$TMPD/en"
for r in 0 1 2; do
  awk -v r=$r 'BEGIN { for (d = 10; d <= 320; d += 10) { t = d * (0.2 + 0.15 * r) / 1000 * (1 + 0.3 * sin(d / 50 + r))
                       printf "%d %.9g 1 0 %.9g 0\n", d, t, t * (40 - 12 * r) } }' >"$TMPD/en/dev$r.points"
  echo "localhost $r none cpu kernel=emulated,points=$TMPD/en/dev$r.points" >>"$TMPD/en/p.conf"
done
$MPI -np 3 "$FUPERMOD" build --conf "$TMPD/en/p.conf" --data "$TMPD/en/ad" $GRID --adaptive -a dp --adapt-for time,energy \
  >"$TMPD/out" 2>"$TMPD/err"
rc=$?
mpirun_part() { $MPI -np 2 "$FUPERMOD" partition -a paraleph -F sum -D $D "$@" 2>/dev/null | awk '/^ +[0-9]+ +[0-9]+/ { printf "%s ", $2 }'; }
exact_at "$TMPD/en"
ea=$(mpirun_part "$TMPD"/en/exact/dev*.points)
ef=$(mpirun_part "$TMPD"/en/dev*.points)
ok $([ $rc -eq 0 ] && [ -n "$ef" ] && [ "$ea" = "$ef" ] && grep -q ': done' "$TMPD/err" && echo 0 || echo 1) \
  "--adapt-for time,energy: the minimum-energy distribution of the full grid ($ea; full grid $ef)"

# pareto: fupermod run's Pareto choice (least energy within --tradeoff of the fastest on HEPOPTA's
# front) is measured, and on the sizes chosen it is the full grid's
choice() { # tradeoff FILE...: the chosen point's shares
  local x=$1
  shift
  "$FUPERMOD" partition -a hepopta -D $D "$@" 2>/dev/null | awk -v x=$x '
    /^point [0-9]+: time/ { k = $2 + 0; t[k] = $4; n = k + 1; next }
    /^ +[0-9]+ +[0-9]+/ && n { s[n - 1] = s[n - 1] $2 " " }
    END { for (k = 0; k < n; k++) if (t[k] <= t[0] * (1 + x)) c = k; print s[c] }'
}
rm -rf "$TMPD/en/ad" "$TMPD/en/exact"
$MPI -np 3 "$FUPERMOD" build --conf "$TMPD/en/p.conf" --data "$TMPD/en/ad" $GRID --adaptive -a dp --adapt-for pareto \
  --tradeoff 0.3 >"$TMPD/out" 2>"$TMPD/err"
rc=$?
exact_at "$TMPD/en"
pa=$(choice 0.3 "$TMPD"/en/exact/dev*.points)
pf=$(choice 0.3 "$TMPD"/en/dev*.points)
unmeasured=0
r=0
for d in $pa; do
  [ "$d" -eq 0 ] || grep -q "^$d " "$TMPD/en/ad/localhost.$r.points" || unmeasured=$((unmeasured + 1))
  r=$((r + 1))
done
ok $([ $rc -eq 0 ] && [ -n "$pf" ] && [ "$pa" = "$pf" ] && [ $unmeasured -eq 0 ] && grep -q ': done' "$TMPD/err" && echo 0 || echo 1) \
  "--adapt-for pareto --tradeoff 0.3: the Pareto choice of the full grid, its shares measured ($pa; full grid $pf)"
n_ad=$(cat "$TMPD"/en/ad/*.points | grep -vc '^#')
ok $([ "$n_ad" -lt 96 ] && echo 0 || echo 1) "--adapt-for pareto measured $n_ad of the 96 sizes"

# hierarchical: two group= keys, HiPOPTA's shares
dir="$TMPD/p5"
sed -e '1,3s/$/,group=a/' -e '4,$s/$/,group=b/' "$dir/p.conf" >"$TMPD/hier.conf"
P=$(grep -c . "$TMPD/hier.conf")
$MPI -np $P "$FUPERMOD" build --conf "$TMPD/hier.conf" --data "$TMPD/hier" $GRID --adaptive -a dp --adapt-for time,hier \
  >"$TMPD/out" 2>"$TMPD/err"
rc=$?
ok $([ $rc -eq 0 ] && grep -q ': done' "$TMPD/err" && echo 0 || echo 1) "--adapt-for time,hier on two groups finishes"

expect_exit 2 "--adaptive with -m 1" -- "$FUPERMOD" build --conf "$dir/p.conf" --adaptive -m 1 -L 10 -U 20
expect_exit 2 "--units without --adaptive" -- "$FUPERMOD" build --conf "$dir/p.conf" $GRID --units 100
expect_exit 2 "an unknown --adapt-for" -- "$FUPERMOD" build --conf "$dir/p.conf" $GRID --adaptive --adapt-for speed
stderr_has "'speed' is not time, energy, hier or pareto" "the unknown objective is named"
expect_exit 2 "--tradeoff without --adaptive" -- "$FUPERMOD" build --conf "$dir/p.conf" $GRID --tradeoff 0.2
expect_exit 2 "a negative --tradeoff" -- "$FUPERMOD" build --conf "$dir/p.conf" $GRID --adaptive --tradeoff -1
expect_exit 2 "--adaptive with a partitioner that is not discrete" -- "$FUPERMOD" build --conf "$dir/p.conf" $GRID --adaptive -a geometric
stderr_has "-a 'geometric' is not a discrete time partitioner" "the partitioner is named"
expect_exit 2 "--adaptive on decreasing --sizes" -- "$FUPERMOD" build --conf "$dir/p.conf" --sizes 30,20 --adaptive
done_testing
