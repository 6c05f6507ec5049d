#!/bin/bash
# Processes that time-share cores record the same points (their cores' time). A build interrupted
# between their appends leaves one with points the other lacks: the rerun gives the other those
# points rather than a measurement of its own, so the two files agree, with the fixed grid and
# with the adaptive build.
. "$top_srcdir/tests/tap.sh"
MPI="$MPIEXEC --oversubscribe --bind-to none"
awk 'BEGIN { for (d = 10; d <= 80; d += 10) printf "%d %.9g\n", d, d * 2e-4 }' >"$TMPD/dev.points"
cat >"$TMPD/two.conf" <<CONF
localhost 0 core:0 cpu kernel=emulated,points=$TMPD/dev.points,mode=spin
localhost 1 core:0 cpu kernel=emulated,points=$TMPD/dev.points,mode=spin
CONF
same() { cmp -s <(grep -v '^#' "$1/localhost.0.points" | cut -d' ' -f1-2 | sort -n) \
                <(grep -v '^#' "$1/localhost.1.points" | cut -d' ' -f1-2 | sort -n); }
for mode in fixed adaptive; do
  extra=""
  [ $mode = adaptive ] && extra="--adaptive"
  dir="$TMPD/$mode"
  $MPI -np 2 "$FUPERMOD" build --conf "$TMPD/two.conf" --data "$dir" -L 10 -U 80 -s 8 -r 2 -R 3 $extra -q >/dev/null 2>&1
  ok $? "$mode: a build of two processes sharing core 0"
  ok "$(same "$dir"; echo $?)" "$mode: their point files hold the same times"
  # interrupted between the two appends: process 1 lost its last three points
  n=$(grep -vc '^#' "$dir/localhost.1.points")
  head -n $(($(wc -l <"$dir/localhost.1.points") - 3)) "$dir/localhost.1.points" >"$TMPD/cut" && cp "$TMPD/cut" "$dir/localhost.1.points"
  $MPI -np 2 "$FUPERMOD" build --conf "$TMPD/two.conf" --data "$dir" -L 10 -U 80 -s 8 -r 2 -R 3 $extra -q >/dev/null 2>&1
  rc=$?
  ok "$([ $rc -eq 0 ] && same "$dir" && [ "$(grep -vc '^#' "$dir/localhost.1.points")" -eq "$n" ]; echo $?)" \
    "$mode: the rerun gives process 1 process 0's three points ($n points each, the same times)"
done
done_testing
