# Several nodes on one machine (tests/cluster/vcluster): run as root; reported as skipped elsewhere.
CLUSTER_TESTS = tests/cluster_config.sh tests/cluster_comm.sh tests/cluster_idle.sh tests/cluster_slurm.sh tests/cluster_build.sh tests/cluster_launch.sh tests/cluster_run.sh tests/cluster_campaign.sh tests/cluster_dynamic.sh tests/cluster_hang.sh \
  tests/cluster_faults.sh tests/cluster_slurm_faults.sh tests/cluster_hpartition.sh tests/cluster_where.sh
TESTS += $(CLUSTER_TESTS)
EXTRA_DIST += $(CLUSTER_TESTS) tests/cluster/vcluster tests/cluster/setup.sh
