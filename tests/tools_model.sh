#!/bin/bash
# fupermod model and partition from the command line: output, plots, the model browser (list,
# show, plot), partition reports (balance, idle processes, calibration) and bad input.
. "$top_srcdir/tests/tap.sh"
E="$top_srcdir/configs/emulated"
"$FUPERMOD" model -m akima -n 2 --plot "$TMPD/plots" "$E/accel.points" "$E/fast.points" >"$TMPD/out" 2>"$TMPD/err"
ok $? "model with plots"
# the rows marked measured are each file's points, with their times
bad=$(awk 'FNR == 1 { f++ } f <= 2 && !/^#/ { t[f, $1] = $2; n[f]++; next }
           f == 3 && /^# .*: [0-9]+ points/ { k++; next }
           f == 3 && $NF == "measured" { m[k]++; w = t[k, $1]; x = $2 - w; if (x < 0) x = -x; if (!(w > 0) || x > 1e-7 * w) b++ }
           END { if (k != 2 || m[1] != n[1] || m[2] != n[2] || b) print k + 0 " files, " m[1] + 0 "/" n[1] + 0 " and " m[2] + 0 "/" n[2] + 0 " measured rows, " b + 0 " wrong" }' \
      "$E/accel.points" "$E/fast.points" "$TMPD/out")
ok $([ -z "$bad" ] && echo 0 || echo 1) "measured sizes printed with their times${bad:+ ($bad)}"
if command -v gnuplot >/dev/null 2>&1; then
  ok $([ -s "$TMPD/plots/speed.png" ] && [ -s "$TMPD/plots/time.png" ] && echo 0 || echo 1) "speed.png and time.png written"
else
  ok $([ -s "$TMPD/plots/model.gp" ] && echo 0 || echo 1) "gnuplot absent: the plot script is left"
fi
# the accelerator's model reproduces the measured speed at a measured size (d=1000: 30000*1000/1400)
s=$("$FUPERMOD" model -m piecewise "$E/accel.points" | awk '$1 == 1000 { print $3 }')
ok $(awk "BEGIN { exit !($s > 21428 && $s < 21429) }"; echo $?) "piecewise speed at d=1000 is 21428.57 ($s)"
expect_exit 2 "unknown model type" -- "$FUPERMOD" model -m spline "$E/accel.points"
stderr_has "unknown model type 'spline'" "type named"
expect_exit 1 "missing file" -- "$FUPERMOD" model "$TMPD/none.points"
stderr_has "none.points" "file named"
printf '10 1\n20 x\n' >"$TMPD/bad.points"
expect_exit 1 "malformed point file" -- "$FUPERMOD" model "$TMPD/bad.points"
stderr_has "bad.points:2: t 'x'" "file and line named"
# --- the model browser on a known data directory: a build's files and a run's models/APP files
M="$TMPD/data"
mkdir -p "$M/models/dgemm"
cp "$E/fast.points" "$M/hostA.0.points"
cp "$E/slow.points" "$M/hostA.1.points"
printf '10 1 3 0.1\n20 2 3 0.1\n' >"$M/hostB.0.points"
{ echo "# fupermod points v1: d t reps ci [e e_ci]"
  echo "# fupermod run model: app dgemm kernel dgemm fingerprint 0123456789abcdef"
  echo "# energy: ESTIMATE, not a measurement: model (ESTIMATE: 30 W x time)"
  echo "# kernel: dgemm b=64,threads=1,meter=model,meter_power=30"
  echo "# line: nodeX 0 core:0 cpu meter=model,meter_power=30"
  for i in 1 2 3 4 5 6 7 8; do awk -v i=$i 'BEGIN { t = i * 0.01 * (1 + (i % 2 ? 0.02 : -0.02)); printf "%d %.6g 5 0.0001 %.6g 0\n", 4 * i, t, 30 * t }'; done
} >"$M/models/dgemm/nodeX.0.points"
# hostC.0: 12 sizes on a line, the 6th measured 3 times too slow (a burst of load)
for i in 1 2 3 4 5 6 7 8 9 10 11 12; do echo "$((10 * i)) $(awk -v i=$i 'BEGIN { print i * 0.01 * (i == 6 ? 3 : 1) * (1 + (i % 2 ? 0.01 : -0.01)) }') 3 0.001"; done >"$M/hostC.0.points"
"$FUPERMOD" model list --data "$M" >"$TMPD/list" 2>"$TMPD/err"
ok $? "model list"
row() { awk -v f="$1" '$1 == f' "$TMPD/list"; }
ok $(grep -q "^# $M: 5 stored models" "$TMPD/list" && echo 0 || echo 1) "list counts 5 models"
ok $(row hostC.0.points | awk '{ exit !($5 == 12 && $11 == 1 && $9 == "yes" && $10 + 0 < 2) }'; echo $?) "hostC.0: one outlying point counted, left out of the scatter: calibrated"
ok $(row hostA.1.points | awk '{ exit !($11 == 0) }'; echo $?) "hostA.1: no outlying point"
n=$(awk '!/^#/' "$E/fast.points" | wc -l)
lo=$(awk '!/^#/ { print $1; exit }' "$E/fast.points"); hi=$(awk '!/^#/ { x = $1 } END { print x }' "$E/fast.points")
ok $(row hostA.0.points | awk -v n=$n -v lo=$lo -v hi=$hi '{ exit !($2 == "hostA" && $3 == 0 && $5 == n && $6 == lo && $7 == hi && $9 == "yes") }'; echo $?) \
  "hostA.0: host, rank, $n sizes from $lo to $hi, calibrated"
ok $(row hostB.0.points | awk '{ exit !($2 == "hostB" && $5 == 2 && $6 == 10 && $7 == 20 && $9 == "no" && $10 == "-") }'; echo $?) \
  "hostB.0: 2 sizes, not calibrated, no scatter"
ok $(row models/dgemm/nodeX.0.points | awk '{ exit !($2 == "nodeX" && $4 == "dgemm" && $5 == 8 && $6 == 4 && $7 == 32 && $9 == "yes" && $10 + 0 > 1 && $10 + 0 < 4 && $11 == 0 && $12 == "nodeX" && $14 == "core:0") }'; echo $?) \
  "a run model: kernel dgemm, 8 sizes 4..32, calibrated, scatter 1-4 %, its configuration line"
ok $(grep -q '^# [12] models\? not calibrated' "$TMPD/list" && echo 0 || echo 1) "list says how many are not calibrated"
# show by HOST.RANK: the points with repetitions and half-widths, the smoothed function, GFLOP/s from the
# kernel (dgemm with b=64: 2 b^3 flop per block while the blocks fill whole rows, d <= 24 here)
"$FUPERMOD" model show --data "$M" --share 16 nodeX.0 >"$TMPD/show"
ok $? "model show HOST.RANK"
bad=$(awk 'FNR == 1 { f++ } f == 1 && !/^#/ { t[$1] = $2; n++; next }
           f == 2 && !/^#/ { k++; if ($2 != t[$1] || $3 != 5 || $4 != 0.0001) b++
                             r = ($2 - $7) / $7; if (sprintf("%.1f%%", 100 * r) != $9) b++
                             g = 2 * 64 * 64 * 64 * $1 / $2 * 1e-9; if ($1 <= 24 && (g - $10) ^ 2 > 1e-6 * g * g) b++ }
           END { if (k != n || b) print k + 0 "/" n + 0 " rows, " b + 0 " wrong" }' "$M/models/dgemm/nodeX.0.points" "$TMPD/show")
ok $([ -z "$bad" ] && echo 0 || echo 1) "show: every point with its reps, ci, residual about the smoothed time and GFLOP/s${bad:+ ($bad)}"
ok $(grep -q '^# calibrated at share 16: yes (7 measured sizes within a factor of 2)' "$TMPD/show" && echo 0 || echo 1) "show: calibrated at the share"
ok $(grep -q '^# configuration: nodeX 0 core:0 cpu' "$TMPD/show" && grep -q '^# energy: ESTIMATE' "$TMPD/show" && echo 0 || echo 1) "show: configuration line and energy label"
"$FUPERMOD" model show "$M/hostC.0.points" >"$TMPD/showC"
ok $(grep -q "^# outlying points (time off its neighbours' median speed by more than 3.5 MADs x 1.4826): 1$" "$TMPD/showC" &&
     [ "$(awk '/outlier$/ { print $1 }' "$TMPD/showC")" = 60 ] && echo 0 || echo 1) "show: the slow size d=60 is marked as the outlier"
"$FUPERMOD" model show "$M/hostB.0.points" >"$TMPD/showB"
ok $(grep -q '^# calibrated: no: 2 measured sizes: too few for a scatter' "$TMPD/showB" && echo 0 || echo 1) "show FILE: too few sizes"
"$FUPERMOD" model show --data "$M" --share 1000 nodeX.0 >"$TMPD/show2"
ok $(grep -q '^# calibrated at share 1000: no: no measured size within a factor of 2 of 1000' "$TMPD/show2" && echo 0 || echo 1) "show: uncalibrated far from the measured sizes"
# plot: every model on one plot per quantity; the data columns
"$FUPERMOD" model plot --data "$M" --out "$TMPD/mplots" "$M/hostA.0.points" "$M/hostA.1.points" nodeX.0 >"$TMPD/plot" 2>&1
ok $? "model plot"
bad=$(awk 'FNR == 1 { f++ } f == 1 && !/^#/ { t[$1] = $2; e[$1] = $5; n++; next }
           f == 2 && !/^#/ { k++; s = $1 / $2; g = 2 * 64 ^ 3 * $1 / $2 * 1e-9; w = e[$1] / t[$1]
                             if ($1 > 24) g = $4 # 2 b^3 d flop holds while d blocks tile whole rows of the layout
                             if ($2 != t[$1] || (s - $3) ^ 2 > 1e-12 * s * s || (g - $4) ^ 2 > 1e-12 * g * g ||
                                 $5 != e[$1] || (w - $6) ^ 2 > 1e-12 * w * w || (g / w - $7) ^ 2 > 1e-12 * (g / w) ^ 2) b++ }
           END { if (k != n || b) print k + 0 "/" n + 0 " rows, " b + 0 " wrong" }' "$M/models/dgemm/nodeX.0.points" "$TMPD/mplots/model2.dat")
ok $([ -z "$bad" ] && echo 0 || echo 1) "plot data: d t speed GFLOP/s energy power GFLOP/s-per-W${bad:+ ($bad)}"
ok $(awk '!/^#/ && $4 != "?" { b++ } END { exit b > 0 }' "$TMPD/mplots/model0.dat"; echo $?) "no GFLOP/s without a kernel"
ok $(grep -c "^set output '$TMPD/mplots/\(time\|speed\|energy\|power\|efficiency\).png'" "$TMPD/mplots/models.gp" | grep -qx 5 && echo 0 || echo 1) \
  "script: time, speed, energy, power and efficiency plots"
ok $(grep "efficiency.png" -A3 "$TMPD/mplots/models.gp" | grep -q "model2.dat' using 1:8" && echo 0 || echo 1) "mixed kernels: speed per watt in units/s"
if command -v gnuplot >/dev/null 2>&1; then
  ok $(for f in time speed energy power efficiency; do [ -s "$TMPD/mplots/$f.png" ] || echo "$f"; done | grep -q . && echo 1 || echo 0) "five PNG files"
else
  skip "plots: gnuplot not installed"
fi
expect_exit 1 "show of an unknown model" -- "$FUPERMOD" model show --data "$M" nodeZ.3
stderr_has "'nodeZ.3': neither a point file nor a stored model HOST.RANK in $M" "unknown model named with its directory"
# --conf supplies the configuration line and the kernel of files that do not name them
printf 'hostA 1 core:1 cpu kernel=dgemm,b=64\n' >"$TMPD/c.conf"
"$FUPERMOD" model list --data "$M" --conf "$TMPD/c.conf" >"$TMPD/listc"
ok $(awk '$1 == "hostA.1.points" { exit !($4 == "dgemm" && $12 == "hostA" && $13 == 1 && $14 == "core:1" && $16 == "kernel=dgemm,b=64") }' "$TMPD/listc"; echo $?) \
  "--conf: hostA.1's line and kernel"
ok $(awk '$1 == "hostA.0.points" { exit !($4 == "-" && $12 == "-") }' "$TMPD/listc"; echo $?) "--conf: hostA.0 has no line there"
printf '10 1\n20 x\n' >"$M/broken.0.points"
"$FUPERMOD" model list --data "$M" >"$TMPD/list2" 2>"$TMPD/err"
ok $(grep -q "^# $M: 5 stored models" "$TMPD/list2" && grep -q 'skipped: .*broken.0.points:2' "$TMPD/err" && echo 0 || echo 1) \
  "list skips an unreadable point file, naming it and its line"
rm "$M/broken.0.points"
expect_exit 1 "list of a missing directory" -- "$FUPERMOD" model list --data "$TMPD/nowhere"
stderr_has "nowhere: cannot open the data directory" "missing directory named"
expect_exit 2 "plot without --out" -- "$FUPERMOD" model plot --data "$M"
# --- partition reports: balance, idle processes and uncalibrated shares on a crafted instance
P="$TMPD/part"; mkdir -p "$P"
for i in 1 2 3 4 5 6 7 8 9 10; do echo "$((10 * i)) $(awk -v d=$((10 * i)) 'BEGIN { print d * 0.001, 3, 0, d * 0.05, 0 }')"; done >"$P/fast.points"
for i in 1 2 3 4 5 6 7 8 9 10; do echo "$((10 * i)) $(awk -v d=$((10 * i)) 'BEGIN { print d * 0.0011, 3, 0, d * 0.01, 0 }')"; done >"$P/mid.points"
for i in 1 2 3 4 5 6 7 8 9 10; do echo "$((10 * i)) $((10 * i)) 3 0 $((10 * i)) 0"; done >"$P/slow.points"
printf '10 0.01 3 0\n20 0.02 3 0\n' >"$P/few.points"
"$FUPERMOD" partition -a dp -D 100 "$P/fast.points" "$P/mid.points" "$P/slow.points" >"$TMPD/pt"
ok $? "dp on the crafted instance"
ok $(grep -q '^  load-balance efficiency 0.636 ' "$TMPD/pt" && echo 0 || echo 1) "efficiency (0.05 + 0.055 + 0) / 3 / 0.055 = 0.636"
ok $(grep -q '^  process 2 idle: its time for its smallest measured size (d=10: 10 s) exceeds the makespan (0.055 s)' "$TMPD/pt" && echo 0 || echo 1) \
  "the slow process is idle because its smallest size exceeds the makespan"
"$FUPERMOD" partition -a dp -F sum -D 100 "$P/fast.points" "$P/mid.points" "$P/slow.points" >"$TMPD/pe"
ok $(grep -q '^  process 0 idle: idling saves energy' "$TMPD/pe" && grep -q '^  process 2 idle: idling saves energy' "$TMPD/pe" && echo 0 || echo 1) \
  "energy objective: idle processes save energy"
"$FUPERMOD" partition -a hpopta -D 100 "$P/fast.points" "$P/few.points" >"$TMPD/pc"
ok $(grep -q "^  warning: process 1's model is not calibrated at d=20: 2 measured sizes: too few for a scatter" "$TMPD/pc" &&
     ! grep -q "process 0's model is not calibrated" "$TMPD/pc" && echo 0 || echo 1) "a share on a 2-size model is flagged, a dense one is not"
expect_exit 2 "no arguments" -- "$FUPERMOD"
expect_exit 2 "unknown command" -- "$FUPERMOD" frobnicate
expect_exit 0 "help" -- "$FUPERMOD" --help
expect_exit 0 "doctor finds nothing broken" -- "$FUPERMOD" doctor
ok $(grep -q '^\[ ok \] cblas_dgemm binds to .*openblas' "$TMPD/out" && echo 0 || echo 1) "doctor: GEMM binds to OpenBLAS"
ok $(grep -q 'problem(s), .* warning(s)' "$TMPD/out" && echo 0 || echo 1) "doctor summarises"
# an empty data directory: no models, no sorting of nothing (UBSan in the sanitizer build)
mkdir -p "$TMPD/nomodels"
"$FUPERMOD" model list --data "$TMPD/nomodels" >"$TMPD/out" 2>"$TMPD/err"
ok $([ $? -eq 0 ] && grep -q '0 stored models' "$TMPD/out" && echo 0 || echo 1) "model list on an empty directory: 0 stored models"
expect_exit 1 "model show on an empty directory" -- "$FUPERMOD" model show x --data "$TMPD/nomodels"
stderr_has "'x': neither a point file nor a stored model" "the name given"
done_testing
