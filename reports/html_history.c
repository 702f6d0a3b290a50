/* reports/html_history.c - each case (device, suite, parameters) across
 * runs: one row with a sparkline of its per-run medians, its changes
 * marked, as asv and Bencher draw history.  Drawn from the collection's
 * series (reports/html_collect.c): a few numbers per run, never the raw
 * samples, so the section stays small however long the history. */
#include "reports/html_escape.h"
#include "reports/html_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The sparkline's size in px, and the most points it draws: beyond
 * that every k-th point (with every change and the newest) still shows
 * the trend, and the embedded data keeps all of them. */
#define SPARK_W 260
#define SPARK_H 36
#define SPARK_MAX_POINTS 520

/* Mark the changes of s: a run whose median moved from the previous
 * measured run's by more than AX_HTML_CHANGE and whose 95 % interval
 * does not overlap that run's.  Needs only the stored summaries, so a
 * year of history is judged without reading a sample. */
static void mark_changes(struct ax_html_series *s)
{
	const struct ax_html_point *prev = NULL;
	for (size_t i = 0; i < s->n; i++) {
		struct ax_html_point *p = &s->pts[i];
		p->change = 0;
		if (!p->ok || !isfinite(p->median) || p->median <= 0)
			continue;
		if (prev) {
			double rel = p->median / prev->median - 1;
			bool apart =
			    p->ci_lo > prev->ci_hi || p->ci_hi < prev->ci_lo;
			if (fabs(rel) > AX_HTML_CHANGE && apart)
				p->change = (rel > 0) == s->hib ? 1 : -1;
		}
		prev = p;
	}
}

static bool drawn(const struct ax_html_series *s, size_t i, size_t every)
{
	return i % every == 0 || i + 1 == s->n || s->pts[i].change;
}

static double y_of(double v, double lo, double hi)
{
	double pad = 4, h = SPARK_H - 2 * pad;
	if (!(hi > lo))
		return SPARK_H / 2.0;
	return pad + h * (1 - (v - lo) / (hi - lo));
}

/* The sparkline: the medians of measured runs as a line, a failed run
 * as a cross at the bottom, a change as a dot (orange: worse, blue:
 * better). */
static void sparkline(struct ax_html_ctx *c, const struct ax_html_series *s,
		      int worse, int better)
{
	double lo = INFINITY, hi = -INFINITY;
	for (size_t i = 0; i < s->n; i++)
		if (s->pts[i].ok && isfinite(s->pts[i].median)) {
			lo = fmin(lo, s->pts[i].median);
			hi = fmax(hi, s->pts[i].median);
		}
	size_t every = s->n > SPARK_MAX_POINTS
			   ? (s->n + SPARK_MAX_POINTS - 1) / SPARK_MAX_POINTS
			   : 1;
	double dx = s->n > 1 ? (SPARK_W - 8.0) / (double)(s->n - 1) : 0;
	fprintf(c->f,
		"<svg class=\"spark\" width=\"%d\" height=\"%d\" viewBox=\"0 0 "
		"%d %d\" role=\"img\" aria-label=\"",
		SPARK_W, SPARK_H, SPARK_W, SPARK_H);
	char tip[512];
	snprintf(tip, sizeof(tip),
		 "%zu runs, medians from %.4g to %.4g %s; %d worse, %d better",
		 s->n, lo, hi, s->unit, worse, better);
	ax_html_escape(c->f, tip);
	fputs("\"><title>", c->f);
	ax_html_escape(c->f, tip);
	fputs("</title><polyline fill=\"none\" stroke=\"#555\" "
	      "stroke-width=\"1.2\" points=\"",
	      c->f);
	for (size_t i = 0; i < s->n; i++)
		if (s->pts[i].ok && isfinite(s->pts[i].median) &&
		    drawn(s, i, every))
			fprintf(c->f, "%.1f,%.1f ", 4 + dx * (double)i,
				y_of(s->pts[i].median, lo, hi));
	fputs("\"/>", c->f);
	for (size_t i = 0; i < s->n; i++) {
		const struct ax_html_point *p = &s->pts[i];
		double x = 4 + dx * (double)i;
		if (!p->ok && drawn(s, i, every))
			fprintf(c->f,
				"<path d=\"M%.1f %d l4 -4 m-4 0 l4 4\" "
				"stroke=\"#D55E00\"/>",
				x - 2, SPARK_H - 1);
		else if (p->change)
			fprintf(c->f,
				"<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.8\" "
				"fill=\"%s\"/>",
				x, y_of(p->median, lo, hi),
				p->change < 0 ? "#D55E00" : "#0072B2");
	}
	fputs("</svg>", c->f);
}

/* The newest measured run and the one before it, as text. */
static void newest_cell(struct ax_html_ctx *c, const struct ax_html_series *s)
{
	const struct ax_html_point *last = NULL, *prev = NULL;
	for (size_t i = s->n; i-- > 0 && !prev;)
		if (s->pts[i].ok && isfinite(s->pts[i].median)) {
			if (!last)
				last = &s->pts[i];
			else
				prev = &s->pts[i];
		}
	if (!last) {
		fputs("<td>no run measured it</td>", c->f);
		return;
	}
	fprintf(c->f, "<td class=\"num\">%.4g", last->median);
	if (prev) {
		double rel = last->median / prev->median - 1;
		const char *cls = last->change < 0   ? "slower"
				  : last->change > 0 ? "faster"
						     : "same";
		fprintf(c->f, " <span class=\"%s\">(%+.1f %%%s)</span>", cls,
			100 * rel,
			last->change < 0   ? ", worse"
			: last->change > 0 ? ", better"
					   : "");
	}
	fputs("</td>", c->f);
}

static void history_row(struct ax_html_ctx *c, struct ax_html_series *s,
			int *worse_total)
{
	int worse = 0, better = 0, failed = 0;
	for (size_t i = 0; i < s->n; i++) {
		worse += s->pts[i].change < 0;
		better += s->pts[i].change > 0;
		failed += !s->pts[i].ok;
	}
	*worse_total += worse;
	fputs("<tr><td>", c->f);
	ax_html_escape(c->f, s->suite);
	fputs(" ", c->f);
	ax_html_escape(c->f, s->label);
	fputs("</td><td>", c->f);
	ax_html_escape(c->f, s->device);
	fprintf(c->f, "</td><td class=\"num\">%zu", s->n);
	if (failed)
		fprintf(c->f, " <small>(%d failed)</small>", failed);
	fputs("</td><td>", c->f);
	sparkline(c, s, worse, better);
	fputs("</td>", c->f);
	newest_cell(c, s);
	fputs("<td>", c->f);
	ax_html_escape(c->f, s->unit);
	fprintf(c->f, "</td><td class=\"num\">%d worse, %d better</td></tr>\n",
		worse, better);
}

static int series_cmp(const void *x, const void *y)
{
	const struct ax_html_series *const *a = x, *const *b = y;
	int k = strcmp((*a)->suite, (*b)->suite);
	if (!k)
		k = ax_html_label_cmp((*a)->label, (*b)->label);
	return k ? k : strcmp((*a)->device, (*b)->device);
}

void ax_html_section_history(struct ax_html_ctx *c)
{
	struct ax_html_collect *k = c->history;
	size_t n = 0;
	int worse = 0;
	ax_html_h2(c, "history", "History across runs");
	struct ax_html_series **rows = calloc(k->n_series + 1, sizeof(*rows));
	if (!rows)
		return;
	for (size_t i = 0; i < k->n_series; i++) {
		mark_changes(&k->series[i]);
		if (k->series[i].n > 1)
			rows[n++] = &k->series[i];
	}
	if (n == 0) {
		ax_html_empty(c, "No case was measured on one machine (a "
				 "device on its host) in more than one of the "
				 "selected runs; runs of two machines are two "
				 "histories, never one.");
		free(rows);
		return;
	}
	qsort(rows, n, sizeof(*rows), series_cmp);
	fprintf(c->f,
		"<p>Each case on each device across runs, oldest to newest: "
		"one point per run (its median). A dot marks a change: a run "
		"whose median moved more than %.0f %% from the run before and "
		"whose 95 %% interval does not overlap that run's (orange: "
		"worse, blue: better); a cross marks a failed run. The "
		"<a href=\"#samples\">distributions</a> show the raw samples "
		"of the compared runs, and <code>axbench compare</code> "
		"judges two runs from their samples.</p>\n"
		"<table><tr><th>Case</th><th>Device</th><th>Runs</th>"
		"<th>History</th><th>Newest (against the run before)</th>"
		"<th>Unit</th><th>Changes</th></tr>\n",
		100 * AX_HTML_CHANGE);
	for (size_t i = 0; i < n && !ax_html_stopped(c); i++)
		history_row(c, rows[i], &worse);
	fprintf(c->f, "</table>\n<p>%d change%s for the worse marked.</p>\n",
		worse, worse == 1 ? "" : "s");
	free(rows);
}

/* The series as JSON text, by hand: numbers in 6 significant digits,
 * column by column, so that a point costs some 40 bytes and a year of
 * runs stays a size a browser opens.  Only numbers and escaped strings
 * are written. */
static void series_json(struct ax_html_ctx *c, const struct ax_html_series *s)
{
	/* The strings through jansson and the script-safe escaping; the
	 * columns after them by hand. */
	json_t *head = json_pack("{s:s,s:s,s:s,s:s,s:b}", "suite", s->suite,
				 "case", s->label, "device", s->device, "unit",
				 s->unit, "higher_is_better", s->hib);
	char *txt = head ? ax_json_for_html(head) : NULL;
	json_decref(head);
	size_t len = txt ? strlen(txt) : 0;
	if (len < 2) {
		free(txt);
		fputs("null", c->f);
		return;
	}
	fwrite(txt, 1, len - 1, c->f); /* without its closing brace */
	free(txt);
	fputs(",\"source\":[", c->f);
	for (size_t i = 0; i < s->n; i++)
		fprintf(c->f, "%s%d", i ? "," : "", s->pts[i].source);
	fputs("],\"run_id\":[", c->f);
	for (size_t i = 0; i < s->n; i++)
		fprintf(c->f, "%s%lld", i ? "," : "",
			(long long)s->pts[i].run_id);
	static const char *const cols[] = {"median", "ci_lo", "ci_hi"};
	for (int k = 0; k < 3; k++) {
		fprintf(c->f, "],\"%s\":[", cols[k]);
		for (size_t i = 0; i < s->n; i++) {
			const struct ax_html_point *p = &s->pts[i];
			double v = k == 0   ? p->median
				   : k == 1 ? p->ci_lo
					    : p->ci_hi;
			if (i)
				fputc(',', c->f);
			if (isfinite(v))
				fprintf(c->f, "%.6g", v);
			else
				fputs("null", c->f);
		}
	}
	fputs("],\"change\":[", c->f);
	for (size_t i = 0; i < s->n; i++)
		fprintf(c->f, "%s%d", i ? "," : "", s->pts[i].change);
	fputs("]}", c->f);
}

void ax_html_history_json(struct ax_html_ctx *c)
{
	const struct ax_html_collect *k = c->history;
	fputs("<script type=\"application/json\" id=\"axbench-history\">"
	      "{\"series\":[",
	      c->f);
	for (size_t i = 0; i < k->n_series; i++) {
		if (i)
			fputs(",\n", c->f);
		series_json(c, &k->series[i]);
	}
	fputs("]}</script>\n", c->f);
}
