# Shared start of the cluster tests: source after tests/tap.sh. Skips (with the reason) where the
# virtual cluster cannot run, makes the cluster's directory $CL (not below /tmp: every node has
# its own) and stops the cluster on exit. Then: cluster_up [--slurm] NODE[:CPUS]...
VC="$top_srcdir/tests/cluster/vcluster"
if [ "$(id -u)" -ne 0 ]; then echo "1..0 # SKIP the virtual cluster needs root (namespaces, mounts)"; exit 0; fi
if ! unshare --uts --ipc --mount --fork true 2>/dev/null; then
  echo "1..0 # SKIP namespaces are refused here: $(unshare --uts --ipc --mount --fork true 2>&1 | head -1)"; exit 0
fi
if [ "${1:-}" = --slurm ]; then
  for p in slurmctld slurmd munged sbatch; do
    command -v $p >/dev/null ||
      { echo "1..0 # SKIP $p is not installed (./quickstart test installs slurm-wlm and munge as root)"; exit 0; }
  done
fi
CL=$(mktemp -d "$top_builddir/tests/vcluster.XXXXXX")
job=""
trap '[ -n "$job" ] && kill "$job" 2>/dev/null; "$VC" down "$CL"; rm -rf "$CL" "$TMPD"' EXIT
cluster_up() { # [--slurm] NODE[:CPUS]...: start the nodes (a TAP point), then work in $CL
  "$VC" up "$CL" "$@" >"$TMPD/up" 2>&1
  ok $? "nodes start: $*"
  sed 's/^/# /' "$TMPD/up"
  [ -f "$CL/env" ] && . "$CL/env"
  cd "$CL" || exit 1
}
