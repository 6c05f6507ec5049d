#!/bin/bash
# alone: a simulated GPU in real time beside a real CPU process: other tests would stretch the CPU's times
# fupermod run on a simulated H100 (FAKE_CUDA_SIM=h100, no payload) in real time
# (FAKE_CUDA_REALTIME) beside a real CPU process, one clock for both: the run says SIMULATED and
# that the products are not checked, measures the fastest process alone beside the chosen and the
# even distributions, and the distribution chosen by the whole-run prediction is at least 0.98x as
# fast as the best of the GPU alone and even, and as the best of every distribution measured, for
# SUMMA and for the 2D-FFT (whose transposes through the host do not pay for the CPU's rows),
# whatever share the real CPU's speed earns it in PARALEPH's distribution; every idle process's
# reason is in the report.
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
# the choice (chosen = 1 in the summary; none there: even)
chosen_of() { awk -F, 'NR > 1 && $19 == 1 { c = $4 } NR > 1 { e = $6 } END { print (c != "" ? c : e) }' "$TMPD/r/summary-$1.csv"; }
for app in dgemm fft; do
  chosen=$(chosen_of $app) alone=$(t_of $app fastest-alone) even=$(awk -F, 'NR == 2 { print $6 }' "$TMPD/r/summary-$app.csv")
  echo "# $app: chosen $chosen s, fastest alone $alone s, even $even s (SIMULATED GPU, real CPU)"
  ok "$(awk -v c="$chosen" -v a="$alone" -v e="$even" 'BEGIN { b = a < e ? a : e; exit !(c > 0 && b > 0 && b / c >= 0.98) }'; echo $?)" \
    "$app: the chosen distribution runs at $(awk -v c="$chosen" -v a="$alone" -v e="$even" 'BEGIN { b = a < e ? a : e; printf "%.3f", (c > 0 ? b / c : 0) }')x the best of the GPU alone and even (at least 0.98x)"
  # the choice against every distribution measured in the same rounds: how much work PARALEPH gives
  # the real CPU beside the simulated GPU depends on the CPU's speed, the choice's quality does not
  best=$(awk -F, 'NR > 1 { if (b == "" || $4 < b) b = $4; if ($6 < b) b = $6 } END { print b }' "$TMPD/r/summary-$app.csv")
  n=$(awk -F, 'NR > 1' "$TMPD/r/summary-$app.csv" | wc -l)
  ok "$(awk -v c="$chosen" -v b="$best" 'BEGIN { exit !(c > 0 && b > 0 && b / c >= 0.98) }'; echo $?)" \
    "$app: the chosen distribution runs at $(awk -v c="$chosen" -v b="$best" 'BEGIN { printf "%.3f", (c > 0 ? b / c : 0) }')x the best of all $((n + 1)) distributions measured (at least 0.98x)"
  # every idle process of every distribution, the CPU wherever it is left out, has its reason
  unexplained=$(awk -F, 'NR > 1 && $6 == 0 { print $3 ": process " $4 " idle" }' "$TMPD/r/report-$app.csv" | sort -u |
    while read -r l; do grep -qF "   $l: " "$TMPD/out" || echo "$l"; done)
  ok "$([ -z "$unexplained" ]; echo $?)" "$app: the report says why each idle process is idle${unexplained:+ (not: $unexplained)}"
done
done_testing
