#!/bin/bash
# The 2D-FFT through executors on one node of two stand-in GPUs and a CPU process (tests/mpi_fft2d
# with $FUPERMOD_TEST_EXEC): every distribution, shape and strategy of mpi_fft2d, exact against a
# naive DFT; then a GPU whose memory limit (64 kB) makes it transform its rows and columns in parts.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/standin.sh"
standin_mpi mpi_fft2d "3 cuda:0,cuda:1,cpu:2" "2 cuda:0:65536,cpu:1" "1 cuda:0" "1 cuda:0:65536"
done_testing
