#!/bin/bash
# fupermod sweep on emulated platforms with exact functions: every reported time, energy and gain
# against fupermod partition, an evaluation of the reported distributions written here, and
# brute force; the min / avg / max lines; replication; the inputs (--conf, a run's models
# directory); the plots; bad inputs.
. "$top_srcdir/tests/tap.sh"
E="$top_srcdir/configs/emulated"
# the checks against fupermod partition and brute force over the measured sizes use --grid measured;
# the unit grid, the default, is checked on its own below
SW() { "$FUPERMOD" sweep -q --grid measured "$@"; }
RANDOM=7 # the platforms are the same in every run

# An exact function: sizes g k (k = 1..m, some left out), speed constant, with a step down,
# rising as a d / (d + b), or random (not concave: the piecewise model would drop points), power
# P: e = P t. The constant speeds are powers of 2, so that the files hold the times exactly.
gen_fn() { # FILE g m
  local kind=$((RANDOM % 4)) a=$((8 << RANDOM % 4)) b=$((RANDOM % 40 + 5)) c=$((RANDOM % 4 + 1))
  local hole=$((RANDOM % 3)) P=$((RANDOM % 90 + 10)) seed=$RANDOM
  awk -v g="$2" -v m="$3" -v kind=$kind -v a=$a -v b=$b -v c=$c -v hole=$hole -v P=$P -v seed=$seed 'BEGIN {
    srand(seed); n = 0
    for (k = 1; k <= m; k++) {
      if (k > 1 && hole && rand() < 0.3) continue
      d = g * k
      s = kind == 0 ? a : kind == 1 ? (k <= c ? a : a / 4) : kind == 2 ? a * d / (d + b) : a * (0.2 + rand())
      t = d / s; printf "%d %.9g 1 0 %.9g 0\n", d, t, P * t; n++
    } }' >"$1"
}

# awk: the functions of FILES (processor i of the sweep = file i mod n), the model the sweep
# evaluates on, and brute force over the compositions of D
cat >"$TMPD/model.awk" <<'AWK'
function load(   f, i, line, x) {
  nf = split(files, f, " ")
  for (i = 1; i <= nf; i++) {
    n[i] = 0
    while ((getline line <f[i]) > 0) {
      if (line ~ /^#/ || line ~ /^[ \t]*$/) continue
      split(line, x, " ")
      n[i]++; d[i, n[i]] = x[1] + 0; t[i, n[i]] = x[2] + 0; e[i, n[i]] = x[5] + 0
    }
    close(f[i])
  }
}
# the measured point at a measured size; elsewhere speed and energy per unit linear between the
# neighbouring points, constant beyond the ends
function model(i, x, what,   k, w, s, q) {
  if (x == 0) return 0
  for (k = 1; k <= n[i]; k++) if (d[i, k] == x) return what == "t" ? t[i, k] : e[i, k]
  if (x < d[i, 1]) { s = d[i, 1] / t[i, 1]; q = e[i, 1] / d[i, 1] }
  else if (x > d[i, n[i]]) { s = d[i, n[i]] / t[i, n[i]]; q = e[i, n[i]] / d[i, n[i]] }
  else {
    for (k = 1; d[i, k + 1] < x; k++) ;
    w = (x - d[i, k]) / (d[i, k + 1] - d[i, k])
    s = (1 - w) * d[i, k] / t[i, k] + w * d[i, k + 1] / t[i, k + 1]
    q = (1 - w) * e[i, k] / d[i, k] + w * e[i, k + 1] / d[i, k + 1]
  }
  return what == "t" ? x / s : x * q
}
function measured(i, x,   k) { for (k = 1; k <= n[i]; k++) if (d[i, k] == x) return 1; return 0 }
function close_to(a, b) { return (a == b) || (a - b <= 1e-9 * (a > 0 ? a : -a) && b - a <= 1e-9 * (a > 0 ? a : -a)) }
# brute force over processors 1..p (function (i - 1) % nf + 1): bt, be (Inf when none), bfront
# (points of the Pareto front), bspread (least spread of the active processors' times)
function brute(D, p,   idx, i, j, sum, T, En, lo, hi, nv, vt, ve, dom) {
  for (i = 1; i <= p; i++) idx[i] = 0
  bt = be = bspread = "inf"; nv = 0
  for (;;) {
    sum = 0
    for (i = 1; i <= p; i++) if (idx[i]) sum += d[(i - 1) % nf + 1, idx[i]]
    if (sum == D) {
      T = 0; En = 0; lo = -1; hi = 0
      for (i = 1; i <= p; i++) if (idx[i]) {
        j = (i - 1) % nf + 1
        if (t[j, idx[i]] > T) T = t[j, idx[i]]
        En += e[j, idx[i]]
        if (lo < 0 || t[j, idx[i]] < lo) lo = t[j, idx[i]]
        if (t[j, idx[i]] > hi) hi = t[j, idx[i]]
      }
      if (bt == "inf" || T < bt) bt = T
      if (be == "inf" || En < be) be = En
      if (bspread == "inf" || (lo < 0 ? 0 : hi - lo) < bspread) bspread = lo < 0 ? 0 : hi - lo
      vt[++nv] = T; ve[nv] = En
    }
    for (i = 1; i <= p && ++idx[i] > n[(i - 1) % nf + 1]; i++) idx[i] = 0
    if (i > p) break
  }
  bfront = 0
  for (i = 1; i <= nv && objective == "p"; i++) {
    dom = 0
    for (j = 1; j <= nv && !dom; j++)
      dom = (vt[j] <= vt[i] && ve[j] <= ve[i] && (vt[j] < vt[i] || ve[j] < ve[i])) || (j < i && vt[j] == vt[i] && ve[j] == ve[i])
    bfront += !dom
  }
}
AWK

# check.awk: every row of a sweep CSV (--parts) against the model of the distribution it reports,
# brute force (the optimum, infeasibility, balanced's spread, the front) and its own gains
cat >"$TMPD/check.awk" <<'AWK'
BEGIN { FS = ","; load(); continuous = " geometric numerical cpm even " }
NR == 1 { next }
{
  D = $1; alg = $2; st = $4; p = split($14, part, " ")
  if (!(D in done)) { brute(D, P); done[D] = 1 }
  rows++
  if (st != "ok") {
    if ($3 == "optimum") opt_t[D] = 0
    if (st == "infeasible" && continuous !~ " " alg " " && bt == "inf") next
    bad++; print "# D=" D " " alg ": " st " (brute force: " bt ")"; next
  }
  T = 0; En = 0; sum = 0; lo = -1; hi = 0; idle = 0
  for (i = 1; i <= p; i++) {
    j = (i - 1) % nf + 1; x = part[i]; sum += x
    tt = model(j, x, "t"); T = tt > T ? tt : T; En += model(j, x, "e")
    if (x == 0) idle++
    else { if (lo < 0 || tt < lo) lo = tt; if (tt > hi) hi = tt }
  }
  if (p != P || sum != D || !close_to($5, T) || !close_to($6, En) || $9 != idle) {
    bad++; printf "# D=%s %s: parts %s give %.17g s, %.17g J, idle %d; reported %s, %s, %s\n", D, alg, $14, T, En, idle, $5, $6, $9; next
  }
  if ($3 == "optimum") {
    optimum++
    if (objective == "t" && !close_to($5, bt)) { bad++; print "# D=" D ": optimum " $5 " s, brute force " bt }
    if (objective == "e" && !close_to($6, be)) { bad++; print "# D=" D ": optimum " $6 " J, brute force " be }
    if (objective == "p" && ($11 != bfront || !close_to($5, bt) || !close_to($13, be))) {
      bad++; print "# D=" D ": front " $11 " points from " $5 " s to " $13 " J; brute force " bfront " from " bt " to " be
    }
  }
  if (continuous !~ " " alg " ")
    for (i = 1; i <= p; i++) if (part[i] && !measured((i - 1) % nf + 1, part[i])) { bad++; print "# D=" D " " alg ": " part[i] " not measured" }
  if ($3 == "optimum") { opt_t[D] = $5; ref_e[D] = $13 != "" ? $13 : $6; next }
  if (!(opt_t[D] > 0) != ($7 == "" && $8 == "")) { bad++; print "# D=" D " " alg ": gains '" $7 "' '" $8 "' with an optimum of " opt_t[D] " s" }
  if ($7 != "" && !close_to($7, ($5 - opt_t[D]) / opt_t[D] * 100)) { bad++; print "# D=" D " " alg ": time gain " $7 }
  if ($8 != "" && !close_to($8, ($6 - ref_e[D]) / ref_e[D] * 100)) { bad++; print "# D=" D " " alg ": energy gain " $8 }
  if (alg == "balanced" && !close_to(lo < 0 ? 0 : hi - lo, bspread)) { bad++; print "# D=" D ": balanced spread " hi - lo ", least " bspread }
}
END { printf "%d %d %d\n", rows, bad, optimum }
AWK

check() { # CSV OBJECTIVE(t|e|p) OPT P FILES...: "rows bad optima"
  local csv=$1 obj=$2 opt=$3 p=$4
  shift 4
  awk -v files="$*" -v objective="$obj" -v opt="$opt" -v P="$p" -f "$TMPD/model.awk" -f "$TMPD/check.awk" "$csv"
}

# ---- 12 small emulated platforms: every D from 0 to past what they hold, every algorithm ----
rows=0 bad=0 opt=0 parts_bad=0 nparts=0 sum_bad=0
for inst in $(seq 1 12); do
  p=$((inst % 3 + 2)) g=$((inst % 4 == 0 ? 3 : 1)) files=""
  for i in $(seq 1 $p); do gen_fn "$TMPD/i$inst.$i.points" $g $((RANDOM % 3 + 4)); files="$files $TMPD/i$inst.$i.points"; done
  cap=$(cat $files | awk '{ last[FILENAME] = $1 } END { for (f in last) s += last[f]; print s }')
  for mode in max sum pareto; do
    obj=${mode:0:1} optname=hpopta
    [ $mode = sum ] && obj=e optname=heopta
    [ $mode = pareto ] && optname=hepopta
    SW -F $mode -D "0:$((cap + g + 1))" --parts --csv "$TMPD/s.csv" $files >"$TMPD/s.out" 2>"$TMPD/s.err"
    r=$?
    [ $r -eq 0 ] || { bad=$((bad + 1)); echo "# instance $inst -F $mode: exit $r"; sed 's/^/# /' "$TMPD/s.err"; continue; }
    check "$TMPD/s.csv" $obj $optname $p $files >"$TMPD/check"
    grep '^#' "$TMPD/check" | head -5
    set -- $(tail -1 "$TMPD/check")
    rows=$((rows + $1)) bad=$((bad + $2)) opt=$((opt + $3))
    # the printed min / avg / max lines: recomputed from the CSV's gains
    want=$(awk -F, -v col=$([ $mode = sum ] && echo 8 || echo 7) 'NR > 1 && $3 == "alternative" && $col != "" {
        if (!($2 in n)) { order[++k] = $2; mn[$2] = $col; mx[$2] = $col }
        n[$2]++; s[$2] += $col; if ($col < mn[$2]) mn[$2] = $col; if ($col > mx[$2]) mx[$2] = $col }
      END { for (i = 1; i <= k; i++) { a = order[i]; printf "%s %.2f %.2f %.2f %d\n", a, mn[a], s[a] / n[a], mx[a], n[a] } }' "$TMPD/s.csv")
    got=$(awk '/^gain of/ { on++; next } on == 1 && /^  [a-z]/ && $1 != "algorithm" { print $1, $2, $3, $4, $6 }' "$TMPD/s.out")
    [ -n "$want" ] && [ "$want" = "$got" ] || { sum_bad=$((sum_bad + 1)); echo "# instance $inst -F $mode: summary"; echo "$want" | sed 's/^/# want /'; echo "$got" | sed 's/^/# got  /'; }
  done
  # the distributions are fupermod partition's, D by D (the time sweep's CSV)
  if [ $inst -le 4 ]; then
    SW -D "0:$((cap + 1))" -a balanced,geometric,numerical,cpm,even,dp --parts --csv "$TMPD/s.csv" $files >/dev/null 2>&1
    while IFS=, read -r D alg role st T En gt ge idl outs fr te ee parts; do
      [ "$D" = D ] && continue
      want=$("$FUPERMOD" partition -a $alg -D $D --json $files 2>/dev/null | grep -o '"d":[0-9]*' | cut -d: -f2 | tr '\n' ' ' | sed 's/ $//')
      nparts=$((nparts + 1))
      [ "$want" = "$parts" ] || { parts_bad=$((parts_bad + 1)); [ $parts_bad -le 5 ] && echo "# D=$D $alg: partition '$want', sweep '$parts'"; }
    done <"$TMPD/s.csv"
  fi
done
ok $([ $bad -eq 0 ] && [ $rows -gt 1500 ] && echo 0 || echo 1) \
  "12 platforms x 3 objectives: $rows rows evaluated again, $opt optima against brute force, $bad wrong"
ok $([ $parts_bad -eq 0 ] && [ $nparts -gt 150 ] && echo 0 || echo 1) \
  "the distributions are fupermod partition's ($nparts, $parts_bad different)"
ok $sum_bad "the min / avg / max lines are those of the CSV's gains (36 summaries)"

# ---- the emulated configuration: the optimum at every D against dp, the marks ----
F="$E/fast.points $E/medium.points $E/slow.points $E/accel.points"
(cd "$top_srcdir" && "$FUPERMOD" sweep -q --grid measured --csv "$TMPD/e.csv" --conf configs/emulated.conf) >"$TMPD/e.out"
ok $? "--conf configs/emulated.conf from the source directory: the emulated processors' own files"
SW --csv "$TMPD/f.csv" $F >/dev/null
ok $(cmp -s "$TMPD/e.csv" "$TMPD/f.csv" && echo 0 || echo 1) "the same as naming their point files in line order"
ok $([ "$(grep -c ',hpopta,optimum,ok,' "$TMPD/e.csv")" -eq 160 ] && echo 0 || echo 1) \
  "default range: the granule (50) to what the functions hold (8000), 160 workloads"
awk -F, 'NR > 1 && $3 == "optimum" && $1 % 1000 == 0 { print $1, $5 }' "$TMPD/e.csv" >"$TMPD/opt"
wrong=0
while read -r D T; do
  want=$("$FUPERMOD" partition -a dp -D $D --json $F | grep -o '"time":[0-9.e-]*' | cut -d: -f2)
  awk -v a="$T" -v b="$want" 'BEGIN { exit !(a == b) }' || wrong=$((wrong + 1))
done <"$TMPD/opt"
ok $([ $wrong -eq 0 ] && [ -s "$TMPD/opt" ] && echo 0 || echo 1) "its optimum is dp's at D = 1000, 2000, ..., 8000"
ok $(grep -q '^ *50  geometric .*outside 4' "$TMPD/e.out" && grep -q '^ *50  hpopta .*idle 3' "$TMPD/e.out" && echo 0 || echo 1) \
  "marks: idle processors, shares outside the measured sizes"
ok $(grep -q 'one model: the measured point at a measured size' "$TMPD/e.out" &&
     grep -q 'gain = (T_alg - T_opt) / T_opt x 100 %' "$TMPD/e.out" && echo 0 || echo 1) "the report says the model and the gain"
SW -D 25:75:25 --csv "$TMPD/g.csv" $F >"$TMPD/g.out"
ok $([ $? -eq 0 ] && grep -q '^25,hpopta,optimum,infeasible' "$TMPD/g.csv" && grep -q '^25,geometric,alternative,ok' "$TMPD/g.csv" &&
     grep -q '^ *25  hpopta .* infeasible' "$TMPD/g.out" && echo 0 || echo 1) \
  "a workload off the granule: the exact algorithms infeasible, the continuous ones not"
SW -D 100,300,200 --csv "$TMPD/l.csv" -a even $F >/dev/null
ok $([ "$(awk -F, 'NR > 1 { printf "%s ", $1 }' "$TMPD/l.csv")" = "100 100 300 300 200 200 " ] && echo 0 || echo 1) "-D as a list, in its order"
SW -D 100:1000 -a none --summary $F >"$TMPD/n.out"
ok $([ $? -eq 0 ] && grep -q '^hpopta: a distribution at 19 of 19 workloads' "$TMPD/n.out" && echo 0 || echo 1) \
  "-D START:END steps by the granule; -a none: the optimum alone"

# ---- the model between measured sizes: interpolation, or --eval piecewise ----
# speeds 5000, 2000, 10000, 10000: not concave, so the piecewise model drops the size 200
printf '100 0.02\n200 0.1\n300 0.03\n400 0.04\n' >"$TMPD/nc.points"
printf '100 0.02\n400 0.08\n' >"$TMPD/lin.points"
"$FUPERMOD" partition -a geometric -D 300 --json "$TMPD/nc.points" "$TMPD/lin.points" >"$TMPD/geo.json"
SW -a geometric -D 300 --eval piecewise --csv "$TMPD/pw.csv" --parts "$TMPD/nc.points" "$TMPD/lin.points" >/dev/null 2>&1
SW -a geometric -D 300 --csv "$TMPD/in.csv" --parts "$TMPD/nc.points" "$TMPD/lin.points" >/dev/null 2>&1
pw=$(awk -F, '$2 == "geometric" { print $5 }' "$TMPD/pw.csv")
in=$(awk -F, '$2 == "geometric" { print $5 }' "$TMPD/in.csv")
ok $(grep -q '"parts":\[{"d":173,' "$TMPD/geo.json" && awk -v a="$pw" -v b="$(sed 's/.*"time":\([^,]*\),.*/\1/' "$TMPD/geo.json")" -v c="$in" \
     'BEGIN { w = 173 / (5000 - 0.73 * 3000); exit !(a == b && c > w * (1 - 1e-12) && c < w * (1 + 1e-12)) }' && echo 0 || echo 1) \
  "173 units between 100 (5000/s) and 200 (2000/s): interpolated $in s; --eval piecewise $pw s, as partition predicts"
# --smooth W: the optimum of the smoothed functions, as fupermod partition --smooth W finds it
awk 'BEGIN { srand(3); for (d = 10; d <= 200; d += 10) printf "%d %.9g 5 0\n", d, d / 1000 * (0.8 + 0.4 * rand()) }' >"$TMPD/n0.points"
awk 'BEGIN { srand(4); for (d = 10; d <= 200; d += 10) printf "%d %.9g 5 0\n", d, d / 700 * (0.8 + 0.4 * rand()) }' >"$TMPD/n1.points"
SW --smooth 3 -a none -D 50:350:100 --parts --csv "$TMPD/sm.csv" "$TMPD"/n?.points >"$TMPD/sm.out"
wrong=0
for D in 50 150 250 350; do
  want=$("$FUPERMOD" partition -a hpopta --smooth 3 -D $D --json "$TMPD"/n?.points | grep -o '"d":[0-9]*' | cut -d: -f2 | tr '\n' ' ' | sed 's/ $//')
  [ "$want" = "$(awk -F, -v D=$D '$1 == D { print $14 }' "$TMPD/sm.csv")" ] || wrong=$((wrong + 1))
done
ok $([ $wrong -eq 0 ] && grep -q '^# smoothed functions (--smooth 3)' "$TMPD/sm.out" && echo 0 || echo 1) \
  "--smooth 3: fupermod partition --smooth 3's distributions, and the header says so"

# ---- replication: K copies of the platform are the files named K times ----
SW -k 3 -D 0:2000:50 -F pareto --parts --csv "$TMPD/k.csv" "$E/fast.points" "$E/slow.points" >"$TMPD/k.out"
r=$?
SW -D 0:2000:50 -F pareto --parts --csv "$TMPD/k3.csv" $(for c in 1 2 3; do echo "$E/fast.points $E/slow.points"; done) >/dev/null
ok $([ $r -eq 0 ] && cmp -s "$TMPD/k.csv" "$TMPD/k3.csv" && echo 0 || echo 1) "-k 3: the same sweep as the files named 3 times"
ok $(grep -q '^# fupermod sweep: 6 processors (3 copies of 2)' "$TMPD/k.out" && echo 0 || echo 1) "and says so"
SW -k 64 -D 5000:500000:5000 -a balanced --summary $F >"$TMPD/big.out"
ok $([ $? -eq 0 ] && grep -q '^# fupermod sweep: 256 processors (64 copies of 4), 100 workloads' "$TMPD/big.out" &&
     grep -q '^hpopta: a distribution at 100 of 100' "$TMPD/big.out" && echo 0 || echo 1) "64 copies of the emulated platform: 256 processors, 100 workloads"
for D in 64000 128000; do
  want=$("$FUPERMOD" partition -a hpopta -D $D -p 64 "$E/fast.points" 2>/dev/null | head -1 | grep -o 'time [0-9.e-]*')
  got=$(SW -k 64 -D $D -a none $E/fast.points | awk '!/^#/ && $2 == "hpopta" { print "time " $3 }')
  ok $([ -n "$want" ] && [ "$want" = "$got" ] && echo 0 || echo 1) "-k 64, D=$D: fupermod partition -p 64's time ($want, $got)"
done

# ---- past the table's limit: hpopta per workload, the same answers ----
# four processors of sizes 1, 2^25 and 2^26: one table to 2^28 is over the limit, and so is
# hpopta from 2^26 on
printf '1 1\n33554432 50\n67108864 100\n' >"$TMPD/wide.points"
"$FUPERMOD" sweep -D 0:268435456:33554432 -a even --csv "$TMPD/w.csv" -k 4 "$TMPD/wide.points" >"$TMPD/w.out" 2>"$TMPD/w.err"
ok $([ $? -eq 0 ] && grep -q 'refused (dp: a table of .* too large.*): dp and hpopta run per workload' "$TMPD/w.err" &&
     grep -q '^33554432,hpopta,optimum,ok,50,' "$TMPD/w.csv" && grep -q '^67108864,hpopta,optimum,refused,' "$TMPD/w.csv" &&
     grep -q '^refused: hpopta: .*too large' "$TMPD/w.out" && echo 0 || echo 1) \
  "a range past dp's table limit: said on stderr, hpopta per workload, refused past its own limit"

# ---- a fupermod run's models directory ----
mkdir -p "$TMPD/run/models/dgemm"
cp "$E/fast.points" "$TMPD/run/models/dgemm/node.0.points"
cp "$E/medium.points" "$TMPD/run/models/dgemm/node.1.points"
cp "$E/slow.points" "$TMPD/run/models/dgemm/node.2.points"
cp "$E/accel.points" "$TMPD/run/models/dgemm/node.10.points"
SW -D 500:4000:500 --csv "$TMPD/r1.csv" "$TMPD/run" >/dev/null
r=$?
SW -D 500:4000:500 --csv "$TMPD/r2.csv" "$TMPD/run/models/dgemm/node."{0,1,2,10}.points >/dev/null
ok $([ $r -eq 0 ] && cmp -s "$TMPD/r1.csv" "$TMPD/r2.csv" && echo 0 || echo 1) "a run's output directory: DIR/models/APP, files in rank order (0 1 2 10)"
SW -D 500:4000:500 --csv "$TMPD/r3.csv" "$TMPD/run/models/dgemm" >/dev/null
ok $(cmp -s "$TMPD/r1.csv" "$TMPD/r3.csv" && echo 0 || echo 1) "or DIR/models/APP itself"
mkdir -p "$TMPD/run/models/fft"
expect_exit 2 "two applications in the directory" -- "$FUPERMOD" sweep "$TMPD/run"
stderr_has "several applications \((dgemm, fft|fft, dgemm)\): name one" "names them"

# ---- the plots ----
SW -D 50:8000:50 -F pareto --out "$TMPD/plots" $F >"$TMPD/p.out"
ok $([ $? -eq 0 ] && [ "$(grep -vc '^#' "$TMPD/plots/gain.dat")" -eq 160 ] && [ -s "$TMPD/plots/sweep.gp" ] &&
     [ "$(wc -l <"$TMPD/plots/sweep.csv")" -eq 961 ] && echo 0 || echo 1) "--out DIR: sweep.csv, gain.dat (160 workloads), sweep.gp"
ok $(awk 'NR > 1 && NF != 19 { bad = 1 } END { exit bad }' "$TMPD/plots/gain.dat" && echo 0 || echo 1) \
  "gain.dat: D, 5 alternatives x (time, energy, outside), the front's points and spreads"
if command -v gnuplot >/dev/null; then
  ok $([ -s "$TMPD/plots/gain-time.png" ] && [ -s "$TMPD/plots/gain-energy.png" ] && [ -s "$TMPD/plots/front.png" ] &&
       grep -q '^plots: ' "$TMPD/p.out" && echo 0 || echo 1) "the gnuplot plots: gain-time.png, gain-energy.png, front.png"
else
  ok $(grep -q '^gnuplot not available' "$TMPD/p.out" && echo 0 || echo 1) "no gnuplot: the script is named"
fi

# ---- bench/sweep: the throughput table ----
B=${top_builddir:-..}/bench/sweep
if [ -x "$B" ]; then
  "$B" --quick --threads 1 >"$TMPD/bench.out" 2>&1
  ok $([ $? -eq 0 ] && [ "$(grep -Ec '^\| [^|]+ \| (100|10) \| [0-9.]+ s \| [0-9]+ \| [0-9.]+ s \| [0-9]+ \| [0-9]+x \|$' "$TMPD/bench.out")" -eq 2 ] &&
       echo 0 || echo 1) "bench/sweep --quick: one row per platform"
  sed 's/^/# /' "$TMPD/bench.out"
else
  skip "bench/sweep not built"
fi

# ---- memcheck: the full command (the front may be static), two threads ----
if command -v valgrind >/dev/null 2>&1; then
  for args in "-F pareto -k 2 -D 100:1000:100 --parts --out $TMPD/vg" "-F sum -D 100:1000:100 --smooth 2" \
              "-D 0:268435456:33554432 -a even -k 4 $TMPD/wide.points" "-D 9000 -a none"; do
    files=$F
    case $args in *wide*) files= ;; esac
    OMP_NUM_THREADS=2 "$top_builddir/libtool" --mode=execute valgrind -q --suppressions="$top_srcdir/tests/valgrind.supp" \
      --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite "$top_builddir/tools/fupermod-mpi" \
      sweep -q $args $files >/dev/null 2>"$TMPD/vg.err"
    r=$?
    ok $([ $r -ne 99 ] && [ $r -le 3 ] && echo 0 || echo 1) "valgrind clean: sweep $args (exit $r)"
    [ $r -ne 99 ] || sed 's/^/# /' "$TMPD/vg.err" | head -20
  done
else
  skip "valgrind not installed"
fi

# ---- bad inputs ----
expect_exit 2 "no functions" -- "$FUPERMOD" sweep -D 100
stderr_has "no functions given" "says so"
for spec in 5:1 1:5:0 abc 1,,2 -3 1:x; do
  expect_exit 2 "-D '$spec'" -- "$FUPERMOD" sweep -D "$spec" $F
  stderr_has "-D" "names -D"
done
expect_exit 2 "-D with too many workloads" -- "$FUPERMOD" sweep -D 0:100000000:1 $F
expect_exit 2 "-F bad" -- "$FUPERMOD" sweep -F min $F
stderr_has "-F 'min'" "names it"
expect_exit 2 "unknown algorithm" -- "$FUPERMOD" sweep -a balanced,magic $F
stderr_has "unknown partitioner 'magic'" "names it"
expect_exit 2 "an alternative named twice" -- "$FUPERMOD" sweep -a even,even $F
expect_exit 2 "a Pareto algorithm as an alternative" -- "$FUPERMOD" sweep -a hepopta $F
stderr_has "hepopta gives a Pareto front" "says why"
expect_exit 2 "--optimal without a front for -F pareto" -- "$FUPERMOD" sweep -F pareto --optimal hpopta $F
expect_exit 2 "htpopta" -- "$FUPERMOD" sweep -a htpopta $F
expect_exit 2 "popta on different functions" -- "$FUPERMOD" sweep -a popta $F
stderr_has "popta" "names the algorithm"
expect_exit 2 "-k 0" -- "$FUPERMOD" sweep -k 0 $F
expect_exit 2 "--threads 0" -- "$FUPERMOD" sweep --threads 0 $F
expect_exit 2 "--data without --conf" -- "$FUPERMOD" sweep --data "$TMPD" $F
expect_exit 1 "a missing file" -- "$FUPERMOD" sweep "$E/fast.points" "$TMPD/none.points"
stderr_has "none.points" "names it"
printf '10 1\n20 x\n' >"$TMPD/bad.points"
expect_exit 1 "a bad line" -- "$FUPERMOD" sweep "$E/fast.points" "$TMPD/bad.points"
stderr_has "bad.points:2:" "names the file and line"
mkdir "$TMPD/empty"
expect_exit 1 "an empty directory" -- "$FUPERMOD" sweep "$TMPD/empty"
stderr_has "empty: no point files" "names it"
printf '10 1\n20 2\n' >"$TMPD/noe.points"
expect_exit 1 "-F sum without energies" -- "$FUPERMOD" sweep -F sum "$E/fast.points" "$TMPD/noe.points"
stderr_has "noe.points: no energy" "names the file"
expect_exit 2 "--conf with a line that is not emulated, without --data" -- "$FUPERMOD" sweep --conf "$top_srcdir/configs/local.conf"
stderr_has "local.conf:[0-9]+: without --data" "names the file and line"
expect_exit 1 "--conf --data without the files" -- "$FUPERMOD" sweep --conf "$top_srcdir/configs/emulated.conf" --data "$TMPD/none"
stderr_has "localhost.0.points" "names the missing file"
expect_exit 3 "no workload of the range with a distribution" -- "$FUPERMOD" sweep -D 9000:9100 -a none $F
stderr_has "no distribution at any workload" "says so"
expect_exit 1 "--csv into a missing directory" -- "$FUPERMOD" sweep --csv "$TMPD/no/where.csv" $F
stderr_has "no/where.csv" "names it"
# ---- the unit grid (the default): the optimum over every share of one unit, on the model ----
# brute force over integer shares 0..(the largest measured size) on the model that judges
cat >"$TMPD/unit.awk" <<'AWK'
BEGIN { FS = ","; load() }
NR == 1 || $3 != "optimum" { next }
{
  D = $1; best = "inf"
  for (i = 1; i <= P; i++) top[i] = d[(i - 1) % nf + 1, n[(i - 1) % nf + 1]]
  for (x1 = 0; x1 <= top[1]; x1++) for (x2 = 0; x2 <= (P > 2 ? top[2] : 0); x2++) {
    x3 = D - x1 - x2; if (P == 2) { x2v = x3; x3 = 0 } else x2v = x2
    if (x3 < 0 || (P == 2 && (x2v < 0 || x2v > top[2])) || (P > 2 && x3 > top[3])) continue
    v = objective == "t" ? max3(model(1, x1, "t"), model(2, x2v, "t"), P > 2 ? model(3, x3, "t") : 0) \
                         : model(1, x1, "e") + model(2, x2v, "e") + (P > 2 ? model(3, x3, "e") : 0)
    if (best == "inf" || v < best) best = v
  }
  got = objective == "t" ? $5 : $6
  rows++
  if ($4 != "ok" ? best != "inf" : !close_to(got, best)) { bad++; if (bad <= 5) print "# D=" D ": optimum " got ", brute force " best }
}
function max3(a, b, c) { return a > b ? (a > c ? a : c) : (b > c ? b : c) }
END { printf "%d %d\n", rows, bad }
AWK
urows=0 ubad=0
for inst in $(seq 1 12); do
  p=$((inst % 2 + 2)) files=""
  for i in $(seq 1 $p); do gen_fn "$TMPD/u$inst.$i.points" $((inst % 3 + 2)) $((RANDOM % 3 + 4)); files="$files $TMPD/u$inst.$i.points"; done
  cap=$(cat $files | awk '{ last[FILENAME] = $1 } END { for (f in last) s += last[f]; print s }')
  for mode in max sum; do
    "$FUPERMOD" sweep -q -F $mode -D "1:$cap:1" -a even --csv "$TMPD/u.csv" $files >"$TMPD/u.out" 2>&1 ||
      { ubad=$((ubad + 1)); sed 's/^/# /' "$TMPD/u.out" | head -5; continue; }
    set -- $(awk -v files="$files" -v objective=$([ $mode = max ] && echo t || echo e) -v P=$p -f "$TMPD/model.awk" -f "$TMPD/unit.awk" "$TMPD/u.csv" | tee "$TMPD/uc" | tail -1)
    grep '^#' "$TMPD/uc" | head -3
    urows=$((urows + $1)) ubad=$((ubad + $2))
  done
done
ok $([ $ubad -eq 0 ] && [ $urows -gt 300 ] && echo 0 || echo 1) \
  "--grid unit: the time and energy optima equal brute force over every integer share on the model ($urows workloads, $ubad wrong)"
# the acceptance of the evaluation: no alternative beats the optimum on the model that judges both,
# except with shares the model extrapolates (rows marked outside)
for mode in max sum; do
  (cd "$top_srcdir" && "$FUPERMOD" sweep -q -F $mode --csv "$TMPD/g.csv" --conf configs/emulated.conf) >"$TMPD/g.out"
  col=$([ $mode = max ] && echo 7 || echo 8)
  res=$(awk -F, -v c=$col 'NR > 1 && $3 == "alternative" && $4 == "ok" && $c != "" { n++; if ($c + 0 < -1e-9) { neg++; if ($10 + 0 == 0) { bad++; if (bad <= 3) w = w " D=" $1 " " $2 " " $c } } }
    END { printf "%d %d %d%s", n, neg, bad, w }' "$TMPD/g.csv")
  set -- $res
  ok $([ "$3" = 0 ] && [ "$1" -gt 500 ] && grep -q 'chooses among every share of one unit' "$TMPD/g.out" && echo 0 || echo 1) \
    "configs/emulated.conf, -F $mode, the whole range: of $1 alternatives, $2 come out ahead of the optimum, all with shares outside the measured sizes ($3 inside${4:+:$*})"
done
# fupermod partition --grid unit: the same optimum, D by D
F4="$E/fast.points $E/medium.points $E/slow.points $E/accel.points"
"$FUPERMOD" sweep -q -D 125:8000:775 -a none --parts --csv "$TMPD/pu.csv" $F4 >/dev/null 2>&1
pbad=0 pn=0
while IFS=, read -r D alg role st T rest; do
  [ "$D" = D ] && continue
  want=$("$FUPERMOD" partition -a hpopta --grid unit -D $D --json $F4 2>/dev/null | grep -o '"time":[0-9.e-]*' | cut -d: -f2)
  pn=$((pn + 1))
  awk -v a="$T" -v b="$want" 'BEGIN { exit !(a == b) }' || { pbad=$((pbad + 1)); echo "# D=$D: sweep $T, partition '$want'"; }
done <"$TMPD/pu.csv"
ok $([ $pbad -eq 0 ] && [ $pn -ge 10 ] && echo 0 || echo 1) \
  "fupermod partition --grid unit gives the sweep's optimum at $pn workloads off the granule ($pbad different)"
(cd "$top_srcdir" && "$FUPERMOD" sweep -q -k 64 -a balanced -D 5000:500000:100000 --summary --conf configs/emulated.conf) >"$TMPD/k.out" 2>&1
ok $(grep -q 'chooses among the measured sizes only (--grid unit would cost too much here)' "$TMPD/k.out" && echo 0 || echo 1) \
  "-k 64 up to D=500000: the unit grid's table would cost too much; the header says the optimum chooses among the measured sizes"
done_testing
