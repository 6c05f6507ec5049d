# Applications: a library (libfupermod_apps) plus one driver program each; every app adds its own
# fragment. Apps may use partitioners/ and kernels' code, never the other way round.
lib_LTLIBRARIES += libfupermod_apps.la
libfupermod_apps_la_SOURCES = apps/apps.c apps/apps.h apps/model.c apps/model.h apps/record.c apps/record.h apps/app.c apps/app.h \
  apps/app_model.c apps/app_model.h
libfupermod_apps_la_CPPFLAGS = $(AM_CPPFLAGS) $(FFTW3_CFLAGS)
libfupermod_apps_la_LIBADD = libfupermod.la $(SCALAPACK_LIBS) $(FFTW3_MPI_LIBS) $(FFTW3_OMP_LIBS) \
  $(FFTW3_LIBS) $(OPENBLAS_LIBS) $(GSL_LIBS) $(LIBS)
libfupermod_apps_la_LDFLAGS = $(AM_LDFLAGS) -version-info 0:0:0
libfupermod_apps_la_CFLAGS = $(LIB_CFLAGS)
nobase_fupermodinclude_HEADERS += apps/apps.h apps/app.h apps/app_model.h apps/model.h apps/record.h apps/summa.h apps/fft2d.h apps/jacobi.h apps/summa_hybrid.h
# What the driver programs of apps/ and bench/ share (apps/driver.h: MPI start-up, agreement, end):
# linked into each, never installed (it prints, as programs do and the libraries never).
noinst_LTLIBRARIES += libfupermod_driver.la
libfupermod_driver_la_SOURCES = apps/driver.c apps/driver.h
include apps/summa.mk
include apps/fft2d.mk
include apps/jacobi.mk
include apps/summa_hybrid.mk

# The application plug-in that docs/apps.md walks through (fupermod run --app jacobi): installed
# beside the kernels, where fupermod run finds it, and its source beside the docs.
kernels_LTLIBRARIES += kernels/fupermod_app_jacobi.la
kernels_fupermod_app_jacobi_la_SOURCES = apps/example/jacobi_app.c
kernels_fupermod_app_jacobi_la_LDFLAGS = $(KERNEL_LINK_FLAGS)
kernels_fupermod_app_jacobi_la_LIBADD = libfupermod_apps.la libfupermod.la $(LIBS)
dist_examples_DATA += apps/example/jacobi_app.c
# <fupermod/apps/...>, <fupermod/partitioners/...> and <fupermod/kernels/...> from the source tree
# as once installed (fupermod/apps is a link to apps/, and so on)
EXTRA_DIST += fupermod/apps fupermod/partitioners fupermod/kernels
