/* NVML meter: the GPU's total-energy counter (nvmlDeviceGetTotalEnergyConsumption, millijoules
 * since the driver was loaded; Volta and newer). NVML is loaded with dlopen at run time, so the
 * library builds and runs where there is no NVIDIA driver: creation then fails with
 * FUPERMOD_ERR_NODEVICE. The counter is 64-bit and does not wrap in practice. The GPU is found by
 * its PCI bus id, the one the CUDA runtime gives for the line's device= (CUDA numbers the devices
 * a process sees, after CUDA_VISIBLE_DEVICES; NVML numbers all of them), or nvml_pci=; by its NVML
 * index only with nvml_device=, or when no CUDA runtime can say. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fupermod/conf.h"
#include "fupermod/meter_impl.h"

typedef int nvml_return;          /* nvmlReturn_t; 0 = NVML_SUCCESS */
typedef struct nvml_dev *nvml_device; /* nvmlDevice_t */
#define NVML_ERROR_NOT_SUPPORTED 3

typedef struct {
  void *handle;
  nvml_device dev;
  unsigned device;
  char pci[32]; /* "" : found by index */
  nvml_return (*shutdown)(void);
  nvml_return (*energy)(nvml_device, unsigned long long *);
  const char *(*error_string)(nvml_return);
  int inited;
} nvml;

static const char *errstr(nvml *n, nvml_return r) {
  static _Thread_local char buf[32];
  if (n->error_string) {
    const char *s = n->error_string(r);
    if (s) return s;
  }
  snprintf(buf, sizeof buf, "NVML error %d", r);
  return buf;
}

static int nvml_read(fupermod_meter *m, double *joules) {
  nvml *n = m->impl;
  unsigned long long mj = 0;
  nvml_return r = n->energy(n->dev, &mj);
  if (r != 0) return fupermod_error(FUPERMOD_ERR_SYSTEM, "GPU %u: total energy: %s", n->device, errstr(n, r));
  *joules = (double)mj * 1e-3;
  return FUPERMOD_SUCCESS;
}

static void nvml_destroy(fupermod_meter *m) {
  nvml *n = m->impl;
  if (!n) return;
  if (n->inited && n->shutdown) n->shutdown();
  if (n->handle) dlclose(n->handle);
  free(n);
}

static const fupermod_meter_ops ops = {"nvml", nvml_read, NULL, nvml_destroy};

int fupermod_meter_nvml_create(fupermod_meter *m, const char *subopts) {
  static const char *const known[] = {"nvml_device", "nvml_lib", "nvml_pci", NULL};
  char lib[1024] = "libnvidia-ml.so.1";
  long dev = 0;
  int got, rc;
  nvml_return r;
  nvml_return (*init)(void);
  nvml_return (*by_index)(unsigned, nvml_device *);
  nvml_return (*by_pci)(const char *, nvml_device *);
  long cuda_dev = -1;
  unsigned long long probe;
  nvml *n;
  m->ops = &ops;
  if ((rc = fupermod_meter_opt_check(subopts, "nvml_", known)) != FUPERMOD_SUCCESS) return rc;
  if ((got = fupermod_subopt_get(subopts, "nvml_lib", lib, sizeof lib)) < 0) return got;
  if ((got = fupermod_meter_opt_long(subopts, "nvml_device", &dev)) < 0) return got;
  /* without nvml_device: the line's CUDA device, found by its PCI bus id */
  if (!got && (got = fupermod_meter_opt_long(subopts, "device", &cuda_dev)) < 0) return got;
  if (!got) cuda_dev = 0;
  if (dev < 0 || dev > 1024) return fupermod_error(FUPERMOD_ERR_USAGE, "nvml_device=%ld: not a GPU index", dev);
  if (!(n = calloc(1, sizeof *n))) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  m->impl = n;
  n->device = (unsigned)(cuda_dev >= 0 ? cuda_dev : dev);
  if ((got = fupermod_subopt_get(subopts, "nvml_pci", n->pci, sizeof n->pci)) < 0) return got;
  if (!got && cuda_dev >= 0 && fupermod_cuda_pci_bus_id((int)cuda_dev, n->pci, sizeof n->pci) != FUPERMOD_SUCCESS)
    n->pci[0] = '\0';
  n->handle = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
  if (!n->handle) return fupermod_error(FUPERMOD_ERR_NODEVICE, "NVML is not available (%s)", dlerror());
  init = (nvml_return(*)(void))dlsym(n->handle, "nvmlInit_v2");
  if (!init) init = (nvml_return(*)(void))dlsym(n->handle, "nvmlInit");
  by_index = (nvml_return(*)(unsigned, nvml_device *))dlsym(n->handle, "nvmlDeviceGetHandleByIndex_v2");
  if (!by_index) by_index = (nvml_return(*)(unsigned, nvml_device *))dlsym(n->handle, "nvmlDeviceGetHandleByIndex");
  n->shutdown = (nvml_return(*)(void))dlsym(n->handle, "nvmlShutdown");
  n->energy = (nvml_return(*)(nvml_device, unsigned long long *))dlsym(n->handle, "nvmlDeviceGetTotalEnergyConsumption");
  n->error_string = (const char *(*)(nvml_return))dlsym(n->handle, "nvmlErrorString");
  by_pci = (nvml_return(*)(const char *, nvml_device *))dlsym(n->handle, "nvmlDeviceGetHandleByPciBusId_v2");
  if (!init || !by_index || !n->energy)
    return fupermod_error(FUPERMOD_ERR_NODEVICE, "%s: not an NVML library with total-energy counters", lib);
  if ((r = init()) != 0) return fupermod_error(FUPERMOD_ERR_NODEVICE, "NVML initialisation failed: %s", errstr(n, r));
  n->inited = 1;
  if (n->pci[0] && by_pci) {
    if ((r = by_pci(n->pci, &n->dev)) != 0)
      return fupermod_error(FUPERMOD_ERR_NODEVICE, "GPU %u (PCI %s): %s", n->device, n->pci, errstr(n, r));
  } else if ((r = by_index(n->device, &n->dev)) != 0)
    return fupermod_error(FUPERMOD_ERR_NODEVICE, "GPU %u: %s", n->device, errstr(n, r));
  if ((r = n->energy(n->dev, &probe)) != 0)
    return fupermod_error(r == NVML_ERROR_NOT_SUPPORTED ? FUPERMOD_ERR_NODEVICE : FUPERMOD_ERR_SYSTEM,
                          "GPU %u%s%s has no readable total-energy counter: %s", n->device, n->pci[0] && by_pci ? " PCI " : "",
                          n->pci[0] && by_pci ? n->pci : "", errstr(n, r));
  if (n->pci[0] && by_pci) {
    m->domain = fupermod_meter_strdupf("nvml:%s", n->pci);
    m->description = fupermod_meter_strdupf("nvml (GPU %u, PCI %s)", n->device, n->pci);
  } else {
    m->domain = fupermod_meter_strdupf("nvml:%u", n->device);
    m->description = fupermod_meter_strdupf("nvml (GPU %u)", n->device);
  }
  if (!m->domain || !m->description) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  return FUPERMOD_SUCCESS;
}
