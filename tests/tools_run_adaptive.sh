#!/bin/bash
# alone: three processes time-share two cores; other tests' load can make one look several times
# slower, and the adaptive build would then refine its grid (more sizes than this test counts)
# fupermod run builds adaptively by default: fewer sizes than the grid, the cost reported against
# the full grid's; --full-grid then measures only the missing sizes, keeping the others.
. "$top_srcdir/tests/tap.sh"
MPI="$MPIEXEC --oversubscribe --bind-to none"
cat >"$TMPD/three.conf" <<CONF
localhost 0 none cpu meter=model,meter_power=30
localhost 1 none cpu meter=model,meter_power=18
localhost 2 none cpu meter=model,meter_power=18
CONF
ARGS="--conf $TMPD/three.conf --out $TMPD/r --apps fft --size 512 --points 16 --reps 1 -r 2 -R 3"
$MPI -np 3 "$FUPERMOD" run $ARGS >"$TMPD/stdout" 2>"$TMPD/stderr"
ok $? "fupermod run, adaptive by default"
ok $(grep -q 'adaptive round 1:' "$TMPD/stderr" && ! grep -q 'model: size' "$TMPD/stderr" && echo 0 || echo 1) "the build goes in adaptive rounds"
counts=$(for r in 0 1 2; do grep -vc '^#' "$TMPD/r/models/fft/localhost.$r.points"; done | tr '\n' ' ')
ok $(echo $counts | awk '{ for (i = 1; i <= NF; i++) if ($i >= 16 || $i < 4) exit 1 }' && echo 0 || echo 1) \
  "fewer sizes than the grid of 16 per process ($counts)"
ok $(grep -q '^# model cost: .* s of benchmark time, .* s estimated for the full grid' "$TMPD/stdout" &&
     [ "$(grep -c '^  *[0-9] ' "$TMPD/stdout")" -ge 3 ] && echo 0 || echo 1) "the report gives the sizes and their cost against the full grid's"
for r in 0 1 2; do cp "$TMPD/r/models/fft/localhost.$r.points" "$TMPD/kept.$r"; done
$MPI -np 3 "$FUPERMOD" run $ARGS --full-grid >"$TMPD/stdout" 2>"$TMPD/stderr"
rc=$?
bad=0
for r in 0 1 2; do
  f="$TMPD/r/models/fft/localhost.$r.points"
  head -n $(wc -l <"$TMPD/kept.$r") "$f" | cmp -s - "$TMPD/kept.$r" || bad=$((bad + 1))
  [ "$(grep -v '^#' "$f" | awk '{ print $1 }' | sort -un | wc -l)" -eq 16 ] && [ "$(grep -vc '^#' "$f")" -eq 16 ] || bad=$((bad + 1))
done
ok $([ $rc -eq 0 ] && [ $bad -eq 0 ] && echo 0 || echo 1) "--full-grid keeps the adaptive points and measures only the missing sizes"
before=$(cat "$TMPD"/r/models/fft/*.points | md5sum)
$MPI -np 3 "$FUPERMOD" run $ARGS -q >/dev/null 2>&1
ok $([ $? -eq 0 ] && [ "$before" = "$(cat "$TMPD"/r/models/fft/*.points | md5sum)" ] && echo 0 || echo 1) \
  "an adaptive run on the full grid's models measures nothing"
done_testing
