#!/bin/bash
# What a command that needs neither a GPU nor MPI costs at start: no CUDA library is linked or
# loaded (the GPU plug-ins and the out-of-card executor load them when a GPU is used), and a
# serial partitioner does not initialise MPI (Open MPI's components are loaded by MPI_Init).
. "$top_srcdir/tests/tap.sh"
E="$top_srcdir/configs/emulated"
B=${top_builddir:-..}
BIN="$B/tools/.libs/fupermod"
[ -x "$BIN" ] || BIN="$B/tools/fupermod" # a static build has no libtool wrapper
export LD_LIBRARY_PATH="$B/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

# NEEDED entries, then the whole dependency closure
for f in "$BIN" "$B/.libs/libfupermod.so" "$B/.libs/libfupermod_apps.so" "$B/.libs/libfupermod_ooc.so"; do
  cu=$(readelf -d "$f" 2>/dev/null | grep NEEDED | grep -o '\[libcu[^]]*\]' | tr '\n' ' ')
  ok $([ -e "$f" ] && [ -z "$cu" ] && echo 0 || echo 1) "$(basename "$f") needs no CUDA library ${cu:+(needs $cu)}"
done
cu=$(ldd "$BIN" | grep -o 'libcu[A-Za-z]*\.so[.0-9]*' | sort -u | tr '\n' ' ')
ok $([ -z "$cu" ] && echo 0 || echo 1) "nor does anything the fupermod binary loads at start ${cu:+($cu)}"

# what is loaded while it runs (LD_DEBUG=files names every object the loader maps)
LD_DEBUG=files "$BIN" partition --help >"$TMPD/help.out" 2>"$TMPD/help.ld"
ok $? "fupermod partition --help runs"
cu=$(grep -o 'file=[^ ]*libcu[^ ]*' "$TMPD/help.ld" | sort -u | tr '\n' ' ')
ok $([ -z "$cu" ] && echo 0 || echo 1) "partition --help loads no CUDA library ${cu:+($cu)}"
if [ -x /usr/bin/time ]; then
  /usr/bin/time -f '%M' -o "$TMPD/rss" "$BIN" partition --help >/dev/null 2>&1
  rss=$(tail -1 "$TMPD/rss")
  ok $([ -n "$rss" ] && [ "$rss" -lt 40000 ] && echo 0 || echo 1) "partition --help peaks below 40 MB (${rss} kB)"
else
  skip "no /usr/bin/time: peak memory of partition --help"
fi

LD_DEBUG=files "$BIN" partition -a hpopta -D 300 "$E/fast.points" "$E/slow.points" >"$TMPD/hp.out" 2>"$TMPD/hp.ld"
ok $([ $? -eq 0 ] && grep -q '^hpopta: D=300 over 2 processors' "$TMPD/hp.out" && echo 0 || echo 1) \
  "partition -a hpopta without mpirun partitions"
n=$(grep -c 'file=[^ ]*mca_' "$TMPD/hp.ld")
ok $([ "$n" -eq 0 ] && echo 0 || echo 1) "and initialises no MPI: no Open MPI component loaded ($n)"
cu=$(grep -o 'file=[^ ]*libcu[^ ]*' "$TMPD/hp.ld" | sort -u | tr '\n' ' ')
ok $([ -z "$cu" ] && echo 0 || echo 1) "and loads no CUDA library ${cu:+($cu)}"
# the probe sees an MPI start: paraleph is MPI-parallel and starts MPI even as one process
if grep -q 'libmpi\.so' "$TMPD/hp.ld"; then
  LD_DEBUG=files "$BIN" partition -a paraleph -D 300 --threads 1 "$E/fast.points" "$E/slow.points" >"$TMPD/pl.out" 2>"$TMPD/pl.ld"
  n=$(grep -c 'file=[^ ]*mca_' "$TMPD/pl.ld")
  ok $([ "$n" -gt 0 ] && grep -q '^paraleph: D=300 over 2 processors' "$TMPD/pl.out" && echo 0 || echo 1) \
    "paraleph as one process initialises MPI: the probe sees it ($n components)"
else
  skip "MPI is not Open MPI with shared components here: the probe cannot see MPI_Init"
fi
done_testing
