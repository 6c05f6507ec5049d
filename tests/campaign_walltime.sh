#!/bin/bash
# fupermod campaign walltime: H:MM:SS or H:MM with every field present; an empty field
# ("1::30", "1:30:") is refused with the file and line, not read as fewer fields.
. "$top_srcdir/tests/tap.sh"
cd "$TMPD" || exit 1
camp() { printf '%s\n' "apps = a" "sizes = 1" "partitioners = p" "configs = c.conf" "command = true" \
  "cluster = slurm" "nodes = 1" "cores_per_node = 1" "walltime = $1" >w.txt; }
for w in 1:30 1:30:00 12:00:05; do
  camp "$w"
  expect_exit 0 "walltime $w is accepted" -- "$FUPERMOD" campaign run --dry-run w.txt
done
for w in 1::30 1:30: :30 1:: 1:3x 1:30:00:00 0:00; do
  camp "$w"
  expect_exit 1 "walltime '$w' is refused" -- "$FUPERMOD" campaign run --dry-run w.txt
  stderr_has "w.txt:9: walltime: '$w' must be H:MM:SS" "walltime '$w': file, line and value named"
done
done_testing
