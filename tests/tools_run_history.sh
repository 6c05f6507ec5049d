#!/bin/bash
# alone: launches compare their calibration runs; a test beside one launch and not the next is a drift
# fupermod run learns from every launch (docs/models.md, "History"): each launch appends its
# calibration runs and its distinct distributions' predicted and measured whole runs beside the
# models; the next launch on the same platform calibrates on those runs and one of its own; a
# 100x spike in the history is rejected, not learned; a platform that drifted is calibrated
# afresh, and the runs before it stop counting; fupermod model history prints each launch's strict
# score and regret; a malformed
# history line is an error naming it.
. "$top_srcdir/tests/tap.sh"
MPI="$MPIEXEC --oversubscribe --bind-to none"
OUT=$TMPD/results
printf 'localhost 0 none cpu\nlocalhost 1 none cpu\nlocalhost 2 none cpu\n' >"$TMPD/three.conf"
# sizes whose runs last milliseconds (28 ms, 6 ms here), not the microseconds that a loaded host scatters
# (run N [--out DIR --models MDIR]: the later options win)
run() { local i=$1; shift; $MPI -np 3 "$FUPERMOD" run --conf "$TMPD/three.conf" --out "$OUT" --size 1024 --dgemm-b 64 --points 8 --reps 2 \
  -r 2 -R 3 --full-grid --race-rounds 2 "$@" >"$TMPD/out$i" 2>"$TMPD/err$i"; }
# the factors a launch calibrated with: the numbers of its "over its functions" line
factors() { grep "fupermod run: $1: the application over its functions" "$TMPD/err$2" | sed 's/.*(median)://; s/;.*//'; }
run 1
ok $? "launch 1"
ok "$(for d in paraleph even; do
    grep -q "fupermod run: dgemm: $d: calibration on 3 runs of this launch (median [0-9.e-]* s) and 0 of earlier ones" "$TMPD/err1" &&
    grep -q "fupermod run: fft: $d: calibration on 5 runs of this launch (median [0-9.e-]* s) and 0 of earlier ones" "$TMPD/err1" || exit 1
  done; echo $?)" \
  "launch 1 calibrates on its own runs, on PARALEPH's distribution and on even: 3 each (SUMMA), 5 each (2D-FFT)"
ok "$(grep -q 'fupermod run: dgemm: leave one out: calibrated on even alone, paraleph predicted [0-9.e-]* s, measured [0-9.e-]* s ([-+][0-9.]* %); calibrated on paraleph alone, even predicted' "$TMPD/err1" &&
  grep -q "fupermod run: dgemm: their 95 % bootstrap intervals (over the calibration runs): [0-9.e-]*-[0-9.e-]* " "$TMPD/err1"; echo $?)" \
  "each factor's bootstrap interval and the leave-one-out check are printed ($(grep -m1 'dgemm: leave one out' "$TMPD/err1" | cut -c 1-200))"
# a model that fails its own leave-one-out check (beyond 10 %) cannot rank the candidates: every
# distinct one races (these three unbound processes on two cores often fail it); one that passes
# races the least predicted as usual
for app in dgemm fft; do
  loo=$(grep "fupermod run: $app: leave one out" "$TMPD/err1" | grep -o '([-+][0-9.]* %)' | tr -d '()%+-' |
    awk '$1 > m { m = $1 } END { print m + 0 }')
  distinct=$(awk -F, -v a=$app 'NR > 2 && $5 == a' "$OUT/models/history.csv" | wc -l)
  choice=$(sed -n "/^== $app/,/^== /p" "$TMPD/out1" | grep -m1 '^   the choice')
  if awk -v m="$loo" 'BEGIN { exit !(m > 10) }'; then
    ok "$(grep -q "fupermod run: $app: the leave-one-out check missed by" "$TMPD/err1" &&
      echo "$choice" | grep -Eq "of the $distinct raced \(every distinct one: the leave-one-out check failed"; echo $?)" \
      "$app: the leave-one-out check missed by $loo %: all $distinct distinct distributions raced ($(echo "$choice" | cut -c 1-120))"
  else
    ok "$(! grep -q "fupermod run: $app: the leave-one-out check missed by" "$TMPD/err1" &&
      ! echo "$choice" | grep -q "every distinct one"; echo $?)" "$app: the leave-one-out check within 10 % ($loo %): the usual race"
  fi
done
# per calibration distribution (paraleph, even): its calibration runs (SUMMA 3, the 2D-FFT 5) and its rounds as one more
ok "$([ "$(grep -c ',dgemm,1024,' "$OUT/models/calibration.csv")" -eq 8 ] && [ "$(grep -c ',fft,1024,' "$OUT/models/calibration.csv")" -eq 12 ] &&
  [ "$(grep -c ',dgemm,1024,' "$OUT/models/history.csv")" -ge 3 ]; echo $?)" \
  "its calibration runs and its distributions are kept beside the models"
# a row per working process of each distinct distribution in history.csv
ok "$(awk -F, 'FNR == 1 { f++ } f == 1 && FNR > 2 { k = split($8, sh, " "); for (i = 1; i <= k; i++) want[$5] += sh[i] > 0; next }
      f == 2 && FNR == 2 { ok = $0 == "launch,date,version,platform,app,size,names,rank,d,pred_comp,pred_comm,meas_comp,meas_busy,meas_cpu,meas_rows,meas_cols,meas_copy" }
      f == 2 && FNR > 2 && $5 == "fft" && $9 > 0 { n++; if (!($12 > 0 && $13 > 0 && $15 > 0 && $16 > 0 && $10 > 0)) { bad++; print "# " $0 >diag } }
      f == 2 && FNR > 2 && $5 == "dgemm" && $9 > 0 { m++; if (!($12 > 0 && $15 == "nan")) { bad++; print "# " $0 >diag } }
      END { if (!(ok && n == want["fft"] && m == want["dgemm"])) print "# header " ok ", " n " and " m " rows, for " want["fft"] " and " want["dgemm"] >diag
            exit !(ok && n > 0 && m > 0 && n == want["fft"] && m == want["dgemm"] && bad == 0) }' diag="$TMPD/phases.diag" \
      "$OUT/models/history.csv" "$OUT/models/phases.csv"; echo $?)" \
  "each distinct distribution's per-process phases are kept too (phases.csv: a row per working process, predicted and measured, the 2D-FFT's row and column phases)"
[ -s "$TMPD/phases.diag" ] && cat "$TMPD/phases.diag"
run 2
ok $? "launch 2"
# one run of its own checks the platform (all of them again where that one is off: a loaded host)
ok "$(grep -q 'fupermod run: dgemm: paraleph: calibration on [0-9]* runs* of this launch (median [0-9.e-]* s) and 4 of earlier ones' "$TMPD/err2" &&
  grep -q 'fupermod run: fft: paraleph: calibration on [0-9]* runs* of this launch (median [0-9.e-]* s) and 6 of earlier ones' "$TMPD/err2" &&
  grep -q 'fupermod run: dgemm: calibration runs of the whole-run model: 1 on the paraleph distribution, 1 on the even one (with the earlier launches' "'"'runs)' "$TMPD/err2"; echo $?)" \
  "launch 2 checks the platform with one calibration run and pools with the 4 and 6 kept (launch 1's calibration runs and rounds)"
grep 'fupermod run: .*calibrat' "$TMPD/err2" | sed 's/^/# /'
# a 100x spike: a stalled host's run, whole run and factors 100 times the others
awk -F, -v OFS=, '$5 == "dgemm" && !done { $1 = "spike"; $8 *= 100; n = split($9, f, " "); $9 = ""
  for (i = 1; i <= n; i++) $9 = $9 (i > 1 ? " " : "") f[i] * 100; print; done = 1 }' "$OUT/models/calibration.csv" >"$TMPD/spike"
cat "$TMPD/spike" >>"$OUT/models/calibration.csv"
run 3
ok $? "launch 3, a 100x spike in the history"
ok "$(grep -q 'fupermod run: dgemm: paraleph: calibration on [0-9]* runs* of this launch (median [0-9.e-]* s) and 7 of earlier ones (median [0-9.e-]* s); [1-9][0-9]* outlying .* rejected' "$TMPD/err3"; echo $?)" \
  "the spike is rejected, not learned ($(grep 'dgemm: paraleph: calibration on' "$TMPD/err3"))"
f2=$(factors dgemm 2) f3=$(factors dgemm 3)
echo "# dgemm factors: launch 2: $f2; launch 3: $f3"
ok "$(echo "$f2 | $f3" | awk -F'|' '{ n = split($1, a, " "); split($2, b, " "); if (n != 3) exit 1
    for (i = 1; i <= n; i++) if (b[i] > 2 * a[i] || b[i] < a[i] / 2) exit 1 }'; echo $?)" \
  "launch 3's factors stay near launch 2's, far from 100 times them"
# a platform that drifted: every kept 2D-FFT run ten times slower than this machine runs now
awk -F, -v OFS=, '$5 == "fft" { $8 *= 10 } { print }' "$OUT/models/calibration.csv" >"$TMPD/cal" && cp "$TMPD/cal" "$OUT/models/calibration.csv"
run 4
ok $? "launch 4, the history ten times slower"
ok "$(grep -q 'fupermod run: fft: the platform drifted: whole runs of .* calibrated on this launch' "$TMPD/err4" &&
  grep -q 'fupermod run: fft: paraleph: calibration on 5 runs of this launch (median [0-9.e-]* s) and 0 of earlier ones' "$TMPD/err4"; echo $?)" \
  "the drift is detected and the 2D-FFT calibrated afresh on 5 runs of its own"
grep 'fupermod run: fft: .*\(drift\|calibrat\)' "$TMPD/err4" | sed 's/^/# /'
# launch 5 in a directory of its own on the same models (--models: as a campaign's experiments share them)
run 5 --out "$TMPD/other" --models "$OUT/models"
ok $? "launch 5, after the drift, --out elsewhere and --models the same"
ok "$([ -s "$TMPD/other/report-fft.csv" ] && [ ! -e "$TMPD/other/models" ] &&
  grep -q 'fupermod run: .*models reused from '"$OUT/models" "$TMPD/err5"; echo $?)" \
  "launch 5 reports in its own directory and reuses the shared models, writing none of its own"
ok "$(grep -q 'fupermod run: fft: paraleph: calibration on [0-9]* runs* of this launch (median [0-9.e-]* s) and 6 of earlier ones' "$TMPD/err5"; echo $?)" \
  "the runs before the drift no longer count: launch 5 pools with launch 4's 5 and its rounds alone ($(grep 'fft: paraleph: calibration on' "$TMPD/err5"))"
"$FUPERMOD" model history "$OUT" >"$TMPD/hist" 2>&1
ok $? "fupermod model history"
sed 's/^/# /' "$TMPD/hist" | head -12
ok "$([ "$(grep -cE '^20[0-9-]+T[0-9:]+Z .* (dgemm|fft) +n=1024 +out of sample [0-9]+ of [0-9]+ within 10 % \(median .*\); in sample [0-9] of [0-9]; chosen .* \(regret [0-9.-]+ %\)$' "$TMPD/hist")" -eq 10 ]; echo $?)" \
  "it prints both applications of the 5 launches, each scored with its regret"
# the totals over the launches, recounted here from history.csv
for app in dgemm fft; do
  want=$(awk -F, -v a=$app '$5 == a && $13 == "out" { n++; e = ($9 - $11) / $11; k += (e < 0 ? -e : e) <= 0.1 }
                            $5 == a && $13 == "in" { m++ } END { printf "out of sample %d of %d within 10 %%", k, n; printf "|in sample [0-9]+ of %d;", m }' "$OUT/models/history.csv")
  ok "$(grep -E "^# all 5 launches of $app n=1024: ${want%%|*} \\([0-9]+ %; median [0-9.]+ %, worst [0-9.]+ %\\); ${want#*|} regret median -?[0-9.]+ %, mean -?[0-9.]+ %, worst -?[0-9.]+ %; chosen slower than the best beyond both intervals: [0-5]$" "$TMPD/hist" >/dev/null; echo $?)" \
    "$app: the totals of the 5 launches ($(grep "^# all .* of $app" "$TMPD/hist" | cut -c 1-160))"
done
echo 'not,a,history,line' >>"$OUT/models/history.csv"
expect_exit 1 "a malformed history line" -- "$FUPERMOD" model history "$OUT"
stderr_has "history.csv:[0-9]+: not a history line" "the error names the file and the line"
done_testing
