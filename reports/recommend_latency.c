/*
 * reports/recommend_latency.c - `recommend --slo-ms X` (issue 36): the
 * largest batch whose measured p99 latency meets X, per device, layer
 * suite and shape, from the batch -> latency curve of stored results
 * with a latency distribution (extra.latency: the model layers'
 * scenario=single and server).  A result at that batch stored after the
 * sweep's is the confirming run: it is cited with whether it met X.
 */
#include "reports/recommend.h"

#include "core/db_rows.h"
#include "core/error.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct ax_db_result_row row_t;

/* The group a result's batch curve belongs to: device, suite and every
 * parameter but the batch and the pass count. */
static void group_key(const row_t *r, char *key, size_t len)
{
	size_t n = (size_t)snprintf(key, len, "%s|%s", r->device.fingerprint,
				    r->suite);
	for (int i = 0; i < r->params.n && n < len; i++) {
		const struct ax_db_param *p = &r->params.v[i];
		char buf[64];
		if (!strcmp(p->name, "batch") || !strcmp(p->name, "passes"))
			continue;
		n += (size_t)snprintf(
		    key + n, len - n, " %s=%s", p->name,
		    ax_db_param_value_text(p, buf, sizeof(buf)));
	}
}

static double p99_of(const row_t *r)
{
	return ax_db_extra_num(r, "latency.p99_ms");
}

static bool has_latency(const row_t *r)
{
	return r->ok && r->device.fingerprint && r->suite &&
	       isfinite(p99_of(r)) &&
	       isfinite(ax_db_param_num(&r->params, "batch"));
}

static json_t *cite_latency(const row_t *r)
{
	return json_pack(
	    "{s:I,s:I,s:f,s:f,s:f,s:s}", "result", (json_int_t)r->id, "batch",
	    (json_int_t)ax_db_param_num(&r->params, "batch"), "p50_ms",
	    ax_db_extra_num(r, "latency.p50_ms"), "p99_ms", p99_of(r), "value",
	    r->median, "unit", r->unit ? r->unit : "");
}

/* The group's rows, batch ascending, the latest result per batch. */
static size_t group_rows(const struct ax_db_results *rs, const char *key,
			 const row_t **out)
{
	size_t n = 0;
	char k[1024];
	for (size_t i = 0; i < rs->n; i++) {
		const row_t *r = rs->v[i];
		if (!has_latency(r))
			continue;
		group_key(r, k, sizeof(k));
		if (strcmp(k, key))
			continue;
		double b = ax_db_param_num(&r->params, "batch");
		size_t j = 0;
		while (j < n && ax_db_param_num(&out[j]->params, "batch") != b)
			j++;
		if (j < n) {
			if (r->id > out[j]->id)
				out[j] = r;
			continue;
		}
		out[n++] = r;
	}
	for (size_t i = 1; i < n; i++)
		for (size_t j = i;
		     j > 0 && ax_db_param_num(&out[j - 1]->params, "batch") >
				  ax_db_param_num(&out[j]->params, "batch");
		     j--) {
			const row_t *t = out[j];
			out[j] = out[j - 1];
			out[j - 1] = t;
		}
	return n;
}

/* The sweep's pick: the largest batch meeting the SLO, and its
 * confirmation, a later result at that batch (rows are the latest per
 * batch, so the sweep's is the earliest at that batch). */
static const row_t *sweep_result(const struct ax_db_results *rs,
				 const row_t *latest, const char *key)
{
	const row_t *first = latest;
	char k[1024];
	double b = ax_db_param_num(&latest->params, "batch");
	for (size_t i = 0; i < rs->n; i++) {
		const row_t *r = rs->v[i];
		if (!has_latency(r) ||
		    ax_db_param_num(&r->params, "batch") != b)
			continue;
		group_key(r, k, sizeof(k));
		if (!strcmp(k, key) && r->id < first->id)
			first = r;
	}
	return first;
}

static json_t *pick_json(const struct ax_db_results *rs, const char *key,
			 const row_t **g, size_t n, double slo)
{
	json_t *curve = json_array();
	const row_t *best = NULL;
	for (size_t i = 0; i < n; i++) {
		json_array_append_new(curve, cite_latency(g[i]));
		if (p99_of(g[i]) <= slo)
			best = g[i];
	}
	json_t *o =
	    json_pack("{s:s,s:s,s:f,s:o}", "suite", g[0]->suite, "device",
		      g[0]->device.fingerprint, "slo_ms", slo, "curve", curve);
	json_object_set_new(
	    o, "case",
	    json_string(strchr(key, ' ') ? strchr(key, ' ') + 1 : ""));
	if (!best) {
		char why[256];
		snprintf(why, sizeof(why),
			 "no measured batch meets p99 <= %g ms: the smallest, "
			 "%g, has p99 %.3g ms; a faster device, a smaller "
			 "layer or a looser SLO",
			 slo, ax_db_param_num(&g[0]->params, "batch"),
			 p99_of(g[0]));
		json_object_set_new(o, "batch", json_null());
		json_object_set_new(o, "reason", json_string(why));
		return o;
	}
	const row_t *sweep = sweep_result(rs, best, key);
	json_object_set_new(
	    o, "batch",
	    json_integer((json_int_t)ax_db_param_num(&best->params, "batch")));
	json_object_set_new(o, "basis", cite_latency(sweep));
	json_object_set_new(
	    o, "rule",
	    json_string("the largest batch of the curve whose p99 meets the "
			"SLO (the latest result per batch)"));
	json_object_set_new(o, "verified",
			    sweep == best
				? json_null()
				: json_pack("{s:I,s:f,s:b}", "result",
					    (json_int_t)best->id, "p99_ms",
					    p99_of(best), "met",
					    p99_of(best) <= slo));
	if (sweep == best)
		json_object_set_new(
		    o, "reason",
		    json_string("not yet confirmed: run the case again at this "
				"batch (axbench run SUITE -p batch=B ...) and "
				"recommend again"));
	return o;
}

int ax_recommend_add_latency(json_t *doc, const struct ax_db_results *rs,
			     double slo_ms, char *err, size_t errlen)
{
	json_t *picks = json_array();
	const row_t **g = calloc(rs->n ? rs->n : 1, sizeof(*g));
	char **keys = calloc(rs->n ? rs->n : 1, sizeof(*keys));
	size_t nk = 0;
	int rc = g && keys ? 0 : AX_ENOMEM;
	char key[1024];
	for (size_t i = 0; !rc && i < rs->n; i++) {
		if (!has_latency(rs->v[i]))
			continue;
		group_key(rs->v[i], key, sizeof(key));
		size_t j = 0;
		while (j < nk && strcmp(keys[j], key))
			j++;
		if (j < nk)
			continue;
		if (!(keys[nk++] = strdup(key))) {
			rc = AX_ENOMEM;
			break;
		}
		size_t n = group_rows(rs, key, g);
		json_array_append_new(picks, pick_json(rs, key, g, n, slo_ms));
	}
	for (size_t j = 0; keys && j < nk; j++)
		free(keys[j]);
	free(keys);
	free(g);
	if (rc) {
		json_decref(picks);
		return ax_errf(err, errlen, rc, "recommend: out of memory");
	}
	json_object_set_new(doc, "latency_batch", picks);
	return 0;
}
