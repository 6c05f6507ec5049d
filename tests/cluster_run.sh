#!/bin/bash
# fupermod run across two heterogeneous nodes of the virtual cluster (configs/cluster.conf: node1,
# two processes sharing CPU 0; node2, one process on CPU 1): the report shows where every rank runs, partitions flat
# (PARALEPH) and hierarchically over the real hosts (HiPOPTA), runs SUMMA and the 2D-FFT across
# the nodes on every distribution (each product verified), and gives the speedup over even.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/cluster/setup.sh"
cluster_up node1:0 node2:1
cp "$top_srcdir/configs/cluster.conf" c.conf
"$VC" mpirun "$CL" -np 3 --host node1:2,node2:1 --bind-to none "$FUPERMOD" run --conf c.conf --out out \
  --size 1024 --points 8 --reps 2 >run.out 2>run.err
ok $? "fupermod run completes across the nodes"
sed 's/^/# /' run.err | grep -v 'model: size\|round' | tail -5
ok "$(grep -q '^   on 2 hosts:' run.out && grep -q '^   rank 0 on node1 (node1.0 in the tables), intra-node rank 0, line 5, bind core:0, cpus 0, threads 1$' run.out &&
  grep -q '^   rank 1 on node1 (node1.1 in the tables), intra-node rank 1, line 6, bind core:0, cpus 0, threads 1$' run.out &&
  grep -q '^   rank 2 on node2 (node2.0 in the tables), intra-node rank 0, line 7, bind core:0, cpus 1, threads 1$' run.out; echo $?)" \
  "the report shows where every rank runs"
for app in dgemm fft; do
  ok "$(awk -v app="$app" '/^== / { cur = $2 } cur == app":" && $1 ~ /^(paraleph|hipopta|even)$/ && $3 > 0 { n++ } END { exit n != 3 }' run.out; echo $?)" \
    "$app: PARALEPH, HiPOPTA over the two hosts and even, each run with a measured time"
  ok "$(awk -v app="$app" '/^== / { cur = $2 } cur == app":" && /speedup of [a-z-]+ over the even distribution: [0-9.]+ \(measured\)/ { n++ } END { exit n != 1 }' run.out; echo $?)" \
    "$app: the speedup over even as measured on the cluster"
  ok "$(grep -q 'node1\.1' out/report-$app.csv && grep -q 'node2\.0' out/report-$app.csv; echo $?)" \
    "$app: report-$app.csv has a row per process, named by host"
done

# node2 dies while the applications run: the job ends, and the rerun reuses the models
"$VC" mpirun "$CL" -np 3 --host node1:2,node2:1 --bind-to none "$FUPERMOD" run --conf c.conf --out out2 \
  --apps dgemm --size 1024 --points 8 --reps 40 >run2.out 2>run2.err &
job=$!
for _ in $(seq 1200); do grep -q 'dgemm round 1 of' run2.err && break; sleep 0.1; done
kill_ranks node2
ok "$([ -n "$victims" ] && [ $rc -ne 0 ] && [ $secs -le 30 ]; echo $?)" \
  "node2 dying during the SUMMA runs ends the job within 30 s ($secs s, exit $rc)"
ok "$(grep -q 'node node2 exited on signal' run2.err; echo $?)" "with a message naming node2"
for _ in $(seq 300); do "$VC" procs "$CL" | grep -q 'fupermod\|orted' || break; sleep 0.1; done
"$VC" mpirun "$CL" -np 3 --host node1:2,node2:1 --bind-to none "$FUPERMOD" run --conf c.conf --out out2 \
  --apps dgemm --size 1024 --points 8 --reps 2 >run3.out 2>run3.err
ok "$([ $? -eq 0 ] && grep -q 'dgemm models reused' run3.err && ! grep -q 'model: size' run3.err; echo $?)" \
  "the rerun reuses every measured model and completes"
cd "$top_builddir" || exit 1
done_testing
