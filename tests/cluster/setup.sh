# Shared start of the cluster tests: source after tests/tap.sh. Skips (with the reason) only where
# a precondition of the virtual cluster fails (not root, namespaces refused, Slurm missing), makes
# the cluster's directory $CL in the build tree and stops the cluster on exit. Then:
# cluster_up [--slurm] NODE[:CPUS]... (a cluster that does not come up is one failure, with its
# log, and ends the test), and kill_ranks NODE to end the background job $job by the death of
# NODE's ranks (with HOLD_RELEASE=FILE, FILE is created once they are killed: the hold's release).
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
  # the tree and the test's scratch directory stay visible on the nodes wherever they are (/tmp too)
  "$VC" up "$CL" --share "$top_srcdir" --share "$top_builddir" --share "$TMPD" "$@" >"$TMPD/up" 2>&1
  local rc=$?
  ok $rc "nodes start: $*"
  sed 's/^/# /' "$TMPD/up"
  if [ $rc -ne 0 ]; then
    for f in "$CL"/*.log "$CL"/*.out; do [ -s "$f" ] && { echo "# $f:"; tail -n 20 "$f" | sed 's/^/#   /'; }; done
    done_testing
    exit 1
  fi
  [ -f "$CL/env" ] && . "$CL/env"
  cd "$CL" || exit 1
}
kill_ranks() { # NODE: kill the fupermod processes of NODE, then wait for $job; sets victims, rc, secs
  local t0
  t0=$(date +%s)
  victims=$("$VC" procs "$CL" | awk -v n="$1" '$1 == n && $3 ~ /^(lt-)?fupermod/ { print $2 }')
  [ -n "$victims" ] && kill -KILL $victims
  # a rank held by FUPERMOD_TEST_HOLD goes on only now: the killed ones can no longer see it
  [ -n "${HOLD_RELEASE:-}" ] && touch "$HOLD_RELEASE"
  wait "$job"
  rc=$?
  job=""
  secs=$(($(date +%s) - t0))
}
