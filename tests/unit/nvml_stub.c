/*
 * tests/unit/nvml_stub.c - a FAKE NVML for the tests: a shared library
 * (build/tests/libnvml_stub.so) that exports the NVML functions
 * core/telemetry_nvml.c uses and answers with scripted values, loaded
 * through AXBENCH_NVML_LIB.  It measures nothing.  Built a second time
 * with -DNVML_STUB_OLD (libnvml_stub_old.so) as a driver from before
 * 535, without nvmlDeviceGetCurrentClocksEventReasons.
 *
 * The script, read from the environment at every call:
 *   NVML_STUB_INIT_FAIL=1      nvmlInit_v2 fails
 *   NVML_STUB_POWER_MW         power (default 150000)
 *   NVML_STUB_ENERGY_STEP_MJ   the energy counter's rise per call
 *                              (default 500; it starts at 1000000)
 *   NVML_STUB_SM_MHZ           SM clock (default 1800; maximum 2000)
 *   NVML_STUB_REASONS          throttle reasons, hex (default 0)
 * The one device has PCI bus id 0000:65:00.0 and UUID
 * GPU-11111111-2222-3333-4444-555555555555.
 */
#include <stdlib.h>
#include <string.h>

typedef struct {
	unsigned long long total, free, used;
} nvmlMemory_t;

static int dummy_device;
static unsigned long long energy_mj = 1000000;

static long env_long(const char *name, long def, int base)
{
	const char *v = getenv(name);
	return v && *v ? strtol(v, NULL, base) : def;
}

int nvmlInit_v2(void) { return env_long("NVML_STUB_INIT_FAIL", 0, 10) ? 1 : 0; }
int nvmlShutdown(void) { return 0; }
const char *nvmlErrorString(int rc) { return rc ? "Stub Error" : "Success"; }

int nvmlDeviceGetHandleByPciBusId_v2(const char *pci, void **dev)
{
	if (strcmp(pci, "0000:65:00.0") && strcmp(pci, "00000000:65:00.0"))
		return 6; /* NVML_ERROR_NOT_FOUND */
	*dev = &dummy_device;
	return 0;
}

int nvmlDeviceGetHandleByUUID(const char *uuid, void **dev)
{
	if (strcmp(uuid, "GPU-11111111-2222-3333-4444-555555555555"))
		return 6;
	*dev = &dummy_device;
	return 0;
}

int nvmlDeviceGetPowerUsage(void *dev, unsigned int *mw)
{
	*mw = (unsigned int)env_long("NVML_STUB_POWER_MW", 150000, 10);
	return 0;
}

int nvmlDeviceGetTotalEnergyConsumption(void *dev, unsigned long long *mj)
{
	*mj = energy_mj;
	energy_mj +=
	    (unsigned long long)env_long("NVML_STUB_ENERGY_STEP_MJ", 500, 10);
	return 0;
}

int nvmlDeviceGetTemperature(void *dev, int sensor, unsigned int *c)
{
	*c = 65;
	return 0;
}

int nvmlDeviceGetClockInfo(void *dev, int type, unsigned int *mhz)
{
	*mhz = type == 1 ? (unsigned int)env_long("NVML_STUB_SM_MHZ", 1800, 10)
			 : 9000;
	return 0;
}

int nvmlDeviceGetMaxClockInfo(void *dev, int type, unsigned int *mhz)
{
	*mhz = type == 1 ? 2000 : 9501;
	return 0;
}

int nvmlDeviceGetMemoryInfo(void *dev, nvmlMemory_t *m)
{
	m->total = 8ULL << 30;
	m->used = 1ULL << 30;
	m->free = m->total - m->used;
	return 0;
}

#ifndef NVML_STUB_OLD
int nvmlDeviceGetCurrentClocksEventReasons(void *dev, unsigned long long *r)
{
	*r = (unsigned long long)env_long("NVML_STUB_REASONS", 0, 16);
	return 0;
}
#endif

/* In the new build the old name answers a marker (0x100) that a reader
 * preferring the new name never returns. */
int nvmlDeviceGetCurrentClocksThrottleReasons(void *dev, unsigned long long *r)
{
#ifdef NVML_STUB_OLD
	*r = (unsigned long long)env_long("NVML_STUB_REASONS", 0, 16);
#else
	*r = 0x100;
#endif
	return 0;
}
