/*
 * core/config_specs.c - the reader of configs/specs.yaml (core/specs.h):
 * every entry checked whole, every message FILE:LINE:COL with the fix;
 * its keys are data for the walker of core/config_schema.c.
 */
#include "core/config.h"
#include "core/config_schema.h"
#include "core/error.h"
#include "core/specs.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Entries and ids at most: the file is a hand-kept table. */
#define MAX_ENTRIES 4096
#define MAX_IDS 64

static struct ax_specs *specs_of(struct ax_yaml *y) { return y->ctx; }

/* The entry listing (vendor, id) before upto, or NULL. */
static const struct ax_spec *first_with(const struct ax_specs *s,
					const struct ax_spec *upto,
					uint32_t vendor, uint32_t id)
{
	for (const struct ax_spec *sp = s->v; sp < upto; sp++) {
		for (int j = 0; j < sp->n_device_ids; j++)
			if (sp->vendor_id == vendor && sp->device_ids[j] == id)
				return sp;
	}
	return NULL;
}

static void *ids_slot(struct ax_yaml *y, void *obj, int i, int count)
{
	struct ax_spec *sp = obj;
	if (i < 0)
		return sp->device_ids = calloc((size_t)count, sizeof(uint32_t));
	return sp;
}

/* A PCI id: an integer 0..0xffffffff, written in hex or decimal. */
#define PCI_ID                                                                 \
	AX_YK_HEX, .lo = 0, .hi = UINT32_MAX,                                  \
		   .want = "a PCI id, an integer such as 0x10de"

static const struct ax_ykey device_id_key = {"a device id", AX_Y_INT, PCI_ID,
					     .size = sizeof(uint32_t)};

/* One of device_ids: listed once in the whole file. */
static int load_id(struct ax_yaml *y, yaml_node_t *n, void *obj,
		   const char *what)
{
	struct ax_spec *sp = obj;
	uint32_t id;
	int rc = ax_ywalk_value(y, n, &device_id_key, NULL, &id);
	if (rc)
		return rc;
	const struct ax_spec *dup =
	    first_with(specs_of(y), sp, sp->vendor_id, id);
	for (int j = 0; !dup && j < sp->n_device_ids; j++)
		dup = sp->device_ids[j] == id ? sp : NULL;
	if (dup)
		return ax_yaml_fail(
		    y, n,
		    "device id 0x%04x of vendor 0x%04x is listed "
		    "twice (also by '%s', line %d); a device "
		    "matches one entry only: keep one",
		    id, sp->vendor_id, dup->name ? dup->name : "", dup->line);
	sp->device_ids[sp->n_device_ids++] = id;
	return 0;
}

/* Figures absent are NAN. */
static int entry_start(struct ax_yaml *y, yaml_node_t *n, void *obj,
		       const char *what)
{
	struct ax_spec *sp = obj;
	sp->line = (int)n->start_mark.line + 1;
	sp->fp32_tflops = sp->fp16_tflops = sp->fp64_tflops = sp->memory_gbps =
	    NAN;
	return 0;
}

static int entry_done(struct ax_yaml *y, yaml_node_t *n, void *obj)
{
	const struct ax_spec *sp = obj;
	if (isfinite(sp->fp16_tflops) && !sp->fp16_kind)
		return ax_yaml_fail(
		    y, n,
		    "specs entry '%s' gives fp16_tflops without "
		    "fp16_kind; say which figure it is (tensor "
		    "dense, accumulate precision)",
		    sp->name);
	if (!isfinite(sp->fp32_tflops) && !isfinite(sp->fp16_tflops) &&
	    !isfinite(sp->fp64_tflops) && !isfinite(sp->memory_gbps))
		return ax_yaml_fail(y, n,
				    "specs entry '%s' gives no figure; add "
				    "fp32_tflops, fp16_tflops, fp64_tflops or "
				    "memory_gbps",
				    sp->name);
	return 0;
}

#define SAT(f) AX_YAT(struct ax_spec, f)
/* A figure: absent is NAN; present, a number in a plausible range for
 * any Vulkan device, from a software renderer to tomorrow's largest
 * accelerator, so that a typo (1e-300, a figure in the wrong unit) is
 * refused, not turned into a "% of spec" of 300 digits.  The ranges are
 * listed in configs/specs.yaml's header. */
#define FIGURE(key, lo, hi, unit)                                              \
	{                                                                      \
#key, AX_Y_NUMBER, 0, SAT(key),                                \
		    .dlo = lo, .dhi = hi,                                      \
		    .want = "a number from " #lo " to " #hi " (" unit ")",     \
		    .hint = "give the vendor's figure in " unit                \
			    ", or leave the key out where it publishes none"   \
	}
#define NAME_FIX "name the product"
#define SOURCE_FIX                                                             \
	"cite the vendor datasheet or whitepaper (title or URL) the figures "  \
	"come from"
#define IDS_FIX "list the product's PCI device ids, [0x2330]"

static const struct ax_ykey entry_keys[] = {
    {NULL, AX_Y_CHECK, .fn = entry_start},
    {"name", AX_Y_STRING, AX_YK_REQUIRED | AX_YK_NONEMPTY, SAT(name),
     .missing = "specs entry has no name; " NAME_FIX, .empty = NAME_FIX},
    {"vendor_id", AX_Y_INT, AX_YK_REQUIRED | PCI_ID, SAT(vendor_id),
     .missing = "specs entry '%s' has no vendor_id; add the PCI vendor id "
		"(0x10de NVIDIA, 0x1002 AMD)"},
    {"device_ids", AX_Y_SEQ, AX_YK_REQUIRED | AX_YK_NONEMPTY,
     .want = "a list of 1 to 64 PCI ids, such as [0x2330]", .max = MAX_IDS,
     .missing = "specs entry has no device_ids; " IDS_FIX, .empty = IDS_FIX,
     .slot = ids_slot, .fn = load_id},
    FIGURE(fp32_tflops, 0.0001, 1000, "TFLOP/s"),
    FIGURE(fp16_tflops, 0.0001, 20000, "TFLOP/s"),
    {"fp16_kind", AX_Y_STRING, 0, SAT(fp16_kind)},
    FIGURE(fp64_tflops, 0.0001, 1000, "TFLOP/s"),
    FIGURE(memory_gbps, 0.1, 100000, "GB/s"),
    {"source", AX_Y_STRING, AX_YK_REQUIRED | AX_YK_NONEMPTY, SAT(source),
     .missing = "specs entry has no source; " SOURCE_FIX, .empty = SOURCE_FIX},
    {"note", AX_Y_STRING, AX_YK_NULLABLE, SAT(note)},
};
static const struct ax_ymap entry_map = {
    .where = "a specs entry",
    AX_YKEYS(entry_keys),
    .label_off = offsetof(struct ax_spec, name),
    .set_off = -1,
    .done = entry_done,
};

static void *entry_slot(struct ax_yaml *y, void *obj, int i, int count)
{
	struct ax_specs *s = obj;
	if (i >= 0)
		return &s->v[s->n++];
	return s->v = calloc(count ? (size_t)count : 1, sizeof(*s->v));
}

static const struct ax_ykey root_keys[] = {
    {"devices", AX_Y_SEQ, AX_YK_REQUIRED, .want = "a list of entries",
     .max = MAX_ENTRIES,
     .missing = "the specs file needs `devices:`, a list of entries",
     .map = &entry_map, .slot = entry_slot},
};
static const struct ax_ymap root_map = {
    .where = "the specs file", AX_YKEYS(root_keys), AX_YNONE};

static int load_root(struct ax_yaml *y, yaml_node_t *root)
{
	if (!root)
		return ax_errf(y->err, y->errlen, AX_ECONFIG,
			       "%s:1:1: the specs file is empty; it needs a "
			       "`devices:` list",
			       y->name);
	return ax_ywalk_map(y, root, &root_map, specs_of(y), NULL);
}

int ax_specs_parse(const char *text, size_t len, const char *name,
		   struct ax_specs **out, char *err, size_t errlen)
{
	struct ax_yaml y = {.name = name, .err = err, .errlen = errlen};
	*out = NULL;
	struct ax_specs *s = calloc(1, sizeof(*s));
	if (!s || !(s->path = strdup(name))) {
		ax_specs_free(s);
		return AX_ENOMEM;
	}
	y.ctx = s;
	int rc = ax_yaml_parse(&y, text, len, "specs file", 3, load_root);
	if (rc)
		ax_specs_free(s);
	else
		*out = s;
	return rc;
}

int ax_specs_load(const char *path, struct ax_specs **out, char *err,
		  size_t errlen)
{
	char *text;
	size_t len;
	*out = NULL;
	int rc = ax_config_read_file(path, &text, &len, err, errlen);
	if (rc)
		return rc;
	rc = ax_specs_parse(text, len, path, out, err, errlen);
	free(text);
	return rc;
}
