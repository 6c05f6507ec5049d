#!/bin/bash
# The launch self-check on the virtual cluster: tools print where every rank runs; a job that
# landed on fewer hosts than the configuration names, or whose ranks share CPUs that the
# configuration gives them separately, stops with a message that says so.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/cluster/setup.sh"
cluster_up node1:0 node2:1
build() { # CONF MPIRUN-ARGS...
  local conf=$1; shift
  timeout 120 "$@" --bind-to none "$FUPERMOD" build --conf "$conf" --data "data-$conf" --sizes 8,16 -r 2 -R 3 >out 2>err
}
printf 'node1 0 core:0 cpu kernel=dgemm\nnode2 0 none cpu kernel=dgemm\nnode2 1 none cpu kernel=dgemm\n' >good.conf
build good.conf "$VC" mpirun "$CL" -np 3 --host node1:1,node2:2
ok $? "a build across the nodes runs"
ok "$(grep -q 'build: 3 processes on 2 hosts' err && grep -q 'rank 0 on node1 (node1.0 in the files), intra-node rank 0, line 1, bind core:0, cpus 0$' err &&
  grep -q 'rank 2 on node2 (node2.1 in the files), intra-node rank 1, line 3, bind none, cpus 1$' err; echo $?)" \
  "it prints where every rank runs: host, intra-node rank, line, binding, CPUs"
grep 'rank [0-9] on\|processes on' err | sed 's/^/# /'

# every rank on this host, as when mpirun has no way to reach the nodes
build good.conf $MPIEXEC --oversubscribe -np 3
rc=$?
ok "$([ $rc -ne 0 ] && [ $rc -ne 124 ]; echo $?)" "a job started on one host only stops (exit $rc)"
ok "$(grep -q "the job runs on 1 host ($(hostname)) but the configuration names 2" err; echo $?)" \
  "and says that it runs on 1 host where the configuration names 2"
sed 's/^/# /' err | head -3

# node2 has one CPU; the configuration gives its two processes a core each
printf 'node1 0 none cpu kernel=dgemm\nnode2 0 core:0 cpu kernel=dgemm\nnode2 1 core:1 cpu kernel=dgemm\n' >cores.conf
build cores.conf "$VC" mpirun "$CL" -np 3 --host node1:1,node2:2
rc=$?
ok "$([ $rc -ne 0 ] && [ $rc -ne 124 ]; echo $?)" "a job whose host has fewer cores than its lines bind stops (exit $rc)"
ok "$(grep -q 'cores.conf:3: binding .core:1.: core 1 does not exist on node2, which gives this process 1' err; echo $?)" \
  "naming the line, the binding and the host"
sed 's/^/# /' err | head -3

# two bindings that differ but land on the same CPU of node1
printf 'node1 0 pu:0 cpu kernel=dgemm\nnode1 1 core:0 cpu kernel=dgemm\n' >shared.conf
build shared.conf "$VC" mpirun "$CL" -np 2 --host node1:2
rc=$?
ok "$([ $rc -ne 0 ] && [ $rc -ne 124 ]; echo $?)" "ranks that share a CPU their lines give apart stop the job (exit $rc)"
ok "$(grep -q 'ranks 0 and 1 on node1 share CPUs (0 and 0) although lines 1 and 2 bind them apart' err; echo $?)" \
  "with a message naming the ranks, the host, the CPUs and the lines"
sed 's/^/# /' err | head -3
ok "$([ -n "$(cat data-good.conf/* 2>/dev/null | grep -v '^#')" ] &&
  [ -z "$(cat data-cores.conf/* data-shared.conf/* 2>/dev/null | grep -v '^#')" ]; echo $?)" "nothing is measured on a wrong launch"
cd "$top_builddir" || exit 1
done_testing
