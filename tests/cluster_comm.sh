#!/bin/bash
# fupermod comm across two virtual nodes: node1's two processes talk through shared memory, each
# with node2's through TCP; the links measured say so (8 bytes across the nodes take over 1.5 times as long as within).
# alone: it compares message latencies, which other tests' processes on these two cores would stretch
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/cluster/setup.sh"
cluster_up node1:0 node2:1
printf 'node1 0 none cpu\nnode1 1 none cpu\nnode2 0 none cpu\n' >c.conf
timeout 120 "$VC" mpirun "$CL" -np 3 --host node1:2,node2:1 --bind-to none "$FUPERMOD" comm --conf c.conf --out cm \
  --sizes 8,64K,1M -R 40 -T 2 >out 2>err
ok $? "fupermod comm across the two nodes"
sed 's/^/# /' out; tail -n 5 err | sed 's/^/# /'
ok "$(grep -qx 'processes node1.0 node1.1 node2.0' cm/comm.txt; echo $?)" "the processes are named by their nodes"
# one-way time of 8 bytes: within node1 (0 1), across (0 2, 1 2)
ok "$(awk '/^[0-9]/ && $3 == 8 { t[$1 $2] = $4 } END { exit !(t["02"] > 1.5 * t["01"] && t["12"] > 1.5 * t["01"]) }' cm/comm.txt; echo $?)" \
  "8 bytes across the nodes take over 1.5 times as long as within node1"
awk '/^[0-9]/ && $3 == 8 { printf "# %s-%s: %.2f us\n", $1, $2, $4 * 1e6 }' cm/comm.txt
done_testing
