#!/bin/bash
# One CUDA engine: the executor module (fupermod/cuda/) is the only code that calls CUDA, cuBLAS or
# cuFFT. No source outside it (and the tests of the stand-in itself) includes their headers, and
# no built library, kernel plug-in or program links them or refers to one of their symbols; the
# module, where it is built, does.
. "$top_srcdir/tests/tap.sh"
cd "$top_srcdir" || exit 1
hits=$(grep -rlE '#include *<(cuda_runtime|cuda|cublas_v2|cublas|cufft|cufftXt)\.h>' --include='*.c' --include='*.h' \
  fupermod partitioners kernels apps tools bench 2>/dev/null | grep -v '^fupermod/cuda/')
ok "$([ -z "$hits" ]; echo $?)" "no source outside fupermod/cuda/ includes a CUDA header${hits:+: $hits}"
# one loader: fupermod/exec.c is the only source outside the module that dlopens CUDA code (the
# probe and the executor module, both linking the same runtime); the NVML meter loads NVML, not CUDA
loaders=$(grep -rlE 'dlopen *\(' --include='*.c' --include='*.h' fupermod partitioners kernels apps tools bench 2>/dev/null |
  grep -v '^fupermod/cuda/' | xargs -r grep -lE 'cudart|cublas|cufft|FUPERMOD_EXEC_MODULE|FUPERMOD_CUDA_PROBE|fupermod_exec_cuda' | tr '\n' ' ')
ok "$([ "$loaders" = "fupermod/exec.c " ]; echo $?)" "one place loads a CUDA runtime or module outside the module: fupermod/exec.c (found: ${loaders:-none})"
cd - >/dev/null || exit 1
B=${top_builddir:-..}
pat='^(cuda|cublas|cufft)[A-Za-z0-9_]*'
bad=""
n=0
for f in "$B"/.libs/libfupermod*.so "$B"/kernels/.libs/fupermod_kernel_*.so "$B"/apps/.libs/fupermod-* \
  "$B"/tools/.libs/fupermod* "$B"/tools/fupermod; do
  [ -f "$f" ] && [ -x "$f" -o "${f%.so}" != "$f" ] || continue
  file -L "$f" | grep -q ELF || continue
  n=$((n + 1))
  if nm -D --undefined-only "$f" 2>/dev/null | awk '{print $NF}' | grep -Eq "$pat" ||
    readelf -d "$f" 2>/dev/null | grep -Eq 'NEEDED.*lib(cudart|cublas|cufft)'; then
    bad="$bad $(basename "$f")"
  fi
done
ok "$([ "$n" -ge 10 ] && [ -z "$bad" ]; echo $?)" "$n built libraries, plug-ins and programs neither link CUDA nor refer to a CUDA symbol${bad:+; these do:$bad}"
m="$B/kernels/.libs/fupermod_exec_cuda.so"
if [ -f "$m" ]; then
  ok "$(nm -D --undefined-only "$m" | grep -q ' U cublasDgemm' && readelf -d "$m" | grep -q 'NEEDED.*libcufft'; echo $?)" \
    "the executor module does (cuBLAS and cuFFT)"
  p="$B/kernels/.libs/fupermod_cuda_probe.so"
  ok "$(readelf -d "$p" | grep -q 'NEEDED.*libcudart' && ! readelf -d "$p" | grep -Eq 'NEEDED.*lib(cublas|cufft)'; echo $?)" \
    "the probe module links the CUDA runtime alone"
  ok "$([ "$(readelf -d "$p" | grep -o 'libcudart[^]]*')" = "$(readelf -d "$m" | grep -o 'libcudart[^]]*')" ]; echo $?)" \
    "the probe and the executor link the same runtime ($(readelf -d "$p" | grep -o 'libcudart[^]]*'))"
else
  skip "the executor module is not built (configure found no CUDA headers)"
fi
done_testing
