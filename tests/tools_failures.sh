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

# a rank killed in the middle of a build: mpirun ends the job, nobody hangs in a collective.
# The kill comes once process 0 has written a point (not after a fixed sleep: a loaded host may
# not have started the job yet); a point takes 0.5-3 s (5 runs of d x 10 ms), so the kill falls
# in the middle of the build.
sed "s|$TMPD/missing.points|$TMPD/dev2.points|" "$TMPD/bad.conf" >"$TMPD/good.conf"
$MPI -np 3 "$FUPERMOD" build --conf "$TMPD/good.conf" --data "$TMPD/d2" --sizes 10,20,30,40,50,60 -r 5 -R 5 -q \
  >/dev/null 2>"$TMPD/kill.err" &
job=$!
P0="$TMPD/d2/localhost.0.points"
for i in $(seq 600); do
  [ "$(grep -vc '^#' "$P0" 2>/dev/null)" -ge 1 ] 2>/dev/null && break
  sleep 0.1
done
# what process 0 had recorded at the kill
grep -v '^#' "$P0" 2>/dev/null >"$TMPD/before"
victim=$(pgrep -f "fupermod build --conf $TMPD/good.conf" | tail -1)
start=$(date +%s)
[ -n "$victim" ] && kill -9 "$victim"
wait $job
rc=$?
ok $([ -n "$victim" ] && [ $rc -ne 0 ] && echo 0 || echo 1) "a killed rank ends the job with a non-zero status ($rc)"
ok $(( $(date +%s) - start < 30 ? 0 : 1 )) "ended within 30 s of the kill"
# the points recorded before the kill are still in the file, unchanged, and the file loads: each
# point a requested size, once, with 5 runs and the emulated time d x 10 ms (wake-up latency on a
# loaded host only adds: up to 20 % or 20 ms)
n=$(grep -c . "$TMPD/before")
lost=$(grep -vxFf <(grep -v '^#' "$P0") "$TMPD/before" | grep -c .)
"$FUPERMOD" model -m cpm "$P0" >/dev/null 2>"$TMPD/model.err"
lrc=$?
ok $([ "$n" -ge 1 ] && [ "$lost" -eq 0 ] && [ $lrc -eq 0 ] && echo 0 || echo 1) \
  "the $n point(s) measured before the kill are kept ($lost lost), and the file loads"
sed 's/^/# /' "$TMPD/model.err"
ok $(grep -v '^#' "$P0" 2>/dev/null | awk '{ want = $1 * 0.01; tol = 0.2 * want; if (tol < 0.02) tol = 0.02
       runs = $3; if ($NF ~ /^rejected=/) { split($NF, kv, "="); runs += kv[2] } # a late wake-up, rejected
       if ($1 % 10 || $1 < 10 || $1 > 60 || seen[$1]++ || runs != 5 || !($2 >= want * 0.999 && $2 <= want + tol)) bad++; n++ }
       END { exit !(n >= 1 && !bad) }'; echo $?) "each kept point: a requested size, once, 5 runs, t = d x 10 ms"
sed 's/^/# kept: /' "$P0"
done_testing
