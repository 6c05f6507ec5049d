/* Kernel plug-in API. A kernel is a shared library exporting
 *   const fupermod_kernel_ops fupermod_kernel_plugin;
 * loaded with dlopen by path or by name (docs/kernels.md). */
#ifndef FUPERMOD_KERNEL_H
#define FUPERMOD_KERNEL_H

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* the public API; the libraries build with -fvisibility=hidden */

/* 2 adds use_exec, 3 options; plug-ins built against versions 1 and 2 still load */
#define FUPERMOD_KERNEL_API 3

struct fupermod_exec;
struct fupermod_option;

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
  /* API 3: the sub-options create reads (fupermod/option.h), ended by FUPERMOD_OPTION_END. A
   * configuration line is then checked against them (with those of the executor and the meter):
   * an unknown or malformed key is an error naming the file and the line. NULL: none. */
  const struct fupermod_option *options;
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
/* The file of a plug-in of kind KIND ("kernel", "app"): a path (containing '/' or ending in .so)
 * as it is, or NAME searched as fupermod_KIND_NAME.so / NAME.so in $FUPERMOD_KERNEL_PATH, then the
 * installed kernel directory; *path is malloc'ed. FUPERMOD_ERR_INPUT naming what was looked for
 * and where if none. */
int fupermod_plugin_find(const char *kind, const char *name_or_path, char **path);
/* Load without creating a context (k->ctx NULL): to read the operations table, its options. */
int fupermod_kernel_open(const char *name_or_path, fupermod_kernel **out);
void fupermod_kernel_unload(fupermod_kernel *k);
/* The kernel's declared sub-options, or NULL (a plug-in older than API 3 declares none). */
const struct fupermod_option *fupermod_kernel_options(const fupermod_kernel *k);
/* Check a configuration line's sub-options against what its kernels (the nk of kernels that
 * will read the line, opened or loaded), its executor and its meter read: FUPERMOD_ERR_INPUT for
 * an unknown key (naming the closest known one), a key given twice, or a value out of its
 * declaration. Keys a kernel older than API 3 might read cannot be told from typos: with such a
 * kernel, keys nobody declares are accepted. */
int fupermod_kernel_check_subopts(const fupermod_kernel *const *kernels, int nk, const char *subopts);
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
