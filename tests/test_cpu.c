/* The CPU feature query of the vector kernels (partitioners/cpu.h): every bit the code asks for,
 * each queried on its own (no short-circuit hides one behind another, as AVX512F did AVX512VL, bit
 * 31, on CPUs without AVX-512), and each compared with the cpuid instruction and the OS's XCR0. In
 * the sanitizer build an undefined shift in the query stops this test on any CPU. */
#include <stdlib.h>
#include "partitioners/cpu.h"
#include "tests/tap.h"
#if defined(__x86_64__)
#include <cpuid.h>
#endif

int main(void) {
#if defined(FUPERMOD_CPU_GLIBC)
  static const struct {
    const char *name;
    unsigned index, leaf, reg, bit; /* reg: 1 ebx, 2 ecx */
    unsigned long long xcr0;         /* register state the OS must save for the feature to be usable */
  } f[] = {
    {"FMA", x86_cpu_FMA, 1, 2, 12, 0x6},           {"AVX2", x86_cpu_AVX2, 7, 1, 5, 0x6},
    {"AVX512F", x86_cpu_AVX512F, 7, 1, 16, 0xe6},  {"AVX512DQ", x86_cpu_AVX512DQ, 7, 1, 17, 0xe6},
    {"AVX512VL", x86_cpu_AVX512VL, 7, 1, 31, 0xe6},
  };
  unsigned a, b, c, d, maxleaf = __get_cpuid_max(0, NULL);
  unsigned long long xcr0 = 0;
  int exact = getenv("GLIBC_TUNABLES") == NULL; /* tunables may switch features off on purpose */
  __cpuid(1, a, b, c, d);
  if (c & bit_OSXSAVE) {
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    xcr0 = (unsigned long long)hi << 32 | lo;
  }
  for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
    int present = fupermod_cpu_feature(f[i].index, 0), active = fupermod_cpu_feature(f[i].index, 1), want = 0;
    if (f[i].leaf <= maxleaf) {
      __cpuid_count(f[i].leaf, 0, a, b, c, d);
      want = (int)(((f[i].reg == 1 ? b : c) >> f[i].bit) & 1u);
    }
    ok(present == want, "%s (cpuid leaf %u bit %u): present %d, cpuid says %d", f[i].name, f[i].leaf, f[i].bit, present,
       want);
    ok(!active || present, "%s: usable only where present (usable %d)", f[i].name, active);
    if (exact)
      ok(active == (present && (xcr0 & f[i].xcr0) == f[i].xcr0), "%s: usable %d = present and the OS saves its state (XCR0 %#llx)",
         f[i].name, active, xcr0);
  }
  ok(fupermod_cpu_avx2() == (fupermod_cpu_feature(x86_cpu_AVX2, 1) && fupermod_cpu_feature(x86_cpu_FMA, 1)),
     "fupermod_cpu_avx2 is AVX2 and FMA usable (%d)", fupermod_cpu_avx2());
  ok(fupermod_cpu_avx512() == (fupermod_cpu_feature(x86_cpu_AVX512F, 1) && fupermod_cpu_feature(x86_cpu_AVX512VL, 1) &&
                               fupermod_cpu_feature(x86_cpu_AVX512DQ, 1)),
     "fupermod_cpu_avx512 is AVX512 F, VL and DQ usable (%d)", fupermod_cpu_avx512());
#else
  skip("no glibc x86 feature tables on this platform");
#endif
  return done_testing();
}
