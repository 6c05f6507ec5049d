#!/bin/bash
# A node dies in the middle of a PARALEPH partitioning across two nodes of the virtual cluster:
# the job ends within 30 s with a message naming the node, the point files are left as they were,
# and the same command run again completes.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/cluster/setup.sh"
cluster_up node1:0 node2:1
# an instance of 2 x 10^5 sizes per process, speeds with noise; the kill comes at a point PARALEPH
# reaches for certain (the FUPERMOD_TEST_HOLD hook, docs/testing.md: every rank holds once it has
# the problem, before the DP's messages), not after a sleep that a fast CPU outruns
mkdir data hold
seed=0
for f in node1.0 node2.0 node2.1; do
  seed=$((seed + 1))
  awk -v s=$seed 'BEGIN { srand(s); print "# fupermod points v1: d t reps ci"
    for (d = 1; d <= 200000; d++) printf "%d %.6g 1 0\n", d, d * 1e-4 * (1 + 0.3 * rand()) }' >"data/$f.points"
done
md5sum data/*.points >sums
printf 'node1 0 none cpu\nnode2 0 none cpu\nnode2 1 none cpu\n' >c.conf
part() { "$VC" mpirun "$CL" -np 3 --host node1:1,node2:2 --bind-to none "$@" "$FUPERMOD" partition -a paraleph \
  -D 200000 --conf c.conf --data data --json; }

part -x FUPERMOD_TEST_HOLD="paraleph:$PWD/hold" >p1.out 2>p1.err &
job=$!
for _ in $(seq 600); do [ "$(ls hold | grep -c '^held\.')" -eq 3 ] || ! kill -0 "$job" 2>/dev/null && break; sleep 0.1; done
held=$(ls hold | grep -c '^held\.')
running=$(kill -0 "$job" 2>/dev/null && echo yes)
# node1's rank goes on into the DP once node2's are dead: it meets their death in its messages
HOLD_RELEASE=hold/release kill_ranks node2
ok "$([ "$held" -eq 3 ] && [ "$running" = yes ] && [ -n "$victims" ] && [ ! -s p1.out ]; echo $?)" \
  "node2's processes are killed while PARALEPH runs (before any result; $held of 3 ranks held in it)"
ok "$([ $rc -ne 0 ] && [ $secs -le 30 ]; echo $?)" "the whole job ends within 30 s ($secs s, exit $rc)"
ok "$(grep -q 'node node2 exited on signal' p1.err; echo $?)" "with a message that names node2"
grep 'node2' p1.err | head -2 | sed 's/^/# /'
for _ in $(seq 300); do "$VC" procs "$CL" | grep -q 'fupermod\|orted' || break; sleep 0.1; done
ok "$("$VC" procs "$CL" | grep -q 'fupermod\|orted'; [ $? -ne 0 ]; echo $?)" "nothing of the job is left on the nodes"
ok "$(md5sum -c --quiet sums >/dev/null 2>&1; echo $?)" "the point files are as they were"

part >p2.out 2>p2.err
rc=$?
ok "$([ $rc -eq 0 ] && grep -o '"d":[0-9]*' p2.out | cut -d: -f2 | awk '{ s += $1; n++ } END { exit !(n == 3 && s == 200000) }'; echo $?)" \
  "the same command again completes: 3 shares summing to D = 200000 (exit $rc)"
cd "$top_builddir" || exit 1
done_testing
