# Energy meters: one backend per file, chosen by name (docs/energy.md).
libfupermod_la_SOURCES += fupermod/meter.c fupermod/meter_impl.h fupermod/meter_rapl.c fupermod/meter_nvml.c \
  fupermod/meter_command.c fupermod/meter_emulated.c fupermod/meter_model.c fupermod/meter_external.c
fupermodinclude_HEADERS += fupermod/meter.h
