#!/bin/bash
# fupermod build across two nodes of the virtual cluster: node1 with CPU 0 for one process, node2
# with CPU 1 shared by two. Points land in one file per host and intra-node rank; the two
# processes of node2 measure together; a build interrupted across nodes resumes, keeping what was
# measured and measuring every size once; when one node dies the job ends and a rerun resumes.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/cluster/setup.sh"
cluster_up node1:0 node2:1
printf 'node1 0 none cpu kernel=dgemm\nnode2 0 none cpu kernel=dgemm\nnode2 1 none cpu kernel=dgemm\n' >c.conf
build() { "$VC" mpirun "$CL" -np 3 --host node1:1,node2:2 --bind-to none "$FUPERMOD" build --conf c.conf --data data \
  -L 8 -U 512 -s 12 -r 3 -R 30 -e 0.05 "$@"; }
points() { grep -v '^#' "$1" 2>/dev/null | wc -l; }

# interrupted once node1 has two points: every rank killed at once, as when the job is cancelled
build >build1.out 2>&1 &
job=$!
for _ in $(seq 600); do [ "$(points data/node1.0.points)" -ge 2 ] && break; sleep 0.1; done
ranks=$("$VC" procs "$CL" | awk '$3 ~ /^(lt-)?fupermod/ { print $2 }')
[ -n "$ranks" ] && kill -KILL $ranks
wait "$job"
job=""
for _ in $(seq 300); do "$VC" procs "$CL" | grep -q 'fupermod\|orted' || break; sleep 0.1; done
ok "$("$VC" procs "$CL" | grep -q 'fupermod\|orted'; [ $? -ne 0 ]; echo $?)" \
  "the killed job leaves nothing on the nodes ($(echo $ranks | wc -w) ranks killed)"
n1=$(points data/node1.0.points)
ok "$([ "$n1" -ge 2 ] && [ "$n1" -lt 12 ]; echo $?)" "the build is stopped part-way (node1 has $n1 of 12 points)"
grep -v '^#' data/node1.0.points | head -2 >kept
build >build2.out 2>&1
ok $? "a rerun across the nodes completes"
sed 's/^/# /' build2.out | tail -5
for f in node1.0 node2.0 node2.1; do
  ok "$(grep -v '^#' "data/$f.points" 2>/dev/null | awk '{ print $1 }' | sort -nu | wc -l | grep -qx 12 &&
    [ "$(points "data/$f.points")" -eq 12 ]; echo $?)" "data/$f.points has each of the 12 sizes once"
done
ok "$(grep -v '^#' data/node1.0.points | head -2 | cmp -s - kept; echo $?)" "the points measured before the interruption are kept as they were"
# the two processes sharing node2's CPU are measured as one group: the same times
ok "$(cmp -s <(grep -v '^#' data/node2.0.points | cut -d' ' -f1-2) <(grep -v '^#' data/node2.1.points | cut -d' ' -f1-2); echo $?)" \
  "node2's two processes measured together (their CPU's busy time, the same in both files)"

# node2 dies part-way through a fresh build: its processes are killed, node1's go on measuring
rm -rf data
build -L 8 -U 512 -s 12 >build3.out 2>&1 &
job=$!
for _ in $(seq 600); do [ "$(points data/node2.0.points)" -ge 2 ] && break; sleep 0.1; done
kill_ranks node2
ok "$([ $rc -ne 0 ] && [ $secs -le 30 ]; echo $?)" \
  "when node2 dies the whole job ends, within 30 s ($secs s, exit $rc)"
ok "$(grep -Eq 'node node2 exited on signal|node2.*(lost|died|killed)' build3.out; echo $?)" "with a message that names node2 as the node whose process died"
grep -i 'node2\|signal\|killed' build3.out | head -3 | sed 's/^/# /'
for _ in $(seq 300); do "$VC" procs "$CL" | grep -q 'fupermod\|orted' || break; sleep 0.1; done
grep -v '^#' data/node2.0.points | head -2 >kept2
build >build4.out 2>&1
ok "$([ $? -eq 0 ] && [ "$(points data/node2.0.points)" -eq 12 ] && grep -v '^#' data/node2.0.points | head -2 | cmp -s - kept2; echo $?)" \
  "a rerun resumes: node2's points from before its death are kept, every size is measured once"
cd "$top_builddir" || exit 1
done_testing
