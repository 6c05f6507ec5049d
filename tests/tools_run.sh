#!/bin/bash
# fupermod run end to end on a small problem: models, partitions, both applications, report.
. "$top_srcdir/tests/tap.sh"
MPI="$MPIEXEC --oversubscribe --bind-to none"
cat >"$TMPD/three.conf" <<CONF
localhost 0 none cpu meter=model,meter_power=30
localhost 1 none cpu meter=model,meter_power=18
localhost 2 none cpu meter=model,meter_power=18
CONF
ARGS="--conf $TMPD/three.conf --out $TMPD/results --size 256 --dgemm-b 32 --points 8 --reps 2 -r 2 -R 3 -q --full-grid"
$MPI -np 3 "$FUPERMOD" run $ARGS >"$TMPD/stdout" 2>"$TMPD/stderr"
ok $? "fupermod run on 3 processes"
links=$(ls "$TMPD"/results/models/comm-*.txt 2>/dev/null)
ok "$([ "$(echo "$links" | wc -w)" -eq 1 ] && grep -q '^processes localhost.0 localhost.1 localhost.2$' $links &&
  [ "$(grep -vc '^[#ps]' $links)" -eq 15 ] &&
  grep -q '^   links (one-way time t = alpha + beta bytes.*localhost.0 - localhost.1 .*localhost.0 - localhost.2 .*localhost.1 - localhost.2 [0-9.]* us, [0-9.]* GB/s$' "$TMPD/stdout" &&
  grep -q '^   the energy of communication is not modelled' "$TMPD/stdout"; echo $?)" \
  "every link measured at 5 sizes beside the models, its Hockney fit in the report, communication energy said unmodelled"
for app in dgemm fft; do
  ok $(grep -q "^== $app" "$TMPD/stdout" && echo 0 || echo 1) "$app: report printed"
  ok $([ "$(head -1 "$TMPD/results/summary-$app.csv")" = "app,size,algorithm,time,energy,even_time,even_energy,pred_time,pred_energy,speedup,energy_saving,pred_energy_saving,run_energy,even_run_energy,balance,pred_run,pred_run_ci,meas_run_ci,chosen" ] && echo 0 || echo 1) "$app: summary.csv header"
  n=$(grep -c "^$app,256," "$TMPD/results/summary-$app.csv")
  sc=0
  [ $app = dgemm ] && grep -q "^$app,256,square-corner," "$TMPD/results/summary-$app.csv" && sc=1
  ok $([ "$n" -ge $((4 + sc)) ] && [ "$n" -le $((5 + sc)) ] && grep -q "^$app,256,fastest-alone," "$TMPD/results/summary-$app.csv" && echo 0 || echo 1) "$app: three partitioned distributions (and the whole-run one where it differs) and the fastest process alone compared with even"
  [ $app = dgemm ] && ok "$([ $sc = 1 ] || grep -q '^   square-corner layout: none for the paraleph areas (sc layout: ' "$TMPD/stdout"; echo $?)" \
    "$app: the square-corner layout of the time-optimal areas is a candidate, or the report says why not ($([ $sc = 1 ] && echo a candidate || grep -o 'square-corner layout: none for.*' "$TMPD/stdout" | head -c 160))"
  # the choice (--choose race, the default): marked in the table and the CSV, one of the 3 least
  # predicted distinct distributions or of those whose intervals overlap the least one's
  chosen=$(sed -n "/^== $app/,/^== /p" "$TMPD/stdout" | awk '$2 == "*" && $3 ~ /^[0-9]/ { print $1 }')
  ok "$(awk -F, -v c="$chosen" 'NR > 1 { if ($19 == 1) got = $3; if (min == "" || $16 < min) { min = $16; mc = $17 }
          p[$3] = $16; ci[$3] = $17 }
        END { below = 0; for (k in p) below += p[k] < p[c]
              exit !(c != "" && (got == c || (got == "" && c == "even")) && (c == "even" || below < 3 || p[c] - ci[c] <= min + mc + 1e-12)) }' \
        "$TMPD/results/summary-$app.csv"; echo $?)" "$app: the choice ($chosen) is marked, among the 3 least predicted or overlapping the least one's interval"
  ok "$(sed -n "/^== $app/,/^== /p" "$TMPD/stdout" | grep -Eq "^   the choice \(--choose race\): $chosen, (ahead beyond both half-widths after|the least mean when the rounds ran out after|the only distinct distribution)"; echo $?)" \
    "$app: the report says how the choice was made ($(sed -n "/^== $app/,/^== /p" "$TMPD/stdout" | grep -m1 '^   the choice' | head -c 150))"
  # the predictions scored strictly, recomputed here: each distinct distribution once (its names
  # joined by '=' in predictions-APP.csv), |pred - meas| / meas <= 10 % (no intervals), the
  # calibration's distribution in sample, the regret of the choice against the best measured
  line=$(sed -n "/^== $app/,/^== /p" "$TMPD/stdout" | grep '^   whole-run predictions: ')
  want=$(awk -F, 'NR > 1 { e = ($4 - $6) / $6; if (e < 0) e = -e; w = e <= 0.1
           if ($9 == "in") { ik += w; in_n++ } else { ok_ += w; on++; if (e > worst) worst = e }
           if ($10 == 1) c = $6; if (b == "" || $6 < b) b = $6 }
         END { printf "out of sample %d of %d within 10 %% \\(median [0-9.]+ %%, worst %.1f %%\\); in sample %d of %d; chosen [0-9.e-]+ s, best measured [0-9.e-]+ s \\(regret %.1f %%\\)",
               ok_, on, 100 * worst, ik, in_n, 100 * (c / b - 1) }' "$TMPD/results/predictions-$app.csv")
  ok "$(echo "$line" | grep -Eq "^   whole-run predictions: $want$"; echo $?)" \
    "$app: the report's last line counts strictly, out of and in sample apart, with the choice's regret ($line)"
  # predictions-APP.csv: every name of the summary and even once, the in-sample rows those of the
  # calibration's distributions (the partitioner's and even: two, one where they coincide), rows of equal shares only where their
  # predictions differ (a layout); each row's measured run the mean of its names'
  bad=$(awk -F, 'FNR == 1 { f++; next }
         f == 1 { t[$3] = $4; ev = $6; next }
         f == 2 { nrow++; if ($9 == "in") { ins++; if ($2 !~ /^paraleph(=|$)/ && $2 !~ /(^|=)even$/) print "in sample: " $2 }
                  k = split($2, nm, "="); s = 0; for (i = 1; i <= k; i++) { seen[nm[i]]++; s += (nm[i] == "even" ? ev : t[nm[i]]) }
                  if (s / k - $6 > 1e-6 * $6 || $6 - s / k > 1e-6 * $6) print $2 ": meas " $6 " is not the mean " s / k
                  key = $3 " " $4; if (key in rows) print "twice: " $3; rows[key] = 1 }
         END { for (a in t) if (seen[a] != 1) print a " listed " seen[a] + 0 " times"; if (seen["even"] != 1) print "even"
               if (ins != 1 && ins != 2) print ins + 0 " rows in sample" }' \
        "$TMPD/results/summary-$app.csv" "$TMPD/results/predictions-$app.csv")
  ok "$([ -z "$bad" ]; echo $?)" "$app: predictions-$app.csv lists each distinct distribution once with all its names${bad:+ ($(echo $bad | head -c 200))}"
  # every distribution in the report sums to D
  D=$([ $app = dgemm ] && echo 64 || echo 256)
  bad=$(awk -F, -v D=$D 'NR > 1 { s[$3] += $6 } END { for (k in s) if (s[k] != D) n++; print n+0 }' "$TMPD/results/report-$app.csv")
  ok $([ "$bad" = 0 ] && echo 0 || echo 1) "$app: every distribution sums to D=$D"
  # agreement: the pred and meas intervals overlap (recomputed here), meas_ci from the 2 runs
  bad=$(awk -F, 'NR == 1 { if ($11 != "meas_ci" || $12 != "agree") { print "header"; exit } next }
                 { d = $8 - $9; if (d < 0) d = -d; want = $6 > 0 && d <= $10 + $11 + 1e-12
                   if ($12 != want || ($6 > 0 && !($11 >= 0 && $11 < 1e300))) n++ } END { print n+0 }' \
        "$TMPD/results/report-$app.csv")
  ok $([ "$bad" = 0 ] && echo 0 || echo 1) "$app: report's agree column is the overlap of pred +- ci and meas +- ci"
  k=$(awk -F, -v c="$chosen" 'NR > 1 && $3 == c { n += $12 } END { print n+0 }' "$TMPD/results/report-$app.csv")
  ok $(sed -n "/^== $app/,/^== /p" "$TMPD/stdout" | grep -q "predictions within confidence: $k of [1-3] working" && echo 0 || echo 1) \
    "$app: the table counts the agreeing processes ($k)"
  # each process's model: 8 distinct sizes, increasing, each with a time > 0
  bad=$(for r in 0 1 2; do awk -v r=$r '!/^#/ { if (!($1 > last) || !($2 > 0)) b++; last = $1; n++ }
                                       END { if (n != 8 || b) print "process " r ": " n " points, " b + 0 " bad" }' \
          "$TMPD/results/models/$app/localhost.$r.points" 2>&1; done)
  ok $([ -z "$bad" ] && echo 0 || echo 1) "$app: 8 measured sizes per process${bad:+ ($bad)}"
  # the front: non-dominated points, each a distribution of D over 3 processes, one chosen: the
  # least energy within 10 % of the fastest
  bad=$(awk -F, -v D=$D 'NR == 1 { if ($0 != "time,energy,chosen,d") print "header"; next }
         { n++; t[n] = $1; e[n] = $2; if ($3 == 1) { c++; ch = n }
           k = split($4, x, " "); s = 0; for (i = 1; i <= k; i++) s += x[i]; if (k != 3 || s != D) print "row " n ": " $4 }
         END { if (n < 1 || c != 1) { print n + 0 " points, " c + 0 " chosen"; exit }
               lo = t[1]; for (i = 1; i <= n; i++) if (t[i] < lo) lo = t[i]
               for (i = 1; i <= n; i++) { for (j = 1; j <= n; j++)
                   if (i != j && t[j] <= t[i] && e[j] <= e[i] && (t[j] < t[i] || e[j] < e[i])) print "point " i " dominated"
                 if (t[i] <= 1.1 * lo * (1 + 1e-8) && e[i] < e[ch]) print "point " i " beats the chosen one" }
               if (t[ch] > 1.1 * lo * (1 + 1e-8)) print "the chosen point is too slow" }' "$TMPD/results/front-$app.csv" 2>&1)
  ok $([ -z "$bad" ] && echo 0 || echo 1) "$app: Pareto front written: non-dominated distributions of D, the chosen point the least energy within 10% of the fastest${bad:+ ($bad)}"
  if command -v gnuplot >/dev/null 2>&1; then
    ok $(for f in speed distribution front; do head -c 8 "$TMPD/results/$f-$app.png" 2>/dev/null | od -An -c | tr -d ' \n'; echo; done |
         grep -vc '^211PNG\\r\\n032\\n$' | grep -qx 0 && echo 0 || echo 1) "$app: plots (PNG files)"
  else
    skip "$app: plots: gnuplot not installed"
  fi
done
# smoothed functions (default --smooth 3): a working process's prediction is the smoothed time at
# its share (plot column 4 is the smoothed speed) times the kernel runs (dgemm n/b = 8, fft 2); a
# DGEMM share between measured sizes (a whole rectangle of blocks) is predicted with the speed
# interpolated linearly between the smoothed speeds of its two neighbours (fupermod_points_interpolate)
for app in dgemm fft; do
  it=$([ $app = dgemm ] && echo 8 || echo 2)
  bad=$(awk -F, -v it=$it 'FNR == 1 { f++ } f == 1 && /^# rank/ { r = $0; sub(/^# rank /, "", r); sub(/:.*/, "", r); next }
         f == 1 && NF == 0 { next } f == 1 { split($0, x, " "); sm[r, x[1]] = x[1] / x[4]; raw[r, x[1]] = x[1] / x[2]
                                             k[r]++; sz[r, k[r]] = x[1]; sp[r, k[r]] = x[4]; next }
         f == 2 && FNR > 1 && $3 == "paraleph" && $6 > 0 && (($4, $6) in sm) {
           w = it * sm[$4, $6]; e = $8 - w; if (e < 0) e = -e
           if (!(w > 0) || e > 1e-6 * w) n++; if (sm[$4, $6] != raw[$4, $6]) moved++; next }
         f == 2 && FNR > 1 && $3 == "paraleph" && $6 > 0 {
           between++; j = 1; while (j < k[$4] && sz[$4, j + 1] < $6) j++
           if (!(sz[$4, 1] < $6 && $6 < sz[$4, k[$4]])) { n++; next }
           w = ($6 - sz[$4, j]) / (sz[$4, j + 1] - sz[$4, j]); want = it * $6 / ((1 - w) * sp[$4, j] + w * sp[$4, j + 1])
           e = $8 - want; if (e < 0) e = -e; if (e > 1e-6 * want) n++ }
         END { print n + 0, moved + 0, between + 0 }' FS=' ' "$TMPD/results/plot-$app.dat" FS=, "$TMPD/results/report-$app.csv")
  ok $([ "${bad%% *}" = 0 ] && echo 0 || echo 1) "$app: predictions are the smoothed function at the share x $it kernel runs (bad, moved, between sizes: $bad)"
done
# SUMMA runs whole rectangles: the DGEMM distribution is the fitted BR layout of 8 x 8 blocks that
# fupermod partition --blocks gives on the same smoothed functions (not PARALEPH's shares as such)
M="$TMPD/results/models/dgemm"
"$FUPERMOD" partition -a dp -D 64 --smooth 3 --blocks 8 --layout "$TMPD/run.layout" --json "$M"/localhost.0.points \
  "$M"/localhost.1.points "$M"/localhost.2.points >"$TMPD/lay.json" 2>&1
want=$(sed 's/.*"parts":\[//' "$TMPD/lay.json" | grep -o '"d":[0-9]*' | cut -d: -f2 | tr '\n' ' ')
got=$(awk -F, 'NR > 1 && $3 == "paraleph" { printf "%s ", $6 }' "$TMPD/results/report-dgemm.csv")
ok $([ -n "$want" ] && [ "$want" = "$got" ] && echo 0 || echo 1) "dgemm: the distribution run is the fitted layout's areas ($got; partition --layout: $want)"
ok $(grep -q 'The points scatter about the fits by' "$TMPD/stdout" && echo 0 || echo 1) "the report gives each process's scatter about its fit"
ok $(grep -q "lines: smoothed" "$TMPD/results/plot-fft.gp" && echo 0 || echo 1) "the speed plot shows the measured points and the smoothed lines"
ok $(grep -q 'ESTIMATE' "$TMPD/stdout" && grep -q 'ESTIMATE' "$TMPD/results/models/dgemm/localhost.0.points" && echo 0 || echo 1) "model-meter energies labelled ESTIMATE"
# energy that adds up: with the model meter (30 W on rank 0, 18 W on 1 and 2) both sides count the
# computation only: meas E / busy t is the power (to 2 %: the model meter's reads and the window's
# time stamps are taken a little apart), and an idle process costs 0. (pred E / pred t
# is the power only up to the benchmark's meter window around each run, which on these 0.1 ms runs
# is far from exact when the machine is loaded: not checked.)
for app in dgemm fft; do
  bad=$(awk -F, 'NR == 1 { if ($13 != "pred_energy" || $14 != "meas_energy" || $17 != "meas_busy") { print "header"; exit } next }
                 $15 == $4 { P = $4 == 0 ? 30 : 18
                   if ($6 == 0) { if ($14 != 0) n++; next }
                   b = $14 / $17 - P; if (b * b > 4e-4 * P * P) n++ }
                 END { print n + 0 }' "$TMPD/results/report-$app.csv")
  ok $([ "$bad" = 0 ] && echo 0 || echo 1) "$app: measured energies are the power x the computation time, 0 when idle ($bad bad)"
  bad=$(awk -F, 'NR > 1 { if (!($13 >= $5 * (1 - 1e-9)) || $12 !~ /^-?[0-9]/ || !($15 > 0 && $15 <= 1)) n++ } END { print n + 0 }' \
        "$TMPD/results/summary-$app.csv")
  ok $([ "$bad" = 0 ] && echo 0 || echo 1) "$app: the run's energy includes the computation's; predicted saving and balance given ($bad bad)"
done
ok $(grep -q 'energy: both the computation only' "$TMPD/stdout" && echo 0 || echo 1) "the report says what its energies count"
# unchanged configuration: the models are reused, nothing is measured again
before=$(md5sum <"$TMPD/results/models/fft/localhost.2.points")
$MPI -np 3 "$FUPERMOD" run $ARGS --apps fft >"$TMPD/stdout2" 2>"$TMPD/stderr2"
ok $? "second run"
ok $([ "$before" = "$(md5sum <"$TMPD/results/models/fft/localhost.2.points")" ] && echo 0 || echo 1) "models reused when nothing changed"
# --smooth 0: the raw points, with the benchmark's half-widths (x 2 FFT phases)
$MPI -np 3 "$FUPERMOD" run $ARGS --apps fft --smooth 0 >"$TMPD/stdout0" 2>&1
ok $? "run with --smooth 0"
bad=$(awk -F, 'FNR == 1 { f++ } f <= 3 && !/^#/ { split($0, x, " "); t[f - 1, x[1]] = x[2]; c[f - 1, x[1]] = x[4]; next }
       f == 4 && FNR > 1 && $3 == "paraleph" && $6 > 0 { e = $8 - 2 * t[$4, $6]; g = $10 - 2 * c[$4, $6]
                                                          if (e * e > 1e-12 * $8 * $8 || g * g > 1e-12 * $10 * $10) n++; k++ }
       END { print (k ? n + 0 : "none") }' "$TMPD/results/models/fft/localhost.0.points" "$TMPD/results/models/fft/localhost.1.points" \
      "$TMPD/results/models/fft/localhost.2.points" "$TMPD/results/report-fft.csv")
ok $([ "$bad" = 0 ] && echo 0 || echo 1) "--smooth 0: predictions and half-widths are the measured points' x 2 ($bad bad)"
ok $(grep -q 'predicted by the measured points' "$TMPD/stdout0" && echo 0 || echo 1) "--smooth 0: the report says the raw points are used"
# a changed configuration line invalidates its model
sed -i 's/meter_power=18$/meter_power=19/' "$TMPD/three.conf"
$MPI -np 3 "$FUPERMOD" run $ARGS --apps fft >/dev/null 2>&1
ok $([ "$before" != "$(md5sum <"$TMPD/results/models/fft/localhost.2.points")" ] && echo 0 || echo 1) "a changed configuration line is measured again"
# processes in two groups (emulated nodes): the hierarchical exact partition is added, and its
# predicted time equals the flat exact optimum of PARALEPH
sed 's/meter=model/group=a,meter=model/; 3s/group=a/group=b/' "$TMPD/three.conf" >"$TMPD/groups.conf"
$MPI -np 3 "$FUPERMOD" run --conf "$TMPD/groups.conf" --out "$TMPD/groups" --size 256 --points 8 --reps 1 -r 2 -R 3 -q \
  --apps fft >"$TMPD/gstdout" 2>&1
ok $? "run with two groups"
pl=$(awk -F, '$3 == "paraleph" { print $8 }' "$TMPD/groups/summary-fft.csv")
hp=$(awk -F, '$3 == "hipopta" { print $8 }' "$TMPD/groups/summary-fft.csv")
ok $([ -n "$hp" ] && [ "$hp" = "$pl" ] && echo 0 || echo 1) "hipopta's predicted time equals the flat optimum ($hp = $pl)"
# two processes bound to one core form a group: both show the group's prediction and measurement,
# and the CPU their core gave the computation cannot exceed the time it was busy with it
if [ "$(getconf _NPROCESSORS_ONLN)" -ge 2 ]; then
  printf 'localhost 0 core:0 cpu meter=model,meter_power=30\nlocalhost 1 core:1 cpu meter=model,meter_power=18\nlocalhost 2 core:1 cpu meter=model,meter_power=18\n' \
    >"$TMPD/shared.conf"
  # OpenBLAS asked for 2 threads: SUMMA still updates on one, as the models were measured
  OPENBLAS_NUM_THREADS=2 $MPI -np 3 "$FUPERMOD" run --conf "$TMPD/shared.conf" --out "$TMPD/shared" --size 256 \
    --dgemm-b 32 --points 8 --reps 2 -r 2 -R 3 -q >"$TMPD/sstdout" 2>&1
  ok $? "run with two processes sharing core 1"
  ok $(grep -q '^   rank 2 on .*, bind core:1, cpus 1, threads 1$' "$TMPD/sstdout" &&
       awk -F, 'NR == 1 { if ($18 != "threads") exit 1; next } $18 != 1 { exit 1 }' "$TMPD/shared/report-dgemm.csv" &&
       grep -q '^# kernel: dgemm b=32,threads=1,' "$TMPD/shared/models/dgemm/localhost.2.points" && echo 0 || echo 1) \
    "with OPENBLAS_NUM_THREADS=2, a process bound to one core measures and runs SUMMA's updates on one thread"
  for app in dgemm fft; do
    bad=$(awk -F, 'NR == 1 { if ($15 != "group" || $16 != "meas_cpu" || $17 != "meas_busy") { print "header"; exit } next }
                   { want = $4 == 0 ? 0 : 1; if ($15 != want) n++
                     if ($4 > 0) { k = $3; v = $8 "," $9 "," $10 "," $11 "," $16 "," $17
                                   if (k in seen && seen[k] != v) n++; seen[k] = v
                                   if ($9 != $16) n++ }
                     else if ($9 != $17) n++
                     if ($16 < 0 || $16 > $17 * 1.02 + 1e-4) n++ }
                   END { print n+0 }' "$TMPD/shared/report-$app.csv")
    ok $([ "$bad" = 0 ] && echo 0 || echo 1) "$app: ranks 1 and 2 are group 1 with the same pred, meas, cpu and busy; a group's meas is its cpu, a lone process's its busy time; cpu <= busy ($bad bad)"
    # a group member's computation energy is its power x the group's meas (its CPU time), as its
    # model was measured while the members ran together; not its own compute wall time
    bad=$(awk -F, 'NR > 1 && $6 > 0 { P = $4 == 0 ? 30 : 18; b = $14 / $9 - P; if (b * b > 4e-4 * P * P) n++ }
                   END { print n + 0 }' "$TMPD/shared/report-$app.csv")
    ok $([ "$bad" = 0 ] && echo 0 || echo 1) "$app: every working process's measured energy is its power x its meas time, group members included ($bad bad)"
  done
  ok $(grep -q 'a group of processes time-shares its cores' "$TMPD/sstdout" && echo 0 || echo 1) "the table explains the group"
else
  skip "the core-sharing group needs 2 CPUs"
fi
expect_exit 2 "no configuration" -- "$FUPERMOD" run
expect_exit 2 "negative --smooth" -- "$FUPERMOD" run --conf "$TMPD/three.conf" --smooth -1
stderr_has "--smooth '-1'" "bad --smooth named"
expect_exit 2 "smoothing with 2 points" -- "$FUPERMOD" run --conf "$TMPD/three.conf" --size 256 --points 2
stderr_has "needs --points >= 3" "smoothing needs 3 points"
expect_exit 2 "bad --apps" -- "$FUPERMOD" run --conf "$TMPD/three.conf" --apps lu
expect_exit 2 "n not a multiple of b" -- "$FUPERMOD" run --conf "$TMPD/three.conf" --size 100 --dgemm-b 32
expect_exit 2 "not a discrete time partitioner" -- "$FUPERMOD" run --conf "$TMPD/three.conf" --algorithm geometric
expect_exit 1 "more processes than lines" -- $MPI -np 4 "$FUPERMOD" run $ARGS
stderr_has "no line for MPI rank 3" "rank named"
done_testing
