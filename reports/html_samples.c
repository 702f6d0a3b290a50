/* reports/html_samples.c - the raw samples of the compared runs only
 * (report --samples-for), each case as a small box and strip plot, one
 * row per run: how the repetitions spread, which a median and its
 * interval cannot show.  Other runs are drawn from their summaries. */
#include "reports/html_escape.h"
#include "reports/html_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PLOT_W 640
#define ROW_H 22
#define LABEL_W 190
/* Dots drawn per run: every k-th sample past this; the box and whiskers
 * come from all of them. */
#define MAX_DOTS 200

static int dbl_cmp(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return a < b ? -1 : a > b;
}

/* The finite sample values of r, sorted (caller frees); n of them. */
static double *sorted_values(const struct ax_db_result_row *r, size_t *n)
{
	size_t m = r->samples ? r->n_samples : 0;
	double *v = malloc(sizeof(double) * (m + 1));
	*n = 0;
	for (size_t i = 0; v && i < m; i++)
		if (isfinite(r->samples[i]))
			v[(*n)++] = r->samples[i];
	if (v)
		qsort(v, *n, sizeof(double), dbl_cmp);
	return v;
}

static double quantile(const double *v, size_t n, double q)
{
	double at = q * (double)(n - 1);
	size_t i = (size_t)at;
	return i + 1 < n ? v[i] + (at - (double)i) * (v[i + 1] - v[i]) : v[i];
}

/* The case of a sampled result: device, suite and parameters. */
static void key_of(const struct ax_db_result_row *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s\x1f%s\x1f%s\x1f%s",
		 ax_html_str(r->device.fingerprint), ax_html_str(r->suite),
		 ax_html_str(r->unit), ax_html_str(r->params_hash));
}

static double x_of(double v, double lo, double hi)
{
	double w = PLOT_W - LABEL_W - 20;
	return LABEL_W + (hi > lo ? w * (v - lo) / (hi - lo) : w / 2);
}

static void plot_row(struct ax_html_ctx *c, const struct ax_db_result_row *r,
		     int row, double lo, double hi)
{
	size_t n;
	double *v = sorted_values(r, &n);
	double y = 8 + ROW_H * row + ROW_H / 2.0;
	char name[300], tip[600];
	ax_html_run_name(c, r->source, r->run_id, name, sizeof(name));
	fprintf(c->f, "<text x=\"4\" y=\"%.1f\">", y + 4);
	ax_html_escape(c->f, name);
	fputs("</text>", c->f);
	if (!v || n == 0) {
		fprintf(c->f,
			"<text x=\"%d\" y=\"%.1f\" class=\"note\">no "
			"samples stored</text>",
			LABEL_W, y + 4);
		free(v);
		return;
	}
	double q1 = quantile(v, n, 0.25), q2 = quantile(v, n, 0.5),
	       q3 = quantile(v, n, 0.75);
	snprintf(tip, sizeof(tip),
		 "%s: %zu samples, min %.4g, quartiles %.4g / %.4g / %.4g, "
		 "max %.4g %s",
		 name, n, v[0], q1, q2, q3, v[n - 1], ax_html_str(r->unit));
	fputs("<g><title>", c->f);
	ax_html_escape(c->f, tip);
	fprintf(c->f,
		"</title><line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" "
		"y2=\"%.1f\" stroke=\"#888\"/>",
		x_of(v[0], lo, hi), x_of(v[n - 1], lo, hi), y, y);
	fprintf(c->f,
		"<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"12\" "
		"fill=\"#eef3f8\" stroke=\"#0072B2\"/>",
		x_of(q1, lo, hi), y - 6,
		fmax(1, x_of(q3, lo, hi) - x_of(q1, lo, hi)));
	fprintf(c->f,
		"<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" "
		"stroke=\"#0072B2\" stroke-width=\"2\"/>",
		x_of(q2, lo, hi), x_of(q2, lo, hi), y - 7, y + 7);
	size_t every = n > MAX_DOTS ? (n + MAX_DOTS - 1) / MAX_DOTS : 1;
	for (size_t i = 0; i < n; i += every)
		fprintf(c->f,
			"<circle cx=\"%.1f\" cy=\"%.1f\" r=\"1.6\" "
			"fill=\"#E69F00\" fill-opacity=\"0.6\"/>",
			x_of(v[i], lo, hi), y + 9 - (double)(i % 3) * 3);
	fputs("</g>", c->f);
	free(v);
}

/* One case: every sampled result of it, a row each. */
static void plot_case(struct ax_html_ctx *c, const struct ax_db_result_row **rs,
		      int n)
{
	double lo = INFINITY, hi = -INFINITY;
	for (int i = 0; i < n; i++) {
		size_t m;
		double *v = sorted_values(rs[i], &m);
		if (v && m) {
			lo = fmin(lo, v[0]);
			hi = fmax(hi, v[m - 1]);
		}
		free(v);
	}
	char *label = ax_html_case_label(rs[0]);
	fputs("<p class=\"cap\">", c->f);
	ax_html_escape(c->f, ax_html_str(rs[0]->suite));
	fputs(" ", c->f);
	ax_html_escape(c->f, label ? label : "");
	fputs(" on ", c->f);
	ax_html_escape(c->f, ax_html_str(rs[0]->device.name));
	fputs(" (", c->f);
	ax_html_escape(c->f, ax_html_str(rs[0]->unit));
	fprintf(c->f, ", %.4g to %.4g)</p>\n", lo, hi);
	free(label);
	int h = 16 + ROW_H * n;
	fprintf(c->f,
		"<svg width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"role=\"img\" aria-label=\"samples of %d run%s\">",
		PLOT_W, h, PLOT_W, h, n, n == 1 ? "" : "s");
	for (int i = 0; i < n; i++)
		plot_row(c, rs[i], i, lo, hi);
	fputs("</svg>\n", c->f);
}

void ax_html_section_samples(struct ax_html_ctx *c)
{
	const struct ax_db_results *sampled = c->d->sampled;
	size_t n = sampled ? sampled->n : 0;
	ax_html_h2(c, "samples", "Samples of the compared runs");
	if (n == 0) {
		ax_html_empty(c, "No run's raw samples were asked for "
				 "(report --samples-for RUN,...).");
		return;
	}
	fputs("<p>Raw samples of ", c->f);
	ax_html_escape(c->f, c->d->sampled_runs ? c->d->sampled_runs
						: "the compared runs");
	fputs(", each case a row per run: the box spans the quartiles, the "
	      "bar is the median, the line runs from the fastest to the "
	      "slowest sample and the dots are the samples.</p>\n",
	      c->f);
	const struct ax_db_result_row **rs = calloc(n + 1, sizeof(*rs));
	bool *done = calloc(n + 1, sizeof(*done));
	for (size_t i = 0; rs && done && i < n && !ax_html_stopped(c); i++) {
		char key[1200], other[1200];
		const struct ax_db_result_row *r = sampled->v[i];
		if (done[i] || !r->ok)
			continue;
		key_of(r, key, sizeof(key));
		int m = 0;
		for (size_t j = i; j < n; j++) {
			const struct ax_db_result_row *o = sampled->v[j];
			key_of(o, other, sizeof(other));
			if (!done[j] && o->ok && !strcmp(key, other)) {
				rs[m++] = o;
				done[j] = true;
			}
		}
		plot_case(c, rs, m);
	}
	free(rs);
	free(done);
}
