#!/bin/bash
# fupermod build -m 1, the adaptive method of the FuPerMod builder: from -L by -c, the increment
# doubling whenever the slowest process's time / increment exceeds -g; the same sizes on every
# process; a rerun after losing a point measures the same sizes.
. "$top_srcdir/tests/tap.sh"
MPI="$MPIEXEC --oversubscribe --bind-to none"
# t = d * 5e-5 s (device 0) and d * 1e-4 s (device 1, the slowest, which decides)
awk 'BEGIN { for (d = 10; d <= 3000; d += 10) printf "%d %.12g\n", d, d * 5e-5 }' >"$TMPD/dev0.points"
awk 'BEGIN { for (d = 10; d <= 3000; d += 10) printf "%d %.12g\n", d, d * 1e-4 }' >"$TMPD/dev1.points"
cat >"$TMPD/plain.conf" <<CONF
localhost 0 none cpu kernel=emulated,points=$TMPD/dev0.points
localhost 1 none cpu kernel=emulated,points=$TMPD/dev1.points
CONF

# d=100: 0.01/100 = 1e-4 < 1.5e-4 keeps 100 (5 ms of wake-up latency to spare); from d=200 on the
# ratio is 2e-4 > 1.5e-4: sizes 100 200 400 800 1600
AD="-m 1 -L 100 -U 2000 -c 100 -g 1.5e-4 -r 2 -R 2"
$MPI -np 2 "$FUPERMOD" build --conf "$TMPD/plain.conf" --data "$TMPD/ad" $AD >"$TMPD/out" 2>"$TMPD/err"
ok $? "adaptive build"
for r in 0 1; do
  s=$(grep -v '^#' "$TMPD/ad/localhost.$r.points" | awk '{print $1}' | tr '\n' ' ')
  ok $([ "$s" = "100 200 400 800 1600 " ] && echo 0 || echo 1) "process $r: sizes 100 200 400 800 1600 (got $s)"
done
ok $(grep -q 'point 1 of at most' "$TMPD/err" && echo 0 || echo 1) "progress counts points of at most the remaining range"
head -n 5 "$TMPD/ad/localhost.0.points" >"$TMPD/first"
grep -v '^1600 ' "$TMPD/ad/localhost.0.points" >"$TMPD/cut" && cp "$TMPD/cut" "$TMPD/ad/localhost.0.points"
$MPI -np 2 "$FUPERMOD" build --conf "$TMPD/plain.conf" --data "$TMPD/ad" $AD -q >/dev/null 2>"$TMPD/err"
ok $? "adaptive rerun after losing the last point"
s=$(grep -v '^#' "$TMPD/ad/localhost.0.points" | awk '{print $1}' | tr '\n' ' ')
ok $([ "$s" = "100 200 400 800 1600 " ] && head -n 5 "$TMPD/ad/localhost.0.points" | cmp -s - "$TMPD/first" && echo 0 || echo 1) \
  "the same sizes again, the kept points untouched, the lost one measured anew"
expect_exit 2 "-m 1 without -U" -- "$FUPERMOD" build --conf "$TMPD/plain.conf" -m 1 -L 10
expect_exit 2 "-m 2" -- "$FUPERMOD" build --conf "$TMPD/plain.conf" -m 2 -L 10 -U 20
expect_exit 2 "-c with the fixed method" -- "$FUPERMOD" build --conf "$TMPD/plain.conf" -L 10 -U 20 -s 3 -c 5
expect_exit 2 "-s with the adaptive method" -- "$FUPERMOD" build --conf "$TMPD/plain.conf" -m 1 -L 10 -U 20 -s 3

done_testing
