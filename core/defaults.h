/*
 * core/defaults.h - default tunable parameters per device class
 * (configs/defaults.yaml, format axbench.defaults/v1).
 *
 * A suite's parameter table holds one default per tunable, and one
 * default cannot suit a CPU driver and a GPU at once: gemm's share=
 * subgroup with 32-row register blocks is the fastest point on lavapipe
 * and would spill registers on a GPU.  The defaults file lists, per
 * suite, entries that match a class of device (vendor, PCI device ids,
 * device type, subgroup size) and give the tunables to use there, each
 * with its basis: measured on which device, or derived from which
 * published rule.
 *
 *   schema: axbench.defaults/v1
 *   defaults:
 *     - suite: gemm
 *       match: {vendor: 0x10de, subgroup_size: 32}
 *       basis: CLBlast's Xgemm tuning for NVIDIA, not yet measured here
 *       params: {bm: 128, bn: 64, share: smem}
 *
 * The entry matching the most keys of the device wins; on a tie the
 * first in the file.  An entry with no match keys (`match: {}`) is the
 * generic fallback.  A device no entry matches keeps the suite's own
 * defaults.  What the user gives (-p, a profile, --tuned) always wins.
 */
#ifndef AX_DEFAULTS_H
#define AX_DEFAULTS_H

#include "core/config.h"
#include "core/params.h"
#include "core/vk.h"

#include <stdbool.h>
#include <stdint.h>

#define AX_DEFAULTS_SCHEMA "axbench.defaults/v1"
#define AX_DEFAULTS_MAX_IDS 64

/* match.device_type's names, as `axbench devices` prints them
 * (NULL-terminated), and the Vulkan type each stands for. */
extern const char *const ax_defaults_type_names[];
extern const int ax_defaults_type_values[];

/* Which keys an entry's match gives (bits), and their values. */
enum ax_defaults_key {
	AX_DEF_VENDOR = 1u << 0,
	AX_DEF_DEVICE_ID = 1u << 1,
	AX_DEF_TYPE = 1u << 2,
	AX_DEF_SUBGROUP = 1u << 3,
};

struct ax_defaults_match {
	unsigned keys;
	uint32_t vendor;
	int n_ids;
	uint32_t ids[AX_DEFAULTS_MAX_IDS];
	VkPhysicalDeviceType type;
	uint32_t subgroup_size;
};

struct ax_defaults_entry {
	const struct ax_config_schema *schema; /* the suite, borrowed */
	struct ax_defaults_match match;
	char *basis;
	int line, col; /* of the entry, 1-based */
	/* The entry's values; params.given has a bit per parameter the
	 * entry sets (only tunables may be set). */
	struct ax_params params;
};

struct ax_defaults {
	char *path;
	int n;
	struct ax_defaults_entry *entries;
};

/*
 * Load and validate the defaults file at path against the suites in
 * schema[0..n) (the reader is core/config_defaults.c).  On failure *out is NULL
 * and err holds "PATH:LINE:COL: what is wrong; what is allowed" (AX_ECONFIG),
 * or the reason the file cannot be read.
 */
int ax_defaults_load(const char *path, const struct ax_config_schema *schema,
		     int n_schema, struct ax_defaults **out, char *err,
		     size_t errlen);
/* The same from text already in memory; name is used in messages. */
int ax_defaults_parse(const char *text, size_t len, const char *name,
		      const struct ax_config_schema *schema, int n_schema,
		      struct ax_defaults **out, char *err, size_t errlen);
void ax_defaults_free(struct ax_defaults *d);

/* The entry for suite on the device info describes, or NULL. */
const struct ax_defaults_entry *
ax_defaults_find(const struct ax_defaults *d, const char *suite,
		 const struct ax_vk_device_info *info);

/* Why the entry matched, e.g. "vendor 0x10de, subgroup size 32", or
 * "any device (the generic fallback)". */
void ax_defaults_match_text(const struct ax_defaults_entry *e, char *buf,
			    size_t len);

/* Give p the entry's values for the tunables p does not already hold
 * by the user's choice (p->given); returns how many changed. */
int ax_defaults_apply(const struct ax_defaults_entry *e, struct ax_params *p);

#endif
