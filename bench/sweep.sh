#!/bin/bash
# fupermod sweep against one fupermod partition command per workload and algorithm, in the same
# run, on configs/emulated (4 processors) and on 64 copies of it (256 processors): wall-clock
# seconds and workloads per second. `make bench` writes bench/sweep in the build directory.
BUILD=${FUPERMOD_BUILD:-%BUILD_DIR%}
SRC=${FUPERMOD_SRC:-%SRC_DIR%}
usage() {
  cat <<USAGE
usage: $0 [--quick] [--threads T]

  1. configs/emulated, 1000 workloads, the default algorithms: fupermod sweep, and fupermod
     partition once per workload and algorithm (every 10th workload, counted as 10). The
     workloads are the 160 multiples of the granule (50) up to 8000, each 6 or 7 times, so that
     every one has a distribution;
  2. 64 copies of it (256 processors), 100 workloads (D = 5000, 10000, ..., 500000), hpopta and
     balanced: fupermod sweep -k 64, and fupermod partition per workload on the 256 files (every
     10th workload, counted as 10).
--quick: 100 and 10 workloads (a test of the script). --threads T: the sweep's threads (default:
all cores); the partitions run one after another. Prints a Markdown table.
USAGE
}
QUICK=0 THREADS=$(nproc)
while [ $# -gt 0 ]; do
  case $1 in
    -h|--help) usage; exit 0 ;;
    --quick) QUICK=1 ;;
    --threads) THREADS=$2; shift ;;
    *) usage >&2; exit 2 ;;
  esac
  shift
done
FUP=$BUILD/tools/fupermod
[ -x "$FUP" ] || { echo "$0: $FUP is not an executable (make?)" >&2; exit 2; }
E=$SRC/configs/emulated
F="$E/fast.points $E/medium.points $E/slow.points $E/accel.points"
F64=$(for c in $(seq 64); do echo $F; done)
now() { date +%s.%N; }
# partition_time LIST ALGS SKIP FILES...: seconds of the fupermod partition commands over the
# sweep's workloads (every SKIP-th), scaled to all of them
partition_time() {
  local list=$1 algs=$2 skip=$3 t0 t1 n=0
  shift 3
  t0=$(now)
  for D in ${list//,/ }; do
    [ $((n++ % skip)) -eq $((skip / 2)) ] || continue
    for a in $algs; do "$FUP" partition -a $a -D $D "$@" >/dev/null 2>&1; done
  done
  t1=$(now)
  awk -v a="$t0" -v b="$t1" -v s=$skip 'BEGIN { printf "%.3f", (b - a) * s }'
}
sweep_time() {
  local t0 t1
  t0=$(now)
  "$FUP" sweep -q --summary --threads "$THREADS" "$@" >/dev/null || { echo "$0: fupermod sweep $* failed" >&2; exit 1; }
  t1=$(now)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }'
}
row() { # LABEL WORKLOADS SWEEP_S PARTITION_S
  awk -v l="$1" -v n="$2" -v s="$3" -v p="$4" 'BEGIN {
    printf "| %s | %d | %.2f s | %.0f | %.1f s | %.0f | %.0fx |\n", l, n, s, n / s, p, n / p, p / s }'
}
if [ $QUICK = 1 ]; then n1=100 n2=10 step2=50000; else n1=1000 n2=100 step2=5000; fi
list1=$(awk -v n=$n1 'BEGIN { for (i = 0; i < n; i++) printf "%s%d", i ? "," : "", 50 * (1 + (i * 7) % 160) }')
list2=$(seq -s, $step2 $step2 $((step2 * n2)))
echo "# $(uname -n), $(nproc --all) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), $(date -u '+%Y-%m-%d %H:%M UTC'), fupermod $(git -C "$SRC" rev-parse --short HEAD 2>/dev/null || echo '?'), sweep threads $THREADS"
echo "| platform and algorithms | workloads | fupermod sweep | workloads/s | fupermod partition per workload | workloads/s | ratio |"
echo "|---|---|---|---|---|---|---|"
algs="hpopta balanced geometric numerical cpm even"
s=$(sweep_time -D "$list1" $F)
p=$(partition_time "$list1" "$algs" 10 $F)
row "emulated, 4 processors: hpopta + balanced, geometric, numerical, cpm, even" $n1 "$s" "$p"
s=$(sweep_time -k 64 -a balanced -D "$list2" $F)
p=$(partition_time "$list2" "hpopta balanced" 10 $F64)
row "64 copies, 256 processors: hpopta + balanced" $n2 "$s" "$p"
