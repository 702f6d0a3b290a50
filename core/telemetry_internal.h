/*
 * core/telemetry_internal.h - what the telemetry sources share with the
 * interface in core/telemetry.c.  Not for use outside core/telemetry*.c.
 */
#ifndef AX_TELEMETRY_INTERNAL_H
#define AX_TELEMETRY_INTERNAL_H

#include "core/telemetry.h"

/* A source: its name, a reader that fills what it measures (the reading
 * arrives cleared to NAN), and its clean-up. */
struct ax_tel_ops {
	const char *name;
	int (*read)(void *priv, struct ax_tel_reading *r);
	void (*close)(void *priv);
};

/* Each opener returns 0 with *ops and *priv set, or AX_ENOTFOUND with
 * the reason ("NVML: libnvidia-ml.so.1: cannot open ...") in why. */
int ax_tel_nvml_open(const struct ax_tel_device *dev,
		     const struct ax_tel_ops **ops, void **priv, char *why,
		     size_t len);
int ax_tel_hwmon_open(const struct ax_tel_device *dev,
		      const struct ax_tel_ops **ops, void **priv, char *why,
		      size_t len);
int ax_tel_rapl_open(const struct ax_tel_device *dev,
		     const struct ax_tel_ops **ops, void **priv, char *why,
		     size_t len);

/* AXBENCH_SYSFS_ROOT, or "" (borrowed). */
const char *ax_tel_sysfs_root(void);

/* The first line of a sysfs file as an unsigned number: 0, or -errno
 * (-EINVAL when it holds no number). */
int ax_tel_read_u64(const char *path, uint64_t *v);

/* The first line of a text file without its newline: 0 or -errno. */
int ax_tel_read_line(const char *path, char *buf, size_t len);

/* Seconds on CLOCK_MONOTONIC. */
double ax_tel_now(void);

#endif
