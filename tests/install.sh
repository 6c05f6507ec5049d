#!/bin/bash
# The installed library as a user sees it: configure with a temporary prefix, make install, then
# build out of the tree with pkg-config only: a program that includes every installed header and
# links every installed library, and the kernel guide of docs/kernels.md verbatim. Each library
# exports exactly the functions its installed headers declare.
. "$top_srcdir/tests/tap.sh"
unset FUPERMOD_KERNEL_PATH MAKEFLAGS MFLAGS MAKELEVEL
PREFIX=$TMPD/prefix
# configure refuses a second build of a source tree that is configured in place (./configure &&
# make check): then it configures a copy of the sources that `make dist` would ship
src=$top_srcdir
if [ -f "$top_srcdir/config.status" ]; then
  src=$TMPD/src
  make -s -C "$top_builddir" distdir distdir="$src" top_distdir="$src" >"$TMPD/distdir.log" 2>&1 ||
    { sed 's/^/# /' "$TMPD/distdir.log" | tail -20; }
fi
mkdir "$TMPD/build" && cd "$TMPD/build" || exit 1
"$src/configure" -q --prefix="$PREFIX" >configure.log 2>&1 &&
  make -s -j2 >make.log 2>&1 && make -s install >install.log 2>&1
ok $? "configure --prefix, make and make install into a temporary prefix"
tail -n 20 configure.log make.log install.log | sed 's/^/# /'
export PKG_CONFIG_PATH=$PREFIX/lib/pkgconfig
ok "$(pkg-config --exists fupermod fupermod-apps; echo $?)" "pkg-config finds fupermod and fupermod-apps"
ok "$([ -d "$PREFIX/include/fupermod/partitioners" ] && [ -d "$PREFIX/include/fupermod/apps" ]; echo $?)" \
  "headers are installed below include/fupermod"

# every installed header, alone and all together, in the installed layout only
cd "$TMPD" || exit 1
CFLAGS="$(pkg-config --cflags fupermod-apps)"
headers=$(cd "$PREFIX/include" && find fupermod -name '*.h' | sort)
bad=0
for h in $headers; do
  printf '#include <%s>\n' "$h" >one.c
  cc -std=c99 -Wall -Wextra -Werror -fsyntax-only $CFLAGS one.c 2>>one.err || { bad=1; echo "# $h does not compile alone"; }
done
ok $bad "each of the $(echo "$headers" | wc -w) installed headers compiles on its own, as C99"
sed 's/^/# /' one.err 2>/dev/null | head -20
printf '#include <%s>\n' $headers >headers.h
cp "$top_srcdir/tests/install_user.c" .
cc -O1 -Wall -Wextra -Werror $CFLAGS install_user.c -o install_user $(pkg-config --libs fupermod-apps) -lm 2>cc.err
ok $? "a program including every installed header builds with cc and pkg-config alone"
sed 's/^/# /' cc.err
missing=0
for l in libfupermod libfupermod_apps libfupermod_ooc; do
  readelf -d install_user | grep -q "NEEDED.*\[$l\.so" || { missing=1; echo "# install_user does not need $l"; }
done
ok $missing "it links every installed library"
$MPIEXEC --oversubscribe --bind-to none -np 2 ./install_user >run.out 2>&1
ok $? "it runs under mpirun: PARALEPH, HiPOPTA and its own registered partitioner"
sed 's/^/# /' run.out
ok "$([ "$(grep -c '^pass' run.out)" -eq 5 ]; echo $?)" "all 5 of its checks pass"

# the same program with CMake: find_package(fupermod) and its imported targets (docs/library.md)
# fenced MARK FILE: the fenced block after the line "<!-- tested: MARK -->" of FILE
fenced() { awk -v m="<!-- tested: $1 -->" '$0 == m { on = 1; next } on == 1 && /^```/ { on = 2; next } on == 2 && /^```/ { exit } on == 2' "$2"; }
if command -v cmake >/dev/null; then
  mkdir -p "$TMPD/cm" && cp install_user.c headers.h "$TMPD/cm/" &&
    fenced "tests/install.sh, CMake" "$top_srcdir/docs/library.md" >"$TMPD/cm/CMakeLists.txt"
  (cd "$TMPD/cm" && sed -i 's/\bapp\b/install_user/g; s/app\.c/install_user.c/' CMakeLists.txt &&
    cmake -S . -B b -DCMAKE_PREFIX_PATH="$PREFIX" >cmake.log 2>&1 && cmake --build b >>cmake.log 2>&1)
  ok "$([ $? -eq 0 ] && grep -q 'find_package(fupermod' "$TMPD/cm/CMakeLists.txt" && [ -x "$TMPD/cm/b/install_user" ]; echo $?)" \
    "the same program builds with CMake: find_package(fupermod) and fupermod::apps, as docs/library.md writes it"
  sed 's/^/# /' "$TMPD/cm/CMakeLists.txt"
  tail -n 15 "$TMPD/cm/cmake.log" | sed 's/^/# /'
  $MPIEXEC --oversubscribe --bind-to none -np 2 "$TMPD/cm/b/install_user" >cm.out 2>&1
  ok "$([ "$(grep -c '^pass' cm.out)" -eq 5 ]; echo $?)" "the CMake build runs under mpirun and passes its 5 checks"
  (cd "$TMPD/cm" && sed -i 's/find_package(fupermod [0-9.]*/find_package(fupermod 9.0/' CMakeLists.txt &&
    cmake -S . -B b2 -DCMAKE_PREFIX_PATH="$PREFIX" >cmake2.log 2>&1)
  ok "$([ $? -ne 0 ] && grep -q 'fupermod' "$TMPD/cm/cmake2.log"; echo $?)" "find_package(fupermod 9.0) refuses this version"
else
  skip "cmake is not installed (quickstart test installs it as root)"
fi

# the application plug-in of docs/apps.md, from the installed example, built as a user would with
# pkg-config and with CMake, each run by path with the installed fupermod run
ex=$PREFIX/share/doc/fupermod/examples/jacobi_app.c
mkdir -p "$TMPD/plug" "$TMPD/plugcm" && cd "$TMPD/plug" || exit 1
mpicc -O2 -shared -fPIC $(pkg-config --cflags fupermod-apps) "$ex" -o fupermod_app_jacobi.so $(pkg-config --libs fupermod-apps) 2>cc.err
ok $? "the example application plug-in builds from the installed example with pkg-config, as docs/apps.md writes it"
sed 's/^/# /' cc.err
printf 'localhost 0 none cpu\nlocalhost 1 none cpu\n' >two.conf
plugrun() { $MPIEXEC --oversubscribe --bind-to none -np 2 "$PREFIX/bin/fupermod" run --conf two.conf --out "$1" --app "$2" \
  --size 512 --points 4 --reps 1 -r 2 -R 2 --race-rounds 1 -q >"$1.out" 2>"$1.err"; }
plugrun pc "$TMPD/plug/fupermod_app_jacobi.so"
ok "$([ $? -eq 0 ] && grep -q '^   whole-run predictions: out of sample' pc.out && [ -s pc/report-jacobi.csv ]; echo $?)" \
  "the installed fupermod run builds, predicts, chooses and reports the plug-in built with pkg-config"
tail -n 5 pc.err | sed 's/^/# /'
if command -v cmake >/dev/null; then
  cp "$ex" "$TMPD/plugcm/" && fenced "tests/install.sh, plug-in CMake" "$top_srcdir/docs/apps.md" >"$TMPD/plugcm/CMakeLists.txt"
  (cd "$TMPD/plugcm" && cmake -S . -B b -DCMAKE_PREFIX_PATH="$PREFIX" >cmake.log 2>&1 && cmake --build b >>cmake.log 2>&1)
  ok "$([ $? -eq 0 ] && [ -s "$TMPD/plugcm/b/fupermod_app_jacobi.so" ]; echo $?)" \
    "the plug-in builds with CMake (find_package(fupermod), a MODULE on fupermod::apps), as docs/apps.md writes it"
  tail -n 10 "$TMPD/plugcm/cmake.log" | sed 's/^/# /'
  plugrun cm "$TMPD/plugcm/b/fupermod_app_jacobi.so"
  ok "$([ $? -eq 0 ] && grep -q '^   whole-run predictions: out of sample' cm.out; echo $?)" "and runs in the installed fupermod run"
  tail -n 5 cm.err | sed 's/^/# /'
else
  skip "cmake is not installed (quickstart test installs it as root)"
  skip "cmake is not installed"
fi
cd "$TMPD" || exit 1

# nothing of the build tree where the installed programs and libraries look things up: their run
# paths and their constant strings (debug information may name it, as with any -g build)
leaks=""
for f in $(find "$PREFIX/lib" "$PREFIX/bin" -type f \( -name '*.so*' -o -perm -u+x \)); do
  { readelf -d "$f" 2>/dev/null | grep -E 'RPATH|RUNPATH'; readelf -p .rodata "$f" 2>/dev/null; } |
    grep -qF -e "$top_builddir" -e "$TMPD/build" && leaks="$leaks $f"
done
ok "$([ -z "$leaks" ]; echo $?)" "no installed library or program names the build tree in a run path or a string"
for f in $leaks; do echo "# $f"; done

# exported symbols of each library equal what the installed headers declare
cc $CFLAGS -fsyntax-only -aux-info aux.txt -x c headers.h 2>/dev/null
grep -v '\*/ static' aux.txt | grep -o 'fupermod_[A-Za-z0-9_]* (' | sed 's/ (//' | sort -u >declared
: >exported
extra=0
for l in libfupermod libfupermod_apps libfupermod_ooc; do
  nm -D --defined-only "$PREFIX/lib/$l.so" | awk '{ print $3 }' | sort -u >"$l.sym"
  cat "$l.sym" >>exported
  comm -23 "$l.sym" declared >"$l.extra"
  [ -s "$l.extra" ] && { extra=1; echo "# $l exports undeclared: $(tr '\n' ' ' <"$l.extra")"; }
done
ok $extra "each library exports only functions its installed headers declare"
sort -u exported -o exported
comm -13 exported declared >undefined
ok "$([ ! -s undefined ] && [ "$(wc -l <declared)" -gt 150 ]; echo $?)" \
  "every declared function is exported by one of them ($(wc -l <declared) functions)"
sed 's/^/# not exported: /' undefined

# docs/kernels.md, "With fupermod installed", verbatim
awk '/<!-- installed build end -->/ { p = 0 } p && !/^```/ && !/^<!--/ { print } /<!-- installed build begin -->/ { p = 1 }' \
  "$top_srcdir/docs/kernels.md" >guide.sh
mkdir guide && cp "$PREFIX/share/doc/fupermod/examples/triad.c" "$PREFIX/share/doc/fupermod/examples/check.c" guide/
[ "$(grep -c '^./check' guide.sh)" -eq 2 ] && (cd guide && bash -e ../guide.sh) >guide.out 2>&1
ok $? "the installed-build commands of docs/kernels.md run as shown ($(grep -c . guide.sh) lines)"
sed 's/^/# /' guide.out | tail -20
ok "$([ "$(grep -c '^verify: pass' guide.out)" -eq 2 ]; echo $?)" \
  "both kernels pass their self-check, the bundled one found in the installed kernel directory"

# docs/library.md, "First use": its C example and commands, verbatim, against the install
mkdir lib && cd lib || exit 1
awk '/<!-- library example end -->/ { p = 0 } p { print } /<!-- library example begin -->/ { p = 1 }' \
  "$top_srcdir/docs/library.md" >block.md
awk '/^```c$/ { p = 1; next } /^```$/ { p = 0 } p' block.md >partition.c
awk '/^```c$/ { c = 1; next } /^```$/ { if (c) c = 0; else p = !p; next } p' block.md >commands.sh
cp "$top_srcdir/configs/emulated/fast.points" "$top_srcdir/configs/emulated/slow.points" .
[ -s partition.c ] && [ "$(grep -c '^./partition' commands.sh)" -eq 2 ] && bash -e commands.sh >lib.out 2>&1
ok $? "docs/library.md's first-use example builds with pkg-config alone and runs as shown"
sed 's/^/# /' lib.out | tail -8
same=0
for a in hpopta geometric; do
  ./partition $a 300 fast.points slow.points | awk '{ print $1, $2 }' >$a.lib
  "$PREFIX/bin/fupermod" partition -a $a -D 300 fast.points slow.points | awk '$1 ~ /^[0-9]+$/ { print $1, $2 }' >$a.cmd
  cmp -s $a.lib $a.cmd || { same=1; echo "# $a: the example gives $(tr '\n' ' ' <$a.lib), fupermod partition $(tr '\n' ' ' <$a.cmd)"; }
done
ok $same "the example's distributions are those of fupermod partition (hpopta and geometric)"
./partition hpopt 300 fast.points slow.points >typo.out 2>&1
ok "$([ $? -eq 1 ] && grep -q "unknown partitioner 'hpopt' (did you mean 'hpopta'?)" typo.out; echo $?)" \
  "a misspelt partitioner name fails with the library's message and the closest name"
sed 's/^/# /' typo.out
cd "$TMPD" || exit 1

# the installed command: the front in bin, the full command in libexec/fupermod
E="$top_srcdir/configs/emulated"
"$PREFIX/bin/fupermod" partition -a hpopta -D 300 "$E/fast.points" "$E/slow.points" >front.out 2>&1 &&
  "$PREFIX/bin/fupermod" model "$E/fast.points" >model.out 2>&1
ok "$([ $? -eq 0 ] && [ -x "$PREFIX/libexec/fupermod/fupermod-mpi" ] && grep -q '^hpopta: D=300' front.out; echo $?)" \
  "installed fupermod partitions in its front and runs model in libexec/fupermod/fupermod-mpi"
tail -n 5 front.out model.out | sed 's/^/# /'
done_testing
