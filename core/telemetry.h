/*
 * core/telemetry.h - power, energy, temperature, clocks and memory of a
 * device, read from the real sensors, one interface over several sources.
 *
 * Sources: NVIDIA NVML (dlopen'd at run time, no build dependency), AMD
 * amdgpu and Intel i915/xe hwmon under sysfs, and the host CPU's RAPL
 * powercap counters (what a CPU device such as lavapipe draws).  A device
 * is matched to its sensor by PCI bus id or UUID; where nothing matches,
 * ax_tel_open says why in words and no reading is ever invented: a value
 * that is not measured is NAN, never 0.
 *
 * The caller names the device with a plain struct ax_tel_device, so this
 * module needs no Vulkan header (core/vk.h's ax_vk_telemetry_device fills
 * one from a Vulkan device).  A sampler thread records a time series; the
 * arithmetic on series (energy, net of idle, counter wrap-around, the
 * throttle rule) is in pure functions so that tests feed them synthetic
 * series.
 *
 * Test hooks: AXBENCH_SYSFS_ROOT is prefixed to every /sys path (default
 * ""), AXBENCH_NVML_LIB is the library to dlopen instead of
 * libnvidia-ml.so.1.
 */
#ifndef AX_TELEMETRY_H
#define AX_TELEMETRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum ax_tel_kind { AX_TEL_GPU = 0, AX_TEL_CPU = 1 };

/* Who to measure: filled by the caller from whatever API found the device. */
struct ax_tel_device {
	uint32_t vendor_id;    /* PCI vendor id (0x10de, 0x1002, 0x8086...) */
	char pci_bus_id[32];   /* "0000:65:00.0", "" when unknown */
	char uuid[40];	       /* 36-character hex form with dashes, or "" */
	enum ax_tel_kind kind; /* a CPU device draws the host's power */
	char name[256];
};

/* Vendor throttle-reason bits that mean "slowed down" (NVML's own bits,
 * with the idle and application-clock bits left out by the reader). */
#define AX_TEL_NO_REASON 0

/* One sample.  Every value that the source cannot measure is NAN. */
struct ax_tel_reading {
	double t;	   /* seconds, CLOCK_MONOTONIC */
	double power_w;	   /* instantaneous or averaged power */
	double energy_j;   /* counter since the source opened, unwrapped */
	double temp_c;	   /* the main die temperature */
	double sm_mhz;	   /* shader / core clock */
	double mem_mhz;	   /* memory clock */
	double sm_max_mhz; /* the clocks' maxima, for the throttle rule */
	double mem_max_mhz;
	double mem_used_b; /* device memory in use, bytes */
	uint64_t throttle; /* vendor reasons (AX_TEL_NO_REASON: none) */
	bool has_throttle; /* the source reports reasons at all */
};

/*
 * The figures of a reading that a telemetry series stores, one line each:
 * the field above, the telemetry_sample column, the array of struct
 * ax_db_series_row and the key of the series' document.  The insert, the
 * reader and the document walk this list (core/db_write.c, core/db_rows.c,
 * core/db_json.c); t and throttle are stored beside them.
 */
#define AX_TEL_STORED(X)                                                       \
	X(power_w)                                                             \
	X(energy_j)                                                            \
	X(temp_c)                                                              \
	X(sm_mhz)                                                              \
	X(mem_mhz)                                                             \
	X(mem_used_b)

struct ax_tel_source;

/*
 * Find the sensor of dev.  0 and *out on success; AX_ENOTFOUND when no
 * source matches, with the reason in words in reason ("no sensor for
 * llvmpipe: RAPL: /sys/class/powercap: No such file or directory");
 * AX_ENOMEM.  Close with ax_tel_close.
 */
int ax_tel_open(const struct ax_tel_device *dev, struct ax_tel_source **out,
		char *reason, size_t len);
void ax_tel_close(struct ax_tel_source *src);

/* "NVML", "amdgpu hwmon", "i915 hwmon", "RAPL" (borrowed). */
const char *ax_tel_source_name(const struct ax_tel_source *src);

/*
 * One reading now.  Power missing from the source is derived from the
 * energy counter's change since the previous read.  0, or AX_EIO when the
 * sensor stopped answering (r then holds NANs).
 */
int ax_tel_read(struct ax_tel_source *src, struct ax_tel_reading *r);

/* A reading with every value NAN and no reasons. */
void ax_tel_reading_clear(struct ax_tel_reading *r);

/* ---- the arithmetic, pure --------------------------------------------- */

/*
 * Increase of a counter that wraps after max_range (RAPL's
 * max_energy_range_uj): cur - prev, or the wrapped distance when cur <
 * prev.  With max_range 0 (unknown) a smaller value counts as a reset and
 * the delta is cur.
 */
uint64_t ax_tel_counter_delta(uint64_t prev, uint64_t cur, uint64_t max_range);

/* Trapezoidal integral of power over time, skipping NAN samples; NAN when
 * fewer than two samples have a power. */
double ax_tel_integrate_power(const struct ax_tel_reading *s, size_t n);

/*
 * Energy of the series in J: the counter's change from the first to the
 * last sample that has one, where a counter exists (it sees every joule,
 * between samples too), else the integral of power; NAN when neither.
 */
double ax_tel_energy(const struct ax_tel_reading *s, size_t n);

/* Mean power of the series (energy over its duration); NAN if unknown. */
double ax_tel_mean_power(const struct ax_tel_reading *s, size_t n);

/* Largest power of the series; NAN when none. */
double ax_tel_max_power(const struct ax_tel_reading *s, size_t n);

/* Gross energy less what the idle power would have drawn over the same
 * time: gross - idle_w * seconds.  NAN when any input is NAN. */
double ax_tel_net_energy(double gross_j, double idle_w, double seconds);

/*
 * The throttle rule on a series measured under load: throttled when the
 * vendor reported a reason in any sample, or the mean SM clock is below
 * 90 % of its maximum.  The evidence, in words, goes to evidence (may be
 * NULL).  false with "no clock or reason data" when neither is known.
 */
bool ax_tel_throttled(const struct ax_tel_reading *s, size_t n, char *evidence,
		      size_t len);

/* What a window of a series comes to: the figures stored with a result.
 * Every figure the series cannot give is NAN. */
struct ax_tel_summary {
	size_t n;	 /* readings in the window */
	double seconds;	 /* the time the energy covers */
	double energy_j; /* ax_tel_energy */
	double mean_w;	 /* energy over its time */
	double max_w;	 /* the largest reading */
	double temp_mean_c, temp_max_c;
	double sm_mhz, mem_mhz; /* mean clocks */
	double mem_peak_b;	/* the most memory in use */
	bool throttled;		/* ax_tel_throttled */
	char evidence[256];
};

/* Summarise readings s[0..n) (a case's timed span). */
void ax_tel_summarize(const struct ax_tel_reading *s, size_t n,
		      struct ax_tel_summary *out);

/*
 * The throttle rule without telemetry, for a sustained run: the median
 * time per repetition of the last 20 % of the samples more than 5 %
 * above that of the first 20 % (seconds in time order).  Needs 10
 * samples; evidence says what was compared, or why nothing was.
 */
#define AX_TEL_SUSTAIN_MIN_SAMPLES 10
bool ax_tel_sustain_slowed(const double *seconds, size_t n, char *evidence,
			   size_t len);

/* ---- the sampler thread ------------------------------------------------ */

struct ax_tel_sampler;

/* Default sampling interval: 100 ms, the 10 Hz the measurement asks for. */
#define AX_TEL_INTERVAL_DEFAULT 0.1

/*
 * Start a thread that reads src every interval_s seconds (> 0) and keeps
 * every reading; the first reading is taken before this returns.  src
 * stays the caller's and must outlive the sampler.  0, AX_EINVAL,
 * AX_ENOMEM.
 */
int ax_tel_sampler_start(struct ax_tel_source *src, double interval_s,
			 struct ax_tel_sampler **out);

/* Copy readings [from, from + max) of the series so far into out; returns
 * how many were copied.  Safe while the thread runs. */
size_t ax_tel_sampler_copy(struct ax_tel_sampler *s, size_t from,
			   struct ax_tel_reading *out, size_t max);

/* Take a reading now, from the calling thread (the sampler's own ticks
 * go on); returns the index it has in the series, so that a caller marks
 * where a phase of its work began. */
size_t ax_tel_sampler_mark(struct ax_tel_sampler *s);

/* Take a last reading (unless the last tick was under half an interval
 * ago and there are two already), stop and join the thread; the series stays
 * readable through ax_tel_sampler_series until destroy. */
void ax_tel_sampler_stop(struct ax_tel_sampler *s);

/* The whole series (borrowed; only after ax_tel_sampler_stop). */
const struct ax_tel_reading *
ax_tel_sampler_series(const struct ax_tel_sampler *s, size_t *n);
void ax_tel_sampler_destroy(struct ax_tel_sampler *s);

#endif
