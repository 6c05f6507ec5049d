#!/bin/bash
# Flakiness measured, not guessed: run tests N times and report each check's failures.
#   make -j2 check-repeat N=10 TESTS="tests/tools_run_threads.sh tests/cluster_dynamic.sh" [LOAD=K]
# (or [LOAD=K] tests/repeat.sh N TEST... from the build directory). Each round is one `make check`
# of the given tests; the table lists every check that failed at least once with its failure count,
# the tests that crashed or timed out, and ends with "N passed, N failed" over all rounds.
# LOAD=K runs the rounds as if on a slower machine: K busy processes on every CPU (each bound to
# its CPU), started before the first round and stopped by their ids after the last, so that a check
# that assumes one CPU's speed fails here before CI finds it on another machine.
n=${1:-}
shift
case "$n" in ''|*[!0-9]*|0) echo "usage: tests/repeat.sh N TEST... (N >= 1)" >&2; exit 2 ;; esac
[ $# -gt 0 ] || { echo "tests/repeat.sh: name the tests to repeat (TESTS=...)" >&2; exit 2; }
[ -f Makefile ] || { echo "tests/repeat.sh: run it from the build directory (no Makefile here)" >&2; exit 2; }
load=${LOAD:-0}
case "$load" in ''|*[!0-9]*) echo "tests/repeat.sh: LOAD=$load is not a number of busy processes per CPU" >&2; exit 2 ;; esac
out=$(mktemp -d "${TMPDIR:-/tmp}/fupermod-repeat.XXXXXX")
loaders=""
trap '[ -n "$loaders" ] && kill $loaders 2>/dev/null; rm -rf "$out"' EXIT
if [ "$load" -gt 0 ]; then
  for cpu in $(seq 0 $(($(nproc) - 1))); do
    for _ in $(seq "$load"); do
      taskset -c "$cpu" sh -c 'while :; do :; done' &
      loaders="$loaders $!"
    done
  done
  echo "repeat: $load busy process(es) on each of $(nproc) CPUs:$loaders" >&2
fi
for r in $(seq 1 "$n"); do
  ${MAKE:-make} -s check TESTS="$*" >"$out/make.$r" 2>&1
  for t in "$@"; do
    log=${t%.sh}.log trs=${t%.sh}.trs
    # a check is its description without its number; a test that ended badly is one failure
    sed -n 's/^not ok [0-9]* *-* *//p' "$log" 2>/dev/null | sed "s|^|$t: |" >>"$out/failed"
    grep -c '^ok ' "$log" 2>/dev/null | sed "s|^|$t |" >>"$out/passed"
    grep -q '^:test-result: ERROR' "$trs" 2>/dev/null && echo "$t: ended badly (crash, time-out or missing plan)" >>"$out/failed"
    [ -f "$trs" ] || echo "$t: no result" >>"$out/failed"
  done
  printf 'repeat: round %d of %d: %d failures so far\n' "$r" "$n" "$(wc -l <"$out/failed" 2>/dev/null || echo 0)" >&2
done
touch "$out/failed"
echo "# failures over $n rounds, per check${loaders:+ (under a load of $load busy process(es) per CPU)}"
if [ -s "$out/failed" ]; then sort "$out/failed" | uniq -c | sort -rn | awk -v n="$n" '{ c = $1; $1 = ""; printf "%3d/%d %s\n", c, n, substr($0, 2) }'
else echo "none"; fi
p=$(awk '{ s += $2 } END { print s + 0 }' "$out/passed"); f=$(wc -l <"$out/failed")
echo "$p passed, $f failed"
[ "$f" -eq 0 ]
