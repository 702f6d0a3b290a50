/*
 * core/config.c - run profiles read from YAML, validated against the
 * suites' parameter tables and expanded into concrete cases.
 *
 * The document is read twice with libyaml: an event pass that refuses
 * aliases and extra documents (and reports syntax errors in file order),
 * then the document API, whose nodes keep the marks every message cites.
 * The YAML <-> JSON bridge lives in core/config_json.c.
 */
#include "core/config.h"
#include "core/config_yaml.h"

#include "core/error.h"
#include "core/hash.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

/* Everything one load needs, so helpers take a single pointer. */
struct ld {
	struct ax_yaml y; /* the path, the document, the error buffer */
	const struct ax_config_schema *schema;
	int n_schema;
	struct ax_config *cfg;
	char *err;
	size_t errlen;
};

/* The values one mapping gives each parameter; n[i] == 0: not given. */
struct sweep {
	int64_t *v[AX_MAX_PARAMS];
	int n[AX_MAX_PARAMS];
	struct ax_config_pos pos; /* of the mapping; 0:0 when absent */
};

/* ---- measure ---------------------------------------------------------- */

struct mfield {
	const char *key;
	unsigned bit;
	char kind; /* 'i' integer, 'd' number, 'm' mode */
	double min, max;
	bool min_open; /* min itself excluded */
	size_t off;
};

#define MOFF(f) offsetof(struct ax_config_measure, f)
static const struct mfield mfields[] = {
    {"min_samples", AX_MEASURE_MIN_SAMPLES, 'i', 1, 1e6, false,
     MOFF(min_samples)},
    {"max_samples", AX_MEASURE_MAX_SAMPLES, 'i', 1, 1e6, false,
     MOFF(max_samples)},
    {"max_noise_pct", AX_MEASURE_MAX_NOISE, 'd', 0, 100, true,
     MOFF(max_noise_pct)},
    {"min_time_s", AX_MEASURE_MIN_TIME, 'd', 0, 86400, false, MOFF(min_time_s)},
    {"max_time_s", AX_MEASURE_MAX_TIME, 'd', 0, 86400, true, MOFF(max_time_s)},
    {"timeout_s", AX_MEASURE_TIMEOUT, 'd', 0, 86400, true, MOFF(timeout_s)},
    {"warmup", AX_MEASURE_WARMUP, 'i', 0, 10000, false, MOFF(warmup)},
    {"mode", AX_MEASURE_MODE, 'm', 0, 0, false, MOFF(mode)},
};
#define N_MFIELDS ((int)(sizeof(mfields) / sizeof(mfields[0])))

static void allowed_text(const struct mfield *f, char *buf, size_t len)
{
	if (f->kind == 'm')
		snprintf(buf, len, "batch or cold");
	else if (f->kind == 'i')
		snprintf(buf, len, "an integer from %.0f to %.0f", f->min,
			 f->max);
	else if (f->min_open)
		snprintf(buf, len, "a number above %g and at most %g", f->min,
			 f->max);
	else
		snprintf(buf, len, "a number from %g to %g", f->min, f->max);
}

/* Parse text for f into the measure struct; false when not allowed. */
static bool set_field(const struct mfield *f, const char *text,
		      struct ax_config_measure *m)
{
	char *end;
	if (f->kind == 'm') {
		enum ax_config_mode *mode = (void *)((char *)m + f->off);
		if (!strcmp(text, "batch"))
			*mode = AX_CONFIG_MODE_BATCH;
		else if (!strcmp(text, "cold"))
			*mode = AX_CONFIG_MODE_COLD;
		else
			return false;
		return true;
	}
	errno = 0;
	double v = f->kind == 'i' ? (double)strtoll(text, &end, 10)
				  : strtod(text, &end);
	if (end == text || *end || errno || v > f->max || v < f->min ||
	    (f->min_open && v == f->min) || v != v)
		return false;
	if (f->kind == 'i')
		*(int *)((char *)m + f->off) = (int)v;
	else
		*(double *)((char *)m + f->off) = v;
	return true;
}

static int check_measure_order(struct ld *ld, yaml_node_t **at)
{
	const struct ax_config_measure *m = &ld->cfg->measure;
	unsigned both = AX_MEASURE_MIN_SAMPLES | AX_MEASURE_MAX_SAMPLES;
	if ((m->set & both) == both && m->min_samples > m->max_samples)
		return ax_yaml_fail(&ld->y, at[1],
				    "measure.max_samples (%d) must be at "
				    "least min_samples (%d)",
				    m->max_samples, m->min_samples);
	both = AX_MEASURE_MIN_TIME | AX_MEASURE_MAX_TIME;
	if ((m->set & both) == both && m->min_time_s > m->max_time_s)
		return ax_yaml_fail(&ld->y, at[4],
				    "measure.max_time_s (%g) must be at "
				    "least min_time_s (%g)",
				    m->max_time_s, m->min_time_s);
	return 0;
}

static int load_measure(struct ld *ld, yaml_node_t *map)
{
	const char *keys[N_MFIELDS + 1];
	yaml_node_t *at[N_MFIELDS] = {0};
	if (!map || ax_yaml_is_null(map))
		return 0;
	if (map->type != YAML_MAPPING_NODE)
		return ax_yaml_fail(&ld->y, map,
				    "measure must be a mapping of settings, "
				    "not %s",
				    ax_yaml_kind(map));
	for (int i = 0; i < N_MFIELDS; i++)
		keys[i] = mfields[i].key;
	keys[N_MFIELDS] = NULL;
	int rc = ax_yaml_check_keys(&ld->y, map, "measure", keys);
	for (int i = 0; i < N_MFIELDS && !rc; i++) {
		const struct mfield *f = &mfields[i];
		char allowed[96];
		yaml_node_t *v = at[i] = ax_yaml_get(&ld->y, map, f->key);
		if (!v)
			continue;
		allowed_text(f, allowed, sizeof(allowed));
		if (v->type != YAML_SCALAR_NODE || ax_yaml_is_null(v))
			return ax_yaml_fail(&ld->y, v,
					    "measure.%s must be %s, not %s",
					    f->key, allowed, ax_yaml_kind(v));
		if (!set_field(f, ax_yaml_text(v), &ld->cfg->measure))
			return ax_yaml_fail(&ld->y, v,
					    "measure.%s must be %s (got %s)",
					    f->key, allowed, ax_yaml_text(v));
		ld->cfg->measure.set |= f->bit;
	}
	return rc ? rc : check_measure_order(ld, at);
}

/* ---- suites ----------------------------------------------------------- */

static void sweep_free(struct sweep *s)
{
	for (int i = 0; i < AX_MAX_PARAMS; i++)
		free(s->v[i]);
	memset(s, 0, sizeof(*s));
}

static int append_vals(int64_t **vals, int *n, const int64_t *add, int k)
{
	int64_t *grown = realloc(*vals, sizeof(**vals) * (size_t)(*n + k));
	if (!grown)
		return AX_ENOMEM;
	memcpy(grown + *n, add, sizeof(*add) * (size_t)k);
	*vals = grown;
	*n += k;
	return 0;
}

/* One scalar: a value, "a,b,c" or "LO..HI", appended to vals. */
static int load_scalar(struct ld *ld, const struct ax_config_schema *sc,
		       const struct ax_param_def *d, yaml_node_t *v,
		       int64_t **vals, int *n)
{
	char msg[512];
	int64_t *got;
	int count;
	if (v->type != YAML_SCALAR_NODE)
		return ax_yaml_fail(&ld->y, v,
				    "suite %s: %s lists hold plain values, "
				    "not %s",
				    sc->suite, d->name, ax_yaml_kind(v));
	if (!*ax_yaml_text(v))
		return ax_yaml_fail(&ld->y, v,
				    "suite %s: %s has no value; give a value, "
				    "a list [a, b] or a range LO..HI",
				    sc->suite, d->name);
	int rc = ax_param_parse_list(d, ax_yaml_text(v), &got, &count, msg,
				     sizeof(msg));
	if (rc == AX_ENOMEM)
		return rc;
	if (rc)
		return ax_yaml_fail(&ld->y, v, "suite %s: %s", sc->suite, msg);
	rc = append_vals(vals, n, got, count);
	free(got);
	return rc;
}

static int load_value(struct ld *ld, const struct ax_config_schema *sc,
		      const struct ax_param_def *d, yaml_node_t *v,
		      int64_t **vals, int *n)
{
	if (v->type == YAML_MAPPING_NODE)
		return ax_yaml_fail(&ld->y, v,
				    "suite %s: %s must be a value or a list "
				    "of values, not a mapping",
				    sc->suite, d->name);
	if (v->type == YAML_SCALAR_NODE)
		return load_scalar(ld, sc, d, v, vals, n);
	yaml_node_item_t *it = v->data.sequence.items.start;
	if (it == v->data.sequence.items.top)
		return ax_yaml_fail(&ld->y, v,
				    "suite %s: %s is an empty list; give at "
				    "least one value",
				    sc->suite, d->name);
	for (; it < v->data.sequence.items.top; it++) {
		int rc =
		    load_scalar(ld, sc, d, ax_yaml_node(&ld->y, *it), vals, n);
		if (rc)
			return rc;
	}
	return 0;
}

static int find_param(const struct ax_config_schema *sc, const char *name)
{
	for (int i = 0; i < sc->n_params; i++)
		if (!strcmp(sc->params[i].name, name))
			return i;
	return -1;
}

/* A mapping of parameter names to values (`params` or one case). */
static int load_values(struct ld *ld, const struct ax_config_schema *sc,
		       yaml_node_t *map, const char *where, struct sweep *out)
{
	char place[128];
	snprintf(place, sizeof(place), "suite %s %s", sc->suite, where);
	if (map->type != YAML_MAPPING_NODE)
		return ax_yaml_fail(&ld->y, map,
				    "%s must be a mapping of parameter "
				    "names to values, not %s",
				    place, ax_yaml_kind(map));
	int rc = ax_yaml_check_keys(&ld->y, map, place, NULL);
	out->pos.line = (int)map->start_mark.line + 1;
	out->pos.col = (int)map->start_mark.column + 1;
	AX_YAML_PAIRS_FOREACH(p, map)
	{
		if (rc)
			break;
		int i = find_param(sc, ax_yaml_key(&ld->y, p));
		if (i < 0) {
			char known[512] = "";
			for (int j = 0; j < sc->n_params; j++)
				ax_yaml_join(known, sizeof(known),
					     sc->params[j].name);
			return ax_yaml_fail(
			    &ld->y, ax_yaml_node(&ld->y, p->key),
			    "unknown parameter "
			    "'%s' for suite %s; known parameters: %s",
			    ax_yaml_key(&ld->y, p), sc->suite, known);
		}
		rc = load_value(ld, sc, &sc->params[i],
				ax_yaml_node(&ld->y, p->value), &out->v[i],
				&out->n[i]);
	}
	return rc;
}

static int load_cases(struct ld *ld, const struct ax_config_schema *sc,
		      yaml_node_t *seq, struct sweep **cases, int *n)
{
	if (seq->type != YAML_SEQUENCE_NODE)
		return ax_yaml_fail(&ld->y, seq,
				    "suite %s: cases must be a sequence of "
				    "mappings (- {name: value, ...}), not %s",
				    sc->suite, ax_yaml_kind(seq));
	yaml_node_item_t *it = seq->data.sequence.items.start;
	int count = (int)(seq->data.sequence.items.top - it);
	if (!count)
		return ax_yaml_fail(&ld->y, seq,
				    "suite %s: cases is empty; list at "
				    "least one case or drop the key",
				    sc->suite);
	*cases = calloc((size_t)count, sizeof(**cases));
	if (!*cases)
		return AX_ENOMEM;
	*n = count;
	for (int i = 0; i < count; i++) {
		int rc = load_values(ld, sc, ax_yaml_node(&ld->y, it[i]),
				     "case", &(*cases)[i]);
		if (rc)
			return rc;
	}
	return 0;
}

/* Number of points one case expands to, saturating above limit. */
static long long case_count(const struct ax_config_schema *sc,
			    const struct sweep *base, const struct sweep *c,
			    long long limit)
{
	long long prod = 1;
	for (int i = 0; i < sc->n_params; i++) {
		int k = c->n[i] ? c->n[i] : (base->n[i] ? base->n[i] : 1);
		prod *= k;
		if (prod > limit)
			return limit + 1;
	}
	return prod;
}

/* Open-addressing set of points already in out, for dropping repeats. */
struct seen {
	int *slot; /* case index + 1, 0 empty */
	size_t mask;
};

static size_t point_hash(const struct ax_params *p)
{
	return (size_t)ax_hash64(p->v, sizeof(p->v[0]) * (size_t)p->n);
}

/* Add p to out unless an equal point is there already. */
static void add_point(struct ax_config_suite *out, struct seen *s,
		      const struct ax_params *p, struct ax_config_pos pos)
{
	size_t i = point_hash(p) & s->mask;
	for (; s->slot[i]; i = (i + 1) & s->mask) {
		const struct ax_params *q = &out->cases[s->slot[i] - 1];
		if (!memcmp(q->v, p->v, sizeof(p->v[0]) * (size_t)p->n))
			return;
	}
	out->pos[out->n_cases] = pos;
	out->cases[out->n_cases++] = *p;
	s->slot[i] = out->n_cases;
}

/* The cartesian product of one case over base; the last parameter of the
 * table changes fastest. */
static void expand_case(const struct ax_config_schema *sc,
			const struct sweep *base, const struct sweep *c,
			struct ax_config_suite *out, struct seen *s)
{
	/* The case's own mapping, else `params`, else the suite's key. */
	struct ax_config_pos pos = c->pos.line	    ? c->pos
				   : base->pos.line ? base->pos
						    : out->pos_key;
	const int64_t *vals[AX_MAX_PARAMS];
	int cnt[AX_MAX_PARAMS], idx[AX_MAX_PARAMS] = {0};
	struct ax_params p;
	ax_params_init(&p, sc->params, sc->n_params);
	for (int i = 0; i < sc->n_params; i++) {
		const struct sweep *from = c->n[i] ? c : base;
		vals[i] = from->n[i] ? from->v[i] : &sc->params[i].def;
		cnt[i] = from->n[i] ? from->n[i] : 1;
		if (from->n[i])
			p.given |= 1u << i;
	}
	for (;;) {
		for (int i = 0; i < sc->n_params; i++)
			p.v[i] = vals[i][idx[i]];
		add_point(out, s, &p, pos);
		int i = sc->n_params - 1;
		while (i >= 0 && ++idx[i] == cnt[i])
			idx[i--] = 0;
		if (i < 0)
			break;
	}
}

static int expand(struct ld *ld, const struct ax_config_schema *sc,
		  yaml_node_t *key, const struct sweep *base,
		  const struct sweep *cases, int n_cases,
		  struct ax_config_suite *out)
{
	static const struct sweep none;
	long long limit = AX_CONFIG_MAX_CASES - ld->cfg->n_cases, total = 0;
	int n = n_cases ? n_cases : 1;
	for (int c = 0; c < n && total <= limit; c++)
		total +=
		    case_count(sc, base, n_cases ? &cases[c] : &none, limit);
	if (total > limit)
		return ax_yaml_fail(
		    &ld->y, key,
		    "suite %s expands to more than %d cases "
		    "(the limit for a whole profile); narrow its "
		    "lists or split the profile",
		    sc->suite, AX_CONFIG_MAX_CASES);
	size_t cap = 16;
	while (cap < 2 * (size_t)total)
		cap *= 2;
	struct seen s = {calloc(cap, sizeof(int)), cap - 1};
	out->cases = calloc((size_t)total, sizeof(*out->cases));
	out->pos = calloc((size_t)total, sizeof(*out->pos));
	if (!s.slot || !out->cases || !out->pos) {
		free(s.slot);
		return AX_ENOMEM;
	}
	for (int c = 0; c < n; c++)
		expand_case(sc, base, n_cases ? &cases[c] : &none, out, &s);
	free(s.slot);
	ld->cfg->n_cases += out->n_cases;
	return 0;
}

static int load_suite(struct ld *ld, const struct ax_config_schema *sc,
		      yaml_node_t *key, yaml_node_t *v,
		      struct ax_config_suite *out)
{
	static const char *const keys[] = {"params", "cases", NULL};
	struct sweep base = {0}, *cases = NULL;
	int n_cases = 0, rc = 0;
	char where[96];
	out->schema = sc;
	out->line = (int)key->start_mark.line + 1;
	out->pos_key.line = out->line;
	out->pos_key.col = (int)key->start_mark.column + 1;
	snprintf(where, sizeof(where), "suite %s", sc->suite);
	if (!ax_yaml_is_null(v) && v->type != YAML_MAPPING_NODE)
		return ax_yaml_fail(&ld->y, v,
				    "suite %s must be null or a mapping with "
				    "params and/or cases, not %s",
				    sc->suite, ax_yaml_kind(v));
	if (!ax_yaml_is_null(v) &&
	    !(rc = ax_yaml_check_keys(&ld->y, v, where, keys))) {
		yaml_node_t *params = ax_yaml_get(&ld->y, v, "params");
		yaml_node_t *list = ax_yaml_get(&ld->y, v, "cases");
		if (params && !ax_yaml_is_null(params))
			rc = load_values(ld, sc, params, "params", &base);
		if (!rc && list)
			rc = load_cases(ld, sc, list, &cases, &n_cases);
	}
	if (!rc)
		rc = expand(ld, sc, key, &base, cases, n_cases, out);
	sweep_free(&base);
	for (int i = 0; cases && i < n_cases; i++)
		sweep_free(&cases[i]);
	free(cases);
	return rc;
}

static const struct ax_config_schema *find_suite(struct ld *ld,
						 const char *name)
{
	for (int i = 0; i < ld->n_schema; i++)
		if (!strcmp(ld->schema[i].suite, name))
			return &ld->schema[i];
	return NULL;
}

static int load_suites(struct ld *ld, yaml_node_t *map, yaml_node_t *root)
{
	char known[512] = "";
	for (int i = 0; i < ld->n_schema; i++)
		ax_yaml_join(known, sizeof(known), ld->schema[i].suite);
	if (!map)
		return ax_yaml_fail(&ld->y, root,
				    "the profile has no 'suites' key; add "
				    "suites: with at least one of: %s",
				    known);
	if (map->type != YAML_MAPPING_NODE ||
	    map->data.mapping.pairs.start == map->data.mapping.pairs.top)
		return ax_yaml_fail(&ld->y, map,
				    "suites must be a mapping with at least "
				    "one of: %s (got %s)",
				    known,
				    map->type == YAML_MAPPING_NODE
					? "an empty mapping"
					: ax_yaml_kind(map));
	int rc = ax_yaml_check_keys(&ld->y, map, "suites", NULL);
	size_t n = (size_t)(map->data.mapping.pairs.top -
			    map->data.mapping.pairs.start);
	ld->cfg->suites = calloc(n, sizeof(*ld->cfg->suites));
	if (!ld->cfg->suites)
		return AX_ENOMEM;
	AX_YAML_PAIRS_FOREACH(p, map)
	{
		if (rc)
			break;
		yaml_node_t *k = ax_yaml_node(&ld->y, p->key);
		const struct ax_config_schema *sc =
		    find_suite(ld, ax_yaml_text(k));
		if (!sc)
			return ax_yaml_fail(&ld->y, k,
					    "unknown suite '%s'; known suites: "
					    "%s",
					    ax_yaml_text(k), known);
		rc = load_suite(ld, sc, k, ax_yaml_node(&ld->y, p->value),
				&ld->cfg->suites[ld->cfg->n_suites++]);
	}
	return rc;
}

/* ---- the document ----------------------------------------------------- */

static int load_schema_key(struct ld *ld, yaml_node_t *root)
{
	yaml_node_t *v = ax_yaml_get(&ld->y, root, "schema");
	if (!v)
		return ax_yaml_fail(&ld->y, root,
				    "the profile has no 'schema' key; start "
				    "it with 'schema: %s'",
				    AX_CONFIG_SCHEMA);
	if (v->type != YAML_SCALAR_NODE ||
	    strcmp(ax_yaml_text(v), AX_CONFIG_SCHEMA))
		return ax_yaml_fail(&ld->y, v,
				    "schema must be %s (got %s); this axbench "
				    "reads only that version",
				    AX_CONFIG_SCHEMA,
				    v->type == YAML_SCALAR_NODE
					? ax_yaml_text(v)
					: ax_yaml_kind(v));
	return 0;
}

/* "configs/quick.yaml" -> "quick" */
static char *default_name(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	size_t len = strcspn(base, ".");
	if (!len)
		len = strlen(base);
	return strndup(base, len);
}

static int load_root(struct ld *ld)
{
	static const char *const keys[] = {"schema", "name",	"description",
					   "device", "measure", "suites",
					   NULL};
	struct ax_config *cfg = ld->cfg;
	yaml_node_t *root = yaml_document_get_root_node(&ld->y.doc);
	if (!root)
		return ax_errf(ld->y.err, ld->y.errlen, AX_ECONFIG,
			       "%s: the profile is empty; start it with "
			       "'schema: %s'",
			       ld->y.name, AX_CONFIG_SCHEMA);
	if (root->type != YAML_MAPPING_NODE)
		return ax_yaml_fail(&ld->y, root,
				    "a profile is a mapping (schema, name, "
				    "measure, suites ...), not %s",
				    ax_yaml_kind(root));
	int rc = ax_yaml_check_keys(&ld->y, root, "the profile", keys);
	if (!rc)
		rc = load_schema_key(ld, root);
	if (!rc)
		rc = ax_yaml_get_string(&ld->y,
					ax_yaml_get(&ld->y, root, "name"),
					"name", false, &cfg->name);
	if (!rc && !cfg->name && !(cfg->name = default_name(ld->y.name)))
		rc = AX_ENOMEM;
	if (!rc)
		rc = ax_yaml_get_string(
		    &ld->y, ax_yaml_get(&ld->y, root, "description"),
		    "description", true, &cfg->description);
	if (!rc)
		rc = ax_yaml_get_string(&ld->y,
					ax_yaml_get(&ld->y, root, "device"),
					"device", true, &cfg->device);
	if (!rc)
		rc = load_measure(ld, ax_yaml_get(&ld->y, root, "measure"));
	if (!rc)
		rc = load_suites(ld, ax_yaml_get(&ld->y, root, "suites"), root);
	return rc;
}

static int check_schema_table(const char *name,
			      const struct ax_config_schema *schema,
			      int n_schema, char *err, size_t errlen)
{
	for (int i = 0; i < n_schema; i++)
		if (schema[i].n_params > AX_MAX_PARAMS ||
		    schema[i].n_params < 0)
			return ax_errf(err, errlen, AX_EINVAL,
				       "%s: suite %s has %d parameters; at "
				       "most %d are supported",
				       name, schema[i].suite,
				       schema[i].n_params, AX_MAX_PARAMS);
	return 0;
}

static int parse_document(struct ld *ld, const char *text, size_t len)
{
	yaml_parser_t p;
	if (!yaml_parser_initialize(&p))
		return AX_ENOMEM;
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	int ok = yaml_parser_load(&p, &ld->y.doc);
	int rc = ok ? 0
		    : ax_config_syntax_error(&p, ld->y.name, text, len,
					     ld->y.err, ld->y.errlen);
	yaml_parser_delete(&p);
	if (rc)
		return rc;
	rc = load_root(ld);
	yaml_document_delete(&ld->y.doc);
	return rc;
}

int ax_config_parse(const char *text, size_t len, const char *name,
		    const struct ax_config_schema *schema, int n_schema,
		    struct ax_config **out, char *err, size_t errlen)
{
	struct ld ld = {.y = {.name = name, .err = err, .errlen = errlen},
			.schema = schema,
			.n_schema = n_schema};
	*out = NULL;
	int rc = check_schema_table(name, schema, n_schema, err, errlen);
	if (!rc)
		rc =
		    ax_yaml_prescan(name, "profile", 5, text, len, err, errlen);
	if (rc)
		return rc;
	ld.cfg = calloc(1, sizeof(*ld.cfg));
	if (!ld.cfg || !(ld.cfg->path = strdup(name))) {
		ax_config_destroy(ld.cfg);
		return AX_ENOMEM;
	}
	rc = parse_document(&ld, text, len);
	if (rc) {
		ax_config_destroy(ld.cfg);
		return rc;
	}
	*out = ld.cfg;
	return 0;
}

int ax_config_load(const char *path, const struct ax_config_schema *schema,
		   int n_schema, struct ax_config **out, char *err,
		   size_t errlen)
{
	char *text;
	size_t len;
	*out = NULL;
	int rc = ax_config_read_file(path, &text, &len, err, errlen);
	if (rc)
		return rc;
	rc = ax_config_parse(text, len, path, schema, n_schema, out, err,
			     errlen);
	free(text);
	return rc;
}

void ax_config_destroy(struct ax_config *cfg)
{
	if (!cfg)
		return;
	for (int i = 0; i < cfg->n_suites; i++) {
		free(cfg->suites[i].cases);
		free(cfg->suites[i].pos);
	}
	free(cfg->suites);
	free(cfg->path);
	free(cfg->name);
	free(cfg->description);
	free(cfg->device);
	free(cfg);
}

const struct ax_config_suite *ax_config_suite(const struct ax_config *cfg,
					      const char *name)
{
	for (int i = 0; i < cfg->n_suites; i++)
		if (!strcmp(cfg->suites[i].schema->suite, name))
			return &cfg->suites[i];
	return NULL;
}

static json_t *measure_json(const struct ax_config_measure *m)
{
	json_t *o = json_object();
	for (int i = 0; o && i < N_MFIELDS; i++) {
		const struct mfield *f = &mfields[i];
		const char *p = (const char *)m + f->off;
		json_t *v;
		if (!(m->set & f->bit))
			continue;
		if (f->kind == 'i')
			v = json_integer(*(const int *)p);
		else if (f->kind == 'd')
			v = json_real(*(const double *)p);
		else
			v = json_string(*(const enum ax_config_mode *)p ==
						AX_CONFIG_MODE_COLD
					    ? "cold"
					    : "batch");
		json_object_set_new(o, f->key, v);
	}
	return o;
}

json_t *ax_config_to_json(const struct ax_config *cfg)
{
	json_t *suites = json_object();
	json_t *o = json_pack("{s:s, s:s, s:s, s:s?, s:o, s:o}", "schema",
			      AX_CONFIG_SCHEMA, "name", cfg->name, "path",
			      cfg->path, "device", cfg->device, "measure",
			      measure_json(&cfg->measure), "suites", suites);
	for (int i = 0; o && i < cfg->n_suites; i++)
		json_object_set_new(
		    suites, cfg->suites[i].schema->suite,
		    json_pack("{s:i}", "cases", cfg->suites[i].n_cases));
	return o;
}
