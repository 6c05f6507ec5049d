#!/bin/bash
# fupermod build under mpirun: points per process, resumable after a kill, config template.
. "$top_srcdir/tests/tap.sh"
MPI="$MPIEXEC --oversubscribe --bind-to none"
# two emulated devices, no noise, 10 ms to 120 ms per point
for r in 0 1; do
  : >"$TMPD/dev$r.points"
  for d in 10 20 30 40 50 60 70 80 90 100 110 120; do
    echo "$d $(awk "BEGIN{print $d*0.002*($r+1)}")" >>"$TMPD/dev$r.points"
  done
done
cat >"$TMPD/two.conf" <<CONF
localhost 0 none cpu kernel=emulated,points=$TMPD/dev0.points
localhost 1 none cpu kernel=emulated,points=$TMPD/dev1.points
CONF
SIZES="--sizes 10,20,30,40,50,60,70,80,90,100,110,120 -r 3 -R 3"

$MPI -np 2 "$FUPERMOD" build --conf "$TMPD/two.conf" --data "$TMPD/full" $SIZES -q >"$TMPD/out" 2>"$TMPD/err"
ok $? "uninterrupted build"
# the 12 sizes once each, 3 runs, and the emulated time d x 2 ms x (rank + 1); wake-up latency on a
# loaded host only adds (allowance: 20 % or 20 ms)
points12() { # points12 FILE RANK: prints what is wrong, nothing when the points are right
  awk -v r="$2" '!/^#/ { n++; want = $1 * 0.002 * (r + 1); tol = 0.2 * want; if (tol < 0.02) tol = 0.02
                         runs = $3; if ($NF ~ /^rejected=/) { split($NF, kv, "="); runs += kv[2] } # a late wake-up
                         if ($1 != 10 * n || runs != 3 || !($2 >= want * 0.999 && $2 <= want + tol)) print "bad: " $0 }
                 END { if (n != 12) print n + 0 " points" }' "$1" 2>&1
}
bad=$(for r in 0 1; do points12 "$TMPD/full/localhost.$r.points" $r; done)
ok $([ -z "$bad" ] && echo 0 || echo 1) "12 points per process: the sizes asked for, 3 runs, the emulated times"
[ -z "$bad" ] || echo "$bad" | sed 's/^/# /'
$MPI -np 2 "$FUPERMOD" build --conf "$TMPD/two.conf" --data "$TMPD/named" --sizes 10 >/dev/null 2>"$TMPD/err"
h=$(hostname)
ok "$(grep -q "^fupermod build: rank 1 on $h (localhost.1 in the files), intra-node rank 1, line 2," "$TMPD/err" &&
  [ -f "$TMPD/named/localhost.1.points" ]; echo $?)" "the header gives the real host and the name of the point files"
grep 'rank 1 on' "$TMPD/err" | sed 's/^/# /'
$MPI -np 2 "$FUPERMOD" build --conf "$TMPD/two.conf" --data "$TMPD/idle" $SIZES --idle-wait -q >/dev/null 2>"$TMPD/err"
rc=$?
bad=$(for r in 0 1; do points12 "$TMPD/idle/localhost.$r.points" $r; done)
ok $([ $rc -eq 0 ] && [ -z "$bad" ] && echo 0 || echo 1) "--idle-wait (early finishers wait idle) builds the same 12 points"
[ -z "$bad" ] || echo "$bad" | sed 's/^/# /'
"$FUPERMOD" build --help | grep -q -- "--idle-wait"
ok $? "--help documents --idle-wait"

# kill in the middle, then rerun: same sizes, each once, nothing lost
# (the kill comes once process 0 has a point, not after a fixed sleep that a loaded host may spend
# starting the job; the whole build takes about 10 s)
$MPI -np 2 "$FUPERMOD" build --conf "$TMPD/two.conf" --data "$TMPD/cut" $SIZES -q >/dev/null 2>&1 &
pid=$!
for i in $(seq 600); do
  [ "$(grep -vc '^#' "$TMPD/cut/localhost.0.points" 2>/dev/null)" -ge 1 ] 2>/dev/null && break
  sleep 0.1
done
kill -TERM $pid 2>/dev/null
wait $pid 2>/dev/null
n0=$(grep -vc '^#' "$TMPD/cut/localhost.0.points" 2>/dev/null || echo 0)
ok $([ "$n0" -gt 0 ] && [ "$n0" -lt 12 ] && echo 0 || echo 1) "killed run left $n0 complete points"
$MPI -np 2 "$FUPERMOD" build --conf "$TMPD/two.conf" --data "$TMPD/cut" $SIZES -q >/dev/null 2>"$TMPD/err"
ok $? "rerun resumes"
for r in 0 1; do
  a=$(grep -v '^#' "$TMPD/full/localhost.$r.points" | awk '{print $1}' | sort -n | tr '\n' ' ')
  b=$(grep -v '^#' "$TMPD/cut/localhost.$r.points" | awk '{print $1}' | sort -n | tr '\n' ' ')
  ok $([ "$a" = "$b" ] && echo 0 || echo 1) "process $r: same sizes as the uninterrupted run, no duplicate"
  # times agree with the uninterrupted run: no emulated noise, so only wake-up latency of the
  # sleeping devices on a loaded 2-core host differs (allowance: 20 % or 20 ms)
  join <(grep -v '^#' "$TMPD/full/localhost.$r.points" | sed 's/ rejected=[0-9]*//' | sort -k1,1) \
       <(grep -v '^#' "$TMPD/cut/localhost.$r.points" | sed 's/ rejected=[0-9]*//' | sort -k1,1) >"$TMPD/joined" 2>/dev/null
  bad=$(awk '{ tol = 0.2 * $2; if (tol < 0.02) tol = 0.02; if ($2 - $5 > tol || $5 - $2 > tol) n++ } END { print n+0 }' "$TMPD/joined")
  ok $([ "$bad" = 0 ] && echo 0 || echo 1) "process $r: resumed times agree with the uninterrupted ones"
  [ "$bad" = 0 ] || sed 's/^/# d t reps ci | t reps ci: /' "$TMPD/joined"
done
# a third run measures nothing new
before=$(cat "$TMPD/cut/localhost.0.points" | md5sum)
$MPI -np 2 "$FUPERMOD" build --conf "$TMPD/two.conf" --data "$TMPD/cut" $SIZES -q >/dev/null 2>&1
ok $([ "$before" = "$(md5sum <"$TMPD/cut/localhost.0.points")" ] && echo 0 || echo 1) "complete data is left alone"

# errors end every process with one clear message
expect_exit 1 "more processes than configuration lines" -- $MPI -np 3 "$FUPERMOD" build --conf "$TMPD/two.conf" --data "$TMPD/x" $SIZES
stderr_has "no line for MPI rank 2" "the missing rank is named"
expect_exit 1 "a missing kernel" -- $MPI -np 2 "$FUPERMOD" build --conf "$TMPD/two.conf" --data "$TMPD/x" -k nosuchkernel $SIZES
stderr_has "kernel 'nosuchkernel' not found" "the kernel is named"
echo "10 1" >"$TMPD/full/bad.points"
printf 'localhost 0 none cpu kernel=emulated,points=%s/nothere.points\n' "$TMPD" >"$TMPD/bad.conf"
expect_exit 1 "a kernel whose points file is missing" -- $MPI -np 1 "$FUPERMOD" build --conf "$TMPD/bad.conf" --data "$TMPD/x" $SIZES
stderr_has "nothere.points" "the file is named"
expect_exit 2 "no sizes" -- "$FUPERMOD" build --conf "$TMPD/two.conf"
expect_exit 2 "bad precision" -- "$FUPERMOD" build --conf "$TMPD/two.conf" $SIZES -i 1.5

# config template for the running job
$MPI -np 3 "$FUPERMOD" config -o "$TMPD/t.conf" -s kernel=emulated >/dev/null 2>&1
ok $? "config under mpirun -np 3"
ok $([ "$(grep -vc '^#' "$TMPD/t.conf")" -eq 3 ] && grep -q ' 2 core:[0-9]' "$TMPD/t.conf" && grep -q 'kernel=emulated' "$TMPD/t.conf" && echo 0 || echo 1) \
  "template has 3 lines with intra-node ranks, bindings and sub-options"
$MPI -np 3 "$FUPERMOD" build --conf "$TMPD/t.conf" --data "$TMPD/y" --sizes 5 -r 1 -R 1 -q >/dev/null 2>"$TMPD/err"
ok $([ $? -eq 1 ] && grep -q 'points=FILE' "$TMPD/err" && echo 0 || echo 1) "the template is read back by build (emulated kernel asks for points)"
done_testing
