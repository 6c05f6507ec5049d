#!/bin/bash
# The documentation's examples run as written. A fenced block right after a line
# `<!-- doctest -->` in README.md or docs/*.md is either
# - a transcript: its `$ COMMAND` lines run and the lines after each must be the command's first
#   lines of output, exactly; a line `...` elides the middle: the lines after it, if any, must be
#   the command's last lines of output, or
# - a script: its lines run with bash -e, as a user pastes them (`./quickstart ...` lines are
#   skipped: the suite is that build).
# Each block runs in a fresh directory holding `_build` (this build) and a copy of `configs/`, so
# the paths of the docs (`_build/tools/fupermod`, `configs/local.conf`) work unchanged.
. "$top_srcdir/tests/tap.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# as README.md sets them up ("From install to your own kernel")
export PATH="$top_builddir/tools:$top_builddir/apps:$PATH" FUPERMOD_KERNEL_PATH="$top_builddir/kernels/.libs"
blocks=0
for doc in "$top_srcdir/README.md" "$top_srcdir"/docs/*.md; do
  name=${doc#"$top_srcdir"/}
  # each block into its own file, its first line number in the name
  rm -rf "$TMPD/blocks" && mkdir -p "$TMPD/blocks"
  awk -v dir="$TMPD/blocks" '
    /^<!-- doctest -->$/ { want = 1; next }
    want && /^```/ { want = 0; inside = 1; f = sprintf("%s/%06d", dir, NR + 1); next }
    inside && /^```/ { inside = 0; close(f); next }
    inside { print > f }
    { want = 0 }' "$doc"
  for b in "$TMPD"/blocks/*; do
    [ -e "$b" ] || continue
    blocks=$((blocks + 1))
    line=$((10#$(basename "$b")))
    run="$TMPD/run$blocks"
    mkdir -p "$run" && ln -s "$top_builddir" "$run/_build" && cp -r "$top_srcdir/configs" "$run/configs"
    if grep -q '^\$ ' "$b"; then
      # transcript: compare each command's output with the lines after it
      fail=""
      awk -v dir="$run" '
        /^\$ / { n++; c = sprintf("%s/cmd%d", dir, n); e = sprintf("%s/exp%d", dir, n); t = sprintf("%s/tail%d", dir, n)
                print substr($0, 3) > c; close(c); printf "" > e; printf "" > t; open = 1; next }
        /^\.\.\.$/ { open = 2; next }
        open { sub(/[ \t]+$/, ""); print >> (open == 1 ? e : t) }' "$b"
      for c in "$run"/cmd*; do
        k=${c##*cmd}
        (cd "$run" && bash -e "$c") >"$run/got$k" 2>"$run/err$k" || fail="$fail command $k exited $?;"
        nl=$(wc -l <"$run/exp$k")
        # trailing blanks are not kept by the docs
        nt=$(wc -l <"$run/tail$k")
        { head -n "$nl" "$run/got$k" | sed 's/[[:space:]]*$//' | diff "$run/exp$k" - &&
          { [ "$nt" -eq 0 ] || tail -n "$nt" "$run/got$k" | sed 's/[[:space:]]*$//' | diff "$run/tail$k" -; }; } >"$run/diff$k" ||
          fail="$fail command $k printed other lines;"
      done
      ok $([ -z "$fail" ] && echo 0 || echo 1) "$name:$line: the transcript's output is what the commands print${fail:+:$fail}"
      [ -z "$fail" ] || cat "$run"/diff* "$run"/err* | head -30 | sed 's/^/# /'
    elif grep -q 'tests/fake_cuda/\.libs' "$b" && [ ! -d "$top_builddir/tests/fake_cuda/.libs" ]; then
      skip "$name:$line: the stand-in CUDA is not built here (configure found no CUDA headers)"
    else
      grep -v '^\./quickstart' "$b" >"$run/script"
      (cd "$run" && bash -e "$run/script") >"$run/out" 2>&1
      rc=$?
      ok $rc "$name:$line: the commands run as written (exit $rc)"
      [ $rc -eq 0 ] || tail -20 "$run/out" | sed 's/^/# /'
    fi
  done
done
ok $([ $blocks -ge 3 ] && echo 0 || echo 1) "$blocks blocks marked <!-- doctest --> were run"
done_testing
