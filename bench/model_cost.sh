#!/bin/bash
# Model cost: the full 32-size build against the adaptive one (docs/models.md, "Adaptive
# building"), on the embedded configuration with the real DGEMM and row-FFT kernels, and on an
# emulated 8-process heterogeneous platform. `make bench` writes bench/model_cost in the build
# directory from bench/model_cost.sh.
BUILD=${FUPERMOD_BUILD:-%BUILD_DIR%}
SRC=${FUPERMOD_SRC:-%SRC_DIR%}
CONF=$SRC/configs/local.conf
ROUNDS=11
REPS=3
OUT=model-cost
NP=3
DN=3072
DB=128
FN=4096
usage() {
  cat <<EOF
usage: $0 [--conf CONF] [--np P] [--rounds R] [--reps K] [--out DIR] [--dgemm-n N] [--dgemm-b B] [--fft-n N]

Run it as it is, not under mpirun: it starts every step itself, the measuring ones as
  mpirun --bind-to none -np 3 fupermod build --conf configs/local.conf -k dgemm ... [--adaptive --smooth 3]
  mpirun --bind-to none -np 3 fupermod partition -a paraleph -D 576 --smooth 3 --conf CONF --data DIR \
      [--blocks 24 --layout LAYOUT]
  mpirun --bind-to none -np 3 fupermod-summa -n 3072 -b 128 -L LAYOUT   (fupermod-fft2d --dist DIST)

1. Builds the DGEMM (SUMMA block update, n = 3072, b = 128: 576 blocks, sizes 18, 36, ..., 576)
   and row-FFT (n = 4096: sizes 128, 256, ..., 4096) functions twice, on the full grid of 32
   sizes and adaptively, with fupermod run's precision (-r 3 -R 10 -e 0.05 -T 5). (n/b)^2 and
   the FFT's n must be multiples of 32.
2. Partitions each with PARALEPH for time on the smoothed functions (--smooth 3), as fupermod run
   does (the adaptive build partitions them so between its rounds too); for SUMMA, the BR layout of the 24 x 24 blocks with
   its sizes fitted to the functions (docs/matrix.md), as fupermod run does.
3. Runs SUMMA and the 2D-FFT on both distributions in R rounds (default 11), each process bound
   as its CONF line says. A round runs both distributions back to back (the order alternates),
   each repeating the product K times (default 3) and keeping its best, and gives the ratio
   adaptive/full. The app time ratio is the median of the rounds' ratios: pairing cancels the
   machine's drift between rounds, which moves single runs of one distribution by 10-25 % on a
   shared VM, where medians of the two distributions taken apart cannot resolve 2 %.
   Where both builds gave the same distribution, R2 for that application is 1 by construction
   (the same run), and the measured ratio is printed as the noise level.
4. Builds an emulated 8-process heterogeneous platform both ways and compares the benchmark
   cost and the predicted optimum.

Last line: model cost: adaptive/full benchmark time R1, app time adaptive/full R2
(R1: wall time of the adaptive builds over the full ones; R2: the worse of the two applications'
app time ratios, 1 where the two distributions are identical).
Results in DIR (default model-cost).
EOF
}
while [ $# -gt 0 ]; do
  case "$1" in
    --conf) CONF=$2; shift 2 ;;
    --np) NP=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --reps) REPS=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --dgemm-n) DN=$2; shift 2 ;;
    --dgemm-b) DB=$2; shift 2 ;;
    --fft-n) FN=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "model_cost: unknown argument '$1' (--help)" >&2; exit 2 ;;
  esac
done
for v in "--rounds $ROUNDS" "--reps $REPS" "--np $NP"; do
  set -- $v
  [[ "$2" =~ ^[1-9][0-9]*$ ]] || { echo "model_cost: $1 '$2' is not a positive integer" >&2; exit 2; }
done
FUPERMOD=$BUILD/tools/fupermod
export FUPERMOD_KERNEL_PATH=${FUPERMOD_KERNEL_PATH:-$BUILD/kernels/.libs}
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
MPI="mpirun --oversubscribe --bind-to none"
[ -x "$FUPERMOD" ] || { echo "model_cost: $FUPERMOD not built" >&2; exit 1; }
[ -r "$CONF" ] || { echo "model_cost: cannot read $CONF" >&2; exit 1; }
DD=$(((DN / DB) * (DN / DB)))
if [ $((DN % DB)) -ne 0 ] || [ $((DD % 32)) -ne 0 ] || [ $((FN % 32)) -ne 0 ]; then
  echo "model_cost: --dgemm-n $DN must be a multiple of --dgemm-b $DB, and (n/b)^2 = $DD and --fft-n $FN multiples of 32" >&2
  exit 2
fi
mkdir -p "$OUT" || exit 1
PREC="-r 3 -R 10 -e 0.05 -T 5 -q"
fail() { echo "model_cost: $*" >&2; exit 1; }

# bind.sh: run a command bound as this rank's configuration line says (core:N -> taskset)
cat >"$OUT/bind.sh" <<EOF
#!/bin/bash
b=\$(grep -v '^#' "$CONF" | grep . | sed -n "\$((OMPI_COMM_WORLD_RANK + 1))p" | awk '{ print \$3 }')
case "\$b" in
  core:*) exec taskset -c "\${b#core:}" "\$@" ;;
  *) exec "\$@" ;;
esac
EOF
chmod +x "$OUT/bind.sh"

now() { date +%s.%N; }
# build APP KERNEL SUBOPTS L U MODE: one build; prints its wall time
build() {
  local app=$1 kernel=$2 sub=$3 L=$4 U=$5 mode=$6 conf="$OUT/$1.conf" t0 extra=""
  awk -v extra="$sub" '/^[[:space:]]*(#|$)/ { print; next } { if (NF >= 5) $5 = $5 "," extra; else $5 = extra; print }' "$CONF" >"$conf"
  [ "$mode" = adaptive ] && extra="--adaptive --smooth 3"
  t0=$(now)
  $MPI -np $NP "$FUPERMOD" build --conf "$conf" -k $kernel --data "$OUT/$mode-$app" -L $L -U $U -s 32 $PREC $extra \
    >"$OUT/build-$mode-$app.out" 2>"$OUT/build-$mode-$app.err" || fail "the $mode $app build failed: $(tail -n 3 "$OUT/build-$mode-$app.err")"
  echo "$(now) $t0" | awk '{ printf "%.3f", $1 - $2 }'
}
# dist_line FILE: the shares
dist_line() { awk '!/^#/ && NF >= 2 && n++ { printf "%s ", $2 }' "$1"; }
# points APP MODE: sizes per process
points() { for f in "$OUT/$2-$1"/*.points; do grep -vc '^#' "$f"; done | tr '\n' ' '; }

declare -A BT
for spec in "dgemm dgemm b=$DB,threads=1 $((DD / 32)) $DD $DD" "fft fft-rows n=$FN,threads=1 $((FN / 32)) $FN $FN"; do
  set -- $spec
  for mode in full adaptive; do
    echo "model_cost: building $1 ($mode)" >&2
    BT[$mode-$1]=$(build $1 $2 $3 $4 $5 $mode) || exit 1
    lay=""
    [ $1 = dgemm ] && lay="--blocks $((DN / DB)) --layout $OUT/$mode-$1.layout"
    $MPI -np $NP "$FUPERMOD" partition -a paraleph -D $6 --smooth 3 --conf "$OUT/$1.conf" --data "$OUT/$mode-$1" -o "$OUT/$mode-$1.dist" $lay \
      >/dev/null 2>"$OUT/partition.err" || fail "PARALEPH on the $mode $1 functions failed: $(tail -n 2 "$OUT/partition.err")"
  done
done

# the applications on both distributions, interleaved
declare -A APPT MED SAME RATIO
for app in dgemm fft; do
  for mode in full adaptive; do : >"$OUT/times-$mode-$app"; done
  for ((r = 1; r <= ROUNDS; r++)); do
    order="full adaptive"
    [ $((r % 2)) -eq 0 ] && order="adaptive full"
    for mode in $order; do
      if [ $app = dgemm ]; then
        $MPI -np $NP "$OUT/bind.sh" "$BUILD/apps/fupermod-summa" -n $DN -b $DB -L "$OUT/$mode-$app.layout" -r $REPS -v random \
          >"$OUT/app.out" 2>&1 || fail "SUMMA on the $mode distribution failed: $(tail -n 3 "$OUT/app.out")"
        awk '/^time: best/ { print $3 }' "$OUT/app.out" >>"$OUT/times-$mode-$app"
      else
        $MPI -np $NP "$OUT/bind.sh" "$BUILD/apps/fupermod-fft2d" -M $FN --dist "$OUT/$mode-$app.dist" -r $REPS \
          >"$OUT/app.out" 2>&1 || fail "the 2D-FFT on the $mode distribution failed: $(tail -n 3 "$OUT/app.out")"
        awk '/^time_best_s/ { print $2 }' "$OUT/app.out" >>"$OUT/times-$mode-$app"
      fi
    done
  done
  median() { sort -g | awk '{ v[NR] = $1 } END { print NR ? (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) : "nan" }'; }
  for mode in full adaptive; do
    APPT[$mode-$app]=$(sort -g "$OUT/times-$mode-$app" | head -n 1)
    MED[$mode-$app]=$(median <"$OUT/times-$mode-$app")
  done
  paste "$OUT/times-adaptive-$app" "$OUT/times-full-$app" | awk '{ printf "%.4f\n", $1 / $2 }' >"$OUT/ratios-$app"
  RATIO[$app]=$(median <"$OUT/ratios-$app")
  SAME[$app]=0
  [ "$(dist_line "$OUT/full-$app.dist")" = "$(dist_line "$OUT/adaptive-$app.dist")" ] && SAME[$app]=1
  [ $app = dgemm ] && ! cmp -s <(grep -v '^#' "$OUT/full-$app.layout") <(grep -v '^#' "$OUT/adaptive-$app.layout") && SAME[$app]=0
  echo "== $app: benchmark time full $(printf %.1f ${BT[full-$app]}) s, adaptive $(printf %.1f ${BT[adaptive-$app]}) s"
  echo "   sizes per process: full $(points $app full)| adaptive $(points $app adaptive)"
  echo "   PARALEPH distribution: full $(dist_line "$OUT/full-$app.dist")| adaptive $(dist_line "$OUT/adaptive-$app.dist")"
  [ ${SAME[$app]} = 1 ] && echo "   identical distributions: app time ratio 1 by construction (the measured times below differ by noise only)"
  echo "   app time adaptive/full: $(printf %.3f ${RATIO[$app]}) (median of $ROUNDS rounds' ratios: $(tr '\n' ' ' <"$OUT/ratios-$app"))"
  echo "   app time per round (best of $REPS): median full ${MED[full-$app]} s, adaptive ${MED[adaptive-$app]} s;" \
       "best full ${APPT[full-$app]} s, adaptive ${APPT[adaptive-$app]} s"
  echo "   each round: full $(tr '\n' ' ' <"$OUT/times-full-$app")| adaptive $(tr '\n' ' ' <"$OUT/times-adaptive-$app")"
done

# an emulated 8-process heterogeneous platform: cost and predicted optimum only
E="$OUT/emulated"
rm -rf "$E" && mkdir -p "$E"
: >"$E/p.conf"
for ((r = 0; r < 8; r++)); do
  awk -v r=$r 'BEGIN { b = 2 + r * 1.3; c = 60 + 25 * r
    for (d = 10; d <= 320; d += 10) { s = (r % 2) ? b * d / (d + c) : b / (1 + 0.4 * (d / (2 * c)) ^ 2)
      printf "%d %.9g 1 0\n", d, d / s / 1000 } }' >"$E/dev$r.points"
  echo "localhost $r none cpu kernel=emulated,points=$E/dev$r.points" >>"$E/p.conf"
done
for mode in full adaptive; do
  extra=""
  [ $mode = adaptive ] && extra="--adaptive"
  $MPI -np 8 "$FUPERMOD" build --conf "$E/p.conf" --data "$E/$mode" -L 10 -U 320 -s 32 -r 2 -R 2 -q $extra >"$E/$mode.out" 2>&1 ||
    fail "the emulated $mode build failed: $(tail -n 3 "$E/$mode.out")"
  cost=$(cat "$E/$mode"/*.points | awk '!/^#/ { s += $2 * $3 } END { printf "%.3f", s }')
  opt=$("$FUPERMOD" partition -a dp -D 320 --conf "$E/p.conf" --data "$E/$mode" 2>/dev/null | awk '/ time / { print $(NF-1); exit }')
  echo "== emulated 8 processes, $mode: benchmark cost $cost s (time x repetitions), sizes per process $(for f in "$E/$mode"/*.points; do grep -vc '^#' "$f"; done | tr '\n' ' ')predicted optimum T = $opt s"
done

awk -v bf="${BT[full-dgemm]}" -v bf2="${BT[full-fft]}" -v ba="${BT[adaptive-dgemm]}" -v ba2="${BT[adaptive-fft]}" \
    -v q1="${RATIO[dgemm]}" -v q2="${RATIO[fft]}" -v s1="${SAME[dgemm]}" -v s2="${SAME[fft]}" \
    'BEGIN { r1 = s1 ? 1 : q1; r2 = s2 ? 1 : q2; r = r1 > r2 ? r1 : r2
             printf "model cost: adaptive/full benchmark time %.3f, app time adaptive/full %.3f\n", (ba + ba2) / (bf + bf2), r }'
