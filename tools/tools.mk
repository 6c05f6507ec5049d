# The `fupermod` command.
bin_PROGRAMS += tools/fupermod
tools_fupermod_SOURCES = tools/fupermod.c tools/common.c tools/tools.h tools/cmd_config.c tools/cmd_model.c \
  tools/cmd_partition.c tools/cmd_build.c
tools_fupermod_LDADD = libfupermod.la $(GSL_LIBS) $(LIBS)
