#!/bin/bash
# Every command the documentation shows is accounted for. A fenced block of README.md or docs/*.md
# holding a command line carries one of these marks on the line before it:
#   <!-- doctest -->                 run by tests/docs_examples.sh
#   <!-- tested: FILE... -->         run, in substance, by these tests of the suite (or .ci/run)
#   <!-- synopsis -->                a usage summary
#   <!-- benchmark -->               a benchmark (minutes of a quiet machine): its programs are built
#                                    by `make bench`, and run by hand
#   <!-- needs: WHAT -->             hardware or a site this suite has not (a GPU, a real cluster,
#                                    Grid'5000)
# In every block, each option given to fupermod, an application or a benchmark must be one its
# --help lists; every fupermod_ name the pages show must be declared in a header of the tree.
. "$top_srcdir/tests/tap.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
B=$top_builddir
cd "$TMPD" || exit 1
# the blocks: file, first line, mark (or -), one file of lines each
mkdir blocks
for doc in "$top_srcdir/README.md" "$top_srcdir"/docs/*.md; do
  name=${doc#"$top_srcdir"/}
  awk -v name="$name" -v dir="$TMPD/blocks" '
    inside && /^```/ { inside = 0; close(f); next }
    !inside && /^```/ { inside = 1; nm = name; gsub("/", "_", nm)
      f = sprintf("%s/%s@%06d@%s", dir, nm, NR, $0 ~ /^```c/ ? "c" : "x"); print prev > (f ".mark"); close(f ".mark"); printf "" > f; next }
    inside { print >> f; next }
    { prev = $0 }' "$doc"
done
# the programs a block may run, and the text of their help
help_of() { # PROGRAM [SUB [SUB2]] -> help text on stdout
  case $1 in
    fupermod) "$B/tools/fupermod" "${@:2}" --help 2>&1 ;;
    fupermod-summa) "$B/apps/fupermod-summa" -h 2>&1 ;;
    fupermod-*) "$B/apps/$1" --help 2>&1 ;;
    bench/*) "$B/$1" --help 2>&1 ;;
  esac
}
# command lines of a block: prompts removed, continuations joined
commands_of() {
  sed -e 's/^[a-z]*\$ //' -e 's/^\$ //' "$1" | awk '/\\$/ { sub(/\\$/, ""); buf = buf $0; next } { print buf $0; buf = "" }'
}
is_command_block() {
  commands_of "$1" | grep -qE '^(FUPERMOD_[A-Z_]+=[^ ]* )?((mpirun|fupermod|make|cc|mpicc|autoreconf|export|sbatch|srun|oarsub)( |$)|(_build|\.|\.\.|tests/cluster|bench)/[a-z])' &&
    ! commands_of "$1" | grep -qE '^fupermod( [a-z]+)?: '
}
# options on one command line, per program: "PROG SUB|OPTION" lines
options_of() {
  commands_of "$1" | sed 's/  *#.*//' | tr ';|&()' '\n\n\n\n\n' | awk '
    { prog = ""; sub_ = ""
      for (i = 1; i <= NF; i++) {
        w = $i; sub(/.*\//, "", w)
        if (prog == "" && (w == "fupermod" || w ~ /^fupermod-(fft2d|jacobi|summa)$/)) { prog = w; continue }
        if (prog == "" && $i ~ /(^|\/)bench\/[a-z0-9_]+$/ && $i !~ /\.sh$/) { prog = "bench/" w; continue }
        if (prog == "fupermod" && sub_ == "" && $i ~ /^[a-z]+$/) { sub_ = $i
          if ($(i+1) ~ /^(run|summary|script|list|show|plot)$/ && (sub_ == "campaign" || sub_ == "model" || sub_ == "kernel")) { sub_ = sub_ " " $(i+1); i++ }
          continue }
        if (prog != "" && $i ~ /^-[-a-zA-Z]/) { o = $i; sub(/=.*/, "", o); sub(/[],|]+$/, "", o); sub(/^\[/, "", o)
          print prog (sub_ != "" ? " " sub_ : "") "|" o }
      } }' | sed 's/^\[//'
}
# the benchmarks the pages run are built as they tell (make bench), once
(unset MAKEFLAGS MFLAGS MAKELEVEL; make -s -C "$B" bench) >bench.log 2>&1
ok $? "make bench builds the benchmarks"
grep -v dlopen bench.log | tail -5 | sed 's/^/# /'
# the tests of the suite, as make knows them (the cluster ones included)
printf 'print-tests:\n\t@printf "%%s\\n" $(TESTS) $(CLUSTER_TESTS)\n' >print.mk
(unset MAKEFLAGS MFLAGS MAKELEVEL; make -s -C "$B" -f Makefile -f "$TMPD/print.mk" print-tests) >suite 2>/dev/null
marks=0 unmarked="" badtests="" badbench="" badopts="" checked=0 synopses=0
for f in blocks/*; do
  case $f in *.mark) continue ;; esac
  where=$(basename "$f" | cut -d@ -f1-2 | sed 's/_/\//; s/@0*/:/')
  mark=$(cat "$f.mark")
  [ "${f##*@}" = c ] && continue
  is_command_block "$f" || continue
  case $mark in
    '<!-- doctest -->') marks=$((marks + 1)) ;;
    '<!-- synopsis -->') marks=$((marks + 1)); synopses=$((synopses + 1)) ;;
    '<!-- needs: '*' -->') marks=$((marks + 1)) ;;
    '<!-- benchmark -->')
      marks=$((marks + 1))
      for p in $(commands_of "$f" | grep -o '\bbench/[a-z0-9_]*' | sort -u); do
        [ -x "$B/$p" ] || [ -f "$top_srcdir/$p.sh" ] || badbench="$badbench $where($p)"
      done ;;
    '<!-- tested: '*' -->')
      marks=$((marks + 1))
      for t in $(echo "$mark" | sed 's/<!-- tested: //; s/ -->//'); do
        case $t in
          .ci/run) [ -x "$top_srcdir/$t" ] ;;
          *) grep -qxF "$t" suite ;;
        esac || badtests="$badtests $where($t)"
      done ;;
    *) unmarked="$unmarked $where" ;;
  esac
  # each option against its program's help
  while IFS='|' read -r prog opt; do
    [ -n "$prog" ] || continue
    checked=$((checked + 1))
    key=$(echo "$prog" | tr ' /' '__')
    [ -f "help.$key" ] || help_of $prog >"help.$key"
    grep -qE -- "(^|[][ ,|(])$opt([] ,|=)]|$)" "help.$key" || badopts="$badopts $where:$prog:$opt"
  done < <(options_of "$f")
done
ok "$([ -z "$unmarked" ] && [ $marks -ge 40 ]; echo $?)" \
  "each of the $marks command blocks of the docs is marked doctest, tested, synopsis or needs"
for w in $unmarked; do echo "# unmarked: $w"; done
ok "$([ -z "$badtests" ]; echo $?)" "each test a block names is one the suite runs"
for w in $badtests; do echo "# $w"; done
ok "$([ -z "$badbench" ]; echo $?)" "each benchmark a block names is built by make bench"
for w in $badbench; do echo "# $w"; done
ok "$([ -z "$badopts" ] && [ $checked -ge 100 ]; echo $?)" \
  "each of the $checked options the blocks give is one the program's --help lists"
for w in $badopts; do echo "# not in --help: $w"; done

# every fupermod_ name on the pages (not a plug-in's file name) is declared in a header of the tree
cat "$top_srcdir"/README.md "$top_srcdir"/docs/*.md | grep -o '\bfupermod_[a-z0-9_]*[a-z0-9]\b\(\.so\)\?' | grep -v '\.so$' | sort -u >names
find "$top_srcdir/fupermod" "$top_srcdir/partitioners" "$top_srcdir/apps" "$top_srcdir/kernels" "$top_srcdir/tests/fake_cuda" \
  -name '*.h' -exec cat {} + >headers
undeclared=""
while read -r n; do
  grep -qw "$n" headers || undeclared="$undeclared $n"
done <names
ok "$([ -z "$undeclared" ] && [ "$(wc -l <names)" -ge 100 ]; echo $?)" \
  "each of the $(wc -l <names) fupermod_ names of the docs is declared in a header"
for n in $undeclared; do echo "# undeclared: $n"; done
done_testing
