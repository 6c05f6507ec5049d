# The SMPI build (configure --with-smpi; docs/simulate.md): fupermod for SimGrid's simulator,
# compiled with smpicc. Every CPU executor is the emulated device; the programs link libfupermod
# and libfupermod_apps statically, so that each simulated rank has their globals to itself.
EXTRA_DIST += fupermod/smpi/compat.h
if SMPI
libfupermod_la_SOURCES += fupermod/smpi/exec_emu.c fupermod/smpi/exec_emu.h
endif
