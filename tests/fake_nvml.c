/* A stand-in for libnvidia-ml.so.1 (tests only): device 0 reports the total energy, in mJ, written
 * in the file named by $FAKE_NVML_ENERGY; device 1 has no energy counter (a pre-Volta GPU); there
 * are no other devices. By PCI bus id they are the stand-in CUDA's devices in the other order
 * (0000:18:00.0 is NVML's device 0, 0000:10:00.0 its device 1), as when CUDA_VISIBLE_DEVICES
 * renumbers them: found by index, the CUDA device would get the other GPU's counter. */
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

struct nvml_dev {
  int index;
};
static struct nvml_dev devs[2] = {{0}, {1}};

int nvmlInit_v2(void) { return 0; }
int nvmlShutdown(void) { return 0; }

int nvmlDeviceGetHandleByIndex_v2(unsigned index, struct nvml_dev **dev) {
  if (index > 1) return 2; /* NVML_ERROR_INVALID_ARGUMENT */
  *dev = &devs[index];
  return 0;
}

int nvmlDeviceGetHandleByPciBusId_v2(const char *bus, struct nvml_dev **dev) {
  if (bus && strcasecmp(bus, "0000:18:00.0") == 0) *dev = &devs[0];
  else if (bus && strcasecmp(bus, "0000:10:00.0") == 0) *dev = &devs[1];
  else return 6; /* NVML_ERROR_NOT_FOUND */
  return 0;
}

int nvmlDeviceGetTotalEnergyConsumption(struct nvml_dev *dev, unsigned long long *mj) {
  const char *path;
  FILE *fp;
  int ok;
  if (dev->index != 0) return 3; /* NVML_ERROR_NOT_SUPPORTED */
  path = getenv("FAKE_NVML_ENERGY");
  if (!path || !(fp = fopen(path, "r"))) return 999; /* NVML_ERROR_UNKNOWN */
  ok = fscanf(fp, "%llu", mj) == 1;
  fclose(fp);
  return ok ? 0 : 999;
}

const char *nvmlErrorString(int r) {
  switch (r) {
  case 2: return "Invalid Argument";
  case 3: return "Not Supported";
  case 6: return "Not Found";
  default: return "Unknown Error";
  }
}
