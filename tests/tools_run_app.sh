#!/bin/bash
# An application plug-in in the main job (apps/app.h; docs/apps.md, "Your own application in
# fupermod run"): fupermod run --app jacobi builds the kernel's functions, partitions, predicts
# with the plug-in's cost model, chooses, runs and reports as for SUMMA and the 2D-FFT, and keeps
# its history; a campaign runs over it; a plug-in that is missing or incomplete stops the job with
# one message naming it.
. "$top_srcdir/tests/tap.sh"
MPI="$MPIEXEC --oversubscribe --bind-to none"
printf 'localhost 0 none cpu meter=model,meter_power=30\nlocalhost 1 none cpu meter=model,meter_power=18\nlocalhost 2 none cpu meter=model,meter_power=18\n' >"$TMPD/three.conf"
O=$TMPD/run
$MPI -np 3 "$FUPERMOD" run --conf "$TMPD/three.conf" --out "$O" --app jacobi --size 1024 --points 8 --reps 2 -r 2 -R 3 \
  --race-rounds 2 >"$TMPD/out" 2>"$TMPD/err"
ok $? "fupermod run --app jacobi"
tail -n 5 "$TMPD/err" | sed 's/^/# /'
ok "$(grep -q '^== jacobi: Jacobi sweeps of a dense system.* n=1024, D=1024 units (grid 128, 256, ..., 1024), 3 processes' "$TMPD/out" &&
  grep -q '^   kernel jacobi-rows;' "$TMPD/out" && ! grep -q '^== \(dgemm\|fft\)' "$TMPD/out"; echo $?)" \
  "the report names the plug-in's application and kernel, and only it runs (--app without --apps)"
ok "$(grep -qE '^   whole-run predictions: out of sample [0-9]+ of [0-9]+ within 10 % .*; in sample [0-9] of [0-9]; chosen [0-9.e-]+ s, best measured [0-9.e-]+ s \(regret -?[0-9.]+ %\)$' "$TMPD/out" &&
  grep -qE '^   the choice \(--choose race\): ' "$TMPD/out"; echo $?)" "it predicts each distribution, scores the predictions and chooses"
grep -E '^   (whole-run predictions|the choice)' "$TMPD/out" | cut -c1-200 | sed 's/^/# /'
# the plug-in's cost model priced every distribution: a finite prediction and messages on the links
ok "$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
  { n++; if (!($c["pred_run"] > 0) || $c["pred_run"] == "nan") bad++ } END { exit n < 3 || bad }' "$O/predictions-jacobi.csv" &&
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c["d"] > 0 && $c["pred_comm"] > 0 { m++ } END { exit !m }' "$O/report-jacobi.csv"; echo $?)" \
  "predictions-jacobi.csv: every distribution predicted; report-jacobi.csv: its processes' messages priced"
# provenance: where, when and with what the results were measured, in the directory and on the plots
sha=$(sha256sum "$TMPD/three.conf" | cut -d' ' -f1)
ok "$(for k in date fupermod commit host cpu gpu mpi blas fftw cuda processes; do grep -q "^$k=." "$O/provenance.txt" || exit 1; done
  grep -q "^conf=$TMPD/three.conf sha256=$sha\$" "$O/provenance.txt" && grep -q '^command=fupermod run --conf .* --app jacobi --size 1024' "$O/provenance.txt" &&
  grep -q "^set label 99 'fupermod [0-9.]* (.*), host .*, 20[0-9-]*T" "$O/plot-jacobi.gp" &&
  grep -q '^fupermod run: fupermod [0-9.]* (' "$TMPD/out"; echo $?)" \
  "provenance.txt: the platform, the software, the configuration's SHA-256 and the exact command; the plots and the report say it too"
ok "$(grep -q ',jacobi,1024,' "$O/models/history.csv" && [ -s "$O/models/jacobi/localhost.0.points" ]; echo $?)" \
  "its functions and its history are kept beside the models, as the others'"

# a plug-in that is not there, and one with an incomplete table: one message each, naming it
expect_exit 1 "--app nosuch" -- $MPI -np 2 "$FUPERMOD" run --conf "$TMPD/three.conf" --allow-fewer --out "$TMPD/x" --app nosuch
stderr_has "fupermod run: app 'nosuch' not found \(looked for fupermod_app_nosuch.so and nosuch.so in .*kernels" "the message names the plug-in and where it was looked for"
ok "$([ "$(grep -c '^fupermod' "$TMPD/err")" -eq 1 ]; echo $?)" "once, not once per process"
cat >"$TMPD/broken.c" <<'C'
#include <stddef.h>
#include <fupermod/apps/app.h>
const fupermod_app_ops fupermod_app_plugin = {FUPERMOD_APP_API, "broken", "no run", "jacobi-rows", NULL, NULL, NULL};
C
if mpicc -shared -fPIC -I"$top_srcdir" -I"$top_builddir" "$TMPD/broken.c" -o "$TMPD/fupermod_app_broken.so" 2>"$TMPD/cc.err"; then
  expect_exit 1 "an incomplete plug-in" -- env FUPERMOD_KERNEL_PATH="$TMPD:$FUPERMOD_KERNEL_PATH" $MPI -np 2 "$FUPERMOD" run \
    --conf "$TMPD/three.conf" --allow-fewer --out "$TMPD/x" --app broken
  stderr_has "application .*fupermod_app_broken.so \(broken\): incomplete operations table" "the message names the file and what is missing"
else
  ok 1 "the incomplete plug-in builds from the source tree's <fupermod/apps/app.h>"
  sed 's/^/# /' "$TMPD/cc.err"
fi

# a campaign over it, the partitioners on shared models
cat >"$TMPD/c.txt" <<C
name = app-campaign
apps = jacobi
sizes = 512
partitioners = paraleph, geometric
configs = $TMPD/three.conf
repetitions = 1
command = $MPI -np {np} $FUPERMOD run --conf {config} --app {app} --size {size} --algorithm {partitioner} \\
          --points 8 --reps 2 -r 2 -R 3 --race-rounds 1 -q --out {dir} --models {models}
result = {dir}/summary-{app}.csv
output = $TMPD/camp/results.csv
C
(cd "$TMPD" && "$FUPERMOD" campaign run -q c.txt >camp.out 2>&1 && "$FUPERMOD" campaign summary c.txt >sum.out 2>&1)
ok $? "a campaign over the plug-in runs and summarises"
ok "$(grep -q '^jacobi, size 512' "$TMPD/sum.out" && grep -qE '^  paraleph +1 +0 ' "$TMPD/sum.out" && grep -qE '^  geometric +1 +0 ' "$TMPD/sum.out"; echo $?)" \
  "its table has both partitioners, each run once and successfully"
sed 's/^/# /' "$TMPD/sum.out" | head -20
done_testing
