/*
 * core/telemetry.c - the telemetry interface: matching a device to its
 * source, readings, and the pure arithmetic on series (energy, net of
 * idle, counter wrap-around, the throttle rule).
 */
#include "core/telemetry_internal.h"

#include "core/error.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct ax_tel_source {
	const struct ax_tel_ops *ops;
	void *priv;
	/* The previous counter value, so that a source with an energy
	 * counter and no power sensor (i915, RAPL) still gives watts. */
	double prev_t, prev_e;
};

double ax_tel_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

const char *ax_tel_sysfs_root(void)
{
	const char *r = getenv("AXBENCH_SYSFS_ROOT");
	return r ? r : "";
}

int ax_tel_read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return -errno;
	int rc = 0;
	if (!fgets(buf, (int)len, f))
		rc = ferror(f) ? -(errno ? errno : EIO) : -EINVAL;
	fclose(f);
	if (rc)
		return rc;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

int ax_tel_read_u64(const char *path, uint64_t *v)
{
	char line[64], *end;
	int rc = ax_tel_read_line(path, line, sizeof(line));
	if (rc)
		return rc;
	errno = 0;
	unsigned long long x = strtoull(line, &end, 10);
	if (end == line || errno || line[0] == '-')
		return -EINVAL;
	*v = x;
	return 0;
}

void ax_tel_reading_clear(struct ax_tel_reading *r)
{
	r->t = r->power_w = r->energy_j = r->temp_c = NAN;
	r->sm_mhz = r->mem_mhz = r->sm_max_mhz = r->mem_max_mhz = NAN;
	r->mem_used_b = NAN;
	r->throttle = AX_TEL_NO_REASON;
	r->has_throttle = false;
}

/* Append "; " and a source's reason to the message so far. */
static void add_reason(char *msg, size_t len, const char *why)
{
	size_t at = strlen(msg);
	if (at + 1 < len)
		snprintf(msg + at, len - at, "%s%s", at ? "; " : "", why);
}

int ax_tel_open(const struct ax_tel_device *dev, struct ax_tel_source **out,
		char *reason, size_t len)
{
	typedef int (*opener)(const struct ax_tel_device *,
			      const struct ax_tel_ops **, void **, char *,
			      size_t);
	/* A CPU device draws the host's power: only RAPL measures it.  A
	 * GPU tries NVML first on NVIDIA (hwmon has nothing for it), else
	 * hwmon first; both are tried, so a wrong vendor id costs nothing. */
	opener order[2];
	int n = 0;
	if (dev->kind == AX_TEL_CPU) {
		order[n++] = ax_tel_rapl_open;
	} else if (dev->vendor_id == 0x10de) {
		order[n++] = ax_tel_nvml_open;
		order[n++] = ax_tel_hwmon_open;
	} else {
		order[n++] = ax_tel_hwmon_open;
		order[n++] = ax_tel_nvml_open;
	}
	char why_all[768] = "", why[512];
	*out = NULL;
	for (int i = 0; i < n; i++) {
		const struct ax_tel_ops *ops;
		void *priv;
		why[0] = '\0';
		int rc = order[i](dev, &ops, &priv, why, sizeof(why));
		if (rc == 0) {
			struct ax_tel_source *s = calloc(1, sizeof(*s));
			if (!s) {
				ops->close(priv);
				return ax_errf(reason, len, AX_ENOMEM,
					       "out of memory");
			}
			s->ops = ops;
			s->priv = priv;
			s->prev_t = s->prev_e = NAN;
			*out = s;
			return 0;
		}
		add_reason(why_all, sizeof(why_all), why);
	}
	return ax_errf(reason, len, AX_ENOTFOUND, "no sensor for %s%s%s%s: %s",
		       dev->name[0] ? dev->name : "this device",
		       dev->pci_bus_id[0] ? " (PCI " : "", dev->pci_bus_id,
		       dev->pci_bus_id[0] ? ")" : "", why_all);
}

void ax_tel_close(struct ax_tel_source *src)
{
	if (!src)
		return;
	src->ops->close(src->priv);
	free(src);
}

const char *ax_tel_source_name(const struct ax_tel_source *src)
{
	return src->ops->name;
}

int ax_tel_read(struct ax_tel_source *src, struct ax_tel_reading *r)
{
	ax_tel_reading_clear(r);
	int rc = src->ops->read(src->priv, r);
	r->t = ax_tel_now();
	if (rc) {
		double t = r->t;
		ax_tel_reading_clear(r);
		r->t = t;
		return rc;
	}
	if (isnan(r->power_w) && !isnan(r->energy_j) && !isnan(src->prev_e) &&
	    r->t > src->prev_t)
		r->power_w = (r->energy_j - src->prev_e) / (r->t - src->prev_t);
	if (!isnan(r->energy_j)) {
		src->prev_e = r->energy_j;
		src->prev_t = r->t;
	}
	return 0;
}

/* ---- arithmetic -------------------------------------------------------- */

uint64_t ax_tel_counter_delta(uint64_t prev, uint64_t cur, uint64_t max_range)
{
	if (cur >= prev)
		return cur - prev;
	if (max_range == 0 || prev > max_range)
		return cur;
	/* The counter ran from prev up to max_range, then from 0 to cur. */
	return (max_range - prev) + cur;
}

double ax_tel_integrate_power(const struct ax_tel_reading *s, size_t n)
{
	double sum = 0;
	int have = 0;
	const struct ax_tel_reading *prev = NULL;
	for (size_t i = 0; i < n; i++) {
		if (isnan(s[i].power_w) || isnan(s[i].t))
			continue;
		if (prev) {
			sum += 0.5 * (prev->power_w + s[i].power_w) *
			       (s[i].t - prev->t);
			have = 1;
		}
		prev = &s[i];
	}
	return have ? sum : NAN;
}

double ax_tel_energy(const struct ax_tel_reading *s, size_t n)
{
	const struct ax_tel_reading *first = NULL, *last = NULL;
	for (size_t i = 0; i < n; i++)
		if (!isnan(s[i].energy_j)) {
			if (!first)
				first = &s[i];
			last = &s[i];
		}
	if (first && last != first)
		return last->energy_j - first->energy_j;
	return ax_tel_integrate_power(s, n);
}

/* The time the series' energy covers: between its first and last
 * samples that have a counter, else that have a power. */
static double covered_seconds(const struct ax_tel_reading *s, size_t n)
{
	for (int want_counter = 1; want_counter >= 0; want_counter--) {
		double t0 = NAN, t1 = NAN;
		for (size_t i = 0; i < n; i++) {
			double v = want_counter ? s[i].energy_j : s[i].power_w;
			if (isnan(v))
				continue;
			if (isnan(t0))
				t0 = s[i].t;
			t1 = s[i].t;
		}
		if (!isnan(t0) && t1 > t0)
			return t1 - t0;
	}
	return NAN;
}

double ax_tel_mean_power(const struct ax_tel_reading *s, size_t n)
{
	double e = ax_tel_energy(s, n), dt = covered_seconds(s, n);
	return isnan(e) || isnan(dt) ? NAN : e / dt;
}

double ax_tel_max_power(const struct ax_tel_reading *s, size_t n)
{
	double m = NAN;
	for (size_t i = 0; i < n; i++)
		if (!isnan(s[i].power_w) && (isnan(m) || s[i].power_w > m))
			m = s[i].power_w;
	return m;
}

double ax_tel_net_energy(double gross_j, double idle_w, double seconds)
{
	return gross_j - idle_w * seconds; /* NAN in, NAN out */
}

bool ax_tel_throttled(const struct ax_tel_reading *s, size_t n, char *evidence,
		      size_t len)
{
	uint64_t reasons = 0;
	bool any_reason_data = false;
	double sum = 0, max = NAN;
	size_t nclk = 0;
	for (size_t i = 0; i < n; i++) {
		any_reason_data |= s[i].has_throttle;
		if (s[i].has_throttle)
			reasons |= s[i].throttle;
		if (!isnan(s[i].sm_mhz) && !isnan(s[i].sm_max_mhz) &&
		    s[i].sm_max_mhz > 0) {
			sum += s[i].sm_mhz;
			nclk++;
			if (isnan(max) || s[i].sm_max_mhz > max)
				max = s[i].sm_max_mhz;
		}
	}
	char dummy[1];
	if (!evidence) {
		evidence = dummy;
		len = sizeof(dummy);
	}
	if (reasons) {
		snprintf(evidence, len,
			 "the driver reported throttle reasons "
			 "0x%llx",
			 (unsigned long long)reasons);
		return true;
	}
	if (nclk) {
		double mean = sum / (double)nclk;
		bool slow = mean < 0.9 * max;
		snprintf(evidence, len,
			 "mean SM clock %.0f MHz under load is %.0f %% of its "
			 "maximum %.0f MHz%s",
			 mean, 100.0 * mean / max, max,
			 slow ? " (below 90 %)" : "");
		return slow;
	}
	snprintf(evidence, len, "%s",
		 any_reason_data ? "no throttle reason reported, no clock data"
				 : "no clock or reason data");
	return false;
}

/* Mean and maximum of one field over the readings that have it. */
static void mean_max(const struct ax_tel_reading *s, size_t n, size_t off,
		     double *mean, double *max)
{
	double sum = 0;
	size_t k = 0;
	*mean = *max = NAN;
	for (size_t i = 0; i < n; i++) {
		double v = *(const double *)((const char *)&s[i] + off);
		if (isnan(v))
			continue;
		sum += v;
		k++;
		if (isnan(*max) || v > *max)
			*max = v;
	}
	if (k)
		*mean = sum / (double)k;
}

void ax_tel_summarize(const struct ax_tel_reading *s, size_t n,
		      struct ax_tel_summary *out)
{
	double unused;
	memset(out, 0, sizeof(*out));
	out->n = n;
	out->seconds = covered_seconds(s, n);
	out->energy_j = ax_tel_energy(s, n);
	out->mean_w = ax_tel_mean_power(s, n);
	out->max_w = ax_tel_max_power(s, n);
	mean_max(s, n, offsetof(struct ax_tel_reading, temp_c),
		 &out->temp_mean_c, &out->temp_max_c);
	mean_max(s, n, offsetof(struct ax_tel_reading, sm_mhz), &out->sm_mhz,
		 &unused);
	mean_max(s, n, offsetof(struct ax_tel_reading, mem_mhz), &out->mem_mhz,
		 &unused);
	mean_max(s, n, offsetof(struct ax_tel_reading, mem_used_b), &unused,
		 &out->mem_peak_b);
	out->throttled =
	    ax_tel_throttled(s, n, out->evidence, sizeof(out->evidence));
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Median of v[0..n) (n > 0), sorting a copy. */
static double median_of(const double *v, size_t n)
{
	double *c = malloc(n * sizeof(*c));
	if (!c)
		return NAN;
	memcpy(c, v, n * sizeof(*c));
	qsort(c, n, sizeof(*c), cmp_double);
	double m = n % 2 ? c[n / 2] : 0.5 * (c[n / 2 - 1] + c[n / 2]);
	free(c);
	return m;
}

bool ax_tel_sustain_slowed(const double *seconds, size_t n, char *evidence,
			   size_t len)
{
	char dummy[1];
	if (!evidence) {
		evidence = dummy;
		len = sizeof(dummy);
	}
	if (n < AX_TEL_SUSTAIN_MIN_SAMPLES) {
		snprintf(evidence, len,
			 "%zu samples: the sustained-run rule needs %d", n,
			 AX_TEL_SUSTAIN_MIN_SAMPLES);
		return false;
	}
	size_t k = n / 5; /* 20 %, at least 2 with n >= 10 */
	double first = median_of(seconds, k);
	double last = median_of(seconds + n - k, k);
	double slower = last / first - 1;
	bool slowed = slower > 0.05;
	snprintf(evidence, len,
		 "the last 20 %% of %zu samples took %+.1f %% the time per "
		 "repetition of the first 20 %% (median %.4g s against %.4g "
		 "s)%s",
		 n, 100 * slower, last, first,
		 slowed ? ": slower by more than 5 %" : "");
	return slowed;
}
