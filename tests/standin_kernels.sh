#!/bin/bash
# tests/test_kernels on two stand-in GPUs: dgemm-cuda and fft-rows-cuda self-check and benchmark.
. "$top_srcdir/tests/standin.sh"
exec "${top_builddir:-..}/tests/test_kernels"
