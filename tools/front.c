/* The `fupermod` command as users call it. A serial partition of point files runs here, in a
 * process that loads neither MPI nor BLAS nor FFTW nor hwloc (its cost is then the partition's,
 * docs/performance.md); for everything else this process becomes the full command, fupermod-mpi,
 * with the same arguments, pid and environment (so under mpirun or srun as well). */
#include <errno.h>
#include <limits.h>
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "tools/tools.h"

static char **args; /* the arguments as given: getopt reorders argv */

int tool_exec_full(void) {
  char dir[PATH_MAX], path[PATH_MAX + 16];
  ssize_t n = readlink("/proc/self/exe", dir, sizeof dir - 1);
  char *slash;
  path[0] = '\0';
  /* beside this program first: the build tree, or an installation moved as a whole */
  if (n > 0 && (dir[n] = '\0', slash = strrchr(dir, '/'))) {
    *slash = '\0';
    snprintf(path, sizeof path, "%s/fupermod-mpi", dir);
  }
  if (!path[0] || access(path, X_OK) != 0) snprintf(path, sizeof path, "%s/fupermod-mpi", FUPERMOD_LIBEXEC_DIR);
  args[0] = path;
  execv(path, args);
  fprintf(stderr, "fupermod: cannot run %s (the fupermod command with MPI, BLAS and FFTW): %s\n", path,
          strerror(errno));
  return 1;
}

/* A partition reads every processor's points at once (80 bytes a point, 2.6 MB for 32 x 1000),
 * and faulting them in page by page costs more than parsing them on a VM. So they come from the
 * heap, grown in large steps, with transparent huge pages asked for there. A 2 MB frame takes a
 * huge page only if nothing in it was touched before the advice, and malloc writes the header of
 * its free top right after the last block it hands out: so a filler block first carries the top
 * up to the first frame boundary past what is already touched. Best effort: where any of this is
 * refused, malloc works as usual. The blocks kept are volatile: GCC removes an allocation whose
 * result is never read, and it had dropped the filler. */
static void *volatile held[2];

static void big_heap(void) {
  const uintptr_t huge = (uintptr_t)2 << 20;
  char *first, *top;
  uintptr_t end, a;
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
  mallopt(M_TOP_PAD, 64 << 20);
  /* more than the heap holds yet: it grows by the pad now, and the top's header lies at end */
  if (!(held[0] = first = malloc(huge))) return;
  end = (uintptr_t)first + huge;
  top = sbrk(0);
  a = (end + 64 + huge - 1) & ~(huge - 1);
  if (top == (char *)-1 || a + huge > (uintptr_t)top || madvise((void *)a, (uintptr_t)top - a, MADV_HUGEPAGE) != 0)
    return;
  /* both held for good and never touched: later blocks start just below a, in advised frames */
  held[1] = malloc(a - end - 64);
}

int main(int argc, char **argv) {
  int sweep = argc >= 2 && strcmp(argv[1], "sweep") == 0;
  if (argc >= 2 && (sweep || strcmp(argv[1], "partition") == 0)) {
    big_heap();
    if (!(args = malloc((size_t)(argc + 1) * sizeof *args))) {
      fprintf(stderr, "fupermod: out of memory\n");
      return 1;
    }
    memcpy(args, argv, (size_t)(argc + 1) * sizeof *args);
    opterr = 0; /* the subcommands name a bad option themselves (tool_bad_option) */
    return sweep ? cmd_sweep(argc - 1, argv + 1) : cmd_partition(argc - 1, argv + 1);
  }
  args = argv;
  return tool_exec_full();
}
