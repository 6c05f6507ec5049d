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
