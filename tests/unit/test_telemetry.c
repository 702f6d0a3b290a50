/*
 * tests/unit/test_telemetry.c - core/telemetry against fixture trees with
 * the real sysfs layouts (amdgpu hwmon, i915 energy, intel-rapl with
 * wrap-around; missing and unreadable files), against the fake NVML
 * (build/tests/libnvml_stub*.so, tests/unit/nvml_stub.c) and without
 * one, and its arithmetic on synthetic series.
 *
 * Unreadable files are made directories (reading one fails with EISDIR
 * even as root, where chmod 000 would not stop a read); the mode 0400
 * case is read by "nobody" (ax_test_unprivileged) when run as root.
 */
#include "ax_test.h"

#include "core/error.h"
#include "core/telemetry.h"

#include <errno.h>
#include <libgen.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static char root[256];

/* mkdir -p of path's parent directories, then write text to path. */
static void put(const char *rel, const char *text)
{
	char path[1024];
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (char *p = path + strlen(root) + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(path, 0755);
			*p = '/';
		}
	FILE *f = fopen(path, "w");
	AX_CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void put_dir(const char *rel)
{
	char path[1024];
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	char cmd[1100];
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", path);
	AX_CHECK(system(cmd) == 0);
}

/* A fresh, empty fixture root, set as AXBENCH_SYSFS_ROOT. */
static void fresh_root(void)
{
	if (root[0]) {
		char cmd[300];
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
		AX_CHECK(system(cmd) == 0);
	}
	snprintf(root, sizeof(root), "/tmp/ax_tel_XXXXXX");
	AX_CHECK(mkdtemp(root) != NULL);
	setenv("AXBENCH_SYSFS_ROOT", root, 1);
	setenv("AXBENCH_NVML_LIB", "/nonexistent/libnvidia-ml.so.1", 1);
}

static struct ax_tel_device device(enum ax_tel_kind kind, unsigned vendor,
				   const char *pci, const char *uuid,
				   const char *name)
{
	struct ax_tel_device d = {.vendor_id = vendor, .kind = kind};
	snprintf(d.pci_bus_id, sizeof(d.pci_bus_id), "%s", pci);
	snprintf(d.uuid, sizeof(d.uuid), "%s", uuid);
	snprintf(d.name, sizeof(d.name), "%s", name);
	return d;
}

/* CLOCK_MONOTONIC in seconds: the clock of ax_tel_reading.t. */
static double mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void pause_ms(int ms)
{
	struct timespec ts = {0, ms * 1000000L};
	nanosleep(&ts, NULL);
}

/* ---- arithmetic ------------------------------------------------------- */

static void series(struct ax_tel_reading *s, size_t n, double dt, double power)
{
	for (size_t i = 0; i < n; i++) {
		ax_tel_reading_clear(&s[i]);
		s[i].t = 100.0 + dt * (double)i;
		s[i].power_w = power;
	}
}

static void test_counter_wraps(void)
{
	AX_CHECK_INT(ax_tel_counter_delta(100, 250, 1000), 150);
	/* 262143328850 is a real max_energy_range_uj. */
	AX_CHECK_INT(
	    ax_tel_counter_delta(262143328850ULL - 100, 50, 262143328850ULL),
	    150);
	AX_CHECK_INT(ax_tel_counter_delta(500, 20, 0), 20); /* reset */
	AX_CHECK_INT(ax_tel_counter_delta(7, 7, 10), 0);
}

static void test_integrate_power(void)
{
	struct ax_tel_reading s[11];
	series(s, 11, 0.1, 10.0); /* 10 W for 1 s */
	AX_CHECK_NEAR(ax_tel_integrate_power(s, 11), 10.0, 1e-9);
	AX_CHECK_NEAR(ax_tel_energy(s, 11), 10.0, 1e-9);
	AX_CHECK_NEAR(ax_tel_mean_power(s, 11), 10.0, 1e-9);
	for (int i = 0; i < 11; i++) /* a ramp 0..20 W: 10 J */
		s[i].power_w = 2.0 * i;
	AX_CHECK_NEAR(ax_tel_integrate_power(s, 11), 10.0, 1e-9);
	AX_CHECK_NEAR(ax_tel_max_power(s, 11), 20.0, 1e-12);
	s[5].power_w = NAN; /* a missing sample is skipped, not a zero */
	AX_CHECK_NEAR(ax_tel_integrate_power(s, 11), 10.0, 1e-9);
	AX_CHECK(isnan(ax_tel_integrate_power(s, 1)));
	for (int i = 0; i < 11; i++)
		s[i].power_w = NAN;
	AX_CHECK(isnan(ax_tel_energy(s, 11)));
	AX_CHECK(isnan(ax_tel_mean_power(s, 11)));
	AX_CHECK(isnan(ax_tel_max_power(s, 11)));
}

static void test_counter_beats_power(void)
{
	struct ax_tel_reading s[5];
	series(s, 5, 0.5, 10.0); /* power says 20 J over 2 s ... */
	for (int i = 0; i < 5; i++)
		s[i].energy_j = 3.0 + 6.0 * i; /* ... the counter 24 J */
	AX_CHECK_NEAR(ax_tel_energy(s, 5), 24.0, 1e-9);
	AX_CHECK_NEAR(ax_tel_mean_power(s, 5), 12.0, 1e-9);
}

static void test_net_of_idle(void)
{
	struct ax_tel_reading idle[3], load[5];
	series(idle, 3, 0.5, 20.0);  /* 20 W idle */
	series(load, 5, 0.75, 50.0); /* 50 W for 3 s: 150 J */
	double gross = ax_tel_energy(load, 5);
	double idle_w = ax_tel_mean_power(idle, 3);
	AX_CHECK_NEAR(gross, 150.0, 1e-9);
	AX_CHECK_NEAR(ax_tel_net_energy(gross, idle_w, 3.0), 90.0, 1e-9);
	AX_CHECK(isnan(ax_tel_net_energy(gross, NAN, 3.0)));
}

static void test_throttle_rule(void)
{
	struct ax_tel_reading s[4];
	char ev[256];
	series(s, 4, 0.1, 100.0);
	AX_CHECK(!ax_tel_throttled(s, 4, ev, sizeof(ev)));
	AX_CHECK_STR(ev, "no clock or reason data");
	for (int i = 0; i < 4; i++) {
		s[i].sm_mhz = 1900;
		s[i].sm_max_mhz = 2000;
	}
	AX_CHECK(!ax_tel_throttled(s, 4, ev, sizeof(ev))); /* 95 % */
	s[2].sm_mhz = s[3].sm_mhz = 1500;		   /* mean 1700: 85 % */
	AX_CHECK(ax_tel_throttled(s, 4, ev, sizeof(ev)));
	AX_CHECK(strstr(ev, "85 %") != NULL);
	AX_CHECK(strstr(ev, "below 90 %") != NULL);
	s[2].sm_mhz = s[3].sm_mhz = 1900;
	s[1].has_throttle = true;
	s[1].throttle = 0x4; /* a vendor reason wins over good clocks */
	AX_CHECK(ax_tel_throttled(s, 4, ev, sizeof(ev)));
	AX_CHECK(strstr(ev, "0x4") != NULL);
	AX_CHECK(!ax_tel_throttled(s, 0, NULL, 0));
}

/* ---- RAPL ------------------------------------------------------------- */

#define RAPL "sys/class/powercap/"

static void test_rapl_missing(void)
{
	fresh_root();
	struct ax_tel_device d =
	    device(AX_TEL_CPU, 0x10005, "", "", "llvmpipe (LLVM 15)");
	struct ax_tel_source *src;
	char why[1024], want[512];
	AX_CHECK_INT(ax_tel_open(&d, &src, why, sizeof(why)), AX_ENOTFOUND);
	AX_CHECK(src == NULL);
	snprintf(want, sizeof(want),
		 "no sensor for llvmpipe (LLVM 15): RAPL: %s/sys/class/"
		 "powercap: No such file or directory",
		 root);
	AX_CHECK_STR(why, want);
	put_dir(RAPL); /* there, but without a package zone */
	AX_CHECK_INT(ax_tel_open(&d, &src, why, sizeof(why)), AX_ENOTFOUND);
	AX_CHECK(strstr(why, "has no intel-rapl package zone") != NULL);
}

static void test_rapl_unreadable(void)
{
	fresh_root();
	put_dir(RAPL "intel-rapl:0/energy_uj");
	struct ax_tel_device d = device(AX_TEL_CPU, 0x10005, "", "", "cpu");
	struct ax_tel_source *src;
	char why[1024];
	AX_CHECK_INT(ax_tel_open(&d, &src, why, sizeof(why)), AX_ENOTFOUND);
	AX_CHECK(strstr(why, "intel-rapl:0/energy_uj: Is a directory"));
}

/* Run by a user the file's mode stops (ax_test_unprivileged). */
static void open_denied(void *unused)
{
	struct ax_tel_device d = device(AX_TEL_CPU, 0x10005, "", "", "cpu");
	struct ax_tel_source *src = NULL;
	char why[1024] = "";
	AX_CHECK_INT(ax_tel_open(&d, &src, why, sizeof(why)), AX_ENOTFOUND);
	AX_CHECK(src == NULL);
	printf("#   %s\n", why);
	AX_CHECK(strstr(why, "intel-rapl:0/energy_uj: Permission denied"));
}

/* energy_uj 0400 root's, as on recent kernels, read by another user. */
static void test_rapl_permission_denied(void)
{
	fresh_root();
	put(RAPL "intel-rapl:0/energy_uj", "5\n");
	char p[512], why[256];
	snprintf(p, sizeof(p), "%s/" RAPL "intel-rapl:0/energy_uj", root);
	AX_CHECK(chmod(p, 0) == 0);
	/* root and the directories above the file: 0755 (mkdtemp's 0700,
	 * put's under the umask), so that another user reaches it. */
	for (char *c = p + strlen(p); c >= p + strlen(root); c--)
		if (*c == '/') {
			*c = '\0';
			AX_CHECK(chmod(p, 0755) == 0);
		}
	if (ax_test_unprivileged(open_denied, NULL, why, sizeof(why)))
		AX_SKIP("%s", why);
}

static void test_rapl_wraps(void)
{
	fresh_root();
	/* Two packages, each with a subzone that must not be summed again. */
	put(RAPL "intel-rapl:0/energy_uj", "262143328000\n");
	put(RAPL "intel-rapl:0/max_energy_range_uj", "262143328850\n");
	put(RAPL "intel-rapl:0/name", "package-0\n");
	put(RAPL "intel-rapl:0:0/energy_uj", "999999999\n");
	put(RAPL "intel-rapl:1/energy_uj", "1000000\n");
	put(RAPL "intel-rapl:1/max_energy_range_uj", "262143328850\n");
	put(RAPL "intel-rapl:2/name", "psys\n"); /* holds the packages */
	put(RAPL "intel-rapl:2/energy_uj", "1000\n");
	struct ax_tel_device d = device(AX_TEL_CPU, 0x10005, "", "", "cpu");
	struct ax_tel_source *src;
	char why[1024];
	AX_CHECK_INT(ax_tel_open(&d, &src, why, sizeof(why)), 0);
	if (!src)
		return;
	AX_CHECK_STR(ax_tel_source_name(src), "RAPL");
	struct ax_tel_reading r;
	double t0 = mono_s();
	AX_CHECK_INT(ax_tel_read(src, &r), 0);
	double t1 = mono_s(), first_t = r.t;
	AX_CHECK_NEAR(r.energy_j, 0.0, 1e-12);
	AX_CHECK(isnan(r.power_w)); /* no previous reading: unknown */
	AX_CHECK(isnan(r.temp_c));
	pause_ms(20);
	/* Package 0 wraps: 850 to the top, then 150 more; package 1 +2 J. */
	put(RAPL "intel-rapl:0/energy_uj", "150\n");
	put(RAPL "intel-rapl:0:0/energy_uj", "5\n");
	put(RAPL "intel-rapl:1/energy_uj", "3000000\n");
	put(RAPL "intel-rapl:2/energy_uj", "90000000\n");
	double t2 = mono_s();
	AX_CHECK_INT(ax_tel_read(src, &r), 0);
	double t3 = mono_s();
	AX_CHECK_NEAR(r.energy_j, 2.001, 1e-9);
	/* Watts: the 2.001 J over the time between the two readings, which
	 * lies between t2 - t1 and t3 - t0 (at least the 20 ms pause). */
	printf("#   %.6f J in %.6f s: %.6g W\n", r.energy_j, r.t - first_t,
	       r.power_w);
	AX_CHECK(t1 >= first_t && first_t >= t0 && t3 >= r.t && r.t >= t2);
	AX_CHECK_NEAR(r.power_w, 2.001 / (r.t - first_t), 1e-9 * r.power_w);
	AX_CHECK(r.power_w >= 2.001 / (t3 - t0) &&
		 r.power_w <= 2.001 / (t2 - t1));
	AX_CHECK(r.power_w <= 2.001 / 0.02);
	/* A zone that stops answering gives no reading, never a part sum. */
	char p[512];
	snprintf(p, sizeof(p), "%s/" RAPL "intel-rapl:1/energy_uj", root);
	unlink(p);
	AX_CHECK_INT(ax_tel_read(src, &r), AX_EIO);
	AX_CHECK(isnan(r.energy_j) && isnan(r.power_w));
	ax_tel_close(src);
}

/* ---- hwmon -------------------------------------------------------------- */

#define AMD_DEV "sys/devices/pci0000:00/0000:03:00.0/"
#define AMD_HW AMD_DEV "hwmon/hwmon4/"

/* The amdgpu layout: cardN/device is a link to the PCI device. */
static void amdgpu_tree(void)
{
	put(AMD_DEV "uevent", "DRIVER=amdgpu\nPCI_CLASS=30000\n"
			      "PCI_SLOT_NAME=0000:03:00.0\n");
	put(AMD_DEV "mem_info_vram_used", "1073741824\n");
	put(AMD_DEV "pp_dpm_sclk", "0: 500Mhz\n1: 1800Mhz *\n2: 2100Mhz\n");
	put(AMD_HW "name", "amdgpu\n");
	put(AMD_HW "power1_average", "35000000\n");
	put(AMD_HW "temp1_input", "45000\n");
	put(AMD_HW "temp1_label", "edge\n");
	put(AMD_HW "temp2_input", "52000\n");
	put(AMD_HW "temp2_label", "junction\n");
	put(AMD_HW "freq1_input", "1800000000\n");
	put(AMD_HW "freq1_label", "sclk\n");
	put(AMD_HW "freq2_input", "1000000000\n");
	put(AMD_HW "freq2_label", "mclk\n");
	put_dir("sys/class/drm/card0");
	put_dir("sys/class/drm/card0-DP-1");
	put_dir("sys/class/drm/renderD128");
	char link[512];
	snprintf(link, sizeof(link), "%s/sys/class/drm/card0/device", root);
	AX_CHECK(symlink("../../../devices/pci0000:00/0000:03:00.0", link) ==
		 0);
}

static void test_amdgpu(void)
{
	fresh_root();
	amdgpu_tree();
	struct ax_tel_device d =
	    device(AX_TEL_GPU, 0x1002, "0000:03:00.0", "", "Radeon");
	struct ax_tel_source *src;
	char why[1024];
	AX_CHECK_INT(ax_tel_open(&d, &src, why, sizeof(why)), 0);
	if (!src) {
		printf("# %s\n", why);
		return;
	}
	AX_CHECK_STR(ax_tel_source_name(src), "amdgpu hwmon");
	struct ax_tel_reading r;
	AX_CHECK_INT(ax_tel_read(src, &r), 0);
	AX_CHECK_NEAR(r.power_w, 35.0, 1e-9);
	AX_CHECK_NEAR(r.temp_c, 45.0, 1e-9); /* edge, not junction */
	AX_CHECK_NEAR(r.sm_mhz, 1800.0, 1e-9);
	AX_CHECK_NEAR(r.mem_mhz, 1000.0, 1e-9);
	AX_CHECK_NEAR(r.mem_used_b, 1073741824.0, 0.5);
	AX_CHECK(isnan(r.energy_j));		   /* no energy1_input here */
	AX_CHECK_NEAR(r.sm_max_mhz, 2100.0, 1e-9); /* pp_dpm_sclk's top */
	AX_CHECK(isnan(r.mem_max_mhz));		   /* no pp_dpm_mclk */
	/* 1800 of 2100 MHz is 86 %: throttled by the clock rule. */
	AX_CHECK(ax_tel_throttled(&r, 1, NULL, 0));
	ax_tel_close(src);
}

/* Newer kernels: power1_input, and energy1_input; an unreadable
 * power1_average is passed over. */
static void test_amdgpu_newer_kernel(void)
{
	fresh_root();
	amdgpu_tree();
	char p[512];
	snprintf(p, sizeof(p), "%s/" AMD_HW "power1_average", root);
	unlink(p);
	put_dir(AMD_HW "power1_average");
	put(AMD_HW "power1_input", "42000000\n");
	put(AMD_HW "energy1_input", "1000000\n");
	struct ax_tel_device d =
	    device(AX_TEL_GPU, 0x1002, "0000:03:00.0", "", "Radeon");
	struct ax_tel_source *src;
	char why[1024];
	AX_CHECK_INT(ax_tel_open(&d, &src, why, sizeof(why)), 0);
	if (!src)
		return;
	struct ax_tel_reading r;
	AX_CHECK_INT(ax_tel_read(src, &r), 0);
	AX_CHECK_NEAR(r.power_w, 42.0, 1e-9);
	AX_CHECK_NEAR(r.energy_j, 0.0, 1e-12);
	put(AMD_HW "energy1_input", "4500000\n");
	AX_CHECK_INT(ax_tel_read(src, &r), 0);
	AX_CHECK_NEAR(r.energy_j, 3.5, 1e-9);
	/* Files that vanish read as NAN, the rest still reads. */
	snprintf(p, sizeof(p), "%s/" AMD_HW "temp1_input", root);
	unlink(p);
	AX_CHECK_INT(ax_tel_read(src, &r), 0);
	AX_CHECK(isnan(r.temp_c));
	AX_CHECK_NEAR(r.power_w, 42.0, 1e-9);
	ax_tel_close(src);
}

static void test_i915_energy_only(void)
{
	fresh_root();
	put("sys/class/drm/card1/device/uevent",
	    "DRIVER=i915\nPCI_SLOT_NAME=0000:00:02.0\n");
	put("sys/class/drm/card1/device/hwmon/hwmon2/name", "i915\n");
	put("sys/class/drm/card1/device/hwmon/hwmon2/energy1_input",
	    "5000000\n");
	struct ax_tel_device d =
	    device(AX_TEL_GPU, 0x8086, "0000:00:02.0", "", "Intel UHD");
	struct ax_tel_source *src;
	char why[1024];
	AX_CHECK_INT(ax_tel_open(&d, &src, why, sizeof(why)), 0);
	if (!src)
		return;
	AX_CHECK_STR(ax_tel_source_name(src), "i915 hwmon");
	struct ax_tel_reading r;
	AX_CHECK_INT(ax_tel_read(src, &r), 0);
	AX_CHECK(isnan(r.power_w));
	pause_ms(20);
	put("sys/class/drm/card1/device/hwmon/hwmon2/energy1_input",
	    "7000000\n");
	AX_CHECK_INT(ax_tel_read(src, &r), 0);
	AX_CHECK_NEAR(r.energy_j, 2.0, 1e-9);
	AX_CHECK(r.power_w > 0 && isfinite(r.power_w)); /* from the counter */
	AX_CHECK(isnan(r.temp_c));
	ax_tel_close(src);
}

static void test_hwmon_no_match(void)
{
	fresh_root();
	amdgpu_tree();
	struct ax_tel_device d =
	    device(AX_TEL_GPU, 0x1002, "0000:09:00.0", "", "Other");
	struct ax_tel_source *src;
	char why[1024];
	AX_CHECK_INT(ax_tel_open(&d, &src, why, sizeof(why)), AX_ENOTFOUND);
	AX_CHECK(strstr(why, "no sensor for Other (PCI 0000:09:00.0): "
			     "hwmon: no DRM card at PCI 0000:09:00.0") == why);
	AX_CHECK(strstr(why, "; NVML: /nonexistent/libnvidia-ml.so.1: "
			     "cannot open shared object file") != NULL);
	/* A card with a hwmon directory but nothing readable in it. */
	fresh_root();
	put("sys/class/drm/card0/device/uevent",
	    "DRIVER=amdgpu\nPCI_SLOT_NAME=0000:03:00.0\n");
	put_dir("sys/class/drm/card0/device/hwmon/hwmon0/power1_average");
	d = device(AX_TEL_GPU, 0x1002, "0000:03:00.0", "", "Radeon");
	AX_CHECK_INT(ax_tel_open(&d, &src, why, sizeof(why)), AX_ENOTFOUND);
	AX_CHECK(strstr(why, "has no readable power") != NULL);
}

/* ---- NVML ------------------------------------------------------------- */

static void use_stub(const char *name)
{
	char exe[512], lib[600];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	AX_CHECK(n > 0);
	exe[n > 0 ? n : 0] = '\0';
	snprintf(lib, sizeof(lib), "%s/%s", dirname(exe), name);
	setenv("AXBENCH_NVML_LIB", lib, 1);
}

static void test_nvml_stub(void)
{
	fresh_root();
	use_stub("libnvml_stub.so");
	setenv("NVML_STUB_REASONS", "4", 1);
	struct ax_tel_device d =
	    device(AX_TEL_GPU, 0x10de, "0000:65:00.0", "", "RTX");
	struct ax_tel_source *src;
	char why[1024];
	AX_CHECK_INT(ax_tel_open(&d, &src, why, sizeof(why)), 0);
	if (!src) {
		printf("# %s\n", why);
		return;
	}
	AX_CHECK_STR(ax_tel_source_name(src), "NVML");
	struct ax_tel_reading r;
	AX_CHECK_INT(ax_tel_read(src, &r), 0);
	AX_CHECK_NEAR(r.power_w, 150.0, 1e-9);
	AX_CHECK_NEAR(r.energy_j, 0.5, 1e-9); /* one 500 mJ step since open */
	AX_CHECK_NEAR(r.temp_c, 65.0, 1e-9);
	AX_CHECK_NEAR(r.sm_mhz, 1800.0, 1e-9);
	AX_CHECK_NEAR(r.sm_max_mhz, 2000.0, 1e-9);
	AX_CHECK_NEAR(r.mem_mhz, 9000.0, 1e-9);
	AX_CHECK_NEAR(r.mem_max_mhz, 9501.0, 1e-9);
	AX_CHECK_NEAR(r.mem_used_b, 1073741824.0, 0.5);
	AX_CHECK(r.has_throttle);
	AX_CHECK_INT(r.throttle, 0x4); /* the new name, not the 0x100 marker */
	setenv("NVML_STUB_REASONS", "1", 1); /* idle is no throttle */
	AX_CHECK_INT(ax_tel_read(src, &r), 0);
	AX_CHECK_INT(r.throttle, 0);
	AX_CHECK_NEAR(r.energy_j, 1.0, 1e-9);
	ax_tel_close(src);
	/* By UUID when the PCI bus id is not NVML's. */
	d = device(AX_TEL_GPU, 0x10de, "0000:66:00.0",
		   "11111111-2222-3333-4444-555555555555", "RTX");
	AX_CHECK_INT(ax_tel_open(&d, &src, why, sizeof(why)), 0);
	ax_tel_close(src);
	d = device(AX_TEL_GPU, 0x10de, "0000:66:00.0", "", "RTX");
	AX_CHECK_INT(ax_tel_open(&d, &src, why, sizeof(why)), AX_ENOTFOUND);
	AX_CHECK(strstr(why, "NVML: no device with PCI bus id 0000:66:00.0"));
	setenv("NVML_STUB_INIT_FAIL", "1", 1);
	d = device(AX_TEL_GPU, 0x10de, "0000:65:00.0", "", "RTX");
	AX_CHECK_INT(ax_tel_open(&d, &src, why, sizeof(why)), AX_ENOTFOUND);
	AX_CHECK(strstr(why, "NVML: nvmlInit: Stub Error") != NULL);
	unsetenv("NVML_STUB_INIT_FAIL");
	unsetenv("NVML_STUB_REASONS");
}

static void test_nvml_old_driver(void)
{
	fresh_root();
	use_stub("libnvml_stub_old.so");
	setenv("NVML_STUB_REASONS", "8", 1);
	struct ax_tel_device d =
	    device(AX_TEL_GPU, 0x10de, "0000:65:00.0", "", "GTX");
	struct ax_tel_source *src;
	char why[1024];
	AX_CHECK_INT(ax_tel_open(&d, &src, why, sizeof(why)), 0);
	if (!src)
		return;
	struct ax_tel_reading r;
	AX_CHECK_INT(ax_tel_read(src, &r), 0);
	AX_CHECK(r.has_throttle);
	AX_CHECK_INT(r.throttle, 0x8);
	ax_tel_close(src);
	unsetenv("NVML_STUB_REASONS");
}

static void test_nvml_absent(void)
{
	fresh_root();
	struct ax_tel_device d =
	    device(AX_TEL_GPU, 0x10de, "0000:65:00.0", "", "RTX");
	struct ax_tel_source *src;
	char why[1024];
	AX_CHECK_INT(ax_tel_open(&d, &src, why, sizeof(why)), AX_ENOTFOUND);
	AX_CHECK(strstr(why,
			"no sensor for RTX (PCI 0000:65:00.0): NVML: "
			"/nonexistent/libnvidia-ml.so.1: cannot open") == why);
	AX_CHECK(strstr(why, "; hwmon: ") != NULL);
}

static void test_summarize_window(void)
{
	struct ax_tel_reading s[5];
	series(s, 5, 0.25, 40.0); /* 40 W for 1 s */
	double temps[5] = {60, 62, NAN, 64, 66};
	for (int i = 0; i < 5; i++) {
		s[i].temp_c = temps[i];
		s[i].sm_mhz = 1000 + 100 * i;
		s[i].sm_max_mhz = 2000;
		s[i].mem_used_b = 1e9 * (i == 3 ? 3 : 1);
	}
	struct ax_tel_summary m;
	ax_tel_summarize(s, 5, &m);
	AX_CHECK_INT((long long)m.n, 5);
	AX_CHECK_NEAR(m.seconds, 1.0, 1e-9);
	AX_CHECK_NEAR(m.energy_j, 40.0, 1e-9);
	AX_CHECK_NEAR(m.mean_w, 40.0, 1e-9);
	AX_CHECK_NEAR(m.max_w, 40.0, 1e-9);
	AX_CHECK_NEAR(m.temp_mean_c, 63.0, 1e-9); /* the NAN is skipped */
	AX_CHECK_NEAR(m.temp_max_c, 66.0, 1e-9);
	AX_CHECK_NEAR(m.sm_mhz, 1200.0, 1e-9);
	AX_CHECK(isnan(m.mem_mhz)); /* never measured: NAN, not 0 */
	AX_CHECK_NEAR(m.mem_peak_b, 3e9, 1e-3);
	AX_CHECK(m.throttled); /* 60 % of the maximum clock */
	AX_CHECK(strstr(m.evidence, "60 %") != NULL);
	ax_tel_summarize(s, 1, &m); /* one reading: no span, no energy */
	AX_CHECK(isnan(m.energy_j) && isnan(m.mean_w));
}

static void test_sustain_rule(void)
{
	double t[20];
	char ev[256];
	for (int i = 0; i < 20; i++)
		t[i] = 1.0;
	AX_CHECK(!ax_tel_sustain_slowed(t, 20, ev, sizeof(ev)));
	AX_CHECK(strstr(ev, "+0.0 %") != NULL);
	for (int i = 16; i < 20; i++) /* the last 20 %: 6 % slower */
		t[i] = 1.06;
	AX_CHECK(ax_tel_sustain_slowed(t, 20, ev, sizeof(ev)));
	AX_CHECK(strstr(ev, "+6.0 %") != NULL);
	for (int i = 16; i < 20; i++) /* 4 %: within the rule */
		t[i] = 1.04;
	AX_CHECK(!ax_tel_sustain_slowed(t, 20, ev, sizeof(ev)));
	t[19] = 9.0; /* one outlier does not move a median of 4 */
	AX_CHECK(!ax_tel_sustain_slowed(t, 20, ev, sizeof(ev)));
	AX_CHECK(!ax_tel_sustain_slowed(t, 9, ev, sizeof(ev)));
	AX_CHECK(strstr(ev, "needs 10") != NULL);
}

/* ---- sampler ---------------------------------------------------------- */

static void test_sampler(void)
{
	fresh_root();
	use_stub("libnvml_stub.so");
	struct ax_tel_device d =
	    device(AX_TEL_GPU, 0x10de, "0000:65:00.0", "", "RTX");
	struct ax_tel_source *src;
	char why[1024];
	AX_CHECK_INT(ax_tel_open(&d, &src, why, sizeof(why)), 0);
	if (!src)
		return;
	struct ax_tel_sampler *s;
	AX_CHECK_INT(ax_tel_sampler_start(src, 0, &s), AX_EINVAL);
	AX_CHECK_INT(ax_tel_sampler_start(src, 0.01, &s), 0);
	struct ax_tel_reading got[4];
	AX_CHECK(ax_tel_sampler_copy(s, 0, got, 4) >= 1);
	pause_ms(20);
	size_t mark = ax_tel_sampler_mark(s);
	AX_CHECK(mark >= 1); /* after the first reading at least */
	AX_CHECK(ax_tel_sampler_copy(s, mark, got, 1) == 1);
	pause_ms(30);
	ax_tel_sampler_stop(s);
	size_t n;
	const struct ax_tel_reading *r = ax_tel_sampler_series(s, &n);
	AX_CHECK(n >= 2); /* the first reading and the one at stop */
	for (size_t i = 1; i < n; i++)
		AX_CHECK(r[i].t >= r[i - 1].t);
	/* Each reading adds 0.5 J on the stub's counter. */
	AX_CHECK_NEAR(ax_tel_energy(r, n), 0.5 * (double)(n - 1), 1e-9);
	AX_CHECK_NEAR(ax_tel_max_power(r, n), 150.0, 1e-9);
	ax_tel_sampler_destroy(s);
	ax_tel_close(src);
}

static void cleanup(void)
{
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	AX_CHECK(system(cmd) == 0);
}

AX_TEST_MAIN(AX_TEST(test_counter_wraps), AX_TEST(test_integrate_power),
	     AX_TEST(test_counter_beats_power), AX_TEST(test_net_of_idle),
	     AX_TEST(test_throttle_rule), AX_TEST(test_summarize_window),
	     AX_TEST(test_sustain_rule), AX_TEST(test_rapl_missing),
	     AX_TEST(test_rapl_unreadable),
	     AX_TEST(test_rapl_permission_denied), AX_TEST(test_rapl_wraps),
	     AX_TEST(test_amdgpu), AX_TEST(test_amdgpu_newer_kernel),
	     AX_TEST(test_i915_energy_only), AX_TEST(test_hwmon_no_match),
	     AX_TEST(test_nvml_stub), AX_TEST(test_nvml_old_driver),
	     AX_TEST(test_nvml_absent), AX_TEST(test_sampler), AX_TEST(cleanup))
