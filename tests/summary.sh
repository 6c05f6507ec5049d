#!/bin/sh
# Sum the TAP results of the last `make check` (the .trs files) and print "N passed, N failed".
passed=0; failed=0; skipped=0; todo=0
for t in "$@"; do
  trs="${t%.sh}.trs"
  if [ ! -f "$trs" ]; then failed=$((failed + 1)); echo "missing result: $t" >&2; continue; fi
  p=$(grep -c '^:test-result: PASS' "$trs")
  # a TODO point (a known gap, TAP's "# TODO") neither passes nor fails: said apart
  x=$(grep -c '^:test-result: XFAIL' "$trs")
  f=$(grep -c '^:test-result: \(FAIL\|XPASS\)' "$trs")
  # a program that ends badly (crash, missing plan, non-zero status) is one failure, however
  # many ways the driver reports it
  grep -q '^:test-result: ERROR' "$trs" && f=$((f + 1))
  s=$(grep -c '^:test-result: SKIP' "$trs")
  passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s)); todo=$((todo + x))
done
extra=""
[ "$skipped" -gt 0 ] && extra="$extra, $skipped skipped"
[ "$todo" -gt 0 ] && extra="$extra, $todo known gaps (TODO)"
echo "$passed passed, $failed failed$extra"
[ "$failed" -eq 0 ]
