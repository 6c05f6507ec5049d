#!/bin/bash
# A catalogue of the mistakes a newcomer makes (issue: "a newcomer's first day"): misspelt and
# malformed sub-options of every family (kernel, executor, meter), configuration lines, a job with
# fewer processes than lines, subcommands and their options, point files, campaign specs. Each
# must end with a non-zero exit, exactly one message from fupermod that names the input and says
# what to do, and nothing that looks like a result: no standard output, no file written.
. "$top_srcdir/tests/tap.sh"
MPI="$MPIEXEC -q --oversubscribe --bind-to none"
W="$TMPD/work"
mkdir -p "$W"
awk 'BEGIN { for (d = 10; d <= 100; d += 10) printf "%d %.9g 1 0\n", d, d * 1e-5 }' >"$W/a.points"
awk 'BEGIN { for (d = 10; d <= 100; d += 10) printf "%d %.9g 1 0\n", d, d * 2e-5 }' >"$W/b.points"
printf '10 1e-4 1 0\nabc def\n' >"$W/bad.points"
B="-q -L 10 -U 20 -s 2 --data out"

# mistake DESCRIPTION REGEX -- COMMAND...: run in $W; REGEX must match fupermod's one message
n=0
mistake() {
  local desc=$1 re=$2 rc msgs new
  shift 3
  n=$((n + 1))
  touch "$TMPD/mark"
  sleep 0.01
  (cd "$W" && "$@") >"$TMPD/out" 2>"$TMPD/err"
  rc=$?
  msgs=$(grep -c '^fupermod' "$TMPD/err")
  new=$(cd "$W" && find . -newer "$TMPD/mark" ! -type d | head -3 | tr '\n' ' ')
  if [ $rc -ne 0 ] && [ "$msgs" -eq 1 ] && grep '^fupermod' "$TMPD/err" | grep -Eq -- "$re" && [ ! -s "$TMPD/out" ] &&
    [ -z "$new" ] && [ ! -e "$W/out" ]; then
    ok 0 "$n. $desc: exit $rc, '$(grep '^fupermod' "$TMPD/err" | cut -c1-160)'"
  else
    ok 1 "$n. $desc: exit $rc, $msgs messages from fupermod, stdout $(wc -c <"$TMPD/out") bytes, new files '$new'"
    sed 's/^/# stderr: /' "$TMPD/err" | head -20
  fi
  rm -rf "$W/out"
}
# conf LINE...: the configuration c.conf of these lines (a one-line configuration runs without
# mpirun, as a singleton MPI process: as a newcomer may start it, and 2 s faster than mpirun)
conf() { printf '%s\n' "$@" >"$W/c.conf"; }

# --- sub-options: kernel, executor, meter ---
conf "localhost 0 none cpu kernel=dgemm,b=64,treads=2"
mistake "a misspelt kernel sub-option (built-in kernel)" "c\.conf:1: unknown sub-option 'treads' \(did you mean 'threads'\?\)" -- \
  "$FUPERMOD" build --conf c.conf $B
conf "localhost 0 none cpu kernel=dgemm-rows,nn=2048"
mistake "a misspelt kernel sub-option (row kernel)" "c\.conf:1: unknown sub-option 'nn' \(did you mean 'n'\?\); known here: .*\bn\b" -- \
  "$FUPERMOD" build --conf c.conf $B
conf "localhost 0 none cpu kernel=emulated,pionts=a.points"
mistake "a misspelt sub-option of the emulated kernel" "c\.conf:1: unknown sub-option 'pionts' \(did you mean 'points'\?\)" -- \
  "$FUPERMOD" build --conf c.conf $B
conf "localhost 0 none cpu kernel=dgemm,b=0"
mistake "a kernel sub-option out of range" "c\.conf:1: sub-option b=0 must be an integer in \[1, 16384\]" -- \
  "$FUPERMOD" build --conf c.conf $B
conf "localhost 0 none cpu kernel=fft-rows,place=up"
mistake "a kernel sub-option not among its choices" "c\.conf:1: sub-option place=up must be one of in\|out" -- \
  "$FUPERMOD" build --conf c.conf $B
conf "localhost 0 none cpu kernel=emulated,points=a.points,noise=lots"
mistake "a kernel sub-option that is not a number" "c\.conf:1: sub-option noise=lots must be a number in \[0, 1\]" -- \
  "$FUPERMOD" build --conf c.conf $B
conf "localhost 0 none cpu kernel=emulated"
mistake "a kernel's required sub-option missing" "c\.conf:1: .*needs the sub-option points=FILE" -- \
  "$FUPERMOD" build --conf c.conf $B
conf "localhost 0 none cpu kernel=emulated,points=a.points,threads=2,threads=3"
mistake "a sub-option given twice" "c\.conf:1: sub-option threads is given twice" -- \
  "$FUPERMOD" build --conf c.conf $B
conf "localhost 0 none gpu kernel=fft-rows,mem_limt=1G"
mistake "a misspelt executor sub-option" "c\.conf:1: unknown sub-option 'mem_limt' \(did you mean 'mem_limit'\?\)" -- \
  "$FUPERMOD" build --conf c.conf $B
conf "localhost 0 none cpu kernel=emulated,points=a.points,meter=rapll"
mistake "a misspelt meter" "c\.conf:1: sub-option meter=rapll must be one of rapl\|" -- \
  "$FUPERMOD" build --conf c.conf $B
conf "localhost 0 none cpu kernel=emulated,points=a.points,meter=model,meter_powr=30"
mistake "a misspelt meter sub-option" "c\.conf:1: unknown sub-option 'meter_powr' \(did you mean 'meter_power'\?\)" -- \
  "$FUPERMOD" build --conf c.conf $B
conf "localhost 0 none cpu kernel=emulated,points=a.points,meter_power=30"
mistake "a meter's sub-option without the meter" "c\.conf:1: sub-option 'meter_power' is read by the model meter: add meter=model" -- \
  "$FUPERMOD" build --conf c.conf $B
conf "localhost 0 none cpu kernel=emulated,points=a.points,meter=emulated,meter_idle=-3"
mistake "a meter sub-option out of range" "c\.conf:1: sub-option meter_idle=-3 must be a number in \[0, " -- \
  "$FUPERMOD" build --conf c.conf $B

# --- configuration lines ---
conf "localhost 0 none cpu kernel=emulated, points=a.points"
mistake "a space after a comma" "c\.conf:1: .*a space follows the comma" -- \
  "$FUPERMOD" build --conf c.conf $B
conf "localhost 0 none gpuu kernel=dgemm"
mistake "a misspelt device type" "c\.conf:1: device_type 'gpuu' must be cpu or gpu" -- \
  "$FUPERMOD" build --conf c.conf $B
conf "localhost 0 core:x cpu kernel=dgemm"
mistake "a malformed binding" "c\.conf:1: bind 'core:x' is not none, core:LIST" -- \
  "$FUPERMOD" build --conf c.conf $B
conf "localhost 0 none cpu kernel=/nowhere/k.so"
mistake "a kernel path that does not exist" "c\.conf:1: kernel /nowhere/k\.so: cannot load" -- \
  "$FUPERMOD" build --conf c.conf $B
conf "localhost 0 none cpu kernel=dgem"
mistake "a misspelt kernel name" "c\.conf:1: kernel 'dgem' not found .*set FUPERMOD_KERNEL_PATH or give a path" -- \
  "$FUPERMOD" build --conf c.conf $B
conf "localhost 0 none cpu kernel=emulated,points=a.points" "localhost 1 none cpu kernel=emulated,points=b.points"
mistake "a 2-line configuration started without mpirun" "c\.conf has 2 process lines but the job has 1 process: start it with mpirun -np 2 \(or give --allow-fewer" -- \
  "$FUPERMOD" build --conf c.conf $B
mistake "the same with mpirun -np 1" "mpirun -np 2" -- $MPI -np 1 "$FUPERMOD" build --conf c.conf $B

# --- subcommands and their options ---
mistake "a misspelt subcommand" "unknown command 'biuld' \(did you mean 'build'\?\)" -- "$FUPERMOD" biuld
mistake "a misspelt long option" "unknown option '--adaptve' \(did you mean '--adaptive'\?\)" -- "$FUPERMOD" build --adaptve
mistake "a value given to a flag" "--refine takes no value" -- "$FUPERMOD" build --refine=3
mistake "an option's value missing" "partition: -D needs a value" -- "$FUPERMOD" partition a.points -D
mistake "an unknown short option" "partition: unknown option -Z" -- "$FUPERMOD" partition -Z -D 100 a.points
mistake "a misspelt algorithm" "unknown partitioner 'hpopt' \(did you mean 'hpopta'\?\)" -- \
  "$FUPERMOD" partition -a hpopt -D 100 -o out a.points b.points
mistake "a misspelt algorithm in a sweep" "unknown partitioner 'geometrc' \(did you mean 'geometric'\?\)" -- \
  "$FUPERMOD" sweep -a geometrc a.points b.points
mistake "sizes the wrong way round" "-U 10 is below -L 100" -- "$FUPERMOD" build --conf c.conf -L 100 -U 10 -s 2
mistake "a misspelt application" "--apps: 'dgem' is not an app \(dgemm, fft\)" -- "$FUPERMOD" run --apps dgem
mistake "a kernel that does not exist, shown" "kernel 'dgem' not found" -- "$FUPERMOD" kernel show dgem
# under mpirun every rank checks the same options and files before MPI starts: one message (rank 0's)
conf "localhost 0 none cpu kernel=emulated,points=a.points"
mistake "a configuration that does not exist, 3 processes" "run: nope\.conf: No such file" -- \
  $MPI -np 3 "$FUPERMOD" run --conf nope.conf
mistake "a bad --size, 3 processes" "run: 'abc' must be a positive integer" -- \
  $MPI -np 3 "$FUPERMOD" run --conf c.conf --size abc
mistake "a bad -L of build, 3 processes" "build: -L 'abc' must be a positive integer" -- \
  $MPI -np 3 "$FUPERMOD" build --conf c.conf -L abc
# a file that only rank 1 lacks: rank 0 goes on into MPI, so rank 1 speaks, naming itself
cp "$top_srcdir/configs/local.conf" "$W/c0.conf"
mistake "a configuration that rank 1 alone lacks" "run: rank 1: c1\.conf: No such file" -- \
  $MPI -np 2 sh -c 'exec "$0" run --conf "c$OMPI_COMM_WORLD_RANK.conf" --lock-wait 0' "$FUPERMOD"

# --- point files ---
mistake "a point file that does not exist" "partition: nope\.points: No such file" -- \
  "$FUPERMOD" partition -a geometric -D 100 -o out a.points nope.points
mistake "a point file with a malformed line" "bad\.points:2: d 'abc' is not an integer" -- \
  "$FUPERMOD" partition -a geometric -D 100 -o out a.points bad.points
mistake "a D no measured sizes add up to" "no combination of measured sizes sums to D=105 .*multiple of 10.*-a geometric" -- \
  "$FUPERMOD" partition -a dp -D 105 -o out a.points b.points
mistake "the same with an exact algorithm that --grid unit serves" "sums to D=105 .*-a geometric.*or give --grid unit" -- \
  "$FUPERMOD" partition -a hpopta -D 105 -o out a.points b.points

# --- campaign specs ---
printf 'name = x\napps = dgemm\nrepetitons = 2\ncommand = true\nresult = r.csv\noutput = out/o.csv\n' >"$W/s.txt"
mistake "a misspelt campaign key" "s\.txt:3: unknown key 'repetitons' \(did you mean 'repetitions'\?\)" -- \
  "$FUPERMOD" campaign run s.txt
printf 'name = x\napps = dgemm\nrepetitions = two\ncommand = true\nresult = r.csv\noutput = out/o.csv\n' >"$W/s.txt"
mistake "a campaign value that is not a number" "s\.txt:3: repetitions: 'two' must be an integer" -- \
  "$FUPERMOD" campaign run s.txt

# --- the documentation's mpirun lines on a 2-core machine ---
# Open MPI refuses more processes than slots (cores, unless a host file says otherwise) without
# --oversubscribe: "not enough slots". Every mpirun line of README.md and docs/ with -np above 2
# carries it, and README's mpirun lines start (their subcommand's --help) on a host of 2 slots
# without the suite's own OMPI_MCA_rmaps_base_oversubscribe.
cd "$top_srcdir" || exit 1
bad=$(awk '/mpirun / && !/vcluster/ { s = substr($0, index($0, "mpirun ")); sub(/[`#].*/, "", s); n = split(s, w, " ")
    for (i = 1; i < n; i++) if (w[i] == "-np" && w[i + 1] ~ /^[0-9]+$/ && w[i + 1] > 2 && s !~ /--oversubscribe/)
      print FILENAME ":" FNR ": " s }' README.md docs/*.md)
ok "$([ -z "$bad" ]; echo $?)" "every mpirun line of README.md and docs/ with -np above 2 gives --oversubscribe"
echo "$bad" | sed '/^$/d; s/^/# /' | head -10
printf 'localhost slots=2\n' >"$TMPD/hosts2"
k=0
while IFS= read -r line; do
  k=$((k + 1))
  cmd=$(echo "$line" | sed -E "s#^mpirun #$MPIEXEC #; s#[^ ]*fupermod ([a-z]+).*#$FUPERMOD \1 --help#")
  env -u OMPI_MCA_rmaps_base_oversubscribe OMPI_MCA_orte_default_hostfile="$TMPD/hosts2" \
    OMPI_MCA_prte_default_hostfile="$TMPD/hosts2" bash -c "$cmd" </dev/null >"$TMPD/out" 2>"$TMPD/err"
  rc=$?
  ok $rc "README: '$line' starts on 2 slots (as '$(echo "$cmd" | sed "s#$FUPERMOD#fupermod#")')"
  [ $rc -eq 0 ] || grep -m3 . "$TMPD/err" | sed 's/^/# /'
done < <(grep -oE 'mpirun( -[-a-z]+( [a-z0-9]+)?)* -np [0-9]+[^`#]* [^ ]*fupermod [a-z]+' README.md)
ok "$([ $k -ge 3 ]; echo $?)" "README has $k mpirun lines of fupermod with a number of processes (at least 3)"
cd "$W" || exit 1

# --- what the first day's commands print and write ---
# Ctrl-C while measuring: one line saying what stays, 128 + 2, the lock emptied, the points kept.
# (set -m: a background job of a script would otherwise start with SIGINT ignored)
interrupt() { # interrupt SUB LOCKDIR PROGRESS-REGEX -- COMMAND...
  local sub=$1 dir=$2 re=$3 pid rc i
  shift 4
  set -m
  ("$@" >"$TMPD/int.out" 2>"$TMPD/int.err") &
  pid=$!
  set +m
  for i in $(seq 600); do grep -Eq -- "$re" "$TMPD/int.err" && break; sleep 0.1; done
  kill -INT -$pid
  wait $pid
  rc=$?
  ok $([ $rc -eq 130 ]; echo $?) "$sub interrupted by SIGINT after its first progress line: exit $rc (128 + 2)"
  ok $([ "$(grep -c "^fupermod $sub: interrupted by signal 2; the points measured so far stay in their files ($dir)" \
    "$TMPD/int.err")" = 1 ]; echo $?) "$sub: one line says it was interrupted and what stays"
  grep -i 'interrupt' "$TMPD/int.err" | sed 's/^/# /'
  ok $([ -f "$dir/.fupermod-lock" ] && [ ! -s "$dir/.fupermod-lock" ]; echo $?) \
    "$sub: the lock file is left empty ('$(cat "$dir/.fupermod-lock" 2>/dev/null)')"
  ok $([ "$(grep -c '^[0-9]' "$dir"/*.points)" -ge 1 ]; echo $?) "$sub: the points measured before stay"
}
conf "localhost 0 none cpu kernel=dgemm"
interrupt build sig "point 1 of" -- "$FUPERMOD" build --conf c.conf --data sig -L 64 -U 4096 -s 64
interrupt run runsig/models/fft "fft model: size 1 of" -- "$FUPERMOD" run --conf c.conf --out runsig --apps fft \
  --size 2048 --points 64 --full-grid -r 3 -R 5
# fupermod run's point files say the version they are written in (v2: rejected=, status) and read back
rm -rf runsig
"$FUPERMOD" run --conf c.conf --out runv2 --apps fft --size 256 --points 4 --reps 1 -r 2 -R 3 -q >/dev/null 2>"$TMPD/err"
f=$(ls runv2/models/fft/*.points 2>/dev/null | head -1)
ok $([ -n "$f" ] && head -1 "$f" | grep -q '^# fupermod points v2:'; echo $?) "fupermod run's point file says v2 ('$(head -1 "$f" | cut -c1-40)')"
"$FUPERMOD" model -m piecewise "$f" >/dev/null 2>"$TMPD/err"
ok $? "it reads back: fupermod model $f"
# fupermod build and fupermod model give speed in one unit, labelled: units/s, the same numbers
"$FUPERMOD" build --conf c.conf --data spd -L 32 -U 64 -s 2 -q >"$TMPD/b.out" 2>/dev/null
"$FUPERMOD" model -m piecewise spd/*.points >"$TMPD/m.out" 2>&1
bmax=$(awk '/^ +0 / { print $4 }' "$TMPD/b.out")
mmax=$(awk '/measured$/ && $3 > m { m = $3 } END { print m }' "$TMPD/m.out")
ok $(grep -q 'max units/s' "$TMPD/b.out" && grep -q 'units/s' "$TMPD/m.out" &&
  awk -v a="$bmax" -v b="$mmax" 'BEGIN { exit !(b > 0 && (a - b) / b < 1e-5 && (b - a) / b < 1e-5) }'; echo $?) \
  "build's max speed $bmax and model's $mmax: the same, both labelled units/s"
# --grid unit: a process held at its largest measured size is named with its cap
awk 'BEGIN { for (d = 10; d <= 300; d += 10) printf "%d %.9g 1 0\n", d, d * 4e-5 }' >s.points
"$FUPERMOD" partition -a hpopta -D 300 --grid unit a.points s.points >"$TMPD/out" 2>"$TMPD/err"
ok $([ $? -eq 0 ] && grep -q '^fupermod partition: warning: --grid unit .*held back process 0 at d=100 ' "$TMPD/err"; echo $?) \
  "--grid unit warns that it held back process 0 at its largest size, d=100"
sed 's/^/# /' "$TMPD/err"
"$FUPERMOD" partition -a hpopta -D 100 --grid unit a.points b.points s.points >"$TMPD/out" 2>"$TMPD/err"
ok $([ $? -eq 0 ] && [ ! -s "$TMPD/err" ]; echo $?) "--grid unit says nothing where no cap binds"
# coinciding speed functions stay apart on the plots: their own dash and point types, and the key says so
cp a.points a2.points
"$FUPERMOD" model -m piecewise --plot plots a.points a2.points b.points >/dev/null 2>&1
styles=$(grep -o 'pt [0-9]* dt [0-9]*' plots/model.gp 2>/dev/null | sort -u | wc -l)
ok $([ "$styles" -ge 3 ] && grep -q "a2.points points, the same as a.points" plots/model.gp; echo $?) \
  "fupermod model --plot: $styles distinct point and dash types, and the key names the coinciding files"
mkdir -p mdir && cp a.points mdir/h.0.points && cp a.points mdir/h.1.points && cp b.points mdir/h.2.points
"$FUPERMOD" model plot --data mdir --out mplots >/dev/null 2>&1
styles=$(grep '^set output .*speed.png' -A3 mplots/models.gp 2>/dev/null | grep -o 'pt [0-9]* dt [0-9]*' | sort -u | wc -l)
ok $([ "$styles" -ge 3 ] && grep -q "h.1, the same as h.0" mplots/models.gp; echo $?) \
  "fupermod model plot: $styles distinct point and dash types, and the key names the coinciding models"
ok $([ $n -ge 25 ] && echo 0 || echo 1) "the catalogue has $n mistakes (at least 25)"
done_testing
