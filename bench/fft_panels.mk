# Column-FFT layouts (contiguous, strided, panels) in one run: `make bench`, then
# `bench/fft_panels [M [c [measure]]]` (why apps/fft2d's shared strategy uses 4-wide panels).
noinst_PROGRAMS += bench/fft_panels
BENCH_BINS += bench/fft_panels
bench_fft_panels_SOURCES = bench/fft_panels.c
bench_fft_panels_CPPFLAGS = $(AM_CPPFLAGS) $(FFTW3_CFLAGS)
bench_fft_panels_LDADD = libfupermod.la $(FFTW3_LIBS) $(LIBS)
