/*
 * reports/export.c - the tuned-config document (see reports/export.h):
 * group stored results by device, suite and shape, keep the best, set it
 * beside the default knobs; and read such a document back.
 */
#include "reports/export.h"

#include "core/error.h"
#include "reports/compare.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum pick { PICK_SHAPE, PICK_TUNED, PICK_ALL };

/* The parameters of p selected by which, in table order, as JSON values:
 * numbers, booleans, or names. */
static json_t *point_json(const struct ax_params *p, enum pick which)
{
	json_t *o = json_object();
	for (int i = 0; o && i < p->n; i++) {
		const struct ax_param_def *d = &p->defs[i];
		bool tunable = d->flags & AX_PARAM_TUNABLE;
		if ((which == PICK_SHAPE && tunable) ||
		    (which == PICK_TUNED && !tunable))
			continue;
		/* booleans as YAML / JSON booleans, not "true" strings */
		json_object_set_new(o, d->name, ax_param_json(d, p->v[i]));
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

/* ---- choosing --------------------------------------------------------- */

/*
 * Why a point is exported: a tuned point only when it was measured beside
 * the defaults (same run, same device, same shape, both sampled with the
 * full settings) and `compare`'s statistics call it faster beyond the
 * minimum effect.  Anything else exports the defaults, with the reason.
 */

struct member {
	const json_t *r; /* an "ok" result (borrowed) */
	struct ax_params p;
};

struct group {
	const struct ax_config_schema *sc;
	const char *fp; /* borrowed from results */
	json_t *shape;	/* owned */
	struct member *m;
	int n, cap;
};

/* What a group's points were tuned for (tune --objective). */
enum objective { OBJ_TIME, OBJ_ENERGY, OBJ_EDP };
static const char *const objective_names[] = {"time", "energy", "edp"};

/* The outcome for one group. */
struct choice {
	enum objective objective;
	const struct member *tuned;  /* NULL: the defaults are exported */
	const struct member *def;    /* the defaults it was compared with, or
					the newest defaults measured */
	struct ax_compare_stat stat; /* of tuned, else of the closest try */
	char reason[768];	     /* room for a verdict's reason and more */
};

struct builder {
	const json_t *results, *sessions;
	const struct ax_config_schema *schema;
	int n_schema;
	const struct ax_export_opts *opts;
	struct ax_compare_opts cmp;
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

static int add_member(struct group *g, const json_t *r,
		      const struct ax_params *p)
{
	if (g->n == g->cap) {
		int cap = g->cap ? 2 * g->cap : 8;
		struct member *grown = realloc(g->m, sizeof(*grown) * cap);
		if (!grown)
			return AX_ENOMEM;
		g->m = grown;
		g->cap = cap;
	}
	g->m[g->n++] = (struct member){r, *p};
	return 0;
}

/* One --shapes filter: the suite, and every shape value it names. */
static bool shape_matches(const struct ax_export_shape *f,
			  const struct ax_config_schema *sc,
			  const struct ax_params *p)
{
	if (f->suite != sc)
		return false;
	for (int i = 0; i < p->n; i++)
		if (f->named[i] && f->want.v[i] != p->v[i])
			return false;
	return true;
}

static bool wanted(const struct builder *b, const struct ax_config_schema *sc,
		   const struct ax_params *p)
{
	if (!b->opts || b->opts->n_shapes == 0)
		return true;
	for (int i = 0; i < b->opts->n_shapes; i++)
		if (shape_matches(&b->opts->shapes[i], sc, p))
			return true;
	return false;
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
	if (!wanted(b, sc, &p))
		return 0;
	struct group *g = group_for(b, sc, fp, &p);
	return g ? add_member(g, r, &p) : AX_ENOMEM;
}

/* Tuning trials are sampled with lighter settings than everything else
 * (app/tune_live.c), so they are never set against the defaults. */
static bool fully_sampled(const json_t *r)
{
	const char *role = str_of(json_object_get(r, "extra"), "role");
	return !role || strcmp(role, "trial");
}

static json_int_t run_of(const json_t *r)
{
	return json_integer_value(json_object_get(r, "run_id"));
}

/* The newest fully sampled defaults in the run of c, or NULL. */
static const struct member *defaults_beside(const struct group *g,
					    const struct member *c)
{
	const struct member *d = NULL;
	for (int i = 0; i < g->n; i++)
		if (is_default(&g->m[i].p) && fully_sampled(g->m[i].r) &&
		    run_of(g->m[i].r) == run_of(c->r))
			d = &g->m[i]; /* oldest first: keep the newest */
	return d;
}

static const struct member *newest_defaults(const struct group *g)
{
	const struct member *d = NULL;
	for (int i = 0; i < g->n; i++)
		if (is_default(&g->m[i].p))
			d = &g->m[i];
	return d;
}

/* Raw sample values of a result (malloc'd; *n of them). */
static double *samples_of(const json_t *r, int *n)
{
	const json_t *arr = json_object_get(r, "samples");
	size_t k = json_array_size(arr);
	double *x = malloc(sizeof(double) * (k + 1));
	*n = 0;
	for (size_t i = 0; x && i < k; i++)
		if (json_is_number(json_array_get(arr, i)))
			x[(*n)++] = json_number_value(json_array_get(arr, i));
	return x;
}

/* compare's verdict for candidate c against defaults d. */
static int compare_pair(const struct builder *b, const struct group *g,
			const struct member *d, const struct member *c,
			struct ax_compare_stat *st)
{
	int na, nb;
	double *a = samples_of(d->r, &na), *x = samples_of(c->r, &nb);
	char err[256];
	bool hib = json_is_true(json_object_get(c->r, "higher_is_better"));
	int rc = a && x ? ax_compare_samples(
			      a, na, x, nb, hib,
			      ax_compare_threshold_for(&b->cmp, g->sc->suite),
			      &b->cmp, st, err, sizeof(err))
			: AX_ENOMEM;
	free(a);
	free(x);
	return rc;
}

static void explain_defaults(const struct group *g, struct choice *ch,
			     int n_tried, int n_paired,
			     const struct member *closest)
{
	if (n_tried == 0)
		snprintf(ch->reason, sizeof(ch->reason),
			 "only the default parameters were measured at this "
			 "shape");
	else if (!newest_defaults(g))
		snprintf(ch->reason, sizeof(ch->reason),
			 "the default parameters were never measured at this "
			 "shape on this device, so no point can be shown to "
			 "beat them (axbench tune measures them beside its "
			 "best points)");
	else if (n_paired == 0)
		snprintf(ch->reason, sizeof(ch->reason),
			 "no tuned point was measured in the same run as the "
			 "defaults with full sampling (tuning trials do not "
			 "count); re-time both with axbench tune, or axbench "
			 "run -p NAME=DEFAULT,VALUE");
	else
		snprintf(ch->reason, sizeof(ch->reason),
			 "no tuned point beat the defaults beyond noise; the "
			 "closest (result %lld, run %lld) was %s: %s",
			 (long long)json_integer_value(
			     json_object_get(closest->r, "id")),
			 (long long)run_of(closest->r),
			 ax_compare_verdict_name(ch->stat.verdict),
			 ch->stat.reason);
}

/* The session a result was measured by, from the exported sessions. */
static const json_t *session_by_id(const struct builder *b, const json_t *r)
{
	const json_t *id =
	    json_object_get(json_object_get(r, "extra"), "tune_session");
	size_t i;
	json_t *s;
	if (!json_is_integer(id))
		return NULL;
	json_array_foreach(
	    b->sessions, i,
	    s) if (json_equal(json_object_get(s, "id"), (json_t *)id)) return s;
	return NULL;
}

/* A group is chosen by the objective of the newest tuning session that
 * measured one of its points (time when none did: `run` measures time). */
static enum objective group_objective(const struct builder *b,
				      const struct group *g)
{
	enum objective o = OBJ_TIME;
	for (int i = 0; i < g->n; i++) {
		const char *name =
		    str_of(session_by_id(b, g->m[i].r), "objective");
		for (int k = 0; name && k < 3; k++)
			if (!strcmp(name, objective_names[k]))
				o = (enum objective)k;
	}
	return o;
}

/* The figure an energy objective minimises for a result: J, or J*s (the
 * time per repetition is energy over mean power); NAN when not measured. */
static double energy_figure(const json_t *r, enum objective o)
{
	const json_t *p = json_object_get(r, "power");
	double e = json_number_value(json_object_get(p, "energy_rep_j"));
	double w = json_number_value(json_object_get(p, "mean_w"));
	if (!json_is_number(json_object_get(p, "energy_rep_j")))
		return NAN;
	return o == OBJ_EDP ? (w > 0 ? e * e / w : NAN) : e;
}

/*
 * An energy objective: a tuned point wins when it was measured beside the
 * defaults (same run, full sampling) and its figure is below theirs by
 * compare's energy margin; of the winners, the lowest.  One energy figure
 * per result leaves no sample test to make (reports/compare.h).
 */
static void choose_by_energy(const struct group *g, struct choice *ch)
{
	double best = NAN;
	int n_paired = 0;
	for (int i = 0; i < g->n; i++) {
		const struct member *c = &g->m[i], *d;
		if (is_default(&c->p) || !fully_sampled(c->r) ||
		    !(d = defaults_beside(g, c)))
			continue;
		struct ax_compare_energy e;
		ax_compare_energy_figures(energy_figure(d->r, ch->objective),
					  energy_figure(c->r, ch->objective),
					  &e);
		n_paired += e.verdict != AX_ENERGY_NONE;
		if (e.verdict == AX_ENERGY_LESS && !(e.cand_j >= best)) {
			best = e.cand_j;
			ch->tuned = c;
			ch->def = d;
		}
	}
	if (ch->tuned)
		return;
	ch->def = newest_defaults(g);
	snprintf(ch->reason, sizeof(ch->reason), "%s",
		 n_paired
		     ? "no tuned point used less energy than the defaults "
		       "measured beside it, beyond the 5 % margin"
		     : "no tuned point has an energy figure beside the "
		       "defaults' in the same run (tune --objective energy "
		       "re-times both where the device has a sensor)");
}

static int choose(const struct builder *b, const struct group *g,
		  struct choice *ch)
{
	const struct member *closest = NULL;
	int n_tried = 0, n_paired = 0;
	memset(ch, 0, sizeof(*ch));
	ch->objective = group_objective(b, g);
	if (ch->objective != OBJ_TIME) {
		choose_by_energy(g, ch);
		return 0;
	}
	for (int i = 0; i < g->n; i++) {
		const struct member *c = &g->m[i], *d;
		struct ax_compare_stat st;
		if (is_default(&c->p))
			continue; /* the defaults never beat themselves */
		n_tried++;
		if (!fully_sampled(c->r) || !(d = defaults_beside(g, c)))
			continue;
		n_paired++;
		int rc = compare_pair(b, g, d, c, &st);
		if (rc)
			return rc;
		bool wins = ax_compare_wins(
		    &st,
		    json_is_true(json_object_get(c->r, "higher_is_better")));
		if (wins &&
		    (!ch->tuned || st.improvement > ch->stat.improvement)) {
			ch->tuned = c;
			ch->def = d;
			ch->stat = st;
		}
		if (!ch->tuned &&
		    (!closest || !(st.improvement <= ch->stat.improvement))) {
			closest = c;
			ch->stat = st;
		}
	}
	if (!ch->tuned) {
		ch->def = newest_defaults(g);
		explain_defaults(g, ch, n_tried, n_paired, closest);
	}
	return 0;
}

/* ---- the document ----------------------------------------------------- */

/* The id of the newest tuning session on this device and suite with an
 * "ok" trial at the exported point, or JSON null. */
static json_t *session_of(const struct builder *b, const struct group *g,
			  const json_t *r)
{
	json_t *own =
	    json_object_get(json_object_get(r, "extra"), "tune_session");
	if (json_is_integer(own))
		return json_incref(own); /* measured by that session */
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
				       json_object_get(r, "params")))
				id = json_object_get(s, "id");
		}
	}
	return id ? json_incref(id) : json_null();
}

/* The statistics behind the choice, as `compare` reports them. */
static json_t *evidence_json(const struct choice *ch)
{
	const struct ax_compare_stat *st = &ch->stat;
	json_t *e = json_pack(
	    "{s:s, s:f, s:O?, s:O?, s:O?}", "verdict",
	    ax_compare_verdict_name(st->verdict), "threshold", st->threshold,
	    "run_id", json_object_get(ch->def->r, "run_id"),
	    "default_result_id", json_object_get(ch->def->r, "id"),
	    "tuned_result_id", json_object_get(ch->tuned->r, "id"));
	/* NaN (no test was made) is not JSON: leave such figures out */
	const double figs[] = {st->p_value, st->improvement, st->impr_lo,
			       st->impr_hi};
	static const char *const names[] = {"p_value", "improvement",
					    "improvement_lo", "improvement_hi"};
	for (int i = 0; e && i < 4; i++)
		if (isfinite(figs[i]))
			json_object_set_new(e, names[i], json_real(figs[i]));
	return e;
}

static void set_speedup(json_t *e, const struct choice *ch, bool hib)
{
	double def = json_number_value(json_object_get(ch->def->r, "median"));
	double best =
	    json_number_value(json_object_get(ch->tuned->r, "median"));
	if (def > 0 && best > 0) {
		json_object_set_new(e, "speedup",
				    json_real(hib ? best / def : def / best));
	} else {
		json_object_set_new(e, "speedup", json_null());
		json_object_set_new(e, "speedup_reason",
				    json_string("a zero figure has no ratio"));
	}
}

static json_t *real_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* The objective the choice was made for and, where measured, the energy
 * per repetition of the exported point and of the defaults. */
static void set_objective(json_t *e, const struct choice *ch, const json_t *r)
{
	json_object_set_new(e, "objective",
			    json_string(objective_names[ch->objective]));
	json_object_set_new(e, "energy_rep_j",
			    real_or_null(energy_figure(r, OBJ_ENERGY)));
	json_object_set_new(
	    e, "default_energy_rep_j",
	    real_or_null(ch->def ? energy_figure(ch->def->r, OBJ_ENERGY)
				 : NAN));
}

/* shape + tunables at their defaults */
static struct ax_params defaults_at(const struct group *g)
{
	struct ax_params p = g->m[0].p;
	for (int i = 0; i < p.n; i++)
		if (p.defs[i].flags & AX_PARAM_TUNABLE)
			p.v[i] = p.defs[i].def;
	return p;
}

static json_t *entry_json(const struct builder *b, const struct group *g,
			  const struct choice *ch)
{
	const json_t *any = g->m[0].r;
	const json_t *r = ch->tuned ? ch->tuned->r
			  : ch->def ? ch->def->r
				    : NULL;
	struct ax_params p = ch->tuned ? ch->tuned->p : defaults_at(g);
	bool hib = json_is_true(json_object_get(any, "higher_is_better"));
	json_t *e = json_pack(
	    "{s:O, s:o, s:o, s:s, s:O?, s:O?, s:b, s:O?, s:O?, s:O?, s:O?, "
	    "s:O?, s:O?}",
	    "shape", g->shape, "tuned", point_json(&p, PICK_TUNED), "params",
	    point_json(&p, PICK_ALL), "choice",
	    ch->tuned ? "tuned" : "defaults", "value",
	    json_object_get(r, "median"), "unit", json_object_get(any, "unit"),
	    "higher_is_better", hib, "default_value",
	    ch->def ? json_object_get(ch->def->r, "median") : NULL, "result_id",
	    json_object_get(r, "id"), "result_uuid", json_object_get(r, "uuid"),
	    "run_id", json_object_get(r, "run_id"), "run_uuid",
	    json_object_get(r, "run_uuid"), "date",
	    json_object_get(r, "started_at"));
	if (!e)
		return NULL;
	set_objective(e, ch, r);
	if (ch->tuned && ch->objective != OBJ_TIME) {
		set_speedup(e, ch, hib);
		json_object_set_new(
		    e, "reason",
		    json_string("measured beside the defaults "
				"in the same run, with less "
				"energy beyond the 5 % margin"));
		json_object_set_new(e, "evidence", json_null());
	} else if (ch->tuned) {
		set_speedup(e, ch, hib);
		json_object_set_new(e, "reason",
				    json_string("measured beside the defaults "
						"in the same run and faster "
						"beyond noise"));
		json_object_set_new(e, "evidence", evidence_json(ch));
	} else {
		/* identical parameters are never a speed-up */
		json_object_set_new(e, "speedup", json_null());
		json_object_set_new(e, "speedup_reason",
				    json_string(ch->reason));
		json_object_set_new(e, "reason", json_string(ch->reason));
	}
	json_object_set_new(e, "session_id",
			    r && ch->tuned ? session_of(b, g, r) : json_null());
	return e;
}

/* The device part of the document, from the first result seen on it. */
static json_t *device_json(const json_t *dev)
{
	/* Versions as results read them: "X.Y.Z" text (null where not
	 * recorded) beside the packed integers the device row stores. */
	static const char *const keys[] = {"fingerprint",
					   "name",
					   "vendor",
					   "type",
					   "vendor_id",
					   "device_id",
					   "driver_name",
					   "driver_info",
					   "driver_version",
					   "driver_version_packed",
					   "api_version",
					   "api_version_packed",
					   "device_uuid",
					   "pci_bus_id",
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
		struct choice ch;
		json_t *suites = json_object_get(
		    device_for(devices, by_fp, g->m[0].r), "suites");
		json_t *list = json_object_get(suites, g->sc->suite);
		if (!list) {
			list = json_array();
			json_object_set_new(suites, g->sc->suite, list);
		}
		if ((rc = choose(b, g, &ch)))
			break;
		json_t *e = entry_json(b, g, &ch);
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
		    const struct ax_export_opts *opts, const char *generator,
		    json_t **out, char *err, size_t errlen)
{
	struct builder b = {.results = results,
			    .sessions = sessions,
			    .schema = schema,
			    .n_schema = n_schema,
			    .opts = opts};
	size_t i;
	json_t *r;
	int rc = 0;
	*out = NULL;
	if (!json_is_array(results))
		return ax_errf(err, errlen, AX_EINVAL,
			       "export: results must be a JSON array");
	if (opts && opts->compare)
		b.cmp = *opts->compare;
	else
		ax_compare_opts_init(&b.cmp);
	b.index = json_object();
	b.skipped = json_array();
	json_array_foreach(results, i, r)
	{
		if ((rc = add_result(&b, r)))
			break;
	}
	if (!rc)
		rc = assemble(&b, generator, out);
	for (int k = 0; k < b.n; k++) {
		json_decref(b.g[k].shape);
		free(b.g[k].m);
	}
	free(b.g);
	json_decref(b.index);
	json_decref(b.skipped);
	return rc;
}

/* ---- --shapes ----------------------------------------------------------- */

static int shape_term(struct ax_export_shape *f, const char *term,
		      const char *text, char *err, size_t errlen)
{
	const char *eq = strchr(term, '=');
	char name[64], why[512];
	if (!eq || eq == term || (size_t)(eq - term) >= sizeof(name))
		return ax_errf(err, errlen, AX_EINVAL,
			       "--shapes %s: '%s' is not NAME=VALUE (e.g. "
			       "--shapes gemm:m=256,n=256)",
			       text, term);
	memcpy(name, term, (size_t)(eq - term));
	name[eq - term] = '\0';
	int i = ax_params_find(&f->want, name);
	if (i >= 0 && (f->want.defs[i].flags & AX_PARAM_TUNABLE))
		return ax_errf(err, errlen, AX_EINVAL,
			       "--shapes %s: %s is a tunable parameter, not "
			       "part of a shape; name shape parameters only "
			       "(axbench suites %s lists them)",
			       text, name, f->suite->suite);
	if (ax_params_set(&f->want, name, eq + 1, why, sizeof(why)))
		return ax_errf(err, errlen, AX_EINVAL, "--shapes %s: %s", text,
			       why);
	f->named[ax_params_find(&f->want, name)] = true;
	return 0;
}

int ax_export_shape_parse(const char *text,
			  const struct ax_config_schema *schema, int n_schema,
			  struct ax_export_shape *out, char *err, size_t errlen)
{
	char buf[1024];
	memset(out, 0, sizeof(*out));
	if (snprintf(buf, sizeof(buf), "%s", text) >= (int)sizeof(buf))
		return ax_errf(err, errlen, AX_EINVAL,
			       "--shapes: filter longer than %zu characters",
			       sizeof(buf) - 1);
	char *colon = strchr(buf, ':');
	if (colon)
		*colon = '\0';
	out->suite = find_schema(schema, n_schema, buf);
	if (!out->suite)
		return ax_errf(err, errlen, AX_EINVAL,
			       "--shapes %s: unknown suite '%s'; the filter "
			       "is SUITE[:NAME=VALUE,...] (axbench suites "
			       "lists the suites)",
			       text, buf);
	ax_params_init(&out->want, out->suite->params, out->suite->n_params);
	char *save = NULL;
	for (char *t = colon ? strtok_r(colon + 1, ",", &save) : NULL; t;
	     t = strtok_r(NULL, ",", &save)) {
		int rc = shape_term(out, t, text, err, errlen);
		if (rc)
			return rc;
	}
	return 0;
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

/* An entry says whether its point beat the defaults; a document without
 * that word predates measured choices and may hold points that are
 * slower than the defaults, so it is refused rather than trusted. */
static int check_choice(const json_t *e, const struct ax_params *p,
			const char *where, const char *name, char *err,
			size_t errlen)
{
	const char *choice = str_of(e, "choice");
	if (!choice)
		return bad(err, errlen, name,
			   "%s has no choice (tuned or defaults): it was "
			   "written by an axbench that exported points "
			   "without measuring them beside the defaults; "
			   "write it again with `axbench export`",
			   where);
	if (strcmp(choice, "tuned") && strcmp(choice, "defaults"))
		return bad(err, errlen, name,
			   "%s.choice must be tuned or defaults (got '%s')",
			   where, choice);
	if (!strcmp(choice, "defaults") && !is_default(p))
		return bad(err, errlen, name,
			   "%s: choice is defaults, but its params are not "
			   "the default tunable values; set them back or "
			   "export again",
			   where);
	return 0;
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
	int rc = check_choice(e, &x->params, where, name, err, errlen);
	if (rc)
		return rc;
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
