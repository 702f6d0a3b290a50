/* reports/html_suites.c - median bars per suite with IQR whiskers, % of
 * the measured peak, and the list of results that need attention. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* strverscmp */
#endif
#include "reports/html_escape.h"
#include "reports/html_internal.h"
#include "reports/suite_doc.h"
#include "reports/svg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define BARS_PER_CHART 40

struct row {
	const json_t *r;
	char *label; /* case label */
	int dev;
	double run;
};

/* "64K" -> 65536, "37" -> 37; false when the text is not such a number. */
static bool label_number(const char *s, size_t len, double *out)
{
	char buf[32], *end;
	if (len == 0 || len >= sizeof(buf))
		return false;
	memcpy(buf, s, len);
	buf[len] = 0;
	double v = strtod(buf, &end);
	const char *units = "KMG";
	const char *u = *end ? strchr(units, *end) : NULL;
	if (u && end[1] == 0)
		v *= pow(1024, (double)(u - units + 1));
	else if (*end)
		return false;
	*out = v;
	return true;
}

/* Case labels compare token by token ("name=value"), values as numbers
 * with K/M/G suffixes where they are numbers: chunk=64K before chunk=1M. */
static int label_cmp(const char *a, const char *b)
{
	while (*a && *b) {
		size_t la = strcspn(a, " "), lb = strcspn(b, " ");
		const char *va = memchr(a, '=', la), *vb = memchr(b, '=', lb);
		double na, nb;
		int c = 0;
		if (va && vb && va - a == vb - b &&
		    !memcmp(a, b, (size_t)(va - a)) &&
		    label_number(va + 1, la - (size_t)(va + 1 - a), &na) &&
		    label_number(vb + 1, lb - (size_t)(vb + 1 - b), &nb))
			c = (na > nb) - (na < nb);
		else
			c = strncmp(a, b, la < lb ? la : lb);
		if (c == 0)
			c = (la > lb) - (la < lb);
		if (c)
			return c;
		a += la + (a[la] == ' ');
		b += lb + (b[lb] == ' ');
	}
	return (*a != 0) - (*b != 0);
}

static int row_cmp(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	int c = label_cmp(x->label, y->label);
	if (c)
		return c;
	if (x->dev != y->dev)
		return x->dev - y->dev;
	return (x->run > y->run) - (x->run < y->run);
}

/* Highest median of a compute-peak suite on device dev in unit, or NAN. */
static double measured_peak(const struct ax_html_ctx *c, int dev,
			    const char *unit)
{
	double best = NAN;
	size_t i;
	json_t *r;
	json_array_foreach(c->d->results, i, r)
	{
		if (!ax_html_ok(r) ||
		    !ax_suite_doc_result_has_role(c->d->suites, r,
						  AX_ROLE_COMPUTE_PEAK) ||
		    strcmp(ax_html_jstr(r, "unit"), unit) ||
		    ax_html_device_index(c, r) != dev)
			continue;
		double m = ax_html_jnum(r, "median");
		if (isfinite(m) && !(m <= best))
			best = m;
	}
	return best;
}

static void bar_text(const struct ax_html_ctx *c, const struct row *w,
		     char *label, size_t ll, char *note, size_t nl)
{
	char badges[200];
	int n = snprintf(label, ll, "%s", w->label);
	if (json_array_size(c->devices) > 1)
		n += snprintf(label + n, ll - (size_t)n, " - %s",
			      ax_html_device_name(c, w->dev));
	if (c->n_runs > 1)
		snprintf(label + n, ll - (size_t)n, " - run %.0f", w->run);
	note[0] = 0;
	double peak = measured_peak(c, w->dev, ax_html_jstr(w->r, "unit"));
	if (isfinite(peak) && peak > 0 &&
	    !ax_suite_doc_result_has_role(c->d->suites, w->r,
					  AX_ROLE_COMPUTE_PEAK))
		snprintf(note, nl, "%.0f%% of measured peak",
			 100 * ax_html_jnum(w->r, "median") / peak);
	ax_html_badges(w->r, badges, sizeof(badges));
	if (*badges)
		snprintf(note + strlen(note), nl - strlen(note), "%s[%s]",
			 *note ? " " : "", badges);
}

static void chart(struct ax_html_ctx *c, const char *suite, const char *unit,
		  bool hib, const char *common, struct row *rows, int n,
		  int part, int parts)
{
	struct ax_svg_bar *bars = calloc((size_t)n, sizeof(*bars));
	char(*labels)[200] = calloc((size_t)n, sizeof(*labels));
	char(*notes)[240] = calloc((size_t)n, sizeof(*notes));
	int nd = (int)json_array_size(c->devices);
	const char **legend = calloc((size_t)nd + 1, sizeof(char *));
	char(*names)[300] = calloc((size_t)nd + 1, sizeof(*names));
	if (bars && labels && notes && legend && names) {
		for (int i = 0; i < n; i++) {
			bar_text(c, &rows[i], labels[i], sizeof(labels[i]),
				 notes[i], sizeof(notes[i]));
			bars[i] = (struct ax_svg_bar){
			    labels[i],
			    rows[i].dev,
			    ax_html_jnum(rows[i].r, "median"),
			    ax_html_jnum(rows[i].r, "q1"),
			    ax_html_jnum(rows[i].r, "q3"),
			    notes[i]};
		}
		for (int i = 0; i < nd; i++) {
			snprintf(names[i], sizeof(names[i]), "%s",
				 ax_html_device_name(c, i));
			legend[i] = names[i];
		}
		char title[300], axis[100];
		int k = snprintf(title, sizeof(title),
				 "%s: median %s (%s is "
				 "better); whiskers: interquartile range",
				 suite, unit, hib ? "higher" : "lower");
		if (parts > 1)
			k += snprintf(title + k, sizeof(title) - (size_t)k,
				      " (part %d of %d)", part, parts);
		if (*common) {
			fputs("<p class=\"common\">Every bar: ", c->f);
			ax_html_escape(c->f, common);
			fputs("</p>\n", c->f);
		}
		snprintf(axis, sizeof(axis), "%s, %s is better", unit,
			 hib ? "higher" : "lower");
		ax_svg_hbars(c->f, title, axis, bars, n, legend,
			     nd > 1 ? nd : 0);
	}
	free(bars);
	free(labels);
	free(notes);
	free(legend);
	free(names);
}

/* Ok results of suite in unit, sorted by case, device, run. */
static int collect(struct ax_html_ctx *c, const char *suite, const char *unit,
		   struct row *rows, bool *hib)
{
	size_t i;
	json_t *r;
	int n = 0;
	json_array_foreach(c->d->results, i, r)
	{
		if (!ax_html_ok(r) || strcmp(ax_html_jstr(r, "suite"), suite) ||
		    strcmp(ax_html_jstr(r, "unit"), unit))
			continue;
		char *l = ax_html_case_label(r);
		rows[n++] = (struct row){r, l ? l : strdup(""),
					 ax_html_device_index(c, r),
					 ax_html_jnum(r, "run_id")};
		*hib = json_is_true(json_object_get(r, "higher_is_better"));
	}
	qsort(rows, (size_t)n, sizeof(*rows), row_cmp);
	return n;
}

/* Does every label hold token tok (a whole "name=value")? */
static bool token_everywhere(char *const *labels, int n, const char *tok,
			     size_t len)
{
	for (int i = 0; i < n; i++) {
		const char *l = labels[i];
		bool found = false;
		while (*l && !found) {
			size_t k = strcspn(l, " ");
			found = k == len && !memcmp(l, tok, len);
			l += k + (l[k] == ' ');
		}
		if (!found)
			return false;
	}
	return true;
}

/* Remove token tok (len bytes) from label l, in place. */
static void drop_token(char *l, const char *tok, size_t k)
{
	char *p = l;
	while (*p) {
		size_t m = strcspn(p, " ");
		if (m == k && !memcmp(p, tok, k)) {
			size_t skip = k + (p[k] == ' ');
			memmove(p, p + skip, strlen(p + skip) + 1);
			break;
		}
		p += m + (p[m] == ' ');
	}
	size_t len = strlen(l);
	if (len && l[len - 1] == ' ')
		l[len - 1] = 0;
}

/*
 * Parameters equal in every case of a chart say nothing about the bars:
 * they move into the title (common) and out of the labels, so the labels
 * show what varies and fit their column.
 */
void ax_html_strip_common(char **labels, int n, char *common, size_t clen)
{
	size_t used = 0;
	common[0] = 0;
	if (n < 2)
		return;
	char *first = strdup(labels[0]);
	for (char *t = first, *next; first && *t; t = next) {
		size_t k = strcspn(t, " ");
		next = t + k + (t[k] == ' ');
		if (!token_everywhere(labels, n, t, k))
			continue;
		if (used + k + 2 < clen) {
			used += (size_t)snprintf(common + used, clen - used,
						 "%s%.*s", used ? " " : "",
						 (int)k, t);
		}
		for (int i = 0; i < n; i++)
			drop_token(labels[i], t, k);
	}
	free(first);
}

/* ax_html_strip_common over the rows' labels. */
static void strip_common(struct row *rows, int n, char *common, size_t clen)
{
	char **labels = calloc((size_t)n + 1, sizeof(char *));
	common[0] = 0;
	if (!labels)
		return;
	for (int i = 0; i < n; i++)
		labels[i] = rows[i].label;
	ax_html_strip_common(labels, n, common, clen);
	free(labels);
}

static void suite_charts(struct ax_html_ctx *c, const char *suite,
			 const char *unit)
{
	struct row *rows =
	    calloc(json_array_size(c->d->results) + 1, sizeof(*rows));
	bool hib = true;
	if (!rows)
		return;
	int n = collect(c, suite, unit, rows, &hib);
	char common[400];
	strip_common(rows, n, common, sizeof(common));
	int parts = (n + BARS_PER_CHART - 1) / BARS_PER_CHART;
	for (int p = 0; p < parts && !ax_html_stopped(c); p++) {
		int k = n - p * BARS_PER_CHART;
		chart(c, suite, unit, hib, common, rows + p * BARS_PER_CHART,
		      k < BARS_PER_CHART ? k : BARS_PER_CHART, p + 1, parts);
	}
	for (int i = 0; i < n; i++)
		free(rows[i].label);
	free(rows);
}

void ax_html_section_medians(struct ax_html_ctx *c)
{
	json_t *seen = json_object();
	size_t i;
	json_t *r;
	ax_html_h2(c, "medians", "Medians per suite and case");
	json_array_foreach(c->d->results, i, r)
	{
		char key[300];
		if (!ax_html_ok(r) || ax_html_stopped(c))
			continue;
		snprintf(key, sizeof(key), "%s\x1f%s", ax_html_jstr(r, "suite"),
			 ax_html_jstr(r, "unit"));
		if (json_object_get(seen, key))
			continue;
		json_object_set_new(seen, key, json_true());
		suite_charts(c, ax_html_jstr(r, "suite"),
			     ax_html_jstr(r, "unit"));
	}
	if (json_object_size(seen) == 0)
		ax_html_empty(c, "No successful results in the selected data, "
				 "so there is nothing to chart.");
	json_decref(seen);
}

/* ---- attention -------------------------------------------------------- */

static void attention_row(struct ax_html_ctx *c, const json_t *r,
			  const char *badges)
{
	char *label = ax_html_case_label(r);
	fprintf(c->f, "<tr><td>%.0f</td><td>", ax_html_jnum(r, "run_id"));
	ax_html_escape(c->f, ax_html_jstr(r, "suite"));
	fputs("</td><td>", c->f);
	ax_html_escape(c->f, label);
	fputs("</td><td>", c->f);
	ax_html_escape(c->f,
		       ax_html_device_name(c, ax_html_device_index(c, r)));
	fputs("</td><td>", c->f);
	char *tok = strdup(badges), *save = NULL;
	for (char *b = strtok_r(tok, ",", &save); b;
	     b = strtok_r(NULL, ",", &save)) {
		fputs("<span class=\"badge\">", c->f);
		ax_html_escape(c->f, b + (*b == ' '));
		fputs("</span>", c->f);
	}
	free(tok);
	fputs("</td><td>", c->f);
	ax_html_escape(c->f, ax_html_jstr(r, "error"));
	fputs("</td></tr>\n", c->f);
	free(label);
}

void ax_html_section_attention(struct ax_html_ctx *c)
{
	size_t i;
	json_t *r;
	int n = 0;
	ax_html_h2(c, "attention", "Results that need attention");
	json_array_foreach(c->d->results, i, r)
	{
		char badges[200];
		ax_html_badges(r, badges, sizeof(badges));
		if (!*badges)
			continue;
		if (n++ == 0)
			fputs("<p>Failed results are never shown as speeds; "
			      "noisy ones have a median interval wider than "
			      "+/-5 %; throttled ones were measured on a "
			      "slowed device (the efficiency section has the "
			      "evidence).</p>\n<table><tr><th>Run</th><th>Suite"
			      "</th><th>Case</th><th>Device</th><th>Badges"
			      "</th><th>Error</th></tr>\n",
			      c->f);
		attention_row(c, r, badges);
	}
	if (n)
		fputs("</table>\n", c->f);
	else
		ax_html_empty(c, "No failed, timed-out, noisy or throttled "
				 "results.");
}
