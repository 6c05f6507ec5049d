#!/bin/bash
# tests/test_ooc on two stand-in GPUs: the out-of-card executor, held C and the dgemm-ooc kernel
# run instead of being skipped.
. "$top_srcdir/tests/standin.sh"
exec "${top_builddir:-..}/tests/test_ooc"
