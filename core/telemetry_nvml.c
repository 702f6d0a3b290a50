/*
 * core/telemetry_nvml.c - NVIDIA telemetry through NVML, loaded with
 * dlopen at run time so that axbench builds and runs without the NVIDIA
 * driver.  AXBENCH_NVML_LIB names another library (the tests' stub).
 */
#include "core/error.h"
#include "core/telemetry_internal.h"

#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* These mirror nvml.h (NVML API version 11/12): only what is used here,
 * declared by hand because the header is not installed on most hosts. */
typedef int nvmlReturn_t; /* NVML_SUCCESS = 0 */
typedef struct nvmlDevice_st *nvmlDevice_t;
typedef struct {
	unsigned long long total, free, used;
} nvmlMemory_t;
#define NVML_SUCCESS 0
#define NVML_TEMPERATURE_GPU 0
#define NVML_CLOCK_SM 1
#define NVML_CLOCK_MEM 2
/* Reasons that are not a slow-down: the GPU is idle (0x1) or clocks were
 * set by the application (0x2). */
#define NVML_REASONS_NOT_THROTTLE 0x3ULL

struct nvml_api {
	void *lib;
	nvmlReturn_t (*init)(void);
	nvmlReturn_t (*shutdown)(void);
	const char *(*error_string)(nvmlReturn_t);
	nvmlReturn_t (*by_pci)(const char *, nvmlDevice_t *);
	nvmlReturn_t (*by_uuid)(const char *, nvmlDevice_t *);
	nvmlReturn_t (*power)(nvmlDevice_t, unsigned int *);
	nvmlReturn_t (*energy)(nvmlDevice_t, unsigned long long *);
	nvmlReturn_t (*temp)(nvmlDevice_t, int, unsigned int *);
	nvmlReturn_t (*clock)(nvmlDevice_t, int, unsigned int *);
	nvmlReturn_t (*max_clock)(nvmlDevice_t, int, unsigned int *);
	nvmlReturn_t (*memory)(nvmlDevice_t, nvmlMemory_t *);
	/* The reasons: ClocksEventReasons since driver 535, the older
	 * ClocksThrottleReasons before (and deprecated after). */
	nvmlReturn_t (*reasons_new)(nvmlDevice_t, unsigned long long *);
	nvmlReturn_t (*reasons_old)(nvmlDevice_t, unsigned long long *);
};

struct nvml {
	struct nvml_api api;
	nvmlDevice_t dev;
	unsigned long long e_first; /* mJ at open */
	bool has_energy;
};

static const char *nvml_err(const struct nvml_api *a, nvmlReturn_t rc)
{
	static char buf[32];
	const char *s = a->error_string ? a->error_string(rc) : NULL;
	if (s)
		return s;
	snprintf(buf, sizeof(buf), "error %d", rc);
	return buf;
}

static int nvml_read(void *priv, struct ax_tel_reading *r)
{
	struct nvml *n = priv;
	const struct nvml_api *a = &n->api;
	unsigned int v;
	unsigned long long e;
	nvmlMemory_t mem;
	int got = 0;
	if (a->power && a->power(n->dev, &v) == NVML_SUCCESS)
		r->power_w = v * 1e-3, got++;
	if (n->has_energy && a->energy(n->dev, &e) == NVML_SUCCESS &&
	    e >= n->e_first)
		r->energy_j = (double)(e - n->e_first) * 1e-3, got++;
	if (a->temp && a->temp(n->dev, NVML_TEMPERATURE_GPU, &v) == 0)
		r->temp_c = v, got++;
	if (a->clock && a->clock(n->dev, NVML_CLOCK_SM, &v) == 0)
		r->sm_mhz = v, got++;
	if (a->clock && a->clock(n->dev, NVML_CLOCK_MEM, &v) == 0)
		r->mem_mhz = v;
	if (a->max_clock && a->max_clock(n->dev, NVML_CLOCK_SM, &v) == 0)
		r->sm_max_mhz = v;
	if (a->max_clock && a->max_clock(n->dev, NVML_CLOCK_MEM, &v) == 0)
		r->mem_max_mhz = v;
	if (a->memory && a->memory(n->dev, &mem) == 0)
		r->mem_used_b = (double)mem.used, got++;
	unsigned long long reasons;
	nvmlReturn_t rc = -1;
	if (a->reasons_new)
		rc = a->reasons_new(n->dev, &reasons);
	if (rc != NVML_SUCCESS && a->reasons_old)
		rc = a->reasons_old(n->dev, &reasons);
	if (rc == NVML_SUCCESS) {
		r->has_throttle = true;
		r->throttle = reasons & ~NVML_REASONS_NOT_THROTTLE;
	}
	return got ? 0 : AX_EIO;
}

/* nvmlInit and nvmlShutdown count references inside NVML, so every open
 * source may init and shut down on its own. */
static void nvml_close(void *priv)
{
	struct nvml *n = priv;
	n->api.shutdown();
	dlclose(n->api.lib);
	free(n);
}

static const struct ax_tel_ops nvml_ops = {"NVML", nvml_read, nvml_close};

static int load(struct nvml_api *a, const char *name, char *why, size_t len)
{
	a->lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
	if (!a->lib)
		return ax_errf(why, len, AX_ENOTFOUND, "NVML: %s", dlerror());
#define SYM(field, sym) *(void **)&a->field = dlsym(a->lib, sym)
	SYM(init, "nvmlInit_v2");
	SYM(shutdown, "nvmlShutdown");
	SYM(error_string, "nvmlErrorString");
	SYM(by_pci, "nvmlDeviceGetHandleByPciBusId_v2");
	SYM(by_uuid, "nvmlDeviceGetHandleByUUID");
	SYM(power, "nvmlDeviceGetPowerUsage");
	SYM(energy, "nvmlDeviceGetTotalEnergyConsumption");
	SYM(temp, "nvmlDeviceGetTemperature");
	SYM(clock, "nvmlDeviceGetClockInfo");
	SYM(max_clock, "nvmlDeviceGetMaxClockInfo");
	SYM(memory, "nvmlDeviceGetMemoryInfo");
	SYM(reasons_new, "nvmlDeviceGetCurrentClocksEventReasons");
	SYM(reasons_old, "nvmlDeviceGetCurrentClocksThrottleReasons");
#undef SYM
	if (!a->init || !a->shutdown || (!a->by_pci && !a->by_uuid)) {
		dlclose(a->lib);
		return ax_errf(
		    why, len, AX_ENOTFOUND,
		    "NVML: %s lacks nvmlInit_v2, nvmlShutdown or the "
		    "device look-ups",
		    name);
	}
	return 0;
}

int ax_tel_nvml_open(const struct ax_tel_device *dev,
		     const struct ax_tel_ops **ops, void **priv, char *why,
		     size_t len)
{
	const char *name = getenv("AXBENCH_NVML_LIB");
	if (!name || !*name)
		name = "libnvidia-ml.so.1";
	if (!dev->pci_bus_id[0] && !dev->uuid[0])
		return ax_errf(why, len, AX_ENOTFOUND,
			       "NVML: the device has no PCI bus id or UUID");
	struct nvml *n = calloc(1, sizeof(*n));
	if (!n)
		return ax_errf(why, len, AX_ENOMEM, "out of memory");
	int rc = load(&n->api, name, why, len);
	if (rc) {
		free(n);
		return rc;
	}
	struct nvml_api *a = &n->api;
	nvmlReturn_t nr = a->init();
	if (nr != NVML_SUCCESS) {
		ax_errf(why, len, AX_ENOTFOUND, "NVML: nvmlInit: %s",
			nvml_err(a, nr));
		dlclose(a->lib);
		free(n);
		return AX_ENOTFOUND;
	}
	/* By PCI bus id first (what the Vulkan driver reports), else by
	 * UUID, which NVML spells "GPU-" and the 36-character form. */
	nr = -1;
	if (dev->pci_bus_id[0] && a->by_pci)
		nr = a->by_pci(dev->pci_bus_id, &n->dev);
	if (nr != NVML_SUCCESS && dev->uuid[0] && a->by_uuid) {
		char uuid[48];
		snprintf(uuid, sizeof(uuid), "GPU-%s", dev->uuid);
		nr = a->by_uuid(uuid, &n->dev);
	}
	if (nr != NVML_SUCCESS) {
		ax_errf(why, len, AX_ENOTFOUND,
			"NVML: no device with PCI bus id %s or UUID %s (%s)",
			dev->pci_bus_id[0] ? dev->pci_bus_id : "(none)",
			dev->uuid[0] ? dev->uuid : "(none)", nvml_err(a, nr));
		a->shutdown();
		dlclose(a->lib);
		free(n);
		return AX_ENOTFOUND;
	}
	n->has_energy = a->energy && a->energy(n->dev, &n->e_first) == 0;
	*ops = &nvml_ops;
	*priv = n;
	return 0;
}
