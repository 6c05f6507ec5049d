#!/bin/bash
# alone: a simulated GPU in real time beside a real CPU process: other tests would stretch the CPU's times
# fupermod run on a simulated H100 (FAKE_CUDA_SIM=h100, no payload) in real time
# (FAKE_CUDA_REALTIME) beside a real CPU process, one clock for both: the run says SIMULATED and
# that the products are not checked, measures the fastest process alone beside the chosen and the
# even distributions, and PARALEPH's DGEMM distribution is at least 0.98x as fast as the GPU alone
# (the CPU, several hundred times slower, is left idle).
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/standin.sh"
export FAKE_CUDA_DEVICES=1 FAKE_CUDA_SIM=h100 FAKE_CUDA_NOPAYLOAD=1 FAKE_CUDA_REALTIME=1
export LD_PRELOAD="$STANDIN_DIR/libcudart.so.13${LD_PRELOAD:+ $LD_PRELOAD}" # fupermod_time reads its clock
MPI="$MPIEXEC --oversubscribe --bind-to none -x LD_LIBRARY_PATH -x LD_PRELOAD -x FAKE_CUDA_DEVICES -x FAKE_CUDA_SIM -x FAKE_CUDA_NOPAYLOAD -x FAKE_CUDA_REALTIME"
printf 'localhost 0 none gpu device=0\nlocalhost 1 none cpu threads=1\n' >"$TMPD/node.conf"
timeout 600 $MPI -np 2 "$FUPERMOD" run --conf "$TMPD/node.conf" --out "$TMPD/r" --size 4096 --apps dgemm,fft --reps 3 \
  >"$TMPD/out" 2>&1
rc=$?
ok $rc "fupermod run on a simulated H100 and a CPU process (exit $rc)"
[ $rc -eq 0 ] || sed 's/^/# /' "$TMPD/out" | tail -15
ok "$(grep -q '^fupermod run: SIMULATED: GPU times come from the simulated device h100 .*products are not checked' "$TMPD/out"; echo $?)" \
  "the run says its GPU times are SIMULATED and its products unchecked"
t_of() { awk -F, -v a="$2" '$3 == a { print $4 }' "$TMPD/r/summary-$1.csv"; }
for app in dgemm fft; do
  chosen=$(t_of $app paraleph) alone=$(t_of $app fastest-alone)
  echo "# $app: paraleph $chosen s, fastest alone $alone s (SIMULATED GPU, real CPU)"
done
chosen=$(t_of dgemm paraleph) alone=$(t_of dgemm fastest-alone)
ok "$(awk -v c="$chosen" -v a="$alone" 'BEGIN { exit !(c > 0 && a > 0 && a / c >= 0.98) }'; echo $?)" \
  "dgemm: the chosen GPU + CPU distribution runs at $(awk -v c="$chosen" -v a="$alone" 'BEGIN { printf "%.3f", (c > 0 ? a / c : 0) }')x the GPU alone (at least 0.98x)"
ok "$(grep -q '^   paraleph: process 1 idle' "$TMPD/out"; echo $?)" "dgemm: the CPU process is left idle, and the report says why"
done_testing
