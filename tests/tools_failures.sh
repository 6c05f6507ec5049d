#!/bin/bash
# MPI runs never hang on error: a rank that fails, or dies, ends the whole job quickly with a
# clear message and a non-zero status.
. "$top_srcdir/tests/tap.sh"
MPI="$MPIEXEC --oversubscribe --bind-to none"
for r in 0 1 2; do
  for d in 10 20 30 40 50 60; do echo "$d $(awk "BEGIN{print $d*0.01}")"; done >"$TMPD/dev$r.points"
done
cat >"$TMPD/bad.conf" <<CONF
localhost 0 none cpu kernel=emulated,points=$TMPD/dev0.points
localhost 1 none cpu kernel=emulated,points=$TMPD/dev1.points
localhost 2 none cpu kernel=emulated,points=$TMPD/missing.points
CONF
start=$(date +%s)
expect_exit 1 "one rank cannot load its kernel: every rank stops with status 1" -- \
  $MPI -np 3 "$FUPERMOD" build --conf "$TMPD/bad.conf" --data "$TMPD/d1" --sizes 10,20 -r 1 -R 1
stderr_has "rank 2: .*missing.points" "the failing rank and its file are named"
ok $(( $(date +%s) - start < 30 ? 0 : 1 )) "ended within 30 s"

# a rank killed in the middle of a build: mpirun ends the job, nobody hangs in a collective
sed "s|$TMPD/missing.points|$TMPD/dev2.points|" "$TMPD/bad.conf" >"$TMPD/good.conf"
$MPI -np 3 "$FUPERMOD" build --conf "$TMPD/good.conf" --data "$TMPD/d2" --sizes 10,20,30,40,50,60 -r 5 -R 5 -q \
  >/dev/null 2>"$TMPD/kill.err" &
job=$!
sleep 2
victim=$(pgrep -f "fupermod build --conf $TMPD/good.conf" | tail -1)
start=$(date +%s)
[ -n "$victim" ] && kill -9 "$victim"
wait $job
rc=$?
ok $([ -n "$victim" ] && [ $rc -ne 0 ] && echo 0 || echo 1) "a killed rank ends the job with a non-zero status ($rc)"
ok $(( $(date +%s) - start < 30 ? 0 : 1 )) "ended within 30 s of the kill"
ok $(grep -q 'points' "$TMPD/d2/localhost.0.points" 2>/dev/null || [ -f "$TMPD/d2/localhost.0.points" ]; echo $?) "points measured before the kill are kept"
done_testing
