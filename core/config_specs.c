/*
 * core/config_specs.c - the reader of configs/specs.yaml (core/specs.h):
 * every entry checked whole, every message FILE:LINE:COL with the fix.
 */
#include "core/config.h"
#include "core/config_yaml.h"
#include "core/error.h"
#include "core/specs.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Entries and ids at most: the file is a hand-kept table. */
#define MAX_ENTRIES 4096
#define MAX_IDS 64

static const char *const root_keys[] = {"devices", NULL};
static const char *const entry_keys[] = {
    "name",	 "vendor_id",	"device_ids", "fp32_tflops", "fp16_tflops",
    "fp16_kind", "memory_gbps", "source",     "note",	     NULL};

static int want_map(struct ax_yaml *y, yaml_node_t *n, const char *what,
		    const char *const *keys)
{
	if (n->type != YAML_MAPPING_NODE)
		return ax_yaml_fail(y, n, "%s must be a mapping, not %s", what,
				    ax_yaml_kind(n));
	return ax_yaml_check_keys(y, n, what, keys);
}

/* A PCI id: an integer 0..0xffff (vendor) or 0..0xffffffff, written in
 * hex or decimal. */
static int get_id(struct ax_yaml *y, yaml_node_t *n, const char *what,
		  uint32_t *out)
{
	char *end;
	const char *s = n->type == YAML_SCALAR_NODE ? ax_yaml_text(n) : "";
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	if (n->type != YAML_SCALAR_NODE || ax_yaml_is_null(n) || end == s ||
	    *end || errno || *s == '-' || v > 0xffffffffULL)
		return ax_yaml_fail(y, n,
				    "%s must be a PCI id, an integer such as "
				    "0x10de (got %s)",
				    what,
				    n->type == YAML_SCALAR_NODE
					? ax_yaml_text(n)
					: ax_yaml_kind(n));
	*out = (uint32_t)v;
	return 0;
}

/* A figure: absent is NAN; present, a number > 0. */
static int get_figure(struct ax_yaml *y, yaml_node_t *map, const char *key,
		      double *out)
{
	yaml_node_t *n = ax_yaml_get(y, map, key);
	*out = NAN;
	if (!n)
		return 0;
	char *end;
	const char *s = n->type == YAML_SCALAR_NODE ? ax_yaml_text(n) : "";
	double v = strtod(s, &end);
	if (n->type != YAML_SCALAR_NODE || end == s || *end || !(v > 0) ||
	    !isfinite(v))
		return ax_yaml_fail(y, n,
				    "%s must be a number > 0 (got %s); leave "
				    "the key out where the vendor publishes "
				    "no figure",
				    key,
				    n->type == YAML_SCALAR_NODE
					? ax_yaml_text(n)
					: ax_yaml_kind(n));
	*out = v;
	return 0;
}

/* A text field that must be there and not be empty. */
static int get_text(struct ax_yaml *y, yaml_node_t *map, yaml_node_t *entry,
		    const char *key, const char *fix, char **out)
{
	yaml_node_t *n = ax_yaml_get(y, map, key);
	if (!n)
		return ax_yaml_fail(y, entry, "specs entry has no %s; %s", key,
				    fix);
	int rc = ax_yaml_get_string(y, n, key, false, out);
	if (!rc && !**out)
		return ax_yaml_fail(y, n, "%s is empty; %s", key, fix);
	return rc;
}

/* The id (vendor, id) listed by an entry before sp, or NULL. */
static const struct ax_spec *first_with(const struct ax_specs *s, int upto,
					uint32_t vendor, uint32_t id)
{
	for (int i = 0; i < upto; i++) {
		for (int j = 0; j < s->v[i].n_device_ids; j++)
			if (s->v[i].vendor_id == vendor &&
			    s->v[i].device_ids[j] == id)
				return &s->v[i];
	}
	return NULL;
}

static int load_ids(struct ax_yaml *y, struct ax_specs *s, int at,
		    yaml_node_t *map, yaml_node_t *entry)
{
	struct ax_spec *sp = &s->v[at];
	yaml_node_t *n = ax_yaml_get(y, map, "device_ids");
	if (!n)
		return ax_yaml_fail(y, entry,
				    "specs entry has no device_ids; list the "
				    "product's PCI device ids, [0x2330]");
	long count =
	    n->type == YAML_SEQUENCE_NODE
		? n->data.sequence.items.top - n->data.sequence.items.start
		: 0;
	if (count < 1 || count > MAX_IDS)
		return ax_yaml_fail(y, n,
				    "device_ids must be a list of 1 to %d PCI "
				    "ids, such as [0x2330] (got %s)",
				    MAX_IDS, ax_yaml_kind(n));
	if (!(sp->device_ids = calloc((size_t)count, sizeof(uint32_t))))
		return AX_ENOMEM;
	AX_YAML_ITEMS_FOREACH(it, n)
	{
		yaml_node_t *v = ax_yaml_node(y, *it);
		uint32_t id;
		int rc = get_id(y, v, "a device id", &id);
		if (rc)
			return rc;
		const struct ax_spec *dup =
		    first_with(s, at, sp->vendor_id, id);
		for (int j = 0; !dup && j < sp->n_device_ids; j++)
			dup = sp->device_ids[j] == id ? sp : NULL;
		if (dup)
			return ax_yaml_fail(
			    y, v,
			    "device id 0x%04x of vendor 0x%04x is listed "
			    "twice (also by '%s', line %d); a device matches "
			    "one entry only: keep one",
			    id, sp->vendor_id, dup->name ? dup->name : "",
			    dup->line);
		sp->device_ids[sp->n_device_ids++] = id;
	}
	return 0;
}

static int load_entry(struct ax_yaml *y, struct ax_specs *s, int at,
		      yaml_node_t *n)
{
	struct ax_spec *sp = &s->v[at];
	int rc = want_map(y, n, "a specs entry", entry_keys);
	sp->line = (int)n->start_mark.line + 1;
	if (!rc)
		rc = get_text(y, n, n, "name", "name the product", &sp->name);
	yaml_node_t *v = rc ? NULL : ax_yaml_get(y, n, "vendor_id");
	if (!rc && !v)
		rc = ax_yaml_fail(y, n,
				  "specs entry '%s' has no vendor_id; add the "
				  "PCI vendor id (0x10de NVIDIA, 0x1002 AMD)",
				  sp->name);
	if (!rc)
		rc = get_id(y, v, "vendor_id", &sp->vendor_id);
	if (!rc)
		rc = load_ids(y, s, at, n, n);
	if (!rc)
		rc = get_figure(y, n, "fp32_tflops", &sp->fp32_tflops);
	if (!rc)
		rc = get_figure(y, n, "fp16_tflops", &sp->fp16_tflops);
	if (!rc)
		rc = get_figure(y, n, "memory_gbps", &sp->memory_gbps);
	if (!rc)
		rc = get_text(y, n, n, "source",
			      "cite the vendor datasheet or whitepaper "
			      "(title or URL) the figures come from",
			      &sp->source);
	if (!rc && (v = ax_yaml_get(y, n, "fp16_kind")))
		rc = ax_yaml_get_string(y, v, "fp16_kind", false,
					&sp->fp16_kind);
	else if (!rc && isfinite(sp->fp16_tflops))
		rc = ax_yaml_fail(y, n,
				  "specs entry '%s' gives fp16_tflops without "
				  "fp16_kind; say which figure it is (tensor "
				  "dense, accumulate precision)",
				  sp->name);
	if (!rc && (v = ax_yaml_get(y, n, "note")))
		rc = ax_yaml_get_string(y, v, "note", true, &sp->note);
	if (!rc && !isfinite(sp->fp32_tflops) && !isfinite(sp->fp16_tflops) &&
	    !isfinite(sp->memory_gbps))
		rc = ax_yaml_fail(y, n,
				  "specs entry '%s' gives no figure; add "
				  "fp32_tflops, fp16_tflops or memory_gbps",
				  sp->name);
	return rc;
}

static int load_root(struct ax_yaml *y, struct ax_specs *s)
{
	yaml_node_t *root = yaml_document_get_root_node(&y->doc);
	if (!root)
		return ax_errf(y->err, y->errlen, AX_ECONFIG,
			       "%s:1:1: the specs file is empty; it needs a "
			       "`devices:` list",
			       y->name);
	int rc = want_map(y, root, "the specs file", root_keys);
	yaml_node_t *list = rc ? NULL : ax_yaml_get(y, root, "devices");
	if (!rc && (!list || list->type != YAML_SEQUENCE_NODE))
		return ax_yaml_fail(y, list ? list : root,
				    "the specs file needs `devices:`, a list "
				    "of entries");
	long count = rc ? 0
			: list->data.sequence.items.top -
			      list->data.sequence.items.start;
	if (count > MAX_ENTRIES)
		return ax_yaml_fail(y, list,
				    "devices has %ld entries; at most %d",
				    count, MAX_ENTRIES);
	if (!rc && count && !(s->v = calloc((size_t)count, sizeof(*s->v))))
		return AX_ENOMEM;
	for (long i = 0; !rc && i < count; i++) {
		s->n++;
		rc = load_entry(
		    y, s, (int)i,
		    ax_yaml_node(y, list->data.sequence.items.start[i]));
	}
	return rc;
}

int ax_specs_parse(const char *text, size_t len, const char *name,
		   struct ax_specs **out, char *err, size_t errlen)
{
	struct ax_yaml y = {.name = name, .err = err, .errlen = errlen};
	*out = NULL;
	int rc = ax_yaml_prescan(name, "specs file", 3, text, len, err, errlen);
	if (rc)
		return rc;
	struct ax_specs *s = calloc(1, sizeof(*s));
	yaml_parser_t p;
	if (!s || !(s->path = strdup(name)) || !yaml_parser_initialize(&p)) {
		ax_specs_free(s);
		return AX_ENOMEM;
	}
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	if (!yaml_parser_load(&p, &y.doc))
		rc = ax_config_syntax_error(&p, name, text, len, err, errlen);
	yaml_parser_delete(&p);
	if (!rc) {
		rc = load_root(&y, s);
		yaml_document_delete(&y.doc);
	}
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
