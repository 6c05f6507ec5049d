#!/bin/bash
# bench/cputime (interleaved CPU time of whole commands) and bench/peer_commands (the partition
# command against the peer's tool), the peer replaced by a script that burns a known amount more.
. "$top_srcdir/tests/tap.sh"
B=${top_builddir:-..}
CT="$B/bench/cputime"
burn='BEGIN{for(i=0;i<3000000;i++)s+=i}'
printf '/bin/true\n# a comment\n/usr/bin/awk %s\n' "$burn" >"$TMPD/cmds"
"$CT" 5 "$TMPD/cmds" >"$TMPD/ct" 2>&1
ok $([ $? -eq 0 ] && [ "$(grep -c ' /bin/true$\| /usr/bin/awk ' "$TMPD/ct")" -eq 2 ] &&
     awk '$4 == "/bin/true" { t = $1 } $4 == "/usr/bin/awk" { a = $1 } END { exit !(a > 5 * t && t >= 0) }' "$TMPD/ct" &&
     echo 0 || echo 1) "cputime: one line per command, and a loop of 3e6 costs more than /bin/true"
sed 's/^/# /' "$TMPD/ct"
printf '/bin/false\n' >"$TMPD/bad"
"$CT" 3 "$TMPD/bad" >/dev/null 2>"$TMPD/err"
ok $([ $? -ne 0 ] && grep -q 'failed (status' "$TMPD/err" && echo 0 || echo 1) "cputime: a failing command is an error, not a time"
"$CT" 0 "$TMPD/cmds" >/dev/null 2>&1
ok $([ $? -eq 2 ] && echo 0 || echo 1) "cputime: 0 rounds is a usage error"

if [ ! -x /usr/bin/time ]; then
  skip "no /usr/bin/time: bench/peer_commands"
  done_testing
  exit 0
fi
E="$top_srcdir/configs/emulated"
mkdir -p "$TMPD/dump/ramp-p2-m10-D300"
cp "$E/fast.points" "$TMPD/dump/ramp-p2-m10-D300/000.points"
cp "$E/slow.points" "$TMPD/dump/ramp-p2-m10-D300/001.points"
# the peer's interface: workdist D het 0 DIR, a distribution on stdout
cat >"$TMPD/workdist" <<PEER
#!/bin/bash
[ "\$1" = 300 ] && [ "\$2" = het ] && [ "\$3" = 0 ] && [ -d "\$4" ] || exit 3
/usr/bin/awk '$burn'
echo "150 150"
PEER
chmod +x "$TMPD/workdist"
"$B/bench/peer_commands" "$TMPD/workdist" "$TMPD/dump" 3 3 >"$TMPD/pc" 2>&1
ok $? "peer_commands runs"
sed 's/^/# /' "$TMPD/pc"
row=$(grep '^| ramp | 2 |' "$TMPD/pc")
ok $(echo "$row" | awk -F'|' '{ p = $4 + 0; o = $5 + 0; r = $6 + 0; d = r - p / o; if (d < 0) d = -d
  exit !(p > o && o > 0 && d <= 0.05 * r + 0.05 && $7 + 0 > 0 && $8 + 0 > 0 && $9 + 0 > 0) }' && echo 0 || echo 1) \
  "one row per instance: the peer's median over ours is the ratio printed, and the slower peer is the larger"
"$B/bench/peer_commands" "$TMPD/nothing" "$TMPD/dump" >/dev/null 2>"$TMPD/err"
ok $([ $? -eq 2 ] && grep -q 'is not an executable' "$TMPD/err" && echo 0 || echo 1) "a missing peer tool is named"
done_testing
