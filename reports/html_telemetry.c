/* reports/html_telemetry.c - the telemetry of sustained results against
 * time: small charts of power, temperature and SM clock side by side,
 * the start of the timed span marked, long series thinned to at most
 * AX_HTML_TELEMETRY_POINTS readings (the caption says so). */
#include "core/error.h"
#include "reports/html_escape.h"
#include "reports/html_internal.h"
#include "reports/svg.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

typedef struct ax_db_series_row series_t;

struct metric {
	size_t off;	   /* the column of the series */
	const char *title; /* chart title */
	const char *axis;  /* value axis */
	const char *name;  /* legend and "not measured" list */
};

#define DEGREES "\xc2\xb0" /* the degree sign, UTF-8 */
#define COL(f) offsetof(series_t, f)

static const struct metric metrics[] = {
    {COL(power_w), "Power (W)", "W", "power"},
    {COL(temp_c), "Temperature (" DEGREES "C)", DEGREES "C", "temperature"},
    {COL(sm_mhz), "SM clock (MHz)", "MHz", "SM clock"},
};
#define N_METRICS (sizeof(metrics) / sizeof(metrics[0]))

static const double *column(const series_t *s, const struct metric *m)
{
	return *(double *const *)((const char *)s + m->off);
}

/* ---- thinning ---------------------------------------------------------- */

void ax_html_telemetry_thin(series_t *s, size_t max,
			    struct ax_html_telemetry *out)
{
	*out = (struct ax_html_telemetry){s, s->n, 1};
	if (max == 0 || s->n <= max)
		return;
	size_t k = (s->n + max - 1) / max, kept = 0;
	double *cols[] = {s->t,	     s->power_w, s->energy_j,  s->temp_c,
			  s->sm_mhz, s->mem_mhz, s->mem_used_b};
	for (size_t j = 0; j < s->n; j += k, kept++)
		for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++)
			if (cols[i])
				cols[i][kept] = cols[i][j];
	s->n = kept;
	out->thinned_every = k;
}

/* ---- charts ------------------------------------------------------------ */

static bool any_finite(const series_t *s, const double *v)
{
	for (size_t j = 0; v && j < s->n; j++)
		if (isfinite(v[j]))
			return true;
	return false;
}

static size_t draw_stride(const series_t *s)
{
	size_t n = s->n;
	return n <= AX_HTML_TELEMETRY_POINTS
		   ? 1
		   : (n + AX_HTML_TELEMETRY_POINTS - 1) /
			 AX_HTML_TELEMETRY_POINTS;
}

/* One metric against time, one line in the device's colour, and a dashed
 * vertical line where the timed span starts. */
static void metric_chart(struct ax_html_ctx *c, const series_t *tel,
			 const struct metric *m, int dev)
{
	const double *t = tel->t, *v = column(tel, m);
	size_t n = t && v ? tel->n : 0;
	size_t stride = draw_stride(tel), cap = n / stride + 1;
	double *x = calloc(cap, sizeof(double)),
	       *y = calloc(cap, sizeof(double));
	double ymax = 0;
	int k = 0;
	for (size_t j = 0; x && y && j < n; j += stride, k++) {
		x[k] = t[j];
		y[k] = v[j];
		if (isfinite(y[k]))
			ymax = fmax(ymax, y[k]);
	}
	double t0 = tel->timed_from_s;
	double mx[2] = {t0, t0}, my[2] = {0, ymax > 0 ? ymax : 1};
	char mark[80];
	snprintf(mark, sizeof(mark), "timed span from %.3g s", t0);
	struct ax_svg_series s[2] = {
	    {m->name, x, y, x && y ? k : 0, AX_SVG_LINES, dev, 0, NULL},
	    {mark, mx, my, 2, AX_SVG_DASHED, 6, 0, NULL},
	};
	struct ax_svg_plot p = {.title = m->title,
				.xlabel = "time (s)",
				.ylabel = m->axis,
				.compact = true};
	ax_svg_plot(c->f, &p, s, isfinite(t0) ? 2 : 1);
	free(x);
	free(y);
}

/* What the charts of one result show: the case, the sensor and its
 * interval, how many readings and how many of them are drawn, where the
 * timed span lies, and what the sensor did not measure. */
static void caption(struct ax_html_ctx *c, const struct ax_db_result_row *r,
		    const struct ax_html_telemetry *tm, int dev)
{
	const series_t *tel = tm->series;
	char *label = ax_html_case_label(r);
	/* The readings the series had before thinning, and one in how many
	 * of them this chart draws (the thinning times the drawing's
	 * own). */
	size_t total = tm->n_readings > tel->n ? tm->n_readings : tel->n;
	size_t every = draw_stride(tel);
	if (tm->thinned_every > 1)
		every *= tm->thinned_every;
	fputs("<p class=\"cap\"><strong>", c->f);
	ax_html_escape(c->f, ax_html_str(r->suite));
	fputs(" ", c->f);
	ax_html_escape(c->f, label ? label : "");
	fputs("</strong> on ", c->f);
	char run[300];
	ax_html_system_chip(c, dev);
	fprintf(c->f, ", ");
	ax_html_escape(
	    c->f, ax_html_run_name(c, r->source, r->run_id, run, sizeof(run)));
	if (!r->ok) {
		fputs(" <span class=\"badge\">", c->f);
		ax_html_escape(c->f, ax_html_str(r->status));
		fputs("</span>", c->f);
	}
	fputs(": ", c->f);
	ax_html_escape(c->f,
		       *ax_html_str(tel->source) ? tel->source : "sensor");
	fprintf(c->f, " every %.3g s, %zu readings", tel->interval_s, total);
	if (every > 1)
		fprintf(c->f,
			", 1 in %zu drawn (to keep the report small; the "
			"table's maximum covers them all)",
			every);
	double t0 = tel->timed_from_s;
	double span = r->power.present ? r->power.seconds : NAN;
	if (isfinite(t0))
		fprintf(c->f, "; the timed span starts at %.3g s (dashed line)",
			t0);
	if (isfinite(t0) && isfinite(span))
		fprintf(c->f, " and lasts %.3g s", span);
	int missing = 0;
	for (size_t i = 0; i < N_METRICS; i++)
		if (!any_finite(tel, column(tel, &metrics[i])))
			fprintf(c->f, "%s%s",
				missing++ ? ", " : ". Not measured: ",
				metrics[i].name);
	fputs(".</p>\n", c->f);
	free(label);
}

static void result_charts(struct ax_html_ctx *c,
			  const struct ax_db_result_row *r,
			  const struct ax_html_telemetry *tm)
{
	int dev = ax_html_system_of(c, r);
	caption(c, r, tm, dev);
	fputs("<div class=\"tl\">\n", c->f);
	for (size_t i = 0; i < N_METRICS && !ax_html_stopped(c); i++)
		if (any_finite(tm->series, column(tm->series, &metrics[i])))
			metric_chart(c, tm->series, &metrics[i], dev);
	fputs("</div>\n", c->f);
}

/* A sustained result whose series the database holds (the caller may
 * have left it out: it attaches at most AX_HTML_TELEMETRY_MAX). */
static bool has_stored_series(const struct ax_db_result_row *r)
{
	return r->sustained && r->power.present && r->power.series_id;
}

void ax_html_section_telemetry(struct ax_html_ctx *c)
{
	int drawn = 0, left_out = 0;
	for (size_t i = 0; i < c->d->results->n; i++) {
		const struct ax_db_result_row *r = c->d->results->v[i];
		const struct ax_html_telemetry *tel =
		    c->d->telemetry && c->d->telemetry[i].series
			? &c->d->telemetry[i]
			: NULL;
		if (!tel || drawn == AX_HTML_TELEMETRY_MAX ||
		    ax_html_stopped(c)) {
			left_out += has_stored_series(r) || tel;
			continue;
		}
		if (drawn++ == 0)
			fputs("<h3>Sustained runs against time</h3>\n<p>The "
			      "sensor's readings from the case's set-up to "
			      "its end (<code>axbench run --sustain</code>)."
			      "</p>\n",
			      c->f);
		result_charts(c, r, tel);
	}
	if (left_out)
		fprintf(c->f,
			"<p class=\"empty\">%d more sustained result%s with a "
			"stored series not drawn here (a report draws at most "
			"%d).</p>\n",
			left_out, left_out == 1 ? "" : "s",
			AX_HTML_TELEMETRY_MAX);
}
