/* A program that links only libfupermod (and GSL, as users do) must still see OpenBLAS's
 * cblas_dgemm first in the global scope, ahead of GSL's reference CBLAS: that is what a kernel
 * plug-in loaded with dlopen binds to. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fupermod/fupermod.h"
#include "tests/tap.h"

/* The DT_NEEDED entries of an ELF file, read from its dynamic section, as "a b c " in
 * out; 0 on success. */
static int needed(const char *path, char *out, size_t size) {
  FILE *fp = fopen(path, "rb");
  char *img = NULL;
  long n = 0;
  int rc = 1;
  out[0] = '\0';
  if (!fp) return 1;
  if (fseek(fp, 0, SEEK_END) == 0 && (n = ftell(fp)) > (long)sizeof(ElfW(Ehdr)) && fseek(fp, 0, SEEK_SET) == 0 &&
      (img = malloc((size_t)n)) && fread(img, 1, (size_t)n, fp) == (size_t)n) {
    ElfW(Ehdr) *eh = (ElfW(Ehdr) *)img;
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0 && eh->e_shoff > 0 &&
        eh->e_shoff + (size_t)eh->e_shnum * sizeof(ElfW(Shdr)) <= (size_t)n) {
      ElfW(Shdr) *sh = (ElfW(Shdr) *)(img + eh->e_shoff);
      for (int i = 0; i < eh->e_shnum; i++) {
        if (sh[i].sh_type != SHT_DYNAMIC || sh[i].sh_link >= eh->e_shnum) continue;
        ElfW(Dyn) *dyn = (ElfW(Dyn) *)(img + sh[i].sh_offset);
        const char *str = img + sh[sh[i].sh_link].sh_offset;
        size_t nd = sh[i].sh_size / sizeof(ElfW(Dyn));
        for (size_t k = 0; k < nd && dyn[k].d_tag != DT_NULL; k++)
          if (dyn[k].d_tag == DT_NEEDED && strlen(out) + strlen(str + dyn[k].d_un.d_val) + 2 < size) {
            strcat(out, str + dyn[k].d_un.d_val);
            strcat(out, " ");
          }
        rc = 0;
      }
    }
  }
  free(img);
  fclose(fp);
  return rc;
}

int main(void) {
  Dl_info info;
  char libs[4096];
  void *sym = dlsym(RTLD_DEFAULT, "cblas_dgemm");
  int found = sym && dladdr(sym, &info) && info.dli_fname;
  int nrc = needed("/proc/self/exe", libs, sizeof libs);
  ok(found && strstr(info.dli_fname, "openblas") != NULL, "global cblas_dgemm comes from %s",
     found ? info.dli_fname : "(nowhere)");
  /* the property above is libfupermod's doing only if the program asks for libfupermod itself
   * and for no BLAS or GSL */
  ok(nrc == 0 && strstr(libs, "libfupermod.so") && !strstr(libs, "blas") && !strstr(libs, "gsl"),
     "the program's dynamic section needs libfupermod and no BLAS or GSL (NEEDED: %s)", nrc ? "unreadable" : libs);
  found = dladdr((void *)fupermod_exit_status, &info) && info.dli_fname;
  ok(found && strstr(info.dli_fname, "libfupermod.so") && fupermod_exit_status(FUPERMOD_ERR_INPUT) == 1,
     "fupermod_exit_status comes from %s", found ? info.dli_fname : "(nowhere)");
  return done_testing();
}
