/* app/suite_doc.c - the suite document (see suite_doc.h). */
#include "app/suite_doc.h"

#include "suites/registry.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static json_t *roles_json(unsigned roles)
{
	json_t *a = json_array();
	for (unsigned bit = 1; bit && bit <= roles; bit <<= 1)
		if ((roles & bit) && ax_role_name((enum ax_role)bit))
			json_array_append_new(
			    a, json_string(ax_role_name((enum ax_role)bit)));
	return a;
}

static json_t *curve_json(const struct ax_suite_curve *c)
{
	if (!c)
		return json_null();
	json_t *group = json_array();
	for (int i = 0; c->group && c->group[i]; i++)
		json_array_append_new(group, json_string(c->group[i]));
	return json_pack("{s:s, s:o, s:s, s:s}", "x", c->x, "group", group,
			 "title", c->title, "x_label", c->x_label);
}

static json_t *needs_json(const struct ax_suite_need *n)
{
	json_t *a = json_array();
	for (int i = 0; n && n[i].distinct > 0; i++)
		json_array_append_new(a, json_pack("{s:s?, s:i}", "param",
						   n[i].param, "distinct",
						   n[i].distinct));
	return a;
}

json_t *ax_app_suite_entry(const struct ax_suite *s)
{
	return json_pack("{s:s, s:b, s:o, s:s?, s:o, s:o}", "unit", s->unit,
			 "higher_is_better", s->higher_is_better, "roles",
			 roles_json(s->roles), "batch_param", s->batch_param,
			 "curve", curve_json(s->curve), "recommend_needs",
			 needs_json(s->recommend_needs));
}

const struct ax_suite_doc *ax_app_suites(void)
{
	static struct ax_suite_doc doc;
	if (doc.v)
		return &doc;
	/* Kept for the process: the table is static too. */
	struct ax_suite_info *info = calloc((size_t)ax_suite_count, sizeof(*info));
	if (!info)
		return &doc; /* out of memory: an empty document */
	for (int i = 0; i < ax_suite_count; i++) {
		const struct ax_suite *s = ax_suites[i];
		info[i] = (struct ax_suite_info){
		    .name = s->name,
		    .unit = s->unit,
		    .higher_is_better = s->higher_is_better,
		    .roles = s->roles,
		    .batch_param = s->batch_param,
		    .curve = s->curve,
		    .needs = s->recommend_needs,
		};
		doc.n = i + 1;
	}
	doc.v = info;
	return &doc;
}

/* The stored parameters of r as a point of suite s; false when they do
 * not parse (a result from another axbench version). */
static bool row_point(const struct ax_suite *s,
		      const struct ax_db_result_row *r, struct ax_params *p)
{
	char err[256];
	json_t *doc = ax_db_params_json(&r->params, r->params_doc);
	char *text = doc ? json_dumps(doc, JSON_COMPACT) : NULL;
	bool ok = text && ax_params_from_json(p, s->params, s->n_params, text,
					      err, sizeof(err)) == 0;
	free(text);
	json_decref(doc);
	return ok;
}

void ax_app_fill_row_bytes(struct ax_db_result_row *r)
{
	const struct ax_suite *s = ax_suite_find(r->suite ? r->suite : "");
	struct ax_params p;
	if (!s || (!s->bytes && !s->input_bytes) ||
	    (isfinite(r->bytes) && isfinite(r->input_bytes)) ||
	    !row_point(s, r, &p))
		return;
	if (s->bytes && !isfinite(r->bytes))
		r->bytes = s->bytes(&p);
	if (s->input_bytes && !isfinite(r->input_bytes))
		r->input_bytes = s->input_bytes(&p);
}

void ax_app_type_row_params(struct ax_db_result_row *r)
{
	const struct ax_suite *s = ax_suite_find(r->suite ? r->suite : "");
	for (int i = 0; s && i < s->n_params; i++) {
		if (s->params[i].type != AX_PT_BOOL)
			continue;
		struct ax_db_param *v = (struct ax_db_param *)ax_db_param_find(
		    &r->params, s->params[i].name);
		if (!v || v->type != AX_DB_VALUE_TEXT)
			continue;
		if (!strcmp(v->text, "true") || !strcmp(v->text, "false")) {
			v->type = AX_DB_VALUE_BOOL;
			v->num = !strcmp(v->text, "true");
		}
	}
}
