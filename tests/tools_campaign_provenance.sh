#!/bin/bash
# fupermod campaign, issue 51: provenance in every result row, table, summary CSV and plot; a
# changed spec refused (--new starts afresh); {models} shared by partitioners and repetitions;
# distributions, Student-t intervals and Welch's verdicts; energies labelled ESTIMATE; plot names,
# removed partitioners, the dry run's np and partitioner names, and a lock left to a stray process.
. "$top_srcdir/tests/tap.sh"
cd "$TMPD" || exit 1
F=$FUPERMOD
yes_no() { if "$@"; then echo 0; else echo 1; fi; }
field() { awk -F, -v id="$2" -v k="$3" '$1 == id { print $k }' "$1"; }

# A stand-in for fupermod run: APP SIZE ALG REP DIR. It writes summary-APP.csv and report-APP.csv as
# fupermod run does, and labels its energy ESTIMATE in its output as fupermod run does for the model
# meter. Times: paraleph 1.1, 1.2, 1.3 s by repetition, dp the same distribution 1.2, 1.3, 1.4 s,
# hpopta 1.51, 1.52, 1.53 s on another distribution; even 2 s.
cat >fake.sh <<'EOF'
#!/bin/sh
app=$1 size=$2 alg=$3 rep=$4 dir=$5
case $alg in
  paraleph) t=1.$rep s="0.5 0.25 0.25" ;;
  dp) t=1.$((rep + 1)) s="0.5 0.25 0.25" ;;
  *) t=1.5$rep s="0.6 0.2 0.2" ;;
esac
echo "energy: model (ESTIMATE: 30 W x time)"
printf 'app,size,algorithm,time,energy,even_time,even_energy\n%s,%s,%s,%s,10,2,20\n' $app $size $alg $t >"$dir/summary-$app.csv"
{ echo 'app,n,distribution,rank,host,d,share'; i=0
  for x in $s; do echo "$app,$size,$alg,$i,h,1,$x"; i=$((i + 1)); done; } >"$dir/report-$app.csv"
[ -n "$LEFTOVER" ] && { sleep 3 & echo $! >"$LEFTOVER"; }
exit 0
EOF
chmod +x fake.sh
printf 'localhost 0 none cpu\nlocalhost 1 none cpu\nlocalhost 2 none cpu\n' >loc.conf
cat >p.txt <<'EOF'
apps = dgemm
sizes = 100
partitioners = paraleph, dp, hpopta
configs = loc.conf
repetitions = 3
command = ./fake.sh {app} {size} {partitioner} {rep} {dir} {models}
result = {dir}/summary-{app}.csv
EOF

# --- 1. provenance: a block per session, referenced by every row; the exact command per row
expect_exit 0 "a campaign" -- "$F" campaign run -q p.txt
pid=$(awk -F, '$1 == "dgemm-100-dp-loc-r2" { print $19 }' p.csv)
ok $([ -n "$pid" ] && [ "$(grep -v '^#' p.csv | tail -n +2 | cut -d, -f19 | sort -u)" = "$pid" ] && echo 0 || echo 1) "every row names its session's provenance block ($pid)"
has() { grep -q -- "$1" "$2" && echo 0 || echo 1; }
for k in date=20 fupermod= commit= host= cpu= gpu= mpi= blas= fftw= cuda=; do
  ok $(has "^# provenance $pid: $k" p.csv) "the block records $k"
done
ok $(has "^# provenance $pid: campaign=p.txt sha256=$(sha256sum p.txt | cut -d' ' -f1)" p.csv) "the campaign file's SHA-256"
ok $(has "^# provenance $pid: config=loc.conf sha256=$(sha256sum loc.conf | cut -d' ' -f1) hosts=localhost" p.csv) "the configuration's SHA-256 and hosts"
ok $(has '^# spec: [0-9a-f]\{64\}$' p.csv) "the spec's hash"
ok $(has '^# command template: ./fake.sh {app} {size} {partitioner} {rep} {dir} {models}$' p.csv) "the command template"
ok $([ "$(awk -F, '$1 == "dgemm-100-hpopta-loc-r3" { print $20 }' p.csv)" = '"./fake.sh dgemm 100 hpopta 3 p.runs/dgemm-100-hpopta-loc-r3 p.runs/models/dgemm-100-loc"' ] && echo 0 || echo 1) "the row's exact expanded command"
expect_exit 0 "summary" -- "$F" campaign summary p.txt
cp "$TMPD/out" sum.out
ok $(grep -q "^  # $pid: date=.*fupermod=.*commit=.*cpu=.*mpi=.*blas=.*fftw=.*cuda=.*config=loc.conf sha256=" sum.out && grep -q '^  # spec [0-9a-f]\{12\}: command ./fake.sh' sum.out && echo 0 || echo 1) "the table starts with its provenance block"
ok $([ "$(head -c 2 p-summary/summary.csv)" = '# ' ] && grep -q "^# $pid: date=" p-summary/summary.csv && grep -q ",$pid\$" p-summary/summary.csv && echo 0 || echo 1) "summary.csv: the provenance as comment lines, each row's session"
ok $(grep -q "set label 1 'spec [0-9a-f]\{12\}.n$pid: date=.*fupermod=.*commit=.*host=.*cpu=" p-summary/summary.gp && echo 0 || echo 1) "each plot's caption: spec, date, version, commit, host, CPU"

# --- 3. distributions, intervals, verdicts; identical distributions reported as one
ok $(grep -Eq '^  paraleph +3 +0 +1\.2 ±0\.25 +10 \|.*\| 50/25/25$' sum.out && echo 0 || echo 1) "mean 1.2 s, Student-t 95 % half-width 4.303 x 0.1 / sqrt 3 = 0.25; its distribution"
ok $(grep -Eq '^  dp +3 +0 +1\.3 ±0\.25 +10 \| same distribution as paraleph$' sum.out && echo 0 || echo 1) "dp: the same distribution as paraleph, no speedup of its own"
ok $(grep -q "^  time, Welch's t-test at 5 %: dp = paraleph (same distribution); paraleph faster than hpopta (p = 0.0[0-9]*)$" sum.out && echo 0 || echo 1) "the verdicts: same distribution; a significant difference with its p-value"
ok $(awk -F, '$4 == "dp" { exit !($23 == "paraleph" && $22 == "0.5;0.25;0.25") }' p-summary/summary.csv; echo $?) "summary.csv: shares and same_distribution_as"
ok $(grep -q "title 'paraleph = dp (same distribution)'" p-summary/summary.gp && ! grep -q "title 'dp'" p-summary/summary.gp && echo 0 || echo 1) "one line in the plots for the two"

# --- 4. energies of the model meter labelled ESTIMATE everywhere
ok $(grep -q 'energy (J, ESTIMATE)' sum.out && echo 0 || echo 1) "the table's energy column says ESTIMATE"
ok $(grep -v '^#' p-summary/summary.csv | head -1 | grep -q 'energy_estimate_J_mean' && echo 0 || echo 1) "summary.csv: energy_estimate_J columns"
ok $(grep -q "energy: ESTIMATE" p-summary/summary.gp && grep -q "ylabel 'energy saving (%), ESTIMATE'" p-summary/summary.gp && echo 0 || echo 1) "the energy plot says ESTIMATE"
ok $([ "$(field p.csv dgemm-100-paraleph-loc-r1 17)" = ESTIMATE ] && echo 0 || echo 1) "each row's energy_source"
# without the label in the output, the configuration's meter=model says it
printf 'localhost 0 none cpu meter=model,meter_power=30\n' >m.conf
sed -e 's/loc.conf/m.conf/' -e '/^repetitions/d' -e 's/^partitioners = .*/partitioners = hpopta/' -e 's/echo "energy/: "energy/' p.txt >m.txt
sed 's/echo "energy/: "energy/' fake.sh >fake2.sh && chmod +x fake2.sh && sed -i 's#./fake.sh#./fake2.sh#' m.txt
expect_exit 0 "a campaign on a model-meter configuration" -- "$F" campaign run -q m.txt
ok $([ "$(field m.csv dgemm-100-hpopta-m-r1 17)" = ESTIMATE ] && echo 0 || echo 1) "ESTIMATE from the configuration's meter"

# --- 2. a changed command refuses to mix; --new starts afresh, the old results kept aside
sed -i 's/{dir} {models}$/{dir} {models} --changed/' p.txt
expect_exit 1 "a rerun after the command changed" -- "$F" campaign run p.txt
stderr_has "p.csv: its 9 results were measured with another spec of p.txt; the command template changed \(it was './fake.sh .* \{models\}', it is now '.* --changed'\)" "names the file and what changed"
stderr_has 'run with --new to start a fresh p.csv .*or set output' "says what to do"
ok $([ "$(grep -vc '^#' p.csv)" -eq 10 ] && echo 0 || echo 1) "the old results untouched"
expect_exit 0 "--new" -- "$F" campaign run --new p.txt
stderr_has 'the old results are now p.old1.csv' "says where the old results went"
stderr_has '9 experiments, 0 done, 9 to run' "runs everything again"
ok $([ "$(grep -vc '^#' p.old1.csv)" -eq 10 ] && grep -q -- '--changed' p.csv && echo 0 || echo 1) "old and new results apart"
sed -i 's/ --changed$//' p.txt
mv p.old1.csv p.csv # the first results again, of the spec the campaign is back to
printf 'id,app,size,partitioner,config,np,rep,status,exit_code,wall_s,time,energy,even_time,even_energy,finished,extra\n' >old.csv
sed 's#^command = .*#&\noutput = old.csv#' p.txt >old.txt
expect_exit 1 "an output of fupermod before provenance" -- "$F" campaign run old.txt
stderr_has 'old.csv: written by an older fupermod campaign, without the spec' "refused, with what to do"

# --- 3. {models}: one directory per app, size and configuration
expect_exit 0 "dry run" -- "$F" campaign run --dry-run p.txt
ok $([ "$(cut -f3 "$TMPD/out" | awk '{ print $NF }' | sort -u)" = "p.runs/models/dgemm-100-loc" ] && echo 0 || echo 1) "{models}: the same directory for every partitioner and repetition"
ok $([ -d p.runs/models/dgemm-100-loc ] && echo 0 || echo 1) "created before the command runs"
ok $(grep -q -- '--models {models}' "$top_srcdir/configs/campaign-example.txt" && echo 0 || echo 1) "the example campaign shares its models across partitioners"

# --- 5. small defects
# the dry run of np = auto gives the number, or says why it cannot
sed 's#^command = .*#command = mpirun -np {np} ./fake.sh {app} {size} {partitioner} {rep} {dir}\noutput = np.csv#' p.txt >np.txt
expect_exit 0 "dry run, np = auto" -- "$F" campaign run --dry-run np.txt
ok $(grep -q 'mpirun -np 3 ./fake.sh' "$TMPD/out" && echo 0 || echo 1) "np = auto: the configuration's 3 processes"
sed -i 's/loc.conf/later.conf/' np.txt
expect_exit 0 "dry run, np = auto of a configuration not there yet" -- "$F" campaign run --dry-run np.txt
ok $(grep -q 'mpirun -np <np: the processes of later.conf, not readable now> ./fake.sh' "$TMPD/out" && echo 0 || echo 1) "a placeholder that says why"
# partitioners checked against the registry when the command is fupermod run's
printf '%s\n' "apps = dgemm" "sizes = 64" "partitioners = paraleph, parallel" "configs = loc.conf" \
  "command = fupermod run --conf {config} --algorithm {partitioner} --out {dir}" >reg.txt
expect_exit 1 "an unknown partitioner" -- "$F" campaign run --dry-run reg.txt
stderr_has "reg.txt:3: partitioners: 'parallel' is not a partitioner that fupermod run knows \(the registry has: .*paraleph" "file, line, name and the valid ones"
sed -i 's/parallel/hpopta/' reg.txt
expect_exit 0 "registered partitioners" -- "$F" campaign run --dry-run reg.txt
# results of a partitioner removed from the campaign stay in the CSV, not in the tables
sed -i 's/^partitioners = .*/partitioners = paraleph, hpopta/' p.txt
expect_exit 0 "summary after dp was removed" -- "$F" campaign summary p.txt
ok $(! grep -q '^  dp ' "$TMPD/out" && grep -q '3 results of experiments no longer in p.txt left out' "$TMPD/out" && echo 0 || echo 1) "dp left out of the tables, and counted"
# plots named by the configuration's tag, not its file name
cp loc.conf two.conf
sed -i 's/^configs = .*/configs = loc.conf, two.conf/' p.txt
expect_exit 0 "a second configuration" -- "$F" campaign run -q p.txt
expect_exit 0 "summary of two configurations" -- "$F" campaign summary p.txt
ok $(grep -q "set output 'p-summary/speedup-dgemm-loc.png.tmp'" p-summary/summary.gp && ! grep -q 'loc.conf.png' p-summary/summary.gp && echo 0 || echo 1) "speedup-dgemm-loc.png, as documented"
# an experiment that leaves a process behind does not leave the lock to it
sed -i 's/^repetitions = .*/repetitions = 4/' p.txt
LEFTOVER=$TMPD/leftover.pid expect_exit 0 "an experiment leaves a process running" -- "$F" campaign run -q p.txt
expect_exit 0 "the next run at once" -- "$F" campaign run p.txt
ok $(! grep -q 'locked by another run' "$TMPD/err" && echo 0 || echo 1) "no wait for a lock that no run holds"
kill "$(cat leftover.pid)" 2>/dev/null
done_testing
