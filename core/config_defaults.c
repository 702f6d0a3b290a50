/*
 * core/config_defaults.c - the reader of the per-device defaults file
 * (format in core/defaults.h): its keys described as data for the walker
 * of core/config_schema.c, so that every message cites FILE:LINE:COL as
 * the other readers do.  yaml.h stays in core/config*.c; matching and
 * applying an entry is core/defaults.c.
 */
#include "core/config_schema.h"
#include "core/defaults.h"
#include "core/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct dl {
	struct ax_yaml y;
	const struct ax_config_schema *schema;
	int n_schema;
	struct ax_defaults *d;
};

static struct dl *dl_of(struct ax_yaml *y) { return y->ctx; }

/* A 32-bit id, decimal or 0x hex (PCI ids are written in hex). */
#define ID_KEY .lo = 0, .hi = UINT32_MAX, .want = "an id such as 0x10de"

static const struct ax_ykey id_key = {"device_id", AX_Y_INT, AX_YK_HEX,
				      .size = sizeof(uint32_t), ID_KEY};

/* device_id: one id or a list of them (one product has several). */
static int load_ids(struct ax_yaml *y, yaml_node_t *n, void *obj,
		    const char *what)
{
	struct ax_defaults_match *m = obj;
	if (n->type != YAML_SEQUENCE_NODE) {
		m->n_ids = 1;
		return ax_ywalk_value(y, n, &id_key, what, &m->ids[0]);
	}
	AX_YAML_ITEMS_FOREACH(it, n)
	{
		yaml_node_t *item = ax_yaml_node(y, *it);
		if (m->n_ids == AX_DEFAULTS_MAX_IDS)
			return ax_yaml_fail(y, item,
					    "match.device_id lists more than "
					    "%d ids; split the entry",
					    AX_DEFAULTS_MAX_IDS);
		int rc =
		    ax_ywalk_value(y, item, &id_key, what, &m->ids[m->n_ids++]);
		if (rc)
			return rc;
	}
	if (m->n_ids == 0)
		return ax_yaml_fail(y, n,
				    "match.device_id is an empty list; give "
				    "ids or drop the key");
	return 0;
}

static int check_subgroup(struct ax_yaml *y, yaml_node_t *n, void *obj,
			  const char *what)
{
	uint32_t s = *(const uint32_t *)obj;
	if (s & (s - 1))
		return ax_yaml_fail(y, n,
				    "match.subgroup_size must be a power of "
				    "two from 1 to 128 (got %s)",
				    ax_yaml_text(n));
	return 0;
}

static int check_vendor(struct ax_yaml *y, yaml_node_t *map, void *obj)
{
	const struct ax_defaults_match *m = obj;
	if ((m->keys & AX_DEF_DEVICE_ID) && !(m->keys & AX_DEF_VENDOR))
		return ax_yaml_fail(y, map,
				    "match.device_id needs match.vendor: PCI "
				    "device ids are unique only within a "
				    "vendor");
	return 0;
}

#define MAT(f) AX_YAT(struct ax_defaults_match, f)
static const struct ax_ykey match_keys[] = {
    {"vendor", AX_Y_INT, AX_YK_HEX, MAT(vendor), ID_KEY, .bit = AX_DEF_VENDOR},
    {"device_id", AX_Y_ANY, 0, .fn = load_ids, .bit = AX_DEF_DEVICE_ID},
    {"device_type", AX_Y_CHOICE, 0, MAT(type),
     .choices = ax_defaults_type_names, .values = ax_defaults_type_values,
     .bit = AX_DEF_TYPE},
    {"subgroup_size", AX_Y_INT, AX_YK_HEX, MAT(subgroup_size), .lo = 1,
     .hi = 128, .want = "a power of two from 1 to 128", .fn = check_subgroup,
     .bit = AX_DEF_SUBGROUP},
};
static const struct ax_ymap match_map = {
    .where = "match",
    AX_YKEYS(match_keys),
    .flags = AX_YM_PATH,
    .label_off = -1,
    .set_off = offsetof(struct ax_defaults_match, keys),
    .done = check_vendor,
};

static int find_suite(struct ax_yaml *y, yaml_node_t *n, void *obj,
		      const char *what)
{
	struct dl *l = dl_of(y);
	struct ax_defaults_entry *e = obj;
	for (int i = 0; i < l->n_schema && !e->schema; i++)
		if (!strcmp(l->schema[i].suite, ax_yaml_text(n)))
			e->schema = &l->schema[i];
	if (e->schema)
		return 0;
	char known[512] = "";
	for (int i = 0; i < l->n_schema; i++)
		ax_yaml_join(known, sizeof(known), l->schema[i].suite);
	return ax_yaml_fail(y, n, "unknown suite '%s'; suites: %s",
			    ax_yaml_text(n), known);
}

static const struct ax_ykey tunable_key = {NULL, AX_Y_VALUE};

/* params: tunables of the suite only; shapes are the user's question. */
static int param_pair(struct ax_yaml *y, yaml_node_t *key, yaml_node_t *v,
		      void *obj)
{
	struct ax_defaults_entry *e = obj;
	const struct ax_config_schema *sc = e->schema;
	const char *name = ax_yaml_text(key);
	int i = ax_params_find(&e->params, name);
	if (i < 0 || !(sc->params[i].flags & AX_PARAM_TUNABLE)) {
		char known[512] = "";
		for (int j = 0; j < sc->n_params; j++)
			if (sc->params[j].flags & AX_PARAM_TUNABLE)
				ax_yaml_join(known, sizeof(known),
					     sc->params[j].name);
		return ax_yaml_fail(
		    y, key,
		    "'%s' is %s of suite %s; defaults set only tunables: %s",
		    name, i < 0 ? "not a parameter" : "not a tunable",
		    sc->suite, known);
	}
	char why[512];
	int rc = ax_ywalk_value(y, v, &tunable_key, name, e);
	if (!rc &&
	    ax_params_set(&e->params, name, ax_yaml_text(v), why, sizeof(why)))
		rc = ax_yaml_fail(y, v, "%s", why);
	return rc;
}

static int params_given(struct ax_yaml *y, yaml_node_t *map, void *obj)
{
	if (((struct ax_defaults_entry *)obj)->params.given)
		return 0;
	return ax_yaml_fail(y, map,
			    "params is empty; give at least one tunable or "
			    "drop the entry");
}

static const struct ax_ymap params_map = {
    .where = "params", AX_YNONE, .pair = param_pair, .done = params_given};

static int load_params(struct ax_yaml *y, yaml_node_t *n, void *obj,
		       const char *what)
{
	struct ax_defaults_entry *e = obj;
	ax_params_init(&e->params, e->schema->params, e->schema->n_params);
	return ax_ywalk_map(y, n, &params_map, e, NULL);
}

static int entry_pos(struct ax_yaml *y, yaml_node_t *n, void *obj,
		     const char *what)
{
	struct ax_defaults_entry *e = obj;
	e->line = (int)n->start_mark.line + 1;
	e->col = (int)n->start_mark.column + 1;
	return 0;
}

#define EAT(f) AX_YAT(struct ax_defaults_entry, f)
static const struct ax_ykey entry_keys[] = {
    {NULL, AX_Y_CHECK, .fn = entry_pos},
    {"suite", AX_Y_VALUE, AX_YK_REQUIRED, .fn = find_suite},
    {"match", AX_Y_MAP, AX_YK_REQUIRED, EAT(match), .map = &match_map},
    {"basis", AX_Y_STRING, AX_YK_REQUIRED, EAT(basis),
     .what = "basis (measured on which device, or derived from which rule)",
     .want = "a value"},
    {"params", AX_Y_ANY, AX_YK_REQUIRED, .fn = load_params},
};
static const struct ax_ymap entry_map = {
    .where = "a defaults entry",
    AX_YKEYS(entry_keys),
    .flags = AX_YM_NEED_FIRST,
    AX_YNONE,
};

static bool same_match(const struct ax_defaults_match *a,
		       const struct ax_defaults_match *b)
{
	if (a->keys != b->keys || a->vendor != b->vendor ||
	    a->type != b->type || a->subgroup_size != b->subgroup_size ||
	    a->n_ids != b->n_ids)
		return false;
	for (int i = 0; i < a->n_ids; i++)
		if (a->ids[i] != b->ids[i])
			return false;
	return true;
}

/* Two entries for one suite and one class: the second would never
 * apply, which is a mistake in the file. */
static int check_repeat(struct ax_yaml *y, yaml_node_t *n, void *obj,
			const char *what)
{
	const struct ax_defaults *d = dl_of(y)->d;
	const struct ax_defaults_entry *e = obj;
	for (const struct ax_defaults_entry *o = d->entries; o < e; o++)
		if (o->schema == e->schema && same_match(&o->match, &e->match))
			return ax_yaml_fail(y, n,
					    "this entry repeats the suite and "
					    "match of the entry at line %d, "
					    "so it could never apply; merge "
					    "the two",
					    o->line);
	return 0;
}

static void *entry_slot(struct ax_yaml *y, void *obj, int i, int count)
{
	struct ax_defaults *d = obj;
	if (i >= 0)
		return &d->entries[d->n++];
	d->entries = calloc((size_t)count + 1, sizeof(*d->entries));
	return d->entries;
}

static const char *const schema_names[] = {AX_DEFAULTS_SCHEMA, NULL};

static const struct ax_ykey root_keys[] = {
    {"schema", AX_Y_CHOICE, AX_YK_REQUIRED, .choices = schema_names,
     .want = AX_DEFAULTS_SCHEMA},
    {"defaults", AX_Y_SEQ, AX_YK_REQUIRED,
     .want = "a sequence of entries (- suite: ...)", .map = &entry_map,
     .slot = entry_slot, .fn = check_repeat},
};
static const struct ax_ymap root_map = {
    .where = "a defaults file",
    AX_YKEYS(root_keys),
    .flags = AX_YM_NEED_FIRST,
    AX_YNONE,
};

static int load_root(struct ax_yaml *y, yaml_node_t *root)
{
	if (!root)
		return ax_errf(y->err, y->errlen, AX_ECONFIG,
			       "%s: empty file; a defaults file starts with "
			       "schema: " AX_DEFAULTS_SCHEMA,
			       y->name);
	return ax_ywalk_map(y, root, &root_map, dl_of(y)->d, NULL);
}

int ax_defaults_parse(const char *text, size_t len, const char *name,
		      const struct ax_config_schema *schema, int n_schema,
		      struct ax_defaults **out, char *err, size_t errlen)
{
	struct dl l = {.y = {.name = name, .err = err, .errlen = errlen},
		       .schema = schema,
		       .n_schema = n_schema};
	l.y.ctx = &l;
	*out = NULL;
	l.d = calloc(1, sizeof(*l.d));
	if (!l.d || !(l.d->path = strdup(name))) {
		ax_defaults_free(l.d);
		return AX_ENOMEM;
	}
	int rc = ax_yaml_parse(&l.y, text, len, "defaults file", 5, load_root);
	if (rc)
		ax_defaults_free(l.d);
	else
		*out = l.d;
	return rc;
}

int ax_defaults_load(const char *path, const struct ax_config_schema *schema,
		     int n_schema, struct ax_defaults **out, char *err,
		     size_t errlen)
{
	char *text;
	size_t len;
	*out = NULL;
	int rc = ax_config_read_file(path, &text, &len, err, errlen);
	if (rc)
		return rc;
	rc = ax_defaults_parse(text, len, path, schema, n_schema, out, err,
			       errlen);
	free(text);
	return rc;
}
