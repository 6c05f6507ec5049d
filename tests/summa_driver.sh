#!/bin/bash
# The fupermod-summa driver: layouts from areas, files and models; verification; bad input.
. "$top_srcdir/tests/tap.sh"
SUMMA=${top_builddir:-..}/apps/fupermod-summa
run3() { ${MPIEXEC:-mpirun} --oversubscribe --bind-to none -np 3 "$SUMMA" "$@"; }
run2() { ${MPIEXEC:-mpirun} --oversubscribe --bind-to none -np 2 "$SUMMA" "$@"; }

expect_exit 0 "BR layout with a zero area, b not dividing n, exact check" -- run3 -n 100 -b 16 -l br -a 1,0,2 -r 1 -o "$TMPD/l.layout"
ok $(grep -q "0 mismatches.*PASS" "$TMPD/out" && echo 0 || echo 1) "exact verification passed"
ok $([ "$(grep -v '^#' "$TMPD/l.layout" | head -1)" = "3 7 7 1" ] && echo 0 || echo 1) "layout file written (3 processes, 7 x 7 blocks)"
expect_exit 0 "the written layout file is used with -L, C += A B" -- run3 -n 100 -b 16 -L "$TMPD/l.layout" -c -r 1
ok $(grep -q "PASS" "$TMPD/out" && echo 0 || echo 1) "accumulating run verified"
expect_exit 0 "KL layout, randomised check" -- run3 -n 300 -b 32 -l kl -a 3,1,1 -v random -r 1
ok $(grep -q "randomised.*PASS" "$TMPD/out" && echo 0 || echo 1) "randomised verification passed"
printf '10 1\n' >"$TMPD/a.points"; printf '10 0.5\n' >"$TMPD/b.points"; printf '10 0.25\n' >"$TMPD/c.points"
expect_exit 0 "1.5D layout from point files (geometric)" -- run3 -n 120 -b 8 -l 15d -p geometric -r 1 "$TMPD/a.points" "$TMPD/b.points" "$TMPD/c.points"
ok $(grep -q "PASS" "$TMPD/out" && grep -Eq "rank 2: .*\((5[5-9]|60)\.[0-9]% of the area\)" "$TMPD/out" && echo 0 || echo 1) "the fastest process gets about 4/7 of the area (55-60% with 15 x 15 blocks)"
expect_exit 2 "unknown layout" -- run3 -l magic
stderr_has "unknown layout 'magic'" "layout named"
expect_exit 2 "two areas for three processes" -- run3 -l br -a 1,2
stderr_has "2 areas given for 3 processes" "said so"
expect_exit 2 "n = 0" -- run3 -n 0
stderr_has "-n: '0'" "option named"
expect_exit 1 "missing layout file" -- run3 -L "$TMPD/none.layout"
stderr_has "none.layout" "file named"
expect_exit 2 "a layout for 3 processes run on 2" -- run2 -n 100 -b 16 -L "$TMPD/l.layout"
stderr_has "the layout has 3 processes, the communicator 2" "said so"
expect_exit 2 "layout blocks that do not match n and b" -- run3 -n 200 -b 16 -L "$TMPD/l.layout"
stderr_has "7 x 7 blocks" "said so"
expect_exit 2 "15d with too few point files" -- run3 -l 15d "$TMPD/a.points"
stderr_has "1 point files given for 3 processes" "said so"
done_testing
