#!/bin/bash
# fupermod run --algorithm takes every partitioner of the registry (docs/apps.md, "Any
# partitioner"): a continuous one's shares are those of fupermod partition on the same functions,
# a Pareto one's fastest point, one for identical processors runs on the processes' mean
# function; an energy partitioner without energy and an unknown name are refused with a message.
. "$top_srcdir/tests/tap.sh"
MPI="$MPIEXEC --oversubscribe --bind-to none"
M=$TMPD/models
printf 'localhost 0 none cpu meter=model,meter_power=30\nlocalhost 1 none cpu meter=model,meter_power=18\nlocalhost 2 none cpu meter=model,meter_power=18\n' >"$TMPD/three.conf"
# the models once, shared by every launch (--models): the launches differ only in the partitioner
run() { local alg=$1; shift; $MPI -np 3 "$FUPERMOD" run --conf "$TMPD/three.conf" --out "$TMPD/$alg" --models "$M" --apps fft \
  --size 1024 --points 8 --reps 1 -r 2 -R 3 --race-rounds 1 -q --algorithm "$alg" "$@" >"$TMPD/$alg.out" 2>"$TMPD/$alg.err"; }
# the shares of distribution LABEL in DIR's dist-fft.dat, one line
shares() { awk -v l="$2" 'NR == 1 { for (i = 3; i <= NF; i++) if ($i == l) c = i - 1 } NR > 1 && c { printf "%s ", $c }' "$1/dist-fft.dat"; }
"$FUPERMOD" run --help >"$TMPD/help" 2>&1
ok "$(for a in even cpm geometric numerical popta eopta aleph hpopta heopta hepopta htpopta balanced dp paraleph; do
  grep -A6 -- '--algorithm A' "$TMPD/help" | grep -qw "$a" || exit 1; done; echo $?)" "--help lists every partitioner of the registry"
for alg in geometric popta aleph htpopta; do
  run $alg
  rc=$?
  s=$(shares "$TMPD/$alg" $alg)
  ok "$([ $rc -eq 0 ] && [ -n "$s" ] && echo "$s" | awk '{ for (i = 1; i <= NF; i++) t += $i; exit t != 1024 || NF != 3 }'; echo $?)" \
    "--algorithm $alg runs, predicts and reports its distribution ($s)"
  [ $rc -eq 0 ] || sed 's/^/# /' "$TMPD/$alg.err" | tail -5
done
# geometric's shares are fupermod partition's on the same functions
want=$("$FUPERMOD" partition --smooth 3 -a geometric -D 1024 "$M"/fft/localhost.0.points "$M"/fft/localhost.1.points "$M"/fft/localhost.2.points 2>&1 |
  awk '/^ *[0-9]+ +[0-9]+/ { printf "%s ", $2 }')
ok "$([ -n "$want" ] && [ "$want" = "$(shares "$TMPD/geometric" geometric)" ]; echo $?)" \
  "geometric's shares are fupermod partition's on the same functions, smoothed as run smooths them ($want)"
printf 'localhost 0 none cpu\nlocalhost 1 none cpu\n' >"$TMPD/two.conf"
expect_exit 1 "an energy partitioner on functions without energy" -- $MPI -np 2 "$FUPERMOD" run --conf "$TMPD/two.conf" \
  --out "$TMPD/e" --apps fft --size 512 --points 4 --reps 1 -r 2 -R 2 -q --algorithm heopta
stderr_has "fupermod run: fft: partitioning failed: --algorithm heopta: heopta needs dynamic energy, and process 0's fft function has none" \
  "the message says what it needs"
ok "$([ "$(grep -c 'needs dynamic energy' "$TMPD/err")" -eq 1 ]; echo $?)" "once, by rank 0"
grep '^fupermod' "$TMPD/err" | sed 's/^/# /' | head -5
expect_exit 2 "an unknown partitioner" -- "$FUPERMOD" run --conf "$TMPD/two.conf" --algorithm geometirc
stderr_has "unknown partitioner 'geometirc' \(did you mean 'geometric'\?\); known:.* cpm .*htpopta" "it names the nearest and every known one"
done_testing
