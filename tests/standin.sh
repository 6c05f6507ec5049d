# Source this, then run a test program on the stand-in CUDA (tests/fake_cuda, docs/kernels.md):
# its libraries first on LD_LIBRARY_PATH, ahead of a real CUDA found by the modules' runpath or
# the loader's cache, and $FUPERMOD_CUDA_STANDIN naming that directory, so that the program can
# prove which libraries it loaded (tests/standin_check.h). Two stand-in GPUs unless
# $FAKE_CUDA_DEVICES says otherwise.
STANDIN_DIR="${top_builddir:-..}/tests/fake_cuda/.libs"
if [ ! -e "$STANDIN_DIR/libcudart.so.13" ]; then
  echo "1..0 # SKIP the stand-in CUDA is not built (configure found no CUDA headers)"
  exit 0
fi
STANDIN_DIR=$(cd "$STANDIN_DIR" && pwd -P)
export LD_LIBRARY_PATH="$STANDIN_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export FUPERMOD_CUDA_STANDIN="$STANDIN_DIR"
# A GPU module whose DT_RPATH (not DT_RUNPATH) names a real CUDA would find it before
# LD_LIBRARY_PATH: the stand-in is then preloaded (or with FUPERMOD_STANDIN_PRELOAD=1), and the
# loader gives the modules the loaded libraries of those sonames.
if [ -n "$FUPERMOD_STANDIN_PRELOAD" ] ||
   readelf -d "${top_builddir:-..}"/kernels/.libs/*.so 2>/dev/null | grep -q '(RPATH)'; then
  export LD_PRELOAD="$STANDIN_DIR/libcudart.so.13 $STANDIN_DIR/libcublas.so.13 $STANDIN_DIR/libcufft.so.12${LD_PRELOAD:+ $LD_PRELOAD}"
fi
export FAKE_CUDA_DEVICES=${FAKE_CUDA_DEVICES:-2}
echo "# stand-in CUDA from $STANDIN_DIR, $FAKE_CUDA_DEVICES devices${LD_PRELOAD:+, preloaded}"

# standin_mpi PROG RUN...: tests/PROG_npN under mpiexec once per RUN "N EXEC,EXEC,..." (its
# $FUPERMOD_TEST_EXEC; its cuda ones stand-in GPUs): its points relayed, then one point that the
# run passed with those GPUs. Needs tests/tap.sh.
standin_mpi() {
  local prog=$1 run np rc ngpu
  shift
  for run in "$@"; do
    np=${run%% *}
    FUPERMOD_TEST_EXEC=${run#* } timeout 240 "$MPIEXEC" --oversubscribe --bind-to none -x LD_LIBRARY_PATH \
      -x FAKE_CUDA_DEVICES -x FUPERMOD_TEST_EXEC -np "$np" "$top_builddir/tests/${prog}_np$np" >"$TMPD/out" 2>&1
    rc=$?
    relay "${run#* }" "$TMPD/out"
    ngpu=$(echo "${run#* }" | tr ',' '\n' | grep -c '^cuda')
    ok "$([ $rc -eq 0 ] && [ "$(grep -c 'cuda device [01] (fupermod stand-in GPU' "$TMPD/out")" -eq "$ngpu" ]; echo $?)" \
      "${run#* }: the run passes (exit $rc) on the stand-in GPUs"
  done
}
