#!/bin/bash
# fupermod hpartition -a inpa and -a idpa across two nodes of the virtual cluster, the processes
# grouped by the host they run on (no group= keys): node1 has one device of 20000 blocks/s, node2
# two of 5000 and 10000 (emulated by their point files, constant speeds, so every time can be
# checked by hand). The distributions add up, every time is its device's function at its area,
# and the answer is the one of the same run on one host with group= keys.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/cluster/setup.sh"
cluster_up node1:0 node2:1
mkdir data one
speed() { awk -v s="$1" 'BEGIN { print "# fupermod points v1: d t reps ci"; for (d = 50; d <= 4000; d += 50) printf "%d %.9g 1 0\n", d, d / s }'; }
speed 20000 >data/node1.0.points
speed 5000 >data/node2.0.points
speed 10000 >data/node2.1.points
cp data/node1.0.points one/localhost.0.points
cp data/node2.0.points one/localhost.1.points
cp data/node2.1.points one/localhost.2.points
printf 'node1 0 none cpu\nnode2 0 none cpu\nnode2 1 none cpu\n' >hosts.conf
printf 'localhost 0 none cpu group=a\nlocalhost 1 none cpu group=b\nlocalhost 2 none cpu group=b\n' >groups.conf
N=2048 B=64

# JSON to lines: "node K HOST BLOCKS ROWS COLS T" and "dev K RANK LINE COLS T"
flat() {
  grep -o '"\(key\|host\|blocks\|rows\|cols\|t\|rank\|line\)":[^,}]*' "$1" | tr -d '"' | awk -F: '
    function out() { if (dev) print "dev", k, r, l, c, t; else if (k >= 0) print "node", k, h, w, rows, c, t }
    BEGIN { k = -1 }
    $1 == "key" { out(); k++; dev = 0; w = 0 }
    $1 == "rank" { out(); dev = 1; r = $2 }
    $1 == "host" { h = $2 } $1 == "blocks" { w = $2 } $1 == "rows" { rows = $2 }
    $1 == "cols" { c = $2 } $1 == "t" { t = $2 } $1 == "line" { l = $2 }
    END { out() }'
}

for algo in inpa idpa; do
  "$VC" mpirun "$CL" -np 3 --host node1:1,node2:2 --bind-to none "$FUPERMOD" hpartition -a $algo -n $N -b $B \
    --conf hosts.conf --data data --json >$algo.json 2>$algo.err
  ok $? "$algo across node1 and node2 completes"
  sed 's/^/# /' $algo.err | head -5
  flat $algo.json >$algo.txt
  sed 's/^/# /' $algo.txt
  ok "$(awk '$1 == "node" { h = h $3 " " } $1 == "dev" { d = d $2 ":" $3 ":" $4 " " } END { exit !(h == "node1 node2 " && d == "0:0:1 1:1:2 1:2:3 ") }' $algo.txt; echo $?)" \
    "$algo: two nodes by host name: node1 with rank 0 (line 1), node2 with ranks 1 and 2 (lines 2, 3)"
  # every device's time is its function at its area, rows x cols / B^2 blocks; a node's time is its slowest device's
  ok "$(awk -v b=$B '$1 == "node" { rows[$2] = $5; cols[$2] = $6; t[$2] = $7 }
    $1 == "dev" { sum[$2] += $5; s = $4 == 1 ? 20000 : $4 == 2 ? 5000 : 10000; want = rows[$2] * $5 / (b * b) / s
      if ($6 - want > 1e-9 * want || want - $6 > 1e-9 * want) bad++; if ($6 > mx[$2]) mx[$2] = $6 }
    END { for (k in rows) if (sum[k] != cols[k] || mx[k] != t[k]) bad++; exit bad > 0 }' $algo.txt; echo $?)" \
    "$algo: each node's column slices add up to its width, every time is the device's function at its area, each node's is its slowest"
done

W=$(((N / B) * (N / B)))
ok "$(awk -v W=$W -v b=$B '$1 == "node" { s += $4; if ($5 * $6 != $4 * b * b) bad++ } END { exit !(s == W && !bad) }' inpa.txt; echo $?)" \
  "inpa: the node rectangles cover the $W blocks, each of its share's area"
# node functions: node1 does w blocks in w / 20000 s; node2 at best in w / 15000 s, its two devices
# balanced; INPA's node times lie within eps2 (+ one column) of that, and the faster host gets more
ok "$(awk '$1 == "node" { w[$3] = $4; t[$3] = $7 }
  END { r1 = t["node1"] * 20000 / w["node1"]; r2 = t["node2"] * 15000 / w["node2"]
        exit !(r1 > 0.999999 && r1 < 1.000001 && r2 >= 0.999999 && r2 <= 1.06 && w["node1"] > w["node2"]) }' inpa.txt; echo $?)" \
  "inpa: each host's share matches its node function (node1 w/20000 s, node2 within 6 % of w/15000 s), node1 gets more"
ok "$(grep -q '"converged":true' inpa.json && awk '$1 == "node" { t[++n] = $7 } END { r = t[1] > t[2] ? t[1] / t[2] : t[2] / t[1]; exit !(r - 1 <= 0.05) }' inpa.txt; echo $?)" \
  "inpa converged: the two hosts' times within eps1 = 0.05"
# idpa splits all N columns inside each node: node2's devices 1:2 by speed, within eps2
ok "$(awk -v N=$N '$1 == "node" && ($5 != N || $6 != N) { bad++ } $1 == "dev" && $2 == 1 { c[$3] = $5 }
  END { r = c[2] / c[1]; exit !(!bad && r > 1.9 && r < 2.1) }' idpa.txt && [ "$(grep -o '"converged":true' idpa.json | wc -l)" -eq 2 ]; echo $?)" \
  "idpa: each node splits all $N columns; node2 gives its 10000/s device twice the 5000/s one's, both nodes converged"

# the same on one host with group= keys: the same answer, only the keys and host names differ
strip() { sed 's/"key":"[^"]*","host":"[^"]*"//g' "$1"; }
for algo in inpa idpa; do
  $MPIEXEC --oversubscribe --bind-to none -np 3 "$FUPERMOD" hpartition -a $algo -n $N -b $B --conf groups.conf \
    --data one --json >$algo-one.json 2>$algo-one.err
  rc=$?
  ok "$([ $rc -eq 0 ] && grep -q '"key":"group:b"' $algo-one.json && cmp -s <(strip $algo.json) <(strip $algo-one.json); echo $?)" \
    "$algo: one host with group= keys gives the same distribution and times"
done

expect_exit 2 "-a inpa without -n and -b" -- "$FUPERMOD" hpartition -a inpa --conf hosts.conf --data data
stderr_has "needs -n N and -b B" "said what is missing"
expect_exit 2 "-a idpa with HiPOPTA's -D" -- "$FUPERMOD" hpartition -a idpa -n 128 -b 64 -D 10 --conf hosts.conf --data data
expect_exit 2 "an unknown -a" -- "$FUPERMOD" hpartition -a magic -D 10 --conf hosts.conf --data data
expect_exit 1 "a node's point file missing: every process ends" -- \
  timeout 60 "$VC" mpirun "$CL" -np 3 --host node1:1,node2:2 --bind-to none "$FUPERMOD" hpartition -a inpa -n $N -b $B \
  --conf hosts.conf --data one
stderr_has "node1.0.points" "the file is named"
cd "$top_builddir" || exit 1
done_testing
