# TAP helpers for shell tests: source this file.
tap_n=0
tap_failed=0
ok() { # ok STATUS DESCRIPTION
  tap_n=$((tap_n + 1))
  if [ "$1" -eq 0 ]; then echo "ok $tap_n - $2"; else echo "not ok $tap_n - $2"; tap_failed=$((tap_failed + 1)); fi
}
# expect_exit CODE DESCRIPTION -- command...: checks the exit status
expect_exit() {
  want=$1; desc=$2; shift 3
  "$@" >"$TMPD/out" 2>"$TMPD/err"; got=$?
  if [ "$got" -eq "$want" ]; then ok 0 "$desc (exit $got)"; else ok 1 "$desc (exit $got, want $want)"; sed 's/^/# /' "$TMPD/err"; fi
}
# stderr_has PATTERN DESCRIPTION: the last expect_exit's stderr matches PATTERN (grep -E)
stderr_has() { grep -Eq -- "$1" "$TMPD/err"; r=$?; ok $r "$2"; [ $r -eq 0 ] || sed 's/^/# stderr: /' "$TMPD/err"; }
skip() { # skip REASON: a test point that could not run here (reported as skipped, not passed)
  tap_n=$((tap_n + 1)); echo "ok $tap_n # SKIP $1"
}
done_testing() { echo "1..$tap_n"; [ $tap_failed -eq 0 ]; }
# relay PREFIX FILE: another TAP stream's points as points of this test, their text prefixed
relay() {
  local line
  while IFS= read -r line; do
    case "$line" in
      "not ok "*) ok 1 "$1: ${line#not ok * - }" ;;
      "ok "*"# SKIP"*) skip "$1: ${line#*# SKIP }" ;;
      "ok "*) ok 0 "$1: ${line#ok * - }" ;;
      "1..0"*) skip "$1: ${line#*SKIP }" ;;
      "1.."*) ;;
      *) echo "$line" ;;
    esac
  done <"$2"
}
TMPD=$(mktemp -d "${TMPDIR:-/tmp}/fupermod-test.XXXXXX")
trap 'rm -rf "$TMPD"' EXIT
FUPERMOD=${top_builddir:-..}/tools/fupermod
