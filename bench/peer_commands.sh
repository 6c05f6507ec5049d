#!/bin/bash
# Whole partition commands against the peer HPOPTA tool, on the instances bench/partitioners
# --dump writes: CPU time per command (bench/cputime, interleaved rounds) and peak resident set.
# `make bench` writes bench/peer_commands in the build directory from bench/peer_commands.sh.
BUILD=${FUPERMOD_BUILD:-%BUILD_DIR%}
SRC=${FUPERMOD_SRC:-%SRC_DIR%}
usage() {
  cat <<USAGE
usage: $0 WORKDIST DUMPDIR [ROUNDS32 [ROUNDS128]]

WORKDIST: the peer's command (hpopt/ of the public hclmpifft repository, built with its CMake
files: build/tools/workdist), run as 'workdist D het 0 DIR'. DUMPDIR: instances from
  $BUILD/bench/partitioners --dump DUMPDIR --sizes 1000 ...   (FAMILY-pP-mM-DN/NNN.points)
For each instance, in interleaved rounds (default 21 at p <= 32, 3 above), with OMP_NUM_THREADS=1:
  the peer, fupermod partition -a hpopta -D N FILES..., and the same with -a even
(what reading and checking the files costs any partition). Prints a Markdown table: medians in
ms, the peer's over ours, and each command's peak resident set (one run, /usr/bin/time).
USAGE
}
[ "$1" = -h ] || [ "$1" = --help ] && { usage; exit 0; }
[ $# -ge 2 ] || { usage >&2; exit 2; }
PEER=$1 DUMP=$2 R32=${3:-21} R128=${4:-3}
FUP=$BUILD/tools/fupermod
CPUTIME=$BUILD/bench/cputime
for x in "$PEER" "$FUP" "$CPUTIME"; do
  [ -x "$x" ] || { echo "$0: $x is not an executable (make bench?)" >&2; exit 2; }
done
[ -x /usr/bin/time ] || { echo "$0: needs /usr/bin/time (package time)" >&2; exit 2; }
export OMP_NUM_THREADS=1
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
echo "# $(uname -n), $(nproc --all) CPUs, $(date -u '+%Y-%m-%d %H:%M UTC'), fupermod $(git -C "$SRC" rev-parse --short HEAD 2>/dev/null || echo '?')"
echo "| family | p | peer | \`-a hpopta\` | peer / ours | \`-a even\` | peer max RSS | ours max RSS |"
echo "|---|---|---|---|---|---|---|---|"
for dir in "$DUMP"/*-p*-m*-D*; do
  [ -d "$dir" ] || continue
  name=$(basename "$dir")
  fam=${name%-p*} rest=${name#"$fam"-p} p=${rest%%-*} D=${name##*-D}
  files=$(ls "$dir"/*.points | tr '\n' ' ')
  rounds=$R32
  [ "$p" -gt 32 ] && rounds=$R128
  {
    echo "$PEER $D het 0 $dir"
    echo "$FUP partition -a hpopta -D $D $files"
    echo "$FUP partition -a even -D $D $files"
  } >"$T/cmds"
  "$CPUTIME" "$rounds" "$T/cmds" >"$T/out" || { echo "$0: $name failed" >&2; exit 1; }
  med=($(awk 'NR > 1 { print $1 }' "$T/out"))
  /usr/bin/time -f %M -o "$T/rp" "$PEER" "$D" het 0 "$dir" >/dev/null 2>&1
  /usr/bin/time -f %M -o "$T/ro" $FUP partition -a hpopta -D "$D" $files >/dev/null 2>&1
  awk -v f="$fam" -v p="$p" -v a="${med[0]}" -v b="${med[1]}" -v c="${med[2]}" -v ra="$(tail -1 "$T/rp")" \
    -v rb="$(tail -1 "$T/ro")" 'BEGIN { printf "| %s | %s | %.1f ms | %.2f ms | %.1fx | %.2f ms | %.1f MB | %.1f MB |\n",
    f, p, a, b, a / b, c, ra / 1024, rb / 1024 }'
done
