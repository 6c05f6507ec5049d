#!/bin/bash
# fupermod build --additivity: each process of a node alone, then all together, measured by a meter
# of the whole node. An emulated node meter that adds up gives an error of 0; one whose runs cost
# 25 % more when they overlap another's gives 25 %; with noisy energies the error is found to
# within its confidence. Meters of one process or device, estimates and imports are refused.
. "$top_srcdir/tests/tap.sh"
MPI="$MPIEXEC --oversubscribe --bind-to none"
# 10 ms and 1 J per 100 units
printf '# fupermod points v1: d t reps ci e e_ci\n100 0.01 1 0 1 0\n500 0.05 1 0 5 0\n' >"$TMPD/dev.points"
node=fupermod-test-$$
trap 'rm -rf "$TMPD"; rm -f /dev/shm/fupermod-meter-$node.*' EXIT
conf() { # FILE METER-OPTIONS: two processes of one node
  for r in 0 1; do
    echo "localhost $r none cpu kernel=emulated,points=$TMPD/dev.points${2:+,$2,static_power=0}"
  done >"$1"
}
check() { # NAME METER-OPTIONS LIST [ARGS]: run the check into $TMPD/NAME
  conf "$TMPD/$1.conf" "$2"
  $MPI -np 2 "$FUPERMOD" build --conf "$TMPD/$1.conf" --data "$TMPD/$1" --additivity "$3" -r 3 -R 12 -e 0.01 -q \
    "${@:4}" >"$TMPD/$1.out" 2>"$TMPD/$1.err"
}

check add "meter=emulated,meter_node=$node.a" "100,200:400,300"
ok $? "--additivity with an emulated node meter that adds up"
ok "$(awk -F, 'NR == 1 { if ($0 != "host,combination,sizes,sum_alone,sum_alone_ci,together,together_ci,error,error_ci,additive") exit 1; next }
  { n++; want = NR == 2 ? 2 : 6; if ($4 != want || $6 != want || $8 != 0 || $10 != 1) exit 1 } END { exit n != 3 }' "$TMPD/add/additivity.csv"; echo $?)" \
  "additivity.csv: sums 2, 6, 6 J alone and together, error 0, additive, for 100:100, 200:400, 300:300"
ok "$(awk -F, 'NR > 1 { n++; if ($5 != $4 / 100 || $6 != 0 || $7 < 3) exit 1 } END { exit n != 6 }' "$TMPD/add/additivity-alone.csv"; echo $?)" \
  "additivity-alone.csv: each process alone at its size, 1 J per 100 units"
ok "$(grep -q 'min 0.00 %, average 0.00 %, max 0.00 %; additive within confidence in 3' "$TMPD/add.out"; echo $?)" \
  "the summary: min, average and max error, and how many add up"
sed 's/^/# /' "$TMPD/add.out"

check extra "meter=emulated,meter_node=$node.b,meter_extra=0.25" "100,200:400"
ok "$(awk -F, 'NR > 1 { n++; if (($8 - 0.25)^2 > 1e-18 || $10 != 0) exit 1 } END { exit n != 2 }' "$TMPD/extra/additivity.csv"; echo $?)" \
  "runs that cost 25 % more together: an error of 25 %, not additive"

# noisy energies (3 % per run): the error is found within its confidence (3 half-widths)
for x in 0 0.2; do
  check noisy$x "meter=emulated,meter_node=$node.n$x,meter_extra=$x,meter_noise=0.03" "200,100:300"
  rc=$?
  ok "$([ $rc -eq 0 ] && awk -F, -v x=$x 'NR > 1 { n++; if (!($9 > 0) || ($8 - x)^2 > 9 * $9 * $9) exit 1 } END { exit n != 2 }' \
    "$TMPD/noisy$x/additivity.csv"; echo $?)" "noisy energies, true error $x: found within 3 half-widths, which are > 0"
  sed 's/^/# /' "$TMPD/noisy$x/additivity.csv"
done

# meters that cannot tell: refused with the line and the reason
refuse() { # METER-OPTIONS PATTERN DESC
  check refused "$1" 100
  local rc=$?
  ok "$([ $rc -eq 1 ] && grep -q "refused.conf:1: --additivity .*needs one meter of the whole node.*$2" "$TMPD/refused.err"; echo $?)" "$3 (exit $rc)"
  grep -q "$2" "$TMPD/refused.err" || sed 's/^/# /' "$TMPD/refused.err"
}
refuse "meter=emulated" "a meter of its own process or device only" "a meter of one process is refused"
refuse "meter=model,meter_power=10" "the model meter, power x time: an estimate" "the model meter is refused"
refuse "" "has no meter" "no meter is refused"
check three "meter=emulated,meter_node=$node.c" "1:2:3"
ok "$([ $? -eq 2 ] && grep -q 'combination 1 has 3 sizes for 2 processes' "$TMPD/three.err"; echo $?)" "three sizes for two processes: a usage error"
expect_exit 2 "a bad combination" -- "$FUPERMOD" build --conf "$TMPD/add.conf" --additivity 100:x
stderr_has "--additivity: 'x' in '100:x' is not a size" "the item named"
expect_exit 2 "--additivity with --sizes" -- "$FUPERMOD" build --conf "$TMPD/add.conf" --additivity 100 --sizes 100
done_testing
