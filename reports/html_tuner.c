/* reports/html_tuner.c - tuning sessions: convergence (best so far
 * against evaluations), each session's best point against the defaults,
 * and which parameters mattered. */
#include "reports/html_escape.h"
#include "reports/html_internal.h"
#include "reports/svg.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct ax_db_session_row session_t;
typedef struct ax_db_trial_row trial_t;

/* Whether bigger objective values are better for suite: the direction
 * of that suite's results when the report has any, else the session's
 * objective name ("min..." or a time means lower is better). */
static bool higher_better(const struct ax_html_ctx *c, const session_t *s)
{
	const char *suite = ax_html_str(s->suite);
	for (size_t i = 0; i < c->d->results->n; i++)
		if (!strcmp(ax_html_str(c->d->results->v[i]->suite), suite))
			return c->d->results->v[i]->higher_is_better;
	const char *obj = ax_html_str(s->objective);
	return !(strstr(obj, "min") || strstr(obj, "time") ||
		 strstr(obj, "seconds"));
}

static bool trial_ok(const trial_t *t)
{
	return !strcmp(ax_html_str(t->status), "ok") && isfinite(t->value);
}

/* Best-so-far series of session s into x, y (n trials); returns count. */
static int best_so_far(const session_t *s, bool hib, double *x, double *y)
{
	double best = NAN;
	int n = 0;
	for (size_t i = 0; i < s->n_trials; i++) {
		const trial_t *t = &s->trials[i];
		double v = t->value;
		if (trial_ok(t) &&
		    (!isfinite(best) || (hib ? v > best : v < best)))
			best = v;
		x[n] = (double)i + 1;
		y[n++] = best; /* NAN until the first ok trial: skipped */
	}
	return n;
}

/* Sampled with tune --mode cold (caches scrubbed before each repetition). */
static bool is_cold(const session_t *s)
{
	return s->mode && !strcmp(s->mode, "cold");
}

static void session_name(const struct ax_html_ctx *c, const session_t *s,
			 char *buf, size_t len)
{
	char seed[32] = "";
	if (s->has_seed)
		snprintf(seed, sizeof(seed), "%" PRIu64, s->seed);
	int sys = ax_html_session_system(c, s);
	const char *src = ax_html_str(s->source);
	const char *base = strrchr(src, '/');
	char where[300] = "";
	if (c->d->n_sources > 1 && *src)
		snprintf(where, sizeof(where), " in %s", base ? base + 1 : src);
	/* Only the unusual mode is named: batch is every older session's. */
	const char *cold = is_cold(s) ? ", cold" : "";
	if (sys >= 0)
		snprintf(buf, len, "#%d %s: %s seed %s%s, session %lld%s",
			 sys + 1, ax_html_system_name(c, sys),
			 ax_html_str(s->strategy), seed, cold, (long long)s->id,
			 where);
	else
		snprintf(buf, len, "%s seed %s%s, session %lld%s on %s",
			 ax_html_str(s->strategy), seed, cold, (long long)s->id,
			 where, ax_html_str(s->device.name));
}

static void convergence_chart(struct ax_html_ctx *c, const char *suite)
{
	const struct ax_db_sessions *all = c->d->sessions;
	size_t cap = 0, nsess = all->n;
	int ns = 0;
	for (size_t i = 0; i < nsess; i++)
		cap += all->v[i]->n_trials + 1;
	double *xy = calloc(2 * cap + 2, sizeof(double));
	struct ax_svg_series *ser = calloc(nsess + 1, sizeof(*ser));
	char(*names)[400] = calloc(nsess + 1, sizeof(*names));
	bool hib = true;
	size_t used = 0;
	for (size_t i = 0; i < nsess; i++) {
		const session_t *s = all->v[i];
		if (!xy || !ser || !names ||
		    strcmp(ax_html_str(s->suite), suite))
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
static double role_best(const struct ax_html_ctx *c, const session_t *s,
			const char *role, bool hib, const char **unit)
{
	double best = NAN;
	for (size_t i = 0; i < c->d->results->n; i++) {
		const struct ax_db_result_row *r = c->d->results->v[i];
		if (r->tune_session <= 0 || r->tune_session != s->id ||
		    strcmp(ax_html_str(r->source), ax_html_str(s->source)))
			continue;
		*unit = ax_html_str(r->unit);
		double m = r->median;
		if (!r->ok || strcmp(ax_html_str(r->tune_role), role) ||
		    !isfinite(m))
			continue;
		if (!isfinite(best) || (hib ? m > best : m < best))
			best = m;
	}
	return best;
}

/* The session's paired candidate (side B of the pairing its verdict
 * came from, app/tune_verdict.c) and its defaults (side A); NULL when
 * the session measured no pair (energy, or stored before pairing). */
static const struct ax_db_result_row *
paired_best(const struct ax_html_ctx *c, const session_t *s,
	    const struct ax_db_result_row **a)
{
	const struct ax_db_result_row *b = NULL;
	*a = NULL;
	for (size_t i = 0; i < c->d->results->n; i++) {
		const struct ax_db_result_row *r = c->d->results->v[i];
		const char *side = ax_db_extra_text(r, "pair.side");
		if (r->tune_session == s->id && r->ok && side &&
		    !strcmp(side, "B") &&
		    !strcmp(ax_html_str(r->source), ax_html_str(s->source)))
			b = r;
	}
	double id = b ? ax_db_extra_num(b, "pair.other_result_id") : NAN;
	for (size_t i = 0; isfinite(id) && i < c->d->results->n; i++) {
		const struct ax_db_result_row *r = c->d->results->v[i];
		if (r->id == (int64_t)id && r->ok &&
		    !strcmp(ax_html_str(r->source), ax_html_str(b->source)))
			*a = r;
	}
	return *a ? b : NULL;
}

/* The figures of the end of session s: the paired ones ("1.17x faster
 * (+17 %) [1.14, 1.19], 100 paired rounds"), else the best re-timed and
 * the best defaults with their ratio. */
static void end_cells(struct ax_html_ctx *c, const session_t *s, bool hib)
{
	const char *unit = "";
	const struct ax_db_result_row *a, *b = paired_best(c, s, &a);
	char ratio[80];
	if (b) {
		double lo = ax_db_extra_num(b, "pair.speedup_lo");
		double hi = ax_db_extra_num(b, "pair.speedup_hi");
		fprintf(c->f,
			"<td class=\"num\">%.4g / %.4g</td><td>%s [%.2f, "
			"%.2f], %.0f paired rounds</td></tr>\n",
			b->median, a->median,
			ax_html_ratio_text(ax_db_extra_num(b, "pair.speedup"),
					   ratio, sizeof(ratio)),
			lo, hi, ax_db_extra_num(b, "pair.rounds"));
		return;
	}
	double def = role_best(c, s, "default", hib, &unit);
	double re = role_best(c, s, "retime", hib, &unit);
	if (isfinite(def) && isfinite(re))
		fprintf(c->f,
			"<td class=\"num\">%.4g / %.4g</td><td>%s, one after "
			"the other (no interval)</td></tr>\n",
			re, def,
			ax_html_ratio_text(ax_html_ratio(re, def, hib), ratio,
					   sizeof(ratio)));
	else
		fputs("<td>" AX_HTML_DASH "</td><td>not re-timed</td></tr>\n",
		      c->f);
}

/* Are two stored parameter values the same value of the same type (two
 * missing ones too)? */
static bool same_value(const struct ax_db_param *a, const struct ax_db_param *b)
{
	return a && b ? ax_db_param_equal(a, b) : a == b;
}

/* "k=v k=v" of the parameters p, escaped (those some trial of s varied
 * only, when s is set and has more than one); returns how many. */
static int params_text(const struct ax_db_params *p, const session_t *s,
		       FILE *f)
{
	int n = 0;
	for (int k = 0; k < p->n; k++) {
		const struct ax_db_param *v = &p->v[k];
		bool varies = false;
		for (size_t i = 0; s && i < s->n_trials && !varies; i++)
			varies = !same_value(
			    ax_db_param_find(&s->trials[i].params, v->name), v);
		if (s && !varies && s->n_trials > 1)
			continue;
		char t[512];
		fprintf(f, "%s%s=", n++ ? " " : "", v->name);
		ax_html_escape(f, ax_html_param_text(v, t, sizeof(t)));
	}
	return n;
}

/* The best trial of s in the direction hib (NULL: none passed); *ok
 * gets how many passed. */
static const trial_t *best_trial(const session_t *s, bool hib, int *ok)
{
	const trial_t *best = NULL;
	*ok = 0;
	for (size_t i = 0; i < s->n_trials; i++) {
		const trial_t *t = &s->trials[i];
		if (!trial_ok(t))
			continue;
		++*ok;
		if (!best ||
		    (hib ? t->value > best->value : t->value < best->value))
			best = t;
	}
	return best;
}

static void best_row(struct ax_html_ctx *c, const session_t *s)
{
	bool hib = higher_better(c, s);
	int ok;
	const trial_t *best = best_trial(s, hib, &ok);
	const char *unit = "";
	char name[400];
	/* the unit of the session's figures */
	role_best(c, s, "default", hib, &unit);
	session_name(c, s, name, sizeof(name));
	fputs("<tr><td>", c->f);
	ax_html_escape(c->f, name);
	fputs("</td><td>", c->f);
	params_text(&s->shape, NULL, c->f);
	fprintf(c->f, "</td><td class=\"num\">%d of %zu</td><td>", ok,
		s->n_trials);
	ax_html_escape(c->f, *ax_html_str(s->stop_reason) ? s->stop_reason
							  : "not finished");
	fputs("</td>", c->f);
	if (best) {
		fprintf(c->f, "<td class=\"num\">%.4g ", best->value);
		ax_html_escape(c->f, unit);
		fputs("</td><td>", c->f);
		if (!params_text(&best->params, s, c->f))
			fputs("none varied", c->f);
		fputs("</td>", c->f);
	} else {
		fputs("<td>" AX_HTML_DASH "</td><td>no trial passed</td>",
		      c->f);
	}
	end_cells(c, s, hib);
}

/* ---- which parameters mattered ---------------------------------------- */

struct effect {
	char name[64];
	int levels;
	double spread; /* range of per-value mean objective / |best| */
};

/* One value of a parameter among the trials: its sum and count. */
struct level {
	char key[520]; /* its type and text: 64 and "64" are two values */
	double sum;
	int n;
};

/* Spread of the mean objective over the values of parameter name. */
static struct effect param_effect(const session_t *s, const char *name,
				  double best)
{
	struct effect e = {.levels = 0, .spread = NAN};
	struct level *lv = calloc(s->n_trials + 1, sizeof(*lv));
	snprintf(e.name, sizeof(e.name), "%s", name);
	for (size_t i = 0; lv && i < s->n_trials; i++) {
		const trial_t *t = &s->trials[i];
		const struct ax_db_param *p =
		    ax_db_param_find(&t->params, name);
		char key[520], txt[512];
		if (!trial_ok(t) || !p)
			continue;
		snprintf(key, sizeof(key), "%d:%s", (int)p->type,
			 ax_html_param_text(p, txt, sizeof(txt)));
		int k = 0;
		while (k < e.levels && strcmp(lv[k].key, key))
			k++;
		if (k == e.levels)
			snprintf(lv[e.levels++].key, sizeof(lv->key), "%s",
				 key);
		lv[k].sum += t->value;
		lv[k].n++;
	}
	double lo = INFINITY, hi = -INFINITY;
	for (int k = 0; k < e.levels; k++) {
		double m = lv[k].sum / (double)lv[k].n;
		lo = fmin(lo, m);
		hi = fmax(hi, m);
	}
	if (e.levels > 1 && fabs(best) > 0)
		e.spread = (hi - lo) / fabs(best);
	free(lv);
	return e;
}

static int effect_cmp(const void *a, const void *b)
{
	const struct effect *x = a, *y = b;
	double p = isfinite(x->spread) ? x->spread : -1;
	double q = isfinite(y->spread) ? y->spread : -1;
	return (q > p) - (q < p);
}

static void mattered(struct ax_html_ctx *c, const session_t *s)
{
	double best = NAN;
	const struct ax_db_params *params = NULL;
	bool hib = higher_better(c, s);
	for (size_t i = 0; i < s->n_trials; i++) {
		const trial_t *t = &s->trials[i];
		double v = t->value;
		if (!trial_ok(t))
			continue;
		params = &t->params;
		if (!isfinite(best) || (hib ? v > best : v < best))
			best = v;
	}
	struct effect e[64];
	int n = 0;
	for (int k = 0; params && k < params->n && n < 64; k++)
		e[n++] = param_effect(s, params->v[k].name, best);
	qsort(e, (size_t)n, sizeof(*e), effect_cmp);
	char name[400];
	session_name(c, s, name, sizeof(name));
	int rows = 0;
	for (int i = 0; i < n; i++) {
		if (e[i].levels < 2)
			continue; /* listed once, in the row below */
		fputs("<tr><td>", c->f);
		ax_html_escape(c->f, rows++ == 0 ? name : "");
		fputs("</td><td>", c->f);
		ax_html_escape(c->f, e[i].name);
		fprintf(c->f, "</td><td class=\"num\">%d</td>", e[i].levels);
		if (isfinite(e[i].spread))
			fprintf(c->f, "<td class=\"num\">%.1f %%</td></tr>\n",
				100 * e[i].spread);
		else
			fputs("<td>" AX_HTML_DASH "</td></tr>\n", c->f);
	}
	/* The parameters the session held at one value (the shape, and
	 * knobs outside the space) say nothing about what mattered: one
	 * line names them. */
	int held = 0;
	for (int i = 0; i < n; i++) {
		if (e[i].levels >= 2)
			continue;
		if (held++ == 0) {
			fputs("<tr><td>", c->f);
			ax_html_escape(c->f, rows ? "" : name);
			fputs("</td><td colspan=\"3\"><small>held at one "
			      "value: ",
			      c->f);
		} else {
			fputs(", ", c->f);
		}
		ax_html_escape(c->f, e[i].name);
	}
	if (held)
		fputs("</small></td></tr>\n", c->f);
}

/* ---- warm against cold optima ---------------------------------------- */

/* Two parameter sets with the same names and values. */
static bool same_point(const struct ax_db_params *a,
		       const struct ax_db_params *b)
{
	if (a->n != b->n)
		return false;
	for (int k = 0; k < a->n; k++)
		if (!same_value(ax_db_param_find(b, a->v[k].name), &a->v[k]))
			return false;
	return true;
}

/* One session's best point and figure in a cell. */
static void optimum_cell(struct ax_html_ctx *c, const session_t *s,
			 const trial_t *best)
{
	fprintf(c->f, "<td>session %lld: ", (long long)s->id);
	if (!params_text(&best->params, s, c->f))
		fputs("none varied", c->f);
	fprintf(c->f, " (%.4g)</td>", best->value);
}

/* Each pair of a batch and a cold session of one suite, device and shape
 * whose best trials both passed: where the optima differ, a kernel tuned
 * warm is not known to be best as it will run cold (a weight stream tuned
 * warm can run at a third of its speed cold).  Returns the rows written. */
static int warm_cold_rows(struct ax_html_ctx *c, const session_t *cold)
{
	const struct ax_db_sessions *all = c->d->sessions;
	bool hib = higher_better(c, cold);
	int ok, rows = 0;
	const trial_t *cb = best_trial(cold, hib, &ok);
	for (size_t i = 0; cb && i < all->n; i++) {
		const session_t *w = all->v[i];
		const trial_t *wb;
		if (is_cold(w) ||
		    strcmp(ax_html_str(w->suite), ax_html_str(cold->suite)) ||
		    strcmp(ax_html_str(w->device.fingerprint),
			   ax_html_str(cold->device.fingerprint)) ||
		    !same_point(&w->shape, &cold->shape) ||
		    !(wb = best_trial(w, hib, &ok)))
			continue;
		bool same = same_point(&wb->params, &cb->params);
		fputs("<tr><td>", c->f);
		ax_html_escape(c->f, ax_html_str(cold->suite));
		fputs(" ", c->f);
		params_text(&cold->shape, NULL, c->f);
		fputs("</td>", c->f);
		optimum_cell(c, w, wb);
		optimum_cell(c, cold, cb);
		fprintf(c->f, "<td>%s</td></tr>\n",
			same ? "the same point"
			     : "<strong>different points</strong>: export "
			       "the one measured in the mode the kernel "
			       "will run in");
		rows++;
	}
	return rows;
}

static void warm_cold(struct ax_html_ctx *c)
{
	const struct ax_db_sessions *all = c->d->sessions;
	bool any = false;
	for (size_t i = 0; i < all->n && !any; i++)
		any = is_cold(all->v[i]);
	if (!any)
		return;
	fputs("<h3>Warm and cold optima</h3>\n<p>Sessions of one suite, "
	      "device and shape tuned in batch mode (repetitions back to "
	      "back, caches warm) and in cold mode (<code>tune --mode "
	      "cold</code>: caches scrubbed before each repetition), and "
	      "whether their best trials are the same point.</p>\n"
	      "<table><tr><th>Suite and shape</th><th>Best warm (batch)"
	      "</th><th>Best cold</th><th>Optima</th></tr>\n",
	      c->f);
	int rows = 0;
	for (size_t i = 0; i < all->n; i++)
		if (is_cold(all->v[i]))
			rows += warm_cold_rows(c, all->v[i]);
	if (!rows)
		fputs("<tr><td colspan=\"4\">No batch session of the same "
		      "suite, device and shape as a cold one, or no best "
		      "trial on one side: nothing to compare.</td></tr>\n",
		      c->f);
	fputs("</table>\n", c->f);
}

void ax_html_section_tuner(struct ax_html_ctx *c)
{
	const struct ax_db_sessions *all = c->d->sessions;
	ax_html_h2(c, "tuner", "Tuning sessions");
	if (!all || all->n == 0) {
		ax_html_empty(c, "No tuning sessions in the selected data: run "
				 "`axbench tune` to see convergence here.");
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
	for (size_t i = 0; i < all->n; i++) {
		/* One chart per suite, where its first session is. */
		const char *suite = ax_html_str(all->v[i]->suite);
		size_t j = 0;
		while (j < i && strcmp(ax_html_str(all->v[j]->suite), suite))
			j++;
		if (j == i)
			convergence_chart(c, suite);
	}
	fputs("<h3>Best point of each session</h3>\n<p>The best trial, the "
	      "parameters the session varied, and, where the session "
	      "measured its best point beside the defaults at the end, both "
	      "figures and the speed-up: with its 95 % interval where the "
	      "two were measured in alternating (paired) rounds, a ratio "
	      "of two figures taken one after the other otherwise.</p>\n"
	      "<div class=\"wide\"><table><tr><th>Session</th><th>Shape"
	      "</th><th>Trials ok</th><th>Stopped because</th><th>Best "
	      "trial</th><th>Best parameters</th><th>Re-timed best / "
	      "defaults</th><th>Best against defaults</th></tr>\n",
	      c->f);
	for (size_t i = 0; i < all->n; i++)
		best_row(c, all->v[i]);
	fputs("</table></div>\n", c->f);
	warm_cold(c);
	fputs("<h3>Which parameters mattered</h3>\n<p>For each parameter, the "
	      "range of the mean objective over the values tried, as a "
	      "share of the best value found.</p>\n<table><tr><th>Session"
	      "</th><th>Parameter</th><th>Values tried</th><th>Spread of "
	      "mean objective</th></tr>\n",
	      c->f);
	for (size_t i = 0; i < all->n; i++)
		mattered(c, all->v[i]);
	fputs("</table>\n", c->f);
}
