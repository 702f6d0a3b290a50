/*
 * core/defaults.c - the per-device defaults (format in core/defaults.h):
 * which entry a device meets, why, and its values applied.  The file is
 * read by core/config_defaults.c (yaml.h stays in core/config*.c).
 */
#include "core/defaults.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* device_type values, as `axbench devices` prints them. */
const char *const ax_defaults_type_names[] = {
    "discrete", "integrated", "virtual", "cpu", "other", NULL};
const int ax_defaults_type_values[] = {
    VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU,
    VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU, VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU,
    VK_PHYSICAL_DEVICE_TYPE_CPU, VK_PHYSICAL_DEVICE_TYPE_OTHER};

void ax_defaults_free(struct ax_defaults *d)
{
	if (!d)
		return;
	for (int i = 0; i < d->n; i++)
		free(d->entries[i].basis);
	free(d->entries);
	free(d->path);
	free(d);
}

/* How many keys of m the device meets, or -1 when one is not met. */
static int match_score(const struct ax_defaults_match *m,
		       const struct ax_vk_device_info *info)
{
	int score = 0;
	if (m->keys & AX_DEF_VENDOR) {
		if (m->vendor != info->vendor_id)
			return -1;
		score++;
	}
	if (m->keys & AX_DEF_DEVICE_ID) {
		bool hit = false;
		for (int i = 0; i < m->n_ids; i++)
			hit = hit || m->ids[i] == info->device_id;
		if (!hit)
			return -1;
		score++;
	}
	if (m->keys & AX_DEF_TYPE) {
		if (m->type != info->type)
			return -1;
		score++;
	}
	if (m->keys & AX_DEF_SUBGROUP) {
		if (m->subgroup_size != info->subgroup_size)
			return -1;
		score++;
	}
	return score;
}

const struct ax_defaults_entry *
ax_defaults_find(const struct ax_defaults *d, const char *suite,
		 const struct ax_vk_device_info *info)
{
	const struct ax_defaults_entry *best = NULL;
	int best_score = -1;
	for (int i = 0; d && i < d->n; i++) {
		const struct ax_defaults_entry *e = &d->entries[i];
		if (strcmp(e->schema->suite, suite))
			continue;
		int s = match_score(&e->match, info);
		if (s > best_score)
			best = e, best_score = s;
	}
	return best;
}

static const char *type_name(VkPhysicalDeviceType t)
{
	for (int i = 0; ax_defaults_type_names[i]; i++)
		if (ax_defaults_type_values[i] == (int)t)
			return ax_defaults_type_names[i];
	return "other";
}

void ax_defaults_match_text(const struct ax_defaults_entry *e, char *buf,
			    size_t len)
{
	const struct ax_defaults_match *m = &e->match;
	size_t used = 0;
	buf[0] = '\0';
#define ADD(...)                                                               \
	do {                                                                   \
		if (used < len)                                                \
			used += (size_t)snprintf(buf + used, len - used,       \
						 __VA_ARGS__);                 \
	} while (0)
	if (m->keys & AX_DEF_VENDOR)
		ADD("vendor 0x%04x", m->vendor);
	for (int i = 0; (m->keys & AX_DEF_DEVICE_ID) && i < m->n_ids; i++)
		ADD("%s0x%04x", i ? "/" : ", device ", m->ids[i]);
	if (m->keys & AX_DEF_TYPE)
		ADD("%sdevice type %s", used ? ", " : "", type_name(m->type));
	if (m->keys & AX_DEF_SUBGROUP)
		ADD("%ssubgroup size %u", used ? ", " : "", m->subgroup_size);
	if (!m->keys)
		ADD("any device (the generic fallback)");
#undef ADD
}

int ax_defaults_apply(const struct ax_defaults_entry *e, struct ax_params *p)
{
	int changed = 0;
	if (p->defs != e->params.defs) /* another suite's table */
		return 0;
	for (int i = 0; i < p->n; i++) {
		uint32_t bit = 1u << i;
		if (!(e->params.given & bit) || (p->given & bit))
			continue;
		changed += p->v[i] != e->params.v[i];
		p->v[i] = e->params.v[i];
	}
	return changed;
}
