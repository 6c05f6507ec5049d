#!/bin/bash
# alone: it compares the application program's runs with fupermod run's calibration runs
# The application's own program's runs count in fupermod run's calibration (docs/models.md,
# "History"): five runs of fupermod-fft2d --record on the even distribution of three processes,
# on this host, make the next fupermod run on the same models check that distribution with one
# calibration run of its own and pool it with those five; a run on other shares or of another
# size is not taken; a malformed runs.csv line is an error naming it.
. "$top_srcdir/tests/tap.sh"
MPI="$MPIEXEC --oversubscribe --bind-to none"
FFT2D="$top_builddir/apps/fupermod-fft2d"
OUT=$TMPD/results
printf 'localhost 0 none cpu\nlocalhost 1 none cpu\nlocalhost 2 none cpu\n' >"$TMPD/three.conf"
printf '# fupermod distribution v1\n1024 3\n0 342\n1 341\n2 341\n' >"$TMPD/even.dist"
printf '# fupermod distribution v1\n1024 3\n0 512\n1 256\n2 256\n' >"$TMPD/other.dist"
good=0
for i in 1 2 3 4 5; do
  $MPI -np 3 "$FFT2D" -M 1024 --dist "$TMPD/even.dist" -r 3 --record "$OUT" >"$TMPD/fft$i" 2>&1 && good=$((good + 1))
done
# not the even distribution, and not its size: neither counts
$MPI -np 3 "$FFT2D" -M 1024 --dist "$TMPD/other.dist" -r 3 --record "$OUT" >"$TMPD/fft6" 2>&1 && good=$((good + 1))
$MPI -np 3 "$FFT2D" -M 512 -r 3 --record "$OUT" >"$TMPD/fft7" 2>&1 && good=$((good + 1))
ok "$([ $good -eq 7 ] && [ "$(grep -c ',fft2d,' "$OUT/models/runs.csv")" -eq 21 ]; echo $?)" \
  "seven runs of fupermod-fft2d recorded in runs.csv, a line per process ($good ran)"
$MPI -np 3 "$FUPERMOD" run --conf "$TMPD/three.conf" --out "$OUT" --apps fft --size 1024 --points 8 --reps 2 -r 2 -R 3 \
  --full-grid --race-rounds 2 >"$TMPD/out" 2>"$TMPD/err"
ok $? "fupermod run on the same models"
ok "$(grep -q "fupermod run: fft: even: calibration on [0-9]* runs* of this launch (median [0-9.e-]* s) and 5 of earlier ones (median [0-9.e-]* s), 5 of them by the application's own program" "$TMPD/err" &&
  grep -q "fupermod run: fft: calibration runs of the whole-run model: 5 on the paraleph distribution, 1 on the even one (with the earlier launches' runs)" "$TMPD/err"; echo $?)" \
  "the program's five runs on the even distribution are pooled with one calibration run of its own; the other two are not taken"
grep 'fupermod run: fft: .*calibrat' "$TMPD/err" | sed 's/^/# /'
# a malformed line is an error naming the file and the line
printf 'x,y\n' >>"$OUT/models/runs.csv"
$MPI -np 3 "$FUPERMOD" run --conf "$TMPD/three.conf" --out "$OUT" --apps fft --size 1024 --points 8 --reps 2 -r 2 -R 3 \
  --full-grid --race-rounds 2 >"$TMPD/out2" 2>"$TMPD/err2"
rc=$?
ok "$([ $rc -ne 0 ] && grep -q "runs.csv:$(wc -l <"$OUT/models/runs.csv"): not an application run" "$TMPD/err2"; echo $?)" \
  "a malformed runs.csv line stops the job naming it (exit $rc: $(grep -m1 'runs.csv' "$TMPD/err2" | cut -c 1-160))"
done_testing
