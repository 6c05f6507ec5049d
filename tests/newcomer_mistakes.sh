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

# --- point files ---
mistake "a point file that does not exist" "partition: nope\.points: No such file" -- \
  "$FUPERMOD" partition -a geometric -D 100 -o out a.points nope.points
mistake "a point file with a malformed line" "bad\.points:2: d 'abc' is not an integer" -- \
  "$FUPERMOD" partition -a geometric -D 100 -o out a.points bad.points
mistake "a D no measured sizes add up to" "no combination of measured sizes sums to D=105 .*multiple of 10.*-a geometric" -- \
  "$FUPERMOD" partition -a dp -D 105 -o out a.points b.points

# --- campaign specs ---
printf 'name = x\napps = dgemm\nrepetitons = 2\ncommand = true\nresult = r.csv\noutput = out/o.csv\n' >"$W/s.txt"
mistake "a misspelt campaign key" "s\.txt:3: unknown key 'repetitons' \(did you mean 'repetitions'\?\)" -- \
  "$FUPERMOD" campaign run s.txt
printf 'name = x\napps = dgemm\nrepetitions = two\ncommand = true\nresult = r.csv\noutput = out/o.csv\n' >"$W/s.txt"
mistake "a campaign value that is not a number" "s\.txt:3: repetitions: 'two' must be an integer" -- \
  "$FUPERMOD" campaign run s.txt
ok $([ $n -ge 25 ] && echo 0 || echo 1) "the catalogue has $n mistakes (at least 25)"
done_testing
