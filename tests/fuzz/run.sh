#!/bin/bash
# Build the libFuzzer targets with clang (AddressSanitizer + UndefinedBehaviorSanitizer) and run
# each for SECONDS seconds on its committed seed corpus (copied, so the seeds stay as committed).
#   tests/fuzz/run.sh [SECONDS] [BUILD_DIR]
# A crash leaves the input in BUILD_DIR/crash-*: add it to tests/fuzz/regressions/ as a regression test.
set -u
secs=${1:-60}
src=$(cd "$(dirname "$0")/../.." && pwd)
out=${2:-$src/_build/fuzz}
mkdir -p "$out" && out=$(cd "$out" && pwd) || exit 1
command -v clang >/dev/null || { echo "fuzz: clang not installed (apt-get install clang libclang-rt-14-dev)" >&2; exit 1; }
mpiflags=$(mpicc --showme:compile) mpilibs=$(mpicc --showme:link)
common="$src/fupermod/error.c $src/fupermod/util.c $src/fupermod/lines.c $src/fupermod/point.c"
cflags="-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -I$src $mpiflags $(pkg-config --cflags hwloc gsl)"
libs="$mpilibs $(pkg-config --libs hwloc) -lgsl -lm"
# the command-line target links the (uninstrumented) library of the main build
libdir=${FUPERMOD_FUZZ_LIBDIR:-$src/_build/.libs}
targets="points conf dist campaign"
[ -f "$libdir/libfupermod.so" ] && targets="$targets cli"
# one target: build, its regressions, then SECONDS of fuzzing; one result line, status 1 on failure
one() {
  local t=$1 extra="" why="" mask=0
  case $t in
    conf) extra="$src/fupermod/conf.c" ;;
    campaign) extra="$src/tools/campaign.c $src/tools/sha256.c $src/fupermod/conf.c" ;;
    dist) extra="$src/fupermod/dist.c $src/fupermod/model.c $src/fupermod/model_cpm.c $src/fupermod/model_piecewise.c $src/fupermod/model_akima.c $src/fupermod/model_tabulated.c" ;;
  esac
  if [ $t = cli ]; then
    # the tools' files instrumented, the library from the main build
    clang $cflags -I"$libdir/.." "$src/tests/fuzz/fuzz_cli.c" "$src/tools/cmd_partition.c" "$src/tools/cmd_model.c" \
      "$src/tools/run_history.c" "$src/tools/common.c" "$src/tools/load.c" "$src/tools/mpi_init.c" -L"$libdir" -Wl,-rpath,"$libdir" -lfupermod $libs -o "$out/fuzz_$t" 2>"$out/build_$t.log"
  else
    clang $cflags "$src/tests/fuzz/fuzz_$t.c" $common $extra $libs -o "$out/fuzz_$t" 2>"$out/build_$t.log"
  fi || { echo "fuzz: fuzz_$t: FAIL, cannot build (see $out/build_$t.log)" >&2; return 1; }
  rm -rf "$out/corpus_$t" && cp -r "$src/tests/fuzz/corpus/$t" "$out/corpus_$t"
  # one result line per target: "fuzz: fuzz_T: pass, ..." or "fuzz: fuzz_T: FAIL, why"
  # the targets' scratch files go to a directory of their own, removed after the run
  rm -rf "$out/tmp_$t" && mkdir -p "$out/tmp_$t" || return 1
  if [ -d "$src/tests/fuzz/regressions/$t" ]; then
    TMPDIR="$out/tmp_$t" "$out/fuzz_$t" -timeout=10 "$src"/tests/fuzz/regressions/$t/* >"$out/regress_$t.log" 2>&1 ||
      why="fails on a committed regression input (see $out/regress_$t.log)"
  fi
  [ $t = cli ] && mask=3 # the tools print on every run
  (cd "$out" && TMPDIR="$out/tmp_$t" ./fuzz_$t -max_total_time="$secs" -max_len=4096 -timeout=10 -close_fd_mask=$mask "corpus_$t" >"run_$t.log" 2>&1) ||
    why="${why:+$why; }found a problem (see $out/run_$t.log)"
  rm -rf "$out/tmp_$t"
  if [ -n "$why" ]; then echo "fuzz: fuzz_$t: FAIL, $why" >&2; return 1; fi
  echo "fuzz: fuzz_$t: pass, $(grep -o 'Done [0-9]* runs.*' "$out/run_$t.log" | head -1), no crash"
}
# two targets at a time: each fuzzer is one process, and the machine has two cores at least
rc=0 running=0
for t in $targets; do
  if [ $running -ge 2 ]; then wait -n || rc=1; running=$((running - 1)); fi
  one "$t" &
  running=$((running + 1))
done
while [ $running -gt 0 ]; do wait -n || rc=1; running=$((running - 1)); done
exit $rc
