#!/bin/bash
# A rank whose kernel never returns: fupermod build's watchdog (twice the time limit per point)
# ends the job with a message naming the rank, its host and the size; the points measured before
# are kept.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/cluster/setup.sh"
cluster_up node1:0 node2:1
# emulated devices: node2's takes 10^5 s at d=16, that is, it never returns
printf '1 0.001 1 0\n8 0.002 1 0\n16 0.004 1 0\n' >fine.points
printf '1 0.001 1 0\n8 0.002 1 0\n16 100000 1 0\n' >hang.points
printf 'node1 0 none cpu kernel=emulated,points=%s\nnode2 0 none cpu kernel=emulated,points=%s\n' \
  "$CL/fine.points" "$CL/hang.points" >c.conf
t0=$(date +%s)
timeout 120 "$VC" mpirun "$CL" -np 2 --host node1:1,node2:1 --bind-to none "$FUPERMOD" build --conf c.conf \
  --data data --sizes 1,8,16 -r 3 -R 5 -T 1 >out 2>err
rc=$?
t1=$(date +%s)
ok "$([ $rc -ne 0 ] && [ $rc -ne 124 ] && [ $((t1 - t0)) -le 30 ]; echo $?)" \
  "the job ends on its own, within 30 s ($((t1 - t0)) s, exit $rc)"
ok "$(grep -q 'fupermod build: rank 1 on node2: the kernel has not returned from a run at d=16 for [0-9]* s, twice the time limit per point' err; echo $?)" \
  "the message names the rank, the host and the size"
grep 'has not returned' err | sed 's/^/# /'
ok "$(grep -v '^#' data/node2.0.points 2>/dev/null | awk '{ d = d $1 " " } END { exit d != "1 8 " }'; echo $?)" \
  "node2's points before the hung size are kept (d = 1, 8)"
cd "$top_builddir" || exit 1
done_testing
