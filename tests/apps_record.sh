#!/bin/bash
# The application programs record their runs beside the models (docs/formats.md, "Application
# runs"): fupermod-fft2d --record DIR and fupermod-summa -R DIR append a line per process to
# DIR/models/runs.csv (its share, the run's median time, its own phases), a second run appends,
# and a directory that cannot be written is an error naming the file, on every rank, after which
# nothing was half written.
. "$top_srcdir/tests/tap.sh"
RUN="$MPIEXEC --oversubscribe --bind-to none"
FFT="$top_builddir/apps/fupermod-fft2d"
SUMMA="$top_builddir/apps/fupermod-summa"
OUT="$TMPD/records"
printf '# fupermod distribution v1\n64 3\n0 16\n1 40\n2 8\n' >"$TMPD/rows.dist"
$RUN -np 3 "$FFT" -M 64 --dist "$TMPD/rows.dist" -r 3 --record "$OUT" >"$TMPD/fft.out" 2>"$TMPD/err"
ok $? "fupermod-fft2d --record runs"
csv="$OUT/models/runs.csv"
sed 's/^/# /' "$csv"
median=$(awk '/^time_best_s/ { print $4 }' "$TMPD/fft.out")
ok "$(awk -F, -v m="$median" 'NR == 1 { ok = $0 ~ /^# fupermod application runs v1/ } NR == 2 { ok = ok && $0 == "launch,date,version,app,size,rank,host,share,whole,phases" }
      NR > 2 { n++; split("16 40 8", d, " "); bad += !($4 == "fft2d" && $5 == 64 && $6 == n - 1 && $8 == d[n] && ($9 - m) ^ 2 < (1e-5 * m) ^ 2 + 1e-12)
               k = split($10, ph, " "); bad += k != 4; for (i = 1; i <= k; i++) { split(ph[i], kv, "="); bad += !(kv[2] >= 0) } 
               bad += $10 !~ /^rows=[0-9.e-]+ transpose=[0-9.e-]+ cols=[0-9.e-]+ transpose_back=[0-9.e-]+$/ }
      END { exit !(ok && n == 3 && bad == 0) }' "$csv"; echo $?)" \
  "a header, then a line per process: its share, the run's median ($median s, as printed), its four phases"
$RUN -np 3 "$SUMMA" -n 128 -b 16 -l br -a 1,2,1 -r 2 -v none -R "$OUT" >"$TMPD/summa.out" 2>"$TMPD/err"
ok $? "fupermod-summa -R runs"
ok "$(awk -F, 'NR > 2 && $4 == "summa" { n++; a += $8; bad += $10 !~ /^updates=[0-9.e-]+ own=[0-9.e-]+$/ } END { exit !(n == 3 && a == 64 && bad == 0) }' "$csv" &&
  [ "$(grep -c '^# fupermod application runs' "$csv")" -eq 1 ]; echo $?)" \
  "the second run appends: 3 lines of summa whose areas sum to the 8 x 8 blocks, one header"
lines=$(wc -l <"$csv")
mkdir -p "$TMPD/ro/models" && touch "$TMPD/ro/models/runs.csv" && chmod 000 "$TMPD/ro/models/runs.csv"
if [ "$(id -u)" = 0 ]; then
  # root writes whatever the mode: a directory in the way of the file instead
  rm -f "$TMPD/ro/models/runs.csv" && mkdir "$TMPD/ro/models/runs.csv"
fi
expect_exit 1 "an unwritable record" -- $RUN -np 3 "$FFT" -M 64 --dist "$TMPD/rows.dist" -r 1 --record "$TMPD/ro"
stderr_has "ro/models/runs.csv: cannot append" "the error names the file"
ok "$([ "$(wc -l <"$csv")" -eq "$lines" ]; echo $?)" "nothing else was written"
done_testing
