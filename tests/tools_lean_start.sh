#!/bin/bash
# What a command that needs neither a GPU nor MPI costs at start: no CUDA library is linked or
# loaded (the GPU plug-ins and the out-of-card executor load them when a GPU is used), and a
# serial partitioner does not initialise MPI (Open MPI's components are loaded by MPI_Init). The
# `fupermod` front runs a serial partition of point files with none of MPI, BLAS, FFTW or hwloc
# loaded, and becomes the full command (fupermod-mpi) for everything else.
. "$top_srcdir/tests/tap.sh"
E="$top_srcdir/configs/emulated"
B=${top_builddir:-..}
BIN="$B/tools/fupermod"
FULL="$B/tools/.libs/fupermod-mpi"
[ -x "$FULL" ] || FULL="$B/tools/fupermod-mpi" # a static build has no libtool wrapper
export LD_LIBRARY_PATH="$B/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

# NEEDED entries, then the whole dependency closure
for f in "$BIN" "$FULL" "$B/.libs/libfupermod.so" "$B/.libs/libfupermod_apps.so" "$B/.libs/libfupermod_ooc.so"; do
  cu=$(readelf -d "$f" 2>/dev/null | grep NEEDED | grep -o '\[libcu[^]]*\]' | tr '\n' ' ')
  ok $([ -e "$f" ] && [ -z "$cu" ] && echo 0 || echo 1) "$(basename "$f") needs no CUDA library ${cu:+(needs $cu)}"
done
# only the GPU plug-ins and the out-of-card executor link CUDA, and only sonames the stand-in CUDA
# (tests/fake_cuda) provides, so that tests/standin.sh can put it in the real one's place
others=""
missing=""
nmod=0
for f in "$B"/.libs/lib*.so "$B"/tools/.libs/* "$B"/kernels/.libs/*.so; do
  cu=$(readelf -d "$f" 2>/dev/null | grep NEEDED | grep -o '\[libcu[^]]*\]' | tr -d '[]' | tr '\n' ' ')
  [ -n "$cu" ] || continue
  case "$f" in
    */kernels/.libs/*cuda*.so | */kernels/.libs/*-ooc.so) nmod=$((nmod + 1)) ;;
    *) others="$others $(basename "$f")" ;;
  esac
  for so in $cu; do [ -e "$B/tests/fake_cuda/.libs/$so" ] || missing="$missing $so"; done
done
ok $([ -z "$others" ] && echo 0 || echo 1) "nothing but the $nmod GPU modules links a CUDA library${others:+ (also:$others)}"
if [ $nmod -gt 0 ]; then
  ok $([ -z "$missing" ] && echo 0 || echo 1) "the stand-in CUDA has every soname they link${missing:+ (not:$missing)}"
else
  skip "no GPU module (configure found no CUDA): the stand-in's sonames"
fi
cu=$(ldd "$FULL" | grep -o 'libcu[A-Za-z]*\.so[.0-9]*' | sort -u | tr '\n' ' ')
ok $([ -z "$cu" ] && echo 0 || echo 1) "nor does anything the full command loads at start ${cu:+($cu)}"
heavy=$(ldd "$BIN" | grep -o 'lib\(mpi\|open-pal\|openblas\|fftw3[a-z_]*\|hwloc\|scalapack[a-z-]*\|fupermod[a-z_]*\)\.so' | sort -u | tr '\n' ' ')
ok $([ -x "$BIN" ] && [ -z "$heavy" ] && echo 0 || echo 1) "the fupermod front loads no MPI, BLAS, FFTW, hwloc or fupermod library ${heavy:+($heavy)}"
# linked statically or not, no MPI, OpenBLAS, FFTW or hwloc function is in it or asked of a library
heavy=$(nm "$BIN" 2>/dev/null | grep -o ' \(MPI_Init\|dgemm_\|openblas_[a-z_]*\|fftw_plan_[a-z_0-9]*\|hwloc_topology_init\)$' | sort -u | tr '\n' ' ')
ok $(nm "$BIN" 2>/dev/null | grep -q ' cmd_partition$' && [ -z "$heavy" ] && echo 0 || echo 1) \
  "the fupermod front holds no MPI, OpenBLAS, FFTW or hwloc code ${heavy:+($heavy)}"

# libgcc's CPU model runs a dozen cpuid at start (each a trap in a virtual machine): the kernels
# ask glibc, which has looked already
ok $(nm "$BIN" 2>/dev/null | grep -q ' __cpu_indicator_init$' && echo 1 || echo 0) \
  "the fupermod front runs no libgcc CPU model (__cpu_indicator_init) at start"

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
n=$(grep -c 'file=[^ ]*\(mca_\|libmpi\|libopenblas\|libfftw\)' "$TMPD/hp.ld")
ok $([ "$n" -eq 0 ] && echo 0 || echo 1) "and loads neither MPI nor BLAS nor FFTW ($n objects)"
cu=$(grep -o 'file=[^ ]*libcu[^ ]*' "$TMPD/hp.ld" | sort -u | tr '\n' ' ')
ok $([ -z "$cu" ] && echo 0 || echo 1) "and loads no CUDA library ${cu:+($cu)}"
# the front leaves what it does not run to the full command, with the arguments as given
"$BIN" partition -D 300 -a hpopta --json "$E/fast.points" "$E/slow.points" >"$TMPD/front.json"
"$FULL" partition -D 300 -a hpopta --json "$E/fast.points" "$E/slow.points" >"$TMPD/full.json"
ok $([ -s "$TMPD/front.json" ] && cmp -s "$TMPD/front.json" "$TMPD/full.json" && echo 0 || echo 1) \
  "the front and the full command give the same distribution"
# 3 MB of points land in transparent huge pages (2 faults), not in 800 pages of 4 kB: 32 files
# against one, the faults that grow with the points stay few
thp=$(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)
if [ -x /usr/bin/time ] && [ -n "$thp" ] && ! echo "$thp" | grep -q '\[never\]'; then
  mkdir "$TMPD/many"
  for i in $(seq -w 0 31); do
    awk -v s=$i 'BEGIN { srand(s + 1); for (d = 1; d <= 1000; d++) printf "%d %.14f\n", d, 1 + 999 * rand() }' >"$TMPD/many/$i.points"
  done
  faults() { OMP_NUM_THREADS=1 /usr/bin/time -f '%R' -o "$TMPD/flt" "$BIN" partition -a hpopta -D 1000 "$@" >/dev/null 2>&1 && tail -1 "$TMPD/flt"; }
  # the fewest for one file, the most for 32 of five runs: where the heap starts varies run to run,
  # and with it how much of the points a broken huge-page set-up would leave to 4 kB pages
  one=$(for k in 1 2 3; do faults "$TMPD/many/00.points"; done | sort -n | head -1)
  all=$(for k in 1 2 3 4 5; do faults "$TMPD/many/"*.points; done | sort -n | tail -1)
  ok $([ -n "$one" ] && [ -n "$all" ] && [ $((all - one)) -lt 150 ] && echo 0 || echo 1) \
    "32 point files (3 MB of points) cost $((all - one)) page faults more than one (huge pages: < 150)"
else
  skip "no /usr/bin/time or no transparent huge pages: page faults of the points"
fi
# every serial algorithm: the same output and exit status from the front as from the full command
algs=$("$FULL" partition --help | awk '/^algorithms:/ { a = 1; next } a && /^  [a-z]/ { print $1 } a && /^$/ { exit }' | grep -v '^paraleph$')
bad=""
for a in $algs; do
  "$BIN" partition -a $a -D 600 --static-power 5 --json "$E/fast.points" "$E/slow.points" "$E/accel.points" >"$TMPD/f.$a" 2>&1
  r1=$?
  "$FULL" partition -a $a -D 600 --static-power 5 --json "$E/fast.points" "$E/slow.points" "$E/accel.points" >"$TMPD/g.$a" 2>&1
  r2=$?
  [ $r1 -eq $r2 ] && [ -s "$TMPD/f.$a" ] && cmp -s "$TMPD/f.$a" "$TMPD/g.$a" || bad="$bad $a"
done
ok $([ -z "$bad" ] && [ $(echo $algs | wc -w) -ge 12 ] && echo 0 || echo 1) \
  "each of the $(echo $algs | wc -w) serial algorithms: the front gives what the full command gives${bad:+ (differ:$bad)}"
"$BIN" partition --help >"$TMPD/ph.out"
ok $(grep -q '^  paraleph ' "$TMPD/ph.out" && echo 0 || echo 1) "partition --help (from the full command) lists paraleph"
"$BIN" partition -a magic -D 5 "$E/fast.points" 2>"$TMPD/magic.err"
rc=$?
ok $([ $rc -eq 2 ] && grep -q "unknown partitioner 'magic'; known:.* paraleph" "$TMPD/magic.err" && echo 0 || echo 1) \
  "an unknown algorithm: exit 2 and the full list ($rc)"
"$BIN" --version >"$TMPD/v.out" && "$BIN" model "$E/fast.points" >"$TMPD/m.out" 2>&1
ok $([ $? -eq 0 ] && grep -q '^fupermod ' "$TMPD/v.out" && [ -s "$TMPD/m.out" ] && echo 0 || echo 1) \
  "other subcommands run in the full command"
# a front without its full command says which file it could not run, and fails
mkdir "$TMPD/alone" && cp "$BIN" "$TMPD/alone/fupermod"
"$TMPD/alone/fupermod" model "$E/fast.points" >/dev/null 2>"$TMPD/alone.err"
rc=$?
if grep -q 'cannot run .*fupermod-mpi' "$TMPD/alone.err" || [ $rc -ne 0 ]; then
  ok $([ $rc -eq 1 ] && grep -q 'cannot run .*fupermod-mpi' "$TMPD/alone.err" && echo 0 || echo 1) \
    "a front without fupermod-mpi: exit 1, naming the file ($rc: $(head -c 120 "$TMPD/alone.err"))"
else
  skip "an installed fupermod-mpi answered the copied front"
fi
# the probe sees an MPI start: paraleph is MPI-parallel and starts MPI even as one process
if ldd "$FULL" | grep -q 'libmpi\.so'; then
  LD_DEBUG=files "$BIN" partition -a paraleph -D 300 --threads 1 "$E/fast.points" "$E/slow.points" >"$TMPD/pl.out" 2>"$TMPD/pl.ld"
  n=$(grep -c 'file=[^ ]*mca_' "$TMPD/pl.ld")
  ok $([ "$n" -gt 0 ] && grep -q '^paraleph: D=300 over 2 processors' "$TMPD/pl.out" && echo 0 || echo 1) \
    "paraleph as one process initialises MPI: the probe sees it ($n components)"
else
  skip "MPI is not Open MPI with shared components here: the probe cannot see MPI_Init"
fi
done_testing
