#!/bin/bash
# alone: it asserts message times, which other tests' processes on these two cores would stretch
# fupermod comm on 3 processes of this machine: every link measured at every size to the precision
# asked, the table and the plot; on two processes, times growing with the size; a second run
# reuses the file, a run whose file lost links measures only those, other sizes measure again;
# bad input is refused.
. "$top_srcdir/tests/tap.sh"
MPI="$MPIEXEC --oversubscribe --bind-to none"
cd "$TMPD" || exit 1
printf 'localhost 0 none cpu\nlocalhost 1 none cpu\nlocalhost 2 none cpu\n' >three.conf
SIZES=8,4K,64K,1M,4M
$MPI -np 3 "$FUPERMOD" comm --conf three.conf --out cm --sizes $SIZES -r 5 -R 40 -e 0.1 -T 2 >out 2>err
ok $? "fupermod comm measures 3 processes"
sed 's/^/# /' out
F=cm/comm.txt
ok "$(head -1 $F | grep -q '^# fupermod comm v1' && grep -qx 'processes localhost.0 localhost.1 localhost.2' $F &&
  grep -qx 'sizes 8 4096 65536 1048576 4194304' $F; echo $?)" "the file names the processes and the sizes"
ok "$(awk '/^[0-9]/ { n[$1 " " $2]++; if (!($4 > 0) || $5 < 5 || $5 > 40) bad++ } END {
  exit !(length(n) == 3 && n["0 1"] == 5 && n["0 2"] == 5 && n["1 2"] == 5 && !bad) }' $F; echo $?)" \
  "each of the 3 links at each of the 5 sizes, t > 0, between 5 and 40 repetitions"
ok "$(awk '/^[0-9]/ && ($6 > 0.1 * $4 + 1e-6) && $5 < 40 { bad++ } END { exit bad > 0 }' $F; echo $?)" \
  "a size stopped before 40 repetitions is within 10 % (or the 2 s cap)"
ok "$(grep -c '^  localhost.[01] - localhost.[12] ' out | grep -qx 3; echo $?)" "the table has a line per link"
if command -v gnuplot >/dev/null; then
  ok "$([ -s cm/comm.png ]; echo $?)" "the plot is drawn"
else
  skip "gnuplot is not installed: no plot"
fi
ok "$(grep -c '^fupermod comm: round [123] of 3 done' err | grep -qx 3; echo $?)" "progress after each of the 3 rounds"

# what the times say, on two processes: three share the two cores here, and a round trip between
# processes that take turns on a core measures the scheduler as much as the link
printf 'localhost 0 none cpu\nlocalhost 1 none cpu\n' >two.conf
$MPI -np 2 "$FUPERMOD" comm --conf two.conf --out c2 --sizes 8,16M -R 40 -T 2 >out2p 2>err2p
ok "$(awk '/^[0-9]/ { t[$3] = $4 } END { exit !(t[16777216] > 10 * t[8]) }' c2/comm.txt; echo $?)" \
  "16 MiB take more than 10 times as long as 8 bytes"
ok "$(awk '/^  localhost.0 - localhost.1 / { ok = $4 > 0 && $5 > 0 } END { exit !ok }' out2p; echo $?)" \
  "the link's latency and bandwidth are positive"
sed 's/^/# /' out2p

# a second run: nothing measured again
cp $F first.txt
$MPI -np 3 "$FUPERMOD" comm --conf three.conf --out cm --sizes $SIZES >out2 2>err2
ok "$([ $? -eq 0 ] && grep -q '3 links (3 reused' err2 && cmp -s $F first.txt; echo $?)" \
  "a second run reuses the 3 links and leaves the file as it was"
# an interrupted measurement: the links the file lost are measured, the others kept
awk '!/^[0-9]/ || ($1 == 0 && $2 == 1)' first.txt >$F
$MPI -np 3 "$FUPERMOD" comm --conf three.conf --out cm --sizes $SIZES -R 20 -T 1 >out3 2>err3
ok "$([ $? -eq 0 ] && grep -q '3 links (1 reused' err3 && diff <(awk '$1 == 0 && $2 == 1' first.txt) <(awk '$1 == 0 && $2 == 1' $F) >/dev/null &&
  [ "$(grep -c '^[0-9]' $F)" -eq 15 ]; echo $?)" "a file that lost 2 links: they are measured, the kept one is unchanged"
# other sizes: every link again
$MPI -np 3 "$FUPERMOD" comm --conf three.conf --out cm --sizes 8,1K -R 20 -T 1 >out4 2>err4
ok "$([ $? -eq 0 ] && grep -q 'other processes or sizes' err4 && grep -qx 'sizes 8 1024' $F; echo $?)" \
  "other sizes: every link measured again"

# bad input
expect() { # STATUS TEXT WHAT -- COMMAND...
  local st=$1 text=$2 what=$3
  shift 4
  "$@" >bad.out 2>bad.err
  local got=$?
  ok "$([ $got -eq "$st" ] && grep -qF -- "$text" bad.err; echo $?)" "$what (exit $got)"
  [ $got -eq "$st" ] && grep -qF -- "$text" bad.err || sed 's/^/# /' bad.err | head -5
}
expect 2 "--sizes: '4' is not above the size before it" "sizes that do not increase" -- "$FUPERMOD" comm --conf three.conf --sizes 8,4
expect 2 "--sizes: '0' is not a whole number of bytes" "a size of 0" -- "$FUPERMOD" comm --conf three.conf --sizes 0
expect 2 "unknown option '--szes' (did you mean '--sizes'?)" "a misspelt option" -- "$FUPERMOD" comm --conf three.conf --szes 8
expect 2 "no process configuration given (--conf CONF)" "no configuration" -- "$FUPERMOD" comm
printf 'garbage\n' >cm/comm.txt
expect 1 "cm/comm.txt:1: not a fupermod comm v1 file" "a damaged file is named, with --rebuild as the way out" -- \
  $MPI -np 3 "$FUPERMOD" comm --conf three.conf --out cm -q
grep -q -- '--rebuild' bad.err
ok $? "the message says --rebuild replaces it"
$MPI -np 3 "$FUPERMOD" comm --conf three.conf --out cm --sizes 8 --rebuild -q >/dev/null 2>&1
ok "$([ $? -eq 0 ] && [ "$(grep -c '^[0-9]' cm/comm.txt)" -eq 3 ]; echo $?)" "--rebuild replaces it"
expect 2 "three.conf has 3 process lines but the job has 2 processes" "a job of fewer processes than lines" -- \
  $MPI -np 2 "$FUPERMOD" comm --conf three.conf --out cm -q
done_testing
