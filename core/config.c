/*
 * core/config.c - run profiles read from YAML, validated against the
 * suites' parameter tables and expanded into concrete cases.
 *
 * The document is read twice with libyaml: an event pass that refuses
 * aliases and extra documents (and reports syntax errors in file order),
 * then the document API, whose nodes keep the marks every message cites.
 * The keys are described as data for the walker of core/config_schema.c;
 * the YAML <-> JSON bridge lives in core/config_json.c.
 */
#include "core/config.h"
#include "core/config_schema.h"

#include "core/error.h"
#include "core/hash.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Everything one load needs (y.ctx), so helpers take a single pointer. */
struct ld {
	struct ax_yaml y; /* the path, the document, the error buffer */
	const struct ax_config_schema *schema;
	int n_schema;
	struct ax_config *cfg;
	const struct ax_config_schema *sc; /* the suite being read */
};

/* The values one mapping gives each parameter; n[i] == 0: not given. */
struct sweep {
	int64_t *v[AX_MAX_PARAMS];
	int n[AX_MAX_PARAMS];
	struct ax_config_pos pos; /* of the mapping; 0:0 when absent */
};

/* One suite's entry while it is read. */
struct suite_ld {
	struct sweep base, *cases;
	int n_cases;
};

static struct ld *ld_of(struct ax_yaml *y) { return y->ctx; }

/* ---- measure ---------------------------------------------------------- */

static const char *const mode_names[] = {"batch", "cold", NULL};

#define MAT(f) AX_YAT(struct ax_config_measure, f)
static const struct ax_ykey measure_keys[] = {
    {"min_samples", AX_Y_INT, 0, MAT(min_samples), .lo = 1, .hi = 1000000,
     .bit = AX_MEASURE_MIN_SAMPLES},
    {"max_samples", AX_Y_INT, 0, MAT(max_samples), .lo = 1, .hi = 1000000,
     .bit = AX_MEASURE_MAX_SAMPLES},
    {"max_noise_pct", AX_Y_NUMBER, AX_YK_MIN_OPEN, MAT(max_noise_pct), .dlo = 0,
     .dhi = 100, .bit = AX_MEASURE_MAX_NOISE},
    {"min_time_s", AX_Y_NUMBER, 0, MAT(min_time_s), .dlo = 0, .dhi = 86400,
     .bit = AX_MEASURE_MIN_TIME},
    {"max_time_s", AX_Y_NUMBER, AX_YK_MIN_OPEN, MAT(max_time_s), .dlo = 0,
     .dhi = 86400, .bit = AX_MEASURE_MAX_TIME},
    {"timeout_s", AX_Y_NUMBER, AX_YK_MIN_OPEN, MAT(timeout_s), .dlo = 0,
     .dhi = 86400, .bit = AX_MEASURE_TIMEOUT},
    {"warmup", AX_Y_INT, 0, MAT(warmup), .lo = 0, .hi = 10000,
     .bit = AX_MEASURE_WARMUP},
    {"mode", AX_Y_CHOICE, 0, MAT(mode), .choices = mode_names,
     .want = "batch or cold", .bit = AX_MEASURE_MODE},
};
#define N_MEASURE ((int)(sizeof(measure_keys) / sizeof(measure_keys[0])))

static int check_measure_order(struct ax_yaml *y, yaml_node_t *map, void *obj)
{
	const struct ax_config_measure *m = obj;
	unsigned both = AX_MEASURE_MIN_SAMPLES | AX_MEASURE_MAX_SAMPLES;
	if ((m->set & both) == both && m->min_samples > m->max_samples)
		return ax_yaml_fail(y, ax_yaml_get(y, map, "max_samples"),
				    "measure.max_samples (%d) must be at "
				    "least min_samples (%d)",
				    m->max_samples, m->min_samples);
	both = AX_MEASURE_MIN_TIME | AX_MEASURE_MAX_TIME;
	if ((m->set & both) == both && m->min_time_s > m->max_time_s)
		return ax_yaml_fail(y, ax_yaml_get(y, map, "max_time_s"),
				    "measure.max_time_s (%g) must be at "
				    "least min_time_s (%g)",
				    m->max_time_s, m->min_time_s);
	return 0;
}

static const struct ax_ymap measure_map = {
    .where = "measure",
    .want = "a mapping of settings",
    AX_YKEYS(measure_keys),
    .flags = AX_YM_PATH,
    .label_off = -1,
    .set_off = offsetof(struct ax_config_measure, set),
    .done = check_measure_order,
};

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

/* One `name: value` of a `params` or `cases` mapping into the sweep. */
static int value_pair(struct ax_yaml *y, yaml_node_t *key, yaml_node_t *v,
		      void *obj)
{
	struct ld *ld = ld_of(y);
	const struct ax_config_schema *sc = ld->sc;
	struct sweep *out = obj;
	int i = find_param(sc, ax_yaml_text(key));
	if (i < 0) {
		char known[512] = "";
		for (int j = 0; j < sc->n_params; j++)
			ax_yaml_join(known, sizeof(known), sc->params[j].name);
		return ax_yaml_fail(y, key,
				    "unknown parameter "
				    "'%s' for suite %s; known parameters: %s",
				    ax_yaml_text(key), sc->suite, known);
	}
	return load_value(ld, sc, &sc->params[i], v, &out->v[i], &out->n[i]);
}

static const struct ax_ymap values_map = {
    .want = "a mapping of parameter names to values",
    AX_YNONE,
    .pair = value_pair,
};

/* A mapping of parameter names to values (`params` or one case). */
static int load_values(struct ax_yaml *y, yaml_node_t *map, const char *where,
		       struct sweep *out)
{
	char place[128];
	snprintf(place, sizeof(place), "suite %s %s", ld_of(y)->sc->suite,
		 where);
	out->pos.line = (int)map->start_mark.line + 1;
	out->pos.col = (int)map->start_mark.column + 1;
	return ax_ywalk_map(y, map, &values_map, out, place);
}

static int load_params(struct ax_yaml *y, yaml_node_t *n, void *obj,
		       const char *what)
{
	return load_values(y, n, "params", &((struct suite_ld *)obj)->base);
}

static void *case_slot(struct ax_yaml *y, void *obj, int i, int count)
{
	struct suite_ld *s = obj;
	if (i >= 0)
		return &s->cases[i];
	s->cases = calloc((size_t)count, sizeof(*s->cases));
	s->n_cases = s->cases ? count : 0;
	return s->cases;
}

static int load_case(struct ax_yaml *y, yaml_node_t *n, void *obj,
		     const char *what)
{
	return load_values(y, n, "case", obj);
}

static const struct ax_ykey cases_key = {
    "cases",
    AX_Y_SEQ,
    AX_YK_NONEMPTY,
    .want = "a sequence of mappings (- {name: value, ...})",
    .empty = "list at least one case or drop the key",
    .slot = case_slot,
    .fn = load_case,
};

/* cases: its messages name the suite ("suite gemm: cases ..."). */
static int load_cases(struct ax_yaml *y, yaml_node_t *n, void *obj,
		      const char *what)
{
	char name[96];
	snprintf(name, sizeof(name), "suite %s: cases", ld_of(y)->sc->suite);
	return ax_ywalk_value(y, n, &cases_key, name, obj);
}

static const struct ax_ykey suite_keys[] = {
    {"params", AX_Y_ANY, AX_YK_NULLABLE, .fn = load_params},
    {"cases", AX_Y_ANY, 0, .fn = load_cases},
};
static const struct ax_ymap suite_map = {AX_YKEYS(suite_keys), AX_YNONE};

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

static int load_suite(struct ld *ld, yaml_node_t *key, yaml_node_t *v,
		      struct ax_config_suite *out)
{
	const struct ax_config_schema *sc = ld->sc;
	struct suite_ld s = {0};
	int rc = 0;
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
	if (!ax_yaml_is_null(v))
		rc = ax_ywalk_map(&ld->y, v, &suite_map, &s, where);
	if (!rc)
		rc = expand(ld, sc, key, &s.base, s.cases, s.n_cases, out);
	sweep_free(&s.base);
	for (int i = 0; i < s.n_cases; i++)
		sweep_free(&s.cases[i]);
	free(s.cases);
	return rc;
}

static void known_suites(const struct ld *ld, char *buf, size_t len)
{
	buf[0] = '\0';
	for (int i = 0; i < ld->n_schema; i++)
		ax_yaml_join(buf, len, ld->schema[i].suite);
}

static int suite_pair(struct ax_yaml *y, yaml_node_t *k, yaml_node_t *v,
		      void *obj)
{
	struct ld *ld = ld_of(y);
	ld->sc = NULL;
	for (int i = 0; i < ld->n_schema && !ld->sc; i++)
		if (!strcmp(ld->schema[i].suite, ax_yaml_text(k)))
			ld->sc = &ld->schema[i];
	if (!ld->sc) {
		char known[512];
		known_suites(ld, known, sizeof(known));
		return ax_yaml_fail(y, k,
				    "unknown suite '%s'; known suites: %s",
				    ax_yaml_text(k), known);
	}
	return load_suite(ld, k, v, &ld->cfg->suites[ld->cfg->n_suites++]);
}

static const struct ax_ymap suites_map = {AX_YNONE, .pair = suite_pair};

static int load_suites(struct ax_yaml *y, yaml_node_t *map, void *obj,
		       const char *what)
{
	struct ld *ld = ld_of(y);
	char known[512];
	known_suites(ld, known, sizeof(known));
	if (map->type != YAML_MAPPING_NODE ||
	    map->data.mapping.pairs.start == map->data.mapping.pairs.top)
		return ax_yaml_fail(y, map,
				    "suites must be a mapping with at least "
				    "one of: %s (got %s)",
				    known,
				    map->type == YAML_MAPPING_NODE
					? "an empty mapping"
					: ax_yaml_kind(map));
	size_t n = (size_t)(map->data.mapping.pairs.top -
			    map->data.mapping.pairs.start);
	ld->cfg->suites = calloc(n, sizeof(*ld->cfg->suites));
	if (!ld->cfg->suites)
		return AX_ENOMEM;
	return ax_ywalk_map(y, map, &suites_map, ld->cfg, "suites");
}

/* ---- the document ----------------------------------------------------- */

/* "configs/quick.yaml" -> "quick", when the profile has no name. */
static int default_name(struct ax_yaml *y, yaml_node_t *root, void *obj,
			const char *what)
{
	struct ax_config *cfg = obj;
	if (cfg->name)
		return 0;
	const char *base = strrchr(y->name, '/');
	base = base ? base + 1 : y->name;
	size_t len = strcspn(base, ".");
	if (!len)
		len = strlen(base);
	cfg->name = strndup(base, len);
	return cfg->name ? 0 : AX_ENOMEM;
}

static int need_suites(struct ax_yaml *y, yaml_node_t *root, void *obj,
		       const char *what)
{
	char known[512];
	if (ax_yaml_get(y, root, "suites"))
		return 0;
	known_suites(ld_of(y), known, sizeof(known));
	return ax_yaml_fail(y, root,
			    "the profile has no 'suites' key; add "
			    "suites: with at least one of: %s",
			    known);
}

static const char *const schema_names[] = {AX_CONFIG_SCHEMA, NULL};

#define CAT(f) AX_YAT(struct ax_config, f)
static const struct ax_ykey profile_keys[] = {
    {"schema", AX_Y_CHOICE, AX_YK_REQUIRED, .choices = schema_names,
     .want = AX_CONFIG_SCHEMA, .hint = "this axbench reads only that version",
     .missing = "the profile has no 'schema' key; start it with "
		"'schema: " AX_CONFIG_SCHEMA "'"},
    {"name", AX_Y_STRING, 0, CAT(name)},
    {NULL, AX_Y_CHECK, .fn = default_name},
    {"description", AX_Y_STRING, AX_YK_NULLABLE, CAT(description)},
    {"device", AX_Y_STRING, AX_YK_NULLABLE, CAT(device)},
    {"measure", AX_Y_MAP, AX_YK_NULLABLE, CAT(measure), .map = &measure_map},
    {"suites", AX_Y_ANY, 0, .fn = load_suites},
    {NULL, AX_Y_CHECK, .fn = need_suites},
};
static const struct ax_ymap profile_map = {
    .where = "the profile", AX_YKEYS(profile_keys), AX_YNONE};

static int load_root(struct ax_yaml *y, yaml_node_t *root)
{
	if (!root)
		return ax_errf(y->err, y->errlen, AX_ECONFIG,
			       "%s: the profile is empty; start it with "
			       "'schema: %s'",
			       y->name, AX_CONFIG_SCHEMA);
	if (root->type != YAML_MAPPING_NODE)
		return ax_yaml_fail(y, root,
				    "a profile is a mapping (schema, name, "
				    "measure, suites ...), not %s",
				    ax_yaml_kind(root));
	return ax_ywalk_map(y, root, &profile_map, ld_of(y)->cfg, NULL);
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

int ax_config_parse(const char *text, size_t len, const char *name,
		    const struct ax_config_schema *schema, int n_schema,
		    struct ax_config **out, char *err, size_t errlen)
{
	struct ld ld = {.y = {.name = name, .err = err, .errlen = errlen},
			.schema = schema,
			.n_schema = n_schema};
	ld.y.ctx = &ld;
	*out = NULL;
	int rc = check_schema_table(name, schema, n_schema, err, errlen);
	if (rc)
		return rc;
	ld.cfg = calloc(1, sizeof(*ld.cfg));
	if (!ld.cfg || !(ld.cfg->path = strdup(name))) {
		ax_config_destroy(ld.cfg);
		return AX_ENOMEM;
	}
	rc = ax_yaml_parse(&ld.y, text, len, "profile", 5, load_root);
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
	for (int i = 0; o && i < N_MEASURE; i++) {
		const struct ax_ykey *f = &measure_keys[i];
		const char *p = (const char *)m + f->off;
		json_t *v;
		if (!(m->set & f->bit))
			continue;
		if (f->type == AX_Y_INT)
			v = json_integer(*(const int *)p);
		else if (f->type == AX_Y_NUMBER)
			v = json_real(*(const double *)p);
		else
			v = json_string(
			    mode_names[*(const enum ax_config_mode *)p]);
		json_object_set_new(o, f->name, v);
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
