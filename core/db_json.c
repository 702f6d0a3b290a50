/* core/db_json.c - the documents of docs/JSON.md, made from the rows of
 * core/db_rows.h: the one place that turns what the store holds into
 * JSON (`--json`, the report's embedded data, export). */
#include "core/db_rows.h"

#include "core/db.h"
#include "core/error.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* A figure: JSON has no NaN, so what was not measured is null. */
static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* An integer that may not be stored. */
static json_t *opt_int(int64_t v)
{
	return v == AX_DB_NONE ? json_null() : json_integer(v);
}

/* An id: 0 names nothing. */
static json_t *id(int64_t v) { return v ? json_integer(v) : json_null(); }

/* A text that may not be stored. */
static json_t *text(const char *s) { return s ? json_string(s) : json_null(); }

/* A stored document, or null. */
static json_t *doc(const json_t *d)
{
	return d ? json_deep_copy(d) : json_null();
}

static json_t *param_json(const struct ax_db_param *p)
{
	switch (p->type) {
	case AX_DB_VALUE_INT:
		return json_integer(p->i);
	case AX_DB_VALUE_REAL:
		return json_real(p->num);
	case AX_DB_VALUE_TEXT:
		return text(p->text);
	case AX_DB_VALUE_BOOL:
		return json_boolean(p->num != 0);
	case AX_DB_VALUE_OTHER:
		return json_loads(p->text ? p->text : "null", JSON_DECODE_ANY,
				  NULL);
	default:
		return json_null();
	}
}

json_t *ax_db_params_json(const struct ax_db_params *p, const json_t *stored)
{
	/* What was stored but is not an object has no typed view. */
	if (!json_is_object(stored))
		return doc(stored);
	json_t *o = json_object();
	for (int i = 0; o && i < p->n; i++)
		json_object_set_new(o, p->v[i].name, param_json(&p->v[i]));
	return o;
}

json_t *ax_db_device_json(const struct ax_db_device_row *d)
{
	if (!d->id)
		return json_null();
	json_t *o = json_object();
	json_object_set_new(o, "id", json_integer(d->id));
	json_object_set_new(o, "fingerprint", text(d->fingerprint));
	json_object_set_new(o, "name", text(d->name));
	json_object_set_new(o, "vendor", text(d->vendor));
	json_object_set_new(o, "type", text(d->type));
	json_object_set_new(o, "driver_name", text(d->driver_name));
	json_object_set_new(o, "driver_info", text(d->driver_info));
	json_object_set_new(o, "api_version_packed",
			    opt_int(d->api_version_packed));
	json_object_set_new(o, "pci_bus_id", text(d->pci_bus_id));
	json_object_set_new(o, "device_uuid", text(d->device_uuid));
	json_object_set_new(o, "vendor_id", opt_int(d->vendor_id));
	json_object_set_new(o, "device_id", opt_int(d->device_id));
	json_object_set_new(o, "driver_version_packed",
			    opt_int(d->driver_version_packed));
	json_object_set_new(o, "driver_version", text(d->driver_version));
	json_object_set_new(o, "api_version", text(d->api_version));
	return o;
}

static json_t *host_json(const struct ax_db_host_row *h)
{
	if (!h->id)
		return json_null();
	return json_pack("{s:I, s:o, s:o, s:o}", "id", (json_int_t)h->id,
			 "hostname", text(h->hostname), "cpu_model",
			 text(h->cpu_model), "cores", opt_int(h->cores));
}

static json_t *power_json(const struct ax_db_power_row *p)
{
	if (!p->present)
		return json_null();
	json_t *o = json_object();
	json_object_set_new(o, "source", text(p->source));
	json_object_set_new(o, "reason", text(p->reason));
	json_object_set_new(o, "readings", opt_int(p->readings));
#define POWER_FIGURE(name) json_object_set_new(o, #name, num(p->name));
	AX_DB_POWER_FIGURES(POWER_FIGURE)
#undef POWER_FIGURE
	json_object_set_new(o, "perf_per_w_unit", text(p->perf_per_w_unit));
	json_object_set_new(o, "throttled",
			    p->throttled == AX_DB_NONE
				? json_null()
				: json_boolean(p->throttled));
	json_object_set_new(o, "throttle_evidence", text(p->throttle_evidence));
	json_object_set_new(o, "series_id", id(p->series_id));
	return o;
}

/* The CPU baseline, with the load it was taken under and whether it was
 * fit to reuse against the noise target of the result's run. */
static json_t *cpu_json(const struct ax_db_cpu_row *c, double noise_target)
{
	if (!c->id)
		return json_null();
	json_t *o = json_object();
	json_object_set_new(o, "id", json_integer(c->id));
	json_object_set_new(o, "library", text(c->library));
	json_object_set_new(o, "version", text(c->version));
	json_object_set_new(o, "corename", text(c->corename));
	json_object_set_new(o, "threads", opt_int(c->threads));
	json_object_set_new(o, "note", text(c->note));
	json_object_set_new(o, "median", num(c->median));
	json_object_set_new(o, "ci_lo", num(c->ci_lo));
	json_object_set_new(o, "ci_hi", num(c->ci_hi));
	json_object_set_new(o, "n", opt_int(c->n));
	json_object_set_new(o, "unit", text(c->unit));
	json_object_set_new(o, "created_at", text(c->created_at));
	json_object_set_new(o, "rel_noise", num(c->rel_noise));
	json_object_set_new(o, "stop_reason", text(c->stop_reason));
	json_object_set_new(o, "load_1m", num(c->load_1m));
	json_object_set_new(o, "busy_other", num(c->busy_other));
	json_object_set_new(o, "online_cpus", opt_int(c->online_cpus));
	json_object_set_new(
	    o, "fit",
	    json_string(ax_db_cpu_fit_name(ax_db_cpu_fit(c, noise_target))));
	return o;
}

/* The stored extra, with the byte counts a reader filled in from the
 * suite's hooks (app/suite_doc.h) where the row did not store them. */
static json_t *extra_json(const struct ax_db_result_row *r)
{
	json_t *o = doc(r->extra_doc);
	const struct {
		const char *key;
		double v;
	} filled[] = {{"bytes", r->bytes}, {"input_bytes", r->input_bytes}};
	for (int k = 0; k < 2; k++) {
		if (!isfinite(filled[k].v) ||
		    (json_is_object(o) && json_object_get(o, filled[k].key)))
			continue;
		if (!json_is_object(o)) {
			json_decref(o);
			o = json_object();
		}
		json_object_set_new(o, filled[k].key, json_real(filled[k].v));
	}
	return o;
}

static void result_texts(json_t *o, const struct ax_db_result_row *r)
{
	json_object_set_new(o, "id", json_integer(r->id));
	json_object_set_new(o, "uuid", text(r->uuid));
	json_object_set_new(o, "run_id", json_integer(r->run_id));
	json_object_set_new(o, "run_uuid", text(r->run_uuid));
	json_object_set_new(o, "started_at", text(r->started_at));
	json_object_set_new(o, "suite", text(r->suite));
	json_object_set_new(o, "case", text(r->case_label));
	json_object_set_new(o, "params",
			    ax_db_params_json(&r->params, r->params_doc));
	json_object_set_new(o, "params_hash", text(r->params_hash));
	json_object_set_new(o, "shader_hash", text(r->shader_hash));
	json_object_set_new(o, "unit", text(r->unit));
	json_object_set_new(o, "higher_is_better",
			    json_boolean(r->higher_is_better));
	json_object_set_new(o, "work", num(r->work));
	json_object_set_new(o, "timing_mode", text(r->timing_mode));
	json_object_set_new(o, "stop_reason", text(r->stop_reason));
	json_object_set_new(o, "status", text(r->status));
	json_object_set_new(o, "error", text(r->error));
	json_object_set_new(o, "n", opt_int(r->n));
}

static void result_summary(json_t *o, const struct ax_db_result_row *r)
{
	const struct {
		const char *key;
		double v;
	} figures[] = {
	    {"median", r->median},
	    {"min", r->min},
	    {"max", r->max},
	    {"mean", r->mean},
	    {"stddev", r->stddev},
	    {"q1", r->q1},
	    {"q3", r->q3},
	    {"mad", r->mad},
	    {"ci_lo", r->ci_lo},
	    {"ci_hi", r->ci_hi},
	    {"rel_noise", r->rel_noise},
	};
	for (size_t k = 0; k < sizeof(figures) / sizeof(figures[0]); k++)
		json_object_set_new(o, figures[k].key, num(figures[k].v));
}

static json_t *values_json(const double *v, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; a && i < n; i++)
		json_array_append_new(a, num(v[i]));
	return a;
}

json_t *ax_db_result_json(const struct ax_db_result_row *r)
{
	json_t *o = json_object();
	if (!o)
		return NULL;
	result_texts(o, r);
	result_summary(o, r);
	json_object_set_new(o, "extra", extra_json(r));
	json_object_set_new(o, "run_status", text(r->run_status));
	json_object_set_new(o, "speedup_vs_cpu", num(r->speedup_vs_cpu));
	json_object_set_new(o, "noise_target", num(r->noise_target));
	json_object_set_new(o, "run_label", text(r->run_label));
	json_object_set_new(o, "device", ax_db_device_json(&r->device));
	json_object_set_new(o, "host", host_json(&r->host));
	json_object_set_new(o, "power", power_json(&r->power));
	json_object_set_new(o, "cpu", cpu_json(&r->cpu, r->noise_target));
	if (r->samples) {
		json_object_set_new(o, "samples",
				    values_json(r->samples, r->n_samples));
		json_object_set_new(o, "seconds",
				    values_json(r->seconds, r->n_samples));
	}
	if (r->source)
		json_object_set_new(o, "source", json_string(r->source));
	return o;
}

json_t *ax_db_results_json(const struct ax_db_results *l)
{
	json_t *a = json_array();
	for (size_t i = 0; a && i < l->n; i++)
		if (json_array_append_new(a, ax_db_result_json(l->v[i]))) {
			json_decref(a);
			return NULL;
		}
	return a;
}

static json_t *argv_json(const struct ax_db_run_row *r)
{
	return doc(r->argv_doc);
}

json_t *ax_db_run_json(const struct ax_db_run_row *r)
{
	json_t *o = json_object();
	if (!o)
		return NULL;
	json_object_set_new(o, "id", json_integer(r->id));
	json_object_set_new(o, "uuid", text(r->uuid));
	json_object_set_new(o, "started_at", text(r->started_at));
	json_object_set_new(o, "finished_at", text(r->finished_at));
	json_object_set_new(o, "status", text(r->status));
	json_object_set_new(o, "kind", text(r->kind));
	json_object_set_new(o, "profile", text(r->profile));
	json_object_set_new(o, "label", text(r->label));
	json_object_set_new(o, "axbench_version", text(r->axbench_version));
	json_object_set_new(o, "git_sha", text(r->git_sha));
	json_object_set_new(o, "argv", argv_json(r));
	json_object_set_new(o, "n_results", opt_int(r->n_results));
	json_object_set_new(o, "device", ax_db_device_json(&r->device));
	json_object_set_new(o, "host", host_json(&r->host));
	if (r->source)
		json_object_set_new(o, "source", json_string(r->source));
	return o;
}

json_t *ax_db_runs_json(const struct ax_db_runs *l)
{
	json_t *a = json_array();
	for (size_t i = 0; a && i < l->n; i++)
		json_array_append_new(a, ax_db_run_json(l->v[i]));
	return a;
}

static json_t *trial_json(const struct ax_db_trial_row *t)
{
	json_t *o = json_object();
	json_object_set_new(o, "id", json_integer(t->id));
	json_object_set_new(o, "index", opt_int(t->index));
	json_object_set_new(o, "params",
			    ax_db_params_json(&t->params, t->params_doc));
	json_object_set_new(o, "status", text(t->status));
	json_object_set_new(o, "value", num(t->value));
	json_object_set_new(o, "seconds", num(t->seconds));
	json_object_set_new(o, "compile_ms", num(t->compile_ms));
	json_object_set_new(o, "result_id", id(t->result_id));
	json_object_set_new(o, "error", text(t->error));
	json_object_set_new(o, "created_at", text(t->created_at));
	json_object_set_new(o, "objective_value", num(t->objective_value));
	return o;
}

/* JSON integers are signed 64-bit: seeds past that go as text. */
static json_t *seed_json(const struct ax_db_session_row *s)
{
	char buf[24];
	if (!s->has_seed)
		return json_null();
	if (s->seed <= INT64_MAX)
		return json_integer((json_int_t)s->seed);
	snprintf(buf, sizeof(buf), "%" PRIu64, s->seed);
	return json_string(buf);
}

static void session_head(json_t *o, const struct ax_db_session_row *s)
{
	json_object_set_new(o, "id", json_integer(s->id));
	json_object_set_new(o, "uuid", text(s->uuid));
	json_object_set_new(o, "suite", text(s->suite));
	json_object_set_new(o, "strategy", text(s->strategy));
	json_object_set_new(o, "objective", text(s->objective));
	json_object_set_new(o, "seed", seed_json(s));
	json_object_set_new(o, "budget", opt_int(s->budget));
	json_object_set_new(o, "stop_reason", text(s->stop_reason));
	json_object_set_new(o, "best_trial_id", id(s->best_trial_id));
	json_object_set_new(o, "started_at", text(s->started_at));
	json_object_set_new(o, "finished_at", text(s->finished_at));
	json_object_set_new(o, "shape",
			    ax_db_params_json(&s->shape, s->shape_doc));
	json_object_set_new(o, "space", doc(s->space_doc));
	json_object_set_new(o, "stop_rule", text(s->stop_rule));
	json_object_set_new(o, "prior_session_id", id(s->prior_session_id));
	json_object_set_new(o, "mode", text(s->mode));
	json_object_set_new(o, "front", doc(s->front_doc));
}

json_t *ax_db_session_json(const struct ax_db_session_row *s)
{
	json_t *o = json_object(), *trials = json_array();
	if (!o || !trials) {
		json_decref(o);
		json_decref(trials);
		return NULL;
	}
	session_head(o, s);
	json_object_set_new(o, "device", ax_db_device_json(&s->device));
	for (size_t i = 0; i < s->n_trials; i++)
		json_array_append_new(trials, trial_json(&s->trials[i]));
	json_object_set_new(o, "trials", trials);
	if (s->source)
		json_object_set_new(o, "source", json_string(s->source));
	return o;
}

json_t *ax_db_sessions_json(const struct ax_db_sessions *l)
{
	json_t *a = json_array();
	for (size_t i = 0; a && i < l->n; i++)
		json_array_append_new(a, ax_db_session_json(l->v[i]));
	return a;
}

json_t *ax_db_series_json(const struct ax_db_series_row *s)
{
	json_t *o = json_object();
	if (!o)
		return NULL;
	json_object_set_new(o, "id", json_integer(s->id));
	json_object_set_new(o, "kind", text(s->kind));
	json_object_set_new(o, "source", text(s->source));
	json_object_set_new(o, "interval_s", num(s->interval_s));
	json_object_set_new(o, "timed_from_s", num(s->timed_from_s));
	json_object_set_new(o, "t", values_json(s->t, s->n));
#define SERIES_VALUES(name)                                                    \
	json_object_set_new(o, #name, values_json(s->name, s->n));
	AX_TEL_STORED(SERIES_VALUES)
#undef SERIES_VALUES
	return o;
}

json_t *ax_db_baselines_json(const struct ax_db_baselines *l)
{
	json_t *a = json_array();
	for (size_t i = 0; a && i < l->n; i++) {
		const struct ax_db_baseline_row *b = &l->v[i];
		json_t *ids = json_array();
		for (int k = 0; k < b->n_run_ids; k++)
			json_array_append_new(ids, json_integer(b->run_ids[k]));
		json_array_append_new(
		    a, json_pack("{s:o, s:o, s:o, s:o}", "name", text(b->name),
				 "run_id", id(b->run_id), "created_at",
				 text(b->created_at), "run_ids", ids));
	}
	return a;
}

/* ---- the listings as documents (core/db.h) ------------------------------ */

/* The documents of the listings, for what writes them whole.  Every read
 * goes through the rows, so both views always agree. */

static int json_result(void *ctx, struct ax_db_result_row **r)
{
	struct {
		ax_db_result_fn fn;
		void *ctx;
	} *each = ctx;
	json_t *o = ax_db_result_json(*r);
	if (!o)
		return AX_ENOMEM;
	int rc = each->fn(each->ctx, o);
	json_decref(o);
	return rc;
}

int ax_db_results_each(struct ax_db *db, const struct ax_db_filter *f,
		       ax_db_result_fn fn, void *ctx)
{
	struct {
		ax_db_result_fn fn;
		void *ctx;
	} each = {fn, ctx};
	return ax_db_result_rows_each(db, f, json_result, &each);
}

static int append_result(void *arr, json_t *r)
{
	return json_array_append(arr, r) ? AX_ENOMEM : 0;
}

int ax_db_results(struct ax_db *db, const struct ax_db_filter *f, json_t **out)
{
	json_t *arr = json_array();
	*out = NULL;
	if (!arr)
		return AX_ENOMEM;
	int rc = ax_db_results_each(db, f, append_result, arr);
	if (rc) {
		json_decref(arr);
		return rc;
	}
	*out = arr;
	return 0;
}

int ax_db_runs(struct ax_db *db, const struct ax_db_filter *f, json_t **out)
{
	struct ax_db_runs l;
	int rc = ax_db_run_rows(db, f, &l);
	*out = rc ? NULL : ax_db_runs_json(&l);
	ax_db_runs_free(&l);
	return rc ? rc : *out ? 0 : AX_ENOMEM;
}

int ax_db_sessions(struct ax_db *db, const struct ax_db_filter *f, json_t **out)
{
	struct ax_db_sessions l;
	int rc = ax_db_session_rows(db, f, &l);
	*out = rc ? NULL : ax_db_sessions_json(&l);
	ax_db_sessions_free(&l);
	return rc ? rc : *out ? 0 : AX_ENOMEM;
}

int ax_db_session_get(struct ax_db *db, int64_t session_id, json_t **out)
{
	struct ax_db_session_row *s;
	int rc = ax_db_session_row_get(db, session_id, &s);
	*out = rc ? NULL : ax_db_session_json(s);
	ax_db_session_row_free(s);
	return rc ? rc : *out ? 0 : AX_ENOMEM;
}

int ax_db_result_series(struct ax_db *db, int64_t result_id, json_t **out)
{
	struct ax_db_series_row *s;
	int rc = ax_db_series_row_get(db, result_id, &s);
	*out = rc ? NULL : ax_db_series_json(s);
	ax_db_series_row_free(s);
	return rc ? rc : *out ? 0 : AX_ENOMEM;
}

int ax_db_baselines(struct ax_db *db, json_t **out)
{
	struct ax_db_baselines l;
	int rc = ax_db_baseline_rows(db, &l);
	*out = rc ? NULL : ax_db_baselines_json(&l);
	ax_db_baselines_free(&l);
	return rc ? rc : *out ? 0 : AX_ENOMEM;
}
