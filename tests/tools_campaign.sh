#!/bin/bash
# fupermod campaign: the cross product run over a fake command, a run killed and restarted (every
# result exactly once), --retry-failed, timeouts, the summary's numbers and plots, bad campaign
# files, and OAR and Slurm scripts (syntax, directives, and a run in a faked allocation).
. "$top_srcdir/tests/tap.sh"
cd "$TMPD" || exit 1
F=$FUPERMOD
yes_no() { if "$@"; then echo 0; else echo 1; fi; }
# the result rows of a campaign's CSV: neither the provenance lines ('#') nor the header
rows() { grep -v '^#' "$1" | tail -n +2; }
# every line whole: 20 fields (the commands here have no comma) and a final newline
whole_lines() { awk -F, '!/^#/ && NF != 20 { bad = 1 } END { exit bad }' "$1" && [ "$(tail -c1 "$1" | od -An -c | tr -d ' ')" = '\n' ]; }
# the ids of the CSV are those of the campaign, each once
ids_once() { diff <("$F" campaign run --dry-run "$1" 2>/dev/null | cut -f1 | sort) <(rows "$2" | cut -d, -f1 | sort) >/dev/null; }
field() { awk -F, -v id="$2" -v k="$3" '$1 == id { print $k }' "$1"; } # field CSV ID COLUMN

# The fake experiment: APP SIZE ALG REP NP DIR. time = SIZE/1000 x (even 2, paraleph 1, hepopta 1.25),
# x 1.5 from the second repetition; energy: even 100, paraleph 80, hepopta 50 J. hepopta fails while
# $TMPD/flaky exists; 'slow' sleeps 30 s; 'silent' writes no result.
cat >fake.sh <<EOF
#!/bin/bash
app=\$1 size=\$2 alg=\$3 rep=\$4 np=\$5 dir=\$6
sleep \${FAKE_SLEEP:-0.01}
[ \$alg = hepopta ] && [ -e "$TMPD/flaky" ] && { echo "hepopta: flaky" >&2; exit 3; }
[ \$alg = slow ] && sleep 30
[ \$alg = silent ] && exit 0
case \$alg in even) f=2 e=100 ;; paraleph) f=1 e=80 ;; *) f=1.25 e=50 ;; esac
t=\$(awk -v s=\$size -v f=\$f -v r=\$rep 'BEGIN { print s / 1000 * f * (r == 1 ? 1 : 1.5) }')
printf 'app,size,algorithm,time,energy,host\n%s,%s,%s,%s,%s,node-%s\n' \$app \$size \$alg \$t \$e \$np >"\$dir/result.csv"
EOF
chmod +x fake.sh
cat >c.txt <<'EOF'
# a test campaign: 2 apps x 2 sizes x 3 partitioners x 1 config x 2 repetitions = 24 experiments
apps = dgemm, fft
sizes = 1000, 2000
partitioners = even, paraleph, hepopta
configs = configs/a.conf   # np is fixed, so the file need not exist
np = 4
repetitions = 2
command = ./fake.sh {app} {size} {partitioner} {rep} {np} \
          {dir}
output = res/c.csv
EOF

# --- a full run
expect_exit 0 "full run" -- "$F" campaign run c.txt
ok $([ "$(rows res/c.csv | wc -l)" -eq 24 ] && echo 0 || echo 1) "24 rows: 2 apps x 2 sizes x 3 partitioners x 2 repetitions"
ok $(yes_no ids_once c.txt res/c.csv) "each experiment once"
ok $(yes_no whole_lines res/c.csv) "every row whole"
ok $([ "$(field res/c.csv dgemm-1000-paraleph-a-r2 11)" = 1.5 ] && [ "$(field res/c.csv dgemm-1000-paraleph-a-r2 6)" = 4 ] && echo 0 || echo 1) "the row carries the result's time and np"
ok $([ "$(field res/c.csv fft-2000-even-a-r1 16)" = "host=node-4" ] && echo 0 || echo 1) "extra result columns kept as key=value"
ok $([ "$(grep -v '^#' res/c.csv | head -1 | cut -d, -f1)" = id ] && [ "$(rows res/c.csv | sed -n 1p | cut -d, -f1)" = dgemm-1000-even-a-r1 ] && [ "$(rows res/c.csv | sed -n 3p | cut -d, -f1)" = dgemm-1000-hepopta-a-r1 ] && echo 0 || echo 1) "deterministic order, partitioner innermost"
stderr_has '\[24/24\] fft-2000-hepopta-a-r2.*ok' "progress line per experiment (k of N)"
stderr_has 'about [0-9]+:[0-9]{2}:[0-9]{2}' "progress gives an estimate"
ok $(grep -q 'fake.sh dgemm 1000 even 1 4 res/c.runs/dgemm-1000-even-a-r1' res/c.runs/dgemm-1000-even-a-r1/log && echo 0 || echo 1) "placeholders expanded, the command logged"
expect_exit 0 "a rerun of a finished campaign" -- "$F" campaign run c.txt
stderr_has '24 done, 0 to run' "runs nothing"
ok $([ "$(grep -vc '^#' res/c.csv)" -eq 25 ] && echo 0 || echo 1) "and adds nothing"

# --- the summary: numbers on known inputs (dgemm 1000: even 2 and 3 s, paraleph 1 and 1.5 s)
expect_exit 0 "summary" -- "$F" campaign summary c.txt
S=res/c-summary/summary.csv
row() { awk -F, -v a="$1" -v s="$2" -v p="$3" '$1 == a && $2 == s && $4 == p' "$S"; }
ok $(row dgemm 1000 paraleph | awk -F, '{ exit !($5 == 2 && $7 == 1 && $8 == 1.25 && $9 == 1.5 && $11 == 80 && $13 > 1.6666 && $13 < 1.6667 && $14 > 2.0833 && $14 < 2.0834 && $15 == 2.5) }'; echo $?) "speedup = even mean / time: min 1.667 mean 2.083 max 2.5"
ok $(row dgemm 1000 hepopta | awk -F, '{ exit !($16 == 0.5 && $17 == 0.5 && $18 == 0.5) }'; echo $?) "energy saving = 1 - energy / even energy = 50%"
ok $(row fft 2000 even | awk -F, '{ exit !($14 > 1.0416 && $14 < 1.0417 && $17 == 0) }'; echo $?) "even against its own mean: (5/4 + 5/6) / 2"
ok $(grep -Eq '^  paraleph +2 +0 +1\.25 ±3\.2 +80 \| +1\.667 +2\.083 ±5\.29[0-9] +2\.500 \| +20\.0% +20\.0% +20\.0%' "$TMPD/out" && echo 0 || echo 1) "table row: ok, fail, time, energy, speedup and saving min/mean/max"
ok $(grep -q '^dgemm, size 2000' "$TMPD/out" && echo 0 || echo 1) "one table per app and size"
if command -v gnuplot >/dev/null 2>&1; then
  ok $([ -s res/c-summary/speedup-dgemm.png ] && [ -s res/c-summary/energy-saving-fft.png ] && ! ls res/c-summary/*.tmp* >/dev/null 2>&1 && echo 0 || echo 1) "speedup and energy saving plots, no temporaries"
else
  ok $([ -s res/c-summary/summary.gp ] && echo 0 || echo 1) "gnuplot absent: the plot script is left"
fi
expect_exit 0 "summary of the CSV itself, into a chosen directory" -- "$F" campaign summary -o sum2 res/c.csv
ok $(cmp -s sum2/summary.csv "$S" && echo 0 || echo 1) "same table"

# --- killed with SIGKILL in the middle, then restarted
rm -rf res
FAKE_SLEEP=0.1 "$F" campaign run -q c.txt 2>/dev/null &
pid=$!
for i in $(seq 200); do [ "$(rows res/c.csv 2>/dev/null | wc -l)" -ge 7 ] && break; sleep 0.05; done
{ kill -9 $pid; wait $pid; } 2>/dev/null
n=$(rows res/c.csv | wc -l)
ok $([ "$n" -ge 7 ] && [ "$n" -lt 24 ] && echo 0 || echo 1) "killed (-9) after $n of 24 experiments"
sleep 0.3
expect_exit 0 "restarted" -- "$F" campaign run c.txt
stderr_has "$n done, $((24 - n)) to run" "skips the $n experiments already done"
ok $(yes_no ids_once c.txt res/c.csv) "every experiment exactly once after the restart"
ok $(yes_no whole_lines res/c.csv) "no partial line"

# --- interrupted with SIGTERM: the running experiment is stopped and not recorded
rm -rf res
FAKE_SLEEP=0.2 "$F" campaign run -q c.txt 2>"$TMPD/term.err" &
pid=$!
for i in $(seq 200); do [ "$(rows res/c.csv 2>/dev/null | wc -l)" -ge 3 ] && break; sleep 0.05; done
sleep 0.1
kill -TERM $pid
wait $pid
rc=$?
n=$(rows res/c.csv | wc -l)
ok $([ $rc -eq 143 ] && grep -q 'interrupted (signal 15)' "$TMPD/term.err" && echo 0 || echo 1) "SIGTERM: exit 143 after $n experiments, says so"
ok $(yes_no whole_lines res/c.csv) "no partial line after SIGTERM"
expect_exit 0 "restarted after SIGTERM" -- "$F" campaign run c.txt
ok $(yes_no ids_once c.txt res/c.csv) "every experiment exactly once"

# --- a torn last line (a crash during the write) is dropped and its experiment run again
head -c -40 res/c.csv >torn.csv && mv torn.csv res/c.csv
expect_exit 0 "restart over a torn last line" -- "$F" campaign run c.txt
stderr_has 'dropping a torn last line' "says so"
ok $(yes_no ids_once c.txt res/c.csv) "every experiment exactly once"
ok $(yes_no whole_lines res/c.csv) "every row whole"

# --- two runners on one output: the second waits 15 s for the lock, then refuses
sed -i '/dgemm-1000-even-a-r1/d' res/c.csv
rm -rf res/c.runs/dgemm-1000-even-a-r1
FAKE_SLEEP=60 "$F" campaign run -q c.txt 2>/dev/null &
pid=$!
for i in $(seq 200); do [ -e res/c.runs/dgemm-1000-even-a-r1/log ] && break; sleep 0.05; done
expect_exit 1 "a second runner on the same output" -- "$F" campaign run c.txt
stderr_has 'locked by another run; waiting up to 15 s' "waits for it first"
stderr_has 'another .fupermod campaign run. is writing it' "names the lock"
kill -TERM $pid
wait $pid

# --- failures: recorded with their exit code, retried only with --retry-failed
rm -rf res
touch flaky
expect_exit 1 "a campaign with failing experiments" -- "$F" campaign run -q c.txt
ok $([ "$(grep -c ',failed,3,' res/c.csv)" -eq 8 ] && echo 0 || echo 1) "8 rows with status failed, exit code 3"
stderr_has '8 of 24 experiments did not succeed.*--retry-failed' "the failures counted, the way to retry given"
ok $(grep -q 'hepopta: flaky' res/c.runs/fft-1000-hepopta-a-r1/log && echo 0 || echo 1) "the command's stderr is in the experiment's log"
rm flaky
expect_exit 1 "without --retry-failed they stay" -- "$F" campaign run c.txt
stderr_has '24 done, 0 to run' "nothing run"
expect_exit 0 "--retry-failed" -- "$F" campaign run --retry-failed c.txt
stderr_has '16 done, 8 to run' "runs the 8 failed ones"
ok $(yes_no ids_once c.txt res/c.csv) "each experiment once after the retry"
ok $([ "$(grep -c ',ok,' res/c.csv)" -eq 24 ] && [ "$(tail -n +2 res/c.csv.retried | wc -l)" -eq 8 ] && echo 0 || echo 1) "all ok; the failed rows kept in c.csv.retried"

# --- timeout, no result, malformed result, a result with several rows (like fupermod run's)
cat >t.txt <<'EOF'
apps = x
sizes = 10
partitioners = slow, silent, paraleph
configs = a.conf
np = 1
command = ./fake.sh {app} {size} {partitioner} 1 {np} {dir}
EOF
expect_exit 1 "timeout and missing result" -- "$F" campaign run --timeout 0.5 t.txt
ok $([ "$(field t.csv x-10-slow-a-r1 8)" = timeout ] && awk -F, '$1 == "x-10-slow-a-r1" { exit !($10 < 10) }' t.csv && echo 0 || echo 1) "the slow one stopped at the timeout"
ok $([ "$(field t.csv x-10-silent-a-r1 8)" = noresult ] && grep -q 'no result: .*result.csv' t.runs/x-10-silent-a-r1/log && echo 0 || echo 1) "exit 0 without a result file: noresult, the reason in the log"
ok $([ "$(field t.csv x-10-paraleph-a-r1 8)" = ok ] && echo 0 || echo 1) "the good one ok"
cat >multi.sh <<'EOF'
#!/bin/sh
{ printf 'app,size,algorithm,time,energy,even_time,even_energy,pred_time\n'
  if [ $1 = bad ]; then printf 'bad,10,paraleph,x,1,1,1,1\n'
  else printf '%s,10,paraleph,2,40,8,50,1.9\n%s,10,paraleph-energy,3,30,8,50,2.9\n' $1 $1; fi
} >"$2/r.csv"
EOF
chmod +x multi.sh
cat >m.txt <<'EOF'
apps = dgemm, bad
sizes = 10
partitioners = paraleph
configs = a.conf
np = 2
command = ./multi.sh {app} {dir}
result = {dir}/r.csv
EOF
expect_exit 1 "results with several rows; one malformed" -- "$F" campaign run m.txt
ok $([ "$(field m.csv dgemm-10-paraleph-a-r1 11)" = 2 ] && [ "$(field m.csv dgemm-10-paraleph-a-r1 13)" = 8 ] && [ "$(field m.csv dgemm-10-paraleph-a-r1 16)" = pred_time=1.9 ] && echo 0 || echo 1) "the row of the experiment's algorithm, with even_time"
ok $([ "$(field m.csv bad-10-paraleph-a-r1 8)" = noresult ] && grep -q "r.csv:2: time 'x' must be a number > 0" m.runs/bad-10-paraleph-a-r1/log && echo 0 || echo 1) "a malformed result: noresult, file and line in the log"
expect_exit 0 "summary with even_time from the results (no even runs)" -- "$F" campaign summary m.txt
ok $(grep -Eq '^  paraleph +1 +0 +2 ±- +40 \| +4\.000 +4\.000 ±- +4\.000 \| +20\.0%' "$TMPD/out" && echo 0 || echo 1) "speedup 8/2 = 4, energy saving 1 - 40/50 = 20%"

# --- np = auto counts the configuration's processes
mkdir -p configs
printf 'localhost 0 none cpu\nlocalhost 1 none cpu\nlocalhost 2 none cpu\n' >configs/three.conf
sed -e 's/^np = 4/np = auto/' -e 's#configs/a.conf.*#configs/three.conf#' -e 's#res/c.csv#auto.csv#' -e 's/^apps = .*/apps = x/' -e 's/^sizes = .*/sizes = 10/' c.txt >auto.txt
expect_exit 0 "np = auto" -- "$F" campaign run auto.txt
ok $([ "$(field auto.csv x-10-even-three-r1 6)" = 3 ] && echo 0 || echo 1) "np is the configuration's 3 processes"
sed 's#three.conf#none.conf#' auto.txt >auto2.txt
expect_exit 1 "np = auto with a missing configuration" -- "$F" campaign run auto2.txt
stderr_has 'auto2.txt:[0-9]+: np = auto counts the processes of .*none.conf' "names the campaign line and the configuration"

# --- template rules: \# is a literal #, {{ a literal brace, ${VAR} is the shell's
printf '%s\n' "apps = x" "sizes = 7" "partitioners = p" "configs = k.conf" \
  'command = echo {app} {{lit}} ${HOME:-h} \# not a comment # a comment' >tpl.txt
expect_exit 0 "dry run" -- "$F" campaign run --dry-run tpl.txt
ok $([ "$(cat "$TMPD/out")" = "$(printf 'x-7-p-k-r1\ttodo\techo x {lit} ${HOME:-h} # not a comment')" ] && [ ! -e tpl.csv ] && echo 0 || echo 1) "expanded as documented; nothing run"

# --- bad campaign files and usage
bad() { # bad DESCRIPTION PATTERN LINES...: the campaign file with these lines is refused
  local desc=$1 pat=$2
  shift 2
  printf '%s\n' "$@" >bad.txt
  expect_exit 1 "$desc" -- "$F" campaign run bad.txt
  stderr_has "$pat" "$desc: file and line named"
}
base=("apps = a" "sizes = 1" "partitioners = p" "configs = c.conf" "command = true")
bad "unknown key" "bad.txt:6: unknown key 'sizez'" "${base[@]}" "sizez = 2"
bad "unknown placeholder" "bad.txt:5: command: unknown placeholder '\{sz\}'" "${base[@]:0:4}" "command = run {sz}"
bad "unclosed brace" "bad.txt:5: command: '\{' without a closing" "${base[@]:0:4}" "command = run {app"
bad "empty list item" "bad.txt:2: sizes: empty item" "apps = a" "sizes = 1, , 2" "${base[@]:2}"
bad "empty value" "bad.txt:1: apps has no value" "apps =" "${base[@]:1}"
bad "bad number" "bad.txt:6: repetitions: 'two' must be an integer" "${base[@]}" "repetitions = two"
bad "size zero" "bad.txt:2: sizes: '0' must be an integer in 1\.\." "apps = a" "sizes = 0" "${base[@]:2}"
bad "duplicate item" "bad.txt:3: partitioners: 'p' is listed twice" "${base[@]:0:2}" "partitioners = p, q, p" "${base[@]:3}"
bad "key set twice" "bad.txt:6: apps is already set on line 1" "${base[@]}" "apps = b"
bad "not key = value" "bad.txt:6: expected 'key = value'" "${base[@]}" "just words"
bad "shell characters in a value" "bad.txt:1: apps: 'a;rm' has a character outside" "apps = a;rm" "${base[@]:1}"
bad "np count" "bad.txt:6: np lists 2 values for 1 configs" "${base[@]}" "np = 2, 3"
bad "walltime" "bad.txt:6: walltime: '1:75' must be H:MM:SS" "${base[@]}" "walltime = 1:75"
bad "unknown cluster" "bad.txt:6: cluster: 'pbs' must be oar or slurm" "${base[@]}" "cluster = pbs"
bad "missing key" "bad.txt: no 'command = ...' line" "${base[@]:0:4}"
bad "a continuation with nothing after it" "bad.txt:6: the last line ends with" "${base[@]}" 'np = 1 \'
bad "two configs, one name" "configs 'x/c.conf' and 'y/c.conf' have the same name" "${base[@]:0:3}" "configs = x/c.conf, y/c.conf" "command = true"
expect_exit 1 "missing campaign file" -- "$F" campaign run nothere.txt
stderr_has 'nothere.txt: No such file' "file named"
printf 'id,app\n' >bogus.csv
expect_exit 1 "summary of a CSV that is not a campaign's" -- "$F" campaign summary bogus.csv
stderr_has 'bogus.csv:1: not a campaign result file' "file and line named"
r5=$(grep -n ',ok,' res/c.csv | sed -n 4p | cut -d: -f1)
cp res/c.csv broken.csv && sed -i "${r5}s/,ok,/,ok,,/" broken.csv
expect_exit 1 "a row with a field too many" -- "$F" campaign summary broken.csv
stderr_has "broken.csv:$r5: wrong number of fields" "file and line named"
r3=$(grep -n ',paraleph,' res/c.csv | sed -n 1p | cut -d: -f1)
cp res/c.csv quote.csv && sed -i "${r3}s/,paraleph,/,para'leph,/" quote.csv
expect_exit 1 "a hand-edited name that would break the plot script" -- "$F" campaign summary quote.csv
stderr_has "quote.csv:$r3: partitioner 'para'leph' is empty or has a character outside" "file and line named"
expect_exit 2 "no action" -- "$F" campaign
expect_exit 2 "unknown action" -- "$F" campaign go c.txt
expect_exit 2 "unknown option" -- "$F" campaign run --fast c.txt
expect_exit 2 "bad --timeout" -- "$F" campaign run --timeout -1 c.txt
expect_exit 0 "help" -- "$F" campaign --help

# --- batch scripts
cat >cl.txt <<'EOF'
name = g5k-test
apps = dgemm
sizes = 1000
partitioners = even, paraleph
configs = cluster.conf
command = $FUPERMOD_MPIRUN -np {np} ./fake.sh {app} {size} {partitioner} 1 {np} {dir}
cluster = oar
nodes = 2
cores_per_node = 4
walltime = 1:30
queue = production
project = myproj
properties = cluster='gros'
constraint = haswell
cluster_config = cluster.conf
config_subopts = kernel=dgemm
setup = export FAKE_SLEEP=0.01
EOF
expect_exit 0 "OAR script" -- "$F" campaign script -o job.oar cl.txt
stderr_has 'nothing was submitted' "says it submitted nothing"
ok $(bash -n job.oar && [ -x job.oar ] && echo 0 || echo 1) "OAR script: bash -n, executable"
ok $(grep -qx '#OAR -l nodes=2/core=4,walltime=01:30:00' job.oar && echo 0 || echo 1) "OAR: resources and walltime HH:MM:SS"
ok $(grep -qx '#OAR -n g5k-test' job.oar && grep -qx '#OAR -q production' job.oar && grep -qx "#OAR -p \"cluster='gros'\"" job.oar && grep -qx '#OAR --project myproj' job.oar && grep -qx '#OAR -O g5k-test.%jobid%.out' job.oar && grep -qx '#OAR -E g5k-test.%jobid%.err' job.oar && echo 0 || echo 1) "OAR: name, queue, properties, project, output files"
ok $(grep -q 'OAR_NODEFILE' job.oar && grep -q "fupermod config -o 'cluster.conf' -s 'kernel=dgemm'" job.oar && grep -q "fupermod campaign run '$(pwd -P)/cl.txt'" job.oar && grep -q 'plm_rsh_agent oarsh' job.oar && echo 0 || echo 1) "OAR: hostfile from OAR_NODEFILE, fupermod config, campaign run"
expect_exit 0 "Slurm script to stdout" -- "$F" campaign script --slurm cl.txt
cp "$TMPD/out" job.slurm
ok $(bash -n job.slurm && echo 0 || echo 1) "Slurm script: bash -n"
ok $(grep -qx '#SBATCH --nodes=2' job.slurm && grep -qx '#SBATCH --ntasks-per-node=4' job.slurm && grep -qx '#SBATCH --time=01:30:00' job.slurm && echo 0 || echo 1) "Slurm: nodes, tasks per node, time"
ok $(grep -qx '#SBATCH --job-name=g5k-test' job.slurm && grep -qx '#SBATCH --partition=production' job.slurm && grep -qx '#SBATCH --account=myproj' job.slurm && grep -qx '#SBATCH --constraint="haswell"' job.slurm && grep -qx '#SBATCH --output=g5k-test.%j.out' job.slurm && echo 0 || echo 1) "Slurm: job name, partition, account, constraint, output"
ok $(grep -q 'scontrol show hostnames "$SLURM_JOB_NODELIST"' job.slurm && grep -q "fupermod config -o 'cluster.conf'" job.slurm && grep -q "fupermod campaign run '$(pwd -P)/cl.txt'" job.slurm && echo 0 || echo 1) "Slurm: hostfile from the allocation, fupermod config, campaign run"
ok $(! grep -q '^#OAR' job.slurm && ! grep -q '^#SBATCH' job.oar && echo 0 || echo 1) "each script has only its scheduler's directives"
# run both in a faked allocation: mpirun, scontrol and fupermod stand-ins on PATH
mkdir -p bin
cat >bin/mpirun <<'EOF'
#!/bin/bash
echo "mpirun $*" >>"$FAKE_LOG"
np=1 hosts=
while [ $# -gt 0 ]; do
  case $1 in
    --mca) shift 3 ;;
    --hostfile) hosts=$2; shift 2 ;;
    -np) np=$2; shift 2 ;;
    *) break ;;
  esac
done
if [ "$1 $2" = "fupermod config" ]; then # as the real job would: one line per slot of the hostfile
  awk '{ n = $2; sub("slots=", "", n); for (i = 0; i < n; i++) print $1, i, "none cpu" }' "$hosts" >"$4"
  exit 0
fi
exec "$@"
EOF
printf '#!/bin/sh\necho "node-1"; echo "node-2"\n' >bin/scontrol
printf '#!/bin/sh\nexec "%s" "$@"\n' "$F" >bin/fupermod
chmod +x bin/*
printf 'gros-1\ngros-1\ngros-1\ngros-1\ngros-2\ngros-2\ngros-2\ngros-2\n' >nodefile
FAKE_LOG=$TMPD/mpirun.log PATH=$TMPD/bin:$PATH OAR_NODEFILE=$TMPD/nodefile OAR_JOB_ID=77 bash job.oar >oar.out 2>oar.err
ok $? "the OAR script runs in a faked OAR job"
ok $(printf 'gros-1 slots=4\ngros-2 slots=4\n' | cmp -s - g5k-test.77.hosts && echo 0 || echo 1) "hostfile: unique hosts with their slots"
ok $([ "$(wc -l <cluster.conf)" -eq 8 ] && grep -q 'plm_rsh_agent oarsh --hostfile .*g5k-test.77.hosts -np 8 fupermod config' mpirun.log && echo 0 || echo 1) "the configuration generated on the 8 reserved cores"
ok $([ "$(grep -c ',ok,' g5k-test.csv)" -eq 2 ] && [ "$(field g5k-test.csv dgemm-1000-paraleph-cluster-r1 6)" = 8 ] && grep -q -- '-np 8 ./fake.sh' mpirun.log && echo 0 || echo 1) "the campaign ran with np = 8 through the job's launcher"
rm -f g5k-test.csv mpirun.log cluster.conf
FAKE_LOG=$TMPD/mpirun.log PATH=$TMPD/bin:$PATH SLURM_JOB_NODELIST='node-[1-2]' SLURM_NTASKS_PER_NODE=4 SLURM_JOB_ID=78 bash job.slurm >slurm.out 2>slurm.err
ok $? "the Slurm script runs in a faked allocation"
ok $(printf 'node-1 slots=4\nnode-2 slots=4\n' | cmp -s - g5k-test.78.hosts && [ "$(wc -l <cluster.conf)" -eq 8 ] && [ "$(grep -c ',ok,' g5k-test.csv)" -eq 2 ] && echo 0 || echo 1) "Slurm: hostfile, configuration and campaign"
sed -i '/^nodes = /d' cl.txt
expect_exit 1 "a script without nodes" -- "$F" campaign script --oar cl.txt
stderr_has 'cl.txt: an OAR script needs nodes = N' "says what is missing"
sed -i '/^cluster = /d' cl.txt
expect_exit 2 "no scheduler" -- "$F" campaign script cl.txt
stderr_has 'say --oar or --slurm' "says how to choose"
done_testing
