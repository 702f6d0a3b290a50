/*
 * reports/export.c - the tuned-config document (see reports/export.h):
 * group stored results by device, suite and shape, keep the best, set it
 * beside the default knobs; and read such a document back.
 */
#include "reports/export.h"

#include "core/error.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum pick { PICK_SHAPE, PICK_TUNED, PICK_ALL };

/* The parameters of p selected by which, in table order, as JSON values
 * the way canonical JSON writes them (numbers, or names). */
static json_t *point_json(const struct ax_params *p, enum pick which)
{
	json_t *o = json_object();
	for (int i = 0; o && i < p->n; i++) {
		const struct ax_param_def *d = &p->defs[i];
		bool tunable = d->flags & AX_PARAM_TUNABLE;
		if ((which == PICK_SHAPE && tunable) ||
		    (which == PICK_TUNED && !tunable))
			continue;
		char text[64];
		ax_param_format(d, p->v[i], text, sizeof(text));
		json_object_set_new(o, d->name,
				    d->type == AX_PT_INT ? json_integer(p->v[i])
							 : json_string(text));
	}
	return o;
}

static bool is_default(const struct ax_params *p)
{
	for (int i = 0; i < p->n; i++)
		if ((p->defs[i].flags & AX_PARAM_TUNABLE) &&
		    p->v[i] != p->defs[i].def)
			return false;
	return true;
}

static const struct ax_config_schema *
find_schema(const struct ax_config_schema *schema, int n, const char *suite)
{
	for (int i = 0; suite && i < n; i++)
		if (!strcmp(schema[i].suite, suite))
			return &schema[i];
	return NULL;
}

static const char *str_of(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* Parse a JSON params object against a suite's table. */
static int parse_point(const struct ax_config_schema *sc, const json_t *obj,
		       struct ax_params *p, char *err, size_t errlen)
{
	if (!json_is_object(obj))
		return ax_errf(err, errlen, AX_EINVAL,
			       "params must be an object");
	char *text = json_dumps(obj, JSON_COMPACT);
	if (!text)
		return AX_ENOMEM;
	int rc =
	    ax_params_from_json(p, sc->params, sc->n_params, text, err, errlen);
	free(text);
	return rc;
}

/* ---- building --------------------------------------------------------- */

struct group {
	const struct ax_config_schema *sc;
	const char *fp;	    /* borrowed from results */
	const json_t *best; /* best "ok" result */
	const json_t *def;  /* newest result at default knobs, or NULL */
	struct ax_params best_p;
	json_t *shape; /* owned */
};

struct builder {
	const json_t *results, *sessions;
	const struct ax_config_schema *schema;
	int n_schema;
	struct group *g;
	int n, cap;
	json_t *index;	 /* "fp|suite|shape" -> group number */
	json_t *skipped; /* array */
};

static void skip(struct builder *b, const json_t *r, const char *why)
{
	json_array_append_new(
	    b->skipped, json_pack("{s:O?, s:O?, s:s}", "result_id",
				  json_object_get(r, "id"), "suite",
				  json_object_get(r, "suite"), "reason", why));
}

static bool better(const json_t *a, const json_t *b)
{
	double va = json_number_value(json_object_get(a, "median"));
	double vb = json_number_value(json_object_get(b, "median"));
	bool hib = json_is_true(json_object_get(a, "higher_is_better"));
	return hib ? va > vb : va < vb;
}

static struct group *group_for(struct builder *b,
			       const struct ax_config_schema *sc,
			       const char *fp, const struct ax_params *p)
{
	json_t *shape = point_json(p, PICK_SHAPE);
	char *shape_text = json_dumps(shape, JSON_SORT_KEYS | JSON_COMPACT);
	char key[2048];
	snprintf(key, sizeof(key), "%s|%s|%s", fp, sc->suite,
		 shape_text ? shape_text : "");
	free(shape_text);
	json_t *at = json_object_get(b->index, key);
	if (at) {
		json_decref(shape);
		return &b->g[json_integer_value(at)];
	}
	if (b->n == b->cap) {
		int cap = b->cap ? 2 * b->cap : 16;
		struct group *grown = realloc(b->g, sizeof(*grown) * cap);
		if (!grown) {
			json_decref(shape);
			return NULL;
		}
		b->g = grown;
		b->cap = cap;
	}
	struct group *g = &b->g[b->n];
	memset(g, 0, sizeof(*g));
	g->sc = sc;
	g->fp = fp;
	g->shape = shape;
	json_object_set_new(b->index, key, json_integer(b->n++));
	return g;
}

static int add_result(struct builder *b, const json_t *r)
{
	char why[512];
	struct ax_params p;
	const char *suite = str_of(r, "suite");
	const char *fp = str_of(json_object_get(r, "device"), "fingerprint");
	const struct ax_config_schema *sc =
	    find_schema(b->schema, b->n_schema, suite);
	const char *status = str_of(r, "status");
	if (!status || strcmp(status, "ok"))
		return 0; /* failed results are never a speed */
	if (!sc || !fp) {
		skip(b, r,
		     sc ? "no device fingerprint"
			: "suite unknown to this axbench");
		return 0;
	}
	if (!json_is_number(json_object_get(r, "median"))) {
		skip(b, r, "no median");
		return 0;
	}
	if (parse_point(sc, json_object_get(r, "params"), &p, why,
			sizeof(why))) {
		skip(b, r, why);
		return 0;
	}
	struct group *g = group_for(b, sc, fp, &p);
	if (!g)
		return AX_ENOMEM;
	if (!g->best || better(r, g->best)) {
		g->best = r;
		g->best_p = p;
	}
	if (is_default(&p))
		g->def = r; /* results come oldest first: keep the newest */
	return 0;
}

/* The id of the newest tuning session on this device and suite with an
 * "ok" trial at the best point, or JSON null. */
static json_t *session_of(const struct builder *b, const struct group *g)
{
	json_t *id = NULL;
	size_t i;
	json_t *s;
	json_array_foreach(b->sessions, i, s)
	{
		json_t *dev = json_object_get(s, "device");
		const char *fp = json_is_string(dev)
				     ? json_string_value(dev)
				     : str_of(dev, "fingerprint");
		const char *suite = str_of(s, "suite");
		if (!fp || !suite || strcmp(fp, g->fp) ||
		    strcmp(suite, g->sc->suite))
			continue;
		size_t j;
		json_t *t;
		json_array_foreach(json_object_get(s, "trials"), j, t)
		{
			const char *st = str_of(t, "status");
			if (st && !strcmp(st, "ok") &&
			    json_equal(json_object_get(t, "params"),
				       json_object_get(g->best, "params")))
				id = json_object_get(s, "id");
		}
	}
	return id ? json_incref(id) : json_null();
}

static void set_speedup(json_t *e, const struct group *g)
{
	double best = json_number_value(json_object_get(g->best, "median"));
	bool hib = json_is_true(json_object_get(g->best, "higher_is_better"));
	if (!g->def) {
		json_object_set_new(e, "default_value", json_null());
		json_object_set_new(e, "speedup", json_null());
		json_object_set_new(e, "speedup_reason",
				    json_string("the default parameters were "
						"not measured at this shape "
						"on this device"));
		return;
	}
	double def = json_number_value(json_object_get(g->def, "median"));
	json_object_set(e, "default_value", json_object_get(g->def, "median"));
	if (def > 0 && best > 0) {
		json_object_set_new(e, "speedup",
				    json_real(hib ? best / def : def / best));
	} else {
		json_object_set_new(e, "speedup", json_null());
		json_object_set_new(e, "speedup_reason",
				    json_string("a zero figure has no ratio"));
	}
}

static json_t *entry_json(const struct builder *b, const struct group *g)
{
	const json_t *r = g->best;
	json_t *e = json_pack(
	    "{s:O, s:o, s:o, s:O, s:O?, s:O, s:n, s:n, s:O?, s:O?, s:O?, "
	    "s:O?, s:O?}",
	    "shape", g->shape, "tuned", point_json(&g->best_p, PICK_TUNED),
	    "params", point_json(&g->best_p, PICK_ALL), "value",
	    json_object_get(r, "median"), "unit", json_object_get(r, "unit"),
	    "higher_is_better", json_object_get(r, "higher_is_better"),
	    "default_value", "speedup", "result_id", json_object_get(r, "id"),
	    "result_uuid", json_object_get(r, "uuid"), "run_id",
	    json_object_get(r, "run_id"), "run_uuid",
	    json_object_get(r, "run_uuid"), "date",
	    json_object_get(r, "started_at"));
	if (!e)
		return NULL;
	set_speedup(e, g);
	json_object_set_new(e, "session_id", session_of(b, g));
	return e;
}

/* The device part of the document, from the first result seen on it. */
static json_t *device_json(const json_t *dev)
{
	static const char *const keys[] = {
	    "fingerprint", "name",	  "vendor",
	    "type",	   "vendor_id",	  "device_id",
	    "driver_name", "driver_info", "driver_version",
	    "api_version", "device_uuid", "pci_bus_id",
	    NULL};
	json_t *o = json_object();
	for (int i = 0; o && keys[i]; i++) {
		json_t *v = json_object_get(dev, keys[i]);
		if (v || !strcmp(keys[i], "pci_bus_id") ||
		    !strcmp(keys[i], "device_uuid"))
			json_object_set(o, keys[i], v ? v : json_null());
	}
	json_object_set_new(o, "suites", json_object());
	return o;
}

static json_t *device_for(json_t *devices, json_t *by_fp, const json_t *r)
{
	const json_t *dev = json_object_get(r, "device");
	const char *fp = str_of(dev, "fingerprint");
	json_t *d = json_object_get(by_fp, fp);
	if (!d) {
		d = device_json(dev);
		json_array_append_new(devices, d);
		json_object_set(by_fp, fp, d);
	}
	return d;
}

static int assemble(struct builder *b, const char *generator, json_t **out)
{
	json_t *devices = json_array(), *by_fp = json_object();
	int rc = 0;
	for (int i = 0; i < b->n && !rc; i++) {
		struct group *g = &b->g[i];
		json_t *suites = json_object_get(
		    device_for(devices, by_fp, g->best), "suites");
		json_t *list = json_object_get(suites, g->sc->suite);
		if (!list) {
			list = json_array();
			json_object_set_new(suites, g->sc->suite, list);
		}
		json_t *e = entry_json(b, g);
		rc = e ? json_array_append_new(list, e) : AX_ENOMEM;
	}
	json_decref(by_fp);
	*out =
	    rc ? NULL
	       : json_pack("{s:s, s:s, s:o, s:O}", "schema", AX_EXPORT_SCHEMA,
			   "generated_by", generator ? generator : "axbench",
			   "devices", devices, "skipped", b->skipped);
	if (rc)
		json_decref(devices);
	return rc ? rc : (*out ? 0 : AX_ENOMEM);
}

int ax_export_build(const json_t *results, const json_t *sessions,
		    const struct ax_config_schema *schema, int n_schema,
		    const char *generator, json_t **out, char *err,
		    size_t errlen)
{
	struct builder b = {.results = results,
			    .sessions = sessions,
			    .schema = schema,
			    .n_schema = n_schema};
	size_t i;
	json_t *r;
	int rc = 0;
	*out = NULL;
	if (!json_is_array(results))
		return ax_errf(err, errlen, AX_EINVAL,
			       "export: results must be a JSON array");
	b.index = json_object();
	b.skipped = json_array();
	json_array_foreach(results, i, r)
	{
		if ((rc = add_result(&b, r)))
			break;
	}
	if (!rc)
		rc = assemble(&b, generator, out);
	for (int k = 0; k < b.n; k++)
		json_decref(b.g[k].shape);
	free(b.g);
	json_decref(b.index);
	json_decref(b.skipped);
	return rc;
}

/* ---- reading back ----------------------------------------------------- */

static int bad(char *err, size_t errlen, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int bad(char *err, size_t errlen, const char *name, const char *fmt, ...)
{
	char msg[768];
	va_list ap;
	va_start(ap, fmt);
	ax_vfmt_fit(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return ax_errf(err, errlen, AX_ECONFIG, "%s: %s", name, msg);
}

static int add_entry(struct ax_tuned *t, const char *fp,
		     const struct ax_config_schema *sc, const json_t *e,
		     const char *where, const char *name, char *err,
		     size_t errlen)
{
	char msg[512];
	struct ax_tuned_entry *x = &t->entries[t->n];
	if (!json_is_object(e))
		return bad(err, errlen, name,
			   "%s must be a mapping with "
			   "params, value and unit",
			   where);
	if (parse_point(sc, json_object_get(e, "params"), &x->params, msg,
			sizeof(msg)))
		return bad(err, errlen, name, "%s.params: %s", where, msg);
	x->suite = sc;
	x->value = json_number_value(json_object_get(e, "value"));
	x->fingerprint = strdup(fp);
	x->unit = strdup(str_of(e, "unit") ? str_of(e, "unit") : "");
	t->n++;
	return x->fingerprint && x->unit ? 0 : AX_ENOMEM;
}

static int add_suites(struct ax_tuned *t, const json_t *dev, int di,
		      const struct ax_config_schema *schema, int n_schema,
		      const char *name, char *err, size_t errlen)
{
	const char *fp = str_of(dev, "fingerprint");
	json_t *suites = json_object_get(dev, "suites");
	const char *suite;
	json_t *list;
	if (!fp || !json_is_object(suites))
		return bad(err, errlen, name,
			   "devices[%d] needs a fingerprint "
			   "string and a suites mapping",
			   di);
	json_object_foreach(suites, suite, list)
	{
		const struct ax_config_schema *sc =
		    find_schema(schema, n_schema, suite);
		if (!sc)
			return bad(err, errlen, name,
				   "devices[%d].suites: "
				   "unknown suite '%s'",
				   di, suite);
		if (!json_is_array(list))
			return bad(err, errlen, name,
				   "devices[%d].suites.%s "
				   "must be a list",
				   di, suite);
		struct ax_tuned_entry *grown =
		    realloc(t->entries,
			    sizeof(*grown) * (t->n + json_array_size(list)));
		if (!grown)
			return AX_ENOMEM;
		t->entries = grown;
		size_t i;
		json_t *e;
		json_array_foreach(list, i, e)
		{
			char where[160];
			snprintf(where, sizeof(where),
				 "devices[%d].suites.%s[%zu]", di, suite, i);
			int rc =
			    add_entry(t, fp, sc, e, where, name, err, errlen);
			if (rc)
				return rc;
		}
	}
	return 0;
}

int ax_export_tuned_from_json(const json_t *doc, const char *name,
			      const struct ax_config_schema *schema,
			      int n_schema, struct ax_tuned **out, char *err,
			      size_t errlen)
{
	const char *version = str_of(doc, "schema");
	json_t *devices = json_object_get(doc, "devices");
	*out = NULL;
	if (!version || strcmp(version, AX_EXPORT_SCHEMA))
		return bad(err, errlen, name,
			   "schema must be %s (got %s); "
			   "give a file written by axbench export",
			   AX_EXPORT_SCHEMA, version ? version : "none");
	if (!json_is_array(devices))
		return bad(err, errlen, name, "devices must be a list");
	struct ax_tuned *t = calloc(1, sizeof(*t));
	if (!t)
		return AX_ENOMEM;
	size_t i;
	json_t *dev;
	int rc = 0;
	json_array_foreach(devices, i, dev)
	{
		rc = add_suites(t, dev, (int)i, schema, n_schema, name, err,
				errlen);
		if (rc)
			break;
	}
	if (rc) {
		ax_export_tuned_destroy(t);
		return rc;
	}
	*out = t;
	return 0;
}

int ax_export_load_tuned(const char *path,
			 const struct ax_config_schema *schema, int n_schema,
			 struct ax_tuned **out, char *err, size_t errlen)
{
	json_t *doc;
	*out = NULL;
	int rc = ax_config_load_yaml_json(path, &doc, err, errlen);
	if (rc)
		return rc;
	rc = ax_export_tuned_from_json(doc, path, schema, n_schema, out, err,
				       errlen);
	json_decref(doc);
	return rc;
}

void ax_export_tuned_destroy(struct ax_tuned *t)
{
	if (!t)
		return;
	for (int i = 0; i < t->n; i++) {
		free(t->entries[i].fingerprint);
		free(t->entries[i].unit);
	}
	free(t->entries);
	free(t);
}

static bool same_fixed(const struct ax_params *a, const struct ax_params *b)
{
	if (a->defs != b->defs || a->n != b->n)
		return false;
	for (int i = 0; i < a->n; i++)
		if (!(a->defs[i].flags & AX_PARAM_TUNABLE) &&
		    a->v[i] != b->v[i])
			return false;
	return true;
}

const struct ax_tuned_entry *ax_export_tuned_apply(const struct ax_tuned *t,
						   const char *fingerprint,
						   const char *suite,
						   struct ax_params *p)
{
	for (int i = 0; t && i < t->n; i++) {
		const struct ax_tuned_entry *e = &t->entries[i];
		if (strcmp(e->suite->suite, suite) ||
		    (fingerprint && strcmp(e->fingerprint, fingerprint)) ||
		    !same_fixed(&e->params, p))
			continue;
		for (int k = 0; k < p->n; k++)
			if (p->defs[k].flags & AX_PARAM_TUNABLE)
				p->v[k] = e->params.v[k];
		return e;
	}
	return NULL;
}
