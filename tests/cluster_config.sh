#!/bin/bash
# The virtual cluster (tests/cluster/vcluster): two nodes with their own hostnames, /dev/shm, /tmp
# and CPUs; Open MPI across them; `fupermod config` of a 2-node job writes each rank's host and
# intra-node rank; `down` leaves no process of the cluster behind.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/cluster/setup.sh"
cluster_up node1:0 node2:1
pids=$(cat "$CL"/*.pid 2>/dev/null)
ok "$([ "$("$VC" exec "$CL" node1 hostname)" = node1 ] && [ "$("$VC" exec "$CL" node2 hostname)" = node2 ]; echo $?)" \
  "each node has its own hostname"
touch /dev/shm/fupermod-vc-host.$$ /tmp/fupermod-vc-host.$$
ok "$("$VC" exec "$CL" node1 "[ ! -e /dev/shm/fupermod-vc-host.$$ ] && [ ! -e /tmp/fupermod-vc-host.$$ ] && touch /tmp/fupermod-vc-node1.$$" &&
     "$VC" exec "$CL" node2 "[ ! -e /tmp/fupermod-vc-node1.$$ ]" && [ ! -e /tmp/fupermod-vc-node1.$$ ]; echo $?)" \
  "and its own /dev/shm and /tmp"
rm -f /dev/shm/fupermod-vc-host.$$ /tmp/fupermod-vc-host.$$
ok "$("$VC" exec "$CL" node1 "echo \$(hostname) >$CL/seen && [ -x $FUPERMOD ]" && "$VC" exec "$CL" node2 "grep -qx node1 $CL/seen"; echo $?)" \
  "what the nodes share stays reachable from each (the cluster's directory and the build, here below ${CL%/tests/*})"
ok "$("$VC" exec "$CL" node2 "grep -q 'Cpus_allowed_list:[[:space:]]*1\$' /proc/self/status"; echo $?)" \
  "node2 runs on CPU 1 only"

cd "$CL" || exit 1
"$VC" mpirun "$CL" -np 4 --bind-to none "$FUPERMOD" config -o "$CL/job.conf" -s kernel=dgemm >out 2>err
ok $? "fupermod config runs as a 4-rank job across the nodes"
sed 's/^/# /' err
ok "$(grep -v '^#' job.conf | awk '{ printf "%s:%s ", $1, $2 }' | grep -qx 'node1:0 node1:1 node2:0 node2:1 '; echo $?)" \
  "it writes each rank's host and intra-node rank (node1 0, node1 1, node2 0, node2 1)"
sed 's/^/# /' job.conf
cd "$top_builddir" || exit 1

"$VC" down "$CL"
"$VC" down "$CL"
ok $? "stopping twice is harmless"
left=""
for p in $pids; do kill -0 "$p" 2>/dev/null && left="$left $p"; done
ok "$([ -n "$pids" ] && [ -z "$left" ]; echo $?)" "no node process is left after down (held by:${pids//$'\n'/ })"
done_testing
