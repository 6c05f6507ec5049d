#!/bin/bash
# Outlying repetitions in the tools: fupermod build rejects the spikes of an emulated device and
# counts them (point files, summary), --keep-outliers averages them, fupermod model show and the
# fupermod run report say how many were rejected.
. "$top_srcdir/tests/tap.sh"
MPI="$MPIEXEC --oversubscribe --bind-to none"
for r in 0 1; do
  printf '10 0.04\n20 0.08\n30 0.12\n' >"$TMPD/dev$r.points"
done
# rank 0: a run 4 times as long with probability 0.25; rank 1 clean; 8 runs per size (--idle-wait:
# no untimed runs between the timed ones, so the same seed gives the same runs in both builds)
cat >"$TMPD/two.conf" <<CONF
localhost 0 none cpu kernel=emulated,points=$TMPD/dev0.points,noise=0.02,seed=3,spikes=0.25:4
localhost 1 none cpu kernel=emulated,points=$TMPD/dev1.points,noise=0.02,seed=4
CONF
ARGS="--conf $TMPD/two.conf --sizes 10,20,30 -r 8 -R 8 --idle-wait -q"
rejected() { # rejected FILE: the rejected= count of each point, in order
  awk '!/^#/ { got = 0; for (i = 5; i <= NF; i++) if ($i ~ /^rejected=/) { split($i, kv, "="); got = kv[2] }
               printf "%d ", got }' "$1"
}
# check FILE COUNTS: 3 points of 8 runs, rejected as COUNTS says; the time of point k near the
# clean 4 ms per unit times (1 + 3 x s_k / 8), s_k the k-th of SPIKES (noise 2 %: within 10 %,
# late wake-ups only add); prints what is wrong
check() {
  awk -v rej="$2" -v spikes="$3" 'BEGIN { split(rej, R, " "); split(spikes, S, " ") }
    !/^#/ { n++; want = $1 * 0.004 * (1 + 3 * S[n] / 8)
      got = 0; for (i = 5; i <= NF; i++) if ($i ~ /^rejected=/) { split($i, kv, "="); got = kv[2] }
      if ($3 + got != 8 || got != R[n] || !($2 >= want * 0.9 && $2 <= want * 1.1 + 0.006)) print "bad: " $0 }
    END { if (n != 3) print n + 0 " points" }' "$1" 2>&1
}

$MPI -np 2 "$FUPERMOD" build $ARGS --data "$TMPD/rej" >"$TMPD/out" 2>"$TMPD/err"
ok $? "build with spikes on rank 0"
R0=$(rejected "$TMPD/rej/localhost.0.points")
total=$(echo $R0 | awk '{ for (i = 1; i <= NF; i++) s += $i; print s + 0 }')
sizes=$(echo $R0 | awk '{ for (i = 1; i <= NF; i++) s += $i > 0; print s + 0 }')
bad=$( (check "$TMPD/rej/localhost.0.points" "$R0" "0 0 0"; check "$TMPD/rej/localhost.1.points" "0 0 0" "0 0 0") )
ok $([ -z "$bad" ] && [ "$total" -ge 1 ] && echo 0 || echo 1) \
  "spikes rejected on rank 0 (${R0}of 8 runs per size), the times the clean ones; rank 1 keeps all 8"
[ -z "$bad" ] || echo "$bad" | sed 's/^/# /'
ok $(grep -Eq "^ +0 +3 .* $total +$sizes\$" "$TMPD/out" && grep -Eq '^ +1 +3 .* 0 +0$' "$TMPD/out" &&
     grep -q '^# rejected: repetitions left out' "$TMPD/out" && echo 0 || echo 1) \
  "build summary: $total repetitions rejected in $sizes sizes on rank 0, none on rank 1"
grep -q 'rejected' "$TMPD/out" || sed 's/^/# /' "$TMPD/out"

"$FUPERMOD" model show "$TMPD/rej/localhost.0.points" >"$TMPD/show"
ok $(grep -q "^# outlying repetitions rejected by the benchmark (column rej, not in reps): $total in $sizes sizes\$" "$TMPD/show" &&
     [ "$(awk '!/^#/ { printf "%d ", $NF }' "$TMPD/show")" = "$R0" ] && echo 0 || echo 1) \
  "model show: $total rejected in $sizes sizes, and the rej column per size"

# the same runs averaged: the spikes are those the first build rejected
$MPI -np 2 "$FUPERMOD" build $ARGS --keep-outliers --data "$TMPD/keep" >"$TMPD/out" 2>"$TMPD/err"
ok $? "build with --keep-outliers"
bad=$( (check "$TMPD/keep/localhost.0.points" "0 0 0" "$R0"; check "$TMPD/keep/localhost.1.points" "0 0 0" "0 0 0") )
ok $([ -z "$bad" ] && echo 0 || echo 1) "--keep-outliers: all 8 runs averaged, the spikes in the times"
[ -z "$bad" ] || echo "$bad" | sed 's/^/# /'
ok $(grep -q '^# --keep-outliers: every repetition is averaged' "$TMPD/out" && ! grep -q '^# rejected:' "$TMPD/out" &&
     echo 0 || echo 1) "build summary says the outliers were kept"

"$FUPERMOD" build --help | grep -q -- "--keep-outliers"
ok $? "build --help documents --keep-outliers"
"$FUPERMOD" run --help | grep -q -- "--keep-outliers"
ok $? "run --help documents --keep-outliers"

# fupermod run: a model with rejected repetitions (reused: same fingerprint) is reported
cat >"$TMPD/one.conf" <<CONF
localhost 0 none cpu
CONF
RUN="--conf $TMPD/one.conf --out $TMPD/run --apps fft --size 128 --points 4 --reps 1 -r 2 -R 3 --smooth 0 --full-grid -q"
$MPI -np 1 "$FUPERMOD" run $RUN >"$TMPD/run1" 2>"$TMPD/err"
ok $? "fupermod run (fft, one process)"
f="$TMPD/run/models/fft/localhost.0.points"
# the real build may have rejected some on a loaded host: the file is set to a known count
sed -i -E '/^[^#]/ s/ rejected=[0-9]+//' "$f"
awk '!/^#/ && !done { sub(/$/, " rejected=3"); done = 1 } { print }' "$f" >"$f.new" && mv "$f.new" "$f"
$MPI -np 1 "$FUPERMOD" run $RUN >"$TMPD/run2" 2>"$TMPD/err"
rc=$?
ok $([ $rc -eq 0 ] && grep -q 'outlying benchmark repetitions rejected from the models: process 0: 3 in 1 size ' "$TMPD/run2" &&
     echo 0 || echo 1) "fupermod run report: the rejected repetitions of the reused model"
grep -q 'outlying benchmark' "$TMPD/run2" || sed 's/^/# /' "$TMPD/run2" "$TMPD/err"
sed -i -E '/^[^#]/ s/ rejected=[0-9]+//' "$f"
$MPI -np 1 "$FUPERMOD" run $RUN >"$TMPD/run3" 2>"$TMPD/err"
ok $([ $? -eq 0 ] && ! grep -q 'outlying benchmark repetitions' "$TMPD/run3" && echo 0 || echo 1) \
  "fupermod run report: no line when nothing was rejected"

# bad input: a negative count in a point file names the file and line
printf '10 0.04 3 0.001 rejected=-2\n' >"$TMPD/bad.points"
expect_exit 1 "model show of a point file with rejected=-2" -- "$FUPERMOD" model show "$TMPD/bad.points"
stderr_has "bad.points:1: rejected '-2' must be an integer >= 0" "the message names the file, line and field"
done_testing
