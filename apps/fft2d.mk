# Heterogeneous 2D FFT (apps/fft2d.h): library part and the fupermod-fft2d driver.
libfupermod_apps_la_SOURCES += apps/fft2d.c apps/fft2d.h
bin_PROGRAMS += apps/fupermod-fft2d
apps_fupermod_fft2d_SOURCES = apps/fft2d_main.c
apps_fupermod_fft2d_CPPFLAGS = $(AM_CPPFLAGS) $(FFTW3_CFLAGS)
apps_fupermod_fft2d_LDADD = libfupermod_driver.la libfupermod_apps.la libfupermod.la $(FFTW3_MPI_LIBS) \
  $(FFTW3_OMP_LIBS) $(FFTW3_LIBS) $(LIBS)
