/* reports/html_collect.c - what `report` keeps of a stream of results
 * (reports/html.h, struct ax_html_collect): each system's newest result
 * of each case in full, and every run's figure per case as a point of
 * that case's series.  A year of history then costs the report a few
 * numbers per run and case, not every sample ever stored. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* asprintf */
#endif
#include "core/error.h"
#include "reports/html_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ax_html_collect_init(struct ax_html_collect *k,
			 enum ax_html_label_by label_by, bool include_tune)
{
	memset(k, 0, sizeof(*k));
	k->label_by = label_by;
	k->include_tune = include_tune;
	k->index = json_object();
	k->runs = json_object();
	k->series_index = json_object();
	k->left_out = json_object();
	if (!k->index || !k->runs || !k->series_index || !k->left_out) {
		ax_html_collect_release(k);
		return AX_ENOMEM;
	}
	return 0;
}

void ax_html_collect_release(struct ax_html_collect *k)
{
	ax_db_results_free(&k->results);
	json_decref(k->index);
	json_decref(k->runs);
	json_decref(k->series_index);
	json_decref(k->left_out);
	for (size_t i = 0; i < k->n_series; i++) {
		struct ax_html_series *s = &k->series[i];
		free(s->suite);
		free(s->label);
		free(s->device);
		free(s->unit);
		free(s->pts);
	}
	free(k->series);
	memset(k, 0, sizeof(*k));
}

bool ax_html_kind_shown(const char *kind, bool include_tune, bool all_kinds)
{
	if (!kind || !strcmp(kind, "run") || all_kinds)
		return true;
	return include_tune && !strcmp(kind, "tune");
}

/* "source\x1frun id": a run as k->runs and k->left_out key it. */
static void run_key(const char *source, int64_t run_id, char *buf, size_t len)
{
	snprintf(buf, len, "%s\x1f%lld", ax_html_str(source),
		 (long long)run_id);
}

int ax_html_collect_runs(struct ax_html_collect *k,
			 const struct ax_db_runs *runs, bool all_kinds)
{
	k->all_kinds = all_kinds;
	for (size_t i = 0; runs && i < runs->n; i++) {
		const struct ax_db_run_row *r = runs->v[i];
		char key[600];
		if (ax_html_kind_shown(r->kind, k->include_tune, all_kinds))
			continue;
		run_key(r->source, r->id, key, sizeof(key));
		if (json_object_set_new(k->left_out, key, json_string(r->kind)))
			return AX_ENOMEM;
	}
	return 0;
}

bool ax_html_collect_left_out(const struct ax_html_collect *k,
			      const struct ax_db_result_row *r)
{
	char key[600];
	if (!k || !json_object_size(k->left_out))
		return false;
	run_key(r->source, r->run_id, key, sizeof(key));
	return json_object_get(k->left_out, key) != NULL;
}

/* Is r a result the report shows nowhere: of a run left out, and no
 * tuning session's (the Tuning section reads those)? */
static bool dropped(const struct ax_html_collect *k,
		    const struct ax_db_result_row *r)
{
	return !ax_html_is_tune(r) && ax_html_collect_left_out(k, r);
}

/* The case of r as html_systems.c's build_cases keys it (suite, unit and
 * parameters: their hash, else the parameters themselves), and finer:
 * the charts pick their newest from what is kept. */
static void case_key(const struct ax_db_result_row *r, char *buf, size_t len)
{
	const char *hash = ax_html_str(r->params_hash);
	char *params = NULL;
	if (!*hash) {
		json_t *doc = ax_db_params_json(&r->params, r->params_doc);
		params = json_dumps(doc, JSON_SORT_KEYS | JSON_COMPACT |
					     JSON_ENCODE_ANY);
		json_decref(doc);
	}
	/* A sustained run's result is kept beside a short run's of the
	 * same case: the efficiency section shows its throttling; and so
	 * is each phase of a split job (run --split), which the devices
	 * section sets side by side. */
	const char *phase = ax_db_extra_text(r, "split.phase");
	snprintf(buf, len, "%s\x1f%s\x1f%s%s%s%s%s", ax_html_str(r->suite),
		 ax_html_str(r->unit), ax_html_is_tune(r) ? "tune:" : "",
		 r->sustained ? "sustained:" : "", phase ? phase : "",
		 phase ? ":" : "",
		 *hash	  ? hash
		 : params ? params
			  : "");
	free(params);
}

/* Keep *r when it is the newest of its system and case: the newer run
 * wins, failed or not, as in the report's case charts. */
static int keep_newest(struct ax_html_collect *k, struct ax_db_result_row **r)
{
	char sys[2048], cas[1024], key[3100];
	struct ax_html_of of = ax_html_of_result(*r);
	ax_html_system_key(k->label_by, ax_html_str(of.label), &of, sys,
			   sizeof(sys));
	case_key(*r, cas, sizeof(cas));
	snprintf(key, sizeof(key), "%s\x1e%s", sys, cas);
	const json_t *at = json_object_get(k->index, key);
	if (!at) {
		if (json_object_set_new(
			k->index, key,
			json_integer((json_int_t)k->results.n)) ||
		    ax_db_results_push(&k->results, *r))
			return AX_ENOMEM;
		*r = NULL;
		return 0;
	}
	struct ax_db_result_row **old = &k->results.v[json_integer_value(at)];
	if (strcmp(ax_html_str((*r)->started_at),
		   ax_html_str((*old)->started_at)) >= 0) {
		ax_db_result_row_free(*old);
		*old = *r;
		*r = NULL;
	}
	return 0;
}

/* Which machine a history is of: the device on its host. */
static char *history_machine(const struct ax_db_result_row *r)
{
	const char *host = ax_html_str(r->host.hostname);
	char *s = NULL;
	if (asprintf(&s, "%s on %s", ax_html_str(r->device.name),
		     *host ? host : "an unnamed host") < 0)
		return NULL;
	return s;
}

static struct ax_html_series *series_of(struct ax_html_collect *k,
					const struct ax_db_result_row *r)
{
	char key[3400], sys[2048];
	/* One machine's history: its device and host (a system of
	 * --label-by host and device together), then suite and parameter
	 * hash.  Two databases of one machine make one history (a nightly
	 * database each, say); two machines with one device model (two
	 * lavapipe hosts share a device fingerprint) never one line.  A
	 * run's label names the run, not the machine: it does not split a
	 * history. */
	struct ax_html_of of = ax_html_of_result(r);
	ax_html_system_key(AX_HTML_BY_LABEL, "", &of, sys, sizeof(sys));
	snprintf(key, sizeof(key), "%s\x1f%s\x1f%s", sys, ax_html_str(r->suite),
		 ax_html_str(r->params_hash));
	const json_t *at = json_object_get(k->series_index, key);
	if (at)
		return &k->series[json_integer_value(at)];
	if (k->n_series == k->cap_series) {
		size_t cap = k->cap_series ? 2 * k->cap_series : 16;
		struct ax_html_series *grown =
		    realloc(k->series, cap * sizeof(*grown));
		if (!grown)
			return NULL;
		k->series = grown;
		k->cap_series = cap;
	}
	struct ax_html_series *s = &k->series[k->n_series];
	memset(s, 0, sizeof(*s));
	s->suite = strdup(ax_html_str(r->suite));
	s->label = ax_html_case_label(r);
	s->device = history_machine(r);
	s->unit = strdup(ax_html_str(r->unit));
	if (!s->suite || !s->label || !s->device || !s->unit ||
	    json_object_set_new(k->series_index, key,
				json_integer((json_int_t)k->n_series))) {
		free(s->suite);
		free(s->label);
		free(s->device);
		free(s->unit);
		return NULL;
	}
	k->n_series++;
	return s;
}

/* r's run's figure of its case.  A run that measured a case more than
 * once (rounds) gives its last result, as the case charts show. */
static int add_point(struct ax_html_collect *k,
		     const struct ax_db_result_row *r, int source)
{
	struct ax_html_series *s = series_of(k, r);
	if (!s)
		return AX_ENOMEM;
	int64_t run = r->run_id;
	struct ax_html_point *p = s->n ? &s->pts[s->n - 1] : NULL;
	if (!p || p->run_id != run || p->source != source) {
		if (s->n == s->cap) {
			size_t cap = s->cap ? 2 * s->cap : 8;
			struct ax_html_point *grown =
			    realloc(s->pts, cap * sizeof(*grown));
			if (!grown)
				return AX_ENOMEM;
			s->pts = grown;
			s->cap = cap;
		}
		p = &s->pts[s->n++];
	}
	memset(p, 0, sizeof(*p));
	p->run_id = run;
	p->source = source;
	snprintf(p->started_at, sizeof(p->started_at), "%s",
		 ax_html_str(r->started_at));
	p->ok = r->ok;
	p->median = p->ok ? r->median : NAN;
	p->ci_lo = p->ok ? r->ci_lo : NAN;
	p->ci_hi = p->ok ? r->ci_hi : NAN;
	s->hib = r->higher_is_better;
	return 0;
}

int ax_html_collect_point(struct ax_html_collect *k,
			  const struct ax_db_result_row *r, int source)
{
	char run[600];
	run_key(r->source, r->run_id, run, sizeof(run));
	k->n_read++;
	k->n_bad += !r->ok;
	if (!json_object_get(k->runs, run) &&
	    json_object_set_new(k->runs, run, json_true()))
		return AX_ENOMEM;
	/* A run of another kind (a recommendation's, a paired
	 * comparison's) measured for its own end: in a case's history it
	 * would read as a change that is none.  So does a tuning session,
	 * measuring with its own settings. */
	if (dropped(k, r)) {
		k->n_left++;
		return 0;
	}
	if (!ax_html_is_tune(r) || k->include_tune)
		return add_point(k, r, source);
	return 0;
}

int ax_html_collect_add(struct ax_html_collect *k, struct ax_db_result_row **r,
			int source)
{
	int rc = ax_html_collect_point(k, *r, source);
	return rc || dropped(k, *r) ? rc : keep_newest(k, r);
}

static int by_start(const void *x, const void *y)
{
	const struct ax_html_point *a = x, *b = y;
	int c = strcmp(a->started_at, b->started_at);
	if (c)
		return c;
	if (a->source != b->source)
		return a->source < b->source ? -1 : 1;
	return a->run_id < b->run_id ? -1 : a->run_id > b->run_id;
}

void ax_html_collect_finish(struct ax_html_collect *k)
{
	for (size_t i = 0; i < k->n_series; i++)
		if (k->series[i].n > 1)
			qsort(k->series[i].pts, k->series[i].n,
			      sizeof(*k->series[i].pts), by_start);
}
