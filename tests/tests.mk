# Core tests here (tests/core.mk); each area adds its own fragment.
EXTRA_DIST += tests/tap.h tests/tap.sh tests/summary.sh tests/run.sh.in

include tests/core.mk
include tests/models.mk
include tests/continuous.mk
include tests/discrete_time.mk
include tests/discrete_energy.mk
include tests/paraleph.mk
include tests/kernels.mk
include tests/meters.mk
include tests/dynamic.mk
include tests/matrix.mk
include tests/apps.mk
include tests/popta_trace.mk
include tests/campaign.mk
include tests/hier.mk
include tests/api.mk
include tests/cluster.mk
