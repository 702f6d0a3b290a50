/*
 * tests/unit/test_defaults.c - the per-device defaults file
 * (core/defaults.c) and the real configs/defaults.yaml against the real
 * suites: lookup by device class, the generic fallback, the user's
 * values winning, every entry a point its suite accepts on a device of
 * its class, and malformed files refused at FILE:LINE:COL.
 *
 * The device descriptions here are written by hand: they stand for an
 * NVIDIA, AMD or Intel GPU this machine does not have (only lavapipe is
 * real here), with limits the vendors' drivers report.  Run from the
 * repository root.
 */
#include "core/defaults.h"
#include "core/error.h"
#include "suites/registry.h"

#include "ax_test.h"

#include <stdio.h>
#include <string.h>

#define REAL "configs/defaults.yaml"

static struct ax_config_schema schema[64];
static int n_schema;

static void init_schema(void)
{
	const struct ax_suite *all[64];
	n_schema = ax_suite_all(all, 64);
	for (int i = 0; i < n_schema; i++)
		schema[i] = (struct ax_config_schema){
		    all[i]->name, all[i]->params, all[i]->n_params};
}

/* A device of a class, with limits that class's drivers report. */
static struct ax_vk_device_info device(uint32_t vendor, VkPhysicalDeviceType t,
				       uint32_t subgroup, uint32_t shared)
{
	struct ax_vk_device_info d;
	memset(&d, 0, sizeof(d));
	snprintf(d.name, sizeof(d.name), "test device %04x", vendor);
	d.vendor_id = vendor;
	d.type = t;
	d.subgroup_size = subgroup;
	d.driver_id = t == VK_PHYSICAL_DEVICE_TYPE_CPU
			  ? VK_DRIVER_ID_MESA_LLVMPIPE
			  : VK_DRIVER_ID_NVIDIA_PROPRIETARY;
	d.limits.maxComputeSharedMemorySize = shared;
	d.limits.maxComputeWorkGroupInvocations = 1024;
	d.limits.maxComputeWorkGroupSize[0] = 1024;
	d.limits.maxComputeWorkGroupSize[1] = 1024;
	d.limits.maxComputeWorkGroupSize[2] = 64;
	for (int i = 0; i < 3; i++)
		d.limits.maxComputeWorkGroupCount[i] = 65535;
	d.limits.maxStorageBufferRange = 1u << 30;
	d.limits.maxTexelBufferElements = 1u << 27;
	d.max_memory_allocation_size = 1ull << 32;
	d.fp16_arith = d.storage16 = true;
	return d;
}

/* Vulkan's required minimums: the generic fallback must fit them. */
static struct ax_vk_device_info minimal_device(void)
{
	struct ax_vk_device_info d =
	    device(0x1234, VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU, 4, 16384);
	d.limits.maxComputeWorkGroupInvocations = 128;
	d.limits.maxComputeWorkGroupSize[0] = 128;
	d.limits.maxComputeWorkGroupSize[1] = 128;
	d.limits.maxStorageBufferRange = 1u << 27;
	d.limits.maxTexelBufferElements = 65536; /* Vulkan's minimum */
	return d;
}

static struct ax_defaults *load_real(void)
{
	struct ax_defaults *d = NULL;
	char err[1024] = "";
	int rc = ax_defaults_load(REAL, schema, n_schema, &d, err, sizeof(err));
	if (rc)
		fprintf(stderr, "    %s\n", err);
	AX_CHECK_INT(rc, 0);
	return d;
}

static const char *value_of(const struct ax_defaults_entry *e, const char *name)
{
	static char buf[64];
	int i = ax_params_find(&e->params, name);
	if (i < 0)
		return "?";
	ax_param_format(&e->params.defs[i], e->params.v[i], buf, sizeof(buf));
	return buf;
}

static void test_lookup(void)
{
	init_schema();
	struct ax_defaults *d = load_real();
	if (!d)
		return;
	struct ax_vk_device_info lvp =
	    device(0x10005, VK_PHYSICAL_DEVICE_TYPE_CPU, 8, 32768);
	struct ax_vk_device_info lvp16 =
	    device(0x10005, VK_PHYSICAL_DEVICE_TYPE_CPU, 16, 32768);
	struct ax_vk_device_info nv =
	    device(0x10de, VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU, 32, 49152);
	struct ax_vk_device_info intel =
	    device(0x8086, VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU, 16, 65536);
	const struct ax_defaults_entry *e = ax_defaults_find(d, "gemm", &lvp);
	AX_CHECK(e && e->match.keys == AX_DEF_TYPE);
	AX_CHECK_STR(e ? value_of(e, "share") : "", "subgroup");
	/* Two keys beat one: the 16-lane CPU entry. */
	e = ax_defaults_find(d, "gemm", &lvp16);
	AX_CHECK(e && e->match.keys == (AX_DEF_TYPE | AX_DEF_SUBGROUP));
	e = ax_defaults_find(d, "gemm", &nv);
	AX_CHECK(e && e->match.keys == AX_DEF_VENDOR &&
		 e->match.vendor == 0x10de);
	AX_CHECK_STR(e ? value_of(e, "share") : "", "smem");
	/* No Intel entry: the generic fallback, with its reason. */
	e = ax_defaults_find(d, "gemm", &intel);
	AX_CHECK(e && e->match.keys == 0);
	char why[256];
	if (e) {
		ax_defaults_match_text(e, why, sizeof(why));
		AX_CHECK(strstr(why, "generic fallback") != NULL);
	}
	/* A suite the file does not name keeps its own defaults. */
	AX_CHECK(ax_defaults_find(d, "bandwidth", &nv) == NULL);
	AX_CHECK(ax_defaults_find(NULL, "gemm", &nv) == NULL);
	ax_defaults_free(d);
}

/* What the user gave stays; the rest of the entry's tunables apply. */
static void test_user_wins(void)
{
	init_schema();
	struct ax_defaults *d = load_real();
	if (!d)
		return;
	struct ax_vk_device_info nv =
	    device(0x10de, VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU, 32, 49152);
	const struct ax_defaults_entry *e = ax_defaults_find(d, "gemm", &nv);
	const struct ax_suite *gemm = ax_suite_find("gemm");
	struct ax_params p;
	char err[256];
	ax_params_init(&p, gemm->params, gemm->n_params);
	AX_CHECK_INT(ax_params_set(&p, "bm", "64", err, sizeof(err)), 0);
	AX_CHECK(e && ax_defaults_apply(e, &p) > 0);
	AX_CHECK_INT(ax_params_get(&p, "bm"), 64);
	AX_CHECK_INT(ax_params_get(&p, "bn"), 64);
	AX_CHECK_INT(ax_params_get(&p, "share"), 0); /* smem */
	AX_CHECK_INT(ax_params_get(&p, "m"), 512);   /* shapes untouched */
	ax_defaults_free(d);
}

/* Each entry, over its suite's own defaults, is a point the suite runs
 * on a device of the class it names. */
static void test_entries_run_on_their_class(void)
{
	init_schema();
	struct ax_defaults *d = load_real();
	for (int i = 0; d && i < d->n; i++) {
		const struct ax_defaults_entry *e = &d->entries[i];
		const struct ax_suite *s = ax_suite_find(e->schema->suite);
		const struct ax_defaults_match *m = &e->match;
		struct ax_vk_device_info dev =
		    m->keys ? device(m->vendor, m->type, 32, 49152)
			    : minimal_device();
		if (m->keys & AX_DEF_TYPE)
			dev = device(m->vendor, m->type, 8, 32768);
		if (m->keys & AX_DEF_SUBGROUP)
			dev.subgroup_size = m->subgroup_size;
		if (m->vendor == 0x1002)
			dev.limits.maxComputeSharedMemorySize = 65536;
		struct ax_params p;
		char why[512] = "";
		ax_params_init(&p, s->params, s->n_params);
		ax_defaults_apply(e, &p);
		int rc = ax_params_check(&p, why, sizeof(why));
		if (!rc && s->check)
			rc = s->check(&p, &dev, why, sizeof(why));
		if (rc)
			fprintf(stderr, "    %s:%d: %s\n", REAL, e->line, why);
		AX_CHECK_INT(rc, 0);
	}
	ax_defaults_free(d);
}

/* Each malformed text and the start of the message it must give. */
static void test_malformed(void)
{
	init_schema();
	static const struct {
		const char *text, *want;
	} cases[] = {
	    {"schema: axbench.defaults/v2\ndefaults: []\n",
	     "bad.yaml:1:9: schema must be axbench.defaults/v1"},
	    {"schema: axbench.defaults/v1\n", "bad.yaml:1:1: a defaults file "
					      "needs `defaults`"},
	    {"schema: axbench.defaults/v1\ndefaults:\n  - suite: gemm\n"
	     "    match: {}\n    basis: x\n    params: {m: 64}\n",
	     "bad.yaml:6:14: 'm' is not a tunable of suite gemm"},
	    {"schema: axbench.defaults/v1\ndefaults:\n  - suite: gemm\n"
	     "    match: {}\n    basis: x\n    params: {bm: 3}\n",
	     "bad.yaml:6:18: "},
	    {"schema: axbench.defaults/v1\ndefaults:\n  - suite: gemm\n"
	     "    match: {vendor: nvidia}\n    basis: x\n"
	     "    params: {bm: 64}\n",
	     "bad.yaml:4:21: match.vendor must be an id"},
	    {"schema: axbench.defaults/v1\ndefaults:\n  - suite: gemm\n"
	     "    match: {device_id: 0x2335}\n    basis: x\n"
	     "    params: {bm: 64}\n",
	     "bad.yaml:4:12: match.device_id needs match.vendor"},
	    {"schema: axbench.defaults/v1\ndefaults:\n  - suite: gemm\n"
	     "    match: {colour: red}\n    basis: x\n"
	     "    params: {bm: 64}\n",
	     "bad.yaml:4:13: "},
	    {"schema: axbench.defaults/v1\ndefaults:\n  - suite: gemm\n"
	     "    match: {}\n    params: {bm: 64}\n",
	     "bad.yaml:3:5: a defaults entry needs `basis`"},
	    {"schema: axbench.defaults/v1\ndefaults:\n  - suite: gemx\n"
	     "    match: {}\n    basis: x\n    params: {bm: 64}\n",
	     "bad.yaml:3:12: unknown suite 'gemx'"},
	    {"schema: axbench.defaults/v1\ndefaults:\n  - suite: gemm\n"
	     "    match: {vendor: 0x10de}\n    basis: x\n"
	     "    params: {bm: 64}\n  - suite: gemm\n"
	     "    match: {vendor: 0x10de}\n    basis: y\n"
	     "    params: {bm: 128}\n",
	     "bad.yaml:7:5: this entry repeats the suite and match of the "
	     "entry at line 3"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ax_defaults *d = NULL;
		char err[1024] = "";
		int rc = ax_defaults_parse(cases[i].text, strlen(cases[i].text),
					   "bad.yaml", schema, n_schema, &d,
					   err, sizeof(err));
		AX_CHECK_INT(rc, AX_ECONFIG);
		AX_CHECK(d == NULL);
		if (strncmp(err, cases[i].want, strlen(cases[i].want))) {
			fprintf(stderr, "    case %zu: got   %s\n", i, err);
			fprintf(stderr, "    case %zu: want  %s...\n", i,
				cases[i].want);
			AX_CHECK(false);
		}
	}
}

AX_TEST_MAIN(AX_TEST(test_lookup), AX_TEST(test_user_wins),
	     AX_TEST(test_entries_run_on_their_class), AX_TEST(test_malformed))
