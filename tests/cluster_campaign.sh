#!/bin/bash
# A campaign's Slurm script on the virtual cluster: `fupermod campaign script --slurm` submitted
# with sbatch writes the configuration of the reserved nodes and runs every experiment (fupermod
# run across both nodes); cancelled with scancel part-way and submitted again, it completes with
# every result exactly once.
. "$top_srcdir/tests/tap.sh"
VC="$top_srcdir/tests/cluster/vcluster"
if [ "$(id -u)" -ne 0 ]; then echo "1..0 # SKIP the virtual cluster needs root (namespaces, mounts)"; exit 0; fi
if ! unshare --uts --ipc --mount --fork true 2>/dev/null; then
  echo "1..0 # SKIP namespaces are refused here: $(unshare --uts --ipc --mount --fork true 2>&1 | head -1)"; exit 0
fi
for p in slurmctld slurmd munged sbatch; do
  command -v $p >/dev/null || { echo "1..0 # SKIP $p is not installed (./quickstart test installs slurm-wlm and munge as root)"; exit 0; }
done
CL=$(mktemp -d "$top_builddir/tests/vcluster.XXXXXX")
trap '"$VC" down "$CL"; rm -rf "$CL" "$TMPD"' EXIT
"$VC" up "$CL" --slurm node1:0 node2:1 >"$TMPD/up" 2>&1
ok $? "two nodes with Slurm start"
. "$CL/env"
export OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo OMPI_MCA_btl=self,vader,tcp
cd "$CL" || exit 1
cat >vc.txt <<CAMPAIGN
name = vc
apps = dgemm
sizes = 256, 512
partitioners = paraleph, dp
configs = vc.conf
repetitions = 2
command = \$FUPERMOD_MPIRUN -np {np} --bind-to none fupermod run --conf {config} --apps {app} --size {size} \\
          --algorithm {partitioner} --dgemm-b 64 --points 4 --reps 2 -r 2 -R 5 -q --out {dir}
result = {dir}/summary-{app}.csv
timeout = 300
cluster = slurm
nodes = 2
cores_per_node = 1
walltime = 0:30
cluster_config = vc.conf
setup = export PATH=$(dirname "$FUPERMOD"):\$PATH
CAMPAIGN
"$FUPERMOD" campaign script --slurm -o vc.slurm vc.txt >script.out 2>&1
ok $? "fupermod campaign script --slurm writes the batch script"
sed 's/^/# /' script.out
results() { [ -f vc.csv ] && awk -F, 'NR > 1 && $0 !~ /^#/' vc.csv | wc -l || echo 0; }
wait_job() { for _ in $(seq "$2"); do [ -z "$(squeue -h -j "$1" 2>/dev/null)" ] && return 0; sleep 0.2; done; return 1; }

job=$(sbatch --parsable vc.slurm 2>sbatch.err)
ok $? "sbatch accepts it (job $job)"
for _ in $(seq 900); do [ "$(results)" -ge 2 ] && break; sleep 0.2; done
got=$(results)
scancel "$job"
wait_job "$job" 150
ok "$([ "$got" -ge 2 ] && [ "$(results)" -lt 8 ]; echo $?)" "scancel stops it part-way ($(results) of 8 results)"
ok "$(grep -v '^#' vc.conf 2>/dev/null | awk '{ print $1 }' | sort -u | tr '\n' ' ' | grep -qx 'node1 node2 '; echo $?)" \
  "the job wrote the configuration of the reserved nodes (node1, node2)"
job2=$(sbatch --parsable vc.slurm 2>>sbatch.err)
wait_job "$job2" 1500
ok $? "submitted again (job $job2), it finishes"
cat vc.*.err 2>/dev/null | grep -v '^fupermod campaign: \[' | tail -5 | sed 's/^/# /'
ok "$([ "$(results)" -eq 8 ]; echo $?)" "the campaign has all 8 results ($(results))"
ok "$(awk -F, 'NR > 1 && $0 !~ /^#/ { print $1 }' vc.csv | sort | uniq -d | grep -q .; [ $? -ne 0 ]; echo $?)" \
  "each exactly once"
ok "$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "status") s = i } NR > 1 && $0 !~ /^#/ && $s != "ok" { bad++ } END { exit bad > 0 || !s }' vc.csv; echo $?)" \
  "every experiment ran to its result (status ok)"
cd "$top_builddir" || exit 1
done_testing
