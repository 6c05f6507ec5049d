/* Which vector instructions the CPU and the OS let the kernels use, from what glibc found when the
 * program started. Why not __builtin_cpu_supports: it links libgcc's CPU model, whose constructor
 * runs a dozen cpuid instructions in every program, and in a virtual machine each cpuid traps to
 * the hypervisor (a tenth of a millisecond, a tenth of a small partition command). Why not glibc's
 * CPU_FEATURE_ACTIVE: it computes (1 << bit) in int, undefined for bit 31 (AVX512VL), which
 * UBSan stops on. */
#ifndef FUPERMOD_PARTITIONERS_CPU_H
#define FUPERMOD_PARTITIONERS_CPU_H

#if defined(__x86_64__) && defined(__has_include)
#if __has_include(<sys/platform/x86.h>)
#include <sys/platform/x86.h>
#define FUPERMOD_CPU_GLIBC 1
#endif
#endif

#if defined(FUPERMOD_CPU_GLIBC)
/* Feature INDEX (glibc's x86_cpu_NAME) as cpuid reports it (active = 0) or as usable, the OS
 * saving its registers (active = 1): glibc's own tables, read with an unsigned shift. */
static inline int fupermod_cpu_feature(unsigned index, int active) {
  const unsigned bits = 8 * sizeof(unsigned);
  const struct cpuid_feature *leaf = __x86_get_cpuid_feature_leaf(index / (4 * bits));
  unsigned reg = index % (4 * bits) / bits, word = active ? leaf->active_array[reg] : leaf->cpuid_array[reg];
  return (int)(word >> (index % bits) & 1u);
}
#define FUPERMOD_CPU_HAS(name) fupermod_cpu_feature(x86_cpu_##name, 1)
#elif defined(__x86_64__)
#define FUPERMOD_CPU_HAS(name) (__builtin_cpu_init(), __builtin_cpu_supports(FUPERMOD_CPU_NAME_##name))
#define FUPERMOD_CPU_NAME_AVX2 "avx2"
#define FUPERMOD_CPU_NAME_FMA "fma"
#define FUPERMOD_CPU_NAME_AVX512F "avx512f"
#define FUPERMOD_CPU_NAME_AVX512VL "avx512vl"
#define FUPERMOD_CPU_NAME_AVX512DQ "avx512dq"
#else
#define FUPERMOD_CPU_HAS(name) 0
#endif

/* AVX2 with FMA */
static inline int fupermod_cpu_avx2(void) { return FUPERMOD_CPU_HAS(AVX2) && FUPERMOD_CPU_HAS(FMA); }

/* AVX-512 F, VL and DQ */
static inline int fupermod_cpu_avx512(void) {
  return FUPERMOD_CPU_HAS(AVX512F) && FUPERMOD_CPU_HAS(AVX512VL) && FUPERMOD_CPU_HAS(AVX512DQ);
}

#endif
