#!/bin/bash
# README and docs/ describe the software as it is, for its users: no development history
# (sessions, issue numbers) and no paths to documents outside the repository.
. "$top_srcdir/tests/tap.sh"
cd "$top_srcdir" || exit 1
files="README.md $(ls docs/*.md)"
hits=$(grep -niE '\bsessions?\b|\bissue #?[0-9]+' $files)
ok "$([ -z "$hits" ]; echo $?)" "no development history in README.md and docs/ ($(echo $files | wc -w) files)"
echo "$hits" | sed '/^$/d; s/^/# /' | head -20
hits=$(grep -nE '\.\./shared|shared/(spec|notes|seeds)|/work/' $files)
ok "$([ -z "$hits" ]; echo $?)" "no paths outside the repository"
echo "$hits" | sed '/^$/d; s/^/# /' | head -20
# every docs/ page is listed in the README
missing=""
for f in docs/*.md; do grep -q "$f" README.md || missing="$missing $f"; done
ok "$([ -z "$missing" ]; echo $?)" "README lists every page of docs/${missing:+ (missing:$missing)}"
# a figure is dated with its machine: a page of timings says so at its top, or each of its sections
# (## ...) holding one gives a date (README.md, docs/performance.md)
fig='[0-9] (ms|s)([^a-zA-Z]|$)|GFLOP/s|TFLOP/s'
undated=""
for f in $files; do
  grep -qE "$fig" "$f" || continue
  if sed -n '1,6p' "$f" | grep -q '^_Timings on this page.*Intel Xeon' &&
    sed -n '1,6p' "$f" | grep -qE '20[0-9]{2}-[01][0-9]-[0-3][0-9]'; then continue; fi
  undated="$undated $(awk -v fig="$fig" '
    /^## / { if (sec && f && !d) printf "%s:%d ", FILENAME, sec; sec = FNR; f = 0; d = 0 }
    $0 ~ fig { f = 1 }
    /20[0-9][0-9]-[01][0-9]-[0-3][0-9]/ { d = 1 }
    END { if (sec && f && !d) printf "%s:%d", FILENAME, sec }' "$f")"
done
undated=$(echo $undated)
ok "$([ -z "$undated" ]; echo $?)" "every page or section with timings dates them with the machine${undated:+ (undated: $undated)}"
done_testing
