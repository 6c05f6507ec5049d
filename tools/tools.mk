# The `fupermod` command: a front linked with the core library only, which runs a serial
# partition itself and becomes the full command (every subcommand; MPI, BLAS, FFTW, hwloc) for
# the rest. The full command is installed in $(pkglibexecdir); in the build tree it sits beside.
if !SMPI
bin_PROGRAMS += tools/fupermod
endif
tools_fupermod_SOURCES = tools/front.c tools/common.c tools/tools.h tools/cmd_partition.c
# fupermod sweep: partitions over a range of workloads, serial in the front (docs/evaluation.md)
tools_fupermod_SOURCES += tools/cmd_sweep.c
tools_fupermod_CPPFLAGS = $(AM_CPPFLAGS) -DTOOL_LEAN -DFUPERMOD_LIBEXEC_DIR='"$(pkglibexecdir)"'
if FRONT_STATIC
# no dynamic loader at start (configure.ac); GSL's own cblas, as the shared libgsl would pull in
FRONT_LD = $(FRONT_CC)
tools_fupermod_LDFLAGS = $(AM_LDFLAGS) -XCClinker -static
FRONT_LINK_WRAP = $(SHELL) $(srcdir)/tools/quiet_link.sh
tools_fupermod_LDADD = libfupermod_core.la -lgsl -lgslcblas -lm
else
# --as-needed: mpicc adds -lmpi, which nothing here calls
FRONT_LD = $(CCLD)
tools_fupermod_LDFLAGS = $(AM_LDFLAGS) -Wl,--as-needed
FRONT_LINK_WRAP =
tools_fupermod_LDADD = libfupermod_core.la $(GSL_LIBS) $(LIBS)
endif
EXTRA_DIST += tools/quiet_link.sh
tools_fupermod_LINK = $(FRONT_LINK_WRAP) $(LIBTOOL) $(AM_V_lt) --tag=CC $(AM_LIBTOOLFLAGS) $(LIBTOOLFLAGS) --mode=link $(FRONT_LD) \
  $(AM_CFLAGS) $(CFLAGS) $(tools_fupermod_LDFLAGS) $(LDFLAGS) -o $@
pkglibexec_PROGRAMS = tools/fupermod-mpi
tools_fupermod_mpi_SOURCES = tools/fupermod.c tools/common.c tools/load.c tools/tools.h tools/cmd_config.c tools/cmd_model.c \
  tools/cmd_partition.c tools/cmd_build.c tools/cmd_doctor.c tools/mpi_init.c tools/mpi_init.h
tools_fupermod_mpi_CPPFLAGS = $(AM_CPPFLAGS) $(OPENBLAS_CFLAGS) $(FFTW3_CFLAGS)
tools_fupermod_mpi_LDADD = libfupermod.la $(OPENBLAS_LIBS) $(GSL_LIBS) $(HWLOC_LIBS) $(LIBS)
if SMPI
# smpirun gives each rank its own copy of the program, not of the shared libraries it links
tools_fupermod_mpi_LDFLAGS = $(AM_LDFLAGS) -static-libtool-libs
endif
tools_fupermod_mpi_SOURCES += tools/cmd_dypart.c tools/build_common.c tools/build_common.h
# fupermod build --adaptive, and fupermod run by default
tools_fupermod_mpi_SOURCES += tools/build_adaptive.c tools/build_additivity.c
# fupermod run links the applications (SUMMA, 2D-FFT)
tools_fupermod_mpi_SOURCES += tools/cmd_run.c tools/run_job.h tools/run_models.c tools/run_links.c tools/run_partition.c \
  tools/run_predict.c tools/run_calibrate.c tools/run_exec.c tools/run_report.c tools/run_report.h tools/run_history.c tools/run_history.h tools/run_calib.c tools/run_calib.h
tools_fupermod_mpi_LDADD += libfupermod_apps.la $(SCALAPACK_LIBS) $(FFTW3_MPI_LIBS) $(FFTW3_OMP_LIBS) $(FFTW3_LIBS)
tools_fupermod_mpi_SOURCES += tools/cmd_campaign.c tools/campaign.c tools/campaign.h tools/trim.h
# provenance of results (campaigns, doctor): the build's git commit comes from tools/git_commit.h,
# rewritten only when `git describe` changes, so that a build never claims a commit it is not
tools_fupermod_mpi_SOURCES += tools/provenance.c tools/provenance.h tools/sha256.c tools/sha256.h
tools/fupermod_mpi-provenance.$(OBJEXT): tools/git_commit.h
tools/git_commit.h: tools-git-commit-check
	@$(MKDIR_P) tools; \
	c=`git -C $(srcdir) describe --always --dirty --abbrev=12 2>/dev/null || echo unknown`; \
	echo "#define FUPERMOD_GIT_COMMIT \"$$c\"" >$@.tmp; \
	if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi
tools-git-commit-check:
.PHONY: tools-git-commit-check
CLEANFILES += tools/git_commit.h
tools_fupermod_mpi_SOURCES += tools/cmd_hpart.c
tools_fupermod_mpi_SOURCES += tools/cmd_energy.c tools/cmd_kernel.c tools/cmd_comm.c
tools_fupermod_mpi_SOURCES += tools/cmd_sweep.c
# fupermod-simulate: fupermod run under SimGrid's smpirun on a simulated platform, in the SMPI
# build (configure --with-smpi; docs/simulate.md)
if SMPI
bin_SCRIPTS = tools/fupermod-simulate
endif
EXTRA_DIST += tools/fupermod-simulate.in
CLEANFILES += tools/fupermod-simulate
tools/fupermod-simulate: $(srcdir)/tools/fupermod-simulate.in Makefile
	$(AM_V_GEN)$(MKDIR_P) tools; sed -e 's|%SMPIRUN%|$(SMPIRUN)|g' -e 's|%PKGLIBEXECDIR%|$(pkglibexecdir)|g' \
	  $(srcdir)/tools/fupermod-simulate.in >$@.tmp && chmod +x $@.tmp && mv $@.tmp $@
