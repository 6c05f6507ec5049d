#!/bin/bash
# A campaign's Slurm script on the virtual cluster: `fupermod campaign script --slurm` submitted
# with sbatch writes the configuration of the reserved nodes and runs every experiment (fupermod
# run across both nodes); cancelled with scancel part-way and submitted again, it completes with
# every result exactly once.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/cluster/setup.sh" --slurm
cluster_up --slurm node1:0 node2:1
export OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo OMPI_MCA_btl=self,vader,tcp
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
# vc.csv's rows: its '#' lines are provenance, then the header (docs/campaigns.md)
rows() { grep -v '^#' vc.csv; }
results() { [ -f vc.csv ] && rows | awk 'NR > 1' | wc -l || echo 0; }
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
ok "$(rows | awk -F, 'NR > 1 { print $1 }' | sort | uniq -d | grep -q .; [ $? -ne 0 ]; echo $?)" \
  "each exactly once"
ok "$(rows | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "status") s = i } NR > 1 && $s != "ok" { bad++ } END { exit bad > 0 || !s }'; echo $?)" \
  "every experiment ran to its result (status ok)"
rows | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "status") s = i } NR > 1 && $s != "ok"' | sed 's/^/# not ok: /'
for f in vc.runs/*/*.log vc.runs/*.log; do [ -f "$f" ] && grep -qi 'error\|fail' "$f" && { echo "# $f:"; tail -5 "$f" | sed 's/^/#   /'; }; done 2>/dev/null
cd "$top_builddir" || exit 1
done_testing
