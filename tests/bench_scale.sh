#!/bin/bash
# bench/scale: --check against flat dp, the last line's form, and the same optima on 2 MPI ranks
# (each rank computes the node functions of its nodes) as in one process.
. "$top_srcdir/tests/tap.sh"
S=${top_builddir:-..}/bench/scale
MPI="$MPIEXEC --oversubscribe --bind-to none"
"$S" --check >"$TMPD/check" 2>&1
ok $([ $? -eq 0 ] && grep -q '^check: 30 instances, 0 mismatches$' "$TMPD/check" && echo 0 || echo 1) \
  "--check: 30 small instances, time = flat dp and bound <= flat dp energy <= energy"
args="--nodes 60 --gpus 3 --points 120 --seed 7 --threads 2"
"$S" $args >"$TMPD/one" 2>&1
r1=$?
$MPI -np 2 "$S" --mpi $args --threads 1 >"$TMPD/two" 2>&1
r2=$?
ok $([ $r1 -eq 0 ] && grep -Eq '^scale: 240 processors in 60 nodes, hierarchical time [0-9.]+ s, energy [0-9.]+ s, peak RSS [0-9]+ MB$' "$TMPD/one" && echo 0 || echo 1) \
  "one process: the last line ($(tail -1 "$TMPD/one"))"
opt() { sed -n 's/.*optimum T\* = \([^ ]*\) s.*/\1/p' "$1"; }
en() { sed -n 's/.* E = \([^ ]*\) J, lower bound \([^ ]*\) J.*/\1 \2/p' "$1"; }
ok $([ $r2 -eq 0 ] && [ -n "$(opt "$TMPD/one")" ] && [ "$(opt "$TMPD/one")" = "$(opt "$TMPD/two")" ] && echo 0 || echo 1) \
  "2 ranks: the same time optimum ($(opt "$TMPD/one") and $(opt "$TMPD/two"))"
ok $([ -n "$(en "$TMPD/one")" ] && [ "$(en "$TMPD/one")" = "$(en "$TMPD/two")" ] && echo 0 || echo 1) \
  "2 ranks: the same energy and bound ($(en "$TMPD/one") and $(en "$TMPD/two"))"
"$S" --nodes 0 >"$TMPD/bad" 2>&1
ok $([ $? -eq 2 ] && grep -q -- '--nodes: bad value' "$TMPD/bad" && echo 0 || echo 1) "--nodes 0: usage error, status 2"
"$S" --sweep "$TMPD/sweep" --sweep-max 2000 --points 100 >"$TMPD/sweep.out" 2>&1
r=$?
ok $([ $r -eq 0 ] && [ "$(wc -l <"$TMPD/sweep/scale.csv")" -eq 3 ] && grep -q '^1008,112,' "$TMPD/sweep/scale.csv" && echo 0 || echo 1) \
  "--sweep: a CSV row per size (1,008 and 2,007 processors)"
if command -v gnuplot >/dev/null; then
  ok $([ -s "$TMPD/sweep/scale.png" ] && echo 0 || echo 1) "--sweep: the gnuplot plot"
else
  skip "--sweep: no gnuplot"
fi
done_testing
