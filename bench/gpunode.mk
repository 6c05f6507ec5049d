# GPU-node benchmark (the CUDA executor against cuBLAS, cuBLAS-Xt and cuFFT; SUMMA and the 2D-FFT
# on the GPU alone and with CPU processes): `make bench`, then on a GPU node e.g.
#   mpirun --bind-to none -np 2 bench/gpunode --threads 15
# or on a simulated H100 (docs/performance.md, "The GPU-node benchmark").
noinst_PROGRAMS += bench/gpunode
BENCH_BINS += bench/gpunode
bench_gpunode_SOURCES = bench/gpunode.c bench/machine.h
bench_gpunode_CPPFLAGS = $(AM_CPPFLAGS) $(FFTW3_CFLAGS)
bench_gpunode_LDADD = libfupermod_apps.la libfupermod.la $(FFTW3_LIBS) $(LIBS)
# Issue 52's device acceptance (a script; --help; docs/performance.md, "The device acceptance"):
# the GPU tests, bench/gpunode twice and fupermod run on a lent GPU beside the simulator's figures
BENCH_BINS += bench/gpu-acceptance
EXTRA_DIST += bench/gpu-acceptance.sh
CLEANFILES += bench/gpu-acceptance
bench/gpu-acceptance: $(srcdir)/bench/gpu-acceptance.sh
	$(BENCH_SCRIPT)
