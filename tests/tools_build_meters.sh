#!/bin/bash
# fupermod build with energy meters: dynamic energies in the point files, the model meter labelled
# ESTIMATE, a shared external meter, resume rules, configuration errors naming the line.
. "$top_srcdir/tests/tap.sh"
MPI="$MPIEXEC --oversubscribe --bind-to none"
# t = d * 5e-5 s (device 0, 0.5 J per unit) and d * 1e-4 s (device 1, no energy)
awk 'BEGIN { for (d = 10; d <= 3000; d += 10) printf "%d %.12g 1 0 %.12g 0\n", d, d * 5e-5, 0.5 * d }' >"$TMPD/dev0.points"
awk 'BEGIN { for (d = 10; d <= 3000; d += 10) printf "%d %.12g\n", d, d * 1e-4 }' >"$TMPD/dev1.points"
cat >"$TMPD/plain.conf" <<CONF
localhost 0 none cpu kernel=emulated,points=$TMPD/dev0.points
localhost 1 none cpu kernel=emulated,points=$TMPD/dev1.points
CONF

# --- meters: device 0 measured by the emulated meter (5 W idle, probed), device 1 estimated
cat >"$TMPD/meters.conf" <<CONF
localhost 0 none cpu kernel=emulated,points=$TMPD/dev0.points,meter=emulated,meter_idle=5,static_probe=0.2
localhost 1 none cpu kernel=emulated,points=$TMPD/dev1.points,meter=model,meter_power=50
CONF
$MPI -np 2 "$FUPERMOD" build --conf "$TMPD/meters.conf" --data "$TMPD/m" --sizes 200,400 -r 2 -R 3 >"$TMPD/out" 2>"$TMPD/err"
ok $? "build with an emulated and a model meter"
sed 's/^/# /' "$TMPD/out"
ok $(grep -q '^# energy: dynamic, meter emulated .*static power \(4\.9[0-9]*\|5\|5\.0[0-9]*\) W (idle probe), attribution busy' \
     "$TMPD/m/localhost.0.points" && echo 0 || echo 1) "device 0's file is labelled: dynamic energy, meter, probed static power"
ok $(awk '{ sub(/ rejected=[0-9]+/, "") } !/^#/ { d = $5 - 0.5 * $1; if (d < 0) d = -d; if (NF != 6 || d > 1e-3) bad = 1; n++ } END { exit !(n == 2 && !bad) }' \
     "$TMPD/m/localhost.0.points"; echo $?) "device 0: dynamic energy 0.5 J per unit, the probed idle power removed"
ok $(grep -q '^# energy: ESTIMATE, not a measurement: model' "$TMPD/m/localhost.1.points" && echo 0 || echo 1) \
  "device 1's file is labelled ESTIMATE"
ok $(awk '{ sub(/ rejected=[0-9]+/, "") } !/^#/ { d = $5 - 50 * $2; if (NF != 6 || d < -1e-6 || d > 0.25) bad = 1; n++ } END { exit !(n == 2 && !bad) }' \
     "$TMPD/m/localhost.1.points"; echo $?) "device 1: 50 W x time"
ok $(grep -Eq '^ +1 .* ESTIMATE ' "$TMPD/out" && grep -q '^# ESTIMATE: energies' "$TMPD/out" && echo 0 || echo 1) \
  "the summary marks the estimate"
sed -i 's/meter=model,meter_power=50/meter=emulated,meter_points=DEV0,static_power=0/; s#DEV0#'"$TMPD"'/dev0.points#' "$TMPD/meters.conf"
expect_exit 1 "measured energies are not appended to an estimated file" -- \
  $MPI -np 2 "$FUPERMOD" build --conf "$TMPD/meters.conf" --data "$TMPD/m" --sizes 200,400,600 -r 2 -R 3
stderr_has "localhost.1.points holds estimated energies" "the file and the reason are named"
$MPI -np 2 "$FUPERMOD" build --conf "$TMPD/plain.conf" --data "$TMPD/p" --sizes 200 -r 1 -R 1 -q >/dev/null 2>&1
expect_exit 1 "a meter added to a file without energies" -- \
  $MPI -np 2 "$FUPERMOD" build --conf "$TMPD/meters.conf" --data "$TMPD/p" --sizes 200,400 -r 1 -R 1
stderr_has "localhost.1.points has points without energy" "the file is named"

# --- a shared external meter: one wall-plug "meter" (1 W forever) read by both processes
printf '#!/bin/sh\ndate +%%s.%%N\n' >"$TMPD/wall.sh"
chmod +x "$TMPD/wall.sh"
cat >"$TMPD/wall.conf" <<CONF
localhost 0 none cpu kernel=emulated,points=$TMPD/dev0.points,meter=command,meter_cmd=$TMPD/wall.sh,static_probe=0.3
localhost 1 none cpu kernel=emulated,points=$TMPD/dev1.points,meter=command,meter_cmd=$TMPD/wall.sh,static_probe=0.3
CONF
$MPI -np 2 "$FUPERMOD" build --conf "$TMPD/wall.conf" --data "$TMPD/w" --sizes 200,400 -r 2 -R 3 -q >"$TMPD/out" 2>"$TMPD/err"
ok $? "build with a shared command meter"
sed 's/^/# /' "$TMPD/err"
ok $(grep -q '^# energy: dynamic, meter command .*wall.sh.*static power 0\.9[0-9]*\|static power 1\(\.0[0-9]*\)\? W' \
     "$TMPD/w/localhost.1.points" && echo 0 || echo 1) "the idle probe finds the meter's 1 W"
ok $(cat "$TMPD/w/localhost.0.points" "$TMPD/w/localhost.1.points" |
     awk '{ sub(/ rejected=[0-9]+/, "") } !/^#/ { if (NF != 6 || $5 > 0.05) bad = 1; n++ } END { exit !(n == 4 && !bad) }'; echo $?) \
  "all power is static: the dynamic energies are about 0"

# --- configuration errors name the line
printf 'localhost 0 none cpu kernel=emulated,points=%s/dev0.points,meter=bogus\n' "$TMPD" >"$TMPD/bad.conf"
expect_exit 1 "an unknown meter" -- "$FUPERMOD" build --conf "$TMPD/bad.conf" --data "$TMPD/x" --sizes 10
stderr_has "bad.conf:1: sub-option meter=bogus must be one of rapl\|nvml" "the line and the meter are named"
printf 'localhost 0 none cpu kernel=emulated,points=%s/dev0.points,meter=rapl,rapl_root=%s/nowhere\n' "$TMPD" "$TMPD" >"$TMPD/bad.conf"
expect_exit 1 "RAPL where there is none" -- "$FUPERMOD" build --conf "$TMPD/bad.conf" --data "$TMPD/x" --sizes 10
stderr_has "bad.conf:1: .*nowhere" "the line and the missing root are named"
printf 'localhost 0 none cpu kernel=emulated,points=%s/dev0.points,meter=model,meter_power=5,static_probe=1\n' "$TMPD" >"$TMPD/bad.conf"
expect_exit 1 "probing an estimate" -- "$FUPERMOD" build --conf "$TMPD/bad.conf" --data "$TMPD/x" --sizes 10
stderr_has "bad.conf:1: .*cannot be probed" "the reason is given"
done_testing
