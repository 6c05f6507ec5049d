#!/bin/bash
# tests/test_exec on two stand-in GPUs: the CUDA executor against host references.
. "$top_srcdir/tests/standin.sh"
exec "${top_builddir:-..}/tests/test_exec"
