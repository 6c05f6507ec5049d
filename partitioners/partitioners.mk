# Partitioners: the registry and shared helpers here; each algorithm family adds its own .mk.
libfupermod_core_la_SOURCES += partitioners/registry.c partitioners/problem.c
include partitioners/continuous.mk
include partitioners/time.mk
include partitioners/energy.mk
include partitioners/paraleph.mk
include partitioners/matrix.mk
include partitioners/hier.mk
