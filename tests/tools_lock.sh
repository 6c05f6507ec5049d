#!/bin/bash
# Jobs that share a directory of point files measure in turn (DIR/.fupermod-lock): two builds
# started at once on the same directory and sizes measure every size exactly once, write one
# header and lose nothing; the second says which job holds the directory, and stops after
# --lock-wait when told to; a fupermod run and a build on its models directory take turns too.
. "$top_srcdir/tests/tap.sh"
MPI="$MPIEXEC --oversubscribe --bind-to none"
# two emulated processes (they sleep: the jobs do not slow each other), 10 sizes of 10-50 ms
printf '# fupermod points v1: d t reps ci [e e_ci]\n100 0.01 1 0\n500 0.05 1 0\n' >"$TMPD/dev.points"
printf 'localhost 0 none cpu kernel=emulated,points=%s\nlocalhost 1 none cpu kernel=emulated,points=%s\n' \
  "$TMPD/dev.points" "$TMPD/dev.points" >"$TMPD/two.conf"
build() { $MPI -np 2 "$FUPERMOD" build --conf "$TMPD/two.conf" --data "$TMPD/d" -L 100 -U 500 -s 10 -r 3 -R 3 "$@"; }
build >"$TMPD/o1" 2>"$TMPD/e1" &
p1=$!
build >"$TMPD/o2" 2>"$TMPD/e2" &
p2=$!
wait $p1; r1=$?
wait $p2; r2=$?
ok "$([ $r1 -eq 0 ] && [ $r2 -eq 0 ]; echo $?)" "two builds at once on one directory both finish (exit $r1, $r2)"
for r in 0 1; do
  f="$TMPD/d/localhost.$r.points"
  ok "$([ "$(grep -c '^# fupermod points' "$f")" -eq 1 ] &&
    [ "$(grep -v '^#' "$f" | awk '{ print $1 }' | sort -n | uniq | wc -l)" -eq 10 ] &&
    [ "$(grep -vc '^#' "$f")" -eq 10 ]; echo $?)" \
    "process $r's file: one header, each of the 10 sizes exactly once ($(grep -vc '^#' "$f") points)"
done
ok "$(cat "$TMPD/e1" "$TMPD/e2" | grep -q "$TMPD/d is being written by another job (fupermod build on $(hostname), pid [0-9]*, since .* UTC); waiting"; echo $?)" \
  "the job that waited said which job held the directory"
cat "$TMPD/e1" "$TMPD/e2" | grep 'being written' | sed 's/^/# /'

# a holder that does not let go: a waiting job stops after --lock-wait, naming the holder
exec 9>"$TMPD/d/.fupermod-lock"
flock 9
echo "fupermod build on elsewhere, pid 4242, since 2026-01-01 00:00:00 UTC" >&9
t0=$(date +%s)
build --lock-wait 1 >"$TMPD/o3" 2>"$TMPD/e3"
rc=$? secs=$(($(date +%s) - t0))
ok "$([ $rc -eq 1 ] && [ $secs -lt 30 ] &&
  grep -q "is being written by another job (fupermod build on elsewhere, pid 4242, since 2026-01-01 00:00:00 UTC): gave up after 1 s" "$TMPD/e3"; echo $?)" \
  "with the lock held elsewhere, --lock-wait 1 stops the job naming the holder (exit $rc, ${secs} s)"
exec 9>&-

# fupermod run and a build that writes into its models directory: in turn, nothing torn
printf 'localhost 0 none cpu\nlocalhost 1 none cpu\n' >"$TMPD/run.conf"
$MPI -np 2 "$FUPERMOD" run --conf "$TMPD/run.conf" --out "$TMPD/r" --apps fft --size 256 --points 8 --reps 1 -r 2 -R 3 \
  --full-grid -q >"$TMPD/o4" 2>"$TMPD/e4" &
p4=$!
for _ in $(seq 100); do [ -f "$TMPD/r/models/fft/.fupermod-lock" ] && break; sleep 0.05; done
$MPI -np 2 "$FUPERMOD" build --conf "$TMPD/two.conf" --data "$TMPD/r/models/fft" --sizes 32,64 -r 2 -R 2 -q \
  >"$TMPD/o5" 2>"$TMPD/e5"
r5=$?
wait $p4; r4=$?
ok "$([ $r4 -eq 0 ] && [ $r5 -eq 0 ]; echo $?)" "a run and a build on its models directory both finish (exit $r4, $r5)"
bad=""
for r in 0 1; do
  f="$TMPD/r/models/fft/localhost.$r.points"
  [ "$(grep -c '^# fupermod points' "$f")" -eq 1 ] || bad="$bad $r:headers"
  [ "$(grep -v '^#' "$f" | awk '{ print $1 }' | sort -n | uniq -d | wc -l)" -eq 0 ] || bad="$bad $r:duplicates"
done
ok "$([ -z "$bad" ]; echo $?)" "the models directory's files: one header each, no size twice${bad:+ ($bad)}"
done_testing
