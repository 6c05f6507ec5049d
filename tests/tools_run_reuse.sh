#!/bin/bash
# fupermod run reuses a process's stored models only when nothing that determines them changed: its
# whole configuration line, the real host, the lines of the processes on its node, the kernel (its
# plug-in and library), the sizes and the precision. Each is changed in turn: the models of every
# process it concerns are measured again; an unchanged configuration reuses them. A line the job
# cannot honour (a gpu line without a GPU, another kernel, contradicting sub-options) stops it
# before it measures.
. "$top_srcdir/tests/tap.sh"
MPI="$MPIEXEC --oversubscribe --bind-to none"
conf=$TMPD/two.conf OUT=$TMPD/results
printf 'localhost 0 core:0 cpu meter=model,meter_power=30\nlocalhost 1 core:1 cpu meter=model,meter_power=18\n' >"$conf"
size=256 R=2
run() { $MPI -np 2 "$FUPERMOD" run --conf "$conf" --out "$OUT" --apps fft --size $size --points 4 --reps 1 -r 1 -R $R \
  --full-grid -q >"$TMPD/out" 2>&1; }
sums() { for r in 0 1; do md5sum <"$OUT/models/fft/localhost.$r.points" 2>/dev/null | cut -c1-32; done | tr '\n' ' '; }
# step WANT DESC: run, then each process's models must be reused (same) or measured again (new)
step() {
  local before after rc
  before=$(sums)
  run
  rc=$?
  after=$(sums)
  local got=""
  for r in 1 2; do
    [ "$(echo "$before" | cut -d' ' -f$r)" = "$(echo "$after" | cut -d' ' -f$r)" ] && got="$got same" || got="$got new"
  done
  ok "$([ $rc -eq 0 ] && [ "$got" = " $1" ]; echo $?)" "$2: models$got (want $1)"
  [ $rc -eq 0 ] || sed 's/^/# /' "$TMPD/out" | tail -5
}

run
ok $? "a first run measures the models"
ok "$(grep -q '^# | localhost 1 core:1 cpu meter=model,meter_power=18, threads 1$' "$OUT/models/fft/localhost.0.points" &&
  grep -q "^# measured on host $(hostname), executor cpu, 1 thread," "$OUT/models/fft/localhost.0.points"; echo $?)" \
  "a model file names the host, its threads and the node's lines it was measured beside"
links() { cat "$OUT"/models/comm-*.txt 2>/dev/null | md5sum | cut -c1-32; ls "$OUT"/models/comm-*.txt 2>/dev/null | wc -l; }
l0=$(links)
step "same same" "nothing changed"
ok "$([ "$(links)" = "$l0" ] && [ "$(ls "$OUT"/models/comm-*.txt | wc -l)" -eq 1 ]; echo $?)" \
  "the measured link between the processes is reused too (one file, unchanged)"
R=3
step "new new" "the precision (-R 3)"
size=512
step "new new" "the sizes (--size 512)"
sed -i 's/meter_power=18/meter_power=19/' "$conf"
step "new new" "line 2's sub-options: its own models, and those of line 1 on the same node"
sed -i 's/ core:1 / pu:1 /' "$conf"
n0=$(ls "$OUT"/models/comm-*.txt | wc -l)
step "new new" "line 2's binding (core:1 -> pu:1)"
ok "$([ "$(ls "$OUT"/models/comm-*.txt | wc -l)" -eq $((n0 + 1)) ]; echo $?)" \
  "a new binding: the link is measured again, under the new fingerprint"
mkdir -p "$TMPD/k" && cp "$top_builddir"/kernels/.libs/*.so "$TMPD/k/" && printf '\0' >>"$TMPD/k/fupermod_kernel_fft-rows.so"
FUPERMOD_KERNEL_PATH=$TMPD/k step "new new" "another build of the kernel plug-in"
FUPERMOD_KERNEL_PATH=$TMPD/k step "same same" "then nothing changed"
if [ "$(id -u)" -eq 0 ] && unshare --uts true 2>/dev/null; then
  # the same configuration on a machine of another name: its stored models describe the first one
  before=$(sums)
  unshare --uts bash -c "hostname fupermod-elsewhere && $MPI -np 2 '$FUPERMOD' run --conf '$conf' --out '$OUT' --apps fft \
    --size $size --points 4 --reps 1 -r 1 -R $R --full-grid -q" >"$TMPD/out" 2>&1
  rc=$?
  ok "$([ $rc -eq 0 ] && [ "$(sums | cut -d' ' -f1)" != "$(echo "$before" | cut -d' ' -f1)" ] &&
    [ "$(sums | cut -d' ' -f2)" != "$(echo "$before" | cut -d' ' -f2)" ] &&
    grep -q '^# measured on host fupermod-elsewhere, ' "$OUT/models/fft/localhost.0.points"; echo $?)" \
    "a directory carried to another host (localhost lines, same file names): models new new (exit $rc)"
else
  skip "another host name needs root (a UTS namespace)"
fi

# lines the job cannot honour: stopped before anything is measured, naming the line
refuse() { # LINE2 PATTERN DESC
  printf 'localhost 0 core:0 cpu meter=model,meter_power=30\n%s\n' "$1" >"$TMPD/bad.conf"
  local before; before=$(sums)
  $MPI -np 2 "$FUPERMOD" run --conf "$TMPD/bad.conf" --out "$OUT" --apps fft --size $size --points 4 --reps 1 -r 1 -R $R \
    --full-grid -q >"$TMPD/out" 2>&1
  local rc=$?
  ok "$([ $rc -eq 1 ] && grep -q "bad.conf:2: $2" "$TMPD/out" && [ "$(sums)" = "$before" ]; echo $?)" "$3 (exit $rc)"
  grep -q "bad.conf:2: $2" "$TMPD/out" || sed 's/^/# /' "$TMPD/out" | head -3
}
refuse "localhost 1 core:1 gpu device=0" "a gpu line on $(hostname): no CUDA device" \
  "a gpu line on a host without a usable GPU stops the job, nothing measured or reused"
refuse "localhost 1 core:1 cpu kernel=dgemm-rows" "kernel=dgemm-rows computes neither" "a kernel the applications do not compute with is refused"
refuse "localhost 1 core:1 cpu threads=0" "threads=0 must be an integer from 1 to 4096" "threads=0 is refused"
refuse "localhost 1 core:1 cpu n=1024" "n=1024: the 2D-FFT transforms rows of $size" "a row length other than the FFT's is refused"
refuse "localhost 1 core:1 cpu place=out" "place=out: the 2D-FFT transforms in place" "an out-of-place FFT kernel is refused"
done_testing
