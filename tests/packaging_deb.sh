#!/bin/bash
# alone: it installs packages into the system
# The Debian packages of packaging/debian, built from the release tarball (make dist) as
# packaging/README.md tells, checked with lintian, installed with apt-get and used as a user would:
# the command, a 2-process fupermod run on the installed kernels, a program built with cc and
# pkg-config alone. Then purged: none of their files is left. Root only; about 2 minutes.
. "$top_srcdir/tests/tap.sh"
unset FUPERMOD_KERNEL_PATH MAKEFLAGS MFLAGS MAKELEVEL
PKGS="libfupermod0 libfupermod-dev fupermod fupermod-cuda"
skip_all() { echo "1..0 # SKIP $1"; exit 0; }
[ -z "${FUPERMOD_PACKAGE_BUILD:-}" ] || skip_all "inside the build of the packages themselves"
[ "$(id -u)" -eq 0 ] || skip_all "installing packages needs root"
for t in dpkg-buildpackage:dpkg-dev dh:debhelper lintian:lintian apt-get:apt; do
  command -v "${t%%:*}" >/dev/null 2>&1 ||
    skip_all "${t%%:*} not found (${t#*:} is not installed; ./quickstart test installs it as root)"
done
unmet=$(dpkg-checkbuilddeps "$top_srcdir/packaging/debian/control" 2>&1) ||
  skip_all "build dependencies missing: ${unmet##*: }"
for p in $PKGS; do
  case "$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)" in ""|not-installed) continue ;; esac
  skip_all "$p is installed already: this test installs and purges its own (apt-get purge $p first)"
done

# apt-get runs in a session of its own: the time limit's TERM and KILL to this test's process
# group must not stop dpkg halfway (a half-configured system). The packages are purged however the
# test ends: on exit (a failed check, the time limit's TERM), and, should this shell be killed
# first, by a keeper in its own session that waits for it to end (and removes $TMPD).
pkg() { setsid -w env DEBIAN_FRONTEND=noninteractive apt-get -y -q -o DPkg::Lock::Timeout=300 "$@"; }
installed=""
cleanup() {
  [ -n "$installed" ] && pkg purge $installed >"$TMPD/purge-trap.log" 2>&1
  rm -rf "$TMPD"
}
trap cleanup EXIT
trap 'exit 143' TERM INT HUP
keeper() {
  TMPD=$TMPD setsid bash -c 'while kill -0 "$0" 2>/dev/null; do sleep 1; done
    for p in "$@"; do
      case $(dpkg-query -W -f="\${db:Status-Status}" "$p" 2>/dev/null) in ""|not-installed) ;; *) l="$l $p" ;; esac
    done
    [ -z "$l" ] || DEBIAN_FRONTEND=noninteractive apt-get purge -y -q -o DPkg::Lock::Timeout=300 $l
    rm -rf "$TMPD"' $$ "$@" \
    </dev/null >/dev/null 2>&1 &
}

# the release tarball: make dist's directory and archive, made here and not in the build tree
V=$(sed -n 's/^PACKAGE_VERSION = //p' "$top_builddir/Makefile")
make -s -C "$top_builddir" distdir distdir="$TMPD/fupermod-$V" >"$TMPD/dist.log" 2>&1 &&
  tar -C "$TMPD" -czf "$TMPD/fupermod_$V.orig.tar.gz" "fupermod-$V" && rm -rf "$TMPD/fupermod-$V" &&
  tar -C "$TMPD" -xzf "$TMPD/fupermod_$V.orig.tar.gz"
ok $? "make dist's tarball fupermod-$V, unpacked"
sed 's/^/# /' "$TMPD/dist.log" | tail -n 5
SRC=$TMPD/fupermod-$V
if [ -d "$SRC/packaging/debian" ]; then
  cp -r "$SRC/packaging/debian" "$SRC/debian"
else
  echo "# the tarball has no packaging/: debian/ copied from the source tree"
  cp -r "$top_srcdir/packaging/debian" "$SRC/debian"
fi
ok "$([ "$(cd "$SRC" && dpkg-parsechangelog -S Version | sed 's/-[^-]*$//')" = "$V" ]; echo $?)" \
  "debian/changelog's upstream version is the tarball's ($V)"

start=$(date +%s)
(cd "$SRC" && DEB_BUILD_OPTIONS="nocheck parallel=2" dpkg-buildpackage -us -uc -b) >"$TMPD/build.log" 2>&1
rc=$?
ok $rc "dpkg-buildpackage -us -uc -b with DEB_BUILD_OPTIONS=nocheck ($(($(date +%s) - start)) s)"
if [ $rc -ne 0 ]; then
  grep -E 'error|Error|No such file' "$TMPD/build.log" | head -n 20 | sed 's/^/# /'
  tail -n 10 "$TMPD/build.log" | sed 's/^/# /'
  done_testing
  exit
fi
cd "$TMPD" || exit 1
debs=""
for p in libfupermod0 libfupermod-dev fupermod; do debs="$debs $(ls ${p}_*.deb 2>/dev/null)"; done
cuda=$(ls fupermod-cuda_*.deb 2>/dev/null)
ok "$([ "$(echo $debs | wc -w)" -eq 3 ]; echo $?)" "the packages libfupermod0, libfupermod-dev and fupermod are built"
grep -q '^#define FUPERMOD_HAVE_CUDA 1' "$SRC/config.h"
have_cuda=$?
ok "$([ $have_cuda -eq 0 ] && [ -n "$cuda" ] || { [ $have_cuda -ne 0 ] && [ -z "$cuda" ]; }; echo $?)" \
  "fupermod-cuda is built exactly when configure found CUDA ($([ -n "$cuda" ] && echo built || echo not built))"
debs="$debs $cuda"

lintian "$TMPD"/fupermod_*.changes >lintian.out 2>&1
sed 's/^/# lintian: /' lintian.out
ok "$(! grep -q '^E:' lintian.out; echo $?)" "lintian reports no errors ($(grep -c '^W:' lintian.out) warnings)"

# before installing: which of the packages' directories the system has already
for d in $debs; do dpkg-deb --fsys-tarfile "$d" | tar -t | sed 's|^\./|/|; s|/$||'; done | sort -u >paths
while read -r f; do [ -d "$f" ] && echo "$f"; done <paths >dirs.before
for d in $debs; do installed="$installed $(dpkg-deb -f "$d" Package)"; done
keeper $installed
pkg install --no-install-recommends $(printf './%s ' $debs) >install.log 2>&1
ok $? "apt-get install of$installed"
tail -n 5 install.log | sed 's/^/# /'

/usr/bin/fupermod --help >help.out 2>&1
ok $? "the installed fupermod --help exits 0"
E="$top_srcdir/configs/emulated"
/usr/bin/fupermod partition -a hpopta -D 300 "$E/fast.points" "$E/slow.points" >partition.out 2>&1
ok "$([ $? -eq 0 ] && head -n 1 partition.out | grep -q '^hpopta: D=300'; echo $?)" \
  "fupermod partition -a hpopta -D 300 on two point files of configs/emulated"
sed 's/^/# /' partition.out

printf 'localhost 0 none cpu meter=model,meter_power=30\nlocalhost 1 none cpu meter=model,meter_power=18\n' >two.conf
$MPIEXEC --oversubscribe --bind-to none -np 2 /usr/bin/fupermod run --conf two.conf --out results --size 128 \
  --dgemm-b 32 --points 4 --reps 1 -r 1 -R 2 -q --full-grid >run.out 2>&1
rc=$?
ok "$([ $rc -eq 0 ] && grep -q '^== dgemm' run.out && grep -q '^== fft' run.out && grep -q '^fupermod run: done' run.out
      echo $?)" \
  "mpirun -np 2 fupermod run with the installed kernels: DGEMM and FFT reports"
grep -E '^(==|fupermod run)' run.out | sed 's/^/# /'

# a user's program: cc and pkg-config alone, the libraries and headers of the packages
cat >prog.c <<'EOF'
#include <stdio.h>
#include <fupermod/fupermod.h>
#include <fupermod/partitioners/partitioners.h>
int main(int argc, char **argv) {
  fupermod_points f[2] = {{0}};
  const fupermod_points *fs[2] = {&f[0], &f[1]};
  fupermod_problem prob = {300, 2, fs, 0, 0, FUPERMOD_OBJ_TIME};
  const fupermod_partitioner *alg = fupermod_partitioner_find("hpopta");
  fupermod_dist *dist = fupermod_dist_alloc(prob.D, prob.p);
  if (argc != 3 || !alg || !dist || fupermod_points_load(argv[1], &f[0]) != FUPERMOD_SUCCESS ||
      fupermod_points_load(argv[2], &f[1]) != FUPERMOD_SUCCESS || alg->discrete(&prob, dist) != FUPERMOD_SUCCESS) {
    fprintf(stderr, "prog: %s\n", fupermod_error_message());
    return 1;
  }
  printf("hpopta: D=%ld d=%ld %ld\n", dist->D, dist->parts[0].d, dist->parts[1].d);
  fupermod_dist_free(dist);
  fupermod_points_free(&f[0]);
  fupermod_points_free(&f[1]);
  return 0;
}
EOF
cc $(pkg-config --cflags fupermod) prog.c -o prog $(pkg-config --libs fupermod) >cc.out 2>&1 &&
  ./prog "$E/fast.points" "$E/slow.points" >prog.out 2>&1
ok $? "a program built with cc \$(pkg-config --cflags fupermod) prog.c \$(pkg-config --libs fupermod) runs"
sed 's/^/# /' cc.out prog.out
want="hpopta: D=300 d=$(awk '$1 ~ /^[0-9]+$/ { printf "%s%s", s, $2; s = " " }' partition.out)"
ok "$([ "$(cat prog.out)" = "$want" ] && ldd prog | grep -q 'libfupermod\.so\.0 => /usr/lib/'; echo $?)" \
  "it partitions as the installed command does, with the packaged libfupermod ($want)"

# purged: nothing of theirs is left but directories that were there before or that others own
for p in $installed; do dpkg -L "$p"; done | sort -u | grep -vx '/\.' >listed
pkg purge $installed >purge.log 2>&1
ok $? "apt-get purge of$installed"
installed=""
left=""
while read -r f; do
  [ -e "$f" ] || [ -L "$f" ] || continue
  [ -d "$f" ] && [ ! -L "$f" ] && { grep -qxF "$f" dirs.before || dpkg-query -S "$f" >/dev/null 2>&1; } && continue
  left="$left $f"
done <listed
ok "$([ -z "$left" ] && [ -s listed ]; echo $?)" \
  "no file of theirs is left after the purge ($(wc -l <listed) paths listed)"
for f in $left; do echo "# left: $f"; done
done_testing
