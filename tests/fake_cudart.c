/* A stand-in for the CUDA runtime (tests only), built as libcudart.so so that its soname is the
 * first one fupermod_cuda_device_count() asks for. cudaGetDeviceCount reports what
 * $FAKE_CUDA_DEVICES says: a number (negative ones too, as a broken runtime could), or "error":
 * cudaErrorNoDevice with a count written anyway. It needs no CUDA headers; the full stand-in
 * (runtime, cuBLAS, cuFFT) is tests/fake_cuda. */
#include <stdlib.h>
#include <string.h>

int cudaGetDeviceCount(int *count) {
  const char *v = getenv("FAKE_CUDA_DEVICES");
  if (!v || strcmp(v, "error") == 0) {
    *count = 4;
    return 100; /* cudaErrorNoDevice */
  }
  *count = atoi(v);
  return 0;
}

/* What fupermod's probe module (fupermod/cuda/probe.c) also asks. */
int cudaGetLastError(void) { return 0; }

int cudaDeviceGetPCIBusId(char *buf, int len, int device) {
  const char *v = getenv("FAKE_CUDA_DEVICES");
  if (!v || device < 0 || device >= atoi(v) || len < 13) return 101; /* cudaErrorInvalidDevice */
  memcpy(buf, "0000:0A:00.0", 13);
  return 0;
}

int cudaRuntimeGetVersion(int *v) {
  *v = 13000;
  return 0;
}
