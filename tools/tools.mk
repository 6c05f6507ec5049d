# The `fupermod` command.
bin_PROGRAMS += tools/fupermod
tools_fupermod_SOURCES = tools/fupermod.c tools/common.c tools/tools.h tools/cmd_config.c tools/cmd_model.c \
  tools/cmd_partition.c tools/cmd_build.c tools/cmd_doctor.c
tools_fupermod_CPPFLAGS = $(AM_CPPFLAGS) $(OPENBLAS_CFLAGS)
tools_fupermod_LDADD = libfupermod.la $(OPENBLAS_LIBS) $(GSL_LIBS) $(HWLOC_LIBS) $(LIBS)
