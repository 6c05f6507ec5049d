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
done_testing
