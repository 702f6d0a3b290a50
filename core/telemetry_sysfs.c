/*
 * core/telemetry_sysfs.c - telemetry from sysfs: the hwmon files of an
 * amdgpu, i915 or xe card, and the host's RAPL powercap counters.
 *
 * Every path is under ax_tel_sysfs_root() (AXBENCH_SYSFS_ROOT), so tests
 * build the same layout in a temporary directory.  Units in sysfs: power
 * in microwatts, energy in microjoules, temperature in millidegrees,
 * frequency in hertz, VRAM in bytes.
 */
#include "core/error.h"
#include "core/telemetry_internal.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define PATH_LEN 4096

/* Paths are built with snprintf into PATH_LEN buffers: a path cut short
 * names no file and reads as "missing", which is the right answer, so
 * GCC's truncation warnings say nothing here. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

/* ---- hwmon (amdgpu, i915, xe) ----------------------------------------- */

struct hwmon {
	char power[PATH_LEN], energy[PATH_LEN], temp[PATH_LEN];
	char sclk[PATH_LEN], mclk[PATH_LEN], vram[PATH_LEN];
	uint64_t e_prev, e_total; /* microjoules since open */
	bool e_started;
	double sclk_max, mclk_max; /* MHz, from pp_dpm_*; NAN when unknown */
};

/* The highest level of an amdgpu DPM table ("0: 500Mhz\n1: 1800Mhz *"),
 * in MHz: the maximum the throttle rule compares clocks with.  NAN when
 * the file is missing or holds no level. */
static double dpm_max_mhz(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NAN;
	char line[128];
	double max = NAN;
	while (fgets(line, sizeof(line), f)) {
		unsigned level;
		double mhz;
		if (sscanf(line, "%u: %lf", &level, &mhz) == 2 && mhz > 0 &&
		    (isnan(max) || mhz > max))
			max = mhz;
	}
	fclose(f);
	return max;
}

static bool readable_u64(const char *path)
{
	uint64_t v;
	return ax_tel_read_u64(path, &v) == 0;
}

/* The PCI address of a DRM card: PCI_SLOT_NAME from its uevent, else the
 * name its device link points at. */
static int card_pci(const char *card, char *pci, size_t len, char *driver,
		    size_t dlen)
{
	char path[PATH_LEN], line[256];
	snprintf(path, sizeof(path), "%s/device/uevent", card);
	pci[0] = driver[0] = '\0';
	FILE *f = fopen(path, "r");
	if (f) {
		while (fgets(line, sizeof(line), f)) {
			line[strcspn(line, "\n")] = '\0';
			if (!strncmp(line, "PCI_SLOT_NAME=", 14))
				snprintf(pci, len, "%s", line + 14);
			else if (!strncmp(line, "DRIVER=", 7))
				snprintf(driver, dlen, "%s", line + 7);
		}
		fclose(f);
	}
	if (!pci[0]) {
		char target[PATH_LEN];
		snprintf(path, sizeof(path), "%s/device", card);
		ssize_t n = readlink(path, target, sizeof(target) - 1);
		if (n <= 0)
			return -1;
		target[n] = '\0';
		const char *base = strrchr(target, '/');
		snprintf(pci, len, "%s", base ? base + 1 : target);
	}
	return 0;
}

/* In hwmon dir hw: the PREFIXN_input whose PREFIXN_label is label, else
 * PREFIX<fallback>_input; "" when neither reads. */
static void pick_labelled(const char *hw, const char *prefix, const char *label,
			  int fallback, char *out)
{
	char path[PATH_LEN], text[64];
	out[0] = '\0';
	for (int i = 1; i <= 16; i++) {
		snprintf(path, sizeof(path), "%s/%s%d_label", hw, prefix, i);
		if (ax_tel_read_line(path, text, sizeof(text)) == 0 &&
		    strcasecmp(text, label) == 0) {
			snprintf(path, sizeof(path), "%s/%s%d_input", hw,
				 prefix, i);
			if (readable_u64(path)) {
				snprintf(out, PATH_LEN, "%s", path);
				return;
			}
		}
	}
	snprintf(path, sizeof(path), "%s/%s%d_input", hw, prefix, fallback);
	if (readable_u64(path))
		snprintf(out, PATH_LEN, "%s", path);
}

static double read_scaled(const char *path, double scale)
{
	uint64_t v;
	if (!path[0] || ax_tel_read_u64(path, &v))
		return NAN;
	return (double)v * scale;
}

static int hwmon_read(void *priv, struct ax_tel_reading *r)
{
	struct hwmon *h = priv;
	r->power_w = read_scaled(h->power, 1e-6);
	r->temp_c = read_scaled(h->temp, 1e-3);
	r->sm_mhz = read_scaled(h->sclk, 1e-6);
	r->mem_mhz = read_scaled(h->mclk, 1e-6);
	if (!isnan(r->sm_mhz))
		r->sm_max_mhz = h->sclk_max;
	if (!isnan(r->mem_mhz))
		r->mem_max_mhz = h->mclk_max;
	r->mem_used_b = read_scaled(h->vram, 1);
	uint64_t e;
	if (h->energy[0] && ax_tel_read_u64(h->energy, &e) == 0) {
		if (h->e_started)
			h->e_total += ax_tel_counter_delta(h->e_prev, e, 0);
		h->e_prev = e;
		h->e_started = true;
		r->energy_j = (double)h->e_total * 1e-6;
	}
	if (isnan(r->power_w) && isnan(r->energy_j) && isnan(r->temp_c) &&
	    isnan(r->sm_mhz) && isnan(r->mem_used_b))
		return AX_EIO;
	return 0;
}

static void hwmon_close(void *priv) { free(priv); }

static const struct ax_tel_ops amdgpu_ops = {"amdgpu hwmon", hwmon_read,
					     hwmon_close};
static const struct ax_tel_ops i915_ops = {"i915 hwmon", hwmon_read,
					   hwmon_close};
static const struct ax_tel_ops xe_ops = {"xe hwmon", hwmon_read, hwmon_close};
static const struct ax_tel_ops other_ops = {"hwmon", hwmon_read, hwmon_close};

/* The first hwmonN directory of a card, in out; -errno or 0. */
static int first_hwmon(const char *card, char *out)
{
	char path[PATH_LEN];
	snprintf(path, sizeof(path), "%s/device/hwmon", card);
	DIR *d = opendir(path);
	if (!d)
		return -errno;
	struct dirent *e;
	int rc = -ENOENT;
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, "hwmon", 5)) {
			snprintf(out, PATH_LEN, "%s/%s", path, e->d_name);
			rc = 0;
			break;
		}
	closedir(d);
	return rc;
}

/* The card directory whose PCI address is pci, in out (driver in drv). */
static int find_card(const char *pci, char *out, char *drv, size_t dlen,
		     char *why, size_t len)
{
	char drm[PATH_LEN];
	snprintf(drm, sizeof(drm), "%s/sys/class/drm", ax_tel_sysfs_root());
	DIR *d = opendir(drm);
	if (!d)
		return ax_errf(why, len, AX_ENOTFOUND, "hwmon: %s: %s", drm,
			       strerror(errno));
	struct dirent *e;
	int rc = AX_ENOTFOUND;
	while ((e = readdir(d))) {
		/* cardN only: cardN-DP-1 and renderD* are the same card. */
		const char *n = e->d_name;
		if (strncmp(n, "card", 4) || !n[4] ||
		    strspn(n + 4, "0123456789") != strlen(n + 4))
			continue;
		char card[PATH_LEN], addr[64];
		snprintf(card, sizeof(card), "%s/%s", drm, n);
		if (card_pci(card, addr, sizeof(addr), drv, dlen) == 0 &&
		    strcasecmp(addr, pci) == 0) {
			snprintf(out, PATH_LEN, "%s", card);
			rc = 0;
			break;
		}
	}
	closedir(d);
	if (rc)
		ax_errf(why, len, rc, "hwmon: no DRM card at PCI %s in %s", pci,
			drm);
	return rc;
}

int ax_tel_hwmon_open(const struct ax_tel_device *dev,
		      const struct ax_tel_ops **ops, void **priv, char *why,
		      size_t len)
{
	if (!dev->pci_bus_id[0])
		return ax_errf(why, len, AX_ENOTFOUND,
			       "hwmon: the device reports no PCI bus id");
	char card[PATH_LEN], hw[PATH_LEN], drv[64], path[PATH_LEN];
	int rc = find_card(dev->pci_bus_id, card, drv, sizeof(drv), why, len);
	if (rc)
		return rc;
	if ((rc = first_hwmon(card, hw)))
		return ax_errf(why, len, AX_ENOTFOUND,
			       "hwmon: %s/device/hwmon: %s", card,
			       strerror(-rc));
	struct hwmon *h = calloc(1, sizeof(*h));
	if (!h)
		return ax_errf(why, len, AX_ENOMEM, "out of memory");
	/* Kernels differ: newer amdgpu has power1_input, older
	 * power1_average; either is microwatts. */
	static const char *const power[] = {"power1_average", "power1_input"};
	for (int i = 0; i < 2 && !h->power[0]; i++) {
		snprintf(path, sizeof(path), "%s/%s", hw, power[i]);
		if (readable_u64(path))
			snprintf(h->power, PATH_LEN, "%s", path);
	}
	snprintf(path, sizeof(path), "%s/energy1_input", hw);
	if (readable_u64(path))
		snprintf(h->energy, PATH_LEN, "%s", path);
	pick_labelled(hw, "temp", "edge", 1, h->temp);
	pick_labelled(hw, "freq", "sclk", 1, h->sclk);
	pick_labelled(hw, "freq", "mclk", 2, h->mclk);
	snprintf(path, sizeof(path), "%s/device/pp_dpm_sclk", card);
	h->sclk_max = dpm_max_mhz(path);
	snprintf(path, sizeof(path), "%s/device/pp_dpm_mclk", card);
	h->mclk_max = dpm_max_mhz(path);
	snprintf(path, sizeof(path), "%s/device/mem_info_vram_used", card);
	if (readable_u64(path))
		snprintf(h->vram, PATH_LEN, "%s", path);
	if (!h->power[0] && !h->energy[0] && !h->temp[0] && !h->sclk[0] &&
	    !h->vram[0]) {
		free(h);
		return ax_errf(why, len, AX_ENOTFOUND,
			       "hwmon: %s has no readable power, energy, "
			       "temperature or clock file",
			       hw);
	}
	*ops = !strcmp(drv, "amdgpu") ? &amdgpu_ops
	       : !strcmp(drv, "i915") ? &i915_ops
	       : !strcmp(drv, "xe")   ? &xe_ops
				      : &other_ops;
	*priv = h;
	return 0;
}

/* ---- RAPL (the host CPU) ---------------------------------------------- */

#define RAPL_MAX_ZONES 16

struct rapl {
	int n;
	char energy[RAPL_MAX_ZONES][PATH_LEN];
	uint64_t max_range[RAPL_MAX_ZONES], prev[RAPL_MAX_ZONES];
	uint64_t total; /* microjoules since open, all packages */
};

static int rapl_read(void *priv, struct ax_tel_reading *r)
{
	struct rapl *p = priv;
	uint64_t now[RAPL_MAX_ZONES];
	for (int i = 0; i < p->n; i++)
		if (ax_tel_read_u64(p->energy[i], &now[i]))
			return AX_EIO; /* a partial sum would undercount */
	for (int i = 0; i < p->n; i++) {
		p->total +=
		    ax_tel_counter_delta(p->prev[i], now[i], p->max_range[i]);
		p->prev[i] = now[i];
	}
	r->energy_j = (double)p->total * 1e-6;
	return 0;
}

static void rapl_close(void *priv) { free(priv); }

static const struct ax_tel_ops rapl_ops = {"RAPL", rapl_read, rapl_close};

int ax_tel_rapl_open(const struct ax_tel_device *dev,
		     const struct ax_tel_ops **ops, void **priv, char *why,
		     size_t len)
{
	char dir[PATH_LEN];
	snprintf(dir, sizeof(dir), "%s/sys/class/powercap",
		 ax_tel_sysfs_root());
	DIR *d = opendir(dir);
	if (!d)
		return ax_errf(why, len, AX_ENOTFOUND, "RAPL: %s: %s", dir,
			       strerror(errno));
	struct rapl *p = calloc(1, sizeof(*p));
	if (!p) {
		closedir(d);
		return ax_errf(why, len, AX_ENOMEM, "out of memory");
	}
	char last_err[PATH_LEN + 64] = "";
	struct dirent *e;
	while ((e = readdir(d)) && p->n < RAPL_MAX_ZONES) {
		/* Packages only (intel-rapl:0): their subzones
		 * (intel-rapl:0:0, core and uncore) are inside them. */
		const char *n = e->d_name;
		if (strncmp(n, "intel-rapl:", 11) || !n[11] ||
		    strspn(n + 11, "0123456789") != strlen(n + 11))
			continue;
		char path[PATH_LEN], zone[64];
		uint64_t v, max = 0;
		/* psys (the whole platform, on some laptops) holds the
		 * packages already: summing it too would count them twice. */
		snprintf(path, sizeof(path), "%s/%s/name", dir, n);
		if (ax_tel_read_line(path, zone, sizeof(zone)) == 0 &&
		    strcmp(zone, "psys") == 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s/energy_uj", dir, n);
		int rc = ax_tel_read_u64(path, &v);
		if (rc) {
			snprintf(last_err, sizeof(last_err), "RAPL: %s: %s",
				 path, strerror(-rc));
			continue;
		}
		snprintf(p->energy[p->n], PATH_LEN, "%s", path);
		snprintf(path, sizeof(path), "%s/%s/max_energy_range_uj", dir,
			 n);
		if (ax_tel_read_u64(path, &max))
			max = 0; /* unknown: a smaller value reads as a reset */
		p->max_range[p->n] = max;
		p->prev[p->n] = v;
		p->n++;
	}
	closedir(d);
	if (p->n == 0) {
		free(p);
		if (last_err[0])
			return ax_errf(why, len, AX_ENOTFOUND, "%s", last_err);
		return ax_errf(why, len, AX_ENOTFOUND,
			       "RAPL: %s has no intel-rapl package zone", dir);
	}
	*ops = &rapl_ops;
	*priv = p;
	return 0;
}
