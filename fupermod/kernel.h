/* Kernel plug-in API. A kernel is a shared library exporting
 *   const fupermod_kernel_ops fupermod_kernel_plugin;
 * loaded with dlopen by path or by name (docs/kernels.md). */
#ifndef FUPERMOD_KERNEL_H
#define FUPERMOD_KERNEL_H

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* the public API; the libraries build with -fvisibility=hidden */

/* 2 adds use_exec; plug-ins built against version 1 still load */
#define FUPERMOD_KERNEL_API 2

struct fupermod_exec;

typedef struct fupermod_kernel_ops {
  int api_version; /* FUPERMOD_KERNEL_API */
  const char *name;
  const char *description;
  /* Parse sub-options ("key=value,...", may be "") and create the context. */
  int (*create)(const char *subopts, void **ctx);
  /* Useful work of d units (flops, or d). Should be linear in d for partitioning. */
  double (*complexity)(long d, void *ctx);
  /* Allocate and initialise everything for d units, as the application would. */
  int (*initialize)(long d, void *ctx);
  /* One run over the d units given to initialize; may be called many times. */
  int (*execute)(void *ctx);
  /* Free what initialize allocated. */
  int (*finalize)(void *ctx);
  void (*destroy)(void *ctx);
  /* Optional: numeric self-check on small sizes (0 = pass). */
  int (*verify)(void *ctx);
  /* Optional: dynamic energy of the last execute, for emulated kernels (J). */
  int (*energy)(void *ctx, double *joules);
  /* Optional (API 2): compute through this process's executor (fupermod/exec.h) from the next
   * initialize on, so that the kernel runs on the executor's device as the application does. */
  int (*use_exec)(void *ctx, struct fupermod_exec *exec);
} fupermod_kernel_ops;

typedef struct fupermod_kernel {
  const fupermod_kernel_ops *ops;
  void *ctx;
  void *handle; /* dlopen handle */
  char *path;
} fupermod_kernel;

/* Load a kernel by path (contains '/' or ends in .so) or by name, searched as
 * fupermod_kernel_NAME.so / NAME.so in $FUPERMOD_KERNEL_PATH (':'-separated),
 * then the installed kernel directory. */
int fupermod_kernel_load(const char *name_or_path, const char *subopts, fupermod_kernel **out);
/* The file fupermod_kernel_load would open for NAME (also for other plug-ins kept in the kernel
 * directory); *path is malloc'ed. FUPERMOD_ERR_INPUT naming the directories searched if none. */
int fupermod_kernel_find(const char *name, char **path);
void fupermod_kernel_unload(fupermod_kernel *k);
/* Compute k through exec. A kernel without use_exec computes on the CPU itself: a CPU executor is
 * then fine (its threads are the kernel's own options' business), a GPU one is refused
 * (FUPERMOD_ERR_USAGE naming the kernel). */
int fupermod_kernel_use_exec(fupermod_kernel *k, struct fupermod_exec *exec);
double fupermod_kernel_complexity(const fupermod_kernel *k, long d);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
