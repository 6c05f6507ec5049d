#!/bin/bash
# SUMMA against ScaLAPACK PDGEMM and our 2D-FFT against FFTW-MPI, each with its reference in the
# same run, in every setting users meet: one node and two nodes (the virtual cluster of
# tests/cluster/vcluster, TCP over loopback between nodes), homogeneous and heterogeneous, with
# Open MPI's single-copy transport within a node on (cma) and off (none, as in many containers).
#
#   bench/cluster.sh [--build DIR] [--only summa|fft] [--reps R] [--out FILE]   (as root)
#
# Homogeneous: 2 ranks, one per core (one node), or one per node (node1 = core 0, node2 = core 1).
# Heterogeneous: 4 ranks, rank 0 alone on core 0, ranks 1-3 sharing core 1 (one node), or 1 rank
# on node1 and 3 on node2. Every line of the table is one run of bench/summa or bench/fft2d; the
# full outputs go to FILE (default bench-cluster.log). Targets: SUMMA >= 1.0x PDGEMM homogeneous
# and >= 1.3x heterogeneous; the 2D-FFT >= 1.0x FFTW-MPI homogeneous and >= 1.3x heterogeneous.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
build=$here/_build only="" reps="" out=bench-cluster.log
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$(cd "$2" && pwd); shift 2 ;;
    --only) only=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,13s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) echo "bench/cluster.sh: unknown option '$1' (--help)" >&2; exit 2 ;;
  esac
done
case $only in ""|summa|fft) ;; *) echo "bench/cluster.sh: --only summa or fft, not '$only'" >&2; exit 2 ;; esac
[ "$(id -u)" = 0 ] || { echo "bench/cluster.sh: the virtual cluster needs root" >&2; exit 2; }
for b in summa fft2d; do
  [ -x "$build/bench/$b" ] || { echo "bench/cluster.sh: $build/bench/$b is not built (make -C $build)" >&2; exit 2; }
done
vc=$here/tests/cluster/vcluster
cl=$(mktemp -d "$here/.bench-cluster.XXXXXX")
trap '"$vc" down "$cl" >/dev/null 2>&1; rm -rf "$cl"' EXIT
trap 'exit 130' INT TERM
: >"$out"
# as quickstart: ranks waiting in MPI yield their core to the ranks sharing it
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 \
  OMPI_MCA_mpi_yield_when_idle=1
summa_reps=${reps:-5} fft_reps=${reps:-15}

# run SETTING APP KIND SINGLECOPY LAUNCH...: one benchmark, one table line
fails=0
run() {
  local setting=$1 app=$2 kind=$3 sc=$4 ratio target key log
  shift 4
  log=$(mktemp "$cl/log.XXXXXX")
  if [ "$app" = summa ]; then
    target=$([ "$kind" = homo ] && echo 1.0 || echo 1.3)
    key=$([ "$kind" = homo ] && echo 'ratio summa-even / pdgemm' || echo 'ratio summa-model / pdgemm')
  else
    target=$([ "$kind" = homo ] && echo 1.0 || echo 1.3)
    key=$([ "$kind" = homo ] && echo ratio_even_vs_fftw_mpi || echo ratio_model_vs_fftw_mpi)
  fi
  echo "### $setting $app $kind single-copy=$sc: $*" >>"$out"
  OMPI_MCA_btl_vader_single_copy_mechanism=$sc timeout 900 "$@" >"$log" 2>&1
  local rc=$?
  cat "$log" >>"$out"
  ratio=$(grep "^$key" "$log" | head -n 1 | sed "s|^$key[ =]*||" | awk '{print $1}')
  local verdict=FAIL
  if [ $rc -eq 0 ] && [ -n "$ratio" ] && awk -v r="$ratio" -v t="$target" 'BEGIN { exit !(r >= t) }'; then verdict=ok; fi
  [ $rc -eq 0 ] || ratio="error(rc=$rc)"
  [ $verdict = ok ] || fails=$((fails + 1))
  printf '%-9s %-6s %-6s %-5s %8s %6s  %s\n' "$setting" "$app" "$kind" "$sc" "${ratio:-?}" ">=$target" "$verdict"
}

echo "# bench/cluster.sh on $(hostname), $(nproc --all) CPUs, $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo '?')"
echo "# ratio: ours / reference speed, measured in the same run (SUMMA: medians; FFT: best times)"
printf '%-9s %-6s %-6s %-5s %8s %6s  %s\n' setting app kind copy ratio target verdict
S="$build/bench/summa -r $summa_reps"
F="$build/bench/fft2d --reps $fft_reps"
M="mpirun --oversubscribe --bind-to none"
for sc in cma none; do
  if [ "$only" != fft ]; then
    run 1-node summa homo "$sc" $M -np 2 $S
    run 1-node summa hetero "$sc" $M -np 4 $S --config hetero
  fi
  if [ "$only" != summa ]; then
    run 1-node fft homo "$sc" $M -np 2 $F --bind 0,1
    run 1-node fft hetero "$sc" $M -np 4 $F --bind 0,1,1,1
  fi
done
"$vc" up "$cl" node1:0 node2:1 >/dev/null || { echo "bench/cluster.sh: the virtual cluster did not start" >&2; exit 1; }
V="$vc mpirun $cl --oversubscribe --bind-to none -x OMP_NUM_THREADS -x OPENBLAS_NUM_THREADS -x OMPI_MCA_mpi_yield_when_idle -x OMPI_MCA_btl_vader_single_copy_mechanism"
for sc in cma none; do
  if [ "$only" != fft ]; then
    run 2-nodes summa homo "$sc" $V --host node1:1,node2:1 -np 2 $S --no-bind
    run 2-nodes summa hetero "$sc" $V --host node1:1,node2:3 -np 4 $S --config hetero --no-bind
  fi
  if [ "$only" != summa ]; then
    run 2-nodes fft homo "$sc" $V --host node1:1,node2:1 -np 2 $F
    run 2-nodes fft hetero "$sc" $V --host node1:1,node2:3 -np 4 $F
  fi
done
echo "cluster bench: $fails of the settings below target (outputs in $out)"
[ $fails -eq 0 ]
