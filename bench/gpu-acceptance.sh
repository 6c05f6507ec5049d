#!/bin/bash
# Issue 52's device acceptance in one script, on a lent H100 or H200 (docs/performance.md, "The
# device acceptance"): in a build tree configured --with-cuda, it builds what it runs, runs the GPU
# tests, bench/gpunode twice and fupermod run --conf configs/gpu-node.conf, then the same runs on
# the stand-in CUDA's simulated device of the GPU's name (FAKE_CUDA_SIM=h100 or h200), and prints
# every ratio, the main job's choice and its regret, and the simulator's figure beside the
# device's with its error. Through the device kit (../shared/device/README.md), from the project root:
#   bash ../shared/device/prepare.sh        # here
#   bash .gpu/run.sh 'bash bench/gpu-acceptance.sh'   # on the GPU machine
# Without a GPU (or with --standin) the device is the simulated H100 itself, on a configuration
# fitted to this machine's cores and at smaller sizes: both columns are then SIMULATED, and their
# difference is the runs' spread, not the simulator's error. Options: --standin, --quick (one
# bench/gpunode run, no fupermod run). Exit status: 0 when every step ran and the tests passed.
set -u
T0=$(date +%s)
el() { echo "[$(($(date +%s) - T0)) s] $*"; }
STANDIN=0 QUICK=0
for a in "$@"; do
  case "$a" in
    --standin) STANDIN=1 ;;
    --quick) QUICK=1 ;;
    -h | --help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "gpu-acceptance: unknown option $a (--help)" >&2; exit 2 ;;
  esac
done
B=%BUILD_DIR%
SRC=%SRC_DIR%
case "$B" in %*) B=$PWD SRC=$(cd "$(dirname "$0")/.." && pwd) ;; esac # run as bench/gpu-acceptance.sh from the tree
cd "$B" || exit 1
[ -f Makefile ] || { echo "gpu-acceptance: $B is not a configured build tree" >&2; exit 1; }
OUT=${OUT:-$(mktemp -d /tmp/gpu-acceptance.XXXXXX)}
mkdir -p "$OUT"
NP=$(nproc)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export FUPERMOD_KERNEL_PATH=${FUPERMOD_KERNEL_PATH:-$B/kernels/.libs}
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
case "$GPU" in
  *H200*) SIM=h200 ;;
  *H100*) SIM=h100 ;;
  "") SIM=h100 STANDIN=1 ;;
  *) SIM=h100; echo "gpu-acceptance: $GPU has no description of its own: the simulator's figures are the H100's" ;;
esac
[ $STANDIN -eq 1 ] && GPU="none: the stand-in's simulated $SIM is the device"
el "device: $GPU; machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $NP cores; results in $OUT"

el "build: make, bench programs and the stand-in CUDA"
make -s -j"$NP" >"$OUT/make.log" 2>&1 && make -s -j"$NP" bench tests/fake_cuda/libcudart.la tests/fake_cuda/libcublas.la \
  tests/fake_cuda/libcufft.la >>"$OUT/make.log" 2>&1 || { tail -20 "$OUT/make.log"; el "build failed"; exit 1; }
S=$B/tests/fake_cuda/.libs
# the stand-in first, and preloaded: the modules' runpath names the real CUDA, and fupermod_time
# reads the simulator's clock through the preloaded runtime
SIMENV="LD_LIBRARY_PATH=$S${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} LD_PRELOAD=$S/libcudart.so.13:$S/libcublas.so.13:$S/libcufft.so.12
  FAKE_CUDA_SIM=$SIM FAKE_CUDA_DEVICES=1 FAKE_CUDA_NOPAYLOAD=1 FAKE_CUDA_REALTIME=1"
MPI="mpirun --bind-to none -np 2 -x OMPI_ALLOW_RUN_AS_ROOT -x OMPI_ALLOW_RUN_AS_ROOT_CONFIRM -x FUPERMOD_KERNEL_PATH"
MPISIM="$MPI -x LD_LIBRARY_PATH -x LD_PRELOAD -x FAKE_CUDA_SIM -x FAKE_CUDA_DEVICES -x FAKE_CUDA_NOPAYLOAD -x FAKE_CUDA_REALTIME"
# on the simulator: MPI and environment of a command run there
sim() { env $SIMENV $MPISIM "$@"; }
dev() { if [ $STANDIN -eq 1 ]; then sim "$@"; else $MPI "$@"; fi; }

if [ $STANDIN -eq 1 ]; then
  TESTS="tests/test_exec tests/test_cuda_sim tests/test_cuda_kernels tests/test_cuda_memory tests/standin_exec.sh"
  BARGS="--mix-n 2048 --mix-b 256 --threads $((NP > 2 ? NP - 1 : 1))" SIZE=2048
  # configs/gpu-node.conf on this machine: the GPU with core 0, the CPU process on the others; no
  # NVML in the stand-in (the CPU's energy is the model meter's, as there)
  CONF=$OUT/gpu-node.conf
  printf 'localhost 0 core:0 gpu device=0\nlocalhost 1 core:1-%d cpu threads=%d,meter=model,meter_power=150\n' \
    $((NP > 1 ? NP - 1 : 1)) $((NP > 2 ? NP - 1 : 1)) >"$CONF"
  CONFSIM=$CONF
else
  TESTS="tests/test_exec tests/test_ooc tests/test_kernels tests/test_meters tests/test_cuda_kernels"
  # and a small size, where the GPU's fixed costs weigh most, for a CPU share that pays
  BARGS="--mix-n 8192 --mix-b 1024 --pay-n 2048 --pay-b 256 --threads $((NP - 1))" SIZE=4096
  CONF=$SRC/configs/gpu-node.conf
  # the simulated GPU has no NVML: the same lines without the GPU's meter
  CONFSIM=$OUT/gpu-node-sim.conf
  sed -e 's/meter=nvml,static_probe=2//' -e 's/,$//' -e 's/ $//' "$CONF" >"$CONFSIM"
fi

el "GPU tests: $TESTS"
trc=0
make -s -j"$NP" check TESTS="$TESTS" >"$OUT/check.log" 2>&1 || trc=1
grep -E '^# (TOTAL|PASS|SKIP|FAIL|ERROR)' "$OUT/check.log" | tr '\n' ' '; echo
if [ $STANDIN -eq 0 ]; then
  # SUMMA and the 2D-FFT through the GPU's executor beside a CPU process
  FUPERMOD_TEST_EXEC=cuda,cpu make -s check TESTS="tests/mpi_summa_np2 tests/mpi_fft2d_np2" >"$OUT/check-exec.log" 2>&1 || trc=1
  grep -E '^# (TOTAL|PASS|SKIP|FAIL|ERROR)' "$OUT/check-exec.log" | tr '\n' ' '; echo
fi
[ $trc -eq 0 ] || { grep -E '^(FAIL|ERROR):' "$OUT"/check*.log | head; el "GPU tests failed (logs in $OUT)"; }

# The figures of a bench/gpunode output, one "key value" a line: times in ms, rates in GB/s, ratios.
figures() {
  awk -F'|' '
    function num(s) { gsub(/^ +| +$/, "", s); split(s, w, " "); return w[1] }
    /^\| link up \/ down/ { split($4, v, "/"); print "link_up_GBps", num(v[1]); print "link_down_GBps", num(v[2]) }
    /^\| cuBLAS resident/ { print "cublas_resident_ms", num($3) }
    /^\| streamed DGEMM/ { print "streamed_dgemm_ms", num($3) }
    /^\| cuFFT 2D, device data/ { print "cufft_device_ms", num($3) }
    /^\| cuFFT 2D with its transfers/ { print "cufft_moved_ms", num($3) }
    /^\| 2D-FFT GPU alone \(executor\)/ { print "fft2d_gpu_alone_ms", num($3) }
    /^\| SUMMA GPU alone \(N x N\)/ { print "summa_gpu_alone_ms", num($3) }
    /^\| (SUMMA|2D-FFT) at M = / { split($2, t, " "); app = t[1] "@" t[5]; sub(/,$/, "", app) }
    /^\| GPU alone/ && app { print app "_gpu_alone_ms", num($4) }
    /\(chosen\) \|/ && app { c = $2; gsub(/^ +| \(chosen\) *$/, "", c); gsub(/ /, "_", c); sh = $3; gsub(/^ +| +$/, "", sh); gsub(/ /, "", sh)
                             print app "_choice_ms", num($4); print app "_choice", c "[" sh "]" }
    /ratios:/ {
      n = split($0, part, /, /)
      for (i = 1; i <= n; i++) {
        if (part[i] ~ /streamed DGEMM \/ cuBLAS resident/) print "ratio_streamed_vs_cublas", num(substr(part[i], index(part[i], "resident") + 9))
        if (part[i] ~ /SUMMA alone \/ streamed DGEMM/) print "ratio_summa_vs_streamed", num(substr(part[i], index(part[i], "DGEMM") + 6))
        if (part[i] ~ /2D-FFT alone vs cuFFT/) print "ratio_fft_vs_cufft_moved", num(substr(part[i], index(part[i], "transfers") + 10))
      }
      s = $0
      while (match(s, /at [MQ] = [0-9]+: SUMMA [0-9.]+ \(the CPU [0-9]+ blocks\), 2D-FFT [0-9.]+ \(the CPU [0-9]+ rows\)/)) {
        m = substr(s, RSTART, RLENGTH); s = substr(s, RSTART + RLENGTH)
        split(m, w, " "); print "ratio_gpu_cpu_vs_alone_SUMMA@" w[4], w[6]; print "cpu_units_SUMMA@" w[4], w[9]
        print "ratio_gpu_cpu_vs_alone_2D-FFT@" w[4], w[12]; print "cpu_units_2D-FFT@" w[4], w[15]
      }
    }' "$1" | sed 's/@\([0-9]*\):/@\1/'
}

# the main job's choice and regret per application, one "key value" a line
job_figures() {
  awk '/the choice \(--choose/ { n++; c = $0; sub(/.*\): /, "", c); sub(/,.*/, "", c); app = n == 1 ? "dgemm" : "fft"; print app "_choice", c }
       /whole-run predictions:.*regret/ { m++; app = m == 1 ? "dgemm" : "fft"; s = $0; sub(/.*chosen /, "", s); split(s, w, " ")
                                         print app "_chosen_s", w[1]; print app "_best_s", w[5]; print app "_regret_pct", w[8] }' "$1"
}

brc=0
RUNS="1 2"
[ $QUICK -eq 1 ] && RUNS=1
for k in $RUNS; do
  el "bench/gpunode run $k on the device: $BARGS"
  dev bench/gpunode $BARGS >"$OUT/gpunode-dev$k.txt" 2>&1 || brc=1
  tail -1 "$OUT/gpunode-dev$k.txt"
  figures "$OUT/gpunode-dev$k.txt" >"$OUT/fig-dev$k.txt"
done
el "bench/gpunode on the simulated $SIM: $BARGS"
sim bench/gpunode $BARGS >"$OUT/gpunode-sim.txt" 2>&1 || brc=1
tail -1 "$OUT/gpunode-sim.txt"
figures "$OUT/gpunode-sim.txt" >"$OUT/fig-sim.txt"
if [ $QUICK -eq 0 ]; then
  el "fupermod run --conf ${CONF#"$SRC"/} --size $SIZE on the device"
  dev tools/fupermod run --conf "$CONF" --size "$SIZE" --out "$OUT/run-dev" >"$OUT/run-dev.txt" 2>&1 || brc=1
  job_figures "$OUT/run-dev.txt" >>"$OUT/fig-dev1.txt"
  el "fupermod run on the simulated $SIM"
  sim tools/fupermod run --conf "$CONFSIM" --size "$SIZE" --out "$OUT/run-sim" >"$OUT/run-sim.txt" 2>&1 || brc=1
  job_figures "$OUT/run-sim.txt" >>"$OUT/fig-sim.txt"
fi

# every figure: the device's runs, the simulator's, and the simulator's error against the device's mean
el "figures (device: $GPU; simulator: the stand-in's $SIM, SIMULATED)"
printf '%-36s %22s %22s %22s %10s\n' figure "device 1" "device 2" simulated "sim error"
awk '
  FILENAME ~ /dev1/ { d1[$1] = $2; if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 } }
  FILENAME ~ /dev2/ { d2[$1] = $2; if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 } }
  FILENAME ~ /sim/ { s[$1] = $2; if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 } }
  END {
    for (i = 1; i <= n; i++) {
      k = order[i]; a = (k in d1) ? d1[k] : "-"; b = (k in d2) ? d2[k] : "-"; c = (k in s) ? s[k] : "-"; e = "-"
      if (a ~ /^[0-9.]+$/ && c ~ /^[0-9.]+$/) {
        m = (b ~ /^[0-9.]+$/) ? (a + b) / 2 : a
        if (m > 0) e = sprintf("%+.1f %%", 100 * (c / m - 1))
      }
      printf "%-36s %22s %22s %22s %10s\n", k, a, b, c, e
    }
  }' "$OUT/fig-dev1.txt" $([ -f "$OUT/fig-dev2.txt" ] && echo "$OUT/fig-dev2.txt") "$OUT/fig-sim.txt"
el "done: tests $([ $trc -eq 0 ] && echo passed || echo FAILED), runs $([ $brc -eq 0 ] && echo completed || echo FAILED); outputs in $OUT"
[ $trc -eq 0 ] && [ $brc -eq 0 ]
