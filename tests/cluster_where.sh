#!/bin/bash
# The virtual cluster wherever the tree is: the same build seen under /tmp (which every node
# replaces with a /tmp of its own) and under /var/tmp, through a bind mount in a private mount
# namespace, runs tests/cluster_slurm.sh (Slurm, sbatch with mpirun across the nodes, srun with
# PMIx) from there: its state, scratch and output directories then lie in that tree.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/cluster/setup.sh" --slurm
src=$(cd "$top_srcdir" && pwd -P)
build=$(cd "$top_builddir" && pwd -P)

for base in /tmp /var/tmp; do
  mkdir -p "$base" && m=$(mktemp -d "$base/fupermod-where.XXXXXX") || { ok 1 "a directory in $base"; continue; }
  # the binaries' own paths (libtool wrappers) still name the real tree, which the nodes must see too
  unshare --mount --propagation private --fork bash -c '
    m=$1 src=$2 build=$3
    mkdir -p "$m/src" && mount --bind "$src" "$m/src" || exit 90
    case "$build" in
      "$src"/*) b="$m/src/${build#"$src"/}" ;;
      *) { mkdir -p "$m/build" && mount --bind "$build" "$m/build"; } || exit 90; b=$m/build ;;
    esac
    cd "$b" || exit 90
    export top_srcdir=$m/src top_builddir=$b TMPDIR=$m VCLUSTER_SHARE=$src:$build
    exec bash "$m/src/tests/cluster_slurm.sh"' where "$m" "$src" "$build" >"$TMPD/inner" 2>&1
  rc=$?
  relay "tree in $base" "$TMPD/inner"
  ok $rc "tree in $base: the cluster test passes from $m/src (exit $rc)"
  # the bind mounts lived in the namespace that ended: these are empty mount points now
  rmdir "$m/src" "$m/build" 2>/dev/null
  rmdir "$m" 2>/dev/null || { echo "# left in $m: $(ls -A "$m")"; }
done
done_testing
