/* reports/html_tuner.c - tuning sessions: convergence (best so far
 * against evaluations), each session's best point against the defaults,
 * and which parameters mattered. */
#include "reports/html_escape.h"
#include "reports/html_internal.h"
#include "reports/svg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Whether bigger objective values are better for suite: the direction
 * of that suite's results when the report has any, else the session's
 * objective name ("min..." or a time means lower is better). */
static bool higher_better(const struct ax_html_ctx *c, const json_t *s)
{
	size_t i;
	json_t *r;
	const char *suite = ax_html_jstr(s, "suite");
	json_array_foreach(c->d->results, i, r) if (
	    !strcmp(ax_html_jstr(r, "suite"),
		    suite)) return json_is_true(json_object_get(r, "higher_is_"
								   "better"));
	const char *obj = ax_html_jstr(s, "objective");
	return !(strstr(obj, "min") || strstr(obj, "time") ||
		 strstr(obj, "seconds"));
}

static bool trial_ok(const json_t *t)
{
	return !strcmp(ax_html_jstr(t, "status"), "ok") &&
	       isfinite(ax_html_jnum(t, "value"));
}

/* Best-so-far series of session s into x, y (n trials); returns count. */
static int best_so_far(const json_t *s, bool hib, double *x, double *y)
{
	const json_t *trials = json_object_get(s, "trials");
	double best = NAN;
	int n = 0;
	for (size_t i = 0; i < json_array_size(trials); i++) {
		const json_t *t = json_array_get(trials, i);
		double v = ax_html_jnum(t, "value");
		if (trial_ok(t) &&
		    (!isfinite(best) || (hib ? v > best : v < best)))
			best = v;
		x[n] = (double)i + 1;
		y[n++] = best; /* NAN until the first ok trial: skipped */
	}
	return n;
}

static void session_name(const struct ax_html_ctx *c, const json_t *s,
			 char *buf, size_t len)
{
	char seed[32];
	const json_t *sv = json_object_get(s, "seed");
	if (json_is_integer(sv))
		snprintf(seed, sizeof(seed), "%lld",
			 (long long)json_integer_value(sv));
	else
		snprintf(seed, sizeof(seed), "%s", ax_html_jstr(s, "seed"));
	int sys = ax_html_session_system(c, s);
	const char *src = ax_html_jstr(s, "source");
	const char *base = strrchr(src, '/');
	char where[300] = "";
	if (c->d->n_sources > 1 && *src)
		snprintf(where, sizeof(where), " in %s", base ? base + 1 : src);
	if (sys >= 0)
		snprintf(buf, len, "#%d %s: %s seed %s, session %.0f%s",
			 sys + 1, ax_html_system_name(c, sys),
			 ax_html_jstr(s, "strategy"), seed,
			 ax_html_jnum(s, "id"), where);
	else
		snprintf(buf, len, "%s seed %s, session %.0f%s on %s",
			 ax_html_jstr(s, "strategy"), seed,
			 ax_html_jnum(s, "id"), where,
			 ax_html_jstr(json_object_get(s, "device"), "name"));
}

static void convergence_chart(struct ax_html_ctx *c, const char *suite)
{
	size_t i, cap = 0;
	json_t *s;
	int ns = 0;
	json_array_foreach(c->d->sessions, i, s) cap +=
	    json_array_size(json_object_get(s, "trials")) + 1;
	double *xy = calloc(2 * cap + 2, sizeof(double));
	size_t nsess = json_array_size(c->d->sessions);
	struct ax_svg_series *ser = calloc(nsess + 1, sizeof(*ser));
	char(*names)[400] = calloc(nsess + 1, sizeof(*names));
	bool hib = true;
	size_t used = 0;
	json_array_foreach(c->d->sessions, i, s)
	{
		if (!xy || !ser || !names ||
		    strcmp(ax_html_jstr(s, "suite"), suite))
			continue;
		hib = higher_better(c, s);
		double *x = xy + used, *y = xy + cap + used;
		int n = best_so_far(s, hib, x, y);
		used += (size_t)n;
		session_name(c, s, names[ns], sizeof(names[ns]));
		/* The system's colour; its sessions apart by marker and
		 * dash. */
		int sys = ax_html_session_system(c, s), variant = 0;
		for (int k = 0; k < ns; k++)
			variant += ser[k].color == (sys >= 0 ? sys : 6);
		ser[ns] = (struct ax_svg_series){names[ns],
						 x,
						 y,
						 n,
						 AX_SVG_LINES | AX_SVG_MARKERS,
						 sys >= 0 ? sys : 6,
						 variant,
						 NULL};
		ns++;
	}
	char title[200];
	snprintf(title, sizeof(title),
		 "Tuner convergence on %s: best "
		 "objective so far (%s is better)",
		 suite, hib ? "higher" : "lower");
	struct ax_svg_plot p = {.title = title,
				.xlabel = "evaluations",
				.ylabel = "best so far",
				.xint = true};
	if (ns)
		ax_svg_plot(c->f, &p, ser, ns);
	free(xy);
	free(ser);
	free(names);
}

/* ---- the best point ----------------------------------------------------- */

/* The session's results of role ("default", "retime"): the best median
 * in the suite's direction, and its unit; NAN when there is none. */
static double role_best(const struct ax_html_ctx *c, const json_t *s,
			const char *role, bool hib, const char **unit)
{
	size_t i;
	json_t *r;
	double best = NAN;
	json_array_foreach(c->d->results, i, r)
	{
		const json_t *x = json_object_get(r, "extra");
		const json_t *ts = json_object_get(x, "tune_session");
		if (!json_is_number(ts) ||
		    json_number_value(ts) != ax_html_jnum(s, "id") ||
		    strcmp(ax_html_jstr(r, "source"),
			   ax_html_jstr(s, "source")))
			continue;
		*unit = ax_html_jstr(r, "unit");
		double m = ax_html_jnum(r, "median");
		if (!ax_html_ok(r) || strcmp(ax_html_jstr(x, "role"), role) ||
		    !isfinite(m))
			continue;
		if (!isfinite(best) || (hib ? m > best : m < best))
			best = m;
	}
	return best;
}

/* The best trial's parameters that some trial changed (the tunables);
 * all of them when no trial differs. */
static void best_params(const json_t *trials, const json_t *best, FILE *f)
{
	const char *k;
	json_t *v;
	int n = 0;
	json_object_foreach((json_t *)json_object_get(best, "params"), k, v)
	{
		bool varies = false;
		for (size_t i = 0; i < json_array_size(trials) && !varies; i++)
			varies = !json_equal(
			    json_object_get(
				json_object_get(json_array_get(trials, i),
						"params"),
				k),
			    v);
		if (!varies && json_array_size(trials) > 1)
			continue;
		char *t = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
		fprintf(f, "%s%s=", n++ ? " " : "", k);
		ax_html_escape(f, json_is_string(v) ? json_string_value(v)
				  : t		    ? t
						    : "?");
		free(t);
	}
	if (!n)
		fputs("none varied", f);
}

static void best_row(struct ax_html_ctx *c, const json_t *s)
{
	const json_t *trials = json_object_get(s, "trials"), *best = NULL;
	bool hib = higher_better(c, s);
	int ok = 0;
	for (size_t i = 0; i < json_array_size(trials); i++) {
		const json_t *t = json_array_get(trials, i);
		if (!trial_ok(t))
			continue;
		ok++;
		double v = ax_html_jnum(t, "value");
		if (!best || (hib ? v > ax_html_jnum(best, "value")
				  : v < ax_html_jnum(best, "value")))
			best = t;
	}
	const char *unit = "";
	double def = role_best(c, s, "default", hib, &unit);
	double re = role_best(c, s, "retime", hib, &unit);
	char name[400], ratio[80];
	session_name(c, s, name, sizeof(name));
	fputs("<tr><td>", c->f);
	ax_html_escape(c->f, name);
	fputs("</td><td>", c->f);
	const char *k;
	json_t *v;
	int n = 0;
	json_object_foreach(json_object_get(s, "shape"), k, v)
	{
		char *t = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
		fprintf(c->f, "%s%s=", n++ ? " " : "", k);
		ax_html_escape(c->f, json_is_string(v) ? json_string_value(v)
				     : t	       ? t
						       : "?");
		free(t);
	}
	fprintf(c->f, "</td><td class=\"num\">%d of %zu</td><td>", ok,
		json_array_size(trials));
	ax_html_escape(c->f, *ax_html_jstr(s, "stop_reason")
				 ? ax_html_jstr(s, "stop_reason")
				 : "not finished");
	fputs("</td>", c->f);
	if (best) {
		fprintf(c->f, "<td class=\"num\">%.4g ",
			ax_html_jnum(best, "value"));
		ax_html_escape(c->f, unit);
		fputs("</td><td>", c->f);
		best_params(trials, best, c->f);
		fputs("</td>", c->f);
	} else {
		fputs("<td>" AX_HTML_DASH "</td><td>no trial passed</td>",
		      c->f);
	}
	if (isfinite(def) && isfinite(re))
		fprintf(c->f,
			"<td class=\"num\">%.4g / %.4g</td><td>%s</td></tr>\n",
			re, def,
			ax_html_ratio_text(ax_html_ratio(re, def, hib), ratio,
					   sizeof(ratio)));
	else
		fputs("<td>" AX_HTML_DASH "</td><td>not re-timed</td></tr>\n",
		      c->f);
}

/* ---- which parameters mattered ---------------------------------------- */

struct effect {
	char name[64];
	int levels;
	double spread; /* range of per-value mean objective / |best| */
};

/* Spread of the mean objective over the values of parameter name. */
static struct effect param_effect(const json_t *trials, const char *name,
				  double best)
{
	struct effect e = {.levels = 0, .spread = NAN};
	json_t *groups = json_object(), *g;
	snprintf(e.name, sizeof(e.name), "%s", name);
	for (size_t i = 0; i < json_array_size(trials); i++) {
		const json_t *t = json_array_get(trials, i);
		if (!trial_ok(t))
			continue;
		char *v = json_dumps(
		    json_object_get(json_object_get(t, "params"), name),
		    JSON_ENCODE_ANY | JSON_COMPACT);
		if (!v)
			continue;
		g = json_object_get(groups, v);
		if (!g) {
			g = json_pack("[f,i]", 0.0, 0);
			json_object_set_new(groups, v, g);
		}
		json_array_set_new(
		    g, 0,
		    json_real(json_real_value(json_array_get(g, 0)) +
			      ax_html_jnum(t, "value")));
		json_array_set_new(
		    g, 1,
		    json_integer(json_integer_value(json_array_get(g, 1)) + 1));
		free(v);
	}
	double lo = INFINITY, hi = -INFINITY;
	const char *k;
	json_object_foreach(groups, k, g)
	{
		double m = json_real_value(json_array_get(g, 0)) /
			   (double)json_integer_value(json_array_get(g, 1));
		lo = fmin(lo, m);
		hi = fmax(hi, m);
	}
	e.levels = (int)json_object_size(groups);
	if (e.levels > 1 && fabs(best) > 0)
		e.spread = (hi - lo) / fabs(best);
	json_decref(groups);
	return e;
}

static int effect_cmp(const void *a, const void *b)
{
	const struct effect *x = a, *y = b;
	double p = isfinite(x->spread) ? x->spread : -1;
	double q = isfinite(y->spread) ? y->spread : -1;
	return (q > p) - (q < p);
}

static void mattered(struct ax_html_ctx *c, const json_t *s)
{
	const json_t *trials = json_object_get(s, "trials");
	double best = NAN;
	const json_t *params = NULL;
	bool hib = higher_better(c, s);
	for (size_t i = 0; i < json_array_size(trials); i++) {
		const json_t *t = json_array_get(trials, i);
		double v = ax_html_jnum(t, "value");
		if (!trial_ok(t))
			continue;
		params = json_object_get(t, "params");
		if (!isfinite(best) || (hib ? v > best : v < best))
			best = v;
	}
	struct effect e[64];
	int n = 0;
	const char *k;
	json_t *v;
	json_object_foreach((json_t *)params, k, v)
	{
		if (n < 64)
			e[n++] = param_effect(trials, k, best);
	}
	qsort(e, (size_t)n, sizeof(*e), effect_cmp);
	char name[400];
	session_name(c, s, name, sizeof(name));
	for (int i = 0; i < n; i++) {
		fputs("<tr><td>", c->f);
		ax_html_escape(c->f, i == 0 ? name : "");
		fputs("</td><td>", c->f);
		ax_html_escape(c->f, e[i].name);
		fprintf(c->f, "</td><td class=\"num\">%d</td>", e[i].levels);
		if (isfinite(e[i].spread))
			fprintf(c->f, "<td class=\"num\">%.1f %%</td></tr>\n",
				100 * e[i].spread);
		else
			fputs("<td>one value tried</td></tr>\n", c->f);
	}
}

void ax_html_section_tuner(struct ax_html_ctx *c)
{
	json_t *seen = json_object(), *s;
	size_t i;
	ax_html_h2(c, "tuner", "Tuning sessions");
	if (json_array_size(c->d->sessions) == 0) {
		ax_html_empty(c, "No tuning sessions in the selected data: run "
				 "`axbench tune` to see convergence here.");
		json_decref(seen);
		return;
	}
	fprintf(c->f,
		"<p>Each session's best objective so far against its "
		"evaluations, then its best point. Their measurements are "
		"%s.</p>\n",
		c->d->include_tune ? "in the per-case charts too "
				     "(<code>--include-tune</code>)"
				   : "left out of the per-case charts and the "
				     "overview (<code>--include-tune</code> "
				     "puts them there)");
	json_array_foreach(c->d->sessions, i, s)
	{
		const char *suite = ax_html_jstr(s, "suite");
		if (json_object_get(seen, suite))
			continue;
		json_object_set_new(seen, suite, json_true());
		convergence_chart(c, suite);
	}
	json_decref(seen);
	fputs("<h3>Best point of each session</h3>\n<p>The best trial, the "
	      "parameters the session varied, and, where the session "
	      "re-timed its best points beside the defaults at the end, "
	      "both re-timed figures and their ratio.</p>\n<div "
	      "class=\"wide\"><table><tr><th>Session</th><th>Shape</th>"
	      "<th>Trials ok</th><th>Stopped because</th><th>Best trial"
	      "</th><th>Best parameters</th><th>Re-timed best / defaults"
	      "</th><th>Best against defaults</th></tr>\n",
	      c->f);
	json_array_foreach(c->d->sessions, i, s) best_row(c, s);
	fputs("</table></div>\n", c->f);
	fputs("<h3>Which parameters mattered</h3>\n<p>For each parameter, the "
	      "range of the mean objective over the values tried, as a "
	      "share of the best value found.</p>\n<table><tr><th>Session"
	      "</th><th>Parameter</th><th>Values tried</th><th>Spread of "
	      "mean objective</th></tr>\n",
	      c->f);
	json_array_foreach(c->d->sessions, i, s) mattered(c, s);
	fputs("</table>\n", c->f);
}
