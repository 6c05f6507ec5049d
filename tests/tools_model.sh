#!/bin/bash
# fupermod model and partition from the command line: output, plots and bad input.
. "$top_srcdir/tests/tap.sh"
E="$top_srcdir/configs/emulated"
"$FUPERMOD" model -m akima -n 2 --plot "$TMPD/plots" "$E/accel.points" "$E/fast.points" >"$TMPD/out" 2>"$TMPD/err"
ok $? "model with plots"
# the rows marked measured are each file's points, with their times
bad=$(awk 'FNR == 1 { f++ } f <= 2 && !/^#/ { t[f, $1] = $2; n[f]++; next }
           f == 3 && /^# .*: [0-9]+ points/ { k++; next }
           f == 3 && $NF == "measured" { m[k]++; w = t[k, $1]; x = $2 - w; if (x < 0) x = -x; if (!(w > 0) || x > 1e-7 * w) b++ }
           END { if (k != 2 || m[1] != n[1] || m[2] != n[2] || b) print k + 0 " files, " m[1] + 0 "/" n[1] + 0 " and " m[2] + 0 "/" n[2] + 0 " measured rows, " b + 0 " wrong" }' \
      "$E/accel.points" "$E/fast.points" "$TMPD/out")
ok $([ -z "$bad" ] && echo 0 || echo 1) "measured sizes printed with their times${bad:+ ($bad)}"
if command -v gnuplot >/dev/null 2>&1; then
  ok $([ -s "$TMPD/plots/speed.png" ] && [ -s "$TMPD/plots/time.png" ] && echo 0 || echo 1) "speed.png and time.png written"
else
  ok $([ -s "$TMPD/plots/model.gp" ] && echo 0 || echo 1) "gnuplot absent: the plot script is left"
fi
# the accelerator's model reproduces the measured speed at a measured size (d=1000: 30000*1000/1400)
s=$("$FUPERMOD" model -m piecewise "$E/accel.points" | awk '$1 == 1000 { print $3 }')
ok $(awk "BEGIN { exit !($s > 21428 && $s < 21429) }"; echo $?) "piecewise speed at d=1000 is 21428.57 ($s)"
expect_exit 2 "unknown model type" -- "$FUPERMOD" model -m spline "$E/accel.points"
stderr_has "unknown model type 'spline'" "type named"
expect_exit 1 "missing file" -- "$FUPERMOD" model "$TMPD/none.points"
stderr_has "none.points" "file named"
printf '10 1\n20 x\n' >"$TMPD/bad.points"
expect_exit 1 "malformed point file" -- "$FUPERMOD" model "$TMPD/bad.points"
stderr_has "bad.points:2: t 'x'" "file and line named"
expect_exit 2 "no arguments" -- "$FUPERMOD"
expect_exit 2 "unknown command" -- "$FUPERMOD" frobnicate
expect_exit 0 "help" -- "$FUPERMOD" --help
expect_exit 0 "doctor finds nothing broken" -- "$FUPERMOD" doctor
ok $(grep -q '^\[ ok \] cblas_dgemm binds to .*openblas' "$TMPD/out" && echo 0 || echo 1) "doctor: GEMM binds to OpenBLAS"
ok $(grep -q 'problem(s), .* warning(s)' "$TMPD/out" && echo 0 || echo 1) "doctor summarises"
done_testing
