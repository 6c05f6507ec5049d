#!/bin/bash
# fupermod hpartition: HiPOPTA over configuration groups equals the flat exact optimum (dp) of the
# same point files; JSON shape, distribution file, exit statuses; PARALEPH between nodes under mpirun.
. "$top_srcdir/tests/tap.sh"
E="$top_srcdir/configs/emulated"
mkdir -p "$TMPD/data"
field() { sed -n "s/.*\"$1\":\([^,}]*\).*/\1/p" "$2" | head -1; }
# two replicated emulated nodes on this machine (group=), then three different ones
printf 'localhost 0 none cpu group=a\nlocalhost 1 none cpu group=a\nlocalhost 2 none cpu group=b\nlocalhost 3 none cpu group=b\n' >"$TMPD/rep.conf"
printf 'localhost 0 none cpu group=a\nlocalhost 1 none cpu group=a\nlocalhost 2 none gpu group=b\nlocalhost 3 none cpu group=c\nlocalhost 4 none cpu group=c\nlocalhost 5 none cpu group=c\n' >"$TMPD/het.conf"
set_files() { i=0; for f in "$@"; do cp "$E/$f.points" "$TMPD/data/localhost.$i.points"; i=$((i + 1)); done; }

set_files fast medium fast medium
for D in 1200 2350 3500; do
  "$FUPERMOD" hpartition -D $D --conf "$TMPD/rep.conf" --data "$TMPD/data" --json >"$TMPD/h.json" 2>"$TMPD/err"
  r=$?
  "$FUPERMOD" partition -a dp -D $D --conf "$TMPD/rep.conf" --data "$TMPD/data" --json >"$TMPD/f.json"
  ok $([ $r -eq 0 ] && [ "$(field time "$TMPD/h.json")" = "$(field time "$TMPD/f.json")" ] && grep -q '"identical":true' "$TMPD/h.json" && grep -q '"outer":"popta"' "$TMPD/h.json" && echo 0 || echo 1) \
    "replicated nodes, D=$D: popta between, hpopta inside, time $(field time "$TMPD/h.json") = flat dp $(field time "$TMPD/f.json")"
done
ok $(grep -Eq '^\{"algorithm":"hipopta","inner":"hpopta","outer":"popta","D":3500,"identical":true,"time":[0-9.e-]+,"energy":[0-9.e-]+,"nodes":\[\{"key":"group:a","d":[0-9]+,"t":[0-9.e-]+,"lines":\[1,2\]\},\{"key":"group:b","d":[0-9]+,"t":[0-9.e-]+,"lines":\[3,4\]\}\],"parts":\[(\{"d":[0-9]+,"t":[0-9.e-]+,"e":[0-9.e-]+\},?){4}\]\}$' "$TMPD/h.json" && echo 0 || echo 1) "JSON shape"

set_files fast medium accel slow slow medium
for D in 1000 2400 4100; do
  for alg in "" "-i dp -o dp" "-i hpopta -o hpopta"; do
    "$FUPERMOD" hpartition -D $D $alg --conf "$TMPD/het.conf" --data "$TMPD/data" --json >"$TMPD/h.json" 2>"$TMPD/err"
    r=$?
    "$FUPERMOD" partition -a dp -D $D --conf "$TMPD/het.conf" --data "$TMPD/data" --json >"$TMPD/f.json"
    ok $([ $r -eq 0 ] && [ "$(field time "$TMPD/h.json")" = "$(field time "$TMPD/f.json")" ] && grep -q '"identical":false' "$TMPD/h.json" && echo 0 || echo 1) \
      "3 different nodes (2, 1, 3 devices), D=$D ${alg:-defaults}: time = flat dp"
  done
done
# dynamic energy: the same optimum up to the order of the sums
"$FUPERMOD" hpartition -D 2400 -F sum --conf "$TMPD/het.conf" --data "$TMPD/data" --json >"$TMPD/h.json"
"$FUPERMOD" partition -a dp -F sum -D 2400 --conf "$TMPD/het.conf" --data "$TMPD/data" --json >"$TMPD/f.json"
ok $(awk -v a="$(field energy "$TMPD/h.json")" -v b="$(field energy "$TMPD/f.json")" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a > 0 && d <= 1e-9 * b) }' && echo 0 || echo 1) \
  "-F sum: energy $(field energy "$TMPD/h.json") = flat dp $(field energy "$TMPD/f.json")"
"$FUPERMOD" hpartition -D 2400 --conf "$TMPD/het.conf" --data "$TMPD/data" --out "$TMPD/h.dist" >/dev/null
"$FUPERMOD" hpartition -D 2400 --conf "$TMPD/het.conf" --data "$TMPD/data" --json >"$TMPD/h.json"
# the file's shares, rank by rank, are the JSON's parts (configuration order)
want=$(sed 's/.*"parts":\[//' "$TMPD/h.json" | grep -o '"d":[0-9]*' | cut -d: -f2 | tr '\n' ' ')
got=$(awk '!/^#/ && NF >= 3 { if ($1 != n++) print "rank?"; printf "%s ", $2 }' "$TMPD/h.dist")
ok $([ "$(grep -v '^#' "$TMPD/h.dist" | head -1)" = "2400 6" ] && [ "$got" = "$want" ] &&
     awk -v w="$want" 'BEGIN { n = split(w, x, " "); for (i = 1; i <= n; i++) s += x[i]; exit !(n == 6 && s == 2400) }' &&
     echo 0 || echo 1) "--out writes the device distribution in configuration order ($got)"

expect_exit 3 "D beyond the cluster" -- "$FUPERMOD" hpartition -D 100000 --conf "$TMPD/het.conf" --data "$TMPD/data"
stderr_has "fupermod hpartition: " "one clear line"
expect_exit 2 "popta between different nodes" -- "$FUPERMOD" hpartition -D 100 -o popta --conf "$TMPD/het.conf" --data "$TMPD/data"
stderr_has "identical nodes" "said why"
expect_exit 2 "unknown inner algorithm" -- "$FUPERMOD" hpartition -D 100 -i magic --conf "$TMPD/het.conf" --data "$TMPD/data"
expect_exit 2 "missing --conf" -- "$FUPERMOD" hpartition -D 100 --data "$TMPD/data"
expect_exit 1 "missing point file" -- "$FUPERMOD" hpartition -D 100 --conf "$TMPD/het.conf" --data "$TMPD/none"
stderr_has "localhost.0.points" "file named"
printf 'localhost 0 none cpu group=\n' >"$TMPD/bad.conf"
expect_exit 1 "empty group=" -- "$FUPERMOD" hpartition -D 100 --conf "$TMPD/bad.conf" --data "$TMPD/data"

# PARALEPH between the nodes on every process of the job
MPI="$MPIEXEC --oversubscribe --bind-to none"
"$FUPERMOD" hpartition -D 2400 --conf "$TMPD/het.conf" --data "$TMPD/data" --json >"$TMPD/f.json"
$MPI -np 3 "$FUPERMOD" hpartition -D 2400 -o paraleph --conf "$TMPD/het.conf" --data "$TMPD/data" --json >"$TMPD/p.json" 2>"$TMPD/err"
ok $([ $? -eq 0 ] && [ "$(grep -c . "$TMPD/p.json")" = 1 ] && [ "$(field time "$TMPD/p.json")" = "$(field time "$TMPD/f.json")" ] && echo 0 || echo 1) \
  "-o paraleph on 3 processes: one answer, same time"
expect_exit 3 "paraleph: infeasible D ends every process with status 3" -- $MPI -np 2 "$FUPERMOD" hpartition -D 100000 -o paraleph --conf "$TMPD/het.conf" --data "$TMPD/data"

# INPA on one host, nodes by group= (tests/cluster_hpartition.sh runs it across hosts): node a has
# one device of 20000 blocks/s, node b two of 5000 and 10000, so each node's time is known
mkdir -p "$TMPD/inpa"
for i in 0 1 2; do
  awk -v s=$(echo 20000 5000 10000 | cut -d' ' -f$((i + 1))) 'BEGIN { for (d = 50; d <= 4000; d += 50) printf "%d %.9g 1 0\n", d, d / s }' \
    >"$TMPD/inpa/localhost.$i.points"
done
printf 'localhost 0 none cpu group=a\nlocalhost 1 none cpu group=b\nlocalhost 2 none cpu group=b\n' >"$TMPD/inpa.conf"
$MPI -np 3 "$FUPERMOD" hpartition -a inpa -n 2048 -b 64 --conf "$TMPD/inpa.conf" --data "$TMPD/inpa" >"$TMPD/inpa.out" 2>"$TMPD/err"
ok $([ $? -eq 0 ] && awk '/^node / { sub(/.*: /, ""); w[++n] = $1; split($0, a, "t="); t[n] = a[2] + 0 }
  END { exit !(n == 2 && w[1] + w[2] == 1024 && w[1] > w[2] && t[1] * 20000 / w[1] > 0.99999 && t[1] * 20000 / w[1] < 1.00001 &&
               t[2] * 15000 / w[2] >= 0.99999 && t[2] * 15000 / w[2] <= 1.06) }' "$TMPD/inpa.out" && echo 0 || echo 1) \
  "-a inpa on 3 processes in 2 group= nodes: the 1024 blocks split at the nodes' speeds (20000 vs 15000 blocks/s)"
sed 's/^/# /' "$TMPD/inpa.out" "$TMPD/err" | head -6
done_testing
