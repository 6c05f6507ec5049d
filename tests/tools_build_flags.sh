#!/bin/bash
# fupermod build: sizes slower than -z are marked abandoned (and left out by the model tools),
# imprecise points are marked and counted, and list options reject empty or oversize items.
. "$top_srcdir/tests/tap.sh"
MPI="$MPIEXEC --oversubscribe --bind-to none"
# an emulated device that is slow on small sizes (100 units/s up to d = 20, 0.1-0.2 s a run) and
# fast on large ones (1e5 units/s from d = 1000, 10-30 ms a run): -z 1e3 gives the slow runs 10x
# their limit and the fast ones 100x less, a margin that a loaded machine's delays do not cross
printf '10 0.1\n20 0.2\n1000 0.01\n5000 0.05\n' >"$TMPD/dev.points"
printf 'localhost 0 none cpu kernel=emulated,points=%s/dev.points\n' "$TMPD" >"$TMPD/one.conf"

$MPI -np 1 "$FUPERMOD" build --conf "$TMPD/one.conf" --data "$TMPD/z" --sizes 10,20,1000,2000,3000 -r 3 -R 5 -e 0.5 \
  -z 1e3 -q >"$TMPD/out" 2>"$TMPD/err"
ok $? "build with -z 1e3"
F="$TMPD/z/localhost.0.points"
sed 's/^/# /' "$F"
ok $(awk '!/^#/ { if ($NF == "abandoned") ab = ab " " $1; else if ($1 <= 20) bad = 1 }
          END { exit !(ab == " 10 20" && !bad) }' "$F"; echo $?) "the two slow sizes are marked abandoned, the others not"
ok $(awk '!/^#/ && $NF == "abandoned" { if ($2 < 0.09 || $3 != 1) bad = 1 } END { exit bad }' "$F"; echo $?) \
  "an abandoned size holds its one complete run (not a time cut short)"
grep -q '^fupermod build: 2 points abandoned' "$TMPD/err"
ok $? "build reports the abandoned points on stderr, even with -q"
ok $(awk '$1 == 0 { exit !($2 == 3) }' "$TMPD/out"; echo $?) "the summary counts the 3 measured points"

# resume: the abandoned sizes count as done
before=$(grep -vc '^#' "$F")
$MPI -np 1 "$FUPERMOD" build --conf "$TMPD/one.conf" --data "$TMPD/z" --sizes 10,20,1000,2000,3000 -r 3 -R 5 -e 0.5 \
  -z 1e3 -q >/dev/null 2>&1
ok $([ $? -eq 0 ] && [ "$(grep -vc '^#' "$F")" -eq "$before" ] && echo 0 || echo 1) \
  "a rerun measures no abandoned size again"

# the model tools see the measured points only
"$FUPERMOD" model -m tabulated -n 0 "$F" >"$TMPD/model" 2>"$TMPD/err"
ok $([ $? -eq 0 ] && ! grep -Eq '^ *(10|20) ' "$TMPD/model" && grep -Eq '^ *1000 ' "$TMPD/model" && echo 0 || echo 1) \
  "fupermod model leaves the abandoned sizes out"
sed 's/^/# /' "$TMPD/model"
grep -v abandoned "$F" >"$TMPD/measured.points"
"$FUPERMOD" partition -a geometric -D 4000 "$F" "$F" >"$TMPD/p1" 2>&1 &&
  "$FUPERMOD" partition -a geometric -D 4000 "$TMPD/measured.points" "$TMPD/measured.points" >"$TMPD/p2" 2>&1
ok $([ $? -eq 0 ] && diff <(grep -v '^#' "$TMPD/p1") <(grep -v '^#' "$TMPD/p2") >/dev/null && echo 0 || echo 1) \
  "fupermod partition gives what it gives without the abandoned lines"

# with energy: an abandoned size has none, and the measured sizes around it still do
printf 'localhost 0 none cpu kernel=emulated,points=%s/dev.points,meter=model,meter_power=50\n' "$TMPD" >"$TMPD/e.conf"
$MPI -np 1 "$FUPERMOD" build --conf "$TMPD/e.conf" --data "$TMPD/e" --sizes 20,1000,2000 -r 3 -R 5 -e 0.5 -z 1e3 -q \
  >/dev/null 2>"$TMPD/err"
ok $? "build with a meter, the first size abandoned"
sed 's/^/# /' "$TMPD/e/localhost.0.points"
ok $(awk '{ sub(/ rejected=[0-9]+/, "") } !/^#/ { if ($NF == "abandoned") ab++; else if (NF == 6 || (NF == 7 && $NF == "imprecise")) e++ }
          END { exit !(ab == 1 && e == 2) }' \
     "$TMPD/e/localhost.0.points"; echo $?) "one abandoned line, two with energy"
$MPI -np 1 "$FUPERMOD" build --conf "$TMPD/e.conf" --data "$TMPD/e" --sizes 20,1000,2000,3000 -r 3 -R 5 -e 0.5 -z 1e3 -q \
  >/dev/null 2>"$TMPD/err"
ok $([ $? -eq 0 ] && [ "$(grep -vc '^#' "$TMPD/e/localhost.0.points")" -eq 4 ] && echo 0 || echo 1) \
  "a rerun with the meter resumes that file"

# a single run has no half-width: every point is marked imprecise, and counted
$MPI -np 1 "$FUPERMOD" build --conf "$TMPD/one.conf" --data "$TMPD/one" --sizes 1000,2000,3000 -r 1 -R 1 -q \
  >/dev/null 2>"$TMPD/err"
ok $? "build with one run per size"
ok $(awk '!/^#/ { n++; if ($NF != "imprecise") bad = 1 } END { exit !(n == 3 && !bad) }' "$TMPD/one/localhost.0.points"; echo $?) \
  "each point is marked imprecise"
grep -q '^fupermod build: 3 points imprecise' "$TMPD/err"
ok $? "build reports how many points are imprecise"
"$FUPERMOD" model "$TMPD/one/localhost.0.points" >/dev/null 2>&1
ok $? "imprecise points still make a model"

# list options: an empty or oversize item is an error naming the option, and nothing runs
for list in 10,,20,30 10,20, ,10 "" 10,1234567890123456789012345678901234567890; do
  expect_exit 2 "--sizes '$list'" -- "$FUPERMOD" build --conf "$TMPD/one.conf" --data "$TMPD/bad" --sizes "$list"
  stderr_has "--sizes: item [0-9]+ of '$list' is (empty|longer)" "the error names --sizes and the item"
done
ok $([ ! -e "$TMPD/bad" ] && echo 0 || echo 1) "no rejected list measured anything"
expect_exit 2 "--apps with an empty item" -- "$FUPERMOD" run --conf "$TMPD/one.conf" --apps dgemm,,fft
stderr_has "--apps: item 2 of 'dgemm,,fft' is empty" "the error names --apps"
expect_exit 2 "--apps with an oversize item" -- "$FUPERMOD" run --conf "$TMPD/one.conf" --apps dgemm,fftfftfftfftfftfftfft
stderr_has "--apps: item 2 .* is longer than" "the error names --apps"
SUMMA=${top_builddir:-..}/apps/fupermod-summa
expect_exit 2 "fupermod-summa -a with an empty item" -- $MPI -np 3 "$SUMMA" -n 96 -b 16 -l br -a 1,,2,3
stderr_has "-a: empty area in '1,,2,3'" "the error names -a"
done_testing
