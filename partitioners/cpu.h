/* Which vector instructions the CPU and the OS let the kernels use, from what glibc found when the
 * program started. Why not __builtin_cpu_supports: it links libgcc's CPU model, whose constructor
 * runs a dozen cpuid instructions in every program, and in a virtual machine each cpuid traps to
 * the hypervisor (a tenth of a millisecond, a tenth of a small partition command). */
#ifndef FUPERMOD_PARTITIONERS_CPU_H
#define FUPERMOD_PARTITIONERS_CPU_H

#if defined(__x86_64__) && defined(__has_include)
#if __has_include(<sys/platform/x86.h>)
#include <sys/platform/x86.h>
#define FUPERMOD_CPU_GLIBC 1
#endif
#endif

/* AVX2 with FMA */
static inline int fupermod_cpu_avx2(void) {
#if defined(FUPERMOD_CPU_GLIBC)
  return CPU_FEATURE_ACTIVE(AVX2) && CPU_FEATURE_ACTIVE(FMA);
#elif defined(__x86_64__)
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
  return 0;
#endif
}

/* AVX-512 F, VL and DQ */
static inline int fupermod_cpu_avx512(void) {
#if defined(FUPERMOD_CPU_GLIBC)
  return CPU_FEATURE_ACTIVE(AVX512F) && CPU_FEATURE_ACTIVE(AVX512VL) && CPU_FEATURE_ACTIVE(AVX512DQ);
#elif defined(__x86_64__)
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
#else
  return 0;
#endif
}

#endif
