#!/bin/bash
# A real Slurm on the virtual cluster: munged and slurmctld on the host, a slurmd in each of two
# nodes. sbatch of a job that runs mpirun across both nodes, srun --mpi=pmix across them, and
# nothing left running after down.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/cluster/setup.sh" --slurm
cluster_up --slurm node1:0 node2:1
daemons="$(cat "$CL"/slurmctld.hpid "$CL"/munged.hpid 2>/dev/null) $(cat "$CL"/slurmd-*.pid 2>/dev/null)"
ok "$([ "$(echo $daemons | wc -w)" -eq 4 ]; echo $?)" "slurmctld, munged and two slurmd run (pids $(echo $daemons))"
ok "$([ "$(sinfo -h -N -o '%N %T' | sort | tr '\n' ' ')" = "node1 idle node2 idle " ]; echo $?)" "sinfo shows node1 and node2 idle"

cd "$CL" || exit 1
cat >job.sh <<JOB
#!/bin/bash
#SBATCH -N 2 -n 4 -O -o job.out -e job.err
mpirun --mca btl_tcp_if_include lo --mca oob_tcp_if_include lo --mca btl self,vader,tcp --bind-to none \
  "$FUPERMOD" config -o sbatch.conf
JOB
job=$(sbatch --parsable job.sh 2>sbatch.err)
ok $? "sbatch accepts a job of 4 ranks on 2 nodes (job $job)"
sed 's/^/# /' sbatch.err
for _ in $(seq 600); do [ -z "$(squeue -h -j "$job" 2>/dev/null)" ] && break; sleep 0.1; done
ok "$([ -z "$(squeue -h -j "$job" 2>/dev/null)" ]; echo $?)" "the job finishes"
ok "$(grep -v '^#' sbatch.conf 2>/dev/null | awk '{ printf "%s:%s ", $1, $2 }' | grep -qx 'node1:0 node1:1 node2:0 node2:1 '; echo $?)" \
  "its mpirun placed 2 ranks on each node (fupermod config's hosts and intra-node ranks)"
cat job.out job.err 2>/dev/null | sed 's/^/# /'

timeout 120 srun --mpi=pmix -N 2 -n 4 -O "$FUPERMOD" config -o srun.conf >srun.out 2>&1
ok $? "srun --mpi=pmix runs 4 ranks across the nodes (each node has its own /tmp for PMIx)"
sed 's/^/# /' srun.out | tail -5
ok "$(grep -v '^#' srun.conf 2>/dev/null | awk '{ printf "%s:%s ", $1, $2 }' | grep -qx 'node1:0 node1:1 node2:0 node2:1 '; echo $?)" \
  "and MPI sees two nodes of two ranks"
cd "$top_builddir" || exit 1

"$VC" down "$CL"
left=""
for p in $daemons; do kill -0 "$p" 2>/dev/null && left="$left $p"; done
ok "$([ -z "$left" ]; echo $?)" "down stops every daemon it started${left:+ (left:$left)}"
done_testing
