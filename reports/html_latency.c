/*
 * reports/html_latency.c - the model layers' latency (issue 36): for the
 * results with a latency distribution (extra.latency, scenario=single or
 * server), p50 and p99 against batch per shape, and a table of the
 * percentiles, the glue overhead (the pass over its kernels timed
 * alone), GFLOP/s and the server scenario's highest rate within its SLO.
 */
#include "reports/html_internal.h"

#include "core/db_rows.h"
#include "reports/html_escape.h"
#include "reports/svg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct ax_db_result_row row_t;

static bool has_latency(const row_t *r)
{
	return r->ok && isfinite(ax_db_extra_num(r, "latency.p99_ms")) &&
	       isfinite(ax_db_param_num(&r->params, "batch"));
}

/* A shape's label: the suite, the device and every parameter but the
 * batch and the pass count (its curve's key). */
static void shape_key(const row_t *r, char *key, size_t len)
{
	size_t n = (size_t)snprintf(key, len, "%s %s", r->suite,
				    r->device.name ? r->device.name : "");
	for (int i = 0; i < r->params.n && n < len; i++) {
		const struct ax_db_param *p = &r->params.v[i];
		char buf[64];
		if (!strcmp(p->name, "batch") || !strcmp(p->name, "passes") ||
		    !strncmp(p->name, "gemm_", 5) ||
		    !strncmp(p->name, "att_", 4))
			continue;
		n += (size_t)snprintf(
		    key + n, len - n, " %s=%s", p->name,
		    ax_db_param_value_text(p, buf, sizeof(buf)));
	}
}

struct lat_pt {
	char key[400];
	double batch, p50, p99;
	int64_t id;
};

static int by_key_batch(const void *a, const void *b)
{
	const struct lat_pt *x = a, *y = b;
	int c = strcmp(x->key, y->key);
	if (c)
		return c;
	if (x->batch != y->batch)
		return x->batch < y->batch ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* p50 and p99 of each shape against batch, the newest result per batch;
 * drawn where some shape has two batches or more. */
static void latency_chart(struct ax_html_ctx *c, struct lat_pt *pts, size_t n)
{
	qsort(pts, n, sizeof(*pts), by_key_batch);
	struct ax_svg_series *s = calloc(2 * n, sizeof(*s));
	double *x = calloc(n, sizeof(double)), *y50 = calloc(n, sizeof(double)),
	       *y99 = calloc(n, sizeof(double));
	int ns = 0, m = 0, longest = 0;
	for (size_t j = 0; s && x && y50 && y99 && j < n; j++) {
		if (j + 1 < n && !strcmp(pts[j].key, pts[j + 1].key) &&
		    pts[j].batch == pts[j + 1].batch)
			continue;
		if (ns == 0 || strcmp(s[ns - 1].name, pts[j].key)) {
			int col = ns / 2;
			s[ns++] = (struct ax_svg_series){
			    pts[j].key,
			    x + m,
			    y99 + m,
			    0,
			    AX_SVG_LINES | AX_SVG_MARKERS,
			    col,
			    0,
			    NULL,
			    "p99"};
			s[ns++] = (struct ax_svg_series){
			    pts[j].key,
			    x + m,
			    y50 + m,
			    0,
			    AX_SVG_LINES | AX_SVG_MARKERS | AX_SVG_DASHED,
			    col,
			    1,
			    NULL,
			    "p50"};
		}
		x[m] = pts[j].batch;
		y50[m] = pts[j].p50;
		y99[m++] = pts[j].p99;
		s[ns - 1].n++;
		s[ns - 2].n++;
		if (s[ns - 1].n > longest)
			longest = s[ns - 1].n;
	}
	if (longest >= 2) {
		struct ax_svg_plot p = {.title = "Latency against batch "
						 "(p99 solid, p50 dashed; "
						 "lower is better)",
					.xlabel = "batch",
					.ylabel = "ms per forward pass",
					.xlog = true,
					.xint = true};
		ax_svg_plot(c->f, &p, s, ns);
	} else {
		ax_html_empty(c, "One batch per shape: run a layer suite with "
				 "-p batch=1,2,4,8 for the latency curve.");
	}
	free(s);
	free(x);
	free(y50);
	free(y99);
}

static void cell_num(FILE *f, double v, const char *fmt)
{
	fputs("<td class=\"num\">", f);
	if (isfinite(v))
		fprintf(f, fmt, v);
	else
		fputs(AX_HTML_DASH, f);
	fputs("</td>", f);
}

static void latency_row(struct ax_html_ctx *c, const row_t *r, const char *key)
{
	FILE *f = c->f;
	fputs("<tr><td>", f);
	ax_html_escape(f, key);
	fputs("</td>", f);
	cell_num(f, ax_db_param_num(&r->params, "batch"), "%.0f");
	cell_num(f, ax_db_extra_num(r, "latency.p50_ms"), "%.3g");
	cell_num(f, ax_db_extra_num(r, "latency.p90_ms"), "%.3g");
	cell_num(f, ax_db_extra_num(r, "latency.p99_ms"), "%.3g");
	cell_num(f, r->median, "%.4g");
	fputs("<td>", f);
	ax_html_escape(f, r->unit ? r->unit : "");
	fputs("</td>", f);
	cell_num(f, ax_db_extra_num(r, "profile.glue_overhead"), "%.3f");
	cell_num(f, ax_db_extra_num(r, "gflops"), "%.3g");
	cell_num(f, ax_db_extra_num(r, "server.max_rate_per_s"), "%.4g");
	fputs("</tr>\n", f);
}

void ax_html_section_latency(struct ax_html_ctx *c)
{
	const struct ax_db_results *rs = c->d->results;
	size_t n = 0;
	for (size_t i = 0; i < rs->n; i++)
		n += has_latency(rs->v[i]);
	if (n == 0)
		return; /* no layer suite ran: no section */
	ax_html_h2(c, "latency", "Latency of model layers");
	struct lat_pt *pts = calloc(n, sizeof(*pts));
	if (!pts)
		return;
	FILE *f = c->f;
	fputs("<p>Each forward pass timed on the host, from recording its "
	      "command buffer to its fence (scenario=single or server), at "
	      "least 200 passes a result. Glue overhead: the pass's GPU time "
	      "over the sum of its kernels each timed alone (1.0: no cost "
	      "between kernels).</p>\n<table><tr><th>shape</th><th>batch</th>"
	      "<th>p50 ms</th><th>p90 ms</th><th>p99 ms</th><th>median</th>"
	      "<th>unit</th><th>glue</th><th>GFLOP/s</th><th>server "
	      "max rate/s</th></tr>\n",
	      f);
	size_t m = 0;
	for (size_t i = 0; i < rs->n; i++) {
		const row_t *r = rs->v[i];
		if (!has_latency(r))
			continue;
		struct lat_pt *p = &pts[m++];
		shape_key(r, p->key, sizeof(p->key));
		p->batch = ax_db_param_num(&r->params, "batch");
		p->p50 = ax_db_extra_num(r, "latency.p50_ms");
		p->p99 = ax_db_extra_num(r, "latency.p99_ms");
		p->id = r->id;
		latency_row(c, r, p->key);
	}
	fputs("</table>\n", f);
	latency_chart(c, pts, m);
	free(pts);
}
