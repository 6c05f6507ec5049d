#!/bin/bash
# Node failures under the virtual cluster's Slurm (SlurmdTimeout 8 s, docs/cluster.md):
# - node2's slurmd hangs (SIGSTOP) while a batch job builds across both nodes: Slurm sets node2
#   DOWN and ends the job as NODE_FAIL within 30 s; the points measured are kept and a new job
#   resumes the build once slurmd answers again;
# - node2 crashes (every process in it killed, slurmd and the job step's included) while srun runs
#   SUMMA across both nodes: srun ends within 30 s, and it (or sinfo -R) names node2; with
#   node2's slurmd started again, the same srun completes.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/cluster/setup.sh" --slurm
cluster_up --slurm node1:0 node2:1
points() { grep -v '^#' "$1" 2>/dev/null | wc -l; }
finished() { [ -z "$(squeue -h -j "$1" 2>/dev/null)" ]; }
both_idle() { # up to 30 s
  for _ in $(seq 300); do [ "$(sinfo -h -N -o '%N %T' | sort | tr '\n' ' ')" = "node1 idle node2 idle " ] && return 0; sleep 0.1; done
  return 1
}

# emulated devices that sleep 0.25 s per run: the build lasts about 30 s whatever the machine's
# load, longer than Slurm takes to notice the hung slurmd
awk 'BEGIN { for (d = 1; d <= 400; d++) printf "%d 0.25\n", d }' >emu.points
printf 'node1 0 none cpu kernel=emulated,points=%s\nnode2 0 none cpu kernel=emulated,points=%s\n' \
  "$PWD/emu.points" "$PWD/emu.points" >c.conf
# --no-requeue: by default Slurm requeues a batch job that a node failure ended and starts it
# again after a delay of its own; here the job ends, and is submitted again below
cat >build.sh <<JOB
#!/bin/bash
#SBATCH -N 2 -n 2 -O --no-requeue -o build.out -e build.err
mpirun --mca btl_tcp_if_include lo --mca oob_tcp_if_include lo --mca btl self,vader,tcp --bind-to none \
  "$FUPERMOD" build --conf c.conf --data data -L 10 -U 390 -s 40 -r 3 -R 3
JOB
id=$(sbatch --parsable build.sh)
for _ in $(seq 600); do [ "$(points data/node2.0.points)" -ge 2 ] && break; finished "$id" && break; sleep 0.1; done
t0=$(date +%s)
kill -STOP "$(cat slurmd-node2.pid)"
for _ in $(seq 600); do finished "$id" && break; sleep 0.1; done
secs=$(($(date +%s) - t0))
state=$(scontrol show job "$id" | grep -o 'JobState=[A-Z_]*')
ok "$([ "$state" = JobState=NODE_FAIL ] && [ $secs -le 30 ]; echo $?)" \
  "node2's slurmd hung during the build: the job ends as NODE_FAIL within 30 s ($secs s, $state)"
ok "$(sinfo -h -R -o '%E %N' | grep -q '^Not responding node2$' && grep -q 'CANCELLED .* DUE TO NODE FAILURE' build.err; echo $?)" \
  "Slurm names node2 as not responding (sinfo -R), the job's error output says it ended by a node failure"
sinfo -R | sed 's/^/# /'
grep 'NODE FAILURE' build.err | sed 's/^/# /'
n2=$(points data/node2.0.points)
ok "$([ "$n2" -ge 2 ] && [ "$n2" -lt 40 ]; echo $?)" "the build was stopped part-way (node2 has $n2 of 40 points)"
grep -v '^#' data/node2.0.points | head -2 >kept
kill -CONT "$(cat slurmd-node2.pid)"
both_idle
ok $? "node2 returns to service once its slurmd answers"
id=$(sbatch --parsable build.sh)
for _ in $(seq 1200); do finished "$id" && break; sleep 0.1; done
ok "$(scontrol show job "$id" | grep -q 'JobState=COMPLETED' && [ "$(points data/node1.0.points)" -eq 40 ] &&
  [ "$(points data/node2.0.points)" -eq 40 ] && grep -v '^#' data/node2.0.points | head -2 | cmp -s - kept; echo $?)" \
  "a new job resumes the build: 40 points per node, node2's points from before kept"
tail -2 build.err | sed 's/^/# /'

# node2 crashes while srun runs SUMMA on 3 ranks across the nodes
summa() { timeout 120 srun --mpi=pmix -N 2 -n 3 -O "$top_builddir/apps/fupermod-summa" -n 1024 -b 128 -v none "$@"; }
summa -r 1000 >app.out 2>app.err &
job=$!
for _ in $(seq 300); do [ "$("$VC" procs "$CL" | grep -c ' fupermod-summa$')" -eq 3 ] && break; sleep 0.1; done
sleep 1
t0=$(date +%s)
"$VC" crash "$CL" node2 | sed 's/^/# /'
wait "$job"
rc=$?
job=""
secs=$(($(date +%s) - t0))
ok "$([ $rc -ne 0 ] && [ $rc -ne 124 ] && [ $secs -le 30 ] && [ ! -s app.out ]; echo $?)" \
  "node2 crashing during the SUMMA runs ends srun within 30 s ($secs s, exit $rc)"
# srun names node2 when Slurm declares the node failed before node1's tasks die of their broken
# connections to it; otherwise srun reports node1's tasks (Broken pipe, Terminated), and the
# node is named by Slurm itself, not responding, within its SlurmdTimeout (8 s)
named=1
if grep -q 'srun: error: Node failure on node2' app.err; then named=0; how="srun"
else
  for _ in $(seq 300); do sinfo -h -R -o '%E %N' | grep -q '^Not responding node2$' && { named=0; how="sinfo -R"; break; }; sleep 0.1; done
fi
ok $named "srun, or Slurm's sinfo -R, names node2 (${how:-neither})"
grep 'srun: error' app.err | head -2 | sed 's/^/# /'
"$VC" slurmd "$CL" node2
both_idle
ok $? "node2 is back in service with its slurmd started again"
summa -r 2 >app2.out 2>app2.err
ok "$([ $? -eq 0 ] && grep -q '^time: best' app2.out; echo $?)" "the same srun completes"
cd "$top_builddir" || exit 1
done_testing
