#!/bin/bash
# fupermod run on a simulated platform (docs/simulate.md): the SMPI build (configure --with-smpi,
# in _smpi/ under this build tree, configured once and brought up to date by make) runs the main
# job under SimGrid's smpirun through fupermod-simulate, 16 processes on configs/simgrid/small.xml,
# each an emulated device that takes the times of its point file (configs/emulated/). It completes,
# says SIMULATED, records the simulation beside the results, and for both applications the chosen
# distribution's simulated run is no slower than the even one's. Skipped, with the reason, where
# SimGrid (smpicc, smpirun) is missing or the SMPI build cannot be made here.
. "$top_srcdir/tests/tap.sh"
if ! command -v smpicc >/dev/null 2>&1 || ! command -v smpirun >/dev/null 2>&1; then
  echo "1..0 # SKIP SimGrid's smpicc or smpirun is missing (apt-get install libsimgrid-dev; ./quickstart test installs it as root)"
  exit 0
fi
if [ -f "$top_srcdir/config.status" ]; then
  echo "1..0 # SKIP the sources are configured in place, so configure refuses the SMPI build beside them (docs/simulate.md)"
  exit 0
fi
smpi=$top_builddir/_smpi
t0=$(date +%s)
mkdir -p "$smpi" || exit 1
# configured once (again when configure changed), then only what changed is rebuilt
if [ ! -f "$smpi/Makefile" ] || [ "$top_srcdir/configure" -nt "$smpi/config.status" ]; then
  (cd "$smpi" && "$top_srcdir/configure" -q --with-smpi) >"$TMPD/configure.log" 2>&1
fi
if [ -f "$smpi/Makefile" ]; then
  make -C "$smpi" -s -j2 tools/fupermod-mpi tools/fupermod-simulate kernels/fupermod_kernel_dgemm.la \
    kernels/fupermod_kernel_fft-rows.la kernels/fupermod_kernel_emulated.la >"$TMPD/build.log" 2>&1
  rc=$?
else
  rc=1
fi
if [ $rc -ne 0 ]; then
  echo "1..0 # SKIP the SMPI build failed here: $(tail -n 3 "$TMPD/configure.log" "$TMPD/build.log" 2>/dev/null | grep -v '^==>' | tr '\n' ' ' | head -c 300)"
  exit 0
fi
t1=$(date +%s)
echo "# the SMPI build in $smpi: $((t1 - t0)) s"
# the configuration with its point files' paths made absolute (the test runs in the build tree)
sed "s|emulate=configs/|emulate=$top_srcdir/configs/|" "$top_srcdir/configs/simgrid/small.conf" >"$TMPD/small.conf"
"$smpi/tools/fupermod-simulate" --platform "$top_srcdir/configs/simgrid/small.xml" --conf "$TMPD/small.conf" -np 16 \
  --out "$TMPD/r" --size 1024 --dgemm-b 64 --points 8 --reps 2 -r 2 -R 3 -q >"$TMPD/out" 2>"$TMPD/err"
rc=$?
t2=$(date +%s)
ok $rc "fupermod-simulate: fupermod run of 16 processes on configs/simgrid/small.xml (exit $rc, $((t2 - t1)) s of wall time)"
[ $rc -eq 0 ] || { tail -n 20 "$TMPD/err" | sed 's/^/# /'; tail -n 5 "$TMPD/out" | sed 's/^/# /'; }
ok "$(grep -q '^fupermod-simulate: SIMULATED: 16 processes on the platform ' "$TMPD/out" &&
  grep -q "^fupermod run: SIMULATED: every time is SimGrid's simulated clock" "$TMPD/out" &&
  grep -q '^fupermod-simulate: SIMULATED run done (exit 0)' "$TMPD/out"; echo $?)" \
  "the output says SIMULATED: the wrapper before and after the run, and the run itself"
ok "$(grep -q '^processes=16$' "$TMPD/r/simulation.txt" && grep -q "^platform=.*configs/simgrid/small.xml$" "$TMPD/r/simulation.txt" &&
  grep -q '^# fupermod-simulate: the results in this directory are SIMULATED' "$TMPD/r/simulation.txt"; echo $?)" \
  "the results directory records the simulation (simulation.txt: SIMULATED, the platform, 16 processes)"
ok "$(awk '/^   on 16 hosts:$/ { on = 1 } END { exit !on }' "$TMPD/out" &&
  [ "$(grep -c '^     device: emulated: .*configs/emulated/[a-z]*\.points' "$TMPD/out")" -eq 16 ]; echo $?)" \
  "16 simulated hosts, each process's device emulated from its point file"
# the chosen distribution (chosen = 1 in the summary; none there: even) against even, simulated
for app in dgemm fft; do
  read -r chosen name even < <(awk -F, 'NR > 1 && $19 == 1 { c = $4; n = $3 } NR > 1 { e = $6 }
    END { if (c == "") { c = e; n = "even" } print c, n, e }' "$TMPD/r/summary-$app.csv" 2>/dev/null)
  echo "# $app: chosen ${name:-?} ${chosen:-?} s, even ${even:-?} s (SIMULATED)"
  ok "$(awk -v c="$chosen" -v e="$even" 'BEGIN { exit !(c > 0 && e > 0 && c <= e) }'; echo $?)" \
    "$app: the chosen distribution's simulated run (${name:-none}, ${chosen:-?} s) is no slower than even's (${even:-?} s)"
done
done_testing
