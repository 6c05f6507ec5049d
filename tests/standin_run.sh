#!/bin/bash
# fupermod run on a CPU + GPU node, the GPU a stand-in: the gpu process is measured and computes
# SUMMA and the 2D-FFT through its CUDA executor (the model files and the report say so), the
# cpu process through its CPU executor, both applications verified, one executor per process
# for both, given back at the end; with no GPU the gpu line stops the job before anything is
# measured, naming the line and the host.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/standin.sh"
MPI="$MPIEXEC --oversubscribe --bind-to none -x LD_LIBRARY_PATH -x FAKE_CUDA_DEVICES -x FAKE_CUDA_VERBOSE"
printf 'localhost 0 none gpu device=1,meter=model,meter_power=200\nlocalhost 1 none cpu meter=model,meter_power=30\n' \
  >"$TMPD/node.conf"
ARGS="--conf $TMPD/node.conf --out $TMPD/r --size 256 --dgemm-b 32 --points 8 --reps 1 -r 2 -R 3 -q --full-grid"
FAKE_CUDA_VERBOSE=1 timeout 240 $MPI -np 2 "$FUPERMOD" run $ARGS >"$TMPD/out" 2>&1
rc=$?
ok $rc "fupermod run on a stand-in GPU and a CPU process (exit $rc)"
[ $rc -eq 0 ] || sed 's/^/# /' "$TMPD/out" | tail -15
ok "$(grep -q '^     device: cuda device 1 (fupermod stand-in GPU 1, PCI ' "$TMPD/out" &&
  grep -q '^     device: cpu, 1 thread; energy: model (ESTIMATE: 30 W x time)' "$TMPD/out"; echo $?)" \
  "the report names each process's device and meter"
grep 'device:' "$TMPD/out" | sed 's/^/# /'
ok "$(grep -q '^   device link of localhost.0 (through its executor, t = alpha + beta bytes): up pinned [0-9.]* us, [0-9.]* GB/s; down pinned .*; up pageable .*; down pageable [0-9.]* us, [0-9.]* GB/s$' "$TMPD/out" &&
  ! grep -q 'device link of localhost.1' "$TMPD/out"; echo $?)" \
  "the gpu process's link to its device is measured both ways, pinned and pageable; the cpu process has none"
grep 'device link' "$TMPD/out" | sed 's/^/# /'
for app in dgemm fft; do
  ok "$(grep -q '^# measured on host .*, executor cuda device 1 (fupermod stand-in GPU 1' "$TMPD/r/models/$app/localhost.0.points" &&
    grep -q '^# measured on host .*, executor cpu, 1 thread,' "$TMPD/r/models/$app/localhost.1.points" &&
    [ "$(grep -vc '^#' "$TMPD/r/models/$app/localhost.0.points")" -eq 8 ]; echo $?)" \
    "$app: the gpu process's model was measured through its CUDA executor (8 sizes), the cpu process's on its cores"
  ok "$(grep -q "^== $app" "$TMPD/out" && [ "$(grep -c "^$app,256," "$TMPD/r/summary-$app.csv")" -ge 2 ]; echo $?)" \
    "$app: the application ran on the distributions, verified, and was reported"
done
# one CUDA executor for the process, opened once for both applications and closed at the end
ok "$(! grep -q 'cuda stand-in: at exit' "$TMPD/out"; echo $?)" "the gpu process gave its device back (no stream or memory left at exit)"
grep 'cuda stand-in: at exit' "$TMPD/out" | sed 's/^/# /'
# without a GPU the gpu line stops the job before anything is measured
FAKE_CUDA_DEVICES=0 timeout 120 $MPI -np 2 "$FUPERMOD" run ${ARGS/$TMPD\/r/$TMPD/none} >"$TMPD/out0" 2>&1
rc=$?
ok "$([ $rc -eq 1 ] && grep -q "node.conf:1: a gpu line on $(hostname): no CUDA device" "$TMPD/out0" &&
  [ -z "$(ls "$TMPD"/none/models/*/*.points 2>/dev/null)" ]; echo $?)" \
  "no GPU: the gpu line stops the job, naming the line and the host, nothing measured (exit $rc)"
grep 'gpu line' "$TMPD/out0" | sed 's/^/# /'
done_testing
