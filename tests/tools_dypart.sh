#!/bin/bash
# fupermod dypart under mpirun -np 2: DPA on two emulated devices with the spec's T7 speed functions
# (T8: GPA, eps 0.02 -> (50,50), (67,33), (62,38)); the iteration cap; errors.
. "$top_srcdir/tests/tap.sh"
MPI="$MPIEXEC --oversubscribe --bind-to none"
# every integer size, times x2 so that wake-up latency cannot move the 0.96% final imbalance past eps;
# energies 10 J per unit for the emulated meter of device 0
for r in 0 1; do
  awk -v r=$r 'BEGIN { for (d = 1; d <= 100; d++) {
    s = r == 1 ? 50 : (d <= 50 ? 100 : 100 - 80 * (d - 50) / 50); printf "%d %.12g 1 0 %.12g 0\n", d, 2 * d / s, 10 * d } }' \
    >"$TMPD/dev$r.points"
done
cat >"$TMPD/two.conf" <<CONF
localhost 0 none cpu kernel=emulated,points=$TMPD/dev0.points,meter=emulated,meter_idle=30,static_power=30
localhost 1 none cpu kernel=emulated,points=$TMPD/dev1.points
CONF
P="-r 1 -R 1"

$MPI -np 2 "$FUPERMOD" dypart --conf "$TMPD/two.conf" -D 100 $P -o "$TMPD/dpa.dist" >"$TMPD/out" 2>"$TMPD/err"
ok $? "dypart converges"
ok $(awk '!/^#/ && NF >= 3 && $1 == 0 && $2 == 62 {a=1} !/^#/ && NF >= 3 && $1 == 1 && $2 == 38 {b=1} END {exit !(a && b)}' "$TMPD/dpa.dist"; echo $?) \
  "the distribution file holds (62,38)"
# a loaded host wakes a sleeping device late, which only lengthens a measured time: the second
# distribution is checked against the speeds measured first (nominal 100 and 50: (67,33)), and one
# spoilt measurement may cost one more
n=$(grep -c 'measurement [0-9]* of at most 20' "$TMPD/err")
ok $(grep -Eq "converged after $n measurements" "$TMPD/out" && [ "$n" -ge 3 ] && [ "$n" -le 4 ] && echo 0 || echo 1) \
  "after $n measurements (3 exactly measured, 4 with one late wake-up)"
ok $(sed -n 's/.*measurement \([0-9]*\) of at most 20: d = (\([0-9]*\),\([0-9]*\)) t = (\([0-9.e-]*\),\([0-9.e-]*\)).*/\1 \2 \3 \4 \5/p' "$TMPD/err" |
     awk -v n="$n" '$1 == 1 { ok1 = $2 == 50 && $3 == 50; s0 = $2 / $4; s1 = $3 / $5; want = 100 * s0 / (s0 + s1) }
                    $1 == 2 { x = $2 - want; ok2 = x <= 1 && x >= -1 && want > 60 }
                    $1 == n { okn = $2 == 62 && $3 == 38 } END { exit !(ok1 && ok2 && okn) }'; echo $?) \
  "progress shows the trace (50,50), the shares of the speeds measured there (about (67,33)), ..., (62,38)"
# measured times 2 x d / s(d) and the meter's dynamic energy 10 J per unit on device 0
ok $(awk '!/^#/ && NF == 4 && $1 == 0 { t = $3; e = $4 } END { exit !(t > 1.52 && t < 1.60 && e > 619.99 && e < 620.01) }' \
     "$TMPD/dpa.dist"; echo $?) "device 0: measured time 1.535 s and metered dynamic energy 620 J"
sed 's/^/# /' "$TMPD/err"

$MPI -np 2 "$FUPERMOD" dypart --conf "$TMPD/two.conf" -D 100 $P -I 1 -q -o "$TMPD/cap.dist" >"$TMPD/out" 2>"$TMPD/err"
ok $? "an iteration cap that stops DPA early is not an error"
ok $(grep -q 'not converged within 1 measurements' "$TMPD/err" && grep -q 'NOT converged' "$TMPD/cap.dist" &&
     awk '!/^#/ && NF >= 3 && $1 == 0 && $2 == 50 {a=1} END {exit !a}' "$TMPD/cap.dist" && echo 0 || echo 1) \
  "it says so and writes the best distribution measured, (50,50)"

expect_exit 2 "no -D" -- "$FUPERMOD" dypart --conf "$TMPD/two.conf"
expect_exit 2 "an unknown algorithm" -- "$FUPERMOD" dypart --conf "$TMPD/two.conf" -D 100 -a nosuch
expect_exit 2 "a discrete algorithm" -- "$FUPERMOD" dypart --conf "$TMPD/two.conf" -D 100 -a hpopta
stderr_has "not a continuous" "the reason is given"
expect_exit 2 "a negative eps" -- "$FUPERMOD" dypart --conf "$TMPD/two.conf" -D 100 --eps -1
expect_exit 2 "fewer units than processes" -- $MPI -np 2 "$FUPERMOD" dypart --conf "$TMPD/two.conf" -D 1 $P
stderr_has "every process needs a first point" "the reason is given"
printf 'localhost 0 none cpu kernel=emulated,points=%s/dev0.points\nlocalhost 1 none cpu kernel=emulated,points=%s/none.points\n' \
  "$TMPD" "$TMPD" >"$TMPD/bad.conf"
expect_exit 1 "a device whose points file is missing" -- $MPI -np 2 "$FUPERMOD" dypart --conf "$TMPD/bad.conf" -D 100 $P
stderr_has "rank 1: .*none.points" "the rank and the file are named"
done_testing
