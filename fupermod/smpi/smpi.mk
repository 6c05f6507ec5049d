# The SMPI build (configure --with-smpi; docs/simulate.md): fupermod for SimGrid's simulator,
# compiled with smpicc. Every CPU executor is the emulated device; the programs link libfupermod
# and libfupermod_apps statically, so that each simulated rank has their globals to itself.
EXTRA_DIST += fupermod/smpi/compat.h
if SMPI
libfupermod_la_SOURCES += fupermod/smpi/exec_emu.c fupermod/smpi/exec_emu.h
endif
# The SMPI build driven from this one: 16 simulated processes in the suite (skipped without SimGrid)
TESTS += tests/smpi_run.sh
EXTRA_DIST += tests/smpi_run.sh
# it builds in _smpi/ of this build tree, which make clean removes
clean-local: clean-local-smpi
clean-local-smpi:
	-rm -rf _smpi
.PHONY: clean-local-smpi
