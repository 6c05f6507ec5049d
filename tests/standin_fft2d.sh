#!/bin/bash
# The 2D-FFT through executors on one node of two stand-in GPUs and a CPU process (tests/mpi_fft2d
# with $FUPERMOD_TEST_EXEC): every distribution, shape and strategy of mpi_fft2d, exact against a
# naive DFT; then a GPU whose memory limit (64 kB) makes it transform its rows and columns in parts.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/standin.sh"
MPI="$MPIEXEC --oversubscribe --bind-to none -x LD_LIBRARY_PATH -x FAKE_CUDA_DEVICES -x FUPERMOD_TEST_EXEC"
for run in "3 cuda:0,cuda:1,cpu:2" "2 cuda:0:65536,cpu:1"; do
  np=${run%% *}
  FUPERMOD_TEST_EXEC=${run#* } timeout 240 $MPI -np "$np" "$top_builddir/tests/mpi_fft2d_np$np" >"$TMPD/out" 2>&1
  rc=$?
  relay "${run#* }" "$TMPD/out"
  ok "$([ $rc -eq 0 ] && [ "$(grep -c 'cuda device [01] (fupermod stand-in GPU' "$TMPD/out")" -eq $((np - 1)) ]; echo $?)" \
    "${run#* }: the run passes (exit $rc) on the stand-in GPUs"
done
done_testing
