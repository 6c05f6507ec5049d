#!/bin/bash
# The application drivers fupermod-fft2d and fupermod-jacobi: output, exit statuses, messages.
. "$top_srcdir/tests/tap.sh"
RUN="$MPIEXEC --oversubscribe --bind-to none"
FFT="$top_builddir/apps/fupermod-fft2d"
JAC="$top_builddir/apps/fupermod-jacobi"
printf '# fupermod distribution v1\n48 3\n0 0\n1 40\n2 8\n' >"$TMPD/rows.dist"
$RUN -np 3 "$FFT" -M 48 -N 20 --dist "$TMPD/rows.dist" -r 2 --check >"$TMPD/fft.out" 2>"$TMPD/err"
ok $? "fupermod-fft2d runs on an uneven distribution with a zero-row process"
ok $(grep -q '^# rows: 0 40 8$' "$TMPD/fft.out" && echo 0 || echo 1) "it reports the distribution it used"
err=$(awk '/^round_trip_max_error/ {print $2}' "$TMPD/fft.out")
ok $(awk -v e="$err" 'BEGIN {exit !(e != "" && e + 0 < 1e-12)}' && echo 0 || echo 1) "round trip error $err < 1e-12"
ok $(grep -Eq '^time_best_s [0-9.]+ time_median_s [0-9.]+ gflops [0-9.]+$' "$TMPD/fft.out" && echo 0 || echo 1) "summary line"
expect_exit 2 "distribution for another size" -- $RUN -np 3 "$FFT" -M 50 --dist "$TMPD/rows.dist"
stderr_has "expected D = 50" "the mismatch is named"
expect_exit 2 "bad planner" -- $RUN -np 2 "$FFT" -M 8 --planner fast
stderr_has "--planner: 'fast'" "the option is named"
expect_exit 1 "missing distribution file" -- $RUN -np 2 "$FFT" -M 8 --dist "$TMPD/none.dist"
stderr_has "none.dist" "the file is named"

$RUN -np 2 "$JAC" -D 200 -b fpm -i 60 --tol 1e-12 >"$TMPD/jac.out" 2>"$TMPD/err"
ok $? "fupermod-jacobi runs with the fpm balancer"
ok $(awk '/^iterations/ {exit !($2 < 60 && $8 + 0 < 1e-10)}' "$TMPD/jac.out" && echo 0 || echo 1) \
  "it converges to the exact solution"
ok $(grep -Ec '^ *[0-9]+  [0-9]+ [0-9]+  ' "$TMPD/jac.out" | awk '{exit !($1 >= 10)}' && echo 0 || echo 1) \
  "one line per iteration with the rows of both processes"
$RUN -np 2 "$JAC" -D 300 -b cpm -i 3 --row-time 1e-4,2e-4 --mem-rows 100,0 >"$TMPD/jac2.out" 2>"$TMPD/err"
ok $? "emulated processors"
ok $(grep -q '^# emulated process 0: 0.1 ms/row, memory 100 rows' "$TMPD/jac2.out" && echo 0 || echo 1) \
  "the emulation is reported"
expect_exit 2 "unknown balancer" -- $RUN -np 2 "$JAC" -D 50 -b fastest
stderr_has "balancer 'fastest'" "the balancer is named"
expect_exit 2 "three row times for two processes" -- $RUN -np 2 "$JAC" -D 50 --row-time 1,2,3
stderr_has "--row-time: 3 values for 2 processes" "the option is named"
done_testing
