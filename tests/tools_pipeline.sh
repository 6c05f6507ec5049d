#!/bin/bash
# The whole pipeline under mpirun -np 4 (acceptance): build models of four emulated devices of
# different speeds (one flat and fast, one with a memory cliff, one speeding up, one flat and slow),
# partition with `fupermod partition -a geometric`, then run the emulated kernel at that
# distribution with a benchmark (`fupermod build --dist`) and compare the measured times and
# energies with the predicted ones.
# Tolerance per process: the check's confidence interval + the model's (the relative half-width of
# the build points on either side of the share, times the prediction) + 4 ms of wake-up allowance
# (emulated devices sleep; 4 processes share 2 loaded cores, so waking up takes a moment that no
# interval measures, docs/dynamic.md).
. "$top_srcdir/tests/tap.sh"
MPI="$MPIEXEC --oversubscribe --bind-to none"
# speeds in units/s; energies c J per unit; every integer size so the emulation is exact
awk -v DIR="$TMPD" 'function s(r, d) {
       if (r == 0) return 8000
       if (r == 1) return d <= 200 ? 4000 : (d <= 600 ? 4000 - 6 * (d - 200) : 1600)
       if (r == 2) return d <= 300 ? 1200 + 2000 * d / 300 : 3200
       return 2000 }
     BEGIN { split("0.5 1.0 0.8 2.0", c, " ")
             for (r = 0; r < 4; r++) for (d = 1; d <= 1500; d++)
               printf "%d %.12g 1 0 %.12g 0\n", d, d / s(r, d), c[r + 1] * d > (DIR "/dev" r ".points") }'
: >"$TMPD/four.conf"
for r in 0 1 2 3; do
  echo "localhost $r none cpu kernel=emulated,points=$TMPD/dev$r.points,noise=0.01,seed=$((r + 7)),meter=emulated,meter_idle=10,static_power=10" \
    >>"$TMPD/four.conf"
done
D=1113

$MPI -np 4 "$FUPERMOD" build --conf "$TMPD/four.conf" --data "$TMPD/data" --sizes 50,100,150,200,250,300,350,400,450 \
  -r 3 -R 10 -e 0.02 >"$TMPD/build.out" 2>"$TMPD/err"
ok $? "build on 4 processes"
sed 's/^/# /' "$TMPD/build.out"
# each process: the 9 sizes once, and each point's dynamic energy the device's c J per unit
bad=$(for r in 0 1 2 3; do
  awk -v r=$r 'BEGIN { split("0.5 1.0 0.8 2.0", c, " ") } !/^#/ { e = c[r + 1] * $1; x = $5 - e; if (x < 0) x = -x
         if (NF != 6 + ($NF ~ /^rejected=/) || $1 != 50 * (n + 1) || !($2 > 0) || !(e > 0) || x > $6 + 1e-6 * e + 1e-3) bad++; n++ }
       END { if (n != 9 || bad) print "process " r ": " n " points, " bad + 0 " bad" }' "$TMPD/data/localhost.$r.points"
done)
ok $([ -z "$bad" ] && echo 0 || echo 1) "9 points per process, the sizes asked for, each with its dynamic energy (c x d J)"
[ -z "$bad" ] || echo "$bad" | sed 's/^/# /'

"$FUPERMOD" partition -a geometric -D $D --conf "$TMPD/four.conf" --data "$TMPD/data" -o "$TMPD/dist" >"$TMPD/part.out" 2>"$TMPD/err"
ok $? "partition with the geometric algorithm"
sed 's/^/# /' "$TMPD/dist"
ok $(awk -v D=$D '!/^#/ && NF == 2 && !seen { seen = 1; next } !/^#/ && NF >= 3 { s += $2; if ($2 <= 0) bad = 1; t[n++] = $3 }
     END { lo = t[0]; hi = t[0]; for (i in t) { if (t[i] < lo) lo = t[i]; if (t[i] > hi) hi = t[i] }
           exit !(s == D && !bad && n == 4 && (hi - lo) / lo < 0.05) }' "$TMPD/dist"; echo $?) \
  "every device gets work, shares sum to D, predicted times balanced within 5%"

$MPI -np 4 "$FUPERMOD" build --conf "$TMPD/four.conf" --dist "$TMPD/dist" -r 5 -R 30 -e 0.01 >"$TMPD/check.out" 2>"$TMPD/err"
ok $? "benchmark at the distribution (build --dist)"
sed 's/^/# /' "$TMPD/check.out"
for r in 0 1 2 3; do
  line=$(awk -v r=$r '!/^#/ && $1 == r' "$TMPD/check.out")
  d=$(echo "$line" | awk '{ print $2 }')
  # the model's relative half-width at d: that of the build points on either side of d
  cib=$(awk -v d="$d" '!/^#/ { x = $4 / $2; if ($1 <= d) { lo = x } if ($1 >= d && !hiset) { hi = x; hiset = 1 } }
                       END { m = lo > hi ? lo : hi; printf "%.6g", m + 0 }' "$TMPD/data/localhost.$r.points")
  # rank d predicted measured ci reps predicted_e measured_e e_ci
  ok $(echo "$line" | awk -v cib="$cib" '{ tol = $5 + cib * $3 + 0.004; d = $4 - $3; if (d < 0) d = -d
                                           exit !(NF >= 9 && $2 > 0 && d <= tol) }'; echo $?) \
    "process $r: measured time within the interval of the prediction ($(echo "$line" | awk -v c="$cib" '{ printf "|%.5f - %.5f| <= %.5f + %.4f x %.5f + 0.004", $4, $3, $5, c, $3 }'))"
  ok $(echo "$line" | awk '{ d = $8 - $7; if (d < 0) d = -d; exit !(d <= $9 + 1e-6 * $7 + 1e-3) }'; echo $?) \
    "process $r: measured dynamic energy equals the predicted one ($(echo "$line" | awk '{ printf "%.4f vs %.4f J", $8, $7 }'))"
done
expect_exit 1 "a distribution for another number of processes" -- $MPI -np 2 "$FUPERMOD" build --allow-fewer --conf "$TMPD/four.conf" --dist "$TMPD/dist"
stderr_has "over 4 processes, but 2 are running" "the mismatch is named"
expect_exit 2 "--dist with sizes" -- "$FUPERMOD" build --conf "$TMPD/four.conf" --dist "$TMPD/dist" --sizes 5
done_testing
