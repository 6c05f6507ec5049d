# 2D-FFT benchmark (ours against FFTW-MPI in one run): `make bench`, then e.g.
#   mpirun --bind-to none -np 2 bench/fft2d --bind 0,1          (homogeneous)
#   mpirun --bind-to none -np 4 bench/fft2d --bind 0,1,1,1      (heterogeneous: 1 + 3 per core)
# (not in the SMPI build, which has no FFTW-MPI: docs/simulate.md)
if !SMPI
noinst_PROGRAMS += bench/fft2d
BENCH_BINS += bench/fft2d
endif
bench_fft2d_SOURCES = bench/fft2d.c
bench_fft2d_CPPFLAGS = $(AM_CPPFLAGS) $(FFTW3_CFLAGS)
bench_fft2d_LDADD = libfupermod_driver.la libfupermod_apps.la libfupermod.la $(FFTW3_MPI_LIBS) $(FFTW3_OMP_LIBS) \
  $(FFTW3_LIBS) $(LIBS)
