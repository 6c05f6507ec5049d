# Shared start of the cluster tests: source after tests/tap.sh. Skips (with the reason) where the
# virtual cluster cannot run, makes the cluster's directory $CL (not below /tmp: every node has
# its own) and stops the cluster on exit. Then: cluster_up [--slurm] NODE[:CPUS]..., and
# kill_ranks NODE to end the background job $job by the death of NODE's ranks.
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
kill_ranks() { # NODE: kill the fupermod processes of NODE, then wait for $job; sets victims, rc, secs
  local t0
  t0=$(date +%s)
  victims=$("$VC" procs "$CL" | awk -v n="$1" '$1 == n && $3 ~ /^(lt-)?fupermod/ { print $2 }')
  [ -n "$victims" ] && kill -KILL $victims
  wait "$job"
  rc=$?
  job=""
  secs=$(($(date +%s) - t0))
}
