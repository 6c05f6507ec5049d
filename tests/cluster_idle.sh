#!/bin/bash
# alone: it shapes the loopback's traffic and compares run times
# A process that does not pay for its messages is left idle: node2's process sits behind a slow
# link (Linux traffic control on the loopback, the MPI TCP ports only, 200 Mbit/s) and shares a
# core with node1's second process. fupermod run measures the links, chooses by the whole-run
# prediction, and its choice leaves node2 idle and is not measurably slower than the fastest
# process alone, even and the computation-only optimum (PARALEPH), measured in the same run: at
# most 1.02x each, or within both measured intervals of it (and never beyond 1.25x). Near-equal
# distributions of runs of 10-50 ms differ by a few % from one measurement to the next; what the
# choice must not do is put node2 to work, which costs 10x here. The distributions that do are
# predicted within 15 %, and the model without messages fails that check.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/cluster/setup.sh"
if ! command -v tc >/dev/null || ! tc qdisc show dev lo | grep -q '^qdisc noqueue 0: root'; then
  echo "1..0 # SKIP no tc, or the loopback already has a queueing discipline: $(tc qdisc show dev lo 2>&1 | head -1)"
  exit 0
fi
if ! tc qdisc add dev lo root handle 1: htb default 10 2>"$TMPD/tc"; then
  echo "1..0 # SKIP the kernel refuses an htb queueing discipline on the loopback: $(head -1 "$TMPD/tc")"
  exit 0
fi
# undo the shaping however the test ends, before setup.sh's own clean-up
trap 'tc qdisc del dev lo root 2>/dev/null; [ -n "$job" ] && kill "$job" 2>/dev/null; "$VC" down "$CL"; rm -rf "$CL" "$TMPD"' EXIT
# everything else at full speed; MPI's TCP ports 30016-30079 (the only traffic between the
# nodes: within a node it goes through shared memory) at 200 Mbit/s
tc class add dev lo parent 1: classid 1:10 htb rate 100gbit 2>/dev/null &&
  tc class add dev lo parent 1: classid 1:30 htb rate 200mbit ceil 200mbit 2>/dev/null &&
  tc filter add dev lo parent 1: protocol ip prio 1 u32 match ip dport 30016 0xffc0 flowid 1:30 &&
  tc filter add dev lo parent 1: protocol ip prio 2 u32 match ip sport 30016 0xffc0 flowid 1:30
ok $? "the slow link: MPI's TCP ports shaped to 200 Mbit/s on the loopback"
cluster_up node1:0-1 node2:1
printf 'node1 0 core:0 cpu\nnode1 1 core:1 cpu\nnode2 0 core:0 cpu\n' >c.conf
timeout 600 "$VC" mpirun "$CL" -np 3 --host node1:2,node2:1 --bind-to none --mca btl_tcp_port_min_v4 30016 \
  --mca btl_tcp_port_range_v4 64 "$FUPERMOD" run --conf c.conf --out out --size 1024 --points 8 --reps 3 \
  >run.out 2>run.err
ok $? "fupermod run across the nodes, node2 behind the slow link"
sed 's/^/# /' run.err | grep -v 'model: size\|round' | tail -4
grep '^   links' run.out | sed 's/^/# /'
ok "$(grep '^   links' run.out | awk '{
    for (i = 1; i <= NF; i++) if ($i ~ /GB\/s/) { bw = $(i - 1) + 0; pair = $(i - 6) " " $(i - 4)
      if (pair ~ /node2/) slow += bw < 0.1; else fast += bw > 0.5 } }
    END { exit !(slow == 2 && fast == 1) }'; echo $?)" \
  "the links measured: node2's two below 0.1 GB/s, node1's within the node above 0.5 GB/s"
for app in dgemm fft; do
  # the table of the run: label, predicted and measured whole run; * marks the choice
  awk -v app="$app" '/^== / { cur = $2 } cur != app":" { next }
      /^   distribution +comp t/ { intab = 1; next }
      intab && ($2 ~ /^[0-9]/ || ($2 == "*" && $3 ~ /^[0-9]/)) { star = ($2 == "*"); o = star ? 1 : 0
        print $1, star, $(3 + o), $(5 + o), $(6 + o); next }
      { intab = 0 }' run.out >"t-$app"
  sed "s/^/# $app: /" "t-$app"
  sed "s/^/# $app: /" "out/predictions-$app.csv"
  grep -A200 "^== $app" run.out | grep -m1 '^   wrong models' | sed 's/^/# /'
  # where node2 works its messages cross the slow link and dominate the run: the model predicts
  # those distributions within 15 %, and the same check fails on the model without messages
  # (predictions-APP.csv's column 12, scored alike in the same run; 80-90 % short). In sample too:
  # the messages' factor is fitted on PARALEPH's and even, and the 2D-FFT has no other putting
  # node2 to work. 15 %, not 10: SUMMA's square-corner layout sends its pieces' messages in a
  # pattern the one messages' factor does not price (docs/models.md), 11 % off in one CI run.
  within() { awk -F, -v c="$1" 'NR > 1 { split($3, s, " ")
               if (s[3] > 0) { n++; e = ($c - $6) / $6; bad += (e < 0 ? -e : e) > 0.15 } }
             END { exit !(n > 0 && bad == 0) }' "out/predictions-$app.csv"; }
  ok "$(within 4; echo $?)" "$app: the distributions putting node2 to work are predicted within 15 %"
  ok "$(! within 12; echo $?)" "$app: the same check fails on the model without messages (the score tells it)"
  chosen=$(awk '$2 == 1 { print $1 }' "t-$app")
  # the shares of every distribution, by label (rank order)
  awk -F, 'NR > 1 { d[$3] = d[$3] " " $6 } END { for (k in d) print k d[k] }' "out/report-$app.csv" >"d-$app"
  ok "$([ -n "$chosen" ] && awk -v c="$chosen" '$1 == c { exit !($4 == 0) }' "d-$app"; echo $?)" \
    "$app: the choice ($chosen) leaves node2's process idle"
  # against each reference: the same shares are the same distribution; otherwise the measured runs
  ok "$(awk -v c="$chosen" 'NR == FNR { s[$1] = $2 " " $3 " " $4; next } { t[$1] = $4; h[$1] = $5 }
        END { bad = 0
              for (r in t) if (r == "fastest-alone" || r == "even" || r == "paraleph")
                if (s[r] != s[c] && (t[c] > 1.25 * t[r] || (t[c] > 1.02 * t[r] && t[c] - h[c] > t[r] + h[r]))) {
                  bad = 1; print "# " c " " t[c] " +- " h[c] " s vs " r " " t[r] " +- " h[r] " s" >"/dev/stderr" }
              exit bad }' "d-$app" "t-$app"; echo $?)" \
    "$app: the choice is not measurably slower than the fastest alone, even and PARALEPH"
  ok "$(grep -A200 "^== $app" run.out | grep -m1 -q '^   whole-run predictions: out of sample [0-9]* of [0-9]* within 10 %.*; in sample [0-9]* of [0-9]*; chosen'; echo $?)" \
    "$app: the report ends with the whole-run predictions line"
done
done_testing
