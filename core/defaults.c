/*
 * core/defaults.c - the per-device defaults file (format in
 * core/defaults.h), read with the profile reader's YAML helpers so that
 * every message cites FILE:LINE:COL the same way.
 */
#include "core/defaults.h"
#include "core/config_yaml.h"
#include "core/error.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct dl {
	struct ax_yaml y;
	const struct ax_config_schema *schema;
	int n_schema;
	struct ax_defaults *d;
};

static const char *const root_keys[] = {"schema", "defaults", NULL};
static const char *const entry_keys[] = {"suite", "match", "basis", "params",
					 NULL};
static const char *const match_keys[] = {"vendor", "device_id", "device_type",
					 "subgroup_size", NULL};

/* device_type values, as `axbench devices` prints them. */
static const struct {
	const char *name;
	VkPhysicalDeviceType type;
} type_names[] = {
    {"discrete", VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU},
    {"integrated", VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU},
    {"virtual", VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU},
    {"cpu", VK_PHYSICAL_DEVICE_TYPE_CPU},
    {"other", VK_PHYSICAL_DEVICE_TYPE_OTHER},
};
#define N_TYPES ((int)(sizeof(type_names) / sizeof(type_names[0])))

static int want_scalar(struct dl *l, yaml_node_t *n, const char *what)
{
	if (n->type != YAML_SCALAR_NODE || ax_yaml_is_null(n))
		return ax_yaml_fail(&l->y, n, "%s must be a value, not %s",
				    what, ax_yaml_kind(n));
	return 0;
}

static int want_map(struct dl *l, yaml_node_t *n, const char *what,
		    const char *const *keys)
{
	if (n->type != YAML_MAPPING_NODE)
		return ax_yaml_fail(&l->y, n, "%s must be a mapping, not %s",
				    what, ax_yaml_kind(n));
	return ax_yaml_check_keys(&l->y, n, what, keys);
}

/* A 32-bit id, decimal or 0x hex (PCI ids are written in hex). */
static int get_id(struct dl *l, yaml_node_t *n, const char *what, uint32_t *out)
{
	int rc = want_scalar(l, n, what);
	if (rc)
		return rc;
	const char *t = ax_yaml_text(n);
	char *end;
	errno = 0;
	unsigned long long v = strtoull(t, &end, 0);
	if (end == t || *end || errno || v > UINT32_MAX || t[0] == '-')
		return ax_yaml_fail(&l->y, n,
				    "%s must be an id such as 0x10de (got %s)",
				    what, t);
	*out = (uint32_t)v;
	return 0;
}

/* device_id: one id or a list of them (one product has several). */
static int load_ids(struct dl *l, yaml_node_t *n, struct ax_defaults_match *m)
{
	if (n->type != YAML_SEQUENCE_NODE) {
		m->n_ids = 1;
		return get_id(l, n, "match.device_id", &m->ids[0]);
	}
	AX_YAML_ITEMS_FOREACH(it, n)
	{
		yaml_node_t *item = ax_yaml_node(&l->y, *it);
		if (m->n_ids == AX_DEFAULTS_MAX_IDS)
			return ax_yaml_fail(&l->y, item,
					    "match.device_id lists more than "
					    "%d ids; split the entry",
					    AX_DEFAULTS_MAX_IDS);
		int rc =
		    get_id(l, item, "match.device_id", &m->ids[m->n_ids++]);
		if (rc)
			return rc;
	}
	if (m->n_ids == 0)
		return ax_yaml_fail(&l->y, n,
				    "match.device_id is an empty list; give "
				    "ids or drop the key");
	return 0;
}

static int load_type(struct dl *l, yaml_node_t *n, struct ax_defaults_match *m)
{
	int rc = want_scalar(l, n, "match.device_type");
	for (int i = 0; !rc && i < N_TYPES; i++)
		if (!strcmp(ax_yaml_text(n), type_names[i].name)) {
			m->type = type_names[i].type;
			return 0;
		}
	return rc ? rc
		  : ax_yaml_fail(&l->y, n,
				 "match.device_type must be one of discrete, "
				 "integrated, virtual, cpu, other (got %s)",
				 ax_yaml_text(n));
}

static int load_subgroup(struct dl *l, yaml_node_t *n,
			 struct ax_defaults_match *m)
{
	int rc = get_id(l, n, "match.subgroup_size", &m->subgroup_size);
	if (!rc && (m->subgroup_size == 0 || m->subgroup_size > 128 ||
		    (m->subgroup_size & (m->subgroup_size - 1))))
		return ax_yaml_fail(&l->y, n,
				    "match.subgroup_size must be a power of "
				    "two from 1 to 128 (got %s)",
				    ax_yaml_text(n));
	return rc;
}

static int load_match(struct dl *l, yaml_node_t *n, struct ax_defaults_match *m)
{
	int rc = want_map(l, n, "match", match_keys);
	AX_YAML_PAIRS_FOREACH(p, n)
	{
		if (rc)
			break;
		const char *key = ax_yaml_key(&l->y, p);
		yaml_node_t *v = ax_yaml_node(&l->y, p->value);
		if (!strcmp(key, "vendor")) {
			m->keys |= AX_DEF_VENDOR;
			rc = get_id(l, v, "match.vendor", &m->vendor);
		} else if (!strcmp(key, "device_id")) {
			m->keys |= AX_DEF_DEVICE_ID;
			rc = load_ids(l, v, m);
		} else if (!strcmp(key, "device_type")) {
			m->keys |= AX_DEF_TYPE;
			rc = load_type(l, v, m);
		} else {
			m->keys |= AX_DEF_SUBGROUP;
			rc = load_subgroup(l, v, m);
		}
	}
	if (!rc && (m->keys & AX_DEF_DEVICE_ID) && !(m->keys & AX_DEF_VENDOR))
		return ax_yaml_fail(&l->y, n,
				    "match.device_id needs match.vendor: PCI "
				    "device ids are unique only within a "
				    "vendor");
	return rc;
}

static const struct ax_config_schema *find_suite(struct dl *l, const char *name)
{
	for (int i = 0; i < l->n_schema; i++)
		if (!strcmp(l->schema[i].suite, name))
			return &l->schema[i];
	return NULL;
}

static int load_suite(struct dl *l, yaml_node_t *n, struct ax_defaults_entry *e)
{
	int rc = want_scalar(l, n, "suite");
	if (rc)
		return rc;
	e->schema = find_suite(l, ax_yaml_text(n));
	if (e->schema)
		return 0;
	char known[512] = "";
	for (int i = 0; i < l->n_schema; i++)
		ax_yaml_join(known, sizeof(known), l->schema[i].suite);
	return ax_yaml_fail(&l->y, n, "unknown suite '%s'; suites: %s",
			    ax_yaml_text(n), known);
}

/* params: tunables of the suite only; shapes are the user's question. */
static int load_params(struct dl *l, yaml_node_t *n,
		       struct ax_defaults_entry *e)
{
	const struct ax_config_schema *sc = e->schema;
	int rc = want_map(l, n, "params", NULL);
	ax_params_init(&e->params, sc->params, sc->n_params);
	AX_YAML_PAIRS_FOREACH(p, n)
	{
		if (rc)
			break;
		const char *name = ax_yaml_key(&l->y, p);
		yaml_node_t *v = ax_yaml_node(&l->y, p->value);
		int i = ax_params_find(&e->params, name);
		if (i < 0 || !(sc->params[i].flags & AX_PARAM_TUNABLE)) {
			char known[512] = "";
			for (int j = 0; j < sc->n_params; j++)
				if (sc->params[j].flags & AX_PARAM_TUNABLE)
					ax_yaml_join(known, sizeof(known),
						     sc->params[j].name);
			return ax_yaml_fail(
			    &l->y, ax_yaml_node(&l->y, p->key),
			    "'%s' is %s of suite %s; defaults set only "
			    "tunables: %s",
			    name, i < 0 ? "not a parameter" : "not a tunable",
			    sc->suite, known);
		}
		char why[512];
		rc = want_scalar(l, v, name);
		if (!rc && ax_params_set(&e->params, name, ax_yaml_text(v), why,
					 sizeof(why)))
			rc = ax_yaml_fail(&l->y, v, "%s", why);
	}
	if (!rc && !e->params.given)
		return ax_yaml_fail(&l->y, n,
				    "params is empty; give at least one "
				    "tunable or drop the entry");
	return rc;
}

static yaml_node_t *need(struct dl *l, yaml_node_t *map, const char *key,
			 const char *what, int *rc)
{
	yaml_node_t *v = ax_yaml_get(&l->y, map, key);
	if (!v && !*rc)
		*rc = ax_yaml_fail(&l->y, map, "%s needs `%s`", what, key);
	return v;
}

static int load_entry(struct dl *l, yaml_node_t *n, struct ax_defaults_entry *e)
{
	int rc = want_map(l, n, "a defaults entry", entry_keys);
	e->line = (int)n->start_mark.line + 1;
	e->col = (int)n->start_mark.column + 1;
	yaml_node_t *suite = need(l, n, "suite", "a defaults entry", &rc);
	yaml_node_t *match = need(l, n, "match", "a defaults entry", &rc);
	yaml_node_t *basis = need(l, n, "basis", "a defaults entry", &rc);
	yaml_node_t *params = need(l, n, "params", "a defaults entry", &rc);
	if (!rc)
		rc = load_suite(l, suite, e);
	if (!rc)
		rc = load_match(l, match, &e->match);
	if (!rc)
		rc = want_scalar(l, basis,
				 "basis (measured on which device, or "
				 "derived from which rule)");
	if (!rc)
		rc =
		    ax_yaml_get_string(&l->y, basis, "basis", false, &e->basis);
	if (!rc)
		rc = load_params(l, params, e);
	return rc;
}

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
static int check_repeat(struct dl *l, yaml_node_t *n, int i)
{
	const struct ax_defaults_entry *e = &l->d->entries[i];
	for (int j = 0; j < i; j++) {
		const struct ax_defaults_entry *o = &l->d->entries[j];
		if (o->schema == e->schema && same_match(&o->match, &e->match))
			return ax_yaml_fail(&l->y, n,
					    "this entry repeats the suite and "
					    "match of the entry at line %d, "
					    "so it could never apply; merge "
					    "the two",
					    o->line);
	}
	return 0;
}

static int load_entries(struct dl *l, yaml_node_t *n)
{
	if (n->type != YAML_SEQUENCE_NODE)
		return ax_yaml_fail(&l->y, n,
				    "defaults must be a sequence of entries "
				    "(- suite: ...), not %s",
				    ax_yaml_kind(n));
	int count =
	    (int)(n->data.sequence.items.top - n->data.sequence.items.start);
	l->d->entries = calloc((size_t)count + 1, sizeof(*l->d->entries));
	if (!l->d->entries)
		return AX_ENOMEM;
	int rc = 0;
	AX_YAML_ITEMS_FOREACH(it, n)
	{
		yaml_node_t *item = ax_yaml_node(&l->y, *it);
		int i = l->d->n++;
		rc = load_entry(l, item, &l->d->entries[i]);
		if (!rc)
			rc = check_repeat(l, item, i);
		if (rc)
			break;
	}
	return rc;
}

static int load_root(struct dl *l)
{
	yaml_node_t *root = yaml_document_get_root_node(&l->y.doc);
	if (!root)
		return ax_errf(l->y.err, l->y.errlen, AX_ECONFIG,
			       "%s: empty file; a defaults file starts with "
			       "schema: " AX_DEFAULTS_SCHEMA,
			       l->y.name);
	int rc = want_map(l, root, "a defaults file", root_keys);
	yaml_node_t *schema = need(l, root, "schema", "a defaults file", &rc);
	yaml_node_t *list = need(l, root, "defaults", "a defaults file", &rc);
	if (!rc)
		rc = want_scalar(l, schema, "schema");
	if (!rc && strcmp(ax_yaml_text(schema), AX_DEFAULTS_SCHEMA))
		rc = ax_yaml_fail(&l->y, schema,
				  "schema must be " AX_DEFAULTS_SCHEMA
				  " (got %s)",
				  ax_yaml_text(schema));
	return rc ? rc : load_entries(l, list);
}

int ax_defaults_parse(const char *text, size_t len, const char *name,
		      const struct ax_config_schema *schema, int n_schema,
		      struct ax_defaults **out, char *err, size_t errlen)
{
	struct dl l = {.y = {.name = name, .err = err, .errlen = errlen},
		       .schema = schema,
		       .n_schema = n_schema};
	*out = NULL;
	int rc =
	    ax_yaml_prescan(name, "defaults file", 5, text, len, err, errlen);
	if (rc)
		return rc;
	l.d = calloc(1, sizeof(*l.d));
	if (!l.d || !(l.d->path = strdup(name))) {
		ax_defaults_free(l.d);
		return AX_ENOMEM;
	}
	yaml_parser_t p;
	if (!yaml_parser_initialize(&p)) {
		ax_defaults_free(l.d);
		return AX_ENOMEM;
	}
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	if (!yaml_parser_load(&p, &l.y.doc))
		rc = ax_config_syntax_error(&p, name, text, len, err, errlen);
	yaml_parser_delete(&p);
	if (!rc) {
		rc = load_root(&l);
		yaml_document_delete(&l.y.doc);
	}
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
	for (int i = 0; i < N_TYPES; i++)
		if (type_names[i].type == t)
			return type_names[i].name;
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
