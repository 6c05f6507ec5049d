#!/bin/bash
# alone: a simulated GPU in real time beside a real CPU process: other tests would stretch the CPU's times
# bench/gpunode on the stand-in CUDA (docs/performance.md, "The GPU-node benchmark"), small sizes.
# On the simulated H100 beside one real core: the GPU + CPU distributions that the whole-run model
# chooses, as fupermod run does, are at least 0.98x as fast as the GPU alone for SUMMA and the
# 2D-FFT, whatever speed-alone shares would give the CPU; the GPU-alone ratios say they are
# overlap only. On an H100 whose GEMM and FFT rates are divided by 1000 (made up here so that one
# core of this machine is within reach of it), the model gives the CPU rows of the 2D-FFT and
# that pays: at least 1.0x the GPU alone.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/standin.sh"
export FAKE_CUDA_DEVICES=1 FAKE_CUDA_SIM=h100 FAKE_CUDA_NOPAYLOAD=1 FAKE_CUDA_REALTIME=1
export LD_PRELOAD="$STANDIN_DIR/libcudart.so.13${LD_PRELOAD:+ $LD_PRELOAD}" # fupermod_time reads its clock
MPI="$MPIEXEC --oversubscribe --bind-to none -x LD_LIBRARY_PATH -x LD_PRELOAD -x FAKE_CUDA_DEVICES -x FAKE_CUDA_SIM -x FAKE_CUDA_NOPAYLOAD -x FAKE_CUDA_REALTIME"
BENCH="$top_builddir/bench/gpunode"
# the last line's ratio of APP at M (GPU alone over the choice) and the units the choice gives the CPU
ratio_of() { sed -n "s/.* at M = [0-9]*:.*$1 \([0-9.]*\) (the CPU \([0-9]*\) .*/\1 \2/p" "$2" | tail -1; }
at_least() { awk -v r="$1" -v t="$2" 'BEGIN { exit !(r != "" && r + 0 >= t) }'; }

timeout 300 $MPI -np 2 "$BENCH" --n 1024 --d 1024 --fft-n 1024 --b 256 --mix-n 2048 --mix-b 256 --reps 3 >"$TMPD/h100" 2>&1
rc=$?
ok $rc "bench/gpunode on a simulated H100 and a CPU process (exit $rc)"
[ $rc -eq 0 ] || sed 's/^/# /' "$TMPD/h100" | tail -15
grep -E '^\| (GPU alone|whole-run model|by speed alone|even)|^choice|ratios:' "$TMPD/h100" | sed 's/^/# /'
ok "$(grep -q '^SIMULATED ratios: streamed DGEMM / cuBLAS resident [0-9.]* (>= 0.85, overlap only), SUMMA alone / streamed DGEMM [0-9.]* (>= 0.9, overlap only), 2D-FFT alone vs cuFFT with transfers [0-9.]* (>= 0.9, overlap only)' "$TMPD/h100"; echo $?)" \
  "the last line says which ratios are overlap only on the simulator"
ok "$([ "$(grep -cE '^\| (by speed alone|even) \| [0-9]+ / [0-9]+ (blocks|rows) \|' "$TMPD/h100")" -eq 4 ]; echo $?)" \
  "speed-alone and even distributions are printed with their shares for both applications"
for app in SUMMA 2D-FFT; do
  set -- $(ratio_of "$app" "$TMPD/h100")
  ok "$(at_least "$1" 0.98; echo $?)" "$app: the whole-run model's choice runs at ${1:-?}x the GPU alone (at least 0.98x; the CPU given ${2:-?})"
done

# the H100 of this build's description, its GEMM and FFT rates / 1000
awk '$1 == "name" { $0 = $0 ", its GEMM and FFT rates / 1000" } $1 == "gemm" { $6 = $6 / 1000 } $1 == "fft" { $3 = $3 / 1000 } { print }' \
  "$top_srcdir/tests/fake_cuda/devices/h100.conf" >"$TMPD/slow.conf"
FAKE_CUDA_SIM="$TMPD/slow.conf" timeout 300 $MPI -np 2 "$BENCH" --n 1024 --d 1024 --fft-n 1024 --b 128 --mix-n 1024 \
  --mix-b 128 --reps 5 >"$TMPD/slow" 2>&1
rc=$?
ok $rc "bench/gpunode on a simulated H100 with its rates / 1000 (exit $rc)"
[ $rc -eq 0 ] || sed 's/^/# /' "$TMPD/slow" | tail -15
grep -E '^\| (GPU alone|whole-run model|by speed alone|even)|^choice|ratios:' "$TMPD/slow" | sed 's/^/# /'
set -- $(ratio_of 2D-FFT "$TMPD/slow")
ok "$([ "${2:-0}" -gt 0 ] && at_least "$1" 1.0; echo $?)" \
  "2D-FFT: the choice gives the CPU ${2:-?} rows and runs at ${1:-?}x the GPU alone (the CPU's share pays: at least 1.0x)"
done_testing
