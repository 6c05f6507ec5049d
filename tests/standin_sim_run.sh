#!/bin/bash
# alone: a simulated GPU in real time beside a real CPU process: other tests would stretch the CPU's times
# fupermod run on a simulated H100 (FAKE_CUDA_SIM=h100, no payload) in real time
# (FAKE_CUDA_REALTIME) beside a real CPU process, one clock for both: the run says SIMULATED and
# that the products are not checked, measures the fastest process alone beside the chosen and the
# even distributions, and the distribution chosen by the whole-run prediction is at least 0.98x as
# fast as the best of the GPU alone and even, for SUMMA (the CPU, several hundred times slower, is
# left idle) and for the 2D-FFT (whose transposes through the host do not pay for the CPU's rows).
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
# the choice: the least predicted whole run (chosen = 1 in the summary; none there: even)
chosen_of() { awk -F, 'NR > 1 && $19 == 1 { c = $4 } NR > 1 { e = $6 } END { print (c != "" ? c : e) }' "$TMPD/r/summary-$1.csv"; }
for app in dgemm fft; do
  chosen=$(chosen_of $app) alone=$(t_of $app fastest-alone) even=$(awk -F, 'NR == 2 { print $6 }' "$TMPD/r/summary-$app.csv")
  echo "# $app: chosen $chosen s, fastest alone $alone s, even $even s (SIMULATED GPU, real CPU)"
  ok "$(awk -v c="$chosen" -v a="$alone" -v e="$even" 'BEGIN { b = a < e ? a : e; exit !(c > 0 && b > 0 && b / c >= 0.98) }'; echo $?)" \
    "$app: the chosen distribution runs at $(awk -v c="$chosen" -v a="$alone" -v e="$even" 'BEGIN { b = a < e ? a : e; printf "%.3f", (c > 0 ? b / c : 0) }')x the best of the GPU alone and even (at least 0.98x)"
done
ok "$(grep -q '^   paraleph: process 1 idle' "$TMPD/out"; echo $?)" "dgemm: the CPU process is left idle, and the report says why"
done_testing
