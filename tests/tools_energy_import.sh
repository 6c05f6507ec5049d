#!/bin/bash
# The external meter and `fupermod energy import`: energies integrated from synthetic power series
# of known power (exact integrals), CSV and Kwollect JSON, UNIX and ISO 8601 times, static power
# given or estimated, busy attribution between a node's overlapping points, and the errors; then a
# real `fupermod build` with meter=external whose imported energies `model` and `partition` use.
. "$top_srcdir/tests/tap.sh"
MPI="$MPIEXEC --oversubscribe --bind-to none"
near() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 1e-6 * (b < 0 ? -b : b) + 1e-9) }'; }
# field: the value of key=VALUE, or of positional field N, of the line of size d in a point file
field() { awk -v d="$2" -v k="$3" '!/^#/ && $1 == d { for (i = 1; i <= NF; i++) if (k ~ /^[0-9]+$/ ? i == k : index($i, k "=") == 1) { v = $i; sub(/^[a-z_]+=/, "", v); print v } }' "$1"; }

# --- node n1 runs 150 W during the runs and 100 W otherwise, sampled every 0.25 s (a sample on
# each span's ends, so the trapezoids are exact). A's d=100 and B's d=100 ran together.
cat >"$TMPD/A0.points" <<'EOF'
# fupermod points v2
100 1 5 0.1 t_start=1000.5 t_end=1006.5 host=n1
200 2 3 0.2 t_start=1010 t_end=1016.25 host=n1
EOF
printf '100 0.5 5 0.05 t_start=1000.25 t_end=1004 host=n1.site.example.org\n' >"$TMPD/B0.points"
awk 'BEGIN { print "time,host,watts"; for (t = 990; t <= 1030; t += 0.25) {
  r = (t >= 1000.25 && t <= 1006.5) || (t >= 1010 && t <= 1016.25); printf "%.2f,n1,%d\n", t, r ? 150 : 100 } }' >"$TMPD/n1.csv"
reset() { cp "$TMPD/A0.points" "$TMPD/A.points"; cp "$TMPD/B0.points" "$TMPD/B.points"; }
reset
"$FUPERMOD" energy import --static 100 "$TMPD/n1.csv" "$TMPD/A.points" "$TMPD/B.points" >"$TMPD/out" 2>"$TMPD/err"
ok $? "import from CSV with UNIX times and a given static power"
# the overlapping pair shares 50 W x 6.25 s in proportion to run time (5 x 1 s and 5 x 0.5 s)
ok $(near "$(field "$TMPD/A.points" 100 5)" 41.6666666667 && near "$(field "$TMPD/B.points" 100 5)" 20.8333333333 &&
     echo 0 || echo 1) "points that ran together split the node's dynamic energy by run time (busy)"
ok $(near "$(field "$TMPD/A.points" 200 5)" 104.166666667 && echo 0 || echo 1) \
  "a point alone gets 50 W x 6.25 s over its 3 runs"
ok $(near "$(field "$TMPD/A.points" 200 6)" 10.4166666667 && echo 0 || echo 1) "e_ci has the relative size of ci"
ok $([ "$(field "$TMPD/A.points" 100 samples)" = 25 ] && [ "$(field "$TMPD/A.points" 200 samples)" = 26 ] && echo 0 || echo 1) \
  "the number of samples within each span is recorded"
ok $(grep -q '^# energy: dynamic, imported from .*n1.csv, static power 100 W (given), attribution busy' "$TMPD/A.points" &&
     echo 0 || echo 1) "the file is labelled with the series and the static power"
ok $(grep -q 'host n1, static 100 W' "$TMPD/out" && echo 0 || echo 1) "the summary names the host and the static power"
"$FUPERMOD" model "$TMPD/A.points" >"$TMPD/model" 2>&1
ok $? "fupermod model reads the imported file"
reset
"$FUPERMOD" energy import "$TMPD/n1.csv" "$TMPD/A.points" "$TMPD/B.points" >"$TMPD/out" 2>"$TMPD/err"
ok $(grep -q 'static power 100 W (auto: mean of 109 samples outside the runs)' "$TMPD/A.points" &&
     near "$(field "$TMPD/A.points" 200 5)" 104.166666667 && echo 0 || echo 1) \
  "--static auto: the mean of the samples outside every run"
reset
"$FUPERMOD" energy import --static 90 "$TMPD/n1.csv" "$TMPD/A.points" "$TMPD/B.points" >/dev/null 2>&1
ok $(near "$(field "$TMPD/A.points" 200 5)" 125 && echo 0 || echo 1) "a lower static power leaves more dynamic energy"
printf '300 4 1 0 abandoned t_start=1010 t_end=1014 host=n1\n' >"$TMPD/F.points"
reset
"$FUPERMOD" energy import --static 100 "$TMPD/n1.csv" "$TMPD/A.points" "$TMPD/F.points" >/dev/null 2>"$TMPD/err"
ok $(near "$(field "$TMPD/A.points" 200 5)" 62.5 && grep -q '^300 4 1 0 abandoned t_start' "$TMPD/F.points" && echo 0 || echo 1) \
  "an abandoned run shares the node's energy (4 s of 10 s) but gets none"

# --- Kwollect JSON lines, ISO 8601 times with an offset; node n2's power rises 10 W/s from 100 W at
# T0 = 2024-01-01T12:00:00Z; a span [T0+0.5, T0+3.25] then holds 326.5625 J (interpolated ends)
T0=1704110400
printf '10 1 2 0.01 t_start=%s.5 t_end=%s.25 host=n2\n' "$T0" $((T0 + 3)) >"$TMPD/C0.points"
awk -v T0="$T0" 'BEGIN { for (s = -10; s <= 10; s++) {
  cmd = "date -u -d @" (T0 + s) " +%Y-%m-%dT%H:%M:%S"; cmd | getline iso; close(cmd)
  printf "{\"timestamp\": \"%s.000000+00:00\", \"device_id\": \"n2\", \"metric_id\": \"wattmetre_power_watt\", \"value\": %g, \"labels\": {\"_device_orig\": [\"wattmetre1-port3\"]}}\n", iso, 100 + 10 * s
  printf "{\"timestamp\": \"%sZ\", \"device_id\": \"n2\", \"metric_id\": \"bmc_node_power_watt\", \"value\": 500, \"labels\": {}}\n", iso } }' >"$TMPD/n2.json"
cp "$TMPD/C0.points" "$TMPD/C.points"
expect_exit 2 "a series with two metrics and no --metric" -- "$FUPERMOD" energy import --static 100 "$TMPD/n2.json" "$TMPD/C.points"
stderr_has "holds metrics wattmetre_power_watt and bmc_node_power_watt: choose one with --metric" "both metrics are named"
"$FUPERMOD" energy import --static 100 --metric wattmetre_power_watt "$TMPD/n2.json" "$TMPD/C.points" >/dev/null 2>"$TMPD/err"
ok $(near "$(field "$TMPD/C.points" 10 5)" 25.78125 && [ "$(field "$TMPD/C.points" 10 samples)" = 3 ] && echo 0 || echo 1) \
  "JSON lines, ISO times: (326.5625 J - 100 W x 2.75 s) / 2 runs, 3 samples inside"
cp "$TMPD/C0.points" "$TMPD/C.points"
"$FUPERMOD" energy import --static 100 --metric bmc_node_power_watt "$TMPD/n2.json" "$TMPD/C.points" >/dev/null 2>&1
ok $(near "$(field "$TMPD/C.points" 10 5)" 550 && echo 0 || echo 1) "--metric picks the other series (400 W x 2.75 s / 2)"
# the same samples as a JSON array (the Kwollect API's answer), with CET offsets written +0100
{ echo '['; grep wattmetre "$TMPD/n2.json" | sed 's/\.000000+00:00/+0000/; $!s/$/,/'; echo ']'; } >"$TMPD/n2a.json"
cp "$TMPD/C0.points" "$TMPD/C.points"
"$FUPERMOD" energy import --static 100 "$TMPD/n2a.json" "$TMPD/C.points" >/dev/null 2>"$TMPD/err"
ok $(near "$(field "$TMPD/C.points" 10 5)" 25.78125 && echo 0 || echo 1) "a JSON array of one metric needs no --metric"
# CSV with ISO times in another zone: the same instants
awk -v T0="$T0" 'BEGIN { for (s = -10; s <= 10; s++) {
  cmd = "TZ=Etc/GMT-1 date -d @" (T0 + s) " +%Y-%m-%dT%H:%M:%S%:z"; cmd | getline iso; close(cmd)
  printf "%s,n2,%g\n", iso, 100 + 10 * s } }' >"$TMPD/n2.csv"
cp "$TMPD/C0.points" "$TMPD/C.points"
"$FUPERMOD" energy import --static 100 "$TMPD/n2.csv" "$TMPD/C.points" >/dev/null 2>"$TMPD/err"
ok $(near "$(field "$TMPD/C.points" 10 5)" 25.78125 && echo 0 || echo 1) "CSV with ISO 8601 times and a +01:00 offset"

# --- gaps, missing hosts, bad lines, files without times
awk '$1 !~ /^100[2-7]/' "$TMPD/n1.csv" >"$TMPD/gap.csv" # no sample in (1001.75, 1008)
reset
expect_exit 1 "a gap of 6.25 s within a span, past --max-gap 5" -- "$FUPERMOD" energy import --static 100 "$TMPD/gap.csv" "$TMPD/A.points" "$TMPD/B.points"
stderr_has "[AB].points: d=100: the series of host n1 has a gap of 6.250 s \(1001.750 to 1008.000\)" "the point, host and gap are named"
ok $(cmp -s "$TMPD/A.points" "$TMPD/A0.points"; echo $?) "a failed import leaves the files as they were"
"$FUPERMOD" energy import --static 100 --max-gap 7 "$TMPD/gap.csv" "$TMPD/A.points" "$TMPD/B.points" >/dev/null 2>"$TMPD/err"
ok $? "the same gap is accepted under --max-gap 7"
printf '100 1 5 0.1 t_start=1000.5 t_end=1006.5 host=n3\n' >"$TMPD/D.points"
expect_exit 1 "a host with no sample" -- "$FUPERMOD" energy import --static 100 "$TMPD/n1.csv" "$TMPD/D.points"
stderr_has "D.points: host n3 \(d=100\) has no sample in .*n1.csv" "the host and the file are named"
printf '100 1 5 0.1 t_start=1020.5 t_end=1040 host=n1\n' >"$TMPD/D.points"
expect_exit 1 "a span beyond the series" -- "$FUPERMOD" energy import --static 100 "$TMPD/n1.csv" "$TMPD/D.points"
stderr_has "D.points: d=100 ran over \[1020.500, 1040.000\] but the series of host n1 covers \[990.000, 1030.000\] only" \
  "the point and the series' range are named"
printf '100 1 5 0.1\n200 2 3 0.1\n' >"$TMPD/E.points"
expect_exit 1 "a point file without times" -- "$FUPERMOD" energy import --static 100 "$TMPD/n1.csv" "$TMPD/E.points"
stderr_has "E.points: d=100 has no t_start, t_end and host: measure it with meter=external" "the file and the point are named"
printf '150 4 1 0 abandoned t_start=1010 t_end=1014\n200 2 3 0.2 t_start=1010 t_end=1016.25 host=n1\n' >"$TMPD/H.points"
reset
"$FUPERMOD" energy import --static 100 "$TMPD/n1.csv" "$TMPD/A.points" "$TMPD/H.points" >"$TMPD/out" 2>"$TMPD/err"
ok $(grep -q 'H.points: host n1' "$TMPD/out" && echo 0 || echo 1) \
  "a file whose first point is an abandoned span without a host takes the host of its next point"
printf '300 4 1 0 abandoned\n' >"$TMPD/G.points"
reset
expect_exit 1 "a file of abandoned sizes without times, beside one with" -- \
  "$FUPERMOD" energy import --static 100 "$TMPD/n1.csv" "$TMPD/A.points" "$TMPD/G.points"
stderr_has "G.points: no point has t_start, t_end and host: measure with meter=external" "the file is named"
sed '5s/.*/1000.5,n1,abc/' "$TMPD/n1.csv" >"$TMPD/bad.csv"
reset
expect_exit 1 "a malformed CSV line" -- "$FUPERMOD" energy import "$TMPD/bad.csv" "$TMPD/A.points"
stderr_has "bad.csv:5: watts 'abc' is not a number" "file and line are named"
sed '7s/.*/1000,n1/' "$TMPD/n1.csv" >"$TMPD/bad.csv"
expect_exit 1 "a CSV line with two fields" -- "$FUPERMOD" energy import "$TMPD/bad.csv" "$TMPD/A.points"
stderr_has "bad.csv:7: expected 'time,host,watts', got 2 fields" "file and line are named"
sed '3s/.*/2024-13-01T00:00:00Z,n1,100/' "$TMPD/n1.csv" >"$TMPD/bad.csv"
expect_exit 1 "a bad ISO time" -- "$FUPERMOD" energy import "$TMPD/bad.csv" "$TMPD/A.points"
stderr_has "bad.csv:3: time '2024-13-01T00:00:00Z' is neither UNIX seconds nor ISO 8601" "file and line are named"
sed '4s/"value": [0-9]*/"value": /' "$TMPD/n2.json" >"$TMPD/bad.json"
expect_exit 1 "malformed JSON" -- "$FUPERMOD" energy import --metric bmc_node_power_watt "$TMPD/bad.json" "$TMPD/C.points"
stderr_has "bad.json:4: malformed JSON" "file and line are named"
expect_exit 2 "no point file" -- "$FUPERMOD" energy import "$TMPD/n1.csv"
expect_exit 2 "a bad --static" -- "$FUPERMOD" energy import --static -3 "$TMPD/n1.csv" "$TMPD/A.points"
awk -F, 'NR == 1 || ($1 >= 1000.25 && $1 <= 1006.5)' "$TMPD/n1.csv" >"$TMPD/busy.csv"
grep '^100 ' "$TMPD/A0.points" >"$TMPD/A.points"
cp "$TMPD/B0.points" "$TMPD/B.points"
expect_exit 1 "--static auto without samples outside the runs" -- "$FUPERMOD" energy import "$TMPD/busy.csv" "$TMPD/A.points" "$TMPD/B.points"
stderr_has "series of host n1 has 0 samples outside the runs \\(2 needed\\)" "the host is named"

# --- a real build with meter=external on emulated kernels, then a series made for its spans
awk 'BEGIN { for (d = 10; d <= 3000; d += 10) printf "%d %.12g\n", d, d * 2e-4 }' >"$TMPD/dev0.points"
awk 'BEGIN { for (d = 10; d <= 3000; d += 10) printf "%d %.12g\n", d, d * 4e-4 }' >"$TMPD/dev1.points"
cat >"$TMPD/ext.conf" <<CONF
localhost 0 none cpu kernel=emulated,points=$TMPD/dev0.points,meter=external,meter_host=nodeA
localhost 1 none cpu kernel=emulated,points=$TMPD/dev1.points,meter=external,meter_host=nodeA
CONF
$MPI -np 2 "$FUPERMOD" build --conf "$TMPD/ext.conf" --data "$TMPD/b" --sizes 100,200,400 -r 2 -R 3 -q >"$TMPD/out" 2>"$TMPD/err"
ok $? "build with meter=external"
sed 's/^/# /' "$TMPD/err"
now=$(date +%s)
ok $(cat "$TMPD/b/localhost.0.points" "$TMPD/b/localhost.1.points" | awk -v now="$now" '!/^#/ {
  r = 0; for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2]; r += kv[1] == "rejected" }
  if (NF != 7 + r || v["host"] != "nodeA" || v["t_start"] < now - 600 || v["t_end"] > now + 1 || v["t_end"] - v["t_start"] < $2 * $3) bad = 1; n++ }
  END { exit !(n == 6 && !bad) }'; echo $?) "its points have no energy, and their runs' UNIX span and host"
ok $(grep -q '^# energy: dynamic, meter external (host nodeA; .*fupermod energy import' "$TMPD/b/localhost.0.points" &&
     grep -Eq '^ +1 +3 .* to import$' "$TMPD/out" && echo 0 || echo 1) "the file and the summary say the import fills the energies"
$MPI -np 2 "$FUPERMOD" build --conf "$TMPD/ext.conf" --data "$TMPD/b" --sizes 100,200,400,800 -r 2 -R 3 -q >/dev/null 2>"$TMPD/err"
ok $(grep -c '^800 ' "$TMPD/b/localhost.0.points" | grep -qx 1 && echo 0 || echo 1) "an interrupted external build resumes"
# 120 W idle, 200 W whenever a run of the node is under way; samples on every span's ends
cat "$TMPD/b/localhost.0.points" "$TMPD/b/localhost.1.points" | awk '!/^#/ { for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "t_start") s = kv[2]; if (kv[1] == "t_end") e = kv[2] } print s, e }' |
  sort -n >"$TMPD/spans"
awk 'NR == FNR { s[NR] = $1; e[NR] = $2; n = NR; next } END {
  lo = s[1] - 3; hi = 0; for (i = 1; i <= n; i++) if (e[i] > hi) hi = e[i]; hi += 3
  for (t = lo; t <= hi; t += 0.05) ts[++m] = t
  for (i = 1; i <= n; i++) { ts[++m] = s[i]; ts[++m] = e[i]; ts[++m] = s[i] - 1e-4; ts[++m] = e[i] + 1e-4 }
  for (k = 1; k <= m; k++) { r = 0; for (i = 1; i <= n; i++) if (ts[k] >= s[i] && ts[k] <= e[i]) r = 1; printf "%.7f,nodeA,%d\n", ts[k], r ? 200 : 120 } }' \
  "$TMPD/spans" /dev/null | sort -t, -k1,1n >"$TMPD/nodeA.csv"
"$FUPERMOD" energy import --static 120 "$TMPD/nodeA.csv" "$TMPD/b/localhost.0.points" "$TMPD/b/localhost.1.points" >"$TMPD/out" 2>"$TMPD/err"
ok $? "import for the build's points"
sed 's/^/# /' "$TMPD/err"
# expected: the pair at each size ran together; 80 W over their union, split by run time
# (repetitions rejected as outlying ran in the span too: they count among the runs)
ok $(awk '!/^#/ { rj = 0; for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2]; if (kv[1] == "rejected") rj = kv[2] }
  d = $1; f = FILENAME ~ /\.0\.points$/ ? 0 : 1; t[d, f] = $2; r[d, f] = $3 + rj; e[d, f] = $5; s[d, f] = v["t_start"]; x[d, f] = v["t_end"]; ds[d] = 1 }
  END { for (d in ds) { lo = s[d, 0] < s[d, 1] ? s[d, 0] : s[d, 1]; hi = x[d, 0] > x[d, 1] ? x[d, 0] : x[d, 1]
    dyn = 80 * (hi - lo); busy = t[d, 0] * r[d, 0] + t[d, 1] * r[d, 1]
    for (f = 0; f < 2; f++) { want = dyn * t[d, f] / busy; err = e[d, f] - want; if (err < 0) err = -err; if (err > 1e-3 * want) bad = 1; n++ } }
  exit !(n == 8 && !bad) }' "$TMPD/b/localhost.0.points" "$TMPD/b/localhost.1.points"; echo $?) \
  "each point's energy is 80 W over the pair's union, split by run time (within 0.1 %)"
ok $(awk '!/^#/ && $5 > 0 { n++ } END { exit n != 4 }' "$TMPD/b/localhost.0.points"; echo $?) "every point now has energy"
"$FUPERMOD" model "$TMPD/b/localhost.0.points" >"$TMPD/model" 2>&1
ok $(grep -q 'e (J)' "$TMPD/model" && echo 0 || echo 1) "fupermod model has the energy function"
"$FUPERMOD" partition -a hepopta -D 600 --json "$TMPD/b/localhost.0.points" "$TMPD/b/localhost.1.points" >"$TMPD/front.json" 2>"$TMPD/err"
ok $? "an energy partitioner runs on the imported energies"
expect_exit 1 "a point measured without energy joins an imported file" -- \
  $MPI -np 2 "$FUPERMOD" build --conf "$TMPD/ext.conf" --data "$TMPD/b" --sizes 100,200,400,800,1000 -r 2 -R 3 -q
stderr_has "localhost.[01].points: its points have energy but d=1000 was measured without" "the file and the size are named"
printf 'localhost 0 none cpu kernel=emulated,points=%s/dev0.points,meter=external,static_probe=1\n' "$TMPD" >"$TMPD/bad.conf"
expect_exit 1 "a static probe with the external meter" -- "$FUPERMOD" build --conf "$TMPD/bad.conf" --data "$TMPD/x" --sizes 10
stderr_has "bad.conf:1: static_probe: the external meter takes the static power at import" "the line and the reason are named"
done_testing
