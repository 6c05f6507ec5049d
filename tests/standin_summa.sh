#!/bin/bash
# SUMMA through executors on one node of two stand-in GPUs and a CPU process (tests/mpi_summa with
# $FUPERMOD_TEST_EXEC): every layout, shape and check of mpi_summa, with C held on each GPU; then
# a GPU whose memory limit (20 kB) sends its updates out of card, beside a CPU process.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/standin.sh"
standin_mpi mpi_summa "3 cuda:0,cuda:1,cpu:2" "2 cuda:0:20000,cpu:1" "1 cuda:0"
done_testing
