# GPU-node benchmark (the CUDA executor against cuBLAS, cuBLAS-Xt and cuFFT; SUMMA and the 2D-FFT
# on the GPU alone and with CPU processes): `make bench`, then on a GPU node e.g.
#   mpirun --bind-to none -np 2 bench/gpunode --threads 15
# or on a simulated H100 (docs/performance.md, "The GPU-node benchmark").
noinst_PROGRAMS += bench/gpunode
BENCH_BINS += bench/gpunode
bench_gpunode_SOURCES = bench/gpunode.c bench/machine.h
bench_gpunode_CPPFLAGS = $(AM_CPPFLAGS) $(FFTW3_CFLAGS)
bench_gpunode_LDADD = libfupermod_apps.la libfupermod.la $(FFTW3_LIBS) $(LIBS)
